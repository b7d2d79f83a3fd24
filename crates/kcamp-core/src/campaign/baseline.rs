//! BASELINE: the first full validation; freezes the CSV schema, picks the representative
//! shapes and records round 1.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::Utc;
use serde::Serialize;
use serde_json::json;

use super::Decision;
use super::layout::{Campaign, copy_tree};
use super::measure::{MeasureSource, abandon, measure};
use super::recover::recover;
use crate::case::ProgressEvent;
use crate::error::IoContext;
use crate::files::{
    ARTIFACTS_DIR, DECISION_FILE, FROZEN_HEADER_FILE, HYPOTHESIS_FILE, KERNEL_DIR, MANIFEST_FILE,
};
use crate::fsutil::{remove_dir_if_exists, sync_dir, write_atomic, write_json_atomic};
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
    /// Shapes that did not PASS, with their Check.
    pub not_passing: Vec<(String, Check)>,
    pub warnings: Vec<String>,
    pub origin: String,
}

pub fn baseline(
    c: &Campaign,
    source: MeasureSource<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<BaselineOutcome> {
    let _lock = c.lock("kcamp baseline")?;
    recover(c)?;
    if !c.round_numbers()?.is_empty() {
        return Err(Error::State(format!(
            "{}: BASELINE is already recorded as round 1; open a round with `kcamp round new`",
            c.dir.display()
        )));
    }
    let staging = c.rounds_dir().join(".round-1.tmp");
    remove_dir_if_exists(&staging)?;
    copy_tree(&c.kernel_dir(), &staging.join(KERNEL_DIR))?;
    let measured = match measure(
        c,
        source,
        Validation::Full,
        1,
        None,
        &staging.join(ARTIFACTS_DIR),
        on_event,
    ) {
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
    let metric = c.manifest.primary_metric.clone();
    let aggregate = measured.table.aggregate(&metric);
    let mut warnings = Vec::new();
    let representative = choose_representatives(c, &measured.table, &mut warnings);
    let not_passing: Vec<(String, Check)> = measured
        .table
        .rows
        .iter()
        .filter(|r| r.check != Check::Pass)
        .map(|r| (r.label.clone(), r.check))
        .collect();
    write_atomic(&staging.join(HYPOTHESIS_FILE), b"BASELINE\n")?;
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
        git_commit: None,
        gate: None,
    };
    write_json_atomic(&staging.join(DECISION_FILE), &decision)?;
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
    super::fail_point("baseline:before_commit");
    std::fs::rename(&staging, c.round_dir(1)).ctx(|| {
        format!(
            "renaming {} to {}",
            staging.display(),
            c.round_dir(1).display()
        )
    })?;
    sync_dir(&c.rounds_dir());
    super::fail_point("baseline:after_commit");
    finish_baseline(c, &representative)?;
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
        not_passing,
        warnings,
        origin: measured.origin,
    })
}

/// The steps after the BASELINE round is committed; idempotent, so recovery can redo them.
pub(super) fn finish_baseline(c: &Campaign, representative: &[String]) -> Result<()> {
    if c.manifest.representative_shapes.as_slice() != representative {
        set_representative_shapes(&c.dir, representative)?;
    }
    let reopened = Campaign::open(&c.dir)?;
    super::records::on_baseline(&reopened)?;
    reopened.journal(
        "baseline_done",
        Some(1),
        json!({"representative_shapes": representative}),
    )?;
    Ok(())
}

fn check_baseline_table(c: &Campaign, table: &BenchTable) -> Result<()> {
    let expected: BTreeSet<ShapeKey> = c
        .manifest
        .target_shapes
        .iter()
        .map(|s| ShapeKey {
            label: s.label.clone(),
            dims: c.manifest.shape_dims(s),
        })
        .collect();
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

/// Record the representative shapes in manifest.yaml, editing only that field so the
/// user's comments and layout survive.
fn set_representative_shapes(dir: &Path, labels: &[String]) -> Result<()> {
    let path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&path).ctx(|| format!("reading {}", path.display()))?;
    let value = format!(
        "representative_shapes: [{}]",
        labels
            .iter()
            .map(|l| format!("'{}'", l.replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let mut replaced = false;
    while let Some(line) = lines.next() {
        if !replaced && line.starts_with("representative_shapes:") {
            out.push(value.clone());
            replaced = true;
            // Drop a block list that followed the key.
            while lines
                .peek()
                .is_some_and(|l| l.starts_with("- ") || l.starts_with("  "))
            {
                lines.next();
            }
        } else {
            out.push(line.to_owned());
        }
    }
    if !replaced {
        out.push(value);
    }
    let mut new_text = out.join("\n");
    new_text.push('\n');
    // Never write a manifest that does not load.
    Manifest::parse(&new_text, &path)?;
    write_atomic(&path, new_text.as_bytes())
}
