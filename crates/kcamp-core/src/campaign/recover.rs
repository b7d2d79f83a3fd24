//! Recovery: puts back the previous state or completes the next one after a process was
//! killed at any step of a writing command, and clears what a dead run left behind.
//! Recovery restores rather than deletes: a copy is removed only once its replacement is
//! in place. It completes a step through that step's finishing code (`finish.rs`), never
//! through the command itself, which calls recovery first.

use std::path::PathBuf;

use serde_json::json;

use super::finish::{
    Staging, finish_baseline, finish_decision, overturn_reason, restore_kernel, roll_back,
    write_rollback_decision,
};
use super::gate_record::read_gate_record;
use super::layout::Campaign;
use super::representatives::choose_representatives;
use super::{DecisionCause, JournalEntry};
use crate::files::{BENCHMARK_CSV, DECISION_FILE, FROZEN_HEADER_FILE, MEMORY_DIR, ROUNDS_DIR};
use crate::fsutil::{
    TMP_PREFIX, remove_dir_if_exists, remove_file_if_exists, rename, write_atomic,
};
use crate::schema::BenchTable;
use crate::types::Validation;
use crate::{Error, Result};

/// What [`recover`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// One sentence per action, also journaled as `recovered`.
    pub actions: Vec<String>,
    /// Decisions an interrupted `accept` or `rollback` had begun and recovery completed:
    /// (`"accept"` or `"rollback"`, round). A retried command reports these as its own.
    pub completed: Vec<(&'static str, u32)>,
}

/// Complete or undo whatever an earlier process left half-done (killed between steps),
/// and clear staging left by dead runs. Called with the lock held by every writing
/// command.
pub fn recover(c: &Campaign) -> Result<Recovery> {
    let mut out = Recovery::default();
    // Commits a failing git skipped, under their own steps' messages, before anything else
    // changes the tree.
    out.actions.extend(super::git::catch_up(c)?);
    // Validations first: completing a decision reads the round's committed artifacts.
    for n in c.round_numbers()? {
        if let Some(action) = Staging::of(&c.round_dir(n)).recover(c, n)? {
            out.actions.push(action);
        }
    }
    let journal = c.read_journal()?;
    let mut open: Vec<(&str, Option<u32>)> = Vec::new();
    let mut confirming: Vec<u32> = Vec::new();
    for e in &journal {
        let (base, phase) = match e.event.rsplit_once('_') {
            Some((b, p)) if matches!(p, "begin" | "done" | "aborted") => (b, p),
            _ => continue,
        };
        open.retain(|(b, r)| !(*b == base && *r == e.round));
        if phase == "begin" {
            open.push((base, e.round));
        }
    }
    for (base, round) in open {
        let Some(round) = round else { continue };
        match base {
            "baseline" => {
                if c.round_dir(1).join(DECISION_FILE).is_file() {
                    let reps = c.manifest.representative_shapes.clone();
                    let table = BenchTable::read(&c.artifacts_dir(1).join(BENCHMARK_CSV))?;
                    let mut warnings = Vec::new();
                    let reps = if reps.is_empty() {
                        choose_representatives(c, &table, &mut warnings)
                    } else {
                        reps
                    };
                    if c.frozen_header()?.is_none() {
                        write_atomic(
                            &c.dir.join(FROZEN_HEADER_FILE),
                            format!("{}\n", table.schema.header()).as_bytes(),
                        )?;
                    }
                    finish_baseline(c, &reps)?;
                    out.completed.push(("baseline", 1));
                    out.actions
                        .push("completed an interrupted BASELINE".to_owned());
                    // Committed as the step it completes, not as the command that found it.
                    super::git::commit_or_journal(
                        &Campaign::open(&c.dir)?,
                        Some(1),
                        &super::git::subject(1, "BASELINE recorded"),
                        false,
                        &mut out.actions,
                    )?;
                } else {
                    // Back to before the BASELINE: no round, no frozen header.
                    remove_dir_if_exists(&c.rounds_dir().join(".round-1.tmp"))?;
                    remove_file_if_exists(&c.dir.join(FROZEN_HEADER_FILE))?;
                    c.journal("baseline_aborted", Some(round), json!({"recovered": true}))?;
                    out.actions
                        .push("undid an interrupted BASELINE (nothing was recorded)".to_owned());
                }
            }
            "accept" => {
                if c.round_dir(round).join(DECISION_FILE).is_file() {
                    finish_decision(c, round, "accept")?;
                    out.completed.push(("accept", round));
                    out.actions
                        .push(format!("completed the interrupted accept of round {round}"));
                } else {
                    c.journal("accept_aborted", Some(round), json!({"recovered": true}))?;
                    out.actions.push(format!(
                        "undid the interrupted accept of round {round}: it is open again"
                    ));
                }
            }
            "rollback" => {
                let begin = journal
                    .iter()
                    .rev()
                    .find(|e| e.event == "rollback_begin" && e.round == Some(round))
                    .cloned();
                let reason = begin
                    .as_ref()
                    .and_then(|e| e.detail.get("reason"))
                    .and_then(|r| r.as_str())
                    .unwrap_or("interrupted rollback")
                    .to_owned();
                let incumbent = match begin
                    .as_ref()
                    .and_then(|e| e.detail.get("incumbent"))
                    .and_then(|v| v.as_u64())
                {
                    Some(n) => n as u32,
                    None => c
                        .incumbent()?
                        .ok_or_else(|| Error::State("no incumbent to roll back to".into()))?,
                };
                // The cause the rollback began with (a journal written before causes were
                // kept: what the round's verdict says).
                let cause = begin
                    .as_ref()
                    .and_then(|e| e.detail.get("cause"))
                    .and_then(|v| serde_json::from_value(v.clone()).ok())
                    .map_or_else(
                        || {
                            read_gate_record(c, round)
                                .map(|r| DecisionCause::of_rollback(r.map(|r| r.report.verdict)))
                        },
                        Ok,
                    )?;
                restore_kernel(c, incumbent)?;
                let mut warnings = Vec::new();
                write_rollback_decision(c, round, incumbent, &reason, cause, &mut warnings)?;
                warnings.extend(finish_decision(c, round, "rollback")?);
                out.completed.push(("rollback", round));
                out.actions.push(format!(
                    "completed the interrupted rollback of round {round}"
                ));
                out.actions.extend(warnings);
            }
            "accept_confirm" => confirming.push(round),
            _ => {}
        }
    }
    // After the decisions above: an accept killed between its confirming full validation
    // and the end of what that validation decided.
    for round in confirming {
        confirm_recovered(c, &journal, round, &mut out)?;
    }
    if let Some(round) = unjournaled_open_round(c, &journal)? {
        // A `round new` killed after its round appeared and before it was journaled.
        let hypothesis = c.hypothesis(round).unwrap_or_default();
        c.journal(
            "round_opened",
            Some(round),
            json!({"hypothesis": hypothesis, "recovered": true}),
        )?;
        super::git::commit_or_journal(
            c,
            Some(round),
            &super::git::subject(round, &format!("opened: {hypothesis}")),
            false,
            &mut out.actions,
        )?;
        out.actions
            .push(format!("journaled the opening of round {round}"));
    }
    // Held-out checks a kill interrupted: recorded where their decision was made, dropped
    // where it was not (after the decisions above, which record their own).
    out.actions.extend(super::held_out::recover(c)?);
    // The working kernel: a kill between the two renames of a restore left it in
    // `.kernel.old`; put it back rather than lose the user's files.
    let kernel = c.kernel_dir();
    let kernel_old = c.dir.join(".kernel.old");
    if !kernel.exists() && kernel_old.is_dir() {
        rename(&kernel_old, &kernel)?;
        out.actions
            .push("put kernel/ back from .kernel.old (a restore was interrupted)".to_owned());
    }
    remove_dir_if_exists(&c.dir.join(".kernel.restore.tmp"))?;
    if kernel.exists() {
        remove_dir_if_exists(&kernel_old)?;
    } else if let Some(inc) = c.incumbent()? {
        // Lost altogether: the working kernel only ever changes by restore or by the user.
        restore_kernel(c, inc)?;
        out.actions
            .push(format!("restored kernel/ from round {inc}"));
    }
    // Round directories staged by a command that died before renaming them into place.
    let mut stray: Vec<PathBuf> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(c.rounds_dir()) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".round-") && name.ends_with(".tmp") {
                stray.push(e.path());
            }
        }
    }
    for p in stray {
        remove_dir_if_exists(&p)?;
    }
    remove_stray_temp_files(c)?;
    if !out.actions.is_empty() {
        c.journal("recovered", None, json!({"actions": out.actions}))?;
        // The steps recovery completed were committed under their own messages; what is
        // left (this entry, an undone step) is committed as the recovery it is, so the
        // tree is clean even when the command stops here.
        super::git::commit_step(
            c,
            None,
            &format!(
                "recovered: {}{}",
                out.actions[0],
                match out.actions.len() {
                    1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                }
            ),
        )?;
    }
    Ok(out)
}

/// An accept whose confirming full validation began (`accept_confirm_begin`) and did not
/// end: when that validation was recorded and overturned the quick ACCEPT, the round is
/// rolled back as the accept promised (and the retried accept reports it); otherwise the
/// accept stopped before deciding anything, and the round stays open.
fn confirm_recovered(
    c: &Campaign,
    journal: &[JournalEntry],
    round: u32,
    out: &mut Recovery,
) -> Result<()> {
    if c.decision(round)?.is_some() {
        // The rollback the accept began got that far: completed above, and the accept's
        // own outcome (a retried accept reports it).
        c.journal(
            "accept_confirm_done",
            Some(round),
            json!({"recovered": true}),
        )?;
        out.completed.push(("accept", round));
        return Ok(());
    }
    let began = journal
        .iter()
        .rev()
        .find(|e| e.event == "accept_confirm_begin" && e.round == Some(round))
        .map(|e| e.time);
    let overturned = read_gate_record(c, round)?.filter(|r| {
        r.validation == Validation::Full
            && began.is_some_and(|t| r.time >= t)
            && !r.report.verdict.allows_accept()
    });
    let Some(record) = overturned else {
        c.journal(
            "accept_confirm_aborted",
            Some(round),
            json!({"recovered": true}),
        )?;
        out.actions.push(format!(
            "the interrupted accept of round {round} had not decided anything: round {round} is open, and `kcamp accept` confirms it again"
        ));
        return Ok(());
    };
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no incumbent to roll back to".into()))?;
    let mut warnings = Vec::new();
    roll_back(
        c,
        round,
        incumbent,
        &overturn_reason(&record),
        DecisionCause::ConfirmationOverturned,
        &mut warnings,
    )?;
    c.journal(
        "accept_confirm_done",
        Some(round),
        json!({"recovered": true}),
    )?;
    out.completed.push(("accept", round));
    out.actions.push(format!(
        "completed the interrupted accept of round {round}: its confirming full validation overturned the quick ACCEPT, so the round is rolled back as that accept promised"
    ));
    out.actions.extend(warnings);
    Ok(())
}

/// The open round, when no `round_opened` entry names it.
fn unjournaled_open_round(c: &Campaign, journal: &[JournalEntry]) -> Result<Option<u32>> {
    let Some(open) = c.open_round()? else {
        return Ok(None);
    };
    let journaled = journal
        .iter()
        .any(|e| e.event == "round_opened" && e.round == Some(open));
    Ok((!journaled && open > 1).then_some(open))
}

/// Temp files of atomic writes that a killed process never renamed into place. With the
/// lock held no other writer can be mid-write.
pub fn remove_stray_temp_files(c: &Campaign) -> Result<()> {
    let mut dirs = vec![
        c.dir.clone(),
        c.dir.join(MEMORY_DIR),
        c.dir.join(ROUNDS_DIR),
        c.dir.join("live"),
        // The reports and their charts (kcamp-report writes them atomically too).
        c.dir.join(crate::files::REPORT_DIR),
        c.dir.join(super::FINAL_VALIDATION_DIR),
    ];
    for n in c.round_numbers()? {
        dirs.push(c.round_dir(n));
        dirs.push(c.artifacts_dir(n));
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(TMP_PREFIX)
                && e.file_type().is_ok_and(|t| t.is_file())
            {
                remove_file_if_exists(&e.path())?;
            }
        }
    }
    Ok(())
}
