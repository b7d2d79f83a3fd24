//! Held-out acceptance on real WGSL kernels (the software adapter in CI): a kernel tuned to
//! the shape list passes every target shape and is refused at `accept`, an honest one is
//! accepted with its check recorded, `held_out: none` skips it, and a kill during the check
//! records nothing.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use common::{output, run};

/// Every target dimension is 32, 64 or 96: what the tuned kernel computes right.
const SHAPES: &str = "- {label: s32, M: 32, N: 32, K: 32}\n- {label: s64, M: 64, N: 64, K: 64}\n- {label: r96, M: 96, N: 32, K: 64}\n";

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// A campaign of [`SHAPES`] whose BASELINE is the naive GEMM doing 5 times its work (its
/// extra trips wrapping around K), so that the naive loop, tuned or not, is a quick ACCEPT
/// however noisy the software adapter; `extra` is appended to the manifest.
fn baselined(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes_file = tmp.path().join("shapes.yaml");
    std::fs::write(&shapes_file, SHAPES).unwrap();
    let args = [
        "init",
        dir.to_str().unwrap(),
        "--shapes",
        shapes_file.to_str().unwrap(),
    ];
    run(tmp.path(), &args, 0);
    let path = dir.join("manifest.yaml");
    let manifest = std::fs::read_to_string(&path)
        .unwrap()
        .replace("git_commit: true", "git_commit: false")
        .replace(
            "representative_shapes: []",
            "representative_shapes: [s32, s64, r96]",
        );
    std::fs::write(&path, format!("{manifest}{extra}")).unwrap();
    let slow = std::fs::read_to_string(kernel("tests/fixtures/kernels/gemm_naive_extra.wgsl"))
        .unwrap()
        .replace(
            "const EXTRA_TENTHS: u32 = 3u;",
            "const EXTRA_TENTHS: u32 = 40u;",
        )
        .replace("select(i, i - k, extra)", "select(i, (i - k) % k, extra)");
    assert!(slow.contains("40u;") && slow.contains("% k"), "{slow}");
    std::fs::write(dir.join("kernel/gemm.wgsl"), slow).unwrap();
    run(&dir, &["baseline", "--no-peak"], 0);
    (tmp, dir)
}

/// A new round with `file` as its kernel, validated: a quick ACCEPT.
fn validated_round(dir: &Path, file: &str) -> Value {
    run(dir, &["round", "new", "--hypothesis", file], 0);
    std::fs::copy(kernel(file), dir.join("kernel/gemm.wgsl")).unwrap();
    let v = run(dir, &["validate"], 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT", "{v}");
    v
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file under `dir` whose path or content mentions a held-out check.
fn mentions_held_out(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, found: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.to_string_lossy().contains("held") {
                found.push(p.clone());
            }
            if p.is_dir() {
                walk(&p, found);
            } else if std::fs::read_to_string(&p).is_ok_and(|t| t.contains("held-out-")) {
                found.push(p);
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found
}

#[test]
fn a_kernel_tuned_to_the_shape_list_is_refused_at_accept() {
    let (_tmp, dir) = baselined("");
    let v = validated_round(&dir, "tests/fixtures/kernels/gemm_shape_tuned.wgsl");
    // The validation checked every target shape (all timed here) and names no held-out one.
    assert!(!v.to_string().contains("held-out"), "{v}");
    assert_eq!(mentions_held_out(&dir), Vec::<PathBuf>::new());

    // Killed once its check is made, before the decision: nothing recorded, the round open.
    let out = common::kcamp(&dir)
        .args(["--json", "accept"])
        .env("KCAMP_FAILPOINT", "accept:after_held_out")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(86),
        "{}",
        common::describe(&["accept"], &out)
    );
    assert!(!dir.join("rounds/round-2/held_out.json").exists());
    let status = run(&dir, &["status"], 0);
    assert_eq!(status["open_round"]["round"], 2, "{status}");

    // The retried accept drops the interrupted check, checks afresh and refuses the kernel.
    let v = run(&dir, &["accept"], 1);
    let d = &v["decision"];
    assert_eq!(d["decision"], "ROLLED_BACK", "{v}");
    let reason = d["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the held-out check failed: round 2's kernel is wrong on"),
        "{reason}"
    );
    assert!(
        reason.contains("held-out-") && reason.contains(" FAIL"),
        "{reason}"
    );
    assert!(reason.contains("not even with --force"), "{reason}");
    assert_eq!(v["held_out"]["status"], "fail", "{v}");
    let record = read_json(&dir.join("rounds/round-2/held_out.json"));
    assert_eq!(record, v["held_out"]);
    assert_eq!(record["source"], "auto");
    let shapes = record["shapes"].as_array().unwrap();
    assert_eq!(shapes.len(), 3, "{record}");
    for s in shapes {
        let dims: Vec<u64> = s["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        for d in &dims[1..] {
            assert_eq!(d % 2, 1, "{s}");
        }
        assert_eq!(
            s["check"], "FAIL",
            "zeros are wrong on every held-out shape: {s}"
        );
        // The reason names every failing shape with its dimensions.
        let named = format!(
            "{} (B={} M={} N={} K={}) FAIL",
            s["label"].as_str().unwrap(),
            dims[0],
            dims[1],
            dims[2],
            dims[3]
        );
        assert!(reason.contains(&named), "{named} in {reason}");
    }
    assert_ne!(record["input_seed"], Value::Null);
    assert!(!dir.join("rounds/round-2/.held-out.tmp").exists());
    // The kill's check was dropped by recovery.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert!(
        journal.contains("dropped an interrupted held-out check of round 2"),
        "{journal}"
    );
    // kernel/ is the incumbent's again, and the log shows the check.
    assert_eq!(
        std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(),
        std::fs::read(dir.join("rounds/round-1/kernel/gemm.wgsl")).unwrap()
    );
    let log = run(&dir, &["log"], 0);
    let held = log["rounds"][1]["held_out"].as_str().unwrap();
    assert!(held.starts_with("FAIL: held-out-1 ("), "{log}");
    // Why it was rolled back, as data: the ledger does not make a reader parse the reason.
    assert_eq!(d["cause"], "held_out_failed", "{v}");
    assert_eq!(log["rounds"][1]["cause"], "held_out_failed", "{log}");
    assert_eq!(log["rounds"][1]["held_out_status"], "FAIL", "{log}");
    assert_eq!(log["rolled_back"][0]["cause"], "held_out_failed", "{log}");
    assert_eq!(
        log["rounds"][0]["cause"],
        Value::Null,
        "the BASELINE: {log}"
    );
    let human = common::kcamp(&dir).arg("log").output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("held-out checks: round 2 FAIL: held-out-1 ("),
        "{text}"
    );

    // --force does not take it either: wrong output is not a speed trade-off.
    validated_round(&dir, "tests/fixtures/kernels/gemm_shape_tuned.wgsl");
    let v = run(&dir, &["accept", "--force", "--reason", "it is faster"], 1);
    assert_eq!(v["decision"]["decision"], "ROLLED_BACK", "{v}");
    // Each check draws its own shapes.
    let third = read_json(&dir.join("rounds/round-3/held_out.json"));
    assert_ne!(third["derivation_seed"], record["derivation_seed"]);
}

#[test]
fn an_honest_kernel_is_accepted_with_its_held_out_check_recorded() {
    let (_tmp, dir) = baselined("");
    validated_round(&dir, "shaders/gemm_naive.wgsl");
    let v = run(&dir, &["accept"], 0);
    assert_eq!(v["decision"]["decision"], "ACCEPTED", "{v}");
    let record = read_json(&dir.join("rounds/round-2/held_out.json"));
    assert_eq!(record["status"], "pass", "{record}");
    assert_eq!(record, v["held_out"]);
    for s in record["shapes"].as_array().unwrap() {
        assert_eq!(s["check"], "PASS", "{s}");
    }
    // The decision's gate says it was checked; the human output lists each shape.
    let decision = read_json(&dir.join("rounds/round-2/decision.json"));
    assert!(
        decision["gate"]["reasons"]
            .to_string()
            .contains("held-out check: 3 shapes the campaign does not list"),
        "{decision}"
    );
    // The final report checks the incumbent again, into report/held_out.json.
    let report = run(&dir, &["report"], 0);
    assert_eq!(report["held_out"]["status"], "pass", "{report}");
    let final_check = read_json(&dir.join("report/held_out.json"));
    assert_eq!(final_check, report["held_out"]);
    assert_ne!(final_check["derivation_seed"], record["derivation_seed"]);
    assert!(!dir.join("report/.held-out.tmp").exists());
}

#[test]
fn held_out_none_skips_the_check_and_says_so() {
    let (_tmp, dir) = baselined("held_out: none\n");
    validated_round(&dir, "tests/fixtures/kernels/gemm_shape_tuned.wgsl");
    let out = output(&dir, &["accept"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        common::describe(&["accept"], &out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"]["decision"], "ACCEPTED", "{v}");
    let record = read_json(&dir.join("rounds/round-2/held_out.json"));
    assert_eq!(record["status"], "skipped", "{record}");
    assert_eq!(record["why"], "`held_out: none` in manifest.yaml");
    assert_eq!(record["shapes"], serde_json::json!([]));
    let human = common::kcamp(&dir).arg("log").output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("held-out checks: round 2 skipped"), "{text}");

    // With the check back on, the final report finds what the acceptance skipped: REJECT,
    // its first reason naming a held-out shape.
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("held_out: none\n", "")).unwrap();
    let report = run(&dir, &["report"], 1);
    assert_eq!(report["verdict"], "REJECT", "{report}");
    let first = report["reasons"][0].as_str().unwrap();
    assert!(
        first.starts_with(
            "the held-out check failed: the incumbent (round 2) is wrong on the 3 held-out shapes"
        ),
        "{first}"
    );
    assert_eq!(report["held_out"]["status"], "fail", "{report}");
    let recorded = read_json(&dir.join("report/held_out.json"));
    assert_eq!(recorded, report["held_out"]);
    let acceptance = read_json(&dir.join("report/acceptance.json"));
    assert_eq!(acceptance["report"]["verdict"], "REJECT");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("the held-out check failed"), "{md}");
}
