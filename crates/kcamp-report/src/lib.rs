//! kcamp-report: what a person reads after a campaign. `baseline_report.md`, `report.md`
//! and the charts under `report/`.
//!
//! [`campaign`] gathers the numbers from a campaign's rounds and artifacts; the rest is pure
//! presentation: every function takes plain data (the small structs below), so reports can
//! be tested without a GPU or a campaign.

pub mod campaign;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::full_palette::{BLUE_700, GREEN_700, GREY, GREY_500};

use kcamp_core::error::IoContext;
use kcamp_core::types::Check;
use kcamp_core::types::DecisionKind;
use kcamp_core::{Error, Result};

/// A peak rate with the registry source it came from (SPEC §9: always name the source).
#[derive(Debug, Clone, PartialEq)]
pub struct Peak {
    /// TFLOP/s for compute peaks, GB/s for bandwidth peaks.
    pub value: f64,
    pub source_id: String,
}

/// One shape of a full validation, as the baseline report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeResult {
    pub label: String,
    /// Dimension name and value in CSV order (`M`, 256), ...
    pub dims: Vec<(String, u64)>,
    pub check: Check,
    /// Why the shape is not PASS (compile error, timeout, ...).
    pub reason: Option<String>,
    pub rel_err: Option<f64>,
    pub latency_us: Option<f64>,
    pub tflops: Option<f64>,
    pub bandwidth_gbps: Option<f64>,
}

/// Everything `baseline_report.md` states.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineReport {
    pub campaign: String,
    pub op: String,
    pub dtype: String,
    pub adapter: String,
    pub kernel_path: String,
    /// The correctness check (built-in runner or the external harness command).
    pub correctness_test: String,
    /// How the reference is computed (e.g. "f64 CPU GEMM, C = A·B").
    pub reference: String,
    /// Stable source ids of the spec registry consulted for peaks.
    pub source_ids: Vec<String>,
    /// Key/value summary of the configuration (timing, seeds, gate thresholds, ...).
    pub configuration: Vec<(String, String)>,
    pub shapes: Vec<ShapeResult>,
    pub primary_metric: String,
    /// Geometric mean of the primary metric over PASS shapes.
    pub aggregate: Option<f64>,
    /// Geometric mean latency over PASS shapes.
    pub latency_us: Option<f64>,
    pub tflops: Option<f64>,
    pub bandwidth_gbps: Option<f64>,
    pub compute_peak: Option<Peak>,
    pub bandwidth_peak: Option<Peak>,
}

/// One round on the primary-metric chart and in the lineage table.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundPoint {
    pub round: u32,
    /// The hypothesis, shortened.
    pub label: String,
    pub aggregate: Option<f64>,
    /// None while the round is open.
    pub decision: Option<DecisionKind>,
}

/// The primary metric of one shape at BASELINE and for the incumbent.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeComparison {
    pub label: String,
    pub baseline: Option<f64>,
    pub baseline_check: Check,
    pub incumbent: Option<f64>,
    pub incumbent_check: Check,
}

/// Everything `report.md` states.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalReport {
    pub campaign: String,
    pub primary_metric: String,
    pub rounds: Vec<RoundPoint>,
    pub incumbent_round: u32,
    pub shapes: Vec<ShapeComparison>,
    pub baseline_aggregate: Option<f64>,
    pub incumbent_aggregate: Option<f64>,
    /// Chart files to embed, relative to the report.
    pub charts: Vec<String>,
    /// The final acceptance (the incumbent judged against the BASELINE): leads the report.
    pub acceptance: Option<Acceptance>,
}

/// The verdict of the final acceptance and its reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    pub verdict: String,
    pub reasons: Vec<String>,
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |x| format!("{x:.digits$}"))
}

fn sci(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |x| format!("{x:.2e}"))
}

fn pct_of(value: Option<f64>, peak: Option<&Peak>) -> Option<f64> {
    match (value, peak) {
        (Some(v), Some(p)) if p.value > 0.0 => Some(v / p.value * 100.0),
        _ => None,
    }
}

fn peak_text(peak: Option<&Peak>, unit: &str) -> String {
    peak.map_or_else(
        || "no peak registered".to_owned(),
        |p| format!("{:.1} {unit} [{}]", p.value, p.source_id),
    )
}

fn decision_text(d: Option<DecisionKind>) -> &'static str {
    match d {
        Some(DecisionKind::Baseline) => "BASELINE",
        Some(DecisionKind::Accepted) => "ACCEPTED",
        Some(DecisionKind::RolledBack) => "ROLLED_BACK",
        None => "OPEN",
    }
}

/// Markdown table cells may not contain `|` or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `baseline_report.md` (the seed procedure's Phase 4 list, step 6).
pub fn baseline_report_md(r: &BaselineReport) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Baseline report: {}\n", r.campaign);
    let _ = writeln!(
        md,
        "Op `{}`, dtype `{}`, adapter {}.\n",
        r.op, r.dtype, r.adapter
    );
    md.push_str("## Setup\n\n");
    let _ = writeln!(md, "- Baseline kernel: `{}`", r.kernel_path);
    let _ = writeln!(md, "- Correctness test: {}", r.correctness_test);
    let _ = writeln!(md, "- Reference: {}", r.reference);
    let ids = if r.source_ids.is_empty() {
        "none".to_owned()
    } else {
        r.source_ids
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(md, "- Source ids consulted: {ids}\n");
    md.push_str("### Configuration\n\n");
    for (key, value) in &r.configuration {
        let _ = writeln!(md, "- {key}: {value}");
    }

    let passed = r.shapes.iter().filter(|s| s.check == Check::Pass).count();
    let max_rel_err = r
        .shapes
        .iter()
        .filter_map(|s| s.rel_err)
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
    md.push_str("\n## Correctness\n\n");
    let _ = writeln!(
        md,
        "{passed} of {} cases PASS; max rel_err {}.\n",
        r.shapes.len(),
        sci(max_rel_err)
    );
    md.push_str("| case | dims | Check | rel_err | note |\n|---|---|---|---|---|\n");
    for s in &r.shapes {
        let dims = s
            .dims
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            cell(&s.label),
            dims,
            s.check.as_str(),
            sci(s.rel_err),
            cell(s.reason.as_deref().unwrap_or(""))
        );
    }
    let not_passing: Vec<&ShapeResult> =
        r.shapes.iter().filter(|s| s.check != Check::Pass).collect();
    if !not_passing.is_empty() {
        md.push_str("\nCases that did not pass:\n\n");
        for s in not_passing {
            let _ = writeln!(
                md,
                "- `{}`: {}{}",
                s.label,
                s.check.as_str(),
                s.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            );
        }
    }

    let compute = r.compute_peak.as_ref();
    let bandwidth = r.bandwidth_peak.as_ref();
    md.push_str("\n## Performance\n\n");
    let _ = writeln!(
        md,
        "Peaks: compute {}; bandwidth {}.\n",
        peak_text(compute, "TFLOP/s"),
        peak_text(bandwidth, "GB/s")
    );
    md.push_str("| case | latency (us) | TFLOPS | GB/s | TFLOPS peak util (%) | bandwidth peak util (%) |\n");
    md.push_str("|---|---|---|---|---|---|\n");
    for s in &r.shapes {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&s.label),
            num(s.latency_us, 2),
            num(s.tflops, 3),
            num(s.bandwidth_gbps, 1),
            num(pct_of(s.tflops, compute), 1),
            num(pct_of(s.bandwidth_gbps, bandwidth), 1)
        );
    }
    let _ = writeln!(
        md,
        "| **geomean (PASS)** | {} | {} | {} | {} | {} |",
        num(r.latency_us, 2),
        num(r.tflops, 3),
        num(r.bandwidth_gbps, 1),
        num(pct_of(r.tflops, compute), 1),
        num(pct_of(r.bandwidth_gbps, bandwidth), 1)
    );
    let _ = writeln!(
        md,
        "\nPrimary metric `{}`: aggregate {} (geometric mean over PASS shapes).",
        r.primary_metric,
        num(r.aggregate, 3)
    );
    let cited: Vec<&str> = [compute, bandwidth]
        .into_iter()
        .flatten()
        .map(|p| p.source_id.as_str())
        .collect();
    if !cited.is_empty() {
        let _ = writeln!(
            md,
            "Utilization = achieved / peak, peaks from source ids {}.",
            cited.join(", ")
        );
    }
    md
}

/// `report.md`: lineage, incumbent against baseline per shape, aggregate gain.
pub fn final_report_md(r: &FinalReport) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Campaign report: {}\n", r.campaign);
    if let Some(a) = &r.acceptance {
        let _ = writeln!(
            md,
            "**Final acceptance: {}** (round {} against the BASELINE)\n",
            a.verdict, r.incumbent_round
        );
        for reason in &a.reasons {
            let _ = writeln!(md, "- {}", cell(reason));
        }
        md.push('\n');
    }
    let gain = match (r.incumbent_aggregate, r.baseline_aggregate) {
        (Some(i), Some(b)) if b > 0.0 => Some((i / b - 1.0) * 100.0),
        _ => None,
    };
    let _ = writeln!(
        md,
        "Incumbent: round {}. Primary metric `{}`: baseline {} → incumbent {} ({}).\n",
        r.incumbent_round,
        r.primary_metric,
        num(r.baseline_aggregate, 3),
        num(r.incumbent_aggregate, 3),
        gain.map_or_else(|| "gain unknown".to_owned(), |g| format!("{g:+.1}%"))
    );
    md.push_str("## Lineage\n\n| round | decision | aggregate | hypothesis |\n|---|---|---|---|\n");
    for p in &r.rounds {
        let marker = if p.round == r.incumbent_round {
            " (incumbent)"
        } else {
            ""
        };
        let _ = writeln!(
            md,
            "| {}{} | {} | {} | {} |",
            p.round,
            marker,
            decision_text(p.decision),
            num(p.aggregate, 3),
            cell(&p.label)
        );
    }
    md.push_str("\n## Per shape\n\n| shape | baseline | Check | incumbent | Check | Δ |\n|---|---|---|---|---|---|\n");
    for s in &r.shapes {
        let delta = match (s.incumbent, s.baseline) {
            (Some(i), Some(b)) if b > 0.0 => format!("{:+.1}%", (i / b - 1.0) * 100.0),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&s.label),
            num(s.baseline, 3),
            s.baseline_check.as_str(),
            num(s.incumbent, 3),
            s.incumbent_check.as_str(),
            delta
        );
    }
    if !r.charts.is_empty() {
        md.push_str("\n## Charts\n\n");
        for c in &r.charts {
            let _ = writeln!(md, "![{c}]({c})");
        }
    }
    md
}

/// The files a chart was written to.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartFiles {
    pub svg: PathBuf,
    pub png: PathBuf,
}

const CHART_SIZE: (u32, u32) = (900, 520);
const FONT: &str = "sans-serif";

/// plotters is built without fontconfig: register the embedded DejaVu once per process.
fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            for (style, bytes) in [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
            ] {
                plotters::style::register_font(FONT, style, bytes)
                    .map_err(|_| "the embedded DejaVu font was refused".to_owned())?;
            }
            Ok(())
        })
        .clone()
        .map_err(Error::Internal)
}

/// The primary metric's aggregate over rounds: every measured round as a point coloured
/// by its decision, and the incumbent's value as a step line. Writes `<stem>.svg` and
/// `<stem>.png`.
pub fn chart_metric_over_rounds(
    metric: &str,
    points: &[RoundPoint],
    stem: &Path,
) -> Result<ChartFiles> {
    let measured: Vec<(u32, f64, Option<DecisionKind>)> = points
        .iter()
        .filter_map(|p| p.aggregate.map(|a| (p.round, a, p.decision)))
        .collect();
    if measured.is_empty() {
        return Err(Error::State(format!(
            "no measured round to chart for {}",
            stem.display()
        )));
    }
    let last_round = measured.iter().map(|m| m.0).max().unwrap_or(1);
    let y_max = measured.iter().map(|m| m.1).fold(0.0, f64::max) * 1.15;
    // The incumbent line: it moves only at BASELINE and accepted rounds.
    let mut incumbent = Vec::new();
    let mut current = None;
    for &(round, value, decision) in &measured {
        if matches!(
            decision,
            Some(DecisionKind::Baseline | DecisionKind::Accepted)
        ) {
            current = Some(value);
        }
        if let Some(v) = current {
            incumbent.push((round, v));
        }
    }
    let title = format!("{metric} over rounds");
    render(
        stem,
        |root| {
            draw_rounds(
                root, &title, metric, &measured, &incumbent, last_round, y_max,
            )
        },
        |root| {
            draw_rounds(
                root, &title, metric, &measured, &incumbent, last_round, y_max,
            )
        },
    )
}

fn draw_rounds<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    metric: &str,
    measured: &[(u32, f64, Option<DecisionKind>)],
    incumbent: &[(u32, f64)],
    last_round: u32,
    y_max: f64,
) -> std::result::Result<(), String> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| err.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(0.5f64..f64::from(last_round) + 0.5, 0.0..y_max.max(1e-9))
        .map_err(e)?;
    chart
        .configure_mesh()
        .max_light_lines(1)
        .x_desc("round")
        .y_desc(metric)
        .x_labels((last_round as usize).min(20) + 1)
        .x_label_formatter(&|x| {
            if x.fract().abs() < 1e-9 {
                format!("{x:.0}")
            } else {
                String::new()
            }
        })
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(
            incumbent.iter().map(|&(r, v)| (f64::from(r), v)),
            BLUE.stroke_width(2),
        ))
        .map_err(e)?
        .label("incumbent")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLUE.stroke_width(2)));
    for (kind, name, colour) in [
        (Some(DecisionKind::Baseline), "baseline", BLUE),
        (Some(DecisionKind::Accepted), "accepted", GREEN_700),
        (Some(DecisionKind::RolledBack), "rolled back", RED),
        (None, "open", GREY),
    ] {
        let series: Vec<(f64, f64)> = measured
            .iter()
            .filter(|m| m.2 == kind)
            .map(|m| (f64::from(m.0), m.1))
            .collect();
        if series.is_empty() {
            continue;
        }
        chart
            .draw_series(
                series
                    .into_iter()
                    .map(|p| Circle::new(p, 6, colour.filled())),
            )
            .map_err(e)?
            .label(name)
            .legend(move |(x, y)| Circle::new((x + 9, y), 5, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// Baseline against incumbent per shape, as grouped bars. Writes `<stem>.svg` and
/// `<stem>.png`.
pub fn chart_per_shape(
    metric: &str,
    shapes: &[ShapeComparison],
    stem: &Path,
) -> Result<ChartFiles> {
    if shapes.is_empty() {
        return Err(Error::State(format!(
            "no shapes to chart for {}",
            stem.display()
        )));
    }
    let y_max = shapes
        .iter()
        .flat_map(|s| [s.baseline, s.incumbent])
        .flatten()
        .fold(0.0, f64::max)
        * 1.15;
    let title = format!("{metric} per shape: baseline vs incumbent");
    render(
        stem,
        |root| draw_shapes(root, &title, metric, shapes, y_max),
        |root| draw_shapes(root, &title, metric, shapes, y_max),
    )
}

fn draw_shapes<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    metric: &str,
    shapes: &[ShapeComparison],
    y_max: f64,
) -> std::result::Result<(), String> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| err.to_string();
    root.fill(&WHITE).map_err(e)?;
    let n = shapes.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0.0..y_max.max(1e-9))
        .map_err(e)?;
    let label_of = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
            shapes[i as usize].label.clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_desc("shape")
        .y_desc(metric)
        .x_labels(n.min(24))
        .x_label_formatter(&label_of)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()
        .map_err(e)?;
    let bars = |pick: fn(&ShapeComparison) -> Option<f64>, offset: f64, colour: RGBColor| {
        shapes
            .iter()
            .enumerate()
            .filter_map(move |(i, s)| pick(s).map(|v| (i as f64, v)))
            .map(move |(x, v)| {
                Rectangle::new([(x + offset, 0.0), (x + offset + 0.38, v)], colour.filled())
            })
    };
    chart
        .draw_series(bars(|s| s.baseline, -0.4, GREY_500))
        .map_err(e)?
        .label("baseline")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], GREY_500.filled()));
    chart
        .draw_series(bars(|s| s.incumbent, 0.02, BLUE_700))
        .map_err(e)?
        .label("incumbent")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], BLUE_700.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// Draw the same chart as SVG and PNG; each file appears complete or not at all.
fn render<S, P>(stem: &Path, draw_svg: S, draw_png: P) -> Result<ChartFiles>
where
    S: FnOnce(DrawingArea<SVGBackend<'_>, Shift>) -> std::result::Result<(), String>,
    P: FnOnce(DrawingArea<BitMapBackend<'_>, Shift>) -> std::result::Result<(), String>,
{
    ensure_font()?;
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let chart_error = |path: &Path, msg: String| {
        Error::Internal(format!("drawing the chart {}: {msg}", path.display()))
    };

    let mut text = String::new();
    draw_svg(SVGBackend::with_string(&mut text, CHART_SIZE).into_drawing_area())
        .map_err(|m| chart_error(&svg, m))?;
    kcamp_core::fsutil::write_atomic(&svg, text.as_bytes())?;

    // The bitmap backend writes its file itself: draw into a temp name, then rename.
    let dir = png
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).ctx(|| format!("creating {}", dir.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".kcamp-tmp-")
        .suffix(".png")
        .tempfile_in(dir)
        .ctx(|| format!("creating a temp file in {}", dir.display()))?;
    draw_png(BitMapBackend::new(tmp.path(), CHART_SIZE).into_drawing_area())
        .map_err(|m| chart_error(&png, m))?;
    tmp.as_file()
        .sync_all()
        .ctx(|| format!("syncing {}", png.display()))?;
    tmp.persist(&png)
        .map_err(|e| Error::io(format!("renaming into {}", png.display()), e.error))?;
    kcamp_core::fsutil::sync_dir(dir);
    Ok(ChartFiles { svg, png })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(label: &str, check: Check, rel_err: Option<f64>, tflops: Option<f64>) -> ShapeResult {
        ShapeResult {
            label: label.into(),
            dims: vec![("M".into(), 256), ("N".into(), 128), ("K".into(), 64)],
            check,
            reason: (check == Check::TimeoutFail).then(|| "exceeded 30 s".to_owned()),
            rel_err,
            latency_us: tflops.map(|t| 2.0 * 256.0 * 128.0 * 64.0 / (t * 1e12) * 1e6),
            tflops,
            bandwidth_gbps: tflops.map(|t| t * 50.0),
        }
    }

    fn baseline() -> BaselineReport {
        BaselineReport {
            campaign: "demo-gemm".into(),
            op: "gemm".into(),
            dtype: "f32".into(),
            adapter: "NVIDIA H200 (vulkan)".into(),
            kernel_path: "kernel/gemm.wgsl".into(),
            correctness_test: "built-in wgpu runner, seed 42".into(),
            reference: "f64 CPU GEMM, C = A·B".into(),
            source_ids: vec!["h200-datasheet-2024".into(), "measured-peak-1".into()],
            configuration: vec![("timing".into(), "warmup 3, repeats 10".into())],
            shapes: vec![
                shape("gemm_small", Check::Pass, Some(3.2e-7), Some(2.0)),
                shape("gemm_large", Check::Pass, Some(8.9e-6), Some(8.0)),
                shape("gemm_huge", Check::TimeoutFail, None, None),
            ],
            primary_metric: "Forward TFLOPS".into(),
            aggregate: Some(4.0),
            latency_us: Some(2.1),
            tflops: Some(4.0),
            bandwidth_gbps: Some(200.0),
            compute_peak: Some(Peak {
                value: 50.0,
                source_id: "h200-datasheet-2024".into(),
            }),
            bandwidth_peak: None,
        }
    }

    #[test]
    fn baseline_report_lists_cases_limits_and_sources() {
        let md = baseline_report_md(&baseline());
        assert!(md.contains("`kernel/gemm.wgsl`"), "{md}");
        assert!(md.contains("built-in wgpu runner, seed 42"));
        assert!(md.contains("f64 CPU GEMM"));
        assert!(md.contains("`h200-datasheet-2024`, `measured-peak-1`"));
        assert!(md.contains("timing: warmup 3, repeats 10"));
        assert!(
            md.contains("2 of 3 cases PASS; max rel_err 8.90e-6"),
            "{md}"
        );
        assert!(md.contains("| gemm_huge | M=256 N=128 K=64 | TIMEOUT_FAIL | - | exceeded 30 s |"));
        assert!(md.contains("- `gemm_huge`: TIMEOUT_FAIL (exceeded 30 s)"));
        // 8 of 50 TFLOP/s is 16 %; the aggregate 4 is 8 %; no bandwidth peak -> "-".
        assert!(
            md.contains("| gemm_large | 0.52 | 8.000 | 400.0 | 16.0 | - |"),
            "{md}"
        );
        assert!(md.contains("| **geomean (PASS)** | 2.10 | 4.000 | 200.0 | 8.0 | - |"));
        assert!(
            md.contains("compute 50.0 TFLOP/s [h200-datasheet-2024]; bandwidth no peak registered")
        );
        assert!(md.contains("aggregate 4.000"));
    }

    fn rounds() -> Vec<RoundPoint> {
        let p = |round, aggregate, decision, label: &str| RoundPoint {
            round,
            label: label.into(),
            aggregate,
            decision,
        };
        vec![
            p(1, Some(2.0), Some(DecisionKind::Baseline), "baseline"),
            p(2, Some(2.6), Some(DecisionKind::Accepted), "16x16 tiles"),
            p(3, Some(2.1), Some(DecisionKind::RolledBack), "vec4 | loads"),
            p(4, Some(3.0), Some(DecisionKind::Accepted), "4x4 per thread"),
            p(5, None, None, "double buffering"),
        ]
    }

    fn comparison() -> Vec<ShapeComparison> {
        vec![
            ShapeComparison {
                label: "gemm_256".into(),
                baseline: Some(1.0),
                baseline_check: Check::Pass,
                incumbent: Some(1.5),
                incumbent_check: Check::Pass,
            },
            ShapeComparison {
                label: "gemm_512".into(),
                baseline: Some(4.0),
                baseline_check: Check::Pass,
                incumbent: Some(6.0),
                incumbent_check: Check::Pass,
            },
        ]
    }

    #[test]
    fn final_report_has_lineage_shapes_and_gain() {
        let md = final_report_md(&FinalReport {
            campaign: "demo-gemm".into(),
            primary_metric: "Forward TFLOPS".into(),
            rounds: rounds(),
            incumbent_round: 4,
            shapes: comparison(),
            baseline_aggregate: Some(2.0),
            incumbent_aggregate: Some(3.0),
            charts: vec!["report/metric_over_rounds.svg".into()],
            acceptance: Some(Acceptance {
                verdict: "REJECT".into(),
                reasons: vec!["1 of 2 shapes do not PASS in the candidate: s1 (FAIL).".into()],
            }),
        });
        assert!(
            md.starts_with(
                "# Campaign report: demo-gemm\n\n**Final acceptance: REJECT** (round 4 against the BASELINE)\n\n- 1 of 2 shapes do not PASS"
            ),
            "the verdict leads: {md}"
        );
        assert!(
            md.contains("baseline 2.000 → incumbent 3.000 (+50.0%)"),
            "{md}"
        );
        assert!(
            md.contains("| 3 | ROLLED_BACK | 2.100 | vec4 \\| loads |"),
            "{md}"
        );
        assert!(md.contains("| 4 (incumbent) | ACCEPTED | 3.000 |"));
        assert!(md.contains("| 5 | OPEN | - | double buffering |"));
        assert!(md.contains("| gemm_512 | 4.000 | PASS | 6.000 | PASS | +50.0% |"));
        assert!(md.contains("![report/metric_over_rounds.svg](report/metric_over_rounds.svg)"));
    }

    fn assert_png_drawn(path: &Path) {
        let img = image::open(path).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), CHART_SIZE);
        let distinct: std::collections::HashSet<[u8; 3]> = img.pixels().map(|p| p.0).collect();
        assert!(distinct.len() > 10, "only {} colours", distinct.len());
        let non_white = img.pixels().filter(|p| p.0 != [255, 255, 255]).count();
        assert!(non_white > 5_000, "{non_white} drawn pixels");
    }

    #[test]
    fn metric_chart_writes_svg_and_png() {
        let dir = tempfile::tempdir().unwrap();
        let files = chart_metric_over_rounds(
            "Forward TFLOPS",
            &rounds(),
            &dir.path().join("report/metric_over_rounds"),
        )
        .unwrap();
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        assert!(svg.len() > 2_000);
        for text in ["round", "Forward TFLOPS", "incumbent", "rolled back"] {
            assert!(svg.contains(text), "{text} missing from the SVG");
        }
        assert_png_drawn(&files.png);
        let leftovers = std::fs::read_dir(dir.path().join("report"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".kcamp-tmp-")
            })
            .count();
        assert_eq!(leftovers, 0);
    }

    #[test]
    fn per_shape_chart_writes_svg_and_png() {
        let dir = tempfile::tempdir().unwrap();
        let files = chart_per_shape(
            "Forward TFLOPS",
            &comparison(),
            &dir.path().join("per_shape"),
        )
        .unwrap();
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        for text in ["gemm_256", "gemm_512", "shape", "baseline", "incumbent"] {
            assert!(svg.contains(text), "{text} missing from the SVG");
        }
        assert_png_drawn(&files.png);
    }

    #[test]
    fn charts_without_data_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let open_only = [RoundPoint {
            round: 1,
            label: "x".into(),
            aggregate: None,
            decision: None,
        }];
        assert!(chart_metric_over_rounds("m", &open_only, &dir.path().join("a")).is_err());
        assert!(chart_per_shape("m", &[], &dir.path().join("b")).is_err());
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}
