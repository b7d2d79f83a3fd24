//! How kcamp runs an external harness, through the real binary with a Python harness the
//! test writes: every target shape checked (a kernel wrong on a shape the quick set does not
//! time fails the round), `KCAMP_SHAPES_FILE` and `KCAMP_SEED`, invocations paired A B B A
//! and judged on paired ratios, a hanging harness recorded as TIMEOUT_FAIL with its whole
//! process group gone, and a CSV kcamp rejects kept and named.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{describe, fixture, run};

/// Logs one JSON line per invocation (its environment, the shapes file, its process group),
/// then writes the rows of `$KCAMP_SHAPES` from the CSV that the kernel directory's file
/// `numbers` names. Markers in the kernel directory: `hang` sleeps (with a child) in timed
/// runs, `bad` writes a Check cell kcamp rejects.
const HARNESS: &str = r#"import json, os, subprocess, sys, time
out, kdir, log = sys.argv[1], sys.argv[2], sys.argv[3]
env = os.environ
entry = {
    "validation": env["KCAMP_VALIDATION"],
    "kernel_dir": kdir,
    "env_kernel_dir": env["KCAMP_KERNEL_DIR"],
    "seed": env["KCAMP_SEED"],
    "shapes": env["KCAMP_SHAPES"],
    "file": json.load(open(env["KCAMP_SHAPES_FILE"])),
    "pgid": os.getpgid(0),
}
timed = env["KCAMP_VALIDATION"] != "check"
if timed and os.path.exists(os.path.join(kdir, "hang")):
    entry["child"] = subprocess.Popen(["sleep", "300"]).pid
with open(log, "a") as f:
    f.write(json.dumps(entry) + "\n")
if "child" in entry:
    time.sleep(300)
lines = open(open(os.path.join(kdir, "numbers")).read().strip()).read().splitlines()
rows = {l.split(",")[0]: l for l in lines[1:]}
with open(out, "w") as f:
    f.write(lines[0] + "\n")
    for label in env["KCAMP_SHAPES"].split(","):
        row = rows[label]
        if timed and os.path.exists(os.path.join(kdir, "bad")):
            row = row.replace(",PASS,", ",MAYBE,")
        f.write(row + "\n")
"#;

/// A GEMM campaign over the fixture shapes measured by [`HARNESS`], baselined; returns its
/// temporary folder, the campaign, the harness's log and the representative shapes.
fn harness_campaign(
    edit: impl FnOnce(String) -> String,
) -> (tempfile::TempDir, PathBuf, PathBuf, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, log) = harness_setup(tmp.path());
    let edited = edit(std::fs::read_to_string(dir.join("manifest.yaml")).unwrap());
    std::fs::write(dir.join("manifest.yaml"), edited).unwrap();
    let b = run(&dir, &["baseline"], 0);
    let reps: Vec<String> = b["representative_shapes"]
        .as_array()
        .unwrap_or_else(|| panic!("{b}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    assert!(!reps.is_empty() && reps.len() < 7, "{b}");
    std::fs::remove_file(&log).unwrap();
    (tmp, dir, log, reps)
}

/// A campaign in `root` measured by [`HARNESS`], not yet baselined; and the harness's log.
fn harness_setup(root: &Path) -> (PathBuf, PathBuf) {
    let dir = common::init(root);
    let log = root.join("calls.jsonl");
    std::fs::write(dir.join("harness.py"), HARNESS).unwrap();
    numbers(&dir.join("kernel"), &fixture("campaign/baseline.csv"));
    common::append_to_manifest(
        &dir,
        &format!(
            "quick_command: \"python3 harness.py {{csv}} {{kernel_dir}} '{}'\"\nharness_files: [harness.py]",
            log.display()
        ),
    );
    (dir, log)
}

/// Point the kernel directory's numbers at `csv`.
fn numbers(kernel: &Path, csv: &Path) {
    std::fs::write(kernel.join("numbers"), csv.display().to_string()).unwrap();
}

fn calls(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The fixture's target shapes, in manifest order.
const SHAPES: [&str; 7] = [
    "s64",
    "s128",
    "r96x200x72",
    "s256",
    "b2s128",
    "t512x64",
    "s512",
];

#[test]
fn a_harness_kernel_wrong_on_a_shape_the_quick_set_does_not_time_fails_the_round() {
    let (tmp, dir, log, reps) = harness_campaign(|m| m);
    let hidden = SHAPES
        .iter()
        .find(|s| !reps.iter().any(|r| r == *s))
        .unwrap();
    // Faster on the representative shapes, wrong on `hidden`.
    let better = std::fs::read_to_string(fixture("campaign/better.csv")).unwrap();
    let wrong: String = better
        .lines()
        .map(|l| match l.split_once(',') {
            Some((label, rest)) if label == *hidden => {
                let fields: Vec<&str> = rest.split(',').collect();
                // label, four dims, then FAIL and empty metrics.
                format!(
                    "{label},{},FAIL{}\n",
                    fields[..4].join(","),
                    ",".repeat(fields.len() - 5)
                )
            }
            _ => format!("{l}\n"),
        })
        .collect();
    let wrong_csv = tmp.path().join("wrong.csv");
    std::fs::write(&wrong_csv, wrong).unwrap();
    run(
        &dir,
        &["round", "new", "--hypothesis", "tuned to the list"],
        0,
    );
    numbers(&dir.join("kernel"), &wrong_csv);
    let v = run(&dir, &["validate"], 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let failure = v["failures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["label"] == *hidden)
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        (&failure["check"], &failure["untimed"]),
        (&Value::from("FAIL"), &Value::from(true)),
        "{v}"
    );
    assert!(
        v["report"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains(&format!("{hidden} (FAIL)")),
        "{v}"
    );
    // The check run was the last invocation, on the candidate, over the untimed shapes.
    let all = calls(&log);
    let check = all.last().unwrap();
    assert_eq!(check["validation"], "check", "{all:?}");
    assert!(check["shapes"].as_str().unwrap().contains(*hidden));
    let checked: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-2/artifacts/checked.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        checked.as_array().unwrap().len(),
        SHAPES.len() - reps.len(),
        "{checked}"
    );
    // It cannot become the incumbent.
    let out = common::output(&dir, &["accept"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "{}",
        common::describe(&["accept"], &out)
    );
    assert!(!dir.join("rounds/round-2/decision.json").exists());
}

#[test]
fn every_invocation_gets_the_shapes_with_their_dimensions_and_the_validation_s_seed() {
    let (_tmp, dir, log, reps) = harness_campaign(|m| m);
    run(&dir, &["round", "new", "--hypothesis", "same"], 0);
    run(&dir, &["validate"], 1);
    let first = calls(&log);
    std::fs::remove_file(&log).unwrap();
    run(&dir, &["validate"], 1);
    let second = calls(&log);
    assert_eq!(first.len(), 13, "6 pairs and the check run: {first:?}");
    for calls in [&first, &second] {
        // One seed for every invocation of a validation, in the variable and the file.
        let seed = calls[0]["seed"].as_str().unwrap();
        for c in calls.iter() {
            assert_eq!(c["seed"], seed, "{c}");
            assert_eq!(c["file"]["seed"].to_string(), seed, "{c}");
            assert_eq!(
                (&c["file"]["op"], &c["file"]["dtype"]),
                (&"gemm".into(), &"f32".into())
            );
            assert_eq!(c["file"]["timeout_sec"], 30.0, "{c}");
            assert_eq!(c["file"]["validation"], c["validation"], "{c}");
            // The file lists the shapes of KCAMP_SHAPES, in order.
            let labels: Vec<&str> = c["file"]["shapes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["label"].as_str().unwrap())
                .collect();
            assert_eq!(labels.join(","), c["shapes"].as_str().unwrap(), "{c}");
        }
        let timed = &calls[0]["file"]["shapes"];
        assert_eq!(timed.as_array().unwrap().len(), reps.len());
        assert!(timed.as_array().unwrap().iter().all(|s| s["timed"] == true));
        let check = &calls[12]["file"]["shapes"];
        assert!(
            check
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["timed"] == false)
        );
        // b2s128 has B = 2; every other shape gets the default B = 1.
        for s in timed
            .as_array()
            .unwrap()
            .iter()
            .chain(check.as_array().unwrap())
        {
            let b = if s["label"] == "b2s128" { 2 } else { 1 };
            assert_eq!(s["dims"]["B"], b, "{s}");
            assert!(s["dims"]["M"].as_u64().unwrap() >= 64, "{s}");
        }
        let r96 = timed
            .as_array()
            .unwrap()
            .iter()
            .chain(check.as_array().unwrap())
            .find(|s| s["label"] == "r96x200x72")
            .unwrap();
        assert_eq!(
            (&r96["dims"]["M"], &r96["dims"]["N"], &r96["dims"]["K"]),
            (&Value::from(96), &Value::from(200), &Value::from(72))
        );
    }
    assert_ne!(
        first[0]["seed"], second[0]["seed"],
        "a fresh seed each validation"
    );
    // A pinned seed is every validation's.
    common::append_to_manifest(&dir, "seed: 7");
    std::fs::remove_file(&log).unwrap();
    run(&dir, &["validate"], 1);
    assert!(calls(&log).iter().all(|c| c["seed"] == "7"));
}

#[test]
fn a_paired_harness_runs_a_b_b_a_and_the_gate_judges_the_paired_ratios() {
    let (_tmp, dir, log, reps) = harness_campaign(|m| m);
    run(&dir, &["round", "new", "--hypothesis", "better"], 0);
    numbers(&dir.join("kernel"), &fixture("campaign/better.csv"));
    let v = run(&dir, &["validate"], 0);
    let kernel = std::path::absolute(dir.join("kernel")).unwrap();
    let round1 = std::path::absolute(dir.join("rounds/round-1/kernel")).unwrap();
    let order: Vec<String> = calls(&log)
        .iter()
        .map(|c| {
            assert_eq!(c["kernel_dir"], c["env_kernel_dir"], "{c}");
            let k = c["kernel_dir"].as_str().unwrap();
            let who = if k == kernel.to_str().unwrap() {
                "B"
            } else {
                assert_eq!(k, round1.to_str().unwrap());
                "A"
            };
            format!("{who}:{}", c["validation"].as_str().unwrap())
        })
        .collect();
    let abba = ["A", "B", "B", "A"].repeat(3);
    let mut expected: Vec<String> = abba.iter().map(|w| format!("{w}:quick")).collect();
    expected.push("B:check".into());
    assert_eq!(order, expected);
    // Judged like the built-in runner's interleaved repeats: six pairs per shape and for the
    // aggregate.
    assert_eq!(v["like_for_like"]["pairing"]["kind"], "interleaved", "{v}");
    assert_eq!(v["report"]["verdict"], "ACCEPT", "{v}");
    assert_eq!(v["report"]["aggregate"]["pairs"], 6, "{v}");
    assert!(
        v["report"]["shapes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["pairs"] == 6),
        "{v}"
    );
    assert!(
        v["report"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("(A B B A)"),
        "{v}"
    );
    assert!(
        v["report"]["reasons"].to_string().contains(&format!(
            "the outputs of the other {} target shapes were checked (by the harness's check run, KCAMP_VALIDATION=check): all PASS.",
            SHAPES.len() - reps.len()
        )),
        "{v}"
    );
    let art = dir.join("rounds/round-2/artifacts");
    for file in ["samples.csv", "paired_samples.csv"] {
        let text = std::fs::read_to_string(art.join(file)).unwrap();
        for pair in 1..=6 {
            assert!(
                text.contains(&format!("{},Forward TFLOPS,{pair},", reps[0])),
                "{file}: {text}"
            );
        }
    }
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(art.join("harness.json")).unwrap()).unwrap();
    let roles: Vec<(String, Value)> = record["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["role"].as_str().unwrap().to_owned(), i["pair"].clone()))
        .collect();
    assert_eq!(roles[0], ("incumbent".to_owned(), Value::from(1)));
    assert_eq!(roles[3], ("incumbent".to_owned(), Value::from(2)));
    assert_eq!(roles[12], ("check".to_owned(), Value::Null));
    assert_eq!(record["pairs"], 6);
}

/// The running (not zombie) processes of process group `pgid`.
fn group_members(pgid: i64) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split(' ').collect();
        if fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str()) {
            out.push(pid);
        }
    }
    out
}

#[test]
fn a_hanging_harness_is_killed_with_its_group_and_recorded_as_timeout_fail() {
    let (_tmp, dir, log, reps) =
        harness_campaign(|m| m.replace("timeout_sec: 30.0", "timeout_sec: 1"));
    run(&dir, &["round", "new", "--hypothesis", "hangs"], 0);
    std::fs::write(dir.join("kernel/hang"), "").unwrap();
    let start = Instant::now();
    let v = run(&dir, &["validate"], 1);
    let took = start.elapsed();
    let limit = reps.len() as f64 + 30.0;
    // The incumbent's run, then the candidate's until its limit; nothing after it.
    assert!(took < Duration::from_secs_f64(limit + 25.0), "{took:?}");
    assert!(took >= Duration::from_secs_f64(limit), "{took:?}");
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), reps.len(), "{v}");
    let why = format!(
        "ran past its limit of {limit} s = timeout_sec 1 s × {} shapes + 30 s start allowance",
        reps.len()
    );
    for f in failures {
        assert_eq!(f["check"], "TIMEOUT_FAIL", "{v}");
        let reason = f["reason"].as_str().unwrap();
        assert!(
            reason.contains(&why) && reason.contains("raise `timeout_sec:` in manifest.yaml"),
            "{reason}"
        );
    }
    let art = dir.join("rounds/round-2/artifacts");
    let csv = std::fs::read_to_string(art.join("benchmark.csv")).unwrap();
    assert!(
        csv.contains(&format!("{},1,", reps[0])) && csv.contains(",TIMEOUT_FAIL,"),
        "{csv}"
    );
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(art.join("harness.json")).unwrap()).unwrap();
    assert_eq!(
        record["invocations"].as_array().unwrap().len(),
        2,
        "{record}"
    );
    assert_eq!(record["invocations"][1]["ended"]["kind"], "timed_out");
    assert!(
        record["stopped"]
            .as_str()
            .unwrap()
            .contains("invocation 2 of 13")
    );
    let kept = std::fs::read_to_string(art.join("harness.log")).unwrap();
    assert!(kept.contains("killed (with its process group)"), "{kept}");
    // Nothing of the hanging invocation is left: neither its group nor its child.
    let hung = calls(&log).pop().unwrap();
    let (pgid, child) = (
        hung["pgid"].as_i64().unwrap(),
        hung["child"].as_u64().unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !group_members(pgid).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(group_members(pgid), Vec::<u32>::new());
    assert!(!common::alive(child as u32));
}

#[test]
fn a_csv_kcamp_rejects_is_kept_and_named() {
    let (_tmp, dir, _log, _reps) = harness_campaign(|m| m);
    run(&dir, &["round", "new", "--hypothesis", "bad"], 0);
    std::fs::write(dir.join("kernel/bad"), "").unwrap();
    let v = run(&dir, &["validate"], 2);
    let m = v["error"]["message"].as_str().unwrap();
    // The incumbent ran first; the candidate's CSV (invocation 2) is the bad one.
    let kept = dir.join("rounds/round-2/rejected/quick-02-candidate.csv");
    assert!(kept.is_file(), "{m}");
    assert!(
        m.contains(&format!("{}:2 (column 'Check')", kept.display()))
            && m.contains("Check must be PASS")
            && m.contains("live/harness.log"),
        "{m}"
    );
    assert!(
        m.contains("kcamp rejects the CSV of harness invocation 2 of 13 (the candidate)")
            && !m.contains(".artifacts.tmp"),
        "{m}"
    );
    assert!(std::fs::read_to_string(&kept).unwrap().contains(",MAYBE,"));
    assert!(dir.join("live/harness.log").is_file());
    // Nothing was recorded.
    assert!(!dir.join("rounds/round-2/artifacts").exists());

    // At BASELINE no round exists yet: the copy goes to live/rejected/.
    let tmp = tempfile::tempdir().unwrap();
    let (dir, _log) = harness_setup(tmp.path());
    std::fs::write(dir.join("kernel/bad"), "").unwrap();
    let v = run(&dir, &["baseline"], 2);
    let kept = dir.join("live/rejected/full-01-candidate.csv");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        kept.is_file() && m.contains(&kept.display().to_string()),
        "{m}"
    );
    assert!(!dir.join("rounds/round-1").exists());
}

#[test]
fn too_few_pairs_to_ever_be_significant_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    common::append_to_manifest(&dir, "harness:\n  pairs: 3");
    let v = run(&dir, &["status"], 2);
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("harness.pairs") && m.contains("p >= 0.25") && m.contains("use at least 6"),
        "{m}"
    );
}

/// A campaign with round 1 imported and round 2 open, measured by `command` (with `{csv}`).
fn command_campaign(command: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    run(
        &dir,
        &["baseline", "--csv", &common::csv("baseline.csv")],
        0,
    );
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    common::append_to_manifest(&dir, &format!("quick_command: {command}"));
    (tmp, dir)
}

/// Whatever the harness started ends with the step, however it left the harness's process
/// group or outlived its parent: `setsid`, `nohup`, a double fork.
#[test]
fn what_a_harness_leaves_running_ends_with_the_step_setsid_nohup_and_double_forks_included() {
    let pids = tempfile::tempdir().unwrap();
    let p = |n: u32| pids.path().join(format!("p{n}")).display().to_string();
    let command = format!(
        "\"setsid sh -c 'echo $$ > {p1}; exec sleep 300' & nohup sh -c 'echo $$ > {p2}; exec sleep 300' >/dev/null 2>&1 & (sh -c 'echo $$ > {p3}; exec sleep 300' &); while [ ! -s {p1} ] || [ ! -s {p2} ] || [ ! -s {p3} ]; do sleep 0.01; done; cp {csv} {{csv}}\"",
        p1 = p(1),
        p2 = p(2),
        p3 = p(3),
        csv = common::csv("better.csv"),
    );
    let (_tmp, dir) = command_campaign(&command);
    // Judged against an imported BASELINE, so NEEDS_REMEASURE: measured all the same.
    run(&dir, &["validate", "--full"], 1);
    for n in 1..=3 {
        let pid: u32 = std::fs::read_to_string(p(n))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            !common::alive(pid),
            "process {n} ({pid}: {}) outlived the step",
            common::cmdline(pid)
        );
    }
}

/// A harness that floods its output: the log keeps its first and last part and says what
/// it left out, and so does the verdict.
#[test]
fn a_harness_log_is_bounded_and_says_where_it_was_cut() {
    let command = format!(
        "\"echo first line; head -c 3000000 /dev/zero | tr '\\\\0' x; echo; echo last line; cp {} {{csv}}\"",
        common::csv("better.csv")
    );
    let (_tmp, dir) = command_campaign(&command);
    let v = run(&dir, &["validate", "--full"], 1);
    let log = std::fs::read_to_string(dir.join("rounds/round-2/artifacts/harness.log")).unwrap();
    let kept = kcamp_core::artifacts::harness::LOG_KEPT_BYTES as usize;
    assert!(log.len() < kept + 4096, "{} bytes", log.len());
    assert!(log.contains("first line") && log.contains("last line"));
    assert!(
        log.contains("bytes of output left out here"),
        "{}",
        &log[kept / 2 - 100..kept / 2 + 300]
    );
    let reasons = v["report"]["reasons"].to_string();
    assert!(
        reasons.contains("harness.log keeps its first and last"),
        "{reasons}"
    );
    let record =
        std::fs::read_to_string(dir.join("rounds/round-2/artifacts/harness.json")).unwrap();
    assert!(record.contains("\"output_cut\""), "{record}");
}

/// A persistent harness (`harness.protocol: persistent`): answers every request of
/// stdin with a tagged reply, logging one JSON line per request (its process, the request).
/// Rows are made up, consistent with their times. Markers in the kernel directory: `crash`
/// prints two lines and exits 3 mid-request, `garbage` prints what looks like replies, a
/// 200 kB line and a line without its newline before the reply. `$HANG_ONCE`, a file
/// outside the campaign: the first timed request that finds it removes it and hangs (with
/// a child).
const PERSISTENT: &str = r#"import json, os, random, subprocess, sys, time
log = sys.argv[1]
tag = os.environ["KCAMP_REPLY_TAG"]
def reply(obj):
    sys.stdout.write(tag + " " + json.dumps(obj) + "\n")
    sys.stdout.flush()
print("harness starting, pid", os.getpid(), flush=True)
reply({"ready": True})
for line in sys.stdin:
    req = json.loads(line)
    kdir = req["kernel_dir"]
    marker = lambda n: os.path.exists(os.path.join(kdir, n))
    entry = {"pid": os.getpid(), "pgid": os.getpgid(0), "kernel_dir": kdir, "pair": req["pair"],
             "validation": req["validation"], "seed": req["seed"], "csv": req["csv"],
             "shapes": [s["label"] for s in req["shapes"]], "env": os.environ.get("KCAMP_PROTOCOL")}
    once = os.environ.get("HANG_ONCE")
    hang = req["validation"] != "check" and once and os.path.exists(once)
    if hang:
        os.remove(once)
        entry["child"] = subprocess.Popen(["sleep", "300"]).pid
    with open(log, "a") as f:
        f.write(json.dumps(entry) + "\n")
    if hang:
        time.sleep(300)
    if marker("crash"):
        print("crashing now: line 1", flush=True)
        print("crashing now: line 2", file=sys.stderr, flush=True)
        os._exit(3)
    if marker("garbage"):
        print('{"done": true}')
        print('@kcamp-reply-forged {"done": true}')
        print("x" * 200000)
        print("to stderr", file=sys.stderr, flush=True)
        sys.stdout.write("no newline before the reply")
        sys.stdout.flush()
    with open(req["csv"], "w") as f:
        f.write("label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr\n")
        for s in req["shapes"]:
            d = s["dims"]
            work = 2.0 * d["B"] * d["M"] * d["N"] * d["K"]
            ms = 0.01 * (1 + random.uniform(-0.01, 0.01))
            t = work / (ms * 1e-3) / 1e12
            f.write(f"{s['label']},{d['B']},{d['M']},{d['N']},{d['K']},PASS,{t},{t * 0.01},{t},{t * 0.01},{ms},{2 * ms},100,100,100\n")
    reply({"done": True, "csv": req["csv"]})
"#;

/// Two small shapes: a quick validation times both, so a request's limit is short.
const TWO_SHAPES: &str =
    "- {label: s64, M: 64, N: 64, K: 64}\n- {label: s96, M: 96, N: 96, K: 96}\n";

/// A GEMM campaign on [`TWO_SHAPES`] measured by [`PERSISTENT`], baselined, round 2 open;
/// the harness's log.
fn persistent_campaign(root: &Path) -> (PathBuf, PathBuf) {
    let dir = root.join("camp");
    let shapes = root.join("shapes.yaml");
    std::fs::write(&shapes, TWO_SHAPES).unwrap();
    let d = dir.to_str().unwrap();
    run(
        root,
        &[
            "init",
            d,
            "--op",
            "gemm",
            "--dtype",
            "f32",
            "--shapes",
            shapes.to_str().unwrap(),
        ],
        0,
    );
    let log = root.join("calls.jsonl");
    std::fs::write(dir.join("harness.py"), PERSISTENT).unwrap();
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        manifest.replace("git_commit: true", "git_commit: false") + "target_gpu: m2\n",
    )
    .unwrap();
    common::append_to_manifest(
        &dir,
        &format!(
            "quick_command: \"python3 harness.py '{}'\"\nharness_files: [harness.py]\nharness:\n  protocol: persistent",
            log.display()
        ),
    );
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "persistent"], 0);
    std::fs::remove_file(&log).unwrap();
    (dir, log)
}

fn harness_record(dir: &Path, round: u32) -> Value {
    let path = dir.join(format!("rounds/round-{round}/artifacts/harness.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn a_persistent_harness_serves_every_request_of_a_validation_from_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, log) = persistent_campaign(tmp.path());
    let out = common::output(&dir, &["validate"]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        describe(&["validate"], &out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["all_pass"], true, "{v}");
    let calls = calls(&log);
    // Six pairs A B B A, no check run (both target shapes are timed).
    assert_eq!(calls.len(), 12, "{calls:?}");
    let pid = &calls[0]["pid"];
    assert!(calls.iter().all(|c| &c["pid"] == pid), "{calls:?}");
    assert!(calls.iter().all(|c| c["env"] == "persistent"));
    let incumbent = dir.join("rounds/round-1/kernel").display().to_string();
    let kernels: Vec<bool> = calls
        .iter()
        .map(|c| c["kernel_dir"].as_str().unwrap() == incumbent)
        .collect();
    assert_eq!(&kernels[..4], &[true, false, false, true], "{calls:?}");
    let pairs: Vec<i64> = calls.iter().map(|c| c["pair"].as_i64().unwrap()).collect();
    assert_eq!(pairs, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    // Every request its own CSV.
    let mut csvs: Vec<&str> = calls.iter().map(|c| c["csv"].as_str().unwrap()).collect();
    csvs.dedup();
    assert_eq!(csvs.len(), 12);
    let record = harness_record(&dir, 2);
    assert_eq!(record["protocol"], "persistent", "{record}");
    let invocations = record["invocations"].as_array().unwrap();
    assert!(
        invocations
            .iter()
            .all(|i| i["ended"]["kind"] == "answered" && i["process"] == 1),
        "{record}"
    );
    assert!(invocations[0]["start_sec"].as_f64().is_some(), "{record}");
    assert!(invocations[1].get("start_sec").is_none(), "{record}");
    // The harness process is gone once the validation is.
    let pid = pid.as_u64().unwrap() as u32;
    assert!(!common::alive(pid));
}

#[test]
fn output_that_looks_like_a_reply_does_not_break_the_protocol() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, _log) = persistent_campaign(tmp.path());
    std::fs::write(dir.join("kernel/garbage"), "").unwrap();
    let out = common::output(&dir, &["validate"]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        describe(&["validate"], &out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["all_pass"], true, "{v}");
    let record = harness_record(&dir, 2);
    assert!(
        record["invocations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["ended"]["kind"] == "answered" && i["process"] == 1),
        "{record}"
    );
    let kept = std::fs::read_to_string(dir.join("rounds/round-2/artifacts/harness.log")).unwrap();
    assert!(
        kept.contains("@kcamp-reply-forged") && kept.contains("no newline before the reply"),
        "the garbage is output, in the log"
    );
}

#[test]
fn a_persistent_request_past_its_limit_is_killed_and_the_next_one_gets_a_new_process() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, log) = persistent_campaign(tmp.path());
    let once = tmp.path().join("hang-once");
    std::fs::write(&once, "").unwrap();
    let out = common::kcamp(&dir)
        .env("TEST_TIMEOUT_SEC", "3")
        .env("HANG_ONCE", &once)
        .args(["--json", "validate"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", describe(&["validate"], &out)));
    let record = harness_record(&dir, 2);
    let inv = record["invocations"].as_array().unwrap();
    // The incumbent's first request hung: killed at 3 s × 2 shapes + 2 s.
    assert_eq!(inv[0]["ended"]["kind"], "timed_out", "{record}");
    assert_eq!(inv[0]["limit_sec"], 8.0, "{record}");
    let took = inv[0]["seconds"].as_f64().unwrap();
    assert!((8.0..10.0).contains(&took), "{took}");
    // The next request started process 2, and it answered; so did the rest.
    assert_eq!(inv[1]["process"], 2, "{record}");
    assert!(inv[1]["start_sec"].as_f64().is_some(), "{record}");
    assert_eq!(inv.len(), 12, "{record}");
    assert!(
        inv[1..].iter().all(|i| i["ended"]["kind"] == "answered"),
        "{record}"
    );
    let why = record["paired_reasons"]["s64"].as_str().unwrap();
    assert!(
        why.contains(
            "ran past its limit of 8 s = timeout_sec 3 s × 2 shapes + 2 s (no start allowance"
        ) && why.contains("TEST_TIMEOUT_SEC=3"),
        "{why}"
    );
    let paired = std::fs::read_to_string(dir.join("rounds/round-2/artifacts/paired.csv")).unwrap();
    assert!(paired.contains(",TIMEOUT_FAIL,"), "{paired}");
    // The candidate passed every request.
    assert_eq!(v["summary"]["all_pass"], true, "{v}");
    // Nothing of the hung process is left: neither its group nor its child.
    let hung = calls(&log)
        .into_iter()
        .find(|c| c.get("child").is_some())
        .unwrap();
    let (pgid, child) = (
        hung["pgid"].as_i64().unwrap(),
        hung["child"].as_u64().unwrap(),
    );
    assert_eq!(group_members(pgid), Vec::<u32>::new());
    assert!(!common::alive(child as u32));
}

#[test]
fn a_persistent_harness_that_crashes_mid_request_is_an_error_with_its_last_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, _log) = persistent_campaign(tmp.path());
    std::fs::write(dir.join("kernel/crash"), "").unwrap();
    let v = run(&dir, &["validate"], 1);
    assert_eq!(v["report"]["verdict"], "REJECT", "{v}");
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{v}");
    for f in failures {
        assert_eq!(f["check"], "ERROR", "{v}");
        let why = f["reason"].as_str().unwrap();
        assert!(
            why.contains("harness invocation 2 of 12 (the candidate) (persistent harness process 1) exited with status 3")
                && why.contains("its last lines: crashing now: line 1 / crashing now: line 2"),
            "{why}"
        );
    }
    let record = harness_record(&dir, 2);
    assert_eq!(
        record["invocations"].as_array().unwrap().len(),
        2,
        "{record}"
    );
}

#[test]
fn sigterm_ends_a_persistent_harness_and_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, log) = persistent_campaign(tmp.path());
    let once = tmp.path().join("hang-once");
    std::fs::write(&once, "").unwrap();
    let mut validate = common::kcamp_process(&dir)
        .env("HANG_ONCE", &once)
        .args(["--json", "validate"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let hung = common::wait_for("the hanging request", Duration::from_secs(30), || {
        calls(&log).into_iter().find(|c| c.get("child").is_some())
    });
    let (pid, child) = (
        hung["pid"].as_u64().unwrap() as u32,
        hung["child"].as_u64().unwrap() as u32,
    );
    assert!(common::alive(pid) && common::alive(child));
    // SAFETY: kill(2) sends a signal to our own child and touches no memory.
    unsafe {
        libc::kill(validate.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = common::wait_for("validate to exit", Duration::from_secs(10), || {
        validate.try_wait().unwrap()
    });
    assert_eq!(status.code(), Some(2));
    common::wait_for(
        "the harness and its child to end",
        Duration::from_secs(1),
        || (!common::alive(pid) && !common::alive(child)).then_some(()),
    );
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut validate.stdout.take().unwrap(), &mut stdout).unwrap();
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "cancelled", "{doc}");
    assert!(!dir.join("rounds/round-2/artifacts/gate.json").exists());
}

#[test]
fn a_persistent_command_may_not_name_one_csv_or_kernel_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    common::append_to_manifest(
        &dir,
        "quick_command: python3 bench.py --csv {csv}\nharness:\n  protocol: persistent",
    );
    let v = run(&dir, &["status"], 2);
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("quick_command")
            && m.contains("contains {csv}")
            && m.contains("harness.protocol: persistent"),
        "{m}"
    );
}
