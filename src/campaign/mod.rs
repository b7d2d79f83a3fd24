//! The campaign directory (SPEC §3): rounds, decisions, lineage, journal, lock, recovery.
//!
//! OWNER: lead. The state types below are what the dashboard reads.

mod layout;
mod lifecycle;
mod measure;
mod records;
mod reporting;
mod state;

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::gate::{GateReport, Verdict};
use crate::manifest::Manifest;
use crate::schema::BenchTable;

pub const ROUNDS_DIR: &str = "rounds";
pub const KERNEL_DIR: &str = "kernel";
pub const MEMORY_DIR: &str = "memory";
pub const JOURNAL_FILE: &str = "journal.jsonl";
pub const LOCK_FILE: &str = ".kcamp.lock";
/// Frozen CSV header bytes, written at BASELINE.
pub const FROZEN_HEADER_FILE: &str = "schema.frozen.csv";
/// Live progress of a running validation (JSON, rewritten atomically while it runs;
/// removed at the end). Lets a dashboard follow a run started by another process.
pub const PROGRESS_FILE: &str = "live/progress.json";

pub use layout::Campaign;
pub use layout::{
    ARTIFACTS_DIR, BENCHMARK_CSV, DECISION_FILE, GATE_JSON, HYPOTHESIS_FILE, RESULT_JSON,
    SAMPLES_CSV, copy_tree, tree_hash,
};
pub use lifecycle::{
    AcceptOptions, BaselineOutcome, DecisionOutcome, GateRecord, InitOptions, ValidateOutcome,
    accept, aggregate_of, baseline, init, new_round, read_gate_record, recover, rollback, validate,
};
pub use measure::MeasureSource;
pub use reporting::{
    BASELINE_REPORT, FINAL_REPORT, REPORT_DIR, campaign_report, write_baseline_report,
};

/// What a decided round became.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DecisionKind {
    Baseline,
    Accepted,
    RolledBack,
}

/// Quick (representative shapes) or full (all target shapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    Quick,
    Full,
}

/// `rounds/round-N/decision.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub round: u32,
    pub decision: DecisionKind,
    /// The incumbent this round was judged against (None for BASELINE).
    pub parent: Option<u32>,
    pub verdict: Option<Verdict>,
    pub validation: Option<Validation>,
    /// Aggregate primary metric of this round's CSV (geomean over PASS shapes).
    pub aggregate: Option<f64>,
    pub aggregate_delta: Option<f64>,
    pub reason: Option<String>,
    /// Accepted against the gate with `--force`.
    pub forced: bool,
    pub time: DateTime<Utc>,
    pub git_commit: Option<String>,
    pub gate: Option<GateReport>,
}

/// One line of `journal.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub time: DateTime<Utc>,
    /// e.g. `init`, `baseline`, `round_opened`, `validated`, `accept_begin`, `accept_done`,
    /// `rollback_begin`, `rollback_done`, `recovered`.
    pub event: String,
    pub round: Option<u32>,
    pub pid: u32,
    #[serde(default)]
    pub detail: serde_json::Value,
}

/// Everything known about one round, as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundState {
    pub number: u32,
    pub dir: PathBuf,
    pub hypothesis: String,
    pub decision: Option<Decision>,
    /// The round's benchmark.csv, if measured.
    pub table: Option<BenchTable>,
    /// Why the CSV could not be read (drifted header, malformed row...).
    pub table_error: Option<String>,
    /// The gate report of the latest validation (`artifacts/gate.json`).
    pub gate: Option<GateReport>,
    /// `artifacts/result.json`, as written by the run.
    pub result: Option<serde_json::Value>,
    /// The round's iteration record (`memory/v<N-1>.json`).
    pub memory: Option<serde_json::Value>,
}

/// A read-only snapshot of a whole campaign, for status output and the dashboard.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignState {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub frozen_header: Option<String>,
    pub rounds: Vec<RoundState>,
    /// Round number of the incumbent (last accepted or BASELINE).
    pub incumbent: Option<u32>,
    /// The undecided round, if one is open.
    pub open_round: Option<u32>,
    /// Who holds the campaign lock (pid and command), if anyone.
    pub lock_holder: Option<String>,
    pub journal: Vec<JournalEntry>,
    /// Live progress of a run in progress, if any (PROGRESS_FILE).
    pub live: Option<serde_json::Value>,
}

/// The bundled demo campaign (`campaigns/demo-gemm`): next to the executable's source tree
/// when run from a checkout, or in the current directory.
pub fn demo_campaign_dir() -> Option<PathBuf> {
    let candidates = [
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("campaigns/demo-gemm")),
        std::env::current_dir()
            .ok()
            .map(|d| d.join("campaigns/demo-gemm")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join(crate::manifest::MANIFEST_FILE).is_file())
}
