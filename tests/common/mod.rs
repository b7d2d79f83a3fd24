//! Helpers shared by the integration tests: the real binary on fixture campaigns, and
//! process checks for the tests that cancel or kill runs (who is whose child, whether a
//! pid is alive; Linux /proc only).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A CSV of the fixture campaign, as an argument.
pub fn csv(name: &str) -> String {
    fixture(&format!("campaign/{name}"))
        .to_str()
        .unwrap()
        .to_owned()
}

/// `kcamp -C dir` with the test hooks off and git commits out of reach (they would differ
/// between runs and need an identity).
pub fn kcamp(dir: &Path) -> Command {
    Command::from_std(kcamp_process(dir))
}

/// [`kcamp`] as a plain process, for one that runs in the background.
pub fn kcamp_process(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcamp"));
    cmd.arg("-C")
        .arg(dir)
        .env_remove("KCAMP_FAILPOINT")
        .env_remove("KCAMP_KILL_AT_FS_STEP")
        .env_remove("KCAMP_FS_TRACE")
        .env_remove("TEST_TIMEOUT_SEC")
        .env_remove("KCAMP_TIMING")
        .env("GIT_DIR", "/nonexistent");
    cmd
}

/// `kcamp --json -C dir ARGS`.
pub fn output(dir: &Path, args: &[&str]) -> Output {
    kcamp(dir).arg("--json").args(args).output().unwrap()
}

pub fn describe(args: &[&str], out: &Output) -> String {
    format!(
        "kcamp {args:?}: {:?}\nstdout {}\nstderr {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run with `--json`, check the exit code, return the one JSON document.
pub fn run(dir: &Path, args: &[&str], code: i32) -> Value {
    let out = output(dir, args);
    assert_eq!(out.status.code(), Some(code), "{}", describe(args, &out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {}", describe(args, &out)))
}

/// A fresh campaign (`root/camp`, the fixture shapes, git commits off, rows held to an
/// Apple M2's cited peaks), not yet baselined.
pub fn init(root: &Path) -> PathBuf {
    let dir = root.join("camp");
    let shapes = fixture("campaign/shapes.yaml");
    let args = [
        "init",
        dir.to_str().unwrap(),
        "--op",
        "gemm",
        "--dtype",
        "f32",
        "--shapes",
        shapes.to_str().unwrap(),
    ];
    run(root, &args, 0);
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // Imported rows are held to the target's roofline floor; without one no gain on them
    // can be accepted.
    std::fs::write(
        &manifest,
        text.replace("git_commit: true", "git_commit: false") + "target_gpu: m2\n",
    )
    .unwrap();
    dir
}

/// Append `lines` to the campaign's manifest; returns the manifest as it was.
pub fn append_to_manifest(dir: &Path, lines: &str) -> String {
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}{lines}\n")).unwrap();
    text
}

/// `cp -a from to`, replacing `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Add a line to the working kernel (a change the gate's kernel hash sees).
pub fn edit_kernel(dir: &Path, marker: &str) {
    let kernel = dir.join("kernel/gemm.wgsl");
    let mut text = std::fs::read_to_string(&kernel).unwrap();
    text.push_str(&format!("// {marker}\n"));
    std::fs::write(&kernel, text).unwrap();
}

/// `kcamp init` of a GEMM campaign with the target shapes `shapes` (YAML) in a fresh temp
/// directory, with short timing (one warm-up, three repeats) and no git commits.
pub fn gemm_campaign(shapes: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes_file = tmp.path().join("shapes.yaml");
    std::fs::write(&shapes_file, shapes).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcamp"))
        .arg("init")
        .arg(&dir)
        .args(["--op", "gemm", "--shapes"])
        .arg(&shapes_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kcamp init: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    let quick = manifest
        .replace("  warmup: 3", "  warmup: 1")
        .replace("  repeats: 10", "  repeats: 3")
        .replace("git_commit: true", "git_commit: false");
    std::fs::write(dir.join("manifest.yaml"), quick).unwrap();
    (tmp, dir)
}

/// Two measurements of one kernel (its verdicts `a` and `b`, the `report` of each) reach
/// the same judgement: the same verdict, unless a run's units scattered beyond the gate's
/// unstable band. Whether they did is what the machine was doing during that run, not how
/// it was measured (docs/gate.md), so such a run must be NEEDS_REMEASURE and neither may
/// accept.
pub fn assert_same_judgement(a: &Value, b: &Value, what: &str) {
    let unstable = |r: &Value| r["aggregate"]["unstable"] == true;
    if unstable(a) || unstable(b) {
        for r in [a, b] {
            if unstable(r) {
                assert_eq!(r["verdict"], "NEEDS_REMEASURE", "{what}: {r}");
            }
            let v = r["verdict"].as_str().unwrap_or_default();
            assert!(!v.starts_with("ACCEPT"), "{what}: {r}");
        }
    } else {
        assert_eq!(a["verdict"], b["verdict"], "{what}\n{a}\n{b}");
    }
}

/// Alive and not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

/// The command line of `pid`, arguments joined by spaces (empty once it is gone).
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Pids whose parent is `parent`.
pub fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // After the command name: the state, then the parent's pid.
                stat.rsplit(')')
                    .next()
                    .and_then(|rest| rest.split_whitespace().nth(1))
                    .and_then(|p| p.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// The first child of `parent` whose command line contains `needle`.
pub fn child_running(parent: u32, needle: &str) -> Option<u32> {
    children(parent)
        .into_iter()
        .find(|&pid| cmdline(pid).contains(needle))
}

/// Poll `found` until it answers; panics naming `what` after `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut found: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = found() {
            return v;
        }
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the live progress of the campaign at `dir` says a worker is in a case, past the
/// throwaway worker that compiles the kernels first (that one ends within a second).
#[allow(dead_code)]
pub fn in_a_timed_case(dir: &Path) -> bool {
    let Ok(live) = std::fs::read_to_string(dir.join("live/progress.json")) else {
        return false;
    };
    let Ok(doc) = serde_json::from_str::<Value>(&live) else {
        return false;
    };
    doc["phase"]
        .as_str()
        .is_some_and(|p| !p.starts_with("compiling the kernels in a worker of their own"))
}

/// Every file under `dir` with its bytes, to prove a refused command changed nothing.
pub fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.file_type().is_symlink() {
                out.push((
                    rel,
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ));
            } else if meta.is_dir() {
                walk(root, &p, out);
            } else if rel != Path::new(".kcamp.lock") {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// A commit identity for tests that commit (git refuses without one).
pub const GIT_IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "kcamp test"),
    ("GIT_AUTHOR_EMAIL", "test@kcamp.invalid"),
    ("GIT_COMMITTER_NAME", "kcamp test"),
    ("GIT_COMMITTER_EMAIL", "test@kcamp.invalid"),
];

/// `git args...` in `dir` with [`GIT_IDENTITY`], which must succeed; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(GIT_IDENTITY)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Send SIGINT to a running `child` (Ctrl-C) and wait for it to exit.
pub fn interrupt(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    // SAFETY: kill(2) sends a signal to our own child and touches no memory.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    wait_for(what, Duration::from_secs(60), || child.try_wait().unwrap())
}

/// The harness of [`harness_campaign`]: writes the rows of `$KCAMP_SHAPES` from the fixture
/// CSV that the measured kernel directory's file `numbers` names (`numbers.quick` or
/// `numbers.full` first, for numbers that differ by validation), so each kernel snapshot has
/// its own numbers. A kernel directory holding a file `wrong` is wrong on the first target
/// shape a quick validation does not time: the harness checked it untimed and says so in
/// `checked.json` beside the CSV, as a measurer other than the built-in runner does.
pub const RECORDS_HARNESS: &str = r#"#!/bin/sh
set -eu
csv="$1"; kdir="$2"; fixtures="$3"
numbers="$kdir/numbers"
if [ -f "$kdir/numbers.$KCAMP_VALIDATION" ]; then numbers="$kdir/numbers.$KCAMP_VALIDATION"; fi
src="$fixtures/$(cat "$numbers")"
head -n 1 "$src" > "$csv"
for label in $(echo "$KCAMP_SHAPES" | tr ',' ' '); do
  grep "^$label," "$src" >> "$csv"
done
# A kernel with `wrong` in it fails the first shape of a check run (the untimed ones).
if [ -f "$kdir/wrong" ] && [ "$KCAMP_VALIDATION" = check ]; then
  bad="${KCAMP_SHAPES%%,*}"
  sed -i "s/^\($bad,[^,]*,[^,]*,[^,]*,[^,]*\),PASS,/\1,FAIL,/" "$csv"
fi
"#;

/// A folder `root/numbers` holding the fixture CSVs `names`, for [`harness_campaign`].
pub fn numbers(root: &Path, names: &[&str]) -> PathBuf {
    let dir = root.join("numbers");
    std::fs::create_dir_all(&dir).unwrap();
    for name in names {
        std::fs::copy(fixture(&format!("campaign/{name}")), dir.join(name)).unwrap();
    }
    dir
}

/// A campaign (`root/camp`, the fixture shapes, git commits off) measured by
/// [`RECORDS_HARNESS`], which reads its numbers from `fixtures` (a folder of CSVs of the
/// fixture schema); `kernel/numbers` starts as `baseline.csv`.
pub fn harness_campaign(root: &Path, fixtures: &Path) -> PathBuf {
    let dir = init(root);
    std::fs::write(dir.join("harness.sh"), RECORDS_HARNESS).unwrap();
    std::fs::write(dir.join("kernel/numbers"), "baseline.csv").unwrap();
    append_to_manifest(
        &dir,
        &format!(
            "quick_command: \"sh harness.sh {{csv}} {{kernel_dir}} '{}'\"\nharness_files: [harness.sh]\n# The fixture harness knows only the target shapes.\nheld_out: none",
            fixtures.display()
        ),
    );
    dir
}

/// The fixture CSV `name` with every rate scaled by `factor` and every time by its inverse
/// (a kernel `factor` times as fast on every shape), written into `dir`.
pub fn scaled_csv(dir: &Path, name: &str, factor: f64) -> PathBuf {
    let text = std::fs::read_to_string(fixture(&format!("campaign/{name}"))).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut out = header.join(",");
    out.push('\n');
    for line in lines {
        let cells: Vec<String> = line
            .split(',')
            .zip(&header)
            .map(|(cell, col)| match cell.parse::<f64>() {
                Ok(v) if col.contains("TFLOPS") => format!("{}", v * factor),
                Ok(v) if col.contains("Time (ms)") => format!("{}", v / factor),
                _ => cell.to_owned(),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    let path = dir.join(format!("scaled-{factor}-{name}"));
    std::fs::write(&path, out).unwrap();
    path
}

/// A GEMM CSV like `src` with every rate scaled by `factor` (times divided by it) and each
/// rate's stddev `rel_sd` of it, written to `out`; the row `timeout`, if any, becomes
/// TIMEOUT_FAIL with no numbers.
pub fn spread_csv(src: &Path, out: &Path, factor: f64, rel_sd: f64, timeout: Option<&str>) {
    let text = std::fs::read_to_string(src).unwrap();
    let mut lines = text.lines();
    let mut csv = format!("{}\n", lines.next().unwrap());
    for line in lines {
        let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        if Some(cells[0].as_str()) == timeout {
            cells[5] = "TIMEOUT_FAIL".into();
            for c in &mut cells[6..12] {
                c.clear();
            }
        } else {
            for (value, sd) in [(6, 7), (8, 9)] {
                let v = cells[value].parse::<f64>().unwrap() * factor;
                cells[value] = v.to_string();
                cells[sd] = (v * rel_sd).to_string();
            }
            for time in [10, 11] {
                cells[time] = (cells[time].parse::<f64>().unwrap() / factor).to_string();
            }
        }
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    std::fs::write(out, csv).unwrap();
}

/// An error document as a person reads it: its message, then its next steps as the command
/// line prints them (`next: …`, `      or: …`).
#[allow(dead_code)]
pub fn refusal(v: &Value) -> String {
    let mut text = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let steps = v["error"]["next"].as_array().cloned().unwrap_or_default();
    for (i, step) in steps.iter().filter_map(Value::as_str).enumerate() {
        text.push_str(if i == 0 { "\nnext: " } else { "\n      or: " });
        text.push_str(step);
    }
    text
}

/// `kcamp --json -C dir ARGS` in a campaign that commits to git (with an identity).
#[allow(dead_code)]
pub fn in_git(dir: &Path, args: &[&str]) -> Output {
    kcamp(dir)
        .env_remove("GIT_DIR")
        .envs(GIT_IDENTITY)
        .arg("--json")
        .args(args)
        .output()
        .unwrap()
}

/// [`in_git`], which must exit with `code`; its JSON document.
#[allow(dead_code)]
pub fn in_git_ok(dir: &Path, args: &[&str], code: i32) -> Value {
    let out = in_git(dir, args);
    assert_eq!(out.status.code(), Some(code), "{}", describe(args, &out));
    serde_json::from_slice(&out.stdout).unwrap()
}
