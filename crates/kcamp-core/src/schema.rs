//! Frozen-schema benchmark CSVs (SPEC §7).
//!
//! A [`Schema`] is an ordered list of column names with a role for each. Dimension columns
//! sit between `label` and `Check`; a metric column `X` has its absolute standard deviation
//! in `X_stddev`. The header bytes are frozen at BASELINE and every later CSV must match
//! them exactly.
//!
//! The public API below is the contract other modules build on.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::IoContext;
use crate::types::Check;
use crate::types::validate_label;
use crate::{Error, Result};

/// The GEMM header, byte for byte (no trailing newline).
pub const GEMM_HEADER: &str = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";

/// The header of memory-bound ops (GB/s schema).
pub const BANDWIDTH_HEADER: &str =
    "label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr";

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

/// The derived GEMM metric: forward + backward step throughput (SPEC §7).
pub const COMBINED_STEP_TFLOPS: &str = "Combined Step TFLOPS";

/// Column names the derived `Combined Step TFLOPS` is computed from.
const FORWARD_TFLOPS: &str = "Forward TFLOPS";
const BACKWARD_TFLOPS: &str = "Backward TFLOPS";
const FORWARD_TIME: &str = "Forward Time (ms)";
const BACKWARD_TIME: &str = "Backward Time (ms)";

const STDDEV_SUFFIX: &str = "_stddev";

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

    /// Infer roles from a header line (conventions above). Errors name the column.
    pub fn from_header(header: &str) -> Result<Schema> {
        infer_schema(header).map_err(|fault| Error::input(format!("header: {}", fault.message)))
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

fn is_numeric(role: &ColumnRole) -> bool {
    matches!(
        role,
        ColumnRole::Metric | ColumnRole::Stddev { .. } | ColumnRole::Value
    )
}

/// A fault in a header: the offending column (if one) and a message.
struct HeaderFault {
    column: Option<String>,
    message: String,
}

fn fault(column: &str, message: String) -> HeaderFault {
    HeaderFault {
        column: Some(column.to_owned()),
        message,
    }
}

fn infer_schema(header: &str) -> std::result::Result<Schema, HeaderFault> {
    let names: Vec<&str> = header.split(',').collect();
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
                format!("column {at} name {name:?} has surrounding spaces, quotes or line breaks"),
            ));
        }
        if let Some(first) = names[..i].iter().position(|n| n == name) {
            return Err(fault(
                name,
                format!("column {at} '{name}' duplicates column {}", first + 1),
            ));
        }
    }
    if names[0] != "label" {
        return Err(fault(
            names[0],
            format!("column 1 must be 'label', found '{}'", names[0]),
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
                    "column {} '{name}' is the stddev of '{of}', but there is no metric column '{of}' after 'Check'",
                    check + 2 + offset
                ),
            ));
        };
        if of.ends_with(STDDEV_SUFFIX) {
            return Err(fault(
                name,
                format!("column '{name}' is the stddev of another stddev column"),
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

/// Where a metric's value and stddev live in a row, resolved once per schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricRef {
    /// A numeric column; `stddev` is its `_stddev` partner if it has one.
    Column { value: usize, stddev: Option<usize> },
    /// `Combined Step TFLOPS`, derived from dims, times and both TFLOPS stddevs.
    CombinedStep(CombinedStepColumns),
}

/// Positions the derived `Combined Step TFLOPS` reads: `dims` index `Row::dims`
/// (B, M, N, K), the others index `Row::values`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombinedStepColumns {
    dims: [usize; 4],
    forward_time: usize,
    backward_time: usize,
    forward: usize,
    forward_stddev: usize,
    backward: usize,
    backward_stddev: usize,
}

impl MetricRef {
    /// The metric's value in `row` (NaN for empty cells of non-PASS rows).
    pub fn value(&self, row: &Row) -> Option<f64> {
        match self {
            MetricRef::Column { value, .. } => row.values.get(*value).copied(),
            MetricRef::CombinedStep(c) => {
                let mut flops = 6.0;
                for d in c.dims {
                    flops *= *row.dims.get(d)? as f64;
                }
                let ms = row.values.get(c.forward_time)? + row.values.get(c.backward_time)?;
                Some(flops / (ms * 1e-3) / 1e12)
            }
        }
    }

    /// The metric's absolute stddev. For `Combined Step TFLOPS` (SPEC §7 rule 2): the
    /// value times the larger of the forward and backward relative stddevs.
    pub fn stddev(&self, row: &Row) -> Option<f64> {
        match self {
            MetricRef::Column { stddev, .. } => row.values.get((*stddev)?).copied(),
            MetricRef::CombinedStep(c) => {
                let relative = |value: usize, sd: usize| -> Option<f64> {
                    Some(row.values.get(sd)? / row.values.get(value)?)
                };
                let worst = relative(c.forward, c.forward_stddev)?
                    .max(relative(c.backward, c.backward_stddev)?);
                Some(self.value(row)? * worst)
            }
        }
    }
}

/// One shape's row. `values[i]` holds column `i` of the schema for numeric columns
/// (NaN where the cell was empty on a non-PASS row); label/dims/check are parsed out.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    /// Indexed by schema column index; non-numeric columns hold NaN.
    pub values: Vec<f64>,
}

/// NaN marks an empty cell, so two NaN cells are equal: a table equals its own re-parse.
impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        self.label == other.label
            && self.dims == other.dims
            && self.check == other.check
            && self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }
}

impl Row {
    /// Value of a named numeric column, derived metrics included (Combined Step TFLOPS).
    pub fn metric(&self, schema: &Schema, name: &str) -> Option<f64> {
        schema.resolve_metric(name)?.value(self)
    }

    /// Absolute stddev of a metric (derived metrics: see SPEC §7 rule 2).
    pub fn stddev(&self, schema: &Schema, name: &str) -> Option<f64> {
        schema.resolve_metric(name)?.stddev(self)
    }

    /// The key a shape is matched by: label plus dimensions.
    pub fn shape_key(&self) -> ShapeKey {
        ShapeKey {
            label: self.label.clone(),
            dims: self.dims.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ShapeKey {
    pub label: String,
    pub dims: Vec<u64>,
}

impl ShapeKey {
    /// `'label' (B=1, M=64, ...)` for messages.
    pub fn describe(&self, schema: &Schema) -> String {
        describe_shape(&self.label, &self.dims, schema)
    }
}

/// `'label' (B=1, M=64, ...)` for messages.
pub fn describe_shape(label: &str, dims: &[u64], schema: &Schema) -> String {
    let dims: Vec<String> = schema
        .dim_names()
        .iter()
        .zip(dims)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    format!("'{label}' ({})", dims.join(", "))
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
    let (name, message) = match (want.get(first), got.get(first)) {
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
                want[first..].join(", ")
            ),
        ),
        (None, Some(g)) => (
            g.to_string(),
            format!(
                "column {at}: {found_side} has an extra column '{g}' ({found_side} header has {} columns, {expected_side} {}; extra: {})",
                got.len(),
                want.len(),
                got[first..].join(", ")
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

/// Split CSV text into its header line (one trailing `\n` or `\r\n` removed) and the rest.
fn split_header(text: &str) -> std::result::Result<(&str, &str), String> {
    if text.starts_with('\u{feff}') {
        return Err(
            "the file starts with a UTF-8 byte order mark (BOM); save it without one".to_owned(),
        );
    }
    if text.is_empty() {
        return Err("empty file: expected a header line".to_owned());
    }
    Ok(match text.find('\n') {
        Some(end) => {
            let header = &text[..end];
            (
                header.strip_suffix('\r').unwrap_or(header),
                &text[end + 1..],
            )
        }
        None => (text, ""),
    })
}

/// Read a file as UTF-8; an invalid byte is reported with its line.
fn read_text(path: &Path) -> Result<String> {
    let bytes = match std::fs::read(path) {
        // A mistyped path is bad input (exit 2), not an internal I/O failure.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::in_file(path, None, None, "no such file"));
        }
        other => other.ctx(|| format!("reading {}", path.display()))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64
            + 1;
        Error::in_file(path, Some(line), None, "not valid UTF-8")
    })
}

/// Iterate data records of a CSV body (header already removed), with file line numbers.
fn for_each_record(
    body: &str,
    origin: &Path,
    mut each: impl FnMut(&csv::StringRecord, u64) -> Result<()>,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            // The body starts on line 2 of the file.
            Ok(true) => {
                let line = record.position().map_or(0, |p| p.line()) + 1;
                each(&record, line)?;
            }
            Err(e) => {
                let line = e.position().map(|p| p.line() + 1);
                return Err(Error::in_file(
                    origin,
                    line,
                    None,
                    format!("malformed CSV: {e}"),
                ));
            }
        }
    }
}

/// How a numeric cell is validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellRule {
    /// Positive on PASS rows: the gate divides by it.
    Metric,
    /// Non-negative, finite on PASS rows.
    NonNegative,
    /// Any number or ±inf (exact outputs have infinite SNR); not NaN on PASS rows.
    Any,
}

fn cell_rule(column: &Column) -> Option<CellRule> {
    match &column.role {
        ColumnRole::Metric => Some(CellRule::Metric),
        ColumnRole::Stddev { .. } => Some(CellRule::NonNegative),
        ColumnRole::Value if column.name.contains("Time") => Some(CellRule::NonNegative),
        ColumnRole::Value => Some(CellRule::Any),
        ColumnRole::Label | ColumnRole::Dim | ColumnRole::Check => None,
    }
}

/// Parse one numeric cell; the error is a message about the cell.
fn parse_cell(cell: &str, rule: CellRule, pass: bool) -> std::result::Result<f64, String> {
    let value = if cell.is_empty() {
        f64::NAN
    } else {
        cell.parse::<f64>()
            .map_err(|_| format!("'{cell}' is not a number"))?
    };
    if value.is_nan() {
        return if pass {
            Err(format!(
                "{} on a PASS row",
                if cell.is_empty() { "empty cell" } else { "NaN" }
            ))
        } else {
            Ok(f64::NAN)
        };
    }
    match rule {
        CellRule::Metric | CellRule::NonNegative if value < 0.0 => {
            Err(format!("negative value {cell}"))
        }
        CellRule::Metric | CellRule::NonNegative if pass && value.is_infinite() => {
            Err(format!("infinite value {cell} on a PASS row"))
        }
        CellRule::Metric if pass && value == 0.0 => {
            Err("a PASS row needs a positive metric, found 0".to_owned())
        }
        _ => Ok(value),
    }
}

/// Unsigned decimal integer, digits only.
fn parse_dim(cell: &str) -> std::result::Result<u64, String> {
    if cell.is_empty() || !cell.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("dimension '{cell}' is not an unsigned integer"));
    }
    cell.parse::<u64>()
        .map_err(|_| format!("dimension '{cell}' does not fit in 64 bits"))
}

/// Append a float so that it parses back to the same value; NaN (an empty cell) as nothing.
fn push_number(out: &mut String, value: f64) {
    use std::fmt::Write;
    if !value.is_nan() {
        let _ = write!(out, "{value}");
    }
}

/// Append a CSV field, quoted only when it must be.
fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Labels identify shapes: a label seen twice is a duplicated shape (same dims) or two
/// shapes under one name. Checked after parsing with borrowed keys, so the hot loop
/// allocates no extra label copies.
fn check_unique_shapes(rows: &[Row], lines: &[u64], schema: &Schema, origin: &Path) -> Result<()> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let Some(&first) = seen.get(row.label.as_str()) else {
            seen.insert(&row.label, i);
            continue;
        };
        let (earlier, label) = (&rows[first], &row.label);
        let (first_line, line) = (lines[first], lines[i]);
        let msg = if earlier.dims == row.dims {
            format!(
                "duplicated shape {} (lines {first_line} and {line})",
                describe_shape(label, &row.dims, schema)
            )
        } else {
            format!(
                "label '{label}' names two shapes: {} on line {first_line} and {} on line {line} (labels identify shapes)",
                describe_shape(label, &earlier.dims, schema),
                describe_shape(label, &row.dims, schema)
            )
        };
        return Err(Error::in_file(origin, Some(line), Some("label"), msg));
    }
    Ok(())
}

/// A parsed benchmark CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchTable {
    pub schema: Schema,
    pub rows: Vec<Row>,
}

impl BenchTable {
    /// Parse CSV text; `origin` names the file in errors. Refuses: rows with the wrong
    /// field count, Check outside the four values, NaN/Inf/negative/empty metric on a PASS
    /// row, duplicated shapes, labels with path separators or control characters.
    pub fn parse(text: &str, origin: &Path) -> Result<BenchTable> {
        let (header, body) =
            split_header(text).map_err(|m| Error::in_file(origin, None, None, m))?;
        let schema = infer_schema(header).map_err(|f| {
            Error::in_file(
                origin,
                Some(1),
                f.column.as_deref(),
                format!("header: {}", f.message),
            )
        })?;
        let check_at = schema
            .check_index()
            .ok_or_else(|| Error::Internal("inferred schema without a Check column".into()))?;
        let rules: Vec<Option<CellRule>> = schema.columns.iter().map(cell_rule).collect();
        let width = schema.columns.len();
        let mut rows: Vec<Row> = Vec::new();
        let mut lines: Vec<u64> = Vec::new();
        for_each_record(body, origin, |record, line| {
            let bad =
                |column: &str, msg: String| Error::in_file(origin, Some(line), Some(column), msg);
            if record.len() != width {
                return Err(Error::in_file(
                    origin,
                    Some(line),
                    None,
                    format!(
                        "expected {width} fields (as in the header), found {}",
                        record.len()
                    ),
                ));
            }
            let label = &record[0];
            validate_label(label).map_err(|m| bad("label", m))?;
            let dims = (1..check_at)
                .map(|i| parse_dim(&record[i]).map_err(|m| bad(&schema.columns[i].name, m)))
                .collect::<Result<Vec<u64>>>()?;
            let check = Check::parse(&record[check_at]).ok_or_else(|| {
                bad(
                    "Check",
                    format!(
                        "Check must be PASS, FAIL, ERROR or TIMEOUT_FAIL, found '{}'",
                        &record[check_at]
                    ),
                )
            })?;
            let pass = check == Check::Pass;
            let mut values = vec![f64::NAN; width];
            for (i, rule) in rules.iter().enumerate() {
                if let Some(rule) = rule {
                    values[i] = parse_cell(&record[i], *rule, pass).map_err(|m| {
                        bad(&schema.columns[i].name, format!("column {}: {m}", i + 1))
                    })?;
                }
            }
            lines.push(line);
            rows.push(Row {
                label: label.to_owned(),
                dims,
                check,
                values,
            });
            Ok(())
        })?;
        if rows.is_empty() {
            return Err(Error::in_file(
                origin,
                None,
                None,
                "no data rows: the CSV has only a header",
            ));
        }
        check_unique_shapes(&rows, &lines, &schema, origin)?;
        Ok(BenchTable { schema, rows })
    }

    pub fn read(path: &Path) -> Result<BenchTable> {
        BenchTable::parse(&read_text(path)?, path)
    }

    /// Like `read`, but the header must equal `frozen` byte for byte; a mismatch names
    /// the first differing column with both spellings and the file.
    pub fn read_frozen(path: &Path, frozen: &str) -> Result<BenchTable> {
        BenchTable::read_with_header(path, frozen, "frozen", "found")
    }

    /// `read_frozen` once a campaign has frozen its header, plain `read` before BASELINE.
    pub fn read_held_to(path: &Path, frozen: Option<&str>) -> Result<BenchTable> {
        match frozen {
            Some(h) => BenchTable::read_frozen(path, h),
            None => BenchTable::read(path),
        }
    }

    /// Like `read`, but the header must equal `expected` byte for byte, checked before the
    /// header is interpreted; `expected_side`/`found_side` name the two headers in the
    /// message (`kcamp gate` says "incumbent" and "candidate").
    pub fn read_with_header(
        path: &Path,
        expected: &str,
        expected_side: &str,
        found_side: &str,
    ) -> Result<BenchTable> {
        let text = read_text(path)?;
        let (header, _) = split_header(&text).map_err(|m| Error::in_file(path, None, None, m))?;
        if let Some(diff) = header_difference(expected, header, expected_side, found_side) {
            return Err(Error::in_file(
                path,
                Some(1),
                Some(&diff.name),
                format!(
                    "header drifted from the {expected_side} header: {}",
                    diff.message
                ),
            ));
        }
        BenchTable::parse(&text, path)
    }

    /// CSV text whose header is always the schema's frozen bytes.
    pub fn to_csv(&self) -> String {
        let mut out = self.schema.header();
        out.push('\n');
        let roles: Vec<&ColumnRole> = self.schema.columns.iter().map(|c| &c.role).collect();
        for row in &self.rows {
            let mut dims = row.dims.iter();
            for (i, role) in roles.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match role {
                    ColumnRole::Label => push_field(&mut out, &row.label),
                    ColumnRole::Dim => {
                        if let Some(d) = dims.next() {
                            out.push_str(&d.to_string());
                        }
                    }
                    ColumnRole::Check => out.push_str(row.check.as_str()),
                    _ => push_number(&mut out, row.values.get(i).copied().unwrap_or(f64::NAN)),
                }
            }
            out.push('\n');
        }
        out
    }

    /// Linear search; index the rows once when looking up many shapes.
    /// Geometric mean of `metric` (derived metrics too) over the PASS rows; the aggregate
    /// every verdict, record and report uses.
    pub fn aggregate(&self, metric: &str) -> Option<f64> {
        let values: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.check == Check::Pass)
            .filter_map(|r| r.metric(&self.schema, metric))
            .collect();
        crate::stats::geomean(&values)
    }

    pub fn find(&self, key: &ShapeKey) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.label == key.label && r.dims == key.dims)
    }
}

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
        let mut grouped: HashMap<&str, Vec<(u32, f64)>> = HashMap::new();
        for r in self.rows.iter().filter(|r| r.metric == metric) {
            grouped
                .entry(r.label.as_str())
                .or_default()
                .push((r.repeat, r.value));
        }
        grouped
            .into_iter()
            .map(|(label, mut v)| {
                v.sort_by_key(|(repeat, _)| *repeat);
                (label, v.into_iter().map(|(_, x)| x).collect())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ROW_A: &str = "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,0.262144,1.048576,120.5,inf,98.25";
    const ROW_B: &str = "b,2,128,64,32,FAIL,,,nan,,,,,,";

    fn gemm_csv(rows: &[&str]) -> String {
        let mut text = format!("{GEMM_HEADER}\n");
        for r in rows {
            text.push_str(r);
            text.push('\n');
        }
        text
    }

    fn parse_err(text: &str) -> String {
        BenchTable::parse(text, Path::new("bench.csv"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn known_schemas_match_their_headers() {
        assert_eq!(Schema::gemm().header(), GEMM_HEADER);
        assert_eq!(Schema::bandwidth().header(), BANDWIDTH_HEADER);
        assert_eq!(Schema::from_header(GEMM_HEADER).unwrap(), Schema::gemm());
        assert_eq!(
            Schema::from_header(BANDWIDTH_HEADER).unwrap(),
            Schema::bandwidth()
        );
        let gemm = Schema::gemm();
        assert_eq!(gemm.dim_names(), ["B", "M", "N", "K"]);
        assert_eq!(gemm.metric_names(), ["Forward TFLOPS", "Backward TFLOPS"]);
        assert_eq!(
            gemm.gateable_metrics(),
            ["Forward TFLOPS", "Backward TFLOPS", COMBINED_STEP_TFLOPS]
        );
        assert_eq!(Schema::bandwidth().gateable_metrics(), ["Forward GB/s"]);
    }

    #[test]
    fn custom_header_roles() {
        let s = Schema::from_header("label,N,C,Check,GB/s,GB/s_stddev,note").unwrap();
        assert_eq!(s.kind, SchemaKind::Custom);
        assert_eq!(s.dim_names(), ["N", "C"]);
        assert_eq!(s.metric_names(), ["GB/s"]);
        assert_eq!(
            s.columns[5].role,
            ColumnRole::Stddev {
                of: "GB/s".to_owned()
            }
        );
        assert_eq!(s.columns[6].role, ColumnRole::Value);
    }

    #[test]
    fn bad_headers_name_the_column() {
        let err = |h: &str| Schema::from_header(h).unwrap_err().to_string();
        assert!(err("name,N,Check").contains("must be 'label'"));
        assert!(err("label,N,X").contains("no 'Check' column"));
        assert!(err("label,N,Check,GB/s,GB/s").contains("column 5 'GB/s' duplicates column 4"));
        let orphan = err("label,N,Check,GB/s_stddev");
        assert!(orphan.contains("'GB/s_stddev'") && orphan.contains("no metric column 'GB/s'"));
        assert!(err("label,,Check").contains("column 2 has an empty name"));
    }

    #[test]
    fn parses_rows_and_keeps_nan_for_failed_cells() {
        let t = BenchTable::parse(&gemm_csv(&[ROW_A, ROW_B]), Path::new("x.csv")).unwrap();
        assert_eq!(t.schema.kind, SchemaKind::Gemm);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0].dims, [1, 64, 64, 64]);
        assert_eq!(t.rows[0].metric(&t.schema, "Forward TFLOPS"), Some(2.0));
        assert_eq!(t.rows[0].stddev(&t.schema, "Forward TFLOPS"), Some(0.02));
        assert_eq!(t.rows[0].metric(&t.schema, "da_snr"), Some(f64::INFINITY));
        assert_eq!(t.rows[1].check, Check::Fail);
        assert!(
            t.rows[1]
                .metric(&t.schema, "Backward TFLOPS")
                .unwrap()
                .is_nan()
        );
        assert_eq!(t.rows[0].metric(&t.schema, "label"), None);
        assert!(t.find(&t.rows[1].shape_key()).is_some());
    }

    #[test]
    fn combined_step_tflops() {
        let t = BenchTable::parse(&gemm_csv(&[ROW_A]), Path::new("x.csv")).unwrap();
        let row = &t.rows[0];
        // 6 * 64^3 flops in (0.262144 + 1.048576) ms.
        let expected = 6.0 * 64f64.powi(3) / (1.31072e-3) / 1e12;
        let got = row.metric(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
        assert!((got - expected).abs() < 1e-15 * expected.max(1.0), "{got}");
        // Both relative stddevs are 1%: the stddev is 1% of the value.
        let sd = row.stddev(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
        assert!((sd - 0.01 * expected).abs() < 1e-12);
        assert_eq!(
            Schema::bandwidth().resolve_metric(COMBINED_STEP_TFLOPS),
            None
        );
    }

    #[test]
    fn combined_step_takes_the_larger_relative_stddev() {
        let row = "a,2,64,64,64,PASS,2.0,0.02,1.0,0.05,1,1,1,1,1";
        let t = BenchTable::parse(&gemm_csv(&[row]), Path::new("x.csv")).unwrap();
        let value = t.rows[0].metric(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
        assert!((value - 12.0 * 64f64.powi(3) / 2e-3 / 1e12).abs() < 1e-12);
        let sd = t.rows[0].stddev(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
        assert!((sd / value - 0.05).abs() < 1e-12);
    }

    #[test]
    fn refuses_bad_rows_with_line_and_column() {
        let cases: &[(&str, &[&str])] = &[
            (
                "a,1,64,64,64,PASS,2.0,0.02",
                &["bench.csv:2", "expected 15 fields", "found 8"],
            ),
            (
                "a,1,64,64,64,OK,2.0,0.02,1.0,0.01,1,1,1,1,1",
                &["bench.csv:2", "column 'Check'", "found 'OK'"],
            ),
            (
                "a,1,64,64,64,PASS,,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'Forward TFLOPS'", "empty cell on a PASS row"],
            ),
            (
                "a,1,64,64,64,PASS,NaN,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'Forward TFLOPS'", "NaN on a PASS row"],
            ),
            (
                "a,1,64,64,64,PASS,inf,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'Forward TFLOPS'", "infinite"],
            ),
            (
                "a,1,64,64,64,PASS,2.0,-0.02,1.0,0.01,1,1,1,1,1",
                &["column 'Forward TFLOPS_stddev'", "negative"],
            ),
            (
                "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,-1,1,1,1,1",
                &["column 'Forward Time (ms)'", "negative"],
            ),
            (
                "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,nan,1,1",
                &["column 'out_snr'", "NaN on a PASS row"],
            ),
            (
                "a,1,-64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'M'", "not an unsigned integer"],
            ),
            (
                "a,1,6.4,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'M'", "'6.4'"],
            ),
            (
                "x/y,1,64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
                &["column 'label'", "path separator"],
            ),
            (
                "a,1,64,64,64,PASS,fast,0.02,1.0,0.01,1,1,1,1,1",
                &["'fast' is not a number"],
            ),
            (
                "a,1,64,64,64,PASS,0,0.02,1.0,0.01,1,1,1,1,1",
                &["positive metric"],
            ),
        ];
        for (row, needles) in cases {
            let msg = parse_err(&gemm_csv(&[row]));
            for needle in *needles {
                assert!(msg.contains(needle), "{row}: {msg} lacks {needle}");
            }
        }
    }

    #[test]
    fn refuses_duplicated_shapes_and_labels() {
        let msg = parse_err(&gemm_csv(&[ROW_A, ROW_B, ROW_A]));
        assert!(msg.contains("duplicated shape 'a'"), "{msg}");
        assert!(msg.contains("lines 2 and 4"), "{msg}");
        let other = ROW_A.replacen("64", "32", 1);
        let msg = parse_err(&gemm_csv(&[ROW_A, &other]));
        assert!(msg.contains("label 'a' names two shapes"), "{msg}");
    }

    #[test]
    fn refuses_bom_empty_and_header_only() {
        assert!(parse_err(&format!("\u{feff}{}", gemm_csv(&[ROW_A]))).contains("byte order mark"));
        assert!(parse_err("").contains("empty file"));
        assert!(parse_err(&gemm_csv(&[])).contains("no data rows"));
        assert!(parse_err(GEMM_HEADER).contains("no data rows"));
    }

    #[test]
    fn accepts_crlf_line_endings() {
        let text = format!("{GEMM_HEADER}\r\n{ROW_A}\r\n");
        let t = BenchTable::parse(&text, Path::new("x.csv")).unwrap();
        assert_eq!(t.schema, Schema::gemm());
        assert_eq!(t.rows.len(), 1);
    }

    #[test]
    fn frozen_header_drift_names_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.csv");
        let drifted = GEMM_HEADER.replace("Forward TFLOPS,", "Forward TFLOP/s,");
        std::fs::write(&path, format!("{drifted}\n{ROW_A}\n")).unwrap();
        let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("bench.csv:1"), "{msg}");
        assert!(
            msg.contains("column 7: frozen 'Forward TFLOPS' but found 'Forward TFLOP/s'"),
            "{msg}"
        );

        let short = GEMM_HEADER.rsplitn(3, ',').nth(2).unwrap();
        std::fs::write(&path, format!("{short}\nx\n")).unwrap();
        let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("column 14: frozen 'da_snr' is missing"),
            "{msg}"
        );
        assert!(msg.contains("missing: da_snr, db_snr"), "{msg}");

        std::fs::write(&path, format!("{GEMM_HEADER},extra\n")).unwrap();
        let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("column 16: found has an extra column 'extra'"),
            "{msg}"
        );

        std::fs::write(&path, gemm_csv(&[ROW_A])).unwrap();
        assert_eq!(
            BenchTable::read_frozen(&path, GEMM_HEADER)
                .unwrap()
                .rows
                .len(),
            1
        );
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.csv");
        let mut bytes = gemm_csv(&[ROW_A]).into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        std::fs::write(&path, bytes).unwrap();
        let msg = BenchTable::read(&path).unwrap_err().to_string();
        assert!(
            msg.contains("bench.csv:3") && msg.contains("UTF-8"),
            "{msg}"
        );
    }

    #[test]
    fn samples_round_trip_and_refusals() {
        let text = "label,metric,repeat,value\na,Forward TFLOPS,1,2.5\na,Forward TFLOPS,0,2\nb,Forward TFLOPS,0,3\n";
        let s = Samples::parse(text, Path::new("samples.csv")).unwrap();
        assert_eq!(s.values("a", "Forward TFLOPS"), [2.0, 2.5]);
        assert_eq!(s.values_by_label("Forward TFLOPS")["a"], [2.0, 2.5]);
        assert!(s.values("a", "Backward TFLOPS").is_empty());
        assert_eq!(Samples::parse(&s.to_csv(), Path::new("s")).unwrap(), s);

        let err = |t: &str| {
            Samples::parse(t, Path::new("samples.csv"))
                .unwrap_err()
                .to_string()
        };
        assert!(
            err("label,metric,rep,value\n").contains("column 3: expected 'repeat' but found 'rep'")
        );
        assert!(err("label,metric,repeat,value\na,m,0,nan\n").contains("samples.csv:2"));
        assert!(err("label,metric,repeat,value\na,m,0,-1\n").contains("non-negative"));
        assert!(err("label,metric,repeat,value\na,m,0,1\na,m,0,2\n").contains("lines 2 and 3"));
        assert!(err("label,metric,repeat,value\na,m,x,1\n").contains("column 'repeat'"));
        assert!(
            Samples::parse("label,metric,repeat,value\n", Path::new("s"))
                .unwrap()
                .rows
                .is_empty()
        );
    }

    fn finite_nonneg() -> impl Strategy<Value = f64> {
        prop_oneof![0.0..1e6f64, (1u32..1000).prop_map(|x| f64::from(x) / 7.0)]
    }

    fn arb_row(index: usize) -> impl Strategy<Value = Row> {
        (
            proptest::collection::vec(1u64..100_000, 4),
            prop_oneof![
                4 => Just(Check::Pass),
                1 => Just(Check::Fail),
                1 => Just(Check::Error),
                1 => Just(Check::TimeoutFail),
            ],
            proptest::collection::vec(finite_nonneg(), 9),
            any::<bool>(),
        )
            .prop_map(move |(dims, check, nums, blank)| {
                let mut values = vec![f64::NAN; 15];
                for (slot, v) in values[6..].iter_mut().zip(nums) {
                    *slot = v;
                }
                // Metrics must be positive on PASS rows.
                values[6] += 1.0;
                values[8] += 1.0;
                values[13] = f64::INFINITY;
                if check != Check::Pass && blank {
                    values[6] = f64::NAN;
                    values[9] = f64::NAN;
                }
                Row {
                    label: format!("shape {index}-x"),
                    dims,
                    check,
                    values,
                }
            })
    }

    fn arb_table() -> impl Strategy<Value = BenchTable> {
        (1usize..12)
            .prop_flat_map(|n| (0..n).map(arb_row).collect::<Vec<_>>())
            .prop_map(|rows| BenchTable {
                schema: Schema::gemm(),
                rows,
            })
    }

    proptest! {
        #[test]
        fn to_csv_round_trips(table in arb_table()) {
            let text = table.to_csv();
            let header = format!("{}\n", GEMM_HEADER);
            prop_assert!(text.starts_with(&header));
            let back = BenchTable::parse(&text, Path::new("t.csv")).unwrap();
            prop_assert_eq!(back, table);
        }
    }
}
