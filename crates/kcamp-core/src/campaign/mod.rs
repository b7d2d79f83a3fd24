//! The campaign directory: rounds, decisions, lineage, journal, lock, and the steps of the
//! loop, one file each:
//!
//! | step | file |
//! |---|---|
//! | DEFINE_TARGET + PREPARE (`init`) | [`init`](init/index.html) |
//! | BASELINE | `baseline.rs` |
//! | OPTIMIZE (`round new`) | `round.rs` |
//! | VALIDATE | `validate.rs` |
//! | ANALYZE (profile evidence) | `analyze.rs` |
//! | ACCEPT / ROLLBACK | `decide.rs` |
//! | REPORT (final validation) | `report.rs` |
//! | the steps after each one's commit point | `finish.rs` |
//! | recovery of interrupted steps | `recover.rs` |
//! | commits of every step (`git_commit`) | `git.rs` |
//!
//! Every writing step holds the campaign lock, writes files atomically, and brackets
//! multi-file changes with `*_begin`/`*_done` journal entries so that [`recover`] can
//! complete or undo them on the next command. A step calls [`recover`] first; what follows
//! a step's commit point is in `finish.rs`, which the step runs and recovery redoes, so
//! recovery calls no step: commands → `recover.rs` → `finish.rs`, never back.
//! [`CampaignState`] is the read-only snapshot that `status`, `log` and the dashboard read.

mod analyze;
mod baseline;
mod decide;
pub mod diff;
mod finish;
mod gate_record;
pub mod git;
mod guard;
mod held_out;
mod init;
mod layout;
pub mod ledger;
mod like;
mod measure;
mod outcome;
mod records;
mod recover;
mod repair;
mod report;
mod representatives;
mod round;
mod snapshot;
mod starter;
mod state;
mod target;
mod validate;

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::artifacts::progress::Progress;
use crate::artifacts::result::{RunResult, ShapeFailure, ShapeRecord};
use crate::gate::{GateReport, Verdict};
use crate::manifest::Manifest;
use crate::schema::BenchTable;
use crate::types::{DecisionKind, Validation};

pub use analyze::{AnalyzeTarget, StaticMetrics, gather as gather_evidence, record_evidence};
pub use baseline::{BaselineOutcome, baseline};
pub use decide::{AcceptOptions, DecisionOutcome, accept, nothing_passed, rollback};
pub use gate_record::{GateRecord, read_gate_record};
pub use held_out::{HeldOutCheck, HeldOutStatus, read_held_out};
pub use init::{InitOptions, init};
pub use layout::{
    Campaign, check_closed_world, check_writable, copy_tree, lock_campaign, tree_hash,
};
pub use like::{LikeForLike, Pairing, RoundFingerprint, not_like_for_like};
pub use measure::{
    MeasureRequest, MeasureSource, Measured, Measurer, PairingSupport, floor_missing, fresh_seed,
    read_checked, refuse_builtin_if_imported, shapes_of,
};
pub use outcome::{RoundOutcome, RoundRecords, delta_text, failure_label};
pub use recover::{Recovery, recover, remove_stray_temp_files};
pub use repair::{RepairOutcome, repair};
pub use report::{FINAL_VALIDATION_DIR, FinalMeasurement, final_report, standing_final_acceptance};
pub use round::new_round;
pub use snapshot::file_hashes;
pub use starter::{HARNESS_DIR, HarnessStarter};
pub use target::{TargetStatus, incumbent_status as target_status};
pub use validate::{ValidateOutcome, validate};

/// The refusal of a step that needs the BASELINE, before there is one.
pub(crate) fn no_baseline() -> crate::Error {
    crate::Error::state(
        "no BASELINE yet.",
        vec![crate::next::NextStep::run(crate::next::Command::Baseline)],
    )
}

/// Test hook: `KCAMP_FAILPOINT=<name>` makes the process exit abruptly at that step, as a
/// kill would, so tests can check that the next command completes or undoes the step.
/// Compiled only with the `test-support` feature: a release binary has no failpoints.
#[cfg(feature = "test-support")]
pub(crate) fn fail_point(name: &str) {
    if std::env::var("KCAMP_FAILPOINT").is_ok_and(|v| v == name) {
        eprintln!("kcamp: failpoint {name} reached, exiting abruptly");
        std::process::exit(86);
    }
}

#[cfg(not(feature = "test-support"))]
#[inline(always)]
pub(crate) fn fail_point(_name: &str) {}

/// Why a round was decided as it was, as data for whoever reads the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionCause {
    /// Accepted: the gate allowed it.
    GateAccept,
    /// Accepted against the gate's verdict (`accept --force`).
    Forced,
    /// Rolled back after a verdict that does not allow accepting it.
    GateReject,
    /// Rolled back by `accept`: its output was wrong on held-out shapes.
    HeldOutFailed,
    /// Rolled back by `accept`: the confirming full validation overturned a quick ACCEPT.
    ConfirmationOverturned,
    /// Rolled back by its owner although the gate allowed it (or it was never validated).
    RolledBackByUser,
}

impl DecisionCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionCause::GateAccept => "gate_accept",
            DecisionCause::Forced => "forced",
            DecisionCause::GateReject => "gate_reject",
            DecisionCause::HeldOutFailed => "held_out_failed",
            DecisionCause::ConfirmationOverturned => "confirmation_overturned",
            DecisionCause::RolledBackByUser => "rolled_back_by_user",
        }
    }

    /// The cause a decision states, else (one written before causes were kept) what its
    /// kind, verdict and `forced` say.
    pub fn of(d: &Decision) -> Option<DecisionCause> {
        if d.cause.is_some() {
            return d.cause;
        }
        match d.decision {
            DecisionKind::Baseline => None,
            DecisionKind::Accepted if d.forced => Some(DecisionCause::Forced),
            DecisionKind::Accepted => Some(DecisionCause::GateAccept),
            DecisionKind::RolledBack => Some(DecisionCause::of_rollback(d.verdict)),
        }
    }

    /// A rollback its owner asked for, after `verdict` (None: never validated).
    pub fn of_rollback(verdict: Option<Verdict>) -> DecisionCause {
        match verdict {
            Some(v) if !v.allows_accept() => DecisionCause::GateReject,
            _ => DecisionCause::RolledBackByUser,
        }
    }
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
    /// Why it was decided so (absent in decisions written before it was kept, and for the
    /// BASELINE): see [`DecisionCause::of`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<DecisionCause>,
    /// Accepted against the gate with `--force`.
    pub forced: bool,
    pub time: DateTime<Utc>,
    pub git_commit: Option<String>,
    pub gate: Option<GateReport>,
    /// The tree hash of the round's kernel snapshot as decided: every restore and
    /// re-measurement of the snapshot checks it first. None for a round decided without a
    /// snapshot (rolled back before it was validated) or by an older kcamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_hash: Option<String>,
    /// The sha256 of each file of that snapshot, so that a snapshot that differs names the
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_files: Option<std::collections::BTreeMap<String, String>>,
    /// The normalised hash of the round's kernel snapshot (`ledger::kernel_key`); absent in
    /// decisions written before it was kept, and for a round that was never validated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_key: Option<String>,
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
    /// `artifacts/result.json`, as written by the run (None for imported CSVs).
    pub result: Option<RunResult>,
    /// The validation `gate.json` judged (quick or full).
    pub gate_validation: Option<Validation>,
    /// The incumbent `gate.json` judged the round against.
    pub gate_incumbent: Option<u32>,
    /// The untimed target shapes that validation checked, as `gate.json` keeps them (None
    /// without one: the run record's `checked_shapes` stand in).
    pub checked: Option<Vec<ShapeRecord>>,
    /// The round's iteration record (`memory/v<N-1>.json`).
    pub memory: Option<serde_json::Value>,
}

impl RoundState {
    /// Its verdict, failures and Δ ([`RoundOutcome`]), as every view states them.
    pub fn outcome(&self) -> RoundOutcome {
        RoundOutcome::of(&RoundRecords {
            decision: self.decision.as_ref(),
            gate: self.gate.as_ref(),
            gate_incumbent: self.gate_incumbent,
            gate_validation: self.gate_validation,
            checked: self.checked.as_deref(),
            table: self.table.as_ref(),
            result: self.result.as_ref(),
        })
    }

    /// The shapes of the round's measurement that do not PASS, with the reasons its run
    /// recorded: the table's rows, then the target shapes a quick validation checked without
    /// timing them. Either kind rejects the round.
    pub fn failures(&self) -> Vec<ShapeFailure> {
        self.outcome().failures
    }

    /// The untimed target shapes its latest validation checked: the gate record's, else
    /// the run record's.
    pub fn checked_shapes(&self) -> &[ShapeRecord] {
        self.checked
            .as_deref()
            .or_else(|| self.result.as_ref().map(|r| r.checked_shapes.as_slice()))
            .unwrap_or_default()
    }
}

/// A file of the campaign that readers could not read and read around: the file, the line
/// where it is known, what is wrong. `kcamp repair` fixes it from the other records and the
/// git history, or says why it cannot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Damage {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub problem: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl Damage {
    fn of(e: &crate::Error, path: &std::path::Path) -> Damage {
        match e {
            crate::Error::InFile {
                path,
                line,
                message,
                ..
            } => Damage {
                path: path.clone(),
                line: *line,
                problem: crate::text::quote(message, 300),
            },
            other => Damage {
                path: path.to_path_buf(),
                line: None,
                problem: crate::text::quote(&other.to_string(), 300),
            },
        }
    }
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
    /// Live progress of a run in progress, if any (`live/progress.json` whose writer lives).
    pub live: Option<Progress>,
    /// What could not be read and was read around: a malformed journal line (skipped), a
    /// round whose decision is unreadable (left out of the rounds), an unreadable record,
    /// gate record or run record of a round (left empty).
    pub damage: Vec<Damage>,
}
