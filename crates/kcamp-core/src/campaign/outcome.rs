//! What a round's measurement says of itself: its verdict, the shapes that did not PASS
//! (timed, or only checked by a quick validation) and its Δ. Derived here once, from the
//! round's decision and gate record, so that the iteration record (`memory/v<N>.json`),
//! `report.md`, `kcamp log`, `kcamp status` and the dashboard cannot disagree: a round with
//! a failing shape has no Δ to show, wherever it is shown.

use serde::Serialize;

use super::Decision;
use super::gate_record::read_gate_record;
use super::layout::Campaign;
use crate::Result;
use crate::artifacts::result::{RunResult, ShapeFailure, ShapeRecord, failures, untimed_failures};
use crate::files::{BENCHMARK_CSV, RESULT_JSON};
use crate::gate::{GateReport, Verdict};
use crate::schema::BenchTable;
use crate::types::{Check, Validation};

/// A round's own records, as [`RoundOutcome::of`] reads them.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRecords<'a> {
    pub decision: Option<&'a Decision>,
    /// The gate report of its latest validation (`artifacts/gate.json`).
    pub gate: Option<&'a GateReport>,
    /// The incumbent that validation judged it against.
    pub gate_incumbent: Option<u32>,
    pub gate_validation: Option<Validation>,
    /// The untimed target shapes that validation checked, as its gate record keeps them
    /// (whoever measured: the built-in runner or a harness); `None` without a gate record,
    /// when the run record's are used.
    pub checked: Option<&'a [ShapeRecord]>,
    /// The round's `benchmark.csv`.
    pub table: Option<&'a BenchTable>,
    /// Its `result.json` (absent for a harness or an imported CSV).
    pub result: Option<&'a RunResult>,
}

/// What a round's records say of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundOutcome {
    /// The verdict it was decided on, else its latest validation's.
    pub verdict: Option<Verdict>,
    pub validation: Option<Validation>,
    /// The gate's aggregate Δ against [`parent`](RoundOutcome::parent) (fraction).
    pub delta: Option<f64>,
    /// The incumbent it was judged against (None for the BASELINE).
    pub parent: Option<u32>,
    /// Every shape that did not PASS: the table's rows, then the untimed checked shapes.
    pub failures: Vec<ShapeFailure>,
}

impl RoundOutcome {
    pub fn of(r: &RoundRecords<'_>) -> RoundOutcome {
        let d = r.decision;
        RoundOutcome {
            verdict: d
                .and_then(|d| d.verdict)
                .or_else(|| r.gate.map(|g| g.verdict)),
            validation: d.and_then(|d| d.validation).or(r.gate_validation),
            delta: d
                .and_then(|d| d.aggregate_delta)
                .or_else(|| r.gate.and_then(|g| g.aggregate.delta)),
            parent: d.and_then(|d| d.parent).or(r.gate_incumbent),
            failures: round_failures(r),
        }
    }

    /// Round `n` of the campaign, read from its files (decision, gate record, CSV held to
    /// the frozen header, run record). A gate or run record that does not parse is left
    /// out (the run record's checked shapes then stand in for the gate record's), so that
    /// it cannot block the decision being recorded: the CSV is what was scored.
    pub fn read(c: &Campaign, n: u32) -> Result<RoundOutcome> {
        let decision = c.decision(n)?;
        let gate = read_gate_record(c, n).ok().flatten();
        let adir = c.artifacts_dir(n);
        let csv = adir.join(BENCHMARK_CSV);
        let table = if csv.is_file() {
            Some(BenchTable::read_held_to(
                &csv,
                c.frozen_header()?.as_deref(),
            )?)
        } else {
            None
        };
        let result = RunResult::read(&adir.join(RESULT_JSON)).ok().flatten();
        Ok(RoundOutcome::of(&RoundRecords {
            decision: decision.as_ref(),
            gate: gate.as_ref().map(|g| &g.report),
            gate_incumbent: gate.as_ref().map(|g| g.incumbent),
            gate_validation: gate.as_ref().map(|g| g.validation),
            checked: gate.as_ref().map(|g| g.checked_shapes.as_slice()),
            table: table.as_ref(),
            result: result.as_ref(),
        }))
    }

    /// Whether every shape it measured or checked passes.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// `PASS`, else the Check of its first shape that did not PASS.
    pub fn check(&self) -> Check {
        self.failures.first().map_or(Check::Pass, |f| f.check)
    }

    /// `s64 FAIL`, `s32 FAIL (untimed)`: each failing shape on its own.
    pub fn failed_labels(&self) -> Vec<String> {
        self.failures.iter().map(failure_label).collect()
    }

    /// The Δ as every view states it: [`delta_text`].
    pub fn delta_text(&self) -> String {
        delta_text(self.failures.len(), self.delta, self.parent)
    }
}

/// `s64 FAIL`, `s32 FAIL (untimed)`.
pub fn failure_label(f: &ShapeFailure) -> String {
    let mark = if f.untimed { " (untimed)" } else { "" };
    format!("{} {}{mark}", f.label, f.check.as_str())
}

/// A round's Δ in words: `FAIL (2 shapes)` when shapes do not PASS (such a round has no
/// honest Δ, whatever its aggregate over the others did), else `+12.3% vs r1`, else `-`.
pub fn delta_text(failed: usize, delta: Option<f64>, parent: Option<u32>) -> String {
    if failed > 0 {
        return format!("FAIL ({})", crate::text::count(failed, "shape"));
    }
    match (delta, parent) {
        (Some(d), Some(p)) => format!("{} vs r{p}", crate::units::change(d)),
        _ => "-".to_owned(),
    }
}

/// The shapes of a round that did not PASS, with the reasons its run recorded: the rows of
/// its table (else the gate report's shapes, when the table cannot be read), then the
/// untimed target shapes its validation checked.
fn round_failures(r: &RoundRecords<'_>) -> Vec<ShapeFailure> {
    let mut out = match (r.table, r.gate) {
        (Some(t), _) => failures(t, r.result),
        (None, Some(g)) => g
            .shapes
            .iter()
            .filter(|s| s.check != Check::Pass)
            .map(|s| ShapeFailure {
                label: s.label.clone(),
                check: s.check,
                reason: r
                    .result
                    .and_then(|res| res.shape(&s.label))
                    .and_then(|s| s.reason.clone()),
                untimed: false,
            })
            .collect(),
        (None, None) => Vec::new(),
    };
    let checked = r
        .checked
        .or_else(|| r.result.map(|res| res.checked_shapes.as_slice()))
        .unwrap_or_default();
    out.extend(untimed_failures(checked));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(label: &str, check: Check) -> ShapeRecord {
        ShapeRecord {
            label: label.into(),
            dims: vec![1, 32, 32, 32],
            check,
            reason: None,
            seed: 1,
            latency_us: None,
            rel_err: None,
            timing_method: None,
            warmup: Vec::new(),
            aligned_entries: Vec::new(),
        }
    }

    #[test]
    fn a_failing_untimed_shape_fails_the_round_and_takes_its_delta() {
        let checked = [shape("s32", Check::Pass), shape("s64", Check::Fail)];
        let out = RoundOutcome::of(&RoundRecords {
            gate_incumbent: Some(2),
            checked: Some(&checked),
            ..RoundRecords::default()
        });
        assert_eq!(out.check(), Check::Fail);
        assert_eq!(out.failed_labels(), ["s64 FAIL (untimed)"]);
        assert_eq!(out.delta_text(), "FAIL (1 shape)");
        let passing = RoundOutcome {
            failures: Vec::new(),
            delta: Some(-0.00337),
            ..out
        };
        assert!(passing.passed());
        assert_eq!(passing.delta_text(), "-0.337% vs r2");
        assert_eq!(delta_text(0, None, None), "-");
        assert_eq!(delta_text(3, Some(0.1), None), "FAIL (3 shapes)");
    }
}
