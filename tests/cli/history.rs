//! The third audit's git cases through the real binary, each with the fault that found it
//! (docs/reliability.md, "git holds every decision"): a step's commit holds exactly kcamp's
//! own files, ignored or not, and never a file the user staged or left untracked; a git
//! child ends with kcamp; a stale `index.lock` is named; a decision deleted after it was
//! journaled is damage that `repair` rebuilds. CSVs are imported, so no GPU is needed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::common;
use common::{GIT_IDENTITY, csv, describe, edit_kernel, git, in_git, in_git_ok, run};

/// A repository `root` whose `.gitignore` is `ignore`, holding a campaign that commits its
/// steps at `root/camp`, committed as initialised.
fn repo_with_campaign(ignore: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q"]);
    std::fs::write(root.join(".gitignore"), ignore).unwrap();
    let dir = common::init(&root);
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("git_commit: false", "git_commit: true"),
    )
    .unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "init"]);
    (tmp, root, dir)
}

/// Baseline, a round that edits the kernel, its full validation (ACCEPT) and its accept.
fn accepted_round(dir: &Path) -> Vec<Value> {
    vec![
        in_git_ok(dir, &["baseline", "--csv", &csv("baseline.csv")], 0),
        in_git_ok(dir, &["round", "new", "--hypothesis", "tiles"], 0),
        {
            edit_kernel(dir, "tiles");
            in_git_ok(dir, &["validate", "--full", "--csv", &csv("better.csv")], 0)
        },
        in_git_ok(dir, &["accept"], 0),
    ]
}

fn warnings_of(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|s| s.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn files_the_repositorys_gitignore_ignores_are_committed_with_one_warning_naming_the_rule() {
    let (tmp, root, dir) = repo_with_campaign("*.json\n");
    let steps = accepted_round(&dir);
    // The baseline's step meets the rule first: one warning naming it, not one per file.
    let ignored: Vec<String> = warnings_of(&steps[0])
        .into_iter()
        .filter(|w| w.contains("ignore"))
        .collect();
    assert_eq!(ignored.len(), 1, "{}", steps[0]);
    assert!(
        ignored[0].contains(".gitignore:1:*.json") && ignored[0].contains("git add -f"),
        "{ignored:?}"
    );
    let tracked = git(&root, &["ls-files"]);
    for file in [
        "camp/rounds/round-1/decision.json",
        "camp/rounds/round-2/decision.json",
        "camp/rounds/round-2/artifacts/gate.json",
        "camp/rounds/round-2/artifacts/fingerprint.json",
        "camp/memory/v0.json",
        "camp/memory/v1.json",
    ] {
        assert!(tracked.contains(file), "{file} is in no commit: {tracked}");
    }
    assert_eq!(
        git(&root, &["status", "--porcelain", "--ignored", "camp"])
            .lines()
            .filter(|l| !l.contains(".kcamp.lock"))
            .collect::<Vec<_>>(),
        Vec::<&str>::new()
    );
    // A clone has every decision: round 2 is the incumbent there too.
    let clone = tmp.path().join("clone");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            root.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let v = run(&clone.join("camp"), &["status"], 0);
    assert_eq!(v["incumbent"]["round"], 2, "{v}");
    assert!(v["open_round"].is_null(), "{v}");
}

#[test]
fn a_users_staged_and_untracked_files_stay_out_of_kcamps_commits() {
    let (_tmp, root, dir) = repo_with_campaign("");
    in_git_ok(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    std::fs::write(dir.join("notes.txt"), "the user's notes\n").unwrap();
    git(&root, &["add", "camp/notes.txt"]);
    std::fs::write(dir.join("scratch.txt"), "the user's scratch\n").unwrap();
    std::fs::write(root.join("elsewhere.txt"), "outside the campaign\n").unwrap();
    git(&root, &["add", "elsewhere.txt"]);
    in_git_ok(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    in_git_ok(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    in_git_ok(&dir, &["accept"], 0);
    let committed = git(&root, &["log", "--name-only", "--format="]);
    for file in ["notes.txt", "scratch.txt", "elsewhere.txt"] {
        assert!(
            !committed.contains(file),
            "kcamp committed {file}: {committed}"
        );
    }
    assert!(committed.contains("camp/rounds/round-2/decision.json"));
    // Still staged, still untracked, as the user left them.
    let status = git(&root, &["status", "--porcelain"]);
    let mut lines: Vec<&str> = status.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        vec![
            "?? camp/scratch.txt",
            "A  camp/notes.txt",
            "A  elsewhere.txt"
        ],
        "{status}"
    );
}

#[test]
fn a_stale_index_lock_is_named_with_what_to_do_and_the_commit_is_made_once_it_is_gone() {
    let (_tmp, root, dir) = repo_with_campaign("");
    in_git_ok(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    let lock = root.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let out = in_git(&dir, &["round", "new", "--hypothesis", "tiles"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&["round"], &out));
    // This step has no warnings in its JSON: it says them on stderr.
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(
        warned.contains(&lock.display().to_string())
            && warned.contains("no git is running")
            && warned.contains("remove it"),
        "{warned}"
    );
    std::fs::remove_file(&lock).unwrap();
    edit_kernel(&dir, "tiles");
    in_git_ok(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    let subjects = git(&root, &["log", "--format=%s"]);
    assert!(subjects.contains("round 2: opened: tiles"), "{subjects}");
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
}

#[test]
fn a_git_child_ends_with_kcamp_and_leaves_no_index_lock() {
    let (_tmp, root, dir) = repo_with_campaign("");
    in_git_ok(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    let hook = root.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\nsleep 20\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let head = git(&root, &["rev-parse", "HEAD"]);
    let mut child = common::kcamp_process(&dir)
        .env_remove("GIT_DIR")
        .envs(GIT_IDENTITY)
        .args(["--json", "round", "new", "--hypothesis", "tiles"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let git_pid = common::wait_for("kcamp's git commit", Duration::from_secs(60), || {
        common::child_running(pid, "commit")
    });
    child.kill().unwrap();
    child.wait().unwrap();
    common::wait_for("git to end with kcamp", Duration::from_secs(10), || {
        (!common::alive(git_pid)).then_some(())
    });
    assert!(!root.join(".git/index.lock").exists());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        git(&root, &["rev-parse", "HEAD"]),
        head,
        "git committed after kcamp ended"
    );
}

#[test]
fn a_deleted_decision_of_a_decided_round_is_damage_and_repair_rebuilds_it() {
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
    let path = dir.join("rounds/round-2/decision.json");
    let decided: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let v = run(&dir, &["status"], 0);
    assert!(v["open_round"].is_null(), "round 2 reads as open: {v}");
    let damage = v["damage"].to_string();
    assert!(
        damage.contains("rounds/round-2/decision.json") && damage.contains("accept_done"),
        "{v}"
    );
    assert!(v["next"].to_string().contains("repair"), "{v}");
    // Writers refuse, naming the file.
    let v = run(&dir, &["round", "new", "--hypothesis", "next"], 2);
    assert!(
        common::refusal(&v).contains("rounds/round-2/decision.json: missing"),
        "{v}"
    );
    let v = run(&dir, &["repair"], 0);
    assert!(
        v["repaired"]
            .to_string()
            .contains("rounds/round-2/decision.json"),
        "{v}"
    );
    let rebuilt: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(rebuilt["decision"], decided["decision"]);
    assert_eq!(rebuilt["round"], 2);
    let v = run(&dir, &["status"], 0);
    assert_eq!(v["incumbent"]["round"], 2, "{v}");
    assert!(v["damage"].as_array().is_none_or(Vec::is_empty), "{v}");
}
