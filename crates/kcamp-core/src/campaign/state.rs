//! Read-only snapshot of a campaign for `status`, `log` and the dashboard.

use std::path::Path;

use super::layout::{
    incumbent_of, read_decision, read_frozen_header, read_journal, round_dir, round_numbers,
};
use super::validate::GateRecord;
use super::{CampaignState, RoundState};
use crate::Result;
use crate::artifacts::progress::Progress;
use crate::artifacts::read_json_opt;
use crate::artifacts::result::RunResult;
use crate::files::{
    ARTIFACTS_DIR, BENCHMARK_CSV, GATE_JSON, HYPOTHESIS_FILE, LOCK_FILE, MEMORY_DIR, PROGRESS_FILE,
    RESULT_JSON,
};
use crate::fsutil::{LockGuard, process_alive};
use crate::manifest::Manifest;
use crate::schema::BenchTable;

impl CampaignState {
    /// Read the campaign without taking the lock. Never writes. A round's unreadable CSV
    /// is reported in `table_error` rather than failing the whole load, so a dashboard can
    /// show what is wrong; a malformed manifest or decision fails the load.
    pub fn load(dir: &Path) -> Result<CampaignState> {
        let manifest = Manifest::load(dir)?;
        let frozen_header = read_frozen_header(dir)?;
        let mut rounds = Vec::new();
        let mut decisions = Vec::new();
        for n in round_numbers(dir)? {
            let rdir = round_dir(dir, n);
            let decision = read_decision(&rdir)?;
            decisions.push((n, decision.clone()));
            let hypothesis = std::fs::read_to_string(rdir.join(HYPOTHESIS_FILE))
                .map(|s| s.trim().to_owned())
                .unwrap_or_default();
            let csv = rdir.join(ARTIFACTS_DIR).join(BENCHMARK_CSV);
            let (table, table_error) = if csv.is_file() {
                match BenchTable::read_held_to(&csv, frozen_header.as_deref()) {
                    Ok(t) => (Some(t), None),
                    Err(e) => (None, Some(e.to_string())),
                }
            } else {
                (None, None)
            };
            let gate: Option<GateRecord> =
                read_json_opt(&rdir.join(ARTIFACTS_DIR).join(GATE_JSON), "gate record")?;
            let result = RunResult::read(&rdir.join(ARTIFACTS_DIR).join(RESULT_JSON))?;
            let memory = if n >= 1 {
                read_json_opt(
                    &dir.join(MEMORY_DIR).join(format!("v{}.json", n - 1)),
                    "iteration record",
                )?
            } else {
                None
            };
            rounds.push(RoundState {
                number: n,
                dir: rdir,
                hypothesis,
                decision,
                table,
                table_error,
                gate_validation: gate.as_ref().map(|g| g.validation),
                gate: gate.map(|g| g.report),
                result,
                memory,
            });
        }
        let incumbent = incumbent_of(&decisions);
        let open_round = decisions
            .iter()
            .filter(|(_, d)| d.is_none())
            .map(|(n, _)| *n)
            .max();
        let journal = read_journal(dir)?.entries;
        // Fill each decision's git commit from the journal (the commit is made after the
        // decision file is written, so the file itself cannot hold its own hash).
        for r in &mut rounds {
            if let Some(d) = r.decision.as_mut()
                && d.git_commit.is_none()
            {
                d.git_commit = journal
                    .iter()
                    .rev()
                    .find(|e| e.round == Some(r.number) && e.event == "git_commit")
                    .and_then(|e| e.detail.get("commit"))
                    .and_then(|c| c.as_str())
                    .map(str::to_owned);
            }
        }
        // A run killed without cleanup leaves its progress file behind: only a file whose
        // writer is still alive describes a live run.
        let live = read_json_opt::<Progress>(&dir.join(PROGRESS_FILE), "live progress")
            .unwrap_or(None)
            .filter(|p| process_alive(p.pid));
        Ok(CampaignState {
            dir: dir.to_path_buf(),
            manifest,
            frozen_header,
            rounds,
            incumbent,
            open_round,
            lock_holder: LockGuard::holder(&dir.join(LOCK_FILE)),
            journal,
            live,
        })
    }

    pub fn round(&self, n: u32) -> Option<&RoundState> {
        self.rounds.iter().find(|r| r.number == n)
    }
}
