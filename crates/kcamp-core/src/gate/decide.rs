//! Step 2 of the gate: the aggregate over shapes that PASS on both sides, and the verdict
//! (SPEC §7 rules 1, 3–6).

use super::{Aggregate, GateConfig, ShapeClass, ShapeVerdict, Verdict};
use crate::stats::{geomean, mean, pop_stddev};

/// The verdict and what it rests on.
pub(super) struct Decision {
    pub verdict: Verdict,
    pub aggregate: Aggregate,
    /// A failed shape or a hard regression: REJECT whatever the aggregate says.
    pub blocked: bool,
    /// Shapes regressed beyond their band but within the regression threshold.
    pub noted_regressions: Vec<String>,
}

pub(super) fn decide(shapes: &[ShapeVerdict], config: &GateConfig) -> Decision {
    let aggregate = aggregate_of(shapes);
    let failed = shapes.iter().any(|s| s.class == ShapeClass::Failed);
    let hard = shapes.iter().any(|s| s.hard_regression);
    let noted_regressions: Vec<String> = shapes
        .iter()
        .filter(|s| s.class == ShapeClass::Regressed && !s.hard_regression)
        .map(|s| s.label.clone())
        .collect();
    let blocked = failed || hard;
    let verdict = match aggregate.delta {
        _ if blocked => Verdict::Reject,
        Some(d) if d >= config.noise_floor && noted_regressions.is_empty() => Verdict::Accept,
        Some(d) if d >= config.noise_floor => Verdict::AcceptWithNote,
        Some(d) if d > 0.0 => Verdict::NeedsRemeasure,
        _ => Verdict::Reject,
    };
    Decision {
        verdict,
        aggregate,
        blocked,
        noted_regressions,
    }
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
