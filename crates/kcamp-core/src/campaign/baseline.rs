//! BASELINE: the first full validation; freezes the CSV schema, picks the representative
//! shapes and records round 1.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

use super::Decision;
use super::finish::finish_baseline;
use super::git;
use super::layout::{Campaign, copy_tree, tree_hash};
use super::measure::{MeasureSource, Plan, abandon, measure};
use super::recover::recover;
use super::representatives::{choose_representatives, representative_manifest};
use super::snapshot::file_hashes;
use crate::artifacts::result::{RunResult, RunSummary, ShapeFailure, failures};
use crate::case::ProgressEvent;
use crate::files::{
    ARTIFACTS_DIR, BASELINE_REPORT, BENCHMARK_CSV, DECISION_FILE, FROZEN_HEADER_FILE,
    HYPOTHESIS_FILE, KERNEL_DIR, RESULT_JSON, RUNS_DIR,
};
use crate::fsutil::{remove_dir_if_exists, rename, write_atomic, write_json_atomic};
use crate::next::{Command, NextStep};
use crate::schema::{BenchTable, ShapeKey};
use crate::types::{Check, DecisionKind, Validation};
use crate::{Error, Result};

#[derive(Debug, Clone, Serialize)]
pub struct BaselineOutcome {
    pub round: u32,
    pub validation: Validation,
    pub shapes: usize,
    pub passed: usize,
    pub all_pass: bool,
    pub metric: String,
    pub aggregate: Option<f64>,
    pub representative_shapes: Vec<String>,
    /// Shapes that did not PASS, with their Check and the reason the run recorded.
    pub failures: Vec<ShapeFailure>,
    /// What the run's `RESULT_JSON` line carries.
    pub summary: RunSummary,
    pub warnings: Vec<String>,
    pub origin: String,
    /// `baseline_report.md`, when it was written.
    pub baseline_report: Option<PathBuf>,
}

/// `render` writes what a person reads about the baseline (`baseline_report.md`) under the
/// lock, before the step is committed, and returns warnings for the parts it skipped (a
/// chart); its failure is a warning naming the report, never a lost baseline.
pub fn baseline(
    c: &Campaign,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
    render: impl FnOnce(&Campaign) -> Result<Vec<String>>,
) -> Result<BaselineOutcome> {
    // A refused import changes nothing, not even the lock file's time: checked first, and
    // again under the lock.
    if let MeasureSource::Csv(path) = source
        && c.round_numbers()?.is_empty()
    {
        check_baseline_table(c, &BenchTable::read(path)?)?;
    }
    let _lock = c.lock("kcamp baseline")?;
    let recovery = recover(c)?;
    if !c.round_numbers()?.is_empty() {
        // A retried BASELINE whose first attempt died after round 1 was recorded: before
        // its decision was complete (recovery finished it) or before its report was written
        // (the report is written last, so its absence says so).
        let report_missing = c.round_numbers()? == [1] && !c.dir.join(BASELINE_REPORT).exists();
        if report_missing || recovery.completed.iter().any(|(k, _)| *k == "baseline") {
            let mut out = recorded_outcome(c)?;
            out.baseline_report =
                render_and_commit(&Campaign::open(&c.dir)?, render, &mut out.warnings)?;
            return Ok(out);
        }
        return Err(Error::state(
            format!(
                "{}: BASELINE is already recorded as round 1.",
                c.dir.display()
            ),
            vec![NextStep::new_round()],
        ));
    }
    let staging = c.rounds_dir().join(".round-1.tmp");
    remove_dir_if_exists(&staging)?;
    copy_tree(&c.kernel_dir(), &staging.join(KERNEL_DIR)).inspect_err(|_| {
        let _ = remove_dir_if_exists(&staging);
    })?;
    let artifacts = staging.join(ARTIFACTS_DIR);
    let plan = Plan {
        validation: Validation::Full,
        round: 1,
        frozen: None,
        out_dir: &artifacts,
        kernel_dir: c.kernel_dir(),
        pair_with: None,
        check_shapes: Vec::new(),
    };
    let measured = match measure(c, source, &plan, on_event) {
        Ok(m) => m,
        Err(e) => {
            return Err(abandon(c, e, "baseline", 1, Validation::Full, &[&staging]));
        }
    };
    let checked = check_baseline_table(c, &measured.table);
    if let Err(e) = checked {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if !measured.table.rows.iter().any(|r| r.check == Check::Pass) {
        return Err(nothing_passed(c, &staging, &artifacts, &measured.failures));
    }
    let metric = c.manifest.primary_metric.clone();
    let aggregate = measured.table.aggregate(&metric);
    let mut warnings: Vec<String> = measured
        .impossible
        .iter()
        .map(|i| format!("{} is ERROR: {}", i.label, i.reason))
        .chain(measured.notes.iter().map(|n| n.text.clone()))
        .collect();
    let representative = choose_representatives(c, &measured.table, &mut warnings);
    // The manifest edit is prepared before anything is recorded, so a manifest kcamp
    // cannot edit fails the BASELINE with nothing changed.
    if let Err(e) = representative_manifest(&c.dir, &representative) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    write_atomic(&staging.join(HYPOTHESIS_FILE), b"BASELINE\n")?;
    c.journal(
        "baseline_begin",
        Some(1),
        json!({"origin": measured.origin}),
    )?;
    // The frozen header goes first: once round-1 exists every later CSV is held to it.
    let header = measured.table.schema.header();
    write_atomic(
        &c.dir.join(FROZEN_HEADER_FILE),
        format!("{header}\n").as_bytes(),
    )?;
    // The campaign as measured (manifest, kernel/, frozen header), committed before the
    // decision that names the commit (see git.rs).
    let git_commit = git::commit_or_journal(
        c,
        Some(1),
        &git::subject(
            1,
            &format!(
                "BASELINE of kernel/{} ({} {})",
                c.manifest.kernel.file,
                c.manifest.op.as_str(),
                c.manifest.dtype.as_str()
            ),
        ),
        true,
        &mut warnings,
    )?;
    let decision = Decision {
        round: 1,
        decision: DecisionKind::Baseline,
        parent: None,
        verdict: None,
        validation: Some(Validation::Full),
        aggregate,
        aggregate_delta: None,
        reason: None,
        cause: None,
        forced: false,
        time: Utc::now(),
        git_commit,
        gate: None,
        kernel_hash: Some(tree_hash(&staging.join(KERNEL_DIR))?),
        kernel_files: Some(file_hashes(&staging.join(KERNEL_DIR))?),
        kernel_key: super::ledger::snapshot_key(&staging)?,
    };
    write_json_atomic(&staging.join(DECISION_FILE), &decision)?;
    super::fail_point("baseline:before_commit");
    rename(&staging, &c.round_dir(1))?;
    super::fail_point("baseline:after_commit");
    finish_baseline(c, &representative)?;
    let reopened = Campaign::open(&c.dir)?;
    let baseline_report = render_and_commit(&reopened, render, &mut warnings)?;
    let passed = measured
        .table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .count();
    Ok(BaselineOutcome {
        round: 1,
        validation: Validation::Full,
        shapes: measured.table.rows.len(),
        passed,
        all_pass: passed == measured.table.rows.len(),
        metric,
        aggregate,
        representative_shapes: representative,
        failures: measured.failures,
        summary: measured.summary,
        warnings,
        origin: measured.origin,
        baseline_report,
    })
}

/// What follows a recorded BASELINE: its report (an optional output: a failure is a warning
/// naming it, and no path is given for a file that was not written) and the commit of the
/// baseline record. Returns the report's path when it was written.
fn render_and_commit(
    c: &Campaign,
    render: impl FnOnce(&Campaign) -> Result<Vec<String>>,
    warnings: &mut Vec<String>,
) -> Result<Option<PathBuf>> {
    let path = c.dir.join(BASELINE_REPORT);
    let written = match render(c) {
        Ok(skipped) => {
            warnings.extend(skipped);
            Some(path)
        }
        Err(e) => {
            warnings.push(format!(
                "{} not written: {e} (`kcamp report` writes it again)",
                path.display()
            ));
            None
        }
    };
    git::commit_or_journal(
        c,
        Some(1),
        &git::subject(1, "BASELINE recorded"),
        false,
        warnings,
    )?;
    Ok(written)
}

/// The outcome of the BASELINE recorded on disk (round 1), for a retried command.
fn recorded_outcome(c: &Campaign) -> Result<BaselineOutcome> {
    let c = Campaign::open(&c.dir)?;
    let frozen = c.frozen_header()?;
    let table =
        BenchTable::read_held_to(&c.artifacts_dir(1).join(BENCHMARK_CSV), frozen.as_deref())?;
    let metric = c.manifest.primary_metric.clone();
    let passed = table.rows.iter().filter(|r| r.check == Check::Pass).count();
    let result = RunResult::read(&c.artifacts_dir(1).join(RESULT_JSON))
        .ok()
        .flatten();
    let origin = c
        .read_journal()?
        .iter()
        .rev()
        .find(|e| e.event == "baseline_begin")
        .and_then(|e| e.detail.get("origin"))
        .and_then(|o| o.as_str())
        .unwrap_or_default()
        .to_owned();
    Ok(BaselineOutcome {
        round: 1,
        validation: Validation::Full,
        shapes: table.rows.len(),
        passed,
        all_pass: passed == table.rows.len(),
        aggregate: table.aggregate(&metric),
        metric,
        representative_shapes: c.manifest.representative_shapes.clone(),
        failures: failures(&table, result.as_ref()),
        summary: result.as_ref().map_or_else(
            || RunSummary::from_table(&table, &c.manifest.primary_metric),
            |r| r.summary.clone(),
        ),
        warnings: vec![
            "an earlier `kcamp baseline` was interrupted after recording round 1; it is now complete"
                .to_owned(),
        ],
        origin,
        baseline_report: None,
    })
}

/// A BASELINE in which no shape passes is not recorded: no later round could be compared
/// with it. The measurement moves to `runs/` (where `kcamp run` keeps what it records
/// nothing for), so its reasons stay readable, and the campaign is as it was.
fn nothing_passed(
    c: &Campaign,
    staging: &Path,
    artifacts: &Path,
    failures: &[ShapeFailure],
) -> Error {
    let runs = c.dir.join(RUNS_DIR);
    let kept = runs.join(format!(
        "{}-baseline-not-recorded",
        Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    ));
    let kept = std::fs::create_dir_all(&runs)
        .and_then(|()| std::fs::rename(artifacts, &kept))
        .ok()
        .map(|()| kept);
    let _ = std::fs::remove_dir_all(staging);
    const SHOWN: usize = 5;
    let mut why: Vec<String> = failures
        .iter()
        .take(SHOWN)
        .map(|f| match &f.reason {
            Some(r) => format!("{} {}: {r}", f.label, f.check.as_str()),
            None => format!("{} {}", f.label, f.check.as_str()),
        })
        .collect();
    if failures.len() > SHOWN {
        why.push(format!("… and {} more", failures.len() - SHOWN));
    }
    Error::input(format!(
        "{}: no target shape PASSes, so no later round could be compared with this BASELINE: not recorded, the campaign is unchanged. {}.{}",
        c.dir.display(),
        why.join("; "),
        kept.map_or_else(String::new, |k| format!(
            " The measurement is kept in {}.",
            k.display()
        )),
    ))
    .with_next(vec![
        NextStep::run(Command::Baseline).before(format!("fix {}", c.kernel_dir().display())),
    ])
}

fn check_baseline_table(c: &Campaign, table: &BenchTable) -> Result<()> {
    let expected = c.manifest.target_keys();
    check_shape_set(table, &expected, "the manifest's target_shapes")?;
    let gateable = table.schema.gateable_metrics();
    if !gateable.iter().any(|m| m == &c.manifest.primary_metric) {
        return Err(Error::input(format!(
            "primary_metric '{}' is not a metric of this CSV (it has: {})",
            c.manifest.primary_metric,
            gateable.join(", ")
        )));
    }
    Ok(())
}

/// The table must hold exactly `expected` (label + dims), naming the first difference.
pub(super) fn check_shape_set(
    table: &BenchTable,
    expected: &BTreeSet<ShapeKey>,
    what: &str,
) -> Result<()> {
    let got: BTreeSet<ShapeKey> = table.rows.iter().map(|r| r.shape_key()).collect();
    if let Some(missing) = expected.difference(&got).next() {
        return Err(Error::input(format!(
            "the CSV lacks shape '{}' {:?} of {what}",
            missing.label, missing.dims
        )));
    }
    if let Some(extra) = got.difference(expected).next() {
        return Err(Error::input(format!(
            "the CSV has shape '{}' {:?} that is not in {what}",
            extra.label, extra.dims
        )));
    }
    Ok(())
}
