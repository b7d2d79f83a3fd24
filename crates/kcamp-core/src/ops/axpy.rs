//! axpy: `out = alpha·x + y` (memory-bound, GB/s schema).

use super::inputs::{Seeded, scalar};
use super::problem::{PassPlan, Problem, Step};
use super::verify::Reference;
use super::{AxpyParams, BaselineKernel, Op, dtype_size};
use crate::schema::Schema;
use crate::types::{Dtype, OpName, ShapeSpec};

/// The f64 reference of `alpha·x + y`.
pub fn reference(alpha: f64, x: &[f64], y: &[f64]) -> Reference {
    Reference::Full(x.iter().zip(y).map(|(x, y)| alpha * x + y).collect())
}

/// The axpy op: `out = alpha·x + y` over `N` elements (GB/s schema).
pub struct Axpy;

impl Op for Axpy {
    fn name(&self) -> OpName {
        OpName::Axpy
    }

    fn dim_names(&self) -> &'static [&'static str] {
        &["N"]
    }

    fn schema(&self) -> Schema {
        Schema::bandwidth()
    }

    fn primary_metrics(&self) -> &'static [&'static str] {
        &["Forward GB/s"]
    }

    fn rate_unit(&self) -> &'static str {
        "GB/s"
    }

    fn buffers(&self) -> &'static [&'static str] {
        &["x", "y", "out", "params"]
    }

    /// 2·N (a multiply and an add per element); no backward.
    fn flops(&self, dims: &[u64]) -> (f64, f64) {
        let product: f64 = dims.iter().map(|d| *d as f64).product();
        (2.0 * product, 0.0)
    }

    /// Reads x and y, writes out: 3·N elements; no backward.
    fn bytes(&self, dtype: Dtype, dims: &[u64]) -> (f64, f64) {
        let n = dims.first().copied().unwrap_or(0) as f64;
        (3.0 * n * dtype_size(dtype) as f64, 0.0)
    }

    fn default_shapes(&self) -> Vec<ShapeSpec> {
        [
            ("n64k", 1u64 << 16),
            ("n1m", 1 << 20),
            ("n4m", 1 << 22),
            ("n16m", 1 << 24),
        ]
        .into_iter()
        .map(|(label, n)| ShapeSpec {
            label: label.to_owned(),
            dims: [("N".to_owned(), n)].into_iter().collect(),
        })
        .collect()
    }

    fn baseline_kernel(&self, dtype: Dtype) -> BaselineKernel {
        // One element per invocation; a 2-D grid because dispatches stop at 65,535.
        let workgroups = ["min(ceil(N/256), 65535)", "ceil(N/256/65535)", "1"];
        match dtype {
            Dtype::F32 => BaselineKernel::new(
                "axpy.wgsl",
                include_str!("../../../../shaders/axpy.wgsl"),
                workgroups,
            ),
            Dtype::F16 => BaselineKernel::new(
                "axpy_f16.wgsl",
                include_str!("../../../../shaders/axpy_f16.wgsl"),
                workgroups,
            ),
        }
    }

    fn reference_description(&self) -> &'static str {
        "f64 CPU axpy: out = alpha·x + y; SNR and rel_err"
    }

    fn buffer_elements(&self, dims: &[u64]) -> Vec<(&'static str, Option<u64>)> {
        vec![("x, y and out (N)", Some(dims[0]))]
    }

    fn problem(&self, dtype: Dtype, dims: &[u64], seed: u64) -> Problem {
        let n = dims[0];
        // Buffer numbers of the generator: x = 0, y = 1; alpha in [0.5, 2) from number 2.
        let x = Seeded::new(seed, 0, dtype, n);
        let y = Seeded::new(seed, 1, dtype, n);
        let alpha = scalar(seed, 2, 0.5, 1.5);
        let params = AxpyParams {
            n: n as u32,
            alpha: alpha as f32,
            _pad0: 0,
            _pad1: 0,
        };
        let reference = Reference::Full((0..n).map(|i| alpha * x.at(i) + y.at(i)).collect());
        Problem {
            inputs: vec![(format!("x ({n})"), x), (format!("y ({n})"), y)],
            passes: vec![PassPlan {
                key: "forward",
                snr_column: "out_snr",
                params: bytemuck::bytes_of(&params).to_vec(),
                reads: [("x", 0), ("y", 1)],
                output_name: "out",
                output_len: n,
                vars: vec![("N", n)],
                reference,
            }],
            steps: vec![Step {
                prefix: "Forward",
                passes: vec![0],
                work: self.bytes(dtype, dims).0,
            }],
            unit: "GB/s",
            unit_scale: 1e9,
            memory_bound: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_alpha_x_plus_y() {
        assert_eq!(
            reference(2.0, &[1.0, -1.0], &[0.5, 0.25]),
            Reference::Full(vec![2.5, -1.75])
        );
    }
}
