//! What kcamp reports about an adapter (`kcamp adapters`, result.json).

use serde::{Deserialize, Serialize};

use kcamp_core::manifest::AdapterSelector;
use kcamp_core::types::{AdapterDescription, AdapterLimits};
use kcamp_core::{Error, Result};

/// Features of an adapter that decide which kernels can run and how they are timed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterFeatures {
    pub timestamp_query: bool,
    pub timestamp_query_inside_passes: bool,
    pub shader_f16: bool,
    pub subgroup: bool,
    pub subgroup_min_size: u32,
    pub subgroup_max_size: u32,
    /// wgpu's `EXPERIMENTAL_COOPERATIVE_MATRIX` (`enable wgpu_cooperative_matrix;`).
    pub cooperative_matrix: bool,
    pub cooperative_matrix_configs: Vec<CooperativeMatrixConfig>,
}

/// One supported cooperative-matrix configuration (M×N×K tile, input and accumulator types).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CooperativeMatrixConfig {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ab_type: String,
    pub cr_type: String,
    pub saturating_accumulation: bool,
}

/// Compute limits of an adapter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputeLimits {
    pub max_compute_workgroup_storage_size: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_size_x: u32,
    pub max_compute_workgroup_size_y: u32,
    pub max_compute_workgroup_size_z: u32,
    pub max_compute_workgroups_per_dimension: u32,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
}

impl ComputeLimits {
    pub(crate) fn from_limits(l: &wgpu::Limits) -> Self {
        ComputeLimits {
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_compute_workgroup_size_y: l.max_compute_workgroup_size_y,
            max_compute_workgroup_size_z: l.max_compute_workgroup_size_z,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_buffer_size: l.max_buffer_size,
        }
    }
}

/// One adapter as `kcamp adapters` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub vendor: u32,
    pub device: u32,
    pub software: bool,
    /// Where the driver reports it (`0000:41:00.0`), else empty: what tells identical GPUs
    /// of one host apart.
    #[serde(default)]
    pub pci_bus_id: String,
    pub features: AdapterFeatures,
    pub limits: ComputeLimits,
}

impl AdapterReport {
    pub(crate) fn from_adapter(adapter: &wgpu::Adapter) -> Self {
        let info = adapter.get_info();
        let f = adapter.features();
        let cooperative_matrix = f.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        let cooperative_matrix_configs = if cooperative_matrix {
            adapter
                .cooperative_matrix_properties()
                .into_iter()
                .map(|p| CooperativeMatrixConfig {
                    m: p.m_size,
                    n: p.n_size,
                    k: p.k_size,
                    ab_type: format!("{:?}", p.ab_type).to_lowercase(),
                    cr_type: format!("{:?}", p.cr_type).to_lowercase(),
                    saturating_accumulation: p.saturating_accumulation,
                })
                .collect()
        } else {
            Vec::new()
        };
        let subgroup = f.contains(wgpu::Features::SUBGROUP);
        AdapterReport {
            name: info.name.clone(),
            backend: info.backend.to_str().to_owned(),
            device_type: device_type_name(info.device_type).to_owned(),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            vendor: info.vendor,
            device: info.device,
            software: is_software(&info),
            pci_bus_id: info.device_pci_bus_id.clone(),
            features: AdapterFeatures {
                timestamp_query: f.contains(wgpu::Features::TIMESTAMP_QUERY),
                timestamp_query_inside_passes: f
                    .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
                shader_f16: f.contains(wgpu::Features::SHADER_F16),
                subgroup,
                subgroup_min_size: if subgroup { info.subgroup_min_size } else { 0 },
                subgroup_max_size: if subgroup { info.subgroup_max_size } else { 0 },
                cooperative_matrix,
                cooperative_matrix_configs,
            },
            limits: ComputeLimits::from_limits(&adapter.limits()),
        }
    }

    pub fn description(&self) -> AdapterDescription {
        AdapterDescription {
            name: self.name.clone(),
            backend: self.backend.clone(),
            device_type: self.device_type.clone(),
            driver: self.driver.clone(),
            driver_info: self.driver_info.clone(),
            vendor: self.vendor,
            device: self.device,
            software: self.software,
            wgpu_version: crate::WGPU_VERSION.to_owned(),
            limits: AdapterLimits {
                max_workgroup_storage_bytes: u64::from(
                    self.limits.max_compute_workgroup_storage_size,
                ),
                max_invocations_per_workgroup: self.limits.max_compute_invocations_per_workgroup,
                subgroup_size: self.features.subgroup_max_size.max(1),
            },
        }
    }

    /// Whether the adapter matches a selector (name substring, case-insensitive; backend).
    pub fn matches(&self, sel: &AdapterSelector) -> Result<bool> {
        if let Some(b) = &sel.backend
            && parse_backend(b)?.to_str() != self.backend
        {
            return Ok(false);
        }
        Ok(match &sel.name {
            Some(n) => self.name.to_lowercase().contains(&n.to_lowercase()),
            None => true,
        })
    }

    /// One line for error messages: `name (backend, device type)`.
    pub fn summary(&self) -> String {
        format!("{} ({}, {})", self.name, self.backend, self.device_type)
    }
}

/// `vulkan`, `metal`, `dx12` or `gl` (a few common spellings accepted).
pub fn parse_backend(s: &str) -> Result<wgpu::Backend> {
    match s.trim().to_lowercase().as_str() {
        "vulkan" | "vk" => Ok(wgpu::Backend::Vulkan),
        "metal" | "mtl" => Ok(wgpu::Backend::Metal),
        "dx12" | "d3d12" => Ok(wgpu::Backend::Dx12),
        "gl" | "gles" | "opengl" => Ok(wgpu::Backend::Gl),
        other => Err(Error::input(format!(
            "unknown backend '{other}' (expected vulkan, metal, dx12 or gl)"
        ))),
    }
}

fn device_type_name(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete_gpu",
        wgpu::DeviceType::IntegratedGpu => "integrated_gpu",
        wgpu::DeviceType::VirtualGpu => "virtual_gpu",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

/// CPU adapters and the known software rasterizers.
pub(crate) fn is_software(info: &wgpu::AdapterInfo) -> bool {
    let name = info.name.to_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || ["llvmpipe", "lavapipe", "swiftshader", "warp"]
            .iter()
            .any(|s| name.contains(s))
}

/// Preference among several matching adapters: real GPUs first, then the native backends.
pub(crate) fn preference(report: &AdapterReport) -> (u8, u8) {
    let device = match report.device_type.as_str() {
        "discrete_gpu" => 0,
        "integrated_gpu" => 1,
        "virtual_gpu" => 2,
        "cpu" => 3,
        _ => 4,
    };
    let backend = match report.backend.as_str() {
        "vulkan" | "metal" | "dx12" => 0,
        _ => 1,
    };
    (device, backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_and_unknown_ones_are_named() {
        assert_eq!(parse_backend("Vulkan").unwrap(), wgpu::Backend::Vulkan);
        assert_eq!(parse_backend("gles").unwrap(), wgpu::Backend::Gl);
        let err = parse_backend("cuda").unwrap_err().to_string();
        assert!(err.contains("'cuda'"), "{err}");
    }
}
