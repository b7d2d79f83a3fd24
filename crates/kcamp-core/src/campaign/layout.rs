//! Paths and small readers of the campaign directory; the journal and the lock.

use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{Decision, JournalEntry};
use crate::error::IoContext;
use crate::files::{
    ARTIFACTS_DIR, DECISION_FILE, FROZEN_HEADER_FILE, HYPOTHESIS_FILE, JOURNAL_FILE, KERNEL_DIR,
    LOCK_FILE, MANIFEST_FILE, ROUNDS_DIR,
};
use crate::fsutil::{LockGuard, append_line, sync_dir};
use crate::manifest::Manifest;
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
        Ok(incumbent_of(&self.decisions()?))
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

    /// Take the campaign's writer lock for the duration of a command.
    pub fn lock(&self, what: &str) -> Result<LockGuard> {
        LockGuard::acquire(&self.dir.join(LOCK_FILE), what)
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
        append_line(&self.dir.join(JOURNAL_FILE), &line)
    }

    pub fn read_journal(&self) -> Result<Vec<JournalEntry>> {
        read_journal(&self.dir)
    }
}

fn require_manifest(dir: &Path) -> Result<()> {
    if !dir.join(MANIFEST_FILE).is_file() {
        return Err(Error::input(format!(
            "{} is not a campaign: no manifest.yaml (create one with `kcamp init DIR`)",
            dir.display()
        )));
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
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
}

pub fn incumbent_of(decisions: &[(u32, Option<Decision>)]) -> Option<u32> {
    decisions
        .iter()
        .filter(|(_, d)| {
            matches!(
                d.as_ref().map(|d| d.decision),
                Some(DecisionKind::Baseline | DecisionKind::Accepted)
            )
        })
        .map(|(n, _)| *n)
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

/// Parse the journal. A torn last line (a crash mid-append) is skipped; a malformed line
/// elsewhere is an error naming its line number.
pub fn read_journal(campaign: &Path) -> Result<Vec<JournalEntry>> {
    let p = campaign.join(JOURNAL_FILE);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), e)),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<JournalEntry>(line) {
            Ok(e) => out.push(e),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
            Err(e) => {
                return Err(Error::in_file(
                    &p,
                    Some(i as u64 + 1),
                    None,
                    format!("malformed journal line: {e}"),
                ));
            }
        }
    }
    Ok(out)
}

/// Copy a directory tree (regular files and directories only).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).ctx(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).ctx(|| format!("listing {}", from.display()))? {
        let entry = entry.ctx(|| format!("listing {}", from.display()))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let ft = entry
            .file_type()
            .ctx(|| format!("reading {}", src.display()))?;
        if ft.is_dir() {
            copy_tree(&src, &dst)?;
        } else if ft.is_file() {
            std::fs::copy(&src, &dst)
                .ctx(|| format!("copying {} to {}", src.display(), dst.display()))?;
            if let Ok(f) = std::fs::File::open(&dst) {
                let _ = f.sync_all();
            }
        }
    }
    sync_dir(to);
    Ok(())
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

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).ctx(|| format!("listing {}", dir.display()))? {
        let entry = entry.ctx(|| format!("listing {}", dir.display()))?;
        let p = entry.path();
        let ft = entry
            .file_type()
            .ctx(|| format!("reading {}", p.display()))?;
        if ft.is_dir() {
            collect_files(root, &p, out)?;
        } else if ft.is_file() {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
        }
    }
    Ok(())
}
