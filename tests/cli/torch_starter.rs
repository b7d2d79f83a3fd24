//! `kcamp init --harness torch` through the real binary: the files it writes, and a
//! campaign measured by its harness/bench.py on CPU torch (baseline, a round with the
//! kernel unchanged, a round with a wrong kernel).
//!
//! The measuring tests need a Python with torch: `KCAMP_TEST_PYTHON`, else `python3` if it
//! imports torch. Without one they print why and pass, unless `KCAMP_REQUIRE_TORCH=1`
//! (CI sets it), where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{describe, kcamp, run};

/// Four shapes small enough for CPU torch, one of them batched and none a power of two
/// in every dimension.
const SHAPES: &str = "- {label: s16, M: 16, N: 16, K: 16}\n- {label: r24x40x8, M: 24, N: 40, K: 8}\n- {label: b2x32, B: 2, M: 32, N: 24, K: 16}\n- {label: s48, M: 48, N: 48, K: 48}\n";

/// Short measurements: the tests judge the plumbing, not the speed.
const FAST: &str = "--repeats 5 --warmup-ms 2 --warmup-iters 1 --min-sample-ms 0.2";

/// A Python interpreter that imports torch, or None (after saying why) where the tests
/// may skip.
fn torch_python() -> Option<PathBuf> {
    let python =
        std::env::var_os("KCAMP_TEST_PYTHON").map_or_else(|| "python3".into(), PathBuf::from);
    let imports = Command::new(&python).args(["-c", "import torch"]).output();
    let why = match imports {
        Ok(out) if out.status.success() => return Some(python),
        Ok(out) => format!(
            "{} cannot import torch: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => format!("{} cannot be run: {e}", python.display()),
    };
    assert!(
        std::env::var("KCAMP_REQUIRE_TORCH").as_deref() != Ok("1"),
        "KCAMP_REQUIRE_TORCH=1 but {why} (set KCAMP_TEST_PYTHON to a python with torch)"
    );
    eprintln!("skipping the torch starter's measuring test: {why} (set KCAMP_TEST_PYTHON)");
    None
}

/// A directory holding `python3`, a wrapper of `python`, to put first on PATH: the
/// manifest's command names `python3`, as a user's would.
fn python_on_path(root: &Path, python: &Path) -> String {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("python3");
    let python = std::path::absolute(python).unwrap_or_else(|_| python.to_owned());
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", python.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

/// `kcamp init DIR --harness torch --shapes FILE` (FILE holding `shapes`) plus `extra`,
/// in `root`.
fn init_torch(root: &Path, shapes: &str, extra: &[&str]) -> PathBuf {
    let dir = root.join("camp");
    let file = root.join("shapes.yaml");
    std::fs::write(&file, shapes).unwrap();
    let mut args = vec![
        "init",
        dir.to_str().unwrap(),
        "--harness",
        "torch",
        "--shapes",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(root, &args, 0);
    dir
}

/// Git commits off, and bench.py's short measurements in both commands.
fn quick_manifest(dir: &Path) {
    let manifest = read(&dir.join("manifest.yaml"))
        .replace("git_commit: true", "git_commit: false")
        .replace(
            "--kernel-dir {kernel_dir}",
            &format!("--kernel-dir {{kernel_dir}} {FAST}"),
        );
    std::fs::write(dir.join("manifest.yaml"), manifest).unwrap();
}

/// `kcamp --json -C dir ARGS` with `path` as PATH; checks the exit code.
fn run_with(dir: &Path, path: &str, args: &[&str], code: i32) -> Value {
    let out = kcamp(dir)
        .env("PATH", path)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", describe(args, &out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {}", describe(args, &out)))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn init_writes_the_harness_the_kernel_and_the_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init_torch(tmp.path(), SHAPES, &["--dtype", "f16"]);
    let manifest = read(&dir.join("manifest.yaml"));
    assert!(
        manifest.contains(
            "quick_command: python3 harness/bench.py --csv {csv} --kernel-dir {kernel_dir}"
        ),
        "{manifest}"
    );
    assert!(
        manifest.contains(
            "full_command: python3 harness/bench.py --csv {csv} --kernel-dir {kernel_dir}"
        ),
        "{manifest}"
    );
    assert!(manifest.contains("- harness/bench.py"), "{manifest}");
    assert!(manifest.contains("file: kernel.py"), "{manifest}");
    assert!(read(&dir.join("kernel/kernel.py")).contains("def gemm(a"));
    assert!(!dir.join("kernel/gemm_f16.wgsl").exists());
    let bench = read(&dir.join("harness/bench.py"));
    assert!(
        bench.contains("torch.cuda.Event"),
        "the timing it documents"
    );
    let shapes: Value = serde_json::from_str(&read(&dir.join("harness/shapes.json"))).unwrap();
    assert_eq!(shapes["op"], "gemm");
    assert_eq!(shapes["dtype"], "f16");
    assert_eq!(shapes["shapes"][2]["label"], "b2x32");
    assert_eq!(shapes["shapes"][2]["dims"]["B"], 2);
    // The harness's files are its identity.
    let status = run(&dir, &["status"], 0);
    assert!(status.is_object(), "{status}");

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let d = dir.to_str().unwrap();
    run(
        tmp.path(),
        &["init", d, "--harness", "torch", "--op", "axpy"],
        0,
    );
    assert!(read(&dir.join("kernel/kernel.py")).contains("def axpy(alpha"));
    // The op's standard shapes: realistic GPU sizes.
    let shapes: Value = serde_json::from_str(&read(&dir.join("harness/shapes.json"))).unwrap();
    assert_eq!(shapes["shapes"][0]["dims"]["N"], 65536);
}

#[test]
fn init_refuses_an_unknown_harness_a_wgsl_kernel_with_it_and_an_existing_harness_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let d = dir.to_str().unwrap();
    let v = run(tmp.path(), &["init", d, "--harness", "cuda"], 2);
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("unknown harness 'cuda' (available: torch)"),
        "{msg}"
    );
    let v = run(
        tmp.path(),
        &[
            "init",
            d,
            "--harness",
            "torch",
            "--kernel",
            "gemm_sgemm_128x128_bk16",
        ],
        2,
    );
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("give one of them"), "{msg}");
    assert!(!dir.exists(), "a refused init writes nothing");
    // A harness/ of the user's is never overwritten.
    std::fs::create_dir_all(dir.join("harness")).unwrap();
    std::fs::write(dir.join("harness/bench.py"), "mine").unwrap();
    let v = run(tmp.path(), &["init", d, "--harness", "torch"], 2);
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("already exists"), "{msg}");
    assert_eq!(read(&dir.join("harness/bench.py")), "mine");
    assert!(!dir.join("manifest.yaml").exists());
}

#[test]
fn a_torch_campaign_measures_with_bench_py_and_fails_a_wrong_kernel() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(python) = torch_python() else {
        return;
    };
    let path = python_on_path(tmp.path(), &python);
    let dir = init_torch(tmp.path(), SHAPES, &[]);
    quick_manifest(&dir);

    let b = run_with(&dir, &path, &["baseline"], 0);
    assert_eq!(b["summary"]["all_pass"], true, "{b}");
    assert_eq!(b["summary"]["total"], 4, "{b}");
    let artifacts = dir.join("rounds/round-1/artifacts");
    let csv = read(&artifacts.join("benchmark.csv"));
    assert!(
        csv.starts_with(&format!("{}\n", kcamp_core::schema::GEMM_HEADER)),
        "{csv}"
    );
    assert_eq!(csv.matches(",PASS,").count(), 4, "{csv}");
    assert!(csv.contains("\nb2x32,2,32,24,16,PASS,"), "{csv}");
    let samples = read(&artifacts.join("samples.csv"));
    assert!(
        samples.contains("s48,Forward TFLOPS,5,")
            && samples.contains("s48,Combined Step TFLOPS,1,"),
        "{samples}"
    );
    // bench.py leaves no bytecode in the kernel directory that kcamp snapshots.
    assert!(!dir.join("kernel/__pycache__").exists());
    assert!(!dir.join("rounds/round-1/kernel/__pycache__").exists());

    // The kernel unchanged: measured and checked, whatever the noise makes of the verdict.
    run_with(
        &dir,
        &path,
        &["round", "new", "--hypothesis", "unchanged"],
        0,
    );
    let out = kcamp(&dir)
        .env("PATH", &path)
        .args(["--json", "validate"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", describe(&["validate"], &out)));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        describe(&["validate"], &out)
    );
    assert_eq!(v["summary"]["all_pass"], true, "{v}");
    assert!(v["failures"].as_array().is_none_or(|f| f.is_empty()), "{v}");
    assert_ne!(v["report"]["verdict"], Value::Null, "{v}");
    run_with(&dir, &path, &["rollback", "--reason", "nothing changed"], 0);

    // A wrong kernel: every shape FAILs, the round is rejected (exit 1), not an error.
    run_with(
        &dir,
        &path,
        &["round", "new", "--hypothesis", "off by one"],
        0,
    );
    std::fs::write(
        dir.join("kernel/kernel.py"),
        "def gemm(a, b):\n    return a @ b + 1\n",
    )
    .unwrap();
    let v = run_with(&dir, &path, &["validate"], 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    assert_eq!(v["summary"]["passed"], 0, "{v}");
    assert_eq!(v["failures"][0]["check"], "FAIL", "{v}");
    let round = dir.join("rounds/round-3/artifacts/benchmark.csv");
    assert!(read(&round).contains(",FAIL,"), "{}", read(&round));
}

#[test]
fn a_torch_axpy_campaign_baselines_in_gb_per_s() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(python) = torch_python() else {
        return;
    };
    let path = python_on_path(tmp.path(), &python);
    let dir = init_torch(
        tmp.path(),
        "- {label: n1000, N: 1000}\n- {label: n4097, N: 4097}\n",
        &["--op", "axpy", "--dtype", "f16"],
    );
    quick_manifest(&dir);
    let b = run_with(&dir, &path, &["baseline"], 0);
    assert_eq!(b["summary"]["all_pass"], true, "{b}");
    let csv = read(&dir.join("rounds/round-1/artifacts/benchmark.csv"));
    assert!(
        csv.starts_with(&format!("{}\n", kcamp_core::schema::BANDWIDTH_HEADER)),
        "{csv}"
    );
    assert!(csv.contains("\nn4097,4097,PASS,"), "{csv}");
}

/// bench.py's inputs are the bits of `kcamp_core::inputs::value_bits`, the built-in
/// runner's generator: compared at indices where every part of the hash matters (the high
/// half of the seed, large indices, each buffer), and its f32 and f16 values.
#[test]
fn bench_py_generates_the_inputs_of_the_builtin_runner() {
    let Some(python) = torch_python() else {
        return;
    };
    let cases: [(u64, u32, u32); 6] = [
        (0, 0, 0),
        (42, 0, 1),
        (42, 1, 7),
        (0x9E37_79B9_7F4A_7C15, 2, 123_456),
        (u64::MAX, 1, u32::MAX),
        (1 << 32, 0, 65_535),
    ];
    let script = format!(
        "import sys, torch\nsys.path.insert(0, {dir:?})\nimport bench\nfor seed, buf, i in {cases:?}:\n    bits = int(bench.value_bits(seed, buf, i + 1, 'cpu')[i]) if i < 1 << 20 else int(bench._mix((bench._mix(i ^ bench.input_key(seed, buf)) + bench.input_key(seed, buf)) & bench.M32))\n    print(bits)\nprint(repr(bench.uniform(42, 1, (8,), torch.float32, 'cpu').tolist()))\nprint(repr(bench.uniform(42, 1, (8,), torch.float16, 'cpu').float().tolist()))\n",
        dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/harness/torch"),
    );
    let out = Command::new(&python)
        .args(["-c", &script])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for (k, (seed, buffer, index)) in cases.iter().enumerate() {
        let want = kcamp_core::inputs::value_bits(*seed, *buffer, *index);
        assert_eq!(
            lines[k],
            want.to_string(),
            "seed {seed} buffer {buffer} index {index}"
        );
    }
    let f32s: Vec<String> = (0..8)
        .map(|i| {
            let bits = kcamp_core::inputs::value_bits(42, 1, i);
            format!("{:?}", f64::from((bits >> 8) as f32 * 2f32.powi(-23) - 1.0))
        })
        .collect();
    assert_eq!(lines[6], format!("[{}]", f32s.join(", ")));
    let f16s: Vec<String> = (0..8)
        .map(|i| {
            let bits = kcamp_core::inputs::value_bits(42, 1, i);
            format!(
                "{:?}",
                f64::from((bits >> 21) as f32 * 2f32.powi(-10) - 1.0)
            )
        })
        .collect();
    assert_eq!(lines[7], format!("[{}]", f16s.join(", ")));
}
