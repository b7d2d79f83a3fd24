//! REPORT: the final full validation of the incumbent and the final acceptance: those
//! numbers judged against the BASELINE round by the gate's rules, like for like (the
//! BASELINE's snapshot is re-measured beside the incumbent when the measurer can pair).
//! Rendering the report is the caller's (kcamp-report); it runs under the campaign lock
//! through a callback, so the report describes exactly the measurement just made.

use std::collections::BTreeSet;

use chrono::Utc;
use serde_json::json;

use super::baseline::check_shape_set;
use super::gate_record::{GateRecord, read_gate_record};
use super::held_out::{HeldOutCheck, HeldOutStatus, report_staging};
use super::layout::{Campaign, tree_hash};
use super::like::{Against, judge_like_for_like, remeasure_command};
use super::measure::{MeasureSource, Measured, Measurer, Plan, abandon, measure};
use super::validate::add_measurement_reasons;
use crate::artifacts::fingerprint::{Fingerprint, HarnessIdentity};
use crate::artifacts::paired::PairedSide;
use crate::artifacts::result::RunSummary;
use crate::case::ProgressEvent;
use crate::files::{BENCHMARK_CSV, FINAL_ACCEPTANCE_JSON, KERNEL_DIR, SAMPLES_CSV};
use crate::fsutil::write_json_atomic;
use crate::gate::{Reason, ReasonKind, Verdict};
use crate::next::{Command, NextStep};
use crate::schema::{BenchTable, Samples, ShapeKey};
use crate::types::Validation;
use crate::{Error, Result};

/// The directory (under the campaign) where the final validation's artifacts go.
pub const FINAL_VALIDATION_DIR: &str = "report/final";

/// The incumbent's numbers a final report is made from.
#[derive(Debug, Clone)]
pub struct FinalMeasurement {
    pub incumbent: u32,
    /// The final full validation's CSV, or the incumbent's recorded one (no run).
    pub table: BenchTable,
    /// How the final validation was measured; None when no run was made.
    pub origin: Option<String>,
    /// The final acceptance: the incumbent judged against the BASELINE (also written to
    /// `report/acceptance.json`). Its verdict leads the report and sets the exit code.
    pub acceptance: GateRecord,
    /// The final validation's `RESULT_JSON` summary; None when no run was made.
    pub summary: Option<RunSummary>,
    /// The BASELINE's snapshot re-measured in the final validation's run, when it was
    /// paired (`acceptance.like_for_like` says how): the numbers the verdict judged the
    /// incumbent against, so the report's baseline column is these, not round 1's record.
    pub paired: Option<PairedSide>,
    /// The incumbent's held-out check after the final validation (also
    /// `report/held_out.json`); None when no run was made.
    pub held_out: Option<HeldOutCheck>,
}

/// With a `source`, a final full validation of the incumbent (the working kernel must equal
/// its snapshot and no round may be open) and its held-out check with `check_with` (None:
/// the measurer of `source`, nothing for an imported CSV); without, the incumbent's recorded
/// CSV. Either is judged against the BASELINE; then `write` renders the report, still under
/// the lock.
pub fn final_report<T>(
    c: &Campaign,
    source: Option<MeasureSource<'_>>,
    check_with: Option<&dyn Measurer>,
    on_event: &mut dyn FnMut(ProgressEvent),
    write: impl FnOnce(&FinalMeasurement) -> Result<T>,
) -> Result<T> {
    // A refused import changes nothing: checked before the lock, and again under it.
    if let Some(MeasureSource::Csv(path)) = source {
        super::validate::precheck_import(c, path, Validation::Full)?;
    }
    let _lock = c.lock("kcamp report")?;
    super::recover(c)?;
    let incumbent = c.incumbent()?.ok_or_else(super::no_baseline)?;
    let frozen = c.frozen_header()?.ok_or_else(|| {
        Error::state(
            "the schema was never frozen.",
            vec![NextStep::run(Command::Baseline)],
        )
    })?;
    let (measured, ran) = match source {
        Some(source) => {
            if let Some(open) = c.open_round()? {
                return Err(Error::state(
                    format!(
                        "round {open} is open: accept or roll it back before the final report."
                    ),
                    vec![
                        NextStep::run(Command::Accept),
                        NextStep::rollback(),
                        report_no_run(),
                    ],
                ));
            }
            // What is measured (the incumbent, and the BASELINE beside it) must be what was
            // decided.
            super::snapshot::verify(c, incumbent)?;
            if c.manifest.gate.paired && incumbent != 1 {
                super::snapshot::verify(c, 1)?;
            }
            if tree_hash(&c.kernel_dir())? != tree_hash(&c.round_dir(incumbent).join(KERNEL_DIR))? {
                return Err(Error::state(
                    format!(
                        "kernel/ differs from the incumbent's snapshot (round {incumbent}): the final validation measures the incumbent."
                    ),
                    vec![
                        NextStep::new_round().why("then validate the change"),
                        NextStep::by_hand(format!(
                            "restore kernel/ from rounds/round-{incumbent}/kernel"
                        )),
                        report_no_run(),
                    ],
                ));
            }
            let out = c.dir.join(FINAL_VALIDATION_DIR);
            let plan = Plan {
                validation: Validation::Full,
                round: incumbent,
                frozen: Some(&frozen),
                out_dir: &out,
                kernel_dir: c.kernel_dir(),
                // Re-measure the BASELINE beside the incumbent; nothing to pair with itself.
                pair_with: (c.manifest.gate.paired && incumbent != 1)
                    .then(|| c.round_dir(1).join(KERNEL_DIR)),
                check_shapes: Vec::new(),
            };
            let mut measured = measure(c, source, &plan, on_event)
                .map_err(|e| abandon(c, e, "report", incumbent, Validation::Full, &[]))?;
            if incumbent == 1 && c.manifest.gate.paired {
                measured.unpaired_because = Some(
                    "the incumbent is the BASELINE itself: there is no other kernel to re-measure beside it"
                        .into(),
                );
            }
            let keys = c.manifest.target_keys();
            check_shape_set(&measured.table, &keys, "the manifest's target_shapes")?;
            c.journal(
                "final_validation",
                Some(incumbent),
                json!({"origin": measured.origin}),
            )?;
            (measured, true)
        }
        None => (recorded(c, incumbent, &frozen)?, false),
    };
    let keys: BTreeSet<ShapeKey> = measured.table.rows.iter().map(|r| r.shape_key()).collect();
    let baseline_fp = Fingerprint::read(&c.artifacts_dir(1))?;
    let judged = judge_like_for_like(
        c,
        &measured,
        &Against {
            round: 1,
            older: &[],
            keys: &keys,
            frozen: &frozen,
            remeasure: remeasure_command(
                c,
                "kcamp report",
                baseline_fp.as_ref(),
                measured.fingerprint.harness == HarnessIdentity::Imported,
            ),
        },
    )?;
    let mut report = judged.report;
    add_measurement_reasons(&mut report, &measured);
    // The incumbent's output on shapes the campaign does not list, as `accept` checks it:
    // a failure makes the final acceptance a REJECT.
    let whose = format!("the incumbent (round {incumbent})");
    let held_out = if ran {
        let measurer = check_with.or(match source {
            Some(MeasureSource::Run(m)) => Some(m),
            _ => None,
        });
        let snapshot = c.round_dir(incumbent).join(KERNEL_DIR);
        let check = super::held_out::check(
            c,
            incumbent,
            &report_staging(c),
            &snapshot,
            &tree_hash(&snapshot)?,
            measurer,
            on_event,
        )?;
        if check.status == HeldOutStatus::Fail {
            report.verdict = Verdict::Reject;
            report.reasons.insert(0, check.reason(&whose));
        } else {
            report.reasons.push(check.reason(&whose));
        }
        Some(check)
    } else {
        report.reasons.push(Reason::new(
            ReasonKind::Coverage,
            "held-out shapes not checked: --no-run measures nothing (`kcamp report` checks them).",
        ));
        None
    };
    // Recorded numbers are what the incumbent's round measured: a quick validation's, the
    // representative shapes only. The verdict must say which target shapes it did not see.
    let validation = if ran {
        Validation::Full
    } else {
        read_gate_record(c, incumbent)?.map_or(Validation::Full, |g| g.validation)
    };
    if !ran {
        let unseen: Vec<String> = c
            .manifest
            .target_keys()
            .into_iter()
            .filter(|k| !keys.contains(k))
            .map(|k| k.label)
            .collect();
        if !unseen.is_empty() {
            report.reasons.insert(
                0, Reason::new(ReasonKind::Comparison,
                format!(
                    "judged over {} of {} target shapes: round {incumbent}'s recorded numbers are its {} validation's and lack {}; `kcamp report` measures every target shape.",
                    keys.len(),
                    keys.len() + unseen.len(),
                    validation.as_str(),
                    unseen.join(", ")
                ),
            ));
        }
    }
    if incumbent == 1 {
        report.reasons.insert(
            0,
            Reason::new(
                ReasonKind::Comparison,
                "the incumbent is the BASELINE itself: no round was accepted.",
            ),
        );
    }
    let acceptance = GateRecord {
        round: incumbent,
        validation,
        incumbent: 1,
        kernel_hash: tree_hash(&c.round_dir(incumbent).join(KERNEL_DIR))?,
        needs_full_confirmation: false,
        time: Utc::now(),
        origin: measured.origin.clone(),
        reference_notes: judged.reference_notes.into_iter().map(|r| r.text).collect(),
        raw_verdict: Some(report.verdict),
        report,
        like_for_like: Some(judged.like),
        checked_shapes: measured.checked.clone(),
        csv_hash: Some(measured.csv_hash.clone()),
        unfloored: measured.unfloored.clone(),
    };
    write_json_atomic(&c.dir.join(FINAL_ACCEPTANCE_JSON), &acceptance)?;
    if held_out.is_some() {
        super::held_out::commit_report(c)?;
    } else {
        // An earlier report's check does not describe this acceptance.
        crate::fsutil::remove_file_if_exists(
            &c.dir
                .join(crate::files::REPORT_DIR)
                .join(crate::files::HELD_OUT_JSON),
        )?;
    }
    let measurement = FinalMeasurement {
        incumbent,
        table: measured.table,
        origin: ran.then_some(measured.origin),
        summary: ran.then_some(measured.summary),
        paired: measured.paired,
        acceptance,
        held_out,
    };
    let out = write(&measurement)?;
    c.journal(
        "report",
        Some(incumbent),
        json!({
            "final_validation": ran,
            "verdict": measurement.acceptance.report.verdict,
        }),
    )?;
    super::git::commit_step(
        c,
        Some(incumbent),
        &format!(
            "report: incumbent round {incumbent}{}",
            if measurement.origin.is_some() {
                ", final full validation"
            } else {
                " (recorded numbers)"
            }
        ),
    )?;
    Ok(out)
}

/// The final acceptance a full validation wrote for the current incumbent, when it still
/// stands: `report/acceptance.json` came from a measurement (not from recorded numbers), for
/// the incumbent round, of the kernel its snapshot holds now. `report --no-run` then leaves
/// it and `report.md` as they are: recorded numbers judged again would replace the final
/// validation's paired, like-for-like verdict with a weaker one.
pub fn standing_final_acceptance(c: &Campaign) -> Result<Option<GateRecord>> {
    let Some(incumbent) = c.incumbent()? else {
        return Ok(None);
    };
    let path = c.dir.join(FINAL_ACCEPTANCE_JSON);
    let Some(record) =
        crate::artifacts::read_json_opt::<GateRecord>(&path, "the final acceptance")?
    else {
        return Ok(None);
    };
    let measured = !record.origin.starts_with(RECORDED_ORIGIN);
    Ok((measured
        && record.round == incumbent
        && record.kernel_hash == tree_hash(&c.round_dir(incumbent).join(KERNEL_DIR))?)
    .then_some(record))
}

/// How the origin of a report made from recorded numbers begins (`recorded:round-N`).
const RECORDED_ORIGIN: &str = "recorded:";

/// The incumbent's recorded measurement (`report --no-run`), judged unpaired.
fn recorded(c: &Campaign, incumbent: u32, frozen: &str) -> Result<Measured> {
    let adir = c.artifacts_dir(incumbent);
    let samples_path = adir.join(SAMPLES_CSV);
    let mut table = BenchTable::read_frozen(&adir.join(BENCHMARK_CSV), frozen)?;
    let csv_hash = super::measure::table_sha256(&table);
    let fingerprint = Fingerprint::read(&adir)?
        .unwrap_or_else(|| Fingerprint::external(HarnessIdentity::Imported));
    // Rows kcamp did not time are held to the campaign's floor as it stands now (a
    // target_gpu named since the round was measured holds them too), in memory: the
    // round's record stays as it was.
    let mut impossible = Vec::new();
    let unfloored = match fingerprint.adapter {
        Some(_) => None,
        None => {
            let floor = super::measure::target_floor(c, &fingerprint)?;
            if floor.missing.is_none() {
                let m = &c.manifest;
                impossible =
                    crate::plausibility::check_table(&mut table, m.op, m.dtype, &floor.peaks);
            }
            floor.missing
        }
    };
    Ok(Measured {
        samples: if samples_path.is_file() {
            Some(Samples::read_for(&samples_path, &table)?)
        } else {
            None
        },
        table,
        origin: format!("{RECORDED_ORIGIN}round-{incumbent}"),
        csv_hash,
        unfloored,
        fingerprint,
        paired: None,
        unpaired_because: Some(format!(
            "--no-run: round {incumbent}'s recorded numbers, no final validation"
        )),
        checked: Vec::new(),
        impossible,
        notes: Vec::new(),
        summary: RunSummary::default(),
        failures: Vec::new(),
    })
}

/// `report --no-run`: a report on the recorded rounds, which needs no measurement.
fn report_no_run() -> NextStep {
    NextStep::run(Command::Report)
        .arg("no_run", true)
        .why("a report on the recorded rounds")
}
