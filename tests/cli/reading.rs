//! What a person reads, through the real binary on the fixture campaign (CSVs from an
//! external harness, no GPU): text outputs and exports as snapshots, reasons and next
//! steps, honest aggregates, records that carry the story, the performance target, and a
//! git campaign that is clean after every step.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;
use common::{GIT_IDENTITY, git};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/campaign")
        .join(name)
}

fn fixture_str(name: &str) -> String {
    fixture(name).display().to_string()
}

/// A git identity for the commits kcamp makes in the git test (none is configured here).
/// `kcamp -C dir args...`: (exit code, stdout, stderr).
fn kcamp(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("KCAMP_FAILPOINT")
        .env_remove("TEST_TIMEOUT_SEC")
        .envs(GIT_IDENTITY)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Text output of a command that must exit with `code`, with the campaign path redacted.
fn text(dir: &Path, args: &[&str], code: i32) -> String {
    let (c, stdout, stderr) = kcamp(dir, args);
    assert_eq!(c, code, "kcamp {args:?}: {stdout}\n{stderr}");
    stdout.replace(&dir.display().to_string(), "[CAMPAIGN]")
}

/// The JSON document of a command that must exit with `code`.
fn json(dir: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (c, stdout, stderr) = kcamp(dir, &all);
    assert_eq!(c, code, "kcamp {args:?}: {stdout}\n{stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {stdout}"))
}

/// A fixture campaign with BASELINE recorded from baseline.csv (`extra` appended to the
/// manifest first).
fn baselined(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    json(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            &fixture_str("shapes.yaml"),
        ],
        0,
    );
    // The imported rows are held to an Apple M2's cited peaks.
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        format!("{manifest}target_gpu: m2\n{extra}"),
    )
    .unwrap();
    json(
        &dir,
        &["baseline", "--csv", &fixture_str("baseline.csv")],
        0,
    );
    (tmp, dir)
}

fn record(dir: &Path, version: u32) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("memory/v{version}.json"))).unwrap(),
    )
    .unwrap()
}

#[test]
fn the_loop_reads_well_from_baseline_to_report() {
    let (_tmp, dir) = baselined("");
    let status = text(&dir, &["status"], 0);
    insta::assert_snapshot!("status_after_baseline", status);
    text(&dir, &["round", "new", "--hypothesis", "tile 16x16"], 0);
    let validated = text(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("better.csv")],
        0,
    );
    insta::assert_snapshot!("validate_accept", validated);
    text(&dir, &["accept"], 0);
    text(&dir, &["round", "new", "--hypothesis", "unroll by 4"], 0);
    let failed = text(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("fail.csv")],
        1,
    );
    insta::assert_snapshot!("validate_fail", failed);
    let refused = kcamp(&dir, &["accept"]);
    assert_eq!(refused.0, 2);
    assert!(
        !refused.2.contains(".."),
        "no doubled period: {}",
        refused.2
    );
    assert!(
        refused
            .2
            .replace(&dir.display().to_string(), "[CAMPAIGN]")
            .contains(
                "\nnext: kcamp -C [CAMPAIGN] rollback --reason TEXT   (dashboard: r)\n      or: "
            ),
        "{}",
        refused.2
    );
    let rolled = text(&dir, &["rollback", "--reason", "s256 fails"], 0);
    insta::assert_snapshot!("rollback", rolled);
    insta::assert_snapshot!("log", text(&dir, &["log"], 0));
    insta::assert_snapshot!(
        "log_markdown",
        text(&dir, &["log", "--format", "markdown"], 0)
    );
    insta::assert_snapshot!("log_csv", text(&dir, &["log", "--format", "csv"], 0));
    let report = text(&dir, &["report", "--no-run"], 0);
    assert!(
        report.contains("charts: [CAMPAIGN]/report/metric_over_rounds.svg"),
        "{report}"
    );
    // The report judges the incumbent (round 2) against the BASELINE: its columns say so.
    let header = report
        .lines()
        .find(|l| l.starts_with("label "))
        .unwrap_or_default();
    assert!(
        header.contains(" BASELINE ")
            && header.contains(" round 2 ")
            && !header.contains("incumbent"),
        "{report}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    insta::assert_snapshot!(
        "report_md",
        md.replace(&dir.display().to_string(), "[CAMPAIGN]")
    );
    // `--format markdown` prints report.md itself, nothing after it.
    let printed = text(&dir, &["report", "--no-run", "--format", "markdown"], 0);
    assert_eq!(printed.trim_end(), md.trim_end());
    // Every chart is linked in both formats and readable by everyone.
    for chart in ["metric_over_rounds", "speedup"] {
        for ext in ["svg", "png"] {
            let rel = format!("report/{chart}.{ext}");
            assert!(md.contains(&format!("({rel})")), "{rel} not linked");
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(&rel))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o644, 0o644, "{rel}: {mode:o}");
        }
    }
    let doc = json(&dir, &["report", "--no-run", "--format", "json"], 0);
    assert_eq!(doc["data"]["comparison"]["shapes"], 7, "{doc}");
}

#[test]
fn validate_json_carries_the_run_summary_and_the_next_step() {
    let (_tmp, dir) = baselined("");
    json(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let v = json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("fail.csv")],
        1,
    );
    assert_eq!(v["summary"]["total"], 7, "{v}");
    assert_eq!(v["summary"]["passed"], 6, "{v}");
    assert_eq!(v["summary"]["all_pass"], false, "{v}");
    assert!(v["summary"]["max_rel_err"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(
        v["summary"]["latency_us_by_shape"]
            .as_object()
            .unwrap()
            .len(),
        6,
        "{v}"
    );
    assert_eq!(v["failures"][0]["check"], "FAIL", "{v}");
    assert!(
        v["next"][0].as_str().unwrap().contains("fix the kernel"),
        "{v}"
    );
    // The dashboard's fields stay where they were.
    assert_eq!(v["round"], 2);
    assert_eq!(v["report"]["verdict"], "REJECT");
}

#[test]
fn gate_exports_paste_into_a_pull_request() {
    let tmp = tempfile::tempdir().unwrap();
    let args = |format: &str| {
        vec![
            "gate".to_owned(),
            fixture_str("baseline.csv"),
            fixture_str("hidden_regression.csv"),
            "--format".to_owned(),
            format.to_owned(),
        ]
    };
    let run = |format: &str| {
        let a = args(format);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        text(tmp.path(), &a, 1).replace(&fixture_str(""), "[FIXTURES]/")
    };
    insta::assert_snapshot!("gate_text", run("text"));
    insta::assert_snapshot!("gate_markdown", run("markdown"));
    insta::assert_snapshot!("gate_csv", run("csv"));
    let a = args("json");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, stdout, _) = kcamp(tmp.path(), &a);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["verdict"], "REJECT");
}

#[test]
fn records_compare_with_the_incumbent_and_keep_the_lessons() {
    let (_tmp, dir) = baselined("");
    // Round 2 rolled back, round 3 accepted: round 3 is compared with round 1, its
    // incumbent, not with the rolled-back round 2.
    json(&dir, &["round", "new", "--hypothesis", "bigger tiles"], 0);
    json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("fail.csv")],
        1,
    );
    json(
        &dir,
        &["rollback", "--reason", "s256 fails with bigger tiles"],
        0,
    );
    let v1 = record(&dir, 1);
    let pitfall = &v1["pitfalls_and_fixes"][0];
    assert_eq!(pitfall["error_type"], "ROLLED_BACK (REJECT)", "{v1}");
    assert_eq!(pitfall["root_cause"], "s256 fails with bigger tiles");
    assert!(
        pitfall["error_message"]
            .as_str()
            .unwrap()
            .contains("s256 (FAIL)"),
        "{pitfall}"
    );
    json(&dir, &["round", "new", "--hypothesis", "tile 16x16"], 0);
    json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("better.csv")],
        0,
    );
    json(&dir, &["accept"], 0);
    let v2 = record(&dir, 2);
    let cmp = &v2["performance"]["comparison_with_previous"];
    assert_eq!(cmp["previous_version"], "v0", "{v2}");
    assert!(cmp["tflops_change_pct"].as_f64().unwrap() > 10.0, "{cmp}");
    let directions = v2["open_directions"].as_array().unwrap();
    assert!(
        directions[0]
            .as_str()
            .unwrap()
            .starts_with("build on round 3 (\"tile 16x16\")"),
        "{v2}"
    );
    assert_eq!(v2["references"][0]["source_type"], "measurement", "{v2}");
    // `memory show` takes the version as it is written.
    let shown = json(&dir, &["memory", "show", "v2"], 0);
    assert_eq!(shown["version"], "v2");
}

#[test]
fn a_met_performance_target_ends_the_campaign() {
    // better.csv's geomean is about 12% above the baseline's 13.2 GFLOP/s.
    let (_tmp, dir) = baselined("performance_target: {metric: Forward TFLOPS, value: 0.0145}\n");
    let st = json(&dir, &["status"], 0);
    assert_eq!(st["target"]["met"], false, "{st}");
    json(&dir, &["round", "new", "--hypothesis", "tile 16x16"], 0);
    json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("better.csv")],
        0,
    );
    let accepted = text(&dir, &["accept"], 0);
    assert!(
        accepted.contains("performance target met: Forward TFLOPS"),
        "{accepted}"
    );
    assert!(
        accepted.contains("next: kcamp -C [CAMPAIGN] report"),
        "{accepted}"
    );
    let (code, _, stderr) = kcamp(&dir, &["round", "new", "--hypothesis", "more"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("performance target is met"), "{stderr}");
    text(&dir, &["report", "--no-run"], 0);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("Performance target: **target met**"), "{md}");
}

#[test]
fn refusals_suggest_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let util = [
        "util",
        "--gpu",
        "h200",
        "--dtype",
        "f32",
        "--flops-expr",
        "2*M*N*K",
        "--bytes-expr",
        "4*(M*K+K*N+M*N)",
        "--time-ms",
        "10",
    ];
    let (code, _, stderr) = kcamp(tmp.path(), &util);
    assert_eq!(code, 2);
    assert!(stderr.contains("--dims M=4096,N=4096,K=4096"), "{stderr}");
    let with_dims = [&util[..], &["--dims", "M=4096,N=4096,K=4096"]].concat();
    let util = text(tmp.path(), &with_dims, 0);
    // 2·4096³ FLOP in 10 ms = 13.7 TFLOP/s = 20.5 % of 67 TFLOP/s.
    assert!(
        util.contains("achieved     13.7 TFLOP/s = 20.5% of 67.0 TFLOP/s [nvidia-h200-datasheet]"),
        "{util}"
    );
    let (_t, dir) = baselined("");
    let (code, _, stderr) = kcamp(&dir, &["validate"]);
    assert_eq!(code, 2);
    assert!(
        stderr
            .replace(&dir.display().to_string(), "[CAMPAIGN]")
            .contains("next: kcamp -C [CAMPAIGN] round new"),
        "{stderr}"
    );
}

/// A copy of a bundled campaign (`campaigns/NAME`) in a fresh temporary directory.
fn bundled(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("campaigns")
            .join(name),
        &dir,
    );
    (tmp, dir)
}

#[test]
fn analyze_reads_the_registers_of_both_pipelines_of_an_aligned_kernel() {
    // The bundled H200 campaign's incumbent (round 29) runs entry points of its own on
    // aligned shapes; the driver's statistics of both were recorded on the H200.
    let (_tmp, dir) = bundled("h200-sgemm-f32");
    let out = text(&dir, &["analyze"], 0);
    for finding in [
        "the driver compiled forward to 128 registers per invocation: 2 workgroup(s) of 256 per multiprocessor",
        "the driver compiled forward_aligned to 155 registers per invocation: 1 workgroup(s) of 256 per multiprocessor",
    ] {
        assert!(out.contains(finding), "'{finding}' not in:\n{out}");
    }
}

#[test]
fn analyze_records_evidence_even_without_a_run_record() {
    let (_tmp, dir) = baselined("");
    let out = text(&dir, &["analyze"], 0);
    assert!(
        out.contains("static metrics (naga, entry point main)"),
        "{out}"
    );
    assert!(out.contains("no roofs to compare with"), "{out}");
    assert!(out.contains("next: "), "{out}");
    let v0 = record(&dir, 0);
    let evidence = &v0["profile_evidence"];
    assert_eq!(evidence["round"], 1, "{v0}");
    assert_eq!(
        evidence["static_metrics"]["workgroup_size"][0], 16,
        "{evidence}"
    );
    // Without peaks the shapes keep their achieved rates, in manifest order.
    assert_eq!(evidence["shapes"].as_array().unwrap().len(), 7);
    assert!(evidence["shapes"][0]["flop_rate"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_git_campaign_is_clean_after_every_step_and_names_one_hash_everywhere() {
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("git is needed for this test (scripts/test.sh installs it)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    git(repo, &["init", "-q"]);
    let dir = repo.join("camp");
    json(
        repo,
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            &fixture_str("shapes.yaml"),
        ],
        0,
    );
    let clean = |step: &str| {
        let status = git(&dir, &["status", "--porcelain", "--untracked-files=all"]);
        assert!(status.is_empty(), "after {step}: {status}");
    };
    // The imported rows are held to an Apple M2's cited peaks.
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        format!("{manifest}target_gpu: m2\n"),
    )
    .unwrap();
    json(
        &dir,
        &["baseline", "--csv", &fixture_str("baseline.csv")],
        0,
    );
    clean("baseline");
    json(&dir, &["round", "new", "--hypothesis", "tile 16x16"], 0);
    clean("round new");
    std::fs::write(dir.join("kernel/notes.txt"), "the change of this round\n").unwrap();
    json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("better.csv")],
        0,
    );
    clean("validate");
    json(&dir, &["accept"], 0);
    clean("accept");
    json(&dir, &["round", "new", "--hypothesis", "bigger tiles"], 0);
    json(
        &dir,
        &["validate", "--full", "--csv", &fixture_str("fail.csv")],
        1,
    );
    json(&dir, &["rollback", "--reason", "s256 fails"], 0);
    clean("rollback");
    json(&dir, &["analyze"], 0);
    clean("analyze");
    json(
        &dir,
        &[
            "memory",
            "update",
            "v2",
            "--set",
            "optimization.risks_and_rollback=none",
        ],
        0,
    );
    clean("memory update");
    json(&dir, &["report", "--no-run"], 0);
    clean("report");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    for (round, version) in [(1u32, 0u32), (2, 1), (3, 2)] {
        let decision: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("rounds/round-{round}/decision.json")))
                .unwrap(),
        )
        .unwrap();
        let hash = decision["git_commit"]
            .as_str()
            .unwrap_or_else(|| panic!("round {round} names no commit: {decision}"));
        assert_eq!(
            record(&dir, version)["git_commit_hash"],
            hash,
            "round {round}"
        );
        assert!(
            journal.lines().any(|l| l.contains("\"git_commit\"")
                && l.contains(&format!("\"round\":{round}"))
                && l.contains(hash)),
            "round {round}: {hash} not journaled"
        );
        // The commit holds the round's kernel and measurements as decided (BASELINE's
        // holds the kernel and manifest it measured; its round directory follows).
        let tree = git(&dir, &["ls-tree", "-r", "--name-only", hash]);
        assert!(
            tree.contains(&format!("rounds/round-{round}/artifacts/benchmark.csv")) || round == 1,
            "round {round}: {tree}"
        );
        assert!(tree.contains("kernel/gemm.wgsl"), "{tree}");
    }
    // The first commit is BASELINE alone, not everything at the first accept.
    let log = git(&dir, &["log", "--format=%s", "--reverse"]);
    assert!(
        log.lines().next().unwrap().starts_with("round 1: BASELINE"),
        "{log}"
    );
}

#[test]
fn the_gate_in_a_campaign_ends_with_the_command_that_records_its_candidate() {
    let (_tmp, dir) = baselined("");
    let better = fixture_str("better.csv");
    // The gate's last line, its next step.
    let next_step = || {
        let out = text(&dir, &["gate", &fixture_str("baseline.csv"), &better], 0);
        out.lines().last().unwrap_or_default().to_owned()
    };
    // No round is open yet: `validate` would be refused, so the step opens one first.
    assert_eq!(
        next_step(),
        format!(
            "next: kcamp -C [CAMPAIGN] round new --hypothesis TEXT, then kcamp -C [CAMPAIGN] validate --full --csv {better}   (record the candidate as a new round's measurement)"
        )
    );
    text(&dir, &["round", "new", "--hypothesis", "h"], 0);
    assert_eq!(
        next_step(),
        format!(
            "next: kcamp -C [CAMPAIGN] validate --full --csv {better}, then kcamp -C [CAMPAIGN] accept   (record the candidate as this round's measurement)"
        )
    );
    // What it says works (better.csv holds every target shape, not only the representative
    // ones a quick validation takes).
    text(&dir, &["validate", "--full", "--csv", &better], 0);
    // The JSON document ends with the same next step.
    let v = json(&dir, &["gate", &fixture_str("baseline.csv"), &better], 0);
    assert_eq!(v["verdict"], "ACCEPT", "{v}");
    let step = v["next"][0].as_str().unwrap_or_default();
    assert!(
        step.contains("validate --full --csv ")
            && step.ends_with(" accept   (record the candidate as this round's measurement)"),
        "{v}"
    );
}

#[test]
fn report_no_run_leaves_a_standing_final_validation_as_it_is() {
    // The bundled H200 campaign ends in a final full validation of its incumbent (round 29),
    // paired with the BASELINE re-measured beside it. `--no-run` (what `kcamp report`
    // suggests next, for a pull request) must show that report, not replace it with round
    // 29's recorded numbers judged again.
    let (_tmp, dir) = bundled("h200-sgemm-f32");
    let before = common::tree(&dir);
    let report = text(&dir, &["report", "--no-run"], 0);
    assert!(
        report.starts_with("final acceptance of round 29 against the BASELINE (final full validation of 2026-12-02 10:02 UTC, builtin): verdict: ACCEPT"),
        "{report}"
    );
    assert!(
        report.contains("that final full validation stands"),
        "{report}"
    );
    assert!(report.contains("clears the paired band"), "{report}");
    // Paired, each shape was tested (signed-rank): its p-value is in the table.
    assert!(report.contains("    band        p  class\n"), "{report}");
    assert!(
        report.contains("+606%  ±2.00%  0.00195  improved\n"),
        "{report}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let printed = text(&dir, &["report", "--no-run", "--format", "markdown"], 0);
    assert_eq!(printed.trim_end(), md.trim_end());
    let doc = json(&dir, &["report", "--no-run", "--format", "json"], 0);
    assert_eq!(doc["unchanged"], true, "{doc}");
    assert_eq!(doc["final_validation"], true, "{doc}");
    assert_eq!(doc["shapes"].as_array().map(Vec::len), Some(6), "{doc}");
    assert!(
        before == common::tree(&dir),
        "report --no-run wrote into the campaign"
    );
    // Once the kernel of the incumbent's snapshot is not what was validated, the standing
    // report no longer describes it: `--no-run` judges the recorded numbers and says so.
    let snapshot = dir.join("rounds/round-29/kernel");
    let wgsl = std::fs::read_dir(&snapshot)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .unwrap();
    let mut source = std::fs::read_to_string(&wgsl).unwrap();
    source.push_str("\n// edited after the final validation\n");
    std::fs::write(&wgsl, source).unwrap();
    let again = text(&dir, &["report", "--no-run"], 0);
    assert!(again.contains("(recorded numbers)"), "{again}");
    assert!(!again.contains("stands"), "{again}");
}

#[test]
fn a_refusals_next_step_names_the_campaign_given_with_c() {
    // Run from elsewhere with -C, a refusal's `next:` must run as printed there too.
    let (_tmp, dir) = baselined("");
    text(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let (code, _, stderr) = kcamp(&dir, &["round", "new", "--hypothesis", "again"]);
    assert_eq!(code, 2, "{stderr}");
    let k = format!("kcamp -C {} ", dir.display());
    // Written as the command lines themselves, as every `next:` is, each step on its line.
    let steps: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("next: "))
        .collect();
    assert_eq!(
        steps,
        [
            format!("next: {k}validate, then {k}accept   (dashboard: v, then a)"),
            format!("      or: {k}rollback --reason TEXT   (dashboard: r)"),
        ],
        "{stderr}"
    );
    // JSON carries the steps as `next` too.
    let doc = json(&dir, &["round", "new", "--hypothesis", "again"], 2);
    assert_eq!(
        doc["error"]["next"],
        serde_json::json!([
            format!("{k}validate, then {k}accept   (dashboard: v, then a)"),
            format!("{k}rollback --reason TEXT   (dashboard: r)"),
        ]),
        "{doc}"
    );
    // The message says what is wrong; the steps are the document's `next` alone.
    assert!(
        !doc["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("next:"),
        "{doc}"
    );
}

#[test]
fn a_report_on_quick_numbers_names_the_target_shapes_it_did_not_see() {
    let (tmp, dir) = baselined("");
    let representative = kcamp_core::manifest::Manifest::load(&dir)
        .unwrap()
        .representative_shapes;
    // better.csv's rows of the representative shapes: what a quick validation measures.
    let better = std::fs::read_to_string(fixture_str("better.csv")).unwrap();
    let mut lines = better.lines();
    let mut quick = format!("{}\n", lines.next().unwrap());
    for line in lines {
        if representative
            .iter()
            .any(|r| line.starts_with(&format!("{r},")))
        {
            quick.push_str(line);
            quick.push('\n');
        }
    }
    let quick_csv = tmp.path().join("quick.csv");
    std::fs::write(&quick_csv, quick).unwrap();
    text(&dir, &["round", "new", "--hypothesis", "tile 16x16"], 0);
    text(&dir, &["validate", "--csv", quick_csv.to_str().unwrap()], 0);
    text(&dir, &["accept", "--csv", &fixture_str("better.csv")], 0);
    let doc = json(&dir, &["report", "--no-run", "--format", "json"], 0);
    let reasons = doc["reasons"].to_string();
    let acceptance: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report/acceptance.json")).unwrap())
            .unwrap();
    // Accepted on its quick numbers (the gain needs no full confirmation): the report records
    // which validation its numbers came from and says which target shapes they lack.
    assert_eq!(acceptance["validation"], "quick", "{acceptance}");
    assert!(
        reasons.contains(&format!(
            "judged over {} of 7 target shapes: round 2's recorded numbers are its quick validation's and lack ",
            representative.len()
        )),
        "{reasons}"
    );
}
