//! GPU spec registry, utilization and roofline (docs/roofline.md).
//!
//! The registry (`assets/gpu_specs.yaml`, embedded) holds cited peaks: every value names a
//! source document. `kcamp peak` adds measured peaks (source id
//! `measured:<adapter>:<date>`) to a [`PeakStore`]. Utilization and the roofline floor
//! always say which source they used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::types::AdapterDescription;
use crate::types::Dtype;
use crate::{Error, Result};

const REGISTRY_YAML: &str = include_str!("../../../assets/gpu_specs.yaml");
const REGISTRY_PATH: &str = "assets/gpu_specs.yaml";

/// How the source id of a peak measured by `kcamp peak` begins.
pub const MEASURED_SOURCE_PREFIX: &str = "measured:";

/// File name of measured peaks (in the campaign, or the user's data directory).
pub const PEAKS_FILE: &str = "peaks.json";

/// A document a value comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    pub url: String,
    pub date: String,
}

/// One cited number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cited {
    pub value: f64,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Not re-checked against the cited document.
    #[serde(default)]
    pub uncertain: bool,
}

/// Streaming-multiprocessor / compute-unit / core count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Units {
    pub value: u64,
    /// SM, CU, GPU core.
    pub kind: String,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    pub id: String,
    pub name: String,
    #[serde(rename = "match")]
    pub matches: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub software: bool,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub units: Option<Units>,
    #[serde(default)]
    pub l2_bytes: Option<Cited>,
    /// Bytes per second.
    #[serde(default)]
    pub memory_bandwidth: Option<Cited>,
    /// FLOP/s by peak key: `f32`, `f16`, `f16-tensor`.
    pub peak_flops: BTreeMap<String, Cited>,
}

impl GpuSpec {
    /// Whether a wgpu adapter name selects this entry.
    pub fn matches_adapter(&self, adapter_name: &str) -> bool {
        let name = adapter_name.to_lowercase();
        self.matches
            .iter()
            .any(|m| name.contains(&m.to_lowercase()))
            && !self
                .exclude
                .iter()
                .any(|x| name.contains(&x.to_lowercase()))
    }

    /// Peaks for the calculator: `key` is a peak key (`f32`, `f16`, `f16-tensor`).
    pub fn util_peaks(&self, key: &str) -> Result<UtilPeaks> {
        let flops = self.peak_flops.get(key).ok_or_else(|| {
            let known: Vec<&str> = self.peak_flops.keys().map(String::as_str).collect();
            Error::input(format!(
                "{}: no peak for '{key}' in {REGISTRY_PATH} (known: {}){}",
                self.name,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
                self.note
                    .as_deref()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default()
            ))
        })?;
        let bandwidth = self.memory_bandwidth.as_ref().ok_or_else(|| {
            Error::input(format!(
                "{}: no memory bandwidth in {REGISTRY_PATH}",
                self.name
            ))
        })?;
        Ok(UtilPeaks {
            flops: PeakValue::from(flops),
            bandwidth: PeakValue::from(bandwidth),
            units: self.units.clone(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    pub sources: BTreeMap<String, Source>,
    pub gpus: Vec<GpuSpec>,
}

impl Registry {
    /// The registry embedded from `assets/gpu_specs.yaml`, checked.
    pub fn builtin() -> Result<Registry> {
        Registry::parse(REGISTRY_YAML, Path::new(REGISTRY_PATH))
    }

    /// Parse and check that every value is positive and names a known source.
    pub fn parse(text: &str, origin: &Path) -> Result<Registry> {
        let registry: Registry = serde_yaml_ng::from_str(text).map_err(|e| {
            let line = e.location().map(|l| l.line() as u64);
            Error::in_file(
                origin,
                line,
                None,
                format!("invalid GPU spec registry: {e}"),
            )
        })?;
        for gpu in &registry.gpus {
            let mut cited: Vec<(String, &Cited)> = gpu
                .peak_flops
                .iter()
                .map(|(k, c)| (format!("peak_flops.{k}"), c))
                .collect();
            cited.extend(
                gpu.memory_bandwidth
                    .iter()
                    .map(|c| ("memory_bandwidth".into(), c)),
            );
            cited.extend(gpu.l2_bytes.iter().map(|c| ("l2_bytes".into(), c)));
            let mut refs: Vec<(String, &str)> = cited
                .iter()
                .map(|(field, c)| (field.clone(), c.source.as_str()))
                .collect();
            refs.extend(
                gpu.units
                    .iter()
                    .map(|u| ("units".to_owned(), u.source.as_str())),
            );
            for (field, source) in refs {
                if !registry.sources.contains_key(source) {
                    return Err(Error::in_file(
                        origin,
                        None,
                        None,
                        format!(
                            "gpu '{}' field '{field}': unknown source id '{source}'",
                            gpu.id
                        ),
                    ));
                }
            }
            if let Some((field, _)) = cited
                .iter()
                .find(|(_, c)| !(c.value.is_finite() && c.value > 0.0))
            {
                return Err(Error::in_file(
                    origin,
                    None,
                    None,
                    format!(
                        "gpu '{}' field '{field}': must be a positive number",
                        gpu.id
                    ),
                ));
            }
        }
        Ok(registry)
    }

    /// Find a GPU by id (`h200`) or by a name/match substring (`H200`, `4090`).
    pub fn find(&self, query: &str) -> Result<&GpuSpec> {
        let q = query.trim().to_lowercase();
        self.gpus
            .iter()
            .find(|g| g.id == q)
            .or_else(|| {
                self.gpus.iter().find(|g| {
                    g.name.to_lowercase().contains(&q)
                        || g.matches.iter().any(|m| m.to_lowercase().contains(&q))
                })
            })
            .ok_or_else(|| {
                let ids: Vec<&str> = self.gpus.iter().map(|g| g.id.as_str()).collect();
                Error::input(format!(
                    "--gpu '{query}' is not in {REGISTRY_PATH} (known: {})",
                    ids.join(", ")
                ))
            })
    }

    /// The entry for an adapter wgpu reported (software adapters map to `software`).
    pub fn for_adapter(&self, adapter: &AdapterDescription) -> Option<&GpuSpec> {
        self.gpus
            .iter()
            .find(|g| g.matches_adapter(&adapter.name))
            .or_else(|| {
                adapter
                    .software
                    .then(|| self.gpus.iter().find(|g| g.software))
                    .flatten()
            })
    }
}

/// The peak keys utilization is stated against, best first: the fastest path a WGSL kernel
/// of that dtype could take (f16 may use cooperative-matrix tensor cores).
fn util_keys(dtype: Dtype) -> &'static [&'static str] {
    match dtype {
        Dtype::F32 => &["f32"],
        Dtype::F16 => &["f16-tensor", "f16", "f32"],
    }
}

/// Every rate the hardware has for a dtype, tensor units included: the roofline floor takes
/// the highest, so a harness that runs an f32 GEMM through TF32 (legitimately six times
/// the H200's vector f32 peak) is never called impossible.
fn floor_keys(dtype: Dtype) -> &'static [&'static str] {
    match dtype {
        Dtype::F32 => &["f32", "tf32-tensor"],
        Dtype::F16 => &["f32", "f16", "f16-tensor", "f16-tensor-f16acc"],
    }
}

/// The roofs of one adapter and dtype: its own measured ceilings (`kcamp peak`) and the
/// registry's cited figures, each naming its source id. Either may be unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Roofs {
    pub measured: Option<UtilPeaks>,
    pub cited: Option<UtilPeaks>,
}

impl Roofs {
    /// Measured peaks (the campaign's peaks.json, then the user-level store) and cited ones.
    pub fn for_adapter(campaign_dir: &Path, adapter: &AdapterDescription, dtype: Dtype) -> Roofs {
        // The user-level store by its own path: a campaign's directory (or the current one,
        // when it is a campaign) is not the user's store.
        let measured = [
            Some(campaign_dir.join(PEAKS_FILE)),
            user_peak_store_path().ok(),
        ]
        .into_iter()
        .flatten()
        .filter_map(|p| PeakStore::load(&p).ok())
        .find_map(|store| store.for_adapter(adapter).cloned())
        .and_then(|m| {
            let flops = util_keys(dtype)
                .iter()
                .find_map(|k| m.flops.get(*k))
                .copied()?;
            Some(UtilPeaks {
                flops: PeakValue {
                    value: flops,
                    source: m.source.clone(),
                    key: None,
                },
                bandwidth: PeakValue {
                    value: m.bandwidth?,
                    source: m.source.clone(),
                    key: None,
                },
                units: None,
            })
        });
        let cited = Registry::builtin().ok().and_then(|registry| {
            let gpu = registry.for_adapter(adapter)?;
            util_keys(dtype).iter().find_map(|k| gpu.util_peaks(k).ok())
        });
        Roofs { measured, cited }
    }

    /// The peaks utilization is stated against: the measured ones where they exist (they
    /// are what this adapter reaches), else the cited ones.
    pub fn primary(&self) -> Option<&UtilPeaks> {
        self.measured.as_ref().or(self.cited.as_ref())
    }
}

/// The peaks utilization is stated against for one adapter and dtype: the adapter's own
/// measured ceilings (`kcamp peak`: the campaign's peaks.json, then the user-level store)
/// where they exist, else the registry's cited figures. Each value names its source id.
pub fn adapter_peaks(
    campaign_dir: &Path,
    adapter: &AdapterDescription,
    dtype: Dtype,
) -> Option<UtilPeaks> {
    Roofs::for_adapter(campaign_dir, adapter, dtype)
        .primary()
        .cloned()
}

/// Utilization (percent of the compute peak, percent of the bandwidth peak) of a run's
/// PASS shapes for an iteration record: the geometric mean of the forward FLOP and byte
/// rates against [`adapter_peaks`].
pub fn record_utilization(
    campaign_dir: &Path,
    (op, dtype): (crate::types::OpName, Dtype),
    table: &crate::schema::BenchTable,
    adapter: Option<&AdapterDescription>,
) -> (Option<f64>, Option<f64>) {
    let Some(peaks) = adapter.and_then(|a| adapter_peaks(campaign_dir, a, dtype)) else {
        return (None, None);
    };
    let rates: Vec<(f64, f64)> = table
        .rows
        .iter()
        .filter(|r| r.check == crate::types::Check::Pass)
        .filter_map(|r| {
            let ms = r.metric(&table.schema, "Forward Time (ms)")?;
            let (flops, bytes) = crate::ops::pass_work(op, dtype, &r.dims)[0]?;
            (ms > 0.0).then(|| (flops / (ms * 1e-3), bytes / (ms * 1e-3)))
        })
        .collect();
    let pct = |rate: &dyn Fn(&(f64, f64)) -> f64, peak: f64| {
        let geo = crate::stats::geomean(&rates.iter().map(rate).collect::<Vec<_>>())?;
        (peak > 0.0).then(|| 100.0 * geo / peak)
    };
    (
        pct(&|r| r.0, peaks.flops.value),
        pct(&|r| r.1, peaks.bandwidth.value),
    )
}

/// A peak value and the source id it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeakValue {
    pub value: f64,
    pub source: String,
    /// Which rate it is (`f32`, `tf32-tensor`, ...), where that is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl From<&Cited> for PeakValue {
    fn from(c: &Cited) -> Self {
        PeakValue {
            value: c.value,
            source: c.source.clone(),
            key: None,
        }
    }
}

impl PeakValue {
    fn keyed(mut self, key: &str) -> Self {
        self.key = Some(key.to_owned());
        self
    }

    /// Measured on the adapter by `kcamp peak` (its source id is `measured:<adapter>:<date>`),
    /// rather than cited from a data sheet.
    pub fn is_measured(&self) -> bool {
        self.source.starts_with(MEASURED_SOURCE_PREFIX)
    }

    /// A utilization of this peak in percent, as every table and report prints it: `20.5%`,
    /// and above 100% what that means, since nothing runs faster than its hardware: a
    /// measured peak was measured too low (`kcamp peak` again), a cited one is not this
    /// machine's or the number measured is wrong.
    pub fn utilization_text(&self, pct: f64) -> String {
        let text = crate::units::percent(pct);
        if !(pct.is_finite() && pct > 100.0) {
            return text;
        }
        if self.is_measured() {
            format!("{text} (above the measured peak: re-measure it with `kcamp peak`)")
        } else {
            format!("{text} (above the spec-sheet peak)")
        }
    }

    /// `13.4 TFLOP/s (tf32-tensor) [nvidia-h200-datasheet]`.
    pub fn describe(&self, unit: &str) -> String {
        format!(
            "{}{} [{}]",
            crate::units::si(self.value, unit),
            self.key
                .as_deref()
                .map(|k| format!(" ({k})"))
                .unwrap_or_default(),
            self.source
        )
    }
}

/// Peaks a utilization is computed against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UtilPeaks {
    /// FLOP/s.
    pub flops: PeakValue,
    /// Bytes/s.
    pub bandwidth: PeakValue,
    pub units: Option<Units>,
}

impl UtilPeaks {
    /// FLOP per byte where the two roofs meet.
    pub fn ridge_point(&self) -> f64 {
        self.flops.value / self.bandwidth.value
    }

    /// `compute 36.1 GFLOP/s [source], bandwidth 1.31 GB/s [source], ridge point 27.5 FLOP/B`.
    pub fn describe(&self) -> String {
        format!(
            "compute {} [{}], bandwidth {} [{}], ridge point {}",
            crate::units::flop_rate(self.flops.value),
            self.flops.source,
            crate::units::byte_rate(self.bandwidth.value),
            self.bandwidth.source,
            crate::units::intensity(self.ridge_point())
        )
    }
}

/// Which roof limits a kernel at its arithmetic intensity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Memory,
    Compute,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    pub achieved_tflops: f64,
    pub achieved_gbps: f64,
    pub flops_utilization_pct: f64,
    pub bandwidth_utilization_pct: f64,
    /// FLOP per byte of the kernel.
    pub arithmetic_intensity: f64,
    /// FLOP per byte where the two roofs meet.
    pub ridge_point: f64,
    pub bound: Bound,
    /// Grid blocks per unit (SM/CU); None without a grid or a unit count.
    pub waves: Option<f64>,
    pub peaks: UtilPeaks,
}

/// Achieved rates against both peaks (docs/roofline.md, "Utilization and bound class").
/// `flops` and `bytes` are per launch.
pub fn utilization(
    peaks: &UtilPeaks,
    flops: f64,
    bytes: f64,
    time_ms: f64,
    grid_blocks: Option<u64>,
) -> Result<Utilization> {
    for (name, v) in [("flops", flops), ("bytes", bytes)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::input(format!(
                "{name} must be a non-negative number, got {v}"
            )));
        }
    }
    if !(time_ms.is_finite() && time_ms > 0.0) {
        return Err(Error::input(format!(
            "--time-ms must be a positive number, got {time_ms}"
        )));
    }
    let seconds = time_ms * 1e-3;
    let flop_rate = flops / seconds;
    let byte_rate = bytes / seconds;
    let ridge_point = peaks.ridge_point();
    let arithmetic_intensity = if bytes > 0.0 {
        flops / bytes
    } else {
        f64::INFINITY
    };
    Ok(Utilization {
        achieved_tflops: flop_rate / 1e12,
        achieved_gbps: byte_rate / 1e9,
        flops_utilization_pct: 100.0 * flop_rate / peaks.flops.value,
        bandwidth_utilization_pct: 100.0 * byte_rate / peaks.bandwidth.value,
        arithmetic_intensity,
        ridge_point,
        bound: if arithmetic_intensity < ridge_point {
            Bound::Memory
        } else {
            Bound::Compute
        },
        waves: match (grid_blocks, &peaks.units) {
            (Some(g), Some(u)) if u.value > 0 => Some(g as f64 / u.value as f64),
            _ => None,
        },
        peaks: peaks.clone(),
    })
}

/// Evaluate a work expression (`2*M*N*K`) over named dimensions. `flag` names the option
/// in errors. Dimensions are floats so `M/64` does not truncate.
pub fn eval_work_expr(flag: &str, expr: &str, dims: &BTreeMap<String, u64>) -> Result<f64> {
    use evalexpr::{ContextWithMutableVariables, HashMapContext, Value};
    let mut context: HashMapContext = HashMapContext::new();
    for (name, value) in dims {
        context
            .set_value(name.clone(), Value::from_float(*value as f64))
            .map_err(|e| Error::input(format!("{flag}: dimension '{name}': {e}")))?;
    }
    let shown = crate::text::quote(expr, crate::text::QUOTE_CHARS);
    crate::ops::check_expression(expr)
        .map_err(|e| Error::input(format!("{flag} '{shown}': {e}")))?;
    let value: f64 = evalexpr::eval_number_with_context(expr, &context).map_err(|e| {
        let unbound = matches!(e, evalexpr::EvalexprError::VariableIdentifierNotFound(_));
        let given = if dims.is_empty() {
            "none".to_owned()
        } else {
            dims.keys().cloned().collect::<Vec<_>>().join(", ")
        };
        Error::input(if unbound {
            format!(
                "{flag} '{shown}': {e}\nGive every dimension the expression uses with --dims, e.g. --dims M=4096,N=4096,K=4096 (given: {given})"
            )
        } else {
            format!("{flag} '{shown}': {e}")
        })
    })?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::input(format!(
            "{flag} '{expr}' evaluates to {value}, not a non-negative count"
        )))
    }
}

/// Parse `M=4096,N=4096,K=4096`.
pub fn parse_dims(text: &str) -> Result<BTreeMap<String, u64>> {
    let mut dims = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| Error::input(format!("--dims: '{part}' is not NAME=VALUE")))?;
        let value: u64 = value.trim().parse().map_err(|_| {
            Error::input(format!(
                "--dims: '{}' is not a non-negative integer in '{part}'",
                value.trim()
            ))
        })?;
        dims.insert(name.trim().to_owned(), value);
    }
    Ok(dims)
}

/// Peaks measured by `kcamp peak` on one adapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredPeaks {
    /// `measured:<adapter>:<date>`.
    pub source: String,
    pub adapter: String,
    pub driver: String,
    pub measured_at: DateTime<Utc>,
    /// FLOP/s by peak key (`f32`, `f16`, ...).
    pub flops: BTreeMap<String, f64>,
    /// Bytes/s of a copy kernel (read + write).
    pub bandwidth: Option<f64>,
}

impl MeasuredPeaks {
    pub fn source_id(adapter: &str, at: DateTime<Utc>) -> String {
        format!(
            "{MEASURED_SOURCE_PREFIX}{adapter}:{}",
            at.format("%Y-%m-%d")
        )
    }
}

/// `peaks.json`: measured peaks keyed by adapter name and driver.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PeakStore {
    pub adapters: BTreeMap<String, MeasuredPeaks>,
}

impl PeakStore {
    pub fn key(adapter: &str, driver: &str) -> String {
        format!("{adapter} | {driver}")
    }

    /// Read a store; a missing file is an empty store.
    pub fn load(path: &Path) -> Result<PeakStore> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(PeakStore::default()),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        serde_json::from_str(&text).map_err(|e| {
            Error::in_file(
                path,
                Some(e.line() as u64),
                None,
                format!("invalid peaks file: {e}"),
            )
        })
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        crate::fsutil::write_json_atomic(path, self)
    }

    pub fn insert(&mut self, peaks: MeasuredPeaks) {
        self.adapters
            .insert(PeakStore::key(&peaks.adapter, &peaks.driver), peaks);
    }

    pub fn for_adapter(&self, adapter: &AdapterDescription) -> Option<&MeasuredPeaks> {
        self.adapters
            .get(&PeakStore::key(&adapter.name, &adapter.driver))
    }
}

/// Where measured peaks live: `<campaign>/peaks.json` inside a campaign (they travel with
/// its results), else `$XDG_DATA_HOME/kcamp/peaks.json` (default `~/.local/share`).
pub fn peak_store_path(campaign_dir: &Path) -> Result<PathBuf> {
    if campaign_dir.join(crate::files::MANIFEST_FILE).is_file() {
        return Ok(campaign_dir.join(PEAKS_FILE));
    }
    user_peak_store_path()
}

/// The user-level peak store (`$XDG_DATA_HOME/kcamp/peaks.json`, else
/// `~/.local/share/kcamp/peaks.json`), where `kcamp peak` outside a campaign stores.
pub fn user_peak_store_path() -> Result<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".local/share"))
            .ok_or_else(|| {
                Error::input("neither XDG_DATA_HOME nor HOME is set: cannot place peaks.json")
            })?,
    };
    Ok(data.join("kcamp").join(PEAKS_FILE))
}

/// A measured ceiling is what one kernel reached, not what the hardware can do: a better
/// kernel may beat it. The floor gives measured peaks this much headroom.
pub const MEASURED_PEAK_HEADROOM: f64 = 1.25;
/// On a software adapter the "peak" is a CPU's, measured under whatever else the machine
/// was doing: a busy host measures a lower one than an idle host does.
pub const MEASURED_SOFTWARE_PEAK_HEADROOM: f64 = 3.0;

/// The peaks the roofline floor of one adapter and dtype uses; either may be unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FloorPeaks {
    pub flops: Option<PeakValue>,
    pub bandwidth: Option<PeakValue>,
}

/// What a campaign says about the GPU its rows come from (its manifest's `adapter.name`,
/// `target_gpu` and `dtype`), for [`FloorPeaks::for_target`].
#[derive(Debug, Clone, Copy)]
pub struct FloorTarget<'a> {
    pub adapter_name: Option<&'a str>,
    pub target_gpu: Option<&'a str>,
    pub dtype: Dtype,
}

impl FloorPeaks {
    /// The highest applicable peak of each kind from the registry and the measured store
    /// (measured ones with [`MEASURED_PEAK_HEADROOM`], or [`MEASURED_SOFTWARE_PEAK_HEADROOM`]
    /// on a software adapter): the floor must never reject a time
    /// the hardware can reach.
    pub fn for_adapter(
        registry: &Registry,
        store: &PeakStore,
        adapter: &AdapterDescription,
        dtype: Dtype,
    ) -> FloorPeaks {
        let mut peaks = FloorPeaks::default();
        if let Some(gpu) = registry.for_adapter(adapter) {
            peaks.add_cited(gpu, dtype);
        }
        if let Some(m) = store.for_adapter(adapter) {
            peaks.add_measured(m, adapter.software, dtype);
        }
        peaks
    }

    /// The floor of a measurement whose adapter kcamp does not know (an imported CSV or a
    /// harness): the highest of the campaign's measured peaks (`kcamp peak`; only the
    /// adapters the manifest's `adapter.name` selects, when it names one) and the cited peaks
    /// of its `target_gpu`. Empty when neither exists: then nothing can be checked.
    pub fn for_target(
        registry: &Registry,
        store: &PeakStore,
        target: &FloorTarget<'_>,
    ) -> Result<FloorPeaks> {
        let mut peaks = FloorPeaks::default();
        let wanted = target.adapter_name.map(str::to_lowercase);
        for m in store.adapters.values() {
            if wanted
                .as_deref()
                .is_some_and(|w| !m.adapter.to_lowercase().contains(w))
            {
                continue;
            }
            let software = registry
                .gpus
                .iter()
                .any(|g| g.software && g.matches_adapter(&m.adapter));
            peaks.add_measured(m, software, target.dtype);
        }
        if let Some(id) = target.target_gpu {
            peaks.add_cited(registry.find(id)?, target.dtype);
        }
        Ok(peaks)
    }

    /// Adds the cited peaks of `gpu` (the hardware a harness was found to run on); the
    /// higher peak of each kind wins.
    pub fn with_gpu(mut self, gpu: &GpuSpec, dtype: Dtype) -> FloorPeaks {
        self.add_cited(gpu, dtype);
        self
    }

    /// Adds a FLOP-rate bound from outside the registry and the store (the CPUs' bound of
    /// `host::Host::cpu_peak`: what a software adapter, or a harness on a machine without a
    /// GPU, can reach at most); the higher peak wins.
    pub fn with_flops_bound(mut self, bound: PeakValue) -> FloorPeaks {
        self.offer_flops(bound);
        self
    }

    /// Whether any peak is known (else no time can be called impossible).
    pub fn is_known(&self) -> bool {
        self.flops.is_some() || self.bandwidth.is_some()
    }

    fn add_cited(&mut self, gpu: &GpuSpec, dtype: Dtype) {
        for k in floor_keys(dtype) {
            if let Some(c) = gpu.peak_flops.get(*k) {
                self.offer_flops(PeakValue::from(c).keyed(k));
            }
        }
        if let Some(bw) = &gpu.memory_bandwidth {
            self.offer_bandwidth(PeakValue::from(bw));
        }
    }

    /// Measured ceilings with headroom: [`MEASURED_PEAK_HEADROOM`], or
    /// [`MEASURED_SOFTWARE_PEAK_HEADROOM`] on a software adapter.
    fn add_measured(&mut self, m: &MeasuredPeaks, software: bool, dtype: Dtype) {
        let headroom = if software {
            MEASURED_SOFTWARE_PEAK_HEADROOM
        } else {
            MEASURED_PEAK_HEADROOM
        };
        let measured = |value: f64| PeakValue {
            value: value * headroom,
            source: m.source.clone(),
            key: None,
        };
        for k in floor_keys(dtype) {
            if let Some(v) = m.flops.get(*k) {
                self.offer_flops(measured(*v).keyed(&format!("{k} measured ×{headroom}")));
            }
        }
        if let Some(bw) = m.bandwidth {
            self.offer_bandwidth(measured(bw));
        }
    }

    fn offer_flops(&mut self, p: PeakValue) {
        if p.value.is_finite()
            && p.value > 0.0
            && self.flops.as_ref().is_none_or(|f| p.value > f.value)
        {
            self.flops = Some(p);
        }
    }

    fn offer_bandwidth(&mut self, p: PeakValue) {
        if p.value.is_finite()
            && p.value > 0.0
            && self.bandwidth.as_ref().is_none_or(|b| p.value > b.value)
        {
            self.bandwidth = Some(p);
        }
    }

    /// Why a step that took `ms` for `flops` FLOPs and `bytes` bytes is faster than this
    /// hardware can be, naming the floor, the peaks and their sources; None when possible
    /// (or when no peak is known).
    pub fn impossible(&self, what: &str, ms: f64, flops: f64, bytes: f64) -> Option<String> {
        let (floor, _) = self.floor_ms(flops, bytes)?;
        if ms >= floor {
            return None;
        }
        let mut limits = Vec::new();
        if let Some(p) = &self.flops {
            limits.push(format!(
                "{} at {}",
                crate::units::si(flops, "FLOP"),
                p.describe("FLOP/s")
            ));
        }
        if let Some(p) = &self.bandwidth {
            limits.push(format!(
                "{} at {}",
                crate::units::si(bytes, "B"),
                p.describe("B/s")
            ));
        }
        Some(format!(
            "impossible: {what} {} is below the roofline floor {} ({})",
            crate::units::si(ms * 1e-3, "s"),
            crate::units::si(floor * 1e-3, "s"),
            limits.join("; ")
        ))
    }

    /// `max(flops/peak_flops, bytes/peak_bw)` in ms and the source ids used; None when
    /// neither peak is known.
    pub fn floor_ms(&self, flops: f64, bytes: f64) -> Option<(f64, Vec<String>)> {
        let terms: Vec<(f64, &str)> = [(flops, &self.flops), (bytes, &self.bandwidth)]
            .into_iter()
            .filter_map(|(work, peak)| {
                peak.as_ref()
                    .map(|p| (work / p.value * 1e3, p.source.as_str()))
            })
            .collect();
        let floor = terms
            .iter()
            .map(|t| t.0)
            .fold(None, |acc: Option<f64>, t| {
                Some(acc.map_or(t, |a| a.max(t)))
            })?;
        let mut ids: Vec<String> = terms.iter().map(|t| t.1.to_owned()).collect();
        ids.dedup();
        Some((floor, ids))
    }
}

/// Write a measured result into the store at `path` and return its source id.
pub fn record_measured(path: &Path, peaks: MeasuredPeaks) -> Result<String> {
    let mut store = PeakStore::load(path)?;
    let id = peaks.source.clone();
    store.insert(peaks);
    store.save(path)?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        ((a - b) / b).abs() < rel
    }

    #[test]
    fn a_utilization_above_its_peak_says_so_and_which_peak() {
        let peak = |source: &str| PeakValue {
            value: 1.0,
            source: source.into(),
            key: None,
        };
        let measured = peak(&MeasuredPeaks::source_id("llvmpipe", Utc::now()));
        let cited = peak("nvidia-h200-datasheet");
        assert!(measured.is_measured() && !cited.is_measured());
        assert_eq!(measured.utilization_text(99.5), "99.5%");
        assert_eq!(cited.utilization_text(100.0), "100%");
        assert_eq!(
            measured.utilization_text(149.0),
            "149% (above the measured peak: re-measure it with `kcamp peak`)"
        );
        assert_eq!(
            cited.utilization_text(410.0),
            "410% (above the spec-sheet peak)"
        );
        assert_eq!(cited.utilization_text(f64::NAN), "-");
    }

    #[test]
    fn builtin_registry_loads_and_every_value_cites_a_known_source() {
        let r = Registry::builtin().unwrap();
        for id in [
            "h200", "h100", "a100", "mi300x", "rtx4090", "m2", "software",
        ] {
            let gpu = r.find(id).unwrap();
            assert_eq!(gpu.id, id);
            let sources = gpu
                .peak_flops
                .values()
                .map(|c| &c.source)
                .chain(gpu.memory_bandwidth.iter().map(|c| &c.source))
                .chain(gpu.l2_bytes.iter().map(|c| &c.source))
                .chain(gpu.units.iter().map(|u| &u.source));
            for s in sources {
                let src = &r.sources[s];
                assert!(src.url.starts_with("https://"), "{s}");
                assert!(!src.title.is_empty() && !src.date.is_empty(), "{s}");
            }
        }
        assert!(r.find("software").unwrap().peak_flops.is_empty());
    }

    #[test]
    fn unknown_source_id_is_rejected_with_the_gpu_and_field() {
        let text = "sources: {}\ngpus:\n  - id: x\n    name: X\n    match: [X]\n    peak_flops:\n      f32: { value: 1.0, source: nowhere }\n";
        let err = Registry::parse(text, Path::new("specs.yaml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("specs.yaml") && err.contains("peak_flops.f32") && err.contains("nowhere"),
            "{err}"
        );
    }

    #[test]
    fn adapter_names_select_entries_and_variants_with_higher_peaks_are_excluded() {
        let r = Registry::builtin().unwrap();
        let adapter = |name: &str, software| AdapterDescription {
            name: name.into(),
            software,
            ..Default::default()
        };
        assert_eq!(
            r.for_adapter(&adapter("NVIDIA H200", false)).unwrap().id,
            "h200"
        );
        assert_eq!(
            r.for_adapter(&adapter("NVIDIA H100 80GB HBM3", false))
                .unwrap()
                .id,
            "h100"
        );
        assert!(r.for_adapter(&adapter("NVIDIA H100 NVL", false)).is_none());
        assert!(r.for_adapter(&adapter("Apple M2 Max", false)).is_none());
        let soft = adapter("llvmpipe (LLVM 15.0.6, 256 bits)", true);
        assert_eq!(r.for_adapter(&soft).unwrap().id, "software");
    }

    /// H200 f32 SGEMM 4096³ in 10 ms, computed by hand:
    /// 2·4096³ = 137,438,953,472 FLOP → 13.744 TFLOP/s = 20.51 % of 67 TFLOP/s;
    /// 4·3·4096² = 201,326,592 B → 20.13 GB/s = 0.4194 % of 4.8 TB/s;
    /// intensity 682.67 FLOP/B, ridge 67/4.8 = 13.958 → compute-bound; 4096 blocks / 132 SMs
    /// = 31.03 waves.
    #[test]
    fn h200_sgemm_utilization_matches_hand_computation() {
        let r = Registry::builtin().unwrap();
        let peaks = r.find("h200").unwrap().util_peaks("f32").unwrap();
        let dims = parse_dims("M=4096,N=4096,K=4096").unwrap();
        let flops = eval_work_expr("--flops-expr", "2*M*N*K", &dims).unwrap();
        let bytes = eval_work_expr("--bytes-expr", "4*(M*K+K*N+M*N)", &dims).unwrap();
        assert_eq!(flops, 137_438_953_472.0);
        assert_eq!(bytes, 201_326_592.0);
        let u = utilization(&peaks, flops, bytes, 10.0, Some(4096)).unwrap();
        assert!(
            close(u.achieved_tflops, 13.7439, 1e-4),
            "{}",
            u.achieved_tflops
        );
        assert!(
            close(u.flops_utilization_pct, 20.513, 1e-4),
            "{}",
            u.flops_utilization_pct
        );
        assert!(close(u.achieved_gbps, 20.1327, 1e-4), "{}", u.achieved_gbps);
        assert!(close(u.bandwidth_utilization_pct, 0.41943, 1e-4));
        assert!(close(u.arithmetic_intensity, 682.667, 1e-5));
        assert!(close(u.ridge_point, 13.9583, 1e-4));
        assert_eq!(u.bound, Bound::Compute);
        assert!(close(u.waves.unwrap(), 31.0303, 1e-4));
        assert_eq!(u.peaks.flops.source, "nvidia-h200-datasheet");
    }

    #[test]
    fn bad_expression_names_the_flag_and_the_expression() {
        let dims = parse_dims("M=8").unwrap();
        let err = eval_work_expr("--bytes-expr", "4*(M*Q", &dims)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--bytes-expr") && err.contains("4*(M*Q"),
            "{err}"
        );
        let err = eval_work_expr("--flops-expr", "2*M*Z", &dims)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--flops-expr") && err.contains("2*M*Z"),
            "{err}"
        );
        assert!(
            parse_dims("M=x")
                .unwrap_err()
                .to_string()
                .contains("--dims")
        );
    }

    #[test]
    fn floor_uses_the_highest_peak_and_names_its_source() {
        let r = Registry::builtin().unwrap();
        let h200 = AdapterDescription {
            name: "NVIDIA H200".into(),
            driver: "580".into(),
            ..Default::default()
        };
        let mut store = PeakStore::default();
        let at = DateTime::parse_from_rfc3339("2026-11-29T00:00:00Z")
            .unwrap()
            .to_utc();
        store.insert(MeasuredPeaks {
            source: MeasuredPeaks::source_id("NVIDIA H200", at),
            adapter: "NVIDIA H200".into(),
            driver: "580".into(),
            measured_at: at,
            flops: BTreeMap::from([("f32".to_owned(), 60e12)]),
            bandwidth: Some(4.2e12),
        });
        let floor = FloorPeaks::for_adapter(&r, &store, &h200, Dtype::F32);
        // 4.2e12 · 1.25 = 5.25e12 beats the cited 4.8e12; 60e12 · 1.25 = 75e12 beats the
        // vector f32 67e12, but an f32 GEMM may run through TF32: 494.7e12 is the highest.
        assert_eq!(
            floor.bandwidth.as_ref().unwrap().source,
            "measured:NVIDIA H200:2026-11-29"
        );
        let flops = floor.flops.as_ref().unwrap();
        assert_eq!(
            (flops.value, flops.key.as_deref()),
            (494.7e12, Some("tf32-tensor"))
        );
        let (ms, ids) = floor.floor_ms(494.7e9, 5.25e9).unwrap();
        assert!(close(ms, 1.0, 1e-12), "{ms}");
        assert_eq!(
            ids,
            vec![
                "nvidia-h200-datasheet".to_owned(),
                "measured:NVIDIA H200:2026-11-29".to_owned()
            ]
        );
        let f16 = FloorPeaks::for_adapter(&r, &store, &h200, Dtype::F16);
        assert_eq!(f16.flops.unwrap().key.as_deref(), Some("f16-tensor"));
        let llvmpipe = AdapterDescription {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            driver: "llvmpipe".into(),
            software: true,
            ..Default::default()
        };
        store.insert(MeasuredPeaks {
            source: MeasuredPeaks::source_id(&llvmpipe.name, at),
            adapter: llvmpipe.name.clone(),
            driver: llvmpipe.driver.clone(),
            measured_at: at,
            flops: BTreeMap::from([("f32".to_owned(), 50e9)]),
            bandwidth: Some(3e9),
        });
        let soft = FloorPeaks::for_adapter(&r, &store, &llvmpipe, Dtype::F32);
        assert_eq!(soft.bandwidth.unwrap().value, 9e9, "3x headroom on a CPU");
        let soft_flops = soft.flops.unwrap();
        assert_eq!(soft_flops.value, 150e9);
        assert_eq!(soft_flops.key.as_deref(), Some("f32 measured ×3"));
        let nothing = FloorPeaks::default();
        assert!(nothing.floor_ms(1.0, 1.0).is_none());
        // Before `kcamp peak`, an outside bound alone bounds a software adapter; with a
        // measured peak, the higher one wins.
        let unmeasured = FloorPeaks::for_adapter(&r, &PeakStore::default(), &llvmpipe, Dtype::F32);
        assert!(!unmeasured.is_known());
        let bound = PeakValue {
            value: 416e9,
            source: "host-cpu-bound".into(),
            key: None,
        };
        let bounded = unmeasured.with_flops_bound(bound.clone());
        assert_eq!(bounded.flops, Some(bound));
        let both = FloorPeaks::for_adapter(&r, &store, &llvmpipe, Dtype::F32).with_flops_bound(
            PeakValue {
                value: 100e9,
                source: "host-cpu-bound".into(),
                key: None,
            },
        );
        assert_eq!(both.flops.unwrap().value, 150e9);
    }

    #[test]
    fn peak_store_round_trips_and_reports_a_corrupt_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PEAKS_FILE);
        assert!(PeakStore::load(&path).unwrap().adapters.is_empty());
        let at = Utc::now();
        let id = record_measured(
            &path,
            MeasuredPeaks {
                source: MeasuredPeaks::source_id("llvmpipe", at),
                adapter: "llvmpipe".into(),
                driver: "Mesa".into(),
                measured_at: at,
                flops: BTreeMap::from([("f32".to_owned(), 3e9)]),
                bandwidth: Some(5.5e9),
            },
        )
        .unwrap();
        assert!(id.starts_with("measured:llvmpipe:"));
        let store = PeakStore::load(&path).unwrap();
        assert_eq!(
            store.adapters[&PeakStore::key("llvmpipe", "Mesa")].bandwidth,
            Some(5.5e9)
        );
        std::fs::write(&path, "{ nope").unwrap();
        let err = PeakStore::load(&path).unwrap_err().to_string();
        assert!(err.contains(PEAKS_FILE), "{err}");
    }
}
