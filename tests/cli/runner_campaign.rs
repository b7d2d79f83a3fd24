//! `run_campaign_cases` end to end with the fake protocol worker: shapes from the manifest,
//! artifacts, the RESULT_JSON line, seeds and the live progress file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use kcamp_core::artifacts::result::kernel_sha256;
use kcamp_core::case::ProgressEvent;
use kcamp_core::files::PROGRESS_FILE;
use kcamp_core::manifest::Manifest;
use kcamp_core::schema::{BenchTable, Samples};
use kcamp_core::types::Validation;
use kcamp_core::types::{AdapterDescription, Check};
use kcamp_runner::{CampaignRunOptions, run_campaign_cases};

const KERNEL: &str = "@compute @workgroup_size(64) fn main() {}\n";

fn fake_worker() -> Vec<OsString> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runner/fake_worker.sh");
    vec!["sh".into(), script.into_os_string()]
}

fn campaign(dir: &Path, representative: &str) -> Manifest {
    let yaml = format!(
        "name: axpy-test
op: axpy
dtype: f32
primary_metric: Forward GB/s
target_shapes:
  - {{label: small, N: 1024}}
  - {{label: hang-mid, N: 2048}}
  - {{label: large, N: 4096}}
representative_shapes: [{representative}]
kernel:
  file: axpy.wgsl
  entry_points: {{forward: main}}
  workgroups: {{x: ceil(N/64)}}
timeout_sec: 1
seed: 42
"
    );
    std::fs::write(dir.join("manifest.yaml"), yaml).unwrap();
    std::fs::create_dir_all(dir.join("kernel")).unwrap();
    std::fs::write(dir.join("kernel/axpy.wgsl"), KERNEL).unwrap();
    Manifest::load(dir).unwrap()
}

fn options(validation: Validation) -> CampaignRunOptions {
    let mut opts = CampaignRunOptions::new(validation);
    opts.worker_command = Some(fake_worker());
    opts
}

#[test]
fn full_run_writes_artifacts_result_line_and_live_progress() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = campaign(dir.path(), "small");
    let progress = dir.path().join(PROGRESS_FILE);
    let mut live_seen = Vec::new();
    let report = run_campaign_cases(
        dir.path(),
        &manifest,
        &options(Validation::Full),
        &mut |e| {
            if let ProgressEvent::ShapeStarted { index, .. } = e {
                let doc: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&progress).unwrap()).unwrap();
                assert_eq!(doc["index"], index);
                live_seen.push(doc);
            }
        },
    )
    .unwrap();
    assert_eq!(live_seen.len(), 3);
    assert_eq!(live_seen[1]["label"], "hang-mid");
    assert_eq!(live_seen[1]["state"], "running");
    assert_eq!(live_seen[1]["validation"], "full");
    assert_eq!(live_seen[1]["total"], 3);
    assert_eq!(live_seen[1]["pid"], std::process::id());
    assert!(!progress.exists(), "the live file is removed at the end");

    let checks: Vec<Check> = report.outcomes.iter().map(|o| o.check).collect();
    assert_eq!(checks, vec![Check::Pass, Check::TimeoutFail, Check::Pass]);
    let run_dir = &report.artifacts_dir;
    assert!(run_dir.starts_with(dir.path().join("runs")));
    let table = BenchTable::read(&run_dir.join("benchmark.csv")).unwrap();
    assert_eq!(table.rows.len(), 3);
    assert_eq!(table.rows[1].check, Check::TimeoutFail);
    Samples::read(&run_dir.join("samples.csv")).unwrap();

    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("result.json")).unwrap())
            .unwrap();
    assert_eq!(result["kernel_sha256"], kernel_sha256(KERNEL));
    assert_eq!(result["validation"], "full");
    assert_eq!(result["wgpu_version"], "30");
    let seeds: Vec<u64> = result["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, vec![42, 43, 44]);
    assert_eq!(result["shapes"][1]["reason"], "exceeded 1 s");

    let summary = report.summary();
    assert_eq!(
        (summary.total, summary.passed, summary.all_pass),
        (3, 2, false)
    );
    let aggregate = summary.aggregate.unwrap();
    assert!(
        (aggregate - 5.0).abs() < 1e-9,
        "geomean of 5.0 GB/s: {aggregate}"
    );
    let json = report
        .result_line
        .strip_prefix("[kcamp] RESULT_JSON=")
        .unwrap();
    let line: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(line["latency_us_by_shape"]["large"], 500.0);
    assert_eq!(line["metric"], "Forward GB/s");
}

#[test]
fn quick_run_takes_the_representative_shapes_only() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = campaign(dir.path(), "small, large");
    let mut opts = options(Validation::Quick);
    opts.artifacts_dir = Some(dir.path().join("rounds/round-2/artifacts"));
    opts.round = Some(2);
    let report = run_campaign_cases(dir.path(), &manifest, &opts, &mut |_| {}).unwrap();
    let labels: Vec<&str> = report.outcomes.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, vec!["small", "large"]);
    assert!(
        dir.path()
            .join("rounds/round-2/artifacts/result.json")
            .is_file()
    );
    assert!(report.summary().all_pass);
}

#[test]
fn quick_run_without_representative_shapes_and_a_missing_kernel_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut manifest = campaign(dir.path(), "small");
    manifest.representative_shapes.clear();
    let err = run_campaign_cases(
        dir.path(),
        &manifest,
        &options(Validation::Quick),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("representative_shapes"), "{err}");
    manifest.kernel.file = "missing.wgsl".into();
    let err = run_campaign_cases(
        dir.path(),
        &manifest,
        &options(Validation::Full),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("missing.wgsl"), "{err}");
}

/// H200 f32 SGEMM 4096³ in 10 ms: 13.744 TFLOP/s = 20.51 % of the cited 67 TFLOP/s and
/// 20.13 GB/s = 0.419 % of 4.8 TB/s (see the specs unit test for the arithmetic).
#[test]
fn record_utilization_uses_the_adapter_that_measured_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.yaml"),
        "name: g\nop: gemm\ndtype: f32\nprimary_metric: Forward TFLOPS\ntarget_shapes:\n  - {label: big, M: 4096, N: 4096, K: 4096}\nkernel:\n  file: g.wgsl\n  entry_points: {forward: main}\n  workgroups: {x: ceil(N/64)}\n",
    )
    .unwrap();
    let manifest = Manifest::load(dir.path()).unwrap();
    let csv = format!(
        "{}\nbig,1,4096,4096,4096,PASS,13.74,0.1,13.0,0.1,10.0,21.0,120,120,120\n",
        kcamp_core::schema::GEMM_HEADER
    );
    let table = BenchTable::parse(&csv, Path::new("benchmark.csv")).unwrap();
    let result = AdapterDescription {
        name: "NVIDIA H200".into(),
        backend: "vulkan".into(),
        device_type: "DiscreteGpu".into(),
        driver: "NVIDIA".into(),
        driver_info: "580".into(),
        vendor: 4318,
        device: 8997,
        ..AdapterDescription::default()
    };
    let (flops_pct, bw_pct) = kcamp_core::specs::record_utilization(
        dir.path(),
        (manifest.op, manifest.dtype),
        &table,
        Some(&result),
    );
    assert!((flops_pct.unwrap() - 20.513).abs() < 1e-3, "{flops_pct:?}");
    assert!((bw_pct.unwrap() - 0.41943).abs() < 1e-4, "{bw_pct:?}");
    // A software adapter has no cited peak; its measured peaks (kcamp peak) are used.
    let software = AdapterDescription {
        name: "kcamp-test-software".into(),
        backend: "vulkan".into(),
        device_type: "Cpu".into(),
        driver: "test".into(),
        driver_info: "Mesa".into(),
        vendor: 65541,
        software: true,
        ..AdapterDescription::default()
    };
    assert_eq!(
        kcamp_core::specs::record_utilization(
            dir.path(),
            (manifest.op, manifest.dtype),
            &table,
            Some(&software)
        ),
        (None, None),
        "no cited or measured peak"
    );
    let store = serde_json::json!({"adapters": {"kcamp-test-software | test": {
        "source": "measured:kcamp-test-software:2026-11-29", "adapter": "kcamp-test-software",
        "driver": "test", "measured_at": "2026-11-29T00:00:00Z",
        "flops": {"f32": 137.44e12}, "bandwidth": 40.26e9}}});
    std::fs::write(dir.path().join("peaks.json"), store.to_string()).unwrap();
    let (flops_pct, bw_pct) = kcamp_core::specs::record_utilization(
        dir.path(),
        (manifest.op, manifest.dtype),
        &table,
        Some(&software),
    );
    assert!((flops_pct.unwrap() - 10.0).abs() < 1e-2, "{flops_pct:?}");
    assert!((bw_pct.unwrap() - 50.0).abs() < 1e-1, "{bw_pct:?}");
}

/// `kcamp run --json` through the real `__worker` with an adapter that cannot exist: no
/// shape reached its kernel, so the run is refused (exit 2, the selection is the user's;
/// exit 3 on a machine where no adapter opens at all), writes nothing under `runs/`, and
/// stdout is one JSON error document naming the cause.
#[test]
fn kcamp_run_with_a_selection_that_matches_no_adapter_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    campaign(dir.path(), "small");
    let out = assert_cmd::Command::cargo_bin("kcamp")
        .unwrap()
        .args(["--json", "-C"])
        .arg(dir.path())
        .args([
            "run",
            "--shapes",
            "quick",
            "--adapter",
            "no-such-adapter-kcamp-test",
        ])
        .env("TEST_TIMEOUT_SEC", "20")
        .assert();
    let output = out.get_output();
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("nothing recorded") && message.contains("no-such-adapter-kcamp-test"),
        "{doc}"
    );
    let none_at_all = message.contains("adapters found: none");
    let (code, kind) = if none_at_all {
        (3, "gpu")
    } else {
        (2, "bad_input")
    };
    assert_eq!(output.status.code(), Some(code), "{doc}");
    assert_eq!(doc["error"]["kind"], kind, "{doc}");
    assert!(
        doc["error"]["next"].to_string().contains("adapters"),
        "{doc}"
    );
    assert!(!dir.path().join("runs").exists());
    assert!(!dir.path().join(PROGRESS_FILE).exists());
}
