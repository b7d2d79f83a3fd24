//! Worker isolation (docs/harness.md, "How a case is measured", item 8) against a fake
//! worker that speaks the line protocol (`tests/fixtures/runner/fake_worker.sh`) and
//! against the real `kcamp __worker`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use kcamp_core::case::{CaseOutcome, CaseSpec, EnvironmentFault, ProgressEvent};
use kcamp_core::manifest::{AdapterSelector, KernelSpec, TimingConfig, WorkgroupExprs};
use kcamp_core::types::Check;
use kcamp_core::types::{Dtype, OpName, ShapeSpec};
use kcamp_runner::{RunOptions, WorkerReuse, run_cases};

fn fake_worker() -> Vec<OsString> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runner/fake_worker.sh");
    vec!["sh".into(), script.into_os_string()]
}

fn spec(label: &str, seed: u64) -> CaseSpec {
    CaseSpec {
        op: OpName::Axpy,
        dtype: Dtype::F32,
        shape: ShapeSpec {
            label: label.into(),
            dims: BTreeMap::from([("N".to_owned(), 1024)]),
        },
        kernel_path: PathBuf::from("kernel/axpy.wgsl"),
        kernel_source: "@compute @workgroup_size(64) fn main() {}".into(),
        kernel: KernelSpec {
            file: "axpy.wgsl".into(),
            entry_points: BTreeMap::from([("forward".to_owned(), "main".to_owned())]),
            workgroups: WorkgroupExprs {
                x: "ceil(N/64)".into(),
                y: "1".into(),
                z: "1".into(),
            },
            bindings: BTreeMap::new(),
            trusted: false,
            checks: None,
            aligned: None,
        },
        adapter: AdapterSelector::default(),
        timing: TimingConfig::default(),
        seed,
        paired: None,
        check_only: false,
        driver_statistics: false,
    }
}

fn specs(labels: &[&str]) -> Vec<CaseSpec> {
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| spec(l, 100 + i as u64))
        .collect()
}

fn run(labels: &[&str], opts: &RunOptions) -> (Vec<CaseOutcome>, Vec<ProgressEvent>) {
    let mut events = Vec::new();
    let outcomes = run_cases(&specs(labels), opts, &mut |e| events.push(e));
    (outcomes, events)
}

fn restarts(events: &[ProgressEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            ProgressEvent::WorkerRestarted { label, .. } => Some(label.clone()),
            _ => None,
        })
        .collect()
}

fn checks(outcomes: &[CaseOutcome]) -> Vec<Check> {
    outcomes.iter().map(|o| o.check).collect()
}

#[test]
fn passing_cases_stream_progress_and_outcomes_in_order() {
    let mut opts = RunOptions::with_worker(fake_worker(), 5.0);
    opts.primary_metric = Some("Forward GB/s".into());
    let (outcomes, events) = run(&["a", "b"], &opts);
    assert_eq!(checks(&outcomes), vec![Check::Pass, Check::Pass]);
    assert_eq!(outcomes[1].label, "b");
    assert_eq!(
        outcomes[1].seed, 101,
        "the worker echoes the seed it was sent"
    );
    assert!(matches!(
        events[0],
        ProgressEvent::RunStarted { total_shapes: 2 }
    ));
    assert!(
        matches!(&events[1], ProgressEvent::ShapeStarted { index: 0, total: 2, label } if label == "a")
    );
    assert!(matches!(&events[2], ProgressEvent::Sample { label, .. } if label == "a"));
    assert!(
        matches!(&events[3], ProgressEvent::ShapeFinished { check: Check::Pass, primary: Some(p), .. } if *p == 5.0)
    );
    assert!(matches!(
        events.last(),
        Some(ProgressEvent::RunFinished {
            passed: 2,
            total: 2
        })
    ));
    assert!(restarts(&events).is_empty());
}

#[test]
fn a_hanging_case_times_out_and_the_following_cases_still_pass() {
    let opts = RunOptions::with_worker(fake_worker(), 1.0);
    let started = Instant::now();
    let (outcomes, events) = run(&["a", "hang-1", "b", "c"], &opts);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        checks(&outcomes),
        vec![Check::Pass, Check::TimeoutFail, Check::Pass, Check::Pass]
    );
    assert_eq!(outcomes[1].reason.as_deref(), Some("exceeded 1 s"));
    assert_eq!(outcomes[1].dims, vec![1024]);
    assert_eq!(outcomes[1].seed, 101);
    assert_eq!(restarts(&events), vec!["hang-1".to_owned()]);
}

#[test]
fn a_timeout_names_what_the_worker_was_doing() {
    let opts = RunOptions::with_worker(fake_worker(), 1.0);
    let (outcomes, events) = run(&["slowcompile-1", "a"], &opts);
    assert_eq!(checks(&outcomes), vec![Check::TimeoutFail, Check::Pass]);
    assert_eq!(
        outcomes[0].reason.as_deref(),
        Some(
            "exceeded 1 s while compiling the kernel (compiling counts against timeout_sec: raise it in manifest.yaml for a kernel that is slow to compile)"
        )
    );
    // The phase reached the caller as it happened.
    assert!(events.iter().any(|e| matches!(
        e,
        ProgressEvent::Phase { label, phase } if label == "slowcompile-1" && phase == "compiling the kernel"
    )));
}

#[test]
fn a_crashing_worker_is_error_with_exit_status_and_stderr_and_the_rest_go_on() {
    let opts = RunOptions::with_worker(fake_worker(), 5.0);
    let (outcomes, events) = run(&["crash-1", "a", "crash-2", "b"], &opts);
    assert_eq!(
        checks(&outcomes),
        vec![Check::Error, Check::Pass, Check::Error, Check::Pass]
    );
    let reason = outcomes[0].reason.as_deref().unwrap();
    assert!(reason.contains("worker exited during the case"), "{reason}");
    assert!(reason.contains("exit status: 3"), "{reason}");
    assert!(reason.contains("device lost on crash-1"), "{reason}");
    // It had opened the adapter: the crash is the kernel's.
    assert_eq!(outcomes[0].environment, None);
    assert_eq!(
        restarts(&events),
        vec!["crash-1".to_owned(), "crash-2".to_owned()]
    );
    assert!(matches!(
        events.last(),
        Some(ProgressEvent::RunFinished {
            passed: 2,
            total: 4
        })
    ));
}

#[test]
fn garbage_or_a_wrong_answer_is_error_and_the_worker_is_replaced() {
    let opts = RunOptions::with_worker(fake_worker(), 5.0);
    let (outcomes, events) = run(&["garbage-1", "wrong-1", "a"], &opts);
    assert_eq!(
        checks(&outcomes),
        vec![Check::Error, Check::Error, Check::Pass]
    );
    let garbage = outcomes[0].reason.as_deref().unwrap();
    assert!(
        garbage.contains("unreadable line") && garbage.contains("'this is not json'"),
        "{garbage}"
    );
    let wrong = outcomes[1].reason.as_deref().unwrap();
    assert!(
        wrong.contains("'someone-else'") && wrong.contains("'wrong-1'"),
        "{wrong}"
    );
    assert_eq!(restarts(&events).len(), 2);
}

#[test]
fn a_worker_that_cannot_start_fails_every_case_with_the_reason() {
    let opts = RunOptions::with_worker(vec!["/nonexistent/kcamp-worker".into()], 1.0);
    let (outcomes, _) = run(&["a", "b"], &opts);
    assert_eq!(checks(&outcomes), vec![Check::Error, Check::Error]);
    let reason = outcomes[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("cannot start the worker") && reason.contains("/nonexistent/kcamp-worker"),
        "{reason}"
    );
    assert_eq!(outcomes[0].environment, Some(EnvironmentFault::Machine));
}

#[test]
fn a_worker_that_dies_before_it_opens_the_gpu_is_the_machines_failure_not_the_kernels() {
    let opts = RunOptions::with_worker(fake_worker(), 5.0);
    let (outcomes, _) = run(&["nogpu-1", "crash-1"], &opts);
    assert_eq!(checks(&outcomes), vec![Check::Error, Check::Error]);
    let reason = outcomes[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("before it opened the GPU") && reason.contains("no adapter"),
        "{reason}"
    );
    assert_eq!(outcomes[0].environment, Some(EnvironmentFault::Machine));
    assert_eq!(outcomes[1].environment, None);
}

#[test]
fn cancel_kills_the_worker_and_returns_the_outcomes_so_far() {
    let opts = RunOptions::with_worker(fake_worker(), 60.0);
    let cancel = opts.cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(700));
        cancel.store(true, Ordering::SeqCst);
    });
    let started = Instant::now();
    let (outcomes, events) = run(&["a", "hang-1", "b"], &opts);
    canceller.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(checks(&outcomes), vec![Check::Pass, Check::Error]);
    assert_eq!(outcomes[1].reason.as_deref(), Some("cancelled"));
    assert!(restarts(&events).is_empty(), "no restart after a cancel");
    assert!(matches!(
        events.last(),
        Some(ProgressEvent::RunFinished {
            passed: 1,
            total: 3
        })
    ));
}

/// The real hidden subcommand speaks the same protocol; without a linked GPU executor (or
/// with an adapter that does not exist) every case is an ERROR naming the cause.
#[test]
fn the_real_worker_answers_error_when_no_gpu_can_be_opened() {
    let worker = vec![
        OsString::from(env!("CARGO_BIN_EXE_kcamp")),
        OsString::from("__worker"),
    ];
    let opts = RunOptions::with_worker(worker, 20.0);
    let mut cases = specs(&["a", "b"]);
    for c in &mut cases {
        c.adapter.name = Some("no-such-adapter-kcamp-test".into());
    }
    let outcomes = run_cases(&cases, &opts, &mut |_| {});
    assert_eq!(checks(&outcomes), vec![Check::Error, Check::Error]);
    let reason = outcomes[1].reason.as_deref().unwrap();
    assert!(reason.starts_with("cannot open the GPU"), "{reason}");
    assert_eq!(outcomes[1].seed, 101);
}

#[test]
fn a_worker_that_never_reads_a_large_case_still_times_out() {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runner/deaf_worker.sh");
    let opts = RunOptions::with_worker(vec!["sh".into(), script.into_os_string()], 1.0);
    let mut case = spec("big-kernel", 1);
    // Far more than a pipe buffer (64 KiB on Linux).
    case.kernel_source = "// padding\n".repeat(100_000);
    let started = Instant::now();
    let outcomes = run_cases(&[case], &opts, &mut |_| {});
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(checks(&outcomes), vec![Check::TimeoutFail]);
}

#[test]
fn a_hardware_adapter_or_per_case_mode_gets_a_fresh_worker_for_every_case() {
    // Each start of the worker appends a line to a file: one worker for the run on a
    // software adapter, one per timed case on a hardware adapter, one per case with
    // KCAMP_WORKER_PER_CASE=1.
    let tmp = tempfile::tempdir().unwrap();
    let starts = tmp.path().join("starts");
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runner/fake_worker.sh");
    let command: Vec<OsString> = vec![
        "sh".into(),
        "-c".into(),
        format!(
            "echo start >> '{}'; exec sh '{}'",
            starts.display(),
            script.display()
        )
        .into(),
    ];
    // The fake worker reports a software adapter, except for shapes named `gpu*`.
    for (reuse, labels, expected) in [
        (WorkerReuse::Auto, ["a", "b", "c"], 1),
        (WorkerReuse::PerCase, ["a", "b", "c"], 3),
        (WorkerReuse::Auto, ["gpu-a", "gpu-b", "gpu-c"], 3),
        (WorkerReuse::Shared, ["gpu-a", "gpu-b", "gpu-c"], 1),
    ] {
        std::fs::write(&starts, "").unwrap();
        let mut opts = RunOptions::with_worker(command.clone(), 5.0);
        opts.worker_reuse = reuse;
        let (outcomes, _) = run(&labels, &opts);
        assert_eq!(checks(&outcomes), vec![Check::Pass; 3]);
        let lines = std::fs::read_to_string(&starts).unwrap().lines().count();
        assert_eq!(lines, expected, "{reuse:?} on {labels:?}");
    }
    // Cases that are only checked are not timed: on a hardware adapter they share the
    // worker before them, which a timed case after them does not.
    for (untimed, expected) in [([false, true, true], 1), ([false, false, true], 2)] {
        std::fs::write(&starts, "").unwrap();
        let mut cases = specs(&["gpu-a", "gpu-b", "gpu-c"]);
        for (case, untimed) in cases.iter_mut().zip(untimed) {
            case.check_only = untimed;
        }
        let opts = RunOptions::with_worker(command.clone(), 5.0);
        let outcomes = run_cases(&cases, &opts, &mut |_| {});
        assert_eq!(checks(&outcomes), vec![Check::Pass; 3]);
        let lines = std::fs::read_to_string(&starts).unwrap().lines().count();
        assert_eq!(lines, expected, "check only: {untimed:?}");
    }
    // Precompiling takes a worker of its own before the first timed case; its outcome is
    // not one of the run's.
    std::fs::write(&starts, "").unwrap();
    let mut opts = RunOptions::with_worker(command.clone(), 5.0);
    opts.precompile = true;
    let (outcomes, events) = run(&["a", "b", "c"], &opts);
    assert_eq!(checks(&outcomes), vec![Check::Pass; 3]);
    let lines = std::fs::read_to_string(&starts).unwrap().lines().count();
    assert_eq!(lines, 2);
    assert!(
        matches!(
            &events[1],
            ProgressEvent::Phase { label, phase } if label == "a" && phase.starts_with("compiling the kernels")
        ),
        "{events:?}"
    );
}

#[test]
fn the_drivers_statistics_come_from_the_precompile_worker_and_go_with_the_first_outcome() {
    let registers = |o: &CaseOutcome| o.driver_statistics.as_ref().and_then(|d| d.registers());
    let mut asked = specs(&["a", "b"]);
    asked[0].driver_statistics = true;
    // Without a precompile step the first timed case asks (the fake worker answers 99).
    let opts = RunOptions::with_worker(fake_worker(), 5.0);
    let outcomes = run_cases(&asked, &opts, &mut |_| {});
    assert_eq!(
        outcomes.iter().map(registers).collect::<Vec<_>>(),
        vec![Some(99), None]
    );
    // With one, the throwaway check-only worker asks (77) and the timed case does not again:
    // its compile is the one no timed process should make.
    let mut opts = RunOptions::with_worker(fake_worker(), 5.0);
    opts.precompile = true;
    let outcomes = run_cases(&asked, &opts, &mut |_| {});
    assert_eq!(checks(&outcomes), vec![Check::Pass; 2]);
    assert_eq!(
        outcomes.iter().map(registers).collect::<Vec<_>>(),
        vec![Some(77), None]
    );
}
