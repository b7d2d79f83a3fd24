//! Static shader metrics from naga, for a record's `isa_metric_progress` and `kcamp
//! analyze` (docs/campaign-dir.md, "Iteration records: `memory/v<N>.json`";
//! docs/roofline.md, "`kcamp analyze`").
//!
//! WGSL is parsed and validated with naga; each compute entry point's body, and the
//! functions it calls, is walked once. Counts are static: both branches of an `if` are
//! counted and a loop body is counted once, so numbers inside loops are per loop iteration
//! (`counts_are_per_loop_iteration` says when that applies). Loops with a constant trip
//! count (tile loops) are also multiplied out in `unrolled_counts`, and one iteration of the
//! run-time-bounded main loop is reported on its own: that is where a kernel spends its time.

use std::path::Path;

use wgpu::naga;

use naga::valid::{Capabilities, FunctionInfo, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, BinaryOperator, Block, Expression, Function, MathFunction, Module};
use naga::{ScalarKind, Statement, TypeInner};

use kcamp_core::isa::{EntryMetrics, OpCounts};
use kcamp_core::{Error, Result};

/// Metrics of the compute entry point `entry_point` of a WGSL file.
pub fn entry_metrics(path: &Path, source: &str, entry_point: &str) -> Result<EntryMetrics> {
    let all = analyze_wgsl(path, source)?;
    let names: Vec<String> = all.iter().map(|m| m.entry_point.clone()).collect();
    all.into_iter()
        .find(|m| m.entry_point == entry_point)
        .ok_or_else(|| {
            Error::input(format!(
                "{}: no compute entry point '{entry_point}' (found: {})",
                path.display(),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ))
        })
}

/// The memory a compute entry point declares: what the adapter must give each workgroup,
/// and each invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footprint {
    pub entry_point: String,
    /// `var<workgroup>` variables the entry point uses.
    pub workgroup_bytes: u64,
    /// `var<private>` variables it uses, and the function-scope variables of the entry
    /// point and of every function in the module (at most what one invocation holds).
    pub private_bytes: u64,
}

/// [`Footprint`] of every compute entry point, from naga's parse and validation of the
/// module (no pipeline): cheap enough to refuse a kernel before anything is created for
/// it. Sizes add up with saturation, so a declared array of any size is a figure. `Ok(None)`
/// for a module that does not parse or validate: compiling it says why.
pub fn memory_footprints(path: &Path, source: &str) -> Result<Option<Vec<Footprint>>> {
    let Ok(module) = naga::front::wgsl::parse_str(source) else {
        return Ok(None);
    };
    let Ok(info) = Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module)
    else {
        return Ok(None);
    };
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| Error::input(format!("{}: type layout: {e}", path.display())))?;
    let size = |ty: naga::Handle<naga::Type>| u64::from(layouter[ty].size);
    let locals = |f: &Function| -> u64 {
        f.local_variables
            .iter()
            .fold(0u64, |sum, (_, v)| sum.saturating_add(size(v.ty)))
    };
    let helpers = module
        .functions
        .iter()
        .fold(0u64, |sum, (_, f)| sum.saturating_add(locals(f)));
    let mut out = Vec::new();
    for (index, entry) in module.entry_points.iter().enumerate() {
        if entry.stage != naga::ShaderStage::Compute {
            continue;
        }
        let entry_info = info.get_entry_point(index);
        let used = |space: AddressSpace| {
            module
                .global_variables
                .iter()
                .filter(|(h, v)| v.space == space && !entry_info[*h].is_empty())
                .fold(0u64, |sum, (_, v)| sum.saturating_add(size(v.ty)))
        };
        out.push(Footprint {
            entry_point: entry.name.clone(),
            workgroup_bytes: used(AddressSpace::WorkGroup),
            private_bytes: used(AddressSpace::Private)
                .saturating_add(locals(&entry.function))
                .saturating_add(helpers),
        });
    }
    Ok(Some(out))
}

/// Parse and validate WGSL; metrics for every compute entry point. `path` only names the
/// file in errors, which carry `path:line:column` and naga's message.
pub fn analyze_wgsl(path: &Path, source: &str) -> Result<Vec<EntryMetrics>> {
    let shown = path.display().to_string();
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let at = e
            .location(source)
            .map(|l| format!(":{}:{}", l.line_number, l.line_position))
            .unwrap_or_default();
        Error::input(format!(
            "{shown}{at}: {}\n{}",
            e.message(),
            e.emit_to_string_with_path(source, &shown)
        ))
    })?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| {
            let at = e
                .location(source)
                .map(|l| format!(":{}:{}", l.line_number, l.line_position))
                .unwrap_or_default();
            Error::input(format!(
                "{shown}{at}: invalid shader: {}\n{}",
                e.as_inner(),
                e.emit_to_string_with_path(source, &shown)
            ))
        })?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| Error::input(format!("{shown}: type layout: {e}")))?;

    let mut out = Vec::new();
    for (index, entry) in module.entry_points.iter().enumerate() {
        if entry.stage != naga::ShaderStage::Compute {
            continue;
        }
        let entry_info = info.get_entry_point(index);
        let workgroup_memory_bytes = module
            .global_variables
            .iter()
            .filter(|(handle, var)| {
                var.space == AddressSpace::WorkGroup && !entry_info[*handle].is_empty()
            })
            .map(|(_, var)| u64::from(layouter[var.ty].size))
            .sum();
        let mut walker = Walker {
            module: &module,
            info: &info,
            frames: vec![Frame::default()],
            loops: Vec::new(),
        };
        walker.block(&entry.function, entry_info, &entry.function.body);
        let total = walker.frames.pop().unwrap_or_default();
        let max_loop_depth = walker.loops.iter().map(|l| l.depth).max().unwrap_or(0);
        let innermost_loop = walker
            .loops
            .iter()
            .filter(|l| l.depth == max_loop_depth)
            .max_by_key(|l| l.once.float_ops)
            .map(|l| l.once);
        let main_loop = walker
            .loops
            .iter()
            .filter(|l| l.trip_count.is_none())
            .max_by_key(|l| l.unrolled.float_ops)
            .map(|l| l.unrolled);
        let [x, y, z] = entry.workgroup_size;
        out.push(EntryMetrics {
            entry_point: entry.name.clone(),
            workgroup_size: entry.workgroup_size,
            invocations_per_workgroup: x.saturating_mul(y).saturating_mul(z),
            workgroup_memory_bytes,
            counts: total.once,
            counts_are_per_loop_iteration: !walker.loops.is_empty(),
            unrolled_counts: total.unrolled,
            loop_count: walker.loops.len() as u32,
            loop_trip_counts: walker.loops.iter().map(|l| l.trip_count).collect(),
            max_loop_depth,
            innermost_loop,
            main_loop,
            max_barriers_per_loop_iteration: walker
                .loops
                .iter()
                .map(|l| l.own_barriers)
                .max()
                .unwrap_or(0),
        });
    }
    Ok(out)
}

/// Counts of the code being walked: the whole body, or one loop body.
#[derive(Default)]
struct Frame {
    /// Every loop body counted once.
    once: OpCounts,
    /// Loops of constant trip count multiplied out, others counted once.
    unrolled: OpCounts,
    /// Barriers outside nested loops.
    own_barriers: u64,
    /// A side of an `if` (or a `switch` case), not a loop body: it does not deepen loops.
    branch: bool,
}

struct LoopSummary {
    depth: u32,
    trip_count: Option<u64>,
    once: OpCounts,
    unrolled: OpCounts,
    own_barriers: u64,
}

struct Walker<'m> {
    module: &'m Module,
    info: &'m ModuleInfo,
    /// frames[0] is the entry point; one more per enclosing loop.
    frames: Vec<Frame>,
    loops: Vec<LoopSummary>,
}

impl Walker<'_> {
    /// Count into the innermost frame; a loop's frame is folded into its parent when the
    /// loop ends, so a loop's counts include its nested loops.
    fn add(&mut self, f: impl Fn(&mut OpCounts)) {
        if let Some(top) = self.frames.last_mut() {
            f(&mut top.once);
            f(&mut top.unrolled);
        }
    }

    /// Blocks of which at most one runs: each counted in a frame of its own, then the
    /// field-by-field maximum added to the enclosing frame.
    fn branches<'b>(
        &mut self,
        func: &Function,
        finfo: &FunctionInfo,
        blocks: impl IntoIterator<Item = &'b Block>,
    ) {
        let mut costliest: Option<Frame> = None;
        for block in blocks {
            self.frames.push(Frame {
                branch: true,
                ..Frame::default()
            });
            self.block(func, finfo, block);
            let Some(side) = self.frames.pop() else {
                continue;
            };
            costliest = Some(match costliest {
                None => side,
                Some(c) => Frame {
                    once: c.once.max(&side.once),
                    unrolled: c.unrolled.max(&side.unrolled),
                    own_barriers: c.own_barriers.max(side.own_barriers),
                    branch: true,
                },
            });
        }
        if let (Some(c), Some(parent)) = (costliest, self.frames.last_mut()) {
            parent.once.accumulate(&c.once, 1);
            parent.unrolled.accumulate(&c.unrolled, 1);
            parent.own_barriers += c.own_barriers;
        }
    }

    fn barrier(&mut self) {
        self.add(|c| c.barriers += 1);
        if let Some(top) = self.frames.last_mut() {
            top.own_barriers += 1;
        }
    }

    fn block(&mut self, func: &Function, finfo: &FunctionInfo, block: &Block) {
        for (index, stmt) in block.iter().enumerate() {
            self.statement(func, finfo, stmt, &block[..index]);
        }
    }

    /// `before`: the statements that precede `stmt` in its block (a loop counter declared
    /// inside another loop is initialized there, not by its declaration).
    fn statement(
        &mut self,
        func: &Function,
        finfo: &FunctionInfo,
        stmt: &Statement,
        before: &[Statement],
    ) {
        match stmt {
            Statement::Emit(range) => {
                for handle in range.clone() {
                    self.expression(func, finfo, handle);
                }
            }
            Statement::Block(b) => self.block(func, finfo, b),
            // One side runs, not both: the costlier, field by field (a kernel that picks
            // between two loads counted both, twice the loads per FMA it makes).
            Statement::If { accept, reject, .. } => {
                self.branches(func, finfo, [accept, reject]);
            }
            Statement::Switch { cases, .. } => {
                self.branches(func, finfo, cases.iter().map(|c| &c.body));
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                self.frames.push(Frame::default());
                self.block(func, finfo, body);
                self.block(func, finfo, continuing);
                let depth = self.frames.iter().filter(|f| !f.branch).count() as u32 - 1;
                let trip_count = match break_if {
                    None => for_loop_trip_count(self.module, func, before, body, continuing),
                    Some(_) => None,
                };
                if let Some(frame) = self.frames.pop() {
                    if let Some(parent) = self.frames.last_mut() {
                        parent.once.accumulate(&frame.once, 1);
                        parent
                            .unrolled
                            .accumulate(&frame.unrolled, trip_count.unwrap_or(1));
                    }
                    self.loops.push(LoopSummary {
                        depth,
                        trip_count,
                        once: frame.once,
                        unrolled: frame.unrolled,
                        own_barriers: frame.own_barriers,
                    });
                }
            }
            Statement::ControlBarrier(_) | Statement::MemoryBarrier(_) => self.barrier(),
            Statement::WorkGroupUniformLoad { .. } => {
                self.barrier();
                self.add(|c| c.workgroup_loads += 1);
            }
            Statement::Store { pointer, value } => {
                let bytes = self.byte_size(finfo, *value);
                match self.pointer_space(finfo, *pointer) {
                    Some(AddressSpace::Storage { .. }) => self.add(|c| {
                        c.storage_stores += 1;
                        c.storage_store_bytes += bytes;
                    }),
                    Some(AddressSpace::WorkGroup) => self.add(|c| c.workgroup_stores += 1),
                    _ => {}
                }
            }
            Statement::Atomic { .. } => self.add(|c| c.atomics += 1),
            Statement::Call { function, .. } => {
                let callee = &self.module.functions[*function];
                let callee_info = &self.info[*function];
                self.block(callee, callee_info, &callee.body);
            }
            _ => {}
        }
    }

    fn expression(&mut self, func: &Function, finfo: &FunctionInfo, handle: ExprHandle) {
        let types = &self.module.types;
        let result = finfo[handle].ty.inner_with(types);
        let components = u64::from(result.components().unwrap_or(1));
        let kind = result.scalar_kind();
        match &func.expressions[handle] {
            Expression::Load { pointer } => {
                let bytes = self.byte_size(finfo, handle);
                match self.pointer_space(finfo, *pointer) {
                    Some(AddressSpace::Storage { .. }) => self.add(|c| {
                        c.storage_loads += 1;
                        c.storage_load_bytes += bytes;
                    }),
                    Some(AddressSpace::Uniform) => self.add(|c| c.uniform_loads += 1),
                    Some(AddressSpace::WorkGroup) => self.add(|c| c.workgroup_loads += 1),
                    _ => {}
                }
            }
            Expression::Binary { op, .. } => {
                use BinaryOperator as B;
                let arithmetic = matches!(
                    op,
                    B::Add | B::Subtract | B::Multiply | B::Divide | B::Modulo
                );
                let bitwise = matches!(
                    op,
                    B::And | B::ExclusiveOr | B::InclusiveOr | B::ShiftLeft | B::ShiftRight
                );
                match kind {
                    Some(ScalarKind::Float) if arithmetic => {
                        self.add(|c| c.float_ops += components)
                    }
                    Some(ScalarKind::Sint | ScalarKind::Uint) if arithmetic || bitwise => {
                        self.add(|c| c.integer_ops += 1)
                    }
                    _ => {}
                }
            }
            Expression::Math { fun, arg, .. } if kind == Some(ScalarKind::Float) => {
                let flops = match fun {
                    MathFunction::Fma => 2 * components,
                    MathFunction::Dot => {
                        let n = finfo[*arg].ty.inner_with(types).components().unwrap_or(1);
                        2 * u64::from(n)
                    }
                    _ => components,
                };
                self.add(|c| c.float_ops += flops);
            }
            _ => {}
        }
    }

    /// The address space a pointer expression points into.
    fn pointer_space(&self, finfo: &FunctionInfo, pointer: ExprHandle) -> Option<AddressSpace> {
        match finfo[pointer].ty.inner_with(&self.module.types) {
            TypeInner::Pointer { space, .. } | TypeInner::ValuePointer { space, .. } => {
                Some(*space)
            }
            _ => None,
        }
    }

    fn byte_size(&self, finfo: &FunctionInfo, value: ExprHandle) -> u64 {
        u64::from(
            finfo[value]
                .ty
                .inner_with(&self.module.types)
                .size(self.module.to_ctx()),
        )
    }
}

type ExprHandle = naga::Handle<Expression>;

/// Loops longer than this are treated as unknown: they are not tile loops, and
/// multiplying by them would only hide the per-iteration picture.
const MAX_STATIC_TRIP_COUNT: i64 = 1 << 16;

/// The trip count of a loop in the shape naga gives `for (var i = A; i < B; i += C)` when
/// A, B and C are constants: the body starts with `if i < B {} else { break; }` and the
/// continuing block stores `i + C` into `i`; A is the declaration's initializer or the last
/// store into `i` before the loop. None for any other loop.
fn for_loop_trip_count(
    module: &Module,
    func: &Function,
    before: &[Statement],
    body: &Block,
    continuing: &Block,
) -> Option<u64> {
    let exprs = &func.expressions;
    let guard = body.iter().find(|s| !matches!(s, Statement::Emit(_)))?;
    let Statement::If {
        condition,
        accept,
        reject,
    } = guard
    else {
        return None;
    };
    if !accept.is_empty() || !matches!(reject.iter().next(), Some(Statement::Break)) {
        return None;
    }
    let Expression::Binary { op, left, right } = exprs[*condition] else {
        return None;
    };
    let counter = loaded_local(func, left)?;
    let end = constant_int(module, func, right)?;
    let initial_store = before.iter().rev().find_map(|s| match s {
        Statement::Store { pointer, value } if local_of(func, *pointer) == Some(counter) => {
            Some(*value)
        }
        _ => None,
    });
    let start = constant_int(
        module,
        func,
        initial_store.or(func.local_variables[counter].init)?,
    )?;
    let step = continuing.iter().find_map(|s| match s {
        Statement::Store { pointer, value } if local_of(func, *pointer) == Some(counter) => {
            match exprs[*value] {
                Expression::Binary {
                    op: BinaryOperator::Add,
                    left,
                    right,
                } if loaded_local(func, left) == Some(counter) => constant_int(module, func, right),
                Expression::Binary {
                    op: BinaryOperator::Subtract,
                    left,
                    right,
                } if loaded_local(func, left) == Some(counter) => {
                    constant_int(module, func, right).map(|c| -c)
                }
                _ => None,
            }
        }
        _ => None,
    })?;
    let trips = match op {
        BinaryOperator::Less if step > 0 => (end - start + step - 1).div_euclid(step),
        BinaryOperator::LessEqual if step > 0 => (end - start).div_euclid(step) + 1,
        BinaryOperator::Greater if step < 0 => (start - end - step - 1).div_euclid(-step),
        BinaryOperator::GreaterEqual if step < 0 => (start - end).div_euclid(-step) + 1,
        _ => return None,
    };
    (0..=MAX_STATIC_TRIP_COUNT)
        .contains(&trips)
        .then_some(trips as u64)
}

fn local_of(func: &Function, pointer: ExprHandle) -> Option<naga::Handle<naga::LocalVariable>> {
    match func.expressions[pointer] {
        Expression::LocalVariable(v) => Some(v),
        _ => None,
    }
}

fn loaded_local(func: &Function, expr: ExprHandle) -> Option<naga::Handle<naga::LocalVariable>> {
    match func.expressions[expr] {
        Expression::Load { pointer } => local_of(func, pointer),
        _ => None,
    }
}

/// An integer literal, directly or through a module-scope `const`.
fn constant_int(module: &Module, func: &Function, expr: ExprHandle) -> Option<i64> {
    let literal = match func.expressions[expr] {
        Expression::Literal(l) => l,
        Expression::Constant(c) => match module.global_expressions[module.constants[c].init] {
            Expression::Literal(l) => l,
            _ => return None,
        },
        _ => return None,
    };
    match literal {
        naga::Literal::U32(v) => Some(i64::from(v)),
        naga::Literal::I32(v) => Some(i64::from(v)),
        naga::Literal::U64(v) => i64::try_from(v).ok(),
        naga::Literal::I64(v) | naga::Literal::AbstractInt(v) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::isa::{IsaLimits, IsaMetric, isa_metric_progress, ridge_point};

    const NAIVE_GEMM: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: vec4<u32>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    if (row >= dims.x || col >= dims.y) { return; }
    var acc = 0.0;
    for (var k = 0u; k < dims.z; k++) {
        acc = fma(a[row * dims.z + k], b[k * dims.y + col], acc);
    }
    c[row * dims.y + col] = acc;
}
"#;

    const TILED_GEMM: &str = r#"
const TILE: u32 = 16u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: vec4<u32>;
var<workgroup> tile_a: array<f32, 256>;
var<workgroup> tile_b: array<f32, 256>;

fn mac(x: f32, y: f32, acc: f32) -> f32 {
    return x * y + acc;
}

@compute @workgroup_size(16, 16)
fn gemm(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    var acc = 0.0;
    for (var t = 0u; t < dims.z; t += TILE) {
        tile_a[lid.y * TILE + lid.x] = a[gid.y * dims.z + t + lid.x];
        tile_b[lid.y * TILE + lid.x] = b[(t + lid.y) * dims.y + gid.x];
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc = mac(tile_a[lid.y * TILE + k], tile_b[k * TILE + lid.x], acc);
        }
        workgroupBarrier();
    }
    c[gid.y * dims.y + gid.x] = acc;
}
"#;

    fn limits() -> IsaLimits {
        IsaLimits {
            max_workgroup_storage_bytes: 32768,
            max_invocations_per_workgroup: 256,
            subgroup_size: 32,
            ridge_point_flop_per_byte: 14.0,
        }
    }

    fn metric<'a>(list: &'a [IsaMetric], name: &str) -> &'a IsaMetric {
        list.iter().find(|m| m.metric == name).unwrap()
    }

    #[test]
    fn naive_gemm_counts() {
        let m = analyze_wgsl(Path::new("naive.wgsl"), NAIVE_GEMM).unwrap();
        assert_eq!(m.len(), 1);
        let m = &m[0];
        assert_eq!(m.entry_point, "main");
        assert_eq!(m.workgroup_size, [16, 16, 1]);
        assert_eq!(m.invocations_per_workgroup, 256);
        assert_eq!(m.workgroup_memory_bytes, 0);
        assert_eq!(m.max_loop_depth, 1);
        assert!(m.counts_are_per_loop_iteration);
        let inner = m.innermost_loop.unwrap();
        assert_eq!(inner.storage_loads, 2);
        assert_eq!(inner.storage_load_bytes, 8);
        assert_eq!(inner.float_ops, 2, "one fma");
        assert_eq!(m.counts.storage_stores, 1);
        assert_eq!(m.counts.storage_store_bytes, 4);
        assert!(m.counts.uniform_loads >= 3);
        assert_eq!(m.counts.barriers, 0);

        let isa = isa_metric_progress(m, &limits());
        let ai = metric(&isa, "main_loop_flops_per_global_load_byte");
        assert_eq!(ai.current, Some(0.25));
        assert_eq!(ai.met, Some(false));
        assert_eq!(
            metric(&isa, "workgroup_size_multiple_of_subgroup").met,
            Some(true)
        );
    }

    #[test]
    fn tiled_gemm_counts_workgroup_memory_barriers_and_calls() {
        let m = analyze_wgsl(Path::new("tiled.wgsl"), TILED_GEMM).unwrap();
        let m = &m[0];
        assert_eq!(m.entry_point, "gemm");
        assert_eq!(m.workgroup_size, [16, 16, 1]);
        assert_eq!(m.workgroup_memory_bytes, 2 * 256 * 4);
        assert_eq!(m.loop_count, 2);
        assert_eq!(m.max_loop_depth, 2);
        assert_eq!(m.counts.barriers, 2);
        assert_eq!(m.max_barriers_per_loop_iteration, 2);
        assert_eq!(m.counts.storage_loads, 2);
        assert_eq!(m.counts.workgroup_stores, 2);
        let inner = m.innermost_loop.unwrap();
        assert_eq!(inner.workgroup_loads, 2);
        assert_eq!(inner.storage_loads, 0);
        assert_eq!(inner.float_ops, 2, "mul + add inside the called function");
        assert!(inner.integer_ops > 0);

        let isa = isa_metric_progress(m, &limits());
        assert_eq!(metric(&isa, "workgroup_memory_bytes").current, Some(2048.0));
        assert_eq!(metric(&isa, "workgroup_memory_bytes").met, Some(true));
        assert_eq!(metric(&isa, "barriers_per_loop_iteration").met, Some(true));
        // One K-tile: 2 global loads (8 bytes) feed 16 inner iterations of mul + add.
        assert_eq!(m.loop_trip_counts, vec![Some(16), None]);
        let main = m.main_loop.unwrap();
        assert_eq!(main.storage_load_bytes, 8);
        assert_eq!(main.workgroup_loads, 32);
        assert_eq!(main.float_ops, 32);
        assert_eq!(main.barriers, 2);
        assert_eq!(m.unrolled_counts.float_ops, 32);
        let ai = metric(&isa, "main_loop_flops_per_global_load_byte");
        assert_eq!((ai.current, ai.met), (Some(4.0), Some(false)));
        let low_ridge = IsaLimits {
            ridge_point_flop_per_byte: 4.0,
            ..limits()
        };
        let ai = isa_metric_progress(m, &low_ridge);
        assert_eq!(
            metric(&ai, "main_loop_flops_per_global_load_byte").met,
            Some(true)
        );

        let tight = IsaLimits {
            max_workgroup_storage_bytes: 1024,
            subgroup_size: 512,
            ..limits()
        };
        let isa = isa_metric_progress(m, &tight);
        assert_eq!(metric(&isa, "workgroup_memory_bytes").met, Some(false));
        assert_eq!(
            metric(&isa, "workgroup_size_multiple_of_subgroup").met,
            Some(false)
        );
    }

    #[test]
    fn only_one_side_of_a_branch_is_counted() {
        // The naive kernel's transposes: one load or the other, never both.
        let src = r#"
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;
@group(0) @binding(2) var<uniform> t: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var acc = 0.0;
    for (var k = 0u; k < t.x; k++) {
        var x: f32;
        if (t.y == 1u) {
            x = a[k * 64u + g.x];
        } else {
            x = a[g.x * 64u + k] * 2.0;
        }
        acc = acc + x;
    }
    if (t.z == 1u) {
        for (var j = 0u; j < t.w; j++) {
            workgroupBarrier();
        }
    }
    c[g.x] = acc;
}
"#;
        let m = analyze_wgsl(Path::new("branches.wgsl"), src).unwrap();
        let m = &m[0];
        let inner = m.main_loop.unwrap();
        // One load a trip (was 2: both sides summed); the costlier side's multiply counts.
        assert_eq!(inner.storage_loads, 1);
        assert_eq!(inner.storage_load_bytes, 4);
        assert_eq!(inner.float_ops, 2);
        assert_eq!(m.counts.storage_loads, 1);
        // A loop inside a branch is not one level deeper for it.
        assert_eq!(m.max_loop_depth, 1);
        assert_eq!(m.loop_count, 2);
        assert_eq!(m.max_barriers_per_loop_iteration, 1);
    }

    #[test]
    fn three_barriers_in_a_loop_miss_the_target() {
        let src = r#"
var<workgroup> s: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    for (var k = 0u; k < 4u; k++) {
        s[i] = f32(k);
        workgroupBarrier();
        storageBarrier();
        workgroupBarrier();
    }
}
"#;
        let m = &analyze_wgsl(Path::new("b.wgsl"), src).unwrap()[0];
        assert_eq!(m.max_barriers_per_loop_iteration, 3);
        let isa = isa_metric_progress(m, &limits());
        assert_eq!(metric(&isa, "barriers_per_loop_iteration").met, Some(false));
    }

    #[test]
    fn parse_error_names_file_line_and_column() {
        let src = "@compute @workgroup_size(1)\nfn main() {\n    let x = 1.0 +;\n}\n";
        let err = analyze_wgsl(Path::new("kernel/broken.wgsl"), src)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("kernel/broken.wgsl:3:"), "{err}");
        assert!(err.contains("expected"), "{err}");
    }

    #[test]
    fn validation_error_is_reported_with_location() {
        let src = "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = 1.0;\n}\n";
        let err = analyze_wgsl(Path::new("bad.wgsl"), src)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad.wgsl:3:"), "{err}");
    }

    #[test]
    fn workgroup_memory_counts_only_what_the_entry_point_uses() {
        let src = r#"
var<workgroup> big: array<vec4<f32>, 512>;
var<workgroup> small: array<u32, 16>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16)
fn uses_small(@builtin(local_invocation_index) i: u32) {
    small[i] = i;
    workgroupBarrier();
    out[i] = small[15u - i];
}
@compute @workgroup_size(64)
fn uses_both(@builtin(local_invocation_index) i: u32) {
    big[i] = vec4<f32>(f32(i));
    small[i % 16u] = i;
    out[i] = u32(big[63u - i].x) + small[0];
}
"#;
        let path = Path::new("wg.wgsl");
        assert_eq!(
            entry_metrics(path, src, "uses_small")
                .unwrap()
                .workgroup_memory_bytes,
            64
        );
        let both = entry_metrics(path, src, "uses_both").unwrap();
        assert_eq!(both.workgroup_memory_bytes, 512 * 16 + 64);
        assert!(!both.counts_are_per_loop_iteration);
        assert_eq!(both.max_loop_depth, 0);
        assert!(both.innermost_loop.is_none());
        let err = entry_metrics(path, src, "main").unwrap_err().to_string();
        assert!(
            err.contains("wg.wgsl") && err.contains("uses_small, uses_both"),
            "{err}"
        );
    }

    #[test]
    fn constant_trip_counts_are_recognized() {
        let src = r#"
const STEP: i32 = 2;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0.0;
    for (var a = 0u; a <= 7u; a++) { acc += 1.0; }
    for (var b = 10i; b > 0i; b -= STEP) { acc += 1.0; }
    for (var c = 0u; c < 10u; c += 4u) { acc += 1.0; }
    for (var d = 0u; d < gid.x; d++) { acc += 1.0; }
    var e = 0u;
    loop {
        acc += 1.0;
        e++;
        continuing { break if e >= 3u; }
    }
    out[gid.x] = acc;
}
"#;
        let m = &analyze_wgsl(Path::new("loops.wgsl"), src).unwrap()[0];
        assert_eq!(
            m.loop_trip_counts,
            vec![Some(8), Some(5), Some(3), None, None]
        );
        // 8 + 5 + 3 iterations of one add, plus one each for the two unknown loops.
        assert_eq!(m.unrolled_counts.float_ops, 18);
        assert_eq!(m.counts.float_ops, 5);
    }

    #[test]
    fn ridge_point_from_peaks() {
        // 67 TFLOP/s over 4800 GB/s: about 14 FLOP per byte.
        let r = ridge_point(67.0, 4800.0).unwrap();
        assert!((r - 13.958).abs() < 1e-3, "{r}");
        assert_eq!(ridge_point(0.0, 1.0), None);
    }

    #[test]
    fn non_compute_entry_points_are_skipped() {
        let src = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n";
        assert!(analyze_wgsl(Path::new("v.wgsl"), src).unwrap().is_empty());
    }
}
