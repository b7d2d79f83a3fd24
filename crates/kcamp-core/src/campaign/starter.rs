//! Harness starters: `kcamp init --harness torch` writes a documented harness of the
//! user's language beside the kernel and wires the manifest's commands to it, so a
//! PyTorch/Triton kernel is measured by a harness that already follows the contract
//! (docs/harness-torch.md).

use serde_json::json;

use crate::types::{Dtype, OpName, ShapeSpec};
use crate::{Error, Result};

/// The harness a campaign starts with instead of the built-in runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HarnessStarter {
    /// harness/bench.py (PyTorch) and kernel/kernel.py.
    Torch,
}

impl HarnessStarter {
    pub const ALL: [HarnessStarter; 1] = [HarnessStarter::Torch];

    pub fn as_str(self) -> &'static str {
        match self {
            HarnessStarter::Torch => "torch",
        }
    }
}

impl std::str::FromStr for HarnessStarter {
    type Err = Error;

    fn from_str(s: &str) -> Result<HarnessStarter> {
        HarnessStarter::ALL
            .into_iter()
            .find(|h| h.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = HarnessStarter::ALL.iter().map(|h| h.as_str()).collect();
                Error::input(format!(
                    "--harness: unknown harness '{}' (available: {})",
                    crate::text::quote(s, crate::text::QUOTE_CHARS),
                    names.join(", ")
                ))
            })
    }
}

/// Where a starter's harness lives, relative to the campaign.
pub const HARNESS_DIR: &str = "harness";
/// The kernel file a torch campaign edits, under `kernel/`.
pub const TORCH_KERNEL_FILE: &str = "kernel.py";
const TORCH_BENCH: &str = "harness/bench.py";
const TORCH_SHAPES: &str = "harness/shapes.json";
/// The manifest's command: `python3` from `PATH` (edit it to name another interpreter).
const TORCH_COMMAND: &str = "python3 harness/bench.py --csv {csv} --kernel-dir {kernel_dir}";

const BENCH_PY: &str = include_str!("../../../../assets/harness/torch/bench.py");
const KERNEL_GEMM_PY: &str = include_str!("../../../../assets/harness/torch/kernel_gemm.py");
const KERNEL_AXPY_PY: &str = include_str!("../../../../assets/harness/torch/kernel_axpy.py");

/// What a starter adds to a campaign.
#[derive(Debug, Clone)]
pub struct StarterFiles {
    /// The kernel file under `kernel/` and its text.
    pub kernel_file: &'static str,
    pub kernel_source: &'static str,
    /// Files relative to the campaign, with their contents (the harness and its inputs).
    pub files: Vec<(&'static str, String)>,
    pub quick_command: String,
    pub full_command: String,
    /// The files whose hashes identify the harness.
    pub harness_files: Vec<String>,
    /// The comment above the manifest's fields.
    pub manifest_note: &'static str,
}

impl HarnessStarter {
    /// The files of this starter for a campaign of `op`, `dtype` and `shapes`.
    pub fn files(self, op: OpName, dtype: Dtype, shapes: &[ShapeSpec]) -> Result<StarterFiles> {
        match self {
            HarnessStarter::Torch => {
                let kernel_source = match op {
                    OpName::Gemm => KERNEL_GEMM_PY,
                    OpName::Axpy => KERNEL_AXPY_PY,
                };
                // The target shapes for runs by hand, and for a kcamp that passes only
                // their labels ($KCAMP_SHAPES); kcamp's $KCAMP_SHAPES_FILE wins.
                let shapes_json = json!({
                    "op": op.as_str(),
                    "dtype": dtype.as_str(),
                    "shapes": shapes
                        .iter()
                        .map(|s| json!({"label": s.label, "dims": s.dims}))
                        .collect::<Vec<_>>(),
                });
                let mut shapes_text = serde_json::to_string_pretty(&shapes_json)
                    .map_err(|e| Error::Internal(format!("serializing {TORCH_SHAPES}: {e}")))?;
                shapes_text.push('\n');
                Ok(StarterFiles {
                    kernel_file: TORCH_KERNEL_FILE,
                    kernel_source,
                    files: vec![
                        (TORCH_BENCH, BENCH_PY.to_owned()),
                        (TORCH_SHAPES, shapes_text),
                    ],
                    quick_command: TORCH_COMMAND.to_owned(),
                    full_command: TORCH_COMMAND.to_owned(),
                    harness_files: vec![TORCH_BENCH.to_owned(), TORCH_SHAPES.to_owned()],
                    manifest_note: "# Measured by harness/bench.py (`kcamp init --harness torch`; docs/harness-torch.md in the\n# kcamp repository): edit `python3` in the commands to use another interpreter, add bench.py's\n# flags (--repeats, --warmup-ms, --flush-mib, --rtol) to change how it measures. The kernel\n# is kernel/kernel.py; the kernel: settings below are the built-in runner's and unused.\n",
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_list_the_choices() {
        assert_eq!(
            "torch".parse::<HarnessStarter>().unwrap(),
            HarnessStarter::Torch
        );
        let e = "cuda".parse::<HarnessStarter>().unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::BAD_INPUT);
        assert!(
            e.to_string()
                .contains("unknown harness 'cuda' (available: torch)"),
            "{e}"
        );
    }

    #[test]
    fn the_shapes_file_holds_the_op_dtype_and_every_shape() {
        let shapes = crate::ops::op(OpName::Gemm).default_shapes();
        let f = HarnessStarter::Torch
            .files(OpName::Gemm, Dtype::F16, &shapes)
            .unwrap();
        let (_, text) = f.files.iter().find(|(p, _)| *p == TORCH_SHAPES).unwrap();
        let doc: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(doc["op"], "gemm");
        assert_eq!(doc["dtype"], "f16");
        assert_eq!(doc["shapes"].as_array().unwrap().len(), shapes.len());
        assert_eq!(doc["shapes"][0]["label"], shapes[0].label.as_str());
        assert_eq!(doc["shapes"][0]["dims"]["M"], shapes[0].dims["M"]);
        assert!(f.quick_command.contains("{csv}") && f.quick_command.contains("{kernel_dir}"));
        assert!(f.kernel_source.contains("def gemm(a"));
    }

    #[test]
    fn the_bench_script_writes_the_frozen_headers() {
        // bench.py spells the headers out: they must be the schema's bytes.
        for header in [crate::schema::GEMM_HEADER, crate::schema::BANDWIDTH_HEADER] {
            assert!(
                BENCH_PY.contains(&format!("\"{header}\"")),
                "bench.py lacks `{header}`"
            );
        }
        let axpy = HarnessStarter::Torch
            .files(OpName::Axpy, Dtype::F32, &[])
            .unwrap();
        assert!(axpy.kernel_source.contains("def axpy(alpha"));
    }
}
