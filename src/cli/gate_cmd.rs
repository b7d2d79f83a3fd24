//! `kcamp gate BASE.csv CAND.csv [--metric NAME]`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clap::Args;

use super::export::{Format, GateSides, exporter};
use super::{CmdOutput, Ctx};
use kcamp_core::artifacts::fingerprint::{Fingerprint, describe_differences};
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::error::exit;
use kcamp_core::files::MANIFEST_FILE;
use kcamp_core::files::RESULT_JSON;
use kcamp_core::gate::{
    GateConfig, GateInput, GateReport, ShapeClass, ShapeVerdict, Verdict, judge, write_value,
};
use kcamp_core::manifest::Manifest;
use kcamp_core::schema::{BenchTable, Samples, Schema};
use kcamp_core::text::shell_word;
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
    keep_freed_memory();
    let manifest = campaign_manifest(&ctx.campaign)?;
    // The incumbent's header is the reference: a drifted candidate header is reported as
    // such, before its columns are interpreted.
    let incumbent = BenchTable::read(&a.base)?;
    let candidate = BenchTable::read_with_header(
        &a.candidate,
        &incumbent.schema.header(),
        "incumbent",
        "candidate",
    )?;
    let samples = SamplesBeside::load((&a.base, &incumbent), (&a.candidate, &candidate))?;
    let config = manifest
        .as_ref()
        .map(|m| m.gate.clone())
        .unwrap_or_else(GateConfig::default);
    let metric = match (&a.metric, &manifest) {
        (Some(name), _) => name.clone(),
        (None, Some(m)) => m.primary_metric.clone(),
        (None, None) => default_metric(&incumbent.schema, &a.base)?,
    };
    let skipped = (a.metric.is_none() && manifest.is_none())
        .then(|| skipped_metrics(&incumbent.schema, &metric))
        .flatten();
    let input = GateInput {
        incumbent: &incumbent,
        candidate: &candidate,
        incumbent_samples: samples.incumbent.as_ref(),
        candidate_samples: samples.candidate.as_ref(),
        metric: &metric,
        config: &config,
        paired: false,
    };
    let text_table = !ctx.json && exporter(a.format).is_none();
    let representative = manifest.as_ref().map(|m| &m.representative_shapes[..]);
    let judged_text = TableInPieces::new(&metric, representative);
    let report = judge(&input).map_err(|e| match e {
        // The gate is pure and knows no paths: name the two files here.
        Error::Input(msg) => Error::Input(format!(
            "{} vs {}: {msg}",
            a.base.display(),
            a.candidate.display()
        )),
        other => other,
    })?;
    let mut report = report;
    if text_table {
        judged_text.add(0, &report.shapes);
    }
    let table = text_table.then(|| judged_text.into_table());
    let (failed, full) = match &table {
        Some(table) => (table.failed, table.full),
        None => (
            any_failed(&report.shapes),
            representative.is_some_and(|r| any_beyond(&report.shapes, r)),
        ),
    };
    let unlike = like_for_like(&mut report, failed, &a.base, &a.candidate);
    // The tables are judged: their memory goes to the report's text (the table's padded
    // rows, the JSON, an export) instead of fresh pages (a 10,000-shape table is megabytes,
    // and every fresh 4 KiB page is a fault).
    let schema = candidate.schema.clone();
    drop((incumbent, candidate));
    // Only the form that is printed is made: 10,000-shape reports are common. The text's
    // table is written to stdout as it is made, before the rest of the text.
    let table = table.map(|table| {
        let dims = schema.dim_names().join("×");
        Box::new(move |out: &mut dyn std::io::Write| write_table(&table.pieces, &dims, out))
            as super::TextStream
    });
    let mut human = if ctx.json {
        String::new()
    } else if let Some(export) = exporter(a.format) {
        let sides = GateSides {
            base: a.base.display().to_string(),
            candidate: a.candidate.display().to_string(),
            base_measured: measured_on(&a.base),
            candidate_measured: measured_on(&a.candidate),
        };
        export.gate(&report, &schema.dim_names(), &sides)
    } else {
        verdict_text(&report)
    };
    if !ctx.json && a.format == Format::Text {
        for note in [&skipped, &samples.note].into_iter().flatten() {
            human.push_str(&format!("note: {note}\n"));
        }
    }
    let code = if report.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    drop(samples);
    // The text and the JSON document end with the next step (an exported table or
    // markdown comment is a document of its own). The report is streamed as it is
    // serialized (it is plain derived data, no maps).
    let next = if !ctx.json && a.format != Format::Text {
        Vec::new()
    } else {
        let campaign = manifest.as_ref().map(|_| GateCampaign {
            prefix: super::campaign_cmd::prefix(ctx),
            round_open: kcamp_core::campaign::CampaignState::load(&ctx.campaign)
                .is_ok_and(|st| st.open_round.is_some()),
            full,
            imports: kcamp_core::campaign::Campaign::open(&ctx.campaign)
                .is_ok_and(|c| kcamp_core::campaign::refuse_builtin_if_imported(&c).is_err()),
        });
        vec![next_step(&report, a, unlike, campaign.as_ref())]
    };
    let out = CmdOutput::streamed(Rc::new(report), human, code, write_report).with_next(next);
    Ok(match table {
        Some(table) => out.with_text_stream(table),
        None => out,
    })
}

/// Memory the gate frees stays in the process for its next allocations: the tables it
/// reads are freed before the report's text is written, and glibc would otherwise return
/// each large buffer to the system on free and clear fresh pages for the next one
/// (scripts/gate-perf/README.md: 2,180 page faults became 1,760). The process exits right
/// after.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// glibc's ceiling for the mmap threshold on 64-bit systems.
        const HEAP: libc::c_int = 32 << 20;
        // SAFETY: mallopt only sets the allocator's tuning parameters; a value it does not
        // take is refused with 0 and changes nothing.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP);
            libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
        }
    }
}

/// The report as pretty JSON, its shapes serialized in pieces by two threads
/// (`json::write_pretty_with_items`), with the next steps last as `next` when there are any.
fn write_report(
    report: &GateReport,
    next: &[String],
    out: &mut impl std::io::Write,
) -> serde_json::Result<()> {
    /// The report's fields, then `next` when there are next steps.
    #[derive(serde::Serialize)]
    struct WithNext<'a> {
        #[serde(flatten)]
        report: &'a GateReport,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        next: &'a [String],
    }
    let head = GateReport {
        verdict: report.verdict,
        metric: report.metric.clone(),
        aggregate: report.aggregate.clone(),
        reasons: report.reasons.clone(),
        shapes: Vec::new(),
        noted_regressions: report.noted_regressions.clone(),
        config: report.config.clone(),
        paired: report.paired,
    };
    let head = WithNext {
        report: &head,
        next,
    };
    super::json::write_pretty_with_items(out, &head, "shapes", &report.shapes, &ShapeJson)
}

/// A shape of the JSON report written field by field, as its derived `Serialize` writes it
/// through serde_json (the same number and string formatting, from serde_json itself) at
/// a third of the cost: 10,000 shapes are 4 MB. The test below holds the two together.
struct ShapeJson;

impl super::json::ItemWriter<ShapeVerdict> for ShapeJson {
    fn write<W: std::io::Write>(&self, out: &mut W, s: &ShapeVerdict) -> serde_json::Result<()> {
        use serde_json::ser::{CompactFormatter, Formatter};
        let number = |out: &mut W, v: Option<f64>| match v {
            Some(v) if v.is_finite() => CompactFormatter.write_f64(out, v),
            _ => out.write_all(b"null"),
        };
        let text = |out: &mut W, v: &str| serde_json::to_writer(out, v);
        let io = serde_json::Error::io;
        out.write_all(b"{\n      \"label\": ").map_err(io)?;
        text(out, &s.label)?;
        out.write_all(b",\n      \"dims\": [").map_err(io)?;
        for (i, d) in s.dims.iter().enumerate() {
            let separator: &[u8] = if i == 0 {
                b"\n        "
            } else {
                b",\n        "
            };
            out.write_all(separator).map_err(io)?;
            CompactFormatter.write_u64(out, *d).map_err(io)?;
        }
        if !s.dims.is_empty() {
            out.write_all(b"\n      ").map_err(io)?;
        }
        out.write_all(b"],\n      \"check\": ").map_err(io)?;
        text(out, s.check.as_str())?;
        out.write_all(b",\n      \"incumbent_check\": ")
            .map_err(io)?;
        text(out, s.incumbent_check.as_str())?;
        for (name, v) in [
            (&b",\n      \"incumbent\": "[..], s.incumbent),
            (b",\n      \"candidate\": ", s.candidate),
            (b",\n      \"delta\": ", s.delta),
            (b",\n      \"band\": ", Some(s.band)),
            (b",\n      \"p_value\": ", s.p_value),
        ] {
            out.write_all(name).map_err(io)?;
            number(out, v).map_err(io)?;
        }
        out.write_all(b",\n      \"pairs\": ").map_err(io)?;
        match s.pairs {
            Some(p) => CompactFormatter.write_u32(out, p),
            None => out.write_all(b"null"),
        }
        .map_err(io)?;
        out.write_all(b",\n      \"class\": ").map_err(io)?;
        text(out, s.class.as_str())?;
        out.write_all(if s.hard_regression {
            b",\n      \"hard_regression\": true\n    }"
        } else {
            b",\n      \"hard_regression\": false\n    }"
        })
        .map_err(io)
    }
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

/// Value columns before the metric judged by default, which a reader may have expected to
/// be judged: they are not, for want of a `_stddev` column. None when there are none.
fn skipped_metrics(schema: &Schema, metric: &str) -> Option<String> {
    use kcamp_core::schema::ColumnRole;
    let at = schema.index_of(metric)?;
    let skipped: Vec<&str> = schema.columns[..at]
        .iter()
        .filter(|c| c.role == ColumnRole::Value)
        .map(|c| c.name.as_str())
        .collect();
    if skipped.is_empty() {
        return None;
    }
    Some(format!(
        "judged '{metric}', the first column with a '_stddev' column beside it; '{}' {} none and {} not judged (the gate needs each value's spread; --metric picks the metric)",
        skipped.join("', '"),
        if skipped.len() == 1 { "has" } else { "have" },
        if skipped.len() == 1 { "is" } else { "are" },
    ))
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
/// Whether the two sides' fingerprints differ (then the verdict asks for a re-measure).
/// `failed`: some shape failed in the candidate (the verdict is a rejection then anyway).
fn like_for_like(report: &mut GateReport, failed: bool, base: &Path, candidate: &Path) -> bool {
    let (base_dir, cand_dir) = (directory_of(base), directory_of(candidate));
    if base_dir == cand_dir {
        return false;
    }
    let read = |d: &Path| Fingerprint::read(d).ok().flatten();
    let (Some(inc), Some(cand)) = (read(&base_dir), read(&cand_dir)) else {
        return false;
    };
    let differ = inc.differences(&cand);
    if differ.is_empty() {
        return false;
    }
    if !failed {
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
    true
}

/// What to do with a verdict of the standalone gate (it records nothing): the command that
/// shows why, measures again, or carries the result on. `campaign`: the `kcamp [-C DIR]` of
/// the campaign the gate ran in, if any.
/// The campaign a gate ran in: its `kcamp [-C DIR]`, whether a round is open to take the
/// candidate's CSV, whether that CSV holds more than the representative shapes (then only a
/// full validation takes it), and whether the campaign's measurements are imported CSVs
/// (else it measures its kernel itself, and a CSV from elsewhere is not measured alike).
struct GateCampaign {
    prefix: String,
    round_open: bool,
    full: bool,
    imports: bool,
}

fn next_step(
    report: &GateReport,
    a: &GateArgs,
    unlike: bool,
    campaign: Option<&GateCampaign>,
) -> String {
    let candidate = shell_word(&a.candidate.display().to_string()).into_owned();
    let mut files = format!("{} {candidate}", shell_word(&a.base.display().to_string()));
    // The gate run again on the same files judges the same metric.
    if let Some(metric) = &a.metric {
        files.push_str(&format!(" --metric {}", shell_word(metric)));
    }
    match (report.verdict, campaign) {
        (Verdict::NeedsRemeasure, _) if unlike => "measure both sides alike (one adapter, backend, driver, checks mode and harness), then gate again; inside a campaign `kcamp validate` measures the incumbent beside the candidate".into(),
        (Verdict::NeedsRemeasure, _) => {
            "measure the candidate again (more `timing.repeats` narrow the bands), then gate again".into()
        }
        (Verdict::Reject, _) => {
            format!("kcamp gate {files} --format csv   # every shape's numbers, to find where it lost")
        }
        (Verdict::Accept | Verdict::AcceptWithNote, Some(c)) if !c.imports => {
            let (k, full) = (&c.prefix, if c.full { " --full" } else { "" });
            let measure = format!(
                "{k} validate{full}   # with the candidate kernel in kernel/: this campaign measures its kernels itself, so the verdict compares numbers measured alike"
            );
            if c.round_open {
                measure
            } else {
                format!("{k} round new --hypothesis TEXT, then {measure}")
            }
        }
        (Verdict::Accept | Verdict::AcceptWithNote, Some(c)) => {
            let (k, full) = (&c.prefix, if c.full { " --full" } else { "" });
            if c.round_open {
                format!(
                    "{k} validate{full} --csv {candidate}   # record the candidate as this round's measurement, then `{k} accept`"
                )
            } else {
                format!(
                    "{k} round new --hypothesis TEXT, then {k} validate{full} --csv {candidate}   # record the candidate as a new round's measurement"
                )
            }
        }
        (Verdict::Accept | Verdict::AcceptWithNote, None) => {
            format!("kcamp gate {files} --format markdown   # the verdict as a pull-request comment")
        }
    }
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
        super::timing_methods(&result)
    ))
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The text table's rows made as the shapes are judged: each piece of verdicts becomes a
/// piece of cells on the thread that judged it, and the verdicts are not kept.
struct TableInPieces<'a> {
    metric: &'a str,
    /// The campaign's representative shapes, when the gate runs in one.
    representative: Option<&'a [String]>,
    pieces: std::sync::Mutex<Vec<(usize, Cells)>>,
    failed: std::sync::atomic::AtomicBool,
    full: std::sync::atomic::AtomicBool,
}

/// Some shape failed in the candidate.
fn any_failed(shapes: &[ShapeVerdict]) -> bool {
    shapes.iter().any(|s| s.class == ShapeClass::Failed)
}

/// Some shape is not one of the campaign's `representative` shapes (then only a full
/// validation takes the candidate's CSV).
fn any_beyond(shapes: &[ShapeVerdict], representative: &[String]) -> bool {
    shapes
        .iter()
        .any(|s| !representative.iter().any(|r| *r == s.label))
}

/// What [`TableInPieces`] made, once every shape was judged.
struct JudgedTable {
    /// In the candidate's order.
    pieces: Vec<Cells>,
    /// Some shape failed in the candidate.
    failed: bool,
    /// Some shape is not one of the campaign's representative shapes.
    full: bool,
}

impl<'a> TableInPieces<'a> {
    fn new(metric: &'a str, representative: Option<&'a [String]>) -> Self {
        TableInPieces {
            metric,
            representative,
            pieces: std::sync::Mutex::new(Vec::new()),
            failed: false.into(),
            full: false.into(),
        }
    }

    /// The verdicts of the shapes from position `at` on.
    fn add(&self, at: usize, verdicts: &[ShapeVerdict]) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut cells = Cells::with_capacity(verdicts.len());
        cells.push_shapes(verdicts, self.metric);
        if any_failed(verdicts) {
            self.failed.store(true, Relaxed);
        }
        if self.representative.is_some_and(|r| any_beyond(verdicts, r)) {
            self.full.store(true, Relaxed);
        }
        // A poisoned lock means the other judging thread panicked: the join passes that on.
        if let Ok(mut pieces) = self.pieces.lock() {
            pieces.push((at, cells));
        }
    }

    fn into_table(self) -> JudgedTable {
        let mut pieces = self.pieces.into_inner().unwrap_or_default();
        pieces.sort_unstable_by_key(|(at, _)| *at);
        JudgedTable {
            pieces: pieces.into_iter().map(|(_, cells)| cells).collect(),
            failed: self.failed.into_inner(),
            full: self.full.into_inner(),
        }
    }
}

/// The per-shape table: the header, then `pieces` of rows in order, each row padded to the
/// widest cell of its column in any piece. Two threads pad it when there are several
/// pieces, taking them as each is free (par::Pieces: fixed halves left one thread waiting
/// whenever the other ran slower): one from the first piece, writing to `out` as it goes,
/// the other from the last, into buffers written after (a 10,000-shape table is a
/// megabyte: held whole, it would be a megabyte of fresh memory).
fn write_table(
    pieces: &[Cells],
    dim_names: &str,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let widest = |a: [usize; COLUMNS], b: [usize; COLUMNS]| std::array::from_fn(|i| a[i].max(b[i]));
    let widths = pieces
        .iter()
        .fold([0; COLUMNS], |w, cells| widest(w, cells.widths()));
    // The p column only when a test was run (samples beside the CSVs): without samples every
    // cell would be empty, and a column of nothing is not shown at all.
    let tested = widths[P] > 0;
    let mut head = Cells::with_capacity(1);
    head.push_row(&table_header(dim_names, tested));
    let widths = widest(widths, head.widths());
    if pieces.len() < 2 {
        return write_padded(std::iter::once(&head).chain(pieces), &widths, out);
    }
    let taking = kcamp_core::par::Pieces::new(pieces.len(), 1);
    let (front, back) = kcamp_core::par::join(
        || {
            // Each piece taken once the one before it is padded, not all at once: the other
            // side takes from the last meanwhile.
            let taken = std::iter::from_fn(|| taking.front().map(|i| &pieces[i]));
            write_padded(std::iter::once(&head).chain(taken), &widths, out)
        },
        || {
            let mut padded = Vec::new();
            while let Some(i) = taking.back() {
                let mut rows = Vec::with_capacity(pieces[i].text.len() * 2);
                pieces[i].pad_into(&widths, &mut rows, |_| Ok(()))?;
                padded.push(rows);
            }
            std::io::Result::Ok(padded)
        },
    );
    front?;
    // Taken from the last: written in the other order.
    back?.iter().rev().try_for_each(|rows| out.write_all(rows))
}

/// The table's header; `tested`: a p column.
fn table_header(dim_names: &str, tested: bool) -> [&str; COLUMNS] {
    [
        "label",
        dim_names,
        "check",
        "incumbent",
        "candidate",
        "Δ",
        "band",
        if tested { "p" } else { "" },
        "class",
    ]
}

/// The verdict and its reasons, under the table.
fn verdict_text(report: &GateReport) -> String {
    let mut out = format!(
        "\nverdict: {} ({})\n",
        report.verdict.as_str(),
        report.metric
    );
    for reason in &report.reasons {
        let _ = writeln!(out, "  - {reason}");
    }
    out
}

/// A cell's [`Cells::extra`] when it has too many continuation bytes to note in a byte.
const UNCOUNTED: u8 = u8::MAX;

/// Columns of the gate table (the p column is empty, and not shown, without samples).
const COLUMNS: usize = 9;

/// The p column: its cells are empty where a shape has no p-value, shown as `-` once any
/// shape has one.
const P: usize = 7;

/// Rows of table cells, written once into one buffer (reports of 10,000 shapes are common),
/// each cell remembered by where it ends (it starts where the one before it ended).
struct Cells {
    text: String,
    ends: Vec<[u32; COLUMNS]>,
    /// Per row, each cell's bytes beyond its characters (its UTF-8 continuation bytes), so
    /// that padding does not measure every cell a second time; [`UNCOUNTED`] from 255 up:
    /// measure again.
    extra: Vec<[u8; COLUMNS]>,
    /// The widest cell of each column so far, in characters.
    widths: [usize; COLUMNS],
}

impl Cells {
    fn with_capacity(rows: usize) -> Cells {
        Cells {
            // About 80 bytes of cells a row: reserved once (unwritten capacity costs nothing).
            text: String::with_capacity(128 * rows),
            ends: Vec::with_capacity(rows),
            extra: Vec::with_capacity(rows),
            widths: [0; COLUMNS],
        }
    }

    fn push_row(&mut self, cells: &[&str; COLUMNS]) {
        let mut row = [0; COLUMNS];
        for (end, cell) in row.iter_mut().zip(cells) {
            self.text.push_str(cell);
            *end = self.text.len();
        }
        self.end_row(row);
    }

    /// The row whose cells end at `ends` is written: measure its cells while they are in
    /// the cache.
    fn end_row(&mut self, ends: [usize; COLUMNS]) {
        let mut start = self.ends.last().map_or(0, |row| row[COLUMNS - 1] as usize);
        let mut extra = [0; COLUMNS];
        for ((w, end), extra) in self.widths.iter_mut().zip(ends).zip(&mut extra) {
            let width = width_in(self.text.as_bytes(), start, end);
            *w = (*w).max(width);
            *extra = u8::try_from(end - start - width).unwrap_or(UNCOUNTED);
            start = end;
        }
        self.extra.push(extra);
        // Offsets in 32 bits: the text of a table stays far below 4 GiB (inputs are capped
        // at MAX_INPUT_BYTES), and half the bytes are half the pages to fault in.
        self.ends.push(ends.map(|e| e as u32));
    }

    /// One row per shape: label, dims, check, the two values, Δ, band, p, class. A shape
    /// without a p-value has an empty p cell (shown as `-` where another has one).
    fn push_shapes(&mut self, shapes: &[ShapeVerdict], metric: &str) {
        for s in shapes {
            let text = &mut self.text;
            let mut row = [0; COLUMNS];
            text.push_str(&s.label);
            row[0] = text.len();
            for (i, d) in s.dims.iter().enumerate() {
                if i > 0 {
                    text.push('×');
                }
                text.push_str(itoa::Buffer::new().format(*d));
            }
            row[1] = text.len();
            if s.incumbent_check != s.check {
                text.push_str(s.incumbent_check.as_str());
                text.push('→');
            }
            text.push_str(s.check.as_str());
            row[2] = text.len();
            for (i, v) in [(3, s.incumbent), (4, s.candidate)] {
                match v {
                    Some(v) => write_value(text, v, metric),
                    None => text.push('-'),
                }
                row[i] = text.len();
            }
            match s.delta {
                Some(d) => kcamp_core::units::write_change(text, d),
                None => text.push('-'),
            }
            row[5] = text.len();
            // A band is the noise a change is held to: without a change there is none.
            if s.delta.is_some() {
                text.push('±');
                kcamp_core::units::write_sig(text, s.band * 100.0);
                text.push('%');
            } else {
                text.push('-');
            }
            row[6] = text.len();
            if let Some(p) = s.p_value {
                text.push_str(&kcamp_core::units::p_value(p));
            }
            row[P] = text.len();
            text.push_str(s.class.as_str());
            if s.hard_regression {
                text.push_str(" (REGRESSION)");
            }
            row[8] = text.len();
            self.end_row(row);
        }
    }

    /// Where each row's cells start and end in the text (each is whole UTF-8: they are
    /// written as text), with the row's [`Cells::extra`].
    fn spans(&self) -> impl Iterator<Item = ([(usize, usize); COLUMNS], &[u8; COLUMNS])> {
        let mut start = 0;
        self.ends.iter().zip(&self.extra).map(move |(ends, extra)| {
            let row = std::array::from_fn(|i| {
                let end = ends[i] as usize;
                (if i == 0 { start } else { ends[i - 1] as usize }, end)
            });
            start = ends[COLUMNS - 1] as usize;
            (row, extra)
        })
    }

    /// The widest cell of each column, in characters.
    fn widths(&self) -> [usize; COLUMNS] {
        self.widths
    }

    /// The padded rows appended to `out`, `after_row` called after each (to pass on what
    /// has gathered).
    fn pad_into(
        &self,
        widths: &[usize; COLUMNS],
        out: &mut Vec<u8>,
        mut after_row: impl FnMut(&mut Vec<u8>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        const RIGHT: [bool; COLUMNS] = [false, false, false, true, true, true, true, true, false];
        const SPACES: [u8; 64] = [b' '; 64];
        let pad = |out: &mut Vec<u8>, mut n: usize| {
            while n > 0 {
                let k = n.min(SPACES.len());
                out.extend_from_slice(&SPACES[..k]);
                n -= k;
            }
        };
        // The last column shown is text: its cells are not padded (a line has no trailing
        // spaces).
        let last = widths.iter().rposition(|w| *w > 0);
        let text = self.text.as_bytes();
        for (row, extra) in self.spans() {
            for (i, (&(start, end), w)) in row.iter().zip(widths).enumerate() {
                // A column empty in every row, header included, takes no room.
                if *w == 0 {
                    continue;
                }
                if i > 0 {
                    out.extend_from_slice(b"  ");
                }
                let (cell, width) = match extra[i] {
                    // No p-value, in a table where another shape has one.
                    _ if i == P && start == end => (&b"-"[..], 1),
                    UNCOUNTED => (&text[start..end], width_in(text, start, end)),
                    extra => (&text[start..end], end - start - usize::from(extra)),
                };
                let room = w - width;
                if RIGHT[i] {
                    pad(out, room);
                }
                out.extend_from_slice(cell);
                if !RIGHT[i] && Some(i) != last {
                    pad(out, room);
                }
            }
            // Cells empty at the end of a row leave their separators and padding.
            while out.last() == Some(&b' ') {
                out.pop();
            }
            out.push(b'\n');
            after_row(out)?;
        }
        Ok(())
    }
}

/// The rows of `cells` in turn padded to `widths`, numbers right-aligned, text left-aligned,
/// each line without trailing spaces, written to `to` 64 KiB at a time.
fn write_padded<'c>(
    cells: impl IntoIterator<Item = &'c Cells>,
    widths: &[usize; COLUMNS],
    to: &mut (impl std::io::Write + ?Sized),
) -> std::io::Result<()> {
    const CHUNK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(CHUNK + 1024);
    for cells in cells {
        cells.pad_into(widths, &mut buf, |buf| {
            if buf.len() >= CHUNK {
                to.write_all(buf)?;
                buf.clear();
            }
            Ok(())
        })?;
    }
    to.write_all(&buf)
}

/// A cell's width in characters: its bytes that do not continue a UTF-8 sequence, counted
/// eight at a time (a 10,000-shape table has 90,000 cells).
fn width(cell: &[u8]) -> usize {
    let (words, rest) = cell.as_chunks::<8>();
    let whole = words.iter().map(|w| continuing(u64::from_le_bytes(*w)));
    let rest = rest.iter().filter(|&&b| (b as i8) < -0x40).count();
    cell.len() - whole.sum::<usize>() - rest
}

/// [`width`] of `text[start..end]`, a cell among the table's text. Most cells are at most
/// 16 bytes: one or two words read from the text, the second the eight bytes that end the
/// cell (they lie in the text wherever `end` is at least 8, every cell after the first
/// few), its bytes already counted shifted away.
fn width_in(text: &[u8], start: usize, end: usize) -> usize {
    let cell = &text[start..end];
    let word_at = |at: usize| {
        text.get(at..at + 8)
            .and_then(<[u8]>::first_chunk::<8>)
            .map(|w| u64::from_le_bytes(*w))
    };
    let last = end.checked_sub(8).and_then(word_at);
    // Little-endian: the cell's last bytes are the word's top ones.
    match (cell.len(), last) {
        (0, _) => 0,
        (n @ 1..=8, Some(last)) => n - continuing(last >> (8 * (8 - n))),
        (n @ 9..=16, Some(last)) => match word_at(start) {
            Some(first) => n - continuing(first) - continuing(last >> (8 * (16 - n))),
            None => width(cell),
        },
        _ => width(cell),
    }
}

/// The UTF-8 continuation bytes among the eight of `word`. A continuation byte is
/// 0b10xx_xxxx: its top bit set, the bit below it clear (shifted up by one, each byte's
/// bit 6 lands on its own bit 7). The marks, one per byte moved down to its bit 0, are
/// summed by a multiplication into the top byte (x86-64's baseline has no popcount
/// instruction: `count_ones` is a dozen operations).
fn continuing(word: u64) -> usize {
    const TOP: u64 = 0x8080_8080_8080_8080;
    let marks = (word & !(word << 1) & TOP) >> 7;
    (marks.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::json::{ItemWriter, Serialized};
    use kcamp_core::types::Check;

    #[test]
    fn a_cell_is_as_wide_as_its_characters() {
        for cell in [
            "",
            "a",
            "PASS",
            "1×4096×4096×4096",
            "ERROR→FAIL",
            "±4.99%",
            "12.4 µs",
            "regressed (REGRESSION)",
            "ééééééééé",
            "→→→→→→→→→→→→",
            "日本語のラベル",
        ] {
            assert_eq!(width(cell.as_bytes()), cell.chars().count(), "{cell}");
            // Among a table's text, after cells of every length and kind, and before others.
            for before in [
                "",
                "x",
                "→",
                "日本",
                "ab±",
                "1×64×64",
                "µµµµµµµ",
                "regressed",
            ] {
                let text = format!("{before}{cell}±x");
                let (start, end) = (before.len(), before.len() + cell.len());
                let shown = text.as_bytes();
                assert_eq!(
                    width_in(shown, start, end),
                    cell.chars().count(),
                    "{cell} after {before}"
                );
            }
        }
    }

    /// The text table of `shapes` on Forward TFLOPS, made as the gate makes it from pieces
    /// of `piece` shapes, handed over last piece first.
    fn table_of(shapes: &[ShapeVerdict], piece: usize) -> String {
        let judged = TableInPieces::new("Forward TFLOPS", None);
        let starts: Vec<usize> = (0..shapes.len()).step_by(piece).collect();
        for &at in starts.iter().rev() {
            judged.add(at, &shapes[at..(at + piece).min(shapes.len())]);
        }
        let table = judged.into_table();
        let mut out = Vec::new();
        write_table(&table.pieces, "B×M×N", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Every row is padded to its columns' widest cell in characters, on one thread and on
    /// two, whatever the labels' bytes: ASCII, two bytes a character, and past 255 bytes
    /// beyond their characters (measured again when padded).
    #[test]
    fn every_row_is_padded_to_the_widest_cell_in_characters() {
        let labels = ["a", "éé", &"é".repeat(100), &"日本".repeat(80), "→→"];
        let shape = |i: usize| ShapeVerdict {
            label: format!("{}{i}", labels[i % labels.len()]).into(),
            dims: (&[1, 64 << (i % 3), 64][..]).into(),
            check: Check::Pass,
            incumbent_check: if i % 4 == 1 {
                Check::Error
            } else {
                Check::Pass
            },
            incumbent: Some(10.0),
            candidate: Some(10.0 + (i % 7) as f64),
            delta: Some((i % 7) as f64 / 10.0),
            band: 0.02,
            p_value: None,
            pairs: None,
            class: ShapeClass::Improved,
            hard_regression: false,
        };
        for n in [7, 2 * 2_000] {
            let shapes: Vec<ShapeVerdict> = (0..n).map(shape).collect();
            let text = table_of(&shapes, kcamp_core::par::PIECE);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), n + 1);
            // Each column starts at the same character in every line: the one after the
            // header's two spaces.
            let starts = |line: &str| {
                let chars: Vec<char> = line.chars().collect();
                (2..chars.len())
                    .filter(|&i| chars[i] != ' ' && chars[i - 1] == ' ' && chars[i - 2] == ' ')
                    .collect::<Vec<_>>()
            };
            let header = starts(lines[0]);
            assert_eq!(header.len(), 7, "{}", lines[0]);
            for line in &lines[1..] {
                // Dims and check are left-aligned: they start where their header does.
                assert_eq!(starts(line)[..2], header[..2], "{line}");
                // Numbers are right-aligned: the band ends two spaces before the class,
                // which starts where its header does.
                let chars: Vec<char> = line.chars().collect();
                let class = header[6];
                assert_eq!(chars[class - 3..class], ['%', ' ', ' '], "{line}");
                assert_eq!(chars[class..].iter().collect::<String>(), "improved");
            }
        }
    }

    /// A table large enough to be written in pieces on two threads is the table one thread
    /// writes, byte for byte, with a last piece shorter than the others.
    #[test]
    fn a_table_in_pieces_is_the_table_of_one_thread() {
        let shape = |i: usize| ShapeVerdict {
            label: format!("shape{i}").into(),
            dims: (&[1, 64u64 << (i % 5), 64 * (1 + i as u64 % 3)][..]).into(),
            check: if i % 97 == 3 {
                Check::Fail
            } else {
                Check::Pass
            },
            incumbent_check: Check::Pass,
            incumbent: Some(1.0 + (i % 13) as f64),
            candidate: (i % 97 != 3).then_some(1.5 + (i % 11) as f64),
            delta: (i % 97 != 3).then_some((i % 11) as f64 / 9.0 - 0.5),
            band: 0.02 + (i % 3) as f64 / 100.0,
            p_value: None,
            pairs: None,
            class: if i.is_multiple_of(2) {
                ShapeClass::Improved
            } else {
                ShapeClass::Regressed
            },
            hard_regression: i % 4 == 1,
        };
        let n = 9 * kcamp_core::par::PIECE + 123;
        let shapes: Vec<ShapeVerdict> = (0..n).map(shape).collect();
        let expected = table_of(&shapes, n);
        assert_eq!(expected.lines().count(), n + 1);
        // The pieces each thread takes depend on timing: a few runs meet different ones.
        for _ in 0..5 {
            assert!(
                table_of(&shapes, kcamp_core::par::PIECE) == expected,
                "the table in pieces differs from one thread's"
            );
        }
    }

    /// The p column is shown once any shape has a p-value, wherever that shape lies, and a
    /// shape without one shows `-` there; without any there is no column.
    #[test]
    fn the_p_column_is_shown_when_a_shape_was_tested() {
        let shape = |i: usize, p: Option<f64>| ShapeVerdict {
            label: format!("s{i}").into(),
            dims: (&[1, 64, 64][..]).into(),
            check: Check::Pass,
            incumbent_check: Check::Pass,
            incumbent: Some(10.0),
            candidate: Some(11.0),
            delta: Some(0.1),
            band: 0.02,
            p_value: p,
            pairs: None,
            class: ShapeClass::Improved,
            hard_regression: false,
        };
        let untested: Vec<ShapeVerdict> = (0..3).map(|i| shape(i, None)).collect();
        assert_eq!(
            table_of(&untested, 1),
            "label  B×M×N    check     incumbent     candidate       Δ    band  class\n\
             s0     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n\
             s1     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n\
             s2     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n"
        );
        let mut tested = untested.clone();
        tested[2].p_value = Some(0.0123);
        let text = table_of(&tested, 1);
        let lines: Vec<&str> = text.lines().collect();
        // Numbers are right-aligned, the p-value among them.
        assert!(lines[0].ends_with("band       p  class"), "{text}");
        assert!(lines[1].ends_with("±2.00%       -  improved"), "{text}");
        assert!(lines[3].ends_with("±2.00%  0.0123  improved"), "{text}");
        // In one piece or in several alike.
        assert_eq!(table_of(&tested, 3), text);
    }

    #[test]
    fn a_shape_is_written_as_its_serialize_writes_it() {
        let base = ShapeVerdict {
            label: "s0".into(),
            dims: [1, 64, 128, 256].into(),
            check: Check::Pass,
            incumbent_check: Check::TimeoutFail,
            incumbent: Some(48.725114494290935),
            candidate: Some(1e-300),
            delta: Some(-0.6720682908538244),
            band: 0.045573783165296214,
            p_value: None,
            pairs: None,
            class: ShapeClass::Regressed,
            hard_regression: true,
        };
        let mut shapes = vec![base.clone()];
        for (i, check) in [Check::Fail, Check::Error, Check::Pass]
            .into_iter()
            .enumerate()
        {
            shapes.push(ShapeVerdict {
                label: format!("q\"\\µ\u{7f}{i}").into(),
                dims: vec![u64::MAX; i].into(),
                check,
                incumbent_check: check,
                incumbent: [None, Some(f64::NAN), Some(0.0)][i],
                candidate: [Some(f64::INFINITY), None, Some(-0.0)][i],
                delta: [None, Some(1e21), Some(123456789.0)][i],
                band: [f64::NAN, 5e-324, 2.0][i],
                p_value: [Some(0.05), Some(f64::NEG_INFINITY), Some(1.0)][i],
                pairs: [Some(0), Some(10), Some(u32::MAX)][i],
                class: [
                    ShapeClass::Failed,
                    ShapeClass::Neutral,
                    ShapeClass::Improved,
                ][i],
                hard_regression: i == 1,
            });
        }
        for shape in &shapes {
            let (mut fast, mut serde) = (Vec::new(), Vec::new());
            ShapeJson.write(&mut fast, shape).unwrap();
            Serialized.write(&mut serde, shape).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(serde).unwrap()
            );
        }
    }
}
