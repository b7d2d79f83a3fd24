//! Glue between decisions and the iteration records (`memory/v<N>.json`) and reports.
//! The run fills the performance and correctness fields itself (SPEC §8).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::layout::{BENCHMARK_CSV, Campaign, RESULT_JSON};
use super::{DecisionKind, KERNEL_DIR};
use crate::Result;
use crate::memory::{MemoryStore, RunFill, SetOp, Version};
use crate::schema::{BenchTable, Check};

/// BASELINE: memory/v0.json and baseline_report.md.
pub fn on_baseline(c: &Campaign) -> Result<()> {
    let fill = run_fill(c, 1)?;
    let store = MemoryStore::new(&c.dir)?;
    store.fill_from_run(Version(0), &fill)?;
    store.update(
        Version(0),
        &[
            set("optimization.action_category", json!("baseline")),
            set(
                "optimization.action_description",
                json!(format!(
                    "BASELINE of kernel/{} ({} {})",
                    c.manifest.kernel.file,
                    c.manifest.op.as_str(),
                    c.manifest.dtype.as_str()
                )),
            ),
            set(
                "optimization.expected_impact",
                json!("reference point for every later round"),
            ),
            set(
                "optimization.risks_and_rollback",
                json!("none: the baseline is the first incumbent"),
            ),
        ],
    )?;
    super::reporting::write_baseline_report(c)?;
    Ok(())
}

/// ACCEPT or ROLLBACK of round N: memory/v<N-1>.json.
pub fn on_decision(c: &Campaign, round: u32) -> Result<()> {
    let Some(decision) = c.decision(round)? else {
        return Ok(());
    };
    let version = Version::for_round(round)?;
    let store = MemoryStore::new(&c.dir)?;
    let measured = c.artifacts_dir(round).join(BENCHMARK_CSV).is_file();
    let mut fill = if measured {
        run_fill(c, round)?
    } else {
        RunFill::default()
    };
    let verdict = decision
        .verdict
        .map(|v| v.as_str())
        .unwrap_or("NOT_VALIDATED");
    fill.gate_result = Some(match decision.decision {
        DecisionKind::Accepted if decision.forced => format!("ACCEPTED (forced over {verdict})"),
        DecisionKind::Accepted => format!("ACCEPTED ({verdict})"),
        DecisionKind::RolledBack => format!("ROLLED_BACK ({verdict})"),
        DecisionKind::Baseline => "BASELINE".to_owned(),
    });
    fill.failure_reason = match decision.decision {
        DecisionKind::RolledBack => decision.reason.clone(),
        _ => decision
            .gate
            .as_ref()
            .filter(|_| decision.forced)
            .map(|g| g.reasons.join("; ")),
    };
    store.fill_from_run(version, &fill)?;
    let hypothesis = c.hypothesis(round).unwrap_or_default();
    let mut ops = vec![
        set("optimization.action_category", json!("optimization")),
        set("optimization.action_description", json!(hypothesis)),
        set(
            "optimization.risks_and_rollback",
            json!(format!(
                "rollback restores kernel/ from round {}",
                decision.parent.unwrap_or(1)
            )),
        ),
    ];
    if let Some(delta) = decision.aggregate_delta {
        ops.push(set(
            "optimization.expected_impact",
            json!(format!(
                "{} {:+.2}% (measured, aggregate)",
                c.manifest.primary_metric,
                delta * 100.0
            )),
        ));
    }
    store.update(version, &ops)?;
    Ok(())
}

/// Record the git commit of an accepted round.
pub fn on_git_commit(c: &Campaign, round: u32, hash: &str) -> Result<()> {
    MemoryStore::new(&c.dir)?.update(
        Version::for_round(round)?,
        &[set("git_commit_hash", json!(hash))],
    )?;
    Ok(())
}

fn set(path: &str, value: Value) -> SetOp {
    SetOp::Set {
        path: path.split('.').map(str::to_owned).collect(),
        value,
    }
}

/// The performance and correctness numbers of a round's measurement.
fn run_fill(c: &Campaign, round: u32) -> Result<RunFill> {
    let adir = c.artifacts_dir(round);
    let table = BenchTable::read_held_to(&adir.join(BENCHMARK_CSV), c.frozen_header()?.as_deref())?;
    let result: Option<Value> = std::fs::read_to_string(adir.join(RESULT_JSON))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let pass: Vec<&crate::schema::Row> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .collect();
    let mut latency_us_by_shape = BTreeMap::new();
    for r in &pass {
        if let Some(ms) = r.metric(&table.schema, "Forward Time (ms)") {
            latency_us_by_shape.insert(r.label.clone(), ms * 1000.0);
        }
    }
    let geo = |name: &str| {
        crate::stats::geomean(
            &pass
                .iter()
                .filter_map(|r| r.metric(&table.schema, name))
                .collect::<Vec<_>>(),
        )
    };
    let tflops = geo("Forward TFLOPS");
    let bandwidth_gbps = geo("Forward GB/s").or_else(|| {
        // GEMM: the minimum traffic (read A and B, write C once) over the forward time.
        let elem = crate::ops::dtype_size(c.manifest.dtype) as f64;
        let rates: Vec<f64> = pass
            .iter()
            .filter_map(|r| {
                let ms = r.metric(&table.schema, "Forward Time (ms)")?;
                let [b, m, n, k] = <[u64; 4]>::try_from(r.dims.as_slice()).ok()?;
                let bytes = elem * (b * (m * k + k * n + m * n)) as f64;
                (ms > 0.0).then(|| bytes / (ms * 1e-3) / 1e9)
            })
            .collect();
        crate::stats::geomean(&rates)
    });
    // Worst relative error: from the run's own record, else from the worst SNR column
    // (snr = 20·log10(1/rel_err)).
    let rel_err = result
        .as_ref()
        .and_then(|r| r.get("shapes"))
        .and_then(|s| s.as_array())
        .map(|shapes| {
            shapes
                .iter()
                .filter_map(|s| s.get("rel_err").and_then(Value::as_f64))
                .fold(None, |acc: Option<f64>, v| {
                    Some(acc.map_or(v, |a| a.max(v)))
                })
        })
        .unwrap_or_else(|| {
            let snr_cols: Vec<&str> = table
                .schema
                .columns
                .iter()
                .map(|c| c.name.as_str())
                .filter(|n| n.ends_with("_snr"))
                .collect();
            pass.iter()
                .flat_map(|r| {
                    snr_cols
                        .iter()
                        .filter_map(|col| r.metric(&table.schema, col))
                })
                .filter(|s| s.is_finite())
                .map(|snr| 10f64.powf(-snr / 20.0))
                .fold(None, |acc: Option<f64>, v| {
                    Some(acc.map_or(v, |a| a.max(v)))
                })
        });
    let status = table
        .rows
        .iter()
        .map(|r| r.check)
        .find(|c| *c != Check::Pass)
        .or(Some(Check::Pass));
    let latencies: Vec<f64> = latency_us_by_shape.values().copied().collect();
    let utilization =
        crate::specs::record_utilization(&c.dir, &c.manifest, &table, result.as_ref());
    let isa = isa_metrics(c, round, result.as_ref());
    Ok(RunFill {
        latency_us: crate::stats::geomean(&latencies),
        latency_us_by_shape,
        tflops,
        bandwidth_gbps,
        tflops_peak_utilization_pct: utilization.0,
        bandwidth_peak_utilization_pct: utilization.1,
        rel_err,
        status,
        gate_result: Some(
            if table.rows.iter().all(|r| r.check == Check::Pass) {
                "PASS"
            } else {
                "FAIL"
            }
            .to_owned(),
        ),
        failure_reason: table
            .rows
            .iter()
            .find(|r| r.check != Check::Pass)
            .map(|r| format!("shape {} is {}", r.label, r.check.as_str())),
        isa_metric_progress: isa,
    })
}

/// Static metrics of the measured kernel's forward entry point against targets derived from
/// the adapter that ran it (limits from wgpu, ridge point from the spec registry or the
/// measured peaks). None when the run names no adapter this machine can see (an imported
/// CSV, another machine's run): the record's field is then left alone.
fn isa_metrics(
    c: &Campaign,
    round: u32,
    result: Option<&Value>,
) -> Option<Vec<crate::shader_metrics::IsaMetric>> {
    let adapter: crate::runner::AdapterDescription =
        serde_json::from_value(result?.get("adapter")?.clone()).ok()?;
    let report = crate::gpu::list_adapters()
        .into_iter()
        .find(|a| a.name == adapter.name)?;
    let peaks = crate::specs::adapter_peaks(&c.dir, &adapter, c.manifest.dtype)?;
    let ridge =
        Some(peaks.flops.value / peaks.bandwidth.value).filter(|r| r.is_finite() && *r > 0.0)?;
    let limits = crate::shader_metrics::IsaLimits {
        max_workgroup_storage_bytes: u64::from(report.limits.max_compute_workgroup_storage_size),
        max_invocations_per_workgroup: report.limits.max_compute_invocations_per_workgroup,
        subgroup_size: report.features.subgroup_max_size.max(1),
        ridge_point_flop_per_byte: ridge,
    };
    let file = c
        .round_dir(round)
        .join(KERNEL_DIR)
        .join(&c.manifest.kernel.file);
    let source = std::fs::read_to_string(&file).ok()?;
    let entry = c.manifest.kernel.entry_points.get("forward")?;
    let metrics = crate::shader_metrics::entry_metrics(&file, &source, entry).ok()?;
    Some(crate::shader_metrics::isa_metric_progress(
        &metrics, &limits,
    ))
}
