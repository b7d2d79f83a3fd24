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
use crate::files::{DECISION_FILE, ROUNDS_DIR};

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

/// Whether the campaign is inside a git work tree: `Err` when git cannot answer although a
/// `.git` above the campaign says it is (git missing, broken): a commit that cannot be
/// made then, not a campaign without git.
fn inside_work_tree(c: &Campaign) -> std::result::Result<bool, String> {
    match git(c, &["rev-parse", "--is-inside-work-tree"]) {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim() == "true"),
        Ok(o) if has_git_dir_above(c) && std::env::var_os("GIT_DIR").is_none() => {
            Err(stderr_of(&o))
        }
        Ok(_) => Ok(false),
        Err(e) if has_git_dir_above(c) => Err(e),
        Err(_) => Ok(false),
    }
}

fn has_git_dir_above(c: &Campaign) -> bool {
    std::path::absolute(&c.dir)
        .map(|d| d.ancestors().any(|a| a.join(".git").exists()))
        .unwrap_or(false)
}

/// Exclusions of the rounds whose decision is committed (`rounds/round-N/decision.json` in
/// HEAD): a decided round never changes, so a change to one of its files is not any step's
/// work and is never staged (`kcamp repair` puts it back). A round being decided is staged
/// until its decision is in a commit.
fn decided_rounds(c: &Campaign) -> Vec<String> {
    let Ok(out) = git(
        c,
        &["ls-tree", "-r", "--name-only", "HEAD", "--", ROUNDS_DIR],
    ) else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(&format!("/{DECISION_FILE}")))
        .filter(|dir| {
            dir.strip_prefix(&format!("{ROUNDS_DIR}/round-"))
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .map(|dir| format!(":(exclude,glob){dir}/**"))
        .collect()
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
    if !c.manifest.git_commit {
        return Committed::Off;
    }
    match inside_work_tree(c) {
        Ok(false) => return Committed::Off,
        Ok(true) => {}
        Err(e) => return Committed::Failed(format!("git could not be run: {e}")),
    }
    #[cfg(feature = "test-support")]
    if std::env::var("KCAMP_FAILPOINT").is_ok_and(|v| v == "git:fail") {
        return Committed::Failed("injected git failure (KCAMP_FAILPOINT=git:fail)".into());
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
    let decided = decided_rounds(c);
    let excluded: Vec<&str> = EXCLUDED
        .iter()
        .copied()
        .chain(decided.iter().map(String::as_str))
        .collect();
    let mut add = vec!["add", "-A", "--", "."];
    add.extend(&excluded);
    let added = git(c, &add)?;
    if !added.status.success() {
        return Err(stderr_of(&added));
    }
    let mut diff = vec!["diff", "--cached", "--quiet", "--", "."];
    diff.extend(&excluded);
    let unchanged = git(c, &diff)?.status.success();
    if !unchanged || allow_empty {
        // Only the campaign's paths: changes the user staged elsewhere stay staged.
        let mut commit = vec!["commit", "-q", "-m", message];
        if allow_empty {
            commit.push("--allow-empty");
        }
        commit.extend(["--", "."]);
        commit.extend(&excluded);
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

/// [`commit_all`] for a step that has no list of warnings to return: a refusal is journaled
/// with the step's message (the next writing command makes the commit under it,
/// [`catch_up`]) and said on stderr.
pub fn commit_step(c: &Campaign, round: Option<u32>, message: &str) -> Result<Option<String>> {
    let mut warnings = Vec::new();
    let made = commit_or_journal(c, round, message, false, &mut warnings)?;
    for w in warnings {
        eprintln!("kcamp: warning: {w}");
    }
    Ok(made)
}

/// [`commit_all`]; a refusal is journaled (`git_commit_failed`, with the message) for
/// [`catch_up`] and said in `warnings`.
pub(super) fn commit_or_journal(
    c: &Campaign,
    round: Option<u32>,
    message: &str,
    allow_empty: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<String>> {
    // A reason or hypothesis may hold a bidi override or a control character (refused on
    // the command line, yet possible in a record written by hand): `git log` shows it
    // escaped, as `kcamp log` does, instead of reordering the terminal's text.
    let message = &crate::text::escape_controls(message);
    match commit_all(c, message, allow_empty) {
        Committed::Off => Ok(None),
        Committed::Hash(h) => Ok(Some(h)),
        Committed::Failed(msg) => {
            c.journal(
                "git_commit_failed",
                round,
                json!({"error": msg, "message": message}),
            )?;
            warnings.push(format!(
                "git commit \"{}\" skipped ({}); the next kcamp command that writes makes it",
                message.lines().next().unwrap_or_default(),
                crate::text::quote(&msg, 300)
            ));
            Ok(None)
        }
    }
}

/// The commits that were skipped (journaled `git_commit_failed` after the last
/// `git_caught_up`), made now under their own messages, before the command that calls this
/// writes anything of its own. Returns what was done, for the recovery's report.
pub(super) fn catch_up(c: &Campaign) -> Result<Vec<String>> {
    let journal = c.read_journal()?;
    let since = journal
        .iter()
        .rposition(|e| e.event == "git_caught_up")
        .map_or(0, |i| i + 1);
    let pending: Vec<(Option<u32>, String)> = journal[since..]
        .iter()
        .filter(|e| e.event == "git_commit_failed")
        .filter_map(|e| {
            let m = e.detail.get("message")?.as_str()?;
            Some((e.round, m.to_owned()))
        })
        .collect();
    let Some((round, first)) = pending.first().cloned() else {
        return Ok(Vec::new());
    };
    if matches!(inside_work_tree(c), Ok(false)) || !c.manifest.git_commit {
        return Ok(Vec::new());
    }
    let message = if pending.len() == 1 {
        format!("{first}\n\n(committed late: git could not commit it when the step ran)")
    } else {
        let subject = first.lines().next().unwrap_or_default();
        let steps: Vec<String> = pending
            .iter()
            .map(|(_, m)| format!("- {}", m.lines().next().unwrap_or_default()))
            .collect();
        format!(
            "{subject} (and {} later step(s))\n\n(committed late: git could not commit these steps when they ran)\n{}",
            pending.len() - 1,
            steps.join("\n")
        )
    };
    // Journaled first, so that the entry is part of the commit it announces.
    c.journal(
        "git_caught_up",
        round,
        json!({"messages": pending.iter().map(|(_, m)| m).collect::<Vec<_>>()}),
    )?;
    let mut warnings = Vec::new();
    let made = commit_or_journal(c, round, &message, true, &mut warnings)?;
    Ok(match made {
        Some(_) => vec![format!(
            "made the git commit that was skipped: {}",
            message.lines().next().unwrap_or_default()
        )],
        None => warnings,
    })
}

/// The bytes of `rel` (a path relative to the campaign) in HEAD, when the campaign is in a
/// git work tree whose HEAD has that file: what `kcamp repair` restores from.
pub(super) fn show_head(c: &Campaign, rel: &str) -> Option<Vec<u8>> {
    let out = git(c, &["show", &format!("HEAD:./{rel}")]).ok()?;
    out.status.success().then_some(out.stdout)
}

/// The files under `rel` (a directory relative to the campaign) in HEAD, relative to the
/// campaign.
pub(super) fn files_in_head(c: &Campaign, rel: &str) -> Option<Vec<String>> {
    let out = git(
        c,
        &["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", rel],
    )
    .ok()?;
    if !out.status.success() {
        return None;
    }
    let files: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    (!files.is_empty()).then_some(files)
}

/// A commit message's first line: `round 3: <hypothesis>` cut to a readable length.
pub fn subject(round: u32, what: &str) -> String {
    let mut s = format!("round {round}: {}", what.trim());
    if s.chars().count() > 72 {
        s = s.chars().take(71).collect::<String>() + "…";
    }
    s.replace('\n', " ")
}
