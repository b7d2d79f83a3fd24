//! Reports of a campaign: gathers what `baseline_report.md` and `report.md` state from the
//! campaign's rounds and artifacts, then renders them (markdown and charts).

use std::path::Path;

use kcamp_core::Result;
use kcamp_core::analysis::shape_roofs;
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::campaign::{Campaign, FINAL_VALIDATION_DIR, FinalMeasurement, read_gate_record};
use kcamp_core::files::{BENCHMARK_CSV, KERNEL_DIR, RESULT_JSON};
use kcamp_core::fsutil::write_atomic;
use kcamp_core::manifest::Manifest;
use kcamp_core::schema::BenchTable;
use kcamp_core::specs::Roofs;
use kcamp_core::types::{Check, DecisionKind, OpName, Validation};
use kcamp_core::units;

use crate::{
    Aggregate, BaselineReport, ChartFiles, ChartLink, Comparison, FinalReport, Provenance,
    RoundPoint, ShapeComparison, ShapeResult,
};

pub use kcamp_core::files::BASELINE_REPORT;
pub const FINAL_REPORT: &str = "report.md";
pub use kcamp_core::files::REPORT_DIR;

/// Where and how a run was measured, from its result.json (None: an imported CSV).
pub fn provenance(result: Option<&RunResult>) -> Provenance {
    match result {
        Some(r) => Provenance {
            adapter: r.adapter.as_ref().map_or_else(
                || "an adapter the run did not record".to_owned(),
                |a| format!("{} ({}, driver {})", a.name, a.backend, a.driver),
            ),
            software: r.adapter.as_ref().is_some_and(|a| a.software),
            timing: if r.timing_methods.is_empty() {
                "none (no shape was timed)".to_owned()
            } else {
                r.timing_methods
                    .iter()
                    .map(|m| match m {
                        kcamp_core::types::TimingMethod::GpuTimestamps => {
                            "GPU timestamp queries around each dispatch"
                        }
                        kcamp_core::types::TimingMethod::HostClock => {
                            "host clock after a full device wait"
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            bounds_checks: Some(!r.trusted),
        },
        None => Provenance {
            adapter: "an external harness (imported CSV: no adapter recorded)".to_owned(),
            software: false,
            timing: "as recorded by the harness".to_owned(),
            bounds_checks: None,
        },
    }
}

/// The roofs of the adapter that made `result`, and a note when there are none.
fn roofs_of(c: &Campaign, result: Option<&RunResult>) -> (Roofs, Option<String>) {
    match result.and_then(|r| r.adapter.as_ref()) {
        Some(adapter) => {
            let roofs = Roofs::for_adapter(&c.dir, adapter, c.manifest.dtype);
            let note = roofs.primary().is_none().then(|| {
                format!(
                    "No measured or cited peaks for {}: run `kcamp peak` in the campaign to measure them, then `kcamp report --no-run`.",
                    adapter.name
                )
            });
            (roofs, note)
        }
        None => (
            Roofs::default(),
            Some("The numbers come from an external harness that records no adapter, so there are no peaks to state utilization against.".to_owned()),
        ),
    }
}

/// `rounds/round-N/kernel/...` relative paths and chart links, relative to the campaign.
fn link(c: &Campaign, title: &str, files: &ChartFiles) -> ChartLink {
    let rel = |p: &Path| p.strip_prefix(&c.dir).unwrap_or(p).display().to_string();
    ChartLink {
        title: title.to_owned(),
        svg: rel(&files.svg),
        png: rel(&files.png),
    }
}

/// Write `baseline_report.md` (and the baseline's roofline chart) from round 1's artifacts.
pub fn write_baseline_report(c: &Campaign) -> Result<()> {
    let adir = c.artifacts_dir(1);
    let table = BenchTable::read_held_to(&adir.join(BENCHMARK_CSV), c.frozen_header()?.as_deref())?;
    let result = RunResult::read(&adir.join(RESULT_JSON))?;
    let m = &c.manifest;
    let (roofs, peaks_note) = roofs_of(c, result.as_ref());
    let roofline = shape_roofs(m.op, m.dtype, &table, roofs.primary());
    let dim_names: Vec<String> = table
        .schema
        .dim_names()
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let shapes: Vec<ShapeResult> = table
        .rows
        .iter()
        .zip(roofline.iter())
        .map(|(r, roof)| {
            let info = result.as_ref().and_then(|res| res.shape(&r.label));
            ShapeResult {
                label: r.label.clone(),
                dims: dim_names
                    .iter()
                    .cloned()
                    .zip(r.dims.iter().copied())
                    .collect(),
                check: r.check,
                reason: info.and_then(|s| s.reason.clone()),
                rel_err: info.and_then(|s| s.rel_err),
                metric: (r.check == Check::Pass)
                    .then(|| r.metric(&table.schema, &m.primary_metric))
                    .flatten(),
                metric_stddev: (r.check == Check::Pass)
                    .then(|| r.stddev(&table.schema, &m.primary_metric))
                    .flatten(),
                roof: roof.clone(),
            }
        })
        .collect();
    let latencies: Vec<f64> = roofline
        .iter()
        .filter_map(|s| s.time_ms.map(|ms| ms * 1000.0))
        .collect();
    let mut charts = Vec::new();
    let stem = c.dir.join(REPORT_DIR).join("baseline_roofline");
    if let Ok(files) = crate::chart_roofline(&roofs, &roofline, &[], &stem) {
        charts.push(link(c, "Roofline of the baseline (forward pass)", &files));
    }
    let report = BaselineReport {
        campaign: m.name.clone(),
        op: m.op.as_str().to_owned(),
        dtype: m.dtype.as_str().to_owned(),
        provenance: provenance(result.as_ref()),
        kernel_path: format!("rounds/round-1/{KERNEL_DIR}/{}", m.kernel.file),
        correctness_test: match (&m.full_command, &m.quick_command) {
            (Some(cmd), _) | (None, Some(cmd)) => format!("external harness: `{cmd}`"),
            (None, None) => "built-in wgpu runner (`kcamp baseline`): seeded random inputs, NaN-poisoned outputs, every timed output checked".to_owned(),
        },
        reference: kcamp_core::ops::op(m.op).reference_description().to_owned(),
        configuration: configuration(m),
        primary_metric: m.primary_metric.clone(),
        aggregate: table.aggregate(&m.primary_metric),
        latency_us: kcamp_core::stats::geomean(&latencies),
        shapes,
        roofs,
        peaks_note,
        charts,
    };
    write_atomic(
        &c.dir.join(BASELINE_REPORT),
        crate::baseline_report_md(&report).as_bytes(),
    )
}

fn configuration(m: &Manifest) -> Vec<(String, String)> {
    vec![
        ("primary metric".into(), m.primary_metric.clone()),
        (
            "timing".into(),
            format!(
                "{} warm-up dispatches, {} samples per shape, each sample at least {}",
                m.timing.warmup,
                m.timing.repeats,
                units::millis(m.timing.min_sample_ms)
            ),
        ),
        (
            "timeout per case".into(),
            units::millis(m.effective_timeout_sec().unwrap_or(m.timeout_sec) * 1000.0),
        ),
        (
            "runtime bounds checks".into(),
            if m.kernel.trusted {
                "off (kernel.trusted: true)"
            } else {
                "on"
            }
            .into(),
        ),
        (
            "representative shapes".into(),
            m.representative_shapes.join(", "),
        ),
        ("gate".into(), gate_rule(m)),
    ]
}

fn gate_rule(m: &Manifest) -> String {
    let g = &m.gate;
    format!(
        "noise band = max({}, {}·r) with r the combined relative stddev; a shape below -max({}, band) is a regression (REJECT); aggregate gain >= {} to ACCEPT; Welch's t-test at p < {} when raw samples exist",
        units::percent(g.noise_floor * 100.0),
        g.stddev_multiplier,
        units::percent(g.regression_threshold * 100.0),
        units::percent(g.noise_floor * 100.0),
        g.p_value
    )
}

/// How the FLOPs and bytes of a shape are counted, for the report's method section.
fn work_definition(op: OpName) -> &'static str {
    match op {
        OpName::Gemm => {
            "a forward GEMM dispatch is 2·B·M·N·K FLOP and moves at least B·(M·K + K·N + M·N) elements (each operand read once, the output written once)"
        }
        OpName::Axpy => {
            "an axpy dispatch is 2·N FLOP and moves 3·N elements (x and y read, out written)"
        }
    }
}

/// The aggregate of `metric` over the PASS rows whose label is in `labels` (all rows when
/// None), with its propagated relative stddev.
fn aggregate_over(
    table: &BenchTable,
    metric: &str,
    labels: Option<&[String]>,
) -> Option<Aggregate> {
    let rows: Vec<(f64, Option<f64>)> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .filter(|r| labels.is_none_or(|l| l.contains(&r.label)))
        .filter_map(|r| {
            let v = r.metric(&table.schema, metric)?;
            Some((v, r.stddev(&table.schema, metric)))
        })
        .collect();
    let values: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let value = kcamp_core::stats::geomean(&values)?;
    let cvs: Option<Vec<f64>> = rows
        .iter()
        .map(|(v, sd)| sd.filter(|_| *v > 0.0).map(|sd| sd / v))
        .collect();
    Some(Aggregate {
        value,
        rel_stddev: cvs.map(|cv| cv.iter().map(|x| x * x).sum::<f64>().sqrt() / cv.len() as f64),
        shapes: rows.len(),
    })
}

/// The lineage, every round with both aggregates kept apart.
fn round_points(c: &Campaign, frozen: Option<&str>) -> Result<Vec<RoundPoint>> {
    let metric = &c.manifest.primary_metric;
    let reps = &c.manifest.representative_shapes;
    let targets = c.manifest.target_shapes.len();
    let mut points = Vec::new();
    for (n, d) in c.decisions()? {
        let gate = read_gate_record(c, n).ok().flatten();
        let csv = c.artifacts_dir(n).join(BENCHMARK_CSV);
        let table = if csv.is_file() {
            BenchTable::read_held_to(&csv, frozen).ok()
        } else {
            None
        };
        let validation = d
            .as_ref()
            .and_then(|d| d.validation)
            .or(gate.as_ref().map(|g| g.validation))
            .filter(|_| table.is_some());
        let full = table
            .as_ref()
            .filter(|t| validation == Some(Validation::Full) || t.rows.len() == targets)
            .and_then(|t| aggregate_over(t, metric, None));
        let quick = table
            .as_ref()
            .filter(|_| !reps.is_empty())
            .and_then(|t| aggregate_over(t, metric, Some(reps)));
        points.push(RoundPoint {
            round: n,
            label: c
                .hypothesis(n)
                .unwrap_or_default()
                .chars()
                .take(60)
                .collect(),
            decision: d.as_ref().map(|d| d.decision),
            validation,
            quick,
            full,
            failed: table
                .iter()
                .flat_map(|t| t.rows.iter())
                .filter(|r| r.check != Check::Pass)
                .map(|r| format!("{} {}", r.label, r.check.as_str()))
                .collect(),
            delta: d
                .as_ref()
                .and_then(|d| d.aggregate_delta)
                .or(gate.as_ref().and_then(|g| g.report.aggregate.delta)),
            parent: d
                .as_ref()
                .and_then(|d| d.parent)
                .or(gate.as_ref().map(|g| g.incumbent)),
        });
    }
    Ok(points)
}

/// What `kcamp report` wrote.
#[derive(Debug, Clone)]
pub struct FinalReportFiles {
    pub report: FinalReport,
    /// The text of report.md.
    pub markdown: String,
    pub charts: Vec<ChartFiles>,
    pub accepted_rounds: usize,
}

/// Write `report.md` and its charts under `report/`, comparing the incumbent's final full
/// validation (or, without one, its recorded CSV) with BASELINE on the shapes both passed.
pub fn write_final_report(c: &Campaign, fm: &FinalMeasurement) -> Result<FinalReportFiles> {
    let report_dir = c.dir.join(REPORT_DIR);
    let frozen = c.frozen_header()?;
    let m = &c.manifest;
    let metric = m.primary_metric.clone();
    let incumbent = fm.incumbent;
    let base_dir = c.artifacts_dir(1);
    let baseline = BenchTable::read_held_to(&base_dir.join(BENCHMARK_CSV), frozen.as_deref())?;
    let base_result = RunResult::read(&base_dir.join(RESULT_JSON)).ok().flatten();
    let (inc_result, incumbent_source) = match &fm.origin {
        Some(_) => (
            RunResult::read(&c.dir.join(FINAL_VALIDATION_DIR).join(RESULT_JSON))
                .ok()
                .flatten(),
            format!("final full validation ({FINAL_VALIDATION_DIR}/{BENCHMARK_CSV})"),
        ),
        None => {
            let validation = c
                .decision(incumbent)?
                .and_then(|d| d.validation)
                .map_or("recorded", Validation::as_str);
            (
                RunResult::read(&c.artifacts_dir(incumbent).join(RESULT_JSON))
                    .ok()
                    .flatten(),
                format!(
                    "{validation} validation of round {incumbent} (recorded numbers: `kcamp report --no-run`)"
                ),
            )
        }
    };
    let shapes: Vec<ShapeComparison> = fm
        .table
        .rows
        .iter()
        .map(|r| {
            let b = baseline.find(&r.shape_key());
            let pass_b = b.filter(|b| b.check == Check::Pass);
            let pass_i = (r.check == Check::Pass).then_some(r);
            ShapeComparison {
                label: r.label.clone(),
                dims: r.dims.clone(),
                baseline: pass_b.and_then(|b| b.metric(&baseline.schema, &metric)),
                baseline_stddev: pass_b.and_then(|b| b.stddev(&baseline.schema, &metric)),
                baseline_check: b.map_or(Check::Error, |b| b.check),
                incumbent: pass_i.and_then(|r| r.metric(&fm.table.schema, &metric)),
                incumbent_stddev: pass_i.and_then(|r| r.stddev(&fm.table.schema, &metric)),
                incumbent_check: r.check,
            }
        })
        .collect();
    let both: Vec<&ShapeComparison> = shapes.iter().filter(|s| s.speedup().is_some()).collect();
    let geo = |f: fn(&ShapeComparison) -> Option<f64>| {
        kcamp_core::stats::geomean(&both.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
    };
    let comparison = Comparison {
        baseline: geo(|s| s.baseline),
        incumbent: geo(|s| s.incumbent),
        shapes: both.len(),
        incumbent_source,
    };
    let (roofs, peaks_note) = roofs_of(c, inc_result.as_ref().or(base_result.as_ref()));
    let peaks = roofs.primary();
    let roofline = shape_roofs(m.op, m.dtype, &fm.table, peaks);
    let base_roofline = shape_roofs(m.op, m.dtype, &baseline, peaks);
    let rounds = round_points(c, frozen.as_deref())?;
    let provenance_inc = provenance(inc_result.as_ref());
    let provenance_base = provenance(base_result.as_ref());
    let differs = provenance_inc.adapter != provenance_base.adapter
        || provenance_inc.timing != provenance_base.timing;

    let mut files = Vec::new();
    let mut charts = Vec::new();
    let rounds_chart = crate::chart_metric_over_rounds(
        &metric,
        &rounds,
        m.representative_shapes.len(),
        m.target_shapes.len(),
        &report_dir.join("metric_over_rounds"),
    )?;
    charts.push(link(c, &format!("{metric} over rounds"), &rounds_chart));
    files.push(rounds_chart);
    let speedup = crate::chart_speedup(&metric, &shapes, &report_dir.join("speedup"))?;
    charts.push(link(
        c,
        "Speedup per shape (incumbent / baseline)",
        &speedup,
    ));
    files.push(speedup);
    if let Ok(roof) = crate::chart_roofline(
        &roofs,
        &base_roofline,
        &roofline,
        &report_dir.join("roofline"),
    ) {
        charts.push(link(c, "Roofline: baseline and incumbent shapes", &roof));
        files.push(roof);
    }
    let report = FinalReport {
        campaign: m.name.clone(),
        op: m.op.as_str().to_owned(),
        dtype: m.dtype.as_str().to_owned(),
        primary_metric: metric.clone(),
        incumbent_round: incumbent,
        incumbent_hypothesis: c.hypothesis(incumbent).unwrap_or_default(),
        comparison,
        target: kcamp_core::campaign::target_status(c)?,
        provenance: provenance_inc,
        baseline_provenance: differs.then_some(provenance_base),
        rounds,
        representative_shapes: m.representative_shapes.clone(),
        target_shapes: m.target_shapes.len(),
        shapes,
        roofline,
        roofs,
        peaks_note,
        method: vec![
            format!(
                "Each shape's value is the mean of {} samples, ± their population stddev; each sample batches dispatches until it lasts at least {}, after {} warm-up dispatches.",
                m.timing.repeats,
                units::millis(m.timing.min_sample_ms),
                m.timing.warmup
            ),
            format!(
                "Correctness: {}; PASS iff rel_err < {} and the output has no NaN/Inf and is not all zeros.",
                kcamp_core::ops::op(m.op).reference_description(),
                units::sci(m.dtype.rel_err_threshold())
            ),
            format!("FLOPs and bytes: {}.", work_definition(m.op)),
            format!("Gate: {}.", gate_rule(m)),
            "Aggregates compare like with like: the same shapes on both sides, a quick aggregate never against a full one.".to_owned(),
        ],
        charts,
        acceptance: Some(crate::Acceptance {
            verdict: fm.acceptance.report.verdict.as_str().to_owned(),
            reasons: fm.acceptance.report.reasons.clone(),
        }),
    };
    let markdown = crate::final_report_md(&report);
    write_atomic(&c.dir.join(FINAL_REPORT), markdown.as_bytes())?;
    let accepted_rounds = report
        .rounds
        .iter()
        .filter(|r| r.decision == Some(DecisionKind::Accepted))
        .count();
    Ok(FinalReportFiles {
        report,
        markdown,
        charts: files,
        accepted_rounds,
    })
}
