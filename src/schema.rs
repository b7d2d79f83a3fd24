//! Frozen-schema benchmark CSVs (SPEC §7).
//!
//! A [`Schema`] is an ordered list of column names with a role for each. Dimension columns
//! sit between `label` and `Check`; a metric column `X` has its absolute standard deviation
//! in `X_stddev`. The header bytes are frozen at BASELINE and every later CSV must match
//! them exactly.
//!
//! OWNER: schema/gate helper. The public API below is the contract other modules build on.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Result;

/// The GEMM header, byte for byte (no trailing newline).
pub const GEMM_HEADER: &str = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";

/// The header of memory-bound ops (GB/s schema).
pub const BANDWIDTH_HEADER: &str =
    "label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr";

/// `Check` column values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Check {
    Pass,
    Fail,
    Error,
    TimeoutFail,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Pass => "PASS",
            Check::Fail => "FAIL",
            Check::Error => "ERROR",
            Check::TimeoutFail => "TIMEOUT_FAIL",
        }
    }
    pub fn parse(s: &str) -> Option<Check> {
        match s {
            "PASS" => Some(Check::Pass),
            "FAIL" => Some(Check::Fail),
            "ERROR" => Some(Check::Error),
            "TIMEOUT_FAIL" => Some(Check::TimeoutFail),
            _ => None,
        }
    }
}

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
        todo!()
    }
    pub fn bandwidth() -> Schema {
        todo!()
    }
    /// Infer roles from a header line (conventions above). Errors name the column.
    pub fn from_header(_header: &str) -> Result<Schema> {
        todo!()
    }
    /// The exact header bytes (no newline).
    pub fn header(&self) -> String {
        todo!()
    }
    pub fn dim_names(&self) -> Vec<&str> {
        todo!()
    }
    /// Metric column names in header order (the first one is the default gate metric).
    pub fn metric_names(&self) -> Vec<&str> {
        todo!()
    }
    /// Metrics the gate can judge: the metric columns plus derived ones
    /// (`Combined Step TFLOPS` for GEMM).
    pub fn gateable_metrics(&self) -> Vec<String> {
        todo!()
    }
    pub fn index_of(&self, _name: &str) -> Option<usize> {
        todo!()
    }
}

/// One shape's row. `values[i]` holds column `i` of the schema for numeric columns
/// (NaN where the cell was empty on a non-PASS row); label/dims/check are parsed out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    /// Indexed by schema column index; non-numeric columns hold NaN.
    pub values: Vec<f64>,
}

impl Row {
    /// Value of a named numeric column, derived metrics included (Combined Step TFLOPS).
    pub fn metric(&self, _schema: &Schema, _name: &str) -> Option<f64> {
        todo!()
    }
    /// Absolute stddev of a metric (derived metrics: see SPEC §7 rule 2).
    pub fn stddev(&self, _schema: &Schema, _name: &str) -> Option<f64> {
        todo!()
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
    pub fn parse(_text: &str, _origin: &Path) -> Result<BenchTable> {
        todo!()
    }
    pub fn read(_path: &Path) -> Result<BenchTable> {
        todo!()
    }
    /// Like `read`, but the header must equal `frozen` byte for byte; a mismatch names
    /// the first differing column with both spellings and the file.
    pub fn read_frozen(_path: &Path, _frozen: &str) -> Result<BenchTable> {
        todo!()
    }
    /// CSV text whose header is always the schema's frozen bytes.
    pub fn to_csv(&self) -> String {
        todo!()
    }
    pub fn find(&self, _key: &ShapeKey) -> Option<&Row> {
        todo!()
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

impl Samples {
    pub fn parse(_text: &str, _origin: &Path) -> Result<Samples> {
        todo!()
    }
    pub fn read(_path: &Path) -> Result<Samples> {
        todo!()
    }
    pub fn to_csv(&self) -> String {
        todo!()
    }
    /// The samples of one shape label and metric, in repeat order.
    pub fn values(&self, _label: &str, _metric: &str) -> Vec<f64> {
        todo!()
    }
}
