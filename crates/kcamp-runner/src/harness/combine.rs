//! One side of a harness measurement from its invocations: per shape the worst Check any
//! invocation gave it, and over the invocations that passed the median of each value (the
//! scored, frozen-schema row), their spread as the stddev, the worst SNR, and one sample
//! per invocation (`repeat` = its pair), which is what the gate pairs.

use std::collections::{BTreeMap, HashMap};

use kcamp_core::schema::{BenchTable, ColumnRole, Row, SampleRow, Samples, Schema};
use kcamp_core::stats::{median, pop_stddev};
use kcamp_core::types::Check;

/// What one invocation reported.
#[derive(Debug, Clone)]
pub(super) struct Run {
    /// The repeat its samples carry: its pair (1 for a measurement of one invocation).
    pub pair: u32,
    /// The rows it wrote, by label (already matched to the shapes asked for).
    pub rows: HashMap<String, Row>,
    /// What a shape it did not report becomes, and why.
    pub missing: (Check, String),
}

/// One side, combined.
#[derive(Debug, Clone)]
pub(super) struct Side {
    pub table: BenchTable,
    pub samples: Samples,
    /// Why the rows kcamp wrote (not the harness) are not PASS, by label.
    pub reasons: BTreeMap<String, String>,
}

/// How bad a Check is: a wrong output outweighs a crash, a crash a timeout.
fn severity(check: Check) -> u8 {
    match check {
        Check::Pass => 0,
        Check::TimeoutFail => 1,
        Check::Error => 2,
        Check::Fail => 3,
    }
}

/// The metrics the gate may judge and the times: what `samples.csv` carries per invocation.
fn sampled(schema: &Schema) -> Vec<String> {
    let mut names = schema.gateable_metrics();
    names.extend(
        schema
            .columns
            .iter()
            .filter(|c| c.role == ColumnRole::Value && c.name.contains("Time"))
            .map(|c| c.name.clone()),
    );
    names
}

/// Combine `runs` over `shapes` (label and dimensions, in order). A shape no run passed
/// keeps the worst row seen (the harness's own, or an empty one kcamp wrote, with its
/// reason); a shape every run passed gets the median row.
pub(super) fn combine(schema: &Schema, shapes: &[(String, Vec<u64>)], runs: &[Run]) -> Side {
    let metrics = sampled(schema);
    let mut rows = Vec::with_capacity(shapes.len());
    let mut samples = Vec::new();
    let mut reasons = BTreeMap::new();
    for (label, dims) in shapes {
        let mut worst: Option<(Check, Option<&Row>, Option<&str>)> = None;
        let mut passing: Vec<(u32, &Row)> = Vec::new();
        for run in runs {
            let (check, row, reason) = match run.rows.get(label) {
                Some(row) if row.check == Check::Pass => {
                    passing.push((run.pair, row));
                    continue;
                }
                Some(row) => (row.check, Some(row), None),
                None => (run.missing.0, None, Some(run.missing.1.as_str())),
            };
            if worst.is_none_or(|(w, _, _)| severity(check) > severity(w)) {
                worst = Some((check, row, reason));
            }
        }
        if runs.is_empty() {
            worst = Some((
                Check::Error,
                None,
                Some("no harness invocation measured it"),
            ));
        }
        let row = match worst {
            Some((check, row, reason)) => {
                if let Some(why) = reason {
                    reasons.insert(label.clone(), why.to_owned());
                }
                row.cloned().unwrap_or_else(|| Row {
                    label: label.clone(),
                    dims: dims.clone(),
                    check,
                    values: vec![f64::NAN; schema.columns.len()],
                })
            }
            None => {
                for (pair, row) in &passing {
                    for m in &metrics {
                        if let Some(value) = row.metric(schema, m) {
                            samples.push(SampleRow {
                                label: label.clone(),
                                metric: m.clone(),
                                repeat: *pair,
                                value,
                            });
                        }
                    }
                }
                median_row(schema, label, dims, &passing)
            }
        };
        rows.push(row);
    }
    Side {
        table: BenchTable {
            schema: schema.clone(),
            rows,
        },
        samples: Samples { rows: samples },
        reasons,
    }
}

/// The row of a shape every run passed: each value the median over the runs, each stddev
/// the population spread of its metric over them (the run's own stddev when there is one
/// run), each SNR the worst.
fn median_row(schema: &Schema, label: &str, dims: &[u64], passing: &[(u32, &Row)]) -> Row {
    let column = |i: usize| -> Vec<f64> {
        passing
            .iter()
            .filter_map(|(_, r)| r.value(i))
            .filter(|v| !v.is_nan())
            .collect()
    };
    let values = schema
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| match &c.role {
            ColumnRole::Label | ColumnRole::Dim | ColumnRole::Check => f64::NAN,
            ColumnRole::Stddev { of } if passing.len() > 1 => schema
                .index_of(of)
                .and_then(|m| pop_stddev(&column(m)))
                .unwrap_or(f64::NAN),
            ColumnRole::Value if c.name.ends_with("_snr") => {
                column(i).into_iter().reduce(f64::min).unwrap_or(f64::NAN)
            }
            _ => median(&column(i)).unwrap_or(f64::NAN),
        })
        .collect();
    Row {
        label: label.to_owned(),
        dims: dims.to_vec(),
        check: Check::Pass,
        values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::schema::BANDWIDTH_HEADER;

    /// A bandwidth row: `label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr`.
    fn row(label: &str, check: Check, gbs: f64, sd: f64, ms: f64, snr: f64) -> Row {
        Row {
            label: label.to_owned(),
            dims: vec![1024],
            check,
            values: vec![f64::NAN, f64::NAN, f64::NAN, gbs, sd, ms, snr],
        }
    }

    fn run(pair: u32, rows: Vec<Row>) -> Run {
        Run {
            pair,
            rows: rows.into_iter().map(|r| (r.label.clone(), r)).collect(),
            missing: (Check::TimeoutFail, format!("run {pair} timed out")),
        }
    }

    fn shapes(labels: &[&str]) -> Vec<(String, Vec<u64>)> {
        labels
            .iter()
            .map(|l| ((*l).to_owned(), vec![1024]))
            .collect()
    }

    #[test]
    fn a_shape_every_run_passed_gets_medians_their_spread_and_one_sample_per_run() {
        let schema = Schema::bandwidth();
        assert_eq!(schema.header(), BANDWIDTH_HEADER);
        let runs = [
            run(1, vec![row("a", Check::Pass, 10.0, 0.5, 3.0, 90.0)]),
            run(2, vec![row("a", Check::Pass, 14.0, 0.5, 2.0, 80.0)]),
            run(3, vec![row("a", Check::Pass, 12.0, 0.5, 2.5, 95.0)]),
        ];
        let side = combine(&schema, &shapes(&["a"]), &runs);
        let r = &side.table.rows[0];
        assert_eq!(r.check, Check::Pass);
        assert_eq!(r.values[3], 12.0);
        // The spread over the runs, not any run's own.
        assert!((r.values[4] - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((r.values[5], r.values[6]), (2.5, 80.0));
        let gbs = side.samples.values("a", "Forward GB/s");
        assert_eq!(gbs, vec![10.0, 14.0, 12.0]);
        assert_eq!(
            side.samples.values("a", "Forward Time (ms)"),
            vec![3.0, 2.0, 2.5]
        );
        assert!(side.reasons.is_empty());
        // One run keeps its own stddev.
        let one = combine(&schema, &shapes(&["a"]), &runs[..1]);
        assert_eq!(one.table.rows[0].values[4], 0.5);
        // The table is a valid frozen-schema CSV.
        let text = side.table.to_csv();
        assert!(BenchTable::parse(&text, std::path::Path::new("x.csv")).is_ok());
    }

    #[test]
    fn the_worst_check_wins_and_a_row_kcamp_wrote_carries_its_reason() {
        let schema = Schema::bandwidth();
        let runs = [
            run(1, vec![row("a", Check::Pass, 10.0, 0.5, 3.0, 90.0)]),
            // Run 2 reports b FAIL and hangs before a.
            run(
                2,
                vec![row("b", Check::Fail, f64::NAN, f64::NAN, f64::NAN, 3.0)],
            ),
            run(3, vec![row("a", Check::Pass, 10.0, 0.5, 3.0, 90.0)]),
        ];
        let side = combine(&schema, &shapes(&["a", "b"]), &runs);
        let (a, b) = (&side.table.rows[0], &side.table.rows[1]);
        assert_eq!(a.check, Check::TimeoutFail);
        assert!(a.values[3].is_nan());
        assert_eq!(side.reasons["a"], "run 2 timed out");
        // A FAIL outweighs the timeouts of runs 1 and 3, and keeps the harness's own cells.
        assert_eq!((b.check, b.values[6]), (Check::Fail, 3.0));
        assert!(!side.reasons.contains_key("b"));
        // No samples for shapes that did not pass.
        assert!(side.samples.rows.is_empty());
        let text = side.table.to_csv();
        assert!(BenchTable::parse(&text, std::path::Path::new("x.csv")).is_ok());
        // No run at all: ERROR, with why.
        let none = combine(&schema, &shapes(&["a"]), &[]);
        assert_eq!(none.table.rows[0].check, Check::Error);
        assert!(none.reasons["a"].contains("no harness invocation"));
    }
}
