//! The kernels kcamp ships in `shaders/`: the naive starting points and the best kernels of
//! the recorded H200 campaigns, each with the settings it was measured with (its
//! `*.kernel.yaml`). `kcamp init --kernel NAME` starts a campaign from one.

use crate::kernel_spec::KernelSpec;
use crate::types::{Dtype, OpName};
use crate::{Error, Result};

/// One kernel of `shaders/`.
#[derive(Debug, Clone, Copy)]
pub struct ShippedKernel {
    /// Its file stem, the name `--kernel` takes.
    pub name: &'static str,
    pub op: OpName,
    pub dtype: Dtype,
    pub source: &'static str,
    /// Its `kernel.yaml`; None: the op's baseline settings (one `main` for every pass).
    settings: Option<&'static str>,
}

macro_rules! shader {
    ($file:literal) => {
        include_str!(concat!("../../../shaders/", $file))
    };
}

/// Every shipped kernel, op by op, slowest first.
pub const SHIPPED: &[ShippedKernel] = &[
    ShippedKernel {
        name: "gemm_naive",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_naive.wgsl"),
        settings: None,
    },
    ShippedKernel {
        name: "gemm_tiled",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_tiled.wgsl"),
        settings: Some(shader!("gemm_tiled.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_bk16",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_bk16.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_bk16.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_split",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_split.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_split.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_aligned",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_aligned.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_aligned.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_naive_f16",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_naive_f16.wgsl"),
        settings: None,
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_bk64",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_bk64.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_bk64.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x256",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x256.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x256.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_bk64_g64",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_bk64_g64.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_bk64_g64.kernel.yaml")),
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_whole",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_whole.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_whole.kernel.yaml")),
    },
    ShippedKernel {
        name: "axpy",
        op: OpName::Axpy,
        dtype: Dtype::F32,
        source: shader!("axpy.wgsl"),
        settings: None,
    },
    ShippedKernel {
        name: "axpy_u4",
        op: OpName::Axpy,
        dtype: Dtype::F32,
        source: shader!("axpy_u4.wgsl"),
        settings: Some(shader!("axpy_u4.kernel.yaml")),
    },
    ShippedKernel {
        name: "axpy_f16",
        op: OpName::Axpy,
        dtype: Dtype::F16,
        source: shader!("axpy_f16.wgsl"),
        settings: None,
    },
];

impl ShippedKernel {
    /// The kernel by its name; the error lists every shipped kernel by name, one line per
    /// op and dtype (with their descriptions the list outgrew the length a message keeps,
    /// and the last kernels were cut off; the README's table describes each).
    pub fn find(name: &str) -> Result<&'static ShippedKernel> {
        SHIPPED.iter().find(|k| k.name == name).ok_or_else(|| {
            let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
            for k in SHIPPED {
                let group = format!("{} {}", k.op.as_str(), k.dtype.as_str());
                match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, names)) => names.push(k.name),
                    None => groups.push((group, vec![k.name])),
                }
            }
            let lines: Vec<String> = groups
                .iter()
                .map(|(group, names)| format!("  {group}: {}", names.join(", ")))
                .collect();
            Error::input(format!(
                "--kernel: no shipped kernel '{}'. Shipped (shaders/; the README's \"Kernels worth starting from\" describes each):\n{}",
                crate::text::quote(name, crate::text::QUOTE_CHARS),
                lines.join("\n")
            ))
        })
    }

    /// The settings it was measured with, naming its own file.
    pub fn settings(&self) -> Result<KernelSpec> {
        let mut spec = match self.settings {
            Some(yaml) => serde_yaml_ng::from_str::<KernelSpec>(yaml)
                .map_err(|e| Error::Internal(format!("shaders/{}.kernel.yaml: {e}", self.name)))?,
            None => crate::ops::op(self.op).baseline_kernel(self.dtype).kernel,
        };
        spec.file = format!("{}.wgsl", self.name);
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_kernel_has_valid_settings_and_its_entry_points() {
        for k in SHIPPED {
            let spec = k.settings().unwrap();
            assert_eq!(spec.file, format!("{}.wgsl", k.name));
            let mut entries: Vec<&String> = spec.entry_points.values().collect();
            entries.extend(spec.aligned.iter().flat_map(|a| a.entry_points.values()));
            assert!(!entries.is_empty(), "{}", k.name);
            for e in entries {
                assert!(
                    k.source.contains(&format!("fn {e}(")),
                    "{}: entry point {e} not in the source",
                    k.name
                );
            }
        }
        let names: std::collections::BTreeSet<&str> = SHIPPED.iter().map(|k| k.name).collect();
        assert_eq!(names.len(), SHIPPED.len(), "names are unique");
    }

    #[test]
    fn an_unknown_name_lists_what_is_shipped() {
        let err = ShippedKernel::find("gemm_fast").unwrap_err().to_string();
        assert!(err.contains("no shipped kernel 'gemm_fast'"), "{err}");
        // Every one, the last included: the message is not cut short.
        for k in SHIPPED {
            assert!(err.contains(k.name), "{} missing: {err}", k.name);
        }
        assert!(!err.contains("characters)"), "{err}");
    }
}
