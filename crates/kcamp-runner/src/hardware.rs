//! The hardware a harness runs on: the GPUs wgpu enumerates on this machine (given by the
//! binary, which links wgpu), those `nvidia-smi` and `rocm-smi` name where they are
//! installed, and the GPU device nodes; matched to the GPU registry by kcamp-core. A tool
//! that is absent, fails or hangs names nothing: most machines have one vendor's tool or
//! none.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kcamp_core::host::{Hardware, Host, NamedGpu};
use kcamp_core::specs::Registry;
use kcamp_core::types::AdapterDescription;

use crate::lifeline::die_with_parent;

/// The adapters wgpu enumerates on this machine, when asked (the binary's
/// `kcamp_gpu::list_adapters`; kcamp-runner does not link wgpu).
#[derive(Clone)]
pub struct AdapterProbe(pub Arc<dyn Fn() -> Vec<AdapterDescription> + Send + Sync>);

impl std::fmt::Debug for AdapterProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdapterProbe")
    }
}

/// How long a vendor's tool may take to answer (a wedged driver can make it hang).
const TOOL_LIMIT: Duration = Duration::from_secs(10);

/// This machine's hardware, matched to the built-in registry.
pub fn detect(adapters: Option<&AdapterProbe>) -> Hardware {
    let mut gpus: Vec<NamedGpu> = adapters
        .map(|probe| (probe.0)())
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !a.software)
        .map(|a| NamedGpu {
            name: a.name,
            vendor: a.vendor,
            device: a.device,
            source: format!("wgpu {}", a.backend),
        })
        .collect();
    if let Some(out) = run_tool(
        "nvidia-smi",
        &["--query-gpu=name,pci.device_id", "--format=csv,noheader"],
    ) {
        gpus.extend(parse_nvidia_smi(&out));
    }
    if let Some(out) = run_tool("rocm-smi", &["--showproductname", "--json"]) {
        gpus.extend(parse_rocm_smi(&out));
    }
    let registry = Registry::builtin().unwrap_or(Registry {
        sources: Default::default(),
        gpus: Vec::new(),
    });
    Hardware::identify(gpus, Host::detect().gpus, &registry)
}

/// The standard output of `program args` when it runs and exits 0 within [`TOOL_LIMIT`];
/// None when it is not installed, fails or hangs (then it is killed).
fn run_tool(program: &str, args: &[&str]) -> Option<String> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    die_with_parent(&mut command);
    let mut child = command.spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    // Read while it runs, so a long answer cannot fill the pipe and stall it.
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).ok().map(|_| text)
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < TOOL_LIMIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = reader.join().ok().flatten();
    status.filter(|s| s.success()).and(text)
}

/// `NVIDIA H200, 0x233510DE` lines: the name, and the PCI id whose high half is the device
/// and low half the vendor.
fn parse_nvidia_smi(out: &str) -> Vec<NamedGpu> {
    out.lines()
        .filter_map(|line| {
            let (name, id) = line.rsplit_once(',')?;
            let name = name.trim();
            if name.is_empty() {
                return None;
            }
            let id = u32::from_str_radix(id.trim().trim_start_matches("0x"), 16).unwrap_or(0);
            Some(NamedGpu {
                name: name.to_owned(),
                vendor: id & 0xffff,
                device: id >> 16,
                source: "nvidia-smi".to_owned(),
            })
        })
        .collect()
}

/// `rocm-smi --showproductname --json`: an object per card, whose "Card Series" (or
/// "Card series") is the product name and "Card Model" (or "Device ID") the PCI device id.
fn parse_rocm_smi(out: &str) -> Vec<NamedGpu> {
    let Ok(serde_json::Value::Object(cards)) = serde_json::from_str::<serde_json::Value>(out)
    else {
        return Vec::new();
    };
    let field = |card: &serde_json::Map<String, serde_json::Value>, names: &[&str]| {
        card.iter()
            .find(|(k, _)| names.iter().any(|n| k.eq_ignore_ascii_case(n)))
            .and_then(|(_, v)| v.as_str())
            .map(|s| s.trim().to_owned())
    };
    cards
        .values()
        .filter_map(|card| {
            let card = card.as_object()?;
            let name = field(card, &["Card Series", "Card SKU", "Marketing Name"])
                .filter(|n| !n.is_empty())?;
            let device = field(card, &["Card Model", "Device ID"])
                .and_then(|d| u32::from_str_radix(d.trim_start_matches("0x"), 16).ok())
                .unwrap_or(0);
            Some(NamedGpu {
                name,
                vendor: 0x1002,
                device,
                source: "rocm-smi".to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvidia_smi_lines_give_name_vendor_and_device() {
        let gpus = parse_nvidia_smi("NVIDIA H200, 0x233510DE\nNVIDIA H200, 0x233510DE\n\n");
        assert_eq!(gpus.len(), 2);
        assert_eq!(
            (gpus[0].name.as_str(), gpus[0].vendor, gpus[0].device),
            ("NVIDIA H200", 0x10de, 0x2335)
        );
        let registry = Registry::builtin().unwrap();
        let hw = Hardware::identify(gpus, vec!["/dev/nvidia0".into()], &registry);
        assert_eq!(hw.identified, ["h200"]);
        assert_eq!(hw.gpus.len(), 1, "the same GPU named twice is one: {hw:?}");
    }

    #[test]
    fn rocm_smi_json_gives_the_card_series() {
        let out = r#"{"card0": {"Card Series": "AMD Instinct MI300X", "Card Model": "0x74a1", "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]"}}"#;
        let gpus = parse_rocm_smi(out);
        assert_eq!(gpus.len(), 1);
        assert_eq!(
            (gpus[0].name.as_str(), gpus[0].vendor, gpus[0].device),
            ("AMD Instinct MI300X", 0x1002, 0x74a1)
        );
        assert!(parse_rocm_smi("not json").is_empty());
    }

    #[test]
    fn a_tool_that_is_not_installed_names_nothing() {
        assert_eq!(run_tool("kcamp-no-such-tool", &[]), None);
        assert_eq!(run_tool("sh", &["-c", "echo hi; exit 3"]), None);
        assert_eq!(run_tool("sh", &["-c", "echo hi"]).as_deref(), Some("hi\n"));
    }

    #[test]
    fn wgpus_software_adapters_are_not_the_machines_gpu() {
        let probe = AdapterProbe(Arc::new(|| {
            vec![
                AdapterDescription {
                    name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
                    backend: "vulkan".into(),
                    software: true,
                    ..Default::default()
                },
                AdapterDescription {
                    name: "NVIDIA H200".into(),
                    backend: "vulkan".into(),
                    vendor: 0x10de,
                    device: 0x2335,
                    ..Default::default()
                },
            ]
        }));
        let hw = detect(Some(&probe));
        assert!(hw.identified.contains(&"h200".to_owned()), "{hw:?}");
        assert!(
            hw.gpus
                .iter()
                .any(|g| g.name == "NVIDIA H200" && g.source == "wgpu vulkan"),
            "{hw:?}"
        );
        assert!(
            !hw.gpus.iter().any(|g| g.name.contains("llvmpipe")),
            "{hw:?}"
        );
    }
}
