//! Recovery: completes or undoes a decision that a killed process left half-done, and clears
//! staging directories.

use std::path::PathBuf;

use serde_json::json;

use super::baseline::{choose_representatives, finish_baseline};
use super::decide::{finish_decision, restore_kernel, write_rollback_decision};
use super::layout::Campaign;
use crate::files::{BENCHMARK_CSV, DECISION_FILE, FROZEN_HEADER_FILE};
use crate::fsutil::{remove_dir_if_exists, write_atomic};
use crate::schema::BenchTable;
use crate::{Error, Result};

/// Complete or undo a decision that an earlier process left half-done (killed between
/// steps), and clear staging directories. Called with the lock held by every writing
/// command. Returns what it did.
pub fn recover(c: &Campaign) -> Result<Vec<String>> {
    let mut done = Vec::new();
    let journal = c.read_journal()?;
    let mut open: Vec<(&str, Option<u32>)> = Vec::new();
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
                    done.push("completed an interrupted BASELINE".to_owned());
                } else {
                    c.journal("baseline_aborted", Some(round), json!({"recovered": true}))?;
                    done.push("undid an interrupted BASELINE (nothing was recorded)".to_owned());
                }
            }
            "accept" => {
                if c.round_dir(round).join(DECISION_FILE).is_file() {
                    finish_decision(c, round, "accept")?;
                    done.push(format!("completed the interrupted accept of round {round}"));
                } else {
                    c.journal("accept_aborted", Some(round), json!({"recovered": true}))?;
                    done.push(format!(
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
                restore_kernel(c, incumbent)?;
                write_rollback_decision(c, round, incumbent, &reason)?;
                finish_decision(c, round, "rollback")?;
                done.push(format!(
                    "completed the interrupted rollback of round {round}"
                ));
            }
            _ => {}
        }
    }
    // Staging left by a killed command is never part of the campaign.
    let mut stray: Vec<PathBuf> =
        vec![c.dir.join(".kernel.restore.tmp"), c.dir.join(".kernel.old")];
    if let Ok(entries) = std::fs::read_dir(c.rounds_dir()) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.ends_with(".tmp") {
                stray.push(e.path());
            } else if name.starts_with("round-") {
                for s in [
                    ".kernel.tmp",
                    ".artifacts.tmp",
                    ".kernel.old",
                    ".artifacts.old",
                ] {
                    stray.push(e.path().join(s));
                }
            }
        }
    }
    for p in stray {
        if p.exists() {
            remove_dir_if_exists(&p)?;
        }
    }
    // A lost kernel/ (killed between the two renames of a swap) comes back from the
    // incumbent: the working kernel only ever changes by restore or by the user.
    if !c.kernel_dir().exists()
        && let Some(inc) = c.incumbent()?
    {
        restore_kernel(c, inc)?;
        done.push(format!("restored kernel/ from round {inc}"));
    }
    if !done.is_empty() {
        c.journal("recovered", None, json!({"actions": done}))?;
    }
    Ok(done)
}
