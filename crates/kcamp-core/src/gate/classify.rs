//! Step 1 of the gate: pair every candidate shape with the incumbent's, then per shape the
//! change, its noise band, its significance and its class.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{GateConfig, GateInput, ShapeClass, ShapeVerdict};
use crate::schema::{
    MetricRef, RowRef, Schema, ShapeTable, describe_shape, distinct_hashes, header_difference,
};
use crate::stats::{LogSum, median, robust_stddev, welch_p_value, wilcoxon_p_value};
use crate::types::Check;
use crate::{Error, Result};

/// Every shape judged, in the candidate's order.
pub(super) struct Classified {
    pub shapes: Shapes,
    /// Shapes outside their band whose change the t-test does not confirm (counted
    /// neutral), as `label +x% (p = …)`.
    pub not_significant: Vec<String>,
    /// Per shape (same order), the `(repeat, ln(cand/inc))` pairs it was judged on, when
    /// it was judged paired; empty when no shape was (10,000 empty entries are 240 KB of
    /// fresh memory).
    pub paired_logs: Vec<Option<Vec<(u32, f64)>>>,
    /// The logarithms of the incumbent's and the candidate's values over the shapes that
    /// PASS on both sides: the aggregate's geometric means.
    pub incumbent_logs: LogSum,
    pub candidate_logs: LogSum,
    /// What the verdict and its reasons count over the shapes.
    pub tally: Tally,
}

/// The verdicts [`classify`] gives: every one, or, when they went to a sink piece by piece,
/// those the reasons name (the first [`LISTED_SHAPES`] of each kind a piece found, and every
/// noted regression), by position.
pub(super) enum Shapes {
    All(Vec<ShapeVerdict>),
    Named {
        len: usize,
        /// In the candidate's order.
        named: Vec<(u32, ShapeVerdict)>,
    },
}

impl Shapes {
    /// How many shapes were judged.
    pub fn len(&self) -> usize {
        match self {
            Shapes::All(all) => all.len(),
            Shapes::Named { len, .. } => *len,
        }
    }

    /// The verdict of the shape at `at`, if kept.
    pub fn get(&self, at: usize) -> Option<&ShapeVerdict> {
        match self {
            Shapes::All(all) => all.get(at),
            Shapes::Named { named, .. } => named
                .binary_search_by_key(&at, |(i, _)| *i as usize)
                .ok()
                .map(|i| &named[i].1),
        }
    }

    /// Every verdict, when all were kept; none when they went to a sink.
    pub fn all(&self) -> &[ShapeVerdict] {
        match self {
            Shapes::All(all) => all,
            Shapes::Named { .. } => &[],
        }
    }

    pub fn into_all(self) -> Vec<ShapeVerdict> {
        match self {
            Shapes::All(all) => all,
            Shapes::Named { .. } => Vec::new(),
        }
    }
}

/// Where [`classify`] hands each piece of verdicts when it does not keep them: the position
/// of the piece's first shape in the candidate's order, and the piece's verdicts. Called
/// from either of two threads, in any order of pieces.
pub type Sink<'s> = &'s (dyn Fn(usize, &[ShapeVerdict]) + Sync);

/// Shapes named in one reason; the rest are counted (every shape is in the report's table).
pub(super) const LISTED_SHAPES: usize = 10;

/// Shapes of one kind: how many, and the positions of the first [`LISTED_SHAPES`] of them.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Listed {
    pub count: usize,
    pub first: Vec<u32>,
}

impl Listed {
    fn note(&mut self, at: u32) {
        if self.first.len() < LISTED_SHAPES {
            self.first.push(at);
        }
        self.count += 1;
    }

    /// The shapes of `later`, found `offset` shapes further on, counted after these.
    fn merge(&mut self, later: Listed, offset: u32) {
        let room = LISTED_SHAPES - self.first.len();
        self.first
            .extend(later.first.into_iter().take(room).map(|at| at + offset));
        self.count += later.count;
    }
}

/// What deciding and explaining count over the shapes, counted as the shapes are judged:
/// each reason would otherwise be a pass over every verdict (a 10,000-shape report is
/// 1.5 MB of them, and there are nine such passes).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Tally {
    /// Not PASS in the candidate.
    pub failed: Listed,
    /// Of those, ERROR in the incumbent: not timed, in a paired run.
    pub untimed: Listed,
    pub hard: Listed,
    /// Regressed beyond the band but within the threshold: every one (the report lists
    /// them all).
    pub noted: Vec<u32>,
    /// PASS in the candidate, not in the incumbent.
    pub newly_passing: Listed,
}

impl Tally {
    fn note(&mut self, s: &ShapeVerdict, at: u32) {
        if s.class == ShapeClass::Failed {
            self.failed.note(at);
            if s.incumbent_check == Check::Error {
                self.untimed.note(at);
            }
        }
        if s.hard_regression {
            self.hard.note(at);
        } else if s.class == ShapeClass::Regressed {
            self.noted.push(at);
        }
        if s.check == Check::Pass && s.incumbent_check != Check::Pass {
            self.newly_passing.note(at);
        }
    }

    /// The positions the reasons may name: the listed ones of each kind and every noted
    /// regression, in order, each once.
    fn named(&self) -> Vec<u32> {
        let mut at: Vec<u32> = [
            &self.failed.first,
            &self.untimed.first,
            &self.hard.first,
            &self.newly_passing.first,
            &self.noted,
        ]
        .into_iter()
        .flatten()
        .copied()
        .collect();
        at.sort_unstable();
        at.dedup();
        at
    }

    fn merge(&mut self, later: Tally, offset: u32) {
        self.failed.merge(later.failed, offset);
        self.untimed.merge(later.untimed, offset);
        self.hard.merge(later.hard, offset);
        self.noted
            .extend(later.noted.into_iter().map(|at| at + offset));
        self.newly_passing.merge(later.newly_passing, offset);
    }

    /// The tally of verdicts judged elsewhere (one pass).
    #[cfg(test)]
    pub(super) fn of(shapes: &[ShapeVerdict]) -> Tally {
        let mut tally = Tally::default();
        for (at, s) in shapes.iter().enumerate() {
            tally.note(s, at as u32);
        }
        tally
    }
}

/// Every shape judged. With a `sink`, each piece of verdicts goes to it as it is judged and
/// only the verdicts the reasons name are kept (10,000 verdicts are 1.5 MB of fresh memory,
/// a page fault every 4 KiB); after an error the pieces already handed over are of no use.
pub(super) fn classify(input: &GateInput<'_>, sink: Option<Sink<'_>>) -> Result<Classified> {
    let (incumbent, candidate) = (input.incumbent, input.candidate);
    let config = input.config;
    let metric = input.metric;
    if let Some(diff) = header_difference(
        &incumbent.schema().header(),
        &candidate.schema().header(),
        "incumbent",
        "candidate",
    ) {
        return Err(Error::input(format!(
            "the incumbent and candidate CSVs have different headers: {}",
            diff.message
        )));
    }
    let schema = candidate.schema();
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
    if candidate.is_empty() {
        return Err(Error::input("the candidate has no shapes to judge"));
    }
    let pairs = match_shapes(incumbent, candidate)?;

    let no_samples = HashMap::default();
    let inc_samples = input.incumbent_samples.map(|s| s.repeats_by_label(metric));
    let cand_samples = input.candidate_samples.map(|s| s.repeats_by_label(metric));
    let judging = Judging {
        incumbent,
        candidate,
        accessor: &accessor,
        schema,
        metric,
        config,
        paired: input.paired,
        inc_samples: inc_samples.as_ref().unwrap_or(&no_samples),
        cand_samples: cand_samples.as_ref().unwrap_or(&no_samples),
    };
    let n = pairs.len();
    if let Some(sink) = sink {
        return judging.each(&pairs, sink);
    }
    // Each shape's verdict is written in its place in one vector, by one of two threads
    // when there are many: copying a second part after the first would take fresh pages
    // for half the report (10,000 shapes are 1.5 MB of verdicts).
    let mut shapes: Vec<ShapeVerdict> = Vec::with_capacity(n);
    let slots = &mut shapes.spare_capacity_mut()[..n];
    let slots = std::sync::Mutex::new(
        slots
            .chunks_mut(piece_size(n))
            .map(Some)
            .collect::<Vec<_>>(),
    );
    let (judged, _) = judging.in_pieces(n, || {
        |at: usize, rows: std::ops::Range<usize>| {
            let mine = slots
                .lock()
                .ok()
                .and_then(|mut slots| slots.get_mut(at).and_then(Option::take));
            match mine {
                Some(mine) => judging
                    .fill(&pairs[rows], mine)
                    .map(|j| (j, Vec::<()>::new())),
                None => Err(Error::Internal(format!(
                    "piece {at} of the shapes taken twice"
                ))),
            }
        }
    })?;
    // SAFETY: in_pieces returned Ok, so every piece was filled, and a fill that returns Ok
    // has written every slot it was given; between them the pieces were given the first n
    // slots (each piece is taken once, and in_pieces counted the pieces' shapes, in order).
    // (The verdicts written before an error are never dropped: a leak on the way to an
    // error, not a double free.)
    unsafe { shapes.set_len(n) };
    Ok(judged.classified(Shapes::All(shapes), n))
}

/// The shapes of a piece when `n` shapes are judged: all of them below [`SPLIT_FROM`] (one
/// thread judges them), else [`crate::par::PIECE`].
fn piece_size(n: usize) -> usize {
    if n < SPLIT_FROM {
        n.max(1)
    } else {
        crate::par::PIECE
    }
}

/// Below this many shapes one thread judges them all (a thread costs more than it saves).
pub(super) const SPLIT_FROM: usize = 2_000;

/// What every shape is judged with.
struct Judging<'a> {
    incumbent: &'a dyn ShapeTable,
    candidate: &'a dyn ShapeTable,
    accessor: &'a MetricRef,
    schema: &'a Schema,
    metric: &'a str,
    config: &'a GateConfig,
    paired: bool,
    inc_samples: &'a HashMap<&'a str, Vec<(u32, f64)>>,
    cand_samples: &'a HashMap<&'a str, Vec<(u32, f64)>>,
}

/// What [`Judging::fill`] finds beside the verdicts it writes.
#[derive(Default)]
struct Judged {
    not_significant: Vec<String>,
    paired_logs: Vec<Option<Vec<(u32, f64)>>>,
    incumbent_logs: LogSum,
    candidate_logs: LogSum,
    tally: Tally,
}

impl Judged {
    /// The whole judgement of `n` shapes, with their verdicts.
    fn classified(self, shapes: Shapes, n: usize) -> Classified {
        let mut paired_logs = self.paired_logs;
        if !paired_logs.is_empty() {
            paired_logs.resize(n, None);
        }
        Classified {
            shapes,
            not_significant: self.not_significant,
            paired_logs,
            incumbent_logs: self.incumbent_logs,
            candidate_logs: self.candidate_logs,
            tally: self.tally,
        }
    }

    /// The shapes of `later`, found `offset` shapes further on, after these.
    fn merge(&mut self, later: Judged, offset: usize) {
        self.not_significant.extend(later.not_significant);
        // Filled only up to the last shape judged paired: empty entries in between.
        if !later.paired_logs.is_empty() {
            self.paired_logs.resize(offset, None);
            self.paired_logs.extend(later.paired_logs);
        }
        self.incumbent_logs.merge(later.incumbent_logs);
        self.candidate_logs.merge(later.candidate_logs);
        self.tally.merge(later.tally, offset as u32);
    }
}

impl Judging<'_> {
    /// The verdicts of `pairs` handed to `sink` in pieces, judged by two threads when there
    /// are many (each piece in a buffer of its side, used again for the next), and those the
    /// reasons name kept.
    fn each(&self, pairs: &[(u32, u32)], sink: Sink<'_>) -> Result<Classified> {
        let n = pairs.len();
        let (judged, named) = self.in_pieces(n, || {
            let mut buffer: Vec<ShapeVerdict> = Vec::with_capacity(piece_size(n));
            move |_, rows: std::ops::Range<usize>| {
                let slots = &mut buffer.spare_capacity_mut()[..rows.len()];
                let part = self.fill(&pairs[rows.clone()], slots)?;
                // SAFETY: a fill that returns Ok has written every slot it was given.
                unsafe { buffer.set_len(rows.len()) };
                sink(rows.start, &buffer);
                let named = part
                    .tally
                    .named()
                    .into_iter()
                    .filter_map(|i| Some((i + rows.start as u32, buffer.get(i as usize)?.clone())))
                    .collect();
                buffer.clear();
                Ok((part, named))
            }
        })?;
        Ok(judged.classified(Shapes::Named { len: n, named }, n))
    }

    /// The `n` shapes judged in pieces ([`piece_size`]) by `judge`, which each side makes
    /// once (for a buffer of its own) and calls with a piece's index and rows: by two threads
    /// taking pieces from either end (par::Pieces) when there are many, so that neither waits
    /// for a slower other. What the pieces found is merged in the candidate's order, with
    /// what each kept. A side stops at its first error; the first error in the candidate's
    /// order is the one returned, as a single pass would meet it: the front side judges
    /// every piece before the first failed one, stopping only at an error of its own.
    fn in_pieces<K: Send, J>(
        &self,
        n: usize,
        judge: impl Fn() -> J + Sync,
    ) -> Result<(Judged, Vec<K>)>
    where
        J: FnMut(usize, std::ops::Range<usize>) -> Result<(Judged, Vec<K>)>,
    {
        let pieces = crate::par::Pieces::new(n, piece_size(n));
        let side = |take: &dyn Fn() -> Option<usize>| {
            let mut judge = judge();
            let mut judged = Vec::new();
            while let Some(at) = take() {
                let result = judge(at, pieces.rows_of(at));
                let failed = result.is_err();
                judged.push((at, result));
                if failed {
                    break;
                }
            }
            judged
        };
        let (mut judged, back) = if n < SPLIT_FROM {
            (side(&|| pieces.front()), Vec::new())
        } else {
            crate::par::join(|| side(&|| pieces.front()), || side(&|| pieces.back()))
        };
        judged.extend(back);
        judged.sort_unstable_by_key(|(at, _)| *at);
        let (mut all, mut kept) = (Judged::default(), Vec::new());
        let mut covered = 0;
        for (expected, (at, result)) in judged.into_iter().enumerate() {
            let (part, part_kept) = result?;
            if at != expected {
                break;
            }
            let rows = pieces.rows_of(at);
            covered += rows.len();
            all.merge(part, rows.start);
            kept.extend(part_kept);
        }
        if covered != n {
            return Err(Error::Internal(format!("{covered} of {n} shapes judged")));
        }
        Ok((all, kept))
    }

    /// The verdicts of `pairs`, in order, each written into its slot of `slots` (as many as
    /// pairs). On Ok every slot has been written.
    fn fill(
        &self,
        pairs: &[(u32, u32)],
        slots: &mut [std::mem::MaybeUninit<ShapeVerdict>],
    ) -> Result<Judged> {
        if pairs.len() != slots.len() {
            return Err(Error::Internal(format!(
                "{} shapes to judge into {} slots",
                pairs.len(),
                slots.len()
            )));
        }
        let Judging {
            accessor,
            schema,
            metric,
            config,
            inc_samples,
            cand_samples,
            ..
        } = *self;
        let mut not_significant = Vec::new();
        // Filled up to a shape judged paired, and then to the last: see Classified.
        let mut paired_logs = Vec::new();
        let (mut incumbent_logs, mut candidate_logs) = (LogSum::default(), LogSum::default());
        let mut tally = Tally::default();
        // Each verdict is counted as it is written: it is still in the cache.
        let mut put = |slot: &mut std::mem::MaybeUninit<ShapeVerdict>, verdict, at: usize| {
            tally.note(slot.write(verdict), at as u32);
        };
        for (at, (slot, &(inc, cand))) in slots.iter_mut().zip(pairs).enumerate() {
            let (inc_row, cand_row) = (
                self.incumbent.row(inc as usize),
                self.candidate.row(cand as usize),
            );
            let mut verdict = ShapeVerdict {
                label: cand_row.label.into(),
                dims: cand_row.dims.into(),
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
                put(slot, verdict, at);
                continue;
            }
            let (mu_c, sd_c) = measured(accessor, cand_row, schema, metric, "candidate")?;
            verdict.candidate = Some(mu_c);
            let Some((mu_i, sd_i)) = inc_measured else {
                // Newly passing: better than a failure, but there is no ratio to judge.
                verdict.class = ShapeClass::Improved;
                put(slot, verdict, at);
                continue;
            };
            // Both sides PASS: the shape counts in the aggregate.
            incumbent_logs.add(mu_i);
            candidate_logs.add(mu_c);
            let (a, b) = (
                inc_samples.get(cand_row.label),
                cand_samples.get(cand_row.label),
            );
            let logs = if self.paired {
                a.zip(b)
                    .map(|(a, b)| log_ratios(a, b))
                    .filter(|l| l.len() >= 2)
            } else {
                None
            };
            // Without samples the band alone decides; with them a change must also be
            // significant. Two constant sample sets that differ are a certain change.
            let (delta, band, significant) = match &logs {
                Some(logs) => {
                    // Median and median deviation: one preempted sample on a busy machine moves
                    // neither the change nor its band.
                    let values: Vec<f64> = logs.iter().map(|(_, l)| *l).collect();
                    let m = median(&values).unwrap_or(0.0);
                    let sd = robust_stddev(&values).unwrap_or(0.0);
                    verdict.p_value = wilcoxon_p_value(&values);
                    verdict.pairs = Some(values.len() as u32);
                    (
                        m.exp() - 1.0,
                        config.noise_floor.max(config.stddev_multiplier * sd),
                        verdict.p_value.is_none_or(|p| p < config.p_value),
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
                    (
                        mu_c / mu_i - 1.0,
                        config.noise_floor.max(config.stddev_multiplier * r),
                        significant,
                    )
                }
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
                    super::percent(delta),
                    verdict.p_value.unwrap_or(f64::NAN)
                ));
            }
            put(slot, verdict, at);
            if logs.is_some() {
                paired_logs.resize(at, None);
                paired_logs.push(logs);
            }
        }
        if !paired_logs.is_empty() {
            paired_logs.resize(pairs.len(), None);
        }

        Ok(Judged {
            not_significant,
            paired_logs,
            incumbent_logs,
            candidate_logs,
            tally,
        })
    }
}

/// `(repeat, ln(cand/inc))` for every repeat both sides measured (inputs sorted by repeat).
fn log_ratios(inc: &[(u32, f64)], cand: &[(u32, f64)]) -> Vec<(u32, f64)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(inc.len().min(cand.len()));
    while i < inc.len() && j < cand.len() {
        match inc[i].0.cmp(&cand[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let (x, y) = (inc[i].1, cand[j].1);
                if x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite() {
                    out.push((inc[i].0, (y / x).ln()));
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Pair each candidate row with the incumbent's row of the same shape, in the
/// candidate's order, as (incumbent row, candidate row) positions: 8 bytes a pair, not two
/// borrowed rows. Missing, extra or duplicated shapes are errors naming the shape.
fn match_shapes(incumbent: &dyn ShapeTable, candidate: &dyn ShapeTable) -> Result<Vec<(u32, u32)>> {
    let schema = candidate.schema();
    // A table is at most MAX_INPUT_BYTES, so its rows are numbered in 32 bits.
    let (inc_rows, cand_rows) = (0..incumbent.len() as u32, 0..candidate.len() as u32);
    let inc = |i: u32| incumbent.row(i as usize);
    let cand = |i: u32| candidate.row(i as usize);
    // The common case, one shapes file measured twice: the same shapes in the same order,
    // paired by position once the shapes are known to be distinct (what the exact path
    // below would pair them to). Anything else takes the exact path, with its errors.
    let same_order = incumbent.len() == candidate.len()
        && match (incumbent.shapes(), candidate.shapes()) {
            (Some(i), Some(c)) => i == c,
            _ => inc_rows.clone().all(|i| {
                let (i, c) = (inc(i), cand(i));
                i.label == c.label && i.dims == c.dims
            }),
        };
    if same_order
        && (incumbent.labels_unique()
            || distinct_hashes(inc_rows.clone().map(|i| {
                let r = inc(i);
                (r.label, r.dims)
            })))
    {
        return Ok(inc_rows.map(|i| (i, i)).collect());
    }
    let index = index_rows(incumbent, "incumbent")?;
    let mut matched: HashSet<(&str, &[u64])> =
        HashSet::with_capacity_and_hasher(candidate.len(), Default::default());
    let mut pairs = Vec::with_capacity(candidate.len());
    let mut candidate_only = Vec::new();
    for c in cand_rows {
        let row = cand(c);
        let key = (row.label, row.dims);
        if !matched.insert(key) {
            return Err(Error::input(format!(
                "duplicated shape {} in the candidate",
                describe_shape(row.label, row.dims, schema)
            )));
        }
        match index.get(&key) {
            Some(i) => pairs.push((*i, c)),
            None => candidate_only.push(c),
        }
    }
    let incumbent_only: Vec<u32> = inc_rows
        .filter(|&i| {
            let r = inc(i);
            !matched.contains(&(r.label, r.dims))
        })
        .collect();
    let first = match (candidate_only.first(), incumbent_only.first()) {
        (None, None) => return Ok(pairs),
        (Some(&c), _) => {
            let r = cand(c);
            // A label on both sides with other dimensions is one shape measured two ways.
            let same_label = incumbent_only
                .iter()
                .map(|&i| inc(i))
                .find(|i| i.label == r.label);
            match same_label {
                Some(i) => format!(
                    "shape '{}' has other dimensions in the two files: {} in the incumbent, {} in the candidate",
                    r.label,
                    describe_shape(i.label, i.dims, schema),
                    describe_shape(r.label, r.dims, schema)
                ),
                None => format!(
                    "shape {} is in the candidate but missing from the incumbent",
                    describe_shape(r.label, r.dims, schema)
                ),
            }
        }
        (None, Some(&i)) => {
            let r = inc(i);
            format!(
                "shape {} is in the incumbent but missing from the candidate",
                describe_shape(r.label, r.dims, schema)
            )
        }
    };
    // The whole difference, and the way past it: one side measured over another shape set
    // (a quick run against a full one) is the usual cause.
    // The shapes each side lacks, the first few by name.
    let named = |labels: Vec<&str>| -> String {
        const SHOWN: usize = 3;
        if labels.is_empty() {
            return String::new();
        }
        let mut text = labels[..labels.len().min(SHOWN)]
            .iter()
            .map(|l| format!("'{l}'"))
            .collect::<Vec<_>>()
            .join(", ");
        if labels.len() > SHOWN {
            text.push_str(&format!(" and {} more", labels.len() - SHOWN));
        }
        format!(": {text}")
    };
    Err(Error::input(format!(
        "{first} ({} shape(s) only in the incumbent{}; {} only in the candidate{}; {} in both): the gate judges the same shapes on both sides; measure both over one shape set (both quick or both full)",
        incumbent_only.len(),
        named(incumbent_only.iter().map(|&i| inc(i).label).collect()),
        candidate_only.len(),
        named(candidate_only.iter().map(|&c| cand(c).label).collect()),
        pairs.len()
    )))
}

/// Row positions by label + dims, built once; a duplicated shape is an error.
fn index_rows<'t>(
    table: &'t dyn ShapeTable,
    side: &str,
) -> Result<HashMap<(&'t str, &'t [u64]), u32>> {
    let mut index = HashMap::with_capacity_and_hasher(table.len(), Default::default());
    for i in 0..table.len() {
        let row = table.row(i);
        if index.insert((row.label, row.dims), i as u32).is_some() {
            return Err(Error::input(format!(
                "duplicated shape {} in the {side}",
                describe_shape(row.label, row.dims, table.schema())
            )));
        }
    }
    Ok(index)
}

/// A PASS row's metric value and stddev; the gate divides by the value, so it must be
/// positive and finite (a zero time makes the derived metric infinite).
fn measured(
    accessor: &MetricRef,
    row: RowRef<'_>,
    schema: &Schema,
    metric: &str,
    side: &str,
) -> Result<(f64, f64)> {
    let value = accessor.value(row).unwrap_or(f64::NAN);
    let stddev = accessor.stddev(row).unwrap_or(0.0);
    if !(value.is_finite() && value > 0.0 && stddev.is_finite() && stddev >= 0.0) {
        return Err(Error::input(format!(
            "shape {}: the {side}'s {metric} is {value} ± {stddev} on a PASS row; the gate needs a positive finite value",
            describe_shape(row.label, row.dims, schema)
        )));
    }
    Ok((value, stddev))
}
