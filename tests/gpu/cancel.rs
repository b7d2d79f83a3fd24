//! Cancelling a running `kcamp validate` (docs/reliability.md, "Cancelling"): SIGINT
//! (Ctrl-C), SIGTERM (the dashboard's Esc and quit) and SIGHUP (a closed terminal) each end
//! every process the run started within a second, checked by pid — a harness command's
//! whole process group, and the built-in runner's `kcamp __worker` on real kernels — remove
//! the staging directories, reset `live/progress.json`, journal `cancelled` and exit 2 with
//! `{"error": {"kind": "cancelled"}}`. Nothing is recorded: the round stays as it was.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{alive, child_running, children, git, interrupt, wait_for};

/// Everything a run started must be gone this soon after the signal: it goes in
/// milliseconds, but a loaded 2-core CI machine can delay any process by seconds, and a
/// leaked one (a worker in a 1024³ case, a harness's `sleep`) outlives this by far.
const WITHIN: Duration = Duration::from_secs(15);

fn kcamp() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("kcamp"));
    cmd.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    )
    .env_remove("KCAMP_FAILPOINT")
    .env_remove("TEST_TIMEOUT_SEC");
    cmd
}

fn run(dir: &Path, args: &[&str]) -> Value {
    let out = kcamp()
        .arg("--json")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "kcamp {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap()
}

/// Send `signal` to the running validate and check what it leaves behind.
fn cancel_and_check(dir: &Path, mut validate: Child, signal: libc::c_int, run_pids: &[u32]) {
    let sent = Instant::now();
    // SAFETY: kill(2) sends a signal to our own child and touches no memory.
    unsafe {
        libc::kill(validate.id() as libc::pid_t, signal);
    }
    let status = wait_for("validate to exit", Duration::from_secs(60), || {
        validate.try_wait().unwrap()
    });
    let exited = sent.elapsed();
    for &pid in run_pids {
        wait_for("the run's processes to end", WITHIN, || {
            (!alive(pid)).then_some(())
        });
    }
    let all_gone = sent.elapsed();
    let mut stdout = String::new();
    validate
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    eprintln!(
        "signal {signal}: validate exited after {exited:?}, every process gone after {all_gone:?}"
    );
    assert!(all_gone < WITHIN, "{all_gone:?}");
    assert_eq!(status.code(), Some(2), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "cancelled", "{doc}");
    let round = dir.join("rounds/round-2");
    for staging in [".artifacts.tmp", ".kernel.tmp"] {
        assert!(!round.join(staging).exists(), "{staging} left behind");
    }
    assert!(
        !round.join("artifacts/gate.json").exists(),
        "nothing recorded"
    );
    assert!(
        !dir.join("live/progress.json").exists(),
        "live progress reset"
    );
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let last: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "cancelled", "{journal}");
    assert_eq!(last["round"], 2);
    assert_eq!(last["detail"]["command"], "validate --full");
    let status = run(dir, &["status"]);
    assert_eq!(status["lock_holder"], Value::Null, "the lock is free");
    assert_eq!(status["open_round"]["validated"], false);
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/campaign")
        .join(name)
}

/// A GEMM campaign baselined from a CSV, with round 2 open and `extra` appended to the
/// manifest.
fn campaign(shapes: &str, baseline_csv: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = common::gemm_campaign(shapes);
    let csv = tmp.path().join("baseline.csv");
    std::fs::write(&csv, baseline_csv).unwrap();
    run(&dir, &["baseline", "--csv", csv.to_str().unwrap()]);
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(dir.join("manifest.yaml"), format!("{manifest}{extra}")).unwrap();
    run(&dir, &["round", "new", "--hypothesis", "to be cancelled"]);
    (tmp, dir)
}

fn start_validate(dir: &Path) -> Child {
    kcamp()
        .arg("--json")
        .arg("-C")
        .arg(dir)
        .args(["validate", "--full"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// BASELINE measured by the built-in runner on the campaign's one small shape (a campaign
/// of imported CSVs never runs it), then that shape grown to 1024³ so that its case runs
/// for seconds on the software adapter, and round 2 opened: a validation is cancelled long
/// before the gate would see it.
fn grown_after_baseline(dir: &Path) {
    run(dir, &["baseline", "--no-peak"]);
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    let grown = manifest
        .replace("  M: 16", "  M: 1024")
        .replace("  N: 16", "  N: 1024")
        .replace("  K: 16", "  K: 1024");
    assert_ne!(grown, manifest);
    std::fs::write(dir.join("manifest.yaml"), grown).unwrap();
    run(dir, &["round", "new", "--hypothesis", "to be cancelled"]);
}

/// The worker that runs a case for process `parent`, not the one that compiled the kernels
/// first and is gone: the live progress names what the current worker does.
fn case_worker(dir: &Path, parent: u32) -> u32 {
    wait_for("the worker of the case", Duration::from_secs(180), || {
        if !common::in_a_timed_case(dir) {
            return None;
        }
        child_running(parent, "__worker")
    })
}

#[test]
fn each_signal_ends_a_harness_command_and_its_whole_group() {
    let shapes = std::fs::read_to_string(fixture("shapes.yaml")).unwrap();
    let baseline = std::fs::read_to_string(fixture("baseline.csv")).unwrap();
    // The harness's shell starts a grandchild: only a kill of its group reaches it.
    let extra = "full_command: \"sleep 60 & echo $! > harness.pid; wait # writes {csv}\"\n";
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let (_tmp, dir) = campaign(&shapes, &baseline, extra);
        let validate = start_validate(&dir);
        let pid_file = dir.join("harness.pid");
        let sleeper: u32 = wait_for("the harness", Duration::from_secs(120), || {
            std::fs::read_to_string(&pid_file).ok()?.trim().parse().ok()
        });
        assert!(dir.join("rounds/round-2/.kernel.tmp").exists(), "staged");
        let shell = children(validate.id());
        assert!(!shell.is_empty(), "the harness shell runs");
        let mut pids = shell;
        pids.push(sleeper);
        cancel_and_check(&dir, validate, signal, &pids);
    }
}

#[test]
fn sigterm_ends_the_builtin_worker_on_real_kernels() {
    let (_tmp, dir) = common::gemm_campaign("- {label: big, M: 16, N: 16, K: 16}\n");
    grown_after_baseline(&dir);
    let validate = start_validate(&dir);
    let worker = case_worker(&dir, validate.id());
    // Let the worker get into the case.
    std::thread::sleep(Duration::from_millis(500));
    assert!(alive(worker));
    cancel_and_check(&dir, validate, libc::SIGTERM, &[worker]);
}

#[test]
fn a_cancelled_run_exits_2_and_says_to_run_again() {
    // `kcamp run` records nothing, but a run cut short by Ctrl-C is not a success: a script
    // that checks the exit code must not take its partial numbers for a measurement.
    let (_tmp, dir) = common::gemm_campaign("- {label: big, M: 1024, N: 1024, K: 1024}\n");
    let run = kcamp()
        .arg("-C")
        .arg(&dir)
        .arg("run")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let worker = wait_for("the worker", Duration::from_secs(180), || {
        child_running(run.id(), "__worker")
    });
    // Let the worker get into the case.
    std::thread::sleep(Duration::from_millis(500));
    let mut run = run;
    let status = interrupt(&mut run, "run to exit");
    let mut out = String::new();
    run.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(status.code(), Some(2), "{out}");
    assert!(
        out.contains("cancelled: the remaining shapes were not run"),
        "{out}"
    );
    assert!(out.contains("next: kcamp -C "), "{out}");
    assert!(
        out.contains(" run   (cancelled: run again to measure every shape)"),
        "{out}"
    );
    assert!(!out.contains("validate"), "{out}");
    assert!(!alive(worker), "the worker outlived the cancelled run");
}

#[test]
fn a_cancelled_validate_names_the_stopped_shape_says_to_run_again_and_leaves_git_clean() {
    // The campaign commits its steps: a Ctrl-C must leave the tree as clean as a finished
    // command does, and its output must not report the shape it stopped as a kernel ERROR.
    let (tmp, dir) = common::gemm_campaign("- {label: big, M: 16, N: 16, K: 16}\n");
    git(tmp.path(), &["init", "-q"]);
    git(tmp.path(), &["config", "user.email", "t@example.com"]);
    git(tmp.path(), &["config", "user.name", "t"]);
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        manifest.replace("git_commit: false", "git_commit: true"),
    )
    .unwrap();
    grown_after_baseline(&dir);
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-q", "-m", "the grown shape"]);
    let validate = kcamp()
        .arg("-C")
        .arg(&dir)
        .args(["validate", "--full"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let worker = case_worker(&dir, validate.id());
    std::thread::sleep(Duration::from_millis(500));
    let mut validate = validate;
    let status = interrupt(&mut validate, "validate to exit");
    let mut err = String::new();
    validate
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(!alive(worker), "the worker outlived the cancelled validate");
    assert!(err.contains("big: cancelled (not measured)"), "{err}");
    assert!(!err.contains("big: ERROR"), "{err}");
    assert!(
        err.contains("error: cancelled after 0 of 1 shapes"),
        "{err}"
    );
    let again = format!(
        "next: kcamp -C {} validate --full   (cancelled: run it again to measure every shape; dashboard: V)",
        kcamp_core::text::shell_word(&dir.display().to_string())
    );
    assert!(err.contains(&again), "{again} in {err}");
    assert_eq!(git(tmp.path(), &["status", "--porcelain"]), "", "{err}");
    let subject = git(tmp.path(), &["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "round 2: validate --full cancelled");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let last: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "cancelled", "{journal}");
}
