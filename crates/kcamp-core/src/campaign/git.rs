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
use crate::files::{
    BASELINE_REPORT, DECISION_FILE, FROZEN_HEADER_FILE, JOURNAL_FILE, KERNEL_DIR, MANIFEST_FILE,
    MEMORY_DIR, REPORT_DIR, ROUNDS_DIR,
};

/// What a step commits: the campaign's own files and directories (docs/campaign-dir.md,
/// "Layout"), relative to it, and the manifest's `harness_files` inside it. Anything else in
/// the campaign is the user's: a step never stages it, nor commits what the user staged.
const OWN: [&str; 13] = [
    MANIFEST_FILE,
    ".gitignore",
    KERNEL_DIR,
    ROUNDS_DIR,
    MEMORY_DIR,
    FROZEN_HEADER_FILE,
    crate::specs::PEAKS_FILE,
    BASELINE_REPORT,
    "report.md",
    REPORT_DIR,
    JOURNAL_FILE,
    "journal.jsonl.bad",
    super::starter::HARNESS_DIR,
];

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
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(&c.dir)
        // A hook or an editor must never wait for a terminal inside a kcamp command.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .stdin(std::process::Stdio::null());
    end_with_this_process(&mut command);
    command.output().map_err(|e| format!("running git: {e}"))
}

/// What prepares each git child so that it ends with kcamp, however kcamp ends: a commit
/// must never go on (and take `index.lock`) after the step that asked for it is gone. The
/// engine has no unsafe code: the binary gives it the runner's `terminate_with_parent`.
static CHILD_HOOK: std::sync::OnceLock<fn(&mut Command)> = std::sync::OnceLock::new();

/// Set once, at start, what makes a git child end with this process.
pub fn on_git_child(hook: fn(&mut Command)) {
    let _ = CHILD_HOOK.set(hook);
}

fn end_with_this_process(command: &mut Command) {
    if let Some(hook) = CHILD_HOOK.get() {
        hook(command);
    }
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

/// Commit every change to the campaign's own files (and nothing else: [`OWN`]). With
/// `allow_empty`, a commit is made even when nothing changed, so a decision always has a
/// commit of its own. Never an error: a refusal is returned as [`Committed::Failed`].
pub fn commit_all(
    c: &Campaign,
    message: &str,
    allow_empty: bool,
    warnings: &mut Vec<String>,
) -> Committed {
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
    match try_commit(c, message, allow_empty, warnings) {
        Ok(hash) => Committed::Hash(hash),
        Err(msg) => Committed::Failed(msg),
    }
}

fn try_commit(
    c: &Campaign,
    message: &str,
    allow_empty: bool,
    warnings: &mut Vec<String>,
) -> std::result::Result<String, String> {
    let decided = decided_rounds(c);
    let excluded: Vec<&str> = EXCLUDED
        .iter()
        .copied()
        .chain(decided.iter().map(String::as_str))
        .collect();
    let own = own_paths(c);
    let with = |head: &[&str], paths: &[String]| -> Vec<String> {
        head.iter()
            .map(|s| (*s).to_owned())
            .chain(std::iter::once("--".to_owned()))
            .chain(paths.iter().map(|p| format!(":(literal){p}")))
            .chain(excluded.iter().map(|s| (*s).to_owned()))
            .collect()
    };
    // git refuses a path that matches nothing: only those on disk or known to git.
    let tracked = listed(c, &with(&["ls-files", "-z"], &own))?;
    let present: Vec<String> = own
        .iter()
        .filter(|p| c.dir.join(p).symlink_metadata().is_ok() || covers(&tracked, p))
        .cloned()
        .collect();
    if present.is_empty() && !allow_empty {
        return head_hash(c);
    }
    if !present.is_empty() {
        let ignored = listed(
            c,
            &with(
                &[
                    "ls-files",
                    "-z",
                    "--others",
                    "--ignored",
                    "--exclude-standard",
                ],
                &present,
            ),
        )?;
        if let Some(first) = ignored.first() {
            warnings.push(ignored_warning(c, first, ignored.len()));
        }
        run_ok(c, &with(&["add", "-A", "-f"], &present))?;
    }
    // After the add, a path known to the index or to HEAD (a deletion) is one to commit.
    let mut known = listed(c, &with(&["ls-files", "-z"], &present))?;
    if let Ok(in_head) = listed(
        c,
        &with(&["ls-tree", "-r", "-z", "--name-only", "HEAD"], &present),
    ) {
        known.extend(in_head);
    }
    let committed: Vec<String> = present.into_iter().filter(|p| covers(&known, p)).collect();
    let unchanged = committed.is_empty()
        || git_owned(c, &with(&["diff", "--cached", "--quiet"], &committed))?
            .status
            .success();
    if !unchanged || allow_empty {
        // Only kcamp's paths (`--only`): what the user staged stays staged, out of the commit;
        // with `--allow-empty` and no path, an empty commit.
        let mut commit = vec!["commit", "-q", "--only", "-m", message];
        if allow_empty {
            commit.push("--allow-empty");
        }
        let args = if committed.is_empty() {
            commit.iter().map(|s| (*s).to_owned()).collect()
        } else {
            with(&commit, &committed)
        };
        let done = git_owned(c, &args)?;
        if !done.status.success() {
            return Err(explain_lock(c, stderr_of(&done)));
        }
    }
    head_hash(c)
}

/// The campaign's own paths ([`OWN`] and the manifest's `harness_files` inside it).
fn own_paths(c: &Campaign) -> Vec<String> {
    let mut own: Vec<String> = OWN.iter().map(|s| (*s).to_owned()).collect();
    for f in &c.manifest.harness_files {
        let path = std::path::Path::new(f);
        let inside = path
            .components()
            .all(|part| matches!(part, std::path::Component::Normal(_)));
        if inside && !own.iter().any(|o| path.starts_with(o)) {
            own.push(f.clone());
        }
    }
    own
}

/// Whether `path` is one of `files` or a directory holding one.
fn covers(files: &[String], path: &str) -> bool {
    files.iter().any(|f| {
        f == path
            || f.strip_prefix(path)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

fn git_owned(c: &Campaign, args: &[String]) -> std::result::Result<Output, String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    git(c, &args)
}

/// The NUL-separated paths a git command prints.
fn listed(c: &Campaign, args: &[String]) -> std::result::Result<Vec<String>, String> {
    let out = git_owned(c, args)?;
    if !out.status.success() {
        return Err(explain_lock(c, stderr_of(&out)));
    }
    Ok(out
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect())
}

fn run_ok(c: &Campaign, args: &[String]) -> std::result::Result<(), String> {
    let out = git_owned(c, args)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(explain_lock(c, stderr_of(&out)))
    }
}

fn head_hash(c: &Campaign) -> std::result::Result<String, String> {
    let head = git(c, &["rev-parse", "HEAD"])?;
    if !head.status.success() {
        return Err(stderr_of(&head));
    }
    Ok(String::from_utf8_lossy(&head.stdout).trim().to_owned())
}

/// One warning for the step's files that the repository's ignore rules ignore: the rule
/// (`git check-ignore -v`), the first file and how many.
fn ignored_warning(c: &Campaign, first: &str, count: usize) -> String {
    let rule = git(c, &["check-ignore", "-v", "--", first])
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split('\t')
                .next()
                .map(|r| r.trim().to_owned())
        })
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "an ignore rule".to_owned());
    format!(
        "git ignores {} of this step ({rule}, e.g. {first}): kcamp adds them with `git add -f`, so that every decision is in the history",
        crate::text::count(count, "file")
    )
}

/// git's refusal, with what to do when it is the index lock: a git that is running holds
/// it, or one that was killed left it behind.
fn explain_lock(c: &Campaign, stderr: String) -> String {
    if !stderr.contains("index.lock") {
        return stderr;
    }
    let lock = git(c, &["rev-parse", "--git-path", "index.lock"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let p = std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            std::path::absolute(c.dir.join(&p)).unwrap_or(p)
        });
    match lock {
        Some(lock) => format!(
            "{} is held: by a git that is running, or left by one that was killed; if no git is running, remove it ({})",
            lock.display(),
            crate::text::quote(&stderr, 200)
        ),
        None => stderr,
    }
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
    match commit_all(c, message, allow_empty, warnings) {
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
