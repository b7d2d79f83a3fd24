//! Like-for-like verdicts on real WGSL kernels (the software adapter in CI): a candidate
//! validated on another backend than its incumbent, paired and unpaired, and a quick
//! validation that checks the output of every target shape.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;
use common::run;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn campaign(shapes: &str, representative: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes_file = tmp.path().join("shapes.yaml");
    std::fs::write(&shapes_file, shapes).unwrap();
    run(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            shapes_file.to_str().unwrap(),
        ],
        0,
    );
    let path = dir.join("manifest.yaml");
    let manifest = std::fs::read_to_string(&path)
        .unwrap()
        .replace("  repeats: 10", "  repeats: 4")
        .replace("git_commit: true", "git_commit: false")
        .replace(
            "representative_shapes: []",
            &format!("representative_shapes: [{representative}]"),
        );
    std::fs::write(&path, manifest).unwrap();
    (tmp, dir)
}

fn set_paired(dir: &Path, paired: bool) {
    let path = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (from, to) = if paired {
        ("  paired: false", "  paired: true")
    } else {
        ("  paired: true", "  paired: false")
    };
    assert!(text.contains(from), "{text}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// The name of the GL adapter (Mesa's llvmpipe through EGL); CI has it with Mesa installed.
fn gl_adapter(dir: &Path) -> String {
    let v = run(dir, &["adapters", "--backend", "gl"], 0);
    let list = v
        .as_array()
        .or_else(|| v["adapters"].as_array())
        .cloned()
        .unwrap_or_default();
    let gl = list
        .iter()
        .find(|a| a["backend"] == "gl")
        .unwrap_or_else(|| panic!("no GL adapter (install Mesa's EGL/GL drivers): {v}"));
    gl["name"].as_str().unwrap().to_owned()
}

#[test]
fn a_candidate_on_another_backend_is_judged_like_for_like() {
    let (tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: s32, M: 32, N: 32, K: 32}\n",
        "s16, s32",
    );
    gl_adapter(tmp.path());
    run(&dir, &["baseline", "--backend", "vulkan"], 0);
    let round1 = read_json(&dir.join("rounds/round-1/artifacts/result.json"));
    assert_eq!(round1["fingerprint"]["adapter"]["backend"], "vulkan");
    assert_eq!(round1["fingerprint"]["runtime_checks"], "bounds_checks");
    assert_eq!(round1["fingerprint"]["harness"]["kind"], "builtin");
    for shape in round1["shapes"].as_array().unwrap() {
        let warmup = shape["warmup"].as_array().unwrap();
        assert_eq!(warmup.len(), 2, "forward and backward warm up: {shape}");
        assert!(warmup[0]["dispatches"].as_u64().unwrap() >= 3, "{shape}");
        assert!(warmup[0]["ms"].as_f64().unwrap() > 0.0, "{shape}");
    }

    // The same kernel validated on GL. Paired, both sides are measured on GL in
    // this run; the verdict says the incumbent's own round was measured on Vulkan.
    run(
        &dir,
        &["round", "new", "--hypothesis", "unchanged, on GL"],
        0,
    );
    let (code, v) = run_any(&dir, &["validate", "--backend", "gl"]);
    assert!(code == 0 || code == 1, "{v}");
    assert_eq!(v["like_for_like"]["pairing"]["kind"], "interleaved", "{v}");
    assert_eq!(v["like_for_like"]["candidate"]["adapter"]["backend"], "gl");
    assert_eq!(v["report"]["paired"], true);
    let reasons = v["report"]["reasons"].as_array().unwrap();
    assert!(reasons[0].as_str().unwrap().starts_with("paired:"), "{v}");
    assert!(
        reasons[1].as_str().unwrap().contains("backend vulkan → gl"),
        "{v}"
    );
    assert_ne!(
        v["report"]["verdict"], "ACCEPT",
        "an unchanged kernel is no gain: {v}"
    );
    for s in v["report"]["shapes"].as_array().unwrap() {
        assert_eq!(s["hard_regression"], false, "{s}");
        assert_eq!(s["pairs"], 4, "{s}");
    }
    let adir = dir.join("rounds/round-2/artifacts");
    let result = read_json(&adir.join("result.json"));
    assert_eq!(result["paired"]["interleaved"], true);
    assert_eq!(result["paired"]["kernel_dir"], "rounds/round-1/kernel");
    assert!(adir.join("paired.csv").is_file() && adir.join("paired_samples.csv").is_file());

    // Unpaired, the two backends are not like for like: NEEDS_REMEASURE naming both and
    // the command that re-measures on the incumbent's adapter.
    set_paired(&dir, false);
    let v = run(&dir, &["validate", "--backend", "gl"], 1);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    let first = v["report"]["reasons"][0].as_str().unwrap();
    assert!(
        first.starts_with("not like for like: round 1 was measured as llvmpipe")
            && first.contains("backend vulkan → gl")
            && first.contains("kcamp validate --adapter 'llvmpipe")
            && first.contains("--backend vulkan`"),
        "{first}"
    );
    // On the incumbent's backend, unpaired, the two sides are judged (noise decides how).
    let (code, v) = run_any(&dir, &["validate", "--backend", "vulkan"]);
    assert!(code == 0 || code == 1, "{v}");
    assert_eq!(
        v["like_for_like"]["differences"],
        serde_json::json!([]),
        "{v}"
    );
    assert!(
        v["report"]["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("unpaired (gate.paired is false in manifest.yaml)"),
        "{v}"
    );
}

/// `kcamp --json -C dir ARGS`: its exit code and document, whatever the code.
fn run_any(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .arg("--json")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("KCAMP_TIMING")
        .env_remove("TEST_TIMEOUT_SEC")
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn a_quick_validation_checks_the_output_of_every_target_shape() {
    // A kernel whose backward_da is wrong for odd K; the representative shapes are
    // even, the odd one is only checked.
    let (_tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: s32, M: 32, N: 32, K: 32}\n- {label: odd16x17x16, M: 16, N: 17, K: 16}\n",
        "s16, s32",
    );
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "unroll by two"], 0);
    let bug = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kernels/gemm_odd_k_backward_bug.wgsl");
    std::fs::copy(bug, dir.join("kernel/gemm.wgsl")).unwrap();
    let v = run(&dir, &["validate"], 1);
    assert_eq!(v["validation"], "quick");
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    assert_eq!(v["report"]["shapes"].as_array().unwrap().len(), 2);
    let first = v["report"]["reasons"][0].as_str().unwrap();
    assert_eq!(
        first,
        "the only untimed target shape checked by this validation does not PASS: odd16x17x16 (FAIL).",
    );
    // Why it failed is in the validation's failures, beside the timed shapes'.
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{v}");
    assert_eq!(failures[0]["label"], "odd16x17x16");
    assert_eq!(failures[0]["untimed"], true);
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("backward_da (da_snr)"),
        "{v}"
    );
    assert_eq!(v["checked_shapes"][0]["check"], "FAIL");
    let result = read_json(&dir.join("rounds/round-2/artifacts/result.json"));
    assert!(
        result["checked_shapes_ms"].as_f64().unwrap() > 0.0,
        "{result}"
    );
    assert_eq!(result["checked_shapes"][0]["label"], "odd16x17x16");
    // The fixed kernel passes every shape.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/gemm_naive.wgsl"),
        dir.join("kernel/gemm.wgsl"),
    )
    .unwrap();
    let (_, v) = run_any(&dir, &["validate"]);
    assert_eq!(v["checked_shapes"][0]["check"], "PASS", "{v}");
    assert!(
        v["report"]["reasons"]
            .to_string()
            .contains("the outputs of the other 1 target shape were checked"),
        "{v}"
    );
}

#[test]
fn a_trusted_candidate_is_paired_with_the_incumbent_as_the_incumbent_runs() {
    // The change under test is the runtime-checks mode: the incumbent's snapshot must keep its
    // own (bounds checks), or the pair compares the candidate with itself.
    let (_tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: s32, M: 32, N: 32, K: 32}\n",
        "s16, s32",
    );
    run(&dir, &["baseline"], 0);
    run(
        &dir,
        &["round", "new", "--hypothesis", "no runtime checks"],
        0,
    );
    trust_the_kernel(&dir);
    let (_, v) = run_any(&dir, &["validate"]);
    let result = read_json(&dir.join("rounds/round-2/artifacts/result.json"));
    assert_eq!(
        result["paired"]["runtime_checks"], "bounds_checks",
        "{result}"
    );
    let fingerprint = read_json(&dir.join("rounds/round-2/artifacts/fingerprint.json"));
    assert_eq!(fingerprint["runtime_checks"], "none", "{fingerprint}");
    let reasons = v["report"]["reasons"].to_string();
    assert!(
        reasons.contains("the candidate was compiled with `none`, round 1's snapshot with its own `bounds_checks`"),
        "{v}"
    );
    // Nothing else differs between round 1's own measurement and its side of this verdict.
    assert!(!reasons.contains("round 1 itself was measured as"), "{v}");
}

#[test]
fn an_unpaired_verdict_on_another_checks_mode_says_to_set_the_checks_back() {
    // Judged against round 1's recorded numbers (pairing off), a candidate compiled without
    // runtime checks is not like for like, and measuring again as before would repeat the
    // difference: the advice names the setting and the mode to set back.
    let (_tmp, dir) = campaign("- {label: s16, M: 16, N: 16, K: 16}\n", "s16");
    let path = dir.join("manifest.yaml");
    let manifest = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, manifest.replace("  paired: true", "  paired: false")).unwrap();
    run(&dir, &["baseline", "--no-peak"], 0);
    run(
        &dir,
        &["round", "new", "--hypothesis", "no runtime checks"],
        0,
    );
    trust_the_kernel(&dir);
    let (_, v) = run_any(&dir, &["validate"]);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    let reasons = v["report"]["reasons"].to_string();
    assert!(
        reasons.contains("they differ in runtime checks bounds_checks → none"),
        "{reasons}"
    );
    assert!(
        reasons.contains("Re-measure like for like: set the kernel's runtime checks back to `bounds_checks` (`checks` or `trusted` in kernel/kernel.yaml"),
        "{reasons}"
    );
}

/// The kernel's own settings, compiled without runtime checks (`trusted: true` in
/// kernel/kernel.yaml, which replaces the manifest's whole `kernel:` section).
fn trust_the_kernel(dir: &Path) {
    std::fs::write(
        dir.join("kernel/kernel.yaml"),
        "file: gemm.wgsl\nentry_points: {forward: main}\nworkgroups: {x: ceil(N/16), y: ceil(M/16), z: B}\ntrusted: true\n",
    )
    .unwrap();
}
