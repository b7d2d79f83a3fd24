//! WGSL → pipeline. naga parses and validates first so an error names `file:line:col`; the
//! device then compiles inside an error scope so nothing reaches wgpu's panicking handler.

use std::path::Path;

use wgpu::naga;

use super::GpuContext;
use kcamp_core::types::RuntimeChecks;

/// How a kernel accesses one binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    ReadWrite,
    Uniform,
}

/// A kernel's shader module, ready for pipelines.
pub(crate) struct Kernel {
    module: wgpu::ShaderModule,
    entry_points: Vec<String>,
    path: String,
}

/// Parses, validates and compiles `source`. The error is the FAIL reason:
/// `<path>:<line>:<col>: <message>` when naga can place it.
pub(crate) fn compile(
    ctx: &GpuContext,
    path: &Path,
    source: &str,
    mode: RuntimeChecks,
) -> Result<Kernel, String> {
    let shown = path.display().to_string();
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let at = e
            .location(source)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        let labels: Vec<&str> = e
            .labels()
            .map(|(_, l)| l)
            .filter(|l| !l.is_empty())
            .collect();
        let detail = if labels.is_empty() {
            String::new()
        } else {
            format!(" ({})", labels.join("; "))
        };
        format!("{shown}:{at}: {}{detail}", e.message())
    })?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| {
        let at = e
            .location(source)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        format!("{shown}:{at}: {}", error_chain(e.as_inner()))
    })?;
    let entry_points = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .map(|e| e.name.clone())
        .collect();
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(&shown),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    let module = match mode {
        RuntimeChecks::None => {
            // SAFETY: the manifest opted this kernel out of runtime bounds checks
            // (`kernel.trusted`); out-of-bounds accesses are then the kernel author's risk.
            unsafe {
                ctx.device
                    .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            }
        }
        // wgpu's own checked mode, loop bounding included (`kernel.checks: full`).
        RuntimeChecks::Full => ctx.device.create_shader_module(desc),
        RuntimeChecks::BoundsChecks => {
            // Bounds checks stay on; forced loop bounding is off: it can keep a kernel's
            // accumulators out of registers and cost it many times over
            // (docs/performance.md, "What naga's runtime checks cost"), and a kernel that
            // never ends is already the killable worker's TIMEOUT_FAIL.
            let mut checks = wgpu::ShaderRuntimeChecks::checked();
            checks.force_loop_bounding = false;
            // SAFETY: every access stays bounds-checked; without loop bounding an endless loop
            // may be miscompiled, and the worker that runs it is killed at `timeout_sec`.
            unsafe { ctx.device.create_shader_module_trusted(desc, checks) }
        }
    };
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(format!("{shown}: {}", error_chain(&e)));
    }
    Ok(Kernel {
        module,
        entry_points,
        path: shown,
    })
}

/// The explicit bind group layout of an op, with a description for error messages.
pub(crate) struct Layout {
    pub bind_group_layout: wgpu::BindGroupLayout,
    description: String,
}

/// Builds the group-0 layout for `(buffer name, binding, access)` triples.
pub(crate) fn layout(ctx: &GpuContext, bindings: &[(&str, u32, Access)]) -> Layout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .map(|(_, binding, access)| wgpu::BindGroupLayoutEntry {
            binding: *binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match access {
                    Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    Access::Uniform => wgpu::BufferBindingType::Uniform,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let description = bindings
        .iter()
        .map(|(name, binding, access)| {
            let kind = match access {
                Access::Read => "var<storage, read>",
                Access::ReadWrite => "var<storage, read_write>",
                Access::Uniform => "var<uniform>",
            };
            format!("@binding({binding}) {kind} {name}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    Layout {
        bind_group_layout: ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("kcamp bindings"),
                entries: &entries,
            }),
        description,
    }
}

impl Kernel {
    /// A compute pipeline for `entry` with the op's explicit layout, so a kernel that ignores
    /// a buffer still runs. `key` names the manifest entry (`forward`, ...) in errors.
    pub(crate) fn pipeline(
        &self,
        ctx: &GpuContext,
        layout: &Layout,
        field: &str,
        entry: &str,
    ) -> Result<wgpu::ComputePipeline, String> {
        if !self.entry_points.iter().any(|e| e == entry) {
            return Err(format!(
                "{}: {field}: no compute entry point '{entry}' (found: {})",
                self.path,
                if self.entry_points.is_empty() {
                    "none".to_owned()
                } else {
                    self.entry_points.join(", ")
                }
            ));
        }
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline_layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("kcamp"),
                bind_group_layouts: &[Some(&layout.bind_group_layout)],
                immediate_size: 0,
            });
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &self.module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        match pollster::block_on(scope.pop()) {
            Some(e) => {
                let message = error_chain(&e);
                let hint = if message.contains("pipeline layout") {
                    format!(" (kcamp binds group 0 as: {})", layout.description)
                } else {
                    String::new()
                };
                Err(format!(
                    "{}: entry point '{entry}': {message}{hint}",
                    self.path
                ))
            }
            None => Ok(pipeline),
        }
    }
}

/// An error and its sources on one line: wgpu's multi-line reports ("Validation Error",
/// "Caused by:", indented causes) become causes joined by ": ".
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut push = |text: String| {
        for line in text.lines().map(str::trim) {
            let noise = line.is_empty() || line == "Caused by:" || line == "Validation Error";
            if !noise && !parts.iter().any(|p| p == line) {
                parts.push(line.to_owned());
            }
        }
    };
    push(e.to_string());
    let mut source = e.source();
    while let Some(s) = source {
        push(s.to_string());
        source = s.source();
    }
    parts.join(": ")
}
