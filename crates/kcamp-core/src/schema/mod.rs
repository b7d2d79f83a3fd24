//! Frozen-schema benchmark CSVs (docs/csv-schema.md), one concern a file:
//!
//! - [`columns`](columns/index.html): the header — column roles, the known schemas, inference
//!   from a header and how two headers differ;
//! - [`metric`](metric/index.html): where a metric (derived ones too) lives in a row;
//! - [`cells`](cells/index.html): the rule each numeric cell is held to, and how it is read;
//! - [`table`](table/index.html): rows and whole benchmark CSVs, read (through the csv crate)
//!   and written;
//! - [`samples`](samples/index.html): `samples.csv`, the raw per-repeat values;
//! - [`checks`](checks/index.html): the CSV of a run that only checks outputs.
//!
//! A [`Schema`] is an ordered list of column names with a role for each. Dimension columns
//! sit between `label` and `Check`; a metric column `X` has its absolute standard deviation
//! in `X_stddev`. The header bytes are frozen at BASELINE and every later CSV must match
//! them exactly.

mod cells;
mod checks;
mod columns;
mod metric;
mod samples;
mod table;
#[cfg(test)]
mod tests;

pub use checks::{CheckedRow, parse_checks, read_checks, schema_of_header};
pub use columns::{Column, ColumnRole, HeaderDifference, Schema, SchemaKind, header_difference};
pub use metric::{CombinedStepColumns, MetricRef};
pub use samples::{SAMPLES_HEADER, SampleRow, Samples};
pub use table::{BenchTable, Row, ShapeKey, describe_shape};

/// The GEMM header, byte for byte (no trailing newline).
pub const GEMM_HEADER: &str = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";

/// The header of memory-bound ops (GB/s schema).
pub const BANDWIDTH_HEADER: &str =
    "label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr";

/// The derived GEMM metric: forward + backward step throughput (docs/csv-schema.md, "GEMM").
pub const COMBINED_STEP_TFLOPS: &str = "Combined Step TFLOPS";

/// Column names the derived `Combined Step TFLOPS` is computed from.
pub(crate) const FORWARD_TFLOPS: &str = "Forward TFLOPS";
pub(crate) const BACKWARD_TFLOPS: &str = "Backward TFLOPS";
pub const FORWARD_TIME: &str = "Forward Time (ms)";
pub(crate) const BACKWARD_TIME: &str = "Backward Time (ms)";

const STDDEV_SUFFIX: &str = "_stddev";
