//! One benchmark case: inputs, compilation, correctness, timing, metrics (docs/harness.md,
//! "How a case is measured").

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::Instant;

use kcamp_core::case::{CaseOutcome, CaseSpec, ProgressEvent, WarmupRecord, phase};
use kcamp_core::isa::DriverStatistics;
use kcamp_core::manifest::KernelSpec;
use kcamp_core::ops::verify::{self, Comparison};
use kcamp_core::ops::{self, PassPlan, Problem};
use kcamp_core::schema::{COMBINED_STEP_TFLOPS, SampleRow};
use kcamp_core::types::{Check, Dtype};

use crate::GpuContext;
use crate::compile::{self, Access};
use crate::timing::{L2Flush, MAX_CHUNK, Slot, Summary, TimedPass, Timer};
use crate::warmup::{self, Next, Settle, WarmupPlan};

/// Rotating output buffers of one pass share this many bytes (at least two buffers).
const ROTATION_BUDGET_BYTES: u64 = 256 << 20;
/// Upper bound of dispatches per sample (tiny kernels on fast GPUs).
const MAX_BATCH: usize = 100_000;
/// Bytes copied before each memory-bound dispatch to evict the L2 (GPU L2s are ≤ 128 MiB
/// today; a software adapter's CPU caches are smaller, and copies are slow there).
const L2_FLUSH_BYTES: u64 = 256 << 20;
const L2_FLUSH_BYTES_SOFTWARE: u64 = 32 << 20;

/// Why a case stopped: the kernel's fault (FAIL) or not (ERROR).
enum Stop {
    Fail(String),
    Error(String),
}

impl From<kcamp_core::Error> for Stop {
    fn from(e: kcamp_core::Error) -> Self {
        Stop::Error(e.to_string())
    }
}

/// Runs one case. Never panics: every failure becomes `FAIL` or `ERROR` with a reason. A
/// kernel that never returns blocks here; the runner's worker timeout handles that.
///
/// A paired case (`spec.paired`) also measures the paired kernel on the same inputs, in the
/// same process and passes, and returns its outcome in `paired`; a failure of the paired
/// kernel is its own outcome's FAIL/ERROR and leaves the scored kernel's measurement whole.
pub fn execute_case(
    ctx: &GpuContext,
    spec: &CaseSpec,
    progress: &mut dyn FnMut(ProgressEvent),
) -> CaseOutcome {
    let mut outcome = empty_outcome(ctx, spec, spec.kernel.trusted);
    let mut paired = spec
        .paired
        .as_ref()
        .map(|p| empty_outcome(ctx, spec, p.kernel.trusted));
    ctx.clear_errors();
    let result = catch_unwind(AssertUnwindSafe(|| {
        run(ctx, spec, progress, &mut outcome, paired.as_mut())
    }));
    let stop = match result {
        Ok(Ok(())) => None,
        Ok(Err(stop)) => Some(stop),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "unknown panic".to_owned());
            Some(Stop::Error(format!(
                "internal panic while running the case: {what}"
            )))
        }
    };
    finish(&mut outcome, stop);
    if let Some(mut p) = paired {
        if outcome.check != Check::Pass && p.check != Check::Fail {
            // Timed only alongside the scored kernel: without it there is no pair.
            p.check = Check::Error;
            p.reason = Some("not timed: the scored kernel of the pair did not pass".into());
            drop_performance(&mut p);
        }
        outcome.paired = Some(Box::new(p));
    }
    ctx.clear_errors();
    outcome
}

fn empty_outcome(ctx: &GpuContext, spec: &CaseSpec, trusted: bool) -> CaseOutcome {
    CaseOutcome {
        label: spec.shape.label.clone(),
        dims: Vec::new(),
        check: Check::Error,
        reason: Some("not measured".into()),
        metrics: BTreeMap::new(),
        samples: Vec::new(),
        rel_err: None,
        latency_us: None,
        timing_method: None,
        adapter: Some(ctx.description()),
        seed: spec.seed,
        trusted,
        kernel_metrics: None,
        driver_statistics: None,
        warmup: Vec::new(),
        aligned_entries: Vec::new(),
        paired: None,
        time_ms: BTreeMap::new(),
        environment: None,
    }
}

/// Sets the outcome's Check from how its kernel stopped.
fn finish(outcome: &mut CaseOutcome, stop: Option<Stop>) {
    match stop {
        None => {
            outcome.check = Check::Pass;
            outcome.reason = None;
        }
        Some(Stop::Fail(reason)) => {
            outcome.check = Check::Fail;
            outcome.reason = Some(reason);
            drop_performance(outcome);
        }
        Some(Stop::Error(reason)) => {
            outcome.check = Check::Error;
            outcome.reason = Some(reason);
            drop_performance(outcome);
        }
    }
}

/// A failed case keeps its SNR columns but no performance numbers.
fn drop_performance(outcome: &mut CaseOutcome) {
    outcome
        .metrics
        .retain(|name, _| name.ends_with("_snr") || name == "l2_flush_bytes");
    outcome.samples.clear();
    outcome.latency_us = None;
}

/// One kernel of a case, compiled and bound to the shared inputs: its pipelines and
/// rotating outputs per pass.
struct Side {
    workgroups: Vec<[u32; 3]>,
    pipelines: Vec<wgpu::ComputePipeline>,
    slots: Vec<Vec<Slot>>,
}

/// Compiles `source` with `kernel`'s settings and binds it to the problem's inputs.
#[allow(clippy::too_many_arguments)]
fn prepare_side(
    ctx: &GpuContext,
    spec: &CaseSpec,
    kernel: &KernelSpec,
    path: &Path,
    source: &str,
    problem: &Problem,
    inputs: &[wgpu::Buffer],
    outcome: &mut CaseOutcome,
) -> Result<Side, Stop> {
    ops::validate_bindings(spec.op, kernel)?;
    let workgroups = problem
        .passes
        .iter()
        .map(|p| {
            let wg = ops::eval_workgroups(&kernel.workgroups, &p.vars)?;
            check_dispatch(ctx, p.key, wg)?;
            Ok(wg)
        })
        .collect::<Result<Vec<_>, Stop>>()?;
    check_footprint(ctx, spec, kernel, path, source)?;
    let compiled =
        compile::compile(ctx, path, source, kernel.runtime_checks()).map_err(Stop::Fail)?;
    // The kernel compiled, so its static metrics are known; records hold them against the
    // adapter's limits later without reopening the GPU.
    outcome.kernel_metrics = kernel
        .entry_points
        .get("forward")
        .and_then(|entry| crate::shader_metrics::entry_metrics(path, source, entry).ok());
    let binding = |name: &str| ops::binding_of(spec.op, kernel, name);
    let names = ops::op(spec.op).buffers();
    let layout = compile::layout(
        ctx,
        &[
            (names[0], binding(names[0])?, Access::Read),
            (names[1], binding(names[1])?, Access::Read),
            (names[2], binding(names[2])?, Access::ReadWrite),
            (names[3], binding(names[3])?, Access::Uniform),
        ],
    );
    // A backward pass without its own entry point runs `forward` with the ABI's flags; an
    // aligned shape runs the aligned entry point where the kernel has one.
    let mut pipelines = Vec::with_capacity(problem.passes.len());
    outcome.aligned_entries.clear();
    for pass in &problem.passes {
        let choice = kernel.entry_for(pass.key, &pass.vars).ok_or_else(|| {
            Stop::Error("kernel.entry_points: needs a 'forward' entry point".to_owned())
        })?;
        pipelines.push(
            compiled
                .pipeline(ctx, &layout, &choice.field(), choice.entry)
                .map_err(Stop::Fail)?,
        );
        // Which passes ran an aligned specialization is part of what was measured.
        if choice.aligned && !outcome.aligned_entries.iter().any(|e| e == choice.entry) {
            outcome.aligned_entries.push(choice.entry.to_owned());
        }
    }
    let slots = problem
        .passes
        .iter()
        .map(|plan| rotation_slots(ctx, spec, kernel, &layout, plan, inputs))
        .collect::<Result<Vec<_>, Stop>>()?;
    Ok(Side {
        workgroups,
        pipelines,
        slots,
    })
}

/// The timed passes of a prepared side.
fn timed_passes<'a>(
    side: &'a Side,
    problem: &Problem,
    elem: u64,
    poison: &'a wgpu::Buffer,
    flush: Option<&'a L2Flush>,
) -> Vec<TimedPass<'a>> {
    problem
        .passes
        .iter()
        .enumerate()
        .map(|(i, plan)| TimedPass {
            pipeline: &side.pipelines[i],
            slots: &side.slots[i],
            workgroups: side.workgroups[i],
            poison,
            output_bytes: plan.output_len * elem,
            flush,
            cursor: Cell::new(0),
        })
        .collect()
}

/// Correctness of a first dispatch into a freshly poisoned output, for every pass: the
/// failures as `pass (column): why`.
fn check_first_dispatches(
    ctx: &GpuContext,
    timer: &Timer,
    problem: &Problem,
    passes: &[TimedPass],
    dtype: Dtype,
    outcome: &mut CaseOutcome,
) -> Result<Vec<String>, Stop> {
    let mut failures = Vec::new();
    for (i, (plan, pass)) in problem.passes.iter().zip(passes).enumerate() {
        let (_, written) = timer.run(ctx, pass, 1)?;
        let cmp = check_output(ctx, pass, written[0], plan, dtype)?;
        record_error(outcome, i == 0, &cmp);
        // NaN/Inf outputs have no SNR: the cell stays empty (JSON has no infinities).
        if cmp.snr_db.is_finite() {
            outcome
                .metrics
                .insert(plan.snr_column.to_owned(), cmp.snr_db);
        }
        if let Some(why) = cmp.failure(dtype) {
            failures.push(format!("{} ({}): {why}", plan.key, plan.snr_column));
        }
    }
    Ok(failures)
}

fn run(
    ctx: &GpuContext,
    spec: &CaseSpec,
    progress: &mut dyn FnMut(ProgressEvent),
    outcome: &mut CaseOutcome,
    mut paired: Option<&mut CaseOutcome>,
) -> Result<(), Stop> {
    let dims = shape_dims(spec)?;
    outcome.dims = dims.clone();
    if let Some(p) = paired.as_deref_mut() {
        p.dims = dims.clone();
    }
    if spec.dtype == Dtype::F16 && !ctx.has_f16() {
        return Err(Stop::Error(format!(
            "adapter {} has no SHADER_F16; f16 cases cannot run there",
            ctx.report().summary()
        )));
    }
    // Sizes come from the dimensions alone, checked before anything is allocated: a shape
    // too large for the adapter must not cost the host its inputs and f64 references first.
    let adapter = ctx.report().summary();
    ops::check_buffers(
        spec.op,
        spec.dtype,
        &spec.shape.label,
        &dims,
        Some(&ops::BufferLimits {
            max_storage_buffer_binding_size: ctx.limits.max_storage_buffer_binding_size,
            max_buffer_size: ctx.limits.max_buffer_size,
            adapter: &adapter,
        }),
    )
    .map_err(Stop::Error)?;
    check_footprint(
        ctx,
        spec,
        &spec.kernel,
        &spec.kernel_path,
        &spec.kernel_source,
    )?;
    let mut laps = Laps::start();
    say(progress, spec, "computing the f64 references");
    let problem = ops::op(spec.op).problem(spec.dtype, &dims, spec.seed);
    laps.lap(outcome, phase::REFS);
    say(progress, spec, "generating the inputs on the device");
    let inputs = crate::inputs::generate(ctx, &problem.inputs)?;
    laps.lap(outcome, phase::INPUTS);
    say(progress, spec, "compiling the kernel");
    let side = prepare_side(
        ctx,
        spec,
        &spec.kernel,
        &spec.kernel_path,
        &spec.kernel_source,
        &problem,
        &inputs,
        outcome,
    )?;
    laps.lap(outcome, phase::COMPILE);
    if spec.driver_statistics
        && let Some(entry) = spec.kernel.entry_points.get("forward")
    {
        say(
            progress,
            spec,
            "asking the driver what it made of the kernel",
        );
        // Statistics are evidence, not the measurement: a failure to read them is kept as
        // their reason and the case goes on.
        let capture = |entry: &str| {
            crate::driver_stats::capture(
                ctx,
                &spec.kernel_source,
                entry,
                spec.kernel.runtime_checks(),
            )
            .unwrap_or_else(|e| Some(DriverStatistics::unread(entry, e)))
        };
        outcome.driver_statistics = capture(entry);
        // Aligned shapes run a pipeline of their own: its registers are asked for too.
        if let (Some(general), Some(aligned)) = (
            outcome.driver_statistics.as_mut(),
            spec.kernel
                .aligned
                .as_ref()
                .and_then(|a| a.entry_points.get("forward")),
        ) {
            general.aligned = capture(aligned).map(Box::new);
        }
    }
    laps.lap(outcome, phase::DRIVER_STATISTICS);
    // The paired kernel's own failures are its outcome's; the scored kernel goes on alone.
    let mut paired_side = None;
    if let (Some(p), Some(out)) = (&spec.paired, paired.as_deref_mut()) {
        say(progress, spec, "compiling the paired kernel");
        match prepare_side(
            ctx,
            spec,
            &p.kernel,
            &p.kernel_path,
            &p.kernel_source,
            &problem,
            &inputs,
            out,
        ) {
            Ok(s) => paired_side = Some(s),
            Err(stop) => finish(out, Some(stop)),
        }
        laps.lap(outcome, phase::COMPILE_PAIRED);
    }
    let elem = ops::dtype_size(spec.dtype);
    let max_output_bytes = problem
        .passes
        .iter()
        .map(|p| p.output_len * elem)
        .max()
        .unwrap_or(4);
    let poison = ctx.buffer_with(
        "kcamp NaN poison",
        &nan_pattern(spec.dtype, max_output_bytes),
        wgpu::BufferUsages::COPY_SRC,
    );
    let flush = problem.memory_bound.then(|| l2_flush(ctx));
    if let Some(f) = &flush {
        outcome
            .metrics
            .insert("l2_flush_bytes".to_owned(), f.bytes as f64);
    }
    ctx.check_errors()?;
    let passes = timed_passes(&side, &problem, elem, &poison, flush.as_ref());
    let paired_passes = paired_side
        .as_ref()
        .map(|s| timed_passes(s, &problem, elem, &poison, flush.as_ref()));
    let timer = Timer::new(ctx);
    outcome.timing_method = Some(timer.method);

    say(
        progress,
        spec,
        "checking the first dispatch against the f64 reference",
    );
    laps.lap(outcome, phase::WORKER_OTHER);
    let failures = check_first_dispatches(ctx, &timer, &problem, &passes, spec.dtype, outcome)?;
    laps.lap(outcome, phase::CHECK);
    if !failures.is_empty() {
        return Err(Stop::Fail(failures.join("; ")));
    }
    // Both kernels of a pair are timed only when both compute the right numbers.
    let (mut paired_out, paired_passes) = match (paired, paired_passes) {
        (Some(out), Some(pp)) => {
            out.timing_method = Some(timer.method);
            if let Some(f) = &flush {
                out.metrics
                    .insert("l2_flush_bytes".to_owned(), f.bytes as f64);
            }
            let failures = check_first_dispatches(ctx, &timer, &problem, &pp, spec.dtype, out)?;
            laps.lap(outcome, phase::CHECK_PAIRED);
            if failures.is_empty() {
                (Some(out), Some(pp))
            } else {
                finish(out, Some(Stop::Fail(failures.join("; "))));
                (None, None)
            }
        }
        _ => (None, None),
    };
    if spec.check_only {
        // Checked, not timed: no warm-up, no samples.
        if let Some(out) = paired_out {
            finish(out, None);
        }
        return Ok(());
    }

    let plan = WarmupPlan::new(&spec.timing, ctx.report().software);
    let repeats = spec.timing.repeats.max(1);
    let mut step_ms: Vec<Vec<f64>> = Vec::new();
    let mut paired_step_ms: Vec<Vec<f64>> = Vec::new();
    for step in &problem.steps {
        let ours: Vec<&TimedPass> = step.passes.iter().map(|i| &passes[*i]).collect();
        let theirs: Option<Vec<&TimedPass>> = match (&paired_out, &paired_passes) {
            (Some(_), Some(pp)) => Some(step.passes.iter().map(|i| &pp[*i]).collect()),
            _ => None,
        };
        // One warm-up for the step, both kernels alternating: after the host-side pauses
        // (references, output checks) the device must be back at its steady state.
        let mut kernels: Vec<&[&TimedPass]> = vec![&ours];
        if let Some(t) = &theirs {
            kernels.insert(0, t);
        }
        laps.lap(outcome, phase::WORKER_OTHER);
        say(progress, spec, format!("warming up {}", step.prefix));
        let mut records = warm_up(ctx, &timer, &kernels, &plan, step.prefix)?;
        laps.lap(outcome, phase::WARMUP);
        // Records come in `kernels` order: ours is the last.
        if let Some(r) = records.pop() {
            outcome.warmup.push(r);
        }
        if let (Some(out), Some(r)) = (paired_out.as_deref_mut(), records.pop()) {
            out.warmup.push(r);
        }
        say(progress, spec, format!("timing {}", step.prefix));
        let batch = calibrate(ctx, &timer, &ours, spec.timing.min_sample_ms)?;
        let paired_batch = match &theirs {
            Some(t) => Some(calibrate(ctx, &timer, t, spec.timing.min_sample_ms)?),
            None => None,
        };
        let mut per_repeat = Vec::with_capacity(repeats as usize);
        let mut paired_per_repeat = Vec::with_capacity(repeats as usize);
        let mut last_written = vec![Vec::new(); ours.len()];
        let mut paired_written = vec![Vec::new(); ours.len()];
        for repeat in 1..=repeats {
            // A B, B A, A B, ...: each repeat's pair is measured back to back, and which
            // kernel goes first alternates, so neither profits from the order.
            match (&theirs, paired_batch) {
                (Some(t), Some(b)) => {
                    let mut theirs_sample = || sample(ctx, &timer, t, b, &mut paired_written);
                    if repeat % 2 == 1 {
                        paired_per_repeat.push(theirs_sample()?);
                        per_repeat.push(sample(ctx, &timer, &ours, batch, &mut last_written)?);
                    } else {
                        per_repeat.push(sample(ctx, &timer, &ours, batch, &mut last_written)?);
                        paired_per_repeat.push(theirs_sample()?);
                    }
                }
                _ => per_repeat.push(sample(ctx, &timer, &ours, batch, &mut last_written)?),
            }
            let ms = per_repeat.last().copied().unwrap_or(f64::NAN);
            progress(ProgressEvent::Sample {
                label: spec.shape.label.clone(),
                pass: step.prefix.to_lowercase(),
                repeat,
                repeats,
                ms,
            });
        }
        laps.lap(outcome, phase::TIMING);
        // The outputs of the last timed command buffer are checked like the first one.
        verify_written(
            ctx,
            &problem,
            step,
            &ours,
            last_written,
            spec.dtype,
            outcome,
        )?;
        outcome.metrics.insert(
            format!("{} dispatches per sample", step.prefix),
            batch as f64,
        );
        laps.lap(outcome, phase::VERIFY);
        step_ms.push(per_repeat);
        let mut paired_failed = false;
        if let (Some(t), Some(b), Some(out)) = (&theirs, paired_batch, paired_out.as_deref_mut()) {
            match verify_written(ctx, &problem, step, t, paired_written, spec.dtype, out) {
                Ok(()) => {
                    out.metrics
                        .insert(format!("{} dispatches per sample", step.prefix), b as f64);
                    paired_step_ms.push(paired_per_repeat);
                }
                Err(stop) => {
                    finish(out, Some(stop));
                    paired_failed = true;
                }
            }
        }
        if theirs.is_some() {
            laps.lap(outcome, phase::VERIFY_PAIRED);
        }
        if paired_failed {
            paired_out = None;
        }
    }
    record_metrics(spec, &problem, &step_ms, outcome);
    if let Some(out) = paired_out {
        record_metrics(spec, &problem, &paired_step_ms, out);
        finish(out, None);
    }
    ctx.check_errors()?;
    laps.lap(outcome, phase::WORKER_OTHER);
    Ok(())
}

/// Where a case's time goes: each lap, from the last one, added to a phase of the outcome.
struct Laps {
    at: Instant,
}

impl Laps {
    fn start() -> Laps {
        Laps { at: Instant::now() }
    }

    fn lap(&mut self, outcome: &mut CaseOutcome, phase: &str) {
        let now = Instant::now();
        outcome.add_time(phase, (now - self.at).as_secs_f64() * 1e3);
        self.at = now;
    }
}

/// Tells the runner what the worker is doing for `spec` (a timeout's reason names it).
fn say(progress: &mut dyn FnMut(ProgressEvent), spec: &CaseSpec, phase: impl Into<String>) {
    progress(ProgressEvent::Phase {
        label: spec.shape.label.clone(),
        phase: phase.into(),
    });
}

/// One timed sample of a step: `batch` dispatches of each of its passes; the time of one
/// step in ms. `written` receives the slots of each pass's last command buffer.
fn sample(
    ctx: &GpuContext,
    timer: &Timer,
    passes: &[&TimedPass],
    batch: usize,
    written: &mut [Vec<usize>],
) -> Result<f64, Stop> {
    let mut ms = 0.0;
    for (pass, w) in passes.iter().zip(written) {
        let (pass_ms, slots) = timer.run(ctx, pass, batch)?;
        ms += pass_ms / batch as f64;
        *w = slots;
    }
    Ok(ms)
}

/// Checks the outputs of a step's last timed command buffers; a wrong one fails the kernel.
#[allow(clippy::too_many_arguments)]
fn verify_written(
    ctx: &GpuContext,
    problem: &Problem,
    step: &kcamp_core::ops::Step,
    passes: &[&TimedPass],
    written: Vec<Vec<usize>>,
    dtype: Dtype,
    outcome: &mut CaseOutcome,
) -> Result<(), Stop> {
    for ((index, pass), written) in step.passes.iter().zip(passes).zip(written) {
        let plan = &problem.passes[*index];
        for slot in written {
            let cmp = check_output(ctx, pass, slot, plan, dtype)?;
            record_error(outcome, false, &cmp);
            if let Some(why) = cmp.failure(dtype) {
                return Err(Stop::Fail(format!(
                    "{}: output of a timed dispatch (rotation buffer {slot}): {why}",
                    plan.key
                )));
            }
        }
    }
    Ok(())
}

/// Dispatches every kernel's passes of one step, alternating, until [`warmup::next`] says
/// the device has settled (or gave up): one record per kernel, in `kernels` order.
fn warm_up(
    ctx: &GpuContext,
    timer: &Timer,
    kernels: &[&[&TimedPass]],
    plan: &WarmupPlan,
    step: &str,
) -> Result<Vec<WarmupRecord>, Stop> {
    let started = Instant::now();
    let target_ms = plan.sample_ms();
    let mut batches = vec![1usize; kernels.len()];
    let mut settle = vec![Settle::default(); kernels.len()];
    let outcome = loop {
        for ((passes, batch), s) in kernels.iter().zip(&mut batches).zip(&mut settle) {
            let mut ms = 0.0;
            for pass in passes.iter() {
                ms += timer.run(ctx, pass, *batch)?.0;
            }
            s.push(ms, *batch as u64);
            if ms < target_ms && *batch < MAX_BATCH {
                let scale = (target_ms / ms.max(1e-6)).clamp(1.0, 8.0);
                *batch = ((*batch as f64 * scale).ceil() as usize).min(MAX_BATCH);
            }
        }
        match warmup::next(plan, &settle, started.elapsed()) {
            Next::Continue => {}
            done => break done,
        }
    };
    let ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(settle
        .iter()
        .map(|s| WarmupRecord {
            step: step.to_owned(),
            dispatches: s.dispatches,
            ms,
            settled: outcome == Next::Settled,
            last_dispatch_ms: s.last(),
        })
        .collect())
}

/// Buffers whose copy before each memory-bound dispatch evicts the L2.
fn l2_flush(ctx: &GpuContext) -> L2Flush {
    let bytes = if ctx.report().software {
        L2_FLUSH_BYTES_SOFTWARE
    } else {
        L2_FLUSH_BYTES
    }
    .min(ctx.limits.max_buffer_size / 4 * 4);
    L2Flush {
        src: ctx.buffer("kcamp L2 flush source", bytes, wgpu::BufferUsages::COPY_SRC),
        dst: ctx.buffer("kcamp L2 flush target", bytes, wgpu::BufferUsages::COPY_DST),
        bytes,
    }
}

/// The rotating outputs of one pass (2 to [`MAX_CHUNK`] buffers within
/// [`ROTATION_BUDGET_BYTES`]), each with its bind group.
fn rotation_slots(
    ctx: &GpuContext,
    spec: &CaseSpec,
    kernel: &KernelSpec,
    layout: &compile::Layout,
    plan: &PassPlan,
    inputs: &[wgpu::Buffer],
) -> Result<Vec<Slot>, Stop> {
    let binding = |name: &str| ops::binding_of(spec.op, kernel, name);
    let output_bytes = plan.output_len * ops::dtype_size(spec.dtype);
    let rotation = (ROTATION_BUDGET_BYTES / output_bytes.max(1)).clamp(2, MAX_CHUNK as u64);
    let params = ctx.buffer_with(plan.key, &plan.params, wgpu::BufferUsages::UNIFORM);
    (0..rotation)
        .map(|i| {
            let output = ctx.buffer(
                &format!("{} output {i}", plan.key),
                output_bytes,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            );
            let entries = [
                (binding(plan.reads[0].0)?, &inputs[plan.reads[0].1]),
                (binding(plan.reads[1].0)?, &inputs[plan.reads[1].1]),
                (binding(plan.output_name)?, &output),
                (binding("params")?, &params),
            ]
            .map(|(b, buffer)| wgpu::BindGroupEntry {
                binding: b,
                resource: buffer.as_entire_binding(),
            });
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(plan.key),
                layout: &layout.bind_group_layout,
                entries: &entries,
            });
            Ok(Slot { bind_group, output })
        })
        .collect()
}

/// Folds one comparison into `rel_err`, the worst over all outputs; an output with NaN or
/// Inf leaves it undefined (None) for the rest of the case.
fn record_error(outcome: &mut CaseOutcome, first: bool, cmp: &Comparison) {
    let current = if first { Some(0.0) } else { outcome.rel_err };
    outcome.rel_err = match current {
        Some(worst) if cmp.rel_err.is_finite() => Some(worst.max(cmp.rel_err)),
        _ => None,
    };
}

/// Grows the dispatches per sample until one sample of the step lasts `min_sample_ms`.
fn calibrate(
    ctx: &GpuContext,
    timer: &Timer,
    passes: &[&TimedPass],
    min_sample_ms: f64,
) -> Result<usize, Stop> {
    let mut batch = 1usize;
    for _ in 0..16 {
        let mut ms = 0.0;
        for pass in passes {
            ms += timer.run(ctx, pass, batch)?.0;
        }
        if ms >= min_sample_ms || batch >= MAX_BATCH {
            break;
        }
        let scale = (min_sample_ms / ms.max(1e-6) * 1.2).clamp(2.0, 1000.0);
        batch = ((batch as f64 * scale).ceil() as usize).min(MAX_BATCH);
    }
    Ok(batch)
}

fn record_metrics(
    spec: &CaseSpec,
    problem: &Problem,
    step_ms: &[Vec<f64>],
    outcome: &mut CaseOutcome,
) {
    let label = &spec.shape.label;
    let mut sample = |metric: String, repeat: usize, value: f64| {
        outcome.samples.push(SampleRow {
            label: label.clone(),
            metric,
            repeat: repeat as u32 + 1,
            value,
        });
    };
    let mut metrics = BTreeMap::new();
    for (step, ms) in problem.steps.iter().zip(step_ms) {
        let rate_name = format!("{} {}", step.prefix, problem.unit);
        let time_name = format!("{} Time (ms)", step.prefix);
        let rates: Vec<f64> = ms
            .iter()
            .map(|m| step.work / (m * 1e-3) / problem.unit_scale)
            .collect();
        for (i, (m, r)) in ms.iter().zip(&rates).enumerate() {
            sample(rate_name.clone(), i, *r);
            sample(time_name.clone(), i, *m);
        }
        let time = Summary::of(ms);
        metrics.insert(
            rate_name.clone(),
            step.work / (time.mean * 1e-3) / problem.unit_scale,
        );
        metrics.insert(format!("{rate_name}_stddev"), Summary::of(&rates).stddev);
        metrics.insert(time_name.clone(), time.mean);
        metrics.insert(format!("{time_name}_stddev"), time.stddev);
        metrics.insert(format!("{time_name}_median"), time.median);
    }
    // Ops whose step throughput combines forward and backward also get its samples.
    if ops::op(spec.op)
        .primary_metrics()
        .contains(&COMBINED_STEP_TFLOPS)
        && let [fwd, bwd] = step_ms
    {
        let work: f64 = problem.steps.iter().map(|s| s.work).sum();
        for (i, (f, b)) in fwd.iter().zip(bwd).enumerate() {
            sample(
                COMBINED_STEP_TFLOPS.to_owned(),
                i,
                work / ((f + b) * 1e-3) / 1e12,
            );
        }
    }
    if let Some(fwd) = step_ms.first() {
        outcome.latency_us = Some(Summary::of(fwd).mean * 1e3);
    }
    outcome.metrics.extend(metrics);
}

fn shape_dims(spec: &CaseSpec) -> Result<Vec<u64>, Stop> {
    let op = ops::op(spec.op);
    op.dim_names()
        .iter()
        .map(
            |name| match spec.shape.dim(name).or_else(|| op.dim_default(name)) {
                Some(0) => Err(Stop::Error(format!(
                    "shape '{}': dimension {name} must be positive",
                    spec.shape.label
                ))),
                Some(v) => Ok(v),
                None => Err(Stop::Error(format!(
                    "shape '{}': missing dimension {name} for op {}",
                    spec.shape.label,
                    spec.op.as_str()
                ))),
            },
        )
        .collect()
}

/// Private memory per invocation kcamp lets a kernel declare. No adapter reports a limit;
/// a GPU's per-thread local memory is at most a few hundred KiB, and a software adapter
/// allocates whatever is declared for every invocation at once (a 256 MiB array took it
/// gigabytes of memory before the case ran out of time).
pub const MAX_PRIVATE_BYTES: u64 = 512 << 10;

/// The memory every entry point the case runs declares, from naga before any pipeline is
/// created: workgroup memory against the adapter's `max_compute_workgroup_storage_size`,
/// private memory against [`MAX_PRIVATE_BYTES`]. Above either, the kernel FAILs with the
/// figure and the limit.
fn check_footprint(
    ctx: &GpuContext,
    spec: &CaseSpec,
    kernel: &KernelSpec,
    path: &Path,
    source: &str,
) -> Result<(), Stop> {
    let mut entries: Vec<&str> = kernel.entry_points.values().map(String::as_str).collect();
    if let Some(a) = &kernel.aligned {
        entries.extend(a.entry_points.values().map(String::as_str));
    }
    entries.sort_unstable();
    entries.dedup();
    // A kernel that does not parse or validate fails at compile, with the compiler's
    // message; one whose types have no size (an array too large to lay out) fails here.
    let Some(footprints) = crate::shader_metrics::memory_footprints(path, source)
        .map_err(|e| Stop::Fail(e.to_string()))?
    else {
        return Ok(());
    };
    let workgroup_limit = u64::from(ctx.limits.max_compute_workgroup_storage_size);
    for f in footprints
        .iter()
        .filter(|f| entries.contains(&f.entry_point.as_str()))
    {
        if f.workgroup_bytes > workgroup_limit {
            return Err(Stop::Fail(format!(
                "entry point '{}' of {} declares {} bytes of workgroup memory, above the adapter's max_compute_workgroup_storage_size of {workgroup_limit} bytes ({}); shape '{}' was not run",
                f.entry_point,
                path.display(),
                f.workgroup_bytes,
                ctx.report().summary(),
                spec.shape.label
            )));
        }
        if f.private_bytes > MAX_PRIVATE_BYTES {
            return Err(Stop::Fail(format!(
                "entry point '{}' of {} declares {} bytes of private memory per invocation (function and private variables), above the {MAX_PRIVATE_BYTES} bytes kcamp allows; shape '{}' was not run",
                f.entry_point,
                path.display(),
                f.private_bytes,
                spec.shape.label
            )));
        }
    }
    Ok(())
}

fn check_dispatch(ctx: &GpuContext, key: &str, wg: [u32; 3]) -> Result<(), Stop> {
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    for (axis, count) in ["x", "y", "z"].iter().zip(wg) {
        if count > max {
            return Err(Stop::Error(format!(
                "{key}: kernel.workgroups.{axis} = {count} workgroups, above the adapter's \
                 max_compute_workgroups_per_dimension of {max}; use a 2-D grid or a grid-stride loop"
            )));
        }
    }
    Ok(())
}

fn check_output(
    ctx: &GpuContext,
    pass: &TimedPass<'_>,
    slot: usize,
    plan: &PassPlan,
    dtype: Dtype,
) -> Result<Comparison, Stop> {
    let bytes = ctx.read_back(&pass.slots[slot].output, pass.output_bytes)?;
    Ok(verify::compare_encoded(&bytes, dtype, &plan.reference))
}

#[cfg(test)]
fn encode(values: &[f64], dtype: Dtype) -> Vec<u8> {
    match dtype {
        Dtype::F32 => values
            .iter()
            .flat_map(|v| (*v as f32).to_le_bytes())
            .collect(),
        Dtype::F16 => values
            .iter()
            .flat_map(|v| half::f16::from_f64(*v).to_le_bytes())
            .collect(),
    }
}

#[cfg(test)]
fn decode(bytes: &[u8], dtype: Dtype) -> Vec<f64> {
    match dtype {
        Dtype::F32 => bytes
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        Dtype::F16 => bytes
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
    }
}

/// `bytes` (rounded up to 4) of quiet NaNs of `dtype`.
fn nan_pattern(dtype: Dtype, bytes: u64) -> Vec<u8> {
    let word: u32 = match dtype {
        Dtype::F32 => f32::NAN.to_bits(),
        Dtype::F16 => {
            let h = u32::from(half::f16::NAN.to_bits());
            h | (h << 16)
        }
    };
    let words = bytes.max(4).div_ceil(4) as usize;
    std::iter::repeat_n(word.to_le_bytes(), words)
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip_and_nan_pattern() {
        let v = vec![0.5, -0.25, 1.0];
        assert_eq!(decode(&encode(&v, Dtype::F32), Dtype::F32), v);
        assert_eq!(decode(&encode(&v, Dtype::F16), Dtype::F16), v);
        let nan = nan_pattern(Dtype::F16, 6);
        assert_eq!(nan.len(), 8);
        assert!(decode(&nan, Dtype::F16).iter().all(|x| x.is_nan()));
        assert!(
            decode(&nan_pattern(Dtype::F32, 8), Dtype::F32)
                .iter()
                .all(|x| x.is_nan())
        );
    }
}
