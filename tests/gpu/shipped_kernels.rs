//! `kcamp init --kernel`: a campaign started from a kernel of `shaders/` with the settings it
//! was measured with, and `kernel.checks`, the runtime checks a kernel is compiled with. The
//! GPU test runs the shipped 128x128 SGEMM on the software adapter, on shapes no tile divides.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn kcamp(args: &[&str]) -> std::process::Output {
    let mut with_json = vec!["--json"];
    with_json.extend_from_slice(args);
    kcamp_text(&with_json)
}

/// `kcamp` as a person runs it: its text output.
fn kcamp_text(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("kcamp")
        .unwrap()
        .args(args)
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
        )
        .env_remove("KCAMP_FAILPOINT")
        .output()
        .unwrap()
}

fn json(out: &std::process::Output, code: i32) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout {stdout}\nstderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn init_starts_from_a_shipped_kernel_with_its_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sgemm");
    let out = json(
        &kcamp(&["init", path(&dir), "--kernel", "gemm_sgemm_128x128_bk16"]),
        0,
    );
    assert_eq!(
        (out["op"].as_str(), out["dtype"].as_str()),
        (Some("gemm"), Some("f32"))
    );
    let shipped = std::fs::read_to_string("shaders/gemm_sgemm_128x128_bk16.wgsl").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("kernel/gemm.wgsl")).unwrap(),
        shipped
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    assert!(manifest.contains("x: ceil(N/128)"), "{manifest}");
    assert!(manifest.contains("backward_da: backward_da"), "{manifest}");
    assert!(manifest.contains("file: gemm.wgsl"), "{manifest}");

    // The dtype comes from the kernel when not given.
    let f16 = tmp.path().join("hgemm");
    let out = json(
        &kcamp(&[
            "init",
            path(&f16),
            "--kernel",
            "gemm_hgemm_coop_128x128_bk64",
        ]),
        0,
    );
    assert_eq!(out["dtype"], "f16");
    assert!(
        std::fs::read_to_string(f16.join("kernel/gemm_f16.wgsl"))
            .unwrap()
            .contains("enable wgpu_cooperative_matrix;")
    );
}

#[test]
fn a_kernel_of_another_op_or_an_unknown_name_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let err = json(
        &kcamp(&["init", path(&dir), "--op", "axpy", "--kernel", "gemm_tiled"]),
        2,
    );
    let msg = err["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("--kernel gemm_tiled is a gemm f32 kernel; this campaign is axpy f32"),
        "{msg}"
    );
    let err = json(&kcamp(&["init", path(&dir), "--kernel", "gemm_fast"]), 2);
    let msg = err["error"]["message"].as_str().unwrap();
    assert!(msg.contains("no shipped kernel 'gemm_fast'"), "{msg}");
    for name in [
        "gemm_naive",
        "gemm_sgemm_128x128_aligned",
        "axpy_u4",
        "axpy_f16",
    ] {
        assert!(msg.contains(name), "every shipped kernel is listed: {msg}");
    }
    assert!(!dir.join("manifest.yaml").exists(), "nothing written");
}

#[test]
fn the_split_sgemm_passes_on_aligned_and_unaligned_shapes() {
    // Its aligned (vec4) and unaligned (scalar) k-loops are two copies: one shape of each.
    let (_tmp, out) = run_shipped(
        "gemm_sgemm_128x128_split",
        "- {label: aligned, M: 128, N: 64, K: 48}\n- {label: odd, M: 67, N: 59, K: 33}\n- {label: b2, B: 2, M: 40, N: 136, K: 24}\n",
    );
    assert_eq!(out["summary"]["passed"], 3, "{out}");
}

/// `kcamp run` (3 repeats) of a campaign started from shipped kernel `name` on `shapes`.
fn run_shipped(name: &str, shapes: &str) -> (tempfile::TempDir, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let shapes_file = tmp.path().join("shapes.yaml");
    std::fs::write(&shapes_file, shapes).unwrap();
    json(
        &kcamp(&[
            "init",
            path(&dir),
            "--kernel",
            name,
            "--shapes",
            path(&shapes_file),
        ]),
        0,
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml"))
        .unwrap()
        .replace("  repeats: 10", "  repeats: 3")
        .replace("git_commit: true", "git_commit: false");
    std::fs::write(dir.join("manifest.yaml"), manifest).unwrap();
    let out = json(&kcamp(&["-C", path(&dir), "run"]), 0);
    (tmp, out)
}

#[test]
fn the_aligned_sgemm_runs_its_aligned_entry_points_where_the_shape_allows() {
    // Aligned shapes run the vec4 entry points, unaligned ones the split kernel: both held to
    // the reference, and result.json says which ran.
    let (tmp, out) = run_shipped(
        "gemm_sgemm_128x128_aligned",
        "- {label: aligned, M: 132, N: 64, K: 48}\n- {label: odd, M: 67, N: 59, K: 33}\n- {label: b2, B: 2, M: 40, N: 136, K: 24}\n",
    );
    assert_eq!(out["summary"]["passed"], 3, "{out}");
    let ran = |label: &str| {
        out["result"]["shapes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["label"] == label)
            .map(|s| s["aligned_entries"].clone())
            .unwrap()
    };
    let all = serde_json::json!([
        "forward_aligned",
        "backward_da_aligned",
        "backward_db_aligned"
    ]);
    assert_eq!(ran("aligned"), all);
    assert_eq!(ran("b2"), all);
    assert_eq!(ran("odd"), Value::Null);
    // The text says it beside each number.
    let dir = tmp.path().join("c");
    let text = kcamp_text(&["-C", path(&dir), "run"]);
    let text = String::from_utf8_lossy(&text.stdout);
    let line = |label: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("no line for {label} in:\n{text}"))
            .to_owned()
    };
    assert!(
        line("aligned")
            .ends_with("(aligned: forward_aligned, backward_da_aligned, backward_db_aligned)"),
        "{text}"
    );
    assert!(!line("odd").contains("aligned:"), "{text}");
}

#[test]
fn the_shipped_sgemm_passes_on_shapes_no_tile_divides_and_checks_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let shapes = tmp.path().join("shapes.yaml");
    std::fs::write(
        &shapes,
        "- {label: odd, M: 67, N: 59, K: 33}\n- {label: b2, B: 2, M: 40, N: 136, K: 24}\n",
    )
    .unwrap();
    json(
        &kcamp(&[
            "init",
            path(&dir),
            "--kernel",
            "gemm_sgemm_128x128_bk16",
            "--shapes",
            path(&shapes),
        ]),
        0,
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    let quick = manifest
        .replace("  repeats: 10", "  repeats: 3")
        .replace("git_commit: true", "git_commit: false");
    std::fs::write(dir.join("manifest.yaml"), &quick).unwrap();

    for (checks, recorded) in [("", "bounds_checks"), ("  checks: full\n", "full")] {
        let edited = quick.replace("  trusted: false\n", &format!("  trusted: false\n{checks}"));
        std::fs::write(dir.join("manifest.yaml"), edited).unwrap();
        let out = json(&kcamp(&["-C", path(&dir), "run"]), 0);
        assert_eq!(out["summary"]["passed"], 2, "{out}");
        let fingerprint = &out["result"]["fingerprint"];
        assert_eq!(fingerprint["runtime_checks"], recorded, "{out}");
    }

    // `trusted: true` means no checks at all: a contradicting `checks` is refused by name.
    let contradicting = quick.replace("  trusted: false\n", "  trusted: true\n  checks: full\n");
    std::fs::write(dir.join("manifest.yaml"), contradicting).unwrap();
    let err = json(&kcamp(&["-C", path(&dir), "run"]), 2);
    let msg = err["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("kernel.checks") && msg.contains("trusted"),
        "{msg}"
    );
}
