//! A measurement ends with its owner: workers and harness commands die when the `kcamp`
//! process that started them dies, however it dies (SIGKILL included), within a fraction
//! of a second. Three layers, because no single one covers every case:
//!
//! - [`die_with_parent`]: on Linux the child asks the kernel for SIGKILL when its parent
//!   goes (`PR_SET_PDEATHSIG`); the signal reaches the direct child only.
//! - [`GroupGuard`]: a small watchdog process holds the read end of a pipe whose write end
//!   only the owner holds; when the owner dies the pipe closes and the watchdog kills the
//!   child's whole process group (a harness's `python`, a shell pipeline). Works on any
//!   Unix.
//! - [`exit_when_orphaned`]: the worker itself watches its parent id and exits once it is
//!   reparented, for systems without `PR_SET_PDEATHSIG`.
//!
//! A descendant can leave the process group (`setsid`, `set -m`) and outlive its parent
//! (`nohup cmd &`, a double fork). Two more layers end those when the step ends:
//!
//! - [`adopt_descendants`]: kcamp is the subreaper of what it starts (Linux,
//!   `PR_SET_CHILD_SUBREAPER`), so an orphaned descendant becomes kcamp's child, never
//!   init's, and [`end_strays`] kills every child kcamp did not start itself.
//! - a token in the environment (`KCAMP_RUN_TOKEN`) that every descendant inherits:
//!   [`end_strays`], and the watchdog when kcamp dies, kill every process that carries it,
//!   wherever it went.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use kcamp_core::{Error, Result};

/// How often an orphaned worker notices that its parent is gone.
const ORPHAN_POLL: Duration = Duration::from_millis(100);

/// The environment variable that marks every process of one measurement.
pub(crate) const RUN_TOKEN_VAR: &str = "KCAMP_RUN_TOKEN";

/// Children this process started itself and waits for (workers, harness shells,
/// watchdogs): everything else that is its child is a stray.
static SPAWNED: std::sync::Mutex<std::collections::BTreeSet<u32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Spawn `command` as a child this process waits for itself. The list is held while it
/// spawns, so that [`end_strays`] in another thread (a sharded run's) never takes a child
/// for a stray in the instant between its start and its registration.
pub(crate) fn spawn(command: &mut Command) -> std::io::Result<Child> {
    let mut own = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    own.insert(child.id());
    Ok(child)
}

/// `pid` has been waited for.
pub(crate) fn reaped(pid: u32) {
    if let Ok(mut s) = SPAWNED.lock() {
        s.remove(&pid);
    }
}

/// A token unique to one measurement of this process, for [`RUN_TOKEN_VAR`].
pub(crate) fn run_token() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// Whether every child of this process that it did not start itself came from one of its
/// measurements ([`adopt_descendants`]).
static OWNS_ALL_CHILDREN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For a process whose only children are its measurements' (a `kcamp` command that
/// measures): make it the subreaper of its descendants (Linux; elsewhere nothing happens and
/// the environment token alone finds them), so that an orphan is re-parented to it, and let
/// [`end_strays`] kill every child it did not start itself. A library user (a test that
/// starts other processes beside a measurement) does not call it, and only the token is
/// followed there.
pub fn adopt_descendants() {
    #[cfg(target_os = "linux")]
    {
        if rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok() {
            OWNS_ALL_CHILDREN.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// Kill (SIGKILL) and reap what a measurement left: every process that carries `token` in
/// its environment, and every child of this process it did not start itself (an orphan it
/// adopted). Repeated until none is left, since killing a stray re-parents its own
/// children here. Returns how many it ended.
pub(crate) fn end_strays(token: &str) -> usize {
    let me = std::process::id();
    let needle = format!("{RUN_TOKEN_VAR}={token}");
    let mut ended = 0;
    for _ in 0..100 {
        // Held while it looks and kills: no child starts unregistered meanwhile.
        let own = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
        let mut strays: Vec<(u32, bool)> = Vec::new();
        let all_ours = OWNS_ALL_CHILDREN.load(std::sync::atomic::Ordering::SeqCst);
        let my_group = rustix::process::getpgrp().as_raw_nonzero().get() as u32;
        for pid in proc_pids() {
            if pid == me || own.contains(&pid) {
                continue;
            }
            let Some((parent, group)) = parent_and_group(pid) else {
                continue;
            };
            let child = parent == me;
            // A child in this process's own group is one it started without a group of its
            // own (git, from another thread): measurements always get one, so an adopted
            // stray never is in it.
            let adopted = child && all_ours && group != my_group;
            if adopted || carries(pid, &needle) {
                strays.push((pid, child));
            }
        }
        if strays.is_empty() {
            break;
        }
        drop(own);
        for (pid, child) in strays {
            if let Some(p) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
                if child {
                    // Dead or dying: this returns once it is, and no zombie stays.
                    let _ =
                        rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
                }
            }
            ended += 1;
        }
        // A killed stray that was no child is reaped by its parent; give it a moment.
        std::thread::sleep(Duration::from_millis(5));
    }
    ended
}

/// The pids of `/proc` (none where there is no `/proc`).
fn proc_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The parent and the process group of `pid`, from `/proc/PID/stat` (None once it is gone).
fn parent_and_group(pid: u32) -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name, which may hold anything but ends at the last ')'.
    let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
    let _state = rest.next()?;
    let parent = rest.next()?.parse().ok()?;
    let group = rest.next()?.parse().ok()?;
    Some((parent, group))
}

/// Whether `pid`'s environment holds `needle` (`NAME=value`).
fn carries(pid: u32, needle: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
        env.split(|b| *b == 0)
            .any(|entry| entry == needle.as_bytes())
    })
}

/// Make the child spawned by `command` die with this process (Linux: `PR_SET_PDEATHSIG`;
/// everywhere: refuse to start when the parent already died while forking). The signal
/// follows the thread that spawns, so callers spawn and supervise on one thread.
pub(crate) fn die_with_parent(command: &mut Command) {
    end_with_parent(command, libc::SIGKILL);
}

/// Like [`die_with_parent`], with SIGTERM: for a child that must clean up as it goes (git
/// removes its lock files), given to the engine for its git children.
pub fn terminate_with_parent(command: &mut Command) {
    end_with_parent(command, libc::SIGTERM);
}

fn end_with_parent(command: &mut Command, signal: libc::c_int) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// In a worker: exit at once when the parent that started it is gone (the worker is
/// reparented), even while the main thread is busy in a kernel.
pub fn exit_when_orphaned() {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(ORPHAN_POLL);
            // SAFETY: as above; _exit ends the process without running destructors, which
            // is what a worker without a parent needs (nobody reads its output).
            unsafe {
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
        }
    });
}

/// A watchdog that SIGKILLs a process group when its owner (this process) dies, or when
/// the guard is dropped without [`GroupGuard::release`].
pub(crate) struct GroupGuard {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl GroupGuard {
    /// Watch process group `pgid` (the group leader's pid), and every process that carries
    /// `token` in its environment ([`RUN_TOKEN_VAR`]).
    pub(crate) fn watch(pgid: u32, token: &str) -> Result<GroupGuard> {
        // `read` returns only when the owner writes (stand down) or when the pipe closes
        // because the owner died (kill the group, then whatever left it with the token).
        // The watchdog ignores the signals a terminal or a cancel sends to the owner's
        // group, and lives in its own group so a kill of the owner's group does not take it
        // down first.
        let needle = format!("{RUN_TOKEN_VAR}={token}");
        let script = format!(
            "trap '' INT TERM HUP QUIT; if read -r line; then exit 0; fi; kill -s KILL -- -{pgid} 2>/dev/null; \
             for f in $(grep -lzxF '{needle}' /proc/[0-9]*/environ 2>/dev/null); do \
               p=\"${{f#/proc/}}\"; kill -s KILL \"${{p%/environ}}\" 2>/dev/null; \
             done; exit 0"
        );
        let (child, stdin) = spawn_watchdog(&script)
            .map_err(|e| Error::io("starting the watchdog of a measurement (sh)", e))?;
        Ok(GroupGuard { child, stdin })
    }

    /// The group ended (or its owner killed it): let the watchdog go without a kill.
    pub(crate) fn release(mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
        reaped(self.child.id());
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // Closing the pipe without a word is the kill order.
        self.stdin = None;
        let _ = self.child.wait();
        reaped(self.child.id());
    }
}

/// SIGKILL a whole process group (a no-op once it is gone).
pub(crate) fn kill_group(pgid: u32) {
    if let Ok(pid) = i32::try_from(pgid)
        && pid > 0
    {
        // SAFETY: kill(2) with a negative pid signals a process group and touches no memory.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// `sh -c script` in a process group of its own, its stdin a pipe whose closing (this process
/// ending, however it ends) is the script's signal; registered with [`spawn`].
pub(crate) fn spawn_watchdog(
    script: &str,
) -> std::io::Result<(std::process::Child, Option<std::process::ChildStdin>)> {
    let mut child = spawn(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0),
    )?;
    let stdin = child.stdin.take();
    Ok((child, stdin))
}
