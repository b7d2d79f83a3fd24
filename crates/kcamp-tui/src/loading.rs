//! What to re-read after a change, and the partial reads themselves. A burst of file
//! notifications becomes a [`LoadScope`]; only a change the partial reads cannot follow
//! (the manifest, the frozen schema, the kernel settings) reads the whole campaign again.
//! A 1,000-shape × 200-round campaign is some 100 MB of CSV and JSON: re-reading it for
//! every journal line would cost a core.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use kcamp_core::Result;
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::campaign::{CampaignState, Damage, JournalEntry, RoundState};
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
    /// A file of the working `kernel/` changed (an edit): its key is read again (is it a
    /// kernel a rolled-back round tried?), and what it holds against the incumbent is
    /// asked anew.
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
        !self.everything
            && self.rounds.is_empty()
            && !self.journal
            && !self.lock
            && !self.live
            && !self.working_kernel
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
    /// dashboard does not show (temp files, staging directories, an editor's swap files,
    /// runs, reports).
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

/// A whole campaign read, with what the dashboard reads beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// Its rolled-back rounds carry their snapshot's key ([`with_snapshot_key`]).
    pub state: CampaignState,
    /// The working kernel's key ([`working_key`]).
    pub working_key: Option<String>,
}

impl From<CampaignState> for Loaded {
    /// A state with no working kernel read (tests, benchmarks).
    fn from(state: CampaignState) -> Loaded {
        Loaded {
            state,
            working_key: None,
        }
    }
}

/// Read the whole campaign with `load` (the seam tests replace), and the working kernel's
/// key.
pub fn read_all(dir: &Path, load: crate::Loader) -> Result<Loaded> {
    let mut state = load(dir)?;
    for round in &mut state.rounds {
        with_snapshot_key(round);
    }
    state.damage.extend(torn_journal_line(dir));
    Ok(Loaded {
        state,
        working_key: working_key(dir),
    })
}

/// The normalised key of the working `kernel/` (comments and whitespace aside), to name
/// the rolled-back rounds that tried it; None when it cannot be read (an editor in the
/// middle of a save: its next write reads it again).
pub fn working_key(dir: &Path) -> Option<String> {
    kcamp_core::campaign::ledger::kernel_key(&dir.join(KERNEL_DIR)).ok()
}

/// A rolled-back round whose decision was written before decisions kept their kernel's key
/// gets its snapshot's, read here, off the screen's task; what `kcamp status` does for it.
pub fn with_snapshot_key(round: &mut RoundState) {
    let Some(d) = round.decision.as_mut() else {
        return;
    };
    if d.kernel_key.is_none() && d.decision == kcamp_core::types::DecisionKind::RolledBack {
        d.kernel_key = kcamp_core::campaign::ledger::snapshot_key(&round.dir)
            .ok()
            .flatten();
    }
}

/// Bytes of the journal's end read to find a torn last line.
const TORN_TAIL_WINDOW: u64 = 64 * 1024;

/// The journal's torn last line (a crash or a full disk cut the last append short: no
/// newline), as damage the dashboard shows; readers skip it and the next writer sets it
/// aside. Only the end of the file is read.
pub fn torn_journal_line(dir: &Path) -> Option<Damage> {
    use std::io::{Read, Seek, SeekFrom};
    let path = dir.join(JOURNAL_FILE);
    let mut file = std::fs::File::open(&path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(TORN_TAIL_WINDOW);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    if tail.is_empty() || tail.ends_with(b"\n") {
        return None;
    }
    let torn = match tail.iter().rposition(|&b| b == b'\n') {
        Some(i) => tail.len() - i - 1,
        None if start == 0 => tail.len(),
        None => return None,
    };
    Some(Damage {
        path,
        line: None,
        problem: format!(
            "torn last line ({torn} bytes, no newline), skipped; the next write sets it aside"
        ),
    })
}

/// The parts of a campaign read again: each field is `Some` when it was read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatePatch {
    /// Re-read rounds; `None` for a round whose directory is gone, or whose decision is
    /// unreadable (then named in `round_damage`).
    pub rounds: Vec<(u32, Option<RoundState>)>,
    /// What each re-read round's read went around (its decision, records).
    pub round_damage: Vec<(u32, Vec<Damage>)>,
    pub journal: Option<Vec<JournalEntry>>,
    /// The re-read journal's malformed lines and torn last line.
    pub journal_damage: Option<Vec<Damage>>,
    pub lock_holder: Option<Option<String>>,
    pub live: Option<Option<Progress>>,
    /// The working kernel's key ([`working_key`]).
    pub working_key: Option<Option<String>>,
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
        let mut damage = Vec::new();
        let mut round = CampaignState::load_round_noting(dir, n, frozen_header, &mut damage)?;
        if let Some(r) = round.as_mut() {
            with_snapshot_key(r);
        }
        patch.rounds.push((n, round));
        patch.round_damage.push((n, damage));
    }
    if scope.journal {
        let (entries, mut damage) = CampaignState::read_journal_noting(dir)?;
        damage.extend(torn_journal_line(dir));
        patch.journal = Some(entries);
        patch.journal_damage = Some(damage);
    }
    if scope.lock {
        patch.lock_holder = Some(CampaignState::read_lock_holder(dir));
    }
    if scope.live {
        patch.live = Some(CampaignState::read_live(dir));
    }
    if scope.working_kernel {
        patch.working_key = Some(working_key(dir));
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
        for (n, damage) in self.round_damage {
            let rdir = state.dir.join(ROUNDS_DIR).join(format!("round-{n}"));
            let memory = state
                .dir
                .join(MEMORY_DIR)
                .join(format!("v{}.json", n.wrapping_sub(1)));
            if replace_damage(state, damage, |p| p.starts_with(&rdir) || p == memory) {
                changed.rounds.insert(n);
            }
        }
        if let Some(damage) = self.journal_damage {
            let journal = state.dir.join(JOURNAL_FILE);
            changed.journal |= replace_damage(state, damage, |p| p == journal);
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

/// Put `damage` in place of the state's damage of the files `of` names; true when it
/// differs.
fn replace_damage(
    state: &mut CampaignState,
    damage: Vec<Damage>,
    of: impl Fn(&Path) -> bool,
) -> bool {
    let old: Vec<&Damage> = state.damage.iter().filter(|d| of(&d.path)).collect();
    if old.len() == damage.len() && old.iter().zip(&damage).all(|(a, b)| *a == b) {
        return false;
    }
    state.damage.retain(|d| !of(&d.path));
    state.damage.extend(damage);
    true
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
            "kernel/.gemm.wgsl.swp",
            "kernel/4913",
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
        // An edit of the working kernel reads only its key again; its editor's swap file
        // is no edit.
        assert_eq!(
            scope("kernel/gemm.wgsl"),
            LoadScope {
                working_kernel: true,
                ..LoadScope::default()
            }
        );
    }

    #[test]
    fn the_working_kernels_key_is_read_with_the_campaign_and_after_an_edit() {
        use kcamp_core::campaign::ledger;
        use kcamp_core::types::DecisionKind;
        let dir = tempfile::tempdir().unwrap();
        let mut state = crate::fixtures::several_rounds();
        // Round 3 (rolled back) kept a snapshot and, as a decision written before keys were
        // kept, no key of it.
        let snapshot = dir.path().join("rounds/round-3/kernel");
        std::fs::create_dir_all(&snapshot).unwrap();
        std::fs::write(snapshot.join("gemm.wgsl"), "fn f() { let x = 1; }\n").unwrap();
        for r in &mut state.rounds {
            if let Some(d) = r.decision.as_mut() {
                d.kernel_key = None;
            }
        }
        crate::fixtures::write_campaign(&state, dir.path()).unwrap();
        let kernel = dir.path().join(KERNEL_DIR).join("gemm.wgsl");
        let key_of = |r: &RoundState| {
            let d = r.decision.as_ref().unwrap();
            assert_eq!(d.decision, DecisionKind::RolledBack);
            d.kernel_key.clone()
        };
        let round3 = |loaded: &CampaignState| key_of(loaded.round(3).unwrap());

        let loaded = read_all(dir.path(), CampaignState::load).unwrap();
        let key3 = ledger::snapshot_key(&dir.path().join("rounds/round-3"))
            .unwrap()
            .unwrap();
        assert_eq!(
            round3(&loaded.state),
            Some(key3.clone()),
            "filled from its snapshot"
        );
        assert_ne!(loaded.working_key, Some(key3.clone()));
        assert!(loaded.working_key.is_some());

        // The same kernel, re-commented and re-indented: read again after the edit.
        std::fs::write(&kernel, "// back to it\nfn f() {\n    let x = 1;\n}\n").unwrap();
        let mut edit = scope("kernel/gemm.wgsl");
        edit.rounds.insert(3);
        let patch = read_patch(dir.path(), &edit, loaded.state.frozen_header.as_deref()).unwrap();
        assert_eq!(patch.working_key, Some(Some(key3.clone())));
        assert_eq!(key_of(patch.rounds[0].1.as_ref().unwrap()), Some(key3));
        // A journal line reads no kernel.
        let journal = read_patch(dir.path(), &scope("journal.jsonl"), None).unwrap();
        assert_eq!(journal.working_key, None);
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
