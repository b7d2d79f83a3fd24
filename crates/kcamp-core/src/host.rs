//! An upper bound on what the machine kcamp runs on can compute, for the roofline floor of
//! measurements whose hardware nothing else names: a software adapter (it runs on these
//! CPUs) and a harness command on a machine with no GPU device (then only the CPUs can have
//! produced its numbers). The bound is deliberately generous — every logical CPU counted as
//! a core, a clock above any shipping part's boost, two FMA units of the widest vectors the
//! CPU has for the dtype — because the floor must never reject a time the hardware can
//! reach; it exists to catch numbers that are off by orders of magnitude (a harness that
//! cached its result, a timer that measured nothing).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::specs::{PeakValue, Registry};
use crate::types::Dtype;

/// Above the highest boost clock of any shipping CPU (about 6.2 GHz in 2024).
pub const CPU_CLOCK_BOUND_HZ: f64 = 6.5e9;

/// The source id the host bound's peaks carry.
pub const HOST_SOURCE: &str = "host-cpu-bound";

/// The vector units of this machine's CPUs that compute a campaign's dtypes: the widest
/// vectors with FMA on f32, and with arithmetic on f16.
///
/// Matrix units count only where they take the dtype itself: AMX has tiles of bf16 and
/// int8 and no f32 path, so `amx_bf16` raises no bound here. (AMX-FP16 would raise the f16
/// one, but std detects no AMX on stable Rust yet: such a CPU is bounded by its vectors.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuFeatures {
    /// Width in bits of the widest vectors with f32 FMA (AVX-512F: 512; AVX: 256).
    pub f32_vector_bits: u32,
    /// Width in bits of the widest vectors with f16 arithmetic (AVX512-FP16: 512); 0 when
    /// there are none and f16 is computed as f32.
    pub f16_vector_bits: u32,
}

impl CpuFeatures {
    /// The CPU this process runs on.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    pub fn detect() -> CpuFeatures {
        let f32_vector_bits = if is_x86_feature_detected!("avx512f") {
            512
        } else if is_x86_feature_detected!("avx") {
            256
        } else {
            128
        };
        CpuFeatures {
            f32_vector_bits,
            f16_vector_bits: if is_x86_feature_detected!("avx512fp16") {
                512
            } else {
                0
            },
        }
    }

    /// Elsewhere std tells no vector width (SVE's is chosen by the chip): 256-bit vectors of
    /// both dtypes are assumed.
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    pub fn detect() -> CpuFeatures {
        CpuFeatures {
            f32_vector_bits: 256,
            f16_vector_bits: 256,
        }
    }

    /// Lanes of `dtype` per vector: f16 runs in the f32 lanes where no vector computes it.
    pub fn lanes(&self, dtype: Dtype) -> u32 {
        let f32_lanes = self.f32_vector_bits / 32;
        match dtype {
            Dtype::F32 => f32_lanes,
            Dtype::F16 => (self.f16_vector_bits / 16).max(f32_lanes),
        }
    }
}

/// What this machine has, as far as the floor needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Logical CPUs (hyper-threads counted as cores: an over-estimate on purpose).
    pub logical_cpus: usize,
    /// The vector units of its CPUs.
    pub cpu: CpuFeatures,
    /// GPU device nodes found (`/dev/nvidia0`, `/dev/dri/renderD128`, ...), or the reason the
    /// platform cannot tell. Empty: this machine has no GPU.
    pub gpus: Vec<String>,
}

impl Host {
    /// The machine this process runs on.
    pub fn detect() -> Host {
        Host::from_parts(logical_cpus(), CpuFeatures::detect(), Path::new("/dev"))
    }

    /// A host of `logical_cpus` CPUs with `cpu`'s units and the devices under `dev` (tests
    /// give all three).
    pub fn from_parts(logical_cpus: usize, cpu: CpuFeatures, dev: &Path) -> Host {
        Host {
            logical_cpus: logical_cpus.max(1),
            cpu,
            gpus: gpu_devices(dev),
        }
    }

    /// FLOP per cycle per logical CPU, at most: two FMA units (two FLOP a lane each) of the
    /// widest vectors for `dtype`.
    pub fn flop_per_cycle(&self, dtype: Dtype) -> f64 {
        2.0 * 2.0 * f64::from(self.cpu.lanes(dtype))
    }

    /// The highest FLOP rate these CPUs can reach for `dtype`, with how it was bounded.
    pub fn cpu_peak(&self, dtype: Dtype) -> PeakValue {
        let per_cycle = self.flop_per_cycle(dtype);
        PeakValue {
            value: self.logical_cpus as f64 * CPU_CLOCK_BOUND_HZ * per_cycle,
            source: HOST_SOURCE.to_owned(),
            key: Some(format!(
                "{} logical CPUs × {} GHz × {per_cycle} {} FLOP/cycle",
                self.logical_cpus,
                CPU_CLOCK_BOUND_HZ / 1e9,
                dtype.as_str()
            )),
        }
    }

    /// Whether a GPU may have produced a measurement taken on this machine (else only the
    /// CPUs can have).
    pub fn has_gpu(&self) -> bool {
        !self.gpus.is_empty()
    }
}

/// A GPU something on the machine names: an adapter wgpu enumerates, or a line of a vendor's
/// tool (`nvidia-smi`, `rocm-smi`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedGpu {
    pub name: String,
    /// PCI vendor id (0x10de NVIDIA, 0x1002 AMD); 0 where the source does not say.
    pub vendor: u32,
    /// PCI device id; 0 where the source does not say.
    pub device: u32,
    /// What named it: `wgpu vulkan`, `nvidia-smi`, `rocm-smi`.
    pub source: String,
}

impl NamedGpu {
    /// `NVIDIA H200 (0x10de:0x2335, nvidia-smi)`.
    pub fn describe(&self) -> String {
        if self.vendor == 0 && self.device == 0 {
            format!("{} ({})", self.name, self.source)
        } else {
            format!(
                "{} ({:#06x}:{:#06x}, {})",
                self.name, self.vendor, self.device, self.source
            )
        }
    }
}

/// The hardware a harness ran on, as kcamp found it on that machine: the GPUs wgpu and the
/// vendors' tools name, the GPU device nodes, and the `assets/gpu_specs.yaml` entries the
/// named GPUs match. Recorded in the measurement's fingerprint; the roofline floor of the
/// harness's rows comes from it unless the manifest names `target_gpu`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hardware {
    /// Hardware GPUs named (software adapters left out: they run on the CPUs).
    pub gpus: Vec<NamedGpu>,
    /// GPU device nodes (`/dev/nvidia0`, `/dev/dri/renderD128`, ...).
    pub device_nodes: Vec<String>,
    /// Ids of the registry entries the named GPUs match, each once, in the order found.
    pub identified: Vec<String>,
    /// The harness ran on another machine (a Slurm node), named here: this one's hardware
    /// says nothing of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<String>,
}

impl Hardware {
    /// Matches `gpus` (software adapters dropped, duplicates by name kept once per source)
    /// against `registry`.
    pub fn identify(gpus: Vec<NamedGpu>, device_nodes: Vec<String>, registry: &Registry) -> Self {
        let mut kept: Vec<NamedGpu> = Vec::new();
        let mut identified: Vec<String> = Vec::new();
        for gpu in gpus {
            let spec = registry.gpus.iter().find(|g| g.matches_adapter(&gpu.name));
            if spec.is_some_and(|g| g.software) || kept.contains(&gpu) {
                continue;
            }
            if let Some(g) = spec
                && !identified.contains(&g.id)
            {
                identified.push(g.id.clone());
            }
            kept.push(gpu);
        }
        Hardware {
            gpus: kept,
            device_nodes,
            identified,
            elsewhere: None,
        }
    }

    /// A harness that ran on `machine`, not here: nothing of it is known.
    pub fn elsewhere(machine: impl Into<String>) -> Self {
        Hardware {
            elsewhere: Some(machine.into()),
            ..Hardware::default()
        }
    }

    /// Whether a GPU may have produced a measurement on this machine: one is named, or a
    /// device node exists.
    pub fn has_gpu(&self) -> bool {
        // Another machine may have any GPU.
        !self.gpus.is_empty() || !self.device_nodes.is_empty() || self.elsewhere.is_some()
    }

    /// The named GPUs no registry entry matches.
    pub fn unidentified(&self, registry: &Registry) -> Vec<&NamedGpu> {
        self.gpus
            .iter()
            .filter(|g| !registry.gpus.iter().any(|s| s.matches_adapter(&g.name)))
            .collect()
    }

    /// What was found, for a message: the named GPUs, else the device nodes, else "no GPU".
    pub fn describe(&self) -> String {
        if let Some(machine) = &self.elsewhere {
            format!("ran on {machine}, not this machine")
        } else if !self.gpus.is_empty() {
            self.gpus
                .iter()
                .map(NamedGpu::describe)
                .collect::<Vec<_>>()
                .join(", ")
        } else if !self.device_nodes.is_empty() {
            self.device_nodes.join(", ")
        } else {
            "no GPU".to_owned()
        }
    }
}

/// Every CPU the kernel knows of, online or not (`/sys/devices/system/cpu/cpuN`), or the
/// CPUs this process may run on if more. Not only the latter: a CPU quota or an affinity
/// mask narrows what this process is given, not what a harness it starts can burst to.
fn logical_cpus() -> usize {
    let given = std::thread::available_parallelism().map_or(1, usize::from);
    let known = std::fs::read_dir("/sys/devices/system/cpu").map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| {
                e.file_name().to_str().is_some_and(|n| {
                    n.strip_prefix("cpu")
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
            })
            .count()
    });
    given.max(known)
}

/// GPU device nodes under `dev`. Off Linux there is no such listing, and a GPU is assumed.
fn gpu_devices(dev: &Path) -> Vec<String> {
    if !cfg!(target_os = "linux") {
        return vec!["(this platform lists no GPU device nodes: a GPU is assumed)".into()];
    }
    let mut found = Vec::new();
    let mut scan = |dir: PathBuf, wanted: &dyn Fn(&str) -> bool| {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if wanted(&name) {
                    found.push(dir.join(name).display().to_string());
                }
            }
        }
    };
    // NVIDIA (`nvidia0`, not `nvidiactl`), DRM render/card nodes (AMD, Intel, any Mesa
    // driver), AMD's compute node, WSL's GPU, compute accelerators.
    scan(dev.to_path_buf(), &|n| {
        n.strip_prefix("nvidia")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            || n == "kfd"
            || n == "dxg"
    });
    scan(dev.join("dri"), &|n| {
        n.starts_with("renderD") || n.starts_with("card")
    });
    scan(dev.join("accel"), &|n| n.starts_with("accel"));
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const AVX512_FP16: CpuFeatures = CpuFeatures {
        f32_vector_bits: 512,
        f16_vector_bits: 512,
    };

    #[test]
    fn two_avx512_cpus_bound_f32_at_under_a_teraflop_and_f16_at_twice_that() {
        let dev = tempfile::tempdir().unwrap();
        let h = Host::from_parts(2, AVX512_FP16, dev.path());
        assert_eq!(h.cpu_peak(Dtype::F32).value, 2.0 * 6.5e9 * 64.0);
        assert_eq!(h.cpu_peak(Dtype::F16).value, 2.0 * 6.5e9 * 128.0);
        // A harness claiming 52 TFLOP/s on such a machine claims the impossible.
        assert!(h.cpu_peak(Dtype::F32).value < 1e12);
        assert_eq!(
            h.cpu_peak(Dtype::F32).key.as_deref(),
            Some("2 logical CPUs × 6.5 GHz × 64 f32 FLOP/cycle")
        );
    }

    #[test]
    fn f16_without_f16_vectors_runs_in_the_f32_lanes() {
        let dev = tempfile::tempdir().unwrap();
        let avx2 = Host::from_parts(
            1,
            CpuFeatures {
                f32_vector_bits: 256,
                f16_vector_bits: 0,
            },
            dev.path(),
        );
        assert_eq!(avx2.flop_per_cycle(Dtype::F32), 32.0);
        assert_eq!(avx2.flop_per_cycle(Dtype::F16), 32.0);
        // No CPU counted: one is.
        assert_eq!(Host::from_parts(0, AVX512_FP16, dev.path()).logical_cpus, 1);
    }

    #[test]
    fn this_machine_counts_at_least_what_it_is_given() {
        let h = Host::detect();
        assert!(h.logical_cpus >= std::thread::available_parallelism().map_or(1, usize::from));
        // x86-64 always has SSE2's 128-bit vectors.
        #[cfg(target_arch = "x86_64")]
        assert!(h.cpu.f32_vector_bits >= 128, "{h:?}");
    }

    fn named(name: &str, source: &str) -> NamedGpu {
        NamedGpu {
            name: name.into(),
            vendor: 0x10de,
            device: 0x2335,
            source: source.into(),
        }
    }

    #[test]
    fn named_gpus_are_matched_to_the_registry_and_software_adapters_dropped() {
        let registry = Registry::builtin().unwrap();
        let hw = Hardware::identify(
            vec![
                named("llvmpipe (LLVM 15.0.6, 256 bits)", "wgpu vulkan"),
                named("NVIDIA H200", "wgpu vulkan"),
                named("NVIDIA H200", "nvidia-smi"),
                named("NVIDIA H200", "nvidia-smi"),
                named("Matrox G200eW3", "wgpu gl"),
            ],
            vec!["/dev/nvidia0".into()],
            &registry,
        );
        assert_eq!(hw.identified, ["h200"]);
        assert_eq!(hw.gpus.len(), 3, "{hw:?}");
        assert!(hw.has_gpu());
        let others: Vec<&str> = hw
            .unidentified(&registry)
            .iter()
            .map(|g| g.name.as_str())
            .collect();
        assert_eq!(others, ["Matrox G200eW3"]);
        assert!(
            hw.describe()
                .starts_with("NVIDIA H200 (0x10de:0x2335, wgpu vulkan), NVIDIA H200"),
            "{}",
            hw.describe()
        );
        // A device node and nothing named: a GPU, not identified.
        let hw = Hardware::identify(Vec::new(), vec!["/dev/nvidia0".into()], &registry);
        assert!(hw.has_gpu() && hw.identified.is_empty());
        assert_eq!(hw.describe(), "/dev/nvidia0");
        assert_eq!(Hardware::default().describe(), "no GPU");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn gpu_device_nodes_are_found_and_control_nodes_are_not() {
        let dev = tempfile::tempdir().unwrap();
        let touch = |p: &str| {
            let p = dev.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        };
        touch("nvidiactl");
        touch("nvidia-uvm");
        touch("null");
        assert!(!Host::from_parts(1, AVX512_FP16, dev.path()).has_gpu());
        touch("nvidia0");
        touch("dri/renderD128");
        let h = Host::from_parts(1, AVX512_FP16, dev.path());
        assert_eq!(h.gpus.len(), 2, "{:?}", h.gpus);
        assert!(h.gpus[0].ends_with("dri/renderD128") && h.gpus[1].ends_with("nvidia0"));
    }
}
