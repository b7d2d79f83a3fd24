//! The vocabulary every layer shares: ops, dtypes, shapes, check values, validation kinds,
//! decisions, timing methods, adapters and label rules. Imports nothing else of kcamp, so
//! any module may use it without making a cycle.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The op a campaign optimizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpName {
    /// C = A·B forward; dA = dC·Bᵀ and dB = Aᵀ·dC backward. GEMM schema.
    Gemm,
    /// out = alpha·x + y, memory-bound. GB/s schema.
    Axpy,
}

impl OpName {
    /// Every op, for listings and error messages.
    pub const ALL: [OpName; 2] = [OpName::Gemm, OpName::Axpy];

    pub fn as_str(self) -> &'static str {
        match self {
            OpName::Gemm => "gemm",
            OpName::Axpy => "axpy",
        }
    }
}

impl std::str::FromStr for OpName {
    type Err = String;

    fn from_str(s: &str) -> Result<OpName, String> {
        OpName::ALL
            .into_iter()
            .find(|op| op.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = OpName::ALL.iter().map(|o| o.as_str()).collect();
                format!("unknown op '{s}' (one of: {})", names.join(", "))
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtype {
    F32,
    /// f16 storage, f32 accumulation; needs the adapter's SHADER_F16.
    F16,
}

impl Dtype {
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
        }
    }
    /// PASS threshold on rel_err (docs/harness.md, "How a case is measured", item 3).
    pub fn rel_err_threshold(self) -> f64 {
        match self {
            Dtype::F32 => 1e-4,
            Dtype::F16 => 1e-2,
        }
    }
}

/// One benchmark shape. Dimensions are named by the op (`B,M,N,K` for GEMM, `N` for axpy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShapeSpec {
    pub label: String,
    #[serde(flatten)]
    pub dims: BTreeMap<String, u64>,
}

/// Read by hand rather than through `#[serde(flatten)]`: a flattened map is buffered before
/// it is read, so a bad dimension (`K: -128`) would be reported at its shape
/// (`target_shapes[2]`) instead of at its own key (`target_shapes[2].K`) and position.
impl<'de> Deserialize<'de> for ShapeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> serde::de::Visitor<'de> for ShapeVisitor {
    type Value = ShapeSpec;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a shape: a label and its dimensions, like {label: s64, M: 64, N: 64, K: 64}")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ShapeSpec, A::Error> {
        use serde::de::Error as _;
        let mut label = None;
        let mut dims = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "label" {
                if label.is_some() {
                    return Err(A::Error::duplicate_field("label"));
                }
                label = Some(map.next_value::<String>()?);
            } else {
                let Dim(value) = map.next_value()?;
                if dims.insert(key.clone(), value).is_some() {
                    return Err(A::Error::custom(format_args!(
                        "dimension `{key}` given twice"
                    )));
                }
            }
        }
        let label = label.ok_or_else(|| A::Error::missing_field("label"))?;
        Ok(ShapeSpec { label, dims })
    }
}

/// A dimension's value: a whole number of at least 0 (a shape's rules refuse 0 after).
struct Dim(u64);

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Any value: a parser that reads a negative number as a u64 calls it the wrong
        // type, not the wrong value.
        deserializer.deserialize_any(DimVisitor)
    }
}

struct DimVisitor;

impl serde::de::Visitor<'_> for DimVisitor {
    type Value = Dim;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a positive integer")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Dim, E> {
        Ok(Dim(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Dim, E> {
        u64::try_from(v)
            .map(Dim)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
    }
}

impl ShapeSpec {
    pub fn dim(&self, name: &str) -> Option<u64> {
        self.dims.get(name).copied()
    }
}

/// Labels become file names and CSV keys: no path separators or control characters.
pub fn validate_label(label: &str) -> std::result::Result<(), String> {
    use crate::text::{MAX_LABEL_CHARS, QUOTE_CHARS, quote};
    // The usual label, short printable ASCII without separators, commas or quotes, passes
    // every rule below; one pass over its bytes says so.
    if (1..=MAX_LABEL_CHARS).contains(&label.len())
        && !label.starts_with(' ')
        && !label.ends_with(' ')
        && label
            .bytes()
            .all(|b| matches!(b, b' '..=b'~') && !matches!(b, b'/' | b'\\' | b',' | b'"'))
    {
        return Ok(());
    }
    if label.is_empty() {
        return Err("label must not be empty".into());
    }
    let shown = || quote(label, QUOTE_CHARS);
    if label.chars().count() > MAX_LABEL_CHARS {
        return Err(format!(
            "label '{}' is longer than {MAX_LABEL_CHARS} characters",
            shown()
        ));
    }
    if label.contains(['/', '\\']) {
        return Err(format!("label '{}' contains a path separator", shown()));
    }
    if label.chars().any(char::is_control) {
        return Err(format!("label '{}' contains a control character", shown()));
    }
    if let Some(c) = label.chars().find(|c| crate::text::is_invisible(*c)) {
        return Err(format!(
            "label '{}' contains U+{:04X}, a character that reorders or hides text: a label must read as what it is",
            shown(),
            c as u32
        ));
    }
    if label.contains([',', '"']) {
        return Err(format!("label '{}' contains a comma or quote", shown()));
    }
    crate::text::check_label_reads_as_itself(label)
}

/// `Check` column values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Check {
    Pass,
    Fail,
    Error,
    TimeoutFail,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Pass => "PASS",
            Check::Fail => "FAIL",
            Check::Error => "ERROR",
            Check::TimeoutFail => "TIMEOUT_FAIL",
        }
    }
    pub fn parse(s: &str) -> Option<Check> {
        match s {
            "PASS" => Some(Check::Pass),
            "FAIL" => Some(Check::Fail),
            "ERROR" => Some(Check::Error),
            "TIMEOUT_FAIL" => Some(Check::TimeoutFail),
            _ => None,
        }
    }
}

/// What a decided round became.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DecisionKind {
    Baseline,
    Accepted,
    RolledBack,
}

impl DecisionKind {
    /// The serialized name (`BASELINE`, `ACCEPTED`, `ROLLED_BACK`).
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Baseline => "BASELINE",
            DecisionKind::Accepted => "ACCEPTED",
            DecisionKind::RolledBack => "ROLLED_BACK",
        }
    }
}

/// Quick (representative shapes) or full (all target shapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    Quick,
    Full,
}

impl Validation {
    /// The serialized name (`quick`, `full`).
    pub fn as_str(self) -> &'static str {
        match self {
            Validation::Quick => "quick",
            Validation::Full => "full",
        }
    }
}

/// Which timing method produced a case's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingMethod {
    /// GPU timestamp queries around the compute pass.
    GpuTimestamps,
    /// Host clock after a full device wait.
    HostClock,
}

impl TimingMethod {
    /// The serialized name (`gpu_timestamps`, `host_clock`).
    pub fn as_str(self) -> &'static str {
        match self {
            TimingMethod::GpuTimestamps => "gpu_timestamps",
            TimingMethod::HostClock => "host_clock",
        }
    }
}

/// Which runtime checks the shader compiler put into a kernel: a measurement condition,
/// part of every fingerprint (checked and unchecked code of one kernel can differ many
/// times over: docs/performance.md, "What naga's runtime checks cost").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeChecks {
    /// Bounds checks and forced loop bounding: wgpu's fully checked mode (`kernel.checks:
    /// full`). Forced loop bounding can cost a kernel many times over; kept to measure
    /// exactly that.
    Full,
    /// Every buffer access bounds-checked (no forced loop bounding): the default.
    BoundsChecks,
    /// No runtime checks at all (`kernel.trusted: true`).
    None,
}

impl RuntimeChecks {
    /// The mode a kernel's `trusted` flag selects.
    pub fn of_trusted(trusted: bool) -> RuntimeChecks {
        if trusted {
            RuntimeChecks::None
        } else {
            RuntimeChecks::BoundsChecks
        }
    }

    /// The serialized name (`full`, `bounds_checks`, `none`).
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeChecks::Full => "full",
            RuntimeChecks::BoundsChecks => "bounds_checks",
            RuntimeChecks::None => "none",
        }
    }
}

/// The adapter a case ran on, as recorded in result.json, CSV provenance and screens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterDescription {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub vendor: u32,
    pub device: u32,
    /// True for CPU/software adapters (llvmpipe/lavapipe, WARP, SwiftShader).
    pub software: bool,
    /// The wgpu version that drove it (major), e.g. `30`.
    #[serde(default)]
    pub wgpu_version: String,
    /// The limits a kernel's static metrics are held to (recorded at measurement time, so
    /// records never reopen the GPU).
    #[serde(default)]
    pub limits: AdapterLimits,
}

/// The adapter limits that bound a compute kernel's shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterLimits {
    pub max_workgroup_storage_bytes: u64,
    pub max_invocations_per_workgroup: u32,
    /// The largest subgroup size: a workgroup that is a multiple of it is a whole number
    /// of subgroups whatever size the driver picks.
    pub subgroup_size: u32,
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The label rules without the ASCII fast path.
    fn validate_label_rules(label: &str) -> std::result::Result<(), String> {
        use crate::text::{MAX_LABEL_CHARS, QUOTE_CHARS, quote};
        if label.is_empty() {
            return Err("label must not be empty".into());
        }
        let shown = || quote(label, QUOTE_CHARS);
        if label.chars().count() > MAX_LABEL_CHARS {
            return Err(format!(
                "label '{}' is longer than {MAX_LABEL_CHARS} characters",
                shown()
            ));
        }
        if label.contains(['/', '\\']) {
            return Err(format!("label '{}' contains a path separator", shown()));
        }
        if label.chars().any(char::is_control) {
            return Err(format!("label '{}' contains a control character", shown()));
        }
        if let Some(c) = label.chars().find(|c| crate::text::is_invisible(*c)) {
            return Err(format!(
                "label '{}' contains U+{:04X}, a character that reorders or hides text: a label must read as what it is",
                shown(),
                c as u32
            ));
        }
        if label.contains([',', '"']) {
            return Err(format!("label '{}' contains a comma or quote", shown()));
        }
        crate::text::check_label_reads_as_itself(label)
    }

    proptest! {
        #[test]
        fn the_fast_path_keeps_every_label_rule(
            label in "[ -~]{0,130}|[a-z0-9 \\x00-\\x1f\\x7f\\u{80}-\\u{9f}é/\\\\,\"µ\\u{200b}\\u{202e}\\u{feff}\\u{301}]{0,130}",
        ) {
            prop_assert_eq!(validate_label(&label), validate_label_rules(&label));
        }
    }

    #[test]
    fn labels_at_the_length_limit() {
        for n in [0, 1, 127, 128, 129] {
            for c in ["a", "é", "\u{7f}", "/"] {
                let label = c.repeat(n);
                assert_eq!(
                    validate_label(&label),
                    validate_label_rules(&label),
                    "{n} x {c:?}"
                );
            }
        }
    }
}
