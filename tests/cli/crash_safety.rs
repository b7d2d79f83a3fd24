//! Crash, disk-full and concurrency safety through the real binary (docs/reliability.md).
//!
//! - A kill at every file-system step of baseline, round new, validate, accept and rollback
//!   (`KCAMP_KILL_AT_FS_STEP=N`, a SIGKILL just before the N-th write, rename, append or
//!   removal) leaves a campaign that readers can read and that the next command brings to
//!   exactly the state an uninterrupted run reaches.
//! - A full disk never leaves a torn journal line (a real small tmpfs where the machine
//!   allows mounting one, else an injected ENOSPC).
//! - Readers never make writers fail.
//!
//! CSVs are imported (tests/fixtures/campaign), so no GPU is needed.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use common::{append_to_manifest, copy_dir, csv, describe, edit_kernel, init, kcamp, output, run};

/// Every file of the campaign that defines its state, with what legitimately differs
/// between two runs (times, the machine's load average, pids, the journal, the lock) left
/// out, as path → content.
fn digest(dir: &Path) -> BTreeMap<String, String> {
    digest_of(dir, false)
}

/// [`digest`]; with `sweep`, what differs between two copies of a campaign measured by a
/// harness in a git work tree is left out too: the commit hashes the records name (they hold
/// commit times), `.git`, the harness's log, seeds and seconds, and the campaign's own path.
pub(crate) fn digest_of(dir: &Path, sweep: bool) -> BTreeMap<String, String> {
    fn scrub(v: &mut Value, git: bool) {
        match v {
            Value::Object(m) => {
                for key in ["time", "timestamp", "load"] {
                    m.remove(key);
                }
                if git {
                    for key in ["git_commit", "git_commit_hash", "commit", "seed", "seconds"] {
                        m.remove(key);
                    }
                }
                m.values_mut().for_each(|v| scrub(v, git));
            }
            Value::Array(a) => a.iter_mut().for_each(|v| scrub(v, git)),
            _ => {}
        }
    }
    fn walk(root: &Path, d: &Path, out: &mut BTreeMap<String, String>, git: bool) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if matches!(
                name.as_str(),
                "journal.jsonl" | ".kcamp.lock" | "validations.jsonl" | "live" | ".git"
            ) || (name.ends_with(".md") && name != "hypothesis.md")
                || (git && name == "harness.log")
            {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(root, &p, out, git);
                continue;
            }
            let mut text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            if git {
                text = text.replace(&root.display().to_string(), "[CAMPAIGN]");
            }
            let text = if name.ends_with(".json") {
                let mut v: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{rel} is not JSON ({e}): {text}"));
                scrub(&mut v, git);
                v.to_string()
            } else {
                text
            };
            out.insert(rel, text);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out, sweep);
    out
}

/// Nothing a killed command staged may survive the next writing command.
fn assert_no_leftovers(dir: &Path, context: &str) {
    let found = leftovers(dir);
    assert!(found.is_empty(), "{context}: left behind {found:?}");
}

/// Staging, temp and torn files under `dir`.
pub(crate) fn leftovers(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, found: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with(".kcamp-tmp-")
                || name.ends_with(".tmp")
                || name.ends_with(".old")
                || name.ends_with(".torn")
            {
                found.push(p.clone());
            }
            if p.is_dir() && !p.is_symlink() && !p.ends_with(".git") {
                walk(&p, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found
}

/// The journal ends with a newline and every line parses.
fn assert_journal_whole(dir: &Path, context: &str) {
    if let Err(e) = assert_journal_whole_or(dir) {
        panic!("{context}: {e}");
    }
}

/// [`assert_journal_whole`], as a result.
pub(crate) fn assert_journal_whole_or(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    if !text.ends_with('\n') {
        return Err(format!("torn journal: {text}"));
    }
    for (i, line) in text.lines().enumerate() {
        if let Err(e) = serde_json::from_str::<Value>(line) {
            return Err(format!("journal line {} ({e}): {line}", i + 1));
        }
    }
    Ok(())
}

/// A scenario: a campaign state, one command, and the exit codes a retry may give.
struct Scenario<'a> {
    name: &'a str,
    template: &'a Path,
    args: Vec<String>,
    /// Exit code of the command run without a kill.
    code: i32,
    /// Accepts the retry's outcome when the killed run had already committed (e.g. `round
    /// new` says the round is open).
    retry_ok: &'a dyn Fn(&Output) -> bool,
}

/// Kill the command at every file-system step in turn. After each kill: `status` and `log`
/// read the campaign (exit 0), the retried command succeeds, and the campaign then equals
/// the one an uninterrupted run leaves (`digest`), with no staging, temp or torn files.
fn kill_at_every_step(s: &Scenario<'_>) {
    let work = tempfile::tempdir().unwrap();
    let args: Vec<&str> = s.args.iter().map(String::as_str).collect();
    let reference = work.path().join("reference");
    copy_dir(s.template, &reference);
    run(&reference, &args, s.code);
    let expected = digest(&reference);
    for step in 1..=400 {
        let dir = work.path().join(format!("step{step}"));
        copy_dir(s.template, &dir);
        let out = kcamp(&dir)
            .args(&args)
            .env("KCAMP_KILL_AT_FS_STEP", step.to_string())
            .output()
            .unwrap();
        if out.status.signal() != Some(libc::SIGKILL) {
            assert_eq!(out.status.code(), Some(s.code), "{}", describe(&args, &out));
            let kills = step - 1;
            assert!(kills > 3, "{}: only {kills} steps were killed", s.name);
            assert_eq!(
                digest(&dir),
                expected,
                "{}: uninterrupted run differs",
                s.name
            );
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        let context = format!(
            "{} killed at step {step} ({})",
            s.name,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        for reader in [&["status"][..], &["log"][..]] {
            let r = output(&dir, reader);
            assert_eq!(
                r.status.code(),
                Some(0),
                "{context}: {}",
                describe(reader, &r)
            );
        }
        let retry = output(&dir, &args);
        assert!(
            retry.status.code() == Some(s.code) || (s.retry_ok)(&retry),
            "{context}: retry: {}",
            describe(&args, &retry)
        );
        assert_no_leftovers(&dir, &context);
        assert_journal_whole(&dir, &context);
        let got = digest(&dir);
        if got != expected {
            let differ: Vec<&String> = expected
                .keys()
                .chain(got.keys())
                .filter(|k| expected.get(*k) != got.get(*k))
                .collect();
            panic!(
                "{context}: after the retry the campaign differs from an uninterrupted run in {differ:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    panic!("{}: still killed after 400 steps", s.name);
}

fn never(_: &Output) -> bool {
    false
}

/// [`kill_at_every_step`] of `args` from `template`, which exits `code` uninterrupted and
/// whose retry must give the same.
pub(crate) fn kill_at_every_step_of(name: &str, template: &Path, args: &[&str], code: i32) {
    kill_at_every_step(&Scenario {
        name,
        template,
        args: strings(args),
        code,
        retry_ok: &never,
    });
}

fn error_says(out: &Output, text: &str) -> bool {
    out.status.code() == Some(2) && String::from_utf8_lossy(&out.stdout).contains(text)
}

/// Templates: `fresh` (init only), `baselined`, `open` (round 2 open, not validated),
/// `validated` (round 2 validated once with noise.csv, then kernel/ edited again) and
/// `accepted_ready` (round 2 validated with better.csv: ACCEPT).
struct Templates {
    _root: tempfile::TempDir,
    fresh: PathBuf,
    baselined: PathBuf,
    open: PathBuf,
    validated: PathBuf,
    accept_ready: PathBuf,
}

fn templates() -> Templates {
    let root = tempfile::tempdir().unwrap();
    let fresh = init(root.path());
    let baselined = root.path().join("baselined");
    copy_dir(&fresh, &baselined);
    run(&baselined, &["baseline", "--csv", &csv("baseline.csv")], 0);
    let open = root.path().join("open");
    copy_dir(&baselined, &open);
    run(&open, &["round", "new", "--hypothesis", "stage tiles"], 0);
    edit_kernel(&open, "round 2, first version");
    let validated = root.path().join("validated");
    copy_dir(&open, &validated);
    run(
        &validated,
        &["validate", "--full", "--csv", &csv("noise.csv")],
        1,
    );
    edit_kernel(&validated, "round 2, second version");
    let accept_ready = root.path().join("accept_ready");
    copy_dir(&validated, &accept_ready);
    run(
        &accept_ready,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    Templates {
        _root: root,
        fresh,
        baselined,
        open,
        validated,
        accept_ready,
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn kill_at_every_step_of_baseline_and_round_new() {
    let t = templates();
    kill_at_every_step(&Scenario {
        name: "baseline",
        template: &t.fresh,
        args: strings(&["baseline", "--csv", &csv("baseline.csv")]),
        code: 0,
        // Killed after the BASELINE was complete (writing baseline_report.md, which `kcamp
        // report` writes again): the retry truthfully says it is recorded.
        retry_ok: &|o| error_says(o, "BASELINE is already recorded"),
    });
    kill_at_every_step(&Scenario {
        name: "round new",
        template: &t.baselined,
        args: strings(&["round", "new", "--hypothesis", "stage tiles"]),
        code: 0,
        retry_ok: &|o| error_says(o, "round 2 is still open"),
    });
}

/// A kill between the renames of a validation must not lose the round's snapshot
/// (docs/reliability.md, "Kill at any moment").
#[test]
fn kill_at_every_step_of_validate() {
    let t = templates();
    // The first validation of a round (no snapshot yet) and a re-validation (the previous
    // snapshot must survive until the new one is in place).
    kill_at_every_step(&Scenario {
        name: "first validate",
        template: &t.open,
        args: strings(&["validate", "--full", "--csv", &csv("better.csv")]),
        code: 0,
        retry_ok: &never,
    });
    kill_at_every_step(&Scenario {
        name: "re-validate",
        template: &t.validated,
        args: strings(&["validate", "--full", "--csv", &csv("better.csv")]),
        code: 0,
        retry_ok: &never,
    });
}

#[test]
fn kill_at_every_step_of_accept_and_rollback() {
    let t = templates();
    kill_at_every_step(&Scenario {
        name: "accept",
        template: &t.accept_ready,
        args: strings(&["accept"]),
        code: 0,
        retry_ok: &never,
    });
    kill_at_every_step(&Scenario {
        name: "rollback",
        template: &t.validated,
        args: strings(&["rollback", "--reason", "no gain"]),
        code: 0,
        retry_ok: &never,
    });
}

/// A kill between `kernel` → `.kernel.old` and `.kernel.tmp` → `kernel` of a
/// re-validation; the retried validation, accept and a later rollback work.
#[test]
fn killed_revalidation_keeps_the_snapshot_for_accept_and_rollback() {
    let t = templates();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("camp");
    copy_dir(&t.validated, &dir);
    // Find the step that renames the previous snapshot aside, and kill right after it.
    let args = ["validate", "--full", "--csv", &csv("better.csv")];
    let trace = kcamp(&dir)
        .args(args)
        .env("KCAMP_FS_TRACE", "1")
        .env("KCAMP_KILL_AT_FS_STEP", "100000")
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&trace.stderr).into_owned();
    let aside = trace
        .lines()
        .find(|l| l.contains("rename") && l.ends_with("rounds/round-2/.kernel.old"))
        .unwrap_or_else(|| panic!("no rename to .kernel.old in {trace}"));
    let n: u32 = aside
        .split("fs step ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    copy_dir(&t.validated, &dir);
    let out = kcamp(&dir)
        .args(args)
        .env("KCAMP_KILL_AT_FS_STEP", (n + 1).to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "{}", describe(&args, &out));
    assert!(!dir.join("rounds/round-2/kernel").exists());
    run(&dir, &args, 0);
    run(&dir, &["accept"], 0);
    assert!(dir.join("rounds/round-2/kernel/gemm.wgsl").is_file());
    run(&dir, &["round", "new", "--hypothesis", "next"], 0);
    edit_kernel(&dir, "round 3");
    run(&dir, &["rollback", "--reason", "undo"], 0);
    assert_eq!(
        std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(),
        std::fs::read(dir.join("rounds/round-2/kernel/gemm.wgsl")).unwrap()
    );
}

/// A small tmpfs mounted for the test and unmounted when dropped.
struct Tmpfs {
    path: PathBuf,
}

impl Tmpfs {
    fn mount(path: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(path).ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs {
            path: path.to_owned(),
        })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(&self.path)
            .status();
    }
}

/// Pad the journal with a valid line so that its last page has exactly `free` bytes left.
fn pad_journal(dir: &Path, free: usize) {
    let path = dir.join("journal.jsonl");
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let page = 4096;
    let skeleton = r#"{"time":"2026-01-01T00:00:00Z","event":"padding","round":null,"pid":1,"detail":{"pad":""}}"#;
    // Bytes to add so that the file ends `free` bytes before a page boundary.
    let mut need = (2 * page - len % page - free) % page;
    while need < skeleton.len() + 1 {
        need += page;
    }
    let pad = "x".repeat(need - skeleton.len() - 1);
    let line = skeleton.replace(r#""pad":"""#, &format!(r#""pad":"{pad}""#));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    use std::io::Write;
    writeln!(f, "{line}").unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len() as usize % page,
        page - free
    );
}

/// Fill the file system holding `dir` until exactly one page is free (the lock file takes
/// it, so the journal append is the first write that finds no space).
fn fill_disk(dir: &Path) -> PathBuf {
    use std::io::Write;
    let reserve = dir.join("reserve");
    std::fs::write(&reserve, vec![1u8; 4096]).unwrap();
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 4096];
    while f.write_all(&block).is_ok() {}
    drop(f);
    std::fs::remove_file(reserve).unwrap();
    filler
}

/// With the disk full the journal append fails part-way; it must be cut back, never left
/// torn, and the campaign must work again once there is space
/// (docs/reliability.md, "Full disk").
#[test]
fn full_disk_never_tears_the_journal() {
    let t = templates();
    let work = tempfile::tempdir().unwrap();
    let mnt = work.path().join("mnt");
    match Tmpfs::mount(&mnt, "8m") {
        Some(fs) => {
            let dir = fs.path.join("camp");
            copy_dir(&t.accept_ready, &dir);
            for free in [10, 60, 200] {
                pad_journal(&dir, free);
                let filler = fill_disk(&fs.path);
                let out = output(&dir, &["accept"]);
                assert_eq!(
                    out.status.code(),
                    Some(3),
                    "{}",
                    describe(&["accept"], &out)
                );
                assert_journal_whole(
                    &dir,
                    &format!("disk full, {free} bytes free in the last page"),
                );
                std::fs::remove_file(filler).unwrap();
                run(&dir, &["status"], 0);
                run(&dir, &["log"], 0);
            }
            run(&dir, &["accept"], 0);
            run(
                &dir,
                &["round", "new", "--hypothesis", "after the full disk"],
                0,
            );
            assert_journal_whole(&dir, "after space came back");
        }
        None => {
            eprintln!("tmpfs cannot be mounted here: injecting ENOSPC instead");
            let dir = work.path().join("camp");
            copy_dir(&t.accept_ready, &dir);
            let out = kcamp(&dir)
                .arg("accept")
                .env("KCAMP_FAILPOINT", "append:enospc")
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(3),
                "{}",
                describe(&["accept"], &out)
            );
            assert_journal_whole(&dir, "injected ENOSPC");
            run(&dir, &["status"], 0);
            run(&dir, &["accept"], 0);
            run(
                &dir,
                &["round", "new", "--hypothesis", "after the full disk"],
                0,
            );
        }
    }
}

/// A journal that a crash left torn (written by an older kcamp, or by a power loss): readers
/// skip the fragment, the next writer sets it aside once and says so.
#[test]
fn torn_journal_line_is_set_aside_once() {
    let t = templates();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("camp");
    copy_dir(&t.accept_ready, &dir);
    let journal = dir.join("journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str(r#"{"time":"2026-01-01T00:00:00Z","event":"accept_be"#);
    std::fs::write(&journal, &text).unwrap();
    run(&dir, &["status"], 0);
    run(&dir, &["log"], 0);
    let out = output(&dir, &["accept"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        describe(&["accept"], &out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("torn line"),
        "{}",
        describe(&["accept"], &out)
    );
    assert_journal_whole(&dir, "after the repair");
    let repaired = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(repaired.matches("journal_repaired").count(), 1);
    assert!(
        std::fs::read_to_string(dir.join("journal.jsonl.torn"))
            .unwrap()
            .contains("accept_be")
    );
    run(&dir, &["round", "new", "--hypothesis", "next"], 0);
    run(&dir, &["status"], 0);
}

/// Four `status` loops beside a stream of `memory update` writers; no writer may be told
/// the campaign is locked (docs/reliability.md, "Readers and writers").
#[test]
fn readers_never_make_writers_fail() {
    let t = templates();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("camp");
    copy_dir(&t.baselined, &dir);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (dir, stop) = (dir.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let out = output(&dir, &["status"]);
                    assert_eq!(
                        out.status.code(),
                        Some(0),
                        "{}",
                        describe(&["status"], &out)
                    );
                    n += 1;
                }
                n
            })
        })
        .collect();
    for i in 0..150 {
        let set = format!("optimization.action_description=writer {i}");
        let args = ["memory", "update", "--version", "v0", "--set", &set];
        let out = output(&dir, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "writer {i}: {}",
            describe(&args, &out)
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads: u32 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(reads > 10, "the readers ran only {reads} times");
}

/// A lock error names the holder's pid, even right after it took the lock.
#[test]
fn lock_error_names_the_holder_pid() {
    let t = templates();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("camp");
    copy_dir(&t.open, &dir);
    // A harness that holds the lock (through validate) for a while.
    append_to_manifest(
        &dir,
        &format!("quick_command: sleep 3; cp {} {{csv}}", csv("better.csv")),
    );
    let holder = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcamp"))
        .args(["-C"])
        .arg(&dir)
        .args(["validate", "--full"])
        .env("GIT_DIR", "/nonexistent")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let holder_pid = holder.id();
    // Once the holder has the lock (its name is in the lock file), another writer is
    // refused with the holder's pid and command.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(dir.join(".kcamp.lock"))
        .unwrap_or_default()
        .contains("kcamp validate")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "validate never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let v = run(&dir, &["round", "new", "--hypothesis", "x"], 2);
    let message = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let out = holder.wait_with_output().unwrap();
    assert!(
        message.contains(&format!("pid {holder_pid}")) && message.contains("kcamp validate"),
        "{message}\nthe holder: {}",
        describe(&["validate", "--full"], &out)
    );
}
