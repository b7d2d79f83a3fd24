//! Step 1 of the gate: pair every candidate shape with the incumbent's, then per shape the
//! change, its noise band, its significance and its class.

use std::collections::{HashMap, HashSet};

use super::{GateConfig, GateInput, PairedUnit, ShapeClass, ShapeVerdict};
use crate::schema::{BenchTable, MetricRef, Row, Schema, describe_shape, header_difference};
use crate::stats::{LogSum, cautious_stddev, median, t_test_p_value, welch_p_value};
use crate::types::Check;
use crate::{Error, Result};

/// The `(unit, ln(cand/inc))` of every unit (block or pair) a shape was judged on, when it
/// was judged paired.
type LogRatios = Vec<(u32, f64)>;

/// Every shape judged, in the candidate's order.
pub(super) struct Classified {
    pub shapes: Vec<ShapeVerdict>,
    /// Shapes outside their band whose change the t-test does not confirm (counted
    /// neutral), as `label +x% (p = …)`.
    pub not_significant: Vec<String>,
    /// Shapes judged paired on fewer than [`super::MIN_UNITS`] units whose change is
    /// outside the band (counted neutral), as `label +x% (n pairs)`.
    pub too_few_units: Vec<String>,
    /// Shapes whose units scatter beyond [`super::UNSTABLE_BAND`] without a change clear of
    /// them (class `ambiguous`), as `label +x% (band ±y; blocks …)`.
    pub unstable: Vec<String>,
    /// Per shape (same order), the `(unit, ln(cand/inc))` of the units it was judged on,
    /// when it was judged paired.
    pub paired_logs: Vec<Option<LogRatios>>,
    /// What one unit of the paired judgement is (one for every shape, so that the
    /// aggregate can line their units up).
    pub unit: PairedUnit,
    /// Per shape that PASSes on both sides, the relative spread of its ratio (unpaired:
    /// `sqrt((σ_inc/μ_inc)² + (σ_cand/μ_cand)²)`; paired: the robust spread of its log
    /// ratios): what an unpaired aggregate's band is made of.
    pub spreads: Vec<f64>,
    /// The logarithms of the incumbent's and the candidate's values over the shapes that
    /// PASS on both sides: the aggregate's geometric means.
    pub incumbent_logs: LogSum,
    pub candidate_logs: LogSum,
}

/// Every shape judged, one after another in the candidate's order; the first shape that
/// cannot be judged is the error.
pub(super) fn classify(input: &GateInput<'_>) -> Result<Classified> {
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
        // A column of that name without its spread is the usual cause: say so.
        let why = if schema.index_of(metric).is_some() {
            format!(
                "column '{metric}' has no '{metric}_stddev' column beside it, and the gate needs each value's spread for its noise band"
            )
        } else {
            format!("metric '{metric}' cannot be gated for this schema")
        };
        return Err(Error::input(format!(
            "{why}; valid metrics: {}",
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
    let inc_samples = input.incumbent_samples.map(|s| s.repeats_by_label(metric));
    let cand_samples = input.candidate_samples.map(|s| s.repeats_by_label(metric));
    let mut judging = Judging {
        accessor: &accessor,
        schema,
        metric,
        config,
        paired: input.paired,
        per_unit: input.repeats_per_block.max(1),
        inc_samples: inc_samples.as_ref().unwrap_or(&no_samples),
        cand_samples: cand_samples.as_ref().unwrap_or(&no_samples),
    };
    let unit = judging.choose_unit(&pairs);
    let mut classified = Classified {
        shapes: Vec::with_capacity(pairs.len()),
        not_significant: Vec::new(),
        too_few_units: Vec::new(),
        unstable: Vec::new(),
        paired_logs: Vec::with_capacity(pairs.len()),
        unit,
        spreads: Vec::with_capacity(pairs.len()),
        incumbent_logs: LogSum::default(),
        candidate_logs: LogSum::default(),
    };
    for (inc_row, cand_row) in pairs {
        let (verdict, logs) = judging.shape(inc_row, cand_row, &mut classified)?;
        classified.shapes.push(verdict);
        classified.paired_logs.push(logs);
    }
    Ok(classified)
}

/// What every shape is judged with.
struct Judging<'a> {
    accessor: &'a MetricRef,
    schema: &'a Schema,
    metric: &'a str,
    config: &'a GateConfig,
    paired: bool,
    /// The consecutive repeats of one unit: the block's, or 1 (pairs).
    per_unit: u32,
    inc_samples: &'a HashMap<&'a str, Vec<(u32, f64)>>,
    cand_samples: &'a HashMap<&'a str, Vec<(u32, f64)>>,
}

impl Judging<'_> {
    /// Blocks where every shape that both sides measured has at least
    /// [`super::MIN_BLOCKS`] complete ones, else pairs: a unit of several repeats takes each
    /// side's best sample, which a burst of other work is least likely to have caught, but
    /// a short run has too few of them to test.
    fn choose_unit(&mut self, pairs: &[(&Row, &Row)]) -> PairedUnit {
        if self.per_unit <= 1 {
            self.per_unit = 1;
            return PairedUnit::Pair;
        }
        let enough = pairs
            .iter()
            .filter(|(i, c)| i.check == Check::Pass && c.check == Check::Pass)
            .filter_map(|(_, c)| {
                let label = c.label.as_str();
                self.inc_samples
                    .get(label)
                    .zip(self.cand_samples.get(label))
            })
            .all(|(a, b)| unit_ratios(a, b, self.per_unit).len() >= super::MIN_BLOCKS);
        if enough {
            PairedUnit::Block
        } else {
            self.per_unit = 1;
            PairedUnit::Pair
        }
    }

    /// One shape's verdict and the `(repeat, ln(cand/inc))` pairs it was judged on when
    /// judged paired; what the aggregate sums, and a change that is not significant, go to
    /// `classified`.
    fn shape(
        &self,
        inc_row: &Row,
        cand_row: &Row,
        classified: &mut Classified,
    ) -> Result<(ShapeVerdict, Option<LogRatios>)> {
        let Judging {
            accessor,
            schema,
            metric,
            config,
            ..
        } = *self;
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
            pairs: None,
            class: ShapeClass::Failed,
            hard_regression: false,
        };
        let inc_measured = match inc_row.check {
            Check::Pass => Some(measured(accessor, inc_row, schema, metric, "incumbent")?),
            _ => None,
        };
        verdict.incumbent = inc_measured.map(|(mu, _)| mu);
        if cand_row.check != Check::Pass {
            return Ok((verdict, None));
        }
        let (mu_c, sd_c) = measured(accessor, cand_row, schema, metric, "candidate")?;
        verdict.candidate = Some(mu_c);
        let Some((mu_i, sd_i)) = inc_measured else {
            // Newly passing: better than a failure, but there is no ratio to judge.
            verdict.class = ShapeClass::Improved;
            return Ok((verdict, None));
        };
        // Both sides PASS: the shape counts in the aggregate.
        classified.incumbent_logs.add(mu_i);
        classified.candidate_logs.add(mu_c);
        let (a, b) = (
            self.inc_samples.get(cand_row.label.as_str()),
            self.cand_samples.get(cand_row.label.as_str()),
        );
        let logs = if self.paired {
            a.zip(b)
                .map(|(a, b)| unit_ratios(a, b, self.per_unit))
                .filter(|l| l.len() >= 2)
        } else {
            None
        };
        // Without samples the band alone decides; with them a change must also be
        // significant. Two constant sample sets that differ are a certain change.
        let mut too_few_units = false;
        let (delta, spread, significant) = match &logs {
            Some(logs) => {
                // One value per unit, the units taken as independent: load bursts move
                // neighbouring samples together, so samples are not.
                let values: Vec<f64> = logs.iter().map(|(_, l)| *l).collect();
                let m = median(&values).unwrap_or(0.0);
                let sd = cautious_stddev(&values).unwrap_or(0.0);
                verdict.p_value = t_test_p_value(&values);
                verdict.pairs = Some(values.len() as u32);
                too_few_units = values.len() < super::MIN_UNITS;
                (
                    m.exp() - 1.0,
                    sd,
                    !too_few_units && verdict.p_value.is_none_or(|p| p < config.p_value),
                )
            }
            None => {
                let r = ((sd_i / mu_i).powi(2) + (sd_c / mu_c).powi(2)).sqrt();
                let significant = match (a, b) {
                    (Some(a), Some(b)) if a.len() >= 2 && b.len() >= 2 => {
                        let values =
                            |v: &[(u32, f64)]| v.iter().map(|(_, x)| *x).collect::<Vec<_>>();
                        verdict.p_value = welch_p_value(&values(a), &values(b));
                        verdict.p_value.is_none_or(|p| p < config.p_value)
                    }
                    _ => true,
                };
                (mu_c / mu_i - 1.0, r, significant)
            }
        };
        classified.spreads.push(spread);
        let band = config.noise_floor.max(config.stddev_multiplier * spread);
        verdict.delta = Some(delta);
        verdict.band = band;
        let clear = significant && delta.abs() > band;
        // Units that scatter this widely cannot say which way a change smaller than their
        // band went: unstable, never improved or regressed. A change clear of even such a
        // band, every unit on its side (each several times faster), is still read.
        let unstable = logs.as_ref().is_some_and(|logs| {
            band > super::UNSTABLE_BAND && !(clear && all_on_side(logs.iter().map(|l| l.1), delta))
        });
        verdict.class = if unstable {
            ShapeClass::Ambiguous
        } else if clear && delta > 0.0 {
            ShapeClass::Improved
        } else if clear {
            ShapeClass::Regressed
        } else {
            ShapeClass::Neutral
        };
        verdict.hard_regression =
            !unstable && clear && delta < -config.regression_threshold.max(band);
        if unstable {
            let units: Vec<String> = logs
                .iter()
                .flatten()
                .map(|(_, l)| super::percent(l.exp() - 1.0))
                .collect();
            classified.unstable.push(format!(
                "{} {} (band {}; {} {})",
                verdict.label,
                super::percent(delta),
                crate::units::band(band),
                classified.unit.noun(units.len()),
                units.join(" ")
            ));
        } else if too_few_units && delta.abs() > band {
            let n = verdict.pairs.unwrap_or(0) as usize;
            classified.too_few_units.push(format!(
                "{} {} ({n} {})",
                verdict.label,
                super::percent(delta),
                classified.unit.noun(n)
            ));
        } else if !significant && delta.abs() > band {
            classified.not_significant.push(format!(
                "{} {} (p = {:.3})",
                verdict.label,
                super::percent(delta),
                verdict.p_value.unwrap_or(f64::NAN)
            ));
        }
        Ok((verdict, logs))
    }
}

/// Whether every log ratio is on the side of the change `delta` (none zero).
pub(super) fn all_on_side(logs: impl IntoIterator<Item = f64>, delta: f64) -> bool {
    logs.into_iter()
        .all(|l| (l > 0.0 && delta > 0.0) || (l < 0.0 && delta < 0.0))
}

/// `(unit, ln(best cand / best inc))` for every complete unit: `per_unit` consecutive
/// repeats (one A B B A of the built-in runner when 2; one repeat's pair when 1) that both
/// sides measured with a positive, finite value. The best value of each side in a unit is
/// the sample that interference (a preemption, a burst of other work) slowed least: it
/// only ever slows a sample, never speeds one up. Inputs sorted by repeat; a unit of one
/// repeat is numbered by it, a longer one counts the repeats from 1 (the built-in
/// runner's).
fn unit_ratios(inc: &[(u32, f64)], cand: &[(u32, f64)], per_unit: u32) -> LogRatios {
    let (mut i, mut j) = (0, 0);
    let mut blocks: std::collections::BTreeMap<u32, (u32, f64, f64)> = Default::default();
    let ok = |x: f64| x > 0.0 && x.is_finite();
    while i < inc.len() && j < cand.len() {
        match inc[i].0.cmp(&cand[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let (repeat, x, y) = (inc[i].0, inc[i].1, cand[j].1);
                if ok(x) && ok(y) {
                    let unit = if per_unit <= 1 {
                        repeat
                    } else {
                        repeat.saturating_sub(1) / per_unit
                    };
                    let e = blocks.entry(unit).or_insert((0, 0.0, 0.0));
                    e.0 += 1;
                    e.1 = e.1.max(x);
                    e.2 = e.2.max(y);
                }
                i += 1;
                j += 1;
            }
        }
    }
    blocks
        .into_iter()
        .filter(|(_, (n, _, _))| *n == per_unit.max(1))
        .map(|(b, (_, x, y))| (b, (y / x).ln()))
        .collect()
}

/// Pair each candidate row with the incumbent's row of the same shape, in the candidate's
/// order. Missing, extra or duplicated shapes are errors naming the shape.
fn match_shapes<'t>(
    incumbent: &'t BenchTable,
    candidate: &'t BenchTable,
) -> Result<Vec<(&'t Row, &'t Row)>> {
    let schema = &candidate.schema;
    let key = |r: &'t Row| (r.label.as_str(), r.dims.as_slice());
    let index = index_rows(incumbent, "incumbent")?;
    // One shapes file measured twice: the same shapes in the same order pair by position,
    // as the index would pair them (the incumbent's are distinct, so the candidate's are).
    if incumbent.rows.len() == candidate.rows.len()
        && (incumbent.rows.iter().zip(&candidate.rows)).all(|(i, c)| key(i) == key(c))
    {
        return Ok(incumbent.rows.iter().zip(&candidate.rows).collect());
    }
    let mut matched: HashSet<(&str, &[u64])> = HashSet::with_capacity(candidate.rows.len());
    let mut pairs = Vec::with_capacity(candidate.rows.len());
    let mut candidate_only = Vec::new();
    for row in &candidate.rows {
        if !matched.insert(key(row)) {
            return Err(Error::input(format!(
                "duplicated shape {} in the candidate",
                describe_shape(&row.label, &row.dims, schema)
            )));
        }
        match index.get(&key(row)) {
            Some(i) => pairs.push((*i, row)),
            None => candidate_only.push(row),
        }
    }
    let incumbent_only: Vec<&Row> = incumbent
        .rows
        .iter()
        .filter(|r| !matched.contains(&key(r)))
        .collect();
    let first = match (candidate_only.first(), incumbent_only.first()) {
        (None, None) => return Ok(pairs),
        (Some(r), _) => {
            // A label on both sides with other dimensions is one shape measured two ways.
            match incumbent_only.iter().find(|i| i.label == r.label) {
                Some(i) => format!(
                    "shape '{}' has other dimensions in the two files: {} in the incumbent, {} in the candidate",
                    r.label,
                    describe_shape(&i.label, &i.dims, schema),
                    describe_shape(&r.label, &r.dims, schema)
                ),
                None => format!(
                    "shape {} is in the candidate but missing from the incumbent",
                    describe_shape(&r.label, &r.dims, schema)
                ),
            }
        }
        (None, Some(r)) => format!(
            "shape {} is in the incumbent but missing from the candidate",
            describe_shape(&r.label, &r.dims, schema)
        ),
    };
    // The whole difference, and the way past it: one side measured over another shape set
    // (a quick run against a full one) is the usual cause.
    // The shapes each side lacks, the first few by name.
    let named = |rows: &[&Row]| -> String {
        const SHOWN: usize = 3;
        if rows.is_empty() {
            return String::new();
        }
        let mut text = rows[..rows.len().min(SHOWN)]
            .iter()
            .map(|r| format!("'{}'", r.label))
            .collect::<Vec<_>>()
            .join(", ");
        if rows.len() > SHOWN {
            text.push_str(&format!(" and {} more", rows.len() - SHOWN));
        }
        format!(": {text}")
    };
    Err(Error::input(format!(
        "{first} ({} shape(s) only in the incumbent{}; {} only in the candidate{}; {} in both): the gate judges the same shapes on both sides; measure both over one shape set (both quick or both full)",
        incumbent_only.len(),
        named(&incumbent_only),
        candidate_only.len(),
        named(&candidate_only),
        pairs.len()
    )))
}

/// Rows by label + dims, indexed once; a duplicated shape is an error.
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
