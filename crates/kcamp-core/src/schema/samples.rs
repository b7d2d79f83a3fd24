//! `samples.csv`: every per-repeat value of every metric, for the statistics.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::columns::header_difference;
use super::table::{BenchTable, for_each_record, push_field, push_number, read_text, split_header};
use crate::types::validate_label;
use crate::{Error, Result};

/// Raw per-repeat samples (`samples.csv`): header `label,metric,repeat,value`.
/// `metric` is a metric column name (or `Combined Step TFLOPS`); value in its unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Samples {
    pub rows: Vec<SampleRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRow {
    pub label: String,
    pub metric: String,
    pub repeat: u32,
    pub value: f64,
}

pub const SAMPLES_HEADER: &str = "label,metric,repeat,value";

/// A (label, metric, repeat) triple may appear once. Grouped by (label, metric) with
/// borrowed keys, then each group's repeats are sorted and compared with their neighbour.
fn check_unique_repeats(rows: &[SampleRow], lines: &[u64], origin: &Path) -> Result<()> {
    let mut groups: HashMap<(&str, &str), Vec<(u32, usize)>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups
            .entry((r.label.as_str(), r.metric.as_str()))
            .or_default()
            .push((r.repeat, i));
    }
    let mut clash: Option<(usize, usize)> = None;
    for group in groups.values_mut() {
        group.sort_unstable();
        for pair in group.windows(2) {
            if pair[0].0 == pair[1].0 {
                let found = (pair[0].1.min(pair[1].1), pair[0].1.max(pair[1].1));
                // Report the clash that completes first in the file, whatever the map order.
                if clash.is_none_or(|c| found.1 < c.1) {
                    clash = Some(found);
                }
            }
        }
    }
    match clash {
        None => Ok(()),
        Some((first, second)) => {
            let r = &rows[second];
            Err(Error::in_file(
                origin,
                Some(lines[second]),
                Some("repeat"),
                format!(
                    "repeat {} of '{}' / '{}' appears twice (lines {} and {})",
                    r.repeat, r.label, r.metric, lines[first], lines[second]
                ),
            ))
        }
    }
}

impl Samples {
    /// Header-only is valid (a run whose shapes all failed has no samples).
    pub fn parse(text: &str, origin: &Path) -> Result<Samples> {
        let (header, body) =
            split_header(text).map_err(|m| Error::in_file(origin, None, None, m))?;
        if let Some(diff) = header_difference(SAMPLES_HEADER, header, "expected", "found") {
            return Err(Error::in_file(
                origin,
                Some(1),
                Some(&diff.name),
                format!("not a samples header: {}", diff.message),
            ));
        }
        let mut rows = Vec::new();
        let mut lines: Vec<u64> = Vec::new();
        for_each_record(body, origin, |record, line| {
            let bad =
                |column: &str, msg: String| Error::in_file(origin, Some(line), Some(column), msg);
            if record.len() != 4 {
                return Err(Error::in_file(
                    origin,
                    Some(line),
                    None,
                    format!("expected 4 fields, found {}", record.len()),
                ));
            }
            let label = &record[0];
            validate_label(label).map_err(|m| bad("label", m))?;
            let metric = &record[1];
            if metric.is_empty() {
                return Err(bad("metric", "empty metric name".to_owned()));
            }
            let repeat: u32 = record[2].parse().map_err(|_| {
                bad(
                    "repeat",
                    format!("'{}' is not an unsigned integer", &record[2]),
                )
            })?;
            let value: f64 = record[3]
                .parse()
                .map_err(|_| bad("value", format!("'{}' is not a number", &record[3])))?;
            if !(value.is_finite() && value >= 0.0) {
                return Err(bad(
                    "value",
                    format!(
                        "sample must be finite and non-negative, found {}",
                        &record[3]
                    ),
                ));
            }
            lines.push(line);
            rows.push(SampleRow {
                label: label.to_owned(),
                metric: metric.to_owned(),
                repeat,
                value,
            });
            Ok(())
        })?;
        check_unique_repeats(&rows, &lines, origin)?;
        Ok(Samples { rows })
    }

    pub fn read(path: &Path) -> Result<Samples> {
        Samples::parse(&read_text(path)?, path)
    }

    /// Read the samples that belong to `table` (the benchmark CSV beside them) and check
    /// that they do: see [`Samples::check_against`].
    pub fn read_for(path: &Path, table: &BenchTable) -> Result<Samples> {
        let samples = Samples::read(path)?;
        samples.check_against(table, path)?;
        Ok(samples)
    }

    /// Every sample must be of a shape of `table` and of one of its metrics (a numeric
    /// column or a derived metric): samples of an unknown shape would be silently ignored by
    /// the gate, so they are an error naming the line.
    pub fn check_against(&self, table: &BenchTable, origin: &Path) -> Result<()> {
        let labels: HashSet<&str> = table.rows.iter().map(|r| r.label.as_str()).collect();
        let schema = &table.schema;
        let metrics = schema.gateable_metrics();
        let numeric =
            |m: &str| metrics.iter().any(|g| g == m) || schema.resolve_metric(m).is_some();
        let mut known_metric: HashMap<&str, bool> = HashMap::new();
        for (i, r) in self.rows.iter().enumerate() {
            let record = i + 1;
            if !labels.contains(r.label.as_str()) {
                return Err(Error::in_file(
                    origin,
                    None,
                    Some("label"),
                    format!(
                        "sample row {record}: samples for shape '{}', which is not in the benchmark CSV beside it",
                        crate::text::quote(&r.label, crate::text::QUOTE_CHARS)
                    ),
                ));
            }
            if !*known_metric
                .entry(r.metric.as_str())
                .or_insert_with(|| numeric(&r.metric))
            {
                return Err(Error::in_file(
                    origin,
                    None,
                    Some("metric"),
                    format!(
                        "sample row {record}: samples of '{}', which is not a metric of the benchmark CSV beside it (it has: {})",
                        crate::text::quote(&r.metric, crate::text::QUOTE_CHARS),
                        metrics.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn to_csv(&self) -> String {
        let mut out = String::from(SAMPLES_HEADER);
        out.push('\n');
        for row in &self.rows {
            push_field(&mut out, &row.label);
            out.push(',');
            push_field(&mut out, &row.metric);
            out.push(',');
            out.push_str(&row.repeat.to_string());
            out.push(',');
            push_number(&mut out, row.value);
            out.push('\n');
        }
        out
    }

    /// The samples of one shape label and metric, in repeat order.
    pub fn values(&self, label: &str, metric: &str) -> Vec<f64> {
        let mut found: Vec<(u32, f64)> = self
            .rows
            .iter()
            .filter(|r| r.label == label && r.metric == metric)
            .map(|r| (r.repeat, r.value))
            .collect();
        found.sort_by_key(|(repeat, _)| *repeat);
        found.into_iter().map(|(_, v)| v).collect()
    }

    /// Every label's samples of one metric, in repeat order: one pass instead of one
    /// [`Samples::values`] scan per shape.
    pub fn values_by_label(&self, metric: &str) -> HashMap<&str, Vec<f64>> {
        self.repeats_by_label(metric)
            .into_iter()
            .map(|(label, v)| (label, v.into_iter().map(|(_, x)| x).collect()))
            .collect()
    }

    /// Every label's `(repeat, value)` samples of one metric, sorted by repeat: what pairs
    /// two runs' samples repeat by repeat.
    pub fn repeats_by_label(&self, metric: &str) -> HashMap<&str, Vec<(u32, f64)>> {
        let mut grouped: HashMap<&str, Vec<(u32, f64)>> = HashMap::new();
        for r in self.rows.iter().filter(|r| r.metric == metric) {
            grouped
                .entry(r.label.as_str())
                .or_default()
                .push((r.repeat, r.value));
        }
        for v in grouped.values_mut() {
            v.sort_by_key(|(repeat, _)| *repeat);
        }
        grouped
    }
}
