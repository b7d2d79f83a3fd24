//! Glue between decisions and the iteration records (`memory/v<N>.json`).
//! The run fills the performance and correctness fields itself (SPEC §8).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::layout::Campaign;
use crate::Result;
use crate::artifacts::result::RunResult;
use crate::files::{BENCHMARK_CSV, RESULT_JSON};
use crate::isa::{IsaLimits, IsaMetric, isa_metric_progress};
use crate::memory::{MemoryStore, RunFill, SetOp, Version};
use crate::schema::BenchTable;
use crate::types::{Check, DecisionKind};

/// BASELINE: memory/v0.json.
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
    // A result.json that does not parse must not block a decision: its numbers are only
    // provenance here, the CSV is what was scored.
    let result = RunResult::read(&adir.join(RESULT_JSON)).ok().flatten();
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
        .map(RunResult::max_rel_err)
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
    let utilization = crate::specs::record_utilization(
        &c.dir,
        &c.manifest,
        &table,
        result.as_ref().and_then(|r| r.adapter.as_ref()),
    );
    let isa = isa_metrics(c, result.as_ref());
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

/// Static metrics of the measured kernel's forward entry point (recorded by the run) against
/// targets derived from the adapter that ran it (its limits, recorded with it, and the
/// ridge point from the spec registry or the measured peaks). None for an imported CSV or a
/// run that recorded no metrics: the record's field is then left alone.
fn isa_metrics(c: &Campaign, result: Option<&RunResult>) -> Option<Vec<IsaMetric>> {
    let result = result?;
    let adapter = result.adapter.as_ref()?;
    let metrics = result.kernel_metrics.as_ref()?;
    let peaks = crate::specs::adapter_peaks(&c.dir, adapter, c.manifest.dtype)?;
    let ridge =
        Some(peaks.flops.value / peaks.bandwidth.value).filter(|r| r.is_finite() && *r > 0.0)?;
    let limits = IsaLimits {
        max_workgroup_storage_bytes: adapter.limits.max_workgroup_storage_bytes,
        max_invocations_per_workgroup: adapter.limits.max_invocations_per_workgroup,
        subgroup_size: adapter.limits.subgroup_size.max(1),
        ridge_point_flop_per_byte: ridge,
    };
    Some(isa_metric_progress(metrics, &limits))
}
