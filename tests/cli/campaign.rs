//! End-to-end tests of the campaign loop through the real binary, on CSVs from an
//! external harness (tests/fixtures/campaign). No GPU needed.

use crate::common::refusal;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::common;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/campaign")
        .join(name)
}

fn kcamp(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("kcamp").unwrap();
    cmd.arg("--json")
        .arg("-C")
        .arg(dir)
        .env_remove("KCAMP_FAILPOINT")
        .env_remove("TEST_TIMEOUT_SEC");
    cmd
}

/// Run, check the exit code, parse stdout as one JSON document.
fn run(dir: &Path, args: &[&str], code: i32) -> Value {
    let out = kcamp(dir).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "kcamp {args:?}: stdout {stdout}\nstderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {stdout}"))
}

/// `kcamp validate --full --csv <fixture>`, expecting `code`.
fn validate_full(dir: &Path, fixture_name: &str, code: i32) -> Value {
    let csv = fixture(fixture_name);
    run(
        dir,
        &["validate", "--full", "--csv", csv.to_str().unwrap()],
        code,
    )
}

/// A campaign with BASELINE recorded from baseline.csv.
fn baselined() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes = fixture("shapes.yaml");
    run(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--op",
            "gemm",
            "--dtype",
            "f32",
            "--shapes",
            shapes.to_str().unwrap(),
        ],
        0,
    );
    // The rows are held to an Apple M2's cited peaks: without a target an imported CSV's
    // rows are held to nothing, and no gain on them can be accepted.
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}target_gpu: m2\n")).unwrap();
    record_baseline(&dir);
    (tmp, dir)
}

/// `kcamp baseline --csv baseline.csv`, which must record round 1.
fn record_baseline(dir: &Path) {
    let b = run(
        dir,
        &[
            "baseline",
            "--csv",
            fixture("baseline.csv").to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(b["round"], 1);
}

/// The rows of a fixture CSV restricted to `labels`, written to a temp file.
fn subset_csv(src: &str, labels: &[String], out: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture(src)).unwrap();
    let mut lines = text.lines();
    let mut s = format!("{}\n", lines.next().unwrap());
    for l in lines {
        if labels.iter().any(|lab| l.starts_with(&format!("{lab},"))) {
            s.push_str(l);
            s.push('\n');
        }
    }
    let p = out.join(format!("quick-{src}"));
    std::fs::write(&p, s).unwrap();
    p
}

fn representative(dir: &Path) -> Vec<String> {
    let st = run(dir, &["status"], 0);
    st["representative_shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn journal_events(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn snapshot_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(root: &Path, d: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push((
                    p.strip_prefix(root).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn baseline_freezes_schema_and_picks_representatives() {
    let (_tmp, dir) = baselined();
    let frozen = std::fs::read_to_string(dir.join("schema.frozen.csv")).unwrap();
    assert_eq!(frozen.trim_end(), kcamp_core::schema::GEMM_HEADER);
    let reps = representative(&dir);
    assert_eq!(reps.len(), 4, "7 shapes give 4 representatives: {reps:?}");
    assert!(
        reps.contains(&"s64".to_owned()) && reps.contains(&"s512".to_owned()),
        "smallest and largest: {reps:?}"
    );
    let decision: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-1/decision.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(decision["decision"], "BASELINE");
    assert!(dir.join("rounds/round-1/kernel/gemm.wgsl").is_file());
    // The manifest still loads and now names the representatives.
    let m = kcamp_core::manifest::Manifest::load(&dir).unwrap();
    assert_eq!(m.representative_shapes, reps);
    // A second BASELINE is refused.
    let again = run(
        &dir,
        &[
            "baseline",
            "--csv",
            fixture("baseline.csv").to_str().unwrap(),
        ],
        2,
    );
    assert!(refusal(&again).contains("already recorded"));
}

#[test]
fn full_round_accepted_becomes_incumbent() {
    let (_tmp, dir) = baselined();
    let r = run(
        &dir,
        &[
            "round",
            "new",
            "--hypothesis",
            "tile 16x16 in workgroup memory",
        ],
        0,
    );
    assert_eq!(r["round"], 2);
    let v = validate_full(&dir, "better.csv", 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT");
    let delta = v["report"]["aggregate"]["delta"].as_f64().unwrap();
    assert!((delta - 0.12).abs() < 1e-3, "aggregate delta {delta}");
    assert_eq!(v["report"]["shapes"].as_array().unwrap().len(), 7);
    let a = run(&dir, &["accept"], 0);
    assert_eq!(a["decision"]["decision"], "ACCEPTED");
    assert_eq!(a["decision"]["parent"], 1);
    let st = run(&dir, &["status"], 0);
    assert_eq!(st["incumbent"]["round"], 2);
    assert!(st["open_round"].is_null());
    let ev = journal_events(&dir);
    let begin = ev.iter().position(|e| e == "accept_begin").unwrap();
    let done = ev.iter().position(|e| e == "accept_done").unwrap();
    assert!(begin < done);
    let log = run(&dir, &["log"], 0);
    assert_eq!(log["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(log["incumbent"], 2);
}

#[test]
fn regression_hidden_by_better_geomean_is_rejected_and_rolled_back() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "bigger tiles"], 0);
    let original = std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap();
    std::fs::write(
        dir.join("kernel/gemm.wgsl"),
        b"// edited during the round\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("kernel/helper.wgsl"),
        b"// a file added during the round\n",
    )
    .unwrap();
    let v = validate_full(&dir, "hidden_regression.csv", 1);
    assert_eq!(v["report"]["verdict"], "REJECT");
    assert!(
        v["report"]["aggregate"]["delta"].as_f64().unwrap() > 0.1,
        "the geomean improved"
    );
    let s256 = v["report"]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "s256")
        .unwrap();
    assert_eq!(s256["class"], "regressed");
    let refused = run(&dir, &["accept"], 2);
    assert!(refusal(&refused).contains("REJECT"), "{refused}");
    let no_reason = run(&dir, &["accept", "--force"], 2);
    assert!(refusal(&no_reason).contains("--reason"));
    let rb = run(&dir, &["rollback", "--reason", "s256 regressed by 10%"], 0);
    assert_eq!(rb["decision"]["decision"], "ROLLED_BACK");
    assert_eq!(
        std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(),
        original
    );
    assert!(
        !dir.join("kernel/helper.wgsl").exists(),
        "stray files are removed by rollback"
    );
    // The measured snapshot of the rolled-back round is kept as it was.
    assert!(dir.join("rounds/round-2/kernel/helper.wgsl").is_file());
    let st = run(&dir, &["status"], 0);
    assert_eq!(st["incumbent"]["round"], 1);
}

#[test]
fn forced_accept_records_the_reason() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    validate_full(&dir, "hidden_regression.csv", 1);
    let a = run(
        &dir,
        &[
            "accept",
            "--force",
            "--reason",
            "s256 is irrelevant for our model",
        ],
        0,
    );
    assert_eq!(a["decision"]["forced"], true);
    assert_eq!(a["decision"]["reason"], "s256 is irrelevant for our model");
}

#[test]
fn a_baseline_in_which_no_shape_passes_is_not_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes = fixture("shapes.yaml");
    let init = [
        "init",
        dir.to_str().unwrap(),
        "--shapes",
        shapes.to_str().unwrap(),
    ];
    run(tmp.path(), &init, 0);
    let failing = tmp.path().join("all_fail.csv");
    let text = std::fs::read_to_string(fixture("baseline.csv")).unwrap();
    std::fs::write(&failing, text.replace(",PASS,", ",FAIL,")).unwrap();
    let before = snapshot_tree(&dir);
    let v = run(&dir, &["baseline", "--csv", failing.to_str().unwrap()], 2);
    let msg = refusal(&v);
    assert!(
        msg.contains("no target shape PASSes")
            && msg.contains("not recorded")
            && msg.contains("FAIL"),
        "{msg}"
    );
    assert!(!dir.join("rounds/round-1").exists());
    // Only the kept measurement under runs/ is new.
    let after: Vec<_> = snapshot_tree(&dir)
        .into_iter()
        .filter(|(p, _)| p != ".kcamp.lock" && !p.starts_with("runs/"))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| p != ".kcamp.lock")
        .collect();
    assert_eq!(before, after);
    let kept = std::fs::read_dir(dir.join("runs")).unwrap().count();
    assert_eq!(kept, 1);
    // A BASELINE that passes is recorded afterwards as if nothing had happened.
    record_baseline(&dir);
}

#[test]
fn bad_csvs_change_nothing_on_disk() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let before = snapshot_tree(&dir);
    let drift = validate_full(&dir, "drifted.csv", 2);
    let msg = refusal(&drift);
    assert!(
        msg.contains("Forward TFLOP/s")
            && msg.contains("Forward TFLOPS")
            && msg.contains("drifted.csv"),
        "{msg}"
    );
    let bad = validate_full(&dir, "malformed.csv", 2);
    assert!(refusal(&bad).contains(":5"), "names the line: {bad}");
    let nan = validate_full(&dir, "nan_metric.csv", 2);
    assert!(refusal(&nan).contains("Forward TFLOPS"), "{nan}");
    // A quick validation given all shapes names the shape it does not expect.
    let extra = run(
        &dir,
        &["validate", "--csv", fixture("better.csv").to_str().unwrap()],
        2,
    );
    assert!(
        refusal(&extra).contains("not in the representative shapes"),
        "{extra}"
    );
    let after: Vec<_> = snapshot_tree(&dir)
        .into_iter()
        .filter(|(p, _)| p != ".kcamp.lock")
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| p != ".kcamp.lock")
        .collect();
    assert_eq!(
        before, after,
        "a refused CSV must leave the campaign untouched"
    );
}

#[test]
fn failing_shape_rejects() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let v = validate_full(&dir, "fail.csv", 1);
    assert_eq!(v["report"]["verdict"], "REJECT");
    let s = v["report"]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "s256")
        .unwrap();
    assert_eq!(s["class"], "failed");
}

#[test]
fn small_regression_is_accepted_with_a_note() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let v = validate_full(&dir, "small_regression.csv", 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT_WITH_NOTE");
    assert!(
        v["report"]["noted_regressions"]
            .to_string()
            .contains("s128")
    );
}

#[test]
fn a_gain_inside_the_aggregates_band_is_no_gain() {
    // +0.8% on every shape, each ±0.5%: inside the aggregate's band of 2 × 0.707%.
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let v = validate_full(&dir, "noise.csv", 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let aggregate = v["report"]["reason_details"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "aggregate")
        .unwrap();
    assert!(
        aggregate["text"]
            .as_str()
            .unwrap()
            .contains("does not clear its band ±1.41%"),
        "{v}"
    );
    assert!(
        (aggregate["band"].as_f64().unwrap() - 0.01414).abs() < 1e-4,
        "{v}"
    );
}

/// baseline.csv with every rate scaled by `factor` and each stddev `rel_sd` of its rate,
/// as `dir/name`; `timeout` turns s64 into TIMEOUT_FAIL.
fn scaled_csv(dir: &Path, name: &str, factor: f64, rel_sd: f64, timeout: bool) -> String {
    let out = dir.join(name);
    crate::common::spread_csv(
        &fixture("baseline.csv"),
        &out,
        factor,
        rel_sd,
        timeout.then_some("s64"),
    );
    out.to_str().unwrap().to_owned()
}

fn remeasure_reasons(v: &Value) -> Vec<String> {
    v["report"]["reason_details"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "remeasure")
        .map(|r| r["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_remeasure_counts_distinct_passing_measurements_of_this_round() {
    // Gains of +1.2% to +1.4% clear the aggregate's band (2 × 0.5025%) but not the 2%
    // noise floor: NEEDS_REMEASURE, decided by three measurements.
    let (tmp, dir) = baselined();
    let t = tmp.path();
    let validate = |csv: &str, code: i32| run(&dir, &["validate", "--full", "--csv", csv], code);
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let first = scaled_csv(t, "first.csv", 1.012, 0.0005, false);
    let v = validate(&first, 1);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    assert!(
        remeasure_reasons(&v)[0].starts_with("re-measurement 1 of at least 3"),
        "{v}"
    );
    // The same file imported twice more is still one measurement, however it is spelled.
    let crlf = t.join("first-crlf.csv");
    let text = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
    for csv in [first.as_str(), crlf.to_str().unwrap()] {
        let v = validate(csv, 1);
        assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
        let why = remeasure_reasons(&v);
        assert!(
            why[0].contains("holds the same numbers as one this round already counted")
                && why[1].starts_with("re-measurement 1 of at least 3"),
            "{why:?}"
        );
    }
    // A measurement with a shape that timed out is no re-measurement of the gain.
    let v = validate(&scaled_csv(t, "timeout.csv", 1.013, 0.0005, true), 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let v = validate(&scaled_csv(t, "second.csv", 1.013, 0.0005, false), 1);
    assert!(
        remeasure_reasons(&v)[0].starts_with("re-measurement 2 of at least 3"),
        "{v}"
    );
    // Round 2's measurements measured round 2's kernel: round 3 counts its own.
    run(&dir, &["rollback", "--reason", "next idea"], 0);
    run(&dir, &["round", "new", "--hypothesis", "h2"], 0);
    let v = validate(&first, 1);
    let why = remeasure_reasons(&v);
    assert!(
        why[0].contains("holds the same numbers as one that round 2 validated")
            && why[1].starts_with("re-measurement 0 of at least 3"),
        "{why:?}"
    );
    for (i, factor) in [1.014, 1.0125].into_iter().enumerate() {
        let v = validate(
            &scaled_csv(t, &format!("r3-{i}.csv"), factor, 0.0005, false),
            1,
        );
        assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    }
    let v = validate(&scaled_csv(t, "r3-2.csv", 1.0135, 0.0005, false), 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT", "{v}");
    assert!(
        remeasure_reasons(&v)[0]
            .starts_with("re-measured: 3 distinct measurements of this kernel, mean gain +1.33%"),
        "{v}"
    );
    // Editing the kernel starts the count again.
    std::fs::write(dir.join("kernel/gemm.wgsl"), b"// changed\n").unwrap();
    let v = validate(&scaled_csv(t, "edited.csv", 1.0121, 0.0005, false), 1);
    assert!(
        remeasure_reasons(&v)[0].starts_with("re-measurement 1 of at least 3"),
        "{v}"
    );
}

#[test]
fn quick_accept_under_five_percent_is_confirmed_by_a_full_run() {
    let (tmp, dir) = baselined();
    let reps = representative(&dir);
    run(&dir, &["round", "new", "--hypothesis", "small gain"], 0);
    let quick = subset_csv("gain3.csv", &reps, tmp.path());
    let v = run(&dir, &["validate", "--csv", quick.to_str().unwrap()], 0);
    assert_eq!(v["validation"], "quick");
    assert_eq!(v["needs_full_confirmation"], true, "{v}");
    // This campaign's harness is the user's: the confirming full run is their CSV too.
    let refused = run(&dir, &["accept"], 2);
    assert!(
        refusal(&refused).contains("imported CSVs")
            && refusal(&refused).contains("kcamp accept --csv"),
        "{refused}"
    );
    // The full run overturns it: the round is rolled back.
    let full = fixture("hidden_regression.csv");
    let a = run(&dir, &["accept", "--csv", full.to_str().unwrap()], 1);
    assert_eq!(a["decision"]["decision"], "ROLLED_BACK", "{a}");
    assert_eq!(a["confirmation"]["validation"], "full");
    // Next round: the full run confirms.
    run(
        &dir,
        &["round", "new", "--hypothesis", "small gain again"],
        0,
    );
    run(&dir, &["validate", "--csv", quick.to_str().unwrap()], 0);
    let better = fixture("better.csv");
    let a = run(&dir, &["accept", "--csv", better.to_str().unwrap()], 0);
    assert_eq!(a["decision"]["decision"], "ACCEPTED");
    assert_eq!(a["decision"]["validation"], "full");
}

#[test]
fn quick_validation_judges_against_representative_rows() {
    let (tmp, dir) = baselined();
    let reps = representative(&dir);
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let quick = subset_csv("better.csv", &reps, tmp.path());
    let v = run(&dir, &["validate", "--csv", quick.to_str().unwrap()], 0);
    assert_eq!(v["report"]["shapes"].as_array().unwrap().len(), reps.len());
    assert_eq!(
        v["needs_full_confirmation"], false,
        "a 12% gain needs no confirmation"
    );
    run(&dir, &["accept"], 0);
    // The incumbent measured only the representatives; a full validation judges the
    // other shapes against the baseline and says so.
    run(&dir, &["round", "new", "--hypothesis", "h2"], 0);
    // Same numbers as the incumbent on its shapes, +12% against the baseline elsewhere.
    let v = validate_full(&dir, "better.csv", 0);
    assert!(
        v["reference_notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("round 1")),
        "{v}"
    );
}

#[test]
fn killed_accept_after_decision_is_completed_by_the_next_command() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    validate_full(&dir, "better.csv", 0);
    let out = kcamp(&dir)
        .arg("accept")
        .env("KCAMP_FAILPOINT", "accept:after_decision")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(86), "the failpoint killed it");
    let ev = journal_events(&dir);
    assert_eq!(ev.last().unwrap(), "accept_begin", "left half-done: {ev:?}");
    // Any writing command completes it first.
    let r = run(&dir, &["round", "new", "--hypothesis", "next"], 0);
    assert_eq!(r["round"], 3);
    let ev = journal_events(&dir);
    assert!(
        ev.contains(&"accept_done".to_owned()) && ev.contains(&"recovered".to_owned()),
        "{ev:?}"
    );
    let st = run(&dir, &["status"], 0);
    assert_eq!(st["incumbent"]["round"], 2);
}

#[test]
fn killed_accept_before_decision_is_undone() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    validate_full(&dir, "better.csv", 0);
    let out = kcamp(&dir)
        .arg("accept")
        .env("KCAMP_FAILPOINT", "accept:after_begin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(86));
    assert!(!dir.join("rounds/round-2/decision.json").exists());
    // The next accept undoes the torn one, then accepts for real, and says what it undid.
    let a = run(&dir, &["accept"], 0);
    assert_eq!(a["decision"]["decision"], "ACCEPTED");
    let recovered = a["recovered"].as_array().unwrap_or_else(|| panic!("{a}"));
    assert!(
        recovered.iter().any(|r| r
            .as_str()
            .unwrap()
            .contains("undid the interrupted accept of round 2")),
        "{a}"
    );
    let ev = journal_events(&dir);
    assert!(ev.contains(&"accept_aborted".to_owned()), "{ev:?}");
}

#[test]
fn killed_rollback_is_completed() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let original = std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap();
    std::fs::write(dir.join("kernel/gemm.wgsl"), b"// broken idea\n").unwrap();
    for point in ["rollback:after_begin", "rollback:after_restore"] {
        let out = kcamp(&dir)
            .args(["rollback", "--reason", "no gain"])
            .env("KCAMP_FAILPOINT", point)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(86), "{point}");
        if point == "rollback:after_begin" {
            // The retried rollback finds it completed by recovery and reports it as done.
            let again = run(&dir, &["rollback", "--reason", "no gain"], 0);
            assert_eq!(again["decision"]["decision"], "ROLLED_BACK", "{again}");
            assert!(
                again["recovered"][0]
                    .as_str()
                    .is_some_and(|r| r.contains("completed the interrupted rollback of round 2")),
                "{again}"
            );
            assert!(
                again["warnings"][0]
                    .as_str()
                    .is_some_and(|w| w.contains("interrupted")),
                "{again}"
            );
            run(&dir, &["round", "new", "--hypothesis", "h2"], 0);
            std::fs::write(dir.join("kernel/gemm.wgsl"), b"// broken again\n").unwrap();
        }
    }
    run(&dir, &["round", "new", "--hypothesis", "h3"], 0);
    assert_eq!(
        std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(),
        original
    );
    let d: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-3/decision.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(d["decision"], "ROLLED_BACK");
    assert_eq!(d["reason"], "no gain");
}

#[test]
fn a_second_writer_is_told_who_holds_the_lock() {
    let (_tmp, dir) = baselined();
    let _held =
        kcamp_core::fsutil::LockGuard::acquire(&dir.join(".kcamp.lock"), "kcamp validate (test)")
            .unwrap();
    let v = run(&dir, &["round", "new", "--hypothesis", "h"], 2);
    let msg = refusal(&v);
    assert!(
        msg.contains(&format!("pid {}", std::process::id()))
            && msg.contains("kcamp validate (test)"),
        "{msg}"
    );
    assert_eq!(v["error"]["kind"], "locked");
    // What to do is in `next`: see who holds it and wait.
    let next = v["error"]["next"][0].as_str().unwrap_or_default();
    assert!(
        next.starts_with("kcamp -C ")
            && next.contains(&format!(
                " status   (wait until pid {} (kcamp validate (test)) finishes",
                std::process::id()
            )),
        "{v}"
    );
    // Reading is never blocked.
    let st = run(&dir, &["status"], 0);
    let holder = &st["lock_holder"];
    assert_eq!(holder["pid"], std::process::id(), "{st}");
    assert_eq!(holder["command"], "kcamp validate (test)", "{st}");
    assert!(holder["since"].is_string(), "{st}");
}

/// The refusals a new user meets first say what to do next, in the error document's `next`
/// as in the message's last line.
#[test]
fn common_refusals_name_their_next_step() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let v = run(&dir, &["rollback", "--reason", " "], 2);
    let next = v["error"]["next"][0].as_str().unwrap_or_default();
    assert!(
        next.starts_with("kcamp -C ")
            && next.ends_with(" rollback --reason 'slower on s64: register pressure'"),
        "{v}"
    );
    assert!(refusal(&v).ends_with(&format!("\nnext: {next}")), "{v}");

    // A misspelt manifest field: the line said once, the field to fix named.
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\n  repeats: "), "{text}");
    std::fs::write(&manifest, text.replace("\n  repeats: ", "\n  repaets: ")).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("  repeats: "))
        .unwrap()
        + 1;
    let v = run(&dir, &["status"], 2);
    let message = refusal(&v);
    assert!(
        message.contains(&format!(
            "manifest.yaml:{line}: invalid manifest: timing: unknown field `repaets`"
        )) && !message.contains(" at line "),
        "{message}"
    );
    assert_eq!(
        v["error"]["next"][0],
        format!(
            "fix timing.repaets in {} (line {line}), then run the command again",
            manifest.display()
        ),
        "{v}"
    );
}

#[test]
fn init_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let v = run(
        tmp.path(),
        &["init", dir.to_str().unwrap(), "--op", "conv"],
        2,
    );
    assert!(refusal(&v).contains("--op"));
    let bad = tmp.path().join("shapes.yaml");
    std::fs::write(&bad, "- {label: a/b, M: 1, N: 2, K: 3}\n").unwrap();
    let v = run(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            bad.to_str().unwrap(),
        ],
        2,
    );
    assert!(refusal(&v).contains("path separator"), "{v}");
    std::fs::write(&bad, "- {label: a, M: 1, N: 2}\n").unwrap();
    let v = run(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            bad.to_str().unwrap(),
        ],
        2,
    );
    assert!(refusal(&v).contains("K"), "{v}");
    assert!(!dir.exists(), "nothing written");
    run(tmp.path(), &["init", dir.to_str().unwrap()], 0);
    let v = run(tmp.path(), &["init", dir.to_str().unwrap()], 2);
    assert!(refusal(&v).contains("already"));
}

#[test]
fn malformed_manifest_names_the_field() {
    let (_tmp, dir) = baselined();
    let m = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        m.replace("timeout_sec: 30.0", "timeout_sec: -1"),
    )
    .unwrap();
    let v = run(&dir, &["status"], 2);
    assert!(refusal(&v).contains("timeout_sec"), "{v}");
    std::fs::write(dir.join("manifest.yaml"), format!("{m}\nbogus_field: 1\n")).unwrap();
    let v = run(&dir, &["status"], 2);
    assert!(refusal(&v).contains("bogus_field"), "{v}");
}

#[test]
fn accept_commits_inside_a_git_work_tree() {
    let (tmp, dir) = baselined();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&[
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "root",
    ]);
    run(
        &dir,
        &["round", "new", "--hypothesis", "vectorize loads"],
        0,
    );
    validate_full(&dir, "better.csv", 0);
    let out = kcamp(&dir)
        .arg("accept")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = run(&dir, &["log"], 0);
    let hash = log["rounds"][1]["git_commit"]
        .as_str()
        .filter(|h| h.len() == 40)
        .unwrap_or_else(|| panic!("{log}"));
    // The decision names the commit of the round as accepted; the record of the decision
    // follows it.
    assert_eq!(
        git(&["log", "-1", "--format=%s", hash]).trim(),
        "round 2: ACCEPTED Forward TFLOPS +12.0%: vectorize loads"
    );
    assert_eq!(
        git(&["log", "-1", "--format=%s"]).trim(),
        "round 2: ACCEPTED recorded (decision.json, memory record, journal)"
    );
}

#[test]
fn kernel_settings_travel_with_the_kernel() {
    let (_tmp, dir) = baselined();
    run(&dir, &["round", "new", "--hypothesis", "64x64 tiles"], 0);
    std::fs::write(
        dir.join("kernel/kernel.yaml"),
        "file: gemm.wgsl\nentry_points: {forward: main}\nworkgroups: {x: ceil(N/64), y: ceil(M/64), z: B}\n",
    )
    .unwrap();
    assert_eq!(
        kcamp_core::manifest::Manifest::load(&dir)
            .unwrap()
            .kernel
            .workgroups
            .x,
        "ceil(N/64)"
    );
    std::fs::write(
        dir.join("kernel/kernel.yaml"),
        "file: gemm.wgsl\nentry_points: {}\nworkgroups: {x: '1'}\n",
    )
    .unwrap();
    let v = run(&dir, &["status"], 2);
    assert!(
        refusal(&v).contains("kernel.yaml") && refusal(&v).contains("forward"),
        "{v}"
    );
    run(&dir, &["rollback", "--reason", "back to 16x16"], 0);
    assert!(
        !dir.join("kernel/kernel.yaml").exists(),
        "rollback restores the kernel settings too"
    );
    assert_eq!(
        kcamp_core::manifest::Manifest::load(&dir)
            .unwrap()
            .kernel
            .workgroups
            .x,
        "ceil(N/16)"
    );
}

/// A round that re-measured the incumbent unchanged and was rolled back is no direction
/// tried: the working kernel of every later round starts as that same kernel, and
/// `round new`, `validate` and `status` must not name the round for it.
#[test]
fn a_rolled_back_round_of_the_unchanged_incumbent_is_not_tried_before() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::harness_campaign(tmp.path(), &common::fixture("campaign"));
    common::run(&dir, &["baseline"], 0);
    common::run(&dir, &["round", "new", "--hypothesis", "measure again"], 0);
    let v = common::output(&dir, &["validate"]);
    assert!(
        v.status.code().is_some_and(|c| c < 2),
        "{}",
        common::describe(&["validate"], &v)
    );
    common::run(&dir, &["rollback", "--reason", "only noise"], 0);
    let opened = common::run(&dir, &["round", "new", "--hypothesis", "a real change"], 0);
    assert_eq!(opened["tried_before"], serde_json::json!([]), "{opened}");
    let status = common::run(&dir, &["status"], 0);
    assert_eq!(
        status["working_kernel_tried"],
        serde_json::json!([]),
        "{status}"
    );
    assert_eq!(status["rolled_back"][0]["round"], 2, "{status}");
    // A real change that equals a rolled-back round is still named.
    common::edit_kernel(&dir, "the change");
    let out = common::output(&dir, &["validate"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tried_before"], serde_json::json!([]), "{v}");
}

/// Why each round was decided, as data in the ledger: a rollback after a REJECT, one of a
/// round the gate would have taken, a forced accept. A reader never parses the reason.
#[test]
fn the_ledger_says_why_each_round_was_decided_as_data() {
    let (_tmp, dir) = baselined();
    let validate = |csv_name: &str, code: i32| {
        run(
            &dir,
            &["validate", "--full", "--csv", &common::csv(csv_name)],
            code,
        )
    };
    run(&dir, &["round", "new", "--hypothesis", "slower"], 0);
    validate("hidden_regression.csv", 1);
    run(&dir, &["rollback", "--reason", "a shape regressed"], 0);
    run(&dir, &["round", "new", "--hypothesis", "faster"], 0);
    validate("better.csv", 0);
    run(&dir, &["rollback", "--reason", "keep it simple"], 0);
    run(&dir, &["round", "new", "--hypothesis", "forced"], 0);
    validate("hidden_regression.csv", 1);
    run(
        &dir,
        &["accept", "--force", "--reason", "measured by hand"],
        0,
    );

    let status = run(&dir, &["status"], 0);
    let rolled: Vec<(&Value, &Value)> = status["rolled_back"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (&t["round"], &t["cause"]))
        .collect();
    assert_eq!(
        rolled,
        [
            (&json!(2), &json!("gate_reject")),
            (&json!(3), &json!("rolled_back_by_user"))
        ],
        "{status}"
    );
    // The failing shapes are listed as the log lists them, not counted.
    assert!(status["rolled_back"][0]["failed"].is_array(), "{status}");
    let log = run(&dir, &["log"], 0);
    let causes: Vec<&Value> = log["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["cause"])
        .collect();
    assert_eq!(
        causes,
        [
            &Value::Null,
            &json!("gate_reject"),
            &json!("rolled_back_by_user"),
            &json!("forced")
        ],
        "{log}"
    );
    let decision: Value =
        serde_json::from_slice(&std::fs::read(dir.join("rounds/round-4/decision.json")).unwrap())
            .unwrap();
    assert_eq!(decision["cause"], "forced");
}
