//! The seeded inputs, generated on the device in place: a compute pass of
//! `inputs.wgsl` (kcamp-core's [`kcamp_core::ops::inputs`], the same bits) fills each input
//! buffer before the kernel's first dispatch, so the host neither generates nor uploads
//! them.

use kcamp_core::ops::inputs::Seeded;
use kcamp_core::types::Dtype;
use kcamp_core::{Error, Result};

use crate::GpuContext;

const SOURCE: &str = include_str!("inputs.wgsl");
const WORKGROUP: u64 = 256;

/// The generator's compiled pipeline (one per device: [`GpuContext::generator`]).
pub(crate) struct Generator {
    pipeline: wgpu::ComputePipeline,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    key: u32,
    len: u32,
    half: u32,
    words: u32,
}

impl Generator {
    fn new(ctx: &GpuContext) -> Result<Generator> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("kcamp input generator"),
                source: wgpu::ShaderSource::Wgsl(SOURCE.into()),
            });
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("kcamp input generator"),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("compiling the input generator: {e}")));
        }
        Ok(Generator { pipeline })
    }
}

/// The device's generator, compiled on first use.
fn generator(ctx: &GpuContext) -> Result<&Generator> {
    if let Some(g) = ctx.generator.get() {
        return Ok(g);
    }
    let made = Generator::new(ctx)?;
    Ok(ctx.generator.get_or_init(|| made))
}

/// A storage buffer per input (`(label, values)`), each filled on the device, and waited
/// for: the buffers hold their values when this returns.
pub(crate) fn generate(ctx: &GpuContext, inputs: &[(String, Seeded)]) -> Result<Vec<wgpu::Buffer>> {
    let generator = generator(ctx)?;
    let layout = generator.pipeline.get_bind_group_layout(0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut buffers = Vec::with_capacity(inputs.len());
    // Kept alive until the submit.
    let mut uniforms = Vec::with_capacity(inputs.len());
    for (label, seeded) in inputs {
        let len = u32::try_from(seeded.len).map_err(|_| {
            Error::Internal(format!(
                "input {label}: {} elements, more than the generator's u32 index holds",
                seeded.len
            ))
        })?;
        let half = seeded.dtype == Dtype::F16;
        let words = if half { len.div_ceil(2) } else { len };
        let buffer = ctx.buffer(
            label,
            seeded.len * kcamp_core::ops::dtype_size(seeded.dtype),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let params = Params {
            key: seeded.key,
            len,
            half: u32::from(half),
            words,
        };
        let uniform = ctx.buffer_with(
            "kcamp input generator params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kcamp input generator"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: uniform.as_entire_binding(),
                },
            ],
        });
        if words > 0 {
            let groups = u64::from(words)
                .div_ceil(WORKGROUP)
                .min(u64::from(ctx.limits.max_compute_workgroups_per_dimension))
                .max(1) as u32;
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("kcamp input generator"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&generator.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        uniforms.push(uniform);
        buffers.push(buffer);
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.wait()?;
    Ok(buffers)
}

/// The bytes the device generates for `seeded` (little-endian `dtype`, unpadded): what a
/// kernel reads, for comparing the device's generator with the host's.
pub fn generated_bytes(ctx: &GpuContext, seeded: &Seeded) -> Result<Vec<u8>> {
    let buffers = generate(ctx, &[("kcamp generated input".to_owned(), *seeded)])?;
    let bytes = seeded.len * kcamp_core::ops::dtype_size(seeded.dtype);
    let mut read = ctx.read_back(&buffers[0], bytes)?;
    read.truncate(bytes as usize);
    Ok(read)
}
