//! Slurm as the executor of a measuring step (docs/scale.md): one placeholder job per shard,
//! submitted as one array (`sbatch --array`), holds a GPU node while the step's cases run in
//! it as job steps (`srun --jobid`); the worker's line protocol goes through srun's pipes,
//! so the runner supervises a remote worker as it does a local one. kcamp, its lock and its
//! decisions stay on the machine where it runs; the campaign must sit on a filesystem the
//! nodes share (a harness runs in the campaign directory there).
//!
//! The jobs end with the step: dropping [`SlurmJobs`] cancels the array (`scancel`) and
//! waits until Slurm lists no job of it, and a watchdog cancels it should kcamp die first.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kcamp_core::case::CaseOutcome;
use kcamp_core::executor::SlurmConfig;
use kcamp_core::types::Check;
use kcamp_core::{Error, Result};

use crate::isolation::CANCELLED_REASON;
use crate::lifeline::die_with_parent;

/// How long a Slurm client (`sbatch`, `squeue`, `scancel`) may take to answer.
const CLIENT_LIMIT: Duration = Duration::from_secs(60);
/// How often a pending job's state is asked for.
const POLL: Duration = Duration::from_millis(500);
/// How long a cancelled array may take to leave Slurm's list.
const GONE_WITHIN: Duration = Duration::from_secs(30);

/// One shard's job: array task `task` of the array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub task: u32,
    /// The task's own job id, which `srun --jobid` takes.
    pub job_id: String,
    /// PENDING, RUNNING, COMPLETING, CANCELLED, TIMEOUT, FAILED, …
    pub state: String,
    pub node: Option<String>,
}

/// The jobs of one measuring step.
pub struct SlurmJobs {
    array: String,
    pub tasks: Vec<Task>,
    time: Option<String>,
    watchdog: Option<Watchdog>,
    /// Cancelled and gone from Slurm's list.
    ended: bool,
}

impl std::fmt::Debug for SlurmJobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlurmJobs")
            .field("array", &self.array)
            .field("tasks", &self.tasks)
            .finish()
    }
}

/// The `sbatch` arguments of `shards` placeholder jobs named `name`.
pub fn sbatch_args(cfg: &SlurmConfig, shards: u32, name: &str) -> Vec<String> {
    let mut args = vec![
        "--parsable".to_owned(),
        format!("--array=0-{}", shards.max(1) - 1),
        format!("--job-name={name}"),
        "--output=/dev/null".to_owned(),
        "--nodes=1".to_owned(),
        "--ntasks=1".to_owned(),
        // The placeholder needs no directory of the node; the steps name theirs.
        "--chdir=/".to_owned(),
    ];
    if let Some(p) = &cfg.partition {
        args.push(format!("--partition={p}"));
    }
    if let Some(g) = &cfg.gres {
        args.push(format!("--gres={g}"));
    }
    if let Some(t) = &cfg.time {
        args.push(format!("--time={t}"));
    }
    args.extend(cfg.extra_args.iter().cloned());
    // Holds the allocation until kcamp cancels it (or its time limit ends it).
    args.push("--wrap=exec sleep 2147483647".to_owned());
    args
}

/// `srun` in the job of `task`, running `program` in `dir`: one task on the job's node,
/// beside the placeholder (`--overlap`), with the job's resources.
pub fn srun_prefix(task: &Task, dir: &Path) -> Vec<OsString> {
    let mut dir_arg = OsString::from("--chdir=");
    dir_arg.push(dir.as_os_str());
    vec![
        "srun".into(),
        format!("--jobid={}", task.job_id).into(),
        "--overlap".into(),
        "--nodes=1".into(),
        "--ntasks=1".into(),
        "--quiet".into(),
        dir_arg,
        "--".into(),
    ]
}

/// Lines of `squeue -h -r -t all -o %K|%A|%T|%N` as tasks, in task order.
pub fn parse_squeue(text: &str) -> Vec<Task> {
    let mut tasks: Vec<Task> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.trim().split('|');
            let task = f.next()?.trim().parse().ok()?;
            let job_id = f.next()?.trim().to_owned();
            let state = f.next()?.trim().to_owned();
            let node = f
                .next()
                .map(str::trim)
                .filter(|n| !n.is_empty() && *n != "(null)")
                .map(str::to_owned);
            Some(Task {
                task,
                job_id,
                state,
                node,
            })
        })
        .collect();
    tasks.sort_by_key(|t| t.task);
    tasks
}

impl SlurmJobs {
    /// Submits `shards` jobs and waits until each runs, telling `on_state` every change;
    /// `Error::Cancelled` (the jobs cancelled) when `cancel` is set first. A job that ends
    /// before it runs (refused, cancelled by someone else) is an error naming it.
    pub fn start(
        cfg: &SlurmConfig,
        shards: u32,
        name: &str,
        cancel: &AtomicBool,
        on_state: &mut dyn FnMut(&[Task]),
    ) -> Result<SlurmJobs> {
        let out = client("sbatch", &sbatch_args(cfg, shards, name))?;
        // `--parsable` prints `jobid` or `jobid;cluster`.
        let array = out.trim().split(';').next().unwrap_or("").trim().to_owned();
        if array.is_empty() || !array.chars().all(|c| c.is_ascii_digit()) {
            return Err(Error::Internal(format!(
                "sbatch --parsable answered {}, not a job id",
                kcamp_core::text::quote(out.trim(), 200)
            )));
        }
        let mut jobs = SlurmJobs {
            watchdog: Watchdog::start(&array).ok(),
            array,
            tasks: Vec::new(),
            time: cfg.time.clone(),
            ended: false,
        };
        let mut last: Vec<String> = Vec::new();
        loop {
            if cancel.load(Ordering::SeqCst) {
                return Err(Error::Cancelled(format!(
                    "cancelled while slurm job {} waited for its node: the job is cancelled and nothing was recorded",
                    jobs.array
                )));
            }
            jobs.refresh()?;
            let states: Vec<String> = jobs.tasks.iter().map(|t| t.state.clone()).collect();
            if states != last {
                on_state(&jobs.tasks);
                last = states;
            }
            if let Some(t) = jobs.tasks.iter().find(|t| ended(&t.state)) {
                return Err(Error::State(format!(
                    "slurm job {} ended {} before it ran a case; see `scontrol show job {}` while Slurm remembers it",
                    jobs.name(t.task),
                    t.state,
                    t.job_id
                )));
            }
            if jobs.tasks.len() == shards as usize
                && jobs.tasks.iter().all(|t| t.state == "RUNNING")
            {
                return Ok(jobs);
            }
            std::thread::sleep(POLL);
        }
    }

    /// The array task's name as Slurm shows it: `42_0`.
    pub fn name(&self, task: u32) -> String {
        format!("{}_{task}", self.array)
    }

    /// Reads the tasks' states again.
    pub fn refresh(&mut self) -> Result<()> {
        let out = client(
            "squeue",
            &[
                "-h".into(),
                "-r".into(),
                "-t".into(),
                "all".into(),
                "-j".into(),
                self.array.clone(),
                "-o".into(),
                "%K|%A|%T|%N".into(),
            ],
        )?;
        let tasks = parse_squeue(&out);
        // Slurm forgets a finished job after a while: what is not listed keeps its last state.
        if !tasks.is_empty() {
            self.tasks = tasks;
        }
        Ok(())
    }

    /// Outcomes of the shard whose job is `task`, once the step is over: when the job
    /// ended early (its time limit, a node failure, a cancel by someone else), the shapes
    /// it lost become TIMEOUT_FAIL or ERROR naming the job; every failed shape's reason
    /// names its job.
    pub fn account(&self, task: &Task, outcomes: &mut [CaseOutcome]) {
        let name = self.name(task.task);
        let on = task
            .node
            .as_ref()
            .map_or_else(String::new, |n| format!(" on {n}"));
        for o in outcomes.iter_mut() {
            if o.check == Check::Pass || o.reason.as_deref() == Some(CANCELLED_REASON) {
                continue;
            }
            let was = o.reason.clone().unwrap_or_default();
            match task.state.as_str() {
                "TIMEOUT" | "DEADLINE" => {
                    o.check = Check::TimeoutFail;
                    o.reason = Some(format!(
                        "slurm job {name}{on} reached its time limit{} before this shape was measured ({was})",
                        self.time
                            .as_ref()
                            .map_or_else(String::new, |t| format!(" of {t} (executor.slurm.time)"))
                    ));
                }
                s if ended(s) => {
                    o.check = Check::Error;
                    o.reason = Some(format!(
                        "slurm job {name}{on} ended {s} before this shape was measured ({was})"
                    ));
                }
                _ => o.reason = Some(format!("{was} (slurm job {name}{on})")),
            }
        }
    }

    /// Cancels every job of the array and waits until Slurm lists none running.
    pub fn cancel(&mut self) -> Result<()> {
        // A job that already ended (its time limit, a cancel by someone else) makes scancel
        // fail: what counts is that Slurm lists none of them afterwards.
        let refused = client("scancel", std::slice::from_ref(&self.array)).err();
        let deadline = Instant::now() + GONE_WITHIN;
        loop {
            let out = client("squeue", &["-h".into(), "-j".into(), self.array.clone()]);
            match out {
                Ok(o) if o.trim().is_empty() => break,
                // A job Slurm has already forgotten is gone too.
                Err(_) => break,
                Ok(_) if Instant::now() >= deadline => {
                    return Err(Error::State(format!(
                        "slurm job {} still listed {} s after scancel{}",
                        self.array,
                        GONE_WITHIN.as_secs(),
                        refused.map_or_else(String::new, |e| format!(" ({e})"))
                    )));
                }
                Ok(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
        self.ended = true;
        if let Some(w) = self.watchdog.take() {
            w.release();
        }
        Ok(())
    }
}

impl Drop for SlurmJobs {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.cancel();
        }
    }
}

/// A state in which the job holds no node any more.
pub fn ended(state: &str) -> bool {
    !matches!(
        state,
        "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "RESIZING" | ""
    ) && !state.starts_with("REQUEUE")
}

/// The job's state as the live panel shows it: `pending`, `running`, `timeout`.
pub fn shown_state(state: &str) -> String {
    state.to_lowercase()
}

/// Runs a Slurm client and returns its stdout; an error names the command and what it said.
fn client(program: &str, args: &[String]) -> Result<String> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    die_with_parent(&mut command);
    let shown = || format!("{program} {}", args.join(" "));
    let mut child = command.spawn().map_err(|e| {
        Error::State(format!(
            "cannot run `{}` ({e}): executor: slurm in manifest.yaml needs Slurm's clients (sbatch, srun, squeue, scancel) on PATH",
            shown()
        ))
    })?;
    let (mut out, mut err) = (String::new(), String::new());
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = stderr {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    if let Some(mut o) = stdout {
        let _ = o.read_to_string(&mut out);
    }
    let status = wait_limited(&mut child, CLIENT_LIMIT);
    if let Ok(s) = reader.join() {
        err = s;
    }
    match status {
        Some(s) if s.success() => Ok(out),
        Some(s) => Err(Error::State(format!(
            "`{}` failed ({s}): {}",
            shown(),
            kcamp_core::text::quote(err.trim(), 400)
        ))),
        None => Err(Error::State(format!(
            "`{}` did not answer within {} s",
            shown(),
            CLIENT_LIMIT.as_secs()
        ))),
    }
}

fn wait_limited(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// Cancels the array when kcamp dies without dropping [`SlurmJobs`] (a SIGKILL): a shell
/// that holds the read end of a pipe only kcamp writes to runs `scancel` once it closes.
struct Watchdog {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Watchdog {
    fn start(array: &str) -> Result<Watchdog> {
        let script = format!(
            "trap '' INT TERM HUP QUIT; if read -r line; then exit 0; fi; scancel {array} 2>/dev/null; exit 0"
        );
        // A child this process waits for itself, never one a measurement's end kills.
        // A child this process waits for itself, never one a measurement's end kills.
        let (child, stdin) = crate::lifeline::spawn_watchdog(&script)
            .map_err(|e| Error::io("starting the watchdog of a slurm job (sh)", e))?;
        Ok(Watchdog { child, stdin })
    }

    fn release(mut self) {
        if let Some(mut s) = self.stdin.take() {
            let _ = s.write_all(b"done\n");
        }
        let _ = self.child.wait();
        crate::lifeline::reaped(self.child.id());
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.wait();
        crate::lifeline::reaped(self.child.id());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jobs_are_one_array_with_the_manifests_options() {
        let cfg = SlurmConfig {
            partition: Some("gpu".into()),
            gres: Some("gpu:h200:1".into()),
            time: Some("00:30:00".into()),
            extra_args: vec!["--account=kernels".into()],
            shards: 4,
        };
        let args = sbatch_args(&cfg, 4, "kcamp-gemm");
        assert_eq!(args[0], "--parsable");
        assert!(args.contains(&"--array=0-3".to_owned()), "{args:?}");
        for want in [
            "--partition=gpu",
            "--gres=gpu:h200:1",
            "--time=00:30:00",
            "--account=kernels",
            "--job-name=kcamp-gemm",
        ] {
            assert!(args.contains(&want.to_owned()), "{want} in {args:?}");
        }
        assert!(args.last().unwrap().starts_with("--wrap="));
        let task = Task {
            task: 1,
            job_id: "43".into(),
            state: "RUNNING".into(),
            node: Some("gpu01".into()),
        };
        let srun = srun_prefix(&task, Path::new("/shared/camp"));
        assert_eq!(srun[0], "srun");
        assert!(srun.contains(&OsString::from("--jobid=43")));
        assert!(srun.contains(&OsString::from("--chdir=/shared/camp")));
        assert_eq!(srun.last().unwrap(), "--");
    }

    #[test]
    fn squeue_lines_become_tasks_in_task_order() {
        let tasks = parse_squeue("1|42|RUNNING|vm\n0|43|PENDING|\nnoise\n");
        assert_eq!(tasks.len(), 2);
        assert_eq!((tasks[0].task, tasks[0].job_id.as_str()), (0, "43"));
        assert_eq!(tasks[0].node, None);
        assert_eq!(tasks[1].node.as_deref(), Some("vm"));
        assert!(!ended("PENDING") && !ended("RUNNING") && !ended("COMPLETING"));
        assert!(ended("TIMEOUT") && ended("CANCELLED") && ended("NODE_FAIL"));
    }

    #[test]
    fn a_job_that_ended_early_fails_the_shapes_it_lost_and_names_itself() {
        use kcamp_core::case::CaseSpec;
        use kcamp_core::types::{Dtype, OpName, ShapeSpec};
        let spec = CaseSpec {
            op: OpName::Gemm,
            dtype: Dtype::F32,
            shape: ShapeSpec {
                label: "s16".into(),
                dims: [("M", 16), ("N", 16), ("K", 16)]
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            },
            kernel_path: "k.wgsl".into(),
            kernel_source: String::new(),
            kernel: kcamp_core::ops::op(OpName::Gemm)
                .baseline_kernel(Dtype::F32)
                .kernel,
            adapter: Default::default(),
            timing: Default::default(),
            seed: 1,
            paired: None,
            check_only: false,
            driver_statistics: false,
        };
        let lost = || {
            CaseOutcome::without_measurement(
                &spec,
                Check::Error,
                "worker exited during the case: exit status: 1",
            )
        };
        let jobs = SlurmJobs {
            array: "42".into(),
            tasks: Vec::new(),
            time: Some("10".into()),
            watchdog: None,
            // Nothing to cancel: the test's jobs were never submitted.
            ended: true,
        };
        let mut task = Task {
            task: 0,
            job_id: "43".into(),
            state: "TIMEOUT".into(),
            node: Some("gpu01".into()),
        };
        let mut out = vec![lost()];
        jobs.account(&task, &mut out);
        assert_eq!(out[0].check, Check::TimeoutFail);
        let why = out[0].reason.as_deref().unwrap();
        assert!(
            why.contains("slurm job 42_0 on gpu01 reached its time limit of 10"),
            "{why}"
        );
        task.state = "NODE_FAIL".into();
        let mut out = vec![lost()];
        jobs.account(&task, &mut out);
        assert_eq!(out[0].check, Check::Error);
        assert!(
            out[0]
                .reason
                .as_deref()
                .unwrap()
                .contains("ended NODE_FAIL"),
            "{:?}",
            out[0].reason
        );
        // A shape that failed while its job ran is the kernel's: its reason names the job.
        task.state = "RUNNING".into();
        let mut out = vec![lost()];
        jobs.account(&task, &mut out);
        assert_eq!(out[0].check, Check::Error);
        assert!(
            out[0]
                .reason
                .as_deref()
                .unwrap()
                .ends_with("(slurm job 42_0 on gpu01)")
        );
    }
}
