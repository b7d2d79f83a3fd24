//! Like-for-like verdicts through the real binary, without a GPU: a harness campaign that
//! re-measures the incumbent with its own harness (and never the built-in runner), a
//! campaign of imported CSVs that asks for `--csv` where it would otherwise measure, the
//! gated final acceptance of `kcamp report`, plausibility of imported rows, and
//! fingerprints compared by `kcamp gate`.

use crate::common::refusal;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::common;
use common::{fixture, run};

fn reasons(v: &Value) -> String {
    v["reasons"].to_string()
}

/// A GEMM campaign over the fixture shapes, git off.
fn campaign() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes = fixture("campaign/shapes.yaml");
    run(
        tmp.path(),
        &[
            "init",
            dir.to_str().unwrap(),
            "--shapes",
            shapes.to_str().unwrap(),
        ],
        0,
    );
    edit_manifest(&dir, |m| m.replace("git_commit: true", "git_commit: false"));
    (tmp, dir)
}

fn edit_manifest(dir: &Path, f: impl FnOnce(String) -> String) {
    let path = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, f(text)).unwrap();
}

/// Every file under `dir` named `name`.
fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            found.extend(files_named(&p, name));
        } else if p.file_name().is_some_and(|n| n == name) {
            found.push(p);
        }
    }
    found
}

/// A campaign measured by `tests/fixtures/verdicts/harness.sh`, which logs every call.
fn harness_campaign(command_kernel_dir: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    harness_campaign_reading(command_kernel_dir, |_| fixture("campaign"))
}

/// [`harness_campaign`] whose harness reads its numbers from the folder `numbers` makes
/// (given the campaign's temporary folder).
fn harness_campaign_reading(
    command_kernel_dir: &str,
    numbers: impl FnOnce(&Path) -> PathBuf,
) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (tmp, dir) = campaign();
    let log = tmp.path().join("harness.log");
    std::fs::copy(fixture("verdicts/harness.sh"), dir.join("harness.sh")).unwrap();
    std::fs::write(dir.join("kernel/numbers"), "baseline.csv").unwrap();
    let fixtures = numbers(tmp.path());
    edit_manifest(&dir, |m| {
        format!(
            "{m}quick_command: \"sh harness.sh {{csv}} {command_kernel_dir} '{}' '{}'\"\nharness_files: [harness.sh]\n# The fixture harness knows only the target shapes.\nheld_out: none\n",
            log.display(),
            fixtures.display()
        )
    });
    (tmp, dir, log)
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_harness_campaign_remeasures_the_incumbent_with_its_harness_and_never_the_builtin_runner() {
    let (_tmp, dir, log) = harness_campaign("{kernel_dir}");
    run(&dir, &["baseline"], 0);
    let kernel = std::path::absolute(dir.join("kernel")).unwrap();
    let round1 = std::path::absolute(dir.join("rounds/round-1/kernel")).unwrap();
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with(&format!("validation=full kernel_dir={}", kernel.display())));

    run(&dir, &["round", "new", "--hypothesis", "better"], 0);
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    let v = run(&dir, &["validate"], 0);
    assert_eq!(v["report"]["verdict"], "ACCEPT", "{v}");
    assert_eq!(v["like_for_like"]["pairing"]["kind"], "interleaved", "{v}");
    assert_eq!(
        v["like_for_like"]["candidate"]["harness"]["kind"],
        "command"
    );
    assert!(
        v["report"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("its samples alternating with the candidate's (A B B A)"),
        "{v}"
    );
    // The incumbent column is this run's re-measurement of round 1's snapshot: six pairs
    // A B B A, then the check run of the untimed shapes.
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 14, "{lines:?}");
    let env_of = |l: &str| {
        l.split(" env=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned()
    };
    assert!(
        lines[1].contains(&format!("kernel_dir={}", round1.display())),
        "{lines:?}"
    );
    assert_eq!(env_of(&lines[1]), round1.display().to_string());
    assert!(
        lines[2].contains(&format!("kernel_dir={}", kernel.display())),
        "{lines:?}"
    );
    assert!(lines[3].contains(&format!("kernel_dir={}", kernel.display())));
    assert!(lines[4].contains(&format!("kernel_dir={}", round1.display())));
    assert!(lines[1].starts_with("validation=quick"));
    assert!(lines[13].starts_with(&format!("validation=check kernel_dir={}", kernel.display())));
    assert!(dir.join("rounds/round-2/artifacts/paired.csv").is_file());

    run(&dir, &["accept"], 0);
    let r = run(&dir, &["report"], 0);
    assert_eq!(r["verdict"], "ACCEPT", "{r}");
    assert_eq!(r["like_for_like"]["pairing"]["kind"], "interleaved");
    assert_eq!(r["shapes"].as_array().unwrap().len(), 7);
    let lines = log_lines(&log);
    assert_eq!(
        lines.len(),
        26,
        "the final validation ran the harness six pairs: {lines:?}"
    );
    assert!(lines[14].starts_with(&format!("validation=full kernel_dir={}", round1.display())));
    assert!(lines[15].starts_with(&format!("validation=full kernel_dir={}", kernel.display())));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("**Final acceptance: ACCEPT**"), "{md}");

    // The built-in runner never ran: it writes result.json and live progress.
    assert_eq!(files_named(&dir, "result.json"), Vec::<PathBuf>::new());
    assert!(!dir.join("live/progress.json").exists());
}

/// A `Forward TFLOPS` value of the JSON, in GFLOP/s.
fn gflops(v: &Value) -> f64 {
    v.as_f64().unwrap() * 1e3
}

#[test]
fn the_report_compares_what_its_verdict_compares_the_baseline_re_measured_in_the_same_run() {
    // The harness reads its numbers from a copy of the fixtures, so the machine can drift
    // without a decided round's snapshot changing.
    let numbers = std::cell::RefCell::new(PathBuf::new());
    let (_tmp, dir, _log) = harness_campaign_reading("{kernel_dir}", |tmp| {
        let copy = tmp.join("numbers");
        std::fs::create_dir_all(&copy).unwrap();
        for name in ["baseline.csv", "better.csv", "gain3.csv"] {
            std::fs::copy(fixture(&format!("campaign/{name}")), copy.join(name)).unwrap();
        }
        *numbers.borrow_mut() = copy.clone();
        copy
    });
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "better"], 0);
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    run(&dir, &["validate"], 0);
    run(&dir, &["accept"], 0);
    // A drifting machine: re-measured in the final validation's run, the BASELINE's kernel
    // reads 3% faster than round 1 recorded (+12% recorded, +8.74% against this run).
    let numbers = numbers.into_inner();
    std::fs::copy(numbers.join("gain3.csv"), numbers.join("baseline.csv")).unwrap();
    let r = run(&dir, &["report"], 0);
    assert_eq!(r["like_for_like"]["pairing"]["kind"], "interleaved", "{r}");
    assert_eq!(r["baseline_basis"]["kind"], "same_run", "{r}");
    assert_eq!(
        r["baseline_basis"]["file"], "report/final/paired.csv",
        "{r}"
    );
    // The headline's baseline is the verdict's: the same geomean, the same gain.
    let (base, verdict_base) = (
        gflops(&r["baseline_aggregate"]),
        gflops(&r["aggregate"]["incumbent"]),
    );
    assert!((base - verdict_base).abs() < 1e-9, "{r}");
    let gain = r["gain"].as_f64().unwrap();
    let delta = r["aggregate"]["delta"].as_f64().unwrap();
    assert!(
        (gain - delta).abs() < 1e-9 && (gain - 0.0874).abs() < 5e-4,
        "{r}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("(**+8.74%**)"), "{md}");
    // Round 1's recorded numbers appear in the lineage only (round 2's gate said +12.0%).
    let (compared, lineage) = md.split_once("## Lineage").unwrap();
    assert!(!compared.contains("+12.0%"), "{md}");
    assert!(lineage.contains("+12.0% vs r1"), "{md}");
    assert!(
        md.contains("Compared: baseline = round 1's kernel re-measured in this run (in the same cases, its samples alternating with the incumbent's; `report/final/paired.csv`)"),
        "{md}"
    );
    // Per shape: gain3.csv's 2.16 GFLOP/s for s64, not round 1's recorded 2.10; its spread
    // is the one over the harness's six invocations, which all read the same file.
    assert!(
        md.contains(
            "| s64 | 1×64×64×64 | 2.16 GFLOP/s ± 0 FLOP/s | 2.35 GFLOP/s ± 0 FLOP/s | 1.09× |"
        ),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.join("report/speedup.svg")).unwrap();
    // The chart draws the table's speedups and names their baseline.
    assert!(
        svg.contains("shape (baseline: round 1&apos;s kernel re-measured in this run)"),
        "{svg}"
    );
    // The CLI's line says the same.
    let out = common::kcamp(&dir).arg("report").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("vs BASELINE 13.")
            && text.contains("(+8.74%) over 7 shapes")
            && text.contains("BASELINE = round 1's kernel re-measured in this run"),
        "{text}"
    );
    // While that final validation stands, `--no-run` shows it and writes nothing.
    let md_before = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let r = run(&dir, &["report", "--no-run"], 0);
    assert_eq!(
        (&r["unchanged"], &r["final_validation"]),
        (&json!(true), &json!(true)),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        md_before
    );
    // Without a final validation, the report compares round 1's recorded numbers and says so.
    std::fs::remove_file(dir.join("report/acceptance.json")).unwrap();
    let r = run(&dir, &["report", "--no-run"], 0);
    assert_eq!(r["baseline_basis"]["kind"], "recorded", "{r}");
    assert!((r["gain"].as_f64().unwrap() - 0.12).abs() < 5e-4, "{r}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("Compared: baseline = round 1's recorded numbers (its BASELINE measurement), not re-measured in this run (--no-run: round 2's recorded numbers, no final validation)"),
        "{md}"
    );
    assert!(md.contains("| s64 | 1×64×64×64 | 2.10 GFLOP/s"), "{md}");
}

#[test]
fn a_report_on_the_baseline_alone_says_why_it_compares_recorded_numbers() {
    let (_tmp, dir, _log) = harness_campaign("{kernel_dir}");
    run(&dir, &["baseline"], 0);
    // No round accepted: nothing to pair with, and the reason is not `gate.paired` (it is on).
    let r = run(&dir, &["report"], 1);
    let why =
        "the incumbent is the BASELINE itself: there is no other kernel to re-measure beside it";
    assert!(reasons(&r).contains(&format!("unpaired ({why})")), "{r}");
    assert!(!reasons(&r).contains("gate.paired is false"), "{r}");
    assert_eq!(r["baseline_basis"]["kind"], "recorded", "{r}");
    assert_eq!(r["baseline_basis"]["why"], why, "{r}");
}

#[test]
fn an_edited_harness_is_a_different_harness_when_judged_unpaired() {
    let (_tmp, dir, _log) = harness_campaign("{kernel_dir}");
    edit_manifest(&dir, |m| m.replace("  paired: true", "  paired: false"));
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "better"], 0);
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    let harness = dir.join("harness.sh");
    let text = std::fs::read_to_string(&harness).unwrap();
    std::fs::write(&harness, format!("{text}# tuned the timing loop\n")).unwrap();
    let v = run(&dir, &["validate"], 1);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    let first = v["report"]["reasons"][0].as_str().unwrap();
    assert!(
        first.starts_with("not like for like: round 1 was measured as")
            && first.contains("harness command `sh harness.sh")
            && first.contains("harness.sh sha256 "),
        "{first}"
    );
    let diffs = &v["like_for_like"]["differences"];
    assert_eq!(diffs.as_array().unwrap().len(), 1, "{diffs}");
    assert_eq!(diffs[0]["field"], "harness");
}

#[test]
fn a_harness_that_takes_no_kernel_dir_is_judged_unpaired_and_the_verdict_says_so() {
    let (_tmp, dir, log) = harness_campaign("kernel");
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "better"], 0);
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    let v = run(&dir, &["validate"], 0);
    assert_eq!(v["like_for_like"]["pairing"]["kind"], "unpaired", "{v}");
    let first = v["report"]["reasons"][0].as_str().unwrap();
    assert!(
        first.starts_with("unpaired (the harness command `sh harness.sh {csv} kernel")
            && first.contains("takes no kernel directory")
            && first.contains("drift between the two runs is not in the band"),
        "{first}"
    );
    assert_eq!(
        log_lines(&log).len(),
        3,
        "one call for baseline, and for validate one timed and one check run"
    );
}

#[test]
fn a_noisy_unchanged_harness_judged_unpaired_is_never_accepted_nor_a_regression() {
    // A harness that cannot take a kernel directory, on a noisy machine: the same kernel
    // reads up to 6% faster or slower run to run, each run's samples spread by 4%. Judged
    // against the BASELINE's numbers from another run, the aggregate of every re-validation
    // must clear a band made of the shapes' spreads (2 × 5.66%, the shapes of one run moving
    // together): none is a gain, and none is a regression.
    let factors = [1.05, 0.96, 1.03, 1.06, 0.97];
    let (_tmp, dir, _log) = harness_campaign_reading("kernel", |tmp| {
        let numbers = tmp.join("numbers");
        std::fs::create_dir(&numbers).unwrap();
        let baseline = fixture("campaign/baseline.csv");
        common::spread_csv(&baseline, &numbers.join("baseline.csv"), 1.0, 0.04, None);
        for (i, f) in factors.iter().enumerate() {
            let out = numbers.join(format!("run{i}.csv"));
            common::spread_csv(&baseline, &out, *f, 0.04, None);
        }
        numbers
    });
    edit_manifest(&dir, |m| format!("{m}target_gpu: m2\n"));
    run(&dir, &["baseline"], 0);
    for (i, f) in factors.iter().enumerate() {
        run(&dir, &["round", "new", "--hypothesis", "unchanged"], 0);
        std::fs::write(dir.join("kernel/numbers"), format!("run{i}.csv")).unwrap();
        let v = run(&dir, &["validate"], 1);
        let report = &v["report"];
        assert_eq!(v["like_for_like"]["pairing"]["kind"], "unpaired", "{v}");
        assert_eq!(report["verdict"], "REJECT", "{f}: {v}");
        assert!(
            report["shapes"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["class"] == "neutral" && s["hard_regression"] == false),
            "{f}: {v}"
        );
        let delta = report["aggregate"]["delta"].as_f64().unwrap();
        assert!((delta - (f - 1.0)).abs() < 1e-9, "{f}: {v}");
        if delta > 0.0 {
            assert!(
                reasons(report).contains("no gain distinguishable from noise")
                    && reasons(report).contains("does not clear its band ±11.3%"),
                "{f}: {v}"
            );
        }
        run(&dir, &["rollback", "--reason", "unchanged"], 0);
    }
}

/// A campaign whose BASELINE was imported from the fixture CSV, its rows held to the cited
/// peaks of an Apple M2 (`target_gpu`).
fn imported() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = campaign();
    edit_manifest(&dir, |m| format!("{m}target_gpu: m2\n"));
    let csv = fixture("campaign/baseline.csv");
    run(&dir, &["baseline", "--csv", csv.to_str().unwrap()], 0);
    (tmp, dir)
}

#[test]
fn an_imported_campaign_never_falls_back_to_the_builtin_runner() {
    let (_tmp, dir) = imported();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    for args in [vec!["validate"], vec!["validate", "--full"], vec!["run"]] {
        let e = run(&dir, &args, 2);
        let msg = refusal(&e);
        assert!(
            msg.contains("imported CSVs") && msg.contains("--csv FILE"),
            "{args:?}: {msg}"
        );
    }
    assert_eq!(files_named(&dir, "result.json"), Vec::<PathBuf>::new());
    run(&dir, &["rollback", "--reason", "nothing measured"], 0);
    let e = run(&dir, &["report"], 2);
    assert!(refusal(&e).contains("kcamp report --csv"), "{e}");
}

#[test]
fn report_gates_the_final_acceptance_and_its_verdict_leads() {
    let (_tmp, dir) = imported();
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let better = fixture("campaign/better.csv");
    run(
        &dir,
        &["validate", "--full", "--csv", better.to_str().unwrap()],
        0,
    );
    run(&dir, &["accept"], 0);
    // The final full validation fails a shape; the report must not say "+x%, ok".
    let fail = fixture("campaign/fail.csv");
    let r = run(&dir, &["report", "--csv", fail.to_str().unwrap()], 1);
    assert_eq!(r["verdict"], "REJECT", "{r}");
    assert!(reasons(&r).contains("not PASS in the candidate"), "{r}");
    let failed: Vec<&Value> = r["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["class"] == "failed")
        .collect();
    assert!(!failed.is_empty(), "{r}");
    assert_eq!(r["final_validation"], true);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.starts_with(
            "# Campaign report: camp\n\n**Final acceptance: REJECT** (round 2 against the BASELINE)"
        ),
        "{md}"
    );
    let acceptance: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report/acceptance.json")).unwrap())
            .unwrap();
    assert_eq!(acceptance["report"]["verdict"], "REJECT");
    // The text output leads with the verdict too.
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .args(["-C", dir.to_str().unwrap(), "report", "--csv"])
        .arg(&better)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with(
            "final acceptance of round 2 against the BASELINE (final full validation): verdict: ACCEPT"
        ),
        "{text}"
    );
    // The final validation stands: `--no-run` shows it.
    let r = run(&dir, &["report", "--no-run"], 0);
    assert_eq!(r["verdict"], "ACCEPT", "{r}");
    assert_eq!(r["final_validation"], true);
    assert_eq!(r["unchanged"], true);
    // Recorded numbers only, once there is no final validation.
    std::fs::remove_file(dir.join("report/acceptance.json")).unwrap();
    let r = run(&dir, &["report", "--no-run"], 0);
    assert_eq!(r["verdict"], "ACCEPT", "{r}");
    assert_eq!(r["final_validation"], false);
}

/// `better.csv` with one shape claiming `tflops` forward.
fn with_claim(tmp: &Path, label: &str, tflops: f64) -> PathBuf {
    let text = std::fs::read_to_string(fixture("campaign/better.csv")).unwrap();
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with(&format!("{label},")) {
                let mut cells: Vec<String> = l.split(',').map(str::to_owned).collect();
                cells[6] = tflops.to_string();
                cells.join(",")
            } else {
                l.to_owned()
            }
        })
        .collect();
    let p = tmp.join(format!("claim-{label}.csv"));
    std::fs::write(&p, out.join("\n") + "\n").unwrap();
    p
}

#[test]
fn an_imported_row_faster_than_the_target_is_error_naming_floor_peak_and_source() {
    let (tmp, dir) = campaign();
    edit_manifest(&dir, |m| format!("{m}target_gpu: m2\n"));
    let csv = fixture("campaign/baseline.csv");
    run(&dir, &["baseline", "--csv", csv.to_str().unwrap()], 0);
    run(&dir, &["round", "new", "--hypothesis", "cached result"], 0);
    // A harness that caches its result: 52 TFLOP/s for s512 where the target's peak is 3.6.
    let claim = with_claim(tmp.path(), "s512", 52.0);
    let v = run(
        &dir,
        &["validate", "--full", "--csv", claim.to_str().unwrap()],
        1,
    );
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let s512 = v["report"]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "s512")
        .unwrap()
        .clone();
    assert_eq!(s512["check"], "ERROR", "{s512}");
    let all = v["report"]["reasons"].to_string();
    assert!(
        all.contains("s512 is ERROR: impossible: Forward TFLOPS 52")
            && all.contains("3.60 TFLOP/s (f32) [apple-m2-newsroom]"),
        "{all}"
    );
    // The stored CSV says ERROR too, so later rounds never judge against it.
    let stored =
        std::fs::read_to_string(dir.join("rounds/round-2/artifacts/benchmark.csv")).unwrap();
    assert!(stored.contains("s512,1,512,512,512,ERROR"), "{stored}");
}

#[test]
fn a_harness_with_no_target_is_held_to_this_machine_when_it_has_no_gpu() {
    // The harness reports 52 TFLOP/s for s512; the manifest names no target_gpu and
    // the campaign has no measured peaks.
    let (_tmp, dir, _log) = harness_campaign_reading("{kernel_dir}", |tmp| {
        let numbers = tmp.join("numbers");
        std::fs::create_dir(&numbers).unwrap();
        std::fs::copy(
            fixture("campaign/baseline.csv"),
            numbers.join("baseline.csv"),
        )
        .unwrap();
        std::fs::copy(with_claim(tmp, "s512", 52.0), numbers.join("claim.csv")).unwrap();
        numbers
    });
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "cached result"], 0);
    std::fs::write(dir.join("kernel/numbers"), "claim.csv").unwrap();
    let host = kcamp_core::host::Host::detect();
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .args(["-C", dir.to_str().unwrap(), "validate", "--full", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v["report"]["reasons"].to_string();
    if !host.has_gpu() {
        // Only the CPUs can have computed this: 52 TFLOP/s is orders of magnitude past them.
        assert_eq!(out.status.code(), Some(1), "{v}");
        assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
        assert!(
            all.contains("s512 is ERROR: impossible: Forward TFLOPS 52")
                && all.contains("logical CPUs × 6.5 GHz")
                && all.contains("[host-cpu-bound]"),
            "{all}"
        );
        assert!(all.contains("rows held to this machine's CPUs"), "{all}");
        // The list of failing shapes gives the same reason, not "no reason recorded".
        let failure = &v["failures"][0];
        assert_eq!(failure["label"], "s512", "{v}");
        assert!(
            failure["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("impossible: Forward TFLOPS 52")),
            "{v}"
        );
    } else {
        // A GPU kcamp cannot name for the harness: nothing to bound it by, and it says so.
        assert!(
            all.contains("this machine has a GPU kcamp cannot identify"),
            "{all}"
        );
    }
}

#[test]
fn an_import_no_floor_holds_cannot_be_accepted_until_the_target_is_named() {
    // No measured peaks and no target_gpu: nothing says 52 TFLOP/s on a 256³ GEMM is
    // possible, so the "gain" (+1,600x on s256) is not accepted, and the first reason says
    // what to name.
    let (tmp, dir) = campaign();
    let csv = fixture("campaign/baseline.csv");
    run(&dir, &["baseline", "--csv", csv.to_str().unwrap()], 0);
    run(&dir, &["round", "new", "--hypothesis", "h"], 0);
    let claim = with_claim(tmp.path(), "s256", 52.0);
    let validate = ["validate", "--full", "--csv", claim.to_str().unwrap()];
    let v = run(&dir, &validate, 1);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    let first = &v["report"]["reason_details"][0];
    assert_eq!(first["kind"], "comparison", "{v}");
    let text = first["text"].as_str().unwrap();
    assert!(
        text.starts_with("name the target: these rows are held to no roofline floor")
            && text.contains("no target_gpu in manifest.yaml")
            && text.contains("an imported CSV may come from any machine")
            && text.contains("h200"),
        "{text}"
    );
    let e = run(&dir, &["accept"], 2);
    let refusal = refusal(&e);
    assert!(
        refusal.contains("the gate says NEEDS_REMEASURE")
            && refusal.contains("next: name the GPU the rows come from (target_gpu"),
        "{e}"
    );
    // Measured again as it is, it is no re-measurement of a gain either.
    let v = run(&dir, &validate, 1);
    assert_eq!(v["report"]["verdict"], "NEEDS_REMEASURE", "{v}");
    assert!(
        !v["report"]["reason_details"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "remeasure"),
        "{v}"
    );
    assert!(v["next"][0].as_str().unwrap().contains("target_gpu"), "{v}");
    // `kcamp peak` on this CPU measured 0.15 TFLOP/s: 52 is impossible.
    std::fs::write(
        dir.join("peaks.json"),
        r#"{"adapters": {"llvmpipe (LLVM 15.0.6, 256 bits) | llvmpipe": {
            "source": "measured:llvmpipe (LLVM 15.0.6, 256 bits):2026-12-01",
            "adapter": "llvmpipe (LLVM 15.0.6, 256 bits)", "driver": "llvmpipe",
            "measured_at": "2026-12-01T00:00:00Z", "flops": {"f32": 1.5e11}, "bandwidth": 9.6e9}}}"#,
    )
    .unwrap();
    let v = run(&dir, &validate, 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let all = v["report"]["reasons"].to_string();
    assert!(
        all.contains("s256 is ERROR") && all.contains("measured:llvmpipe"),
        "{all}"
    );
}

#[test]
fn kcamp_gate_asks_for_a_remeasure_when_the_fingerprints_differ() {
    let tmp = tempfile::tempdir().unwrap();
    let fp = |backend: &str| {
        format!(
            r#"{{"adapter": {{"name": "llvmpipe (LLVM 15.0.6, 256 bits)", "backend": "{backend}", "driver": "llvmpipe", "driver_info": "Mesa 22.3.6", "vendor": 65541, "device": 0, "software": true}},
               "runtime_checks": "bounds_checks", "timing_method": "gpu_timestamps", "kcamp_version": "0.1.0", "harness": {{"kind": "builtin"}}}}"#
        )
    };
    for (side, backend, csv) in [("a", "vulkan", "baseline.csv"), ("b", "gl", "better.csv")] {
        let d = tmp.path().join(side);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(fixture("campaign").join(csv), d.join("benchmark.csv")).unwrap();
        std::fs::write(d.join("fingerprint.json"), fp(backend)).unwrap();
    }
    let (a, b) = (
        tmp.path().join("a/benchmark.csv"),
        tmp.path().join("b/benchmark.csv"),
    );
    let args = ["gate", a.to_str().unwrap(), b.to_str().unwrap()];
    let v = run(tmp.path(), &args, 1);
    assert_eq!(v["verdict"], "NEEDS_REMEASURE", "{v}");
    assert!(
        v["reasons"][0]
            .as_str()
            .unwrap()
            .contains("they differ in backend vulkan → gl"),
        "{v}"
    );
    // Alike: judged as usual (+12%).
    std::fs::write(tmp.path().join("b/fingerprint.json"), fp("vulkan")).unwrap();
    let v = run(tmp.path(), &args, 0);
    assert_eq!(v["verdict"], "ACCEPT", "{v}");
}
