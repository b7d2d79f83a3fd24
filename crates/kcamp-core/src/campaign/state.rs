//! Read-only snapshot of a campaign for `status`, `log` and the dashboard.

use std::path::Path;

use super::gate_record::GateRecord;
use super::layout::{
    incumbent_of, read_decision, read_frozen_header, read_journal, round_dir, round_numbers,
};
use super::{CampaignState, Damage, JournalEntry, RoundState};
use crate::Result;
use crate::artifacts::progress::Progress;
use crate::artifacts::read_json_opt;
use crate::artifacts::result::RunResult;
use crate::files::{
    ARTIFACTS_DIR, BENCHMARK_CSV, DECISION_FILE, GATE_JSON, HYPOTHESIS_FILE, JOURNAL_FILE,
    LOCK_FILE, MEMORY_DIR, PROGRESS_FILE, RESULT_JSON,
};
use crate::fsutil::{LockGuard, process_alive};
use crate::manifest::Manifest;
use crate::schema::BenchTable;

impl CampaignState {
    /// Read the campaign without taking the lock. Never writes. A round's unreadable CSV
    /// is reported in `table_error` rather than failing the whole load, so a dashboard can
    /// show what is wrong; a malformed journal line, decision, record, gate record or run
    /// record is read around and listed in `damage` (file and line). A malformed manifest
    /// fails the load: nothing can be read without it.
    pub fn load(dir: &Path) -> Result<CampaignState> {
        let manifest = Manifest::load(dir)?;
        let frozen_header = read_frozen_header(dir)?;
        let mut rounds = Vec::new();
        let mut damage = Vec::new();
        for n in round_numbers(dir)? {
            if let Some(round) =
                CampaignState::load_round_noting(dir, n, frozen_header.as_deref(), &mut damage)?
            {
                rounds.push(round);
            }
        }
        let (journal, journal_damage) = CampaignState::read_journal_noting(dir)?;
        damage.extend(journal_damage);
        let mut state = CampaignState {
            dir: dir.to_path_buf(),
            manifest,
            frozen_header,
            rounds,
            incumbent: None,
            open_round: None,
            lock_holder: CampaignState::read_lock_holder(dir),
            journal,
            live: CampaignState::read_live(dir),
            damage,
        };
        state.settle();
        Ok(state)
    }

    /// One round as [`load`](CampaignState::load) reads it (None when its directory is
    /// gone), its CSV held to `frozen_header`. Reads nothing outside the round and its
    /// iteration record, so a watcher can re-read only the round that changed.
    pub fn load_round(
        dir: &Path,
        n: u32,
        frozen_header: Option<&str>,
    ) -> Result<Option<RoundState>> {
        CampaignState::load_round_noting(dir, n, frozen_header, &mut Vec::new())
    }

    /// [`load_round`](CampaignState::load_round), what it reads around noted in `damage`:
    /// a round whose decision is unreadable is left out (None), since whether it is open
    /// or decided is not known; its other unreadable records are left empty.
    pub fn load_round_noting(
        dir: &Path,
        n: u32,
        frozen_header: Option<&str>,
        damage: &mut Vec<Damage>,
    ) -> Result<Option<RoundState>> {
        let rdir = round_dir(dir, n);
        if !rdir.is_dir() {
            return Ok(None);
        }
        let decision = match read_decision(&rdir) {
            Ok(d) => d,
            Err(e @ crate::Error::InFile { .. }) => {
                damage.push(Damage::of(&e, &rdir.join(DECISION_FILE)));
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let mut noted = |e: crate::Error, path: std::path::PathBuf| {
            damage.push(Damage::of(&e, &path));
        };
        let hypothesis = std::fs::read_to_string(rdir.join(HYPOTHESIS_FILE))
            .map(|s| s.trim().to_owned())
            .unwrap_or_default();
        // A re-validation swaps its artifacts in by renames; between them the previous
        // validation, which still stands, is in `.artifacts.old`.
        let artifacts = match rdir.join(ARTIFACTS_DIR) {
            a if !a.is_dir() && rdir.join(".artifacts.old").is_dir() => rdir.join(".artifacts.old"),
            a => a,
        };
        let csv = artifacts.join(BENCHMARK_CSV);
        let (table, table_error) = if csv.is_file() {
            match BenchTable::read_held_to(&csv, frozen_header) {
                Ok(t) => (Some(t), None),
                Err(e) => (None, Some(e.to_string())),
            }
        } else {
            (None, None)
        };
        let gate_path = artifacts.join(GATE_JSON);
        let gate: Option<GateRecord> = match read_json_opt(&gate_path, "gate record") {
            Ok(g) => g,
            Err(e) => {
                noted(e, gate_path);
                None
            }
        };
        let result_path = artifacts.join(RESULT_JSON);
        let result = match RunResult::read(&result_path) {
            Ok(r) => r,
            Err(e) => {
                noted(e, result_path);
                None
            }
        };
        let memory = if n >= 1 {
            let path = dir.join(MEMORY_DIR).join(format!("v{}.json", n - 1));
            match read_json_opt::<serde_json::Value>(&path, "iteration record") {
                Ok(m) => m,
                Err(e) => {
                    noted(e, path);
                    None
                }
            }
        } else {
            None
        };
        Ok(Some(RoundState {
            number: n,
            dir: rdir,
            hypothesis,
            decision,
            table,
            table_error,
            gate_validation: gate.as_ref().map(|g| g.validation),
            gate_incumbent: gate.as_ref().map(|g| g.incumbent),
            checked: gate.as_ref().map(|g| g.checked_shapes.clone()),
            gate: gate.map(|g| g.report),
            result,
            memory,
        }))
    }

    /// `journal.jsonl`.
    /// The journal's entries and its malformed lines as [`load`](CampaignState::load) lists
    /// them in `damage` (skipped, read around).
    pub fn read_journal_noting(dir: &Path) -> Result<(Vec<JournalEntry>, Vec<Damage>)> {
        let journal = read_journal(dir)?;
        let damage = journal
            .malformed
            .iter()
            .map(|m| Damage {
                path: dir.join(JOURNAL_FILE),
                line: Some(m.line),
                problem: format!("malformed journal line, skipped: {}", m.error),
            })
            .collect();
        Ok((journal.entries, damage))
    }

    pub fn read_journal(dir: &Path) -> Result<Vec<JournalEntry>> {
        Ok(read_journal(dir)?.entries)
    }

    /// Who holds the campaign lock now, if anyone (never blocks, never writes).
    pub fn read_lock_holder(dir: &Path) -> Option<String> {
        LockGuard::holder(&dir.join(LOCK_FILE))
    }

    /// `live/progress.json` if a live process writes it. A run killed without cleanup
    /// leaves its progress file behind: only a file whose writer is still alive describes
    /// a live run.
    pub fn read_live(dir: &Path) -> Option<Progress> {
        read_json_opt::<Progress>(&dir.join(PROGRESS_FILE), "live progress")
            .unwrap_or(None)
            .filter(|p| process_alive(p.pid))
    }

    /// Put a re-read round in place (`None`: round `n` is gone), keeping rounds in order,
    /// and recompute what depends on the set of rounds.
    pub fn replace_round(&mut self, n: u32, round: Option<RoundState>) {
        let at = self.rounds.binary_search_by_key(&n, |r| r.number);
        match (at, round) {
            (Ok(i), Some(r)) => self.rounds[i] = r,
            (Ok(i), None) => {
                self.rounds.remove(i);
            }
            (Err(i), Some(r)) => self.rounds.insert(i, r),
            (Err(_), None) => {}
        }
        self.settle();
    }

    /// Incumbent, open round and the decisions' git commits, from the rounds and the
    /// journal in memory.
    pub fn settle(&mut self) {
        // Borrowed, not cloned: every round's gate report would be copied on every re-read
        // of one round (the dashboard's patch after a validation).
        let decisions = || self.rounds.iter().map(|r| (r.number, r.decision.as_ref()));
        self.incumbent = incumbent_of(decisions());
        self.open_round = decisions()
            .filter(|(_, d)| d.is_none())
            .map(|(n, _)| n)
            .max();
        // The commit is made after the decision file is written, so the file itself
        // cannot hold its own hash: it comes from the journal.
        for r in &mut self.rounds {
            if let Some(d) = r.decision.as_mut()
                && d.git_commit.is_none()
            {
                d.git_commit = self
                    .journal
                    .iter()
                    .rev()
                    .find(|e| e.round == Some(r.number) && e.event == "git_commit")
                    .and_then(|e| e.detail.get("commit"))
                    .and_then(|c| c.as_str())
                    .map(str::to_owned);
            }
        }
    }

    pub fn round(&self, n: u32) -> Option<&RoundState> {
        self.rounds.iter().find(|r| r.number == n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::Decision;
    use crate::campaign::init::temp_campaign;
    use crate::types::DecisionKind;

    fn round(n: u32, kind: Option<DecisionKind>) -> RoundState {
        RoundState {
            number: n,
            dir: std::path::PathBuf::from(format!("rounds/round-{n}")),
            hypothesis: format!("idea {n}"),
            decision: kind.map(|decision| Decision {
                round: n,
                decision,
                parent: None,
                verdict: None,
                validation: None,
                aggregate: None,
                aggregate_delta: None,
                reason: None,
                cause: None,
                forced: false,
                time: chrono::Utc::now(),
                git_commit: None,
                gate: None,
                kernel_hash: None,
                kernel_files: None,
                kernel_key: None,
            }),
            table: None,
            table_error: None,
            gate: None,
            result: None,
            gate_validation: None,
            gate_incumbent: None,
            checked: None,
            memory: None,
        }
    }

    /// Between the renames of a re-validation a reader sees the previous validation, which
    /// still stands, never a round that looks unmeasured.
    #[test]
    fn a_reader_between_the_renames_of_a_revalidation_sees_the_previous_one() {
        let (_tmp, c) = temp_campaign();
        let rdir = c.round_dir(2);
        std::fs::create_dir_all(rdir.join(".artifacts.old")).unwrap();
        std::fs::write(rdir.join("hypothesis.md"), "h\n").unwrap();
        std::fs::write(
            rdir.join(".artifacts.old/benchmark.csv"),
            "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Forward Time (ms),out_snr\ns1,1,8,8,8,PASS,0.001,0.00001,0.1,120\n",
        )
        .unwrap();
        let round = CampaignState::load_round(&c.dir, 2, None).unwrap().unwrap();
        assert!(round.table.is_some(), "{:?}", round.table_error);
    }

    #[test]
    fn replacing_a_round_keeps_the_order_and_recomputes_the_lineage() {
        let (_tmp, c) = temp_campaign();
        let mut state = CampaignState::load(&c.dir).unwrap();
        assert!(state.rounds.is_empty());
        state.replace_round(2, Some(round(2, None)));
        state.replace_round(1, Some(round(1, Some(DecisionKind::Baseline))));
        assert_eq!(
            state.rounds.iter().map(|r| r.number).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!((state.incumbent, state.open_round), (Some(1), Some(2)));
        state.replace_round(2, Some(round(2, Some(DecisionKind::Accepted))));
        assert_eq!((state.incumbent, state.open_round), (Some(2), None));
        state.replace_round(2, None);
        assert_eq!(state.rounds.len(), 1);
        assert_eq!(state.incumbent, Some(1));
        assert_eq!(
            CampaignState::load_round(&c.dir, 7, None).unwrap(),
            None,
            "a round that is not on disk"
        );
    }
}
