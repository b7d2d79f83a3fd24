//! What a measurement may change in the campaign: its own output folder, `live/`, `runs/`,
//! staging folders, a round's `rejected/` and the lock and journal kcamp keeps. A harness
//! runs in the campaign directory and could write anywhere; the state of every other file
//! is taken before it runs and compared after, so that a harness that changes the campaign
//! (a decided round's snapshot, the manifest, a record, `kernel/`) fails the measurement,
//! naming what changed, instead of having it recorded and committed as the step's work.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::files::{JOURNAL_FILE, LOCK_FILE, ROUNDS_DIR, RUNS_DIR};
use crate::fsutil::TMP_PREFIX;
use crate::next::NextStep;
use crate::{Error, Result};

/// Size, times and inode of a file, and a hash of its bytes when it is small: a write
/// changes the change time whatever it does to the modification time, but file times are
/// coarse (a few milliseconds), so a small file, which a quick rewrite leaves with the
/// same times and size, is compared by its bytes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dir: bool,
    content: Option<u64>,
}

/// Files up to this size are compared by their bytes as well.
const HASHED_BYTES: u64 = 1 << 20;

fn content_hash(path: &Path) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let bytes = std::fs::read(path).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    Some(h.finish())
}

/// The files of a campaign outside what a measurement may change, as they were.
#[derive(Debug, Clone)]
pub(super) struct Guard {
    root: PathBuf,
    allowed: Vec<PathBuf>,
    files: BTreeMap<PathBuf, Stamp>,
}

impl Guard {
    /// The state of `root`'s files, except under `allowed` (the measurement's output).
    pub(super) fn take(root: &Path, allowed: &[&Path]) -> Result<Guard> {
        let mut g = Guard {
            root: root.to_path_buf(),
            allowed: allowed
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
                .collect(),
            files: BTreeMap::new(),
        };
        let mut files = BTreeMap::new();
        g.walk(root, &mut files)?;
        g.files = files;
        Ok(g)
    }

    /// The files that changed, appeared or went since [`Guard::take`], relative to the
    /// campaign, each with what happened.
    pub(super) fn changed(&self) -> Result<Vec<(PathBuf, &'static str)>> {
        let mut now = BTreeMap::new();
        self.walk(&self.root, &mut now)?;
        let mut out = Vec::new();
        for (p, s) in &now {
            match self.files.get(p) {
                None => out.push((p.clone(), "added")),
                Some(before) if before != s => out.push((p.clone(), "changed")),
                Some(_) => {}
            }
        }
        for p in self.files.keys().filter(|p| !now.contains_key(*p)) {
            out.push((p.clone(), "removed"));
        }
        out.sort();
        Ok(out)
    }

    fn skipped(&self, rel: &Path, abs: &Path) -> bool {
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let top = rel.components().count() == 1;
        (top
            && matches!(
                name.as_ref(),
                LOCK_FILE | JOURNAL_FILE | "journal.jsonl.torn" | "live" | RUNS_DIR | ".git"
            ))
            || name.starts_with(TMP_PREFIX)
            // Staging folders (`.kernel.tmp`, `.round-3.tmp`, `.held-out.tmp`) and the
            // copies a swap keeps until it is complete.
            || (name.starts_with('.') && (name.ends_with(".tmp") || name.ends_with(".old")))
            || (name == "rejected" && rel.starts_with(ROUNDS_DIR))
            || self.allowed.iter().any(|a| abs.starts_with(a))
    }

    fn walk(&self, dir: &Path, out: &mut BTreeMap<PathBuf, Stamp>) -> Result<()> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            // Moved by a rename a moment ago: what is in it is seen where it went.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(format!("listing {}", dir.display()), e)),
        };
        for entry in entries.flatten() {
            let abs = entry.path();
            let rel = abs.strip_prefix(&self.root).unwrap_or(&abs).to_path_buf();
            let abs = std::path::absolute(&abs).unwrap_or(abs);
            if self.skipped(&rel, &abs) {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(&abs) else {
                continue;
            };
            let stamp = Stamp {
                len: meta.len(),
                mtime: (meta.mtime(), meta.mtime_nsec()),
                ctime: (meta.ctime(), meta.ctime_nsec()),
                ino: meta.ino(),
                dir: meta.is_dir(),
                content: (meta.is_file() && meta.len() <= HASHED_BYTES)
                    .then(|| content_hash(&abs))
                    .flatten(),
            };
            if meta.is_dir() {
                // A directory's own times change with its entries, which are compared
                // one by one; only its appearing or going counts.
                out.insert(
                    rel,
                    Stamp {
                        len: 0,
                        mtime: (0, 0),
                        ctime: (0, 0),
                        ..stamp
                    },
                );
                self.walk(&abs, out)?;
            } else {
                out.insert(rel, stamp);
            }
        }
        Ok(())
    }
}

/// Run `measure` (a measurer writing into `allowed`) and refuse what it gave when anything
/// else in the campaign changed meanwhile.
pub(super) fn guarded<T>(
    campaign: &Path,
    allowed: &[&Path],
    measure: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let guard = Guard::take(campaign, allowed)?;
    let out = measure()?;
    let changed = guard.changed()?;
    if changed.is_empty() {
        Ok(out)
    } else {
        Err(refusal(&changed))
    }
}

/// The refusal of a measurement during which the campaign's files changed.
pub(super) fn refusal(changed: &[(PathBuf, &'static str)]) -> Error {
    const SHOWN: usize = 8;
    let mut listed: Vec<String> = changed
        .iter()
        .take(SHOWN)
        .map(|(p, how)| format!("{} ({how})", p.display()))
        .collect();
    if changed.len() > SHOWN {
        listed.push(format!("and {} more", changed.len() - SHOWN));
    }
    Error::state(
        format!(
            "files of the campaign outside the measurement's own folder changed while it ran: {}. A harness writes only in the folder of its {{csv}}, and nothing else may change a campaign during a measurement, so nothing was recorded.",
            listed.join(", ")
        ),
        vec![NextStep::by_hand(
            "put them back (a decided round's files with kcamp repair, from the git history; the rest with git checkout -- FILE or an editor), make the harness write beside its {csv}, and measure again",
        )],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_outside_the_allowed_folders_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("rounds/round-1/kernel")).unwrap();
        std::fs::create_dir_all(root.join("rounds/round-2/.artifacts.tmp")).unwrap();
        std::fs::create_dir_all(root.join("live")).unwrap();
        std::fs::write(root.join("rounds/round-1/kernel/gemm.wgsl"), "a").unwrap();
        std::fs::write(root.join("manifest.yaml"), "m").unwrap();
        std::fs::write(root.join("gone.txt"), "x").unwrap();
        let out = root.join("rounds/round-2/.artifacts.tmp");
        let g = Guard::take(root, &[&out]).unwrap();
        assert!(g.changed().unwrap().is_empty());
        // What a measurement may write.
        std::fs::write(out.join("benchmark.csv"), "csv").unwrap();
        std::fs::write(root.join("live/progress.json"), "{}").unwrap();
        std::fs::write(root.join("journal.jsonl"), "{}\n").unwrap();
        std::fs::create_dir_all(root.join("rounds/round-2/rejected")).unwrap();
        std::fs::write(root.join("rounds/round-2/rejected/x.csv"), "x").unwrap();
        assert!(g.changed().unwrap().is_empty(), "{:?}", g.changed());
        // What it may not.
        std::fs::write(root.join("rounds/round-1/kernel/gemm.wgsl"), "b").unwrap();
        std::fs::write(root.join("notes.txt"), "n").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        let changed = g.changed().unwrap();
        assert_eq!(
            changed,
            vec![
                (PathBuf::from("gone.txt"), "removed"),
                (PathBuf::from("notes.txt"), "added"),
                (PathBuf::from("rounds/round-1/kernel/gemm.wgsl"), "changed"),
            ]
        );
        let e = refusal(&changed).to_string();
        assert!(
            e.contains("rounds/round-1/kernel/gemm.wgsl (changed)"),
            "{e}"
        );
    }
}
