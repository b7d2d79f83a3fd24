//! Step 3 of the gate: the reasons of a verdict, most important first, and how numbers are
//! written in them.

use super::classify::Classified;
use super::decide::Decision;
use super::{Aggregate, GateConfig, Reason, ReasonKind, ShapeClass, ShapeVerdict, Verdict};
use crate::types::Check;
use crate::units;

/// `a, b, c` — the first [`LISTED_SHAPES`] items, then `… and N more` when `count` is
/// larger.
fn list<T>(items: impl Iterator<Item = T>, count: usize, show: impl Fn(T) -> String) -> String {
    let mut text = String::new();
    for (i, item) in items.take(LISTED_SHAPES).enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(&show(item));
    }
    if count > LISTED_SHAPES {
        text.push_str(&format!(", … and {} more", count - LISTED_SHAPES));
    }
    text
}

/// Shapes named in one reason; the rest are counted (every shape is in the report's table).
const LISTED_SHAPES: usize = 10;

/// The shapes of one kind, the first [`LISTED_SHAPES`] shown.
fn listed(shapes: &[&ShapeVerdict], show: impl Fn(&ShapeVerdict) -> String) -> String {
    list(shapes.iter().copied(), shapes.len(), show)
}

/// The verdict's reasons: failed shapes, hard regressions, the aggregate, noted
/// regressions, changes the t-test does not confirm, shapes that now pass.
pub(super) fn reasons(
    classified: &Classified,
    decision: &Decision,
    metric: &str,
    config: &GateConfig,
    paired: bool,
) -> Vec<Reason> {
    let shapes = &classified.shapes;
    let labels =
        |of: &[&ShapeVerdict]| -> Vec<String> { of.iter().map(|s| s.label.clone()).collect() };
    let of_kind = |kind: fn(&ShapeVerdict) -> bool| -> Vec<&ShapeVerdict> {
        shapes.iter().filter(|s| kind(s)).collect()
    };
    let mut reasons = Vec::new();
    let failed = of_kind(|s| s.class == ShapeClass::Failed);
    if !failed.is_empty() {
        let text = format!(
            "{} {} not PASS in the candidate: {}.",
            crate::text::count_of(failed.len(), shapes.len(), "shape"),
            crate::text::does(failed.len()),
            listed(&failed, |s| format!("{} ({})", s.label, s.check.as_str()))
        );
        reasons.push(Reason::new(ReasonKind::Failure, text).with_shapes(labels(&failed)));
        // A paired run times the incumbent only beside a candidate that passes: its ERROR
        // on these shapes is "not timed", not a fault of the incumbent.
        let untimed: Vec<&ShapeVerdict> = failed
            .iter()
            .copied()
            .filter(|s| s.incumbent_check == Check::Error)
            .collect();
        if paired && !untimed.is_empty() {
            let text = format!(
                "the incumbent shows ERROR (not timed) on {}: a paired run times it only where the candidate passes.",
                listed(&untimed, |s| s.label.clone())
            );
            reasons.push(Reason::new(ReasonKind::Method, text).with_shapes(labels(&untimed)));
        }
    }
    let hard = of_kind(|s| s.hard_regression);
    if !hard.is_empty() {
        let text = format!(
            "{} regressed beyond -max({}, band): {}.",
            crate::text::count(hard.len(), "shape"),
            units::percent(config.regression_threshold * 100.0),
            listed(&hard, describe_change)
        );
        let worst = hard.iter().filter_map(|s| s.delta).reduce(f64::min);
        reasons.push(
            Reason::new(ReasonKind::Regression, text)
                .with_shapes(labels(&hard))
                .with_numbers(worst, Some(config.regression_threshold), None),
        );
    }
    let aggregate = &decision.aggregate;
    reasons.push(
        Reason::new(
            ReasonKind::Aggregate,
            aggregate_sentence(
                aggregate,
                metric,
                // The shapes that PASS on both sides are those the aggregate summed.
                classified.incumbent_logs.count(),
                config,
                decision.verdict,
                decision.blocked,
            ),
        )
        .with_numbers(aggregate.delta, aggregate.band, aggregate.p_value),
    );
    let noted = of_kind(noted);
    if !noted.is_empty() {
        let text = format!(
            "{} regressed beyond their noise band but within {}: {}.",
            crate::text::count(noted.len(), "shape"),
            units::percent(config.regression_threshold * 100.0),
            listed(&noted, describe_change)
        );
        reasons.push(Reason::new(ReasonKind::NotedRegression, text).with_shapes(labels(&noted)));
    }
    if !classified.not_significant.is_empty() {
        let test = if classified.paired_logs.iter().any(Option::is_some) {
            format!("the paired t-test over {}", classified.unit.noun(2))
        } else {
            "Welch's t-test".to_owned()
        };
        let not_significant = &classified.not_significant;
        let text = format!(
            "outside the band but not significant by {test} (p >= {}), counted neutral: {}.",
            config.p_value,
            list(not_significant.iter(), not_significant.len(), String::clone)
        );
        reasons.push(
            Reason::new(ReasonKind::NotSignificant, text)
                .with_shapes(not_significant.iter().cloned()),
        );
    }
    if !classified.unstable.is_empty() {
        let unstable = &classified.unstable;
        let text = format!(
            "unstable, counted neither improved nor regressed (class ambiguous): the {} of {} scatter beyond a band of {} and their change is not clear of it: {}.",
            classified.unit.noun(2),
            crate::text::count(unstable.len(), "shape"),
            units::band(super::UNSTABLE_BAND),
            list(unstable.iter(), unstable.len(), String::clone)
        );
        reasons.push(
            Reason::new(ReasonKind::NotSignificant, text).with_shapes(
                shapes
                    .iter()
                    .filter(|s| s.class == ShapeClass::Ambiguous)
                    .map(|s| s.label.clone()),
            ),
        );
    }
    if !classified.too_few_units.is_empty() {
        let few = &classified.too_few_units;
        let text = format!(
            "outside the band but judged on fewer than {} {}, counted neutral: {}.",
            super::MIN_UNITS,
            classified.unit.noun(super::MIN_UNITS),
            list(few.iter(), few.len(), String::clone)
        );
        reasons.push(Reason::new(ReasonKind::NotSignificant, text));
    }
    let newly_passing = of_kind(|s| s.check == Check::Pass && s.incumbent_check != Check::Pass);
    if !newly_passing.is_empty() {
        let text = format!(
            "now PASS (not part of the aggregate): {}.",
            listed(&newly_passing, |s| format!(
                "{} (was {})",
                s.label,
                s.incumbent_check.as_str()
            ))
        );
        reasons
            .push(Reason::new(ReasonKind::NewlyPassing, text).with_shapes(labels(&newly_passing)));
    }
    reasons
}

fn aggregate_sentence(
    aggregate: &Aggregate,
    metric: &str,
    compared: usize,
    config: &GateConfig,
    verdict: Verdict,
    blocked: bool,
) -> String {
    let (Some(inc), Some(cand), Some(delta)) =
        (aggregate.incumbent, aggregate.candidate, aggregate.delta)
    else {
        return "no shape passes on both sides, so there is no aggregate to compare.".to_owned();
    };
    let floor = units::percent(config.noise_floor * 100.0);
    let Some(pairs) = aggregate.pairs else {
        let head = format!(
            "aggregate {metric} (geomean over {compared} {} passing on both sides) {} ({} -> {})",
            if compared == 1 { "shape" } else { "shapes" },
            percent(delta),
            units::metric(inc, metric),
            units::metric(cand, metric)
        );
        let spread = aggregate.band.map_or_else(String::new, |b| {
            format!(
                "its band {} ({} × the mean relative spread of the shapes' ratios; unpaired, the shapes are taken to move together)",
                units::band(b),
                config.stddev_multiplier
            )
        });
        return match verdict {
            _ if blocked => format!("{head}."),
            Verdict::Accept | Verdict::AcceptWithNote if spread.is_empty() => {
                format!("{head} reaches the {floor} noise floor.")
            }
            Verdict::Accept | Verdict::AcceptWithNote => {
                format!("{head} clears {spread} and reaches the {floor} noise floor.")
            }
            Verdict::NeedsRemeasure => format!(
                "{head} is a gain{} inside the {floor} noise floor: {}",
                if spread.is_empty() {
                    String::new()
                } else {
                    format!(" that clears {spread} but is")
                },
                remeasure_rule(config)
            ),
            Verdict::Reject if delta > 0.0 && !spread.is_empty() => format!(
                "{head} does not clear {spread}: no gain distinguishable from noise; measuring both kernels in one run (paired) narrows the band."
            ),
            Verdict::Reject => format!("{head} is not a gain."),
        };
    };
    let band = aggregate.band.unwrap_or(0.0);
    let unit = aggregate.unit.unwrap_or(super::PairedUnit::Pair);
    let head = format!(
        "aggregate {metric} {} (median over {pairs} {} of each {}'s median of the paired ratios over {compared} shapes; geomean of the mean rates in this run: {} -> {})",
        percent(delta),
        unit.noun(pairs as usize),
        unit.noun(1),
        units::metric(inc, metric),
        units::metric(cand, metric)
    );
    let spread = format!(
        "the paired band {}{}",
        units::band(band),
        aggregate
            .p_value
            .map(|p| format!(", p = {p:.3}"))
            .unwrap_or_default()
    );
    match verdict {
        _ if blocked => format!("{head}."),
        Verdict::Accept | Verdict::AcceptWithNote => {
            format!("{head} clears {spread} and reaches the {floor} noise floor.")
        }
        Verdict::NeedsRemeasure if aggregate.unstable => format!(
            "{head} is unstable: its {} disagree beyond {} ({spread}) and it is not clear of them, so neither a gain nor its absence can be read from this run; measure again when the machine is quieter.",
            unit.noun(2),
            units::band(super::UNSTABLE_BAND)
        ),
        Verdict::NeedsRemeasure => format!(
            "{head} clears {spread} but is inside the {floor} noise floor: {}",
            remeasure_rule(config)
        ),
        Verdict::Reject if delta > 0.0 && pairs < super::MIN_UNITS as u32 => format!(
            "{head} rests on {pairs} {}, fewer than the {} a gain needs: no gain distinguishable from noise.",
            unit.noun(pairs as usize),
            super::MIN_UNITS
        ),
        Verdict::Reject if delta > 0.0 => {
            format!("{head} does not clear {spread}: no gain distinguishable from noise.")
        }
        Verdict::Reject => format!("{head} is not a gain."),
    }
}

fn remeasure_rule(config: &GateConfig) -> String {
    format!(
        "re-measure at least {} times; the gain holds only if their mean exceeds {} with a stddev under half of it.",
        config.remeasure_min_runs,
        units::percent(config.remeasure_min_gain * 100.0)
    )
}

/// Regressed beyond its band but within the regression threshold: noted, not blocking.
pub(super) fn noted(s: &ShapeVerdict) -> bool {
    s.class == ShapeClass::Regressed && !s.hard_regression
}

/// `label -10.0% (band ±2.00%)`.
fn describe_change(shape: &ShapeVerdict) -> String {
    format!(
        "{} {} (band {})",
        shape.label,
        shape.delta.map_or_else(|| "n/a".to_owned(), percent),
        units::band(shape.band)
    )
}

/// A fraction as a signed percentage (three significant digits): 0.1 -> `+10.0%`.
pub fn percent(fraction: f64) -> String {
    units::change(fraction)
}

/// A value of `metric` in its unit (`2.10 GFLOP/s`), appended to `out`.
pub fn write_value(out: &mut String, v: f64, metric: &str) {
    units::write_metric(out, v, metric)
}
