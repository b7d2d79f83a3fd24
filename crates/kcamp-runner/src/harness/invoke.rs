//! One run of the harness command: through `sh -c` in the campaign directory, in a process
//! group of its own that dies with kcamp, its output appended to the measurement's log,
//! killed (the whole group) when it runs past its limit or the run is cancelled.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kcamp_core::error::IoContext;
use kcamp_core::{Error, Result};

use crate::lifeline::{GroupGuard, die_with_parent, kill_group};

/// What one invocation is given.
pub(super) struct Call<'a> {
    /// What runs `sh -c line` elsewhere: `srun … --` under a Slurm executor.
    pub prefix: Option<&'a [std::ffi::OsString]>,
    /// The command line, placeholders already replaced.
    pub line: &'a str,
    pub campaign_dir: &'a Path,
    /// `(name, value)` of the `KCAMP_*` variables.
    pub env: &'a [(&'a str, String)],
    pub limit: Duration,
    /// The measurement's log; this invocation's output is appended after `header`.
    pub log: &'a Path,
    pub header: &'a str,
}

/// How it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    Exited(ExitStatus),
    /// Past its limit: its process group was killed.
    TimedOut,
}

/// An invocation that ran to its end (or its limit).
#[derive(Debug, Clone)]
pub(super) struct Ran {
    pub ended: Ended,
    pub seconds: f64,
    /// The last line of its own output, if it wrote any.
    pub last_line: Option<String>,
}

impl Ran {
    /// It exited by itself with status 0.
    pub(super) fn succeeded(&self) -> bool {
        matches!(self.ended, Ended::Exited(s) if s.success())
    }
}

fn append(log: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .ctx(|| format!("opening {}", log.display()))
}

/// Run `call`; `Err` only when it could not be run, was cancelled, or the log could not be
/// written: a crash or a timeout is how it ended, for the caller to record.
pub(super) fn invoke(call: &Call<'_>, cancel: &AtomicBool) -> Result<Ran> {
    if cancel.load(Ordering::SeqCst) {
        return Err(cancelled(call.line));
    }
    let mut log = append(call.log)?;
    writeln!(log, "{}", call.header).ctx(|| format!("writing {}", call.log.display()))?;
    let start_at = log
        .metadata()
        .ctx(|| format!("reading {}", call.log.display()))?
        .len();
    let out = log
        .try_clone()
        .ctx(|| format!("opening {}", call.log.display()))?;
    let err = log
        .try_clone()
        .ctx(|| format!("opening {}", call.log.display()))?;
    let mut command = match call.prefix {
        Some([program, args @ ..]) => {
            let mut c = Command::new(program);
            c.args(args).arg("sh");
            c
        }
        _ => Command::new("sh"),
    };
    command
        .arg("-c")
        .arg(call.line)
        .current_dir(call.campaign_dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        // Its own process group: a cancel or a timeout ends everything the command
        // started, not only the shell.
        .process_group(0);
    for (name, value) in call.env {
        command.env(name, value);
    }
    die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .ctx(|| format!("starting harness command `{}`", call.line))?;
    let pgid = child.id();
    let guard = match GroupGuard::watch(pgid) {
        Ok(g) => g,
        Err(e) => {
            kill_group(pgid);
            let _ = child.wait();
            return Err(e);
        }
    };
    let start = Instant::now();
    let ended = loop {
        match child.try_wait() {
            Err(e) => {
                kill_group(pgid);
                let _ = child.wait();
                guard.release();
                return Err(Error::io(
                    format!("waiting for harness command `{}`", call.line),
                    e,
                ));
            }
            Ok(Some(status)) => break Ended::Exited(status),
            Ok(None) if cancel.load(Ordering::SeqCst) => {
                kill_group(pgid);
                let _ = child.wait();
                guard.release();
                return Err(cancelled(call.line));
            }
            Ok(None) if start.elapsed() > call.limit => {
                kill_group(pgid);
                let _ = child.wait();
                break Ended::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // Whatever the command left running in its group (a background job) ends with it.
    kill_group(pgid);
    guard.release();
    let footer = match ended {
        Ended::Exited(status) => format!("[kcamp] ended: {status} after {seconds:.2} s"),
        Ended::TimedOut => format!(
            "[kcamp] ended: killed (with its process group) at its limit of {:.0} s",
            call.limit.as_secs_f64()
        ),
    };
    let last_line = last_line_from(call.log, start_at);
    writeln!(log, "{footer}").ctx(|| format!("writing {}", call.log.display()))?;
    Ok(Ran {
        ended,
        seconds,
        last_line,
    })
}

fn cancelled(line: &str) -> Error {
    Error::Cancelled(format!(
        "cancelled: harness command `{line}` was stopped; nothing was recorded"
    ))
}

/// The last non-empty line of what was written to `log` from byte `from` on.
fn last_line_from(log: &Path, from: u64) -> Option<String> {
    let bytes = std::fs::read(log).ok()?;
    let own = bytes.get(from as usize..)?;
    String::from_utf8_lossy(own)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| kcamp_core::text::quote(l.trim_end(), 200))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(line: &'a str, dir: &'a Path, log: &'a Path, limit: Duration) -> Call<'a> {
        Call {
            prefix: None,
            line,
            campaign_dir: dir,
            env: &[],
            limit,
            log,
            header: "[kcamp] test",
        }
    }

    #[test]
    fn an_invocation_past_its_limit_is_killed_with_its_group_and_its_log_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("harness.log");
        let pid_file = tmp.path().join("child.pid");
        let line = format!(
            "echo started; sleep 30 & echo $! > {}; wait",
            pid_file.display()
        );
        let cancel = AtomicBool::new(false);
        let ran = invoke(
            &call(&line, tmp.path(), &log, Duration::from_millis(300)),
            &cancel,
        )
        .unwrap();
        assert_eq!(ran.ended, Ended::TimedOut);
        assert!(!ran.succeeded());
        assert_eq!(ran.last_line.as_deref(), Some("started"));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.starts_with("[kcamp] test\nstarted\n"), "{text}");
        assert!(text.contains("killed (with its process group)"), "{text}");
        // The background sleep went with the group.
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Running, not a zombie waiting for whoever adopted it.
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            })
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running());
    }

    #[test]
    fn an_exit_status_is_how_it_ended_not_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("harness.log");
        let cancel = AtomicBool::new(false);
        let ran = invoke(
            &call(
                "echo broke >&2; exit 3",
                tmp.path(),
                &log,
                Duration::from_secs(10),
            ),
            &cancel,
        )
        .unwrap();
        assert!(matches!(ran.ended, Ended::Exited(s) if s.code() == Some(3)));
        assert_eq!(ran.last_line.as_deref(), Some("broke"));
        cancel.store(true, Ordering::SeqCst);
        let e = invoke(
            &call("true", tmp.path(), &log, Duration::from_secs(10)),
            &cancel,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Cancelled(_)), "{e}");
    }
}
