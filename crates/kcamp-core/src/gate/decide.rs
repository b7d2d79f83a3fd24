//! Step 2 of the gate: the aggregate over shapes that PASS on both sides, and the verdict
//! (docs/gate.md, "The aggregate" and "The verdict").

use std::collections::BTreeMap;

use super::classify::Classified;
use super::{Aggregate, GateConfig, ShapeClass, Verdict};
use crate::stats::{cautious_stddev, mean, median, pop_stddev, t_test_p_value};

/// The verdict and what it rests on.
pub(super) struct Decision {
    pub verdict: Verdict,
    pub aggregate: Aggregate,
    /// A failed shape or a hard regression: REJECT whatever the aggregate says.
    pub blocked: bool,
    /// Shapes regressed beyond their band but within the regression threshold.
    pub noted_regressions: Vec<String>,
}

pub(super) fn decide(classified: &Classified, config: &GateConfig) -> Decision {
    let shapes = &classified.shapes;
    let mut aggregate = aggregate_of(classified);
    let paired = paired_aggregate(classified, config);
    match &paired {
        Some(p) => {
            aggregate.delta = Some(p.delta);
            aggregate.band = Some(p.band);
            aggregate.p_value = p.p_value;
            aggregate.pairs = Some(p.pairs);
            aggregate.unit = Some(classified.unit);
            aggregate.unstable =
                p.band > super::UNSTABLE_BAND && !(p.clear(p.delta, config) && p.all_on_side);
        }
        None => aggregate.band = unpaired_band(classified, config),
    }
    let noted_regressions: Vec<String> = shapes
        .iter()
        .filter(|s| super::explain::noted(s))
        .map(|s| s.label.clone())
        .collect();
    let blocked = shapes
        .iter()
        .any(|s| s.class == ShapeClass::Failed || s.hard_regression);
    let floor = config.noise_floor;
    let accept = || {
        if noted_regressions.is_empty() {
            Verdict::Accept
        } else {
            Verdict::AcceptWithNote
        }
    };
    // A gain counts only when it clears the aggregate's own band (paired: the spread of the
    // per-unit aggregate ratios and their t-test; unpaired: the shapes' spreads, taken to
    // move together); small but clear gains are re-measured.
    let clears = |d: f64| match &paired {
        Some(p) => p.clears(d, config),
        None => aggregate.band.is_none_or(|b| d > b),
    };
    let verdict = match aggregate.delta {
        _ if blocked => Verdict::Reject,
        // Its units disagree: neither a gain nor its absence can be read from this run.
        Some(_) if aggregate.unstable => Verdict::NeedsRemeasure,
        Some(d) if clears(d) && d >= floor => accept(),
        Some(d) if clears(d) && d > 0.0 => Verdict::NeedsRemeasure,
        _ => Verdict::Reject,
    };
    Decision {
        verdict,
        aggregate,
        blocked,
        noted_regressions,
    }
}

/// The aggregate of a paired judgement: per unit, the median log ratio over the shapes
/// (one shape's disturbed unit does not move it); their median is the gain, their spread
/// the band, their t-test the significance.
pub(super) struct PairedAggregate {
    pub delta: f64,
    /// `stddev_multiplier ·` the spread of the per-unit aggregate ratios (no floor).
    pub band: f64,
    pub p_value: Option<f64>,
    pub pairs: u32,
    /// Every unit's aggregate ratio is on the side of `delta`.
    pub all_on_side: bool,
}

impl PairedAggregate {
    /// Whether a change `d` is more than noise either way: beyond the band and
    /// significant, over enough units.
    fn clear(&self, d: f64, config: &GateConfig) -> bool {
        self.pairs as usize >= super::MIN_UNITS
            && d.abs() > self.band
            && self.p_value.is_none_or(|p| p < config.p_value)
    }

    /// Whether a gain `d` is more than noise.
    fn clears(&self, d: f64, config: &GateConfig) -> bool {
        d > 0.0 && self.clear(d, config)
    }
}

/// None unless every shape that passes on both sides was judged paired over at least two
/// units they all share.
fn paired_aggregate(c: &Classified, config: &GateConfig) -> Option<PairedAggregate> {
    let mut per_block: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut shapes = 0usize;
    for (shape, logs) in c.shapes.iter().zip(&c.paired_logs) {
        if shape.incumbent.is_none() || shape.candidate.is_none() {
            continue;
        }
        shapes += 1;
        for (block, log) in logs.as_ref()? {
            per_block.entry(*block).or_default().push(*log);
        }
    }
    let medians: Vec<f64> = per_block
        .values()
        .filter(|logs| logs.len() == shapes)
        .filter_map(|logs| median(logs))
        .collect();
    if shapes == 0 || medians.len() < 2 {
        return None;
    }
    let delta = median(&medians)?.exp() - 1.0;
    Some(PairedAggregate {
        delta,
        all_on_side: super::classify::all_on_side(medians.iter().copied(), delta),
        band: config.stddev_multiplier * cautious_stddev(&medians)?,
        p_value: t_test_p_value(&medians),
        pairs: medians.len() as u32,
    })
}

/// The band of an unpaired aggregate: `stddev_multiplier ·` the mean of the shapes' relative
/// spreads (no floor). Shapes measured in one run share its load, so their errors are taken
/// to move together: the aggregate's spread is then their mean, not the `1/√n` of
/// independent errors that averaging over more shapes would promise.
fn unpaired_band(c: &Classified, config: &GateConfig) -> Option<f64> {
    // Summed in one order whatever the rows' order, so the band does not depend on it.
    let mut spreads = c.spreads.clone();
    spreads.sort_by(f64::total_cmp);
    Some(config.stddev_multiplier * mean(&spreads)?)
}

/// Geometric means over shapes that PASS on both sides, as classifying summed them.
fn aggregate_of(classified: &Classified) -> Aggregate {
    let (incumbent, candidate) = (
        classified.incumbent_logs.geomean(),
        classified.candidate_logs.geomean(),
    );
    let delta = match (incumbent, candidate) {
        (Some(i), Some(c)) => Some(c / i - 1.0),
        _ => None,
    };
    Aggregate {
        incumbent,
        candidate,
        delta,
        band: None,
        p_value: None,
        pairs: None,
        unit: None,
        unstable: false,
    }
}

/// NEEDS_REMEASURE (docs/gate.md): given the aggregate deltas of >= remeasure_min_runs re-measurements,
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
