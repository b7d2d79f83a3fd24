//! An upper bound on what the machine kcamp runs on can compute, for the roofline floor of
//! measurements whose hardware nothing else names: a software adapter (it runs on these
//! CPUs) and a harness command on a machine with no GPU device (then only the CPUs can have
//! produced its numbers). The bound is deliberately generous — every logical CPU counted as
//! a core, a clock above any shipping part's boost, the widest vector or matrix unit the
//! CPU advertises — because the floor must never reject a time the hardware can reach; it
//! exists to catch numbers that are off by orders of magnitude (a harness that cached its
//! result, a timer that measured nothing).

use std::path::{Path, PathBuf};

use crate::specs::PeakValue;
use crate::types::Dtype;

/// Above the highest boost clock of any shipping CPU (about 6.2 GHz in 2024).
pub const CPU_CLOCK_BOUND_HZ: f64 = 6.5e9;

/// The source id the host bound's peaks carry.
pub const HOST_SOURCE: &str = "host-cpu-bound";

/// What this machine has, as far as the floor needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Logical CPUs (hyper-threads counted as cores: an over-estimate on purpose).
    pub logical_cpus: usize,
    /// The CPU advertises AVX-512 (two 16-lane FMA units per core at most).
    pub avx512: bool,
    /// The CPU advertises AMX tiles (matrix units: far more FLOP per cycle).
    pub amx: bool,
    /// GPU device nodes found (`/dev/nvidia0`, `/dev/dri/renderD128`, ...), or the reason the
    /// platform cannot tell. Empty: this machine has no GPU.
    pub gpus: Vec<String>,
}

impl Host {
    /// The machine this process runs on.
    pub fn detect() -> Host {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Host::from_parts(&cpuinfo, Path::new("/dev"))
    }

    /// A host described by a `/proc/cpuinfo` text and a `/dev` directory (tests give both).
    pub fn from_parts(cpuinfo: &str, dev: &Path) -> Host {
        let listed = cpuinfo
            .lines()
            .filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor"))
            .count();
        let parallelism = std::thread::available_parallelism().map_or(1, usize::from);
        let flags: Vec<&str> = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, f)| f.split_whitespace().collect())
            .unwrap_or_default();
        Host {
            logical_cpus: listed.max(parallelism),
            avx512: flags.contains(&"avx512f"),
            amx: flags.iter().any(|f| f.starts_with("amx_")),
            gpus: gpu_devices(dev),
        }
    }

    /// FLOP per cycle per logical CPU, at most: two FMA units of the widest vectors (or the
    /// AMX tile unit) on every logical CPU.
    pub fn flop_per_cycle(&self, dtype: Dtype) -> f64 {
        // AMX-FP16/BF16: 1024 FLOP/cycle per core; an f32 campaign may route through it
        // as TF32 routes through tensor cores, so it bounds both.
        if self.amx {
            return 2048.0;
        }
        // Lanes of f32 per FMA unit; f16 arithmetic (AVX512-FP16) doubles them.
        let lanes = if self.avx512 { 16.0 } else { 8.0 };
        let per_fma = match dtype {
            Dtype::F32 => lanes,
            Dtype::F16 => lanes * 2.0,
        };
        2.0 * 2.0 * per_fma
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

    const TWO_AVX512: &str = "processor\t: 0\nflags\t\t: fpu avx2 fma avx512f avx512_fp16\n\nprocessor\t: 1\nflags\t\t: fpu avx2 fma avx512f avx512_fp16\n";

    #[test]
    fn two_avx512_cpus_bound_f32_at_under_a_teraflop_and_f16_at_twice_that() {
        let dev = tempfile::tempdir().unwrap();
        let h = Host::from_parts(TWO_AVX512, dev.path());
        assert!(h.logical_cpus >= 2 && h.avx512 && !h.amx, "{h:?}");
        let n = h.logical_cpus as f64;
        assert_eq!(h.cpu_peak(Dtype::F32).value, n * 6.5e9 * 64.0);
        assert_eq!(h.cpu_peak(Dtype::F16).value, n * 6.5e9 * 128.0);
        // Case 6 of the like-for-like issue: 52 TFLOP/s on such a machine is impossible.
        if h.logical_cpus == 2 {
            assert!(h.cpu_peak(Dtype::F32).value < 1e12);
        }
        assert_eq!(
            h.cpu_peak(Dtype::F32).key.as_deref(),
            Some(
                format!(
                    "{} logical CPUs × 6.5 GHz × 64 f32 FLOP/cycle",
                    h.logical_cpus
                )
                .as_str()
            )
        );
    }

    #[test]
    fn amx_and_plain_avx2_change_the_bound() {
        let dev = tempfile::tempdir().unwrap();
        let amx = Host::from_parts(
            "processor : 0\nflags : avx512f amx_tile amx_bf16\n",
            dev.path(),
        );
        assert_eq!(amx.flop_per_cycle(Dtype::F32), 2048.0);
        let avx2 = Host::from_parts("processor : 0\nflags : avx2 fma\n", dev.path());
        assert_eq!(avx2.flop_per_cycle(Dtype::F32), 32.0);
        // No cpuinfo at all: the thread count still bounds it.
        let bare = Host::from_parts("", dev.path());
        assert!(bare.logical_cpus >= 1);
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
        assert!(!Host::from_parts("", dev.path()).has_gpu());
        touch("nvidia0");
        touch("dri/renderD128");
        let h = Host::from_parts("", dev.path());
        assert_eq!(h.gpus.len(), 2, "{:?}", h.gpus);
        assert!(h.gpus[0].ends_with("dri/renderD128") && h.gpus[1].ends_with("nvidia0"));
    }
}
