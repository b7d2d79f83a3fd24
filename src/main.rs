//! `kcamp`: the command line over kcamp's crates. It wires the campaign engine
//! (kcamp-core) to the measurers (kcamp-runner, whose workers run kcamp-gpu), renders
//! reports (kcamp-report) and opens the dashboard (kcamp-tui).
//!
//! The process starts at a C `main` of its own, not through the Rust runtime's start: that
//! start reads `/proc/self/maps` to find the main thread's stack for its overflow message,
//! about 0.2 ms of every command on a 2-vCPU machine (`kcamp --version` 1.3 -> 1.1 ms;
//! `kcamp gate` is run every round, often by scripts: scripts/gate-perf/README.md). A stack
//! overflow on the main thread still ends the process, by SIGSEGV without that message.
//! What else kcamp needs of the runtime's start is done here.

// The unit tests of this crate run under the test harness's own entry.
#![cfg_attr(not(test), no_main)]

mod cli;

/// The entry the C runtime calls, with `std::env::args` already set up by it. (Under the
/// test harness it is an ordinary function that nothing calls.)
#[cfg_attr(not(test), unsafe(no_mangle))]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    start_like_std();
    // A panic is reported by the panic hook and ends the process with the exit code the
    // Rust runtime gives it; unwinding out of a C entry would abort instead.
    let code = std::panic::catch_unwind(cli::run).unwrap_or(PANIC_EXIT);
    // `exit` flushes stdout, as returning from the runtime's start would.
    std::process::exit(code)
}

/// The exit code of a process whose main thread panicked.
const PANIC_EXIT: i32 = 101;

/// What the Rust runtime's start does on Unix and kcamp relies on: standard streams that a
/// parent closed are opened on /dev/null (so that no file kcamp opens becomes its stdout),
/// and SIGPIPE is ignored (a reader that goes away, as in `kcamp gate a b | head`, is a
/// write error kcamp handles, not a kill). Children get SIGPIPE back: std restores it
/// when it spawns them.
fn start_like_std() {
    #[cfg(unix)]
    // SAFETY: fcntl(F_GETFD) only reads a descriptor's flags; open on a constant C string
    // takes the lowest free descriptor, which is the closed standard one; signal only
    // changes this process's disposition of SIGPIPE. Nothing else runs yet.
    unsafe {
        for fd in 0..3 {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}
