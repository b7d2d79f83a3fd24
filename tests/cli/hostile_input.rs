//! Hostile and broken input through the real binary: symbolic links in the campaign,
//! garbage numbers and settings, oversized and deeply nested values, and every input
//! problem that must be answered with exit 2, the path named and nothing changed
//! (docs/reliability.md, "A closed world" and "Hostile input"). No GPU needed.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

use common::{append_to_manifest, csv, describe, edit_kernel, init, kcamp, run, tree};

/// Exit 2 whose message contains every one of `needles`; returns the message.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let v = run(dir, args, 2);
    let message = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for n in needles {
        assert!(
            message.contains(n),
            "kcamp {args:?}: '{n}' not in: {message}"
        );
    }
    message
}

fn baselined() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    (tmp, dir)
}

/// Round 2 open and validated (ACCEPT).
fn validated() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    run(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    (tmp, dir)
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

// ---- Symbolic links never lead a write outside the campaign ("A closed world") ----

#[test]
fn symlinked_lock_file_is_refused_and_its_target_untouched() {
    let (tmp, dir) = validated();
    let outside = tmp.path().join("precious.txt");
    std::fs::write(&outside, "precious").unwrap();
    std::fs::remove_file(dir.join(".kcamp.lock")).unwrap();
    symlink(&outside, &dir.join(".kcamp.lock"));
    let before = common::tree(&dir);
    refused(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        &[".kcamp.lock", "symbolic link"],
    );
    refused(
        &dir,
        &["memory", "create", "--version", "v7"],
        &[".kcamp.lock"],
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    assert_eq!(common::tree(&dir), before);
}

#[test]
fn symlinked_round_directory_is_refused() {
    let (tmp, dir) = validated();
    let outside = tmp.path().join("elsewhere");
    std::fs::rename(dir.join("rounds/round-2"), &outside).unwrap();
    symlink(&outside, &dir.join("rounds/round-2"));
    let before = common::tree(&outside);
    refused(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        &["rounds/round-2", "symbolic link"],
    );
    refused(&dir, &["accept"], &["rounds/round-2"]);
    refused(&dir, &["rollback", "--reason", "x"], &["rounds/round-2"]);
    assert_eq!(common::tree(&outside), before);
}

#[test]
fn symlinked_incumbent_snapshot_is_not_restored() {
    let (tmp, dir) = validated();
    let outside = tmp.path().join("foreign");
    std::fs::create_dir_all(outside.join("kernel")).unwrap();
    std::fs::write(outside.join("kernel/gemm.wgsl"), "// not ours\n").unwrap();
    let real = tmp.path().join("round-1-real");
    std::fs::rename(dir.join("rounds/round-1"), &real).unwrap();
    for entry in std::fs::read_dir(&real).unwrap() {
        let p = entry.unwrap().path();
        if p.file_name().unwrap() != "kernel" {
            std::fs::create_dir_all(&outside).unwrap();
            std::fs::copy(&p, outside.join(p.file_name().unwrap())).ok();
        }
    }
    symlink(&outside, &dir.join("rounds/round-1"));
    let kernel_before = std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap();
    refused(
        &dir,
        &["rollback", "--reason", "x"],
        &["rounds/round-1", "symbolic link"],
    );
    assert_eq!(
        std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(),
        kernel_before
    );
}

#[test]
fn symlinked_journal_and_memory_are_refused() {
    let (tmp, dir) = baselined();
    let outside_journal = tmp.path().join("journal-elsewhere.jsonl");
    std::fs::rename(dir.join("journal.jsonl"), &outside_journal).unwrap();
    symlink(&outside_journal, &dir.join("journal.jsonl"));
    let journal_before = std::fs::read(&outside_journal).unwrap();
    refused(
        &dir,
        &["round", "new", "--hypothesis", "h"],
        &["journal.jsonl", "symbolic link"],
    );
    assert_eq!(std::fs::read(&outside_journal).unwrap(), journal_before);
    std::fs::remove_file(dir.join("journal.jsonl")).unwrap();
    std::fs::rename(&outside_journal, dir.join("journal.jsonl")).unwrap();

    let outside_memory = tmp.path().join("memory-elsewhere");
    std::fs::rename(dir.join("memory"), &outside_memory).unwrap();
    symlink(&outside_memory, &dir.join("memory"));
    let before = common::tree(&outside_memory);
    refused(
        &dir,
        &[
            "memory",
            "update",
            "--version",
            "v0",
            "--set",
            "open_directions=[]",
        ],
        &["memory", "symbolic link"],
    );
    refused(&dir, &["memory", "create", "--version", "v3"], &["memory"]);
    refused(&dir, &["round", "new", "--hypothesis", "h"], &["memory"]);
    assert_eq!(common::tree(&outside_memory), before);
}

#[test]
fn symlinked_kernel_file_is_an_error_not_an_empty_snapshot() {
    let (tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let real = tmp.path().join("gemm-real.wgsl");
    std::fs::rename(dir.join("kernel/gemm.wgsl"), &real).unwrap();
    symlink(&real, &dir.join("kernel/gemm.wgsl"));
    refused(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        &["kernel/gemm.wgsl", "symbolic link"],
    );
    assert!(!dir.join("rounds/round-2/kernel").exists());
    assert!(!dir.join("rounds/round-2/.kernel.tmp").exists());
}

// ---- Garbage numbers and settings ----

fn write_csv(dir: &Path, name: &str, rows: &[&str]) -> PathBuf {
    let header = std::fs::read_to_string(csv("baseline.csv")).unwrap();
    let header = header.lines().next().unwrap();
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, format!("{header}\n{}\n", rows.join("\n"))).unwrap();
    p
}

const ROW: &str =
    "s64,1,64,64,64,PASS,0.0021,1.05e-05,0.00189,9.45e-06,0.249661,0.554802,131.2,129.8,130.5";

#[test]
fn impossible_metrics_stddevs_and_snr_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base = write_csv(tmp.path(), "base/benchmark.csv", &[ROW]);
    let base = base.to_str().unwrap();
    let cases = [
        (
            "s64,1,64,64,64,PASS,1e300,1.05e-05,0.00189,9.45e-06,0.249661,0.554802,131.2,129.8,130.5",
            "beyond what any device",
        ),
        (
            "s64,1,64,64,64,PASS,0.0021,1e300,0.00189,9.45e-06,0.249661,0.554802,131.2,129.8,130.5",
            "times the mean",
        ),
        (
            "s64,1,64,64,64,PASS,0.0021,1.05e-05,0.00189,9.45e-06,0.249661,0.554802,-inf,129.8,130.5",
            "infinite error",
        ),
    ];
    for (i, (row, why)) in cases.iter().enumerate() {
        let cand = write_csv(tmp.path(), &format!("cand{i}/benchmark.csv"), &[row]);
        refused(
            tmp.path(),
            &["gate", base, cand.to_str().unwrap()],
            &[why, "benchmark.csv:2"],
        );
    }
    // An exact output (inf) and a failed row's -inf stay valid.
    let exact = ROW.replace("131.2", "inf");
    let cand = write_csv(tmp.path(), "exact/benchmark.csv", &[&exact]);
    run(tmp.path(), &["gate", base, cand.to_str().unwrap()], 1);
}

#[test]
fn samples_of_unknown_shapes_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base = write_csv(tmp.path(), "base/benchmark.csv", &[ROW]);
    let cand = write_csv(tmp.path(), "cand/benchmark.csv", &[ROW]);
    let samples = |d: &str, label: &str| {
        let rows: String = (0..3)
            .map(|r| format!("{label},Forward TFLOPS,{r},0.0021\n"))
            .collect();
        std::fs::write(
            tmp.path().join(d).join("samples.csv"),
            format!("label,metric,repeat,value\n{rows}"),
        )
        .unwrap();
    };
    samples("base", "s64");
    samples("cand", "ghost");
    refused(
        tmp.path(),
        &["gate", base.to_str().unwrap(), cand.to_str().unwrap()],
        &["cand/samples.csv", "ghost", "not in the benchmark CSV"],
    );
}

#[test]
fn gate_settings_outside_their_range_are_refused() {
    let (_tmp, dir) = baselined();
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (setting, field) in [
        ("gate: {p_value: 5}", "gate.p_value"),
        ("gate: {p_value: 0}", "gate.p_value"),
        (
            "gate: {regression_threshold: 50}",
            "gate.regression_threshold",
        ),
        ("gate: {noise_floor: 2}", "gate.noise_floor"),
        ("gate: {stddev_multiplier: .inf}", "gate.stddev_multiplier"),
        ("gate: {remeasure_min_runs: 0}", "gate.remeasure_min_runs"),
    ] {
        let edited: String = text
            .lines()
            .filter(|l| {
                !l.starts_with("gate:")
                    && !l.starts_with("  noise_floor")
                    && !l.starts_with("  stddev_")
                    && !l.starts_with("  regression_")
                    && !l.starts_with("  p_value")
                    && !l.starts_with("  quick_")
                    && !l.starts_with("  remeasure_")
                    && !l.starts_with("  paired")
            })
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            + setting
            + "\n";
        std::fs::write(&manifest, edited).unwrap();
        refused(&dir, &["status"], &[field, "manifest.yaml"]);
        refused(&dir, &["round", "new", "--hypothesis", "h"], &[field]);
    }
}

#[test]
fn aligned_entry_points_that_cannot_apply_are_refused() {
    let (_tmp, dir) = baselined();
    let settings = dir.join("kernel/kernel.yaml");
    let general = "file: gemm.wgsl\nentry_points: {forward: main}\nworkgroups: {x: ceil(N/16), y: ceil(M/16), z: B}\n";
    for (aligned, needles) in [
        (
            "aligned: {to: 1, entry_points: {forward: main4}}",
            &["kernel.aligned.to", "aligns nothing"][..],
        ),
        (
            "aligned: {to: 4, entry_points: {}}",
            &["kernel.aligned.entry_points", "names no entry point"][..],
        ),
        (
            "aligned: {to: 4, entry_points: {backward_da: main4}}",
            &[
                "kernel.aligned.entry_points.backward_da",
                "no 'backward_da' for it to replace (it has: forward)",
            ][..],
        ),
        (
            "aligned: {to: 4, entry_points: {forward: main4}, when: always}",
            &["unknown field `when`"][..],
        ),
    ] {
        std::fs::write(&settings, format!("{general}{aligned}\n")).unwrap();
        let before = common::tree(&dir);
        let mut all = needles.to_vec();
        all.push("kernel.yaml");
        refused(&dir, &["status"], &all);
        refused(&dir, &["round", "new", "--hypothesis", "h"], needles);
        assert_eq!(
            common::tree(&dir),
            before,
            "{aligned}: a refused command changed the campaign"
        );
    }
    // Settings that can apply are taken.
    std::fs::write(
        &settings,
        format!("{general}aligned: {{to: 4, entry_points: {{forward: main4}}}}\n"),
    )
    .unwrap();
    run(&dir, &["status"], 0);
}

#[test]
fn shapes_csv_with_a_repeated_column_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let shapes = tmp.path().join("shapes.csv");
    std::fs::write(&shapes, "label,M,N,K,M\ns1,64,64,64,9\n").unwrap();
    let dir = tmp.path().join("camp");
    refused(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            shapes.to_str().unwrap(),
        ],
        &["shapes.csv", "column 5", "repeats column 2"],
    );
    assert!(!dir.join("manifest.yaml").exists());
}

// ---- memory update can never break a reader ----

#[test]
fn memory_set_paths_are_depth_limited_and_checked_before_writing() {
    let (_tmp, dir) = baselined();
    let record = dir.join("memory/v0.json");
    let before = std::fs::read(&record).unwrap();
    let deep = format!("profile_evidence.{}=1", vec!["a"; 126].join("."));
    refused(
        &dir,
        &["memory", "update", "--version", "v0", "--set", &deep],
        &["segments"],
    );
    let start = Instant::now();
    let huge = format!("profile_evidence.{}=1", vec!["a"; 60_000].join("."));
    refused(
        &dir,
        &["memory", "update", "--version", "v0", "--set", &huge],
        &["segments"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
    // A value nested deeply enough to break a JSON reader once written.
    let value = format!("search_log={}{}", "[".repeat(100), "]".repeat(100));
    refused(
        &dir,
        &["memory", "update", "--version", "v0", "--set", &value],
        &["levels deep"],
    );
    refused(
        &dir,
        &["memory", "update", "--version", "v0", "--set", "version=v9"],
        &["/version", "v0"],
    );
    assert_eq!(std::fs::read(&record).unwrap(), before);
    run(&dir, &["memory", "show", "--version", "v0"], 0);
    run(&dir, &["status"], 0);
    run(&dir, &["log"], 0);
    // What the schema allows still works, nested free-form evidence included.
    run(
        &dir,
        &[
            "memory",
            "update",
            "--version",
            "v0",
            "--set",
            "profile_evidence.a.b.c=1",
        ],
        0,
    );
}

// ---- Input problems are exit 2 with the path named ("Exit codes") ----

#[test]
fn unreadable_inputs_are_bad_input_naming_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Shapes files: missing, a directory, not UTF-8.
    let camp = root.join("c1");
    let latin = root.join("latin1.yaml");
    std::fs::write(&latin, b"- {label: caf\xe9, M: 1, N: 1, K: 1}\n").unwrap();
    for (shapes, why) in [
        (
            root.join("missing.yaml"),
            &["missing.yaml", "no such file"][..],
        ),
        (root.to_path_buf(), &["is a directory"][..]),
        (latin, &["latin1.yaml:1", "UTF-8"][..]),
    ] {
        let args = [
            "init",
            camp.to_str().unwrap(),
            "--shapes",
            shapes.to_str().unwrap(),
        ];
        refused(root, &args, why);
    }
    assert!(!camp.exists());

    let (_t, dir) = validated();
    // manifest.yaml and kernel.yaml not UTF-8.
    let manifest = dir.join("manifest.yaml");
    let good = std::fs::read(&manifest).unwrap();
    let mut bad = good.clone();
    bad.extend_from_slice(b"# caf\xe9\n");
    std::fs::write(&manifest, &bad).unwrap();
    refused(&dir, &["status"], &["manifest.yaml", "UTF-8"]);
    refused(&dir, &["accept"], &["manifest.yaml", "UTF-8"]);
    std::fs::write(&manifest, &good).unwrap();
    std::fs::write(dir.join("kernel/kernel.yaml"), b"file: caf\xe9.wgsl\n").unwrap();
    refused(&dir, &["status"], &["kernel.yaml:1", "UTF-8"]);
    std::fs::remove_file(dir.join("kernel/kernel.yaml")).unwrap();

    // A directory or a device as a CSV.
    let base = csv("baseline.csv");
    refused(
        root,
        &["gate", &base, root.to_str().unwrap()],
        &["is a directory"],
    );
    refused(
        root,
        &["gate", &base, "/dev/zero"],
        &["/dev/zero", "not a regular file"],
    );
    refused(
        &dir,
        &["validate", "--full", "--csv", root.to_str().unwrap()],
        &["is a directory"],
    );
    refused(
        &dir,
        &["validate", "--full", "--csv", "/dev/zero"],
        &["/dev/zero"],
    );

    // Not a campaign; a missing campaign directory.
    refused(root, &["status"], &["not a campaign"]);
    refused(root, &["log"], &["not a campaign"]);
    let nowhere = root.join("nowhere");
    refused(
        &nowhere,
        &["memory", "create", "--version", "v0"],
        &["nowhere", "does not exist"],
    );
    assert!(!nowhere.exists());
}

#[test]
fn run_with_a_missing_kernel_file_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    std::fs::remove_file(dir.join("kernel/gemm.wgsl")).unwrap();
    refused(
        &dir,
        &["run", "--shapes", "full"],
        &["kernel/gemm.wgsl", "no such file"],
    );
}

// ---- Parsing stays fast and never overflows the stack ----

#[test]
fn deeply_nested_yaml_and_expressions_are_refused_quickly() {
    let (_tmp, dir) = baselined();
    let manifest = dir.join("manifest.yaml");
    let good = std::fs::read_to_string(&manifest).unwrap();
    for nested in [
        format!("seed: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)),
        format!("seed:\n{}1\n", "- ".repeat(100_000)),
        format!("seed: {}1{}\n", "{a: ".repeat(50_000), "}".repeat(50_000)),
    ] {
        std::fs::write(&manifest, format!("{good}{nested}")).unwrap();
        let start = Instant::now();
        refused(&dir, &["status"], &["manifest.yaml", "nested deeper"]);
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "took {:?}",
            start.elapsed()
        );
    }
    std::fs::write(&manifest, &good).unwrap();
    // 40,000 levels overflowed the parser's stack; 100 fit the length limit but not the depth.
    let huge = format!("{}M{}", "(".repeat(40_000), ")".repeat(40_000));
    let deep = format!("{}M{}", "(".repeat(100), ")".repeat(100));
    for (expr, why) in [(&huge, "at most 1000"), (&deep, "nest deeper")] {
        for flag in ["--flops-expr", "--bytes-expr"] {
            let mut args = vec![
                "util",
                "--gpu",
                "h200",
                "--dtype",
                "f32",
                "--flops-expr",
                "2*M",
                "--bytes-expr",
                "4*M",
                "--dims",
                "M=64",
                "--time-ms",
                "1",
            ];
            let at = args.iter().position(|a| *a == flag).unwrap();
            args[at + 1] = expr;
            refused(&dir, &args, &[flag, why]);
        }
    }
    let manifest_expr = good.replace(
        "ceil(N/16)",
        &format!("{}N{}", "(".repeat(40), ")".repeat(40)),
    );
    assert_ne!(manifest_expr, good);
    std::fs::write(&manifest, manifest_expr).unwrap();
    refused(&dir, &["status"], &["kernel.workgroups.x", "nest deeper"]);
}

// ---- A relative -C with a harness; a crashing harness records why, its log kept ----

#[test]
fn relative_campaign_path_works_with_a_harness() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    // Run from the campaign's parent with a relative -C, as a user in a shell would.
    let relative = |args: &[&str]| {
        Command::cargo_bin("kcamp")
            .unwrap()
            .current_dir(tmp.path())
            .args(["--json", "-C", "camp"])
            .args(args)
            .env("GIT_DIR", "/nonexistent")
            .output()
            .unwrap()
    };
    let text = append_to_manifest(
        &dir,
        &format!("quick_command: cp {} {{csv}}", csv("baseline.csv")),
    );
    let out = relative(&["baseline"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(dir.join("rounds/round-1/artifacts/benchmark.csv").is_file());
    // A crashing harness is a failed measurement: every shape ERROR with its exit status
    // and last line, the round REJECT (exit 1), its log kept with the round.
    std::fs::write(dir.join("manifest.yaml"), &text).unwrap();
    append_to_manifest(
        &dir,
        "quick_command: 'echo the harness broke >&2; exit 3 # {csv}'",
    );
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let out = relative(&["validate", "--full"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 7, "{v}");
    for f in failures {
        let reason = f["reason"].as_str().unwrap();
        assert_eq!(f["check"], "ERROR", "{v}");
        assert!(
            reason.contains("exited with status 3 before it reported this shape")
                && reason.contains("the harness broke"),
            "{reason}"
        );
    }
    let log = dir.join("rounds/round-2/artifacts/harness.log");
    assert!(
        std::fs::read_to_string(log)
            .unwrap()
            .contains("the harness broke")
    );
}

#[test]
fn baseline_with_comments_in_representative_shapes_records_passing_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        "representative_shapes: []",
        "representative_shapes:\n# picked by hand\n- s64\n\n# the large one\n- s256\n# next: adapter",
    );
    assert!(text.contains("# picked by hand"), "{text}");
    std::fs::write(&manifest, &text).unwrap();
    // s256 FAILs in this CSV: it must not stay representative.
    let base = std::fs::read_to_string(csv("baseline.csv")).unwrap();
    let failing: String = base
        .lines()
        .map(|l| {
            if l.starts_with("s256,") {
                "s256,1,256,256,256,FAIL,,,,,,,,,".to_owned()
            } else {
                l.to_owned()
            }
        })
        .map(|l| l + "\n")
        .collect();
    let p = tmp.path().join("fail256.csv");
    std::fs::write(&p, failing).unwrap();
    // Recorded, and exit 1: a shape of the BASELINE does not PASS.
    let out = run(&dir, &["baseline", "--csv", p.to_str().unwrap()], 1);
    assert_eq!(out["representative_shapes"], serde_json::json!(["s64"]));
    let st = run(&dir, &["status"], 0);
    assert_eq!(st["representative_shapes"], serde_json::json!(["s64"]));
    let after = std::fs::read_to_string(&manifest).unwrap();
    assert!(after.contains("# next: adapter"), "{after}");
}

#[test]
fn stray_temp_files_are_removed_by_the_next_writer() {
    let (_tmp, dir) = baselined();
    for d in ["", "memory", "rounds/round-1", "rounds/round-1/artifacts"] {
        std::fs::write(dir.join(d).join(".kcamp-tmp-stray"), "half a file").unwrap();
    }
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    for d in ["", "memory", "rounds/round-1", "rounds/round-1/artifacts"] {
        assert!(!dir.join(d).join(".kcamp-tmp-stray").exists(), "{d}");
    }
}

#[test]
fn partly_read_only_campaign_is_refused_before_anything_changes() {
    let (_tmp, dir) = validated();
    // SAFETY: geteuid has no preconditions.
    let unprivileged = unsafe { libc::geteuid() } != 0;
    let as_user = |args: &[&str]| -> std::process::Output {
        let bin = assert_cmd::cargo::cargo_bin("kcamp");
        let mut cmd = if unprivileged {
            std::process::Command::new(&bin)
        } else {
            // Root writes anywhere: run as nobody, who owns everything but memory/.
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin);
            c
        };
        cmd.arg("--json")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .env("GIT_DIR", "/nonexistent");
        cmd.output().unwrap()
    };
    if unprivileged {
        std::fs::set_permissions(
            dir.join("memory"),
            std::os::unix::fs::PermissionsExt::from_mode(0o555),
        )
        .unwrap();
    } else {
        let ok = std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&dir)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::process::Command::new("chown")
            .args(["0:0"])
            .arg(dir.join("memory"))
            .status()
            .unwrap();
        let mut p = dir.clone();
        while let Some(parent) = p.parent() {
            // nobody must be able to reach the campaign.
            let _ = std::fs::set_permissions(
                parent,
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            );
            if parent == Path::new("/tmp") || parent == Path::new("/") {
                break;
            }
            p = parent.to_path_buf();
        }
    }
    let before = common::tree(&dir);
    let out = as_user(&["accept"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("memory") && stdout.contains("not writable"),
        "{stdout}"
    );
    assert_eq!(common::tree(&dir), before);
    std::fs::set_permissions(
        dir.join("memory"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
}

#[test]
fn control_characters_and_huge_labels_never_reach_the_terminal_raw() {
    let (_tmp, dir) = baselined();
    let esc = "stage tiles \u{1b}]0;pwned\u{7}\u{1b}[2J";
    let out = kcamp(&dir)
        .args(["round", "new", "--hypothesis", esc])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let all = [out.stdout, out.stderr].concat();
    assert!(
        !all.contains(&0x1b),
        "raw ESC printed: {}",
        String::from_utf8_lossy(&all)
    );
    // A hypothesis edited by hand is escaped when printed.
    run(&dir, &["round", "new", "--hypothesis", "plain"], 0);
    std::fs::write(dir.join("rounds/round-2/hypothesis.md"), format!("{esc}\n")).unwrap();
    for args in [&["log"][..], &["status"][..]] {
        let out = kcamp(&dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(!out.stdout.contains(&0x1b), "{args:?}: raw ESC printed");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("\\u{1b}"),
            "{args:?}"
        );
    }
    // A 1 MB label gives a short error.
    let tmp = tempfile::tempdir().unwrap();
    let label = "L".repeat(1 << 20);
    let base = write_csv(tmp.path(), "base/benchmark.csv", &[ROW]);
    let cand = write_csv(
        tmp.path(),
        "cand/benchmark.csv",
        &[&ROW.replacen("s64", &label, 1)],
    );
    let out = kcamp(tmp.path())
        .args(["gate", base.to_str().unwrap(), cand.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stderr.len() < 2000,
        "error of {} bytes",
        out.stderr.len()
    );
    // Reasons follow the hypothesis' rules.
    run(&dir, &["rollback", "--reason", &"r".repeat(5000)], 2);
}

#[test]
fn a_campaign_directory_that_is_missing_or_a_file_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no such campaign");
    refused(
        &missing,
        &["status"],
        &[
            "no such campaign: no such directory",
            "`kcamp init '",
            "no such campaign'`",
        ],
    );
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    refused(
        &file,
        &["status"],
        &["notes.txt is not a directory: a campaign is the directory that holds manifest.yaml"],
    );
    refused(
        tmp.path(),
        &["log"],
        &["is not a campaign: no manifest.yaml (create one with `kcamp init DIR`)"],
    );
    assert!(!missing.exists(), "nothing created");
}

#[test]
fn a_kernel_yaml_with_one_field_says_it_replaces_the_whole_section() {
    // `trusted: true` alone (what analyze's advice reads like) is not an override of one
    // field: the refusal says what the file must hold.
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    std::fs::write(dir.join("kernel/kernel.yaml"), "trusted: true\n").unwrap();
    refused(
        &dir,
        &["status"],
        &[
            "kernel/kernel.yaml:1: invalid kernel settings: missing field `file`",
            "this file replaces the manifest's whole `kernel:` section: copy that section here and change what differs",
        ],
    );
}

/// A parent that closed kcamp's standard streams (`kcamp … >&- 2>&-`). The files kcamp
/// opens would take the lowest free descriptors, 1 and 2, and whatever it printed while one
/// was open would be written into it; kcamp opens /dev/null there first. Here the lock file
/// is held open for the whole BASELINE and the artifacts are written while it prints a line
/// for every file-system step (`KCAMP_FS_TRACE`, a test hook).
#[test]
fn closed_standard_streams_are_not_handed_to_the_files_kcamp_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" -C "$1" baseline --csv "$2" >&- 2>&-"#)
        .arg(assert_cmd::cargo::cargo_bin("kcamp"))
        .arg(&dir)
        .arg(csv("baseline.csv"))
        .env("GIT_DIR", "/nonexistent")
        .env("KCAMP_FS_TRACE", "1")
        .env_remove("KCAMP_KILL_AT_FS_STEP")
        .env_remove("KCAMP_FAILPOINT")
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let files = common::tree(&dir);
    assert!(files.len() > 5, "{files:?}");
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains("fs step") && !text.contains("BASELINE recorded"),
            "{} holds what kcamp printed:\n{text}",
            path.display()
        );
    }
    let v = run(&dir, &["status"], 0);
    assert_eq!(v["incumbent"]["round"], 1, "{v}");
}

// ---- The second audit's hostile inputs (docs/reliability.md, "Faults, counted") ----

/// A file's modification time, to prove a refused command did not touch it.
fn mtime(p: &Path) -> std::time::SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

/// `kcamp ARGS` in `dir` must exit 2 with every one of `needles` in its message, leaving
/// `watched` (a campaign, or a folder that must stay empty of a campaign) as it was,
/// timestamps of the lock file and of every round directory included.
fn refused_untouched(
    dir: &Path,
    watched: &Path,
    args: &[&str],
    needles: &[&str],
) -> Result<(), String> {
    let stamps = |d: &Path| -> Vec<(PathBuf, std::time::SystemTime)> {
        let mut s = vec![];
        for p in [d.join(".kcamp.lock"), d.join("rounds")] {
            if p.exists() {
                s.push((p.clone(), mtime(&p)));
            }
        }
        for n in 1..=3 {
            let r = d.join(format!("rounds/round-{n}"));
            if r.exists() {
                s.push((r.clone(), mtime(&r)));
            }
        }
        s
    };
    let (before, times) = if watched.exists() {
        (Some(common::tree(watched)), stamps(watched))
    } else {
        (None, vec![])
    };
    // The file times have a coarse clock: a touch would show only after a tick.
    std::thread::sleep(Duration::from_millis(20));
    let out = common::output(dir, args);
    let message = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.code() != Some(2) {
        return Err(format!("{args:?}: exit {:?}: {message}", out.status.code()));
    }
    if let Some(n) = needles.iter().find(|n| !message.contains(**n)) {
        return Err(format!("{args:?}: '{n}' not in {message}"));
    }
    match before {
        Some(b) if common::tree(watched) != b => {
            return Err(format!("{args:?}: changed the campaign"));
        }
        None if watched.exists() => return Err(format!("{args:?}: created {}", watched.display())),
        _ => {}
    }
    if stamps(watched) != times {
        return Err(format!(
            "{args:?}: touched the lock file's or a round directory's time"
        ));
    }
    Ok(())
}

/// Each hostile input of the second audit, refused with nothing changed (or, free text,
/// taken and never printed raw): `Ok` when it was, `Err` saying how it was not. The fault
/// sweep counts them; `second_audit_hostile_inputs_are_refused` requires them all.
pub(crate) fn hostile_cases() -> Vec<Result<(), String>> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut out = Vec::new();
    let shapes = |name: &str, text: &str| {
        let p = root.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let init_refused = |name: &str, text: &str, needles: &[&str]| {
        let file = shapes(name, text);
        let camp = root.join(format!("camp-{name}"));
        refused_untouched(
            root,
            &camp,
            &[
                "init",
                camp.to_str().unwrap(),
                "--shapes",
                file.to_str().unwrap(),
            ],
            needles,
        )
    };
    // Shapes files.
    out.push(init_refused(
        "dup.yaml",
        "- {label: s1, M: 32, M: 64, N: 8, K: 8}\n",
        &["dup.yaml:1", "duplicate entry"],
    ));
    out.push(init_refused(
        "zero.yaml",
        "- {label: s1, M: 0, N: 8, K: 8}\n",
        &["zero.yaml", "must be positive"],
    ));
    out.push(init_refused(
        "rlo.yaml",
        "- {label: \"s1\u{202e}46s\", M: 8, N: 8, K: 8}\n",
        &["rlo.yaml", "U+202E"],
    ));
    out.push(init_refused(
        "zwsp.csv",
        "label,M,N,K\ns\u{200b}1,8,8,8\n",
        &["zwsp.csv", "U+200B"],
    ));
    out.push(init_refused(
        "wide.yaml",
        "- {label: s1, M: 4294967296, N: 8, K: 8}\n",
        &["wide.yaml", "u32"],
    ));
    out.push(init_refused(
        "cube.yaml",
        "- {label: big, M: 1048576, N: 1048576, K: 1048576}\n",
        &["cube.yaml", "u32", "elements"],
    ));
    // Gate CSVs.
    let base = std::fs::read_to_string(common::fixture("campaign/baseline.csv")).unwrap();
    let gate_refused = |name: &str, cand: String, needles: &[&str]| {
        let file = shapes(name, &cand);
        refused_untouched(
            root,
            &root.join("no-campaign"),
            &["gate", &common::csv("baseline.csv"), file.to_str().unwrap()],
            needles,
        )
    };
    out.push(gate_refused(
        "m0.csv",
        base.replacen("s64,1,64,64,64,PASS", "s64,1,0,64,64,PASS", 1),
        &["m0.csv:2", "must be positive"],
    ));
    out.push(gate_refused(
        "rlo.csv",
        base.replacen("s64,", "s6\u{202e}4,", 1),
        &["rlo.csv:2", "U+202E"],
    ));
    // A campaign: a BASELINE whose header would be frozen with two columns that differ
    // only in case.
    let dir = common::init(&root.join("c"));
    let case = shapes(
        "case.csv",
        &base.replacen("Backward TFLOPS,", "forward tflops,", 1),
    );
    out.push(refused_untouched(
        &dir,
        &dir,
        &["baseline", "--csv", case.to_str().unwrap()],
        &["case.csv", "only in case"],
    ));
    common::run(
        &dir,
        &["baseline", "--csv", &common::csv("baseline.csv")],
        0,
    );
    out.push(refused_untouched(
        &dir,
        &dir,
        &[
            "memory",
            "update",
            "v0",
            "--set",
            "git_commit_hash=../../etc",
        ],
        &["git_commit_hash"],
    ));
    out.push(refused_untouched(
        &dir,
        &dir,
        &["memory", "update", "v0", "--set", "timestamp=yesterday"],
        &["timestamp"],
    ));
    common::run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    common::edit_kernel(&dir, "tiles");
    // A refused import touches nothing, not even a timestamp.
    out.push(refused_untouched(
        &dir,
        &dir,
        &["validate", "--full", "--csv", &common::csv("malformed.csv")],
        &["malformed.csv"],
    ));
    out.push(refused_untouched(
        &dir,
        &dir,
        &["validate", "--full", "--csv", &common::csv("drifted.csv")],
        &["drifted.csv"],
    ));
    // Duplicate keys in the campaign's own YAML.
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        format!("{manifest}timeout_sec: 5\ntimeout_sec: 50\n"),
    )
    .unwrap();
    out.push(refused_untouched(
        &dir,
        &dir,
        &["validate", "--full", "--csv", &common::csv("better.csv")],
        &["manifest.yaml", "duplicate entry"],
    ));
    std::fs::write(dir.join("manifest.yaml"), &manifest).unwrap();
    // Free text: taken, and escaped wherever it is printed.
    let hyp = dir.join("rounds/round-2/hypothesis.md");
    std::fs::write(&hyp, "tiles \u{202e}elif\u{200b}\n").unwrap();
    out.push((|| {
        for args in [&["status"][..], &["log"][..]] {
            let o = common::kcamp(&dir).args(args).output().unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            if o.status.code() != Some(0) || text.contains('\u{202e}') || text.contains('\u{200b}')
            {
                return Err(format!(
                    "{args:?} printed a bidi or zero-width character raw: {text}"
                ));
            }
            if !text.contains("\\u{202e}") {
                return Err(format!(
                    "{args:?} does not show the escaped character: {text}"
                ));
            }
        }
        Ok(())
    })());
    out
}

#[test]
fn second_audit_hostile_inputs_are_refused() {
    let failed: Vec<String> = hostile_cases()
        .into_iter()
        .filter_map(Result::err)
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A timeout past a week, in the manifest or in `TEST_TIMEOUT_SEC`, is bad input: the
/// validation starts nothing and the campaign is as it was.
#[test]
fn timeouts_past_their_bound_are_refused_and_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let nums = common::numbers(tmp.path(), &["baseline.csv"]);
    let dir = common::harness_campaign(tmp.path(), &nums);
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    let before = tree(&dir);
    for value in ["1e300", "604801", "inf"] {
        let out = kcamp(&dir)
            .env("TEST_TIMEOUT_SEC", value)
            .args(["--json", "validate"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            describe(&["validate"], &out)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("TEST_TIMEOUT_SEC") && message.contains("a week"),
            "{message}"
        );
        assert_eq!(
            tree(&dir),
            before,
            "TEST_TIMEOUT_SEC={value} changed the campaign"
        );
    }
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let edited = if text.contains("timeout_sec:") {
        text.lines()
            .map(|l| {
                if l.starts_with("timeout_sec:") {
                    "timeout_sec: 1e20"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    } else {
        format!("{text}timeout_sec: 1e20\n")
    };
    std::fs::write(&manifest, edited).unwrap();
    let before = tree(&dir);
    refused(&dir, &["validate"], &["timeout_sec", "a week"]);
    assert_eq!(tree(&dir), before);
}
