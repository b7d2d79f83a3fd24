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
    /// What it is and what it measured.
    pub summary: &'static str,
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
        summary: "one invocation per output, operands from storage (the f32 default)",
    },
    ShippedKernel {
        name: "gemm_tiled",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_tiled.wgsl"),
        settings: Some(shader!("gemm_tiled.kernel.yaml")),
        summary: "64x64 tiles in workgroup memory, 4x4 per invocation (H200 4096^3: 11.6 TFLOP/s)",
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_bk16",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_bk16.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_bk16.kernel.yaml")),
        summary: "128x128 tile, k-tile 16, 8x8 per invocation, double-buffered, unrolled (H200 4096^3: 33.5 TFLOP/s, 0.66x cuBLAS fp32)",
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_split",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_split.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_split.kernel.yaml")),
        summary: "128x128 tile, k-tile 16, 8x8 per invocation, vec4 global loads, aligned and unaligned k-loops split (H200 4096^3: 40.3 TFLOP/s, 0.79x cuBLAS fp32)",
    },
    ShippedKernel {
        name: "gemm_sgemm_128x128_aligned",
        op: OpName::Gemm,
        dtype: Dtype::F32,
        source: shader!("gemm_sgemm_128x128_aligned.wgsl"),
        settings: Some(shader!("gemm_sgemm_128x128_aligned.kernel.yaml")),
        summary: "the split kernel, with a double-buffered vec4 k-loop as entry points of its own for shapes aligned to 4 (H200 4096^3: 41.6 TFLOP/s, 0.81x cuBLAS fp32; the best accepted round of campaigns/h200-sgemm-f32)",
    },
    ShippedKernel {
        name: "gemm_naive_f16",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_naive_f16.wgsl"),
        settings: None,
        summary: "one invocation per output, f32 sum, no tensor cores (the f16 default)",
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_bk64",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_bk64.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_bk64.kernel.yaml")),
        summary: "tensor cores (cooperative matrices), 128x128 tile, k-tile 64 (H200 4096^3: 95.2 TFLOP/s, 0.13x torch fp16); needs wgpu's cooperative-matrix feature",
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x256",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x256.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x256.kernel.yaml")),
        summary: "tensor cores, 128x256 tile, k-tile 32 (H200 4096^3: 101 TFLOP/s, 0.14x torch fp16, slower on small batched shapes)",
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_bk64_g64",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_bk64_g64.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_bk64_g64.kernel.yaml")),
        summary: "tensor cores, 128x128 tile, k-tile 64, 8-byte global loads, no runtime checks (H200 4096^3: 113 TFLOP/s, 0.17x torch fp16); needs wgpu's cooperative-matrix feature",
    },
    ShippedKernel {
        name: "gemm_hgemm_coop_128x128_whole",
        op: OpName::Gemm,
        dtype: Dtype::F16,
        source: shader!("gemm_hgemm_coop_128x128_whole.wgsl"),
        settings: Some(shader!("gemm_hgemm_coop_128x128_whole.kernel.yaml")),
        summary: "the g64 kernel, with entry points of its own for whole tiles (shapes aligned to 128) (H200 4096^3: 173 TFLOP/s, 0.25x torch fp16; the best accepted round of campaigns/h200-hgemm-f16); needs wgpu's cooperative-matrix feature",
    },
    ShippedKernel {
        name: "axpy",
        op: OpName::Axpy,
        dtype: Dtype::F32,
        source: shader!("axpy.wgsl"),
        settings: None,
        summary: "one element per invocation (the f32 default)",
    },
    ShippedKernel {
        name: "axpy_u4",
        op: OpName::Axpy,
        dtype: Dtype::F32,
        source: shader!("axpy_u4.wgsl"),
        settings: Some(shader!("axpy_u4.kernel.yaml")),
        summary: "4 elements per invocation, coalesced (H200 N = 2^28: 4,179 GB/s, 0.96x torch add)",
    },
    ShippedKernel {
        name: "axpy_f16",
        op: OpName::Axpy,
        dtype: Dtype::F16,
        source: shader!("axpy_f16.wgsl"),
        settings: None,
        summary: "one element per invocation (the f16 default)",
    },
];

impl ShippedKernel {
    /// The kernel by its name; the error lists every shipped kernel.
    pub fn find(name: &str) -> Result<&'static ShippedKernel> {
        SHIPPED.iter().find(|k| k.name == name).ok_or_else(|| {
            Error::input(format!(
                "--kernel: no shipped kernel '{}'. Shipped (shaders/):\n{}",
                crate::text::quote(name, crate::text::QUOTE_CHARS),
                SHIPPED
                    .iter()
                    .map(|k| format!(
                        "  {:<30} {} {}: {}",
                        k.name,
                        k.op.as_str(),
                        k.dtype.as_str(),
                        k.summary
                    ))
                    .collect::<Vec<_>>()
                    .join("\n")
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
        assert!(err.contains("gemm_sgemm_128x128_bk16"), "{err}");
        assert!(err.contains("axpy_u4"), "{err}");
    }
}
