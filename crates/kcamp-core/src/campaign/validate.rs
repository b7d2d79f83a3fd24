//! VALIDATE: measures the working kernel, snapshots it, judges it against the incumbent and
//! records the verdict (`gate.json`, `validations.jsonl`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::Utc;
use serde::Serialize;

use super::baseline::check_shape_set;
use super::finish::{Staging, finish_validation};
use super::gate_record::{GateRecord, ValidationLog, read_validation_log};
use super::layout::{Campaign, copy_tree, tree_hash};
use super::ledger::Tried;
use super::like::{Against, failed_checks, judge_like_for_like, remeasure_command};
use super::measure::{MeasureSource, Measured, Plan, abandon, measure, untimed_shapes};
use super::recover::recover;
use crate::artifacts::fingerprint::Fingerprint;
use crate::artifacts::result::{RunResult, RunSummary, ShapeFailure, TimeBreakdown};
use crate::case::ProgressEvent;
use crate::files::{FROZEN_HEADER_FILE, GATE_JSON, KERNEL_DIR, RESULT_JSON, SAMPLES_CSV};
use crate::fsutil::write_json_atomic;
use crate::gate::{GateReport, Reason, ReasonKind, Verdict, remeasure_holds};
use crate::next::{Command, NextStep};
use crate::schema::{BenchTable, Samples, ShapeKey};
use crate::types::{DecisionKind, Validation};
use crate::{Error, Result};

#[derive(Debug, Clone, Serialize)]
pub struct ValidateOutcome {
    #[serde(flatten)]
    pub record: GateRecord,
    /// What the run's `RESULT_JSON` line carries (totals, latencies, worst rel_err).
    pub summary: RunSummary,
    /// Shapes that did not PASS, with the reasons the run recorded.
    pub failures: Vec<ShapeFailure>,
    /// The rolled-back rounds whose kernel snapshot equals the one measured (comments and
    /// whitespace aside): this kernel was tried before.
    pub tried_before: Vec<Tried>,
    /// Where the measurement's time went (the built-in runner's `result.json`; none for a
    /// harness or an imported CSV).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_breakdown: Option<TimeBreakdown>,
    /// What this step first completed or undid of one an earlier process left half-done
    /// (a kill between its steps), one sentence each (also journaled as `recovered`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovered: Vec<String>,
}

pub fn validate(
    c: &Campaign,
    full: bool,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let validation = if full {
        Validation::Full
    } else {
        Validation::Quick
    };
    if let MeasureSource::Csv(path) = source {
        precheck_import(c, path, validation)?;
    }
    let _lock = c.lock(if full {
        "kcamp validate --full"
    } else {
        "kcamp validate"
    })?;
    let recovery = recover(c)?;
    let mut out = validate_locked(c, validation, source, on_event)?;
    out.recovered = recovery.actions;
    Ok(out)
}

pub(super) fn validate_locked(
    c: &Campaign,
    validation: Validation,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let round = c.open_round()?.ok_or_else(|| {
        Error::state(
            "no open round to validate.",
            vec![
                NextStep::new_round(),
                NextStep::run(Command::Run).why("measures kernel/ without a round"),
            ],
        )
    })?;
    let incumbent = c.incumbent()?.ok_or_else(super::no_baseline)?;
    let frozen = c.frozen_header()?.ok_or_else(|| {
        Error::State(format!(
            "{} is missing: the schema was never frozen",
            c.dir.join(FROZEN_HEADER_FILE).display()
        ))
    })?;
    let expected = expected_keys(c, validation)?;
    if c.manifest.gate.paired && matches!(source, MeasureSource::Run(_)) {
        // The incumbent's snapshot is measured beside the kernel: it must be what the
        // incumbent was decided on.
        super::snapshot::verify(c, incumbent)?;
    }
    let rdir = c.round_dir(round);
    let stage = Staging::of(&rdir);
    // The kernel is staged whole before the artifacts directory exists: recovery reads
    // "artifacts staged, kernel not" as "the new snapshot is already swapped in".
    stage.discard()?;
    copy_tree(&c.kernel_dir(), &stage.kernel_tmp)?;
    let stage_artifacts = stage.artifacts_tmp.clone();
    let kernel_hash = tree_hash(&stage.kernel_tmp)?;
    let tried_before = super::ledger::tried_before(c, &stage.kernel_tmp)?;
    let plan = Plan {
        validation,
        round,
        frozen: Some(&frozen),
        out_dir: &stage_artifacts,
        kernel_dir: c.kernel_dir(),
        pair_with: c
            .manifest
            .gate
            .paired
            .then(|| c.round_dir(incumbent).join(KERNEL_DIR)),
        check_shapes: untimed_shapes(c, validation),
    };
    let staged = measure(c, source, &plan, on_event).and_then(|m| {
        let what = match validation {
            Validation::Quick => "the representative shapes (use --full for all target shapes)",
            Validation::Full => "the manifest's target_shapes",
        };
        check_shape_set(&m.table, &expected, what)?;
        if let Some(side) = &m.paired {
            check_shape_set(&side.table, &expected, what)?;
        }
        Ok(m)
    });
    let measured: Measured = match staged {
        Ok(m) => m,
        Err(e) => {
            let command = match validation {
                Validation::Quick => "validate",
                Validation::Full => "validate --full",
            };
            // Artifacts first: recovery reads "artifacts staged, kernel not" as a swap done.
            return Err(abandon(
                c,
                e,
                command,
                round,
                validation,
                &[&stage.artifacts_tmp, &stage.kernel_tmp],
            ));
        }
    };
    let older = accepted_before(c, incumbent)?;
    let incumbent_fp = Fingerprint::read(&c.artifacts_dir(incumbent))?;
    let judged = judge_like_for_like(
        c,
        &measured,
        &Against {
            round: incumbent,
            older: &older,
            keys: &expected,
            frozen: &frozen,
            remeasure: remeasure_command(
                c,
                "kcamp validate",
                incumbent_fp.as_ref(),
                matches!(source, MeasureSource::Csv(_)),
            ),
        },
    )?;
    let mut report = judged.report;
    report
        .reasons
        .extend(judged.reference_notes.iter().cloned());
    let comparable = judged.like.comparable();
    // What the measurement itself decides (an untimed shape that fails, rows no floor can
    // hold) is part of the verdict the history records: such a validation is no
    // re-measurement of a gain.
    apply_measurement_verdict(&mut report, &measured);
    let raw_verdict = report.verdict;
    // A gain inside the noise is re-measured; the history decides (docs/gate.md,
    // "NEEDS_REMEASURE").
    // An unstable aggregate's NEEDS_REMEASURE is no small gain to confirm.
    if comparable
        && measured.unfloored.is_none()
        && !report.aggregate.unstable
        && raw_verdict == Verdict::NeedsRemeasure
    {
        let history = read_validation_log(&rdir)?;
        let elsewhere = measurements_of_other_rounds(c, round)?;
        apply_remeasure(
            &mut report,
            &Remeasured {
                history: &history,
                validation,
                kernel_hash: &kernel_hash,
                csv_hash: &measured.csv_hash,
                elsewhere: &elsewhere,
            },
            &c.manifest.gate,
        );
    }
    add_measurement_notes(&mut report, &measured);
    let needs_full_confirmation = validation == Validation::Quick
        && report.verdict.allows_accept()
        && report
            .aggregate
            .delta
            .is_some_and(|d| d < c.manifest.gate.quick_confirm_below);
    if needs_full_confirmation {
        report.reasons.push(Reason::new(ReasonKind::Confirmation, format!(
            "quick ACCEPT with an aggregate gain under {:.0}%: `kcamp accept` confirms it with a full validation first",
            c.manifest.gate.quick_confirm_below * 100.0
        )));
    }
    let record = GateRecord {
        round,
        validation,
        incumbent,
        kernel_hash: kernel_hash.clone(),
        needs_full_confirmation,
        time: Utc::now(),
        origin: measured.origin.clone(),
        reference_notes: judged.reference_notes.into_iter().map(|r| r.text).collect(),
        report,
        like_for_like: Some(judged.like),
        checked_shapes: measured.checked.clone(),
        raw_verdict: Some(raw_verdict),
        csv_hash: Some(measured.csv_hash.clone()),
        unfloored: measured.unfloored.clone(),
    };
    write_json_atomic(&stage_artifacts.join(GATE_JSON), &record)?;
    // What the run says of its own time: informational, so a record that does not read
    // leaves it out rather than failing a validation that is otherwise whole.
    let time_breakdown = RunResult::read(&stage_artifacts.join(RESULT_JSON))
        .ok()
        .flatten()
        .and_then(|r| r.time_breakdown);
    // Swap the staged snapshot and artifacts in (an undecided round may be re-validated);
    // the validation log and the journal follow from the committed gate record.
    stage.commit()?;
    finish_validation(c, round)?;
    stage.drop_previous()?;
    super::git::commit_step(c, Some(round), &super::finish::validation_subject(&record))?;
    Ok(ValidateOutcome {
        record,
        summary: measured.summary,
        failures: measured.failures,
        tried_before,
        time_breakdown,
        recovered: Vec::new(),
    })
}

/// The shapes a validation of `validation` must hold: the representative ones (quick) or
/// every target shape (full).
fn expected_keys(c: &Campaign, validation: Validation) -> Result<BTreeSet<ShapeKey>> {
    Ok(match validation {
        Validation::Quick => {
            if c.manifest.representative_shapes.is_empty() {
                return Err(Error::state(
                    "no representative_shapes in manifest.yaml.",
                    vec![
                        NextStep::run(Command::Validate)
                            .arg("full", true)
                            .why("all target shapes"),
                        NextStep::by_hand(
                            "list 3-5 labels under representative_shapes in manifest.yaml",
                        ),
                    ],
                ));
            }
            c.manifest
                .representative()
                .into_iter()
                .map(|s| c.manifest.shape_key(s))
                .collect()
        }
        Validation::Full => c
            .manifest
            .target_shapes
            .iter()
            .map(|s| c.manifest.shape_key(s))
            .collect(),
    })
}

/// An imported CSV held to what the validation would hold it to (the frozen header, the
/// shapes, its samples), before the lock is taken or anything is staged: a refused import
/// changes nothing in the campaign, not even a timestamp. The step checks it again under
/// the lock.
pub(super) fn precheck_import(c: &Campaign, path: &Path, validation: Validation) -> Result<()> {
    let Some(frozen) = c.frozen_header()? else {
        // No BASELINE: the step refuses that, under the lock.
        return Ok(());
    };
    let table = BenchTable::read_held_to(path, Some(&frozen))?;
    let samples = path.with_file_name(SAMPLES_CSV);
    if samples.is_file() {
        Samples::read_for(&samples, &table)?;
    }
    let what = match validation {
        Validation::Quick => "the representative shapes (use --full for all target shapes)",
        Validation::Full => "the manifest's target_shapes",
    };
    match expected_keys(c, validation) {
        Ok(keys) => check_shape_set(&table, &keys, what),
        // Refused under the lock with the same message.
        Err(_) => Ok(()),
    }
}

/// What the measurement itself says about the verdict: untimed shapes that fail (a FAIL
/// of the round), rows faster than the hardware (now ERROR), rows no floor could hold, and
/// notes on how it was made.
pub(super) fn add_measurement_reasons(report: &mut GateReport, measured: &Measured) {
    apply_measurement_verdict(report, measured);
    add_measurement_notes(report, measured);
}

/// The measurement's part of the verdict, its reasons first: an untimed target shape that
/// does not PASS rejects the round; rows that no roofline floor holds cannot be accepted.
fn apply_measurement_verdict(report: &mut GateReport, measured: &Measured) {
    let failed = failed_checks(measured);
    if !failed.is_empty() {
        report.verdict = Verdict::Reject;
        report.reasons.insert(
            0,
            Reason::new(
                ReasonKind::Failure,
                format!(
                    "{} checked by this validation {} not PASS: {}.",
                    crate::text::count_of(
                        failed.len(),
                        measured.checked.len(),
                        "untimed target shape"
                    ),
                    crate::text::does(failed.len()),
                    failed.join(", ")
                ),
            ),
        );
    }
    if let Some(why) = &measured.unfloored {
        if report.verdict == Verdict::Reject {
            report.reasons.push(Reason::new(
                ReasonKind::Plausibility,
                format!("rows not checked against a roofline floor: {why}."),
            ));
        } else {
            report.verdict = Verdict::NeedsRemeasure;
            report.reasons.insert(
                0,
                Reason::new(ReasonKind::Comparison, unfloored_reason(why)),
            );
        }
    }
}

/// Why rows that no floor holds cannot be accepted, and what makes them checkable.
pub(super) fn unfloored_reason(why: &str) -> String {
    let known = crate::specs::Registry::builtin()
        .map(|r| {
            r.gpus
                .iter()
                .filter(|g| !g.software)
                .map(|g| g.id.clone())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!(
        "name the target: these rows are held to no roofline floor ({why}), so nothing says they are possible, and a gain on them cannot be accepted. Name the GPU that produced them in manifest.yaml's target_gpu ({known}), or measure its peaks with `kcamp peak` on it, then measure again."
    )
}

/// Notes on how the measurement was made: the untimed shapes checked, rows faster than the
/// hardware (now ERROR), the floor used.
fn add_measurement_notes(report: &mut GateReport, measured: &Measured) {
    if failed_checks(measured).is_empty() && !measured.checked.is_empty() {
        let how = if measured.origin.starts_with("command:") {
            "by the harness's check run, KCAMP_VALIDATION=check"
        } else {
            "one dispatch per pass, untimed"
        };
        report.reasons.push(Reason::new(
            ReasonKind::Coverage,
            format!(
                "the outputs of the other {} were checked ({how}): all PASS.",
                crate::text::count(measured.checked.len(), "target shape")
            ),
        ));
    }
    for i in &measured.impossible {
        report.reasons.push(
            Reason::new(
                ReasonKind::Plausibility,
                format!("{} is ERROR: {}.", i.label, i.reason),
            )
            .with_shapes([i.label.clone()]),
        );
    }
    report.reasons.extend(measured.notes.iter().cloned());
}

/// Accepted rounds (and the BASELINE) before `incumbent`, newest first.
pub(super) fn accepted_before(c: &Campaign, incumbent: u32) -> Result<Vec<u32>> {
    Ok(c.decisions()?
        .into_iter()
        .filter(|(n, d)| {
            *n < incumbent
                && matches!(
                    d.as_ref().map(|d| d.decision),
                    Some(DecisionKind::Baseline | DecisionKind::Accepted)
                )
        })
        .map(|(n, _)| n)
        .rev()
        .collect())
}

/// What a NEEDS_REMEASURE is decided from.
struct Remeasured<'a> {
    /// This round's validations, oldest first.
    history: &'a [ValidationLog],
    validation: Validation,
    kernel_hash: &'a str,
    /// The content hash of this validation's CSV.
    csv_hash: &'a str,
    /// The measurement hashes other rounds recorded, with their round.
    elsewhere: &'a BTreeMap<String, u32>,
}

/// The CSV content hashes every other round's validations recorded, with the round: a
/// measurement another round made is not a re-measurement of this round's kernel.
fn measurements_of_other_rounds(c: &Campaign, round: u32) -> Result<BTreeMap<String, u32>> {
    let mut out = BTreeMap::new();
    for n in c.round_numbers()? {
        if n == round {
            continue;
        }
        for h in read_validation_log(&c.round_dir(n))? {
            if let Some(hash) = h.csv_hash {
                out.entry(hash).or_insert(n);
            }
        }
    }
    Ok(out)
}

/// Distinct re-measurements of the same kernel (same validation kind) in a row in this
/// round, this one included: each a different CSV (by content), none that another round
/// measured, each a NEEDS_REMEASURE or ACCEPT of its own with every shape passing.
fn apply_remeasure(report: &mut GateReport, r: &Remeasured<'_>, cfg: &crate::gate::GateConfig) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut deltas: Vec<f64> = Vec::new();
    for h in r
        .history
        .iter()
        .rev()
        .take_while(|h| h.kernel_hash == r.kernel_hash && h.validation == r.validation)
        .filter(|h| h.comparable && h.floored)
        .filter(|h| {
            matches!(
                h.raw_verdict,
                Verdict::NeedsRemeasure | Verdict::Accept | Verdict::AcceptWithNote
            )
        })
    {
        let Some(d) = h.aggregate_delta else { continue };
        match h.csv_hash.as_deref() {
            Some(hash) if r.elsewhere.contains_key(hash) || !seen.insert(hash) => {}
            _ => deltas.push(d),
        }
    }
    let mut not_counted = None;
    if let Some(d) = report.aggregate.delta {
        if let Some(round) = r.elsewhere.get(r.csv_hash) {
            not_counted = Some(format!(
                "this CSV holds the same numbers as one that round {round} validated: a measurement of that round's kernel, not of this one"
            ));
        } else if seen.contains(r.csv_hash) {
            not_counted = Some(
                "this CSV holds the same numbers as one this round already counted: one measurement counts once".to_owned(),
            );
        } else {
            deltas.push(d);
        }
    }
    let need = cfg.remeasure_min_runs as usize;
    let counted = |n: usize| {
        format!(
            "{n} distinct measurement{} of this kernel",
            if n == 1 { "" } else { "s" }
        )
    };
    if let Some(why) = &not_counted {
        report.reasons.push(Reason::new(
            ReasonKind::Remeasure,
            format!("not counted as a re-measurement: {why}."),
        ));
    }
    if deltas.len() < need {
        report.reasons.push(Reason::new(ReasonKind::Remeasure, format!(
            "re-measurement {} of at least {need} ({}): run `kcamp validate` again without changing the kernel{}",
            deltas.len(),
            counted(deltas.len()),
            if not_counted.is_some() {
                ", a new run of the measurement (not the same CSV again)"
            } else {
                ""
            }
        )));
        return;
    }
    let mean = crate::stats::mean(&deltas).unwrap_or(0.0);
    let sd = crate::stats::pop_stddev(&deltas).unwrap_or(f64::INFINITY);
    if remeasure_holds(&deltas, cfg) {
        report.verdict = Verdict::Accept;
        report.reasons.push(Reason::new(ReasonKind::Remeasure, format!(
            "re-measured: {}, mean gain {:+.2}% > {:.0}% with stddev {:.2}% under half the gain: ACCEPT",
            counted(deltas.len()),
            mean * 100.0,
            cfg.remeasure_min_gain * 100.0,
            sd * 100.0
        )));
    } else {
        report.verdict = Verdict::Reject;
        report.reasons.push(Reason::new(ReasonKind::Remeasure, format!(
            "re-measured: {}, mean gain {:+.2}% with stddev {:.2}% does not hold (needs > {:.0}% and stddev under half of it): REJECT",
            counted(deltas.len()),
            mean * 100.0,
            sd * 100.0,
            cfg.remeasure_min_gain * 100.0
        )));
    }
}
