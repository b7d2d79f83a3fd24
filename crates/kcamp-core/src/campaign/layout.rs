//! Paths and small readers of the campaign directory; the journal and the lock.

use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{Decision, JournalEntry};
use crate::error::IoContext;
use crate::files::{
    ARTIFACTS_DIR, DECISION_FILE, FROZEN_HEADER_FILE, HYPOTHESIS_FILE, JOURNAL_FILE, KERNEL_DIR,
    LOCK_FILE, MANIFEST_FILE, MEMORY_DIR, ROUNDS_DIR,
};
use crate::fsutil::{LockGuard, append_line, copy_file, create_dir_all, symlink_refused, sync_dir};
use crate::manifest::Manifest;
use crate::next::{Command, NextStep};
use crate::types::DecisionKind;
use crate::{Error, Result};

/// An opened campaign: its directory and parsed manifest.
#[derive(Debug, Clone)]
pub struct Campaign {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

impl Campaign {
    pub fn open(dir: &Path) -> Result<Campaign> {
        require_manifest(dir)?;
        let manifest = Manifest::load(dir)?;
        Ok(Campaign {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    /// Open with the manifest alone (see [`Manifest::load_base`]).
    pub fn open_base(dir: &Path) -> Result<Campaign> {
        require_manifest(dir)?;
        let manifest = Manifest::load_base(dir)?;
        Ok(Campaign {
            dir: dir.to_path_buf(),
            manifest,
        })
    }
    pub fn kernel_dir(&self) -> PathBuf {
        self.dir.join(KERNEL_DIR)
    }

    pub fn rounds_dir(&self) -> PathBuf {
        self.dir.join(ROUNDS_DIR)
    }

    pub fn round_dir(&self, n: u32) -> PathBuf {
        round_dir(&self.dir, n)
    }

    pub fn artifacts_dir(&self, n: u32) -> PathBuf {
        self.round_dir(n).join(ARTIFACTS_DIR)
    }

    /// The header frozen at BASELINE, without its newline.
    pub fn frozen_header(&self) -> Result<Option<String>> {
        read_frozen_header(&self.dir)
    }

    /// Round numbers present on disk, ascending.
    pub fn round_numbers(&self) -> Result<Vec<u32>> {
        round_numbers(&self.dir)
    }

    pub fn decision(&self, n: u32) -> Result<Option<Decision>> {
        read_decision(&self.round_dir(n))
    }

    pub fn decisions(&self) -> Result<Vec<(u32, Option<Decision>)>> {
        self.round_numbers()?
            .into_iter()
            .map(|n| Ok((n, self.decision(n)?)))
            .collect()
    }

    /// The last round that was accepted (or BASELINE).
    pub fn incumbent(&self) -> Result<Option<u32>> {
        let decisions = self.decisions()?;
        Ok(incumbent_of(
            decisions.iter().map(|(n, d)| (*n, d.as_ref())),
        ))
    }

    /// The undecided round, if any. More than one is a corrupt campaign.
    pub fn open_round(&self) -> Result<Option<u32>> {
        let open: Vec<u32> = self
            .decisions()?
            .into_iter()
            .filter(|(_, d)| d.is_none())
            .map(|(n, _)| n)
            .collect();
        match open.as_slice() {
            [] => Ok(None),
            [n] => Ok(Some(*n)),
            many => Err(Error::State(format!(
                "{}: several undecided rounds {:?}; only one round may be open",
                self.rounds_dir().display(),
                many
            ))),
        }
    }

    pub fn hypothesis(&self, n: u32) -> Result<String> {
        let p = self.round_dir(n).join(HYPOTHESIS_FILE);
        Ok(std::fs::read_to_string(&p)
            .ctx(|| format!("reading {}", p.display()))?
            .trim()
            .to_owned())
    }

    /// Take the campaign's writer lock for the duration of a command (see [`lock_campaign`]),
    /// then check that every directory the command may write in (and the journal, which is
    /// appended to) is writable, so that a partly read-only campaign is refused before
    /// anything changes. Decided rounds are never written and may be read-only.
    pub fn lock(&self, what: &str) -> Result<LockGuard> {
        let guard = lock_campaign(&self.dir, what)?;
        let mut places = vec![
            self.dir.clone(),
            self.dir.join(JOURNAL_FILE),
            self.kernel_dir(),
            self.rounds_dir(),
            self.dir.join(MEMORY_DIR),
            self.dir.join("live"),
        ];
        if let Ok(Some(open)) = self.open_round() {
            places.push(self.round_dir(open));
            places.push(self.artifacts_dir(open));
        }
        check_writable(&places)?;
        Ok(guard)
    }

    pub fn journal(
        &self,
        event: &str,
        round: Option<u32>,
        detail: serde_json::Value,
    ) -> Result<()> {
        let entry = JournalEntry {
            time: Utc::now(),
            event: event.to_owned(),
            round,
            pid: std::process::id(),
            detail,
        };
        let line = serde_json::to_string(&entry)
            .map_err(|e| Error::Internal(format!("serializing journal entry: {e}")))?;
        let path = self.dir.join(JOURNAL_FILE);
        if let Some(aside) = append_line(&path, &line)? {
            // Reported once, in the journal itself: the fragment is gone from it now.
            eprintln!(
                "kcamp: warning: {} ended in a torn line ({} bytes, from a crash or a full disk); moved it to {}",
                path.display(),
                aside.bytes,
                aside.saved_to.display()
            );
            let note = JournalEntry {
                event: "journal_repaired".to_owned(),
                round: None,
                detail: serde_json::json!({
                    "torn_bytes": aside.bytes,
                    "saved_to": aside.saved_to,
                }),
                ..entry
            };
            let note = serde_json::to_string(&note)
                .map_err(|e| Error::Internal(format!("serializing journal entry: {e}")))?;
            append_line(&path, &note)?;
        }
        Ok(())
    }

    /// The journal's entries, for a command that writes: a malformed line is an error
    /// naming it (what it held may be a step that recovery must finish) and the repair.
    pub fn read_journal(&self) -> Result<Vec<JournalEntry>> {
        let read = read_journal(&self.dir)?;
        if let Some(bad) = read.malformed.first() {
            return Err(Error::in_file(
                self.dir.join(JOURNAL_FILE),
                Some(bad.line),
                None,
                format!(
                    "malformed journal line ({}): kcamp does not write to a campaign whose journal it cannot read whole, since the line may be a step to finish.",
                    bad.error
                ),
            )
            .with_next(vec![NextStep::run(Command::Repair).why(
                "takes the line from the git history, or sets it aside when it is no step's beginning, or says why it cannot",
            )]));
        }
        Ok(read.entries)
    }
}

/// Take the writer lock of the campaign at `dir`, then check that nothing kcamp writes,
/// deletes or restores there is a symbolic link ([`check_closed_world`]). A missing
/// directory is bad input, not an I/O failure.
pub fn lock_campaign(dir: &Path, what: &str) -> Result<LockGuard> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::input(format!(
                "{} is not a directory: give a campaign directory with -C DIR",
                dir.display()
            )));
        }
        Err(_) => {
            return Err(Error::input(format!(
                "{} does not exist: give a campaign directory with -C DIR",
                dir.display()
            )));
        }
    }
    let lock = dir.join(LOCK_FILE);
    let guard = LockGuard::acquire(&lock, what).map_err(|e| match e {
        Error::Io { source, .. }
            if matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Error::input(format!(
                "{} cannot be created or opened for writing ({source}): the campaign is not writable, nothing was changed",
                lock.display()
            ))
        }
        other => other,
    })?;
    check_closed_world(dir)?;
    Ok(guard)
}

/// Refuse (bad input, naming it) the first of `places` that exists but cannot be written.
pub fn check_writable(places: &[PathBuf]) -> Result<()> {
    for p in places {
        if let Err(e) = rustix::fs::access(p, rustix::fs::Access::WRITE_OK) {
            let e = std::io::Error::from(e);
            if e.kind() == std::io::ErrorKind::NotFound {
                continue;
            }
            return Err(Error::input(format!(
                "{} is not writable ({e}): the command would change it, so nothing was changed",
                p.display()
            )));
        }
    }
    Ok(())
}

/// What kcamp writes, deletes or restores inside a campaign: each must be a real file or
/// directory, never a symbolic link, so that no write can leave the campaign directory.
/// Directories are walked whole except `runs/` and `report/` (their entries only).
const WRITTEN: &[(&str, bool)] = &[
    (LOCK_FILE, false),
    (JOURNAL_FILE, false),
    ("journal.jsonl.torn", false),
    (MANIFEST_FILE, false),
    (FROZEN_HEADER_FILE, false),
    (".gitignore", false),
    ("baseline_report.md", false),
    ("report.md", false),
    (KERNEL_DIR, true),
    (ROUNDS_DIR, true),
    (MEMORY_DIR, true),
    ("live", true),
    ("runs", false),
    ("report", false),
    (".kernel.old", true),
    (".kernel.restore.tmp", true),
];

/// Refuse (bad input, naming the path) a campaign where anything kcamp writes, deletes or
/// restores is a symbolic link or another non-regular file. The campaign directory itself
/// may be reached through a link: that is where the user keeps it.
pub fn check_closed_world(dir: &Path) -> Result<()> {
    for (name, deep) in WRITTEN {
        let p = dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            return Err(symlink_refused(&p));
        }
        if meta.is_dir() {
            check_tree(&p, *deep)?;
        } else if !meta.is_file() {
            return Err(not_regular(&p));
        }
    }
    Ok(())
}

fn not_regular(p: &Path) -> Error {
    Error::input(format!(
        "{} is neither a regular file nor a directory (a device, pipe or socket): kcamp keeps only real files in a campaign",
        p.display()
    ))
}

fn check_tree(dir: &Path, deep: bool) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        // Another writer's rename may have moved it a moment ago.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("listing {}", dir.display()), e)),
    };
    for entry in entries {
        let entry = entry.ctx(|| format!("listing {}", dir.display()))?;
        let Ok(ft) = entry.file_type() else { continue };
        let p = entry.path();
        if ft.is_symlink() {
            return Err(symlink_refused(&p));
        }
        if ft.is_dir() {
            if deep {
                check_tree(&p, true)?;
            }
        } else if !ft.is_file() {
            return Err(not_regular(&p));
        }
    }
    Ok(())
}

fn require_manifest(dir: &Path) -> Result<()> {
    if !dir.join(MANIFEST_FILE).is_file() {
        return Err(crate::manifest::not_a_campaign(dir));
    }
    Ok(())
}

pub fn round_dir(campaign: &Path, n: u32) -> PathBuf {
    campaign.join(ROUNDS_DIR).join(format!("round-{n}"))
}

pub fn round_numbers(campaign: &Path) -> Result<Vec<u32>> {
    let dir = campaign.join(ROUNDS_DIR);
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(format!("listing {}", dir.display()), e)),
    };
    for entry in entries {
        let entry = entry.ctx(|| format!("listing {}", dir.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // Staging directories (`.round-N.tmp`) and stray files are not rounds.
        if let Some(n) = name
            .strip_prefix("round-")
            .and_then(|s| s.parse::<u32>().ok())
            && entry.path().is_dir()
        {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

pub fn read_decision(round_dir: &Path) -> Result<Option<Decision>> {
    let p = round_dir.join(DECISION_FILE);
    match std::fs::read_to_string(&p) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            Error::in_file(
                &p,
                Some(e.line() as u64),
                None,
                format!("malformed decision: {e}"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match journaled_decision(round_dir) {
            // Decided, and its decision deleted: damage to read around and repair, never an
            // open round that a writer would decide again.
            Some(event) => Err(Error::in_file(
                &p,
                None,
                None,
                format!(
                    "missing, though {JOURNAL_FILE} records the round's decision ({event}): it is rebuilt from the journal and the round's gate record, or from git"
                ),
            )),
            None => Ok(None),
        },
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
}

/// The journal's last event that finished a decision of the round at `round_dir`
/// (`baseline_done`, `accept_done`, `rollback_done`), if any. Read only where the round has
/// no decision file, which is the open round alone in a campaign without damage.
fn journaled_decision(round_dir: &Path) -> Option<&'static str> {
    let n: u32 = round_dir
        .file_name()?
        .to_str()?
        .strip_prefix("round-")?
        .parse()
        .ok()?;
    let campaign = round_dir.parent()?.parent()?;
    let journal = read_journal(campaign).ok()?;
    journal
        .entries
        .iter()
        .rev()
        .filter(|e| e.round == Some(n))
        .find_map(|e| {
            ["baseline_done", "accept_done", "rollback_done"]
                .into_iter()
                .find(|done| e.event == *done)
        })
}

/// The newest round decided BASELINE or ACCEPTED, among `(round, its decision)`. Borrowed:
/// a decision holds its whole gate report, too large to copy on every re-read of a round.
pub fn incumbent_of<'a>(
    decisions: impl IntoIterator<Item = (u32, Option<&'a Decision>)>,
) -> Option<u32> {
    decisions
        .into_iter()
        .filter(|(_, d)| {
            matches!(
                d.map(|d| d.decision),
                Some(DecisionKind::Baseline | DecisionKind::Accepted)
            )
        })
        .map(|(n, _)| n)
        .max()
}

pub fn read_frozen_header(campaign: &Path) -> Result<Option<String>> {
    let p = campaign.join(FROZEN_HEADER_FILE);
    match std::fs::read_to_string(&p) {
        Ok(t) => Ok(Some(t.trim_end_matches(['\n', '\r']).to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
}

/// The journal as read: its entries and, when a crash or a full disk cut the last append
/// short, that torn fragment (set aside by the next writer, never fatal).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalRead {
    pub entries: Vec<JournalEntry>,
    /// Bytes of a torn last line (no newline), if there is one.
    pub torn_tail: Option<usize>,
    /// Complete lines that are not journal entries, skipped (`kcamp repair` fixes them).
    pub malformed: Vec<MalformedLine>,
}

/// A complete journal line that does not parse.
#[derive(Debug, Clone, PartialEq)]
pub struct MalformedLine {
    /// 1-based.
    pub line: u64,
    pub error: String,
    /// The line itself.
    pub text: String,
}

/// Parse the journal. A line counts once its newline is written: a torn last line is
/// reported in [`JournalRead::torn_tail`] and skipped; a malformed complete line is skipped
/// and listed in [`JournalRead::malformed`], so readers read around it.
pub fn read_journal(campaign: &Path) -> Result<JournalRead> {
    let p = campaign.join(JOURNAL_FILE);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(JournalRead::default()),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            return Err(Error::in_file(&p, None, None, "not valid UTF-8"));
        }
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), e)),
    };
    let (lines, torn) = crate::fsutil::complete_lines(&text);
    let mut entries = Vec::new();
    let mut malformed = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<JournalEntry>(line) {
            Ok(entry) => entries.push(entry),
            Err(e) => malformed.push(MalformedLine {
                line: number as u64,
                error: crate::text::quote(&e.to_string(), 200),
                text: line.to_owned(),
            }),
        }
    }
    Ok(JournalRead {
        entries,
        torn_tail: torn.map(str::len),
        malformed,
    })
}

/// Copy a directory tree of regular files and directories. A symbolic link or a special
/// file anywhere in it is an error naming it: a snapshot holds real files, never an empty
/// stand-in for a link.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    match std::fs::symlink_metadata(from) {
        Ok(m) if m.file_type().is_symlink() => return Err(symlink_refused(from)),
        Ok(m) if !m.is_dir() => {
            return Err(Error::input(format!(
                "{} is not a directory",
                from.display()
            )));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::input(format!("{} does not exist", from.display())));
        }
        Err(e) => return Err(Error::io(format!("reading {}", from.display()), e)),
    }
    create_dir_all(to)?;
    for entry in std::fs::read_dir(from).ctx(|| format!("listing {}", from.display()))? {
        let entry = entry.ctx(|| format!("listing {}", from.display()))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let ft = entry
            .file_type()
            .ctx(|| format!("reading {}", src.display()))?;
        if ft.is_symlink() {
            return Err(symlink_refused(&src));
        } else if ft.is_dir() {
            copy_tree(&src, &dst)?;
        } else if ft.is_file() {
            copy_file(&src, &dst)?;
        } else {
            return Err(not_regular(&src));
        }
    }
    sync_dir(to)
}

/// A content hash of a directory tree (relative paths and bytes), to tell whether the
/// working kernel still equals a snapshot.
pub fn tree_hash(dir: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut h = Sha256::new();
    for rel in files {
        let bytes = std::fs::read(dir.join(&rel))
            .ctx(|| format!("reading {}", dir.join(&rel).display()))?;
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(format!("{:x}", h.finalize()))
}

pub(super) fn collect_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).ctx(|| format!("listing {}", dir.display()))? {
        let entry = entry.ctx(|| format!("listing {}", dir.display()))?;
        let p = entry.path();
        let ft = entry
            .file_type()
            .ctx(|| format!("reading {}", p.display()))?;
        if ft.is_symlink() {
            return Err(symlink_refused(&p));
        } else if ft.is_dir() {
            collect_files(root, &p, out)?;
        } else if ft.is_file() {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
        } else {
            return Err(not_regular(&p));
        }
    }
    Ok(())
}
