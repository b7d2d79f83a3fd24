//! A decided round's kernel snapshot is immutable: the decision records what it held (a
//! hash per file and of the whole tree), and every restore and every re-measurement of a
//! snapshot checks it against that record first, naming the file that differs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::gate_record::read_gate_record;
use super::layout::{Campaign, collect_files, tree_hash};
use crate::error::IoContext;
use crate::files::KERNEL_DIR;
use crate::next::{Command, NextStep};
use crate::types::DecisionKind;
use crate::{Error, Result};

/// The sha256 of every file of a kernel directory, by its path relative to it.
pub fn file_hashes(dir: &Path) -> Result<BTreeMap<String, String>> {
    use sha2::{Digest, Sha256};
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    let mut out = BTreeMap::new();
    for rel in files {
        let path = dir.join(&rel);
        let bytes = std::fs::read(&path).ctx(|| format!("reading {}", path.display()))?;
        out.insert(
            rel.to_string_lossy().into_owned(),
            format!("{:x}", Sha256::digest(&bytes)),
        );
    }
    Ok(out)
}

/// What a round's snapshot held when the round was decided, as far as its records say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recorded {
    /// The tree hash ([`tree_hash`]).
    pub tree: String,
    /// Per file, where the decision kept them (an older kcamp did not).
    pub files: Option<BTreeMap<String, String>>,
    /// Where the hash comes from, for the message.
    pub source: &'static str,
}

/// The record of round `round`'s snapshot: its decision's, else, for a round an older kcamp
/// accepted, the gate record it was accepted on (accept refused a snapshot that differed
/// from it). None: nothing recorded it (a BASELINE or a rollback decided by an older kcamp).
pub(super) fn recorded(c: &Campaign, round: u32) -> Result<Option<Recorded>> {
    let decision = c.decision(round)?;
    if let Some(d) = &decision
        && let Some(tree) = &d.kernel_hash
    {
        return Ok(Some(Recorded {
            tree: tree.clone(),
            files: d.kernel_files.clone(),
            source: "its decision.json",
        }));
    }
    if decision.is_some_and(|d| d.decision == DecisionKind::Accepted)
        && let Some(g) = read_gate_record(c, round)?
    {
        return Ok(Some(Recorded {
            tree: g.kernel_hash,
            files: None,
            source: "the gate record it was accepted on",
        }));
    }
    Ok(None)
}

/// Refuse (naming the files) a decided round's snapshot that differs from what its records
/// say it held. A round that recorded nothing passes: there is nothing to hold it to.
pub(super) fn verify(c: &Campaign, round: u32) -> Result<()> {
    let snapshot = c.round_dir(round).join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Err(Error::state(
            format!(
                "the kernel snapshot {} of round {round} is missing.",
                snapshot.display()
            ),
            vec![repair_from_git()],
        ));
    }
    let Some(rec) = recorded(c, round)? else {
        return Ok(());
    };
    if tree_hash(&snapshot)? == rec.tree {
        return Ok(());
    }
    let named = match &rec.files {
        Some(files) => differing(&snapshot, files)?,
        None => vec![snapshot.clone()],
    };
    Err(Error::state(
        format!(
            "{} of round {round}'s kernel snapshot differs from what {} recorded when the round was decided: a decided round is never changed, so kcamp will not restore or measure it.",
            list(&named),
            rec.source
        ),
        vec![
            repair_from_git(),
            NextStep::by_hand("put the file back as it was"),
        ],
    ))
}

fn repair_from_git() -> NextStep {
    NextStep::run(Command::Repair)
        .why("restores it from the git history where the campaign commits its steps")
}

/// The files of `snapshot` that differ from `files` (changed, added or missing).
pub(super) fn differing(snapshot: &Path, files: &BTreeMap<String, String>) -> Result<Vec<PathBuf>> {
    let now = file_hashes(snapshot)?;
    let mut out: Vec<PathBuf> = now
        .iter()
        .filter(|(rel, hash)| files.get(*rel) != Some(*hash))
        .map(|(rel, _)| snapshot.join(rel))
        .collect();
    out.extend(
        files
            .keys()
            .filter(|rel| !now.contains_key(*rel))
            .map(|rel| snapshot.join(rel)),
    );
    out.sort();
    Ok(out)
}

/// `a, b and 3 more` of paths.
pub(super) fn list(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    if paths.len() > SHOWN {
        shown.push(format!("{} more", paths.len() - SHOWN));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_files_are_named_changed_added_and_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let k = tmp.path().join("kernel");
        std::fs::create_dir_all(k.join("sub")).unwrap();
        std::fs::write(k.join("a.wgsl"), "a").unwrap();
        std::fs::write(k.join("sub/b.wgsl"), "b").unwrap();
        let recorded = file_hashes(&k).unwrap();
        assert_eq!(recorded.len(), 2);
        assert!(differing(&k, &recorded).unwrap().is_empty());
        std::fs::write(k.join("a.wgsl"), "a2").unwrap();
        std::fs::remove_file(k.join("sub/b.wgsl")).unwrap();
        std::fs::write(k.join("c.wgsl"), "c").unwrap();
        let got = differing(&k, &recorded).unwrap();
        assert_eq!(
            got,
            vec![k.join("a.wgsl"), k.join("c.wgsl"), k.join("sub/b.wgsl")]
        );
    }
}
