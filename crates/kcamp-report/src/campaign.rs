//! Reports of a campaign: gathers what `baseline_report.md` and `report.md` state from the
//! campaign's rounds and artifacts, then renders them (markdown and charts).

use kcamp_core::Result;
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::campaign::Campaign;
use kcamp_core::files::{BENCHMARK_CSV, KERNEL_DIR, RESULT_JSON};
use kcamp_core::fsutil::write_atomic;
use kcamp_core::schema::BenchTable;
use kcamp_core::types::{Check, DecisionKind};

use crate::{
    BaselineReport, ChartFiles, FinalReport, Peak, RoundPoint, ShapeComparison, ShapeResult,
};

pub const BASELINE_REPORT: &str = "baseline_report.md";
pub const FINAL_REPORT: &str = "report.md";
pub const REPORT_DIR: &str = "report";

/// Write `baseline_report.md` from round 1's artifacts.
pub fn write_baseline_report(c: &Campaign) -> Result<()> {
    let adir = c.artifacts_dir(1);
    let table = BenchTable::read_held_to(&adir.join(BENCHMARK_CSV), c.frozen_header()?.as_deref())?;
    let result = RunResult::read(&adir.join(RESULT_JSON))?;
    let shape_info = |label: &str| result.as_ref().and_then(|r| r.shape(label));
    let dim_names = table
        .schema
        .dim_names()
        .iter()
        .map(|s| (*s).to_owned())
        .collect::<Vec<_>>();
    let shapes: Vec<ShapeResult> = table
        .rows
        .iter()
        .map(|r| ShapeResult {
            label: r.label.clone(),
            dims: dim_names
                .iter()
                .cloned()
                .zip(r.dims.iter().copied())
                .collect(),
            check: r.check,
            reason: shape_info(&r.label).and_then(|s| s.reason.clone()),
            rel_err: shape_info(&r.label).and_then(|s| s.rel_err),
            latency_us: r
                .metric(&table.schema, "Forward Time (ms)")
                .map(|ms| ms * 1000.0),
            tflops: r.metric(&table.schema, "Forward TFLOPS"),
            bandwidth_gbps: r.metric(&table.schema, "Forward GB/s"),
        })
        .collect();
    let pass: Vec<&ShapeResult> = shapes.iter().filter(|s| s.check == Check::Pass).collect();
    let geo = |f: &dyn Fn(&ShapeResult) -> Option<f64>| {
        kcamp_core::stats::geomean(&pass.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
    };
    let adapter = result.as_ref().and_then(|r| r.adapter.clone());
    let peaks = adapter
        .as_ref()
        .and_then(|a| kcamp_core::specs::adapter_peaks(&c.dir, a, c.manifest.dtype));
    let compute_peak = peaks.as_ref().map(|p| Peak {
        value: p.flops.value / 1e12,
        source_id: p.flops.source.clone(),
    });
    let bandwidth_peak = peaks.as_ref().map(|p| Peak {
        value: p.bandwidth.value / 1e9,
        source_id: p.bandwidth.source.clone(),
    });
    let mut source_ids: Vec<String> = [&compute_peak, &bandwidth_peak]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.source_id.clone()))
        .collect();
    source_ids.dedup();
    let m = &c.manifest;
    let timing_methods = result
        .as_ref()
        .map(|r| {
            r.timing_methods
                .iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|| "recorded by the external harness".to_owned());
    let report = BaselineReport {
        campaign: m.name.clone(),
        op: m.op.as_str().to_owned(),
        dtype: m.dtype.as_str().to_owned(),
        adapter: adapter
            .as_ref()
            .map(|a| format!("{} ({}, {}{})", a.name, a.backend, a.driver, if a.software { ", software adapter" } else { "" }))
            .unwrap_or_else(|| "not recorded (imported CSV)".to_owned()),
        kernel_path: format!("rounds/round-1/{KERNEL_DIR}/{}", m.kernel.file),
        correctness_test: match (&m.full_command, &m.quick_command) {
            (Some(cmd), _) | (None, Some(cmd)) => format!("external harness: `{cmd}`"),
            (None, None) => "built-in wgpu runner (`kcamp baseline`): seeded random inputs, NaN-poisoned outputs, every timed output checked".to_owned(),
        },
        reference: kcamp_core::ops::op(m.op).reference_description().to_owned(),
        source_ids,
        configuration: vec![
            ("primary metric".into(), m.primary_metric.clone()),
            ("timing".into(), format!("warmup {}, repeats {}, min sample {} ms, method {timing_methods}", m.timing.warmup, m.timing.repeats, m.timing.min_sample_ms)),
            ("timeout per case".into(), format!("{} s", m.effective_timeout_sec().unwrap_or(m.timeout_sec))),
            ("trusted (no bounds checks)".into(), m.kernel.trusted.to_string()),
            ("representative shapes".into(), m.representative_shapes.join(", ")),
            (
                "gate".into(),
                format!(
                    "noise floor {:.1}%, band = max(floor, {}·r), regression {:.1}%, p < {}",
                    m.gate.noise_floor * 100.0,
                    m.gate.stddev_multiplier,
                    m.gate.regression_threshold * 100.0,
                    m.gate.p_value
                ),
            ),
        ],
        primary_metric: m.primary_metric.clone(),
        aggregate: table.aggregate(&m.primary_metric),
        latency_us: geo(&|s| s.latency_us),
        tflops: geo(&|s| s.tflops),
        bandwidth_gbps: geo(&|s| s.bandwidth_gbps),
        shapes,
        compute_peak,
        bandwidth_peak,
    };
    write_atomic(
        &c.dir.join(BASELINE_REPORT),
        crate::baseline_report_md(&report).as_bytes(),
    )
}

/// What `kcamp report` wrote.
#[derive(Debug, Clone)]
pub struct FinalReportFiles {
    pub report: FinalReport,
    pub charts: Vec<ChartFiles>,
    pub accepted_rounds: usize,
}

/// Write `report.md` and its charts under `report/`, comparing `final_table` (the
/// incumbent's final full validation, or its recorded CSV) with BASELINE.
pub fn write_final_report(
    c: &Campaign,
    incumbent: u32,
    final_table: &BenchTable,
    acceptance: Option<&kcamp_core::gate::GateReport>,
) -> Result<FinalReportFiles> {
    let report_dir = c.dir.join(REPORT_DIR);
    let frozen = c.frozen_header()?;
    let baseline =
        BenchTable::read_held_to(&c.artifacts_dir(1).join(BENCHMARK_CSV), frozen.as_deref())?;
    let metric = c.manifest.primary_metric.clone();
    let mut rounds = Vec::new();
    for (n, d) in c.decisions()? {
        let label = c.hypothesis(n).unwrap_or_default();
        rounds.push(RoundPoint {
            round: n,
            label: label.chars().take(40).collect(),
            aggregate: d.as_ref().and_then(|d| d.aggregate),
            decision: d.map(|d| d.decision),
        });
    }
    let shapes: Vec<ShapeComparison> = final_table
        .rows
        .iter()
        .map(|r| {
            let b = baseline.find(&r.shape_key());
            ShapeComparison {
                label: r.label.clone(),
                baseline: b
                    .filter(|b| b.check == Check::Pass)
                    .and_then(|b| b.metric(&baseline.schema, &metric)),
                baseline_check: b.map(|b| b.check).unwrap_or(Check::Error),
                incumbent: (r.check == Check::Pass)
                    .then(|| r.metric(&final_table.schema, &metric))
                    .flatten(),
                incumbent_check: r.check,
            }
        })
        .collect();
    let charts_over =
        crate::chart_metric_over_rounds(&metric, &rounds, &report_dir.join("metric_over_rounds"))?;
    let charts_shapes = crate::chart_per_shape(&metric, &shapes, &report_dir.join("per_shape"))?;
    let rel = |p: &std::path::Path| p.strip_prefix(&c.dir).unwrap_or(p).display().to_string();
    let report = FinalReport {
        campaign: c.manifest.name.clone(),
        primary_metric: metric.clone(),
        incumbent_round: incumbent,
        baseline_aggregate: baseline.aggregate(&metric),
        incumbent_aggregate: final_table.aggregate(&metric),
        shapes,
        charts: vec![rel(&charts_over.svg), rel(&charts_shapes.svg)],
        rounds,
        acceptance: acceptance.map(|g| crate::Acceptance {
            verdict: g.verdict.as_str().to_owned(),
            reasons: g.reasons.clone(),
        }),
    };
    write_atomic(
        &c.dir.join(FINAL_REPORT),
        crate::final_report_md(&report).as_bytes(),
    )?;
    write_atomic(
        &c.dir.join(FINAL_REPORT),
        crate::final_report_md(&report).as_bytes(),
    )?;
    let accepted_rounds = c
        .decisions()?
        .iter()
        .filter(|(_, d)| {
            d.as_ref()
                .is_some_and(|d| d.decision == DecisionKind::Accepted)
        })
        .count();
    Ok(FinalReportFiles {
        report,
        charts: vec![charts_over, charts_shapes],
        accepted_rounds,
    })
}
