//! Where a metric lives in a row: a column and its `_stddev` partner, or the derived
//! `Combined Step TFLOPS` computed from dimensions, times and both TFLOPS stddevs.

use super::table::Row;

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
    pub(super) dims: [usize; 4],
    pub(super) forward_time: usize,
    pub(super) backward_time: usize,
    pub(super) forward: usize,
    pub(super) forward_stddev: usize,
    pub(super) backward: usize,
    pub(super) backward_stddev: usize,
}

impl MetricRef {
    /// The metric's value in `row` (NaN for empty cells of non-PASS rows).
    pub fn value(&self, row: &Row) -> Option<f64> {
        match self {
            MetricRef::Column { value, .. } => row.value(*value),
            MetricRef::CombinedStep(c) => {
                let mut flops = 6.0;
                for d in c.dims {
                    flops *= *row.dims.get(d)? as f64;
                }
                let ms = row.value(c.forward_time)? + row.value(c.backward_time)?;
                Some(flops / (ms * 1e-3) / 1e12)
            }
        }
    }

    /// The metric's absolute stddev. For `Combined Step TFLOPS` (docs/gate.md, "Per shape"): the
    /// value times the larger of the forward and backward relative stddevs.
    pub fn stddev(&self, row: &Row) -> Option<f64> {
        match self {
            MetricRef::Column { stddev, .. } => row.value((*stddev)?),
            MetricRef::CombinedStep(c) => {
                let relative = |value: usize, sd: usize| -> Option<f64> {
                    Some(row.value(sd)? / row.value(value)?)
                };
                let worst = relative(c.forward, c.forward_stddev)?
                    .max(relative(c.backward, c.backward_stddev)?);
                Some(self.value(row)? * worst)
            }
        }
    }
}
