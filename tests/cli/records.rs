//! Records and reports that tell the truth, through the real binary: a round that fails a
//! shape its quick validation only checked is FAIL in its iteration record, in report.md's
//! lineage and in `kcamp log`; an overturned quick ACCEPT records the confirming run's own
//! reason; a harness campaign's baseline report describes the harness's measurement; and
//! the edge of the CLI (exit codes, `--json` usage errors, YAML errors, next steps).

use std::path::Path;

use serde_json::Value;

use crate::common;
use common::{fixture, run};

/// A folder of numbers for [`common::RECORDS_HARNESS`]: the fixture CSVs it is given, by
/// their own names.
fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text_of(dir: &Path, args: &[&str]) -> String {
    let out = common::kcamp(dir).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lineage table row of `round` in report.md.
fn lineage_row(md: &str, round: u32) -> String {
    let lineage = md.split_once("## Lineage").unwrap().1;
    lineage
        .lines()
        .find(|l| l.starts_with(&format!("| {round} ")) || l.starts_with(&format!("| {round}★")))
        .unwrap_or_else(|| panic!("no lineage row for round {round}:\n{md}"))
        .to_owned()
}

#[test]
fn a_round_that_fails_an_untimed_shape_is_fail_in_its_record_report_and_log() {
    let tmp = tempfile::tempdir().unwrap();
    let nums = common::numbers(tmp.path(), &["baseline.csv", "better.csv"]);
    let dir = common::harness_campaign(tmp.path(), &nums);
    run(&dir, &["baseline"], 0);
    run(
        &dir,
        &["round", "new", "--hypothesis", "faster but wrong"],
        0,
    );
    // +12% on the timed shapes, wrong on one the quick validation only checks.
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    std::fs::write(dir.join("kernel/wrong"), "").unwrap();
    let v = run(&dir, &["validate"], 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{v}");
    assert_eq!(failures[0]["untimed"], true, "{v}");
    let bad = failures[0]["label"].as_str().unwrap().to_owned();
    let expected = format!("{bad} FAIL (untimed)");

    // `kcamp log`, before and after the decision.
    let log = run(&dir, &["log"], 0);
    assert_eq!(
        log["rounds"][1]["failed"],
        serde_json::json!([expected]),
        "{log}"
    );
    assert!(
        text_of(&dir, &["log"]).contains("FAIL (1 shape)"),
        "{}",
        text_of(&dir, &["log"])
    );
    run(
        &dir,
        &["rollback", "--reason", "wrong on an untimed shape"],
        0,
    );
    let log = text_of(&dir, &["log"]);
    let row = log
        .lines()
        .find(|l| l.contains("faster but wrong"))
        .unwrap();
    assert!(
        row.contains("FAIL (1 shape)") && !row.contains("vs r1"),
        "{log}"
    );

    // The iteration record.
    let record = read_json(&dir.join("memory/v1.json"));
    assert_eq!(record["correctness"]["status"], "FAIL", "{record}");
    assert_eq!(
        record["quality_gate"]["result"], "ROLLED_BACK (REJECT)",
        "{record}"
    );
    let impact = record["optimization"]["expected_impact"].as_str().unwrap();
    assert!(
        impact.contains("FAIL (1 shape does not PASS)") && !impact.contains('+'),
        "{impact}"
    );
    let message = record["pitfalls_and_fixes"][0]["error_message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with(&format!("{bad} (untimed) (FAIL)")),
        "{message}"
    );

    // report.md's lineage (the BASELINE, still the incumbent, is no gain over itself: the
    // report's own verdict does not matter here).
    common::output(&dir, &["report", "--no-run"]);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let row = lineage_row(&md, 2);
    assert!(
        row.contains("FAIL (1 shape)") && !row.contains("vs r1"),
        "{row}"
    );
    assert!(md.contains(&format!("- round 2: {expected}")), "{md}");
}

#[test]
fn an_overturned_quick_accept_records_the_confirming_runs_own_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let nums = common::numbers(tmp.path(), &["baseline.csv", "gain3.csv"]);
    // 1% slower than the BASELINE on every shape.
    let slower = common::scaled_csv(&nums, "baseline.csv", 0.99);
    let dir = common::harness_campaign(tmp.path(), &nums);
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "small gain"], 0);
    // A quick gain of 3% (under the 5% that a full run must confirm), which the full run
    // does not see.
    std::fs::write(dir.join("kernel/numbers.quick"), "gain3.csv").unwrap();
    std::fs::write(
        dir.join("kernel/numbers.full"),
        slower.file_name().unwrap().to_str().unwrap(),
    )
    .unwrap();
    let v = run(&dir, &["validate"], 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT", "{v}");
    assert_eq!(v["needs_full_confirmation"], true, "{v}");
    let out = run(&dir, &["accept"], 1);
    assert_eq!(out["decision"]["decision"], "ROLLED_BACK", "{out}");
    let reason = out["decision"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the full validation overturned the quick ACCEPT: REJECT (")
            && reason.contains("-1.00%")
            && reason.contains("is not a gain"),
        "{reason}"
    );
    // Never a note on how the numbers were measured.
    assert!(
        !reason.contains("re-measured") && !reason.contains("unpaired"),
        "{reason}"
    );
    let decision = read_json(&dir.join("rounds/round-2/decision.json"));
    assert_eq!(decision["reason"], reason);
    let record = read_json(&dir.join("memory/v1.json"));
    assert_eq!(record["quality_gate"]["failure_reason"], reason, "{record}");
    assert_eq!(record["pitfalls_and_fixes"][0]["root_cause"], reason);
}

#[test]
fn a_harness_baseline_report_describes_the_harness_measurement() {
    let tmp = tempfile::tempdir().unwrap();
    let nums = common::numbers(tmp.path(), &["baseline.csv"]);
    let dir = common::harness_campaign(tmp.path(), &nums);
    run(&dir, &["baseline"], 0);
    let md = std::fs::read_to_string(dir.join("baseline_report.md")).unwrap();
    let setup = md.split_once("## Correctness").unwrap().0;
    assert!(
        setup.contains(
            "- Correctness test: the campaign's harness `sh harness.sh {csv} {kernel_dir}"
        ) && setup.contains("checked its outputs and timed it itself"),
        "{setup}"
    );
    assert!(
        setup.contains("- Reference: the harness's own reference and tolerance, not kcamp's; its CSV reports the Check column and `out_snr`, `da_snr`, `db_snr`"),
        "{setup}"
    );
    assert!(
        setup.contains("- timeout: the harness invocation as a whole:")
            && setup.contains(
                "- runtime bounds checks: not kcamp's: the harness compiled and ran the kernel"
            ),
        "{setup}"
    );
    assert!(
        setup.contains("timing: the harness's own (kcamp did not time it)"),
        "{setup}"
    );
    // kcamp's own method is claimed nowhere.
    for claim in [
        "f64 CPU",
        "timeout per case",
        "runtime bounds checks: on",
        "imported CSV",
    ] {
        assert!(!md.contains(claim), "{claim:?} in\n{md}");
    }
    // What the CSV says: the SNR columns' rel_err.
    assert!(
        md.contains("7 of 7 cases PASS; max rel_err 3.24e-7."),
        "{md}"
    );
}

#[test]
fn baseline_exits_1_when_a_shape_does_not_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    let csv = fixture("campaign/fail.csv");
    let v = run(&dir, &["baseline", "--csv", csv.to_str().unwrap()], 1);
    // The same document as when every shape passes, BASELINE recorded.
    assert_eq!(v["round"], 1, "{v}");
    assert_eq!(v["all_pass"], false, "{v}");
    assert_eq!(v["failures"][0]["label"], "s256", "{v}");
    assert!(dir.join("rounds/round-1/decision.json").is_file());
    let out = common::kcamp(&dir).arg("log").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_usage_error_under_json_is_the_json_error_document() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, help) in [
        (
            &["--json", "validate", "--no-such-flag"][..],
            "kcamp validate",
        ),
        (&["rollback", "--json"][..], "kcamp rollback"),
        (&["--json", "round", "new"][..], "kcamp round new"),
        (&["--json", "frobnicate"][..], "kcamp"),
    ] {
        let out = common::kcamp(tmp.path()).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            common::describe(args, &out)
        );
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", common::describe(args, &out)));
        assert_eq!(doc["error"]["kind"], "bad_input", "{doc}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(
            !message.starts_with("error:") && message.contains("Usage:"),
            "{message}"
        );
        // The next step is the refused command's own help.
        assert_eq!(
            doc["error"]["next"],
            serde_json::json!([format!("{help} --help")])
        );
        assert!(out.stderr.is_empty(), "{}", common::describe(args, &out));
    }
    // Without --json, clap's own text on stderr; --help is not an error.
    let out = common::kcamp(tmp.path())
        .args(["validate", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    let out = common::kcamp(tmp.path())
        .args(["--json", "validate", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage:"));
}

#[test]
fn a_yaml_error_names_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // The second target shape's K, wherever the manifest writes it.
    let line_of = |text: &str, needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in\n{text}"))
            + 1
    };
    assert!(text.contains("K: 128"), "{text}");
    let broken = text.replacen("K: 128", "K: 0", 1);
    std::fs::write(&manifest, &broken).unwrap();
    let line = line_of(&broken, "K: 0");
    let column = broken.lines().nth(line - 1).unwrap().rfind('0').unwrap() + 1;
    let v = run(&dir, &["status"], 2);
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "manifest.yaml:{line}: field 'target_shapes[1].K' at column {column}: must be positive"
        )),
        "{message}\n{broken}"
    );
    std::fs::write(&manifest, &text).unwrap();

    // A shapes file given to `kcamp init`: refused with exit 2, the error's message.
    let init_error = |shapes: &std::path::Path| {
        let v = run(
            tmp.path(),
            &[
                "init",
                tmp.path().join("other").to_str().unwrap(),
                "--shapes",
                shapes.to_str().unwrap(),
            ],
            2,
        );
        v["error"]["message"].as_str().unwrap().to_owned()
    };
    let shapes = tmp.path().join("shapes.yaml");
    let second = "- {label: b, M: 64, N: 64, K: 0}";
    std::fs::write(
        &shapes,
        format!("# two shapes\n- {{label: a, M: 64, N: 64, K: 64}}\n{second}\n"),
    )
    .unwrap();
    let column = second.rfind('0').unwrap() + 1;
    let message = init_error(&shapes);
    assert!(
        message.contains(&format!(
            "shapes.yaml:3: shape '[1].K' at column {column}: must be positive"
        )),
        "{message}"
    );
    // A missing dimension is placed at its shape.
    std::fs::write(
        &shapes,
        "- {label: a, M: 64, N: 64, K: 64}\n-\n  label: b\n  M: 64\n  N: 64\n",
    )
    .unwrap();
    let message = init_error(&shapes);
    assert!(
        message.contains("shapes.yaml:3: shape '[1].K' at column 3: missing"),
        "{message}"
    );
    // A CSV shapes file names the row and the column.
    let csv = tmp.path().join("shapes.csv");
    std::fs::write(&csv, "label,M,N,K\na,64,64,64\nb,64,0,64\n").unwrap();
    let message = init_error(&csv);
    assert!(
        message.contains("shapes.csv:3 (column 'N'): shape '[1].N': must be positive"),
        "{message}"
    );
    assert!(!tmp.path().join("other").exists());
}

#[test]
fn a_reject_report_does_not_say_to_paste_it_into_a_pull_request() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    run(
        &dir,
        &["baseline", "--csv", &common::csv("baseline.csv")],
        0,
    );
    // Accepted on a quick import, the incumbent's full numbers are slower than BASELINE's.
    run(&dir, &["round", "new", "--hypothesis", "looked faster"], 0);
    let slower = common::scaled_csv(tmp.path(), "baseline.csv", 0.8);
    run(
        &dir,
        &["validate", "--full", "--csv", slower.to_str().unwrap()],
        1,
    );
    run(
        &dir,
        &["accept", "--force", "--reason", "keep it to see the report"],
        0,
    );
    let r = run(&dir, &["report", "--no-run"], 1);
    assert_eq!(r["verdict"], "REJECT", "{r}");
    let next = r["next"].to_string();
    assert!(!next.contains("pull request"), "{next}");
    assert!(next.contains("round new"), "{next}");
    let text = text_of(&dir, &["report", "--no-run"]);
    assert!(!text.contains("pull request"), "{text}");
}
