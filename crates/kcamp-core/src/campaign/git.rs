//! Tidy git (`git_commit: true` and the campaign inside a git work tree): every step that
//! writes commits everything it wrote, so the tree is clean after each command and every
//! round's kernel, measurements and decision are in the history.
//!
//! A decision names its commit in `decision.json`, the journal and the record. A file
//! cannot hold the hash of the commit that contains it, so a decision is two commits: the
//! first holds the round's kernel and measurements as decided (its hash is the one every
//! file names), the second the decision file, the record and the journal that name it.

use std::process::{Command, Output};

use serde_json::json;

use super::layout::Campaign;
use crate::Result;

/// Per-process files and staging directories never belong in a commit, whatever the
/// campaign's `.gitignore` says. (Glob forms: git refuses a literal pathspec, even an
/// exclusion, that names a file its `.gitignore` ignores.)
const EXCLUDED: [&str; 6] = [
    ":(exclude,glob)**/.kcamp.lock",
    ":(exclude,glob)**/live/**",
    ":(exclude,glob)**/runs/**",
    ":(exclude,glob)**/.*.tmp/**",
    ":(exclude,glob)**/.kcamp-tmp-*",
    ":(exclude,glob)**/.*.old/**",
];

/// What a commit attempt did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Committed {
    /// `git_commit` is off, or the campaign is not inside a git work tree.
    Off,
    /// The hash of the new commit (or of HEAD when nothing had changed and no empty commit
    /// was asked for).
    Hash(String),
    /// git refused (no identity, a hook...): the message, for a warning.
    Failed(String),
}

impl Committed {
    pub fn hash(&self) -> Option<&str> {
        match self {
            Committed::Hash(h) => Some(h),
            _ => None,
        }
    }
}

fn git(c: &Campaign, args: &[&str]) -> std::result::Result<Output, String> {
    Command::new("git")
        .args(args)
        .current_dir(&c.dir)
        // A hook or an editor must never wait for a terminal inside a kcamp command.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running git: {e}"))
}

fn inside_work_tree(c: &Campaign) -> bool {
    git(c, &["rev-parse", "--is-inside-work-tree"])
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "true")
}

fn stderr_of(o: &Output) -> String {
    let text = String::from_utf8_lossy(&o.stderr).trim().to_owned();
    if text.is_empty() {
        String::from_utf8_lossy(&o.stdout).trim().to_owned()
    } else {
        text
    }
}

/// Commit every change under the campaign directory (and nothing outside it). With
/// `allow_empty`, a commit is made even when nothing changed, so a decision always has a
/// commit of its own. Never an error: a refusal is returned as [`Committed::Failed`].
pub fn commit_all(c: &Campaign, message: &str, allow_empty: bool) -> Committed {
    if !c.manifest.git_commit || !inside_work_tree(c) {
        return Committed::Off;
    }
    match try_commit(c, message, allow_empty) {
        Ok(hash) => Committed::Hash(hash),
        Err(msg) => Committed::Failed(msg),
    }
}

fn try_commit(
    c: &Campaign,
    message: &str,
    allow_empty: bool,
) -> std::result::Result<String, String> {
    let mut add = vec!["add", "-A", "--", "."];
    add.extend(EXCLUDED);
    let added = git(c, &add)?;
    if !added.status.success() {
        return Err(stderr_of(&added));
    }
    let mut diff = vec!["diff", "--cached", "--quiet", "--", "."];
    diff.extend(EXCLUDED);
    let unchanged = git(c, &diff)?.status.success();
    if !unchanged || allow_empty {
        // Only the campaign's paths: changes the user staged elsewhere stay staged.
        let mut commit = vec!["commit", "-q", "-m", message];
        if allow_empty {
            commit.push("--allow-empty");
        }
        commit.extend(["--", "."]);
        commit.extend(EXCLUDED);
        let done = git(c, &commit)?;
        if !done.status.success() {
            return Err(stderr_of(&done));
        }
    }
    let head = git(c, &["rev-parse", "HEAD"])?;
    if !head.status.success() {
        return Err(stderr_of(&head));
    }
    Ok(String::from_utf8_lossy(&head.stdout).trim().to_owned())
}

/// [`commit_all`] for a step that has no way to report a warning: a refusal is journaled.
pub fn commit_step(c: &Campaign, round: Option<u32>, message: &str) -> Result<Option<String>> {
    match commit_all(c, message, false) {
        Committed::Off => Ok(None),
        Committed::Hash(h) => Ok(Some(h)),
        Committed::Failed(msg) => {
            c.journal("git_commit_failed", round, json!({"error": msg}))?;
            Ok(None)
        }
    }
}

/// A commit message's first line: `round 3: <hypothesis>` cut to a readable length.
pub fn subject(round: u32, what: &str) -> String {
    let mut s = format!("round {round}: {}", what.trim());
    if s.chars().count() > 72 {
        s = s.chars().take(71).collect::<String>() + "…";
    }
    s.replace('\n', " ")
}
