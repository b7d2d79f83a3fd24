//! The per-shape regression gate (docs/gate.md), pure: no I/O. [`judge`] runs three steps, one
//! file each: `classify` (pair the shapes, then delta, noise band, significance and class
//! per shape), `decide` (the aggregate and the verdict) and `explain` (the reasons, most
//! important first).

mod classify;
mod decide;
mod explain;
mod reason;
#[cfg(test)]
mod tests;

pub use decide::remeasure_holds;
pub use explain::{percent, write_value};
pub use reason::{Reason, ReasonKind, Reasons, reason_texts};

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::schema::{BenchTable, Samples};
use crate::types::Check;

/// Thresholds, all overridable in the manifest's `gate:` section (SPEC defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    /// Aggregate gain that counts as real (2%); also the minimum per-shape noise band.
    pub noise_floor: f64,
    /// Band = max(noise_floor, stddev_multiplier * r).
    pub stddev_multiplier: f64,
    /// A shape below -max(regression_threshold, band) is a REGRESSION (5%).
    pub regression_threshold: f64,
    /// Significance of Welch's t-test (or, paired, the t-test over units) when raw samples
    /// exist on both sides (0.05).
    pub p_value: f64,
    /// A quick-validation ACCEPT whose aggregate gain is below this needs a full run (5%).
    pub quick_confirm_below: f64,
    /// NEEDS_REMEASURE: at least this many re-measurements (3) ...
    pub remeasure_min_runs: u32,
    /// ... whose mean gain exceeds this (1%) with stddev under half the gain.
    pub remeasure_min_gain: f64,
    /// Re-measure the incumbent's snapshot in the same run as the candidate, interleaved,
    /// and judge the paired ratios (the built-in runner, or a harness that takes
    /// `{kernel_dir}`). `false` judges against the incumbent's recorded numbers.
    pub paired: bool,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            noise_floor: 0.02,
            stddev_multiplier: 2.0,
            regression_threshold: 0.05,
            p_value: 0.05,
            quick_confirm_below: 0.05,
            remeasure_min_runs: 3,
            remeasure_min_gain: 0.01,
            paired: true,
        }
    }
}

impl GateConfig {
    /// Every setting within its meaningful range: `0 < p_value < 1`, the thresholds as
    /// fractions under 1 (`0.05` is 5%; `5` would disable the rule it sets), a finite
    /// multiplier, at least one re-measurement. The error names the field (without
    /// `gate.`) and says what it got.
    pub fn check(&self) -> std::result::Result<(), (&'static str, String)> {
        for (name, v) in [
            ("noise_floor", self.noise_floor),
            ("regression_threshold", self.regression_threshold),
            ("quick_confirm_below", self.quick_confirm_below),
            ("remeasure_min_gain", self.remeasure_min_gain),
        ] {
            if !(v.is_finite() && (0.0..1.0).contains(&v)) {
                return Err((
                    name,
                    format!(
                        "must be a fraction from 0 up to (not including) 1, e.g. 0.05 for 5%; got {v}"
                    ),
                ));
            }
        }
        if !(self.p_value.is_finite() && self.p_value > 0.0 && self.p_value < 1.0) {
            return Err((
                "p_value",
                format!(
                    "must lie strictly between 0 and 1 (e.g. 0.05); got {}",
                    self.p_value
                ),
            ));
        }
        if !(self.stddev_multiplier.is_finite() && (0.0..=100.0).contains(&self.stddev_multiplier))
        {
            return Err((
                "stddev_multiplier",
                format!(
                    "must be a number from 0 to 100; got {}",
                    self.stddev_multiplier
                ),
            ));
        }
        if !(1..=100).contains(&self.remeasure_min_runs) {
            return Err((
                "remeasure_min_runs",
                format!("must be from 1 to 100; got {}", self.remeasure_min_runs),
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Accept,
    AcceptWithNote,
    NeedsRemeasure,
    Reject,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accept => "ACCEPT",
            Verdict::AcceptWithNote => "ACCEPT_WITH_NOTE",
            Verdict::NeedsRemeasure => "NEEDS_REMEASURE",
            Verdict::Reject => "REJECT",
        }
    }
    /// Whether `accept` may proceed without `--force`.
    pub fn allows_accept(self) -> bool {
        matches!(self, Verdict::Accept | Verdict::AcceptWithNote)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeClass {
    Improved,
    Neutral,
    Regressed,
    Failed,
    /// Judged paired, its blocks scatter too widely to say whether it changed
    /// ([`UNSTABLE_BAND`]): never improved nor regressed.
    Ambiguous,
}

impl ShapeClass {
    /// The serialized name (`improved`, `neutral`, `regressed`, `failed`, `ambiguous`).
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeClass::Improved => "improved",
            ShapeClass::Neutral => "neutral",
            ShapeClass::Regressed => "regressed",
            ShapeClass::Failed => "failed",
            ShapeClass::Ambiguous => "ambiguous",
        }
    }
}

/// One shape's judgement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeVerdict {
    pub label: String,
    pub dims: Vec<u64>,
    /// Candidate's Check.
    pub check: Check,
    pub incumbent_check: Check,
    /// Incumbent's metric value (None when not PASS).
    pub incumbent: Option<f64>,
    pub candidate: Option<f64>,
    /// cand/inc - 1 (fraction); None when either side is not PASS.
    pub delta: Option<f64>,
    /// Noise band (fraction).
    pub band: f64,
    /// Welch's p-value when samples exist on both sides; the t-test's over its units when
    /// the shape was judged on paired ratios.
    pub p_value: Option<f64>,
    /// Paired units (blocks or pairs, [`PairedUnit`]) the shape was judged on (None:
    /// judged unpaired).
    #[serde(default)]
    pub pairs: Option<u32>,
    pub class: ShapeClass,
    /// Regressed beyond -max(regression_threshold, band): blocks acceptance.
    pub hard_regression: bool,
}

/// Paired, the built-in runner's unit is the A B B A block (two consecutive repeats, each
/// side's best sample in it) only where every shape judged has at least this many complete
/// blocks (10 repeats): fewer blocks leave too few units for the test, and the run is judged
/// over its pairs (one repeat each) instead.
pub const MIN_BLOCKS: usize = 5;
/// Paired, the fewest units (blocks or pairs) on which a shape or the aggregate is called
/// changed: with 2 the t-test's critical value is 12.7 standard errors and one coincidence
/// decides; from 3 (4.30) a campaign of 3 repeats can still judge a real change.
pub const MIN_UNITS: usize = 3;
/// Paired, a band (`stddev_multiplier ·` the spread of the units) wider than this (25%)
/// makes a shape `ambiguous` and the aggregate unstable unless its change is clear of the
/// band: units that routinely differ by more than the changes the gate judges cannot say
/// which way a smaller change went.
pub const UNSTABLE_BAND: f64 = 0.25;

/// The independent unit of a paired judgement: what one log ratio of the test is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairedUnit {
    /// One A B B A of the built-in runner (two consecutive repeats), each side's best
    /// sample in it.
    Block,
    /// One repeat's two samples, measured back to back (a harness's pair of invocations).
    Pair,
}

impl PairedUnit {
    /// `block` or `pair`, `blocks` or `pairs` when `n` is not 1.
    pub fn noun(self, n: usize) -> &'static str {
        match (self, n == 1) {
            (PairedUnit::Block, true) => "block",
            (PairedUnit::Block, false) => "blocks",
            (PairedUnit::Pair, true) => "pair",
            (PairedUnit::Pair, false) => "pairs",
        }
    }
}

/// Below this, a change has no sign worth comparing.
const NEGLIGIBLE_CHANGE: f64 = 0.005;
/// A paired Δ and the ratio of the means further apart than this (or than the band)
/// disagree.
const MEANS_APART: f64 = 0.02;

/// The change two means state, `candidate / incumbent − 1`; None without both (or with an
/// incumbent that is not a positive number).
pub fn means_change(incumbent: Option<f64>, candidate: Option<f64>) -> Option<f64> {
    match (incumbent, candidate) {
        (Some(i), Some(c)) if i > 0.0 && i.is_finite() && c.is_finite() => Some(c / i - 1.0),
        _ => None,
    }
}

/// Whether a paired Δ (the median of the per-unit ratios, both kernels measured side by
/// side) and the change of the two means (`means`, each side's mean over the run) say
/// different things: opposite signs, or further apart than the band (and at least 2%).
/// The means can drift within a run; the paired Δ is what the gate judged, and a table
/// that prints both marks such a row (`≠`) so the two are not read as one.
pub fn paired_delta_disagrees(delta: f64, means: f64, band: f64) -> bool {
    let opposite = delta * means < 0.0 && delta.abs().min(means.abs()) > NEGLIGIBLE_CHANGE;
    let apart = (delta - means).abs() > band.max(MEANS_APART);
    opposite || apart
}

/// The legend line of a table whose rows mark [`paired_delta_disagrees`] with `≠`.
pub const MEANS_DISAGREE_LEGEND: &str = "≠ the paired Δ (the median of the per-unit ratios, measured side by side) and the ratio of the two means disagree: the means drifted during the run; the paired Δ is what the gate judged";

impl ShapeVerdict {
    /// A shape judged on paired ratios whose Δ and means disagree
    /// ([`paired_delta_disagrees`]).
    pub fn means_disagree(&self) -> bool {
        match (
            self.pairs,
            self.delta,
            means_change(self.incumbent, self.candidate),
        ) {
            (Some(_), Some(d), Some(m)) => paired_delta_disagrees(d, m, self.band),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Geometric mean over shapes that PASS on both sides.
    pub incumbent: Option<f64>,
    pub candidate: Option<f64>,
    /// Fraction: 0.10 is +10%. Paired: the median over units of the per-unit aggregate
    /// ratio (the median over shapes of each unit's paired ratios) − 1.
    pub delta: Option<f64>,
    /// The band a gain must clear (fraction, without the noise floor). Paired:
    /// `stddev_multiplier ·` the spread of the per-unit aggregate ratios (and their t-test
    /// must agree). Unpaired: `stddev_multiplier ·` the mean of the shapes'
    /// relative spreads, the shapes of one run taken to move together.
    #[serde(default)]
    pub band: Option<f64>,
    /// Paired only: the t-test of the per-unit aggregate ratios.
    #[serde(default)]
    pub p_value: Option<f64>,
    /// Paired only: the units the aggregate was paired over.
    #[serde(default)]
    pub pairs: Option<u32>,
    /// Paired only: what a unit is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<PairedUnit>,
    /// Paired only: its units scatter beyond [`UNSTABLE_BAND`] and its change is not clear
    /// of them, so the verdict is NEEDS_REMEASURE.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    pub verdict: Verdict,
    pub metric: String,
    pub aggregate: Aggregate,
    /// The reasons, most important first, each with its kind (`reasons` and
    /// `reason_details` in JSON).
    #[serde(flatten)]
    pub reasons: Reasons,
    /// Every shape, in the candidate's row order.
    pub shapes: Vec<ShapeVerdict>,
    /// Shapes regressed by less than the hard threshold (ACCEPT_WITH_NOTE lists them).
    pub noted_regressions: Vec<String>,
    pub config: GateConfig,
    /// Judged on paired ratios: both sides measured in one run, interleaved.
    #[serde(default)]
    pub paired: bool,
}

/// Inputs to one judgement.
pub struct GateInput<'a> {
    pub incumbent: &'a BenchTable,
    pub candidate: &'a BenchTable,
    pub incumbent_samples: Option<&'a Samples>,
    pub candidate_samples: Option<&'a Samples>,
    /// Metric name: a metric column or a derived metric (`Combined Step TFLOPS`).
    pub metric: &'a str,
    pub config: &'a GateConfig,
    /// The two sample sets were measured in one run, repeat `r` of each next to the other
    /// (ABBA): judge each shape on its per-block ratios instead of two independent spreads.
    pub paired: bool,
    /// Paired: the consecutive repeats that make one block (2, one A B B A, for the
    /// built-in runner; 1, one pair, for a harness); blocks of more than one repeat are the
    /// test's unit only where every shape has [`MIN_BLOCKS`] of them, else the pair is.
    pub repeats_per_block: u32,
}

/// Judge the candidate against the incumbent. Both tables must have the same schema and
/// the same shapes (an error names the missing or extra shape); a campaign passes the
/// incumbent's rows for the candidate's shapes.
///
/// Paired (`input.paired` with samples on both sides): per shape, one log ratio per unit,
/// a block of `repeats_per_block` repeats (each side's best sample in it) where every shape
/// has [`MIN_BLOCKS`] blocks, else a pair; Δ is their median minus one, the band
/// `max(noise_floor, stddev_multiplier · sd)` with sd the larger of their standard
/// deviation and their robust one, and a one-sample t-test over the units replaces Welch's.
/// Fewer than [`MIN_UNITS`] units call nothing changed; a band beyond [`UNSTABLE_BAND`] that
/// the change does not clear is `ambiguous`. The aggregate, per unit the median over
/// shapes, must clear its own band and t-test: drift between runs cannot pass for a change,
/// and noise cannot pass for a gain. Unpaired, the aggregate gain must clear
/// `stddev_multiplier ·` the mean of the shapes' relative spreads.
pub fn judge(input: &GateInput<'_>) -> Result<GateReport> {
    report(input, classify::classify(input)?)
}

/// The verdict and its reasons, from every shape judged.
fn report(input: &GateInput<'_>, classified: classify::Classified) -> Result<GateReport> {
    let decision = decide::decide(&classified, input.config);
    let reasons = explain::reasons(
        &classified,
        &decision,
        input.metric,
        input.config,
        input.paired,
    );
    Ok(GateReport {
        verdict: decision.verdict,
        metric: input.metric.to_owned(),
        aggregate: decision.aggregate,
        reasons: Reasons(reasons),
        noted_regressions: decision.noted_regressions,
        paired: classified.paired_logs.iter().any(Option::is_some),
        shapes: classified.shapes,
        config: input.config.clone(),
    })
}
