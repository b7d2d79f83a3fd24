//! `kcamp gate` end to end over the fixtures in tests/fixtures/gate/.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gate")
        .join(name)
}

/// Run `kcamp gate` from an empty directory (so no manifest is picked up).
fn gate(args: &[&str]) -> (i32, String, String) {
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("kcamp").unwrap();
    cmd.current_dir(cwd.path())
        .env_remove("KCAMP_DIR")
        .arg("gate");
    for a in args {
        let p = fixture(a);
        if a.ends_with(".csv") {
            cmd.arg(p);
        } else {
            cmd.arg(a);
        }
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn gate_json(args: &[&str]) -> (i32, Value) {
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let (code, stdout, _) = gate(&with_json);
    (code, serde_json::from_str(&stdout).unwrap())
}

#[test]
fn clear_gain_is_accepted() {
    let (code, out, _) = gate(&["base.csv", "accept.csv"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verdict: ACCEPT (Forward TFLOPS)"), "{out}");
    assert!(out.contains("+10.0%"), "{out}");
    // The table lists every shape with dims and class.
    assert!(out.contains("B×M×N×K"), "{out}");
    assert!(out.contains("1×1024×1024×1024"), "{out}");
    assert_eq!(out.matches("improved").count(), 4, "{out}");
}

#[test]
fn small_regression_is_accepted_with_note() {
    let (code, json) = gate_json(&["base.csv", "note.csv"]);
    assert_eq!(code, 0);
    assert_eq!(json["verdict"], "ACCEPT_WITH_NOTE");
    assert_eq!(json["noted_regressions"], serde_json::json!(["mid"]));
}

#[test]
fn regression_hidden_by_better_geomean_is_rejected() {
    let (code, out, _) = gate(&["base.csv", "hidden.csv"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: REJECT"), "{out}");
    assert!(out.contains("mid -10.0%"), "{out}");
    assert!(out.contains("REGRESSION"), "{out}");
}

#[test]
fn a_gain_inside_the_aggregates_band_is_no_gain() {
    // +1% on every shape, each ±1% on both sides: the aggregate's band is 2 × 1.41%.
    let (code, out, _) = gate(&["base.csv", "noise.csv"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: REJECT"), "{out}");
    assert!(
        out.contains("+1.00%")
            && out.contains("does not clear its band ±2.83%")
            && out.contains("no gain distinguishable from noise"),
        "{out}"
    );
}

/// Forward TFLOPS without its `_stddev` column cannot be judged: the default metric is then
/// the next one, and the output says which was skipped; asking for it says why not.
#[test]
fn a_metric_without_its_spread_is_named_not_silently_skipped() {
    let (code, out, _) = gate(&["no_spread_base.csv", "no_spread_cand.csv"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: REJECT (Backward TFLOPS)"), "{out}");
    assert!(
        out.contains("note: judged 'Backward TFLOPS', the first column with a '_stddev' column beside it; 'Forward TFLOPS' has none and is not judged"),
        "{out}"
    );
    let (code, _, err) = gate(&[
        "no_spread_base.csv",
        "no_spread_cand.csv",
        "--metric",
        "Forward TFLOPS",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column 'Forward TFLOPS' has no 'Forward TFLOPS_stddev' column beside it"),
        "{err}"
    );
    // With every spread there, nothing is said.
    let (_, out, _) = gate(&["base.csv", "accept.csv"]);
    assert!(!out.contains("note: judged"), "{out}");
}

#[test]
fn failed_shape_is_rejected() {
    let (code, json) = gate_json(&["base.csv", "fail.csv"]);
    assert_eq!(code, 1);
    assert_eq!(json["verdict"], "REJECT");
    let large = json["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "large")
        .unwrap();
    assert_eq!(large["class"], "failed");
    assert_eq!(large["check"], "FAIL");
    assert!(large["delta"].is_null());
    // A failed shape has no change, so no band to hold one to: the tables show none
    // (the JSON keeps the configured floor, as data).
    let (_, text, _) = gate(&["base.csv", "fail.csv"]);
    let row = text.lines().find(|l| l.starts_with("large ")).unwrap();
    assert!(row.contains("PASS→FAIL"), "{row}");
    assert!(!row.contains('±'), "{row}");
    assert!(
        row.split_whitespace().filter(|c| *c == "-").count() >= 3,
        "{row}"
    );
    let (_, md, _) = gate(&["base.csv", "fail.csv", "--format", "markdown"]);
    let row = md.lines().find(|l| l.starts_with("| large |")).unwrap();
    assert!(!row.contains('±'), "{row}");
    let (_, csv, _) = gate(&["base.csv", "fail.csv", "--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(header.contains(&"candidate_check"), "{header:?}");
    let band = header.iter().position(|c| *c == "band").unwrap();
    let row: Vec<&str> = lines
        .find(|l| l.starts_with("large,"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(row[band], "", "{row:?}");
}

fn assert_bad_input(candidate: &str, needles: &[&str]) {
    let (code, _, err) = gate(&["base.csv", candidate]);
    assert_eq!(code, 2, "{candidate}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{candidate}: {err} lacks {needle}");
    }
}

#[test]
fn missing_file_is_bad_input() {
    assert_bad_input("no_such_file.csv", &["no_such_file.csv: no such file"]);
}

#[test]
fn drifted_header_names_the_column() {
    assert_bad_input(
        "drift.csv",
        &[
            "drift.csv",
            "column 7: incumbent 'Forward TFLOPS' but candidate 'Forward TFLOP/s'",
        ],
    );
}

#[test]
fn malformed_row_names_the_line() {
    assert_bad_input(
        "malformed.csv",
        &["malformed.csv:4", "expected 15 fields", "found 9"],
    );
}

#[test]
fn missing_shape_is_named() {
    assert_bad_input(
        "missing.csv",
        &[
            "'batched' (B=4, M=128, N=128, K=128) is in the incumbent but missing from the candidate (1 shape(s) only in the incumbent: 'batched'; 0 only in the candidate; ",
            "measure both over one shape set (both quick or both full)",
        ],
    );
}

/// A label in both files with other dimensions is said to be that, not a missing shape;
/// a shape only in the incumbent is named beside one only in the candidate.
#[test]
fn shape_sets_that_differ_name_every_side() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(fixture("base.csv")).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let base_path = write("base.csv", base.clone());
    let mut lines: Vec<String> = base.lines().map(String::from).collect();
    let row = lines
        .iter()
        .position(|l| l.starts_with("batched,"))
        .unwrap();
    let renamed = lines[row].replacen("batched,4,", "batched,2,", 1);
    lines[row] = renamed;
    let other_dims = write("dims.csv", lines.join("\n") + "\n");
    let run = |cand: &Path| {
        let out = Command::cargo_bin("kcamp")
            .unwrap()
            .current_dir(dir.path())
            .env_remove("KCAMP_DIR")
            .arg("gate")
            .arg(&base_path)
            .arg(cand)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run(&other_dims);
    assert!(
        err.contains("shape 'batched' has other dimensions in the two files: 'batched' (B=4, M=128, N=128, K=128) in the incumbent, 'batched' (B=2, M=128, N=128, K=128) in the candidate"),
        "{err}"
    );
    lines[row] = lines[row].replacen("batched,", "other,", 1);
    let other_label = write("other.csv", lines.join("\n") + "\n");
    let err = run(&other_label);
    assert!(
        err.contains(
            "1 shape(s) only in the incumbent: 'batched'; 1 only in the candidate: 'other';"
        ),
        "{err}"
    );
}

#[test]
fn duplicated_shape_is_named() {
    assert_bad_input(
        "duplicate.csv",
        &["duplicate.csv:6", "duplicated shape 'mid'", "lines 3 and 6"],
    );
}

#[test]
fn nan_metric_on_pass_row_is_refused() {
    assert_bad_input(
        "nan.csv",
        &["nan.csv:3", "Forward TFLOPS", "NaN on a PASS row"],
    );
}

#[test]
fn label_with_path_separator_is_refused() {
    assert_bad_input("slash.csv", &["slash.csv:2", "path separator"]);
}

#[test]
fn combined_step_metric_is_derived() {
    let (code, out, _) = gate(&["base.csv", "combined.csv"]);
    assert_eq!(code, 1, "forward did not change: {out}");
    let (code, json) = gate_json(&[
        "base.csv",
        "combined.csv",
        "--metric",
        "Combined Step TFLOPS",
    ]);
    assert_eq!(code, 0);
    assert_eq!(json["metric"], "Combined Step TFLOPS");
    assert_eq!(json["verdict"], "ACCEPT");
    let delta = json["aggregate"]["delta"].as_f64().unwrap();
    // Backward 1.5x faster and 2.5x the forward time: 3.5 / (1 + 2.5/1.5) - 1 = 31.25%.
    assert!((delta - 0.3125).abs() < 1e-3, "{delta}");
}

#[test]
fn unknown_metric_lists_the_valid_ones() {
    let (code, _, err) = gate(&["base.csv", "accept.csv", "--metric", "out_snr"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Forward TFLOPS, Backward TFLOPS, Combined Step TFLOPS"),
        "{err}"
    );
}

#[test]
fn json_report_has_the_fields() {
    let (code, json) = gate_json(&["base.csv", "accept.csv"]);
    assert_eq!(code, 0);
    assert_eq!(json["verdict"], "ACCEPT");
    assert_eq!(json["metric"], "Forward TFLOPS");
    for key in ["incumbent", "candidate", "delta"] {
        assert!(json["aggregate"][key].as_f64().unwrap() > 0.0, "{key}");
    }
    assert!(!json["reasons"].as_array().unwrap().is_empty());
    let shapes = json["shapes"].as_array().unwrap();
    assert_eq!(shapes.len(), 4);
    let first = &shapes[0];
    assert_eq!(first["label"], "small");
    assert_eq!(first["dims"], serde_json::json!([1, 64, 64, 64]));
    assert_eq!(first["check"], "PASS");
    assert_eq!(first["class"], "improved");
    for key in ["incumbent", "candidate", "delta", "band"] {
        assert!(first[key].is_f64(), "{key}");
    }
    assert_eq!(json["config"]["noise_floor"], 0.02);
    // The next step judges the metric this gate judged.
    let (_, text, _) = gate(&["base.csv", "accept.csv", "--metric", "Forward TFLOPS"]);
    assert!(
        text.trim_end().ends_with(
            "--metric 'Forward TFLOPS' --format markdown   (the verdict as a pull-request comment)"
        ),
        "{text}"
    );
    // As in every JSON document, the next step: the same line the text ends with.
    let next = json["next"].as_array().unwrap();
    assert_eq!(next.len(), 1);
    let step = next[0].as_str().unwrap();
    assert!(
        step.starts_with("kcamp gate ") && step.contains("--format markdown"),
        "{step}"
    );
    let (_, text, _) = gate(&["base.csv", "accept.csv"]);
    assert!(
        text.trim_end().ends_with(&format!("next: {step}")),
        "{text}"
    );
}

#[test]
fn json_errors_are_documents() {
    let (code, json) = gate_json(&["base.csv", "drift.csv"]);
    assert_eq!(code, 2);
    assert_eq!(json["error"]["kind"], "bad_input");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("column 7")
    );
}

/// `--json` with `--format markdown` (or csv) asks for two outputs: refused, not one of them
/// silently printed.
#[test]
fn json_and_another_format_are_refused_together() {
    for format in ["markdown", "csv"] {
        let (code, json) = gate_json(&["base.csv", "accept.csv", "--format", format]);
        assert_eq!(code, 2, "{json}");
        assert_eq!(
            json["error"]["message"],
            format!("--json and --format {format} ask for two different outputs: pass one of them")
        );
    }
    // --format json is the same as --json.
    let (code, json) = gate_json(&["base.csv", "accept.csv", "--format", "json"]);
    assert_eq!((code, &json["verdict"]), (0, &Value::from("ACCEPT")));
}

#[test]
fn bandwidth_schema() {
    let (code, json) = gate_json(&["bw_base.csv", "bw_cand.csv"]);
    assert_eq!(code, 0);
    assert_eq!(json["metric"], "Forward GB/s");
    assert_eq!(json["verdict"], "ACCEPT");
    let (code, json) = gate_json(&["bw_base.csv", "bw_regressed.csv"]);
    assert_eq!(code, 1);
    assert_eq!(json["verdict"], "REJECT");
    let (code, _, err) = gate(&["base.csv", "bw_cand.csv"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("column 2: incumbent 'B' but candidate 'N'"),
        "{err}"
    );
}

#[test]
fn samples_beside_the_csvs_feed_welch() {
    let (code, json) = gate_json(&["welch/base/benchmark.csv", "welch/cand/benchmark.csv"]);
    assert_eq!(code, 0, "{json}");
    let mid = json["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "mid")
        .unwrap();
    assert_eq!(mid["class"], "neutral");
    assert!(mid["p_value"].as_f64().unwrap() > 0.05);
    // The tables show the p-value the class rests on; shapes without a test show `-`.
    let (_, text, _) = gate(&["welch/base/benchmark.csv", "welch/cand/benchmark.csv"]);
    let header = text.lines().next().unwrap_or_default();
    assert!(header.ends_with("band      p  class"), "{text}");
    let mid_line = text.lines().find(|l| l.starts_with("mid ")).unwrap();
    assert!(mid_line.contains("±2.83%  0.712  neutral"), "{text}");
    let small_line = text.lines().find(|l| l.starts_with("small ")).unwrap();
    assert!(small_line.contains("±2.83%      -  improved"), "{text}");
    let (_, md, _) = gate(&[
        "welch/base/benchmark.csv",
        "welch/cand/benchmark.csv",
        "--format",
        "markdown",
    ]);
    assert!(md.contains("| band | p | class |"), "{md}");
    assert!(md.contains("| ±2.83% | 0.712 | neutral |"), "{md}");

    // The same CSVs without their samples: the -10% shape is a regression.
    let dir = tempfile::tempdir().unwrap();
    for (side, name) in [("base", "a.csv"), ("cand", "b.csv")] {
        std::fs::copy(
            fixture(&format!("welch/{side}/benchmark.csv")),
            dir.path().join(name),
        )
        .unwrap();
    }
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .current_dir(dir.path())
        .env_remove("KCAMP_DIR")
        .args(["gate", "a.csv", "b.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // No test, no p column.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap_or_default()
            .ends_with("band  class"),
        "{text}"
    );
}

#[test]
fn campaign_manifest_sets_metric_and_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.yaml"),
        r#"name: t
op: gemm
dtype: f32
primary_metric: Combined Step TFLOPS
target_shapes:
  - {label: small, M: 64, N: 64, K: 64}
kernel:
  file: gemm.wgsl
  entry_points: {forward: main}
  workgroups: {x: "ceil(N/16)"}
gate:
  noise_floor: 0.4
"#,
    )
    .unwrap();
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .env_remove("KCAMP_DIR")
        .arg("-C")
        .arg(dir.path())
        .arg("gate")
        .arg(fixture("base.csv"))
        .arg(fixture("combined.csv"))
        .arg("--json")
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["error"].is_null(), "{json}");
    assert_eq!(json["metric"], "Combined Step TFLOPS");
    assert_eq!(json["config"]["noise_floor"], 0.4);
    // +31% is below the manifest's 40% noise floor.
    assert_eq!(json["verdict"], "NEEDS_REMEASURE");
    assert_eq!(out.status.code(), Some(1));
}

/// Two 3,000-shape CSVs (the text table is over 200 KB, far beyond a pipe's buffer); the
/// candidate regresses every third shape by 30%, so the verdict is REJECT.
fn write_large_pair(dir: &Path) -> (PathBuf, PathBuf) {
    let header = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev";
    let (mut base, mut cand) = (format!("{header}\n"), format!("{header}\n"));
    for i in 0..3_000u32 {
        let value = 10.0 + f64::from(i % 97) * 0.37;
        let after = if i % 3 == 0 { value * 0.7 } else { value };
        let dims = format!(
            "1,{},{},{}",
            64 * (1 + i % 7),
            64 * (1 + i % 5),
            64 * (1 + i % 3)
        );
        base.push_str(&format!("s{i},{dims},PASS,{value},{}\n", value * 0.01));
        cand.push_str(&format!("s{i},{dims},PASS,{after},{}\n", after * 0.01));
    }
    let (b, c) = (dir.join("base.csv"), dir.join("cand.csv"));
    std::fs::write(&b, base).unwrap();
    std::fs::write(&c, cand).unwrap();
    (b, c)
}

/// `kcamp gate` on [`write_large_pair`]'s files with `args`: its exit code and stdout.
fn gate_large_pair(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (base, cand) = write_large_pair(dir.path());
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .current_dir(dir.path())
        .env_remove("KCAMP_DIR")
        .arg("gate")
        .args(args)
        .arg(&base)
        .arg(&cand)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// A table large enough to be written in two halves reads as one: every shape in order,
/// every column aligned across the halves, the verdict under it.
#[test]
fn a_large_table_is_one_table() {
    let (code, text) = gate_large_pair(&[]);
    assert_eq!(code, Some(1));
    let table: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 3_001, "a header and 3,000 rows");
    let class_at =
        |line: &str| line.chars().count() - line.split("  ").last().unwrap().chars().count();
    let header_at = table[0].chars().count() - "class".len();
    for (i, row) in table[1..].iter().enumerate() {
        assert!(row.starts_with(&format!("s{i} ")), "row {i}: {row}");
        assert_eq!(class_at(row), header_at, "row {i} is aligned: {row}");
    }
    let rest = &text[text
        .find("\n\nverdict: REJECT")
        .expect("the verdict under the table")..];
    assert!(rest.contains("1000 shapes regressed beyond"), "{rest}");
}

/// A markdown table too long for a pull-request comment keeps the shapes that decide and
/// says how many it leaves out.
#[test]
fn a_large_markdown_report_fits_in_a_pull_request_comment() {
    let (_, md) = gate_large_pair(&["--format", "markdown"]);
    assert!(
        md.chars().count() <= 65_536,
        "{} characters",
        md.chars().count()
    );
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| s")).collect();
    assert!(rows.len() > 100, "{}", rows.len());
    // The 1,000 regressions come first.
    assert!(
        rows.iter().all(|r| r.contains("**REGRESSION**")),
        "{rows:?}"
    );
    assert!(
        md.contains(&format!(
            "_{} of 3000 shapes are shown, those that decide first; {} more",
            rows.len(),
            3000 - rows.len()
        )),
        "{md}"
    );
    assert!(md.contains("`--format csv` lists every shape"));
}

/// `kcamp gate A B | head`: the reader leaves after a few lines. kcamp stops writing without
/// a word (no panic, no backtrace) and exits with the verdict's code, as a whole read would.
#[test]
fn a_reader_that_leaves_early_gets_no_panic_and_the_verdict_code_stands() {
    use std::io::Read;
    use std::process::{Command as Process, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let (base, cand) = write_large_pair(dir.path());
    for json in [false, true] {
        let mut cmd = Process::new(assert_cmd::cargo::cargo_bin("kcamp"));
        cmd.current_dir(dir.path())
            .env_remove("KCAMP_DIR")
            .arg("gate")
            .arg(&base)
            .arg(&cand)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 64];
        stdout.read_exact(&mut first).unwrap();
        // The reader goes away with the rest unread: every later write finds the pipe closed.
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        let first = String::from_utf8_lossy(&first);
        assert!(
            first.starts_with(if json { "{" } else { "label" }),
            "json {json}: {first}"
        );
        assert_eq!(
            status.code(),
            Some(1),
            "json {json}: REJECT; stderr: {stderr}"
        );
        assert!(stderr.is_empty(), "json {json}: nothing said: {stderr}");
    }
}

/// A parent that closed kcamp's stdout (`kcamp gate A B >&-`): the stream is /dev/null, so
/// nothing kcamp opens takes its place, the output goes nowhere without a word, and the
/// verdict's code stands.
#[cfg(unix)]
#[test]
fn a_closed_stdout_is_dev_null_and_the_verdict_code_stands() {
    let dir = tempfile::tempdir().unwrap();
    let (base, cand) = write_large_pair(dir.path());
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" gate "$1" "$2" >&-"#)
        .arg(assert_cmd::cargo::cargo_bin("kcamp"))
        .arg(&base)
        .arg(&cand)
        .current_dir(dir.path())
        .env_remove("KCAMP_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "REJECT; stderr: {stderr}");
    assert!(stderr.is_empty(), "nothing said: {stderr}");
}

/// The golden corpus (tests/fixtures/golden/): pairs of CSVs (and campaigns) with the exit
/// code, stdout and stderr each command gave, byte for byte, when recorded. A case's
/// `expected.json` names the directory its commands run in (relative to the case) and each
/// run's arguments; a run that answered as an earlier one of its case did names it
/// (`same_as`) instead of repeating its bytes. A case with `copy` runs each command in a
/// fresh copy of that directory (commands that write into their campaign).
mod golden {
    use std::path::Path;

    use serde_json::Value;

    /// The first line where two texts differ, both ways, for a readable failure.
    fn first_difference(want: &str, got: &str) -> String {
        let (mut w, mut g) = (want.lines(), got.lines());
        for line in 1.. {
            match (w.next(), g.next()) {
                (Some(a), Some(b)) if a == b => continue,
                (None, None) => return "they differ only in line endings".to_owned(),
                (a, b) => return format!("line {line}: recorded {a:?}, now {b:?}"),
            }
        }
        unreachable!()
    }

    /// A JSON report without its `reason_details` (added after the corpus was recorded: each
    /// reason's kind, shapes and numbers), after checking that they carry the same sentences
    /// as `reasons`; any other output unchanged. Everything else must match byte for byte.
    fn without_reason_details(stdout: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(stdout);
        let Some(start) = text.find("\n  \"reason_details\": [") else {
            return stdout.to_vec();
        };
        let end = start + text[start..].find("\n  ],").expect("the array ends") + "\n  ],".len();
        let doc: Value = serde_json::from_str(&text).expect("a JSON report");
        let texts: Vec<&Value> = doc["reason_details"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert!(r["kind"].is_string(), "every reason has a kind: {r}");
                &r["text"]
            })
            .collect();
        let reasons: Vec<&Value> = doc["reasons"].as_array().unwrap().iter().collect();
        assert_eq!(
            texts, reasons,
            "reason_details carry the reasons' sentences"
        );
        format!("{}{}", &text[..start], &text[end..]).into_bytes()
    }

    /// `from`'s tree copied into `to`.
    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    #[test]
    fn every_recorded_command_answers_as_recorded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
        let mut cases: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        assert!(
            cases.len() >= 25,
            "{} cases in {}",
            cases.len(),
            root.display()
        );
        let mut failures = Vec::new();
        let mut runs_checked = 0;
        for case in &cases {
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
                    .unwrap();
            let cwd = case.join(expected["cwd"].as_str().unwrap());
            let runs = expected["runs"].as_array().unwrap();
            for run in runs {
                let args: Vec<&str> = run["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap())
                    .collect();
                let want = match run.get("same_as") {
                    Some(i) => &runs[i.as_u64().unwrap() as usize],
                    None => run,
                };
                let scratch = tempfile::tempdir().unwrap();
                let dir = if expected["copy"] == true {
                    copy_tree(&cwd, &scratch.path().join("c"));
                    scratch.path().join("c")
                } else {
                    cwd.clone()
                };
                let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcamp"));
                cmd.args(&args)
                    .current_dir(&dir)
                    .env("GIT_DIR", "/nonexistent");
                for (name, _) in std::env::vars_os() {
                    if name.to_string_lossy().starts_with("KCAMP_") {
                        cmd.env_remove(name);
                    }
                }
                let out = cmd.env_remove("TEST_TIMEOUT_SEC").output().unwrap();
                runs_checked += 1;
                let name = case.file_name().unwrap().to_string_lossy();
                let code = out.status.code().map(i64::from);
                if code != want["exit"].as_i64() {
                    failures.push(format!(
                        "{name}: kcamp {args:?}: exit {code:?}, recorded {}",
                        want["exit"]
                    ));
                }
                let stdout = without_reason_details(&out.stdout);
                for (stream, got) in [("stdout", &stdout), ("stderr", &out.stderr)] {
                    let recorded = want[stream].as_str().unwrap();
                    if got.as_slice() != recorded.as_bytes() {
                        failures.push(format!(
                            "{name}: kcamp {args:?}: {stream} differs, {}",
                            first_difference(recorded, &String::from_utf8_lossy(got))
                        ));
                    }
                }
            }
        }
        assert!(runs_checked > 100, "{runs_checked} runs");
        assert!(
            failures.is_empty(),
            "{} of {runs_checked} runs differ from the record:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
