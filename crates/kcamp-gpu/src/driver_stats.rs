//! What the driver made of a kernel: the statistics a Vulkan driver reports for a compiled
//! pipeline through `VK_KHR_pipeline_executable_properties` (NVIDIA: registers per
//! invocation, code size, ...). wgpu neither enables the extension nor creates pipelines
//! with `CAPTURE_STATISTICS`, so a second device with the extension is opened on the same
//! adapter through wgpu-hal, and the kernel is compiled there once more from the SPIR-V naga
//! writes with the options wgpu uses for the timed pipeline (the kernel's runtime-checks
//! mode, zero-initialized workgroup memory, robust buffer access where the device has it).
//! The timed device and its pipelines are never touched.

use std::ffi::CStr;

use ash::vk;
use wgpu::hal::api::Vulkan;
use wgpu::naga;

use kcamp_core::isa::{DriverExecutable, DriverStatistic, DriverStatistics, StatisticValue};
use kcamp_core::types::RuntimeChecks;

use crate::GpuContext;

const EXTENSION: &CStr = ash::khr::pipeline_executable_properties::NAME;

/// The driver's statistics of `entry` in `source`, compiled as the timed pipeline is.
/// `Ok(None)`: the adapter cannot report them (not Vulkan, or no extension: lavapipe).
pub(crate) fn capture(
    ctx: &GpuContext,
    source: &str,
    entry: &str,
    mode: RuntimeChecks,
) -> Result<Option<DriverStatistics>, String> {
    // SAFETY: the hal adapter is only read here and used to open a device of our own; the
    // guard is dropped before anything else touches the adapter.
    let Some(hal) = (unsafe { ctx.adapter.as_hal::<Vulkan>() }) else {
        return Ok(None);
    };
    let capabilities = hal.physical_device_capabilities();
    if !capabilities.supports_extension(EXTENSION) {
        return Ok(None);
    }
    let api_version = capabilities.properties().api_version;
    let mut wanted = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let wanted_ref = &mut wanted;
    let callback: Box<wgpu::hal::vulkan::CreateDeviceCallback<'_>> = Box::new(move |args| {
        args.extensions.push(EXTENSION);
        let info = std::mem::take(args.create_info);
        *args.create_info = info.push_next(wanted_ref);
    });
    // SAFETY: the callback only adds an extension the adapter supports and its feature
    // struct; features and limits are the ones the timed device was opened with.
    let open = unsafe {
        hal.open_with_callback(
            ctx.features,
            &ctx.limits,
            &wgpu::MemoryHints::Performance,
            Some(callback),
        )
    }
    .map_err(|e| format!("opening a device with {}: {e}", EXTENSION.to_string_lossy()))?;
    let device = open.device.raw_device();
    let robust_buffers = open
        .device
        .enabled_device_extensions()
        .contains(&ash::ext::robustness2::NAME);
    let spirv = spirv(source, entry, mode, api_version, robust_buffers)?;
    let properties = ash::khr::pipeline_executable_properties::Device::new(
        hal.shared_instance().raw_instance(),
        device,
    );
    let subgroups = ctx.features.contains(wgpu::Features::SUBGROUP);
    // SAFETY: every object is created on `device`, used only here, and destroyed before
    // the device (dropped with `open` at the end of this function).
    let statistics = unsafe { compile_and_ask(device, &properties, &spirv, entry, subgroups) };
    drop(open);
    statistics.map(Some)
}

/// The SPIR-V of `entry`, written as wgpu-hal's Vulkan backend writes it for the mode.
fn spirv(
    source: &str,
    entry: &str,
    mode: RuntimeChecks,
    api_version: u32,
    robust_buffers: bool,
) -> Result<(Vec<u32>, Vec<Binding>), String> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.message().to_owned())?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.as_inner().to_string())?;
    let checked = mode != RuntimeChecks::None;
    let policy = |on: bool| {
        if on {
            BoundsCheckPolicy::Restrict
        } else {
            BoundsCheckPolicy::Unchecked
        }
    };
    let options = spv::Options {
        lang_version: match (
            vk::api_version_major(api_version),
            vk::api_version_minor(api_version),
        ) {
            (1, 0) => (1, 0),
            (1, 1) => (1, 3),
            (1, 2) => (1, 5),
            _ => (1, 6),
        },
        flags: spv::WriterFlags::empty(),
        bounds_check_policies: BoundsCheckPolicies {
            index: policy(checked),
            // wgpu leaves buffer accesses to the device's robust buffer access where it has
            // robustness2, as the timed pipeline does.
            buffer: policy(checked && !robust_buffers),
            image_load: policy(checked),
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: if vk::api_version_minor(api_version) >= 3 {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        },
        force_loop_bounding: mode == RuntimeChecks::Full,
        emit_int_div_checks: checked,
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        entry_point: entry.to_owned(),
        shader_stage: naga::ShaderStage::Compute,
    };
    let words =
        spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| e.to_string())?;
    let bindings = module
        .global_variables
        .iter()
        .filter_map(|(_, var)| {
            let binding = var.binding.as_ref()?;
            let kind = match var.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                _ => return None,
            };
            Some(Binding {
                group: binding.group,
                binding: binding.binding,
                kind,
            })
        })
        .collect();
    Ok((words, bindings))
}

/// A buffer the kernel declares, for the pipeline layout.
struct Binding {
    group: u32,
    binding: u32,
    kind: vk::DescriptorType,
}

/// Compiles the pipeline with statistics captured and reads them.
///
/// # Safety
/// `device` must be a live device with the pipeline-executable-properties extension and
/// feature enabled, and `properties` loaded for it.
unsafe fn compile_and_ask(
    device: &ash::Device,
    properties: &ash::khr::pipeline_executable_properties::Device,
    (words, bindings): &(Vec<u32>, Vec<Binding>),
    entry: &str,
    subgroups: bool,
) -> Result<DriverStatistics, String> {
    let module = unsafe {
        device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
    }
    .map_err(vk_err("creating the shader module"))?;
    let groups = bindings.iter().map(|b| b.group + 1).max().unwrap_or(0);
    let mut set_layouts = Vec::new();
    for group in 0..groups {
        let entries: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .filter(|b| b.group == group)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(b.kind)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        match unsafe {
            device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries),
                None,
            )
        } {
            Ok(layout) => set_layouts.push(layout),
            Err(e) => {
                unsafe { destroy(device, module, &set_layouts, None, None) };
                return Err(format!("creating a descriptor set layout: {e}"));
            }
        }
    }
    let layout = match unsafe {
        device.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
            None,
        )
    } {
        Ok(layout) => layout,
        Err(e) => {
            unsafe { destroy(device, module, &set_layouts, None, None) };
            return Err(format!("creating the pipeline layout: {e}"));
        }
    };
    let name =
        std::ffi::CString::new(entry).map_err(|_| "entry point name with a NUL".to_owned())?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .flags(if subgroups {
            vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE
        } else {
            vk::PipelineShaderStageCreateFlags::empty()
        })
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(&name);
    let ir_dir = std::env::var_os(IR_DIR_ENV).map(std::path::PathBuf::from);
    let mut flags = vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
    if ir_dir.is_some() {
        flags |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
    }
    let create = vk::ComputePipelineCreateInfo::default()
        .flags(flags)
        .stage(stage)
        .layout(layout);
    let pipeline = match unsafe {
        device.create_compute_pipelines(vk::PipelineCache::null(), &[create], None)
    } {
        Ok(p) => p[0],
        Err((_, e)) => {
            unsafe { destroy(device, module, &set_layouts, Some(layout), None) };
            return Err(format!("compiling the pipeline: {e}"));
        }
    };
    let read = || -> Result<Vec<DriverExecutable>, String> {
        let executables = unsafe {
            properties.get_pipeline_executable_properties(
                &vk::PipelineInfoKHR::default().pipeline(pipeline),
            )
        }
        .map_err(vk_err("reading the pipeline's executables"))?;
        let mut out = Vec::with_capacity(executables.len());
        for (index, exe) in executables.iter().enumerate() {
            let info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(index as u32);
            let stats = unsafe { properties.get_pipeline_executable_statistics(&info) }
                .map_err(vk_err("reading the executable's statistics"))?;
            if let Some(dir) = &ir_dir {
                unsafe { write_representations(properties, &info, dir, entry, index) }?;
            }
            out.push(DriverExecutable {
                name: text(exe.name_as_c_str()),
                description: text(exe.description_as_c_str()),
                subgroup_size: exe.subgroup_size,
                statistics: stats
                    .iter()
                    .map(|s| DriverStatistic {
                        name: text(s.name_as_c_str()),
                        description: text(s.description_as_c_str()),
                        value: value(s),
                    })
                    .collect(),
            });
        }
        Ok(out)
    };
    let executables = read();
    unsafe { destroy(device, module, &set_layouts, Some(layout), Some(pipeline)) };
    Ok(DriverStatistics {
        error: None,
        aligned: None,
        entry_point: entry.to_owned(),
        executables: executables?,
    })
}

/// Where the driver's internal representations of each compiled entry point are written
/// (`<entry>-<executable>-<name>.txt`), when set: whatever the driver offers (Mesa drivers
/// give their IR; others may give none). A diagnostic switch, not part of any result.
pub const IR_DIR_ENV: &str = "KCAMP_DRIVER_IR_DIR";

/// Writes the executable's internal representations into `dir`.
///
/// # Safety
/// `info` must name a live pipeline created with `CAPTURE_INTERNAL_REPRESENTATIONS`.
unsafe fn write_representations(
    properties: &ash::khr::pipeline_executable_properties::Device,
    info: &vk::PipelineExecutableInfoKHR<'_>,
    dir: &std::path::Path,
    entry: &str,
    index: usize,
) -> Result<(), String> {
    // Two calls: the sizes first, then the text into buffers of those sizes.
    let mut reps = unsafe { properties.get_pipeline_executable_internal_representations(info) }
        .map_err(vk_err("reading the executable's internal representations"))?;
    let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
    for (r, b) in reps.iter_mut().zip(&mut buffers) {
        r.p_data = b.as_mut_ptr().cast();
    }
    let mut count = reps.len() as u32;
    let fp = properties
        .fp()
        .get_pipeline_executable_internal_representations_khr;
    let result = unsafe { fp(properties.device(), info, &mut count, reps.as_mut_ptr()) };
    if result != vk::Result::SUCCESS && result != vk::Result::INCOMPLETE {
        return Err(format!(
            "reading the executable's internal representations: {result}"
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (r, b) in reps.iter().zip(&buffers).take(count as usize) {
        let name: String = text(r.name_as_c_str())
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = dir.join(format!("{entry}-{index}-{name}.txt"));
        let data = &b[..r.data_size.min(b.len())];
        let data = data.strip_suffix(&[0]).unwrap_or(data);
        std::fs::write(&path, data).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// A Vulkan error, with what was being done.
fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e}")
}

/// # Safety
/// The objects must belong to `device` and be unused.
unsafe fn destroy(
    device: &ash::Device,
    module: vk::ShaderModule,
    set_layouts: &[vk::DescriptorSetLayout],
    layout: Option<vk::PipelineLayout>,
    pipeline: Option<vk::Pipeline>,
) {
    unsafe {
        if let Some(p) = pipeline {
            device.destroy_pipeline(p, None);
        }
        if let Some(l) = layout {
            device.destroy_pipeline_layout(l, None);
        }
        for l in set_layouts {
            device.destroy_descriptor_set_layout(*l, None);
        }
        device.destroy_shader_module(module, None);
    }
}

fn text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn value(s: &vk::PipelineExecutableStatisticKHR<'_>) -> StatisticValue {
    // SAFETY: `format` says which member of the union the driver wrote.
    unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                StatisticValue::Bool(s.value.b32 != vk::FALSE)
            }
            vk::PipelineExecutableStatisticFormatKHR::INT64 => StatisticValue::Signed(s.value.i64),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                StatisticValue::Unsigned(s.value.u64)
            }
            _ => StatisticValue::Float(s.value.f64),
        }
    }
}
