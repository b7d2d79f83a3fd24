//! The header of a benchmark CSV: column roles, the known schemas, inference from a header
//! and how two headers differ.

use serde::{Deserialize, Serialize};

use super::metric::{CombinedStepColumns, MetricRef};
use super::{
    BACKWARD_TFLOPS, BACKWARD_TIME, BANDWIDTH_HEADER, COMBINED_STEP_TFLOPS, FORWARD_TFLOPS,
    FORWARD_TIME, GEMM_HEADER, STDDEV_SUFFIX,
};

/// The role of one column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnRole {
    Label,
    /// An integer shape dimension (B, M, N, K, ...).
    Dim,
    Check,
    /// A metric with a `_stddev` partner (higher is better: TFLOPS, GB/s).
    Metric,
    /// The absolute stddev of the named metric.
    Stddev {
        of: String,
    },
    /// Any other numeric column (times, SNR); reported, not gated.
    Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub role: ColumnRole,
}

/// Which well-known schema a header is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaKind {
    Gemm,
    Bandwidth,
    /// Any other header that follows the conventions (label, dims, Check, metrics).
    Custom,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    pub kind: SchemaKind,
    pub columns: Vec<Column>,
}

impl Schema {
    pub fn gemm() -> Schema {
        let metric = |n: &str| column(n, ColumnRole::Metric);
        let stddev = |of: &str| {
            column(
                &format!("{of}{STDDEV_SUFFIX}"),
                ColumnRole::Stddev { of: of.to_owned() },
            )
        };
        let value = |n: &str| column(n, ColumnRole::Value);
        let mut columns = vec![column("label", ColumnRole::Label)];
        columns.extend(["B", "M", "N", "K"].map(|d| column(d, ColumnRole::Dim)));
        columns.extend([
            column("Check", ColumnRole::Check),
            metric(FORWARD_TFLOPS),
            stddev(FORWARD_TFLOPS),
            metric(BACKWARD_TFLOPS),
            stddev(BACKWARD_TFLOPS),
            value(FORWARD_TIME),
            value(BACKWARD_TIME),
            value("out_snr"),
            value("da_snr"),
            value("db_snr"),
        ]);
        Schema {
            kind: SchemaKind::Gemm,
            columns,
        }
    }

    pub fn bandwidth() -> Schema {
        Schema {
            kind: SchemaKind::Bandwidth,
            columns: vec![
                column("label", ColumnRole::Label),
                column("N", ColumnRole::Dim),
                column("Check", ColumnRole::Check),
                column("Forward GB/s", ColumnRole::Metric),
                column(
                    "Forward GB/s_stddev",
                    ColumnRole::Stddev {
                        of: "Forward GB/s".to_owned(),
                    },
                ),
                column(FORWARD_TIME, ColumnRole::Value),
                column("out_snr", ColumnRole::Value),
            ],
        }
    }

    /// The exact header bytes (no newline).
    pub fn header(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        names.join(",")
    }

    pub fn dim_names(&self) -> Vec<&str> {
        self.names_with(|r| *r == ColumnRole::Dim)
    }

    /// Metric column names in header order (the first one is the default gate metric).
    pub fn metric_names(&self) -> Vec<&str> {
        self.names_with(|r| *r == ColumnRole::Metric)
    }

    /// Metrics the gate can judge: the metric columns plus derived ones
    /// (`Combined Step TFLOPS` for GEMM).
    pub fn gateable_metrics(&self) -> Vec<String> {
        let mut metrics: Vec<String> = self.metric_names().into_iter().map(String::from).collect();
        if self.combined_step_columns().is_some() {
            metrics.push(COMBINED_STEP_TFLOPS.to_owned());
        }
        metrics
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Index of the `Check` column.
    pub fn check_index(&self) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.role == ColumnRole::Check)
    }

    /// Resolve a numeric column or derived metric to column indices once, so hot loops
    /// over rows do not look names up per row.
    pub fn resolve_metric(&self, name: &str) -> Option<MetricRef> {
        if name == COMBINED_STEP_TFLOPS {
            return self.combined_step_columns().map(MetricRef::CombinedStep);
        }
        let value = self.index_of(name)?;
        if !is_numeric(&self.columns[value].role) {
            return None;
        }
        let stddev = self
            .columns
            .iter()
            .position(|c| matches!(&c.role, ColumnRole::Stddev { of } if of == name));
        Some(MetricRef::Column { value, stddev })
    }

    fn names_with(&self, keep: impl Fn(&ColumnRole) -> bool) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| keep(&c.role))
            .map(|c| c.name.as_str())
            .collect()
    }

    /// Available when the schema has GEMM's dims, both TFLOPS metrics and both times.
    fn combined_step_columns(&self) -> Option<CombinedStepColumns> {
        let dims = self.dim_names();
        let dim = |n: &str| dims.iter().position(|d| *d == n);
        let metric = |n: &str| match self.resolve_metric(n)? {
            MetricRef::Column {
                value,
                stddev: Some(sd),
            } => Some((value, sd)),
            _ => None,
        };
        let (forward, forward_stddev) = metric(FORWARD_TFLOPS)?;
        let (backward, backward_stddev) = metric(BACKWARD_TFLOPS)?;
        Some(CombinedStepColumns {
            dims: [dim("B")?, dim("M")?, dim("N")?, dim("K")?],
            forward_time: self.index_of(FORWARD_TIME)?,
            backward_time: self.index_of(BACKWARD_TIME)?,
            forward,
            forward_stddev,
            backward,
            backward_stddev,
        })
    }
}

fn column(name: &str, role: ColumnRole) -> Column {
    Column {
        name: name.to_owned(),
        role,
    }
}

pub(super) fn is_numeric(role: &ColumnRole) -> bool {
    matches!(
        role,
        ColumnRole::Metric | ColumnRole::Stddev { .. } | ColumnRole::Value
    )
}

/// A fault in a header: the offending column (if one) and a message.
pub(super) struct HeaderFault {
    pub(super) column: Option<String>,
    pub(super) message: String,
}

fn fault(column: &str, message: String) -> HeaderFault {
    HeaderFault {
        column: Some(column.to_owned()),
        message,
    }
}

pub(super) fn infer_schema(header: &str) -> std::result::Result<Schema, HeaderFault> {
    let names: Vec<&str> = header.split(',').collect();
    let q = |n: &str| crate::text::quote(n, crate::text::QUOTE_CHARS);
    for (i, name) in names.iter().enumerate() {
        let at = i + 1;
        if name.is_empty() {
            return Err(HeaderFault {
                column: None,
                message: format!("column {at} has an empty name"),
            });
        }
        if name.trim() != *name || name.contains(['"', '\r', '\n']) {
            return Err(fault(
                name,
                format!(
                    "column {at} name '{}' has surrounding spaces, quotes or line breaks",
                    q(name)
                ),
            ));
        }
        if let Some(first) = names[..i].iter().position(|n| n == name) {
            return Err(fault(
                name,
                format!("column {at} '{}' duplicates column {}", q(name), first + 1),
            ));
        }
        // `Forward tflops` beside `Forward TFLOPS`: two columns a reader (or a spreadsheet)
        // can take for one, so which holds the metric would depend on who reads it.
        if let Some(first) = names[..i].iter().position(|n| n.eq_ignore_ascii_case(name)) {
            return Err(fault(
                name,
                format!(
                    "column {at} '{}' differs from column {} '{}' only in case: two columns a reader can take for one",
                    q(name),
                    first + 1,
                    q(names[first])
                ),
            ));
        }
        if let Some(c) = name.chars().find(|c| crate::text::is_invisible(*c)) {
            return Err(fault(
                name,
                format!(
                    "column {at} name '{}' contains U+{:04X}, a character that reorders or hides text",
                    q(name),
                    c as u32
                ),
            ));
        }
    }
    if names[0] != "label" {
        return Err(fault(
            names[0],
            format!("column 1 must be 'label', found '{}'", q(names[0])),
        ));
    }
    let check = names
        .iter()
        .position(|n| *n == "Check")
        .ok_or(HeaderFault {
            column: None,
            message: "no 'Check' column".to_owned(),
        })?;
    let mut roles: Vec<ColumnRole> = names
        .iter()
        .enumerate()
        .map(|(i, _)| match i {
            0 => ColumnRole::Label,
            i if i < check => ColumnRole::Dim,
            i if i == check => ColumnRole::Check,
            _ => ColumnRole::Value,
        })
        .collect();
    let after_check = &names[check + 1..];
    for (offset, name) in after_check.iter().enumerate() {
        let Some(of) = name.strip_suffix(STDDEV_SUFFIX) else {
            continue;
        };
        let Some(base) = after_check.iter().position(|n| *n == of) else {
            return Err(fault(
                name,
                format!(
                    "column {} '{}' is the stddev of '{}', but there is no metric column '{}' after 'Check'",
                    check + 2 + offset,
                    q(name),
                    q(of),
                    q(of)
                ),
            ));
        };
        if of.ends_with(STDDEV_SUFFIX) {
            return Err(fault(
                name,
                format!(
                    "column '{}' is the stddev of another stddev column",
                    q(name)
                ),
            ));
        }
        roles[check + 1 + offset] = ColumnRole::Stddev { of: of.to_owned() };
        roles[check + 1 + base] = ColumnRole::Metric;
    }
    let kind = match header {
        GEMM_HEADER => SchemaKind::Gemm,
        BANDWIDTH_HEADER => SchemaKind::Bandwidth,
        _ => SchemaKind::Custom,
    };
    let columns = names.iter().zip(roles).map(|(n, r)| column(n, r)).collect();
    Ok(Schema { kind, columns })
}

/// How two headers differ: the first differing column (1-based) and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderDifference {
    pub column: usize,
    /// The column name to point at (the found spelling where there is one).
    pub name: String,
    pub message: String,
}

/// Compare header `found` against `expected`; `expected_side`/`found_side` name them in the
/// message (e.g. "frozen" and "found"). None when the bytes are equal.
pub fn header_difference(
    expected: &str,
    found: &str,
    expected_side: &str,
    found_side: &str,
) -> Option<HeaderDifference> {
    if expected == found {
        return None;
    }
    let want: Vec<&str> = expected.split(',').collect();
    let got: Vec<&str> = found.split(',').collect();
    let first = (0..want.len().max(got.len()))
        .find(|&i| want.get(i) != got.get(i))
        .unwrap_or(0);
    let at = first + 1;
    let q = |n: &str| crate::text::quote(n, crate::text::QUOTE_CHARS);
    let (want_q, got_q): (Vec<String>, Vec<String>) = (
        want.iter().map(|n| q(n)).collect(),
        got.iter().map(|n| q(n)).collect(),
    );
    let (want, got): (Vec<&str>, Vec<&str>) = (
        want_q.iter().map(String::as_str).collect(),
        got_q.iter().map(String::as_str).collect(),
    );
    // A column left out shifts the later ones up: the column found in its place is the
    // next expected one, and the expected column is nowhere in the found header. Named as
    // missing, not as a misspelling of the column that moved up (and the other way round
    // for a column put in).
    let (next_want, next_got) = (want.get(first + 1), got.get(first + 1));
    let (name, message) = match (want.get(first), got.get(first)) {
        (Some(w), Some(g)) if next_want == Some(g) && !got.contains(w) => (
            w.to_string(),
            format!(
                "column {at}: {expected_side} '{w}' is missing ({found_side} has '{g}', {expected_side} column {}, in its place; {found_side} header has {} columns, {expected_side} {}; missing: {})",
                at + 1,
                got.len(),
                want.len(),
                crate::text::quote(
                    &want
                        .iter()
                        .filter(|n| !got.contains(n))
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", "),
                    1000
                )
            ),
        ),
        (Some(w), Some(g)) if next_got == Some(w) && !want.contains(g) => (
            g.to_string(),
            format!(
                "column {at}: {found_side} has an extra column '{g}' before {expected_side} '{w}' ({found_side} header has {} columns, {expected_side} {}; extra: {})",
                got.len(),
                want.len(),
                crate::text::quote(
                    &got.iter()
                        .filter(|n| !want.contains(n))
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", "),
                    1000
                )
            ),
        ),
        (Some(w), Some(g)) => (
            g.to_string(),
            format!("column {at}: {expected_side} '{w}' but {found_side} '{g}'"),
        ),
        (Some(w), None) => (
            w.to_string(),
            format!(
                "column {at}: {expected_side} '{w}' is missing ({found_side} header has {} columns, {expected_side} {}; missing: {})",
                got.len(),
                want.len(),
                crate::text::quote(&want[first..].join(", "), 1000)
            ),
        ),
        (None, Some(g)) => (
            g.to_string(),
            format!(
                "column {at}: {found_side} has an extra column '{g}' ({found_side} header has {} columns, {expected_side} {}; extra: {})",
                got.len(),
                want.len(),
                crate::text::quote(&got[first..].join(", "), 1000)
            ),
        ),
        (None, None) => (String::new(), "headers differ".to_owned()),
    };
    Some(HeaderDifference {
        column: at,
        name,
        message,
    })
}
