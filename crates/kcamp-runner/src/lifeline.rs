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

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use kcamp_core::{Error, Result};

/// How often an orphaned worker notices that its parent is gone.
const ORPHAN_POLL: Duration = Duration::from_millis(100);

/// Make the child spawned by `command` die with this process (Linux: `PR_SET_PDEATHSIG`;
/// everywhere: refuse to start when the parent already died while forking). The signal
/// follows the thread that spawns, so callers spawn and supervise on one thread.
pub(crate) fn die_with_parent(command: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
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
    /// Watch process group `pgid` (the group leader's pid).
    pub(crate) fn watch(pgid: u32) -> Result<GroupGuard> {
        // `read` returns only when the owner writes (stand down) or when the pipe closes
        // because the owner died (kill the group). The watchdog ignores the signals a
        // terminal or a cancel sends to the owner's group, and lives in its own group so a
        // kill of the owner's group does not take it down first.
        let script = format!(
            "trap '' INT TERM HUP QUIT; if read -r line; then exit 0; fi; kill -s KILL -- -{pgid} 2>/dev/null; exit 0"
        );
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| Error::io("starting the watchdog of a measurement (sh)", e))?;
        let stdin = child.stdin.take();
        Ok(GroupGuard { child, stdin })
    }

    /// The group ended (or its owner killed it): let the watchdog go without a kill.
    pub(crate) fn release(mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // Closing the pipe without a word is the kill order.
        self.stdin = None;
        let _ = self.child.wait();
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
