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

/// How the campaign's kernel plugs into the op's ABI (docs/kernel-abi.md).
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
    /// Entry points for shapes whose every dimension but the batch is a multiple of
    /// `aligned.to`: a kernel specialized for aligned operands (vector loads, no edge
    /// guards) beside its general entry points, each compiled to its own pipeline, so the
    /// general path keeps its own registers. What a library does when it picks a kernel
    /// by alignment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned: Option<AlignedEntries>,
}

/// `kernel.aligned`: the entry points used where a shape is aligned to `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlignedEntries {
    /// The multiple every dimension but the batch (`B`) must be.
    pub to: u64,
    /// Entry point per pass, replacing the general one for aligned shapes. A pass not
    /// named here runs its general entry point.
    pub entry_points: BTreeMap<String, String>,
}

/// The entry point a pass runs, and where in the kernel's settings it was named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryChoice<'k> {
    /// The pass key whose entry point is used (`forward` for a backward pass without its
    /// own).
    pub key: &'k str,
    pub entry: &'k str,
    /// Taken from `kernel.aligned.entry_points`.
    pub aligned: bool,
}

impl EntryChoice<'_> {
    /// The settings field that names this entry point, for messages.
    pub fn field(&self) -> String {
        if self.aligned {
            format!("kernel.aligned.entry_points.{}", self.key)
        } else {
            format!("kernel.entry_points.{}", self.key)
        }
    }
}

impl KernelSpec {
    /// The entry point of pass `key` for a dispatch over `vars` (the op's dimensions, `B`
    /// the batch): a pass without its own entry point runs `forward`'s (with the ABI's
    /// transpose flags); where every dimension but `B` is a multiple of `aligned.to` and
    /// `aligned.entry_points` names the pass, that entry point replaces it. None when
    /// there is no `forward`.
    pub fn entry_for<'k>(&'k self, key: &str, vars: &[(&str, u64)]) -> Option<EntryChoice<'k>> {
        let (key, entry) = self
            .entry_points
            .get_key_value(key)
            .or_else(|| self.entry_points.get_key_value("forward"))?;
        let aligned = self.aligned.as_ref().and_then(|a| {
            let fits = a.to > 0
                && vars
                    .iter()
                    .filter(|(name, _)| *name != "B")
                    .all(|(_, v)| v % a.to == 0);
            fits.then(|| a.entry_points.get(key)).flatten()
        });
        let (entry, aligned) = aligned.map_or((entry, false), |e| (e, true));
        Some(EntryChoice {
            key,
            entry,
            aligned,
        })
    }

    /// The runtime checks this kernel is compiled with (recorded with every result).
    pub fn runtime_checks(&self) -> RuntimeChecks {
        match (self.trusted, self.checks) {
            (true, _) => RuntimeChecks::None,
            (false, Some(c)) => c,
            (false, None) => RuntimeChecks::BoundsChecks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(aligned: Option<AlignedEntries>) -> KernelSpec {
        KernelSpec {
            file: "gemm.wgsl".into(),
            entry_points: BTreeMap::from([
                ("forward".to_owned(), "forward".to_owned()),
                ("backward_da".to_owned(), "backward_da".to_owned()),
            ]),
            workgroups: WorkgroupExprs {
                x: "1".into(),
                y: "1".into(),
                z: "1".into(),
            },
            bindings: BTreeMap::new(),
            trusted: false,
            checks: None,
            aligned,
        }
    }

    fn aligned_forward() -> Option<AlignedEntries> {
        Some(AlignedEntries {
            to: 4,
            entry_points: BTreeMap::from([("forward".to_owned(), "forward_vec4".to_owned())]),
        })
    }

    fn dims(b: u64, m: u64, n: u64, k: u64) -> Vec<(&'static str, u64)> {
        vec![("B", b), ("M", m), ("N", n), ("K", k)]
    }

    #[test]
    fn aligned_shapes_run_the_aligned_entry_point_and_others_the_general_one() {
        let s = spec(aligned_forward());
        let chosen = s.entry_for("forward", &dims(3, 64, 128, 4096)).unwrap();
        assert_eq!(
            (chosen.key, chosen.entry, chosen.aligned),
            ("forward", "forward_vec4", true)
        );
        assert_eq!(chosen.field(), "kernel.aligned.entry_points.forward");
        // One dimension off the multiple is enough; the batch does not count.
        for vars in [dims(1, 64, 130, 64), dims(1, 2047, 1999, 1023)] {
            let c = s.entry_for("forward", &vars).unwrap();
            assert_eq!((c.entry, c.aligned), ("forward", false));
            assert_eq!(c.field(), "kernel.entry_points.forward");
        }
    }

    #[test]
    fn a_pass_the_aligned_entries_do_not_name_keeps_its_general_entry_point() {
        let s = spec(aligned_forward());
        let c = s.entry_for("backward_da", &dims(1, 64, 64, 64)).unwrap();
        assert_eq!(
            (c.key, c.entry, c.aligned),
            ("backward_da", "backward_da", false)
        );
        // A pass without an entry point of its own runs forward's, the aligned one where
        // the shape is aligned.
        let c = s.entry_for("backward_db", &dims(1, 64, 64, 64)).unwrap();
        assert_eq!(
            (c.key, c.entry, c.aligned),
            ("forward", "forward_vec4", true)
        );
        let c = s.entry_for("backward_db", &dims(1, 63, 64, 64)).unwrap();
        assert_eq!((c.key, c.entry, c.aligned), ("forward", "forward", false));
    }

    #[test]
    fn without_aligned_entries_nothing_changes_and_without_forward_there_is_none() {
        let s = spec(None);
        let c = s.entry_for("forward", &dims(1, 64, 64, 64)).unwrap();
        assert_eq!((c.entry, c.aligned), ("forward", false));
        let mut s = spec(aligned_forward());
        s.entry_points.clear();
        assert!(s.entry_for("forward", &dims(1, 64, 64, 64)).is_none());
    }
}
