//! What to re-read after a change, and the partial reads themselves. A burst of file
//! notifications becomes a [`LoadScope`]; only a change the partial reads cannot follow
//! (the manifest, the frozen schema, the kernel settings) reads the whole campaign again.
//! A 1,000-shape × 200-round campaign is some 100 MB of CSV and JSON: re-reading it for
//! every journal line would cost a core.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use kcamp_core::Result;
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::campaign::{CampaignState, JournalEntry, RoundState};
use kcamp_core::files::{
    FROZEN_HEADER_FILE, JOURNAL_FILE, KERNEL_DIR, KERNEL_OVERRIDE_FILE, LOCK_FILE, MANIFEST_FILE,
    MEMORY_DIR, PROGRESS_FILE, ROUNDS_DIR,
};

/// The parts of the campaign to read again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadScope {
    /// Read the whole campaign.
    pub everything: bool,
    pub rounds: BTreeSet<u32>,
    pub journal: bool,
    pub lock: bool,
    pub live: bool,
    /// A file of the working `kernel/` changed (an edit): nothing to read again, but what
    /// it holds against the incumbent is asked anew.
    pub working_kernel: bool,
}

impl LoadScope {
    pub fn everything() -> LoadScope {
        LoadScope {
            everything: true,
            ..LoadScope::default()
        }
    }

    /// The lock holder and the live run: whether a run still goes on.
    pub fn liveness() -> LoadScope {
        LoadScope {
            lock: true,
            live: true,
            ..LoadScope::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.everything && self.rounds.is_empty() && !self.journal && !self.lock && !self.live
    }

    pub fn merge(&mut self, other: LoadScope) {
        self.everything |= other.everything;
        self.rounds.extend(other.rounds);
        self.journal |= other.journal;
        self.lock |= other.lock;
        self.live |= other.live;
        self.working_kernel |= other.working_kernel;
    }

    /// What a change of `path` (under the campaign `dir`) makes stale; empty for files the
    /// dashboard does not show (temp files, staging directories, the working kernel, runs,
    /// reports).
    pub fn of_path(dir: &Path, path: &Path) -> LoadScope {
        let Ok(rel) = path.strip_prefix(dir) else {
            return LoadScope::default();
        };
        let parts: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect();
        // Atomic writes go through `.kcamp-tmp-*`; the rename that follows is the change.
        if parts.iter().any(|p| p.starts_with(".kcamp-tmp-")) {
            return LoadScope::default();
        }
        let mut scope = LoadScope::default();
        match parts.as_slice() {
            [] => scope.everything = true,
            [first, ..] if Path::new(PROGRESS_FILE).starts_with(first) => scope.live = true,
            [name] if *name == LOCK_FILE => scope.lock = true,
            [name] if *name == JOURNAL_FILE => scope.journal = true,
            [name] if *name == MANIFEST_FILE || *name == FROZEN_HEADER_FILE => {
                scope.everything = true
            }
            // The kernel settings live in the manifest's `kernel:` section once read; the
            // kernel directory itself is replaced as a whole by a rollback.
            [kernel] if *kernel == KERNEL_DIR => {
                scope.everything = true;
                scope.working_kernel = true;
            }
            [_, _] if rel == Path::new(KERNEL_OVERRIDE_FILE) => {
                scope.everything = true;
                scope.working_kernel = true;
            }
            // An editor's swap and backup files are no edit of the kernel.
            [kernel, .., file] if *kernel == KERNEL_DIR => {
                scope.working_kernel = !(file.starts_with('.')
                    || file.ends_with('~')
                    || file.ends_with(".swp")
                    || file.ends_with(".swx")
                    || file.starts_with('#')
                    || file.chars().all(|c| c.is_ascii_digit()));
            }
            [rounds] if *rounds == ROUNDS_DIR => scope.everything = true,
            [rounds, round, rest @ ..] if *rounds == ROUNDS_DIR => {
                let staging = rest.first().is_some_and(|p| {
                    p.starts_with('.') && (p.ends_with(".tmp") || p.ends_with(".old"))
                });
                if let Some(n) = round
                    .strip_prefix("round-")
                    .and_then(|n| n.parse::<u32>().ok())
                    && !staging
                {
                    scope.rounds.insert(n);
                }
            }
            [memory, file] if *memory == MEMORY_DIR => {
                // `v<N>.json` belongs to round N + 1.
                if let Some(n) = file
                    .strip_prefix('v')
                    .and_then(|f| f.strip_suffix(".json"))
                    .and_then(|n| n.parse::<u32>().ok())
                {
                    scope.rounds.insert(n + 1);
                }
            }
            _ => {}
        }
        scope
    }
}

/// One shape's samples in the primary metric: round `round`'s, and the incumbent's it was
/// judged against — measured in the same run (`paired_samples.csv`) where the run was
/// paired, else the incumbent round's own.
pub fn read_shape_samples(
    dir: &Path,
    round: u32,
    parent: Option<u32>,
    label: &str,
    metric: &str,
) -> std::result::Result<crate::popups::shape::ShapeSamples, String> {
    use kcamp_core::files::{ARTIFACTS_DIR, PAIRED_SAMPLES_CSV, SAMPLES_CSV};
    use kcamp_core::schema::Samples;
    let artifacts = |n: u32| {
        dir.join(ROUNDS_DIR)
            .join(format!("round-{n}"))
            .join(ARTIFACTS_DIR)
    };
    let read = |path: &Path| -> std::result::Result<Vec<f64>, String> {
        if !path.is_file() {
            return Ok(Vec::new());
        }
        Samples::read(path)
            .map(|s| s.values(label, metric))
            .map_err(|e| e.to_string())
    };
    let candidate = read(&artifacts(round).join(SAMPLES_CSV))?;
    let paired = artifacts(round).join(PAIRED_SAMPLES_CSV);
    let (incumbent, incumbent_source) = if paired.is_file() {
        (
            read(&paired)?,
            "measured in the same run, interleaved".to_owned(),
        )
    } else if let Some(p) = parent {
        (
            read(&artifacts(p).join(SAMPLES_CSV))?,
            format!("from round {p}'s own run"),
        )
    } else {
        (Vec::new(), "no incumbent".to_owned())
    };
    Ok(crate::popups::shape::ShapeSamples {
        incumbent,
        candidate,
        incumbent_source,
    })
}

/// The parts of a campaign read again: each field is `Some` when it was read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatePatch {
    /// Re-read rounds; `None` for a round whose directory is gone.
    pub rounds: Vec<(u32, Option<RoundState>)>,
    pub journal: Option<Vec<JournalEntry>>,
    pub lock_holder: Option<Option<String>>,
    pub live: Option<Option<Progress>>,
}

/// Read the parts `scope` names (not `everything`: that is a full load). Rounds are held to
/// `frozen_header`, the header of the state being patched.
pub fn read_patch(
    dir: &Path,
    scope: &LoadScope,
    frozen_header: Option<&str>,
) -> Result<StatePatch> {
    let mut patch = StatePatch::default();
    for &n in &scope.rounds {
        patch
            .rounds
            .push((n, CampaignState::load_round(dir, n, frozen_header)?));
    }
    if scope.journal {
        patch.journal = Some(CampaignState::read_journal(dir)?);
    }
    if scope.lock {
        patch.lock_holder = Some(CampaignState::read_lock_holder(dir));
    }
    if scope.live {
        patch.live = Some(CampaignState::read_live(dir));
    }
    Ok(patch)
}

impl StatePatch {
    /// Apply to `state`; true when anything differs from what it held.
    pub fn apply(self, state: &mut CampaignState) -> Changed {
        let mut changed = Changed::default();
        for (n, round) in self.rounds {
            if state.round(n) != round.as_ref() {
                state.replace_round(n, round);
                changed.rounds.insert(n);
            }
        }
        if let Some(journal) = self.journal
            && journal != state.journal
        {
            state.journal = journal;
            state.settle();
            changed.journal = true;
        }
        if let Some(holder) = self.lock_holder
            && holder != state.lock_holder
        {
            state.lock_holder = holder;
            changed.lock = true;
        }
        if let Some(live) = self.live
            && live != state.live
        {
            state.live = live;
            changed.live = true;
        }
        changed
    }
}

/// What a patch changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    pub rounds: BTreeSet<u32>,
    pub journal: bool,
    pub lock: bool,
    pub live: bool,
}

impl Changed {
    pub fn any(&self) -> bool {
        !self.rounds.is_empty() || self.journal || self.lock || self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(path: &str) -> LoadScope {
        LoadScope::of_path(Path::new("/c"), &Path::new("/c").join(path))
    }

    fn rounds(ns: &[u32]) -> LoadScope {
        LoadScope {
            rounds: ns.iter().copied().collect(),
            ..LoadScope::default()
        }
    }

    #[test]
    fn each_file_names_the_part_to_read_again() {
        assert_eq!(scope("rounds/round-12/decision.json"), rounds(&[12]));
        assert_eq!(scope("rounds/round-12/artifacts"), rounds(&[12]));
        assert_eq!(scope("rounds/round-3"), rounds(&[3]));
        assert_eq!(scope("memory/v4.json"), rounds(&[5]));
        assert!(scope("journal.jsonl").journal);
        assert!(scope(".kcamp.lock").lock);
        assert!(scope("live/progress.json").live);
        assert!(scope("manifest.yaml").everything);
        assert!(scope("schema.frozen.csv").everything);
        assert!(scope("kernel/kernel.yaml").everything);
        assert!(scope("kernel").everything);
    }

    #[test]
    fn temp_files_staging_and_unshown_files_change_nothing() {
        for path in [
            "rounds/round-2/.kcamp-tmp-abc",
            "rounds/round-2/.artifacts.tmp/benchmark.csv",
            "rounds/round-2/.kernel.tmp",
            "rounds/.round-1.tmp/kernel/gemm.wgsl",
            "kernel/gemm.wgsl",
            "kernel/.gemm.wgsl.swp",
            "runs/20260314T090000.000Z/benchmark.csv",
            "report/final/benchmark.csv",
            "report.md",
            ".kcamp-tmp-x",
            "memory/notes.txt",
        ] {
            assert!(scope(path).is_empty(), "{path}");
        }
        assert!(
            LoadScope::of_path(Path::new("/c"), Path::new("/elsewhere/x")).is_empty(),
            "outside the campaign"
        );
        // An edit of the working kernel reads nothing again, but is heard; its editor's
        // swap file is not.
        assert!(scope("kernel/gemm.wgsl").working_kernel);
        assert!(!scope("kernel/.gemm.wgsl.swp").working_kernel);
        assert!(!scope("kernel/4913").working_kernel);
    }

    #[test]
    fn scopes_merge() {
        let mut s = rounds(&[2]);
        s.merge(scope("journal.jsonl"));
        s.merge(rounds(&[3]));
        assert_eq!(s.rounds.into_iter().collect::<Vec<_>>(), [2, 3]);
        assert!(s.journal && !s.everything);
    }
}
