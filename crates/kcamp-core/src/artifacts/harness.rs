//! `artifacts/harness.json`: how a harness command was run for one measurement — every
//! invocation in order (A B B A when paired), the limit each ran under and how it ended —
//! and the reasons of the rows kcamp wrote for it, which a harness CSV cannot carry.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::files::HARNESS_JSON;

/// Which kernel an invocation measured, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvocationRole {
    /// The kernel being judged, timed.
    Candidate,
    /// The incumbent's snapshot, timed beside the candidate.
    Incumbent,
    /// The candidate, its untimed shapes checked (`KCAMP_VALIDATION=check`).
    Check,
}

impl InvocationRole {
    pub fn as_str(self) -> &'static str {
        match self {
            InvocationRole::Candidate => "candidate",
            InvocationRole::Incumbent => "incumbent",
            InvocationRole::Check => "check",
        }
    }
}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InvocationEnd {
    /// It exited by itself with this status (None: killed by a signal it did not get from
    /// kcamp).
    Exited { code: Option<i32> },
    /// It ran past its limit and its process group was killed.
    TimedOut,
    /// A persistent harness answered the request (and went on running).
    Answered,
    /// A persistent harness replied with an error, or with what kcamp cannot read.
    Refused { reason: String },
}

/// One run of the harness command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    /// 1-based position in the sequence.
    pub position: u32,
    pub role: InvocationRole,
    /// The pair a timed invocation of a paired measurement belongs to: its samples are
    /// `repeat` = this in `samples.csv` / `paired_samples.csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<u32>,
    pub kernel_dir: String,
    /// `KCAMP_VALIDATION`: quick, full or check.
    pub validation: String,
    /// `KCAMP_SHAPES`, in order.
    pub shapes: Vec<String>,
    /// Seconds it was allowed: `timeout_sec × shapes + start allowance`.
    pub limit_sec: f64,
    pub seconds: f64,
    pub ended: InvocationEnd,
    /// Its CSV, relative to the artifacts directory, when it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    /// Bytes it wrote on stdout and stderr, when more than the log keeps of one invocation
    /// (its first and last [`LOG_KEPT_BYTES`] / 2): `harness.log` says where it cut them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_cut: Option<u64>,
    /// The persistent harness process that served it (1-based; `harness.protocol:
    /// persistent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<u32>,
    /// Seconds that process took to say it was ready, when it was started for this request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_sec: Option<f64>,
}

/// How much of one harness invocation's output (stdout and stderr together) the
/// measurement's `harness.log` keeps: the first half and the last half of this, with a line
/// that says how much was left out between them.
pub const LOG_KEPT_BYTES: u64 = 512 << 10;

/// The record of a harness measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessRecord {
    /// `persistent` when one process served the invocations as requests; absent when each
    /// was a process of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// What a request of a persistent harness gets beyond `timeout_sec` per shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_grace_sec: Option<f64>,
    /// `KCAMP_SEED` of every invocation.
    pub seed: u64,
    /// The pairs run (0 when the measurement was not paired).
    pub pairs: u32,
    /// The per-shape timeout of the invocations (`timeout_sec`, or `TEST_TIMEOUT_SEC`).
    pub timeout_sec: f64,
    /// What every invocation gets beyond `timeout_sec` per shape, to start.
    pub start_allowance_sec: f64,
    pub invocations: Vec<Invocation>,
    /// Why the sequence ended before the invocations it planned, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Why a row of the scored side that kcamp wrote is not PASS (a timeout, a crash, a
    /// shape the harness did not report), by label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, String>,
    /// The same for the paired side.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub paired_reasons: BTreeMap<String, String>,
}

impl HarnessRecord {
    /// The record in the artifacts directory `dir`, if a harness measured it.
    pub fn read(dir: &Path) -> Result<Option<HarnessRecord>> {
        super::read_json_opt(&dir.join(HARNESS_JSON), "harness record")
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        crate::fsutil::write_json_atomic(&dir.join(HARNESS_JSON), self)
    }
}
