//! An environment failure is never a verdict (docs/reliability.md): a measurement on a
//! machine where no adapter opens, or with a selection that matches none, fails the step
//! with nothing recorded and the round as it was, in `validate`, in the held-out check of
//! `accept` and in `report`; time kcamp itself was stopped is not charged to a case.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::common;
use common::{describe, refusal, run, tree};

/// `kcamp --json -C dir ARGS` on a machine where no adapter opens: Vulkan alone, and its
/// only driver a file that does not exist.
fn without_adapter(dir: &Path, args: &[&str]) -> Output {
    common::kcamp(dir)
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_DRIVER_FILES", "/nonexistent/kcamp-no-driver.json")
        .arg("--json")
        .args(args)
        .output()
        .unwrap()
}

/// A refused step: its exit code, one JSON error document naming `cause`, nothing recorded
/// and a next step, and the campaign's files exactly as they were (`before`).
type Tree = Vec<(std::path::PathBuf, Vec<u8>)>;

fn refused(dir: &Path, before: &Tree, args: &[&str], out: &Output, code: i32, cause: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", describe(args, out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = refusal(&v);
    assert!(
        text.contains(cause) && text.contains("nothing recorded") && text.contains("next: "),
        "{text}"
    );
    assert!(!text.contains("wrong on"), "{text}");
    assert!(tree(dir) == *before, "kcamp {args:?} changed the campaign");
}

/// A campaign of two small shapes, baselined, with round 2 open and validated.
fn validated() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = common::gemm_campaign(
        "- {label: s32, M: 32, N: 32, K: 32}\n- {label: s48, M: 48, N: 48, K: 48}\n",
    );
    run(&dir, &["baseline", "--no-peak"], 0);
    run(
        &dir,
        &["round", "new", "--hypothesis", "the same kernel"],
        0,
    );
    common::edit_kernel(&dir, "same");
    let out = common::output(&dir, &["validate", "--full"]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        describe(&["validate"], &out)
    );
    (tmp, dir)
}

#[test]
fn no_adapter_or_one_that_matches_none_is_never_recorded_as_the_kernels_fault() {
    let (_tmp, dir) = validated();
    let before = tree(&dir);
    // The held-out check of a forced accept on a machine where no adapter opens.
    let args = ["accept", "--force", "--reason", "try it"];
    let out = without_adapter(&dir, &args);
    refused(&dir, &before, &args, &out, 3, "adapters found: none");
    // A validation with a selection that matches no adapter: the user's input.
    let args = ["validate", "--full", "--adapter", "nosuchgpu"];
    let out = common::output(&dir, &args);
    refused(&dir, &before, &args, &out, 2, "nosuchgpu");
    let out = without_adapter(&dir, &["validate", "--full"]);
    refused(
        &dir,
        &before,
        &["validate"],
        &out,
        3,
        "adapters found: none",
    );
    // The round as it was: its earlier verdict stands, and it can still be accepted.
    assert_eq!(tree(&dir), before);
    let v = run(&dir, &["accept", "--force", "--reason", "try it"], 0);
    assert_eq!(v["decision"]["decision"], "ACCEPTED", "{v}");
    // The final report, on a machine where no adapter opens.
    let before = tree(&dir);
    let out = without_adapter(&dir, &["report"]);
    refused(&dir, &before, &["report"], &out, 3, "adapters found: none");
    assert!(!dir.join("report/acceptance.json").exists());
}

#[test]
fn a_baseline_without_an_adapter_records_nothing() {
    let (_tmp, dir) = common::gemm_campaign("- {label: s32, M: 32, N: 32, K: 32}\n");
    let before = tree(&dir);
    let out = without_adapter(&dir, &["baseline", "--no-peak"]);
    refused(
        &dir,
        &before,
        &["baseline"],
        &out,
        3,
        "adapters found: none",
    );
    assert!(!dir.join("rounds/round-1").exists());
}

#[test]
fn time_kcamp_was_stopped_is_not_charged_to_the_case() {
    // One case of about a second on the software adapter, a 6 s limit, and kcamp stopped
    // for 8 s in the middle of it: its worker finishes meanwhile, and the case passes.
    let (_tmp, dir) = common::gemm_campaign("- {label: s384, M: 384, N: 384, K: 384}\n");
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    assert!(manifest.contains("timeout_sec: 30.0"), "{manifest}");
    std::fs::write(
        dir.join("manifest.yaml"),
        manifest.replace("timeout_sec: 30.0", "timeout_sec: 6.0"),
    )
    .unwrap();
    let child = common::kcamp_process(&dir)
        .args(["--json", "run", "--shapes", "full"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for("the timed case", Duration::from_secs(120), || {
        common::in_a_timed_case(&dir).then_some(())
    });
    let pid = child.id() as libc::pid_t;
    // SAFETY: kill(2) signals our own child and touches no memory.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_secs(8));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shapes = &v["result"]["shapes"];
    assert_eq!(shapes[0]["check"], "PASS", "{shapes:#}");
    assert_eq!(out.status.code(), Some(0), "{v}");
}
