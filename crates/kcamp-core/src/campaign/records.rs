//! Glue between decisions and the iteration records (`memory/v<N>.json`).
//! The run fills the performance and correctness fields itself (docs/campaign-dir.md,
//! "Iteration records: `memory/v<N>.json`").

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::layout::Campaign;
use super::outcome::RoundOutcome;
use crate::Result;
use crate::artifacts::result::{RunResult, ShapeFailure};
use crate::files::{BENCHMARK_CSV, RESULT_JSON};
use crate::isa::{IsaLimits, IsaMetric, isa_metric_progress};
use crate::memory::{Comparison, MemoryStore, RunFill, SetOp, Version};
use crate::schema::{BenchTable, FORWARD_TIME};
use crate::types::{Check, DecisionKind, Validation};
use crate::units;

/// BASELINE: memory/v0.json.
pub fn on_baseline(c: &Campaign) -> Result<()> {
    let fill = run_fill(c, 1)?;
    let store = MemoryStore::new(&c.dir)?;
    store.fill_from_run(Version(0), &fill)?;
    let decision = c.decision(1)?;
    let mut ops = vec![
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
        set("references", json!(references(c, 1))),
        set(
            "git_commit_hash",
            json!(decision.and_then(|d| d.git_commit)),
        ),
    ];
    if let Some(target) = target_direction(c, 1)? {
        ops.push(set("open_directions", json!([target])));
    }
    store.update(Version(0), &ops)?;
    Ok(())
}

/// ACCEPT or ROLLBACK of round N: memory/v<N-1>.json, compared with the incumbent it was
/// judged against. A rolled-back round adds what went wrong to `pitfalls_and_fixes`; an
/// accepted one adds where to go next to `open_directions`.
pub fn on_decision(c: &Campaign, round: u32) -> Result<()> {
    let Some(decision) = c.decision(round)? else {
        return Ok(());
    };
    let version = Version::for_round(round)?;
    let store = MemoryStore::new(&c.dir)?;
    let outcome = RoundOutcome::read(c, round)?;
    let failures = grouped_failures(&outcome.failures);
    let measured = c.artifacts_dir(round).join(BENCHMARK_CSV).is_file();
    let mut fill = if measured {
        run_fill(c, round)?
    } else {
        RunFill::default()
    };
    fill.comparison = match decision.parent {
        Some(parent) if measured => compare_rounds(c, round, parent)?,
        _ => None,
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
            .map(|g| crate::gate::reason_texts(&g.reasons).join("; ")),
    };
    store.fill_from_run(version, &fill)?;
    let hypothesis = c.hypothesis(round).unwrap_or_default();
    let parent = decision.parent.unwrap_or(1);
    // A round with a shape that does not PASS has no aggregate change to claim.
    let change = match outcome.failures.len() {
        0 => decision.aggregate_delta.map(units::change),
        n => Some(format!(
            "FAIL ({} {} not PASS)",
            crate::text::count(n, "shape"),
            crate::text::does(n)
        )),
    }
    .map(|delta| {
        format!(
            "{} {delta} against round {parent} ({} validation)",
            c.manifest.primary_metric,
            decision.validation.map_or("no", Validation::as_str)
        )
    });
    let mut ops = vec![
        set("optimization.action_category", json!("optimization")),
        set("optimization.action_description", json!(hypothesis)),
        set(
            "optimization.risks_and_rollback",
            json!(format!("rollback restores kernel/ from round {parent}")),
        ),
        set("references", json!(references(c, round))),
        set("git_commit_hash", json!(decision.git_commit)),
    ];
    if let Some(change) = &change {
        ops.push(set(
            "optimization.expected_impact",
            json!(format!("{change} (measured, aggregate)")),
        ));
    }
    match decision.decision {
        DecisionKind::RolledBack => {
            let gate_reasons = decision
                .gate
                .as_ref()
                .map(|g| crate::gate::reason_texts(&g.reasons).join(" "))
                .unwrap_or_default();
            let message = if failures.is_empty() {
                gate_reasons
            } else {
                format!("{}. Gate: {gate_reasons}", failures.join("; "))
            };
            ops.push(set(
                "pitfalls_and_fixes",
                json!([{
                    "error_type": format!("ROLLED_BACK ({verdict})"),
                    "error_message": message.trim(),
                    "root_cause": decision.reason.clone().unwrap_or_default(),
                    "fix_applied": format!("rolled back: kernel/ restored from round {parent}"),
                    "lesson": format!(
                        "\"{hypothesis}\" did not pay off{}",
                        change.as_deref().map(|c| format!(": {c}")).unwrap_or_default()
                    ),
                }]),
            ));
        }
        DecisionKind::Accepted => {
            let mut directions = vec![format!(
                "build on round {round} (\"{hypothesis}\"){}",
                change
                    .as_deref()
                    .filter(|_| outcome.passed())
                    .map(|c| format!(", which gained {c}"))
                    .unwrap_or_default()
            )];
            let noted: Vec<String> = decision
                .gate
                .iter()
                .flat_map(|g| g.shapes.iter())
                .filter(|s| s.class == crate::gate::ShapeClass::Regressed)
                .map(|s| {
                    format!(
                        "{} {}",
                        s.label,
                        s.delta.map_or_else(|| "-".to_owned(), units::change)
                    )
                })
                .collect();
            if !noted.is_empty() {
                directions.push(format!(
                    "recover the shapes this round regressed: {}",
                    noted.join(", ")
                ));
            }
            directions.extend(target_direction(c, round)?);
            ops.push(set("open_directions", json!(directions)));
        }
        DecisionKind::Baseline => {}
    }
    store.update(version, &ops)?;
    Ok(())
}

/// Round `round` against `parent` over the shapes both measured and passed: forward
/// TFLOPS, latency and bytes per second, each a geomean over exactly those shapes.
fn compare_rounds(c: &Campaign, round: u32, parent: u32) -> Result<Option<Comparison>> {
    let frozen = c.frozen_header()?;
    let read = |n: u32| -> Result<Option<BenchTable>> {
        let p = c.artifacts_dir(n).join(BENCHMARK_CSV);
        if p.is_file() {
            BenchTable::read_held_to(&p, frozen.as_deref()).map(Some)
        } else {
            Ok(None)
        }
    };
    let (Some(new), Some(old)) = (read(round)?, read(parent)?) else {
        return Ok(None);
    };
    let pass = |r: &&crate::schema::Row| r.check == Check::Pass;
    let pairs: Vec<(&crate::schema::Row, &crate::schema::Row)> = new
        .rows
        .iter()
        .filter(pass)
        .filter_map(|n| old.find(&n.shape_key()).filter(pass).map(|o| (n, o)))
        .collect();
    let (op, dtype) = (c.manifest.op, c.manifest.dtype);
    let change = |value: &dyn Fn(&BenchTable, &crate::schema::Row) -> Option<f64>| {
        let geo = |t: &BenchTable, rows: Vec<&crate::schema::Row>| {
            crate::stats::geomean(
                &rows
                    .into_iter()
                    .filter_map(|r| value(t, r))
                    .collect::<Vec<_>>(),
            )
        };
        let n = geo(&new, pairs.iter().map(|p| p.0).collect());
        let o = geo(&old, pairs.iter().map(|p| p.1).collect());
        match (n, o) {
            (Some(n), Some(o)) if o > 0.0 => Some((n / o - 1.0) * 100.0),
            _ => None,
        }
    };
    let ms = |t: &BenchTable, r: &crate::schema::Row| r.metric(&t.schema, FORWARD_TIME);
    Ok(Some(Comparison {
        previous_version: Version::for_round(parent)?.to_string(),
        previous_round: parent,
        shapes: pairs.iter().map(|p| p.0.label.clone()).collect(),
        latency_us_change_pct: change(&|t, r| ms(t, r).map(|ms| ms * 1000.0)),
        tflops_change_pct: change(&|t, r| r.metric(&t.schema, "Forward TFLOPS")),
        bandwidth_gbps_change_pct: change(&|t, r| {
            let bytes = crate::ops::pass_work(op, dtype, &r.dims)[0]?.1;
            ms(t, r)
                .filter(|ms| *ms > 0.0)
                .map(|ms| bytes / (ms * 1e-3) / 1e9)
        }),
    }))
}

/// The shapes of a round that did not PASS, timed or only checked, grouped by what they
/// failed with: `s16, s32 (untimed) (FAIL): reason` (a compile error fails every shape
/// alike, and is said once).
fn grouped_failures(failures: &[ShapeFailure]) -> Vec<String> {
    let mut groups: Vec<(Check, Option<&str>, Vec<String>)> = Vec::new();
    for f in failures {
        let label = if f.untimed {
            format!("{} (untimed)", f.label)
        } else {
            f.label.clone()
        };
        let reason = f.reason.as_deref();
        match groups
            .iter_mut()
            .find(|(check, r, _)| *check == f.check && *r == reason)
        {
            Some(group) => group.2.push(label),
            None => groups.push((f.check, reason, vec![label])),
        }
    }
    groups
        .into_iter()
        .map(|(check, reason, labels)| {
            format!(
                "{} ({}){}",
                labels.join(", "),
                check.as_str(),
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            )
        })
        .collect()
}

/// Where the numbers of a round's record come from: its measurement and the peaks its
/// utilization is stated against.
fn references(c: &Campaign, round: u32) -> Vec<Value> {
    let adir = c.artifacts_dir(round);
    let result = RunResult::read(&adir.join(RESULT_JSON)).ok().flatten();
    let mut refs = Vec::new();
    if adir.join(BENCHMARK_CSV).is_file() {
        let how = match &result {
            Some(r) => format!(
                "{} validation on {} ({}), timing {}",
                r.validation.as_str(),
                r.adapter
                    .as_ref()
                    .map_or("an unrecorded adapter", |a| a.name.as_str()),
                r.adapter.as_ref().map_or("-", |a| a.backend.as_str()),
                if r.timing_methods.is_empty() {
                    "none (no shape was timed)".to_owned()
                } else {
                    r.timing_methods
                        .iter()
                        .map(|m| m.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            None => "imported or harness CSV (no run record)".to_owned(),
        };
        refs.push(json!({
            "source_type": "measurement",
            "path_or_url": format!("rounds/round-{round}/artifacts/{BENCHMARK_CSV}"),
            "description": format!("the round's frozen-schema CSV: {how}"),
        }));
    }
    if let Some(adapter) = result.as_ref().and_then(|r| r.adapter.as_ref()) {
        let roofs = crate::specs::Roofs::for_adapter(&c.dir, adapter, c.manifest.dtype);
        let registry = crate::specs::Registry::builtin().ok();
        for (kind, peaks) in [
            ("measured peak", &roofs.measured),
            ("cited peak", &roofs.cited),
        ] {
            let Some(p) = peaks else { continue };
            let url = registry
                .as_ref()
                .and_then(|r| r.sources.get(&p.flops.source))
                .map_or_else(|| crate::specs::PEAKS_FILE.to_owned(), |s| s.url.clone());
            refs.push(json!({
                "source_type": kind,
                "path_or_url": url,
                "description": p.describe(),
            }));
        }
    }
    refs
}

/// "performance target met ..." when the round's aggregate of the target metric reaches
/// the manifest's `performance_target`.
fn target_direction(c: &Campaign, round: u32) -> Result<Option<String>> {
    Ok(super::target::status(c, round)?.filter(|t| t.met).map(|t| {
        format!(
            "performance target met ({}): the campaign can end with `kcamp report`",
            t.describe()
        )
    }))
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
    // (snr = 20·log10(1/rel_err)); and of the untimed shapes it checked, so that a round
    // failed by one of them does not read as FAIL with a timed shape's tiny error.
    let timed_rel_err = result
        .as_ref()
        .map(RunResult::max_rel_err)
        .unwrap_or_else(|| crate::artifacts::result::max_rel_err_from_snr(&table));
    let checked = match &result {
        Some(r) => r.checked_shapes.clone(),
        None => super::measure::read_checked(&adir).unwrap_or_default(),
    };
    let rel_err = checked
        .iter()
        .filter_map(|s| s.rel_err)
        .chain(timed_rel_err)
        .filter(|e| e.is_finite())
        .reduce(f64::max);
    // The round's verdict on correctness, untimed checked shapes included: the same
    // derivation `kcamp log`, report.md and the dashboard state.
    let outcome = RoundOutcome::read(c, round)?;
    let latencies: Vec<f64> = latency_us_by_shape.values().copied().collect();
    let utilization = crate::specs::record_utilization(
        &c.dir,
        (c.manifest.op, c.manifest.dtype),
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
        status: Some(outcome.check()),
        gate_result: Some(if outcome.passed() { "PASS" } else { "FAIL" }.to_owned()),
        failure_reason: outcome.failures.first().map(|f| {
            format!(
                "shape {}{} is {}",
                f.label,
                if f.untimed { " (untimed)" } else { "" },
                f.check.as_str()
            )
        }),
        isa_metric_progress: isa,
        comparison: None,
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
    let ridge = Some(peaks.ridge_point()).filter(|r| r.is_finite() && *r > 0.0)?;
    let limits = IsaLimits {
        max_workgroup_storage_bytes: adapter.limits.max_workgroup_storage_bytes,
        max_invocations_per_workgroup: adapter.limits.max_invocations_per_workgroup,
        subgroup_size: adapter.limits.subgroup_size.max(1),
        ridge_point_flop_per_byte: ridge,
    };
    Some(isa_metric_progress(metrics, &limits))
}
