//! `artifacts/gate.json` and `validations.jsonl`: what a validation records of its verdict.
//! `validate` and the final report write them; `accept`, recovery, the campaign's state and
//! the reports read them.

use std::path::Path;

use chrono::Utc;
use serde::{Deserialize, Serialize};

use super::layout::Campaign;
use super::like::LikeForLike;
use crate::artifacts::result::ShapeRecord;
use crate::files::{GATE_JSON, VALIDATIONS_JSONL};
use crate::gate::{GateReport, Verdict};
use crate::types::Validation;
use crate::{Error, Result};

/// `artifacts/gate.json`: the latest validation of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub round: u32,
    pub validation: Validation,
    pub incumbent: u32,
    /// Hash of the kernel snapshot that was measured.
    pub kernel_hash: String,
    /// A quick ACCEPT under `quick_confirm_below`: `accept` runs a full validation first.
    pub needs_full_confirmation: bool,
    pub time: chrono::DateTime<Utc>,
    pub origin: String,
    /// Shapes judged against an older round of the lineage (the incumbent lacked them).
    pub reference_notes: Vec<String>,
    pub report: GateReport,
    /// How both sides were measured (fingerprints, pairing); absent in older records.
    #[serde(default)]
    pub like_for_like: Option<LikeForLike>,
    /// Target shapes whose outputs were checked without timing (quick validation).
    #[serde(default)]
    pub checked_shapes: Vec<ShapeRecord>,
    /// The gate's own verdict before the re-measurement history was applied (what
    /// `validations.jsonl` records); absent in records written before it was kept here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_verdict: Option<Verdict>,
    /// SHA-256 of the measured rows as kcamp writes them, so a NEEDS_REMEASURE counts
    /// one file once; absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv_hash: Option<String>,
    /// Why no roofline floor held the rows, when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfloored: Option<String>,
}

/// One line of `validations.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct ValidationLog {
    pub(super) time: chrono::DateTime<Utc>,
    pub(super) validation: Validation,
    pub(super) kernel_hash: String,
    pub(super) raw_verdict: Verdict,
    pub(super) aggregate_delta: Option<f64>,
    /// Both sides were measured alike; a NEEDS_REMEASURE for a fingerprint mismatch is not
    /// a re-measurement of a small gain.
    #[serde(default = "yes")]
    pub(super) comparable: bool,
    /// SHA-256 of the measured rows; absent in lines written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) csv_hash: Option<String>,
    /// A roofline floor held the rows (without one, a gain is not a gain to re-measure).
    #[serde(default = "yes")]
    pub(super) floored: bool,
}

fn yes() -> bool {
    true
}

pub(super) fn read_validation_log(rdir: &Path) -> Result<Vec<ValidationLog>> {
    let p = rdir.join(VALIDATIONS_JSONL);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), e)),
    };
    // A torn last line (crash mid-append) is ignored.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

pub fn read_gate_record(c: &Campaign, round: u32) -> Result<Option<GateRecord>> {
    let p = c.artifacts_dir(round).join(GATE_JSON);
    match std::fs::read_to_string(&p) {
        Ok(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
            Error::in_file(
                &p,
                Some(e.line() as u64),
                None,
                format!("malformed gate record: {e}"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
}
