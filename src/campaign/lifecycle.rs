//! The campaign loop: init, BASELINE, round new, VALIDATE, ACCEPT, ROLLBACK, and the
//! recovery of interrupted decisions.
//!
//! Every writing step holds the campaign lock, writes files atomically, and brackets
//! multi-file changes with `*_begin`/`*_done` journal entries so that [`recover`] can
//! complete or undo them on the next command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::layout::{
    ARTIFACTS_DIR, BENCHMARK_CSV, Campaign, DECISION_FILE, GATE_JSON, HYPOTHESIS_FILE, SAMPLES_CSV,
    VALIDATIONS_JSONL, copy_tree, tree_hash,
};
use super::measure::{MeasureSource, Measured, measure};
use super::{Decision, DecisionKind, FROZEN_HEADER_FILE, KERNEL_DIR, ROUNDS_DIR, Validation};
use crate::error::IoContext;
use crate::fsutil::{write_atomic, write_json_atomic};
use crate::gate::{GateInput, GateReport, Verdict, judge, remeasure_holds};
use crate::manifest::{Dtype, MANIFEST_FILE, Manifest, OpName, ShapeSpec};
use crate::runner::ProgressEvent;
use crate::schema::{BenchTable, Check, Samples, ShapeKey};
use crate::{Error, Result};

/// Test hook: `KCAMP_FAILPOINT=<name>` makes the process exit abruptly at that step, as a
/// kill would, so tests can check that the next command completes or undoes the step.
fn fail_point(name: &str) {
    if std::env::var("KCAMP_FAILPOINT").is_ok_and(|v| v == name) {
        eprintln!("kcamp: failpoint {name} reached, exiting abruptly");
        std::process::exit(86);
    }
}

// ---------------------------------------------------------------------------------------
// init

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub op: OpName,
    pub dtype: Dtype,
    /// YAML list or CSV (`label,B,M,N,K` / `label,N`) of target shapes.
    pub shapes: Option<PathBuf>,
    pub name: Option<String>,
    pub primary_metric: Option<String>,
}

/// Create a campaign: manifest.yaml, the op's baseline kernel in `kernel/`, the layout.
/// Everything is validated before anything is written.
pub fn init(dir: &Path, opts: &InitOptions) -> Result<Campaign> {
    if dir.join(MANIFEST_FILE).exists() {
        return Err(Error::input(format!(
            "{} already holds a campaign (manifest.yaml exists)",
            dir.display()
        )));
    }
    let shapes = match &opts.shapes {
        Some(p) => read_shapes_file(p, opts.op)?,
        None => default_shapes(opts.op),
    };
    let mut kernel = crate::ops::baseline_kernel(opts.op, opts.dtype);
    // The working kernel is the campaign's, not the shipped baseline: name it after the op.
    kernel.kernel.file = match opts.dtype {
        Dtype::F32 => format!("{}.wgsl", opts.op.as_str()),
        Dtype::F16 => format!("{}_f16.wgsl", opts.op.as_str()),
    };
    let name = opts
        .name
        .clone()
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{}-{}", opts.op.as_str(), opts.dtype.as_str()));
    let primary_metric = opts
        .primary_metric
        .clone()
        .unwrap_or_else(|| default_metric(opts.op).to_owned());
    let manifest = Manifest::with_defaults(
        name,
        opts.op,
        opts.dtype,
        primary_metric,
        shapes,
        kernel.kernel.clone(),
    );
    let yaml = format!(
        "# kcamp campaign manifest (see README: manifest.yaml). representative_shapes is filled\n# by `kcamp baseline` unless you set it.\n{}",
        manifest.to_yaml()?
    );
    // Round-trip through the validator so `init` can never write a manifest `load` refuses.
    Manifest::parse(&yaml, &dir.join(MANIFEST_FILE))?;
    std::fs::create_dir_all(dir.join(KERNEL_DIR))
        .ctx(|| format!("creating {}", dir.join(KERNEL_DIR).display()))?;
    for sub in [ROUNDS_DIR, super::MEMORY_DIR] {
        std::fs::create_dir_all(dir.join(sub))
            .ctx(|| format!("creating {}", dir.join(sub).display()))?;
    }
    write_atomic(
        &dir.join(KERNEL_DIR).join(&kernel.kernel.file),
        kernel.source.as_bytes(),
    )?;
    // Per-process state stays out of the commits that `accept` makes.
    write_atomic(&dir.join(".gitignore"), b".kcamp.lock\nlive/\nruns/\n")?;
    // The manifest is written last: its presence is what makes the directory a campaign.
    write_atomic(&dir.join(MANIFEST_FILE), yaml.as_bytes())?;
    let campaign = Campaign::open(dir)?;
    campaign.journal("init", None, json!({"op": opts.op.as_str(), "dtype": opts.dtype.as_str(), "shapes": campaign.manifest.target_shapes.len()}))?;
    Ok(campaign)
}

/// The primary metric of an op's campaign unless the user picks another.
fn default_metric(op: OpName) -> &'static str {
    match op {
        OpName::Gemm => "Forward TFLOPS",
        OpName::Axpy => "Forward GB/s",
    }
}

fn default_shapes(op: OpName) -> Vec<ShapeSpec> {
    let mk = |label: &str, dims: &[(&str, u64)]| ShapeSpec {
        label: label.to_owned(),
        dims: dims.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
    };
    match op {
        OpName::Gemm => vec![
            mk("sq256", &[("M", 256), ("N", 256), ("K", 256)]),
            mk("sq512", &[("M", 512), ("N", 512), ("K", 512)]),
            mk("sq1024", &[("M", 1024), ("N", 1024), ("K", 1024)]),
            mk("sq2048", &[("M", 2048), ("N", 2048), ("K", 2048)]),
            mk("sq4096", &[("M", 4096), ("N", 4096), ("K", 4096)]),
            mk("odd1000", &[("M", 1000), ("N", 1000), ("K", 1000)]),
            mk("tall8192", &[("M", 8192), ("N", 1024), ("K", 1024)]),
            mk("deepk8192", &[("M", 1024), ("N", 1024), ("K", 8192)]),
            mk(
                "batch8x512",
                &[("B", 8), ("M", 512), ("N", 512), ("K", 512)],
            ),
        ],
        OpName::Axpy => vec![
            mk("n64k", &[("N", 1 << 16)]),
            mk("n1m", &[("N", 1 << 20)]),
            mk("n4m", &[("N", 1 << 22)]),
            mk("n16m", &[("N", 1 << 24)]),
        ],
    }
}

/// Shapes from a YAML list (`- {label: a, M: 1, N: 2, K: 3}`) or a CSV with a header
/// `label,<dims...>`.
fn read_shapes_file(path: &Path, op: OpName) -> Result<Vec<ShapeSpec>> {
    let text = std::fs::read_to_string(path).ctx(|| format!("reading {}", path.display()))?;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let shapes: Vec<ShapeSpec> = if is_csv {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        let headers = rdr
            .headers()
            .map_err(|e| Error::in_file(path, Some(1), None, format!("bad CSV header: {e}")))?
            .clone();
        if headers.get(0) != Some("label") {
            return Err(Error::in_file(
                path,
                Some(1),
                headers.get(0),
                "the first column must be 'label'",
            ));
        }
        let mut out = Vec::new();
        for (i, rec) in rdr.records().enumerate() {
            let line = i as u64 + 2;
            let rec = rec
                .map_err(|e| Error::in_file(path, Some(line), None, format!("bad CSV row: {e}")))?;
            let mut dims = std::collections::BTreeMap::new();
            for (col, cell) in headers.iter().zip(rec.iter()).skip(1) {
                let v: u64 = cell.trim().parse().map_err(|_| {
                    Error::in_file(
                        path,
                        Some(line),
                        Some(col),
                        format!("'{cell}' is not a positive integer"),
                    )
                })?;
                dims.insert(col.to_owned(), v);
            }
            out.push(ShapeSpec {
                label: rec.get(0).unwrap_or_default().to_owned(),
                dims,
            });
        }
        out
    } else {
        serde_yaml_ng::from_str(&text).map_err(|e| {
            Error::in_file(
                path,
                e.location().map(|l| l.line() as u64),
                None,
                format!(
                    "expected a list of shapes like `- {{label: s1, M: 64, N: 64, K: 64}}`: {e}"
                ),
            )
        })?
    };
    // Validate through a throwaway manifest so shape rules live in one place.
    let probe = Manifest::with_defaults(
        "probe".into(),
        op,
        Dtype::F32,
        default_metric(op).into(),
        shapes.clone(),
        crate::ops::baseline_kernel(op, Dtype::F32).kernel,
    );
    let yaml = probe.to_yaml()?;
    Manifest::parse(&yaml, path)
        .map_err(|e| Error::input(e.to_string().replace("field 'target_shapes", "shape '")))?;
    Ok(shapes)
}

// ---------------------------------------------------------------------------------------
// BASELINE

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
    source: &MeasureSource,
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
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let checked = check_baseline_table(c, &measured.table);
    if let Err(e) = checked {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let metric = c.manifest.primary_metric.clone();
    let aggregate = aggregate_of(&measured.table, &metric);
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
    fail_point("baseline:before_commit");
    std::fs::rename(&staging, c.round_dir(1)).ctx(|| {
        format!(
            "renaming {} to {}",
            staging.display(),
            c.round_dir(1).display()
        )
    })?;
    crate::fsutil::sync_dir(&c.rounds_dir());
    fail_point("baseline:after_commit");
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
fn finish_baseline(c: &Campaign, representative: &[String]) -> Result<()> {
    if c.manifest.representative_shapes.as_slice() != representative {
        set_representative_shapes(&c.dir, representative)?;
    }
    let reopened = Campaign::open(&c.dir)?;
    crate::campaign::records::on_baseline(&reopened)?;
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
fn check_shape_set(table: &BenchTable, expected: &BTreeSet<ShapeKey>, what: &str) -> Result<()> {
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

/// Geometric mean of `metric` over PASS rows.
pub fn aggregate_of(table: &BenchTable, metric: &str) -> Option<f64> {
    let values: Vec<f64> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .filter_map(|r| r.metric(&table.schema, metric))
        .collect();
    crate::stats::geomean(&values)
}

/// SPEC §1: 3–5 shapes that PASS at baseline, spanning small (launch overhead) to large
/// (compute/memory), preferring high variance in between. The user's choice is kept when
/// all of it passed.
fn choose_representatives(
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

// ---------------------------------------------------------------------------------------
// round new

pub fn new_round(c: &Campaign, hypothesis: &str) -> Result<u32> {
    let _lock = c.lock("kcamp round new")?;
    recover(c)?;
    let hypothesis = hypothesis.trim();
    if hypothesis.is_empty() {
        return Err(Error::input(
            "--hypothesis must not be empty: one round, one hypothesis",
        ));
    }
    if c.incumbent()?.is_none() {
        return Err(Error::State(
            "no BASELINE yet: run `kcamp baseline` first".into(),
        ));
    }
    if let Some(open) = c.open_round()? {
        return Err(Error::State(format!(
            "round {open} is still open; accept or roll it back before opening another"
        )));
    }
    let numbers = c.round_numbers()?;
    let n = numbers.last().copied().unwrap_or(0) + 1;
    if let Some(max) = c.manifest.max_iterations
        && n - 1 > max
    {
        return Err(Error::State(format!(
            "max_iterations ({max}) reached: the campaign has {} optimization rounds",
            n - 2
        )));
    }
    let staging = c.rounds_dir().join(format!(".round-{n}.tmp"));
    remove_dir_if_exists(&staging)?;
    std::fs::create_dir_all(&staging).ctx(|| format!("creating {}", staging.display()))?;
    write_atomic(
        &staging.join(HYPOTHESIS_FILE),
        format!("{hypothesis}\n").as_bytes(),
    )?;
    std::fs::rename(&staging, c.round_dir(n))
        .ctx(|| format!("creating {}", c.round_dir(n).display()))?;
    crate::fsutil::sync_dir(&c.rounds_dir());
    c.journal("round_opened", Some(n), json!({"hypothesis": hypothesis}))?;
    Ok(n)
}

// ---------------------------------------------------------------------------------------
// VALIDATE

/// `artifacts/gate.json`: the latest validation of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub round: u32,
    pub validation: Validation,
    pub incumbent: u32,
    /// Hash of the kernel snapshot that was measured.
    pub kernel_hash: String,
    /// A quick ACCEPT under `quick_confirm_below`: `accept` runs a full validation first.
    pub needs_full_confirmation: bool,
    pub time: chrono::DateTime<Utc>,
    pub origin: String,
    /// Shapes judged against an older round of the lineage (the incumbent lacked them).
    pub reference_notes: Vec<String>,
    pub report: GateReport,
}

/// One line of `validations.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ValidationLog {
    time: chrono::DateTime<Utc>,
    validation: Validation,
    kernel_hash: String,
    raw_verdict: Verdict,
    aggregate_delta: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValidateOutcome {
    pub record: GateRecord,
}

pub fn validate(
    c: &Campaign,
    full: bool,
    source: &MeasureSource,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let _lock = c.lock(if full {
        "kcamp validate --full"
    } else {
        "kcamp validate"
    })?;
    recover(c)?;
    validate_locked(
        c,
        if full {
            Validation::Full
        } else {
            Validation::Quick
        },
        source,
        on_event,
    )
}

fn validate_locked(
    c: &Campaign,
    validation: Validation,
    source: &MeasureSource,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<ValidateOutcome> {
    let round = c.open_round()?.ok_or_else(|| {
        Error::State("no open round: open one with `kcamp round new --hypothesis TEXT`".into())
    })?;
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no BASELINE yet: run `kcamp baseline` first".into()))?;
    let frozen = c.frozen_header()?.ok_or_else(|| {
        Error::State(format!(
            "{} is missing: the schema was never frozen",
            c.dir.join(FROZEN_HEADER_FILE).display()
        ))
    })?;
    let expected: BTreeSet<ShapeKey> = match validation {
        Validation::Quick => {
            if c.manifest.representative_shapes.is_empty() {
                return Err(Error::State(
                    "no representative_shapes in manifest.yaml: run `kcamp validate --full`".into(),
                ));
            }
            c.manifest
                .representative()
                .into_iter()
                .map(|s| key_of(&c.manifest, s))
                .collect()
        }
        Validation::Full => c
            .manifest
            .target_shapes
            .iter()
            .map(|s| key_of(&c.manifest, s))
            .collect(),
    };
    let rdir = c.round_dir(round);
    let stage_kernel = rdir.join(".kernel.tmp");
    let stage_artifacts = rdir.join(".artifacts.tmp");
    remove_dir_if_exists(&stage_kernel)?;
    remove_dir_if_exists(&stage_artifacts)?;
    copy_tree(&c.kernel_dir(), &stage_kernel)?;
    let kernel_hash = tree_hash(&stage_kernel)?;
    let staged = measure(
        c,
        source,
        validation,
        round,
        Some(&frozen),
        &stage_artifacts,
        on_event,
    )
    .and_then(|m| {
        check_shape_set(
            &m.table,
            &expected,
            match validation {
                Validation::Quick => "the representative shapes (use --full for all target shapes)",
                Validation::Full => "the manifest's target_shapes",
            },
        )?;
        Ok(m)
    });
    let measured: Measured = match staged {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage_kernel);
            let _ = std::fs::remove_dir_all(&stage_artifacts);
            return Err(e);
        }
    };
    let (reference, reference_samples, reference_notes) =
        reference_rows(c, incumbent, &expected, &frozen)?;
    let mut report = judge(&GateInput {
        incumbent: &reference,
        candidate: &measured.table,
        incumbent_samples: reference_samples.as_ref(),
        candidate_samples: measured.samples.as_ref(),
        metric: &c.manifest.primary_metric,
        config: &c.manifest.gate,
    })?;
    for note in &reference_notes {
        report.reasons.push(note.clone());
    }
    let raw_verdict = report.verdict;
    // SPEC §7 rule 5: a gain inside the noise is re-measured; the history decides.
    let history = read_validation_log(&rdir)?;
    if raw_verdict == Verdict::NeedsRemeasure {
        apply_remeasure(
            &mut report,
            &history,
            validation,
            &kernel_hash,
            &c.manifest.gate,
        );
    }
    let needs_full_confirmation = validation == Validation::Quick
        && report.verdict.allows_accept()
        && report
            .aggregate
            .delta
            .is_some_and(|d| d < c.manifest.gate.quick_confirm_below);
    if needs_full_confirmation {
        report.reasons.push(format!(
            "quick ACCEPT with an aggregate gain under {:.0}%: `kcamp accept` confirms it with a full validation first",
            c.manifest.gate.quick_confirm_below * 100.0
        ));
    }
    let record = GateRecord {
        round,
        validation,
        incumbent,
        kernel_hash: kernel_hash.clone(),
        needs_full_confirmation,
        time: Utc::now(),
        origin: measured.origin.clone(),
        reference_notes,
        report,
    };
    write_json_atomic(&stage_artifacts.join(GATE_JSON), &record)?;
    // Swap the staged snapshot and artifacts in; an undecided round may be re-validated.
    replace_dir(&stage_kernel, &rdir.join(KERNEL_DIR))?;
    replace_dir(&stage_artifacts, &rdir.join(ARTIFACTS_DIR))?;
    let log = ValidationLog {
        time: record.time,
        validation,
        kernel_hash,
        raw_verdict,
        aggregate_delta: record.report.aggregate.delta,
    };
    crate::fsutil::append_line(
        &rdir.join(VALIDATIONS_JSONL),
        &serde_json::to_string(&log).map_err(|e| Error::Internal(e.to_string()))?,
    )?;
    c.journal(
        "validated",
        Some(round),
        json!({
            "validation": validation,
            "verdict": record.report.verdict,
            "aggregate_delta": record.report.aggregate.delta,
            "origin": record.origin,
        }),
    )?;
    Ok(ValidateOutcome { record })
}

fn key_of(m: &Manifest, s: &ShapeSpec) -> ShapeKey {
    ShapeKey {
        label: s.label.clone(),
        dims: m.shape_dims(s),
    }
}

/// Re-measurements of the same kernel (same validation kind) in a row, this one included.
fn apply_remeasure(
    report: &mut GateReport,
    history: &[ValidationLog],
    validation: Validation,
    kernel_hash: &str,
    cfg: &crate::gate::GateConfig,
) {
    let mut deltas: Vec<f64> = history
        .iter()
        .rev()
        .take_while(|h| h.kernel_hash == kernel_hash && h.validation == validation)
        .filter(|h| {
            matches!(
                h.raw_verdict,
                Verdict::NeedsRemeasure | Verdict::Accept | Verdict::AcceptWithNote
            )
        })
        .filter_map(|h| h.aggregate_delta)
        .collect();
    if let Some(d) = report.aggregate.delta {
        deltas.push(d);
    }
    let need = cfg.remeasure_min_runs as usize;
    if deltas.len() < need {
        report.reasons.push(format!(
            "re-measurement {} of at least {need}: run `kcamp validate` again without changing the kernel",
            deltas.len()
        ));
        return;
    }
    let mean = crate::stats::mean(&deltas).unwrap_or(0.0);
    let sd = crate::stats::pop_stddev(&deltas).unwrap_or(f64::INFINITY);
    if remeasure_holds(&deltas, cfg) {
        report.verdict = Verdict::Accept;
        report.reasons.push(format!(
            "re-measured {} times: mean gain {:+.2}% > {:.0}% with stddev {:.2}% under half the gain: ACCEPT",
            deltas.len(),
            mean * 100.0,
            cfg.remeasure_min_gain * 100.0,
            sd * 100.0
        ));
    } else {
        report.verdict = Verdict::Reject;
        report.reasons.push(format!(
            "re-measured {} times: mean gain {:+.2}% with stddev {:.2}% does not hold (needs > {:.0}% and stddev under half of it): REJECT",
            deltas.len(),
            mean * 100.0,
            sd * 100.0,
            cfg.remeasure_min_gain * 100.0
        ));
    }
}

fn read_validation_log(rdir: &Path) -> Result<Vec<ValidationLog>> {
    let p = rdir.join(VALIDATIONS_JSONL);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), e)),
    };
    // A torn last line (crash mid-append) is ignored.
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// Reference rows for the candidate's shapes: the incumbent's row where it measured the
/// shape, else the newest accepted ancestor that did (an incumbent accepted on a quick
/// validation has only the representative shapes).
fn reference_rows(
    c: &Campaign,
    incumbent: u32,
    keys: &BTreeSet<ShapeKey>,
    frozen: &str,
) -> Result<(BenchTable, Option<Samples>, Vec<String>)> {
    let lineage: Vec<u32> = c
        .decisions()?
        .into_iter()
        .filter(|(n, d)| {
            *n <= incumbent
                && matches!(
                    d.as_ref().map(|d| d.decision),
                    Some(DecisionKind::Baseline | DecisionKind::Accepted)
                )
        })
        .map(|(n, _)| n)
        .rev()
        .collect();
    let mut rows = Vec::new();
    let mut samples = Samples::default();
    let mut any_samples = true;
    let mut notes = Vec::new();
    let mut schema = None;
    let mut remaining: BTreeSet<ShapeKey> = keys.clone();
    for n in lineage {
        if remaining.is_empty() {
            break;
        }
        let adir = c.artifacts_dir(n);
        let table = BenchTable::read_frozen(&adir.join(BENCHMARK_CSV), frozen)?;
        let round_samples = if adir.join(SAMPLES_CSV).is_file() {
            Some(Samples::read(&adir.join(SAMPLES_CSV))?)
        } else {
            None
        };
        for row in &table.rows {
            let key = row.shape_key();
            if remaining.remove(&key) {
                if n != incumbent {
                    notes.push(format!("shape '{}' judged against round {n}, the newest accepted round that measured it", row.label));
                }
                match &round_samples {
                    Some(s) => samples
                        .rows
                        .extend(s.rows.iter().filter(|r| r.label == row.label).cloned()),
                    None => any_samples = false,
                }
                rows.push(row.clone());
            }
        }
        schema.get_or_insert(table.schema);
    }
    if let Some(missing) = remaining.iter().next() {
        return Err(Error::State(format!(
            "no accepted round measured shape '{}'",
            missing.label
        )));
    }
    let schema = schema.ok_or_else(|| Error::State("the lineage holds no measurement".into()))?;
    Ok((
        BenchTable { schema, rows },
        any_samples.then_some(samples),
        notes,
    ))
}

// ---------------------------------------------------------------------------------------
// ACCEPT and ROLLBACK

#[derive(Debug, Clone)]
pub struct AcceptOptions {
    pub force: bool,
    pub reason: Option<String>,
    /// How to run the confirming full validation of a small quick gain.
    pub confirm_source: MeasureSource,
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
    recover(c)?;
    let round = c
        .open_round()?
        .ok_or_else(|| Error::State("no open round to accept".into()))?;
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
        let full = validate_locked(c, Validation::Full, &opts.confirm_source, on_event)?;
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
    fail_point("accept:after_begin");
    write_json_atomic(&c.round_dir(round).join(DECISION_FILE), &decision)?;
    fail_point("accept:after_decision");
    let warnings = finish_decision(c, round, "accept")?;
    Ok(DecisionOutcome {
        decision,
        confirmation,
        warnings,
    })
}

pub fn rollback(c: &Campaign, reason: &str) -> Result<DecisionOutcome> {
    let _lock = c.lock("kcamp rollback")?;
    recover(c)?;
    let round = c
        .open_round()?
        .ok_or_else(|| Error::State("no open round to roll back".into()))?;
    if reason.trim().is_empty() {
        return Err(Error::input(
            "--reason must say why the round is rolled back",
        ));
    }
    rollback_locked(c, round, reason.trim())
}

fn rollback_locked(c: &Campaign, round: u32, reason: &str) -> Result<DecisionOutcome> {
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no incumbent to roll back to".into()))?;
    c.journal(
        "rollback_begin",
        Some(round),
        json!({"incumbent": incumbent, "reason": reason}),
    )?;
    fail_point("rollback:after_begin");
    restore_kernel(c, incumbent)?;
    fail_point("rollback:after_restore");
    let decision = write_rollback_decision(c, round, incumbent, reason)?;
    let warnings = finish_decision(c, round, "rollback")?;
    Ok(DecisionOutcome {
        decision,
        confirmation: None,
        warnings,
    })
}

fn write_rollback_decision(
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
fn finish_decision(c: &Campaign, round: u32, kind: &str) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    crate::campaign::records::on_decision(c, round)?;
    fail_point(&format!("{kind}:before_done"));
    if kind == "accept" && c.manifest.git_commit {
        match git_commit(c, round) {
            Ok(Some(hash)) => {
                c.journal("git_commit", Some(round), json!({"commit": hash}))?;
                crate::campaign::records::on_git_commit(c, round, &hash)?;
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
fn restore_kernel(c: &Campaign, incumbent: u32) -> Result<()> {
    let snapshot = c.round_dir(incumbent).join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Err(Error::State(format!(
            "the incumbent's kernel snapshot {} is missing",
            snapshot.display()
        )));
    }
    let staging = c.dir.join(".kernel.restore.tmp");
    remove_dir_if_exists(&staging)?;
    copy_tree(&snapshot, &staging)?;
    replace_dir(&staging, &c.kernel_dir())
}

/// Replace `dst` by `src` (both directories) with renames.
fn replace_dir(src: &Path, dst: &Path) -> Result<()> {
    let old = dst.with_file_name(format!(
        ".{}.old",
        dst.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    remove_dir_if_exists(&old)?;
    if dst.exists() {
        std::fs::rename(dst, &old).ctx(|| format!("moving {} aside", dst.display()))?;
    }
    std::fs::rename(src, dst).ctx(|| format!("renaming {} to {}", src.display(), dst.display()))?;
    if let Some(parent) = dst.parent() {
        crate::fsutil::sync_dir(parent);
    }
    remove_dir_if_exists(&old)
}

fn remove_dir_if_exists(p: &Path) -> Result<()> {
    match std::fs::remove_dir_all(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {}", p.display()), e)),
    }
}

pub fn read_gate_record(c: &Campaign, round: u32) -> Result<Option<GateRecord>> {
    let p = c.artifacts_dir(round).join(GATE_JSON);
    match std::fs::read_to_string(&p) {
        Ok(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
            Error::in_file(
                &p,
                Some(e.line() as u64),
                None,
                format!("malformed gate record: {e}"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), e)),
    }
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

// ---------------------------------------------------------------------------------------
// recovery

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
