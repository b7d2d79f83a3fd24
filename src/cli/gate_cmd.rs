//! `kcamp gate BASE.csv CAND.csv [--metric NAME]`.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CmdOutput, Ctx};
use kcamp_core::error::exit;
use kcamp_core::files::MANIFEST_FILE;
use kcamp_core::gate::{GateConfig, GateInput, GateReport, format_value, judge, percent};
use kcamp_core::manifest::Manifest;
use kcamp_core::schema::{BenchTable, Samples, Schema};
use kcamp_core::{Error, Result};

/// Raw per-repeat samples are looked up under this name beside each CSV.
use kcamp_core::files::SAMPLES_CSV as SAMPLES_FILE;

#[derive(Debug, Args)]
pub struct GateArgs {
    /// The incumbent's CSV.
    pub base: PathBuf,
    /// The candidate's CSV.
    pub candidate: PathBuf,
    /// Metric to judge (default: the manifest's primary metric inside a campaign, else the
    /// schema's first metric column). Derived metrics such as `Combined Step TFLOPS` work.
    #[arg(long)]
    pub metric: Option<String>,
}

pub fn gate(ctx: &Ctx, a: &GateArgs) -> Result<CmdOutput> {
    let incumbent = BenchTable::read(&a.base)?;
    // The incumbent's header is the reference: a drifted candidate header is reported as
    // such, before its columns are interpreted.
    let candidate = BenchTable::read_with_header(
        &a.candidate,
        &incumbent.schema.header(),
        "incumbent",
        "candidate",
    )?;
    let samples = SamplesBeside::load(&a.base, &a.candidate)?;
    let manifest = campaign_manifest(&ctx.campaign)?;
    let config = manifest
        .as_ref()
        .map(|m| m.gate.clone())
        .unwrap_or_else(GateConfig::default);
    let metric = match (&a.metric, &manifest) {
        (Some(name), _) => name.clone(),
        (None, Some(m)) => m.primary_metric.clone(),
        (None, None) => default_metric(&incumbent.schema, &a.base)?,
    };
    let report = judge(&GateInput {
        incumbent: &incumbent,
        candidate: &candidate,
        incumbent_samples: samples.incumbent.as_ref(),
        candidate_samples: samples.candidate.as_ref(),
        metric: &metric,
        config: &config,
    })
    .map_err(|e| match e {
        // The gate is pure and knows no paths: name the two files here.
        Error::Input(msg) => Error::Input(format!(
            "{} vs {}: {msg}",
            a.base.display(),
            a.candidate.display()
        )),
        other => other,
    })?;
    let json = serde_json::to_value(&report)
        .map_err(|e| Error::Internal(format!("serializing the gate report: {e}")))?;
    let mut human = render(&report, &candidate.schema);
    if let Some(note) = samples.note {
        human.push_str(&format!("note: {note}\n"));
    }
    Ok(CmdOutput {
        json,
        human,
        exit: if report.verdict.allows_accept() {
            exit::OK
        } else {
            exit::GATE_REJECTED
        },
    })
}

/// The campaign's manifest when the campaign directory has one. A manifest that exists
/// but does not parse is an error: its thresholds must never be silently dropped.
fn campaign_manifest(dir: &Path) -> Result<Option<Manifest>> {
    if dir.join(MANIFEST_FILE).is_file() {
        Manifest::load(dir).map(Some)
    } else {
        Ok(None)
    }
}

fn default_metric(schema: &Schema, path: &Path) -> Result<String> {
    schema
        .metric_names()
        .first()
        .map(|m| (*m).to_owned())
        .ok_or_else(|| {
            Error::in_file(
                path,
                Some(1),
                None,
                "the header has no metric column (a column X with an X_stddev partner) to judge",
            )
        })
}

/// `samples.csv` files found beside the two CSVs.
struct SamplesBeside {
    incumbent: Option<Samples>,
    candidate: Option<Samples>,
    /// Why samples were not used, when that is worth saying.
    note: Option<String>,
}

impl SamplesBeside {
    fn load(base: &Path, candidate: &Path) -> Result<SamplesBeside> {
        let (base_dir, cand_dir) = (directory_of(base), directory_of(candidate));
        let same_dir = match (base_dir.canonicalize(), cand_dir.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => base_dir == cand_dir,
        };
        let (base_samples, cand_samples) =
            (base_dir.join(SAMPLES_FILE), cand_dir.join(SAMPLES_FILE));
        if same_dir {
            // One samples.csv cannot belong to both runs.
            let note = base_samples.is_file().then(|| {
                format!(
                    "{} was not used: both CSVs are in the same directory, so it cannot tell the runs apart",
                    base_samples.display()
                )
            });
            return Ok(SamplesBeside {
                incumbent: None,
                candidate: None,
                note,
            });
        }
        let read = |p: &Path| -> Result<Option<Samples>> {
            if p.is_file() {
                Samples::read(p).map(Some)
            } else {
                Ok(None)
            }
        };
        Ok(SamplesBeside {
            incumbent: read(&base_samples)?,
            candidate: read(&cand_samples)?,
            note: None,
        })
    }
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The per-shape table, then the verdict and its reasons.
fn render(report: &GateReport, schema: &Schema) -> String {
    let dash = || "-".to_owned();
    let mut rows: Vec<[String; 8]> = vec![[
        "label".to_owned(),
        schema.dim_names().join("×"),
        "check".to_owned(),
        "incumbent".to_owned(),
        "candidate".to_owned(),
        "Δ%".to_owned(),
        "band%".to_owned(),
        "class".to_owned(),
    ]];
    for s in &report.shapes {
        let dims: Vec<String> = s.dims.iter().map(u64::to_string).collect();
        let check = if s.incumbent_check == s.check {
            s.check.as_str().to_owned()
        } else {
            format!("{}→{}", s.incumbent_check.as_str(), s.check.as_str())
        };
        let class = serde_json::to_value(s.class)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        rows.push([
            s.label.clone(),
            dims.join("×"),
            check,
            s.incumbent.map_or_else(dash, format_value),
            s.candidate.map_or_else(dash, format_value),
            s.delta.map_or_else(dash, percent),
            format!("±{:.2}%", s.band * 100.0),
            if s.hard_regression {
                format!("{class} (REGRESSION)")
            } else {
                class
            },
        ]);
    }
    let mut widths = [0usize; 8];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                let pad = " ".repeat(w - cell.chars().count());
                // Numbers right-aligned, text left-aligned.
                if (3..7).contains(&i) {
                    format!("{pad}{cell}")
                } else {
                    format!("{cell}{pad}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "\nverdict: {} ({})\n",
        report.verdict.as_str(),
        report.metric
    ));
    for reason in &report.reasons {
        out.push_str(&format!("  - {reason}\n"));
    }
    out
}
