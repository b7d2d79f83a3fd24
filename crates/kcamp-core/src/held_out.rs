//! Held-out shapes: shapes the campaign never lists, on which a kernel's output is checked
//! before it becomes the incumbent, so that a kernel right only on the listed shapes is not
//! accepted. The manifest's `held_out` says where they come from; with `auto` they are
//! derived from the target shapes afresh for every check (see [`derive`]), so nothing an
//! agent can read beforehand names them.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ops::{op, shape_dims};
use crate::types::{OpName, ShapeSpec};

/// How many shapes an `auto` check derives: enough to vary every dimension and the batch
/// count, few enough that the check costs a few untimed dispatches.
pub const AUTO_SHAPES: usize = 3;

/// The batch dimension, where an op has one (GEMM's `B`).
const BATCH: &str = "B";

/// `held_out` in manifest.yaml.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HeldOut {
    /// Shapes derived from the target shapes, afresh for every check.
    #[default]
    Auto,
    /// No held-out check (recorded as skipped).
    None,
    /// These shapes, at every check (an agent that reads the manifest knows them).
    Shapes(Vec<ShapeSpec>),
}

impl HeldOut {
    pub fn is_auto(&self) -> bool {
        *self == HeldOut::Auto
    }

    /// How the records name it: `auto`, `none` or `manifest`.
    pub fn as_str(&self) -> &'static str {
        match self {
            HeldOut::Auto => "auto",
            HeldOut::None => "none",
            HeldOut::Shapes(_) => "manifest",
        }
    }
}

impl Serialize for HeldOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HeldOut::Auto => s.serialize_str("auto"),
            HeldOut::None => s.serialize_str("none"),
            HeldOut::Shapes(shapes) => shapes.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for HeldOut {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeldOut, D::Error> {
        struct HeldOutVisitor;
        impl<'de> Visitor<'de> for HeldOutVisitor {
            type Value = HeldOut;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`auto`, `none` or a list of shapes like target_shapes")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<HeldOut, E> {
                match v {
                    "auto" => Ok(HeldOut::Auto),
                    "none" => Ok(HeldOut::None),
                    other => Err(E::custom(format!(
                        "'{}' is not `auto`, `none` or a list of shapes",
                        crate::text::quote(other, crate::text::QUOTE_CHARS)
                    ))),
                }
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HeldOut, A::Error> {
                let mut shapes = Vec::new();
                while let Some(s) = seq.next_element::<ShapeSpec>()? {
                    shapes.push(s);
                }
                Ok(HeldOut::Shapes(shapes))
            }
        }
        d.deserialize_any(HeldOutVisitor)
    }
}

/// [`AUTO_SHAPES`] held-out shapes derived from `targets` with `seed` (the same seed gives
/// the same shapes). Each comes from a target shape, the targets taken in a random order:
/// every dimension but the batch is moved to a random odd value a little below it (by up
/// to an eighth, at least 3 values), so that it is a multiple of none of 2, 4, 8 and 16;
/// every other shape changes the batch count too, where the op has one (a batch above 1
/// goes down by one; a batch of 1 goes to 2 and the other dimensions shrink by √2 first,
/// since each operand of a batched op is the batch times two of its dimensions). So no
/// held-out shape needs more memory than the target it comes from, and none is a target
/// shape. Labels are `held-out-1`, `held-out-2`, ...: they say nothing of the dimensions.
///
/// Odd dimensions never reach the entry points of `kernel.aligned`, which run only where
/// every dimension is a multiple of `aligned_to`: with it, one more shape is such a
/// multiple ([`aligned_shape`]), so that the aligned path is held out too.
pub fn derive(
    op_name: OpName,
    targets: &[ShapeSpec],
    aligned_to: Option<u64>,
    seed: u64,
) -> Vec<ShapeSpec> {
    let names = op(op_name).dim_names();
    let batch_at = names.iter().position(|n| *n == BATCH);
    let listed: BTreeSet<Vec<u64>> = targets.iter().map(|s| shape_dims(op_name, s)).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut order: Vec<&ShapeSpec> = targets.iter().collect();
    order.shuffle(&mut rng);
    let mut out: Vec<ShapeSpec> = Vec::new();
    let mut taken: BTreeSet<Vec<u64>> = BTreeSet::new();
    // A few tries per shape: small targets have few odd neighbours.
    let tries = AUTO_SHAPES * 8 * order.len().max(1);
    for attempt in 0..tries {
        if out.len() == AUTO_SHAPES || order.is_empty() {
            break;
        }
        let source = shape_dims(op_name, order[attempt % order.len()]);
        let change_batch = batch_at.is_some() && out.len() % 2 == 1;
        let dims = moved(&source, batch_at, change_batch, &mut rng);
        if listed.contains(&dims) || !taken.insert(dims.clone()) {
            continue;
        }
        out.push(labelled(names, out.len() + 1, &dims));
    }
    if let Some(to) = aligned_to.filter(|to| *to >= 2) {
        let aligned = (0..tries).find_map(|attempt| {
            let source = shape_dims(op_name, order.get(attempt % order.len().max(1))?);
            aligned_shape(&source, batch_at, to, &mut rng).filter(|d| !listed.contains(d))
        });
        if let Some(dims) = aligned {
            out.push(labelled(names, out.len() + 1, &dims));
        }
    }
    out
}

fn labelled(names: &[&str], n: usize, dims: &[u64]) -> ShapeSpec {
    ShapeSpec {
        label: format!("held-out-{n}"),
        dims: names
            .iter()
            .zip(dims)
            .map(|(n, v)| ((*n).to_owned(), *v))
            .collect(),
    }
}

/// `source` with every dimension but the batch moved to a random multiple of `to` at most
/// itself (within an eighth of it, at least one step of `to`), the batch kept; None when a
/// dimension is below `to`.
fn aligned_shape(
    source: &[u64],
    batch_at: Option<usize>,
    to: u64,
    rng: &mut StdRng,
) -> Option<Vec<u64>> {
    source
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if Some(i) == batch_at {
                return Some(v);
            }
            let steps = v / to;
            if steps == 0 {
                return None;
            }
            let reach = (v / 8 / to).max(1).min(steps - 1);
            Some((steps - rng.random_range(0..=reach)) * to)
        })
        .collect()
}

/// `source` (dimensions in CSV order) with every dimension but the batch moved to an odd
/// value below it, and the batch changed when `change_batch`.
fn moved(
    source: &[u64],
    batch_at: Option<usize>,
    change_batch: bool,
    rng: &mut StdRng,
) -> Vec<u64> {
    let batch = batch_at.map_or(1, |i| source[i]);
    let (new_batch, scale) = match (change_batch, batch) {
        (false, _) => (batch, 1.0),
        (true, 1) => (2, std::f64::consts::FRAC_1_SQRT_2),
        (true, b) => (b - 1, 1.0),
    };
    let mut dims: Vec<u64> = source
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if Some(i) == batch_at {
                new_batch
            } else {
                odd_below(v, scale, rng)
            }
        })
        .collect();
    // Every dimension 1 and the batch unchanged: nothing moved, so the first one goes up.
    if dims == source
        && let Some((_, d)) = dims
            .iter_mut()
            .enumerate()
            .find(|(i, _)| Some(*i) != batch_at)
    {
        *d = 3;
    }
    dims
}

/// A random odd value at most `v·scale` and below `v` (1 when `v` is 1), within an eighth
/// of `v` (at least 3 values) of that top.
fn odd_below(v: u64, scale: f64, rng: &mut StdRng) -> u64 {
    let top = if scale < 1.0 {
        (v as f64 * scale).floor() as u64
    } else {
        v.saturating_sub(1)
    }
    .max(1);
    let reach = (v / 8).max(3);
    let x = rng.random_range(top.saturating_sub(reach).max(1)..=top);
    // An even x is at least 2, so x - 1 is still a dimension.
    if x % 2 == 0 { x - 1 } else { x }
}

/// The line of `text` where the top-level key `key` is, and of its `index`-th list entry
/// when it is written as a block list (`- {...}` one a line); the key's line otherwise.
/// For the messages of fields serde has already parsed, which carry no line.
pub fn yaml_entry_line(text: &str, key: &str, index: Option<usize>) -> Option<u64> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })?;
    let key_line = at as u64 + 1;
    let Some(index) = index else {
        return Some(key_line);
    };
    let mut seen = 0;
    let mut entry_indent = None;
    for (i, line) in lines.iter().enumerate().skip(at + 1) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if !trimmed.starts_with('-') {
            if indent == 0 {
                break;
            }
            continue;
        }
        match entry_indent {
            None => entry_indent = Some(indent),
            Some(e) if e != indent => continue,
            _ => {}
        }
        if seen == index {
            return Some(i as u64 + 1);
        }
        seen += 1;
    }
    Some(key_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(label: &str, dims: &[(&str, u64)]) -> ShapeSpec {
        ShapeSpec {
            label: label.to_owned(),
            dims: dims.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
        }
    }

    fn gemm_targets() -> Vec<ShapeSpec> {
        vec![
            shape("s32", &[("M", 32), ("N", 32), ("K", 32)]),
            shape("s64", &[("M", 64), ("N", 64), ("K", 64)]),
            shape("r96", &[("M", 96), ("N", 32), ("K", 64)]),
        ]
    }

    #[test]
    fn derived_shapes_are_odd_unlisted_and_no_larger_than_their_targets() {
        let targets = gemm_targets();
        let listed: BTreeSet<Vec<u64>> = targets
            .iter()
            .map(|s| shape_dims(OpName::Gemm, s))
            .collect();
        let largest = targets
            .iter()
            .map(|s| {
                op(OpName::Gemm)
                    .bytes(crate::types::Dtype::F32, &shape_dims(OpName::Gemm, s))
                    .0
            })
            .fold(0.0, f64::max);
        for seed in 0..500 {
            let derived = derive(OpName::Gemm, &targets, None, seed);
            assert_eq!(derived.len(), AUTO_SHAPES, "seed {seed}");
            for (i, s) in derived.iter().enumerate() {
                assert_eq!(s.label, format!("held-out-{}", i + 1));
                let dims = shape_dims(OpName::Gemm, s);
                assert!(!listed.contains(&dims), "seed {seed}: {dims:?} is a target");
                for (name, v) in ["M", "N", "K"].iter().map(|n| (n, s.dim(n).unwrap())) {
                    assert!(v >= 1, "{name}");
                    for m in [2, 4, 8, 16] {
                        assert_ne!(v % m, 0, "seed {seed}: {name} = {v} is a multiple of {m}");
                    }
                }
                let bytes = op(OpName::Gemm).bytes(crate::types::Dtype::F32, &dims).0;
                assert!(bytes <= largest, "seed {seed}: {dims:?}");
            }
            // The second shape changes the batch count (1 in every target).
            assert_eq!(derived[1].dim("B"), Some(2), "seed {seed}");
            assert_eq!(derived[0].dim("B"), Some(1), "seed {seed}");
        }
    }

    #[test]
    fn derived_shapes_follow_the_seed() {
        let targets = gemm_targets();
        assert_eq!(
            derive(OpName::Gemm, &targets, None, 7),
            derive(OpName::Gemm, &targets, None, 7)
        );
        assert_ne!(
            derive(OpName::Gemm, &targets, None, 7),
            derive(OpName::Gemm, &targets, None, 8)
        );
        let distinct: BTreeSet<Vec<Vec<u64>>> = (0..100)
            .map(|seed| {
                derive(OpName::Gemm, &targets, None, seed)
                    .iter()
                    .map(|s| shape_dims(OpName::Gemm, s))
                    .collect()
            })
            .collect();
        assert!(distinct.len() > 90, "{} of 100", distinct.len());
    }

    #[test]
    fn a_batch_above_one_goes_down_and_tiny_shapes_still_move() {
        let targets = vec![shape("b8", &[("B", 8), ("M", 512), ("N", 8), ("K", 2)])];
        let derived = derive(OpName::Gemm, &targets, None, 3);
        assert_eq!(derived.len(), AUTO_SHAPES);
        assert_eq!(derived[1].dim("B"), Some(7));
        assert_eq!(derived[0].dim("K"), Some(1));
        // axpy has no batch; N = 1 cannot go below, so it goes to 3.
        let ones = vec![shape("one", &[("N", 1)])];
        let derived = derive(OpName::Axpy, &ones, None, 1);
        assert_eq!(derived.len(), 1, "{derived:?}");
        assert_eq!(derived[0].dim("N"), Some(3));
        let big = vec![shape("n16m", &[("N", 1 << 24)])];
        for s in derive(OpName::Axpy, &big, None, 9) {
            let n = s.dim("N").unwrap();
            assert!(
                n % 2 == 1 && ((1 << 24) - (1 << 21) - 1..1 << 24).contains(&n),
                "{n}"
            );
        }
    }

    #[test]
    fn an_aligned_kernel_gets_one_more_shape_its_aligned_path_runs() {
        let targets = gemm_targets();
        let listed: BTreeSet<Vec<u64>> = targets
            .iter()
            .map(|s| shape_dims(OpName::Gemm, s))
            .collect();
        for seed in 0..200 {
            let derived = derive(OpName::Gemm, &targets, Some(16), seed);
            assert_eq!(derived.len(), AUTO_SHAPES + 1, "seed {seed}");
            assert_eq!(
                derived[..AUTO_SHAPES],
                derive(OpName::Gemm, &targets, None, seed)[..],
                "the odd shapes do not depend on the alignment"
            );
            let last = &derived[AUTO_SHAPES];
            assert_eq!(last.label, "held-out-4");
            let dims = shape_dims(OpName::Gemm, last);
            assert!(!listed.contains(&dims), "seed {seed}: {dims:?}");
            for d in &dims[1..] {
                assert!(*d >= 16 && d % 16 == 0, "seed {seed}: {dims:?}");
            }
        }
        // No target dimension reaches the multiple: no aligned shape.
        let small = vec![shape("s8", &[("M", 8), ("N", 32), ("K", 32)])];
        assert_eq!(derive(OpName::Gemm, &small, Some(16), 1).len(), AUTO_SHAPES);
    }

    #[test]
    fn the_manifest_value_reads_and_writes_back() {
        for (text, want) in [
            ("auto", HeldOut::Auto),
            ("none", HeldOut::None),
            (
                "[{label: h, M: 33, N: 17, K: 9}]",
                HeldOut::Shapes(vec![shape("h", &[("M", 33), ("N", 17), ("K", 9)])]),
            ),
        ] {
            let got: HeldOut = serde_yaml_ng::from_str(text).unwrap();
            assert_eq!(got, want, "{text}");
            let back: HeldOut =
                serde_yaml_ng::from_str(&serde_yaml_ng::to_string(&got).unwrap()).unwrap();
            assert_eq!(back, want);
        }
        let err = serde_yaml_ng::from_str::<HeldOut>("sometimes")
            .unwrap_err()
            .to_string();
        assert!(err.contains("'sometimes' is not `auto`, `none`"), "{err}");
        assert!(serde_yaml_ng::from_str::<HeldOut>("3").is_err());
    }

    #[test]
    fn entry_lines_are_found_in_block_and_flow_lists() {
        let text = "name: x\nheld_out:\n- {label: a, M: 3, N: 3, K: 3}\n# note\n- {label: b, M: 5}\nseed: 1\n";
        assert_eq!(yaml_entry_line(text, "held_out", None), Some(2));
        assert_eq!(yaml_entry_line(text, "held_out", Some(0)), Some(3));
        assert_eq!(yaml_entry_line(text, "held_out", Some(1)), Some(5));
        assert_eq!(yaml_entry_line(text, "held_out", Some(2)), Some(2));
        let text = "held_out: [{label: a, M: 3}]\nname: x\n";
        assert_eq!(yaml_entry_line(text, "held_out", Some(0)), Some(1));
        assert_eq!(yaml_entry_line("name: x\n", "held_out", None), None);
    }
}
