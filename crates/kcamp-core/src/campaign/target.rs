//! `performance_target` (manifest): the campaign ends when the incumbent reaches it.

use serde::Serialize;

use super::layout::Campaign;
use crate::Result;
use crate::files::BENCHMARK_CSV;
use crate::schema::BenchTable;
use crate::types::Validation;
use crate::units;

/// How a round's measurement stands against the manifest's `performance_target`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetStatus {
    pub metric: String,
    pub target: f64,
    pub round: u32,
    /// The round's aggregate (geomean over PASS shapes) of the target metric.
    pub achieved: Option<f64>,
    /// The validation the aggregate comes from.
    pub validation: Option<Validation>,
    /// Every metric kcamp gates on is higher-is-better: met when achieved >= target.
    pub met: bool,
}

impl TargetStatus {
    /// `Forward TFLOPS 21.3 TFLOP/s >= 20.0 TFLOP/s (round 4, full validation)`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} {} {} (round {}, {} validation)",
            self.metric,
            units::metric_opt(self.achieved, &self.metric),
            if self.met { ">=" } else { "<" },
            units::metric(self.target, &self.metric),
            self.round,
            self.validation.map_or("no", Validation::as_str)
        )
    }
}

/// The target status of `round`'s measurement; None when the manifest sets no target or
/// the round has no CSV.
pub fn status(c: &Campaign, round: u32) -> Result<Option<TargetStatus>> {
    let Some(target) = &c.manifest.performance_target else {
        return Ok(None);
    };
    let csv = c.artifacts_dir(round).join(BENCHMARK_CSV);
    if !csv.is_file() {
        return Ok(None);
    }
    let table = BenchTable::read_held_to(&csv, c.frozen_header()?.as_deref())?;
    let achieved = table.aggregate(&target.metric);
    let validation = c.decision(round)?.and_then(|d| d.validation);
    Ok(Some(TargetStatus {
        metric: target.metric.clone(),
        target: target.value,
        round,
        achieved,
        validation,
        met: achieved.is_some_and(|a| a >= target.value),
    }))
}

/// The incumbent's target status.
pub fn incumbent_status(c: &Campaign) -> Result<Option<TargetStatus>> {
    match c.incumbent()? {
        Some(n) => status(c, n),
        None => Ok(None),
    }
}
