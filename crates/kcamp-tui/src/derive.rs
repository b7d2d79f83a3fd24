//! What the view draws, computed from a [`CampaignState`] when it is loaded (or when the
//! selection changes), so drawing a frame is only layout and text.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use kcamp_core::artifacts::progress::Progress;
use kcamp_core::artifacts::result::{ShapeFailure, ShapeRecord};
use kcamp_core::campaign::ledger::{self, Tried};
use kcamp_core::campaign::{CampaignState, RoundState};
use kcamp_core::gate::{GateReport, Reason, ReasonKind, ShapeClass, ShapeVerdict, Verdict};
use kcamp_core::schema::{BenchTable, MetricRef, Row};
use kcamp_core::text::{count, does};
use kcamp_core::types::Check;
use kcamp_core::types::{DecisionKind, Validation};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundStatus {
    Baseline,
    Accepted,
    RolledBack,
    Open,
}

impl RoundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RoundStatus::Baseline => "BASELINE",
            RoundStatus::Accepted => "ACCEPTED",
            RoundStatus::RolledBack => "ROLLED_BACK",
            RoundStatus::Open => "open",
        }
    }
}

/// One row of the rounds panel.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundLine {
    pub number: u32,
    pub hypothesis: String,
    pub status: RoundStatus,
    pub verdict: Option<Verdict>,
    pub aggregate: Option<f64>,
    pub delta: Option<f64>,
    pub incumbent: bool,
    pub forced: bool,
    /// Shapes that do not PASS, untimed checked ones included ([`RoundState::failures`]).
    pub failed: usize,
    /// The validation its verdict comes from (quick: the representative shapes).
    pub validation: Option<Validation>,
    /// The incumbent its Δ is against (`vs r12`); None for the BASELINE.
    pub parent: Option<u32>,
}

/// One shape in the gate panel.
#[derive(Debug, Clone, PartialEq)]
pub struct GateLine {
    pub label: String,
    pub dims: String,
    pub check: Check,
    pub incumbent: Option<f64>,
    pub candidate: Option<f64>,
    pub delta: Option<f64>,
    pub band: Option<f64>,
    /// Welch's t-test, when both sides had raw samples.
    pub p_value: Option<f64>,
    /// None for a round without a gate report (BASELINE): values only.
    pub class: Option<ShapeClass>,
    /// Why the shape did not PASS, as its run recorded it (a compile error, a mismatch, a
    /// timeout); None for a PASS, or where no run record says (a harness's CSV).
    pub reason: Option<String>,
    /// Checked but not timed (a quick validation checks every target shape): not in the
    /// gate's table, yet a shape that does not PASS here rejects the round as well.
    pub untimed: bool,
    /// Judged on paired ratios (both sides measured in one run, interleaved): its Δ is the
    /// median of the per-unit ratios, not the ratio of the means.
    pub paired: bool,
}

impl GateLine {
    /// The change the two means state, cand/inc − 1.
    pub fn means_delta(&self) -> Option<f64> {
        kcamp_core::gate::means_change(self.incumbent, self.candidate)
    }

    /// A paired row whose Δ and means say different things: opposite signs, or further
    /// apart than its band. The means come from one run each side and can drift; the
    /// paired Δ is what the gate judged, and the row is marked so the two are not confused.
    pub fn disagrees(&self) -> bool {
        let (Some(d), Some(m)) = (self.delta, self.means_delta()) else {
            return false;
        };
        self.paired && kcamp_core::gate::paired_delta_disagrees(d, m, self.band.unwrap_or(0.0))
    }

    /// `sq1024 FAIL: rel_err 3.2e-2 over 1e-4`: the first line of the reason (a compile
    /// error runs over many), for a shape that did not PASS.
    pub fn failure(&self) -> Option<String> {
        if self.check == Check::Pass {
            return None;
        }
        let untimed = if self.untimed { " (untimed)" } else { "" };
        let why = self
            .reason
            .as_deref()
            .and_then(first_reason_line)
            .unwrap_or("no reason recorded");
        Some(format!(
            "{} {}{untimed}: {why}",
            self.label,
            self.check.as_str()
        ))
    }
}

/// The gate panel for one round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GateView {
    pub round: Option<u32>,
    /// The campaign's primary metric, which the values are in.
    pub metric: String,
    pub open: bool,
    pub validation: Option<Validation>,
    pub verdict: Option<Verdict>,
    pub reasons: Vec<kcamp_core::gate::Reason>,
    /// Shapes regressed by less than the hard threshold (ACCEPT_WITH_NOTE).
    pub noted_regressions: Vec<String>,
    pub aggregate_delta: Option<f64>,
    /// The round's CSV could not be read.
    pub error: Option<String>,
    /// Why there is nothing to show (no rounds).
    pub note: Option<String>,
    /// The round has neither a table nor a verdict: what to say depends on what runs now
    /// ([`crate::app::Model::gate_note`]).
    pub unmeasured: Option<RoundStatus>,
    pub lines: Vec<GateLine>,
}

/// Points of the metric chart that share a marker and a colour.
#[derive(Debug, Clone, PartialEq)]
pub struct PointGroup {
    pub status: RoundStatus,
    /// Measured on the representative shapes only (a quick validation).
    pub quick: bool,
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartData {
    /// (round, value) of the accepted lineage, chained from the gate: BASELINE at its
    /// aggregate, each ACCEPTED round at the previous value times the speedup its gate
    /// measured (1 + Δ, paired where the run was). Rounds measured in different runs are
    /// not compared by their absolute aggregates, which drift from run to run; where an
    /// accepted round has no Δ the line starts again at its own aggregate.
    pub lineage: Vec<(f64, f64)>,
    /// The lineage's chained speedup over BASELINE (1.23 is ×1.23).
    pub speedup: Option<f64>,
    /// Every measured round, grouped by status and validation.
    pub groups: Vec<PointGroup>,
    /// BASELINE's aggregate, drawn as a horizontal line.
    pub baseline: Option<f64>,
    /// The manifest's performance target on the primary metric, drawn as a line.
    pub target: Option<f64>,
    pub x_bounds: [f64; 2],
    pub y_bounds: [f64; 2],
    /// The best round of the accepted lineage (a rolled-back round never counts).
    pub best: Option<(u32, f64)>,
    /// Rounds measured without an aggregate (no shape passed, e.g. a kernel that does not
    /// compile), and what became of each: drawn on the axis, so a failed round is seen
    /// rather than missing.
    pub failed: Vec<(f64, RoundStatus)>,
}

impl ChartData {
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.points.is_empty()) && self.failed.is_empty()
    }

    /// Measured rounds on the chart.
    pub fn rounds_shown(&self) -> usize {
        self.groups.iter().map(|g| g.points.len()).sum::<usize>() + self.failed.len()
    }
}

/// Verdict reasons with repeated notes collapsed: reasons that differ only in a quoted
/// shape label (`shape 's1' judged against round 55 …`, 200 times) become one line.
#[derive(Debug, Clone, PartialEq)]
pub struct ReasonLine {
    pub text: String,
    /// How many reasons this line stands for.
    pub count: usize,
    pub kind: ReasonKind,
}

/// Collapse reasons of one kind that say the same of one shape each (the shape the reason
/// names, [`Reason::shapes`], in its place), in the order the reader needs them
/// ([`ordered_reasons`]), each at its first appearance.
pub fn collapse_reasons(reasons: &[Reason]) -> Vec<ReasonLine> {
    let mut out: Vec<(Option<String>, Vec<&str>, ReasonLine)> = Vec::new();
    for reason in ordered_reasons(reasons) {
        let template = shape_template(reason);
        let label = template.as_ref().map(|(_, l)| *l);
        let key = template.as_ref().map(|(t, _)| t.clone());
        match out
            .iter_mut()
            .find(|(k, _, l)| k.is_some() && *k == key && l.kind == reason.kind)
        {
            Some((_, labels, line)) => {
                line.count += 1;
                labels.extend(label);
            }
            None => out.push((
                key,
                label.into_iter().collect(),
                ReasonLine {
                    text: reason.text.clone(),
                    count: 1,
                    kind: reason.kind,
                },
            )),
        }
    }
    out.into_iter()
        .map(|(key, labels, mut line)| {
            if line.count > 1
                && let Some(template) = key
            {
                let first = labels.first().copied().unwrap_or("");
                let others = line.count - 1;
                let s = if others == 1 { "" } else { "s" };
                line.text =
                    template.replacen(PLACEHOLDER, &format!("'{first}' and {others} other{s}"), 1);
            }
            line
        })
        .collect()
}

const PLACEHOLDER: &str = "\u{0}";

/// A reason that names one shape, with that shape's quoted label replaced by
/// [`PLACEHOLDER`], and the label.
fn shape_template(reason: &Reason) -> Option<(String, &str)> {
    let [label] = reason.shapes.as_slice() else {
        return None;
    };
    let quoted = format!("'{label}'");
    let start = reason.text.find(&quoted)?;
    let template = format!(
        "{}{PLACEHOLDER}{}",
        &reason.text[..start],
        &reason.text[start + quoted.len()..]
    );
    Some((template, label.as_str()))
}

/// One shape's metric over the measured rounds (scaled for a sparkline).
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeSpark {
    pub label: String,
    pub bars: Vec<Option<u64>>,
    pub last: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    Good,
    Warn,
    Bad,
    Dim,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DetailLine {
    pub key: &'static str,
    pub value: String,
    pub tone: Tone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogSource {
    Journal,
    Dashboard,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub time: DateTime<Utc>,
    pub source: LogSource,
    pub text: String,
    pub tone: Tone,
}

/// Seconds since the run of `live/progress.json` started (never negative: the clocks of
/// two processes).
pub fn elapsed(live: &Progress, now: DateTime<Utc>) -> f64 {
    ((now - live.started_at).num_milliseconds() as f64 / 1e3).max(0.0)
}

/// Seconds left, extrapolated from the shapes done so far (none before the first shape is
/// done): `index` shapes are done.
pub fn eta(live: &Progress, now: DateTime<Utc>) -> Option<f64> {
    let done = live.index.min(live.total);
    (done > 0).then(|| elapsed(live, now) / done as f64 * (live.total - done) as f64)
}

pub fn round_status(round: &RoundState) -> RoundStatus {
    match round.decision.as_ref().map(|d| d.decision) {
        Some(DecisionKind::Baseline) => RoundStatus::Baseline,
        Some(DecisionKind::Accepted) => RoundStatus::Accepted,
        Some(DecisionKind::RolledBack) => RoundStatus::RolledBack,
        None => RoundStatus::Open,
    }
}

/// Where a row's value of the primary metric lives: the schema's own resolution (a column,
/// or `Combined Step TFLOPS` derived by the schema's metric code), so the dashboard never
/// computes a metric differently from the gate.
fn metric_index(table: &BenchTable, metric: &str) -> MetricSource {
    MetricSource(table.schema.resolve_metric(metric))
}

#[derive(Debug, Clone, Copy)]
struct MetricSource(Option<MetricRef>);

impl MetricSource {
    /// The metric of a PASS row, if finite (other rows have no rate to show).
    fn value(self, row: &Row) -> Option<f64> {
        if row.check != Check::Pass {
            return None;
        }
        self.0?.value(row).filter(|v| v.is_finite())
    }
}

/// Geometric mean of the positive values (non-PASS cells are NaN and skipped).
fn geomean(values: impl Iterator<Item = f64>) -> Option<f64> {
    kcamp_core::stats::geomean(&values.filter(|v| *v > 0.0).collect::<Vec<_>>())
}

/// The round's aggregate: recorded in the decision, else the gate's, else from its table.
pub fn round_aggregate(round: &RoundState, metric: &str) -> Option<f64> {
    round
        .decision
        .as_ref()
        .and_then(|d| d.aggregate)
        .or_else(|| round.gate.as_ref().and_then(|g| g.aggregate.candidate))
        .or_else(|| {
            let table = round.table.as_ref()?;
            let source = metric_index(table, metric);
            geomean(table.rows.iter().filter_map(|r| source.value(r)))
        })
}

pub fn round_lines(state: &CampaignState) -> Vec<RoundLine> {
    let metric = &state.manifest.primary_metric;
    state
        .rounds
        .iter()
        .map(|r| {
            // Verdict, failures and Δ as `kcamp log`, report.md and the round's iteration
            // record state them.
            let outcome = r.outcome();
            RoundLine {
                number: r.number,
                hypothesis: crate::view::text::printable(&first_line(&r.hypothesis)).into_owned(),
                status: round_status(r),
                verdict: outcome.verdict,
                aggregate: round_aggregate(r, metric),
                delta: outcome.delta,
                incumbent: state.incumbent == Some(r.number),
                forced: r.decision.as_ref().is_some_and(|d| d.forced),
                failed: outcome.failures.len(),
                validation: outcome.validation.or_else(|| round_validation(r)),
                parent: outcome.parent,
            }
        })
        .collect()
}

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .trim_start_matches('#')
        .trim()
        .to_owned()
}

pub fn format_dims(dims: &[u64]) -> String {
    let mut dims = dims;
    // A batch of 1 is noise in a narrow column.
    if dims.len() == 4 && dims[0] == 1 {
        dims = &dims[1..];
    }
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

/// The round the dashboard opens on (index into the rounds): the newest, unless that is the
/// open round with nothing measured yet, whose gate would be empty: then the newest decided
/// round with a measurement, so the first screen shows a gate.
pub fn landing_round(state: &CampaignState) -> usize {
    let last = state.rounds.len().saturating_sub(1);
    let measured =
        |r: &RoundState| r.gate.is_some() || r.table.is_some() || r.table_error.is_some();
    match state.rounds.last() {
        Some(newest) if newest.decision.is_none() && !measured(newest) => state.rounds[..last]
            .iter()
            .rposition(|r| r.decision.is_some() && measured(r))
            .unwrap_or(last),
        _ => last,
    }
}

pub fn gate_view(state: &CampaignState, index: usize) -> GateView {
    let Some(round) = state.rounds.get(index) else {
        return GateView {
            note: Some("no rounds yet: run `kcamp baseline`".into()),
            ..GateView::default()
        };
    };
    let mut view = GateView {
        round: Some(round.number),
        metric: state.manifest.primary_metric.clone(),
        open: round.decision.is_none(),
        validation: round_validation(round),
        error: round.table_error.clone(),
        ..GateView::default()
    };
    let gate = round
        .gate
        .as_ref()
        .or_else(|| round.decision.as_ref().and_then(|d| d.gate.as_ref()));
    if let Some(gate) = gate {
        view.verdict = Some(gate.verdict);
        view.reasons = gate.reasons.0.clone();
        view.noted_regressions = gate.noted_regressions.clone();
        view.aggregate_delta = gate.aggregate.delta;
        view.lines = gate
            .shapes
            .iter()
            .map(|s| GateLine {
                label: s.label.to_string(),
                dims: format_dims(&s.dims),
                check: s.check,
                incumbent: s.incumbent,
                candidate: s.candidate,
                delta: s.delta,
                // No change, no noise to hold it to (a failed or newly passing shape).
                band: s.delta.map(|_| s.band),
                p_value: s.p_value,
                class: Some(s.class),
                reason: None,
                untimed: false,
                paired: s.pairs.is_some(),
            })
            .collect();
    } else if let Some(table) = &round.table {
        let source = metric_index(table, &state.manifest.primary_metric);
        view.lines = table
            .rows
            .iter()
            .map(|r| GateLine {
                label: r.label.clone(),
                dims: format_dims(&r.dims),
                check: r.check,
                incumbent: None,
                candidate: source.value(r),
                delta: None,
                band: None,
                p_value: None,
                class: None,
                reason: None,
                untimed: false,
                paired: false,
            })
            .collect();
    } else if view.error.is_none() {
        view.unmeasured = Some(round_status(round));
    }
    add_failures(&mut view, round, &state.dir);
    view
}

/// The reasons the run recorded for the shapes that did not PASS, and the untimed checked
/// shapes that did not PASS as lines of their own (counted as failed: they reject the round
/// as a failed timed shape does).
fn add_failures(view: &mut GateView, round: &RoundState, campaign: &std::path::Path) {
    let failing = |r: &&ShapeRecord| r.check != Check::Pass;
    // Paths inside the campaign read from it (`kernel/gemm.wgsl:24:18: …`): the panel is
    // narrow, and the path before the message is the same for every compile error.
    let reason = |r: &ShapeRecord| r.reason.as_ref().map(|t| short_paths(t, Some(campaign)));
    let reasons: HashMap<&str, &ShapeRecord> = round
        .result
        .iter()
        .flat_map(|r| r.shapes.iter())
        .filter(failing)
        .map(|r| (r.label.as_str(), r))
        .collect();
    for line in view.lines.iter_mut().filter(|l| l.check != Check::Pass) {
        line.reason = reasons.get(line.label.as_str()).and_then(|r| reason(r));
    }
    // Only where the round has a table: an unreadable or unmeasured one says so instead.
    if view.lines.is_empty() {
        return;
    }
    let judged = view.verdict.is_some();
    view.lines.extend(
        round
            .checked_shapes()
            .iter()
            .filter(failing)
            .map(|r| GateLine {
                label: r.label.clone(),
                dims: format_dims(&r.dims),
                check: r.check,
                incumbent: None,
                candidate: None,
                delta: None,
                band: None,
                p_value: None,
                class: judged.then_some(ShapeClass::Failed),
                reason: reason(r),
                untimed: true,
                paired: false,
            }),
    );
}

/// A paired gain the band cannot tell from noise.
const NOISE: &str = "no gain distinguishable from noise";

/// Shapes named in a rollback reason; the rest are counted.
const REASON_SHAPES: usize = 3;

/// `a, b, c and 4 more`.
fn listed(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(REASON_SHAPES)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > REASON_SHAPES {
        text.push_str(&format!(" and {} more", items.len() - REASON_SHAPES));
    }
    text
}

/// The most of a failure's reason a one-line summary quotes (characters).
const REASON_CHARS: usize = 120;

/// Why a round is rolled back, from its verdict and the shapes of its run that did not PASS
/// ([`RoundState::failures`]): `gate ` and the [`verdict_summary`]. It goes into the
/// journal and `decision.json`, so no path in it names this machine's directories:
/// `campaign`'s own are written from the campaign, any other by its file name.
pub fn rollback_reason(gate: &GateReport, failures: &[ShapeFailure], campaign: &Path) -> String {
    short_paths(
        &format!("gate {}", verdict_summary(gate, failures)),
        Some(campaign),
    )
}

/// `text` with the paths of this machine taken out: those under `campaign` relative to it
/// (`kernel/gemm.wgsl:50:12`), any other absolute path by its last component
/// (`gemm.wgsl:50:12`). A compile error names the file it read in full.
pub fn short_paths(text: &str, campaign: Option<&Path>) -> String {
    let mut text = text.to_owned();
    if let Some(dir) = campaign {
        let prefix = format!("{}/", dir.display().to_string().trim_end_matches('/'));
        if prefix.len() > 2 {
            text = text.replace(&prefix, "");
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    // An absolute path starts a word: after a space, a quote, a bracket, or the text's start.
    while let Some(at) = rest.find('/') {
        let starts_word = rest[..at]
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || "\"'`([{<=".contains(c));
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || "\"'`)]}>,;".contains(c))
            .map_or(rest.len(), |e| at + e);
        let word = &rest[at..end];
        out.push_str(&rest[..at]);
        // A lone `/` or `//` (a division, a comment) is no path.
        if starts_word && word.len() > 1 && word[1..].contains('/') && !word.starts_with("//") {
            out.push_str(word.rsplit('/').next().unwrap_or(word));
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A verdict in one line: the verdict, the aggregate change and what decided it (`REJECT ·
/// aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL) · sq1024: mismatch at …`).
/// Built from the report's numbers, not from its first reason: that is often a note on how
/// the run was measured (`paired: round 1's kernel snapshot was re-measured…`), which says
/// nothing of why. `failures` are the run's shapes that did not PASS (a validation's
/// `failures`): the untimed ones count with the report's, and the first reason is quoted.
pub fn verdict_summary(gate: &GateReport, failures: &[ShapeFailure]) -> String {
    let mut parts = vec![gate.verdict.as_str().to_owned()];
    if let Some(d) = gate.aggregate.delta {
        parts.push(format!("aggregate {}", kcamp_core::units::change(d)));
    }
    let failed: Vec<String> = gate
        .shapes
        .iter()
        .filter(|s| s.class == ShapeClass::Failed)
        .map(|s| format!("{} ({})", s.label, s.check.as_str()))
        .chain(
            failures
                .iter()
                .filter(|f| f.untimed)
                .map(|f| format!("{} ({}, untimed)", f.label, f.check.as_str())),
        )
        .collect();
    if !failed.is_empty() {
        parts.push(format!(
            "{} {} not PASS: {}",
            count(failed.len(), "shape"),
            does(failed.len()),
            listed(&failed)
        ));
        // The first recorded reason, on one line: why, not only which.
        if let Some(f) = failures.iter().find(|f| f.reason.is_some()) {
            let first = f
                .reason
                .as_deref()
                .and_then(first_reason_line)
                .unwrap_or_default();
            parts.push(format!(
                "{}: {}",
                f.label,
                kcamp_core::text::bounded(first, REASON_CHARS)
            ));
        }
    }
    let hard: Vec<&ShapeVerdict> = gate.shapes.iter().filter(|s| s.hard_regression).collect();
    if !hard.is_empty() {
        let n = count(hard.len(), "shape");
        let hard: Vec<String> = hard
            .iter()
            .map(|s| {
                format!(
                    "{} {}",
                    s.label,
                    s.delta.map_or("—".into(), kcamp_core::units::change)
                )
            })
            .collect();
        parts.push(format!(
            "{n} regressed beyond the threshold: {}",
            listed(&hard)
        ));
    }
    if failed.is_empty() && hard.is_empty() {
        parts.extend(deciding_words(gate));
    }
    parts.join(" · ")
}

/// What decided a verdict when no timed shape did, in a few words: an untimed shape that
/// failed, sides that could not be compared, the re-measurements; else the aggregate's
/// judgement, stated from its numbers; else a quick ACCEPT that still needs its full run.
/// Found by the reasons' kinds: a note on how the run was measured never decides.
fn deciding_words(gate: &GateReport) -> Option<String> {
    let first = |kind: ReasonKind| gate.reasons.iter().find(|r| r.kind == kind);
    let sentence = |r: &kcamp_core::gate::Reason| r.text.trim().trim_end_matches('.').to_owned();
    if let Some(r) = [
        ReasonKind::Failure,
        ReasonKind::Comparison,
        ReasonKind::Remeasure,
    ]
    .into_iter()
    .find_map(first)
    {
        return Some(sentence(r));
    }
    let aggregate = &gate.aggregate;
    match (gate.verdict, aggregate.delta) {
        (Verdict::Reject, Some(d)) if d > 0.0 => Some(match aggregate.band {
            Some(b) => format!(
                "{NOISE} ({}band {})",
                if aggregate.pairs.is_some() {
                    "paired "
                } else {
                    ""
                },
                kcamp_core::units::band(b)
            ),
            None => NOISE.to_owned(),
        }),
        (Verdict::Reject, Some(_)) => Some("not a gain".into()),
        (Verdict::Reject, None) => Some("no shape passes on both sides".into()),
        _ => first(ReasonKind::Confirmation).map(sentence),
    }
}

/// The reasons in the order a reader needs them: what decided the verdict first (failures,
/// regressions, the comparison, the aggregate, re-measurements), the notes after, how the
/// run was measured last; the order among reasons of one kind is kept.
pub fn ordered_reasons(reasons: &[Reason]) -> Vec<&Reason> {
    let mut ordered: Vec<&Reason> = reasons.iter().collect();
    ordered.sort_by_key(|r| r.kind);
    ordered
}

/// The first line of a recorded reason that says something (a compile error may start with
/// a blank line).
fn first_reason_line(reason: &str) -> Option<&str> {
    reason.lines().map(str::trim).find(|l| !l.is_empty())
}

pub fn chart(state: &CampaignState) -> ChartData {
    let metric = &state.manifest.primary_metric;
    let mut data = ChartData::default();
    let mut ys = Vec::new();
    let mut xs = Vec::new();
    for r in &state.rounds {
        let Some(agg) = round_aggregate(r, metric) else {
            if nothing_passed(r) {
                data.failed.push((f64::from(r.number), round_status(r)));
                xs.push(f64::from(r.number));
            }
            continue;
        };
        let status = round_status(r);
        let quick = round_validation(r) == Some(Validation::Quick);
        let point = (f64::from(r.number), agg);
        xs.push(point.0);
        ys.push(agg);
        match data
            .groups
            .iter_mut()
            .find(|g| g.status == status && g.quick == quick)
        {
            Some(g) => g.points.push(point),
            None => data.groups.push(PointGroup {
                status,
                quick,
                points: vec![point],
            }),
        }
        if matches!(status, RoundStatus::Baseline | RoundStatus::Accepted) {
            let chained = match (data.lineage.last(), r.outcome().delta) {
                (Some(&(_, previous)), Some(d)) if status == RoundStatus::Accepted => {
                    data.speedup = data.speedup.map(|s| s * (1.0 + d));
                    previous * (1.0 + d)
                }
                _ => {
                    if status == RoundStatus::Baseline {
                        data.speedup = Some(1.0);
                    }
                    agg
                }
            };
            data.lineage.push((point.0, chained));
            ys.push(chained);
            if data.best.is_none_or(|(_, b)| agg > b) {
                data.best = Some((r.number, agg));
            }
        }
        if status == RoundStatus::Baseline {
            data.baseline = Some(agg);
        }
    }
    data.target = state
        .manifest
        .performance_target
        .as_ref()
        .filter(|t| t.metric == *metric && t.value.is_finite() && t.value > 0.0)
        .map(|t| t.value);
    ys.extend(data.target);
    let (x_min, x_max) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let (y_min, y_max) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    if xs.is_empty() {
        data.x_bounds = [0.0, 1.0];
        data.y_bounds = [0.0, 1.0];
    } else {
        // One round sits in the middle of the axis; more span it.
        data.x_bounds = if x_min == x_max {
            [x_min - 1.0, x_max + 1.0]
        } else {
            [x_min, x_max]
        };
        let pad = ((y_max - y_min) * 0.1).max(y_max.abs() * 0.02).max(1e-9);
        data.y_bounds = [(y_min - pad).max(0.0), y_max + pad];
    }
    data
}

/// Whether a round was measured and no shape passed: its gate judged only failed shapes,
/// or (unjudged) its CSV holds no PASS row. A round whose CSV cannot be read is not one.
fn nothing_passed(round: &RoundState) -> bool {
    match (&round.gate, &round.table) {
        (Some(gate), _) => {
            !gate.shapes.is_empty() && gate.shapes.iter().all(|s| s.check != Check::Pass)
        }
        (None, Some(table)) => {
            !table.rows.is_empty() && table.rows.iter().all(|r| r.check != Check::Pass)
        }
        (None, None) => false,
    }
}

/// The validation a round's numbers come from: its decision's, else its latest gate's,
/// else its run's.
pub fn round_validation(round: &RoundState) -> Option<Validation> {
    round
        .decision
        .as_ref()
        .and_then(|d| d.validation)
        .or(round.gate_validation)
        .or_else(|| round.result.as_ref().map(|r| r.validation))
}

/// One shape's value of the primary metric in every measured round that has it (None
/// where it did not PASS), oldest first.
pub fn shape_history(state: &CampaignState, label: &str) -> Vec<(u32, Option<f64>)> {
    state
        .rounds
        .iter()
        .filter_map(|r| {
            let table = r.table.as_ref()?;
            let row = table.rows.iter().find(|row| row.label == label)?;
            let source = metric_index(table, &state.manifest.primary_metric);
            Some((r.number, source.value(row)))
        })
        .collect()
}

/// Whether the campaign's measurements are imported CSVs: its manifest names no harness
/// command and its BASELINE has no run record of kcamp's. `kcamp validate` then needs a
/// CSV (`--csv`), which the dashboard asks for.
pub fn imported(state: &CampaignState) -> bool {
    state.manifest.quick_command.is_none()
        && state.manifest.full_command.is_none()
        && state
            .rounds
            .first()
            .is_some_and(|r| r.table.is_some() && r.result.is_none())
}

/// Sparklines for the representative shapes (else the first target shapes), at most `max`.
pub fn sparklines(state: &CampaignState, max: usize) -> Vec<ShapeSpark> {
    let manifest = &state.manifest;
    let labels: Vec<&str> = if manifest.representative_shapes.is_empty() {
        manifest
            .target_shapes
            .iter()
            .map(|s| s.label.as_str())
            .take(max)
            .collect()
    } else {
        manifest
            .representative_shapes
            .iter()
            .map(String::as_str)
            .take(max)
            .collect()
    };
    let tables: Vec<(&BenchTable, MetricSource)> = state
        .rounds
        .iter()
        .filter_map(|r| r.table.as_ref())
        .map(|t| (t, metric_index(t, &manifest.primary_metric)))
        .collect();
    labels
        .into_iter()
        .map(|label| {
            // Rows keep their order from round to round: try last round's position first.
            let mut hint = 0;
            let values: Vec<Option<f64>> = tables
                .iter()
                .map(|(t, src)| {
                    let row = match t.rows.get(hint) {
                        Some(r) if r.label == label => Some(r),
                        _ => t.rows.iter().position(|r| r.label == label).map(|i| {
                            hint = i;
                            &t.rows[i]
                        }),
                    };
                    row.and_then(|r| src.value(r))
                })
                .collect();
            let max_value = values.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
            let bars = values
                .iter()
                .map(|v| {
                    v.map(|v| {
                        if max_value > 0.0 {
                            (v / max_value * 100.0).round() as u64
                        } else {
                            0
                        }
                    })
                })
                .collect();
            ShapeSpark {
                label: label.to_owned(),
                bars,
                last: values.iter().rev().flatten().next().copied(),
            }
        })
        .collect()
}

fn str_at<'a>(v: Option<&'a Value>, path: &str) -> Option<&'a str> {
    v?.pointer(path)?.as_str()
}

pub fn details(state: &CampaignState, index: usize) -> Vec<DetailLine> {
    let Some(round) = state.rounds.get(index) else {
        return vec![DetailLine {
            key: "campaign",
            value: format!(
                "{} · {} {} · no rounds yet",
                state.manifest.name,
                state.manifest.op.as_str(),
                state.manifest.dtype.as_str()
            ),
            tone: Tone::Dim,
        }];
    };
    let line = |key, value: String, tone| DetailLine { key, value, tone };
    // Each line of the hypothesis a line of its own (the renderer would join them).
    let mut out: Vec<DetailLine> = round
        .hypothesis
        .trim()
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| {
            let key = if i == 0 { "hypothesis" } else { "" };
            line(key, l.to_owned(), Tone::Normal)
        })
        .collect();
    if out.is_empty() {
        out.push(line("hypothesis", String::new(), Tone::Normal));
    }
    if let Some(d) = &round.decision {
        let status = round_status(round);
        let tone = match status {
            RoundStatus::RolledBack => Tone::Warn,
            _ => Tone::Good,
        };
        let mut text = status.as_str().to_owned();
        if d.forced {
            text.push_str(" (forced)");
        }
        if let Some(p) = d.parent {
            text.push_str(&format!(" · against round {p}"));
        }
        text.push_str(&format!(" · {}", d.time.format("%Y-%m-%d %H:%M")));
        out.push(line("decision", text, tone));
        if let Some(reason) = &d.reason {
            out.push(line("reason", reason.clone(), Tone::Normal));
        }
    } else {
        out.push(line("decision", "open (undecided)".into(), Tone::Warn));
    }
    let memory = round.memory.as_ref();
    let category = str_at(memory, "/optimization/action_category");
    let action = str_at(memory, "/optimization/action_description");
    if category.is_some() || action.is_some() {
        let text = match (category, action) {
            (Some(c), Some(a)) => format!("{c}: {a}"),
            (Some(c), None) => c.to_owned(),
            (None, Some(a)) => a.to_owned(),
            (None, None) => String::new(),
        };
        out.push(line("memory", text, Tone::Normal));
    }
    if let Some(status) = str_at(memory, "/correctness/status") {
        let rel = memory
            .and_then(|m| m.pointer("/correctness/rel_err"))
            .and_then(Value::as_f64)
            .map(|e| format!(" (rel_err {e:.1e})"))
            .unwrap_or_default();
        let tone = if status == "PASS" {
            Tone::Good
        } else {
            Tone::Bad
        };
        out.push(line("correctness", format!("{status}{rel}"), tone));
    }
    if let Some(pitfalls) = memory
        .and_then(|m| m.get("pitfalls_and_fixes"))
        .and_then(Value::as_array)
    {
        for p in pitfalls {
            let kind = p.get("error_type").and_then(Value::as_str).unwrap_or("?");
            let lesson = p
                .get("lesson")
                .or_else(|| p.get("fix_applied"))
                .and_then(Value::as_str)
                .unwrap_or("");
            out.push(line("pitfall", format!("{kind}: {lesson}"), Tone::Warn));
        }
    }
    let result = round.result.as_ref();
    if let Some(a) = result.and_then(|r| r.adapter.as_ref()) {
        let name = format!("{} ({})", a.name, a.backend);
        // A CPU "GPU" must never pass for a real measurement.
        if a.software {
            out.push(line(
                "adapter",
                format!("{name} · SOFTWARE ADAPTER"),
                Tone::Warn,
            ));
        } else {
            out.push(line("adapter", name, Tone::Normal));
        }
    }
    // result.json lists every method a run used.
    let methods = result
        .map(|r| {
            r.timing_methods
                .iter()
                .map(|m| m.as_str().replace('_', " "))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .filter(|t| !t.is_empty());
    if let Some(t) = methods {
        out.push(line("timing", t, Tone::Normal));
    }
    if let Some(t) = result.map(|r| r.trusted) {
        let text = if t {
            "yes (runtime bounds checks off)"
        } else {
            "no (bounds checks on)"
        };
        out.push(line(
            "trusted",
            text.into(),
            if t { Tone::Warn } else { Tone::Normal },
        ));
    }
    // What the driver compiled the kernel to (registers decide how many workgroups share a
    // multiprocessor), where the adapter reported it.
    if let Some(d) = result.and_then(|r| r.driver_statistics.as_ref()) {
        out.push(line("driver", d.summary(), Tone::Normal));
    }
    for d in &mut out {
        if let std::borrow::Cow::Owned(shown) = crate::view::text::printable(&d.value) {
            d.value = shown;
        }
    }
    out
}

/// The rolled-back rounds whose kernel snapshot has the working kernel's `key` (comments
/// and whitespace aside), oldest first: what `kcamp status` says as `working_kernel_tried`.
/// Reads no file: the keys come with the rounds ([`crate::loading::with_snapshot_key`]).
pub fn working_tried(state: &CampaignState, key: Option<&str>) -> Vec<Tried> {
    let Some(key) = key else {
        return Vec::new();
    };
    // The incumbent's own kernel is where every round starts, not a direction tried.
    let incumbent = state
        .incumbent
        .and_then(|n| state.rounds.iter().find(|r| r.number == n))
        .and_then(|r| r.decision.as_ref()?.kernel_key.as_deref());
    if incumbent == Some(key) {
        return Vec::new();
    }
    state
        .rounds
        .iter()
        .filter(|r| {
            r.decision
                .as_ref()
                .is_some_and(|d| d.kernel_key.as_deref() == Some(key))
        })
        .filter_map(ledger::rolled_back_round)
        .collect()
}

/// `kernel/ was tried in round 7: REJECT -8.00% vs r1, reason: …`.
pub fn tried_text(t: &Tried) -> String {
    format!("kernel/ was tried in {}", t.line)
}

/// The open round's details with the rounds that tried its working kernel, after its
/// decision line (`tried  in round 7: REJECT -8.00% vs r1, reason: …`): before it is
/// measured, what it would measure was given up once already.
pub fn add_tried(details: &mut Vec<DetailLine>, tried: &[Tried]) {
    let at = details
        .iter()
        .position(|d| d.key == "decision")
        .map_or(details.len(), |i| i + 1);
    details.splice(
        at..at,
        tried.iter().map(|t| DetailLine {
            key: "tried",
            value: format!("in {}", t.line),
            tone: Tone::Warn,
        }),
    );
}

fn compact(detail: &Value) -> String {
    match detail {
        Value::Object(map) => map
            .iter()
            // The line shows its own time; a detail's timestamp of the same moment (the
            // validation's) would repeat it in full.
            .filter(|(k, _)| k.as_str() != "time")
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some(format!("{k}={s}")),
                Value::Number(n) => Some(match n.as_f64() {
                    // Aggregates and deltas, with the significant digits of every number
                    // on screen.
                    Some(f) if n.is_f64() => format!("{k}={}", kcamp_core::units::sig(f)),
                    _ => format!("{k}={n}"),
                }),
                Value::Bool(b) => Some(format!("{k}={b}")),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub fn journal_lines(state: &CampaignState) -> Vec<LogLine> {
    state
        .journal
        .iter()
        .map(|e| {
            let mut text = e.event.clone();
            if let Some(r) = e.round {
                text.push_str(&format!(" round {r}"));
            }
            let detail = compact(&e.detail);
            if !detail.is_empty() {
                text.push(' ');
                text.push_str(&detail);
            }
            let tone = if e.event.contains("rollback") || e.event.contains("recover") {
                Tone::Warn
            } else {
                Tone::Normal
            };
            LogLine {
                time: e.time,
                source: LogSource::Journal,
                text: crate::view::text::printable(&text).into_owned(),
                tone,
            }
        })
        .collect()
}

/// The log panel's lines: the journal in the order it was written, the dashboard's own
/// messages placed among them by time. Sorting everything by time would move a journal line
/// stamped by a process with a slower clock (another machine on a shared disk) up among
/// older lines, out of view; the journal's order is the order things happened.
pub fn merge_log(journal: &[LogLine], messages: &[LogLine]) -> Vec<LogLine> {
    let mut log = Vec::with_capacity(journal.len() + messages.len());
    let (mut j, mut m) = (journal.iter().peekable(), messages.iter().peekable());
    loop {
        let next = match (j.peek(), m.peek()) {
            // A journal line and a message of the same instant: the journal's first.
            (Some(a), Some(b)) if b.time < a.time => m.next(),
            (Some(_), _) => j.next(),
            (None, Some(_)) => m.next(),
            (None, None) => break,
        };
        log.extend(next.cloned());
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    fn line(hh_mm: &str, source: LogSource, text: &str) -> LogLine {
        LogLine {
            time: format!("2026-03-14T{hh_mm}:00Z").parse().unwrap(),
            source,
            text: text.into(),
            tone: Tone::Normal,
        }
    }

    #[test]
    fn the_log_keeps_the_journal_order_and_places_messages_by_time() {
        use LogSource::{Dashboard, Journal};
        // The third journal line was written last by a process whose clock is behind.
        let journal = [
            line("10:00", Journal, "a"),
            line("10:20", Journal, "b"),
            line("09:00", Journal, "skewed"),
        ];
        let messages = [
            line("10:10", Dashboard, "m1"),
            line("10:30", Dashboard, "m2"),
        ];
        let texts: Vec<String> = merge_log(&journal, &messages)
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts, ["a", "m1", "b", "skewed", "m2"]);
        // Same instant: the journal line first.
        let tie = merge_log(
            &[line("10:00", Journal, "j")],
            &[line("10:00", Dashboard, "d")],
        );
        assert_eq!(tie[0].text, "j");
    }

    #[test]
    fn round_lines_mark_status_and_incumbent() {
        let lines = round_lines(&fixtures::several_rounds());
        let statuses: Vec<_> = lines.iter().map(|l| l.status).collect();
        assert_eq!(
            statuses,
            [
                RoundStatus::Baseline,
                RoundStatus::Accepted,
                RoundStatus::RolledBack,
                RoundStatus::Open
            ]
        );
        let incumbents: Vec<u32> = lines
            .iter()
            .filter(|l| l.incumbent)
            .map(|l| l.number)
            .collect();
        assert_eq!(incumbents, [2]);
        assert!((lines[1].delta.unwrap() - 0.18).abs() < 1e-9);
    }

    #[test]
    fn the_baseline_shows_its_values_without_classes() {
        let state = fixtures::baseline_only();
        let view = gate_view(&state, 0);
        assert_eq!(view.lines.len(), 6);
        assert!(view.lines.iter().all(|l| l.class.is_none()));
        assert_eq!(view.lines[0].candidate, Some(0.010));
        assert_eq!(view.lines[0].dims, "64×64×64");
    }

    #[test]
    fn a_drifted_csv_is_an_error_not_rows() {
        let state = fixtures::drifted_csv();
        let view = gate_view(&state, 3);
        assert!(view.error.as_deref().unwrap().contains("Forward TFLOPs"));
        assert!(view.lines.is_empty());
    }

    #[test]
    fn chart_lineage_skips_rolled_back_rounds() {
        let data = chart(&fixtures::several_rounds());
        let rounds: Vec<f64> = data.lineage.iter().map(|p| p.0).collect();
        assert_eq!(rounds, [1.0, 2.0]);
        assert_eq!(data.groups.iter().map(|g| g.points.len()).sum::<usize>(), 4);
        assert_eq!(data.best.map(|b| b.0), Some(2));
        assert!(data.y_bounds[0] < data.y_bounds[1]);
    }

    #[test]
    fn a_failed_shape_carries_the_reason_its_run_recorded() {
        let state = fixtures::several_rounds();
        let open = state.rounds.len() - 1;
        let view = gate_view(&state, open);
        let failed: Vec<&GateLine> = view
            .lines
            .iter()
            .filter(|l| l.check != Check::Pass)
            .collect();
        assert_eq!(failed.len(), 1, "{:?}", view.lines);
        assert!(
            failed[0]
                .reason
                .as_deref()
                .is_some_and(|r| r.contains("rel_err 3.2e-2")),
            "{:?}",
            failed[0]
        );
        assert_eq!(
            failed[0].failure().as_deref(),
            Some(
                "sq1024 FAIL: output mismatch: rel_err 3.2e-2 over the 1e-4 tolerance (worst at row 12, column 40)"
            )
        );
        // A PASS has no failure to state, and no reason is taken from elsewhere.
        assert!(
            view.lines
                .iter()
                .filter(|l| l.check == Check::Pass)
                .all(|l| l.failure().is_none() && l.reason.is_none())
        );
    }

    #[test]
    fn a_failure_states_the_first_line_of_its_reason_or_that_none_was_recorded() {
        let mut line = GateLine {
            label: "sq64".into(),
            dims: "64×64×64".into(),
            check: Check::Error,
            incumbent: None,
            candidate: None,
            delta: None,
            band: None,
            p_value: None,
            class: Some(ShapeClass::Failed),
            reason: Some("\nshader compile error: gemm.wgsl:41:9\n  let b = tile_b[ty][k];".into()),
            untimed: false,
            paired: false,
        };
        assert_eq!(
            line.failure().as_deref(),
            Some("sq64 ERROR: shader compile error: gemm.wgsl:41:9")
        );
        line.reason = None;
        line.untimed = true;
        assert_eq!(
            line.failure().as_deref(),
            Some("sq64 ERROR (untimed): no reason recorded")
        );
    }

    #[test]
    fn untimed_checked_shapes_that_fail_are_lines_of_their_own_and_counted_failed() {
        let mut state = fixtures::several_rounds();
        let open = state.rounds.last_mut().unwrap();
        let result = open.result.as_mut().unwrap();
        let mut checked = result.shapes[0].clone();
        checked.label = "sq2048".into();
        checked.dims = vec![1, 2048, 2048, 2048];
        checked.check = Check::TimeoutFail;
        // A path inside the campaign is shown from the campaign.
        checked.reason = Some(format!(
            "{}/kernel/gemm.wgsl: no result within 30 s: the worker was killed",
            state.dir.display()
        ));
        let mut passing = checked.clone();
        passing.label = "sq4096".into();
        passing.check = Check::Pass;
        passing.reason = None;
        result.checked_shapes = vec![checked, passing];
        let index = state.rounds.len() - 1;
        let view = gate_view(&state, index);
        let untimed: Vec<&GateLine> = view.lines.iter().filter(|l| l.untimed).collect();
        assert_eq!(
            untimed.len(),
            1,
            "only the one that does not PASS: {:?}",
            view.lines
        );
        assert_eq!(untimed[0].label, "sq2048");
        assert_eq!(untimed[0].class, Some(ShapeClass::Failed));
        assert_eq!(untimed[0].dims, "2048×2048×2048");
        assert_eq!(
            untimed[0].failure().as_deref(),
            Some(
                "sq2048 TIMEOUT_FAIL (untimed): kernel/gemm.wgsl: no result within 30 s: the worker was killed"
            )
        );
        let mut table = crate::app::gate_table::GateTable::default();
        table.set_view(view);
        assert_eq!(
            table.counts.failed, 2,
            "the timed FAIL and the untimed TIMEOUT_FAIL"
        );
        // The rollback reason the dashboard offers counts both, and says why the first failed.
        // The Rounds panel counts both too (it shows `FAIL 2` instead of a Δ).
        assert_eq!(round_lines(&state)[index].failed, 2);
        let round = &state.rounds[index];
        let reason = rollback_reason(round.gate.as_ref().unwrap(), &round.failures(), &state.dir);
        assert!(
            reason.contains(
                "2 shapes do not PASS: sq1024 (FAIL), sq2048 (TIMEOUT_FAIL, untimed) · sq1024: output mismatch: rel_err 3.2e-2"
            ),
            "{reason}"
        );
    }

    #[test]
    fn a_round_where_nothing_passed_is_on_the_chart_as_failed() {
        let mut state = fixtures::several_rounds();
        let open = state.rounds.last_mut().unwrap();
        let number = open.number;
        // Every shape failed: no aggregate in its gate, no passing row in its table.
        let gate = open.gate.as_mut().unwrap();
        gate.aggregate.candidate = None;
        for shape in &mut gate.shapes {
            shape.check = Check::Fail;
        }
        open.table = None;
        let data = chart(&state);
        assert_eq!(data.failed, [(f64::from(number), RoundStatus::Open)]);
        assert_eq!(data.rounds_shown(), 4);
        assert_eq!(data.x_bounds[1], f64::from(number));
        // An unmeasured round is not a failed one, nor one whose CSV cannot be read.
        let data = chart(&fixtures::unmeasured_round());
        assert!(data.failed.is_empty(), "{:?}", data.failed);
        let data = chart(&fixtures::drifted_csv());
        assert!(data.failed.is_empty(), "{:?}", data.failed);
    }

    #[test]
    fn combined_step_metric_is_derived_from_the_times() {
        let table = fixtures::table(&fixtures::shapes(&[100]), &[fixtures::pass(1.0)]);
        let row = &table.rows[0];
        let src = metric_index(&table, "Combined Step TFLOPS");
        // fwd 2e6 flop at 1 TFLOPS = 2e-3 ms, bwd 2.2x that: 6e6 / 6.4e-6 s.
        let expected = 6e6 / ((2e-3 + 4.4e-3) * 1e-3) / 1e12;
        assert!((src.value(row).unwrap() - expected).abs() < 1e-9);
    }

    #[test]
    fn sparklines_follow_the_representative_shapes() {
        let sparks = sparklines(&fixtures::several_rounds(), 8);
        let labels: Vec<_> = sparks.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["sq64", "sq256", "sq1024"]);
        // sq1024 failed in the open round: a gap, and the last value is the previous one.
        assert_eq!(sparks[2].bars.last(), Some(&None));
        assert_eq!(sparks[0].bars.iter().flatten().max(), Some(&100));
    }

    #[test]
    fn details_read_memory_and_result() {
        let d = details(&fixtures::several_rounds(), 2);
        let keys: Vec<_> = d.iter().map(|l| l.key).collect();
        assert!(keys.contains(&"pitfall"));
        let adapter = d.iter().find(|l| l.key == "adapter").unwrap();
        assert_eq!(adapter.value, "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan)");
        let trusted = d.iter().find(|l| l.key == "trusted").unwrap();
        assert!(trusted.value.starts_with("no"));
        // lavapipe reports no driver statistics: no line for them.
        assert!(!keys.contains(&"driver"));
    }

    #[test]
    fn details_show_what_the_driver_compiled_the_kernel_to() {
        use kcamp_core::isa::{
            DriverExecutable, DriverStatistic, DriverStatistics, StatisticValue,
        };
        let mut state = fixtures::several_rounds();
        let (index, round) = state
            .rounds
            .iter_mut()
            .enumerate()
            .find(|(_, r)| r.result.is_some())
            .unwrap();
        round.result.as_mut().unwrap().driver_statistics = Some(DriverStatistics {
            error: None,
            aligned: None,
            entry_point: "forward".into(),
            executables: vec![DriverExecutable {
                name: "Compute".into(),
                description: String::new(),
                subgroup_size: 32,
                statistics: vec![DriverStatistic {
                    name: "Register Count".into(),
                    description: String::new(),
                    value: StatisticValue::Unsigned(128),
                }],
            }],
        });
        let d = details(&state, index);
        let driver = d.iter().find(|l| l.key == "driver").unwrap();
        assert_eq!(driver.value, "Register Count 128, subgroup size 32");
    }

    #[test]
    fn journal_lines_are_compact() {
        let lines = journal_lines(&fixtures::baseline_only());
        assert_eq!(lines[1].text, "baseline round 1 aggregate=0.0684");
        assert_eq!(
            compact(&serde_json::json!({"aggregate_delta": -0.16161, "round": 3})),
            "aggregate_delta=-0.162 round=3"
        );
        assert_eq!(
            compact(&serde_json::json!({"time": "2026-12-02T17:03:17.29Z", "verdict": "REJECT"})),
            "verdict=REJECT"
        );
        assert_eq!(lines[1].source, LogSource::Journal);
    }

    #[test]
    fn the_time_left_is_extrapolated_from_the_shapes_done() {
        let p = fixtures::progress(2, 8);
        let now = fixtures::at(0) + chrono::Duration::seconds(30);
        assert_eq!(elapsed(&p, now), 30.0);
        // 2 shapes in 30 s: 6 more take 90 s.
        assert_eq!(eta(&p, now), Some(90.0));
        assert_eq!(
            eta(&fixtures::progress(0, 8), now),
            None,
            "nothing to go by yet"
        );
        assert_eq!(elapsed(&p, fixtures::at(-1)), 0.0);
    }

    #[test]
    fn repeated_reasons_collapse_into_one_line_with_a_count() {
        let mut reasons: Vec<Reason> = (0..200)
            .map(|i| {
                Reason::new(
                    ReasonKind::Method,
                    format!(
                        "shape 's{i}' judged against round 55, the newest accepted round that measured it"
                    ),
                )
                .with_shapes([format!("s{i}")])
            })
            .collect();
        reasons.insert(0, "REJECT: s7 regressed -9.0%".into());
        reasons.push(Reason::new(ReasonKind::Method, "shape 'x' is FAIL").with_shapes(["x"]));
        // A quoted word that is no shape the reason names is never taken for one.
        reasons.push(Reason::new(ReasonKind::Method, "see 'kcamp log'"));
        reasons.push(Reason::new(ReasonKind::Method, "see 'kcamp status'"));
        let lines = collapse_reasons(&reasons);
        assert_eq!(lines[0].text, "REJECT: s7 regressed -9.0%");
        assert_eq!(lines[1].count, 200);
        assert_eq!(
            lines[1].text,
            "shape 's0' and 199 others judged against round 55, the newest accepted round that measured it"
        );
        assert_eq!(
            (lines[2].count, lines[2].text.as_str()),
            (1, "shape 'x' is FAIL")
        );
        assert_eq!(lines.len(), 5, "{lines:?}");
    }

    #[test]
    fn the_chart_tells_quick_from_full_and_never_calls_a_rolled_back_round_best() {
        let mut state = fixtures::several_rounds();
        // Round 3 (rolled back) measured the best aggregate of all.
        if let Some(d) = state.rounds[2].decision.as_mut() {
            d.aggregate = Some(10.0);
        }
        let data = chart(&state);
        assert_eq!(data.best.map(|b| b.0), Some(2));
        let open = data
            .groups
            .iter()
            .find(|g| g.status == RoundStatus::Open)
            .unwrap();
        assert!(open.quick, "the open round was validated quick");
        let rolled = data
            .groups
            .iter()
            .find(|g| g.status == RoundStatus::RolledBack)
            .unwrap();
        assert!(!rolled.quick);
        assert_eq!(rolled.points, [(3.0, 10.0)]);
        assert!(data.baseline.is_some());
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn no_path_of_this_machine_reaches_a_reason() {
        let campaign = Path::new("/home/me/camps/gemm");
        assert_eq!(
            short_paths(
                "sq64: /home/me/camps/gemm/kernel/gemm.wgsl:50:12: expected `;`",
                Some(campaign)
            ),
            "sq64: kernel/gemm.wgsl:50:12: expected `;`"
        );
        // Elsewhere (a staging copy, a temporary directory): the file's name alone.
        assert_eq!(
            short_paths("at /tmp/x/.kernel.tmp/gemm.wgsl:3:1: error", Some(campaign)),
            "at gemm.wgsl:3:1: error"
        );
        assert_eq!(
            short_paths("(/var/k/a.wgsl) and 'x/y' a / b // c", None),
            "(a.wgsl) and 'x/y' a / b // c"
        );
    }

    #[test]
    fn the_rollback_reason_offered_carries_no_absolute_path() {
        let mut state = crate::fixtures::several_rounds();
        state.dir = PathBuf::from("/home/me/camps/gemm");
        let dir = state.dir.clone();
        let open = state.rounds.last_mut().unwrap();
        let result = open.result.as_mut().unwrap();
        for shape in &mut result.shapes {
            if shape.check != Check::Pass {
                shape.reason = Some(format!(
                    "{}/kernel/gemm.wgsl:50:12: expected `;`",
                    dir.display()
                ));
            }
        }
        let round = state.rounds.last().unwrap();
        let reason = rollback_reason(round.gate.as_ref().unwrap(), &round.failures(), &dir);
        assert!(reason.contains("kernel/gemm.wgsl:50:12"), "{reason}");
        assert!(!reason.contains(&dir.display().to_string()), "{reason}");
    }
}
