//! The per-shape regression gate (SPEC §7), pure: no I/O.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::schema::{
    BenchTable, MetricRef, Row, Samples, Schema, describe_shape, header_difference,
};
use crate::stats::{geomean, mean, pop_stddev, welch_p_value};
use crate::types::Check;
use crate::{Error, Result};

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
    /// Welch's t-test significance when raw samples exist on both sides (0.05).
    pub p_value: f64,
    /// A quick-validation ACCEPT whose aggregate gain is below this needs a full run (5%).
    pub quick_confirm_below: f64,
    /// NEEDS_REMEASURE: at least this many re-measurements (3) ...
    pub remeasure_min_runs: u32,
    /// ... whose mean gain exceeds this (1%) with stddev under half the gain.
    pub remeasure_min_gain: f64,
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
        }
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
    /// Welch p-value when samples exist on both sides.
    pub p_value: Option<f64>,
    pub class: ShapeClass,
    /// Regressed beyond -max(regression_threshold, band): blocks acceptance.
    pub hard_regression: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Geometric mean over shapes that PASS on both sides.
    pub incumbent: Option<f64>,
    pub candidate: Option<f64>,
    /// Fraction: 0.10 is +10%.
    pub delta: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    pub verdict: Verdict,
    pub metric: String,
    pub aggregate: Aggregate,
    /// Human-readable reasons, most important first.
    pub reasons: Vec<String>,
    /// Every shape, in the candidate's row order.
    pub shapes: Vec<ShapeVerdict>,
    /// Shapes regressed by less than the hard threshold (ACCEPT_WITH_NOTE lists them).
    pub noted_regressions: Vec<String>,
    pub config: GateConfig,
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
}

/// Judge the candidate against the incumbent. Both tables must have the same schema and
/// the same shapes (an error names the missing or extra shape); use [`restrict_to`] first
/// to judge a quick run against the incumbent's representative rows.
pub fn judge(input: &GateInput<'_>) -> Result<GateReport> {
    let (incumbent, candidate) = (input.incumbent, input.candidate);
    let config = input.config;
    let metric = input.metric;
    if let Some(diff) = header_difference(
        &incumbent.schema.header(),
        &candidate.schema.header(),
        "incumbent",
        "candidate",
    ) {
        return Err(Error::input(format!(
            "the incumbent and candidate CSVs have different headers: {}",
            diff.message
        )));
    }
    let schema = &candidate.schema;
    let gateable = schema.gateable_metrics();
    if !gateable.iter().any(|m| m == metric) {
        return Err(Error::input(format!(
            "metric '{metric}' cannot be gated for this schema; valid metrics: {}",
            gateable.join(", ")
        )));
    }
    let accessor = schema
        .resolve_metric(metric)
        .ok_or_else(|| Error::Internal(format!("gateable metric '{metric}' did not resolve")))?;
    if candidate.rows.is_empty() {
        return Err(Error::input("the candidate has no shapes to judge"));
    }
    let pairs = match_shapes(incumbent, candidate)?;

    let no_samples = HashMap::new();
    let inc_samples = input.incumbent_samples.map(|s| s.values_by_label(metric));
    let cand_samples = input.candidate_samples.map(|s| s.values_by_label(metric));
    let inc_samples = inc_samples.as_ref().unwrap_or(&no_samples);
    let cand_samples = cand_samples.as_ref().unwrap_or(&no_samples);

    let mut shapes = Vec::with_capacity(pairs.len());
    let mut not_significant = Vec::new();
    for (inc_row, cand_row) in pairs {
        let mut verdict = ShapeVerdict {
            label: cand_row.label.clone(),
            dims: cand_row.dims.clone(),
            check: cand_row.check,
            incumbent_check: inc_row.check,
            incumbent: None,
            candidate: None,
            delta: None,
            band: config.noise_floor,
            p_value: None,
            class: ShapeClass::Failed,
            hard_regression: false,
        };
        let inc_measured = match inc_row.check {
            Check::Pass => Some(measured(&accessor, inc_row, schema, metric, "incumbent")?),
            _ => None,
        };
        verdict.incumbent = inc_measured.map(|(mu, _)| mu);
        if cand_row.check != Check::Pass {
            shapes.push(verdict);
            continue;
        }
        let (mu_c, sd_c) = measured(&accessor, cand_row, schema, metric, "candidate")?;
        verdict.candidate = Some(mu_c);
        let Some((mu_i, sd_i)) = inc_measured else {
            // Newly passing: better than a failure, but there is no ratio to judge.
            verdict.class = ShapeClass::Improved;
            shapes.push(verdict);
            continue;
        };
        let delta = mu_c / mu_i - 1.0;
        let r = ((sd_i / mu_i).powi(2) + (sd_c / mu_c).powi(2)).sqrt();
        let band = config.noise_floor.max(config.stddev_multiplier * r);
        let (a, b) = (
            inc_samples.get(cand_row.label.as_str()),
            cand_samples.get(cand_row.label.as_str()),
        );
        // Without samples the band alone decides; with them a change must also be
        // significant. Two constant sample sets that differ are a certain change.
        let significant = match (a, b) {
            (Some(a), Some(b)) if a.len() >= 2 && b.len() >= 2 => {
                verdict.p_value = welch_p_value(a, b);
                verdict.p_value.is_none_or(|p| p < config.p_value)
            }
            _ => true,
        };
        verdict.delta = Some(delta);
        verdict.band = band;
        verdict.class = if significant && delta > band {
            ShapeClass::Improved
        } else if significant && delta < -band {
            ShapeClass::Regressed
        } else {
            ShapeClass::Neutral
        };
        verdict.hard_regression = significant && delta < -config.regression_threshold.max(band);
        if !significant && delta.abs() > band {
            not_significant.push(format!(
                "{} {} (p = {:.3})",
                verdict.label,
                percent(delta),
                verdict.p_value.unwrap_or(f64::NAN)
            ));
        }
        shapes.push(verdict);
    }

    let aggregate = aggregate_of(&shapes);
    let mut reasons = Vec::new();
    let failed: Vec<String> = shapes
        .iter()
        .filter(|s| s.class == ShapeClass::Failed)
        .map(|s| format!("{} ({})", s.label, s.check.as_str()))
        .collect();
    if !failed.is_empty() {
        reasons.push(format!(
            "{} of {} shapes do not PASS in the candidate: {}.",
            failed.len(),
            shapes.len(),
            failed.join(", ")
        ));
    }
    let hard: Vec<String> = shapes
        .iter()
        .filter(|s| s.hard_regression)
        .map(describe_change)
        .collect();
    if !hard.is_empty() {
        reasons.push(format!(
            "{} shape(s) regressed beyond -max({:.2}%, band): {}.",
            hard.len(),
            config.regression_threshold * 100.0,
            hard.join(", ")
        ));
    }
    let noted: Vec<&ShapeVerdict> = shapes
        .iter()
        .filter(|s| s.class == ShapeClass::Regressed && !s.hard_regression)
        .collect();
    let noted_regressions: Vec<String> = noted.iter().map(|s| s.label.clone()).collect();

    let blocked = !failed.is_empty() || !hard.is_empty();
    let verdict = match aggregate.delta {
        _ if blocked => Verdict::Reject,
        Some(d) if d >= config.noise_floor && noted.is_empty() => Verdict::Accept,
        Some(d) if d >= config.noise_floor => Verdict::AcceptWithNote,
        Some(d) if d > 0.0 => Verdict::NeedsRemeasure,
        _ => Verdict::Reject,
    };
    reasons.push(aggregate_sentence(
        &aggregate, metric, &shapes, config, verdict, blocked,
    ));
    if !noted.is_empty() {
        let list: Vec<String> = noted.iter().map(|s| describe_change(s)).collect();
        reasons.push(format!(
            "{} shape(s) regressed beyond their noise band but within {:.2}%: {}.",
            noted.len(),
            config.regression_threshold * 100.0,
            list.join(", ")
        ));
    }
    if !not_significant.is_empty() {
        reasons.push(format!(
            "outside the band but not significant by Welch's t-test (p >= {}), counted neutral: {}.",
            config.p_value,
            not_significant.join(", ")
        ));
    }
    let newly_passing: Vec<String> = shapes
        .iter()
        .filter(|s| s.check == Check::Pass && s.incumbent_check != Check::Pass)
        .map(|s| format!("{} (was {})", s.label, s.incumbent_check.as_str()))
        .collect();
    if !newly_passing.is_empty() {
        reasons.push(format!(
            "now PASS (not part of the aggregate): {}.",
            newly_passing.join(", ")
        ));
    }
    Ok(GateReport {
        verdict,
        metric: metric.to_owned(),
        aggregate,
        reasons,
        shapes,
        noted_regressions,
        config: config.clone(),
    })
}

/// Pair each candidate row with the incumbent's row of the same shape, in the
/// candidate's order. Missing, extra or duplicated shapes are errors naming the shape.
fn match_shapes<'t>(
    incumbent: &'t BenchTable,
    candidate: &'t BenchTable,
) -> Result<Vec<(&'t Row, &'t Row)>> {
    let schema = &candidate.schema;
    let index = index_rows(incumbent, "incumbent")?;
    let mut matched: HashSet<(&str, &[u64])> = HashSet::with_capacity(candidate.rows.len());
    let mut pairs = Vec::with_capacity(candidate.rows.len());
    for row in &candidate.rows {
        let key = (row.label.as_str(), row.dims.as_slice());
        if !matched.insert(key) {
            return Err(Error::input(format!(
                "duplicated shape {} in the candidate",
                describe_shape(&row.label, &row.dims, schema)
            )));
        }
        let inc = index.get(&key).ok_or_else(|| {
            Error::input(format!(
                "shape {} is in the candidate but missing from the incumbent",
                describe_shape(&row.label, &row.dims, schema)
            ))
        })?;
        pairs.push((*inc, row));
    }
    if let Some(extra) = incumbent
        .rows
        .iter()
        .find(|r| !matched.contains(&(r.label.as_str(), r.dims.as_slice())))
    {
        return Err(Error::input(format!(
            "shape {} is in the incumbent but missing from the candidate",
            describe_shape(&extra.label, &extra.dims, schema)
        )));
    }
    Ok(pairs)
}

/// Rows by label + dims, built once; a duplicated shape is an error.
fn index_rows<'t>(
    table: &'t BenchTable,
    side: &str,
) -> Result<HashMap<(&'t str, &'t [u64]), &'t Row>> {
    let mut index = HashMap::with_capacity(table.rows.len());
    for row in &table.rows {
        if index
            .insert((row.label.as_str(), row.dims.as_slice()), row)
            .is_some()
        {
            return Err(Error::input(format!(
                "duplicated shape {} in the {side}",
                describe_shape(&row.label, &row.dims, &table.schema)
            )));
        }
    }
    Ok(index)
}

/// A PASS row's metric value and stddev; the gate divides by the value, so it must be
/// positive and finite (a zero time makes the derived metric infinite).
fn measured(
    accessor: &MetricRef,
    row: &Row,
    schema: &Schema,
    metric: &str,
    side: &str,
) -> Result<(f64, f64)> {
    let value = accessor.value(row).unwrap_or(f64::NAN);
    let stddev = accessor.stddev(row).unwrap_or(0.0);
    if !(value.is_finite() && value > 0.0 && stddev.is_finite() && stddev >= 0.0) {
        return Err(Error::input(format!(
            "shape {}: the {side}'s {metric} is {value} ± {stddev} on a PASS row; the gate needs a positive finite value",
            describe_shape(&row.label, &row.dims, schema)
        )));
    }
    Ok((value, stddev))
}

/// Geometric means over shapes that PASS on both sides. Values are sorted first so the
/// result does not depend on row order, to the last bit.
fn aggregate_of(shapes: &[ShapeVerdict]) -> Aggregate {
    let (mut inc, mut cand): (Vec<f64>, Vec<f64>) = shapes
        .iter()
        .filter_map(|s| Some((s.incumbent?, s.candidate?)))
        .unzip();
    inc.sort_by(f64::total_cmp);
    cand.sort_by(f64::total_cmp);
    let (incumbent, candidate) = (geomean(&inc), geomean(&cand));
    let delta = match (incumbent, candidate) {
        (Some(i), Some(c)) => Some(c / i - 1.0),
        _ => None,
    };
    Aggregate {
        incumbent,
        candidate,
        delta,
    }
}

fn aggregate_sentence(
    aggregate: &Aggregate,
    metric: &str,
    shapes: &[ShapeVerdict],
    config: &GateConfig,
    verdict: Verdict,
    blocked: bool,
) -> String {
    let (Some(inc), Some(cand), Some(delta)) =
        (aggregate.incumbent, aggregate.candidate, aggregate.delta)
    else {
        return "no shape passes on both sides, so there is no aggregate to compare.".to_owned();
    };
    let compared = shapes
        .iter()
        .filter(|s| s.incumbent.is_some() && s.candidate.is_some())
        .count();
    let head = format!(
        "aggregate {metric} (geomean over {compared} shapes passing on both sides) {} ({} -> {})",
        percent(delta),
        format_value(inc),
        format_value(cand)
    );
    let floor = config.noise_floor * 100.0;
    match verdict {
        _ if blocked => format!("{head}."),
        Verdict::Accept | Verdict::AcceptWithNote => {
            format!("{head} reaches the {floor:.2}% noise floor.")
        }
        Verdict::NeedsRemeasure => format!(
            "{head} is a gain inside the {floor:.2}% noise floor: re-measure at least {} times; the gain holds only if their mean exceeds {:.2}% with a stddev under half of it.",
            config.remeasure_min_runs,
            config.remeasure_min_gain * 100.0
        ),
        Verdict::Reject => format!("{head} is not a gain."),
    }
}

/// `label -10.00% (band ±2.00%)`.
fn describe_change(shape: &ShapeVerdict) -> String {
    format!(
        "{} {} (band ±{:.2}%)",
        shape.label,
        shape.delta.map_or_else(|| "n/a".to_owned(), percent),
        shape.band * 100.0
    )
}

/// A fraction as a signed percentage with 2 decimals: 0.1 -> `+10.00%`.
pub fn percent(fraction: f64) -> String {
    format!("{:+.2}%", fraction * 100.0)
}

/// A metric value with about four significant digits.
pub fn format_value(v: f64) -> String {
    let magnitude = v.abs();
    if magnitude >= 1000.0 || magnitude == 0.0 {
        format!("{v:.0}")
    } else if magnitude >= 1.0 {
        format!("{v:.3}")
    } else if magnitude >= 1e-3 {
        format!("{v:.5}")
    } else {
        format!("{v:.3e}")
    }
}

/// The rows of `table` whose shapes appear in `keep`, in `table`'s order.
/// Errors when `keep` has a shape that `table` lacks.
pub fn restrict_to(table: &BenchTable, keep: &BenchTable) -> Result<BenchTable> {
    let index = index_rows(table, "table being restricted")?;
    let mut wanted: HashSet<(&str, &[u64])> = HashSet::with_capacity(keep.rows.len());
    for row in &keep.rows {
        let key = (row.label.as_str(), row.dims.as_slice());
        if !index.contains_key(&key) {
            return Err(Error::input(format!(
                "shape {} has no row in the table it is compared against ({} shapes)",
                describe_shape(&row.label, &row.dims, &keep.schema),
                table.rows.len()
            )));
        }
        wanted.insert(key);
    }
    Ok(BenchTable {
        schema: table.schema.clone(),
        rows: table
            .rows
            .iter()
            .filter(|r| wanted.contains(&(r.label.as_str(), r.dims.as_slice())))
            .cloned()
            .collect(),
    })
}

/// SPEC §7 rule 5: given the aggregate deltas of >= remeasure_min_runs re-measurements,
/// whether the gain holds (mean > remeasure_min_gain and stddev < mean/2).
pub fn remeasure_holds(deltas: &[f64], config: &GateConfig) -> bool {
    if deltas.len() < config.remeasure_min_runs as usize || deltas.iter().any(|d| !d.is_finite()) {
        return false;
    }
    match (mean(deltas), pop_stddev(deltas)) {
        (Some(m), Some(sd)) => m > config.remeasure_min_gain && sd < m / 2.0,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{COMBINED_STEP_TFLOPS, Schema};
    use proptest::prelude::*;

    const FWD: &str = "Forward TFLOPS";

    /// A GEMM row: forward TFLOPS and its stddev; backward is half of it; times fixed.
    fn row(label: &str, check: Check, fwd: f64, fwd_sd: f64) -> Row {
        timed_row(label, check, fwd, fwd_sd, 1.0, 2.0)
    }

    fn timed_row(label: &str, check: Check, fwd: f64, sd: f64, fwd_ms: f64, bwd_ms: f64) -> Row {
        let mut values = vec![f64::NAN; 15];
        values[6..].copy_from_slice(&[
            fwd,
            sd,
            fwd / 2.0,
            sd / 2.0,
            fwd_ms,
            bwd_ms,
            100.0,
            100.0,
            100.0,
        ]);
        Row {
            label: label.to_owned(),
            dims: vec![1, 64, 64, 64],
            check,
            values,
        }
    }

    fn table(rows: Vec<Row>) -> BenchTable {
        BenchTable {
            schema: Schema::gemm(),
            rows,
        }
    }

    /// Incumbent: every shape at 10 TFLOPS ± 1%; candidate: each shape scaled by its factor.
    fn pair(factors: &[f64]) -> (BenchTable, BenchTable) {
        let label = |i: usize| format!("s{i}");
        let inc = factors
            .iter()
            .enumerate()
            .map(|(i, _)| row(&label(i), Check::Pass, 10.0, 0.1))
            .collect();
        let cand = factors
            .iter()
            .enumerate()
            .map(|(i, f)| row(&label(i), Check::Pass, 10.0 * f, 0.1 * f))
            .collect();
        (table(inc), table(cand))
    }

    fn run(inc: &BenchTable, cand: &BenchTable, metric: &str) -> Result<GateReport> {
        judge(&GateInput {
            incumbent: inc,
            candidate: cand,
            incumbent_samples: None,
            candidate_samples: None,
            metric,
            config: &GateConfig::default(),
        })
    }

    fn class_of<'r>(report: &'r GateReport, label: &str) -> &'r ShapeVerdict {
        report.shapes.iter().find(|s| s.label == label).unwrap()
    }

    #[test]
    fn clear_gain_is_accepted() {
        let (inc, cand) = pair(&[1.1, 1.1, 1.1]);
        let report = run(&inc, &cand, FWD).unwrap();
        assert_eq!(report.verdict, Verdict::Accept);
        assert!((report.aggregate.delta.unwrap() - 0.1).abs() < 1e-12);
        assert!(
            report
                .shapes
                .iter()
                .all(|s| s.class == ShapeClass::Improved)
        );
        assert!(
            report.reasons[0].contains("+10.00%"),
            "{:?}",
            report.reasons
        );
    }

    #[test]
    fn regression_hidden_by_better_geomean_is_rejected() {
        let (inc, cand) = pair(&[0.9, 1.2, 1.2, 1.2]);
        let report = run(&inc, &cand, FWD).unwrap();
        assert!(report.aggregate.delta.unwrap() > 0.1);
        assert_eq!(report.verdict, Verdict::Reject);
        let s0 = class_of(&report, "s0");
        assert!(s0.hard_regression && s0.class == ShapeClass::Regressed);
        assert!(
            report.reasons[0].contains("s0 -10.00% (band ±2.83%)"),
            "{:?}",
            report.reasons
        );
    }

    #[test]
    fn gain_inside_the_noise_needs_remeasure() {
        let (inc, cand) = pair(&[1.01, 1.01, 1.01]);
        let report = run(&inc, &cand, FWD).unwrap();
        assert_eq!(report.verdict, Verdict::NeedsRemeasure);
        assert!(report.shapes.iter().all(|s| s.class == ShapeClass::Neutral));
        assert!(
            report.reasons[0].contains("re-measure at least 3 times"),
            "{:?}",
            report.reasons
        );
    }

    #[test]
    fn small_regression_beyond_band_is_noted() {
        let (inc, cand) = pair(&[0.97, 1.1, 1.1]);
        let report = run(&inc, &cand, FWD).unwrap();
        assert_eq!(report.verdict, Verdict::AcceptWithNote);
        assert_eq!(report.noted_regressions, ["s0"]);
        let s0 = class_of(&report, "s0");
        assert_eq!(s0.class, ShapeClass::Regressed);
        assert!(!s0.hard_regression);
        assert!(report.reasons.iter().any(|r| r.contains("s0 -3.00%")));
    }

    #[test]
    fn noisy_shapes_widen_the_band() {
        // 3% relative stddev on both sides: band = 2*sqrt(2)*3% = 8.49%, so -6% is neutral.
        let inc = table(vec![
            row("a", Check::Pass, 10.0, 0.3),
            row("b", Check::Pass, 10.0, 0.1),
        ]);
        let cand = table(vec![
            row("a", Check::Pass, 9.4, 0.282),
            row("b", Check::Pass, 12.0, 0.12),
        ]);
        let report = run(&inc, &cand, FWD).unwrap();
        let a = class_of(&report, "a");
        assert!((a.band - 2.0 * 0.03 * 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(a.class, ShapeClass::Neutral);
        assert!(!a.hard_regression);
        assert_eq!(report.verdict, Verdict::Accept);
    }

    #[test]
    fn shrinking_aggregate_is_rejected() {
        let (inc, cand) = pair(&[0.99, 0.99, 1.0]);
        let report = run(&inc, &cand, FWD).unwrap();
        assert_eq!(report.verdict, Verdict::Reject);
        assert!(
            report.reasons[0].contains("is not a gain"),
            "{:?}",
            report.reasons
        );
    }

    #[test]
    fn failed_candidate_shape_is_rejected() {
        let (inc, mut cand) = pair(&[1.5, 1.5]);
        cand.rows[1].check = Check::TimeoutFail;
        let report = run(&inc, &cand, FWD).unwrap();
        assert_eq!(report.verdict, Verdict::Reject);
        let s1 = class_of(&report, "s1");
        assert_eq!(s1.class, ShapeClass::Failed);
        assert_eq!((s1.candidate, s1.delta), (None, None));
        assert!(report.reasons[0].contains("s1 (TIMEOUT_FAIL)"));
        // The aggregate covers the shapes that pass on both sides.
        assert!((report.aggregate.delta.unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn newly_passing_shape_is_improved_without_delta() {
        let (mut inc, cand) = pair(&[1.1, 1.1]);
        inc.rows[0].check = Check::Fail;
        let report = run(&inc, &cand, FWD).unwrap();
        let s0 = class_of(&report, "s0");
        assert_eq!(
            (s0.class, s0.delta, s0.incumbent),
            (ShapeClass::Improved, None, None)
        );
        assert_eq!(report.verdict, Verdict::Accept);
        assert!(report.reasons.iter().any(|r| r.contains("s0 (was FAIL)")));
    }

    fn samples(label: &str, values: &[f64]) -> Samples {
        Samples {
            rows: values
                .iter()
                .enumerate()
                .map(|(i, v)| crate::schema::SampleRow {
                    label: label.to_owned(),
                    metric: FWD.to_owned(),
                    repeat: i as u32,
                    value: *v,
                })
                .collect(),
        }
    }

    fn run_with_samples(inc_s: &Samples, cand_s: &Samples) -> GateReport {
        // The CSV stddevs claim 1%, the raw samples tell the real spread.
        let inc = table(vec![
            row("a", Check::Pass, 10.0, 0.1),
            row("b", Check::Pass, 10.0, 0.1),
        ]);
        let cand = table(vec![
            row("a", Check::Pass, 9.0, 0.09),
            row("b", Check::Pass, 12.0, 0.12),
        ]);
        judge(&GateInput {
            incumbent: &inc,
            candidate: &cand,
            incumbent_samples: Some(inc_s),
            candidate_samples: Some(cand_s),
            metric: FWD,
            config: &GateConfig::default(),
        })
        .unwrap()
    }

    #[test]
    fn welch_test_turns_a_noisy_change_neutral() {
        let noisy = run_with_samples(
            &samples("a", &[6.0, 14.0, 8.0, 12.0]),
            &samples("a", &[5.0, 13.0, 7.0, 11.0]),
        );
        let a = class_of(&noisy, "a");
        assert!(a.p_value.unwrap() > 0.5);
        assert_eq!(a.class, ShapeClass::Neutral);
        assert!(!a.hard_regression);
        assert_eq!(noisy.verdict, Verdict::Accept);
        assert!(noisy.reasons.iter().any(|r| r.contains("not significant")));

        let tight = run_with_samples(
            &samples("a", &[10.0, 10.1, 9.9, 10.0]),
            &samples("a", &[9.0, 9.1, 8.9, 9.0]),
        );
        let a = class_of(&tight, "a");
        assert!(a.p_value.unwrap() < 0.001);
        assert!(a.hard_regression);
        assert_eq!(tight.verdict, Verdict::Reject);
        // Shape b has no samples: the band alone decides.
        assert_eq!(class_of(&tight, "b").p_value, None);
        assert_eq!(class_of(&tight, "b").class, ShapeClass::Improved);
    }

    #[test]
    fn combined_step_tflops_is_judged() {
        // Forward unchanged, backward twice as fast: the step goes from 3 ms to 2 ms.
        let inc = table(vec![timed_row("a", Check::Pass, 10.0, 0.1, 1.0, 2.0)]);
        let cand = table(vec![timed_row("a", Check::Pass, 10.0, 0.1, 1.0, 1.0)]);
        let report = run(&inc, &cand, COMBINED_STEP_TFLOPS).unwrap();
        assert_eq!(report.metric, COMBINED_STEP_TFLOPS);
        assert!((report.aggregate.delta.unwrap() - 0.5).abs() < 1e-12);
        let expected_inc = 6.0 * 64f64.powi(3) / 3e-3 / 1e12;
        assert!((report.aggregate.incumbent.unwrap() - expected_inc).abs() < 1e-15);
        assert_eq!(report.verdict, Verdict::Accept);
        let forward_only = run(&inc, &cand, FWD).unwrap();
        assert_eq!(forward_only.verdict, Verdict::Reject);
    }

    #[test]
    fn refuses_mismatched_inputs() {
        let (inc, cand) = pair(&[1.1, 1.1]);
        let msg = run(&inc, &cand, "out_snr").unwrap_err().to_string();
        assert!(
            msg.contains("valid metrics: Forward TFLOPS, Backward TFLOPS, Combined Step TFLOPS"),
            "{msg}"
        );

        let mut short = cand.clone();
        short.rows.pop();
        let msg = run(&inc, &short, FWD).unwrap_err().to_string();
        assert!(
            msg.contains(
                "'s1' (B=1, M=64, N=64, K=64) is in the incumbent but missing from the candidate"
            ),
            "{msg}"
        );
        let msg = run(&short, &cand, FWD).unwrap_err().to_string();
        assert!(
            msg.contains(
                "'s1' (B=1, M=64, N=64, K=64) is in the candidate but missing from the incumbent"
            ),
            "{msg}"
        );

        let mut other_dims = cand.clone();
        other_dims.rows[0].dims[1] = 128;
        let msg = run(&inc, &other_dims, FWD).unwrap_err().to_string();
        assert!(msg.contains("'s0' (B=1, M=128"), "{msg}");

        let mut drifted = cand.clone();
        drifted.schema.columns[6].name = "Forward TFLOP/s".to_owned();
        let msg = run(&inc, &drifted, FWD).unwrap_err().to_string();
        assert!(
            msg.contains("column 7: incumbent 'Forward TFLOPS' but candidate 'Forward TFLOP/s'"),
            "{msg}"
        );

        let mut zero = cand.clone();
        zero.rows[0].values[6] = 0.0;
        let msg = run(&inc, &zero, FWD).unwrap_err().to_string();
        assert!(msg.contains("positive finite value"), "{msg}");
    }

    #[test]
    fn restrict_to_keeps_the_quick_shapes_in_table_order() {
        let (inc, _) = pair(&[1.0, 1.0, 1.0, 1.0]);
        let quick = table(vec![inc.rows[3].clone(), inc.rows[1].clone()]);
        let restricted = restrict_to(&inc, &quick).unwrap();
        let labels: Vec<&str> = restricted.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["s1", "s3"]);
        let stranger = table(vec![row("zz", Check::Pass, 1.0, 0.0)]);
        let msg = restrict_to(&inc, &stranger).unwrap_err().to_string();
        assert!(msg.contains("'zz'"), "{msg}");
    }

    #[test]
    fn remeasure_rule() {
        let config = GateConfig::default();
        assert!(remeasure_holds(&[0.015, 0.016, 0.014], &config));
        assert!(!remeasure_holds(&[0.015, 0.016], &config), "too few runs");
        assert!(
            !remeasure_holds(&[0.009, 0.010, 0.011], &config),
            "gain too small"
        );
        assert!(!remeasure_holds(&[0.0, 0.05, 0.01], &config), "too noisy");
        assert!(!remeasure_holds(&[0.02, f64::NAN, 0.02], &config));
    }

    fn arb_pass_table() -> impl Strategy<Value = BenchTable> {
        proptest::collection::vec((0.01..1000.0f64, 0.0..0.1f64), 1..20).prop_map(|cells| {
            table(
                cells
                    .into_iter()
                    .enumerate()
                    .map(|(i, (v, rel))| row(&format!("s{i}"), Check::Pass, v, v * rel))
                    .collect(),
            )
        })
    }

    fn scaled(t: &BenchTable, factor: f64) -> BenchTable {
        let mut out = t.clone();
        for r in &mut out.rows {
            r.values[6] *= factor;
            r.values[7] *= factor;
        }
        out
    }

    proptest! {
        #[test]
        fn identical_inputs_never_regress(t in arb_pass_table()) {
            let report = run(&t, &t, FWD).unwrap();
            prop_assert!(report.shapes.iter().all(|s| s.class == ShapeClass::Neutral && !s.hard_regression));
            prop_assert!(report.noted_regressions.is_empty());
            prop_assert_eq!(report.aggregate.delta, Some(0.0));
        }

        #[test]
        fn uniform_scaling_is_the_aggregate_delta(t in arb_pass_table(), x in -0.5..1.0f64) {
            let report = run(&t, &scaled(&t, 1.0 + x), FWD).unwrap();
            let delta = report.aggregate.delta.unwrap();
            prop_assert!((delta - x).abs() <= 1e-9 * (1.0 + x), "delta {} vs {}", delta, x);
        }

        #[test]
        fn any_failed_candidate_rejects(
            t in arb_pass_table(),
            pick in any::<prop::sample::Index>(),
            check in prop_oneof![Just(Check::Fail), Just(Check::Error), Just(Check::TimeoutFail)],
        ) {
            let mut cand = scaled(&t, 2.0);
            let i = pick.index(cand.rows.len());
            cand.rows[i].check = check;
            let report = run(&t, &cand, FWD).unwrap();
            prop_assert_eq!(report.verdict, Verdict::Reject);
            prop_assert_eq!(report.shapes[i].class, ShapeClass::Failed);
        }

        #[test]
        fn row_order_does_not_matter(
            t in arb_pass_table(),
            factors in proptest::collection::vec(0.8..1.3f64, 20),
            seed in any::<u64>(),
        ) {
            use rand::seq::SliceRandom;
            use rand::SeedableRng;
            let mut cand = t.clone();
            for (r, f) in cand.rows.iter_mut().zip(&factors) {
                r.values[6] *= f;
            }
            let base = run(&t, &cand, FWD).unwrap();
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let (mut inc2, mut cand2) = (t.clone(), cand.clone());
            inc2.rows.shuffle(&mut rng);
            cand2.rows.shuffle(&mut rng);
            let shuffled = run(&inc2, &cand2, FWD).unwrap();
            prop_assert_eq!(base.verdict, shuffled.verdict);
            prop_assert_eq!(&base.aggregate, &shuffled.aggregate);
            for s in &base.shapes {
                let other = class_of(&shuffled, &s.label);
                prop_assert_eq!(s, other);
            }
        }
    }
}
