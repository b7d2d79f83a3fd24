//! The campaign loop on real WGSL kernels through wgpu (the software adapter in CI): a
//! BASELINE measured by the built-in runner, a case past the timeout, and a kernel that
//! does not compile. Each must leave the campaign usable.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;

fn kcamp(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("kcamp").unwrap();
    cmd.arg("--json")
        .arg("-C")
        .arg(dir)
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
        )
        // The user's own peak store (`kcamp peak` outside a campaign writes there) is not the
        // test's: with lavapipe's peaks in it, BASELINE would not measure them.
        .env(
            "XDG_DATA_HOME",
            dir.parent().unwrap_or(dir).join("xdg-data"),
        )
        .env_remove("KCAMP_FAILPOINT");
    cmd
}

fn run(dir: &Path, args: &[&str], code: i32, timeout_sec: Option<&str>) -> Value {
    let mut cmd = kcamp(dir);
    cmd.args(args);
    match timeout_sec {
        Some(t) => cmd.env("TEST_TIMEOUT_SEC", t),
        None => cmd.env_remove("TEST_TIMEOUT_SEC"),
    };
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "kcamp {args:?}: stdout {stdout}\nstderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A GEMM campaign with `shapes` and short timing.
fn campaign(shapes: &str) -> (tempfile::TempDir, PathBuf) {
    common::gemm_campaign(shapes)
}

fn rows(dir: &Path, round: u32) -> Vec<Vec<String>> {
    let csv =
        std::fs::read_to_string(dir.join(format!("rounds/round-{round}/artifacts/benchmark.csv")))
            .unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        kcamp_core::schema::GEMM_HEADER,
        "the frozen GEMM header"
    );
    lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

#[test]
fn baseline_measures_real_kernels_and_records_everything() {
    let (_tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: r24x40x8, M: 24, N: 40, K: 8}\n- {label: b2s32, B: 2, M: 32, N: 32, K: 32}\n",
    );
    let b = run(&dir, &["baseline"], 0, None);
    assert_eq!(b["passed"], 3, "{b}");
    for row in rows(&dir, 1) {
        assert_eq!(row[5], "PASS", "{row:?}");
        let tflops: f64 = row[6].parse().unwrap();
        assert!(tflops > 0.0 && tflops.is_finite(), "{row:?}");
        let out_snr: f64 = row[12].parse().unwrap();
        assert!(
            out_snr > 100.0,
            "f32 GEMM against the f64 reference: {row:?}"
        );
    }
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-1/artifacts/result.json")).unwrap(),
    )
    .unwrap();
    assert!(
        result["adapter"]["name"]
            .as_str()
            .is_some_and(|n| !n.is_empty()),
        "{result}"
    );
    assert!(
        result["kernel_sha256"]
            .as_str()
            .is_some_and(|h| h.len() == 64)
    );
    assert_eq!(result["trusted"], false);
    let samples =
        std::fs::read_to_string(dir.join("rounds/round-1/artifacts/samples.csv")).unwrap();
    assert!(
        samples
            .lines()
            .filter(|l| l.starts_with("s16,Forward TFLOPS,"))
            .count()
            == 3,
        "{samples}"
    );
    let v0: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("memory/v0.json")).unwrap())
            .unwrap();
    assert_eq!(v0["correctness"]["status"], "PASS");
    assert!(v0["correctness"]["rel_err"].as_f64().unwrap() < 1e-4);
    assert!(v0["performance"]["latency_us"].as_f64().unwrap() > 0.0);
    // No peaks were stored or cited for the software adapter: BASELINE measured them
    // first, so utilization is known from round 1 on.
    assert!(dir.join("peaks.json").is_file());
    assert!(
        v0["performance"]["tflops_peak_utilization_pct"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let report = std::fs::read_to_string(dir.join("baseline_report.md")).unwrap();
    assert!(report.contains("Measured peaks (`kcamp peak`)"), "{report}");
    let s16 = report
        .lines()
        .find(|l| l.starts_with("| s16 | ") && l.contains("FLOP/B"))
        .unwrap_or_else(|| panic!("no performance row for s16: {report}"));
    // time, FLOP/s, B/s, intensity, bound, % of both peaks, headroom: no cell unknown.
    assert!(!s16.contains(" - |"), "{s16}");
    assert!(s16.contains("memory") || s16.contains("compute"), "{s16}");
    assert!(
        report.contains("[PNG](report/baseline_roofline.png)"),
        "{report}"
    );
    assert!(dir.join("report/baseline_roofline.png").is_file());
    // The warm-up is described as it was done (by time and stability) and as recorded.
    let warmup = report
        .lines()
        .find(|l| l.starts_with("- warm-up: before each timed step, by time and stability"))
        .unwrap_or_else(|| panic!("no warm-up line: {report}"));
    let recorded = result["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["warmup"].as_array().unwrap().len())
        .sum::<usize>();
    assert!(
        warmup.contains("on a software adapter")
            && warmup.contains(&format!(
                "as recorded in result.json: {recorded} warm-up(s)"
            )),
        "{warmup}"
    );
    assert!(!report.contains("warm-up dispatches"), "{report}");
    // `kcamp run --json`: exactly one JSON document on stdout.
    let r = run(&dir, &["run", "--shapes", "quick"], 0, None);
    assert_eq!(r["summary"]["all_pass"], true, "{r}");
    // ANALYZE: the incumbent on the roofline, naga's metrics, stored as evidence.
    let a = run(&dir, &["analyze"], 0, None);
    let e = &a["profile_evidence"];
    assert_eq!(e["static_metrics"]["entry_point"], "main", "{e}");
    assert!(e["shapes"][0]["headroom"].as_f64().unwrap() > 1.0, "{e}");
    assert!(!e["findings"].as_array().unwrap().is_empty(), "{e}");
    let v0: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("memory/v0.json")).unwrap())
            .unwrap();
    assert_eq!(v0["profile_evidence"]["round"], 1);
}

/// A case that runs past the timeout is killed with its worker and recorded TIMEOUT_FAIL;
/// the next shape runs in a fresh worker. (A WGSL loop that never ends does not hang the
/// software adapter: wgpu bounds shader loops, so such a loop returns. The stand-in is a
/// naive GEMM far too large for the software adapter to finish inside the limit.)
#[test]
fn a_case_past_the_timeout_is_killed_and_the_other_shapes_go_on() {
    let (_tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: slow1536, M: 1536, N: 1536, K: 1536}\n- {label: s32, M: 32, N: 32, K: 32}\n",
    );
    let started = std::time::Instant::now();
    // Recorded with the TIMEOUT_FAIL, and exit 1: a shape of the BASELINE did not PASS. The
    // limit leaves the small cases room on a loaded machine; the 1536³ one needs many times
    // it for its warm-up alone.
    let b = run(&dir, &["baseline", "--no-peak"], 1, Some("5"));
    assert!(
        started.elapsed().as_secs() < 120,
        "the slow case was cut off"
    );
    assert_eq!(b["passed"], 2, "{b}");
    let checks: Vec<(String, String)> = rows(&dir, 1)
        .into_iter()
        .map(|r| (r[0].clone(), r[5].clone()))
        .collect();
    assert_eq!(
        checks,
        vec![
            ("s16".to_owned(), "PASS".to_owned()),
            ("slow1536".to_owned(), "TIMEOUT_FAIL".to_owned()),
            ("s32".to_owned(), "PASS".to_owned())
        ]
    );
    let result = std::fs::read_to_string(dir.join("rounds/round-1/artifacts/result.json")).unwrap();
    assert!(
        result.contains("exceeded 5 s"),
        "the reason names the timeout: {result}"
    );
    let report = std::fs::read_to_string(dir.join("baseline_report.md")).unwrap();
    assert!(report.contains("TIMEOUT_FAIL"), "{report}");
    // The timed-out shape is no representative; the campaign goes on.
    let st = run(&dir, &["status"], 0, None);
    assert!(
        !st["representative_shapes"].to_string().contains("slow1536"),
        "{st}"
    );
}

/// A campaign of s16, s32 and s48 with its BASELINE, and an open round whose kernel does not
/// compile (a `;` missing). `representative`: the one shape a quick validation times (the
/// others it checks untimed); None leaves the choice to the baseline. Also returns the
/// kernel as it was before it was broken.
fn round_that_does_not_compile(
    representative: Option<&str>,
) -> (tempfile::TempDir, PathBuf, String) {
    let (tmp, dir) = campaign(
        "- {label: s16, M: 16, N: 16, K: 16}\n- {label: s32, M: 32, N: 32, K: 32}\n- {label: s48, M: 48, N: 48, K: 48}\n",
    );
    let replace = |file: &Path, from: &str, to: &str| {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains(from), "{} holds no {from:?}", file.display());
        std::fs::write(file, text.replace(from, to)).unwrap();
    };
    if let Some(label) = representative {
        let to = format!("representative_shapes: [{label}]");
        replace(&dir.join("manifest.yaml"), "representative_shapes: []", &to);
    }
    run(&dir, &["baseline", "--no-peak"], 0, None);
    run(&dir, &["round", "new", "--hypothesis", "typo"], 0, None);
    let kernel = dir.join("kernel/gemm.wgsl");
    let working = std::fs::read_to_string(&kernel).unwrap();
    replace(&kernel, "var acc = 0.0;", "var acc = 0.0");
    (tmp, dir, working)
}

/// A quick validation times the representative shapes and checks the others untimed: a
/// shape that fails among those rejects the round too, and `log` and `status` count it.
#[test]
fn status_and_log_count_the_untimed_shapes_that_fail() {
    let (_tmp, dir, _) = round_that_does_not_compile(Some("s16"));
    let v = run(&dir, &["validate"], 1, None);
    assert_eq!(v["report"]["shapes"].as_array().unwrap().len(), 1, "{v}");
    // The validation lists every shape that fails with its reason, the untimed ones marked;
    // its reason names them without repeating each compile error.
    let failures = v["failures"].as_array().unwrap();
    let listed: Vec<(&str, bool)> = failures
        .iter()
        .map(|f| (f["label"].as_str().unwrap(), f["untimed"] == true))
        .collect();
    assert_eq!(
        listed,
        [("s16", false), ("s32", true), ("s48", true)],
        "{v}"
    );
    assert!(
        failures
            .iter()
            .all(|f| f["reason"].as_str().unwrap().contains("gemm.wgsl:")),
        "{v}"
    );
    assert_eq!(
        v["report"]["reasons"][0],
        "the 2 untimed target shapes checked by this validation do not PASS: s32 (FAIL), s48 (FAIL).",
        "{v}"
    );
    let text = |args: &[&str]| {
        let out = Command::cargo_bin("kcamp")
            .unwrap()
            .arg("-C")
            .arg(&dir)
            .args(args)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let status = text(&["status"]);
    assert!(
        status.contains("(quick validation), 3 shapes do not PASS"),
        "{status}"
    );
    let log = text(&["log"]);
    assert!(log.contains("FAIL (3 shapes)"), "{log}");
    let validate = text(&["validate"]);
    assert!(
        validate.contains("s16, s32 (untimed), s48 (untimed): FAIL: "),
        "one line for the shared reason, the untimed shapes marked: {validate}"
    );
    // Rolled back, the round's record says the compile error once, for all three shapes,
    // and that nothing was timed.
    run(&dir, &["rollback", "--reason", "typo"], 0, None);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("memory/v1.json")).unwrap())
            .unwrap();
    let message = record["pitfalls_and_fixes"][0]["error_message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("s16, s32 (untimed), s48 (untimed) (FAIL): ")
            && message.matches("expected `;`").count() == 2
            && message.contains(". Gate: "),
        "{message}"
    );
    let how = record["references"][0]["description"].as_str().unwrap();
    assert!(how.ends_with("timing none (no shape was timed)"), "{how}");
    let log = run(&dir, &["log"], 0, None);
    let failed = log["rounds"]
        .as_array()
        .and_then(|r| r.last())
        .map(|r| r["failed"].clone())
        .unwrap();
    assert_eq!(
        failed,
        serde_json::json!(["s16 FAIL", "s32 FAIL (untimed)", "s48 FAIL (untimed)"]),
        "{log}"
    );
}

#[test]
fn a_kernel_that_does_not_compile_fails_the_round_not_the_campaign() {
    let (_tmp, dir, working) = round_that_does_not_compile(None);
    let v = run(&dir, &["validate"], 1, None);
    assert_eq!(v["report"]["verdict"], "REJECT");
    // Nothing was judged on paired ratios, and the reasons do not say otherwise.
    assert_eq!(v["report"]["paired"], false, "{v}");
    let reasons = v["report"]["reasons"].to_string();
    assert!(
        !reasons.contains("come from the per-repeat ratios"),
        "{reasons}"
    );
    assert!(
        reasons.contains("so none was judged on paired ratios"),
        "{reasons}"
    );
    for s in v["report"]["shapes"].as_array().unwrap() {
        assert_eq!(s["class"], "failed", "{s}");
        assert_eq!(s["check"], "FAIL", "{s}");
    }
    let result = std::fs::read_to_string(dir.join("rounds/round-2/artifacts/result.json")).unwrap();
    assert!(
        result.contains("gemm.wgsl:"),
        "the reason names file:line:col: {result}"
    );
    // The reason is where the verdict is shown: in the JSON and in the text output.
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 3, "{v}");
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .contains("gemm.wgsl:"),
        "{v}"
    );
    assert_eq!(v["summary"]["all_pass"], false, "{v}");
    let printed = Command::cargo_bin("kcamp")
        .unwrap()
        .args(["-C", dir.to_str().unwrap(), "validate"])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(
        stdout.contains("s16, s32, s48: FAIL: ") && stdout.contains("gemm.wgsl:"),
        "one line for the shared reason: {stdout}"
    );
    assert!(stdout.contains("[kcamp] RESULT_JSON={"), "{stdout}");
    assert!(stdout.contains("next: "), "{stdout}");
    // Accepting is refused for the verdict's reasons, first of all the failed shapes; how
    // the numbers were paired is no reason and is left out.
    let refused = run(&dir, &["accept"], 2, None);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the gate says REJECT for round 2, which does not allow accepting:\n  - the 3 shapes do not PASS"
        ),
        "{message}"
    );
    assert!(!message.contains("paired:"), "{message}");
    // Its way forward does not offer a --force that would be refused too.
    assert!(!message.contains("--force"), "{message}");
    // Nor can --force make it the incumbent: nothing would be left to judge against.
    let forced = run(&dir, &["accept", "--force", "--reason", "try"], 2, None);
    let message = forced["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("no shape passes in round 2, so --force cannot make it the incumbent"),
        "{message}"
    );
    let status = run(&dir, &["status"], 0, None);
    assert_eq!(status["incumbent"]["round"], 1);
    // Status prints no reasons: its next step says where they are.
    let next = status["next"][0].as_str().unwrap();
    assert!(
        next.starts_with("fix the kernel (why each shape failed: ")
            && next.contains("rounds/round-2/artifacts/result.json"),
        "{next}"
    );
    run(&dir, &["rollback", "--reason", "does not compile"], 0, None);
    let kernel = dir.join("kernel/gemm.wgsl");
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), working);
}

#[test]
fn the_gate_in_a_campaign_that_measures_itself_suggests_measuring_not_importing() {
    // A campaign on the built-in runner judges numbers it measured itself: a CSV from
    // elsewhere, recorded with `validate --csv`, would be judged unlike (NEEDS_REMEASURE), so
    // the gate's next step is to measure the candidate kernel in a round.
    let (_tmp, dir) = campaign("- {label: s16, M: 16, N: 16, K: 16}\n");
    run(&dir, &["baseline", "--no-peak"], 0, None);
    let base = dir.join("rounds/round-1/artifacts/benchmark.csv");
    let text = std::fs::read_to_string(&base).unwrap();
    // The candidate: every rate 1.5 times the BASELINE's. Both sides' spreads are set to 1%
    // (a 16³ GEMM on a software adapter can spread wider than any gain).
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let column = |name: &str| header.split(',').position(|c| c == name).unwrap();
    let (metric, spread) = (column("Forward TFLOPS"), column("Forward TFLOPS_stddev"));
    let (mut steady, mut faster) = (format!("{header}\n"), format!("{header}\n"));
    for line in lines {
        for (factor, out) in [(1.0, &mut steady), (1.5, &mut faster)] {
            let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
            let v: f64 = cells[metric].parse::<f64>().unwrap() * factor;
            cells[metric] = v.to_string();
            cells[spread] = (v * 0.01).to_string();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    let base = dir.parent().unwrap().join("steady.csv");
    std::fs::write(&base, steady).unwrap();
    let cand = dir.parent().unwrap().join("faster.csv");
    std::fs::write(&cand, faster).unwrap();
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .arg("-C")
        .arg(&dir)
        .arg("gate")
        .arg(&base)
        .arg(&cand)
        .args(["--metric", "Forward TFLOPS"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let next = stdout.lines().last().unwrap_or_default();
    let k = format!("kcamp -C {}", dir.display());
    assert!(
        next.starts_with(&format!(
            "next: {k} round new --hypothesis TEXT, then {k} validate   (with the candidate kernel in kernel/"
        )),
        "{stdout}"
    );
    assert!(!next.contains("--csv"), "{stdout}");
}

#[test]
fn a_coop_probe_is_refused_where_it_cannot_run_and_nothing_is_stored() {
    let (_tmp, dir) = campaign("- {label: s16, M: 16, N: 16, K: 16}\n");
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    // A missing probe is bad input, found before any measurement.
    let missing = shaders.join("no-such-probe.wgsl");
    let v = run(
        &dir,
        &["peak", "--coop-probe", missing.to_str().unwrap()],
        2,
        None,
    );
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("no-such-probe.wgsl"), "{v}");
    assert!(!dir.join("peaks.json").exists());
    // lavapipe has no cooperative matrices: the probe was what was asked for, so the run is
    // refused before anything is measured, and says why. (The bundled chain is a valid
    // probe; docs/performance.md, "What bounds the f16 kernel", describes others.)
    let probe = shaders.join("peak_coop_f16.wgsl");
    let v = run(
        &dir,
        &["peak", "--coop-probe", probe.to_str().unwrap()],
        2,
        None,
    );
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("peak_coop_f16.wgsl"), "{message}");
    assert!(
        message.contains("has no cooperative matrices with subgroups of 32, so the probe cannot run here (nothing was measured)"),
        "{message}"
    );
    assert!(!dir.join("peaks.json").exists());
}

#[test]
fn workers_started_after_the_binary_is_replaced_are_still_this_build() {
    // A rebuild while a campaign runs removes or replaces the kcamp file. The cases after
    // that still run, in workers of the build that started the run: they used to fail to
    // start ("No such file"), every later case an ERROR that read as the kernel's.
    // `big` only has to outlast the poll below; the timeout leaves a loaded machine room, so
    // that a slow case is never mistaken for the build going missing.
    let (tmp, dir) =
        campaign("- {label: big, M: 256, N: 256, K: 256}\n- {label: s16, M: 16, N: 16, K: 16}\n");
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        manifest.replace("timeout_sec: 30.0", "timeout_sec: 300.0"),
    )
    .unwrap();
    let copy = tmp.path().join("kcamp-copy");
    std::fs::copy(assert_cmd::cargo::cargo_bin("kcamp"), &copy).unwrap();
    let run = std::process::Command::new(&copy)
        .args(["--json", "-C"])
        .arg(&dir)
        .args(["run", "--shapes", "full"])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env("XDG_DATA_HOME", tmp.path().join("xdg-data"))
        // A worker per case, so that the second case starts one after the removal.
        .env("KCAMP_WORKER_PER_CASE", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for(
        "the first case",
        std::time::Duration::from_secs(180),
        || common::in_a_timed_case(&dir).then_some(()),
    );
    std::fs::remove_file(&copy).unwrap();
    let out = run.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let shapes = &v["result"]["shapes"];
    assert_eq!(out.status.code(), Some(0), "{shapes:#}");
    let checks: Vec<&str> = shapes
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["PASS", "PASS"], "{shapes:#}");
}

#[test]
fn peaks_stored_outside_a_campaign_serve_a_baseline_run_from_inside_it() {
    // `kcamp peak` outside any campaign stores in the user-level store; a BASELINE run from
    // inside the campaign's directory used that directory as "the user's store" and measured
    // the peaks again, saying none were stored.
    let (tmp, dir) = campaign("- {label: s16, M: 16, N: 16, K: 16}\n");
    let xdg = tmp.path().join("xdg-data");
    let kcamp_in = |cwd: &Path, args: &[&str]| {
        Command::cargo_bin("kcamp")
            .unwrap()
            .current_dir(cwd)
            .args(args)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .env("XDG_DATA_HOME", &xdg)
            .env_remove("KCAMP_DIR")
            .output()
            .unwrap()
    };
    let peak = kcamp_in(tmp.path(), &["--json", "peak"]);
    assert!(peak.status.success(), "{peak:?}");
    assert!(xdg.join("kcamp/peaks.json").is_file());
    let baseline = kcamp_in(&dir, &["baseline"]);
    let err = String::from_utf8_lossy(&baseline.stderr);
    assert!(baseline.status.success(), "{err}");
    assert!(!err.contains("no peaks stored or cited"), "{err}");
    assert!(!dir.join("peaks.json").exists(), "measured again: {err}");
}

/// A peak measured too low (here: one kFLOP/s and one kB/s) puts every shape above it. No
/// kernel beats its hardware: wherever utilization is printed it says so, and to measure
/// the peak again.
#[test]
fn utilization_above_the_measured_peak_is_flagged_where_it_is_printed() {
    let (_tmp, dir) = campaign("- {label: s16, M: 16, N: 16, K: 16}\n");
    run(&dir, &["baseline", "--no-peak"], 0, None);
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-1/artifacts/result.json")).unwrap(),
    )
    .unwrap();
    let (name, driver) = (
        result["adapter"]["name"].as_str().unwrap(),
        result["adapter"]["driver"].as_str().unwrap(),
    );
    let peaks = serde_json::json!({"adapters": {format!("{name} | {driver}"): {
        "source": format!("measured:{name}:2026-01-01"),
        "adapter": name,
        "driver": driver,
        "measured_at": "2026-01-01T00:00:00Z",
        "flops": {"f32": 1e3},
        "bandwidth": 1e3,
    }}});
    std::fs::write(dir.join("peaks.json"), peaks.to_string()).unwrap();
    let flag = "(above the measured peak: re-measure it with `kcamp peak`)";
    // The BASELINE is the incumbent: the report's verdict on it (no gain over itself) does
    // not matter here, its tables do.
    kcamp(&dir).args(["report", "--no-run"]).output().unwrap();
    for file in ["report.md", "baseline_report.md"] {
        let md = std::fs::read_to_string(dir.join(file)).unwrap();
        let row = md
            .lines()
            .find(|l| l.starts_with("| s16 |") && l.contains("FLOP/B"))
            .unwrap_or_else(|| panic!("no roofline row in {file}:\n{md}"));
        assert_eq!(row.matches(flag).count(), 2, "{file}: {row}");
    }
    let doc = run(&dir, &["analyze"], 0, None);
    assert!(
        doc["profile_evidence"]["findings"]
            .to_string()
            .contains(flag),
        "{doc}"
    );
    let out = Command::cargo_bin("kcamp")
        .unwrap()
        .arg("-C")
        .arg(&dir)
        .arg("analyze")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("s16 "))
        .unwrap_or_else(|| panic!("no s16 row:\n{text}"));
    assert!(row.contains(flag), "{text}");
}
