//! Ops: everything kcamp knows about an op, behind one trait ([`Op`]): its dimensions, CSV
//! schema and metrics, the kernel ABI (bindings, uniforms, dispatch), the baseline kernel,
//! FLOP and byte counts, default shapes, and the problem a case runs (inputs, passes and
//! their f64 references). A new op is one file here implementing [`Op`], a variant of
//! [`OpName`] and one arm of [`op`]; the GPU runtime, the runner, the gate and the reports
//! need no change.
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
pub mod inputs;
pub mod problem;
pub mod verify;

use evalexpr::{ContextWithMutableVariables, DefaultNumericTypes, HashMapContext, Value};

use crate::kernel_spec::{KernelSpec, WorkgroupExprs};
use crate::schema::Schema;
use crate::types::{Dtype, OpName, ShapeSpec};
use crate::{Error, Result};

pub use problem::{PassPlan, Problem, Step};

/// Everything kcamp knows about one op.
pub trait Op: Sync {
    fn name(&self) -> OpName;

    /// Dimension names in CSV order.
    fn dim_names(&self) -> &'static [&'static str];

    /// The value of a dimension a shape may leave out (GEMM's batch `B` = 1).
    fn dim_default(&self, _dim: &str) -> Option<u64> {
        None
    }

    /// The frozen CSV schema of the built-in runner.
    fn schema(&self) -> Schema;

    /// Metrics a campaign may gate on; the first is the default primary metric.
    fn primary_metrics(&self) -> &'static [&'static str];

    /// Unit of the rate the live progress shows (`TFLOPS`, `GB/s`).
    fn rate_unit(&self) -> &'static str;

    /// Buffer names in default binding order (the last one is the uniform).
    fn buffers(&self) -> &'static [&'static str];

    /// FLOPs of one forward and one backward step (0 where the op has no such step).
    fn flops(&self, dims: &[u64]) -> (f64, f64);

    /// Minimum DRAM bytes of one forward and one backward step: every operand read once
    /// and every output written once.
    fn bytes(&self, dtype: Dtype, dims: &[u64]) -> (f64, f64);

    /// The shapes `kcamp init` proposes.
    fn default_shapes(&self) -> Vec<ShapeSpec>;

    /// The baseline kernel shipped in `shaders/` for `dtype`.
    fn baseline_kernel(&self, dtype: Dtype) -> BaselineKernel;

    /// How the reference is computed, for reports.
    fn reference_description(&self) -> &'static str;

    /// The element count of every buffer a case of `dims` allocates on the device (its
    /// inputs and outputs), with what it holds (`a (B×M×K)`): checked arithmetic, None where
    /// the count overflows 64 bits. A shape is held to it before anything is allocated.
    fn buffer_elements(&self, dims: &[u64]) -> Vec<(&'static str, Option<u64>)>;

    /// The inputs, passes and references of one case (seeded).
    fn problem(&self, dtype: Dtype, dims: &[u64], seed: u64) -> Problem;
}

/// The device limits a case's buffers are held to, from the adapter it runs on.
#[derive(Debug, Clone, Copy)]
pub struct BufferLimits<'a> {
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    /// The adapter, as a message names it.
    pub adapter: &'a str,
}

/// Why shape `label` of `dims` cannot run, before anything is allocated: a dimension or a
/// buffer's element count beyond the kernel ABI's u32 (kernels index with u32), or, with
/// `limits`, a buffer's bytes beyond the adapter's limits. The first problem, naming the
/// shape, the buffer and the limit.
pub fn check_buffers(
    name: OpName,
    dtype: Dtype,
    label: &str,
    dims: &[u64],
    limits: Option<&BufferLimits<'_>>,
) -> std::result::Result<(), String> {
    let op = op(name);
    let shape = || {
        let dims: Vec<String> = op
            .dim_names()
            .iter()
            .zip(dims)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!("shape '{label}' ({})", dims.join(", "))
    };
    for (n, v) in op.dim_names().iter().zip(dims) {
        if *v > u64::from(u32::MAX) {
            return Err(format!(
                "{}: dimension {n} = {v} is above {}, the largest the kernel ABI's u32 parameters hold",
                shape(),
                u32::MAX
            ));
        }
    }
    let size = dtype_size(dtype);
    for (buffer, elements) in op.buffer_elements(dims) {
        let Some(elements) = elements.filter(|e| *e <= u64::from(u32::MAX)) else {
            return Err(format!(
                "{}: buffer {buffer} has {} elements, more than the {} the kernel ABI indexes with u32",
                shape(),
                elements.map_or_else(|| "more than 2^64".to_owned(), |e| e.to_string()),
                u32::MAX
            ));
        };
        let Some(limits) = limits else { continue };
        // Elements fit in u32 and an element is at most 8 bytes: no overflow.
        let bytes = (elements * size).div_ceil(4) * 4;
        for (limit_name, limit) in [
            (
                "max_storage_buffer_binding_size",
                limits.max_storage_buffer_binding_size,
            ),
            ("max_buffer_size", limits.max_buffer_size),
        ] {
            if bytes > limit {
                return Err(format!(
                    "{}: buffer {buffer} needs {bytes} bytes ({elements} {} elements), above the adapter's {limit_name} of {limit} bytes ({})",
                    shape(),
                    dtype.as_str(),
                    limits.adapter
                ));
            }
        }
    }
    Ok(())
}

/// The descriptor of an op.
pub fn op(name: OpName) -> &'static dyn Op {
    match name {
        OpName::Gemm => &gemm::Gemm,
        OpName::Axpy => &axpy::Axpy,
    }
}

/// A shape's dimensions in CSV order, with the op's defaults for the ones it leaves out.
/// A missing dimension without a default is 0 (the manifest refuses such shapes).
pub fn shape_dims(name: OpName, shape: &ShapeSpec) -> Vec<u64> {
    let op = op(name);
    op.dim_names()
        .iter()
        .map(|d| shape.dim(d).or_else(|| op.dim_default(d)).unwrap_or(0))
        .collect()
}

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

/// Binding number of buffer `name`: the manifest's `kernel.bindings` entry, else the ABI order.
pub fn binding_of(name_of_op: OpName, kernel: &KernelSpec, name: &str) -> Result<u32> {
    if let Some(b) = kernel.bindings.get(name) {
        return Ok(*b);
    }
    op(name_of_op)
        .buffers()
        .iter()
        .position(|n| *n == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            Error::Internal(format!(
                "op {} has no buffer named '{name}'",
                name_of_op.as_str()
            ))
        })
}

/// Checks that `kernel.bindings` names only the op's buffers and maps them to distinct slots.
pub fn validate_bindings(name_of_op: OpName, kernel: &KernelSpec) -> Result<()> {
    let names = op(name_of_op).buffers();
    for key in kernel.bindings.keys() {
        if !names.contains(&key.as_str()) {
            return Err(Error::input(format!(
                "kernel.bindings.{key}: op {} has no buffer '{key}' (buffers: {})",
                name_of_op.as_str(),
                names.join(", ")
            )));
        }
    }
    let mut seen = std::collections::BTreeMap::new();
    for name in names {
        let slot = binding_of(name_of_op, kernel, name)?;
        if let Some(other) = seen.insert(slot, *name) {
            return Err(Error::input(format!(
                "kernel.bindings: buffers '{other}' and '{name}' share binding {slot}"
            )));
        }
    }
    Ok(())
}

/// FLOP and byte counts of `[forward, backward]` (None where the op has no such step), so
/// the roofline floor and utilization use the op's own definitions.
pub fn pass_work(name: OpName, dtype: Dtype, dims: &[u64]) -> [Option<(f64, f64)>; 2] {
    let op = op(name);
    let (fwd_flops, bwd_flops) = op.flops(dims);
    let (fwd_bytes, bwd_bytes) = op.bytes(dtype, dims);
    let pass = |flops: f64, bytes: f64| (flops > 0.0 || bytes > 0.0).then_some((flops, bytes));
    [pass(fwd_flops, fwd_bytes), pass(bwd_flops, bwd_bytes)]
}

/// A baseline kernel shipped in `shaders/`, with the manifest entry that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineKernel {
    pub file_name: &'static str,
    pub source: &'static str,
    pub kernel: KernelSpec,
}

impl BaselineKernel {
    /// A kernel with one `main` entry point for every pass and these workgroup counts.
    pub fn new(file_name: &'static str, source: &'static str, workgroups: [&str; 3]) -> Self {
        BaselineKernel {
            file_name,
            source,
            kernel: KernelSpec {
                file: file_name.to_owned(),
                entry_points: [("forward".to_owned(), "main".to_owned())]
                    .into_iter()
                    .collect(),
                workgroups: WorkgroupExprs {
                    x: workgroups[0].to_owned(),
                    y: workgroups[1].to_owned(),
                    z: workgroups[2].to_owned(),
                },
                bindings: Default::default(),
                trusted: false,
                checks: None,
                aligned: None,
            },
        }
    }
}

/// Longest arithmetic expression kcamp evaluates (characters).
pub const MAX_EXPR_CHARS: usize = 1000;
/// Deepest nesting of parentheses in an expression. The expression parser recurses per
/// level, so 40,000 levels would overflow the stack; real expressions need a handful.
pub const MAX_EXPR_DEPTH: usize = 32;

/// Size and nesting limits of an expression (workgroup counts, `kcamp util`), checked
/// before it reaches the parser; the message says which limit.
pub fn check_expression(expr: &str) -> std::result::Result<(), String> {
    let chars = expr.chars().count();
    if chars > MAX_EXPR_CHARS {
        return Err(format!(
            "the expression is {chars} characters long; at most {MAX_EXPR_CHARS}"
        ));
    }
    let mut depth = 0usize;
    for c in expr.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_EXPR_DEPTH {
                    return Err(format!(
                        "parentheses nest deeper than {MAX_EXPR_DEPTH} levels"
                    ));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
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
        check_expression(expr).map_err(&bad)?;
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
        assert_eq!(op(OpName::Gemm).flops(&[2, 3, 5, 7]), (420.0, 840.0));
        assert_eq!(op(OpName::Axpy).bytes(Dtype::F16, &[10]), (60.0, 0.0));
        let (fwd, bwd) = op(OpName::Gemm).bytes(Dtype::F32, &[1, 2, 3, 4]);
        assert_eq!(fwd, (8.0 + 12.0 + 6.0) * 4.0);
        assert_eq!(bwd, (6.0 + 12.0 + 8.0 + 8.0 + 12.0) * 4.0);
    }

    #[test]
    fn schemas_dims_and_metrics_agree() {
        use crate::schema::{BANDWIDTH_HEADER, GEMM_HEADER};
        for (name, header) in [
            (OpName::Gemm, GEMM_HEADER),
            (OpName::Axpy, BANDWIDTH_HEADER),
        ] {
            let op = op(name);
            assert_eq!(op.name(), name);
            assert_eq!(op.schema().header(), header);
            let columns: Vec<&str> = header.split(',').collect();
            let dims = op.dim_names();
            assert_eq!(&columns[1..=dims.len()], dims);
            assert_eq!(columns[dims.len() + 1], "Check");
            let gateable = op.schema().gateable_metrics();
            for m in op.primary_metrics() {
                assert!(gateable.iter().any(|g| g == m), "{m}");
            }
        }
    }

    #[test]
    fn shapes_get_the_ops_defaults() {
        let shape = ShapeSpec {
            label: "s".into(),
            dims: [("M", 2u64), ("N", 3), ("K", 4)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        };
        assert_eq!(shape_dims(OpName::Gemm, &shape), vec![1, 2, 3, 4]);
    }

    #[test]
    fn bindings_override_and_reject_clashes() {
        let mut k = op(OpName::Gemm).baseline_kernel(Dtype::F32).kernel;
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
