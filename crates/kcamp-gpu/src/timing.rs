//! Timed dispatches: GPU timestamps around each compute pass when the adapter has them,
//! else the host clock after a full device wait. Outputs rotate over several buffers and
//! every buffer is re-poisoned with NaN (a copy outside the timed passes) before each use.

use std::cell::Cell;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::GpuContext;
use kcamp_core::types::TimingMethod;
use kcamp_core::{Error, Result};

/// Dispatches recorded into one command buffer (two timestamp queries each).
pub(crate) const MAX_CHUNK: usize = 64;

/// One output buffer of a rotation and the bind group that writes it.
pub(crate) struct Slot {
    pub bind_group: wgpu::BindGroup,
    pub output: wgpu::Buffer,
}

/// Buffers copied before every dispatch of a memory-bound op so it starts with a cold L2.
pub(crate) struct L2Flush {
    pub src: wgpu::Buffer,
    pub dst: wgpu::Buffer,
    pub bytes: u64,
}

/// A pipeline with its rotating outputs, ready to time.
pub(crate) struct TimedPass<'a> {
    pub pipeline: &'a wgpu::ComputePipeline,
    pub slots: &'a [Slot],
    pub workgroups: [u32; 3],
    /// Source of the NaN pattern, at least `output_bytes` long.
    pub poison: &'a wgpu::Buffer,
    pub output_bytes: u64,
    pub flush: Option<&'a L2Flush>,
    /// Next slot to write.
    pub cursor: Cell<usize>,
}

/// Times batches of dispatches with one method for the whole case.
pub(crate) struct Timer {
    pub method: TimingMethod,
    queries: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
    period_ns: f64,
}

impl Timer {
    pub(crate) fn new(ctx: &GpuContext) -> Timer {
        if ctx.timing_method() == TimingMethod::HostClock {
            return Timer {
                method: TimingMethod::HostClock,
                queries: None,
                period_ns: 0.0,
            };
        }
        let count = 2 * MAX_CHUNK as u32;
        let query_set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("kcamp timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let bytes = u64::from(count) * 8;
        let resolve = ctx.buffer(
            "kcamp timestamp resolve",
            bytes,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = ctx.buffer(
            "kcamp timestamp read-back",
            bytes,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        Timer {
            method: TimingMethod::GpuTimestamps,
            queries: Some((query_set, resolve, readback)),
            period_ns: f64::from(ctx.queue.get_timestamp_period()),
        }
    }

    /// Runs `count` dispatches of `pass`; returns the summed dispatch time in ms and the
    /// slots written by the last command buffer (the ones to verify afterwards).
    pub(crate) fn run(
        &self,
        ctx: &GpuContext,
        pass: &TimedPass<'_>,
        count: usize,
    ) -> Result<(f64, Vec<usize>)> {
        let mut total_ms = 0.0;
        let mut remaining = count.max(1);
        let mut last = Vec::new();
        while remaining > 0 {
            let mut chunk = remaining.min(pass.slots.len()).min(MAX_CHUNK);
            if self.queries.is_none() && pass.flush.is_some() {
                // The flush copy must stay outside the host-clock interval.
                chunk = 1;
            }
            let start = pass.cursor.get();
            let slots: Vec<usize> = (0..chunk).map(|j| (start + j) % pass.slots.len()).collect();
            pass.cursor.set((start + chunk) % pass.slots.len());
            total_ms += match &self.queries {
                Some(q) => self.chunk_with_timestamps(ctx, pass, &slots, q)?,
                None => chunk_with_host_clock(ctx, pass, &slots)?,
            };
            remaining -= chunk;
            last = slots;
        }
        Ok((total_ms, last))
    }

    fn chunk_with_timestamps(
        &self,
        ctx: &GpuContext,
        pass: &TimedPass<'_>,
        slots: &[usize],
        (query_set, resolve, readback): &(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer),
    ) -> Result<f64> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        poison(&mut encoder, pass, slots);
        for (j, slot) in slots.iter().enumerate() {
            if let Some(f) = pass.flush {
                encoder.copy_buffer_to_buffer(&f.src, 0, &f.dst, 0, f.bytes);
            }
            let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("kcamp timed"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: Some(2 * j as u32),
                    end_of_pass_write_index: Some(2 * j as u32 + 1),
                }),
            });
            dispatch(&mut cpass, pass, *slot);
        }
        let queries = 2 * slots.len() as u32;
        encoder.resolve_query_set(query_set, 0..queries, resolve, 0);
        encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, u64::from(queries) * 8);
        ctx.queue.submit([encoder.finish()]);
        let bytes = ctx.read_mappable(readback, u64::from(queries) * 8)?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let mut total_ns = 0.0;
        for pair in ticks.chunks_exact(2) {
            let (begin, end) = (pair[0], pair[1]);
            if end < begin {
                return Err(Error::Gpu(format!(
                    "GPU timestamps went backwards ({begin} then {end})"
                )));
            }
            total_ns += (end - begin) as f64 * self.period_ns;
        }
        if total_ns <= 0.0 {
            return Err(Error::Gpu(
                "GPU timestamps measured zero time for a dispatch; the adapter's timestamps are unusable"
                    .into(),
            ));
        }
        Ok(total_ns / 1e6)
    }
}

fn chunk_with_host_clock(ctx: &GpuContext, pass: &TimedPass<'_>, slots: &[usize]) -> Result<f64> {
    let mut prep = ctx.device.create_command_encoder(&Default::default());
    poison(&mut prep, pass, slots);
    if let Some(f) = pass.flush {
        prep.copy_buffer_to_buffer(&f.src, 0, &f.dst, 0, f.bytes);
    }
    ctx.queue.submit([prep.finish()]);
    ctx.wait()?;
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for slot in slots {
        let mut cpass = encoder.begin_compute_pass(&Default::default());
        dispatch(&mut cpass, pass, *slot);
    }
    let command_buffer = encoder.finish();
    let started = Instant::now();
    ctx.queue.submit([command_buffer]);
    ctx.wait()?;
    Ok(started.elapsed().as_secs_f64() * 1e3)
}

fn poison(encoder: &mut wgpu::CommandEncoder, pass: &TimedPass<'_>, slots: &[usize]) {
    let bytes = pass.output_bytes.max(4).next_multiple_of(4);
    for slot in slots {
        encoder.copy_buffer_to_buffer(pass.poison, 0, &pass.slots[*slot].output, 0, bytes);
    }
}

fn dispatch(cpass: &mut wgpu::ComputePass<'_>, pass: &TimedPass<'_>, slot: usize) {
    cpass.set_pipeline(pass.pipeline);
    cpass.set_bind_group(0, &pass.slots[slot].bind_group, &[]);
    let [x, y, z] = pass.workgroups;
    cpass.dispatch_workgroups(x, y, z);
}

/// Mean, population stddev and median of per-repeat values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Summary {
    pub mean: f64,
    pub stddev: f64,
    pub median: f64,
}

impl Summary {
    /// NaN fields for an empty slice.
    pub(crate) fn of(values: &[f64]) -> Summary {
        use kcamp_core::stats;
        Summary {
            mean: stats::mean(values).unwrap_or(f64::NAN),
            stddev: stats::pop_stddev(values).unwrap_or(f64::NAN),
            median: stats::median(values).unwrap_or(f64::NAN),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_population_stddev() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.stddev - 1.25f64.sqrt()).abs() < 1e-12);
        assert_eq!(s.median, 2.5);
        assert_eq!(Summary::of(&[3.0, 1.0, 2.0]).median, 2.0);
    }
}
