//! `kcamp gate BASE.csv CAND.csv [--metric NAME]`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::export::{Format, GateSides, exporter};
use super::{CmdOutput, Ctx};
use kcamp_core::artifacts::fingerprint::{Fingerprint, describe_differences};
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::error::exit;
use kcamp_core::files::MANIFEST_FILE;
use kcamp_core::files::RESULT_JSON;
use kcamp_core::gate::{
    GateConfig, GateInput, GateReport, ShapeClass, Verdict, judge, percent, write_value,
};
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
    /// text (aligned table), markdown (a pull-request comment), csv (raw numbers) or json.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn gate(ctx: &Ctx, a: &GateArgs) -> Result<CmdOutput> {
    // The two files are parsed side by side. The incumbent's header is the reference: a
    // drifted candidate header is reported as such, before its columns are interpreted.
    let (incumbent, candidate) = std::thread::scope(|s| {
        let candidate = s.spawn(|| BenchTable::read(&a.candidate));
        let incumbent = BenchTable::read(&a.base);
        let candidate = candidate
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("the CSV reader panicked".into())));
        (incumbent, candidate)
    });
    let incumbent = incumbent?;
    let candidate = match candidate {
        Ok(c) if c.schema.header() == incumbent.schema.header() => c,
        // Drifted or unreadable: read again held to the incumbent's header, which names the
        // first differing column before anything else.
        _ => BenchTable::read_with_header(
            &a.candidate,
            &incumbent.schema.header(),
            "incumbent",
            "candidate",
        )?,
    };
    let samples = SamplesBeside::load((&a.base, &incumbent), (&a.candidate, &candidate))?;
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
        paired: false,
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
    let mut report = report;
    like_for_like(&mut report, &a.base, &a.candidate);
    // Only the form that is printed is made: 10,000-shape reports are common.
    let mut human = if ctx.json {
        String::new()
    } else if let Some(export) = exporter(a.format) {
        let sides = GateSides {
            base: a.base.display().to_string(),
            candidate: a.candidate.display().to_string(),
            base_measured: measured_on(&a.base),
            candidate_measured: measured_on(&a.candidate),
        };
        export.gate(&report, &candidate.schema.dim_names(), &sides)
    } else {
        render(&report, &candidate.schema)
    };
    if let Some(note) = samples
        .note
        .as_ref()
        .filter(|_| !ctx.json && a.format == Format::Text)
    {
        human.push_str(&format!("note: {note}\n"));
    }
    let code = if report.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    // The process exits once the report is printed: 20,000 parsed rows are not freed one
    // by one first.
    std::mem::forget((incumbent, candidate, samples));
    // A report is plain derived data (no maps), so it can be written as it is serialized.
    Ok(CmdOutput::with_exit(report, human, code).streamed())
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
    fn load(
        (base, base_table): (&Path, &BenchTable),
        (candidate, cand_table): (&Path, &BenchTable),
    ) -> Result<SamplesBeside> {
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
        let read = |p: &Path, table: &BenchTable| -> Result<Option<Samples>> {
            if p.is_file() {
                Samples::read_for(p, table).map(Some)
            } else {
                Ok(None)
            }
        };
        Ok(SamplesBeside {
            incumbent: read(&base_samples, base_table)?,
            candidate: read(&cand_samples, cand_table)?,
            note: None,
        })
    }
}

/// Two kcamp runs (a `fingerprint.json` or `result.json` beside each CSV) are judged only
/// when they were measured alike; otherwise NEEDS_REMEASURE says what differs. CSVs without
/// a fingerprint (or with one kcamp cannot read) are judged as they are.
fn like_for_like(report: &mut GateReport, base: &Path, candidate: &Path) {
    let (base_dir, cand_dir) = (directory_of(base), directory_of(candidate));
    if base_dir == cand_dir {
        return;
    }
    let read = |d: &Path| Fingerprint::read(d).ok().flatten();
    let (Some(inc), Some(cand)) = (read(&base_dir), read(&cand_dir)) else {
        return;
    };
    let differ = inc.differences(&cand);
    if differ.is_empty() {
        return;
    }
    if !report.shapes.iter().any(|s| s.class == ShapeClass::Failed) {
        report.verdict = Verdict::NeedsRemeasure;
    }
    report.reasons.insert(
        0,
        format!(
            "not like for like: {} was measured as {}, {} as {}; they differ in {}. Measure both alike (or both in one `kcamp validate`, which pairs them).",
            base.display(),
            inc.summary(),
            candidate.display(),
            cand.summary(),
            describe_differences(&differ)
        ),
    );
}

/// `adapter (backend), timing` from a run record beside a CSV; None when there is none
/// (an imported CSV) or it does not parse (the gate never depends on it).
fn measured_on(csv: &Path) -> Option<String> {
    let result = RunResult::read(&directory_of(csv).join(RESULT_JSON)).ok()??;
    let adapter = result.adapter.as_ref()?;
    Some(format!(
        "{} ({}{}), timing {}",
        adapter.name,
        adapter.backend,
        if adapter.software {
            ", software adapter"
        } else {
            ""
        },
        result
            .timing_methods
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The per-shape table, then the verdict and its reasons. Cells are written once into one
/// buffer (reports of 10,000 shapes are common) and padded when the widths are known.
fn render(report: &GateReport, schema: &Schema) -> String {
    const COLUMNS: usize = 8;
    // Numbers right-aligned, text left-aligned.
    const RIGHT: [bool; COLUMNS] = [false, false, false, true, true, true, true, false];
    let mut text = String::new();
    let mut cells: Vec<[(usize, usize); COLUMNS]> = Vec::with_capacity(report.shapes.len() + 1);
    let mut row = [(0, 0); COLUMNS];
    // Writes cell `i` of the current row at the end of `text` and remembers where it is.
    fn cell(
        text: &mut String,
        row: &mut [(usize, usize)],
        i: usize,
        write: impl FnOnce(&mut String),
    ) {
        let start = text.len();
        write(text);
        row[i] = (start, text.len());
    }
    let header = [
        "label",
        &schema.dim_names().join("×"),
        "check",
        "incumbent",
        "candidate",
        "Δ",
        "band",
        "class",
    ]
    .map(str::to_owned);
    for (i, h) in header.iter().enumerate() {
        cell(&mut text, &mut row, i, |t| t.push_str(h));
    }
    cells.push(row);
    let metric = report.metric.as_str();
    let value = |t: &mut String, v: Option<f64>| match v {
        Some(v) => write_value(t, v, metric),
        None => t.push('-'),
    };
    for s in &report.shapes {
        cell(&mut text, &mut row, 0, |t| t.push_str(&s.label));
        cell(&mut text, &mut row, 1, |t| {
            for (i, d) in s.dims.iter().enumerate() {
                if i > 0 {
                    t.push('×');
                }
                let _ = write!(t, "{d}");
            }
        });
        cell(&mut text, &mut row, 2, |t| {
            if s.incumbent_check != s.check {
                t.push_str(s.incumbent_check.as_str());
                t.push('→');
            }
            t.push_str(s.check.as_str());
        });
        cell(&mut text, &mut row, 3, |t| value(t, s.incumbent));
        cell(&mut text, &mut row, 4, |t| value(t, s.candidate));
        cell(&mut text, &mut row, 5, |t| match s.delta {
            Some(d) => t.push_str(&percent(d)),
            None => t.push('-'),
        });
        cell(&mut text, &mut row, 6, |t| {
            t.push('±');
            kcamp_core::units::write_sig(t, s.band * 100.0);
            t.push('%');
        });
        cell(&mut text, &mut row, 7, |t| {
            t.push_str(s.class.as_str());
            if s.hard_regression {
                t.push_str(" (REGRESSION)");
            }
        });
        cells.push(row);
    }
    let width = |(a, b): (usize, usize)| text[a..b].chars().count();
    let mut widths = [0usize; COLUMNS];
    for r in &cells {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(width(*c));
        }
    }
    let mut out = String::with_capacity(text.len() + cells.len() * (COLUMNS * 2 + 1));
    for r in &cells {
        let start = out.len();
        for (i, (c, w)) in r.iter().zip(widths).enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = w - width(*c);
            if RIGHT[i] {
                out.extend(std::iter::repeat_n(' ', pad));
            }
            out.push_str(&text[c.0..c.1]);
            if !RIGHT[i] {
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let trimmed = out[start..].trim_end().len();
        out.truncate(start + trimmed);
        out.push('\n');
    }
    let _ = write!(
        out,
        "\nverdict: {} ({})\n",
        report.verdict.as_str(),
        report.metric
    );
    for reason in &report.reasons {
        let _ = writeln!(out, "  - {reason}");
    }
    out
}
