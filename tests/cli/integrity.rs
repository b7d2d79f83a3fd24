//! The second audit's cases through the real binary, each with the fault that found it
//! (docs/reliability.md): decided rounds that never change, history that matches the steps,
//! damage that is read around and repaired, what a harness may and may not leave behind.
//! CSVs are imported or copied by a harness command, so no GPU is needed.

use crate::common::refusal;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use common::{GIT_IDENTITY, csv, describe, edit_kernel, git, in_git_ok, run};

/// A campaign that commits its steps, its own git repository: round 1 from baseline.csv,
/// round 2 open with an edited kernel and validated with better.csv (ACCEPT).
fn git_campaign() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("git_commit: false", "git_commit: true"),
    )
    .unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "init"]);
    in_git_ok(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    in_git_ok(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    in_git_ok(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    (tmp, dir)
}

fn subjects(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--format=%s"])
        .lines()
        .rev()
        .map(str::to_owned)
        .collect()
}

// ---- Decided rounds are immutable ----

#[test]
fn a_tampered_incumbent_snapshot_is_not_restored_nor_committed_and_repair_restores_it() {
    let (_tmp, dir) = git_campaign();
    let snapshot = dir.join("rounds/round-1/kernel/gemm.wgsl");
    let decided = std::fs::read(&snapshot).unwrap();
    let mut tampered = decided.clone();
    tampered.extend_from_slice(b"// appended after the round was decided\n");
    std::fs::write(&snapshot, &tampered).unwrap();
    let kernel = std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap();
    let v = in_git_ok(&dir, &["rollback", "--reason", "no gain"], 2);
    assert!(
        refusal(&v).contains(&snapshot.display().to_string())
            && refusal(&v).contains("kcamp")
            && refusal(&v).contains("repair"),
        "{v}"
    );
    assert_eq!(std::fs::read(dir.join("kernel/gemm.wgsl")).unwrap(), kernel);
    assert!(!dir.join("rounds/round-2/decision.json").exists());
    // A step that commits never stages a decided round's change.
    in_git_ok(&dir, &["accept"], 0);
    let committed = git(&dir, &["log", "--name-only", "--format=", "-3"]);
    assert!(
        !committed.contains("rounds/round-1/"),
        "a step committed the decided round: {committed}"
    );
    assert!(git(&dir, &["status", "--porcelain"]).contains("rounds/round-1/kernel/gemm.wgsl"));
    // `status` says nothing is damaged in the records; repair puts the snapshot back.
    let dry = in_git_ok(&dir, &["repair", "--dry-run"], 0);
    assert!(
        dry["repaired"][0]
            .as_str()
            .unwrap()
            .contains("rounds/round-1/kernel"),
        "{dry}"
    );
    assert_eq!(
        std::fs::read(&snapshot).unwrap(),
        tampered,
        "a dry run changed it"
    );
    in_git_ok(&dir, &["repair"], 0);
    assert_eq!(std::fs::read(&snapshot).unwrap(), decided);
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
    // Nothing in git to restore from: refused, naming the file.
    std::fs::write(dir.join("rounds/round-2/kernel/gemm.wgsl"), b"// gone\n").unwrap();
    std::fs::remove_dir_all(dir.join(".git")).unwrap();
    let v = in_git_ok(&dir, &["repair"], 2);
    let refused = v["refused"][0].as_str().unwrap_or_default();
    assert!(
        refused.contains("rounds/round-2/kernel/gemm.wgsl") && refused.contains("git has no copy"),
        "{v}"
    );
}

#[test]
fn a_harness_that_writes_outside_its_folder_fails_the_measurement_naming_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    common::append_to_manifest(
        &dir,
        &format!(
            "quick_command: echo '// harness' >> rounds/round-1/kernel/gemm.wgsl; echo note > notes.txt; cp {} {{csv}}",
            csv("better.csv")
        ),
    );
    let v = run(&dir, &["validate", "--full"], 2);
    let m = refusal(&v);
    assert!(
        m.contains("rounds/round-1/kernel/gemm.wgsl (changed)")
            && m.contains("notes.txt (added)")
            && m.contains("nothing was recorded"),
        "{v}"
    );
    assert!(!dir.join("rounds/round-2/artifacts").exists());
    assert!(!dir.join("rounds/round-2/.artifacts.tmp").exists());
    assert_eq!(run(&dir, &["status"], 0)["open_round"]["validated"], false);
}

// ---- History that matches the steps ----

#[test]
fn a_skipped_commit_is_journaled_and_made_by_the_next_command_under_its_own_message() {
    let (_tmp, dir) = git_campaign();
    let out = common::kcamp(&dir)
        .env_remove("GIT_DIR")
        .envs(GIT_IDENTITY)
        .env("KCAMP_FAILPOINT", "git:fail")
        .args(["--json", "accept"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        describe(&["accept"], &out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["warnings"].to_string().contains("skipped")
            && v["warnings"]
                .to_string()
                .contains("next kcamp command that writes"),
        "{v}"
    );
    assert!(!git(&dir, &["status", "--porcelain"]).is_empty());
    let before = subjects(&dir).len();
    in_git_ok(&dir, &["round", "new", "--hypothesis", "next"], 0);
    // Made first, under its own message; then the recovery's note; then the new step.
    let s = subjects(&dir);
    assert!(
        s[before].starts_with("round 2: ACCEPTED Forward TFLOPS")
            && s.last().unwrap() == "round 3: opened: next",
        "{s:?}"
    );
    // round 3's commit holds round 3 and its journal line, not round 2's decision.
    let last = git(&dir, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(!last.contains("round-2"), "{last}");
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}

#[test]
fn git_that_cannot_run_is_a_warning_and_its_commit_is_made_later() {
    let (tmp, dir) = git_campaign();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("git"),
        "#!/bin/sh\necho 'git: broken' >&2\nexit 127\n",
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("git"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = common::kcamp(&dir)
        .env_remove("GIT_DIR")
        .envs(GIT_IDENTITY)
        .env("PATH", &path)
        .args(["--json", "rollback", "--reason", "no gain"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        describe(&["rollback"], &out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["warnings"].to_string().contains("git could not be run"),
        "{v}"
    );
    in_git_ok(&dir, &["round", "new", "--hypothesis", "next"], 0);
    let s = subjects(&dir);
    assert!(
        s.iter().any(|x| x.starts_with("round 2: ROLLED_BACK")),
        "{s:?}"
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}

/// A quick ACCEPT under +5% is confirmed by a full validation that overturns it; the kill
/// falls after that validation is recorded and before its rollback is complete. The next
/// command completes the rollback the accept promised, and the retried accept reports it.
#[test]
fn an_overturned_accept_killed_at_any_step_completes_as_its_rollback() {
    let tmp = tempfile::tempdir().unwrap();
    let template = common::init(tmp.path());
    run(&template, &["baseline", "--csv", &csv("baseline.csv")], 0);
    let reps: Vec<String> = run(&template, &["status"], 0)["representative_shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    run(
        &template,
        &["round", "new", "--hypothesis", "small gain"],
        0,
    );
    edit_kernel(&template, "small gain");
    let text = std::fs::read_to_string(common::fixture("campaign/gain3.csv")).unwrap();
    let mut lines = text.lines();
    let mut quick = format!("{}\n", lines.next().unwrap());
    for l in lines.filter(|l| reps.iter().any(|r| l.starts_with(&format!("{r},")))) {
        quick.push_str(l);
        quick.push('\n');
    }
    let quick_csv = tmp.path().join("quick.csv");
    std::fs::write(&quick_csv, quick).unwrap();
    let v = run(
        &template,
        &["validate", "--csv", quick_csv.to_str().unwrap()],
        0,
    );
    assert_eq!(v["needs_full_confirmation"], true, "{v}");
    crate::crash_safety::kill_at_every_step_of(
        "overturned accept",
        &template,
        &["accept", "--csv", &csv("hidden_regression.csv")],
        1,
    );
}

// ---- Degrade, don't brick ----

fn accepted() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    run(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    run(&dir, &["accept"], 0);
    run(&dir, &["round", "new", "--hypothesis", "unroll"], 0);
    (tmp, dir)
}

/// `status` and `log` read around the damage, name the file and line and what repair would
/// do; writers refuse, naming the repair.
fn read_around(dir: &Path, file: &str) {
    for reader in [&["status"][..], &["log"][..]] {
        let v = run(dir, reader, 0);
        let damage = v["damage"].to_string();
        let name = file.split(':').next().unwrap();
        assert!(damage.contains(name), "{reader:?}: {v}");
        assert!(
            v["repair"].to_string().contains("kcamp repair would"),
            "{v}"
        );
        assert!(v["next"].to_string().contains("repair"), "{v}");
        let text = common::kcamp(dir).args(reader).output().unwrap();
        assert_eq!(text.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&text.stdout).contains(file));
    }
}

#[test]
fn a_malformed_journal_line_is_read_around_and_set_aside_by_repair() {
    let (_tmp, dir) = accepted();
    let journal = dir.join("journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap();
    let line = text.lines().count() + 1;
    text.push_str("{\"event\": \"note\", \"round\": \"two\"}\n");
    std::fs::write(&journal, &text).unwrap();
    read_around(&dir, &format!("journal.jsonl:{line}"));
    let v = run(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        2,
    );
    assert!(
        refusal(&v).contains(&format!("journal.jsonl:{line}")) && refusal(&v).contains("repair"),
        "{v}"
    );
    run(&dir, &["repair"], 0);
    assert!(
        std::fs::read_to_string(dir.join("journal.jsonl.bad"))
            .unwrap()
            .contains("\"two\"")
    );
    // Measured and judged again (the incumbent's own numbers: no gain, REJECT).
    run(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        1,
    );
    // A malformed line that may begin a step is not set aside on a guess.
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str("{\"event\": \"rollback_begin\", \"round\": 3,\n");
    text.push_str("{}\n");
    std::fs::write(&journal, &text).unwrap();
    let v = run(&dir, &["repair"], 2);
    assert!(
        v["refused"][0]
            .as_str()
            .unwrap()
            .contains("beginning of a step"),
        "{v}"
    );
}

#[test]
fn a_truncated_decision_is_read_around_and_rebuilt_from_the_journal() {
    let (_tmp, dir) = accepted();
    let path = dir.join("rounds/round-2/decision.json");
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    read_around(&dir, "rounds/round-2/decision.json");
    let v = run(&dir, &["rollback", "--reason", "x"], 2);
    assert!(refusal(&v).contains("decision.json"), "{v}");
    let r = run(&dir, &["repair"], 0);
    assert!(
        r["repaired"][0].as_str().unwrap().contains("accept_done"),
        "{r}"
    );
    let rebuilt: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for key in [
        "decision",
        "parent",
        "verdict",
        "validation",
        "aggregate",
        "aggregate_delta",
    ] {
        assert_eq!(rebuilt[key], whole[key], "{key}");
    }
    assert_eq!(run(&dir, &["status"], 0)["incumbent"]["round"], 2);
    run(&dir, &["rollback", "--reason", "x"], 0);
}

#[test]
fn a_truncated_record_is_read_around_and_rebuilt_from_its_decision() {
    let (_tmp, dir) = accepted();
    let path = dir.join("memory/v1.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 3]).unwrap();
    read_around(&dir, "memory/v1.json");
    run(&dir, &["repair"], 0);
    let v = run(&dir, &["memory", "show", "v1"], 0);
    assert_eq!(v["quality_gate"]["result"], "ACCEPTED (ACCEPT)", "{v}");
    assert!(dir.join("memory/v1.json.bad").is_file());
    assert!(run(&dir, &["status"], 0).get("damage").is_none());
}

#[test]
fn an_undecided_rounds_broken_record_is_not_rebuilt_on_a_guess() {
    let (_tmp, dir) = accepted();
    run(&dir, &["memory", "create", "v2"], 0);
    std::fs::write(dir.join("memory/v2.json"), "{\"version\": ").unwrap();
    let v = run(&dir, &["repair"], 2);
    assert!(
        v["refused"][0].as_str().unwrap().contains("memory/v2.json"),
        "{v}"
    );
}

/// A reason may hold text that reorders a terminal's (a bidi override); the step's commit
/// subject holds it escaped, as `kcamp log` shows it, and decision.json keeps it as given.
#[test]
fn a_bidi_override_in_a_reason_is_escaped_in_the_commit_subject() {
    let (_tmp, dir) = git_campaign();
    let reason = "slower\u{202e}regnaf";
    in_git_ok(&dir, &["rollback", "--reason", reason], 0);
    let subject = subjects(&dir).pop().unwrap();
    assert!(!subject.contains('\u{202e}'), "{subject:?}");
    let both = git(&dir, &["log", "-2", "--format=%s"]);
    assert!(both.contains("slower\\u{202e}regnaf"), "{both:?}");
    let decision: Value =
        serde_json::from_slice(&std::fs::read(dir.join("rounds/round-2/decision.json")).unwrap())
            .unwrap();
    assert_eq!(decision["reason"], reason);
}
