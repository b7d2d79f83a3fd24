//! The persistent protocol (`harness.protocol: persistent`, docs/harness.md): the command is
//! started once and serves every invocation of the measurement as a request, one JSON line
//! on its stdin, answered by one JSON line on its stdout that starts with a tag only this
//! process was given (`$KCAMP_REPLY_TAG`), so that whatever else it or its kernel prints,
//! on stdout or stderr, is output for the log and never a reply.
//!
//! The process lives as a one-process invocation does: in a process group of its own that
//! dies with kcamp, its output in the measurement's log (bounded per request), killed with
//! everything it started when a request runs past its limit, when it is cancelled and when
//! the measurement ends. It says it is ready within the start allowance; from then on a
//! request gets `timeout_sec` per shape and [`REQUEST_GRACE_SEC`]. A request it does not
//! answer in time, or a process that ends, costs that process: the next request starts
//! another.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use serde_json::Value;

use kcamp_core::error::IoContext;
use kcamp_core::{Error, Result};

use super::invoke::{Bounded, DRAIN_GRACE, Ended, Ran, append, cancelled, shell, write_log};
use crate::lifeline::{GroupGuard, end_strays, kill_group, reaped};

/// Says a harness is started under the persistent protocol: `persistent`.
pub(super) const PROTOCOL_VAR: &str = "KCAMP_PROTOCOL";
/// The tag that starts every reply line: unique to the process.
pub(super) const REPLY_TAG_VAR: &str = "KCAMP_REPLY_TAG";
/// Seconds a request gets beyond `timeout_sec` per shape, once its process is ready: to
/// import the kernel and write the CSV.
pub(super) const REQUEST_GRACE_SEC: f64 = 2.0;
/// Lines of a persistent harness that ended quoted in the reason.
const LAST_LINES: usize = 5;
/// A line longer than this goes to the log in pieces.
const LINE_KEPT: usize = 64 << 10;
/// Of such a line, the end kept to look for a reply in: a reply is shorter.
const REPLY_MAX: usize = 4096;
/// How long a harness gets to exit by itself once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(20);

/// What the reader of the process's output passes on.
enum Chunk {
    /// A line, with its newline (the last one may have none).
    Line(Vec<u8>),
    /// The start of a line longer than [`LINE_KEPT`].
    Piece(Vec<u8>),
}

/// Split `pipe` into [`Chunk`]s until its end.
fn read_lines(mut pipe: std::io::PipeReader, tx: SyncSender<Chunk>) {
    let mut buf = vec![0u8; 64 << 10];
    let mut line = Vec::new();
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut rest = &buf[..n];
        while let Some(i) = rest.iter().position(|b| *b == b'\n') {
            line.extend_from_slice(&rest[..=i]);
            if tx.send(Chunk::Line(std::mem::take(&mut line))).is_err() {
                return;
            }
            rest = &rest[i + 1..];
        }
        line.extend_from_slice(rest);
        if line.len() > LINE_KEPT {
            let end = line.split_off(line.len() - REPLY_MAX);
            if tx
                .send(Chunk::Piece(std::mem::replace(&mut line, end)))
                .is_err()
            {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = tx.send(Chunk::Line(line));
    }
}

/// The reply a line carries after `tag`, if it carries one.
fn reply_in(line: &[u8], tag: &str) -> Option<std::result::Result<Value, String>> {
    let text = String::from_utf8_lossy(line);
    let at = text.find(tag)?;
    let body = text[at + tag.len()..].trim();
    Some(match serde_json::from_str::<Value>(body) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(format!(
            "a reply that is not a JSON object: {}",
            kcamp_core::text::quote(body, 200)
        )),
        Err(e) => Err(format!(
            "a reply kcamp cannot read ({e}): {}",
            kcamp_core::text::quote(body, 200)
        )),
    })
}

/// One running harness process.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Chunk>,
    /// Its output ended (every writer closed it).
    closed: bool,
    pgid: u32,
    token: String,
    tag: String,
    guard: Option<GroupGuard>,
    /// 1-based, in the measurement.
    number: u32,
    ended: bool,
}

impl Process {
    /// Kill it, its group and whatever it left, and reap it (once).
    fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.stdin = None;
        kill_group(self.pgid);
        let _ = self.child.wait();
        reaped(self.pgid);
        end_strays(&self.token);
        if let Some(g) = self.guard.take() {
            g.release();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
    }
}

/// One part of the log: the start of a process, or one request.
#[derive(Default)]
struct Section {
    out: Bounded,
    last: VecDeque<String>,
}

impl Section {
    fn push(&mut self, log: &mut std::fs::File, path: &Path, chunk: &Chunk, reply: bool) {
        let bytes = match chunk {
            Chunk::Line(b) | Chunk::Piece(b) => b,
        };
        self.out.push(log, path, bytes);
        if let (Chunk::Line(b), false) = (chunk, reply) {
            let text = String::from_utf8_lossy(b);
            let text = text.trim_end();
            if !text.trim().is_empty() {
                self.last.push_back(kcamp_core::text::quote(text, 200));
                if self.last.len() > LAST_LINES {
                    self.last.pop_front();
                }
            }
        }
    }
}

/// How waiting on the process ended.
enum Outcome {
    Reply(Value),
    /// It ended, timed out (killed), or said what kcamp cannot read (killed).
    Ended(Ended),
}

/// How to start the harness.
pub(super) struct Start<'a> {
    /// What runs `sh -c line` elsewhere: `srun … --` under a Slurm executor.
    pub prefix: Option<&'a [std::ffi::OsString]>,
    pub line: &'a str,
    pub campaign_dir: &'a Path,
    /// `(name, value)` of the `KCAMP_*` variables the whole measurement shares.
    pub env: &'a [(&'a str, String)],
    pub log: &'a Path,
    /// How long it may take to say it is ready.
    pub allowance: Duration,
}

/// One request.
pub(super) struct Request<'a> {
    pub json: &'a Value,
    /// The CSV the request names: a reply may repeat it, not name another.
    pub csv: &'a Path,
    pub limit: Duration,
    /// The log's line that heads the request.
    pub header: &'a str,
}

/// The harness of one measurement: the running process, if any.
#[derive(Default)]
pub(super) struct Server {
    process: Option<Process>,
    started: u32,
}

impl Server {
    /// Serve `req`, starting a process first when none runs. `Err` only when the harness
    /// cannot be started, is cancelled or the log cannot be written: a crash, a timeout or
    /// an error reply is how the request ended, for the caller to record.
    pub(super) fn request(
        &mut self,
        start: &Start<'_>,
        req: &Request<'_>,
        cancel: &AtomicBool,
    ) -> Result<Ran> {
        if cancel.load(Ordering::SeqCst) {
            return Err(cancelled(start.line));
        }
        let mut log = append(start.log)?;
        let mut start_sec = None;
        if self.process.is_none() {
            self.started += 1;
            let header = format!(
                "[kcamp] starting persistent harness process {} (harness.protocol: persistent), limit {} s to say it is ready: {}\n",
                self.started,
                start.allowance.as_secs_f64(),
                start.line
            );
            write_log(&mut log, start.log, header.as_bytes())?;
            let t0 = Instant::now();
            self.process = Some(spawn(start, self.started)?);
            let mut section = Section::default();
            let outcome = self.wait(&mut section, &mut log, start, t0 + start.allowance, cancel)?;
            let seconds = t0.elapsed().as_secs_f64();
            let ended = match outcome {
                Outcome::Reply(v) if v.get("ready").and_then(Value::as_bool) == Some(true) => None,
                Outcome::Reply(v) => Some(Ended::Refused(format!(
                    "replied {} before it said it was ready ({{\"ready\": true}})",
                    kcamp_core::text::quote(&v.to_string(), 200)
                ))),
                Outcome::Ended(e) => Some(e),
            };
            let closing = match &ended {
                None => format!("[kcamp] ready after {seconds:.2} s\n"),
                Some(e) => format!("[kcamp] not ready: {}\n", described(e, start.allowance)),
            };
            let (last_line, output_cut) = close(&mut log, start.log, &section, &closing)?;
            match ended {
                None => start_sec = Some(seconds),
                Some(ended) => {
                    self.drop_process();
                    return Ok(Ran {
                        ended,
                        seconds,
                        last_line,
                        last_lines: section.last.into_iter().collect(),
                        starting: true,
                        output_cut,
                        process: Some(self.started),
                        start_sec: None,
                    });
                }
            }
        }
        write_log(&mut log, start.log, format!("{}\n", req.header).as_bytes())?;
        let t0 = Instant::now();
        let number = self.process.as_ref().map_or(self.started, |p| p.number);
        let mut line = req.json.to_string();
        line.push('\n');
        let sent = self
            .process
            .as_mut()
            .and_then(|p| p.stdin.as_mut())
            .map(|s| s.write_all(line.as_bytes()).and_then(|()| s.flush()));
        let mut section = Section::default();
        // A harness that closed its stdin or died cannot read it: how it ended tells.
        if !matches!(sent, Some(Ok(())))
            && let Some(p) = self.process.as_mut()
        {
            p.stdin = None;
        }
        let outcome = self.wait(&mut section, &mut log, start, t0 + req.limit, cancel)?;
        let seconds = t0.elapsed().as_secs_f64();
        let ended = match outcome {
            Outcome::Ended(e) => e,
            Outcome::Reply(v) => judge(&v, req.csv),
        };
        if !matches!(ended, Ended::Answered) {
            // A harness that ended, hung or lost the thread of the protocol is not asked
            // again: the next request starts another.
            self.drop_process();
        }
        let closing = format!(
            "[kcamp] {} after {seconds:.2} s\n",
            described(&ended, req.limit)
        );
        let (last_line, output_cut) = close(&mut log, start.log, &section, &closing)?;
        let crashed = matches!(ended, Ended::Exited(_) | Ended::TimedOut);
        Ok(Ran {
            ended,
            seconds,
            last_line,
            last_lines: if crashed {
                section.last.into_iter().collect()
            } else {
                Vec::new()
            },
            starting: false,
            output_cut,
            process: Some(number),
            start_sec,
        })
    }

    /// End the measurement: the harness gets its stdin closed and a moment to exit, then
    /// it and whatever it left are killed.
    pub(super) fn finish(&mut self) {
        if let Some(p) = self.process.as_mut() {
            p.stdin = None;
            let until = Instant::now() + EXIT_GRACE;
            while Instant::now() < until && matches!(p.child.try_wait(), Ok(None)) {
                std::thread::sleep(POLL);
            }
        }
        self.drop_process();
    }

    fn drop_process(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.end();
        }
    }

    /// Read the process's output into `section` until it replies, ends, is cancelled or
    /// `deadline` passes (then it is killed).
    fn wait(
        &mut self,
        section: &mut Section,
        log: &mut std::fs::File,
        start: &Start<'_>,
        deadline: Instant,
        cancel: &AtomicBool,
    ) -> Result<Outcome> {
        let Some(p) = self.process.as_mut() else {
            return Ok(Outcome::Ended(Ended::Refused(
                "no harness process runs".into(),
            )));
        };
        loop {
            if cancel.load(Ordering::SeqCst) {
                p.end();
                return Err(cancelled(start.line));
            }
            if let Some(outcome) = take(p, section, log, start.log, POLL) {
                return Ok(outcome);
            }
            match p.child.try_wait() {
                Ok(Some(status)) => {
                    // What it wrote before it ended is still in the pipe: a reply there
                    // counts. Everything it left is killed first, so the pipe ends.
                    p.end();
                    let until = Instant::now() + DRAIN_GRACE;
                    while !p.closed && Instant::now() < until {
                        if let Some(outcome) = take(p, section, log, start.log, POLL) {
                            return Ok(outcome);
                        }
                    }
                    return Ok(Outcome::Ended(Ended::Exited(status)));
                }
                Ok(None) => {}
                Err(e) => {
                    p.end();
                    return Err(Error::io(
                        format!("waiting for harness command `{}`", start.line),
                        e,
                    ));
                }
            }
            if Instant::now() > deadline {
                p.end();
                return Ok(Outcome::Ended(Ended::TimedOut));
            }
            if let Some(e) = section.out.failed.take() {
                p.end();
                return Err(e);
            }
        }
    }
}

/// The footer of a section: the kept tail of its output, then `closing`; the section's last
/// line and its size when it was cut.
fn close(
    log: &mut std::fs::File,
    path: &Path,
    section: &Section,
    closing: &str,
) -> Result<(Option<String>, Option<u64>)> {
    let (mut footer, last_line, cut) = section.out.close();
    footer.push_str(closing);
    write_log(log, path, footer.as_bytes())?;
    Ok((last_line, cut))
}

/// Log what the process wrote within `wait`; a reply, or a reply kcamp cannot read (the
/// process is then killed: it has lost the thread of the protocol).
fn take(
    p: &mut Process,
    section: &mut Section,
    log: &mut std::fs::File,
    path: &Path,
    wait: Duration,
) -> Option<Outcome> {
    if p.closed {
        std::thread::sleep(wait);
        return None;
    }
    let first = match p.chunks.recv_timeout(wait) {
        Ok(c) => c,
        Err(RecvTimeoutError::Timeout) => return None,
        Err(RecvTimeoutError::Disconnected) => {
            p.closed = true;
            return None;
        }
    };
    let mut next = Some(first);
    while let Some(chunk) = next.take() {
        let reply = match &chunk {
            Chunk::Line(b) => reply_in(b, &p.tag),
            Chunk::Piece(_) => None,
        };
        section.push(log, path, &chunk, reply.is_some());
        match reply {
            Some(Ok(v)) => return Some(Outcome::Reply(v)),
            Some(Err(why)) => {
                p.end();
                return Some(Outcome::Ended(Ended::Refused(why)));
            }
            None => {}
        }
        next = p.chunks.try_recv().ok();
    }
    None
}

/// What a reply to a request says.
fn judge(v: &Value, csv: &Path) -> Ended {
    if let Some(e) = v.get("error") {
        let msg = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
        return Ended::Refused(format!(
            "replied with an error: {}",
            kcamp_core::text::quote(&msg, 400)
        ));
    }
    if v.get("done").and_then(Value::as_bool) != Some(true) {
        return Ended::Refused(format!(
            "replied {} (a reply says {{\"done\": true}} or {{\"error\": \"…\"}})",
            kcamp_core::text::quote(&v.to_string(), 200)
        ));
    }
    match v.get("csv") {
        None => Ended::Answered,
        Some(Value::String(s)) if Path::new(s) == csv => Ended::Answered,
        Some(other) => Ended::Refused(format!(
            "replied done with the CSV {}, not the one the request named ({})",
            kcamp_core::text::quote(&other.to_string(), 200),
            csv.display()
        )),
    }
}

/// How a request (or a start) ended, for the log.
fn described(e: &Ended, limit: Duration) -> String {
    match e {
        Ended::Answered => "answered".to_owned(),
        Ended::Refused(why) => why.clone(),
        Ended::Exited(status) => format!("ended: {status}"),
        Ended::TimedOut => format!(
            "killed (with its process group) at its limit of {} s",
            super::secs(limit.as_secs_f64())
        ),
    }
}

fn spawn(start: &Start<'_>, number: u32) -> Result<Process> {
    let (pipe, out) = std::io::pipe().ctx(|| "creating the harness's output pipe".to_owned())?;
    let err = out
        .try_clone()
        .ctx(|| "creating the harness's output pipe".to_owned())?;
    let token = crate::lifeline::run_token();
    let tag = format!("@kcamp-reply-{token}");
    let mut env: Vec<(&str, String)> = start.env.to_vec();
    env.push((PROTOCOL_VAR, "persistent".to_owned()));
    env.push((REPLY_TAG_VAR, tag.clone()));
    let mut command = shell(start.prefix, start.line, start.campaign_dir, &env, &token);
    command.stdin(Stdio::piped()).stdout(out).stderr(err);
    let spawned = crate::lifeline::spawn(&mut command);
    // The command holds the pipe's write ends: dropped, the pipe ends with the process.
    drop(command);
    let mut child = spawned.ctx(|| format!("starting harness command `{}`", start.line))?;
    let stdin = child.stdin.take();
    let pgid = child.id();
    let (tx, chunks) = std::sync::mpsc::sync_channel(256);
    std::thread::spawn(move || read_lines(pipe, tx));
    let mut p = Process {
        child,
        stdin,
        chunks,
        closed: false,
        pgid,
        token,
        tag,
        guard: None,
        number,
        ended: false,
    };
    p.guard = Some(GroupGuard::watch(pgid, &p.token)?);
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_found_after_its_tag_wherever_the_line_starts() {
        let tag = "@kcamp-reply-1";
        let v = reply_in(
            b"junk without newline@kcamp-reply-1 {\"done\": true}\n",
            tag,
        );
        assert_eq!(v, Some(Ok(serde_json::json!({"done": true}))));
        assert_eq!(reply_in(b"{\"done\": true}\n", tag), None);
        assert!(
            matches!(reply_in(b"@kcamp-reply-1 {\"done\"\n", tag), Some(Err(m)) if m.contains("cannot read"))
        );
        assert!(matches!(
            reply_in(b"@kcamp-reply-1 [1]\n", tag),
            Some(Err(_))
        ));
    }

    #[test]
    fn a_reply_says_done_or_an_error_for_the_csv_it_was_asked() {
        let csv = Path::new("/a/benchmark.csv");
        assert_eq!(
            judge(&serde_json::json!({"done": true}), csv),
            Ended::Answered
        );
        assert_eq!(
            judge(
                &serde_json::json!({"done": true, "csv": "/a/benchmark.csv"}),
                csv
            ),
            Ended::Answered
        );
        let refused = |v: Value| match judge(&v, csv) {
            Ended::Refused(m) => m,
            other => panic!("{other:?}"),
        };
        assert!(refused(serde_json::json!({"error": "no kernel.py"})).contains("no kernel.py"));
        assert!(refused(serde_json::json!({"done": true, "csv": "/b.csv"})).contains("/b.csv"));
        assert!(refused(serde_json::json!({"ok": 1})).contains("done"));
    }

    #[test]
    fn an_overlong_line_is_passed_on_in_pieces_and_its_reply_still_found() {
        let (tx, rx) = std::sync::mpsc::sync_channel(1024);
        let (reader, mut writer) = std::io::pipe().unwrap();
        let t = std::thread::spawn(move || read_lines(reader, tx));
        let mut data = vec![b'x'; 300 << 10];
        data.extend_from_slice(b"@t {\"done\": true}\nlast");
        writer.write_all(&data).unwrap();
        drop(writer);
        t.join().unwrap();
        let chunks: Vec<Chunk> = rx.into_iter().collect();
        let total: usize = chunks
            .iter()
            .map(|c| match c {
                Chunk::Line(b) | Chunk::Piece(b) => b.len(),
            })
            .sum();
        assert_eq!(total, data.len());
        let lines: Vec<&Vec<u8>> = chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::Line(b) => Some(b),
                Chunk::Piece(_) => None,
            })
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].len() <= LINE_KEPT + (64 << 10));
        assert_eq!(
            reply_in(lines[0], "@t"),
            Some(Ok(serde_json::json!({"done": true})))
        );
        assert_eq!(lines[1].as_slice(), b"last");
    }
}
