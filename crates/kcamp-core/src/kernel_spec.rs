//! A kernel's settings (`manifest.yaml`'s `kernel:` section and `kernel/kernel.yaml`): how
//! it plugs into its op's ABI. Its own module so that the ops, which check these settings
//! against their ABI, need nothing from the manifest.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::RuntimeChecks;

/// Workgroup-count expressions over the dispatch's dimensions (e.g. `ceil(N/16)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkgroupExprs {
    pub x: String,
    #[serde(default = "one_expr")]
    pub y: String,
    #[serde(default = "one_expr")]
    pub z: String,
}

fn one_expr() -> String {
    "1".to_owned()
}

/// How the campaign's kernel plugs into the op's ABI (README "Kernel ABI").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    /// WGSL file under `kernel/`.
    pub file: String,
    /// Entry point per pass: `forward`, and for GEMM `backward_da`, `backward_db`.
    /// A pass missing here uses `forward`'s entry point with the ABI's transpose flags.
    pub entry_points: BTreeMap<String, String>,
    /// Workgroup counts per dispatch.
    pub workgroups: WorkgroupExprs,
    /// Op buffer name -> binding number in group 0 (defaults: the op's ABI order).
    #[serde(default)]
    pub bindings: BTreeMap<String, u32>,
    /// Skip naga's runtime bounds checks (trusted mode). Recorded with every result.
    #[serde(default)]
    pub trusted: bool,
    /// The runtime checks the shader compiler adds, when not the default `bounds_checks`:
    /// `full` adds forced loop bounding (wgpu's checked mode), `none` equals `trusted: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<RuntimeChecks>,
}

impl KernelSpec {
    /// The runtime checks this kernel is compiled with (recorded with every result).
    pub fn runtime_checks(&self) -> RuntimeChecks {
        match (self.trusted, self.checks) {
            (true, _) => RuntimeChecks::None,
            (false, Some(c)) => c,
            (false, None) => RuntimeChecks::BoundsChecks,
        }
    }
}
