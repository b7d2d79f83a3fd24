//! ACCEPT and ROLLBACK: the decision file, the iteration record, the optional git commit,
//! bracketed by `*_begin`/`*_done` journal entries so that recovery can finish or undo them.

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

use super::Decision;
use super::layout::{Campaign, copy_tree, tree_hash};
use super::measure::MeasureSource;
use super::recover::recover;
use super::validate::{GateRecord, read_gate_record, validate_locked};
use crate::case::ProgressEvent;
use crate::files::{DECISION_FILE, KERNEL_DIR};
use crate::fsutil::{remove_dir_if_exists, rename, write_json_atomic};
use crate::types::{DecisionKind, Validation};
use crate::{Error, Result};

#[derive(Debug, Clone)]
pub struct AcceptOptions<'a> {
    pub force: bool,
    pub reason: Option<String>,
    /// How to run the confirming full validation of a small quick gain.
    pub confirm_source: MeasureSource<'a>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecisionOutcome {
    pub decision: Decision,
    /// The full validation that confirmed (or overturned) a quick ACCEPT.
    pub confirmation: Option<GateRecord>,
    pub warnings: Vec<String>,
}

pub fn accept(
    c: &Campaign,
    opts: &AcceptOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<DecisionOutcome> {
    let _lock = c.lock("kcamp accept")?;
    let recovery = recover(c)?;
    let Some(round) = c.open_round()? else {
        // A retried accept whose first attempt was killed: recovery finished it.
        if let Some(out) = completed_by_recovery(c, &recovery, "accept")? {
            return Ok(out);
        }
        return Err(Error::State("no open round to accept".into()));
    };
    let mut record = read_gate_record(c, round)?.ok_or_else(|| {
        Error::State(format!(
            "round {round} has not been validated: run `kcamp validate` first"
        ))
    })?;
    let now_hash = tree_hash(&c.kernel_dir())?;
    if now_hash != record.kernel_hash {
        return Err(Error::State(format!(
            "kernel/ changed since round {round} was validated: validate again before accepting"
        )));
    }
    check_snapshot(c, round, &record)?;
    if let Some(reason) = &opts.reason {
        crate::text::check_one_line("--reason", reason, crate::text::MAX_REASON_CHARS)?;
    }
    if opts.force {
        let reason = opts.reason.as_deref().map(str::trim).unwrap_or_default();
        if reason.is_empty() {
            return Err(Error::input(
                "--force needs --reason TEXT: why the gate is overridden",
            ));
        }
    }
    let mut confirmation = None;
    if record.needs_full_confirmation && !opts.force {
        let full = validate_locked(c, Validation::Full, opts.confirm_source, on_event)?;
        record = full.record.clone();
        confirmation = Some(full.record);
        if !record.report.verdict.allows_accept() {
            let reason = format!(
                "the full validation overturned the quick ACCEPT: {} ({})",
                record.report.verdict.as_str(),
                record.report.reasons.first().cloned().unwrap_or_default()
            );
            let mut out = rollback_locked(c, round, &reason)?;
            out.confirmation = confirmation;
            return Ok(out);
        }
    }
    if !record.report.verdict.allows_accept() && !opts.force {
        return Err(Error::State(format!(
            "the gate says {} for round {round}, which does not allow accepting: {}. Use --force --reason TEXT to override",
            record.report.verdict.as_str(),
            record.report.reasons.join("; ")
        )));
    }
    let decision = Decision {
        round,
        decision: DecisionKind::Accepted,
        parent: Some(record.incumbent),
        verdict: Some(record.report.verdict),
        validation: Some(record.validation),
        aggregate: record.report.aggregate.candidate,
        aggregate_delta: record.report.aggregate.delta,
        reason: opts.reason.clone(),
        forced: opts.force && !record.report.verdict.allows_accept(),
        time: Utc::now(),
        git_commit: None,
        gate: Some(record.report.clone()),
    };
    c.journal(
        "accept_begin",
        Some(round),
        json!({"parent": record.incumbent, "forced": decision.forced}),
    )?;
    super::fail_point("accept:after_begin");
    write_json_atomic(&c.round_dir(round).join(DECISION_FILE), &decision)?;
    super::fail_point("accept:after_decision");
    let warnings = finish_decision(c, round, "accept")?;
    Ok(DecisionOutcome {
        decision,
        confirmation,
        warnings,
    })
}

pub fn rollback(c: &Campaign, reason: &str) -> Result<DecisionOutcome> {
    crate::text::check_one_line("--reason", reason, crate::text::MAX_REASON_CHARS)?;
    let _lock = c.lock("kcamp rollback")?;
    let recovery = recover(c)?;
    let Some(round) = c.open_round()? else {
        // A retried rollback whose first attempt was killed: recovery finished it.
        if let Some(out) = completed_by_recovery(c, &recovery, "rollback")? {
            return Ok(out);
        }
        return Err(Error::State("no open round to roll back".into()));
    };
    if reason.trim().is_empty() {
        return Err(Error::input(
            "--reason must say why the round is rolled back",
        ));
    }
    rollback_locked(c, round, reason.trim())
}

/// The outcome of a decision of `kind` that recovery just completed for a retried command.
fn completed_by_recovery(
    c: &Campaign,
    recovery: &super::recover::Recovery,
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
        warnings: vec![format!(
            "an earlier `kcamp {kind}` of round {round} was interrupted; it is now complete"
        )],
    }))
}

/// The round's snapshot must be what the gate judged: accepting a round whose snapshot is
/// missing or different would make it an incumbent that rollback cannot restore.
fn check_snapshot(c: &Campaign, round: u32, record: &GateRecord) -> Result<()> {
    let snapshot = c.round_dir(round).join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Err(Error::State(format!(
            "the kernel snapshot {} of round {round} is missing: run `kcamp validate` again",
            snapshot.display()
        )));
    }
    if tree_hash(&snapshot)? != record.kernel_hash {
        return Err(Error::State(format!(
            "the kernel snapshot {} differs from the kernel round {round}'s gate judged: run `kcamp validate` again",
            snapshot.display()
        )));
    }
    Ok(())
}

pub(super) fn rollback_locked(c: &Campaign, round: u32, reason: &str) -> Result<DecisionOutcome> {
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no incumbent to roll back to".into()))?;
    c.journal(
        "rollback_begin",
        Some(round),
        json!({"incumbent": incumbent, "reason": reason}),
    )?;
    super::fail_point("rollback:after_begin");
    restore_kernel(c, incumbent)?;
    super::fail_point("rollback:after_restore");
    let decision = write_rollback_decision(c, round, incumbent, reason)?;
    let warnings = finish_decision(c, round, "rollback")?;
    Ok(DecisionOutcome {
        decision,
        confirmation: None,
        warnings,
    })
}

pub(super) fn write_rollback_decision(
    c: &Campaign,
    round: u32,
    incumbent: u32,
    reason: &str,
) -> Result<Decision> {
    if let Some(existing) = c.decision(round)? {
        return Ok(existing);
    }
    let record = read_gate_record(c, round)?;
    let decision = Decision {
        round,
        decision: DecisionKind::RolledBack,
        parent: Some(incumbent),
        verdict: record.as_ref().map(|r| r.report.verdict),
        validation: record.as_ref().map(|r| r.validation),
        aggregate: record.as_ref().and_then(|r| r.report.aggregate.candidate),
        aggregate_delta: record.as_ref().and_then(|r| r.report.aggregate.delta),
        reason: Some(reason.to_owned()),
        forced: false,
        time: Utc::now(),
        git_commit: None,
        gate: record.map(|r| r.report),
    };
    write_json_atomic(&c.round_dir(round).join(DECISION_FILE), &decision)?;
    Ok(decision)
}

/// After the decision file: the iteration record, the optional git commit, the journal.
/// Idempotent, so recovery can redo it.
pub(super) fn finish_decision(c: &Campaign, round: u32, kind: &str) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    super::records::on_decision(c, round)?;
    super::fail_point(&format!("{kind}:before_done"));
    if kind == "accept" && c.manifest.git_commit {
        match git_commit(c, round) {
            Ok(Some(hash)) => {
                c.journal("git_commit", Some(round), json!({"commit": hash}))?;
                super::records::on_git_commit(c, round, &hash)?;
            }
            Ok(None) => {}
            Err(msg) => {
                warnings.push(format!("git commit skipped: {msg}"));
                c.journal("git_commit_failed", Some(round), json!({"error": msg}))?;
            }
        }
    }
    c.journal(&format!("{kind}_done"), Some(round), json!({}))?;
    Ok(warnings)
}

/// Restore `kernel/` from the incumbent's snapshot exactly (files added since are gone).
/// Copy first, then swap by renames, so a crash leaves either tree whole.
pub(super) fn restore_kernel(c: &Campaign, incumbent: u32) -> Result<()> {
    let snapshot = c.round_dir(incumbent).join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Err(Error::State(format!(
            "the incumbent's kernel snapshot {} is missing",
            snapshot.display()
        )));
    }
    // Copy first, then swap by renames; the working kernel is moved aside, not deleted,
    // until the restored copy is in place (recovery puts it back after a kill between).
    let staging = c.dir.join(".kernel.restore.tmp");
    let kernel = c.kernel_dir();
    let old = c.dir.join(".kernel.old");
    remove_dir_if_exists(&staging)?;
    copy_tree(&snapshot, &staging)?;
    if kernel.exists() {
        remove_dir_if_exists(&old)?;
        rename(&kernel, &old)?;
    }
    rename(&staging, &kernel)?;
    remove_dir_if_exists(&old)
}

/// Commit the campaign directory when it lives in a git work tree. Ok(None): not a work
/// tree. Err: git refused (no identity, hooks...), reported as a warning.
fn git_commit(c: &Campaign, round: u32) -> std::result::Result<Option<String>, String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&c.dir)
            .output()
            .map_err(|e| format!("running git: {e}"))
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() || String::from_utf8_lossy(&inside.stdout).trim() != "true" {
        return Ok(None);
    }
    let hypothesis = c.hypothesis(round).unwrap_or_default();
    let message = format!("round-{round}: {hypothesis}\n");
    let add = git(&["add", "-A", "--", "."])?;
    if !add.status.success() {
        return Err(String::from_utf8_lossy(&add.stderr).trim().to_owned());
    }
    let commit = git(&["commit", "-q", "-m", &message, "--", "."])?;
    if !commit.status.success() {
        return Err(String::from_utf8_lossy(&commit.stderr).trim().to_owned());
    }
    let head = git(&["rev-parse", "HEAD"])?;
    Ok(Some(
        String::from_utf8_lossy(&head.stdout).trim().to_owned(),
    ))
}
