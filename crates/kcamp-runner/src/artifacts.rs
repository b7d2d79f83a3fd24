//! What a run leaves behind (docs/csv-schema.md, "Beside them"): `benchmark.csv`,
//! `samples.csv`, `result.json` and the `[kcamp] RESULT_JSON={...}` line; plus the
//! roofline-floor check that keeps an impossible time from becoming a record
//! (docs/harness.md, "Impossible results").

use std::collections::BTreeMap;
use std::path::Path;

use kcamp_core::artifacts::result::{RunResult, RunSummary};
use kcamp_core::case::CaseOutcome;
use kcamp_core::files::{BENCHMARK_CSV, RESULT_JSON, SAMPLES_CSV};
use kcamp_core::fsutil::{write_atomic, write_json_atomic};
use kcamp_core::plausibility::impossible;
use kcamp_core::schema::{BenchTable, ColumnRole, Row, Samples, Schema};
use kcamp_core::specs::FloorPeaks;
use kcamp_core::types::{Check, Dtype, OpName};
use kcamp_core::{Error, Result};

const FORWARD_TIME: &str = "Forward Time (ms)";
const BACKWARD_TIME: &str = "Backward Time (ms)";

/// The benchmark table and raw samples of a run, in the op's frozen schema.
pub fn outcomes_to_table(op: OpName, outcomes: &[CaseOutcome]) -> Result<(BenchTable, Samples)> {
    outcomes_to_table_with(kcamp_core::ops::op(op).schema(), outcomes)
}

/// Like [`outcomes_to_table`] with an explicit schema. Numeric cells come from the
/// outcome's metrics by column name; a missing one is NaN (an empty cell). A PASS row
/// must fill every numeric column (the CSV parser refuses empty cells there), so a gap is
/// a bug of the executor, reported by shape and column.
pub fn outcomes_to_table_with(
    schema: Schema,
    outcomes: &[CaseOutcome],
) -> Result<(BenchTable, Samples)> {
    let mut rows = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        let values: Vec<f64> = schema
            .columns
            .iter()
            .map(|c| match c.role {
                ColumnRole::Label | ColumnRole::Dim | ColumnRole::Check => f64::NAN,
                _ => o.metrics.get(&c.name).copied().unwrap_or(f64::NAN),
            })
            .collect();
        if o.check == Check::Pass {
            let missing = schema.columns.iter().zip(&values).find(|(c, v)| {
                !matches!(
                    c.role,
                    ColumnRole::Label | ColumnRole::Dim | ColumnRole::Check
                ) && v.is_nan()
            });
            if let Some((column, _)) = missing {
                return Err(Error::Internal(format!(
                    "shape '{}' passed without a value for column '{}'",
                    o.label, column.name
                )));
            }
        }
        rows.push(Row {
            label: o.label.clone(),
            dims: o.dims.clone(),
            check: o.check,
            values,
        });
    }
    let samples = Samples {
        rows: outcomes.iter().flat_map(|o| o.samples.clone()).collect(),
    };
    Ok((BenchTable { schema, rows }, samples))
}

/// Summarize a run; `primary_metric` may be derived (`Combined Step TFLOPS`).
pub fn summarize(table: &BenchTable, outcomes: &[CaseOutcome], primary_metric: &str) -> RunSummary {
    let passed: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.check == Check::Pass).collect();
    let latency_us_by_shape: BTreeMap<String, f64> = outcomes
        .iter()
        .filter_map(|o| o.latency_us.map(|l| (o.label.clone(), l)))
        .collect();
    let pass_latencies: Vec<f64> = passed.iter().filter_map(|o| o.latency_us).collect();
    let primary: Vec<f64> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .filter_map(|r| r.metric(&table.schema, primary_metric))
        .collect();
    RunSummary {
        total: outcomes.len(),
        passed: passed.len(),
        all_pass: !outcomes.is_empty() && passed.len() == outcomes.len(),
        latency_us_by_shape,
        latency_us_geomean: kcamp_core::stats::geomean(&pass_latencies),
        max_rel_err: outcomes
            .iter()
            .filter_map(|o| o.rel_err)
            .fold(None, |acc: Option<f64>, e| {
                Some(acc.map_or(e, |a| a.max(e)))
            }),
        metric: primary_metric.to_owned(),
        aggregate: kcamp_core::stats::geomean(&primary),
    }
}

/// Write the three artifacts into `dir`, each atomically.
pub fn write_run_artifacts(
    dir: &Path,
    table: &BenchTable,
    samples: &Samples,
    result: &RunResult,
) -> Result<()> {
    write_atomic(&dir.join(BENCHMARK_CSV), table.to_csv().as_bytes())?;
    write_atomic(&dir.join(SAMPLES_CSV), samples.to_csv().as_bytes())?;
    write_json_atomic(&dir.join(RESULT_JSON), result)
}

/// Turn every PASS shape whose measured time is below the adapter's roofline floor into
/// `ERROR`: such a time is impossible, so it must never become a record.
/// Returns how many shapes were rejected.
pub fn apply_roofline_floor(
    outcomes: &mut [CaseOutcome],
    op: OpName,
    dtype: Dtype,
    peaks: &FloorPeaks,
) -> usize {
    let mut rejected = 0;
    for o in outcomes.iter_mut().filter(|o| o.check == Check::Pass) {
        let times = [FORWARD_TIME, BACKWARD_TIME]
            .map(|column| o.metrics.get(column).map(|ms| (column.to_owned(), *ms)));
        if let Some(reason) = impossible(op, dtype, &o.dims, times, peaks) {
            o.check = Check::Error;
            o.reason = Some(reason);
            rejected += 1;
        }
    }
    rejected
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::schema::Column;
    use kcamp_core::specs::PeakValue;
    use kcamp_core::types::TimingMethod;

    fn outcome(label: &str, check: Check, metrics: &[(&str, f64)]) -> CaseOutcome {
        CaseOutcome {
            label: label.into(),
            dims: vec![1, 4096, 4096, 4096],
            check,
            reason: None,
            metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            samples: Vec::new(),
            rel_err: Some(1e-6),
            latency_us: Some(10_000.0),
            timing_method: Some(TimingMethod::GpuTimestamps),
            adapter: None,
            seed: 1,
            trusted: false,
            kernel_metrics: None,
            driver_statistics: None,
            warmup: Vec::new(),
            aligned_entries: Vec::new(),
            paired: None,
            time_ms: Default::default(),
            environment: None,
        }
    }

    fn h200_cited() -> FloorPeaks {
        FloorPeaks {
            flops: Some(PeakValue {
                value: 67e12,
                source: "nvidia-h200-datasheet".into(),
                key: None,
            }),
            bandwidth: Some(PeakValue {
                value: 4.8e12,
                source: "nvidia-h200-datasheet".into(),
                key: None,
            }),
        }
    }

    #[test]
    fn impossible_time_turns_the_shape_into_error_naming_the_floor_and_source() {
        // 2·4096³ FLOP at 67 TFLOP/s takes at least 2.0513 ms.
        let mut outcomes = vec![
            outcome("fast", Check::Pass, &[(FORWARD_TIME, 1.0)]),
            outcome("real", Check::Pass, &[(FORWARD_TIME, 10.0)]),
            outcome("failed", Check::Fail, &[(FORWARD_TIME, 0.001)]),
        ];
        let n = apply_roofline_floor(&mut outcomes, OpName::Gemm, Dtype::F32, &h200_cited());
        assert_eq!(n, 1);
        assert_eq!(outcomes[0].check, Check::Error);
        let reason = outcomes[0].reason.as_deref().unwrap();
        assert!(
            reason.starts_with("impossible: Forward Time (ms) 1.00 ms"),
            "{reason}"
        );
        assert!(
            reason.contains("floor 2.05 ms")
                && reason.contains("67.0 TFLOP/s [nvidia-h200-datasheet]"),
            "{reason}"
        );
        assert_eq!(outcomes[1].check, Check::Pass);
        assert_eq!(outcomes[2].check, Check::Fail);
    }

    #[test]
    fn backward_time_is_checked_against_the_backward_work() {
        // Backward: 4·4096³ FLOP ≥ 4.1 ms at 67 TFLOP/s.
        let mut outcomes = vec![outcome(
            "bwd",
            Check::Pass,
            &[(FORWARD_TIME, 3.0), (BACKWARD_TIME, 3.0)],
        )];
        apply_roofline_floor(&mut outcomes, OpName::Gemm, Dtype::F32, &h200_cited());
        assert_eq!(outcomes[0].check, Check::Error);
        assert!(
            outcomes[0]
                .reason
                .as_deref()
                .unwrap()
                .contains(BACKWARD_TIME)
        );
    }

    #[test]
    fn no_known_peak_means_no_floor() {
        let mut outcomes = vec![outcome("x", Check::Pass, &[(FORWARD_TIME, 1e-9)])];
        let n = apply_roofline_floor(
            &mut outcomes,
            OpName::Gemm,
            Dtype::F32,
            &FloorPeaks::default(),
        );
        assert_eq!(n, 0);
        assert_eq!(outcomes[0].check, Check::Pass);
    }

    fn tiny_schema() -> Schema {
        let col = |name: &str, role| Column {
            name: name.into(),
            role,
        };
        Schema {
            kind: kcamp_core::schema::SchemaKind::Custom,
            columns: vec![
                col("label", ColumnRole::Label),
                col("N", ColumnRole::Dim),
                col("Check", ColumnRole::Check),
                col("Forward GB/s", ColumnRole::Metric),
                col(
                    "Forward GB/s_stddev",
                    ColumnRole::Stddev {
                        of: "Forward GB/s".into(),
                    },
                ),
            ],
        }
    }

    #[test]
    fn rows_take_metrics_by_column_name_and_leave_missing_cells_nan() {
        let mut ok = outcome(
            "ok",
            Check::Pass,
            &[("Forward GB/s", 5.0), ("Forward GB/s_stddev", 0.1)],
        );
        ok.dims = vec![1024];
        ok.samples = vec![kcamp_core::schema::SampleRow {
            label: "ok".into(),
            metric: "Forward GB/s".into(),
            repeat: 0,
            value: 5.0,
        }];
        let mut timeout = outcome("slow", Check::TimeoutFail, &[]);
        timeout.dims = vec![2048];
        let (table, samples) = outcomes_to_table_with(tiny_schema(), &[ok, timeout]).unwrap();
        assert_eq!(table.rows[0].values[3], 5.0);
        assert_eq!(table.rows[0].values[4], 0.1);
        assert!(table.rows[0].values[0].is_nan());
        assert!(table.rows[1].values[3].is_nan());
        assert_eq!(table.rows[1].dims, vec![2048]);
        assert_eq!(table.rows[1].check, Check::TimeoutFail);
        assert_eq!(samples.rows.len(), 1);
    }

    #[test]
    fn a_pass_row_missing_a_value_is_an_error_naming_the_column() {
        let o = outcome("ok", Check::Pass, &[("Forward GB/s_stddev", 0.1)]);
        let err = outcomes_to_table_with(tiny_schema(), &[o])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'ok'") && err.contains("'Forward GB/s'"),
            "{err}"
        );
        let o = outcome("ok", Check::Pass, &[("Forward GB/s", 5.0)]);
        let err = outcomes_to_table_with(tiny_schema(), &[o])
            .unwrap_err()
            .to_string();
        assert!(err.contains("'Forward GB/s_stddev'"), "{err}");
    }
}
