//! VALIDATE: measures the working kernel, snapshots it, judges it against the incumbent and
//! records the verdict (`gate.json`, `validations.jsonl`).

use std::collections::BTreeSet;
use std::path::Path;

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::baseline::check_shape_set;
use super::layout::{Campaign, copy_tree, tree_hash};
use super::measure::{MeasureSource, Measured, abandon, measure};
use super::recover::recover;
use crate::case::ProgressEvent;
use crate::files::{
    ARTIFACTS_DIR, BENCHMARK_CSV, FROZEN_HEADER_FILE, GATE_JSON, KERNEL_DIR, SAMPLES_CSV,
    VALIDATIONS_JSONL,
};
use crate::fsutil::{remove_dir_if_exists, replace_dir, write_json_atomic};
use crate::gate::{GateInput, GateReport, Verdict, judge, remeasure_holds};
use crate::manifest::Manifest;
use crate::schema::{BenchTable, Samples, ShapeKey};
use crate::types::{DecisionKind, ShapeSpec, Validation};
use crate::{Error, Result};

/// `artifacts/gate.json`: the latest validation of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub round: u32,
    pub validation: Validation,
    pub incumbent: u32,
    /// Hash of the kernel snapshot that was measured.
    pub kernel_hash: String,
    /// A quick ACCEPT under `quick_confirm_below`: `accept` runs a full validation first.
    pub needs_full_confirmation: bool,
    pub time: chrono::DateTime<Utc>,
    pub origin: String,
    /// Shapes judged against an older round of the lineage (the incumbent lacked them).
    pub reference_notes: Vec<String>,
    pub report: GateReport,
}

/// One line of `validations.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ValidationLog {
    time: chrono::DateTime<Utc>,
    validation: Validation,
    kernel_hash: String,
    raw_verdict: Verdict,
    aggregate_delta: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValidateOutcome {
    pub record: GateRecord,
}

pub fn validate(
    c: &Campaign,
    full: bool,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let _lock = c.lock(if full {
        "kcamp validate --full"
    } else {
        "kcamp validate"
    })?;
    recover(c)?;
    validate_locked(
        c,
        if full {
            Validation::Full
        } else {
            Validation::Quick
        },
        source,
        on_event,
    )
}

pub(super) fn validate_locked(
    c: &Campaign,
    validation: Validation,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let round = c.open_round()?.ok_or_else(|| {
        Error::State("no open round: open one with `kcamp round new --hypothesis TEXT`".into())
    })?;
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no BASELINE yet: run `kcamp baseline` first".into()))?;
    let frozen = c.frozen_header()?.ok_or_else(|| {
        Error::State(format!(
            "{} is missing: the schema was never frozen",
            c.dir.join(FROZEN_HEADER_FILE).display()
        ))
    })?;
    let expected: BTreeSet<ShapeKey> = match validation {
        Validation::Quick => {
            if c.manifest.representative_shapes.is_empty() {
                return Err(Error::State(
                    "no representative_shapes in manifest.yaml: run `kcamp validate --full`".into(),
                ));
            }
            c.manifest
                .representative()
                .into_iter()
                .map(|s| key_of(&c.manifest, s))
                .collect()
        }
        Validation::Full => c
            .manifest
            .target_shapes
            .iter()
            .map(|s| key_of(&c.manifest, s))
            .collect(),
    };
    let rdir = c.round_dir(round);
    let stage_kernel = rdir.join(".kernel.tmp");
    let stage_artifacts = rdir.join(".artifacts.tmp");
    remove_dir_if_exists(&stage_kernel)?;
    remove_dir_if_exists(&stage_artifacts)?;
    copy_tree(&c.kernel_dir(), &stage_kernel)?;
    let kernel_hash = tree_hash(&stage_kernel)?;
    let staged = measure(
        c,
        source,
        validation,
        round,
        Some(&frozen),
        &stage_artifacts,
        on_event,
    )
    .and_then(|m| {
        check_shape_set(
            &m.table,
            &expected,
            match validation {
                Validation::Quick => "the representative shapes (use --full for all target shapes)",
                Validation::Full => "the manifest's target_shapes",
            },
        )?;
        Ok(m)
    });
    let measured: Measured = match staged {
        Ok(m) => m,
        Err(e) => {
            let command = match validation {
                Validation::Quick => "validate",
                Validation::Full => "validate --full",
            };
            return Err(abandon(
                c,
                e,
                command,
                round,
                validation,
                &[&stage_kernel, &stage_artifacts],
            ));
        }
    };
    let (reference, reference_samples, reference_notes) =
        reference_rows(c, incumbent, &expected, &frozen)?;
    let mut report = judge(&GateInput {
        incumbent: &reference,
        candidate: &measured.table,
        incumbent_samples: reference_samples.as_ref(),
        candidate_samples: measured.samples.as_ref(),
        metric: &c.manifest.primary_metric,
        config: &c.manifest.gate,
    })?;
    for note in &reference_notes {
        report.reasons.push(note.clone());
    }
    let raw_verdict = report.verdict;
    // SPEC §7 rule 5: a gain inside the noise is re-measured; the history decides.
    let history = read_validation_log(&rdir)?;
    if raw_verdict == Verdict::NeedsRemeasure {
        apply_remeasure(
            &mut report,
            &history,
            validation,
            &kernel_hash,
            &c.manifest.gate,
        );
    }
    let needs_full_confirmation = validation == Validation::Quick
        && report.verdict.allows_accept()
        && report
            .aggregate
            .delta
            .is_some_and(|d| d < c.manifest.gate.quick_confirm_below);
    if needs_full_confirmation {
        report.reasons.push(format!(
            "quick ACCEPT with an aggregate gain under {:.0}%: `kcamp accept` confirms it with a full validation first",
            c.manifest.gate.quick_confirm_below * 100.0
        ));
    }
    let record = GateRecord {
        round,
        validation,
        incumbent,
        kernel_hash: kernel_hash.clone(),
        needs_full_confirmation,
        time: Utc::now(),
        origin: measured.origin.clone(),
        reference_notes,
        report,
    };
    write_json_atomic(&stage_artifacts.join(GATE_JSON), &record)?;
    // Swap the staged snapshot and artifacts in; an undecided round may be re-validated.
    replace_dir(&stage_kernel, &rdir.join(KERNEL_DIR))?;
    replace_dir(&stage_artifacts, &rdir.join(ARTIFACTS_DIR))?;
    let log = ValidationLog {
        time: record.time,
        validation,
        kernel_hash,
        raw_verdict,
        aggregate_delta: record.report.aggregate.delta,
    };
    crate::fsutil::append_line(
        &rdir.join(VALIDATIONS_JSONL),
        &serde_json::to_string(&log).map_err(|e| Error::Internal(e.to_string()))?,
    )?;
    c.journal(
        "validated",
        Some(round),
        json!({
            "validation": validation,
            "verdict": record.report.verdict,
            "aggregate_delta": record.report.aggregate.delta,
            "origin": record.origin,
        }),
    )?;
    Ok(ValidateOutcome { record })
}

fn key_of(m: &Manifest, s: &ShapeSpec) -> ShapeKey {
    ShapeKey {
        label: s.label.clone(),
        dims: m.shape_dims(s),
    }
}

/// Re-measurements of the same kernel (same validation kind) in a row, this one included.
fn apply_remeasure(
    report: &mut GateReport,
    history: &[ValidationLog],
    validation: Validation,
    kernel_hash: &str,
    cfg: &crate::gate::GateConfig,
) {
    let mut deltas: Vec<f64> = history
        .iter()
        .rev()
        .take_while(|h| h.kernel_hash == kernel_hash && h.validation == validation)
        .filter(|h| {
            matches!(
                h.raw_verdict,
                Verdict::NeedsRemeasure | Verdict::Accept | Verdict::AcceptWithNote
            )
        })
        .filter_map(|h| h.aggregate_delta)
        .collect();
    if let Some(d) = report.aggregate.delta {
        deltas.push(d);
    }
    let need = cfg.remeasure_min_runs as usize;
    if deltas.len() < need {
        report.reasons.push(format!(
            "re-measurement {} of at least {need}: run `kcamp validate` again without changing the kernel",
            deltas.len()
        ));
        return;
    }
    let mean = crate::stats::mean(&deltas).unwrap_or(0.0);
    let sd = crate::stats::pop_stddev(&deltas).unwrap_or(f64::INFINITY);
    if remeasure_holds(&deltas, cfg) {
        report.verdict = Verdict::Accept;
        report.reasons.push(format!(
            "re-measured {} times: mean gain {:+.2}% > {:.0}% with stddev {:.2}% under half the gain: ACCEPT",
            deltas.len(),
            mean * 100.0,
            cfg.remeasure_min_gain * 100.0,
            sd * 100.0
        ));
    } else {
        report.verdict = Verdict::Reject;
        report.reasons.push(format!(
            "re-measured {} times: mean gain {:+.2}% with stddev {:.2}% does not hold (needs > {:.0}% and stddev under half of it): REJECT",
            deltas.len(),
            mean * 100.0,
            sd * 100.0,
            cfg.remeasure_min_gain * 100.0
        ));
    }
}

fn read_validation_log(rdir: &Path) -> Result<Vec<ValidationLog>> {
    let p = rdir.join(VALIDATIONS_JSONL);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), e)),
    };
    // A torn last line (crash mid-append) is ignored.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// Reference rows for the candidate's shapes: the incumbent's row where it measured the
/// shape, else the newest accepted ancestor that did (an incumbent accepted on a quick
/// validation has only the representative shapes).
fn reference_rows(
    c: &Campaign,
    incumbent: u32,
    keys: &BTreeSet<ShapeKey>,
    frozen: &str,
) -> Result<(BenchTable, Option<Samples>, Vec<String>)> {
    let lineage: Vec<u32> = c
        .decisions()?
        .into_iter()
        .filter(|(n, d)| {
            *n <= incumbent
                && matches!(
                    d.as_ref().map(|d| d.decision),
                    Some(DecisionKind::Baseline | DecisionKind::Accepted)
                )
        })
        .map(|(n, _)| n)
        .rev()
        .collect();
    let mut rows = Vec::new();
    let mut samples = Samples::default();
    let mut any_samples = true;
    let mut notes = Vec::new();
    let mut schema = None;
    let mut remaining: BTreeSet<ShapeKey> = keys.clone();
    for n in lineage {
        if remaining.is_empty() {
            break;
        }
        let adir = c.artifacts_dir(n);
        let table = BenchTable::read_frozen(&adir.join(BENCHMARK_CSV), frozen)?;
        let round_samples = if adir.join(SAMPLES_CSV).is_file() {
            Some(Samples::read(&adir.join(SAMPLES_CSV))?)
        } else {
            None
        };
        for row in &table.rows {
            let key = row.shape_key();
            if remaining.remove(&key) {
                if n != incumbent {
                    notes.push(format!("shape '{}' judged against round {n}, the newest accepted round that measured it", row.label));
                }
                match &round_samples {
                    Some(s) => samples
                        .rows
                        .extend(s.rows.iter().filter(|r| r.label == row.label).cloned()),
                    None => any_samples = false,
                }
                rows.push(row.clone());
            }
        }
        schema.get_or_insert(table.schema);
    }
    if let Some(missing) = remaining.iter().next() {
        return Err(Error::State(format!(
            "no accepted round measured shape '{}'",
            missing.label
        )));
    }
    let schema = schema.ok_or_else(|| Error::State("the lineage holds no measurement".into()))?;
    Ok((
        BenchTable { schema, rows },
        any_samples.then_some(samples),
        notes,
    ))
}

pub fn read_gate_record(c: &Campaign, round: u32) -> Result<Option<GateRecord>> {
    let p = c.artifacts_dir(round).join(GATE_JSON);
    match std::fs::read_to_string(&p) {
        Ok(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
            Error::in_file(
                &p,
                Some(e.line() as u64),
                None,
                format!("malformed gate record: {e}"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
}
