//! The adapter's own ceilings (docs/roofline.md, "`kcamp peak`: the adapter's own
//! ceilings"): an FMA-chain kernel (f32, and f16 where the adapter has SHADER_F16) and a
//! vec4 copy kernel. Each grows (more iterations, a bigger buffer, then more dispatches)
//! until one timed run lasts `min_run_ms`; the best of `runs` counts.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::GpuContext;
use super::compile::{self, Access, Kernel};
use kcamp_core::types::{AdapterDescription, RuntimeChecks, TimingMethod};
use kcamp_core::{Error, Result};

const FMA_F32: &str = include_str!("../../../shaders/peak_fma.wgsl");
const FMA_F16: &str = include_str!("../../../shaders/peak_fma_f16.wgsl");
const COPY: &str = include_str!("../../../shaders/peak_copy.wgsl");
const COOP_F16: &str = include_str!("../../../shaders/peak_coop_f16.wgsl");
/// FLOPs per invocation and iteration of the FMA kernels: 8 chains × 4 unroll × vec4 × 2.
const FLOPS_PER_ITERATION: f64 = 256.0;
/// Bytes of the cooperative-matrix kernel's output: 64 slots of a workgroup's 8 subgroups'
/// 8 accumulators of 16×16 f32.
const COOP_OUT_BYTES: u64 = 64 * 8 * 8 * 256 * 4;
const WORKGROUP: u64 = 256;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeakOptions {
    /// A timed run grows until it lasts at least this long.
    pub min_run_ms: f64,
    /// Timed runs at the final size; the best one counts.
    pub runs: u32,
    /// Upper bound of the copy buffer (also bounded by the adapter's limits).
    pub max_copy_bytes: u64,
    /// Workgroups (of 256) of the FMA kernel; default 16,384, or 64 on software adapters.
    pub fma_workgroups: Option<u32>,
    /// A kernel timed in place of the bundled cooperative-matrix chain (`kcamp peak
    /// --coop-probe`): what a kernel's inner loop costs on the tensor cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coop_probe: Option<CoopProbe>,
}

/// A probe of the cooperative-matrix path: a kernel with the bundled chain's bindings
/// (`out`, `params.iterations`), workgroup size (256) and work, 8 multiply-adds of 16×16×16
/// per subgroup and iteration, so the chain's FLOP count holds; whatever else it does in its
/// loop (loads from workgroup memory, barriers) is what its rate measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoopProbe {
    /// Its file's name, as outputs show it.
    pub name: String,
    pub source: String,
}

impl Default for PeakOptions {
    fn default() -> Self {
        PeakOptions {
            min_run_ms: 300.0,
            runs: 5,
            max_copy_bytes: 1 << 30,
            fma_workgroups: None,
            coop_probe: None,
        }
    }
}

/// Measured FMA throughput of one dtype.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FmaPeak {
    pub dtype: String,
    pub gflops: f64,
    pub tflops: f64,
    pub invocations: u64,
    pub iterations: u32,
    pub best_ms: f64,
}

/// Measured copy bandwidth (read + write bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopyPeak {
    pub gbps: f64,
    pub buffer_bytes: u64,
    pub dispatches: u32,
    pub best_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeakReport {
    pub adapter: AdapterDescription,
    pub timing_method: TimingMethod,
    pub min_run_ms: f64,
    pub runs: u32,
    pub fma_f32: FmaPeak,
    /// None where the adapter has no SHADER_F16.
    pub fma_f16: Option<FmaPeak>,
    pub copy: CopyPeak,
    /// Cooperative-matrix multiply-adds (16×16×16, f16 inputs, f32 sums: the tensor cores as
    /// WGSL reaches them), where the adapter has them with subgroups of 32 (its `gflops` is
    /// counted per invocation of subgroups of 32). None elsewhere, or with why it failed in
    /// `coop_f16_error`: the other ceilings stand without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coop_f16: Option<FmaPeak>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coop_f16_error: Option<String>,
    /// The probe timed in place of the bundled chain, when one was: `coop_f16` is then that
    /// probe's rate, not a ceiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coop_f16_probe: Option<String>,
}

/// Measures the adapter's FMA and copy ceilings.
pub fn measure(ctx: &GpuContext, opts: &PeakOptions) -> Result<PeakReport> {
    if !(opts.min_run_ms.is_finite() && opts.min_run_ms > 0.0) || opts.runs == 0 {
        return Err(Error::input(
            "peak: min_run_ms must be positive and runs at least 1",
        ));
    }
    // A probe is what was asked for: where it cannot run, nothing else is measured either.
    if let Some(probe) = &opts.coop_probe
        && !coop_f16_ready(ctx)
    {
        return Err(Error::input(format!(
            "--coop-probe {}: {} has no cooperative matrices with subgroups of 32, so the probe cannot run here (nothing was measured)",
            probe.name,
            ctx.description().name
        )));
    }
    ctx.clear_errors();
    let clock = RunClock::new(ctx);
    let chain = |dtype, name, source, vec4_bytes| Chain {
        dtype,
        name,
        source,
        flops_per_iteration: FLOPS_PER_ITERATION,
        vec4_bytes,
        out_bytes: None,
    };
    let fma_f32 = fma(
        ctx,
        &clock,
        opts,
        &chain("f32", "peak_fma_f32.wgsl", FMA_F32, 16),
    )?;
    let fma_f16 = if ctx.has_f16() {
        Some(fma(
            ctx,
            &clock,
            opts,
            &chain("f16", "peak_fma_f16.wgsl", FMA_F16, 8),
        )?)
    } else {
        None
    };
    let copy = copy(ctx, &clock, opts)?;
    let (coop_f16, coop_f16_error) = if coop_f16_ready(ctx) {
        let (name, source) = opts
            .coop_probe
            .as_ref()
            .map_or(("peak_coop_f16.wgsl", COOP_F16), |p| {
                (p.name.as_str(), p.source.as_str())
            });
        let coop = Chain {
            dtype: "f16 cooperative matrix",
            name,
            source,
            out_bytes: Some(COOP_OUT_BYTES),
            // 8 chains × 16×16×16 × 2 per subgroup of 32.
            flops_per_iteration: 8.0 * 4096.0 * 2.0 / 32.0,
            vec4_bytes: 8,
        };
        match (fma(ctx, &clock, opts, &coop), &opts.coop_probe) {
            (Ok(peak), _) => (Some(peak), None),
            // A probe that does not compile or run is the probe's fault, and the answer.
            (Err(e), Some(probe)) => {
                return Err(Error::input(format!("--coop-probe {}: {e}", probe.name)));
            }
            (Err(e), None) => (None, Some(e.to_string())),
        }
    } else {
        (None, None)
    };
    Ok(PeakReport {
        adapter: ctx.description(),
        timing_method: clock.method(),
        min_run_ms: opts.min_run_ms,
        runs: opts.runs,
        fma_f32,
        fma_f16,
        copy,
        coop_f16,
        coop_f16_error,
        coop_f16_probe: opts.coop_probe.as_ref().map(|p| p.name.clone()),
    })
}

/// Whether the cooperative-matrix peak can run: the feature, f16, and subgroups of exactly
/// 32 (the kernel's FLOP count assumes them).
fn coop_f16_ready(ctx: &GpuContext) -> bool {
    ctx.features
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX | wgpu::Features::SHADER_F16)
        && ctx.report().features.subgroup_min_size == 32
        && ctx.report().features.subgroup_max_size == 32
}

/// One FMA-chain kernel: its dtype's name, its source, its FLOPs per invocation and
/// iteration and the bytes of its output (per invocation, or in all).
struct Chain<'a> {
    dtype: &'a str,
    name: &'a str,
    source: &'a str,
    flops_per_iteration: f64,
    /// Output bytes per invocation (the vec4 chains' sums).
    vec4_bytes: u64,
    /// Output bytes in all, when the kernel writes a fixed area instead.
    out_bytes: Option<u64>,
}

fn build(
    ctx: &GpuContext,
    name: &str,
    source: &str,
    bindings: &[(&str, u32, Access)],
) -> Result<(wgpu::ComputePipeline, wgpu::BindGroupLayout)> {
    // Our own kernels check their bounds with arrayLength; skip naga's checks and loop guards.
    let kernel: Kernel = compile::compile(ctx, Path::new(name), source, RuntimeChecks::None)
        .map_err(|e| Error::Internal(format!("built-in peak kernel: {e}")))?;
    let layout = compile::layout(ctx, bindings);
    let pipeline = kernel
        .pipeline(ctx, &layout, "kernel.entry_points.forward", "main")
        .map_err(|e| Error::Gpu(format!("built-in peak kernel: {e}")))?;
    Ok((pipeline, layout.bind_group_layout))
}

/// A 2-D grid of exactly `groups` workgroups within the per-dimension limit: x is the largest
/// divisor of `groups` that fits (1 GiB of copy = 262,144 workgroups -> 32,768 x 8, where
/// x = 65,535 and y = ceil(groups / x) would launch 65,531 empty workgroups, timed as part
/// of the copy).
/// Where no divisor gives a y within the limit either (a large prime), the most balanced
/// rectangle, which launches fewer than y extra workgroups.
fn grid(ctx: &GpuContext, groups: u64) -> Result<[u32; 3]> {
    grid_within(
        groups,
        u64::from(ctx.limits.max_compute_workgroups_per_dimension),
    )
}

fn grid_within(groups: u64, max: u64) -> Result<[u32; 3]> {
    let groups = groups.max(1);
    let max = max.max(1);
    let y_min = groups.div_ceil(max);
    if y_min > max {
        return Err(Error::Gpu(format!(
            "peak: {groups} workgroups do not fit a {max}x{max} grid"
        )));
    }
    let (x, y) = (y_min..=max)
        .find(|y| groups.is_multiple_of(*y))
        .map(|y| (groups / y, y))
        .unwrap_or((groups.div_ceil(y_min), y_min));
    Ok([x as u32, y as u32, 1])
}

fn fma(ctx: &GpuContext, clock: &RunClock, opts: &PeakOptions, chain: &Chain) -> Result<FmaPeak> {
    let Chain {
        dtype,
        name,
        source,
        flops_per_iteration,
        vec4_bytes,
        out_bytes,
    } = *chain;
    let (pipeline, layout) = build(
        ctx,
        name,
        source,
        &[
            ("out", 0, Access::ReadWrite),
            ("params", 1, Access::Uniform),
        ],
    )?;
    let default_groups = if ctx.report().software { 64 } else { 16_384 };
    let max_groups = ctx.limits.max_storage_buffer_binding_size / (WORKGROUP * vec4_bytes);
    let groups =
        u64::from(opts.fma_workgroups.unwrap_or(default_groups)).clamp(1, max_groups.max(1));
    let invocations = groups * WORKGROUP;
    let out = ctx.buffer(
        "peak fma out",
        out_bytes.unwrap_or(invocations * vec4_bytes),
        wgpu::BufferUsages::STORAGE,
    );
    let params = ctx.buffer(
        "peak fma params",
        16,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("peak fma"),
        layout: &layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: out.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: params.as_entire_binding(),
            },
        ],
    });
    let workgroups = grid(ctx, groups)?;
    let mut iterations: u32 = 16;
    let timed = |iterations: u32| -> Result<f64> {
        ctx.queue
            .write_buffer(&params, 0, bytemuck::bytes_of(&[iterations, 0, 0, 0]));
        clock.time(ctx, 1, &pipeline, &bind_group, workgroups)
    };
    loop {
        let ms = timed(iterations)?;
        if ms >= opts.min_run_ms || iterations >= 1 << 30 {
            break;
        }
        let scale = (opts.min_run_ms / ms.max(1e-6) * 1.1).clamp(2.0, 1024.0);
        iterations = (f64::from(iterations) * scale).min(f64::from(1u32 << 30)) as u32;
    }
    let best_ms = best_of(opts.runs, || timed(iterations))?;
    let flops = invocations as f64 * f64::from(iterations) * flops_per_iteration;
    let gflops = flops / (best_ms * 1e-3) / 1e9;
    Ok(FmaPeak {
        dtype: dtype.to_owned(),
        gflops,
        tflops: gflops / 1e3,
        invocations,
        iterations,
        best_ms,
    })
}

fn copy(ctx: &GpuContext, clock: &RunClock, opts: &PeakOptions) -> Result<CopyPeak> {
    let (pipeline, layout) = build(
        ctx,
        "peak_copy.wgsl",
        COPY,
        &[("src", 0, Access::Read), ("dst", 1, Access::ReadWrite)],
    )?;
    let cap = opts
        .max_copy_bytes
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size)
        / (WORKGROUP * 16)
        * (WORKGROUP * 16);
    if cap == 0 {
        return Err(Error::input(
            "peak: max_copy_bytes is below one workgroup (4 KiB)",
        ));
    }
    let mut bytes = (1u64 << 20).min(cap);
    let mut dispatches = 1u32;
    loop {
        let src = ctx.buffer("peak copy src", bytes, wgpu::BufferUsages::STORAGE);
        let dst = ctx.buffer("peak copy dst", bytes, wgpu::BufferUsages::STORAGE);
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("peak copy"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: dst.as_entire_binding(),
                },
            ],
        });
        let workgroups = grid(ctx, bytes / 16 / WORKGROUP)?;
        let ms = clock.time(ctx, dispatches, &pipeline, &bind_group, workgroups)?;
        if ms >= opts.min_run_ms || dispatches >= 1 << 16 {
            let best_ms = best_of(opts.runs, || {
                clock.time(ctx, dispatches, &pipeline, &bind_group, workgroups)
            })?;
            let moved = 2.0 * bytes as f64 * f64::from(dispatches);
            return Ok(CopyPeak {
                gbps: moved / (best_ms * 1e-3) / 1e9,
                buffer_bytes: bytes,
                dispatches,
                best_ms,
            });
        }
        let scale = (opts.min_run_ms / ms.max(1e-6) * 1.1).clamp(2.0, 1024.0);
        if bytes < cap {
            bytes = ((bytes as f64 * scale) as u64 / (WORKGROUP * 16) * (WORKGROUP * 16)).min(cap);
        } else {
            dispatches = (f64::from(dispatches) * scale).min(f64::from(1u32 << 16)) as u32;
        }
    }
}

fn best_of(runs: u32, mut run: impl FnMut() -> Result<f64>) -> Result<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        best = best.min(run()?);
    }
    Ok(best)
}

/// Times one compute pass of `dispatches` dispatches: timestamps at the pass's begin and end
/// when the adapter has them, else the host clock around submit and wait.
struct RunClock {
    queries: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer, f64)>,
}

impl RunClock {
    fn new(ctx: &GpuContext) -> RunClock {
        if ctx.timing_method() == TimingMethod::HostClock {
            return RunClock { queries: None };
        }
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("peak timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = ctx.buffer(
            "peak resolve",
            16,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = ctx.buffer(
            "peak read-back",
            16,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let period = f64::from(ctx.queue.get_timestamp_period());
        RunClock {
            queries: Some((set, resolve, readback, period)),
        }
    }

    fn method(&self) -> TimingMethod {
        if self.queries.is_some() {
            TimingMethod::GpuTimestamps
        } else {
            TimingMethod::HostClock
        }
    }

    fn time(
        &self,
        ctx: &GpuContext,
        dispatches: u32,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        [x, y, z]: [u32; 3],
    ) -> Result<f64> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("peak"),
                timestamp_writes: self.queries.as_ref().map(|(set, ..)| {
                    wgpu::ComputePassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            for _ in 0..dispatches {
                pass.dispatch_workgroups(x, y, z);
            }
        }
        let Some((set, resolve, readback, period)) = &self.queries else {
            let command_buffer = encoder.finish();
            let started = Instant::now();
            ctx.queue.submit([command_buffer]);
            ctx.wait()?;
            return Ok(started.elapsed().as_secs_f64() * 1e3);
        };
        encoder.resolve_query_set(set, 0..2, resolve, 0);
        encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, 16);
        ctx.queue.submit([encoder.finish()]);
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&ctx.read_mappable(readback, 16)?);
        let ns = ticks[1].saturating_sub(ticks[0]) as f64 * period;
        if ns <= 0.0 {
            return Err(Error::Gpu("peak: GPU timestamps measured zero time".into()));
        }
        Ok(ns / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in peak kernel parses and validates (the cooperative-matrix one cannot
    /// run on the software adapter, so this is what checks it off an H200).
    #[test]
    fn the_peak_kernels_are_valid_wgsl() {
        use wgpu::naga;
        for (name, source) in [
            ("peak_fma.wgsl", FMA_F32),
            ("peak_fma_f16.wgsl", FMA_F16),
            ("peak_copy.wgsl", COPY),
            ("peak_coop_f16.wgsl", COOP_F16),
        ] {
            let module = naga::front::wgsl::parse_str(source)
                .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
        }
    }

    #[test]
    fn grid_launches_exactly_the_workgroups_asked_for() {
        const MAX: u64 = 65_535;
        // 1 GiB of copy: 262,144 workgroups of 256 vec4.
        assert_eq!(grid_within(262_144, MAX).unwrap(), [32_768, 8, 1]);
        assert_eq!(grid_within(16_384, MAX).unwrap(), [16_384, 1, 1]);
        assert_eq!(grid_within(65_535, MAX).unwrap(), [65_535, 1, 1]);
        assert_eq!(grid_within(65_536, MAX).unwrap(), [32_768, 2, 1]);
        assert_eq!(grid_within(0, MAX).unwrap(), [1, 1, 1]);
        let exact = [1u64, 2, 255, 100_000, 262_144, 1 << 26];
        // No divisor fits: 3 x 65,537 and a prime above the limit.
        let balanced = [3 * 65_537u64, 4_000_000_007];
        for groups in exact.into_iter().chain(balanced) {
            let [x, y, _] = grid_within(groups, MAX).unwrap();
            let (x, y) = (u64::from(x), u64::from(y));
            assert!(x <= MAX && y <= MAX, "{groups}: {x} x {y}");
            assert!(x * y >= groups, "{groups}: {x} x {y}");
            if exact.contains(&groups) {
                assert_eq!(x * y, groups, "{groups}: {x} x {y}");
            } else {
                assert!(x * y - groups < y, "{groups}: {x} x {y}");
            }
        }
        assert!(grid_within(MAX * MAX + 1, MAX).is_err());
    }
}
