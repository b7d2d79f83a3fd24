//! `manifest.yaml`: the campaign's definition (docs/campaign-dir.md, "`manifest.yaml`").

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::files::{KERNEL_OVERRIDE_FILE, MANIFEST_FILE};
use crate::fsutil::read_input_text;
use crate::gate::GateConfig;
pub use crate::held_out::HeldOut;
pub use crate::kernel_spec::{AlignedEntries, KernelSpec, WorkgroupExprs};
use crate::next::NextStep;
use crate::schema::ShapeKey;
use crate::types::{Dtype, OpName, RuntimeChecks, ShapeSpec, validate_label};
use crate::{Error, Result};

/// Which adapter to run on: a case-insensitive name substring and/or a backend.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// vulkan | metal | dx12 | gl
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// Measure on every matching adapter at once, a shard of the shapes on each; they must
    /// be identical (docs/scale.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// The `index`-th of the matching adapters, in the order `kcamp adapters` lists them
    /// (a shard's worker is given its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// The least number of warm-up dispatches before each timed step. The warm-up also
    /// lasts `warmup_ms` and until consecutive samples agree within `warmup_tolerance`,
    /// so this count only matters for kernels slow enough to reach both after fewer.
    pub warmup: u32,
    /// Least wall time of each warm-up, in ms (default: 200 on a GPU, which must leave its
    /// idle clocks; 20 on a software adapter). The warm-up gives up settling at ten times it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_ms: Option<f64>,
    /// The warm-up has settled when its last three samples agree within this fraction.
    pub warmup_tolerance: f64,
    /// Samples (repeats) per shape.
    pub repeats: u32,
    /// Each sample batches dispatches until it lasts at least this long.
    pub min_sample_ms: f64,
}

impl TimingConfig {
    /// Least warm-up on a GPU when `warmup_ms` is not set: long enough to leave idle clocks.
    pub const GPU_WARMUP_MS: f64 = 200.0;
    /// Least warm-up on a software adapter when `warmup_ms` is not set: a CPU has no clocks
    /// to raise, only caches to fill.
    pub const SOFTWARE_WARMUP_MS: f64 = 20.0;
    /// A warm-up stops trying to settle at this multiple of its least wall time.
    pub const WARMUP_CAP_FACTOR: f64 = 10.0;
    /// The warm-up samples that must agree within `warmup_tolerance`.
    pub const WARMUP_SETTLE_SAMPLES: usize = 3;

    /// The least wall time of each warm-up, in ms, on a GPU or a software adapter.
    pub fn warmup_min_ms(&self, software: bool) -> f64 {
        let default_ms = if software {
            Self::SOFTWARE_WARMUP_MS
        } else {
            Self::GPU_WARMUP_MS
        };
        self.warmup_ms.unwrap_or(default_ms).max(0.0)
    }
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            warmup: 3,
            warmup_ms: None,
            warmup_tolerance: 0.02,
            repeats: 10,
            min_sample_ms: 1.0,
        }
    }
}

/// How a harness command is run (docs/harness.md, "Bring your own harness").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HarnessConfig {
    /// A paired measurement runs the command `2 × pairs` times, incumbent and candidate
    /// alternating A B B A; each invocation is one sample per shape.
    pub pairs: u32,
    /// How the command is run: once per invocation (the default), or started once per
    /// measurement and sent one request per invocation on its stdin.
    #[serde(default, skip_serializing_if = "HarnessProtocol::is_default")]
    pub protocol: HarnessProtocol,
}

/// How kcamp talks to a harness command (docs/harness.md, "The persistent protocol").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HarnessProtocol {
    /// One process per invocation: placeholders and `KCAMP_*` variables say what to do.
    #[default]
    Invocation,
    /// One process per measurement, one JSON request per invocation on its stdin, one
    /// tagged JSON reply per request on its stdout.
    Persistent,
}

impl HarnessProtocol {
    fn is_default(&self) -> bool {
        *self == HarnessProtocol::default()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            HarnessProtocol::Invocation => "invocation",
            HarnessProtocol::Persistent => "persistent",
        }
    }
}

impl HarnessConfig {
    /// Six pairs: the fewest whose signed-rank test can reach p < 0.05 (2/2⁶ = 0.031).
    pub const DEFAULT_PAIRS: u32 = 6;
    /// A typo must not make a validation of thousands of harness runs.
    pub const MAX_PAIRS: u32 = 100;

    fn is_default(&self) -> bool {
        *self == HarnessConfig::default()
    }
}

impl Default for HarnessConfig {
    fn default() -> Self {
        HarnessConfig {
            pairs: HarnessConfig::DEFAULT_PAIRS,
            protocol: HarnessProtocol::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerformanceTarget {
    pub metric: String,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub op: OpName,
    pub dtype: Dtype,
    /// `Forward TFLOPS`, `Combined Step TFLOPS`, `Forward GB/s`, or another metric column.
    pub primary_metric: String,
    pub target_shapes: Vec<ShapeSpec>,
    /// Labels of 3–5 target shapes; empty until BASELINE picks them.
    #[serde(default)]
    pub representative_shapes: Vec<String>,
    #[serde(default)]
    pub adapter: AdapterSelector,
    pub kernel: KernelSpec,
    #[serde(default)]
    pub gate: GateConfig,
    #[serde(default)]
    pub timing: TimingConfig,
    /// Per-case timeout; `TEST_TIMEOUT_SEC` overrides.
    #[serde(default = "default_timeout")]
    pub timeout_sec: f64,
    /// External harness for quick validation; `{csv}` is replaced by the output path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance_target: Option<PerformanceTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Commit each accepted round when the campaign is inside a git work tree.
    #[serde(default = "default_true")]
    pub git_commit: bool,
    /// Seed of the first correctness run; each run records the seed it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The GPU the campaign targets, by id of `assets/gpu_specs.yaml` (`h200`): its cited
    /// peaks bound what an imported or harness CSV may claim when no measured peaks exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_gpu: Option<String>,
    /// Files the harness commands read (scripts, configs), relative to the campaign; their
    /// SHA-256 is part of every measurement's fingerprint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub harness_files: Vec<String>,
    /// Shapes the campaign does not list, on which a kernel's output is checked before it
    /// becomes the incumbent: `auto` (derived afresh for every check), `none`, or a list of
    /// shapes written like `target_shapes`.
    #[serde(default, skip_serializing_if = "HeldOut::is_auto")]
    pub held_out: HeldOut,
    #[serde(default, skip_serializing_if = "HarnessConfig::is_default")]
    pub harness: HarnessConfig,
    /// Where the cases run: here (absent), or as Slurm job steps (docs/scale.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<crate::executor::Executor>,
}

/// The longest per-case timeout (a week): past it a limit stops being a limit, and a
/// larger one overflows the clock's arithmetic.
pub const MAX_TIMEOUT_SEC: f64 = 604_800.0;

fn default_timeout() -> f64 {
    30.0
}

/// Upper bounds of the timing settings: a typo must not make a run that never ends.
const MAX_REPEATS: u32 = 10_000;
const MAX_WARMUP: u32 = 100_000;
const MAX_SAMPLE_MS: f64 = 60_000.0;

fn default_true() -> bool {
    true
}

/// Largest `manifest.yaml` or `kernel.yaml` kcamp reads (a 10,000-shape manifest is about
/// 500 KB).
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;
/// Deepest nesting of collections in a YAML file kcamp reads; a manifest needs 3. The YAML
/// parser's time grows with the square of the depth, so the depth is checked first.
pub const MAX_YAML_DEPTH: usize = 32;

/// Deserialize YAML text after checking its nesting depth; errors name the file and line.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &Path,
    what: &str,
) -> Result<T> {
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(Error::in_file(
            origin,
            None,
            None,
            format!("{what}: larger than {MAX_MANIFEST_BYTES} bytes"),
        ));
    }
    if let Some(line) = yaml_too_deep(text, MAX_YAML_DEPTH) {
        return Err(Error::in_file(
            origin,
            Some(line),
            None,
            format!("{what}: collections nested deeper than {MAX_YAML_DEPTH} levels"),
        ));
    }
    let err = |e: serde_yaml_ng::Error| {
        let at = e.location();
        let line = at.as_ref().map(|l| l.line() as u64);
        let mut message = e.to_string();
        let mut place = String::new();
        // The parser ends its message with the line the error's `FILE:LINE:` already says.
        if let Some(at) = &at
            && let Some(m) =
                message.strip_suffix(&format!(" at line {} column {}", at.line(), at.column()))
        {
            place = format!(" (column {})", at.column());
            message = m.to_owned();
        }
        let next = fix_step(origin, line, yaml_error_field(&message).as_deref());
        // The parser's message quotes the offending value, which may be huge.
        Error::in_file(
            origin,
            line,
            None,
            format!("{what}: {}{place}", crate::text::quote(&message, 400)),
        )
        .with_next(vec![next])
    };
    // A key given twice (`{M: 32, M: 64}`) would silently keep the last: the generic YAML
    // value refuses it, with its position, before the typed parse.
    if let Err(e) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text)
        && e.to_string().contains("duplicate entry")
    {
        return Err(err(e));
    }
    serde_yaml_ng::from_str(text).map_err(err)
}

/// The field a parser's message names (`timing.repaets` for "timing: unknown field
/// `repaets`, …"; `target_shapes[2].K` for "target_shapes[2].K: invalid value: …"), if it
/// names one. The parser writes `PATH: MESSAGE` for a value below the root.
fn yaml_error_field(message: &str) -> Option<String> {
    let (path, rest) = match message.split_once(": ") {
        Some((p, rest))
            if !p.is_empty() && !p.contains(char::is_whitespace) && !p.contains('`') =>
        {
            (p.trim_start_matches('.'), rest)
        }
        _ => ("", message),
    };
    let named = ["unknown field `", "missing field `"]
        .iter()
        .find_map(|prefix| rest.strip_prefix(prefix))
        .and_then(|r| r.split('`').next());
    match (path, named) {
        ("", None) => None,
        (p, None) => Some(p.to_owned()),
        ("", Some(n)) => Some(n.to_owned()),
        (p, Some(n)) => Some(format!("{p}.{n}")),
    }
}

/// The step after a refused YAML file: fix the field (or the line) and run the command
/// again.
pub(crate) fn fix_step(origin: &Path, line: Option<u64>, field: Option<&str>) -> NextStep {
    let file = origin.display();
    NextStep::by_hand(match (field, line) {
        (Some(f), Some(l)) => {
            format!("fix {f} in {file} (line {l}), then run the command again")
        }
        (Some(f), None) => format!("fix {f} in {file}, then run the command again"),
        (None, Some(l)) => format!("fix line {l} of {file}, then run the command again"),
        (None, None) => format!("fix {file}, then run the command again"),
    })
}

/// A field that breaks a rule of the manifest: its path (`target_shapes[1].K`) and what is
/// wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    /// The error naming the file, and the field's line and column where they are known.
    pub(crate) fn into_error(self, origin: &Path, at: Option<YamlPosition>) -> Error {
        let next = fix_step(origin, at.map(|p| p.line), Some(&self.field));
        match at {
            Some(p) => Error::in_file(
                origin,
                Some(p.line),
                None,
                format!(
                    "field '{}' at column {}: {}",
                    self.field, p.column, self.message
                ),
            ),
            None => Error::in_file(
                origin,
                None,
                None,
                format!("field '{}': {}", self.field, self.message),
            ),
        }
        .with_next(vec![next])
    }
}

/// Where a value starts in a YAML text, both counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct YamlPosition {
    pub line: u64,
    pub column: u64,
}

/// One step of a field path: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq)]
enum PathStep {
    Key(String),
    Index(usize),
}

/// `target_shapes[1].K` as steps; `[1].K` starts at a sequence.
fn path_steps(path: &str) -> Vec<PathStep> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            steps.push(PathStep::Key(key.to_owned()));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(end) = inner.find(']') else { break };
            match inner[..end].parse() {
                Ok(i) => steps.push(PathStep::Index(i)),
                Err(_) => break,
            }
            rest = &inner[end + 1..];
        }
    }
    steps
}

/// Where the value at `path` (`target_shapes[1].K`) starts in the YAML `text`: the deepest
/// step of the path the text has (a missing `K` is placed at its shape). The parser knows
/// where each value starts and puts that position on the error a visitor raises there, so
/// the walk raises one on the value it looks for.
pub(crate) fn yaml_position(text: &str, path: &str) -> Option<YamlPosition> {
    use serde::de::DeserializeSeed;
    let steps = path_steps(path);
    let err = Locate(&steps)
        .deserialize(serde_yaml_ng::Deserializer::from_str(text))
        .err()?;
    let at = err.location()?;
    Some(YamlPosition {
        line: at.line() as u64,
        column: at.column() as u64,
    })
}

/// Walks to the value at its steps and fails there (see [`yaml_position`]).
struct Locate<'a>(&'a [PathStep]);

/// The message of the error that marks the place; never shown.
const FOUND: &str = "found";

impl<'de> serde::de::DeserializeSeed<'de> for Locate<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Locate<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<(), A::Error> {
        use serde::de::Error as _;
        if let Some(PathStep::Key(want)) = self.0.first() {
            while let Some(key) = map.next_key::<serde_yaml_ng::Value>()? {
                let matches = match &key {
                    serde_yaml_ng::Value::String(k) => k == want,
                    other => serde_yaml_ng::to_string(other).is_ok_and(|k| k.trim_end() == want),
                };
                if matches {
                    return map.next_value_seed(Locate(&self.0[1..]));
                }
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Err(A::Error::custom(FOUND))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        use serde::de::Error as _;
        if let Some(PathStep::Index(want)) = self.0.first() {
            for _ in 0..*want {
                if seq.next_element::<serde::de::IgnoredAny>()?.is_none() {
                    return Err(A::Error::custom(FOUND));
                }
            }
            if seq.next_element_seed(Locate(&self.0[1..]))?.is_some() {
                // The seed fails where it is; an element that does not is no place.
                return Err(A::Error::custom(FOUND));
            }
        }
        Err(A::Error::custom(FOUND))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        Err(E::custom(FOUND))
    }
}

/// The line where the YAML text nests collections deeper than `max`, if it does: flow
/// brackets outside quotes and comments, plus the block levels of indentation and of
/// compact `- - -` sequences. An over-estimate is harmless (a manifest needs 3 levels);
/// what matters is that no text reaches the parser with thousands.
fn yaml_too_deep(text: &str, max: usize) -> Option<u64> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i as u64 + 1;
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let content = trimmed.trim_end();
        if flow == 0 && !content.is_empty() && !content.starts_with('#') {
            while indents.last().is_some_and(|&d| d >= indent) {
                indents.pop();
            }
            indents.push(indent);
            // `- - - x` opens one sequence per dash on a single line.
            let mut rest = content;
            let mut dashes = 0;
            while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
                dashes += 1;
                rest = r.trim_start_matches(' ');
            }
            if indents.len() + dashes > max {
                return Some(number);
            }
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for c in trimmed.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev == ' ' || prev == '\t' => break,
                    '\'' | '"'
                        if prev == ' '
                            || prev == '['
                            || prev == '{'
                            || prev == ','
                            || prev == ':' =>
                    {
                        quote = Some(c)
                    }
                    '[' | '{' => {
                        flow += 1;
                        if indents.len() + flow > max {
                            return Some(number);
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = c;
        }
    }
    None
}

/// `harness.pairs` must allow a significant result: the smallest two-sided p-value of the
/// exact signed-rank test over `n` pairs is 2/2ⁿ (every pair agreeing), and with fewer
/// pairs than it takes to go below `gate.p_value` no gain could ever be accepted.
fn check_pairs(pairs: u32, p_value: f64) -> std::result::Result<(), String> {
    if pairs > HarnessConfig::MAX_PAIRS {
        return Err(format!(
            "at most {} pairs, got {pairs}",
            HarnessConfig::MAX_PAIRS
        ));
    }
    let smallest = |n: u32| 2f64.powi(1 - n as i32);
    if smallest(pairs) < p_value {
        return Ok(());
    }
    let fewest = (1..=HarnessConfig::MAX_PAIRS)
        .find(|n| smallest(*n) < p_value)
        .unwrap_or(HarnessConfig::MAX_PAIRS);
    Err(format!(
        "{pairs} pair(s) can never be significant at gate.p_value {p_value}: the signed-rank test over {pairs} pair(s) gives p >= {} even when every pair agrees; use at least {fewest}",
        smallest(pairs)
    ))
}

/// Why `dir` is not a campaign: it does not exist, is not a directory, or holds no
/// manifest; each says what to do.
pub fn not_a_campaign(dir: &Path) -> Error {
    let shown = dir.display();
    Error::input(match std::fs::metadata(dir) {
        Err(_) => format!(
            "{shown}: no such directory (create a campaign there with `kcamp init {}`)",
            crate::text::shell_word(&shown.to_string())
        ),
        Ok(m) if !m.is_dir() => {
            format!(
                "{shown} is not a directory: a campaign is the directory that holds manifest.yaml"
            )
        }
        Ok(_) => format!(
            "{shown} is not a campaign: no manifest.yaml (create one with `kcamp init DIR`)"
        ),
    })
}

impl Manifest {
    /// A manifest with every optional field at its default.
    /// The GPU this campaign's rows are held to when their adapter is unknown.
    pub fn floor_target(&self) -> crate::specs::FloorTarget<'_> {
        crate::specs::FloorTarget {
            adapter_name: self.adapter.name.as_deref(),
            target_gpu: self.target_gpu.as_deref(),
            dtype: self.dtype,
        }
    }

    pub fn with_defaults(
        name: String,
        op: OpName,
        dtype: Dtype,
        primary_metric: String,
        target_shapes: Vec<ShapeSpec>,
        kernel: KernelSpec,
    ) -> Manifest {
        Manifest {
            name,
            op,
            dtype,
            primary_metric,
            target_shapes,
            representative_shapes: Vec::new(),
            adapter: AdapterSelector::default(),
            kernel,
            gate: GateConfig::default(),
            timing: TimingConfig::default(),
            timeout_sec: default_timeout(),
            quick_command: None,
            full_command: None,
            performance_target: None,
            max_iterations: None,
            git_commit: true,
            seed: None,
            target_gpu: None,
            harness_files: Vec::new(),
            held_out: HeldOut::Auto,
            harness: HarnessConfig::default(),
            executor: None,
        }
    }

    /// Parse and validate; errors name the file, line and field.
    pub fn parse(text: &str, origin: &Path) -> Result<Manifest> {
        let manifest: Manifest = parse_yaml(text, origin, "invalid manifest")?;
        manifest.validate(origin, text, "")?;
        manifest.validate_held_out(text, origin)?;
        Ok(manifest)
    }

    /// The manifest alone, without `kernel/kernel.yaml`: rollback must work even when the
    /// round left a broken kernel settings file behind.
    pub fn load_base(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(not_a_campaign(dir));
        }
        let text = read_input_text(&path, MAX_MANIFEST_BYTES)?;
        Manifest::parse(&text, &path)
    }

    /// The manifest with `kernel/kernel.yaml` applied, if present.
    pub fn load(dir: &Path) -> Result<Manifest> {
        Manifest::load_base(dir)?.with_kernel_settings_of(&dir.join(KERNEL_OVERRIDE_FILE))
    }

    /// This manifest with the kernel settings file `kernel_path` (a `kernel.yaml`, in the
    /// working `kernel/` or a round's snapshot) applied when it exists.
    pub fn with_kernel_settings_of(self, kernel_path: &Path) -> Result<Manifest> {
        let mut manifest = self;
        if std::fs::symlink_metadata(kernel_path).is_ok() {
            let text = read_input_text(kernel_path, MAX_MANIFEST_BYTES)?;
            manifest.kernel = parse_yaml(&text, kernel_path, "invalid kernel settings").map_err(
                |e| match e.cause() {
                    // `trusted: true` alone reads as an override of one field; it is not.
                    Error::InFile {
                        path,
                        line,
                        column,
                        message,
                    } if message.contains("missing field") => Error::InFile {
                        path: path.clone(),
                        line: *line,
                        column: column.clone(),
                        message: format!(
                            "{message} (this file replaces the manifest's whole `kernel:` section: copy that section here and change what differs)"
                        ),
                    }
                    .with_next(e.next_steps()),
                    _ => e,
                },
            )?;
            manifest.validate(kernel_path, &text, "kernel")?;
        }
        Ok(manifest)
    }

    pub fn to_yaml(&self) -> Result<String> {
        serde_yaml_ng::to_string(self)
            .map_err(|e| Error::Internal(format!("serializing manifest: {e}")))
    }

    /// Effective per-case timeout: `TEST_TIMEOUT_SEC` wins over the manifest.
    pub fn effective_timeout_sec(&self) -> Result<f64> {
        match std::env::var("TEST_TIMEOUT_SEC") {
            Ok(v) => match v.trim().parse::<f64>() {
                Ok(t) if t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_SEC => Ok(t),
                _ => Err(Error::input(format!(
                    "TEST_TIMEOUT_SEC must be a positive number of seconds up to {MAX_TIMEOUT_SEC} (a week), got '{}'",
                    crate::text::quote(&v, crate::text::QUOTE_CHARS)
                ))),
            },
            Err(_) => Ok(self.timeout_sec),
        }
    }

    /// A persistent harness is started once, so its command cannot name one CSV or one
    /// kernel directory: each request carries them.
    fn check_persistent_commands(&self) -> std::result::Result<(), (&'static str, String)> {
        let commands = [
            ("quick_command", &self.quick_command),
            ("full_command", &self.full_command),
        ];
        if commands.iter().all(|(_, c)| c.is_none()) {
            return Err((
                "harness.protocol",
                "persistent needs a quick_command or a full_command to start".into(),
            ));
        }
        for (name, command) in commands {
            let Some(command) = command else { continue };
            for placeholder in ["{csv}", "{kernel_dir}"] {
                if command.contains(placeholder) {
                    return Err((
                        name,
                        format!(
                            "contains {placeholder}, but with harness.protocol: persistent the command is started once and every request carries its CSV and kernel directory (docs/harness.md, \"The persistent protocol\"): remove it"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Dimension names of the op, in CSV order.
    pub fn dim_names(&self) -> &'static [&'static str] {
        crate::ops::op(self.op).dim_names()
    }

    /// Dimensions of a shape in CSV order, with the op's defaults (`B` = 1).
    pub fn shape_dims(&self, shape: &ShapeSpec) -> Vec<u64> {
        crate::ops::shape_dims(self.op, shape)
    }

    /// How a shape is matched in a CSV: its label and dimensions.
    pub fn shape_key(&self, shape: &ShapeSpec) -> ShapeKey {
        ShapeKey {
            label: shape.label.clone(),
            dims: self.shape_dims(shape),
        }
    }

    /// The keys of every target shape.
    pub fn target_keys(&self) -> BTreeSet<ShapeKey> {
        self.target_shapes
            .iter()
            .map(|s| self.shape_key(s))
            .collect()
    }

    pub fn representative(&self) -> Vec<&ShapeSpec> {
        self.target_shapes
            .iter()
            .filter(|s| self.representative_shapes.contains(&s.label))
            .collect()
    }

    /// What is wrong with a shape's dimensions for this op, if anything: (dimension, why).
    fn shape_dims_error(&self, s: &ShapeSpec) -> Option<(String, String)> {
        for name in s.dims.keys() {
            if !self.dim_names().contains(&name.as_str()) {
                return Some((
                    name.clone(),
                    format!(
                        "unknown dimension for op {} (expected {})",
                        self.op.as_str(),
                        self.dim_names().join(", ")
                    ),
                ));
            }
        }
        for d in self.dim_names() {
            match s.dim(d) {
                Some(0) => return Some(((*d).to_owned(), "must be positive".into())),
                Some(v) if v > u64::from(u32::MAX) => {
                    return Some((
                        (*d).to_owned(),
                        format!(
                            "{v} is above {}, the largest the kernel ABI's u32 parameters hold",
                            u32::MAX
                        ),
                    ));
                }
                None if *d != "B" => return Some(((*d).to_owned(), "missing".into())),
                _ => {}
            }
        }
        // Every buffer is indexed with u32: a shape whose buffers cannot be is refused here,
        // before any run allocates them.
        let dims = self.shape_dims(s);
        if let Err(why) = crate::ops::check_buffers(self.op, self.dtype, &s.label, &dims, None) {
            let last = self.dim_names().last().copied().unwrap_or("label");
            return Some((last.to_owned(), why));
        }
        None
    }

    /// An explicit `held_out` list: shapes written like target shapes, none of them one the
    /// campaign lists. Errors name the field and the line of the entry (`text` is the
    /// manifest's, which serde's values no longer carry).
    fn validate_held_out(&self, text: &str, origin: &Path) -> Result<()> {
        let HeldOut::Shapes(shapes) = &self.held_out else {
            return Ok(());
        };
        let err = |i: Option<usize>, name: String, msg: String| {
            let line = crate::held_out::yaml_entry_line(text, "held_out", i);
            let next = fix_step(origin, line, Some(&name));
            Error::in_file(origin, line, None, format!("field '{name}': {msg}"))
                .with_next(vec![next])
        };
        if shapes.is_empty() {
            return Err(err(
                None,
                "held_out".into(),
                "lists no shape: list at least one, or write `none` for no held-out check".into(),
            ));
        }
        let mut labels = std::collections::BTreeMap::new();
        for (i, s) in shapes.iter().enumerate() {
            let at = format!("held_out[{i}]");
            validate_label(&s.label).map_err(|m| err(Some(i), format!("{at}.label"), m))?;
            match labels.insert(crate::text::label_reading(&s.label), s.label.as_str()) {
                Some(earlier) if earlier == s.label => {
                    return Err(err(
                        Some(i),
                        format!("{at}.label"),
                        format!("duplicated shape label '{}'", s.label),
                    ));
                }
                Some(earlier) => {
                    return Err(err(
                        Some(i),
                        format!("{at}.label"),
                        crate::text::reads_as_another(&s.label, earlier),
                    ));
                }
                None => {}
            }
            if let Some((dim, msg)) = self.shape_dims_error(s) {
                return Err(err(Some(i), format!("{at}.{dim}"), msg));
            }
            let dims = self.shape_dims(s);
            if let Some(t) = self.target_shapes.iter().find(|t| {
                crate::text::label_reading(&t.label) == crate::text::label_reading(&s.label)
                    || self.shape_dims(t) == dims
            }) {
                let what = if crate::text::label_reading(&t.label)
                    == crate::text::label_reading(&s.label)
                {
                    "label"
                } else {
                    "dimensions"
                };
                return Err(err(
                    Some(i),
                    at,
                    format!(
                        "has the {what} of target shape '{}': a held-out shape must be one the campaign does not list",
                        t.label
                    ),
                ));
            }
        }
        Ok(())
    }

    /// [`check_fields`](Manifest::check_fields), the error naming `origin`, and the line and
    /// column of the field in `text` (the YAML it was parsed from, whose root is the field
    /// path `root`: empty for a manifest, `kernel` for a kernel settings file).
    fn validate(&self, origin: &Path, text: &str, root: &str) -> Result<()> {
        self.check_fields().map_err(|f| {
            let at = f
                .field
                .strip_prefix(root)
                .filter(|_| !root.is_empty())
                .map(|rest| rest.trim_start_matches('.'))
                .or(root.is_empty().then_some(f.field.as_str()))
                .and_then(|path| yaml_position(text, path));
            f.into_error(origin, at)
        })
    }

    /// The rules every manifest keeps, beyond what parsing checks: the first field that
    /// breaks one, with what is wrong.
    pub(crate) fn check_fields(&self) -> std::result::Result<(), FieldError> {
        let field = |name: &str, msg: String| FieldError {
            field: name.to_owned(),
            message: msg,
        };
        if let (true, Some(c)) = (self.kernel.trusted, self.kernel.checks)
            && c != RuntimeChecks::None
        {
            return Err(field(
                "kernel.checks",
                format!(
                    "'{}' contradicts `trusted: true` (no checks at all): keep one of the two",
                    c.as_str()
                ),
            ));
        }
        if self.name.trim().is_empty() {
            return Err(field("name", "must not be empty".into()));
        }
        crate::text::check_one_line("name", &self.name, crate::text::MAX_LABEL_CHARS)
            .map_err(|e| field("name", e.to_string()))?;
        if self.target_shapes.is_empty() {
            return Err(field("target_shapes", "needs at least one shape".into()));
        }
        let mut seen = std::collections::BTreeMap::new();
        for (i, s) in self.target_shapes.iter().enumerate() {
            let at = format!("target_shapes[{i}]");
            validate_label(&s.label).map_err(|m| field(&format!("{at}.label"), m))?;
            match seen.insert(crate::text::label_reading(&s.label), s.label.as_str()) {
                Some(earlier) if earlier == s.label => {
                    return Err(field(
                        &format!("{at}.label"),
                        format!("duplicated shape label '{}'", s.label),
                    ));
                }
                Some(earlier) => {
                    return Err(field(
                        &format!("{at}.label"),
                        crate::text::reads_as_another(&s.label, earlier),
                    ));
                }
                None => {}
            }
            if let Some((dim, msg)) = self.shape_dims_error(s) {
                return Err(field(&format!("{at}.{dim}"), msg));
            }
        }
        for (i, label) in self.representative_shapes.iter().enumerate() {
            if !self.target_shapes.iter().any(|s| &s.label == label) {
                return Err(field(
                    &format!("representative_shapes[{i}]"),
                    format!("'{label}' is not a target shape"),
                ));
            }
        }
        let known_metrics = crate::ops::op(self.op).primary_metrics();
        if !known_metrics.contains(&self.primary_metric.as_str()) {
            return Err(field(
                "primary_metric",
                format!(
                    "'{}' is not a metric of op {} (one of: {})",
                    self.primary_metric,
                    self.op.as_str(),
                    known_metrics.join(", ")
                ),
            ));
        }
        if !(self.timeout_sec.is_finite() && self.timeout_sec > 0.0) {
            return Err(field("timeout_sec", "must be a positive number".into()));
        }
        if self.timeout_sec > MAX_TIMEOUT_SEC {
            return Err(field(
                "timeout_sec",
                format!(
                    "{} s is over the bound of {MAX_TIMEOUT_SEC} s (a week)",
                    self.timeout_sec
                ),
            ));
        }
        if !(2..=MAX_REPEATS).contains(&self.timing.repeats) {
            return Err(field(
                "timing.repeats",
                format!(
                    "needs 2 to {MAX_REPEATS} repeats (2 for a stddev), got {}",
                    self.timing.repeats
                ),
            ));
        }
        if let Some(ms) = self.timing.warmup_ms
            && !(ms.is_finite() && ms >= 0.0)
        {
            return Err(field(
                "timing.warmup_ms",
                format!("must be a non-negative number of ms, got {ms}"),
            ));
        }
        let tol = self.timing.warmup_tolerance;
        if !(tol.is_finite() && tol > 0.0) {
            return Err(field(
                "timing.warmup_tolerance",
                format!("must be a positive fraction (0.02 is 2%), got {tol}"),
            ));
        }
        if let Some(gpu) = &self.target_gpu {
            let registry = crate::specs::Registry::builtin()
                .map_err(|e| field("target_gpu", e.to_string()))?;
            if !registry.gpus.iter().any(|g| &g.id == gpu) {
                let ids: Vec<&str> = registry.gpus.iter().map(|g| g.id.as_str()).collect();
                return Err(field(
                    "target_gpu",
                    format!(
                        "'{gpu}' is not an id of assets/gpu_specs.yaml (one of: {})",
                        ids.join(", ")
                    ),
                ));
            }
        }
        for (i, f) in self.harness_files.iter().enumerate() {
            if f.trim().is_empty() {
                return Err(field(
                    &format!("harness_files[{i}]"),
                    "must name a file".into(),
                ));
            }
        }
        if self.timing.warmup > MAX_WARMUP {
            return Err(field(
                "timing.warmup",
                format!(
                    "at most {MAX_WARMUP} warm-up dispatches, got {}",
                    self.timing.warmup
                ),
            ));
        }
        if !(self.timing.min_sample_ms.is_finite()
            && self.timing.min_sample_ms > 0.0
            && self.timing.min_sample_ms <= MAX_SAMPLE_MS)
        {
            return Err(field(
                "timing.min_sample_ms",
                format!(
                    "must be a positive number of milliseconds up to {MAX_SAMPLE_MS}, got {}",
                    self.timing.min_sample_ms
                ),
            ));
        }
        if let Some(t) = &self.performance_target
            && !(t.value.is_finite() && t.value > 0.0)
        {
            return Err(field(
                "performance_target.value",
                format!("must be a positive number, got {}", t.value),
            ));
        }
        self.gate
            .check()
            .map_err(|(name, msg)| field(&format!("gate.{name}"), msg))?;
        check_pairs(self.harness.pairs, self.gate.p_value)
            .map_err(|msg| field("harness.pairs", msg))?;
        if self.harness.protocol == HarnessProtocol::Persistent {
            self.check_persistent_commands()
                .map_err(|(name, msg)| field(name, msg))?;
        }
        if self.kernel.file.contains("..") || Path::new(&self.kernel.file).is_absolute() {
            return Err(field("kernel.file", "must be a path inside kernel/".into()));
        }
        for (axis, expr) in [
            ("x", &self.kernel.workgroups.x),
            ("y", &self.kernel.workgroups.y),
            ("z", &self.kernel.workgroups.z),
        ] {
            crate::ops::check_expression(expr)
                .map_err(|m| field(&format!("kernel.workgroups.{axis}"), m))?;
        }
        if !self.kernel.entry_points.contains_key("forward") {
            return Err(field(
                "kernel.entry_points",
                "needs a 'forward' entry point".into(),
            ));
        }
        if let Some(aligned) = &self.kernel.aligned {
            if aligned.to < 2 {
                return Err(field(
                    "kernel.aligned.to",
                    format!(
                        "{} aligns nothing: give the multiple every dimension but B must be (e.g. 4 for vec4 loads)",
                        aligned.to
                    ),
                ));
            }
            if aligned.entry_points.is_empty() {
                return Err(field(
                    "kernel.aligned.entry_points",
                    "names no entry point: give at least 'forward'".into(),
                ));
            }
            // Only passes that have an entry point: an aligned pass replaces one.
            let passes = || {
                self.kernel
                    .entry_points
                    .keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if let Some(key) = aligned
                .entry_points
                .keys()
                .find(|k| !self.kernel.entry_points.contains_key(*k))
            {
                return Err(field(
                    &format!("kernel.aligned.entry_points.{key}"),
                    format!(
                        "kernel.entry_points has no '{key}' for it to replace (it has: {})",
                        passes()
                    ),
                ));
            }
        }
        for (key, cmd) in [
            ("quick_command", &self.quick_command),
            ("full_command", &self.full_command),
        ] {
            if let Some(c) = cmd
                && !c.contains("{csv}")
                && self.harness.protocol != HarnessProtocol::Persistent
            {
                return Err(field(key, "must contain the placeholder {csv}".into()));
            }
        }
        if let Some(s) = self.executor.as_ref().and_then(|e| e.slurm.as_ref()) {
            s.check()
                .map_err(|(name, msg)| field(&format!("executor.slurm.{name}"), msg))?;
            if self.adapter.all {
                return Err(field(
                    "adapter.all",
                    "shards over the adapters of this machine, and the cases run on Slurm's nodes: set executor.slurm.shards instead (each shard is a job with its own gres)".into(),
                ));
            }
        }
        if self.adapter.index.is_some() && self.adapter.all {
            return Err(field(
                "adapter.index",
                "names one adapter, and `all: true` every matching one: keep one of the two".into(),
            ));
        }
        if self.representative_shapes.len() > 5 {
            return Err(field(
                "representative_shapes",
                "at most 5 shapes (SPEC: 3–5)".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_pairs_must_allow_a_significant_result() {
        assert!(check_pairs(HarnessConfig::DEFAULT_PAIRS, 0.05).is_ok());
        let e = check_pairs(5, 0.05).unwrap_err();
        assert!(
            e.contains("p >= 0.0625") && e.contains("use at least 6"),
            "{e}"
        );
        // A looser significance level needs fewer.
        assert!(check_pairs(4, 0.2).is_ok());
        assert!(check_pairs(0, 0.05).is_err());
        let e = check_pairs(101, 0.05).unwrap_err();
        assert!(e.contains("at most 100"), "{e}");
    }

    #[test]
    fn a_field_is_placed_at_its_value_or_else_at_the_deepest_part_that_exists() {
        let text = "name: x\ntarget_shapes:\n  - {label: a, M: 1, N: 2, K: 3}\n  - label: b\n    M: 4\n    K: 0\ngate:\n  noise_floor: 5\n";
        let at = |path: &str| yaml_position(text, path).map(|p| (p.line, p.column));
        assert_eq!(at("target_shapes[1].K"), Some((6, 8)));
        assert_eq!(at("target_shapes[0].N"), Some((3, 25)));
        assert_eq!(at("gate.noise_floor"), Some((8, 16)));
        // A missing dimension is placed at its shape; a missing shape at the list.
        assert_eq!(at("target_shapes[1].N"), Some((4, 5)));
        assert_eq!(at("target_shapes[7].K"), Some((3, 3)));
        assert_eq!(at("timing.repeats").map(|p| p.0), Some(1));
        // A shapes file's root is the list itself.
        assert_eq!(
            yaml_position("- {label: a, M: 1}\n- {label: b, M: 0}\n", "[1].M")
                .map(|p| (p.line, p.column)),
            Some((2, 17))
        );
        assert_eq!(
            path_steps("target_shapes[1].K"),
            [
                PathStep::Key("target_shapes".into()),
                PathStep::Index(1),
                PathStep::Key("K".into())
            ]
        );
    }

    #[test]
    fn a_rule_a_field_breaks_names_its_line_and_column() {
        let text = "name: x\nop: gemm\ndtype: f32\nprimary_metric: Forward TFLOPS\ntarget_shapes:\n  - {label: a, M: 1, N: 2, K: 0}\nkernel:\n  file: gemm.wgsl\n  entry_points: {forward: main}\n  workgroups: {x: '1', y: '1', z: '1'}\n";
        let err = Manifest::parse(text, Path::new("m.yaml")).unwrap_err();
        assert_eq!(
            err.full_text(),
            "m.yaml:6: field 'target_shapes[0].K' at column 31: must be positive\nnext: fix target_shapes[0].K in m.yaml (line 6), then run the command again"
        );
    }

    #[test]
    fn labels_that_read_as_another_are_refused_naming_both() {
        let with = |shapes: &str| {
            format!(
                "name: x\nop: gemm\ndtype: f32\nprimary_metric: Forward TFLOPS\ntarget_shapes:\n{shapes}kernel:\n  file: gemm.wgsl\n  entry_points: {{forward: main}}\n  workgroups: {{x: '1', y: '1', z: '1'}}\n"
            )
        };
        for (second, shown) in [
            ("\u{455}32", "'\u{455}32' reads as 's32'"),
            ("\u{ff53}32", "reads as 's32'"),
        ] {
            let text = with(&format!(
                "  - {{label: s32, M: 32, N: 32, K: 32}}\n  - {{label: \"{second}\", M: 64, N: 64, K: 64}}\n"
            ));
            let err = Manifest::parse(&text, Path::new("m.yaml"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("target_shapes[1].label"), "{err}");
            assert!(err.contains(shown), "{err}");
        }
        let text = with("  - {label: \"s32 \", M: 32, N: 32, K: 32}\n");
        let err = Manifest::parse(&text, Path::new("m.yaml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("starts or ends with white space"), "{err}");
        // Distinct ASCII labels stay distinct.
        let text =
            with("  - {label: s1, M: 32, N: 32, K: 32}\n  - {label: sl, M: 64, N: 64, K: 64}\n");
        Manifest::parse(&text, Path::new("m.yaml")).unwrap();
    }

    #[test]
    fn a_timeout_past_a_week_is_refused() {
        let text = |t: &str| {
            format!(
                "name: x\nop: gemm\ndtype: f32\nprimary_metric: Forward TFLOPS\ntimeout_sec: {t}\ntarget_shapes:\n  - {{label: a, M: 1, N: 2, K: 3}}\nkernel:\n  file: gemm.wgsl\n  entry_points: {{forward: main}}\n  workgroups: {{x: '1', y: '1', z: '1'}}\n"
            )
        };
        for t in ["1e20", "604801"] {
            let err = Manifest::parse(&text(t), Path::new("m.yaml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("field 'timeout_sec'") && err.contains("a week"),
                "{t}: {err}"
            );
        }
        Manifest::parse(&text("604800"), Path::new("m.yaml")).unwrap();
    }

    /// The parser's own errors: the line said once (by `FILE:LINE:`), the field named, and
    /// the step that fixes it.
    #[test]
    fn a_parse_error_names_its_line_once_and_the_field_to_fix() {
        let base = "name: x\nop: gemm\ndtype: f32\nprimary_metric: Forward TFLOPS\nkernel:\n  file: gemm.wgsl\n  entry_points: {forward: main}\n  workgroups: {x: '1', y: '1', z: '1'}\n";
        let parse = |extra: &str| {
            Manifest::parse(&format!("{base}{extra}"), Path::new("m.yaml"))
                .unwrap_err()
                .full_text()
        };
        let typo = parse("timing:\n  repaets: 10\n");
        assert!(
            typo.starts_with(
                "m.yaml:10: invalid manifest: timing: unknown field `repaets`, expected one of"
            ),
            "{typo}"
        );
        assert!(typo.contains("`min_sample_ms` (column 3)\n"), "{typo}");
        assert!(
            !typo.contains("line 10 column"),
            "the line said twice: {typo}"
        );
        assert!(
            typo.ends_with(
                "\nnext: fix timing.repaets in m.yaml (line 10), then run the command again"
            ),
            "{typo}"
        );
        // A negative dimension is named by its own key, not only by its shape.
        let negative = parse(
            "target_shapes:\n  - {label: a, M: 16, N: 16, K: 16}\n  - {label: b, M: 16, N: 16, K: -128}\n",
        );
        assert!(
            negative.contains(
                "target_shapes[1].K: invalid value: integer `-128`, expected a positive integer"
            ),
            "{negative}"
        );
        assert!(
            negative.ends_with(
                "next: fix target_shapes[1].K in m.yaml (line 11), then run the command again"
            ),
            "{negative}"
        );
        // A shapes file is a list at its root.
        let shapes = parse_yaml::<Vec<ShapeSpec>>(
            "- {label: a, M: 16}\n- {label: b, M: -1}\n",
            Path::new("s.yaml"),
            "shapes",
        )
        .unwrap_err()
        .full_text();
        assert!(
            shapes.starts_with("s.yaml:2: shapes: .[1].M: invalid value: integer `-1`, expected a positive integer (column 17)\nnext: fix [1].M in s.yaml (line 2)"),
            "{shapes}"
        );
        let missing = Manifest::parse("op: gemm\n", Path::new("m.yaml"))
            .unwrap_err()
            .full_text();
        assert!(missing.contains("missing field `name`"), "{missing}");
        assert!(missing.contains("next: fix name in m.yaml"), "{missing}");
    }

    #[test]
    fn the_field_a_parser_message_names() {
        let f = |m: &str| yaml_error_field(m);
        assert_eq!(
            f("timing: unknown field `x`, expected one of `a`, `b`").as_deref(),
            Some("timing.x")
        );
        assert_eq!(
            f("unknown field `nme`, expected one of `name`").as_deref(),
            Some("nme")
        );
        assert_eq!(
            f(".[2].K: invalid value: integer `-1`, expected a positive integer").as_deref(),
            Some("[2].K")
        );
        assert_eq!(
            f("gate.p_value: invalid type: string \"x\", expected f64").as_deref(),
            Some("gate.p_value")
        );
        assert_eq!(f("invalid type: string \"x\", expected a sequence"), None);
        assert_eq!(f("did not find expected key"), None);
    }
}
