//! The steps of a writing command after its commit point (the rename or the file from which
//! the step stands), each idempotent: the command runs them, and recovery redoes them after
//! a kill. They are apart from the commands so that recovery needs none of them: the
//! commands call recovery, and both call these.

use std::path::{Path, PathBuf};

use chrono::Utc;
use serde_json::json;

use super::gate_record::{ValidationLog, read_gate_record, read_validation_log};
use super::git;
use super::layout::{Campaign, copy_tree};
use super::like::LikeForLike;
use super::representatives::representative_manifest;
use super::{Decision, DecisionCause};
use crate::files::{ARTIFACTS_DIR, DECISION_FILE, KERNEL_DIR, MANIFEST_FILE, VALIDATIONS_JSONL};
use crate::fsutil::{append_line, remove_dir_if_exists, rename, write_atomic, write_json_atomic};
use crate::types::DecisionKind;
use crate::{Error, Result};

/// The steps after the BASELINE round is committed; idempotent, so recovery can redo them.
pub(super) fn finish_baseline(c: &Campaign, representative: &[String]) -> Result<()> {
    if c.manifest.representative_shapes.as_slice() != representative {
        let text = representative_manifest(&c.dir, representative)?;
        write_atomic(&c.dir.join(MANIFEST_FILE), text.as_bytes())?;
    }
    let reopened = Campaign::open(&c.dir)?;
    super::records::on_baseline(&reopened)?;
    if let Some(hash) = reopened.decision(1)?.and_then(|d| d.git_commit) {
        let journaled = reopened
            .read_journal()?
            .iter()
            .any(|e| e.event == "git_commit" && e.round == Some(1));
        if !journaled {
            reopened.journal("git_commit", Some(1), json!({"commit": hash}))?;
        }
    }
    reopened.journal(
        "baseline_done",
        Some(1),
        json!({"representative_shapes": representative}),
    )?;
    Ok(())
}

/// The staging paths of a round's validation. The order of the swap is what recovery
/// relies on to find the previous or the next state after a kill at any step:
///
/// 1. `kernel/` → `.kernel.old`, 2. `.kernel.tmp` → `kernel/`,
/// 3. `artifacts/` → `.artifacts.old`, 4. `.artifacts.tmp` → `artifacts/` (the commit),
/// 5. `validations.jsonl` and the journal ([`finish_validation`]), 6. the `.old` copies go.
///
/// While `.artifacts.tmp` exists nothing is committed and [`Staging::recover`] puts the
/// previous snapshot back; once it is gone the validation stands and is finished.
pub(super) struct Staging {
    kernel: PathBuf,
    artifacts: PathBuf,
    pub(super) kernel_tmp: PathBuf,
    pub(super) artifacts_tmp: PathBuf,
    kernel_old: PathBuf,
    artifacts_old: PathBuf,
}

impl Staging {
    pub(super) fn of(rdir: &Path) -> Staging {
        Staging {
            kernel: rdir.join(KERNEL_DIR),
            artifacts: rdir.join(ARTIFACTS_DIR),
            kernel_tmp: rdir.join(".kernel.tmp"),
            artifacts_tmp: rdir.join(".artifacts.tmp"),
            kernel_old: rdir.join(".kernel.old"),
            artifacts_old: rdir.join(".artifacts.old"),
        }
    }

    /// Staged copies that were never swapped in; the artifacts first (see above).
    pub(super) fn discard(&self) -> Result<()> {
        remove_dir_if_exists(&self.artifacts_tmp)?;
        remove_dir_if_exists(&self.kernel_tmp)
    }

    pub(super) fn commit(&self) -> Result<()> {
        if exists(&self.kernel) {
            rename(&self.kernel, &self.kernel_old)?;
        }
        rename(&self.kernel_tmp, &self.kernel)?;
        if exists(&self.artifacts) {
            rename(&self.artifacts, &self.artifacts_old)?;
        }
        rename(&self.artifacts_tmp, &self.artifacts)
    }

    pub(super) fn drop_previous(&self) -> Result<()> {
        remove_dir_if_exists(&self.kernel_old)?;
        remove_dir_if_exists(&self.artifacts_old)
    }

    /// After a kill: back to the previous validation when the commit did not happen, else
    /// finish the committed one (and commit it under the validation's own message). Returns
    /// what was done, if anything.
    pub(super) fn recover(&self, c: &Campaign, round: u32) -> Result<Option<String>> {
        if exists(&self.artifacts_tmp) {
            if !exists(&self.kernel_tmp) {
                // Step 2 happened: kernel/ is the new, uncommitted snapshot.
                remove_dir_if_exists(&self.kernel)?;
            }
            if !exists(&self.kernel) && exists(&self.kernel_old) {
                rename(&self.kernel_old, &self.kernel)?;
            }
            if !exists(&self.artifacts) && exists(&self.artifacts_old) {
                rename(&self.artifacts_old, &self.artifacts)?;
            }
            self.discard()?;
            self.drop_previous()?;
            return Ok(Some(format!(
                "undid an interrupted validation of round {round}: its previous validation stands"
            )));
        }
        // A kill while the kernel was being copied: nothing was measured.
        remove_dir_if_exists(&self.kernel_tmp)?;
        let finished = c.decision(round)?.is_none() && finish_validation(c, round)?;
        self.drop_previous()?;
        if !finished {
            return Ok(None);
        }
        if let Some(record) = read_gate_record(c, round)? {
            git::commit_step(c, Some(round), &validation_subject(&record))?;
        }
        Ok(Some(format!(
            "completed the interrupted validation of round {round}"
        )))
    }
}

fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// The commit message of a validation: `round 3: quick validation REJECT -4.10%`.
pub(super) fn validation_subject(record: &super::GateRecord) -> String {
    git::subject(
        record.round,
        &format!(
            "{} validation {} {}",
            record.validation.as_str(),
            record.report.verdict.as_str(),
            record
                .report
                .aggregate
                .delta
                .map_or_else(|| "(no shape passed)".to_owned(), crate::units::change)
        ),
    )
}

/// The steps after a validation's commit: its line in `validations.jsonl` and its
/// `validated` journal entry, each written unless already there (keyed by the gate
/// record's time), so recovery can redo them. Returns whether anything was written.
pub(super) fn finish_validation(c: &Campaign, round: u32) -> Result<bool> {
    let Some(record) = read_gate_record(c, round)? else {
        return Ok(false);
    };
    let rdir = c.round_dir(round);
    let mut wrote = false;
    if !read_validation_log(&rdir)?
        .iter()
        .any(|h| h.time == record.time)
    {
        let log = ValidationLog {
            time: record.time,
            validation: record.validation,
            kernel_hash: record.kernel_hash.clone(),
            raw_verdict: record.raw_verdict.unwrap_or(record.report.verdict),
            aggregate_delta: record.report.aggregate.delta,
            // A run whose blocks disagreed measured no gain to count again.
            comparable: !record.report.aggregate.unstable
                && record
                    .like_for_like
                    .as_ref()
                    .is_none_or(LikeForLike::comparable),
            csv_hash: record.csv_hash.clone(),
            floored: record.unfloored.is_none(),
        };
        append_line(
            &rdir.join(VALIDATIONS_JSONL),
            &serde_json::to_string(&log).map_err(|e| Error::Internal(e.to_string()))?,
        )?;
        wrote = true;
    }
    let time = json!(record.time);
    let journaled = c.read_journal()?.iter().any(|e| {
        e.event == "validated" && e.round == Some(round) && e.detail.get("time") == Some(&time)
    });
    if !journaled {
        c.journal(
            "validated",
            Some(round),
            json!({
                "validation": record.validation,
                "verdict": record.report.verdict,
                "aggregate_delta": record.report.aggregate.delta,
                "origin": record.origin,
                "time": time,
            }),
        )?;
        wrote = true;
    }
    Ok(wrote)
}

/// The first of a decision's two commits (see `git.rs`): the round's kernel and
/// measurements as decided. Its hash is what the decision, the journal and the record name.
pub(super) fn decision_commit(
    c: &Campaign,
    round: u32,
    what: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<String>> {
    git::commit_or_journal(c, Some(round), &git::subject(round, what), true, warnings)
}

pub(super) fn write_rollback_decision(
    c: &Campaign,
    round: u32,
    incumbent: u32,
    reason: &str,
    cause: DecisionCause,
    warnings: &mut Vec<String>,
) -> Result<Decision> {
    if let Some(existing) = c.decision(round)? {
        return Ok(existing);
    }
    let record = read_gate_record(c, round)?;
    // What the round's snapshot holds as it is decided (a round rolled back before it was
    // validated has none).
    let snapshot = c.round_dir(round).join(KERNEL_DIR);
    let (kernel_hash, kernel_files) = if snapshot.is_dir() {
        (
            Some(super::layout::tree_hash(&snapshot)?),
            Some(super::snapshot::file_hashes(&snapshot)?),
        )
    } else {
        (None, None)
    };
    // The restored kernel/ and the round's measurements, committed before the decision
    // that names the commit.
    let git_commit = decision_commit(
        c,
        round,
        &format!(
            "ROLLED_BACK to round {incumbent} ({reason}): {}",
            c.hypothesis(round).unwrap_or_default()
        ),
        warnings,
    )?;
    let decision = Decision {
        round,
        decision: DecisionKind::RolledBack,
        parent: Some(incumbent),
        verdict: record.as_ref().map(|r| r.report.verdict),
        validation: record.as_ref().map(|r| r.validation),
        aggregate: record.as_ref().and_then(|r| r.report.aggregate.candidate),
        aggregate_delta: record.as_ref().and_then(|r| r.report.aggregate.delta),
        reason: Some(reason.to_owned()),
        cause: Some(cause),
        forced: false,
        time: Utc::now(),
        git_commit,
        gate: record.map(|r| r.report),
        kernel_hash,
        kernel_files,
        kernel_key: super::ledger::snapshot_key(&c.round_dir(round))?,
    };
    write_json_atomic(&c.round_dir(round).join(DECISION_FILE), &decision)?;
    Ok(decision)
}

/// A rollback of `round` to `incumbent` from its first step: `rollback_begin`, the restore
/// of `kernel/`, the decision and its finishing steps. The command runs it, and recovery
/// runs it for an overturned quick ACCEPT whose rollback a kill prevented.
pub(super) fn roll_back(
    c: &Campaign,
    round: u32,
    incumbent: u32,
    reason: &str,
    cause: DecisionCause,
    warnings: &mut Vec<String>,
) -> Result<Decision> {
    c.journal(
        "rollback_begin",
        Some(round),
        json!({"incumbent": incumbent, "reason": reason, "cause": cause}),
    )?;
    super::fail_point("rollback:after_begin");
    restore_kernel(c, incumbent)?;
    super::fail_point("rollback:after_restore");
    let decision = write_rollback_decision(c, round, incumbent, reason, cause, warnings)?;
    warnings.extend(finish_decision(c, round, "rollback")?);
    Ok(decision)
}

/// The reason of the rollback an overturned quick ACCEPT makes: the confirming full
/// validation's verdict and its deciding reason.
pub(super) fn overturn_reason(record: &super::GateRecord) -> String {
    format!(
        "the full validation overturned the quick ACCEPT: {} ({})",
        record.report.verdict.as_str(),
        record
            .report
            .reasons
            .iter()
            .find(|r| r.kind.decides())
            .map_or("", |r| r.text.as_str())
    )
}

/// After the decision file: the iteration record, the journal, and the commit of both
/// (the decision's second commit). Idempotent, so recovery can redo it.
pub(super) fn finish_decision(c: &Campaign, round: u32, kind: &str) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    // The held-out check staged before the decision: recorded now that it is made.
    super::held_out::commit_round(c, round)?;
    super::records::on_decision(c, round)?;
    super::fail_point(&format!("{kind}:before_done"));
    let decision = c.decision(round)?;
    if let Some(hash) = decision.as_ref().and_then(|d| d.git_commit.as_deref()) {
        let journaled = c.read_journal()?.iter().any(|e| {
            e.event == "git_commit"
                && e.round == Some(round)
                && e.detail.get("commit").and_then(|v| v.as_str()) == Some(hash)
        });
        if !journaled {
            c.journal("git_commit", Some(round), json!({"commit": hash}))?;
        }
    }
    c.journal(&format!("{kind}_done"), Some(round), json!({}))?;
    if let Some(d) = decision.filter(|d| d.git_commit.is_some()) {
        let what = format!(
            "{} recorded (decision.json, memory record, journal)",
            d.decision.as_str()
        );
        git::commit_or_journal(
            c,
            Some(round),
            &git::subject(round, &what),
            false,
            &mut warnings,
        )?;
    }
    Ok(warnings)
}

/// Restore `kernel/` from the incumbent's snapshot exactly (files added since are gone).
/// Copy first, then swap by renames, so a crash leaves either tree whole.
pub(super) fn restore_kernel(c: &Campaign, incumbent: u32) -> Result<()> {
    let snapshot = c.round_dir(incumbent).join(KERNEL_DIR);
    // What is restored is what the incumbent was decided on, or nothing.
    super::snapshot::verify(c, incumbent)?;
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
