//! BASELINE: the first full validation; freezes the CSV schema, picks the representative
//! shapes and records round 1.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

use super::Decision;
use super::git;
use super::layout::{Campaign, copy_tree};
use super::measure::{MeasureSource, Plan, abandon, measure};
use super::recover::recover;
use crate::artifacts::result::{RunResult, RunSummary, ShapeFailure, failures};
use crate::case::ProgressEvent;
use crate::files::{
    ARTIFACTS_DIR, BASELINE_REPORT, BENCHMARK_CSV, DECISION_FILE, FROZEN_HEADER_FILE,
    HYPOTHESIS_FILE, KERNEL_DIR, MANIFEST_FILE, RESULT_JSON, RUNS_DIR,
};
use crate::fsutil::{remove_dir_if_exists, rename, write_atomic, write_json_atomic};
use crate::manifest::Manifest;
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
}

/// `render` writes what a person reads about the baseline (`baseline_report.md`) under the
/// lock, before the step is committed; its failure is a warning, never a lost baseline.
pub fn baseline(
    c: &Campaign,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
    render: impl FnOnce(&Campaign) -> Result<()>,
) -> Result<BaselineOutcome> {
    let _lock = c.lock("kcamp baseline")?;
    let recovery = recover(c)?;
    if !c.round_numbers()?.is_empty() {
        // A retried BASELINE whose first attempt died after round 1 was recorded: before
        // its decision was complete (recovery finished it) or before its report was written
        // (the report is written last, so its absence says so).
        let report_missing = c.round_numbers()? == [1] && !c.dir.join(BASELINE_REPORT).exists();
        if report_missing || recovery.completed.iter().any(|(k, _)| *k == "baseline") {
            let mut out = recorded_outcome(c)?;
            if let Err(e) = render(&Campaign::open(&c.dir)?) {
                out.warnings
                    .push(format!("baseline_report.md not written: {e}"));
            }
            return Ok(out);
        }
        return Err(Error::State(format!(
            "{}: BASELINE is already recorded as round 1; open a round with `kcamp round new`",
            c.dir.display()
        )));
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
        .chain(measured.notes.iter().cloned())
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
    let git_commit = match git::commit_all(
        c,
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
    ) {
        git::Committed::Hash(h) => Some(h),
        git::Committed::Off => None,
        git::Committed::Failed(msg) => {
            c.journal("git_commit_failed", Some(1), json!({"error": msg}))?;
            warnings.push(format!("git commit skipped: {msg}"));
            None
        }
    };
    let decision = Decision {
        round: 1,
        decision: DecisionKind::Baseline,
        parent: None,
        verdict: None,
        validation: Some(Validation::Full),
        aggregate,
        aggregate_delta: None,
        reason: None,
        forced: false,
        time: Utc::now(),
        git_commit,
        gate: None,
    };
    write_json_atomic(&staging.join(DECISION_FILE), &decision)?;
    super::fail_point("baseline:before_commit");
    rename(&staging, &c.round_dir(1))?;
    super::fail_point("baseline:after_commit");
    finish_baseline(c, &representative)?;
    let reopened = Campaign::open(&c.dir)?;
    if let Err(e) = render(&reopened) {
        warnings.push(format!("baseline_report.md not written: {e}"));
    }
    if let git::Committed::Failed(msg) =
        git::commit_all(&reopened, &git::subject(1, "BASELINE recorded"), false)
    {
        warnings.push(format!("git commit of the baseline record skipped: {msg}"));
    }
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
    })
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
    })
}

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
        "{}: no target shape PASSes, so no later round could be compared with this BASELINE: not recorded, the campaign is unchanged. {}. {}Fix {} and run `kcamp baseline` again",
        c.dir.display(),
        why.join("; "),
        kept.map_or_else(String::new, |k| format!(
            "The measurement is kept in {}. ",
            k.display()
        )),
        c.kernel_dir().display()
    ))
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

/// SPEC §1: 3–5 shapes that PASS at baseline, spanning small (launch overhead) to large
/// (compute/memory), preferring high variance in between. The user's choice is kept when
/// all of it passed.
pub(super) fn choose_representatives(
    c: &Campaign,
    table: &BenchTable,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let passing = |label: &str| {
        table
            .rows
            .iter()
            .any(|r| r.label == label && r.check == Check::Pass)
    };
    if !c.manifest.representative_shapes.is_empty() {
        let (kept, dropped): (Vec<String>, Vec<String>) = c
            .manifest
            .representative_shapes
            .iter()
            .cloned()
            .partition(|l| passing(l));
        for d in &dropped {
            warnings.push(format!(
                "representative shape '{d}' did not PASS at baseline and was dropped"
            ));
        }
        if !kept.is_empty() {
            return kept;
        }
    }
    let metric = &c.manifest.primary_metric;
    let mut rows: Vec<(&str, f64, f64)> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .map(|r| {
            let work: f64 = r.dims.iter().map(|d| *d as f64).product();
            let cv = match (
                r.metric(&table.schema, metric),
                r.stddev(&table.schema, metric),
            ) {
                (Some(m), Some(s)) if m > 0.0 => s / m,
                _ => 0.0,
            };
            (r.label.as_str(), work, cv)
        })
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    if rows.len() <= 3 {
        return rows.iter().map(|r| r.0.to_owned()).collect();
    }
    // 3–5 shapes: about half of the set, so a quick validation stays quick.
    let want = rows.len().div_ceil(2).clamp(3, 5);
    let mut chosen: Vec<&str> = vec![rows[0].0, rows[rows.len() - 1].0];
    let mut middle: Vec<&(&str, f64, f64)> = rows[1..rows.len() - 1].iter().collect();
    middle.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(b.0)));
    chosen.extend(middle.iter().take(want - 2).map(|r| r.0));
    // Keep the manifest's order (by size) for readability.
    rows.iter()
        .filter(|r| chosen.contains(&r.0))
        .map(|r| r.0.to_owned())
        .collect()
}

/// manifest.yaml with `representative_shapes` set to `labels`, editing only that field so
/// the user's comments and layout survive. Where the line edit cannot be proven right (the
/// result must load and equal the manifest with only that field changed) the whole
/// manifest is written out again instead, without its comments.
fn representative_manifest(dir: &Path, labels: &[String]) -> Result<String> {
    let path = dir.join(MANIFEST_FILE);
    let text = crate::fsutil::read_input_text(&path, crate::manifest::MAX_MANIFEST_BYTES)?;
    let mut expected = Manifest::parse(&text, &path)?;
    expected.representative_shapes = labels.to_vec();
    let edited = edit_representative_line(&text, labels);
    if Manifest::parse(&edited, &path).is_ok_and(|m| m == expected) {
        return Ok(edited);
    }
    let regenerated = format!(
        "# kcamp campaign manifest (rewritten by `kcamp baseline` to record representative_shapes)\n{}",
        expected.to_yaml()?
    );
    // Never write a manifest that does not load.
    Manifest::parse(&regenerated, &path)?;
    Ok(regenerated)
}

fn edit_representative_line(text: &str, labels: &[String]) -> String {
    let value = format!(
        "representative_shapes: [{}]",
        labels
            .iter()
            .map(|l| format!("'{}'", l.replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 1);
    let mut replaced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if replaced || !line.starts_with("representative_shapes:") {
            out.push(line.to_owned());
            continue;
        }
        out.push(value.clone());
        replaced = true;
        // Drop the block list that followed the key, with comments and blank lines inside
        // it; those after its last item belong to what follows.
        let mut last_item = None;
        let mut j = i;
        while j < lines.len() {
            let l = lines[j];
            let t = l.trim_start();
            if l.starts_with("- ")
                || l == "-"
                || (l.starts_with([' ', '\t']) && !t.is_empty() && !t.starts_with('#'))
            {
                last_item = Some(j);
            } else if !(t.is_empty() || t.starts_with('#')) {
                break;
            }
            j += 1;
        }
        if let Some(last) = last_item {
            i = last + 1;
        }
    }
    if !replaced {
        out.push(value);
    }
    let mut new_text = out.join("\n");
    new_text.push('\n');
    new_text
}
