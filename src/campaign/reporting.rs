//! baseline_report.md, and `kcamp report`: the final full validation of the incumbent,
//! report.md and its charts.

use serde_json::json;

use super::layout::{BENCHMARK_CSV, Campaign, RESULT_JSON};
use super::measure::{MeasureSource, measure};
use super::{DecisionKind, KERNEL_DIR, Validation};
use crate::cli::CmdOutput;
use crate::fsutil::write_atomic;
use crate::manifest::AdapterSelector;
use crate::report::{BaselineReport, FinalReport, Peak, RoundPoint, ShapeComparison, ShapeResult};
use crate::schema::{BenchTable, Check};
use crate::{Error, Result};

pub const BASELINE_REPORT: &str = "baseline_report.md";
pub const FINAL_REPORT: &str = "report.md";
pub const REPORT_DIR: &str = "report";

/// Write `baseline_report.md` from round 1's artifacts.
pub fn write_baseline_report(c: &Campaign) -> Result<()> {
    let adir = c.artifacts_dir(1);
    let table = BenchTable::read_held_to(&adir.join(BENCHMARK_CSV), c.frozen_header()?.as_deref())?;
    let result: Option<serde_json::Value> = std::fs::read_to_string(adir.join(RESULT_JSON))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let shape_info = |label: &str, key: &str| -> Option<serde_json::Value> {
        result
            .as_ref()?
            .get("shapes")?
            .as_array()?
            .iter()
            .find(|s| s.get("label").and_then(|l| l.as_str()) == Some(label))?
            .get(key)
            .cloned()
    };
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
            reason: shape_info(&r.label, "reason").and_then(|v| v.as_str().map(str::to_owned)),
            rel_err: shape_info(&r.label, "rel_err").and_then(|v| v.as_f64()),
            latency_us: r
                .metric(&table.schema, "Forward Time (ms)")
                .map(|ms| ms * 1000.0),
            tflops: r.metric(&table.schema, "Forward TFLOPS"),
            bandwidth_gbps: r.metric(&table.schema, "Forward GB/s"),
        })
        .collect();
    let pass: Vec<&ShapeResult> = shapes.iter().filter(|s| s.check == Check::Pass).collect();
    let geo = |f: &dyn Fn(&ShapeResult) -> Option<f64>| {
        crate::stats::geomean(&pass.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
    };
    let adapter: Option<crate::runner::AdapterDescription> = result
        .as_ref()
        .and_then(|r| r.get("adapter"))
        .and_then(|a| serde_json::from_value(a.clone()).ok());
    let peaks = adapter
        .as_ref()
        .and_then(|a| crate::specs::adapter_peaks(&c.dir, a, c.manifest.dtype));
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
        .and_then(|r| r.get("timing_methods"))
        .map(|v| v.to_string())
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
        reference: match m.op {
            crate::manifest::OpName::Gemm => "f64 CPU GEMM: C = A·B, dA = dC·Bᵀ, dB = Aᵀ·dC (sampled entries for large shapes); SNR and rel_err per output".to_owned(),
            crate::manifest::OpName::Axpy => "f64 CPU axpy: out = alpha·x + y; SNR and rel_err".to_owned(),
        },
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
        aggregate: super::aggregate_of(&table, &m.primary_metric),
        latency_us: geo(&|s| s.latency_us),
        tflops: geo(&|s| s.tflops),
        bandwidth_gbps: geo(&|s| s.bandwidth_gbps),
        shapes,
        compute_peak,
        bandwidth_peak,
    };
    write_atomic(
        &c.dir.join(BASELINE_REPORT),
        crate::report::baseline_report_md(&report).as_bytes(),
    )
}

/// `kcamp report`: with `run`, a final full validation of the incumbent (the working
/// kernel must equal its snapshot); then report.md and the charts under report/.
pub fn campaign_report(
    c: &Campaign,
    run: bool,
    adapter: Option<AdapterSelector>,
) -> Result<CmdOutput> {
    let _lock = c.lock("kcamp report")?;
    super::recover(c)?;
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no BASELINE yet: run `kcamp baseline` first".into()))?;
    let report_dir = c.dir.join(REPORT_DIR);
    let frozen = c.frozen_header()?;
    let final_table = if run {
        if let Some(open) = c.open_round()? {
            return Err(Error::State(format!(
                "round {open} is open: accept or roll it back before the final report"
            )));
        }
        if super::tree_hash(&c.kernel_dir())?
            != super::tree_hash(&c.round_dir(incumbent).join(KERNEL_DIR))?
        {
            return Err(Error::State(format!(
                "kernel/ differs from the incumbent's snapshot (round {incumbent}): roll back or validate first"
            )));
        }
        let out = report_dir.join("final");
        let measured = measure(
            c,
            &MeasureSource::Run { adapter },
            Validation::Full,
            incumbent,
            frozen.as_deref(),
            &out,
            &mut |_| {},
        )?;
        c.journal(
            "final_validation",
            Some(incumbent),
            json!({"origin": measured.origin}),
        )?;
        measured.table
    } else {
        BenchTable::read_held_to(
            &c.artifacts_dir(incumbent).join(BENCHMARK_CSV),
            frozen.as_deref(),
        )?
    };
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
    let charts_over = crate::report::chart_metric_over_rounds(
        &metric,
        &rounds,
        &report_dir.join("metric_over_rounds"),
    )?;
    let charts_shapes =
        crate::report::chart_per_shape(&metric, &shapes, &report_dir.join("per_shape"))?;
    let rel = |p: &std::path::Path| p.strip_prefix(&c.dir).unwrap_or(p).display().to_string();
    let report = FinalReport {
        campaign: c.manifest.name.clone(),
        primary_metric: metric.clone(),
        incumbent_round: incumbent,
        baseline_aggregate: super::aggregate_of(&baseline, &metric),
        incumbent_aggregate: super::aggregate_of(&final_table, &metric),
        shapes,
        charts: vec![rel(&charts_over.svg), rel(&charts_shapes.svg)],
        rounds,
    };
    write_atomic(
        &c.dir.join(FINAL_REPORT),
        crate::report::final_report_md(&report).as_bytes(),
    )?;
    c.journal("report", Some(incumbent), json!({"final_validation": run}))?;
    let gain = match (report.baseline_aggregate, report.incumbent_aggregate) {
        (Some(b), Some(i)) if b > 0.0 => Some(i / b - 1.0),
        _ => None,
    };
    let accepted = c
        .decisions()?
        .iter()
        .filter(|(_, d)| {
            d.as_ref()
                .is_some_and(|d| d.decision == DecisionKind::Accepted)
        })
        .count();
    let human = format!(
        "report.md written: incumbent round {incumbent}, {metric} {} vs BASELINE {} ({}), {accepted} rounds accepted\ncharts: {}, {}",
        report
            .incumbent_aggregate
            .map(|v| format!("{v:.4}"))
            .unwrap_or_else(|| "-".into()),
        report
            .baseline_aggregate
            .map(|v| format!("{v:.4}"))
            .unwrap_or_else(|| "-".into()),
        gain.map(|g| format!("{:+.2}%", g * 100.0))
            .unwrap_or_else(|| "-".into()),
        charts_over.png.display(),
        charts_shapes.png.display()
    );
    Ok(CmdOutput::ok(
        json!({
            "report": c.dir.join(FINAL_REPORT),
            "incumbent": incumbent,
            "metric": metric,
            "baseline_aggregate": report.baseline_aggregate,
            "incumbent_aggregate": report.incumbent_aggregate,
            "gain": gain,
            "final_validation": run,
            "charts": [charts_over.svg, charts_over.png, charts_shapes.svg, charts_shapes.png],
        }),
        human,
    ))
}
