//! `kcamp diff`: what changed between two kernels of a campaign — two rounds' snapshots
//! (`rounds/round-N/kernel/`), or a round's snapshot and the working `kernel/` — as unified
//! diffs, file by file. Reads only.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use similar::TextDiff;

use super::layout::{round_dir, round_numbers};
use crate::files::KERNEL_DIR;
use crate::{Error, Result};

/// Lines of context around each change, as `diff -u` and git print them.
const CONTEXT_LINES: usize = 3;

/// One side of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "round")]
pub enum KernelSide {
    /// Round N's kernel snapshot.
    Round(u32),
    /// The working `kernel/`.
    Working,
}

impl KernelSide {
    /// `r3`, `kernel/`: how the headers of the diff name it.
    pub fn name(self) -> String {
        match self {
            KernelSide::Round(n) => format!("r{n}"),
            KernelSide::Working => format!("{KERNEL_DIR}/"),
        }
    }

    fn dir(self, campaign: &Path) -> PathBuf {
        match self {
            KernelSide::Round(n) => round_dir(campaign, n).join(KERNEL_DIR),
            KernelSide::Working => campaign.join(KERNEL_DIR),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Removed,
    Modified,
    Unchanged,
}

/// One file of the kernel directory, on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileDiff {
    /// Relative to the kernel directory (`gemm.wgsl`).
    pub path: String,
    pub status: FileStatus,
    pub added: usize,
    pub removed: usize,
    /// Either side is not UTF-8 text: changed or not, no lines to show.
    pub binary: bool,
    /// The unified diff (`--- r1/gemm.wgsl`, `+++ r3/gemm.wgsl`, hunks); empty when the
    /// file is unchanged or binary.
    pub diff: String,
}

/// Every file of two kernel directories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelDiff {
    pub from: KernelSide,
    pub to: KernelSide,
    pub files: Vec<FileDiff>,
}

impl KernelDiff {
    /// Files that differ.
    pub fn changed(&self) -> impl Iterator<Item = &FileDiff> {
        self.files
            .iter()
            .filter(|f| f.status != FileStatus::Unchanged)
    }

    /// Lines added and removed over every file.
    pub fn totals(&self) -> (usize, usize) {
        self.files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed))
    }

    /// `2 files changed, +14 −3 (r1 → r3)`, or that nothing did.
    pub fn summary(&self) -> String {
        let changed = self.changed().count();
        let (from, to) = (self.from.name(), self.to.name());
        if changed == 0 {
            return format!("no change between {from} and {to}");
        }
        let (added, removed) = self.totals();
        format!(
            "{} changed, +{added} −{removed} ({from} → {to})",
            crate::text::count(changed, "file")
        )
    }

    /// Every file's diff, one after the other: what `kcamp diff` prints.
    pub fn unified(&self) -> String {
        let mut out = String::new();
        for f in self.changed() {
            if f.binary {
                out.push_str(&format!(
                    "binary file {} differs ({} → {})\n",
                    f.path,
                    self.from.name(),
                    self.to.name()
                ));
            } else {
                out.push_str(&f.diff);
            }
        }
        out
    }
}

/// The files under `dir`, relative to it, sorted; none when it does not exist.
fn files_under(dir: &Path) -> Result<Vec<String>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            if kind.is_dir() {
                walk(root, &path, out)?;
            } else if kind.is_file() {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                out.push(rel.to_string_lossy().into_owned());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if dir.is_dir() {
        walk(dir, dir, &mut out)?;
    }
    out.sort();
    Ok(out)
}

fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", path.display()), e)),
    }
}

/// A file's text: empty when it is not there, None when it is not UTF-8.
fn as_text(bytes: &Option<Vec<u8>>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(b) => std::str::from_utf8(b).ok(),
    }
}

/// The unified diff of one file; (added, removed) lines.
fn diff_text(old: &str, new: &str, old_name: &str, new_name: &str) -> (String, usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .missing_newline_hint(true)
        .header(old_name, new_name)
        .to_string();
    (text, added, removed)
}

/// Why a side cannot be diffed: a round that does not exist, or one never measured (its
/// kernel is snapshotted when it is validated).
fn check_side(c: &Path, side: KernelSide) -> Result<()> {
    let KernelSide::Round(n) = side else {
        return Ok(());
    };
    if !round_dir(c, n).is_dir() {
        return Err(Error::input(format!(
            "round {n} does not exist (rounds: {})",
            round_numbers(c)?
                .iter()
                .map(|r| format!("r{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if !side.dir(c).is_dir() {
        return Err(Error::State(format!(
            "round {n} has no kernel snapshot ({} is missing): a round's kernel is kept when it is validated, and round {n} never was",
            side.dir(c).display()
        )));
    }
    Ok(())
}

/// The kernel of `from` against that of `to`, in the campaign directory `c`.
pub fn kernel_diff(c: &Path, from: KernelSide, to: KernelSide) -> Result<KernelDiff> {
    check_side(c, from)?;
    check_side(c, to)?;
    let (from_dir, to_dir) = (from.dir(c), to.dir(c));
    let mut paths = files_under(&from_dir)?;
    paths.extend(files_under(&to_dir)?);
    paths.sort();
    paths.dedup();
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let old = read(&from_dir.join(&path))?;
        let new = read(&to_dir.join(&path))?;
        let status = match (&old, &new) {
            (None, _) => FileStatus::Added,
            (_, None) => FileStatus::Removed,
            (Some(a), Some(b)) if a == b => FileStatus::Unchanged,
            _ => FileStatus::Modified,
        };
        let (diff, added, removed, binary) = match (as_text(&old), as_text(&new)) {
            _ if status == FileStatus::Unchanged => (String::new(), 0, 0, false),
            (Some(a), Some(b)) => {
                // A file that is not there reads as /dev/null, as in `diff -N`.
                let name = |side: KernelSide, exists: bool| {
                    if exists {
                        format!("{}/{path}", side.name().trim_end_matches('/'))
                    } else {
                        "/dev/null".to_owned()
                    }
                };
                let (d, a, r) =
                    diff_text(a, b, &name(from, old.is_some()), &name(to, new.is_some()));
                (d, a, r, false)
            }
            _ => (String::new(), 0, 0, true),
        };
        files.push(FileDiff {
            path,
            status,
            added,
            removed,
            binary,
            diff,
        });
    }
    Ok(KernelDiff { from, to, files })
}

/// A round named on the command line: `3` or `r3`.
pub fn parse_round(text: &str) -> Result<u32> {
    let digits = text.strip_prefix(['r', 'R']).unwrap_or(text);
    digits.parse::<u32>().map_err(|_| {
        Error::input(format!(
            "`{text}` names no kernel: give a round's number (`3` or `r3`), or `kernel` for the working kernel/"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: PathBuf, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn two_snapshots_and_the_working_kernel_are_diffed_file_by_file() {
        let tmp = tempfile::tempdir().unwrap();
        let c = tmp.path();
        let r1 = round_dir(c, 1).join(KERNEL_DIR);
        let r2 = round_dir(c, 2).join(KERNEL_DIR);
        write(r1.join("gemm.wgsl"), "a\nb\nc\n");
        write(r1.join("old.wgsl"), "gone\n");
        write(r1.join("kernel.yaml"), "same\n");
        write(r2.join("gemm.wgsl"), "a\nB\nc\nd\n");
        write(r2.join("kernel.yaml"), "same\n");
        write(r2.join("sub/new.wgsl"), "new\n");
        let d = kernel_diff(c, KernelSide::Round(1), KernelSide::Round(2)).unwrap();
        let status: Vec<(&str, FileStatus)> = d
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(
            status,
            [
                ("gemm.wgsl", FileStatus::Modified),
                ("kernel.yaml", FileStatus::Unchanged),
                ("old.wgsl", FileStatus::Removed),
                ("sub/new.wgsl", FileStatus::Added),
            ]
        );
        let gemm = &d.files[0];
        assert_eq!((gemm.added, gemm.removed), (2, 1));
        assert!(
            gemm.diff
                .starts_with("--- r1/gemm.wgsl\n+++ r2/gemm.wgsl\n@@"),
            "{}",
            gemm.diff
        );
        assert!(gemm.diff.contains("\n-b\n+B\n"), "{}", gemm.diff);
        assert!(
            d.files[2].diff.contains("+++ /dev/null"),
            "{}",
            d.files[2].diff
        );
        assert_eq!(d.summary(), "3 files changed, +3 −2 (r1 → r2)");
        assert!(!d.unified().contains("kernel.yaml"));
        // The working kernel, against round 2: nothing differs.
        write(c.join("kernel/gemm.wgsl"), "a\nB\nc\nd\n");
        write(c.join("kernel/kernel.yaml"), "same\n");
        write(c.join("kernel/sub/new.wgsl"), "new\n");
        let same = kernel_diff(c, KernelSide::Round(2), KernelSide::Working).unwrap();
        assert_eq!(same.changed().count(), 0);
        assert_eq!(same.summary(), "no change between r2 and kernel/");
    }

    #[test]
    fn a_round_without_a_snapshot_or_that_does_not_exist_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let c = tmp.path();
        std::fs::create_dir_all(round_dir(c, 1).join(KERNEL_DIR)).unwrap();
        std::fs::create_dir_all(round_dir(c, 2)).unwrap();
        let err = kernel_diff(c, KernelSide::Round(1), KernelSide::Round(2)).unwrap_err();
        assert!(
            err.to_string().contains("round 2 has no kernel snapshot"),
            "{err}"
        );
        let err = kernel_diff(c, KernelSide::Round(9), KernelSide::Working).unwrap_err();
        assert!(
            err.to_string()
                .contains("round 9 does not exist (rounds: r1, r2)"),
            "{err}"
        );
        assert_eq!(parse_round("r12").unwrap(), 12);
        assert_eq!(parse_round("7").unwrap(), 7);
        assert!(parse_round("head").is_err());
    }
}
