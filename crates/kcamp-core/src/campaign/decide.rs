//! ACCEPT and ROLLBACK: the decision file, the iteration record, the optional git commit,
//! bracketed by `*_begin`/`*_done` journal entries so that recovery can finish or undo them.

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

use super::finish::{decision_commit, finish_decision, overturn_reason, roll_back};
use super::gate_record::{GateRecord, read_gate_record};
use super::held_out::{HeldOutCheck, HeldOutStatus, read_held_out};
use super::layout::{Campaign, tree_hash};
use super::measure::{MeasureSource, Measurer};
use super::recover::{Recovery, recover};
use super::validate::{ValidateOutcome, validate_locked};
use super::{Decision, DecisionCause};
use crate::case::ProgressEvent;
use crate::files::{DECISION_FILE, KERNEL_DIR};
use crate::fsutil::write_json_atomic;
use crate::next::{Command, NextStep};
use crate::types::{Check, DecisionKind, Validation};
use crate::{Error, Result};

#[derive(Clone)]
pub struct AcceptOptions<'a> {
    pub force: bool,
    pub reason: Option<String>,
    /// How to run the confirming full validation of a small quick gain.
    pub confirm_source: MeasureSource<'a>,
    /// The campaign's measurer, which checks the held-out shapes whatever `confirm_source`
    /// is; None: that of `confirm_source` (nothing, for an imported CSV).
    pub check_with: Option<&'a dyn Measurer>,
}

impl std::fmt::Debug for AcceptOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcceptOptions")
            .field("force", &self.force)
            .field("reason", &self.reason)
            .field("confirm_source", &self.confirm_source)
            .field(
                "check_with",
                &self.check_with.map(|m| m.origin(Validation::Full)),
            )
            .finish()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DecisionOutcome {
    pub decision: Decision,
    /// The full validation that confirmed (or overturned) a quick ACCEPT.
    pub confirmation: Option<ValidateOutcome>,
    /// The held-out check made before accepting (also the round's `held_out.json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutCheck>,
    pub warnings: Vec<String>,
    /// What this step first completed or undid of one an earlier process left half-done
    /// (also journaled as `recovered`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovered: Vec<String>,
}

pub fn accept(
    c: &Campaign,
    opts: &AcceptOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<DecisionOutcome> {
    // A confirming CSV that would be refused changes nothing: checked before the lock.
    if let MeasureSource::Csv(path) = opts.confirm_source
        && !opts.force
        && let Ok(Some(round)) = c.open_round()
        && read_gate_record(c, round)?.is_some_and(|r| r.needs_full_confirmation)
    {
        super::validate::precheck_import(c, path, Validation::Full)?;
    }
    let _lock = c.lock("kcamp accept")?;
    let recovery = recover(c)?;
    let mut out = accept_recovered(c, opts, on_event, &recovery)?;
    if out.recovered.is_empty() {
        out.recovered = recovery.actions;
    }
    Ok(out)
}

/// [`accept`] with the lock held, after recovery.
fn accept_recovered(
    c: &Campaign,
    opts: &AcceptOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
    recovery: &Recovery,
) -> Result<DecisionOutcome> {
    let Some(round) = c.open_round()? else {
        // A retried accept whose first attempt was killed: recovery finished it.
        if let Some(out) = completed_by_recovery(c, recovery, "accept")? {
            return Ok(out);
        }
        return Err(Error::state(
            "no open round to accept.",
            vec![NextStep::new_round(), NextStep::run(Command::Status)],
        ));
    };
    let mut record = read_gate_record(c, round)?.ok_or_else(|| {
        Error::state(
            format!("round {round} has not been validated."),
            vec![NextStep::run(Command::Validate)],
        )
    })?;
    let now_hash = tree_hash(&c.kernel_dir())?;
    if now_hash != record.kernel_hash {
        return Err(Error::state(
            format!(
                "kernel/ changed since round {round} was validated: what would be accepted is not what was measured."
            ),
            vec![NextStep::run(Command::Validate).why("measures kernel/ as it is now")],
        ));
    }
    check_snapshot(c, round, &record)?;
    if let Some(reason) = &opts.reason {
        crate::text::check_one_line("--reason", reason, crate::text::MAX_REASON_CHARS)?;
    }
    // Overriding the gate accepts a kernel that is slower or that fails some shapes; a
    // kernel that passes none (one that does not compile) would leave no incumbent to
    // measure the next round against, so not even --force takes it.
    let nothing_passed = nothing_passed(&record.report);
    if opts.force {
        let reason = opts.reason.as_deref().map(str::trim).unwrap_or_default();
        if reason.is_empty() {
            return Err(
                Error::input("--force needs --reason TEXT: why the gate is overridden").with_next(
                    vec![NextStep::run(Command::Accept).arg("force", true).arg(
                        "reason",
                        "s32 -3% is noise: measured again by hand at -0.4%",
                    )],
                ),
            );
        }
        if nothing_passed {
            return Err(Error::state(
                format!(
                    "no shape passes in round {round}, so --force cannot make it the incumbent: there would be no numbers to judge the next round against."
                ),
                vec![
                    NextStep::rollback(),
                    NextStep::run(Command::Validate).before("fix the kernel"),
                ],
            ));
        }
    }
    let mut confirmation = None;
    if record.needs_full_confirmation && !opts.force {
        // Bracketed, so that a kill after the confirming validation is recorded and before
        // its rollback is made completes as the rollback this accept promised.
        c.journal("accept_confirm_begin", Some(round), json!({}))?;
        let full = validate_locked(c, Validation::Full, opts.confirm_source, on_event)?;
        record = full.record.clone();
        confirmation = Some(full);
        super::fail_point("accept:after_confirmation");
        if !record.report.verdict.allows_accept() {
            let reason = overturn_reason(&record);
            let mut out =
                rollback_locked(c, round, &reason, DecisionCause::ConfirmationOverturned)?;
            c.journal("accept_confirm_done", Some(round), json!({}))?;
            out.confirmation = confirmation;
            return Ok(out);
        }
        c.journal("accept_confirm_done", Some(round), json!({}))?;
    }
    if !record.report.verdict.allows_accept() && !opts.force {
        // Why it is refused: how the numbers were paired is not a reason (the gate's table
        // and `validate` say it).
        // One reason a line, the same reason once, and a handful at most: the rest is in
        // the round's gate (`kcamp validate` printed it whole).
        const SHOWN: usize = 6;
        let mut reasons: Vec<&str> = Vec::new();
        for r in record.report.reasons.iter() {
            if r.kind != crate::gate::ReasonKind::Method && !reasons.contains(&r.text.as_str()) {
                reasons.push(&r.text);
            }
        }
        let mut listed: String = reasons
            .iter()
            .take(SHOWN)
            .map(|r| format!("\n  - {r}"))
            .collect();
        if reasons.len() > SHOWN {
            listed.push_str(&format!(
                "\n  - … and {} more (rounds/round-{round}/artifacts/gate.json)",
                reasons.len() - SHOWN
            ));
        }
        // Rows no floor holds wait for the target to be named, not for another kernel.
        let next = if record.unfloored.is_some() {
            vec![NextStep::run(Command::Validate).before(
                "name the GPU the rows come from (target_gpu in manifest.yaml, or run kcamp peak on it)",
            )]
        } else {
            let mut next = vec![
                NextStep::rollback(),
                NextStep::run(Command::Validate).before("change the kernel"),
            ];
            if !nothing_passed {
                next.push(
                    NextStep::run(Command::Accept)
                        .arg("force", true)
                        .fill("reason", "TEXT")
                        .why("overrides the gate; recorded as forced"),
                );
            }
            next
        };
        return Err(Error::state(
            format!(
                "the gate says {} for round {round}, which does not allow accepting:{listed}",
                record.report.verdict.as_str(),
            ),
            next,
        ));
    }
    // Wrong output is no speed trade-off: a kernel wrong on a shape the campaign does not
    // list is refused whatever the gate said, --force included, and rolled back.
    let measurer = opts.check_with.or(match opts.confirm_source {
        MeasureSource::Run(m) => Some(m),
        MeasureSource::Csv(_) => None,
    });
    let held_out = super::held_out::check(
        c,
        round,
        &super::held_out::round_staging(c, round),
        &c.round_dir(round).join(KERNEL_DIR),
        &record.kernel_hash,
        measurer,
        on_event,
    )?;
    super::fail_point("accept:after_held_out");
    let whose = format!("round {round}'s kernel");
    if held_out.status == HeldOutStatus::Fail {
        let mut out = rollback_locked(
            c,
            round,
            &held_out.refusal(&whose),
            DecisionCause::HeldOutFailed,
        )?;
        out.confirmation = confirmation;
        out.held_out = Some(held_out);
        return Ok(out);
    }
    c.journal(
        "accept_begin",
        Some(round),
        json!({"parent": record.incumbent, "forced": opts.force && !record.report.verdict.allows_accept()}),
    )?;
    super::fail_point("accept:after_begin");
    let mut warnings = Vec::new();
    let hypothesis = c.hypothesis(round).unwrap_or_default();
    let git_commit = decision_commit(
        c,
        round,
        &format!(
            "ACCEPTED {} {}: {hypothesis}",
            c.manifest.primary_metric,
            record
                .report
                .aggregate
                .delta
                .map_or_else(|| "-".to_owned(), crate::units::change)
        ),
        &mut warnings,
    )?;
    let decision = Decision {
        round,
        decision: DecisionKind::Accepted,
        parent: Some(record.incumbent),
        verdict: Some(record.report.verdict),
        validation: Some(record.validation),
        aggregate: record.report.aggregate.candidate,
        aggregate_delta: record.report.aggregate.delta,
        reason: opts.reason.clone(),
        cause: Some(if opts.force && !record.report.verdict.allows_accept() {
            DecisionCause::Forced
        } else {
            DecisionCause::GateAccept
        }),
        forced: opts.force && !record.report.verdict.allows_accept(),
        time: Utc::now(),
        git_commit,
        kernel_key: super::ledger::snapshot_key(&c.round_dir(round))?,
        gate: Some({
            let mut gate = record.report.clone();
            gate.reasons.push(held_out.reason(&whose));
            gate
        }),
        kernel_hash: Some(record.kernel_hash.clone()),
        kernel_files: Some(super::snapshot::file_hashes(
            &c.round_dir(round).join(KERNEL_DIR),
        )?),
    };
    write_json_atomic(&c.round_dir(round).join(DECISION_FILE), &decision)?;
    super::fail_point("accept:after_decision");
    warnings.extend(finish_decision(c, round, "accept")?);
    Ok(DecisionOutcome {
        decision,
        confirmation,
        held_out: Some(held_out),
        warnings,
        recovered: Vec::new(),
    })
}

pub fn rollback(c: &Campaign, reason: &str) -> Result<DecisionOutcome> {
    crate::text::check_one_line("--reason", reason, crate::text::MAX_REASON_CHARS)?;
    let _lock = c.lock("kcamp rollback")?;
    let recovery = recover(c)?;
    let mut out = rollback_recovered(c, reason, &recovery)?;
    if out.recovered.is_empty() {
        out.recovered = recovery.actions;
    }
    Ok(out)
}

/// [`rollback`] with the lock held, after recovery.
fn rollback_recovered(c: &Campaign, reason: &str, recovery: &Recovery) -> Result<DecisionOutcome> {
    let Some(round) = c.open_round()? else {
        // A retried rollback whose first attempt was killed: recovery finished it.
        if let Some(out) = completed_by_recovery(c, recovery, "rollback")? {
            return Ok(out);
        }
        return Err(Error::state(
            "no open round to roll back.",
            vec![NextStep::run(Command::Status).why("a decided round is never reopened")],
        ));
    };
    if reason.trim().is_empty() {
        return Err(
            Error::input("--reason must say why the round is rolled back").with_next(vec![
                NextStep::run(Command::Rollback).arg("reason", "slower on s64: register pressure"),
            ]),
        );
    }
    let verdict = read_gate_record(c, round)?.map(|r| r.report.verdict);
    rollback_locked(c, round, reason.trim(), DecisionCause::of_rollback(verdict))
}

/// The outcome of a decision of `kind` that recovery just completed for a retried command.
fn completed_by_recovery(
    c: &Campaign,
    recovery: &Recovery,
    kind: &str,
) -> Result<Option<DecisionOutcome>> {
    let Some((_, round)) = recovery.completed.iter().rev().find(|(k, _)| *k == kind) else {
        return Ok(None);
    };
    let Some(decision) = c.decision(*round)? else {
        return Ok(None);
    };
    Ok(Some(DecisionOutcome {
        decision,
        confirmation: None,
        held_out: read_held_out(&c.round_dir(*round))?,
        warnings: vec![format!(
            "an earlier `kcamp {kind}` of round {round} was interrupted; it is now complete"
        )],
        recovered: recovery.actions.clone(),
    }))
}

/// The round's snapshot must be what the gate judged: accepting a round whose snapshot is
/// missing or different would make it an incumbent that rollback cannot restore.
fn check_snapshot(c: &Campaign, round: u32, record: &GateRecord) -> Result<()> {
    let snapshot = c.round_dir(round).join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Err(Error::state(
            format!(
                "the kernel snapshot {} of round {round} is missing.",
                snapshot.display()
            ),
            vec![NextStep::run(Command::Validate)],
        ));
    }
    if tree_hash(&snapshot)? != record.kernel_hash {
        return Err(Error::state(
            format!(
                "the kernel snapshot {} differs from the kernel round {round}'s gate judged.",
                snapshot.display()
            ),
            vec![NextStep::run(Command::Validate)],
        ));
    }
    Ok(())
}

pub(super) fn rollback_locked(
    c: &Campaign,
    round: u32,
    reason: &str,
    cause: DecisionCause,
) -> Result<DecisionOutcome> {
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no incumbent to roll back to".into()))?;
    // The snapshot is checked before anything is journaled: a tampered incumbent refuses
    // the rollback with the campaign unchanged.
    super::snapshot::verify(c, incumbent)?;
    let mut warnings = Vec::new();
    let decision = roll_back(c, round, incumbent, reason, cause, &mut warnings)?;
    Ok(DecisionOutcome {
        decision,
        confirmation: None,
        held_out: None,
        warnings,
        recovered: Vec::new(),
    })
}

/// Whether a judged round has shapes and none of them passes: not even --force accepts it.
pub fn nothing_passed(report: &crate::gate::GateReport) -> bool {
    !report.shapes.is_empty() && report.shapes.iter().all(|s| s.check != Check::Pass)
}
