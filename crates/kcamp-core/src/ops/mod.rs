//! Ops: the kernel ABI (bindings, uniforms, dispatch), CPU f64 references, FLOP and byte
//! counts, and the metric columns each op fills.
//!
//! # Kernel ABI
//!
//! Every buffer lives in bind group 0. The manifest's `kernel.bindings` map (buffer name →
//! binding number) overrides the default binding numbers below, so a kernel written
//! elsewhere runs unedited. Buffers are tightly packed row-major arrays of the campaign's
//! dtype (`array<f32>`, or `array<f16>` with `enable f16;`), padded at the end to a multiple
//! of 4 bytes.
//!
//! ## `gemm`
//! | name | default binding | kind |
//! |---|---|---|
//! | `a` | 0 | `var<storage, read>` left operand |
//! | `b` | 1 | `var<storage, read>` right operand |
//! | `c` | 2 | `var<storage, read_write>` output |
//! | `params` | 3 | `var<uniform>` [`GemmParams`] |
//!
//! ```wgsl
//! struct Params { m: u32, n: u32, k: u32, batch: u32, trans_a: u32, trans_b: u32, _pad0: u32, _pad1: u32 }
//! ```
//! One dispatch computes, for every batch `z < batch`, `out[m×n] = op(lhs)[m×k] · op(rhs)[k×n]`
//! where `trans_a = 1` means lhs is stored `k×m` and `trans_b = 1` means rhs is stored `n×k`;
//! batch `z` of an operand starts at element `z · rows · cols`. The three passes:
//!
//! | pass (entry point key) | m | n | k | a (lhs) | b (rhs) | trans_a | trans_b |
//! |---|---|---|---|---|---|---|---|
//! | `forward`: C = A·B | M | N | K | A (M×K) | B (K×N) | 0 | 0 |
//! | `backward_da`: dA = dC·Bᵀ | M | K | N | dC (M×N) | B (K×N) | 0 | 1 |
//! | `backward_db`: dB = Aᵀ·dC | K | N | M | A (M×K) | dC (M×N) | 1 | 0 |
//!
//! A backward pass without its own entry point runs `forward`'s entry point with these flags.
//!
//! ## `axpy` (memory-bound)
//! `out = alpha·x + y` over `N` elements: `x` (0, read), `y` (1, read), `out` (2,
//! read_write), `params` (3, uniform [`AxpyParams`]):
//! ```wgsl
//! struct Params { n: u32, alpha: f32, _pad0: u32, _pad1: u32 }
//! ```
//! Dispatches are capped at 65,535 workgroups per dimension, so the baseline kernel uses a
//! 2-D grid: `x = min(ceil(N/256), 65535)`, `y = ceil(N/256/65535)`, element index
//! `i = gid.y · (num_workgroups.x · 256) + gid.x`. Bytes moved = 3·N·sizeof(dtype).
//!
//! ## Workgroup counts
//! `kernel.workgroups.{x,y,z}` are `evalexpr` expressions over the *dispatch's* dimensions:
//! `M`, `N`, `K`, `B` bound to the pass's `m`, `n`, `k`, `batch` for GEMM (so `ceil(N/16)`
//! also sizes the backward passes), `N` for axpy. The variables are real numbers and `/` is
//! exact division (`17/16` is `1.0625`); round with `ceil`, `floor` or `round`; `min` and
//! `max` take any number of arguments. The result must be a whole number ≥ 1, else the case
//! fails with an error naming the field and the expression.

pub mod axpy;
pub mod gemm;
pub mod verify;

use evalexpr::{ContextWithMutableVariables, DefaultNumericTypes, HashMapContext, Value};

use crate::manifest::{KernelSpec, WorkgroupExprs};
use crate::types::{Dtype, OpName};
use crate::{Error, Result};

/// The GEMM uniform (32 bytes), see the module docs.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GemmParams {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub batch: u32,
    pub trans_a: u32,
    pub trans_b: u32,
    pub _pad0: u32,
    pub _pad1: u32,
}

/// The axpy uniform (16 bytes), see the module docs.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AxpyParams {
    pub n: u32,
    pub alpha: f32,
    pub _pad0: u32,
    pub _pad1: u32,
}

/// Bytes of one element of `dtype` in a buffer.
pub fn dtype_size(dtype: Dtype) -> u64 {
    match dtype {
        Dtype::F32 => 4,
        Dtype::F16 => 2,
    }
}

/// Buffer names of an op in default binding order (the last one is the uniform).
pub fn binding_names(op: OpName) -> &'static [&'static str] {
    match op {
        OpName::Gemm => &["a", "b", "c", "params"],
        OpName::Axpy => &["x", "y", "out", "params"],
    }
}

/// Binding number of buffer `name`: the manifest's `kernel.bindings` entry, else the ABI order.
pub fn binding_of(op: OpName, kernel: &KernelSpec, name: &str) -> Result<u32> {
    if let Some(b) = kernel.bindings.get(name) {
        return Ok(*b);
    }
    binding_names(op)
        .iter()
        .position(|n| *n == name)
        .map(|i| i as u32)
        .ok_or_else(|| Error::Internal(format!("op {} has no buffer named '{name}'", op.as_str())))
}

/// Checks that `kernel.bindings` names only the op's buffers and maps them to distinct slots.
pub fn validate_bindings(op: OpName, kernel: &KernelSpec) -> Result<()> {
    let names = binding_names(op);
    for key in kernel.bindings.keys() {
        if !names.contains(&key.as_str()) {
            return Err(Error::input(format!(
                "kernel.bindings.{key}: op {} has no buffer '{key}' (buffers: {})",
                op.as_str(),
                names.join(", ")
            )));
        }
    }
    let mut seen = std::collections::BTreeMap::new();
    for name in names {
        let slot = binding_of(op, kernel, name)?;
        if let Some(other) = seen.insert(slot, *name) {
            return Err(Error::input(format!(
                "kernel.bindings: buffers '{other}' and '{name}' share binding {slot}"
            )));
        }
    }
    Ok(())
}

/// FLOPs of one forward and one backward step (GEMM: 2·B·M·N·K and 4·B·M·N·K; axpy: 2·N, no
/// backward). `dims` are in CSV order ([`OpName::dim_names`]).
pub fn flops(op: OpName, dims: &[u64]) -> (f64, f64) {
    let product: f64 = dims.iter().map(|d| *d as f64).product();
    match op {
        OpName::Gemm => (2.0 * product, 4.0 * product),
        OpName::Axpy => (2.0 * product, 0.0),
    }
}

/// Minimum DRAM bytes of one forward and one backward step: every operand read once and the
/// output written once. GEMM forward reads A, B and writes C; backward reads dC, B, A and
/// writes dA, dB. Axpy moves 3·N elements and has no backward.
pub fn bytes(op: OpName, dtype: Dtype, dims: &[u64]) -> (f64, f64) {
    let size = dtype_size(dtype) as f64;
    match (op, dims) {
        (OpName::Gemm, [b, m, n, k]) => {
            let (b, m, n, k) = (*b as f64, *m as f64, *n as f64, *k as f64);
            let (a, bm, c) = (b * m * k, b * k * n, b * m * n);
            ((a + bm + c) * size, (c + bm + a + a + bm) * size)
        }
        (OpName::Axpy, [n]) => (3.0 * *n as f64 * size, 0.0),
        _ => (0.0, 0.0),
    }
}

/// FLOP and byte counts of `[forward, backward]` (None where the op has no such pass),
/// from the op's own definitions , with the minimum traffic so the roofline
/// floor is a true lower bound.
pub fn pass_work(op: OpName, dtype: Dtype, dims: &[u64]) -> [Option<(f64, f64)>; 2] {
    let (fwd_flops, bwd_flops) = flops(op, dims);
    let (fwd_bytes, bwd_bytes) = bytes(op, dtype, dims);
    let pass = |flops: f64, bytes: f64| (flops > 0.0 || bytes > 0.0).then_some((flops, bytes));
    [pass(fwd_flops, fwd_bytes), pass(bwd_flops, bwd_bytes)]
}

/// Metric columns an op fills, in CSV order (values, stddevs, times and SNRs).
pub fn metric_columns(op: OpName) -> &'static [&'static str] {
    match op {
        OpName::Gemm => &[
            "Forward TFLOPS",
            "Forward TFLOPS_stddev",
            "Backward TFLOPS",
            "Backward TFLOPS_stddev",
            "Forward Time (ms)",
            "Backward Time (ms)",
            "out_snr",
            "da_snr",
            "db_snr",
        ],
        OpName::Axpy => &[
            "Forward GB/s",
            "Forward GB/s_stddev",
            "Forward Time (ms)",
            "out_snr",
        ],
    }
}

/// A baseline kernel shipped in `shaders/`, with the manifest entry that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineKernel {
    pub file_name: &'static str,
    pub source: &'static str,
    pub kernel: KernelSpec,
}

/// The default baseline kernel of an op and dtype.
pub fn baseline_kernel(op: OpName, dtype: Dtype) -> BaselineKernel {
    let (file_name, source, workgroups) = match (op, dtype) {
        (OpName::Gemm, Dtype::F32) => (
            "gemm_naive.wgsl",
            include_str!("../../../../shaders/gemm_naive.wgsl"),
            ("ceil(N/16)", "ceil(M/16)", "B"),
        ),
        (OpName::Gemm, Dtype::F16) => (
            "gemm_naive_f16.wgsl",
            include_str!("../../../../shaders/gemm_naive_f16.wgsl"),
            ("ceil(N/16)", "ceil(M/16)", "B"),
        ),
        (OpName::Axpy, Dtype::F32) => (
            "axpy.wgsl",
            include_str!("../../../../shaders/axpy.wgsl"),
            ("min(ceil(N/256), 65535)", "ceil(N/256/65535)", "1"),
        ),
        (OpName::Axpy, Dtype::F16) => (
            "axpy_f16.wgsl",
            include_str!("../../../../shaders/axpy_f16.wgsl"),
            ("min(ceil(N/256), 65535)", "ceil(N/256/65535)", "1"),
        ),
    };
    BaselineKernel {
        file_name,
        source,
        kernel: KernelSpec {
            file: file_name.to_owned(),
            entry_points: [("forward".to_owned(), "main".to_owned())]
                .into_iter()
                .collect(),
            workgroups: WorkgroupExprs {
                x: workgroups.0.to_owned(),
                y: workgroups.1.to_owned(),
                z: workgroups.2.to_owned(),
            },
            bindings: Default::default(),
            trusted: false,
        },
    }
}

/// Evaluates the workgroup-count expressions for one dispatch. `vars` binds `M`, `N`, ... to
/// the dispatch's dimensions. Errors name the field (`kernel.workgroups.x`) and expression.
pub fn eval_workgroups(exprs: &WorkgroupExprs, vars: &[(&str, u64)]) -> Result<[u32; 3]> {
    let mut context = HashMapContext::<DefaultNumericTypes>::new();
    for (name, value) in vars {
        context
            .set_value((*name).to_owned(), Value::Float(*value as f64))
            .map_err(|e| Error::Internal(format!("binding variable {name}: {e}")))?;
    }
    let eval = |field: &str, expr: &str| -> Result<u32> {
        let bad = |why: String| {
            Error::input(format!(
                "kernel.workgroups.{field} = '{expr}': {why} (variables: {})",
                vars.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
        let value =
            evalexpr::eval_number_with_context(expr, &context).map_err(|e| bad(e.to_string()))?;
        if !value.is_finite() || value.fract() != 0.0 {
            return Err(bad(format!(
                "evaluates to {value}, not a whole number (round it with ceil() or floor())"
            )));
        }
        if value < 1.0 || value > u32::MAX as f64 {
            return Err(bad(format!(
                "evaluates to {value}, outside 1..={}",
                u32::MAX
            )));
        }
        Ok(value as u32)
    };
    Ok([
        eval("x", &exprs.x)?,
        eval("y", &exprs.y)?,
        eval("z", &exprs.z)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exprs(x: &str, y: &str, z: &str) -> WorkgroupExprs {
        WorkgroupExprs {
            x: x.into(),
            y: y.into(),
            z: z.into(),
        }
    }

    #[test]
    fn workgroups_use_exact_division_and_rounding() {
        let e = exprs("ceil(N/16)", "floor(M/16)", "B");
        let got = eval_workgroups(&e, &[("M", 33), ("N", 17), ("K", 9), ("B", 2)]).unwrap();
        assert_eq!(got, [2, 2, 2]);
        let e = exprs("min(ceil(N/256), 65535)", "ceil(N/256/65535)", "1");
        let got = eval_workgroups(&e, &[("N", 1 << 28)]).unwrap();
        assert_eq!(got, [65535, 17, 1]);
    }

    #[test]
    fn workgroups_errors_name_field_and_expression() {
        let e = exprs("N/16", "1", "1");
        let err = eval_workgroups(&e, &[("N", 17)]).unwrap_err().to_string();
        assert!(err.contains("kernel.workgroups.x = 'N/16'"), "{err}");
        assert!(err.contains("not a whole number"), "{err}");
        let e = exprs("1", "ceil(Q/4", "1");
        let err = eval_workgroups(&e, &[("N", 17)]).unwrap_err().to_string();
        assert!(err.contains("kernel.workgroups.y = 'ceil(Q/4'"), "{err}");
        let e = exprs("1", "1", "N - 17");
        let err = eval_workgroups(&e, &[("N", 17)]).unwrap_err().to_string();
        assert!(err.contains("kernel.workgroups.z"), "{err}");
    }

    #[test]
    fn flops_and_bytes_follow_the_spec() {
        assert_eq!(flops(OpName::Gemm, &[2, 3, 5, 7]), (420.0, 840.0));
        assert_eq!(bytes(OpName::Axpy, Dtype::F16, &[10]), (60.0, 0.0));
        let (fwd, bwd) = bytes(OpName::Gemm, Dtype::F32, &[1, 2, 3, 4]);
        assert_eq!(fwd, (8.0 + 12.0 + 6.0) * 4.0);
        assert_eq!(bwd, (6.0 + 12.0 + 8.0 + 8.0 + 12.0) * 4.0);
    }

    #[test]
    fn columns_and_dims_match_the_frozen_headers() {
        use crate::schema::{BANDWIDTH_HEADER, GEMM_HEADER};
        for (op, header) in [
            (OpName::Gemm, GEMM_HEADER),
            (OpName::Axpy, BANDWIDTH_HEADER),
        ] {
            let columns: Vec<&str> = header.split(',').collect();
            let dims = op.dim_names();
            assert_eq!(&columns[1..=dims.len()], dims);
            assert_eq!(columns[dims.len() + 1], "Check");
            assert_eq!(&columns[dims.len() + 2..], metric_columns(op));
        }
    }

    #[test]
    fn bindings_override_and_reject_clashes() {
        let mut k = baseline_kernel(OpName::Gemm, Dtype::F32).kernel;
        k.bindings.insert("c".into(), 5);
        assert_eq!(binding_of(OpName::Gemm, &k, "c").unwrap(), 5);
        assert_eq!(binding_of(OpName::Gemm, &k, "a").unwrap(), 0);
        validate_bindings(OpName::Gemm, &k).unwrap();
        k.bindings.insert("a".into(), 1);
        assert!(validate_bindings(OpName::Gemm, &k).is_err());
        k.bindings.clear();
        k.bindings.insert("x".into(), 1);
        let err = validate_bindings(OpName::Gemm, &k).unwrap_err().to_string();
        assert!(err.contains("kernel.bindings.x"), "{err}");
    }
}
