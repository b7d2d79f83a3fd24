//! The parent side of worker isolation (docs/harness.md, "How a case is measured", item 8):
//! cases run one at a time in a `kcamp __worker` subprocess; a case past its timeout, a
//! worker that dies or talks nonsense costs that case only — the worker is killed and a
//! fresh one runs the remaining cases.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kcamp_core::case::{CaseOutcome, CaseSpec, EnvironmentFault, ProgressEvent, phase};
use kcamp_core::isa::DriverStatistics;
use kcamp_core::types::Check;
use kcamp_core::{Error, Result};

use crate::lifeline::{GroupGuard, die_with_parent, kill_group};
use crate::worker::WorkerMessage;

/// The reason of the case a cancel interrupted.
pub const CANCELLED_REASON: &str = "cancelled";
/// How often a waiting parent looks at the cancel flag.
const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// Lines of the worker's stderr kept for error reasons.
const STDERR_TAIL_LINES: usize = 8;
/// How long to wait for a worker whose stdout closed to report its exit status.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// A wait between two looks at a worker longer than this is time kcamp itself was stopped
/// (SIGSTOP, Ctrl-Z) or the machine slept: only a poll's worth of it counts against the
/// case's timeout, since the case was not what kept kcamp from looking.
const STOPPED_GAP: Duration = Duration::from_secs(1);

/// How `run_cases` starts and supervises workers.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Program and arguments of the worker (default: this executable with `__worker`).
    pub worker_command: Vec<OsString>,
    /// Per-case limit; the caller resolves `TEST_TIMEOUT_SEC` via
    /// `Manifest::effective_timeout_sec`.
    pub timeout: Duration,
    /// Extra environment variables of the worker (the parent's environment is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// Set to stop the run: the worker is killed and the outcomes so far are returned.
    pub cancel: Arc<AtomicBool>,
    /// Metric reported in `ShapeFinished::primary` (a column of the outcomes' metrics).
    pub primary_metric: Option<String>,
    /// When a case gets a worker (and GPU device) of its own.
    pub worker_reuse: WorkerReuse,
    /// Before the first timed case, compile its kernels in a worker of their own (a copy of
    /// the first timed case shrunk to at most `PRECOMPILE_DIM` per dimension, checked,
    /// not timed), so no timed process is the one whose compile filled the driver's shader
    /// cache: on a GPU the first process of a new kernel could run a large case far below
    /// the kernel's rate (docs/performance.md, "A worker per case").
    pub precompile: bool,
}

/// When `run_cases` starts a fresh worker for the next case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerReuse {
    /// One worker for the run on a software adapter; on a hardware adapter, a fresh one
    /// for every timed case. On a GPU, a large case in a long-lived worker could run far
    /// below the kernel's rate at full clocks, a state that follows the process, not the
    /// shape (docs/performance.md, "A worker per case"): a state that slows timing, and
    /// nothing else, so the cases that are only checked (a quick validation's other target
    /// shapes) share the worker before them. A CPU adapter shows no such state and pays for
    /// every start. The default.
    Auto,
    /// A fresh worker for every case (`KCAMP_WORKER_PER_CASE=1`).
    PerCase,
    /// One worker for the run, replaced only when a case loses it (`KCAMP_WORKER_PER_CASE=0`).
    Shared,
}

impl WorkerReuse {
    /// The mode `KCAMP_WORKER_PER_CASE` asks for (`1`, `0`; unset or anything else: auto).
    pub fn from_env() -> WorkerReuse {
        match std::env::var_os("KCAMP_WORKER_PER_CASE").as_deref() {
            Some(v) if v == "1" => WorkerReuse::PerCase,
            Some(v) if v == "0" => WorkerReuse::Shared,
            _ => WorkerReuse::Auto,
        }
    }

    /// Whether the worker that ran `outcome` is retired before the next case (`next`,
    /// None after the last one).
    fn retire_after(self, outcome: &CaseOutcome, next: Option<&CaseSpec>) -> bool {
        match self {
            WorkerReuse::PerCase => true,
            WorkerReuse::Shared => false,
            WorkerReuse::Auto => {
                outcome.adapter.as_ref().is_some_and(|a| !a.software)
                    && next.is_none_or(|s| !s.check_only)
            }
        }
    }
}

impl RunOptions {
    /// Options that run `kcamp __worker` from the current executable.
    pub fn new(timeout_sec: f64) -> Result<RunOptions> {
        let exe = kcamp_core::fsutil::this_executable()
            .map_err(|e| Error::io("finding the kcamp executable to start a worker", e))?;
        let mut opts = RunOptions::with_worker(
            vec![exe.into_os_string(), OsString::from("__worker")],
            timeout_sec,
        );
        opts.worker_reuse = WorkerReuse::from_env();
        opts.precompile = true;
        Ok(opts)
    }

    pub fn with_worker(worker_command: Vec<OsString>, timeout_sec: f64) -> RunOptions {
        RunOptions {
            worker_command,
            timeout: Duration::from_secs_f64(timeout_sec.max(0.0)),
            env: Vec::new(),
            cancel: Arc::new(AtomicBool::new(false)),
            primary_metric: None,
            worker_reuse: WorkerReuse::Auto,
            precompile: false,
        }
    }
}

/// Run every case in a worker subprocess, in order, and return one outcome per case (fewer
/// only when cancelled: the interrupted case is `ERROR "cancelled"`, later ones are not run).
/// Emits `RunStarted`, `ShapeStarted`, the worker's own events, `ShapeFinished`,
/// `WorkerRestarted` after a lost worker when cases remain, and `RunFinished`.
pub fn run_cases(
    specs: &[CaseSpec],
    opts: &RunOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Vec<CaseOutcome> {
    let total = specs.len();
    on_event(ProgressEvent::RunStarted {
        total_shapes: total,
    });
    let mut outcomes = Vec::with_capacity(total);
    let mut worker: Option<Worker> = None;
    // The driver's statistics come from the throwaway worker when there is one: its compile
    // is the one no timed process should make.
    let mut statistics = None;
    let mut precompile_ms = None;
    let precompiled = opts.precompile && {
        let started = Instant::now();
        statistics = precompile(specs, opts, on_event);
        precompile_ms = Some(started.elapsed().as_secs_f64() * 1e3);
        true
    };
    for (index, spec) in specs.iter().enumerate() {
        if opts.cancel.load(Ordering::SeqCst) {
            break;
        }
        let asked_before;
        let spec = if precompiled && spec.driver_statistics {
            asked_before = CaseSpec {
                driver_statistics: false,
                ..spec.clone()
            };
            &asked_before
        } else {
            spec
        };
        on_event(ProgressEvent::ShapeStarted {
            index,
            total,
            label: spec.shape.label.clone(),
        });
        let (mut outcome, worker_lost) = run_one(&mut worker, spec, opts, on_event);
        if outcome.driver_statistics.is_none() {
            outcome.driver_statistics = statistics.take();
        }
        // The precompile's time is the first timed case's: it is done for that case.
        if !spec.check_only
            && let Some(ms) = precompile_ms.take()
        {
            outcome.add_time(phase::PRECOMPILE, ms);
        }
        if worker_lost {
            // Dropping the worker kills its process group.
            worker = None;
            let cancelled = opts.cancel.load(Ordering::SeqCst);
            if index + 1 < total && !cancelled {
                on_event(ProgressEvent::WorkerRestarted {
                    label: spec.shape.label.clone(),
                    reason: outcome.reason.clone().unwrap_or_default(),
                });
            }
        }
        on_event(ProgressEvent::ShapeFinished {
            index,
            label: outcome.label.clone(),
            check: outcome.check,
            primary: opts
                .primary_metric
                .as_ref()
                .and_then(|m| outcome.metrics.get(m).copied()),
        });
        let retire = opts
            .worker_reuse
            .retire_after(&outcome, specs.get(index + 1));
        outcomes.push(outcome);
        if retire && let Some(w) = worker.take() {
            w.finish();
        }
    }
    if let Some(w) = worker.take() {
        w.finish();
    }
    let passed = outcomes.iter().filter(|o| o.check == Check::Pass).count();
    on_event(ProgressEvent::RunFinished { passed, total });
    outcomes
}

/// The largest dimension of the case [`RunOptions::precompile`] runs: a compile does not
/// depend on the shape, and the check of a small one costs nothing next to a 4096^3
/// reference.
pub const PRECOMPILE_DIM: u64 = 32;

/// Compiles the kernels of the first timed case in a worker that is then retired: of its
/// outcome (a check of a shrunk copy) only the driver's statistics are kept, when the first
/// case asked for them. Whatever goes wrong here (a timeout, a crash) the timed case meets
/// again and reports.
fn precompile(
    specs: &[CaseSpec],
    opts: &RunOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Option<DriverStatistics> {
    let first = specs.iter().find(|s| !s.check_only)?;
    let mut warm = first.clone();
    warm.check_only = true;
    for d in warm.shape.dims.values_mut() {
        *d = (*d).min(PRECOMPILE_DIM);
    }
    on_event(ProgressEvent::Phase {
        label: warm.shape.label.clone(),
        phase: "compiling the kernels in a worker of their own".into(),
    });
    warm.driver_statistics = specs.iter().any(|s| s.driver_statistics);
    let mut slot = None;
    let (outcome, _) = run_one(&mut slot, &warm, opts, &mut |_| {});
    if let Some(w) = slot.take() {
        w.finish();
    }
    outcome.driver_statistics
}

/// One case; the flag says whether the worker must be discarded.
fn run_one(
    slot: &mut Option<Worker>,
    spec: &CaseSpec,
    opts: &RunOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> (CaseOutcome, bool) {
    let mut spawn_ms = None;
    if slot.is_none() {
        let started = Instant::now();
        match Worker::spawn(opts) {
            Ok(w) => *slot = Some(w),
            Err(e) => {
                let reason = format!("cannot start the worker: {e}");
                let mut outcome = CaseOutcome::without_measurement(spec, Check::Error, reason);
                outcome.environment = Some(EnvironmentFault::Machine);
                return (outcome, true);
            }
        }
        spawn_ms = Some(started.elapsed().as_secs_f64() * 1e3);
    }
    let started = Instant::now();
    let (mut outcome, lost) = run_in(slot, spec, opts, on_event);
    if let Some(ms) = spawn_ms {
        outcome.add_time(phase::WORKER_SPAWN, ms);
    }
    outcome.add_time(phase::CASE_WALL, started.elapsed().as_secs_f64() * 1e3);
    (outcome, lost)
}

/// One case in the worker of `slot`, which is running.
fn run_in(
    slot: &mut Option<Worker>,
    spec: &CaseSpec,
    opts: &RunOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> (CaseOutcome, bool) {
    let fail =
        |check, reason: String| (CaseOutcome::without_measurement(spec, check, reason), true);
    // A worker lost before it opened the adapter, or killed for the file size limit, never
    // reached the kernel: the machine failed, not the kernel.
    let lost = |worker: &mut Worker, what: String| {
        let (detail, status) = worker.exit_detail();
        let mut outcome = CaseOutcome::without_measurement(spec, Check::Error, String::new());
        let too_large = status.and_then(|s| s.signal()) == Some(libc::SIGXFSZ);
        outcome.reason = Some(if !worker.opened {
            outcome.environment = Some(EnvironmentFault::Machine);
            format!("{what} before it opened the GPU{detail}")
        } else if too_large {
            outcome.environment = Some(EnvironmentFault::Machine);
            format!("{what}: killed for exceeding the file size limit (ulimit -f){detail}")
        } else {
            format!("{what}{detail}")
        });
        (outcome, true)
    };
    let Some(worker) = slot.as_mut() else {
        return fail(Check::Error, "worker unavailable".into());
    };
    if let Err(e) = worker.send(spec) {
        return lost(worker, format!("worker did not accept the case ({e})"));
    }
    // The time charged to the case: the wall clock, less the time kcamp was stopped.
    let mut charged = Duration::ZERO;
    let mut looked = Instant::now();
    // Where the worker was, for a timeout's reason: its last phase and timed samples.
    let mut phase: Option<String> = None;
    let mut samples = 0u32;
    loop {
        if opts.cancel.load(Ordering::SeqCst) {
            return fail(Check::Error, CANCELLED_REASON.into());
        }
        let now = Instant::now();
        let gap = now - looked;
        looked = now;
        charged += if gap > STOPPED_GAP {
            POLL_INTERVAL
        } else {
            gap
        };
        let elapsed = charged;
        if elapsed >= opts.timeout {
            return fail(
                Check::TimeoutFail,
                timeout_reason(opts.timeout, phase.as_deref(), samples),
            );
        }
        match worker
            .lines
            .recv_timeout(POLL_INTERVAL.min(opts.timeout - elapsed))
        {
            Ok(line) => match serde_json::from_str::<WorkerMessage>(&line) {
                Ok(WorkerMessage::Opened) => worker.opened = true,
                Ok(WorkerMessage::Progress(event)) => {
                    match &event {
                        ProgressEvent::Phase { phase: p, .. } => phase = Some(p.clone()),
                        ProgressEvent::Sample { .. } => samples += 1,
                        _ => {}
                    }
                    on_event(event)
                }
                Ok(WorkerMessage::Outcome(outcome)) if outcome.label == spec.shape.label => {
                    return (*outcome, false);
                }
                Ok(WorkerMessage::Outcome(outcome)) => {
                    return fail(
                        Check::Error,
                        format!(
                            "worker answered for shape '{}' while running '{}'",
                            outcome.label, spec.shape.label
                        ),
                    );
                }
                Err(e) => {
                    return fail(
                        Check::Error,
                        format!(
                            "worker sent an unreadable line ({e}): {}",
                            abbreviate(&line, 200)
                        ),
                    );
                }
            },
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return lost(worker, "worker exited during the case".to_owned());
            }
        }
    }
}

/// Why a case ran out of time: the limit, and where the worker was when it did. Compiling
/// counts against the limit (a compiler can hang too), so a kernel that is merely slow to
/// compile, as a large unrolled one is on a software adapter, says so.
fn timeout_reason(limit: Duration, phase: Option<&str>, samples: u32) -> String {
    let limit = format_secs(limit);
    match phase {
        Some(p) if p.starts_with("compiling") => format!(
            "exceeded {limit} s while {p} (compiling counts against timeout_sec: raise it in manifest.yaml for a kernel that is slow to compile)"
        ),
        Some(p) => format!("exceeded {limit} s while {p}, after {samples} timed sample(s)"),
        None => format!("exceeded {limit} s"),
    }
}

/// A running worker: a channel to its stdin, a channel of its stdout lines, and its last
/// stderr lines. Both pipes are served by threads, so a worker that stops reading (a case
/// line can exceed the pipe buffer) or writing never blocks the parent past the timeout.
/// Dropping it kills the worker's process group unless the worker has already exited.
struct Worker {
    child: Child,
    /// Marks the worker and everything it starts ([`crate::lifeline::RUN_TOKEN_VAR`]).
    token: String,
    /// Kills the worker's group should this process die without dropping the worker.
    guard: Option<GroupGuard>,
    stdin: Option<Sender<String>>,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// It said it opened the adapter ([`WorkerMessage::Opened`]).
    opened: bool,
}

impl Worker {
    fn spawn(opts: &RunOptions) -> Result<Worker> {
        let (program, args) = opts
            .worker_command
            .split_first()
            .ok_or_else(|| Error::Internal("empty worker command".into()))?;
        let token = crate::lifeline::run_token();
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(opts.env.iter().map(|(k, v)| (k, v)))
            .env(crate::lifeline::RUN_TOKEN_VAR, &token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a kill also takes down anything the worker started
            // (a shell-based harness, a driver helper) and no orphan keeps the pipes open.
            .process_group(0);
        die_with_parent(&mut command);
        let mut child = crate::lifeline::spawn(&mut command)
            .map_err(|e| Error::io(format!("starting worker {}", program.to_string_lossy()), e))?;
        let guard = match GroupGuard::watch(child.id(), &token) {
            Ok(g) => g,
            Err(e) => {
                kill_and_reap(&mut child, &token);
                return Err(e);
            }
        };
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill_and_reap(&mut child, &token);
            guard.release();
            return Err(Error::Internal("worker pipes were not created".into()));
        };
        let (stdin_tx, stdin_rx) = channel::<String>();
        std::thread::spawn(move || write_lines(stdin, stdin_rx));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                // A read error ends the stream like EOF: the case is reported as lost.
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_TAIL_LINES {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        Ok(Worker {
            child,
            token,
            guard: Some(guard),
            stdin: Some(stdin_tx),
            lines,
            stderr_tail,
            opened: false,
        })
    }

    /// Queue a case for the worker's stdin. A worker that dies before reading it is
    /// noticed by its closed stdout.
    fn send(&mut self, spec: &CaseSpec) -> std::result::Result<(), String> {
        let mut line = serde_json::to_string(spec).map_err(|e| e.to_string())?;
        line.push('\n');
        self.stdin
            .as_ref()
            .ok_or_else(|| "stdin already closed".to_owned())?
            .send(line)
            .map_err(|_| "its stdin is closed".to_owned())
    }

    /// `: exit status N; stderr: ...` for a worker that went away (waits briefly for it),
    /// and its exit status if it has exited.
    fn exit_detail(&mut self) -> (String, Option<std::process::ExitStatus>) {
        let deadline = Instant::now() + EXIT_GRACE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => break None,
            }
        };
        // The stderr reader may still be draining the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let mut detail = match status {
            Some(s) => format!(": {s}"),
            None => ": still running".to_owned(),
        };
        let tail: Vec<String> = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if !tail.is_empty() {
            detail.push_str("; stderr: ");
            detail.push_str(&tail.join(" | "));
        }
        (detail, status)
    }

    /// Close stdin so the worker exits on EOF; Drop kills it if it does not within the
    /// grace.
    fn finish(mut self) {
        self.stdin = None;
        let deadline = Instant::now() + EXIT_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            kill_and_reap(&mut self.child, &self.token);
        } else {
            crate::lifeline::reaped(self.child.id());
            // Exited by itself: whatever it left running still ends with it.
            kill_group(self.child.id());
            crate::lifeline::end_strays(&self.token);
        }
        // The group is gone (or exited on its own): the watchdog stands down.
        if let Some(guard) = self.guard.take() {
            guard.release();
        }
    }
}

/// The stdin thread: writes queued lines until the queue closes or the pipe breaks.
fn write_lines(mut stdin: ChildStdin, lines: Receiver<String>) {
    for line in lines {
        if stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
    }
}

/// SIGKILL the worker's whole process group, reap the worker, then end whatever it
/// started outside its group.
fn kill_and_reap(child: &mut Child, token: &str) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    crate::lifeline::reaped(child.id());
    crate::lifeline::end_strays(token);
}

fn format_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

fn abbreviate(line: &str, max_chars: usize) -> String {
    if line.chars().count() <= max_chars {
        return format!("'{line}'");
    }
    let head: String = line.chars().take(max_chars).collect();
    format!("'{head}…'")
}
