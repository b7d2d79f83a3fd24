//! One run of the harness command: through `sh -c` in the campaign directory, in a process
//! group of its own that dies with kcamp, its output appended to the measurement's log
//! (bounded: the first and the last part of a large output), killed (the whole group, and
//! whatever it started that left the group) when it runs past its limit, is cancelled, or
//! ends.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kcamp_core::artifacts::harness::LOG_KEPT_BYTES;
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

/// A wait between two looks at the command longer than this is time kcamp itself was
/// stopped (SIGSTOP, Ctrl-Z) or the machine slept, not the command's.
const STOPPED_GAP: Duration = Duration::from_secs(1);

/// How it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ended {
    Exited(ExitStatus),
    /// Past its limit: its process group was killed.
    TimedOut,
    /// A persistent harness replied that it is done (and keeps running).
    Answered,
    /// A persistent harness replied with an error, or with a reply kcamp cannot read.
    Refused(String),
}

/// An invocation that ran to its end (or its limit).
#[derive(Debug, Clone)]
pub(super) struct Ran {
    pub ended: Ended,
    pub seconds: f64,
    /// The last line of its own output, if it wrote any.
    pub last_line: Option<String>,
    /// A persistent harness's last lines before it crashed, oldest first.
    pub last_lines: Vec<String>,
    /// A persistent harness ended this way while starting, before it said it was ready.
    pub starting: bool,
    /// The persistent harness process that served it (1-based).
    pub process: Option<u32>,
    /// Seconds its persistent harness process took to be ready, when started for it.
    pub start_sec: Option<f64>,
    /// Bytes it wrote, when more than the log keeps ([`LOG_KEPT_BYTES`]).
    pub output_cut: Option<u64>,
}

impl Ran {
    /// It exited by itself with status 0, or a persistent harness answered.
    pub(super) fn succeeded(&self) -> bool {
        match &self.ended {
            Ended::Exited(s) => s.success(),
            Ended::Answered => true,
            Ended::TimedOut | Ended::Refused(_) => false,
        }
    }
}

pub(super) fn append(log: &Path) -> Result<std::fs::File> {
    kcamp_core::fsutil::fault("append", log)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
        })
        .ctx(|| format!("opening {}", log.display()))
}

pub(super) fn write_log(log: &mut std::fs::File, path: &Path, bytes: &[u8]) -> Result<()> {
    kcamp_core::fsutil::fault("append", path)
        .and_then(|()| log.write_all(bytes))
        .ctx(|| format!("writing {}", path.display()))
}

/// How long to wait, after the invocation and everything it left have ended, for the last
/// of its output: a process that escaped every kill could hold the pipe open forever.
pub(super) const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// An output kept within [`LOG_KEPT_BYTES`]: the first half goes to the log as it comes (so
/// the log is live), the last half is kept in memory until the end; the middle of a larger
/// output is counted, not kept.
#[derive(Default)]
pub(super) struct Bounded {
    /// Everything pushed, in bytes.
    total: u64,
    /// The first half of [`LOG_KEPT_BYTES`], already in the log.
    head: Vec<u8>,
    /// The last half, kept in memory until the end.
    tail: std::collections::VecDeque<u8>,
    /// The log could not be written (its error, for the caller).
    pub failed: Option<Error>,
}

impl Bounded {
    pub(super) fn push(&mut self, log: &mut std::fs::File, path: &Path, chunk: &[u8]) {
        let half = (LOG_KEPT_BYTES / 2) as usize;
        self.total += chunk.len() as u64;
        let room = half.saturating_sub(self.head.len()).min(chunk.len());
        if room > 0 {
            self.head.extend_from_slice(&chunk[..room]);
            if self.failed.is_none()
                && let Err(e) = write_log(log, path, &chunk[..room])
            {
                self.failed = Some(e);
            }
        }
        self.tail.extend(&chunk[room..]);
        let over = self.tail.len().saturating_sub(half);
        self.tail.drain(..over);
    }

    /// What goes to the log at the end (the note of a cut, the tail; starting on a line of
    /// its own), the last line of the output, and its size when it was cut.
    pub(super) fn close(&self) -> (String, Option<String>, Option<u64>) {
        let mut footer = String::new();
        let cut = self.total > LOG_KEPT_BYTES;
        let (a, b) = self.tail.as_slices();
        let mut tail = a.to_vec();
        tail.extend_from_slice(b);
        if cut {
            footer.push_str(&format!(
                "\n[kcamp] … {} bytes of output left out here: the log keeps the first and the last {} bytes of the {} this invocation wrote\n",
                self.total - LOG_KEPT_BYTES,
                LOG_KEPT_BYTES / 2,
                self.total
            ));
        }
        footer.push_str(&String::from_utf8_lossy(&tail));
        let own = if self.tail.is_empty() {
            &self.head
        } else {
            &tail
        };
        // The head ended wherever the output did: the footer starts on a line of its own.
        if self.tail.is_empty() && self.head.last().is_some_and(|b| *b != b'\n') {
            footer.insert(0, '\n');
        }
        (footer, last_line_of(own), cut.then_some(self.total))
    }
}

/// Read `pipe` to its end into a [`Bounded`] output.
fn capture(mut pipe: std::io::PipeReader, mut log: std::fs::File, path: &Path) -> Bounded {
    use std::io::Read;
    let mut got = Bounded::default();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        got.push(&mut log, path, &buf[..n]);
    }
    got
}

/// The command that runs `line` through `sh -c` (behind `prefix`, `srun … --`, when given)
/// in `dir`, with `env`, in a process group of its own that dies with this process, marked
/// with `token`; its standard streams are the caller's to set.
pub(super) fn shell(
    prefix: Option<&[std::ffi::OsString]>,
    line: &str,
    dir: &Path,
    env: &[(&str, String)],
    token: &str,
) -> Command {
    let mut command = match prefix {
        Some([program, args @ ..]) => {
            let mut c = Command::new(program);
            c.args(args).arg("sh");
            c
        }
        _ => Command::new("sh"),
    };
    command
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env(crate::lifeline::RUN_TOKEN_VAR, token)
        // A harness may write only beside its CSV: Python's bytecode cache would land in
        // the kernel and harness folders it imports from.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // Its own process group: a cancel or a timeout ends everything the command
        // started, not only the shell.
        .process_group(0);
    for (name, value) in env {
        command.env(name, value);
    }
    die_with_parent(&mut command);
    command
}

/// Why a harness that ended with `status` never got to measure anything, if it did not:
/// the shell could not find or run its program (126, 127), or the file size limit killed it.
fn never_ran(status: ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(127), _) => Some("the shell could not find its program (exit status 127)".into()),
        (Some(126), _) => Some("the shell could not run its program (exit status 126)".into()),
        (_, Some(libc::SIGXFSZ)) => {
            Some("it was killed for exceeding the file size limit (ulimit -f, SIGXFSZ)".into())
        }
        _ => None,
    }
}

/// Run `call`; `Err` only when it could not be run, was cancelled, or the log could not be
/// written: a crash or a timeout is how it ended, for the caller to record. Its output goes
/// to the log bounded ([`LOG_KEPT_BYTES`]); whatever it leaves running, in its group or
/// not, is killed before this returns.
pub(super) fn invoke(call: &Call<'_>, cancel: &AtomicBool) -> Result<Ran> {
    if cancel.load(Ordering::SeqCst) {
        return Err(cancelled(call.line));
    }
    let mut log = append(call.log)?;
    write_log(&mut log, call.log, format!("{}\n", call.header).as_bytes())?;
    let reader_log = log
        .try_clone()
        .ctx(|| format!("opening {}", call.log.display()))?;
    // One pipe for both streams keeps their lines in the order they were written.
    let (pipe, out) = std::io::pipe().ctx(|| "creating the harness's output pipe".to_owned())?;
    let err = out
        .try_clone()
        .ctx(|| "creating the harness's output pipe".to_owned())?;
    let token = crate::lifeline::run_token();
    let mut command = shell(call.prefix, call.line, call.campaign_dir, call.env, &token);
    command.stdin(Stdio::null()).stdout(out).stderr(err);
    let spawned = crate::lifeline::spawn(&mut command);
    // The command holds the pipe's write ends: dropped, the pipe ends with the invocation.
    drop(command);
    let mut child = spawned.ctx(|| format!("starting harness command `{}`", call.line))?;
    let path = call.log.to_path_buf();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(capture(pipe, reader_log, &path));
    });
    let pgid = child.id();
    let end = |child: &mut std::process::Child| {
        kill_group(pgid);
        let _ = child.wait();
        crate::lifeline::reaped(pgid);
        crate::lifeline::end_strays(&token);
    };
    let guard = match GroupGuard::watch(pgid, &token) {
        Ok(g) => g,
        Err(e) => {
            end(&mut child);
            return Err(e);
        }
    };
    let start = Instant::now();
    // The time charged to the command: the wall clock less the time kcamp was stopped
    // (a wait between two looks longer than STOPPED_GAP counts as one poll).
    let mut charged = Duration::ZERO;
    let mut looked = start;
    let ended = loop {
        let now = Instant::now();
        let gap = now - looked;
        looked = now;
        charged += if gap > STOPPED_GAP {
            Duration::from_millis(50)
        } else {
            gap
        };
        match child.try_wait() {
            Err(e) => {
                end(&mut child);
                guard.release();
                return Err(Error::io(
                    format!("waiting for harness command `{}`", call.line),
                    e,
                ));
            }
            Ok(Some(status)) => break Ended::Exited(status),
            Ok(None) if cancel.load(Ordering::SeqCst) => {
                end(&mut child);
                guard.release();
                return Err(cancelled(call.line));
            }
            Ok(None) if charged > call.limit => {
                kill_group(pgid);
                let _ = child.wait();
                break Ended::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // Whatever the command left running, in its group or out of it (a background job, a
    // `setsid` or `nohup` one, a double fork), ends with it.
    end(&mut child);
    guard.release();
    let mut captured = done_rx.recv_timeout(DRAIN_GRACE);
    if let Ok(got) = &mut captured
        && let Some(e) = got.failed.take()
    {
        return Err(e);
    }
    let (mut footer, last_line, output_cut) = match &captured {
        Ok(got) => got.close(),
        Err(_) => (
            "\n[kcamp] the rest of its output was not read: a process it started kept the output open after every kill\n".to_owned(),
            None,
            None,
        ),
    };
    footer.push_str(&match &ended {
        Ended::Exited(status) => format!("[kcamp] ended: {status} after {seconds:.2} s\n"),
        // The loop above ends no other way.
        _ => format!(
            "[kcamp] ended: killed (with its process group) at its limit of {:.0} s\n",
            call.limit.as_secs_f64()
        ),
    });
    write_log(&mut log, call.log, footer.as_bytes())?;
    if let Ended::Exited(status) = &ended
        && let Some(why) = never_ran(*status)
    {
        // No shape's row may say the kernel failed: the harness never measured it.
        return Err(Error::io(
            format!("running harness command `{}`", call.line),
            std::io::Error::other(format!(
                "{why}, so nothing was measured and nothing recorded; this is not the kernel's failure{}",
                last_line
                    .as_deref()
                    .map(|l| format!(" (its last line: {})", kcamp_core::text::quote(l, 200)))
                    .unwrap_or_default()
            )),
        )
        .with_next(vec![kcamp_core::next::NextStep::by_hand(
            "make the command run on this machine (the program it names, its interpreter, `ulimit -f`), then run the same kcamp command again",
        )]));
    }
    Ok(Ran {
        ended,
        seconds,
        last_line,
        last_lines: Vec::new(),
        starting: false,
        process: None,
        start_sec: None,
        output_cut,
    })
}

/// The last non-empty line of `bytes`.
pub(super) fn last_line_of(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| kcamp_core::text::quote(l.trim_end(), 200))
}

pub(super) fn cancelled(line: &str) -> Error {
    Error::Cancelled(format!(
        "cancelled: harness command `{line}` was stopped; nothing was recorded"
    ))
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
