//! `kcamp repair`: fixes what readers read around and what writers refuse: a malformed
//! journal line, an unreadable decision or iteration record, a decided round's kernel
//! snapshot that differs from what its decision recorded. Each is rebuilt from the git
//! history (HEAD, where the campaign commits its steps) or from the other records; what
//! neither says for certain is refused, naming the file and what to do by hand. Then the
//! interrupted steps are recovered as by any writing command.
//!
//! With `dry_run`, nothing is written and no lock is taken: what would be done, for
//! `status` and `log` to say.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use super::gate_record::read_gate_record;
use super::layout::{Campaign, JournalRead, read_decision, read_journal, tree_hash};
use super::{Decision, JournalEntry};
use crate::files::{BENCHMARK_CSV, DECISION_FILE, JOURNAL_FILE, KERNEL_DIR, MEMORY_DIR};
use crate::fsutil::{create_dir_all, remove_dir_if_exists, rename, write_atomic};
use crate::memory::{MemoryStore, Version};
use crate::schema::BenchTable;
use crate::types::{DecisionKind, Validation};
use crate::{Error, Result};

/// What `kcamp repair` did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RepairOutcome {
    /// One sentence per file fixed, naming it and where its content came from.
    pub repaired: Vec<String>,
    /// One sentence per file it would not fix, naming it and why, with what to do.
    pub refused: Vec<String>,
    /// What recovery of interrupted steps did afterwards.
    pub recovered: Vec<String>,
}

/// Repair the campaign at `c` (see the module docs).
pub fn repair(c: &Campaign, dry_run: bool) -> Result<RepairOutcome> {
    let _lock = if dry_run {
        None
    } else {
        Some(c.lock("kcamp repair")?)
    };
    let mut out = RepairOutcome::default();
    let journal = repair_journal(c, dry_run, &mut out)?;
    let entries = journal.entries;
    let rounds = c.round_numbers()?;
    for &n in &rounds {
        repair_decision(c, n, &entries, dry_run, &mut out)?;
    }
    for &n in &rounds {
        repair_snapshot(c, n, dry_run, &mut out)?;
    }
    repair_records(c, dry_run, &mut out)?;
    if dry_run || !out.refused.is_empty() {
        return Ok(out);
    }
    // Whatever a kill interrupted: now that every record reads, recovery can finish it.
    let reopened = Campaign::open(&c.dir)?;
    out.recovered = super::recover(&reopened)?.actions;
    if !out.repaired.is_empty() {
        reopened.journal(
            "repaired",
            None,
            json!({"repaired": out.repaired, "recovered": out.recovered}),
        )?;
        super::git::commit_step(
            &reopened,
            None,
            &format!("repair: {} file(s) rebuilt", out.repaired.len()),
        )?;
    }
    Ok(out)
}

/// Where a repaired file's damaged copy is kept: `<file>.bad` beside it.
fn bad_copy(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bad");
    path.with_file_name(name)
}

fn rel(c: &Campaign, p: &Path) -> String {
    p.strip_prefix(&c.dir).unwrap_or(p).display().to_string()
}

/// Malformed journal lines: HEAD's line where HEAD's journal agrees up to it, else set aside
/// (`journal.jsonl.bad`), unless it may be the beginning of a step, whose loss would change
/// what recovery does: that one is refused.
fn repair_journal(c: &Campaign, dry_run: bool, out: &mut RepairOutcome) -> Result<JournalRead> {
    let path = c.dir.join(JOURNAL_FILE);
    let read = read_journal(&c.dir)?;
    if read.malformed.is_empty() {
        return Ok(read);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let mut lines: Vec<Option<String>> = text.lines().map(|l| Some(l.to_owned())).collect();
    let head =
        super::git::show_head(c, JOURNAL_FILE).map(|b| String::from_utf8_lossy(&b).into_owned());
    let head_lines: Vec<&str> = head
        .as_deref()
        .map(|h| h.lines().collect())
        .unwrap_or_default();
    let mut set_aside = Vec::new();
    let mut refused = false;
    for bad in &read.malformed {
        let i = (bad.line - 1) as usize;
        let agrees = head_lines.len() > i
            && lines[..i]
                .iter()
                .zip(&head_lines)
                .all(|(now, then)| now.as_deref() == Some(*then))
            && serde_json::from_str::<JournalEntry>(head_lines[i]).is_ok();
        if agrees {
            lines[i] = Some(head_lines[i].to_owned());
            out.repaired.push(format!(
                "{}:{}: the malformed line is replaced by the same line of the journal committed in git (HEAD)",
                rel(c, &path),
                bad.line
            ));
        } else if bad.text.contains("_begin") {
            refused = true;
            out.refused.push(format!(
                "{}:{}: a malformed line that may be the beginning of a step ({}), and git has no copy of it: whether that step finished cannot be told. Make the line one JSON object again (or delete it if the step is complete) and run `kcamp repair` again",
                rel(c, &path),
                bad.line,
                crate::text::quote(&bad.text, 80)
            ));
        } else {
            set_aside.push(bad.text.clone());
            lines[i] = None;
            out.repaired.push(format!(
                "{}:{}: the malformed line ({}) is no step's beginning: set aside in {}",
                rel(c, &path),
                bad.line,
                bad.error,
                rel(c, &bad_copy(&path))
            ));
        }
    }
    if dry_run || refused {
        return Ok(read);
    }
    if !set_aside.is_empty() {
        let bad = bad_copy(&path);
        for l in &set_aside {
            crate::fsutil::append_line(&bad, l)?;
        }
    }
    let mut fixed: String = lines.into_iter().flatten().map(|l| l + "\n").collect();
    // A torn last line stays for the next writer to set aside, as always.
    if let Some((_, torn)) = text.rsplit_once('\n').filter(|(_, t)| !t.is_empty()) {
        fixed.push_str(torn);
    }
    write_atomic(&path, fixed.as_bytes())?;
    c.journal(
        "journal_repaired",
        None,
        json!({"lines": read.malformed.iter().map(|m| m.line).collect::<Vec<_>>()}),
    )?;
    read_journal(&c.dir)
}

/// An unreadable `decision.json`: HEAD's copy, else rebuilt from the journal's record of the
/// decision and the round's gate record; else refused.
fn repair_decision(
    c: &Campaign,
    round: u32,
    journal: &[JournalEntry],
    dry_run: bool,
    out: &mut RepairOutcome,
) -> Result<()> {
    let rdir = c.round_dir(round);
    let path = rdir.join(DECISION_FILE);
    let problem = match read_decision(&rdir) {
        Ok(_) => return Ok(()),
        Err(e) if matches!(e.cause(), Error::InFile { .. }) => e.to_string(),
        Err(e) => return Err(e),
    };
    let from_git = super::git::show_head(c, &rel(c, &path))
        .filter(|b| serde_json::from_slice::<Decision>(b).is_ok());
    let (bytes, source) = match from_git {
        Some(b) => (b, "its copy committed in git (HEAD)".to_owned()),
        None => match rebuild_decision(c, round, journal)? {
            Ok((d, why)) => {
                let mut text = serde_json::to_string_pretty(&d)
                    .map_err(|e| Error::Internal(format!("serializing a decision: {e}")))?;
                text.push('\n');
                (text.into_bytes(), why)
            }
            Err(why) => {
                out.refused.push(format!(
                    "{}: {problem}; {why}. Restore it by hand (from a backup), or remove round {round} if it was never decided",
                    rel(c, &path)
                ));
                return Ok(());
            }
        },
    };
    let present = path.symlink_metadata().is_ok();
    out.repaired.push(if present {
        format!(
            "{}: unreadable; rebuilt from {source} (the damaged copy is kept as {})",
            rel(c, &path),
            rel(c, &bad_copy(&path))
        )
    } else {
        format!("{}: missing; rebuilt from {source}", rel(c, &path))
    });
    if !dry_run {
        if present {
            rename(&path, &bad_copy(&path))?;
        }
        write_atomic(&path, &bytes)?;
    }
    Ok(())
}

/// A decision from the journal's `*_done` entry for `round` and the round's gate record;
/// `Err(why)` when they do not say what was decided.
fn rebuild_decision(
    c: &Campaign,
    round: u32,
    journal: &[JournalEntry],
) -> Result<std::result::Result<(Decision, String), String>> {
    let last = |event: &str| {
        journal
            .iter()
            .rev()
            .find(|e| e.event == event && e.round == Some(round))
    };
    let git_commit = last("git_commit")
        .and_then(|e| e.detail.get("commit"))
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let gate = read_gate_record(c, round)?;
    let base = |kind: DecisionKind, time| Decision {
        round,
        decision: kind,
        parent: None,
        verdict: gate.as_ref().map(|g| g.report.verdict),
        validation: gate.as_ref().map(|g| g.validation),
        aggregate: gate.as_ref().and_then(|g| g.report.aggregate.candidate),
        aggregate_delta: gate.as_ref().and_then(|g| g.report.aggregate.delta),
        reason: None,
        cause: None,
        forced: false,
        time,
        git_commit: git_commit.clone(),
        gate: gate.as_ref().map(|g| g.report.clone()),
        kernel_hash: None,
        kernel_files: None,
        // Normalised (comments and whitespace aside): what the ledger compares kernels by.
        kernel_key: super::ledger::snapshot_key(&c.round_dir(round))
            .ok()
            .flatten(),
    };
    if round == 1
        && let Some(done) = last("baseline_done")
    {
        let table = BenchTable::read(&c.artifacts_dir(1).join(BENCHMARK_CSV))?;
        let mut d = base(DecisionKind::Baseline, done.time);
        d.verdict = None;
        d.gate = None;
        d.aggregate_delta = None;
        d.validation = Some(Validation::Full);
        d.aggregate = table.aggregate(&c.manifest.primary_metric);
        return Ok(Ok((
            d,
            "the journal (baseline_done) and round 1's benchmark.csv".to_owned(),
        )));
    }
    if let Some(done) = last("accept_done") {
        let Some(g) = &gate else {
            return Ok(Err(
                "the journal says it was accepted, but its gate record (artifacts/gate.json) is gone, so its verdict and numbers are not known".into(),
            ));
        };
        let begin = last("accept_begin");
        let mut d = base(DecisionKind::Accepted, done.time);
        d.parent = begin
            .and_then(|b| b.detail.get("parent"))
            .and_then(|v| v.as_u64())
            .map(|p| p as u32)
            .or(Some(g.incumbent));
        d.forced = begin
            .and_then(|b| b.detail.get("forced"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        // Accept refused a snapshot that differed from the gate record's kernel.
        d.kernel_hash = Some(g.kernel_hash.clone());
        return Ok(Ok((
            d,
            "the journal (accept_begin, accept_done) and the round's gate record".to_owned(),
        )));
    }
    if let Some(done) = last("rollback_done") {
        let begin = last("rollback_begin");
        let mut d = base(DecisionKind::RolledBack, done.time);
        d.parent = begin
            .and_then(|b| b.detail.get("incumbent"))
            .and_then(|v| v.as_u64())
            .map(|p| p as u32);
        d.reason = begin
            .and_then(|b| b.detail.get("reason"))
            .and_then(|v| v.as_str())
            .map(str::to_owned);
        return Ok(Ok((
            d,
            "the journal (rollback_begin, rollback_done) and the round's gate record".to_owned(),
        )));
    }
    Ok(Err(format!(
        "no copy in git and no decision of round {round} in the journal (baseline_done, accept_done or rollback_done): what was decided cannot be told"
    )))
}

/// A decided round's kernel snapshot that differs from what its decision recorded (or is
/// missing): rebuilt from HEAD, where a decided round is never changed, when HEAD's copy is
/// exactly what was recorded; else refused.
fn repair_snapshot(c: &Campaign, round: u32, dry_run: bool, out: &mut RepairOutcome) -> Result<()> {
    let Ok(Some(_)) = c.decision(round) else {
        return Ok(());
    };
    let Err(problem) = super::snapshot::verify(c, round) else {
        return Ok(());
    };
    let snapshot = c.round_dir(round).join(KERNEL_DIR);
    let recorded = super::snapshot::recorded(c, round)?;
    let prefix = format!("{}/", rel(c, &snapshot));
    let staging = c.round_dir(round).join(".kernel.repair.tmp");
    let restored = match super::git::files_in_head(c, &rel(c, &snapshot)) {
        Some(files) if !dry_run => {
            remove_dir_if_exists(&staging)?;
            for f in &files {
                let Some(inner) = f.strip_prefix(&prefix) else {
                    continue;
                };
                let Some(bytes) = super::git::show_head(c, f) else {
                    continue;
                };
                let dest = staging.join(inner);
                if let Some(parent) = dest.parent() {
                    create_dir_all(parent)?;
                }
                write_atomic(&dest, &bytes)?;
            }
            create_dir_all(&staging)?;
            let hash = tree_hash(&staging)?;
            recorded.as_ref().is_none_or(|r| r.tree == hash)
        }
        // Dry: git's copy is taken on trust here and checked when it is rebuilt.
        Some(_) => true,
        None => false,
    };
    if !restored {
        let _ = std::fs::remove_dir_all(&staging);
        out.refused.push(format!(
            "{problem} — and git has no copy of the snapshot as it was decided, so kcamp cannot restore it: put the files back as they were"
        ));
        return Ok(());
    }
    out.repaired.push(format!(
        "{}: differed from what round {round}'s decision recorded; restored from the commit that recorded it (HEAD)",
        rel(c, &snapshot)
    ));
    if !dry_run {
        remove_dir_if_exists(&snapshot)?;
        rename(&staging, &snapshot)?;
    }
    Ok(())
}

/// Iteration records that do not read: HEAD's copy when it reads, else rebuilt by the
/// round's decision (what kcamp fills; fields set by hand are in the `.bad` copy); else
/// refused.
fn repair_records(c: &Campaign, dry_run: bool, out: &mut RepairOutcome) -> Result<()> {
    let store = MemoryStore::new(&c.dir)?;
    let broken = store.list_all()?.broken;
    for b in broken {
        let Some(version) = b
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<Version>().ok())
        else {
            continue;
        };
        let round = version.round();
        let relpath = format!("{MEMORY_DIR}/{}", version.file_name());
        let git_copy =
            super::git::show_head(c, &relpath).filter(|bytes| store.reads_as(version, bytes));
        let decided = matches!(c.decision(round), Ok(Some(_)));
        let source = match (&git_copy, decided) {
            (Some(_), _) => "its copy committed in git (HEAD)",
            (None, true) => {
                "round's decision and measurements (fields set by hand with `kcamp memory` are only in the damaged copy)"
            }
            (None, false) => {
                out.refused.push(format!(
                    "{}: {}; git has no readable copy and round {round} is not decided, so nothing says what it held. Fix it by hand (`kcamp memory show {version}` names the field)",
                    rel(c, &b.path),
                    crate::text::quote(&b.error, 200)
                ));
                continue;
            }
        };
        out.repaired.push(format!(
            "{}: unreadable; rebuilt from the {source} (the damaged copy is kept as {})",
            rel(c, &b.path),
            rel(c, &bad_copy(&b.path))
        ));
        if dry_run {
            continue;
        }
        rename(&b.path, &bad_copy(&b.path))?;
        match git_copy {
            Some(bytes) => write_atomic(&b.path, &bytes)?,
            None if round == 1 => super::records::on_baseline(c)?,
            None => super::records::on_decision(c, round)?,
        }
    }
    Ok(())
}
