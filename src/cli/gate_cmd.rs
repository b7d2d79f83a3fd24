//! `kcamp gate BASE.csv CAND.csv [--metric NAME]`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clap::Args;

use super::export::{Format, GateSides, exporter};
use super::{CmdOutput, Ctx};
use kcamp_core::artifacts::fingerprint::Fingerprint;
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::error::exit;
use kcamp_core::files::MANIFEST_FILE;
use kcamp_core::files::RESULT_JSON;
use kcamp_core::gate::{GateConfig, GateInput, GateReport, ShapeClass, Verdict, judge};
use kcamp_core::manifest::Manifest;
use kcamp_core::next::{Call, Command, NextStep};
use kcamp_core::schema::{BenchTable, Samples, Schema};
use kcamp_core::units;
use kcamp_core::{Error, Result};

/// Raw per-repeat samples are looked up under this name beside each CSV.
use kcamp_core::files::SAMPLES_CSV as SAMPLES_FILE;

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
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
    #[serde(skip)]
    pub format: Format,
}

pub fn gate(ctx: &Ctx, a: &GateArgs) -> Result<CmdOutput> {
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
        repeats_per_block: 1,
    };
    let mut report = judge(&input).map_err(|e| match e {
        // The gate is pure and knows no paths: name the two files here.
        Error::Input(msg) => Error::Input(format!(
            "{} vs {}: {msg}",
            a.base.display(),
            a.candidate.display()
        )),
        other => other,
    })?;
    // Some shape is not one of the campaign's representative shapes: then only a full
    // validation takes the candidate's CSV.
    let full = manifest.as_ref().is_some_and(|m| {
        report
            .shapes
            .iter()
            .any(|s| !m.representative_shapes.contains(&s.label))
    });
    let unlike = like_for_like(&mut report, &a.base, &a.candidate);
    // Judged: the tables go before the report's text is made, which can then reuse their
    // memory instead of fresh pages.
    let schema = candidate.schema.clone();
    drop((incumbent, candidate));
    let dim_names = schema.dim_names();
    let mut human = if ctx.json {
        String::new()
    } else if let Some(export) = exporter(a.format) {
        let sides = GateSides {
            base: a.base.display().to_string(),
            candidate: a.candidate.display().to_string(),
            base_measured: measured_on(&a.base),
            candidate_measured: measured_on(&a.candidate),
        };
        export.gate(&report, &dim_names, &sides)
    } else {
        let mut text = shape_table(&report, &dim_names.join("×"), ["incumbent", "candidate"]);
        text.push_str(&verdict_text(&report));
        text
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
    // The text and the JSON document end with the next step (an exported table or
    // markdown comment is a document of its own).
    let next = if !ctx.json && a.format != Format::Text {
        Vec::new()
    } else {
        let campaign = manifest.as_ref().map(|_| GateCampaign {
            round_open: kcamp_core::campaign::CampaignState::load(&ctx.campaign)
                .is_ok_and(|st| st.open_round.is_some()),
            full,
            imports: kcamp_core::campaign::Campaign::open(&ctx.campaign)
                .is_ok_and(|c| kcamp_core::campaign::refuse_builtin_if_imported(&c).is_err()),
        });
        vec![next_step(&report, a, unlike, campaign.as_ref())]
    };
    Ok(CmdOutput::streamed(Rc::new(report), human, code, write_report).with_next(next))
}

/// The report as pretty JSON, with the next steps last as `next` when there are any.
fn write_report(
    report: &GateReport,
    next: &serde_json::Value,
    out: &mut impl std::io::Write,
) -> serde_json::Result<()> {
    /// The report's fields, then `next` when there are next steps.
    #[derive(serde::Serialize)]
    struct WithNext<'a> {
        #[serde(flatten)]
        report: &'a GateReport,
        #[serde(skip_serializing_if = "no_steps")]
        next: &'a serde_json::Value,
    }
    fn no_steps(next: &&serde_json::Value) -> bool {
        next.as_array().is_none_or(Vec::is_empty)
    }
    serde_json::to_writer_pretty(out, &WithNext { report, next })
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
/// Whether the two sides' fingerprints differ (then the verdict asks for a re-measure: the
/// campaign's rule, [`kcamp_core::campaign::not_like_for_like`]).
fn like_for_like(report: &mut GateReport, base: &Path, candidate: &Path) -> bool {
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
    let reason = kcamp_core::campaign::not_like_for_like(
        report,
        (&base.display().to_string(), &inc),
        (&candidate.display().to_string(), &cand),
        &differ,
        "Measure both alike (or both in one `kcamp validate`, which pairs them).",
    );
    report.reasons.insert(0, reason);
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
    round_open: bool,
    full: bool,
    imports: bool,
}

fn next_step(
    report: &GateReport,
    a: &GateArgs,
    unlike: bool,
    campaign: Option<&GateCampaign>,
) -> NextStep {
    let candidate = a.candidate.display().to_string();
    // The gate run again on the same files judges the same metric.
    let gate_again = |format: &str| {
        let mut call = Call::new(Command::Gate)
            .arg("base", a.base.display().to_string())
            .arg("candidate", candidate.clone());
        if let Some(metric) = &a.metric {
            call = call.arg("metric", metric.clone());
        }
        NextStep::call(call.arg("format", format))
    };
    match (report.verdict, campaign) {
        (Verdict::NeedsRemeasure, _) if unlike => NextStep::by_hand(
            "measure both sides alike (one adapter, backend, driver, checks mode and harness), then gate again; inside a campaign `kcamp validate` measures the incumbent beside the candidate",
        ),
        (Verdict::NeedsRemeasure, _) => NextStep::by_hand(
            "measure the candidate again (more `timing.repeats` narrow the bands), then gate again",
        ),
        // A gain inside the aggregate's band: nothing was lost, the two runs were too noisy.
        (Verdict::Reject, _)
            if report.aggregate.delta.is_some_and(|d| d > 0.0)
                && !report
                    .shapes
                    .iter()
                    .any(|s| s.class == ShapeClass::Failed || s.hard_regression) =>
        {
            NextStep::by_hand(
                "measure both sides again with more `timing.repeats` (or in one run, paired: inside a campaign `kcamp validate` measures the incumbent beside the candidate), then gate again",
            )
        }
        (Verdict::Reject, _) => {
            gate_again("csv").why("every shape's numbers, to find where it lost")
        }
        (Verdict::Accept | Verdict::AcceptWithNote, Some(c)) => {
            let mut validate = Call::new(Command::Validate).arg("full", c.full);
            if c.imports {
                validate = validate.arg("csv", candidate.clone());
            }
            let mut step = if c.round_open {
                NextStep::call(validate)
            } else {
                NextStep {
                    calls: vec![
                        Call::new(Command::RoundNew).fill("hypothesis", "TEXT"),
                        validate,
                    ],
                    ..NextStep::default()
                }
            };
            step = match (c.imports, c.round_open) {
                (false, _) => step.why("with the candidate kernel in kernel/: this campaign measures its kernels itself, so the verdict compares numbers measured alike"),
                (true, true) => {
                    step.calls.push(Call::new(Command::Accept));
                    step.why("record the candidate as this round's measurement")
                }
                (true, false) => step.why("record the candidate as a new round's measurement"),
            };
            step
        }
        (Verdict::Accept | Verdict::AcceptWithNote, None) => {
            gate_again("markdown").why("the verdict as a pull-request comment")
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

/// The per-shape table: label, dims, check, the two values, Δ, band, p (only when a test
/// was run: samples beside the CSVs) and class; numbers right-aligned.
/// The gate's table, one row a shape: the only text rendering of a gate report's shapes
/// (`kcamp gate`, a round's validation, the final report's acceptance). `sides` names the
/// two columns of values (`incumbent`, `candidate`; `BASELINE`, `incumbent`).
pub(super) fn shape_table(report: &GateReport, dim_names: &str, sides: [&str; 2]) -> String {
    use super::table::{Align::Left as L, Align::Right as R, Table};
    let metric = &report.metric;
    let tested = report.shapes.iter().any(|s| s.p_value.is_some());
    let mut table = Table::new([L, L, L, R, R, R, R, R, L]);
    table.reserve(report.shapes.len() + 1);
    table.row([
        "label",
        dim_names,
        "check",
        sides[0],
        sides[1],
        "Δ",
        "band",
        if tested { "p" } else { "" },
        "class",
    ]);
    // A paired Δ the two means contradict is marked, and the mark explained under the
    // table; the other rows keep their digits in line with the marked ones.
    let marked = report.shapes.iter().any(|s| s.means_disagree());
    // One set of cells written row after row (Table::row copies them).
    let mut cells: [String; 9] = Default::default();
    for s in &report.shapes {
        cells.iter_mut().for_each(String::clear);
        let [
            label,
            dims,
            check,
            incumbent,
            candidate,
            delta,
            band,
            p,
            class,
        ] = &mut cells;
        label.push_str(&s.label);
        for (i, d) in s.dims.iter().enumerate() {
            let _ = write!(dims, "{}{d}", if i == 0 { "" } else { "×" });
        }
        if s.incumbent_check != s.check {
            check.push_str(s.incumbent_check.as_str());
            check.push('→');
        }
        check.push_str(s.check.as_str());
        for (cell, value) in [(incumbent, s.incumbent), (candidate, s.candidate)] {
            match value {
                Some(v) => units::write_metric(cell, v, metric),
                None => cell.push('-'),
            }
        }
        match s.delta {
            Some(d) => units::write_change(delta, d),
            None => delta.push('-'),
        }
        match (marked, s.means_disagree()) {
            (_, true) => delta.push('≠'),
            (true, false) => delta.push(' '),
            (false, false) => {}
        }
        // A band is the noise a change is held to: without a change there is none.
        if s.delta.is_some() {
            band.push('±');
            units::write_sig(band, s.band * 100.0);
            band.push('%');
        } else {
            band.push('-');
        }
        match s.p_value {
            Some(value) => p.push_str(&units::p_value(value)),
            None if tested => p.push('-'),
            None => {}
        }
        class.push_str(s.class.as_str());
        if s.hard_regression {
            class.push_str(" (REGRESSION)");
        }
        table.row(cells.each_ref());
    }
    let mut text = table.render();
    if marked {
        text.push_str(kcamp_core::gate::MEANS_DISAGREE_LEGEND);
        text.push('\n');
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::gate::{Aggregate, ShapeVerdict};
    use kcamp_core::types::Check;

    fn report(shapes: Vec<ShapeVerdict>) -> GateReport {
        GateReport {
            verdict: Verdict::Accept,
            metric: "Forward TFLOPS".to_owned(),
            aggregate: Aggregate {
                incumbent: None,
                candidate: None,
                delta: None,
                band: None,
                p_value: None,
                pairs: None,
                unit: None,
                unstable: false,
            },
            reasons: Default::default(),
            shapes,
            noted_regressions: Vec::new(),
            config: GateConfig::default(),
            paired: false,
        }
    }

    fn shape(label: &str, p: Option<f64>) -> ShapeVerdict {
        ShapeVerdict {
            label: label.to_owned(),
            dims: vec![1, 64, 64],
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
        }
    }

    /// The p column is shown once any shape has a p-value, wherever that shape lies, and a
    /// shape without one shows `-` there; without any there is no column.
    #[test]
    fn the_p_column_is_shown_when_a_shape_was_tested() {
        let untested: Vec<ShapeVerdict> = (0..3).map(|i| shape(&format!("s{i}"), None)).collect();
        assert_eq!(
            shape_table(
                &report(untested.clone()),
                "B×M×N",
                ["incumbent", "candidate"]
            ),
            "label  B×M×N    check     incumbent     candidate       Δ    band  class\n\
             s0     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n\
             s1     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n\
             s2     1×64×64  PASS   10.0 TFLOP/s  11.0 TFLOP/s  +10.0%  ±2.00%  improved\n"
        );
        let mut tested = untested;
        tested[2].p_value = Some(0.0123);
        let text = shape_table(&report(tested), "B×M×N", ["incumbent", "candidate"]);
        let lines: Vec<&str> = text.lines().collect();
        // Numbers are right-aligned, the p-value among them.
        assert!(lines[0].ends_with("band       p  class"), "{text}");
        assert!(lines[1].ends_with("±2.00%       -  improved"), "{text}");
        assert!(lines[3].ends_with("±2.00%  0.0123  improved"), "{text}");
    }

    /// A paired Δ its means contradict is marked `≠`, with the legend under the table; the
    /// other rows' digits stay in line.
    #[test]
    fn a_paired_delta_the_means_contradict_is_marked() {
        let mut shapes: Vec<ShapeVerdict> = (0..2).map(|i| shape(&format!("s{i}"), None)).collect();
        assert!(
            !shape_table(&report(shapes.clone()), "B×M×N", ["incumbent", "candidate"])
                .contains('≠')
        );
        for s in &mut shapes {
            s.pairs = Some(6);
        }
        // 10 → 11 by the means is +10%: a paired +132% says something else.
        shapes[1].delta = Some(1.32);
        let text = shape_table(&report(shapes), "B×M×N", ["incumbent", "candidate"]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].contains("+10.0%   ±2.00%"), "{text}");
        assert!(lines[2].contains(" +132%≠  ±2.00%"), "{text}");
        assert_eq!(lines[3], kcamp_core::gate::MEANS_DISAGREE_LEGEND, "{text}");
        assert_eq!(lines.len(), 4, "{text}");
    }

    /// Wide labels (East Asian, emoji) take two columns of a terminal a character: the
    /// columns after them still line up on screen.
    #[test]
    fn wide_labels_are_padded_by_their_display_width() {
        let shapes = vec![shape("日本語", None), shape("abcdef", None)];
        let text = shape_table(&report(shapes), "B×M×N", ["incumbent", "candidate"]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("日本語  1×64×64"), "{text}");
        assert!(lines[2].starts_with("abcdef  1×64×64"), "{text}");
    }
}
