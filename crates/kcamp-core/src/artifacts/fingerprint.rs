//! `fingerprint.json`: how a measurement was made (adapter, backend, driver, runtime checks,
//! timing method, kcamp version, harness). The gate judges two measurements only when their
//! fingerprints agree on everything that changes the numbers; the campaign writes one beside
//! every CSV it measures or imports, and the built-in runner also puts it in `result.json`.
//! The fingerprint a `result.json` implies, and reading a measurement's from either file,
//! are with [`RunResult`](super::result::RunResult), which holds one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::IoContext;
use crate::files::FINGERPRINT_JSON;
use crate::fsutil::write_json_atomic;
use crate::host::Hardware;
use crate::manifest::Manifest;
use crate::types::{AdapterDescription, RuntimeChecks, TimingMethod};
use crate::{Error, Result};

/// The version of kcamp that measured (recorded, not compared: a new kcamp is not a new GPU).
pub const KCAMP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything about a measurement that changes its numbers. Unknown parts (an imported CSV
/// names no adapter) are `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub adapter: Option<AdapterIdentity>,
    pub runtime_checks: Option<RuntimeChecks>,
    pub timing_method: Option<TimingMethod>,
    #[serde(default)]
    pub kcamp_version: Option<String>,
    pub harness: HarnessIdentity,
    /// A harness run's machine: the GPUs found there and the registry entries they match
    /// (the built-in runner names its adapter instead; an import, nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<Hardware>,
    /// Where the cases ran when not all on one adapter of this machine: the executor and
    /// each shard's adapter or Slurm job with its shapes. Recorded, not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<crate::executor::Placement>,
    /// The machine's load average (`/proc/loadavg`: 1, 5 and 15 minutes) when the
    /// measurement started and when it ended, where the system tells it. Recorded, not
    /// compared: the context of a measurement whose blocks disagree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadAverage>,
}

/// The load average around a measurement, as `/proc/loadavg` wrote its first three fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadAverage {
    pub start: String,
    pub end: String,
}

/// The first three fields of `/proc/loadavg` (`2.31 1.80 1.02`); None where it cannot be
/// read (not Linux).
pub fn load_average_now() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(" "))
}

/// The adapter part of a fingerprint: what wgpu reports about the device and its driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterIdentity {
    pub name: String,
    pub backend: String,
    pub driver: String,
    pub driver_info: String,
    pub vendor: u32,
    pub device: u32,
    pub software: bool,
}

impl From<&AdapterDescription> for AdapterIdentity {
    fn from(a: &AdapterDescription) -> Self {
        AdapterIdentity {
            name: a.name.clone(),
            backend: a.backend.clone(),
            driver: a.driver.clone(),
            driver_info: a.driver_info.clone(),
            vendor: a.vendor,
            device: a.device,
            software: a.software,
        }
    }
}

/// What produced the numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HarnessIdentity {
    /// kcamp's own runner (WGSL through wgpu).
    Builtin,
    /// The campaign's `quick_command`/`full_command`, with the SHA-256 of every file the
    /// manifest's `harness_files` names (path → hash), so an edited harness is a new harness.
    Command {
        quick_command: String,
        full_command: String,
        files: BTreeMap<String, String>,
    },
    /// A CSV imported with `--csv`: written by something kcamp did not run.
    Imported,
}

impl HarnessIdentity {
    /// The harness of a campaign whose manifest names commands, with its files hashed.
    /// A listed file that cannot be read is an error naming the field and the path.
    pub fn of_commands(manifest: &Manifest, campaign_dir: &Path) -> Result<Option<Self>> {
        let (quick, full) = match (&manifest.quick_command, &manifest.full_command) {
            (None, None) => return Ok(None),
            (q, f) => (
                q.clone().or_else(|| f.clone()).unwrap_or_default(),
                f.clone().or_else(|| q.clone()).unwrap_or_default(),
            ),
        };
        let mut files = BTreeMap::new();
        for (i, name) in manifest.harness_files.iter().enumerate() {
            let path = campaign_dir.join(name);
            let bytes = std::fs::read(&path).map_err(|e| {
                Error::input(format!(
                    "manifest.yaml field 'harness_files[{i}]': cannot read {}: {e}",
                    path.display()
                ))
            })?;
            files.insert(name.clone(), sha256_hex(&bytes));
        }
        Ok(Some(HarnessIdentity::Command {
            quick_command: quick,
            full_command: full,
            files,
        }))
    }

    /// `built-in runner`, ``command `x` (bench.py sha256 1a2b3c4d5e6f)``, `imported CSV`.
    pub fn describe(&self) -> String {
        match self {
            HarnessIdentity::Builtin => "built-in runner".to_owned(),
            HarnessIdentity::Command {
                quick_command,
                full_command,
                files,
            } => {
                let cmd = if quick_command == full_command {
                    format!("command `{quick_command}`")
                } else {
                    format!("commands `{quick_command}` / `{full_command}`")
                };
                if files.is_empty() {
                    return cmd;
                }
                let hashes: Vec<String> = files
                    .iter()
                    .map(|(f, h)| format!("{f} sha256 {}", &h[..h.len().min(12)]))
                    .collect();
                format!("{cmd} ({})", hashes.join(", "))
            }
            HarnessIdentity::Imported => "imported CSV".to_owned(),
        }
    }
}

/// One part of two fingerprints that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// `adapter`, `backend`, `driver`, `device ids`, `runtime checks`, `timing method`, `harness`.
    pub field: String,
    pub incumbent: String,
    pub candidate: String,
}

/// `backend vulkan → gl, runtime checks bounds_checks → none`.
pub fn describe_differences(d: &[Difference]) -> String {
    d.iter()
        .map(|d| format!("{} {} → {}", d.field, d.incumbent, d.candidate))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown() -> String {
    "unknown".to_owned()
}

impl Fingerprint {
    /// The fingerprint of a built-in run.
    pub fn builtin(
        adapter: Option<&AdapterDescription>,
        checks: RuntimeChecks,
        timing_method: Option<TimingMethod>,
    ) -> Fingerprint {
        Fingerprint {
            adapter: adapter.map(AdapterIdentity::from),
            runtime_checks: Some(checks),
            timing_method,
            kcamp_version: Some(KCAMP_VERSION.to_owned()),
            harness: HarnessIdentity::Builtin,
            hardware: None,
            placement: None,
            load: None,
        }
    }

    /// The fingerprint of a harness run or an import: kcamp knows no adapter there.
    pub fn external(harness: HarnessIdentity) -> Fingerprint {
        Fingerprint {
            adapter: None,
            runtime_checks: None,
            timing_method: None,
            kcamp_version: Some(KCAMP_VERSION.to_owned()),
            harness,
            hardware: None,
            placement: None,
            load: None,
        }
    }

    /// What differs between `self` (the incumbent's) and `candidate`, in the order a person
    /// would look: device, backend, driver, checks, timing, harness. The kcamp version is
    /// recorded but never compared.
    pub fn differences(&self, candidate: &Fingerprint) -> Vec<Difference> {
        let mut out = Vec::new();
        let mut push = |field: &str, a: String, b: String| {
            if a != b {
                out.push(Difference {
                    field: field.to_owned(),
                    incumbent: a,
                    candidate: b,
                });
            }
        };
        let part = |f: &Fingerprint, get: &dyn Fn(&AdapterIdentity) -> String| {
            f.adapter.as_ref().map_or_else(unknown, get)
        };
        push(
            "adapter",
            part(self, &|a| a.name.clone()),
            part(candidate, &|a| a.name.clone()),
        );
        push(
            "backend",
            part(self, &|a| a.backend.clone()),
            part(candidate, &|a| a.backend.clone()),
        );
        let driver = |a: &AdapterIdentity| format!("{} {}", a.driver, a.driver_info);
        push("driver", part(self, &driver), part(candidate, &driver));
        let ids = |a: &AdapterIdentity| format!("{:#06x}:{:#06x}", a.vendor, a.device);
        push("device ids", part(self, &ids), part(candidate, &ids));
        let checks = |f: &Fingerprint| f.runtime_checks.map_or_else(unknown, |c| c.as_str().into());
        push("runtime checks", checks(self), checks(candidate));
        // A run that timed nothing (every shape failed to compile or check) has no timing
        // method: that is not a different way of measuring. An imported CSV has none either,
        // and differs in its harness.
        if let (Some(a), Some(b)) = (self.timing_method, candidate.timing_method) {
            push("timing method", a.as_str().into(), b.as_str().into());
        }
        push(
            "harness",
            self.harness.describe(),
            candidate.harness.describe(),
        );
        // Where both runs recorded their machine: the GPU they ran on (an older record
        // without it is not a different machine).
        if let (Some(a), Some(b)) = (&self.hardware, &candidate.hardware) {
            let gpu = |h: &Hardware| {
                if h.identified.is_empty() {
                    h.describe()
                } else {
                    h.identified.join(", ")
                }
            };
            push("hardware", gpu(a), gpu(b));
        }
        out
    }

    /// One line: `llvmpipe (…) · vulkan · llvmpipe Mesa 22.3.6 · bounds_checks ·
    /// gpu_timestamps · built-in runner`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        match &self.adapter {
            Some(a) => {
                parts.push(format!(
                    "{}{}",
                    a.name,
                    if a.software { " (software)" } else { "" }
                ));
                parts.push(a.backend.clone());
                parts.push(format!("{} {}", a.driver, a.driver_info).trim().to_owned());
            }
            None => match &self.hardware {
                Some(h) => parts.push(format!("machine: {}", h.describe())),
                None => parts.push("adapter unknown".to_owned()),
            },
        }
        if let Some(c) = self.runtime_checks {
            parts.push(format!("checks {}", c.as_str()));
        }
        if let Some(t) = self.timing_method {
            parts.push(t.as_str().to_owned());
        }
        parts.push(self.harness.describe());
        if let Some(p) = &self.placement {
            parts.push(p.describe());
        }
        parts.join(" · ")
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).ctx(|| format!("creating {}", dir.display()))?;
        write_json_atomic(&dir.join(FINGERPRINT_JSON), self)
    }
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lavapipe(backend: &str) -> AdapterDescription {
        AdapterDescription {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            backend: backend.into(),
            driver: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6".into(),
            vendor: 0x10005,
            software: true,
            ..Default::default()
        }
    }

    #[test]
    fn identical_measurements_do_not_differ() {
        let a = Fingerprint::builtin(
            Some(&lavapipe("vulkan")),
            RuntimeChecks::BoundsChecks,
            Some(TimingMethod::GpuTimestamps),
        );
        assert!(a.differences(&a.clone()).is_empty());
        let mut newer = a.clone();
        newer.kcamp_version = Some("9.9.9".into());
        assert!(
            a.differences(&newer).is_empty(),
            "the kcamp version is not compared"
        );
    }

    #[test]
    fn backend_checks_timing_and_harness_differences_are_named_with_both_sides() {
        let vk = Fingerprint::builtin(
            Some(&lavapipe("vulkan")),
            RuntimeChecks::BoundsChecks,
            Some(TimingMethod::GpuTimestamps),
        );
        let gl = Fingerprint::builtin(
            Some(&lavapipe("gl")),
            RuntimeChecks::None,
            Some(TimingMethod::HostClock),
        );
        let d = vk.differences(&gl);
        let fields: Vec<&str> = d.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["backend", "runtime checks", "timing method"]);
        assert_eq!(
            (d[0].incumbent.as_str(), d[0].candidate.as_str()),
            ("vulkan", "gl")
        );
        assert_eq!(d[1].candidate, "none");
        // A candidate that timed nothing (it failed to compile) was not measured differently.
        let untimed =
            Fingerprint::builtin(Some(&lavapipe("vulkan")), RuntimeChecks::BoundsChecks, None);
        assert!(
            vk.differences(&untimed).is_empty(),
            "{:?}",
            vk.differences(&untimed)
        );
        let imported = Fingerprint::external(HarnessIdentity::Imported);
        let d = vk.differences(&imported);
        assert!(d.iter().any(|d| d.field == "harness"
            && d.incumbent == "built-in runner"
            && d.candidate == "imported CSV"));
        assert!(
            d.iter()
                .any(|d| d.field == "adapter" && d.candidate == "unknown")
        );
    }

    #[test]
    fn harness_files_are_hashed_and_a_missing_one_names_the_field() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bench.py"), "print(1)\n").unwrap();
        let mut m = crate::manifest::Manifest::with_defaults(
            "x".into(),
            crate::types::OpName::Gemm,
            crate::types::Dtype::F32,
            "Forward TFLOPS".into(),
            Vec::new(),
            crate::ops::op(crate::types::OpName::Gemm)
                .baseline_kernel(crate::types::Dtype::F32)
                .kernel,
        );
        assert_eq!(HarnessIdentity::of_commands(&m, dir.path()).unwrap(), None);
        m.quick_command = Some("python3 bench.py {csv}".into());
        m.harness_files = vec!["bench.py".into()];
        let h = HarnessIdentity::of_commands(&m, dir.path())
            .unwrap()
            .unwrap();
        let HarnessIdentity::Command {
            files,
            full_command,
            ..
        } = &h
        else {
            panic!("{h:?}")
        };
        assert_eq!(full_command, "python3 bench.py {csv}");
        assert_eq!(files["bench.py"], sha256_hex(b"print(1)\n"));
        std::fs::write(dir.path().join("bench.py"), "print(2)\n").unwrap();
        let edited = HarnessIdentity::of_commands(&m, dir.path())
            .unwrap()
            .unwrap();
        assert_ne!(h, edited, "an edited harness file is a new harness");
        m.harness_files = vec!["missing.py".into()];
        let err = HarnessIdentity::of_commands(&m, dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("harness_files[0]") && err.contains("missing.py"),
            "{err}"
        );
    }
}
