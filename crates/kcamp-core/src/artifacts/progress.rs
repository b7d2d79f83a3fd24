//! `live/progress.json`: the state of a running measurement, rewritten atomically (rate
//! limited) while it runs and removed when it ends, so a dashboard in another process can
//! follow a run it did not start.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::types::Validation;

/// The content of `live/progress.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// `running` while the run goes on.
    pub state: String,
    pub validation: Validation,
    pub round: Option<u32>,
    /// 0-based index of the shape being measured.
    pub index: usize,
    pub total: usize,
    pub label: String,
    /// Timed samples of the current shape so far.
    pub samples: u32,
    /// What the worker is doing for the current shape (compiling, checking, warming up,
    /// timing a step), when it has said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Milliseconds of the last sample.
    pub last_ms: Option<f64>,
    /// The last forward sample as a rate (`rate_unit`).
    pub last_rate: Option<f64>,
    pub rate_unit: String,
    pub started_at: DateTime<Utc>,
    /// The process that writes the file; a file whose writer is gone is stale.
    pub pid: u32,
    /// Each shard of a run spread over several adapters or Slurm jobs (docs/scale.md);
    /// `index` then counts the shapes done over all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<ShardProgress>,
}

/// One shard of a run in progress: where it runs, its job's state, its current shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardProgress {
    /// `adapter 1`, `slurm job 42_1`, `slurm job 42_1 on gpu01`.
    pub place: String,
    /// `pending` (a job waiting for its node), `running`, `done`, or how its job ended.
    pub state: String,
    /// The shape it measures now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub done: usize,
    pub total: usize,
}

impl ShardProgress {
    /// One line: `slurm job 42_1 on gpu01 · running · s16 (2/4)`.
    pub fn describe(&self) -> String {
        let mut line = format!("{} · {}", self.place, self.state);
        if let Some(l) = &self.label {
            line.push_str(&format!(" · {l}"));
        }
        line.push_str(&format!(" ({}/{})", self.done, self.total));
        line
    }
}

impl Progress {
    /// Fraction of shapes done.
    pub fn ratio(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.index as f64 / self.total as f64).clamp(0.0, 1.0))
    }
}
