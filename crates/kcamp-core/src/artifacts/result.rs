//! `result.json`: everything needed to trust or reproduce a run (adapter, driver, timing
//! method, seeds, kernel hash, static kernel metrics), and the `RESULT_JSON` line. Written by
//! the runner, read by records, reports and the dashboard through these types alone.

use std::collections::BTreeMap;
use std::path::Path;

use super::fingerprint::{Fingerprint, sha256_hex};
use crate::Result;
use crate::case::{CaseOutcome, WarmupRecord};
use crate::files::{FINGERPRINT_JSON, RESULT_JSON};
use crate::isa::{DriverStatistics, EntryMetrics};
use crate::manifest::KernelSpec;
use crate::schema::{BenchTable, FORWARD_TIME};
use crate::types::{
    AdapterDescription, Check, Dtype, OpName, RuntimeChecks, TimingMethod, Validation,
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Per-shape provenance in result.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeRecord {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    pub reason: Option<String>,
    pub seed: u64,
    pub latency_us: Option<f64>,
    pub rel_err: Option<f64>,
    pub timing_method: Option<TimingMethod>,
    /// The warm-up each timed step actually got (dispatches, time, whether it settled).
    #[serde(default)]
    pub warmup: Vec<WarmupRecord>,
    /// The entry points from `kernel.aligned` this shape ran (its dimensions being aligned);
    /// empty where it ran the general ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aligned_entries: Vec<String>,
}

impl ShapeRecord {
    pub fn of(o: &CaseOutcome) -> ShapeRecord {
        ShapeRecord {
            label: o.label.clone(),
            dims: o.dims.clone(),
            check: o.check,
            reason: o.reason.clone(),
            seed: o.seed,
            latency_us: o.latency_us,
            rel_err: o.rel_err,
            timing_method: o.timing_method,
            warmup: o.warmup.clone(),
            aligned_entries: o.aligned_entries.clone(),
        }
    }
}

/// The other kernel of a paired run, measured in the same worker and interleaved with the
/// scored one (its numbers are in `paired.csv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedRun {
    /// The snapshot it came from, e.g. `rounds/round-3/kernel`.
    pub kernel_dir: String,
    pub kernel_file: String,
    pub kernel_sha256: String,
    /// Samples alternated A B B A over the repeats (the built-in runner); false when the
    /// two sides were measured one after the other (a harness).
    pub interleaved: bool,
    pub shapes: Vec<ShapeRecord>,
    /// The runtime-checks mode of the paired kernel (its snapshot's own settings); absent in
    /// runs recorded before it was kept, which compiled both sides with the candidate's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_checks: Option<RuntimeChecks>,
}

/// The RESULT_JSON summary (docs/harness.md, "How a case is measured", item 11).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub total: usize,
    pub passed: usize,
    pub all_pass: bool,
    pub latency_us_by_shape: BTreeMap<String, f64>,
    pub latency_us_geomean: Option<f64>,
    pub max_rel_err: Option<f64>,
    /// Name of the primary metric.
    pub metric: String,
    /// Geometric mean of the primary metric over PASS shapes.
    pub aggregate: Option<f64>,
}

impl RunSummary {
    /// The summary of a CSV without a run record (an imported CSV, a harness's output):
    /// latencies from `Forward Time (ms)`, the worst relative error from the worst SNR
    /// column (`snr = 20·log10(1/rel_err)`).
    pub fn from_table(table: &BenchTable, metric: &str) -> RunSummary {
        let pass: Vec<&crate::schema::Row> = table
            .rows
            .iter()
            .filter(|r| r.check == Check::Pass)
            .collect();
        let latency_us_by_shape: BTreeMap<String, f64> = pass
            .iter()
            .filter_map(|r| {
                r.metric(&table.schema, FORWARD_TIME)
                    .map(|ms| (r.label.clone(), ms * 1000.0))
            })
            .collect();
        let latencies: Vec<f64> = latency_us_by_shape.values().copied().collect();
        RunSummary {
            total: table.rows.len(),
            passed: pass.len(),
            all_pass: !table.rows.is_empty() && pass.len() == table.rows.len(),
            latency_us_geomean: crate::stats::geomean(&latencies),
            latency_us_by_shape,
            max_rel_err: max_rel_err_from_snr(table),
            metric: metric.to_owned(),
            aggregate: table.aggregate(metric),
        }
    }
}

/// The worst relative error of the PASS rows, from their worst SNR column.
pub fn max_rel_err_from_snr(table: &BenchTable) -> Option<f64> {
    let snr_cols: Vec<&str> = table
        .schema
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| n.ends_with("_snr"))
        .collect();
    table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .flat_map(|r| {
            snr_cols
                .iter()
                .filter_map(|col| r.metric(&table.schema, col))
        })
        .filter(|s| s.is_finite())
        .map(|snr| 10f64.powf(-snr / 20.0))
        .fold(None, |acc: Option<f64>, v| {
            Some(acc.map_or(v, |a| a.max(v)))
        })
}

/// A shape that did not PASS, with the reason the run recorded for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeFailure {
    pub label: String,
    pub check: Check,
    /// The compile error, mismatch, timeout... (None when the CSV came without a run
    /// record, e.g. from a harness: its log says why).
    pub reason: Option<String>,
    /// A shape a quick validation checked without timing it (`checked_shapes` of the run
    /// record): it fails the round as a timed shape does, and has no row in the table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untimed: bool,
}

/// The shapes of `table` that did not PASS, with their reasons from `result` if any.
pub fn failures(table: &BenchTable, result: Option<&RunResult>) -> Vec<ShapeFailure> {
    table
        .rows
        .iter()
        .filter(|r| r.check != Check::Pass)
        .map(|r| ShapeFailure {
            label: r.label.clone(),
            check: r.check,
            reason: result
                .and_then(|res| res.shape(&r.label))
                .and_then(|s| s.reason.clone()),
            untimed: false,
        })
        .collect()
}

/// The untimed checked shapes (a run record's `checked_shapes`) that did not PASS, with
/// their reasons.
pub fn untimed_failures(checked: &[ShapeRecord]) -> impl Iterator<Item = ShapeFailure> + '_ {
    checked
        .iter()
        .filter(|s| s.check != Check::Pass)
        .map(|s| ShapeFailure {
            label: s.label.clone(),
            check: s.check,
            reason: s.reason.clone(),
            untimed: true,
        })
}

/// `[kcamp] RESULT_JSON={...}` (one line).
pub fn result_json_line(summary: &RunSummary) -> String {
    let json = serde_json::to_string(summary).unwrap_or_else(|_| "{}".to_owned());
    format!("[kcamp] RESULT_JSON={json}")
}

/// `result.json`: everything needed to trust or reproduce a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub op: OpName,
    pub dtype: Dtype,
    pub validation: Validation,
    pub adapter: Option<AdapterDescription>,
    pub wgpu_version: String,
    /// Every timing method a shape used (timestamps where available, else host clock).
    pub timing_methods: Vec<TimingMethod>,
    /// Runtime bounds checks were off (trusted mode).
    pub trusted: bool,
    pub kernel_file: String,
    pub kernel_sha256: String,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub shapes: Vec<ShapeRecord>,
    pub summary: RunSummary,
    /// Static metrics of the kernel's forward entry point (naga), for `isa_metric_progress`.
    #[serde(default)]
    pub kernel_metrics: Option<EntryMetrics>,
    /// What the driver made of the forward entry point (registers, ...), where the adapter
    /// reports it; absent on adapters that do not (lavapipe) and in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_statistics: Option<DriverStatistics>,
    /// How the run was made; absent in runs recorded before fingerprints existed.
    #[serde(default)]
    pub fingerprint: Option<Fingerprint>,
    /// Shapes whose output was checked but not timed (a quick validation checks every target
    /// shape): one dispatch per pass against the f64 reference.
    #[serde(default)]
    pub checked_shapes: Vec<ShapeRecord>,
    /// Wall time of those checks (what checking every shape adds to a quick validation).
    #[serde(default)]
    pub checked_shapes_ms: Option<f64>,
    /// The kernel measured beside this one, when the run was paired.
    #[serde(default)]
    pub paired: Option<PairedRun>,
    /// The kernel settings it was measured with (the manifest's `kernel:` section or the
    /// snapshot's `kernel.yaml`), so that a later run can re-measure the snapshot alike.
    #[serde(default)]
    pub kernel_settings: Option<KernelSpec>,
    /// Where the run's time went; absent in runs recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_breakdown: Option<TimeBreakdown>,
}

/// Where a run's time went: its wall time, the workers it started, and the time of every
/// phase summed over its cases ([`crate::case::phase`]), then shape by shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeBreakdown {
    /// Wall time of the run's cases, precompile included, ms.
    pub wall_ms: f64,
    /// Worker processes started, the precompile's included.
    pub workers_started: u32,
    /// Each phase summed over the cases, ms. `worker_setup` is what the runner saw of a case
    /// beyond the worker's own phases: opening the adapter in a new worker, the messages.
    pub phases_ms: BTreeMap<String, f64>,
    pub shapes: Vec<ShapeTime>,
}

/// One case's phases, ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeTime {
    pub label: String,
    /// Checked without timing (a quick validation's other target shapes).
    pub untimed: bool,
    pub phases_ms: BTreeMap<String, f64>,
}

impl TimeBreakdown {
    /// The breakdown of a run whose cases (`timed`, then `untimed`) took `wall_ms`.
    pub fn of(wall_ms: f64, timed: &[CaseOutcome], untimed: &[CaseOutcome]) -> TimeBreakdown {
        use crate::case::phase;
        let worker_phases = [
            phase::INPUTS,
            phase::REFS,
            phase::COMPILE,
            phase::COMPILE_PAIRED,
            phase::DRIVER_STATISTICS,
            phase::CHECK,
            phase::CHECK_PAIRED,
            phase::WARMUP,
            phase::TIMING,
            phase::VERIFY,
            phase::VERIFY_PAIRED,
            phase::WORKER_OTHER,
        ];
        let mut phases_ms: BTreeMap<String, f64> = BTreeMap::new();
        let mut workers_started = 0;
        let mut shapes = Vec::new();
        let cases = timed
            .iter()
            .map(|o| (o, false))
            .chain(untimed.iter().map(|o| (o, true)));
        for (o, untimed) in cases {
            let mut mine = o.time_ms.clone();
            if let Some(wall) = mine.remove(phase::CASE_WALL) {
                let inside: f64 = worker_phases.iter().filter_map(|p| mine.get(*p)).sum();
                mine.insert("worker_setup".to_owned(), (wall - inside).max(0.0));
            }
            if mine.contains_key(phase::WORKER_SPAWN) {
                workers_started += 1;
            }
            if mine.contains_key(phase::PRECOMPILE) {
                workers_started += 1;
            }
            for (k, v) in &mine {
                *phases_ms.entry(k.clone()).or_default() += v;
            }
            shapes.push(ShapeTime {
                label: o.label.clone(),
                untimed,
                phases_ms: mine,
            });
        }
        TimeBreakdown {
            wall_ms,
            workers_started,
            phases_ms,
            shapes,
        }
    }

    /// `4.21 s: 7 workers started 0.9 s, inputs 1.2 s, …`, the largest phases first.
    pub fn summary(&self) -> String {
        let mut phases: Vec<(&String, &f64)> = self.phases_ms.iter().collect();
        phases.sort_by(|a, b| b.1.total_cmp(a.1));
        let parts: Vec<String> = phases
            .iter()
            .filter(|(_, ms)| **ms >= 0.5)
            .map(|(name, ms)| format!("{name} {}", crate::units::millis(**ms)))
            .collect();
        format!(
            "{} over {} case(s), {} worker(s) started: {}",
            crate::units::millis(self.wall_ms),
            self.shapes.len(),
            self.workers_started,
            parts.join(", ")
        )
    }
}

impl RunResult {
    /// Provenance of a finished run. The adapter is the first one a case reported.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        op: OpName,
        dtype: Dtype,
        validation: Validation,
        kernel_file: &str,
        kernel_source: &str,
        checks: RuntimeChecks,
        started_at: DateTime<Utc>,
        outcomes: &[CaseOutcome],
        summary: RunSummary,
    ) -> RunResult {
        let mut timing_methods: Vec<TimingMethod> = Vec::new();
        for m in outcomes.iter().filter_map(|o| o.timing_method) {
            if !timing_methods.contains(&m) {
                timing_methods.push(m);
            }
        }
        let adapter = outcomes.iter().find_map(|o| o.adapter.clone());
        let fingerprint =
            Fingerprint::builtin(adapter.as_ref(), checks, timing_methods.first().copied());
        RunResult {
            op,
            dtype,
            validation,
            adapter,
            wgpu_version: outcomes
                .iter()
                .find_map(|o| o.adapter.as_ref())
                .map(|a| a.wgpu_version.clone())
                .unwrap_or_default(),
            timing_methods,
            trusted: checks == RuntimeChecks::None,
            kernel_file: kernel_file.to_owned(),
            kernel_sha256: kernel_sha256(kernel_source),
            started_at,
            finished_at: Utc::now(),
            shapes: outcomes.iter().map(ShapeRecord::of).collect(),
            summary,
            kernel_metrics: outcomes.iter().find_map(|o| o.kernel_metrics.clone()),
            driver_statistics: outcomes.iter().find_map(|o| o.driver_statistics.clone()),
            fingerprint: Some(fingerprint),
            checked_shapes: Vec::new(),
            checked_shapes_ms: None,
            paired: None,
            kernel_settings: None,
            time_breakdown: None,
        }
    }
}

/// Lower-case hex SHA-256 of the kernel text.
pub fn kernel_sha256(source: &str) -> String {
    sha256_hex(source.as_bytes())
}

impl Fingerprint {
    /// A run's fingerprint from its `result.json`: the recorded one, else the one its fields
    /// imply (runs recorded before fingerprints existed).
    pub fn of_result(result: &RunResult) -> Fingerprint {
        result.fingerprint.clone().unwrap_or_else(|| Fingerprint {
            kcamp_version: None,
            ..Fingerprint::builtin(
                result.adapter.as_ref(),
                RuntimeChecks::of_trusted(result.trusted),
                result.timing_methods.first().copied(),
            )
        })
    }

    /// The fingerprint of the measurement in `dir` (a round's `artifacts/`):
    /// `fingerprint.json`, else what `result.json` implies; `None` when neither exists.
    pub fn read(dir: &Path) -> Result<Option<Fingerprint>> {
        if let Some(f) = super::read_json_opt(&dir.join(FINGERPRINT_JSON), "fingerprint")? {
            return Ok(Some(f));
        }
        Ok(RunResult::read(&dir.join(RESULT_JSON))?.map(|r| Fingerprint::of_result(&r)))
    }
}

impl RunResult {
    /// Reads a run's `result.json`; `Ok(None)` when the run wrote none (an imported CSV).
    pub fn read(path: &Path) -> Result<Option<RunResult>> {
        super::read_json_opt(path, "run result")
    }

    /// Worst relative error over every shape that reported one.
    pub fn max_rel_err(&self) -> Option<f64> {
        self.shapes
            .iter()
            .filter_map(|s| s.rel_err)
            .fold(None, |acc: Option<f64>, v| {
                Some(acc.map_or(v, |a| a.max(v)))
            })
    }

    /// The record of shape `label`.
    pub fn shape(&self, label: &str) -> Option<&ShapeRecord> {
        self.shapes.iter().find(|s| s.label == label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::fingerprint::HarnessIdentity;

    #[test]
    fn kernel_hash_is_sha256_hex() {
        assert_eq!(
            kernel_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn result_line_carries_the_summary_fields() {
        let summary = RunSummary {
            total: 2,
            passed: 1,
            all_pass: false,
            latency_us_by_shape: BTreeMap::from([("a".to_owned(), 12.5)]),
            latency_us_geomean: Some(12.5),
            max_rel_err: Some(2e-7),
            metric: "Forward TFLOPS".into(),
            aggregate: Some(3.0),
        };
        let line = result_json_line(&summary);
        let json = line.strip_prefix("[kcamp] RESULT_JSON=").unwrap();
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back["total"], 2);
        assert_eq!(back["all_pass"], false);
        assert_eq!(back["latency_us_by_shape"]["a"], 12.5);
        assert_eq!(back["metric"], "Forward TFLOPS");
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_measurement_reads_its_fingerprint_json_else_what_its_result_implies() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Fingerprint::read(dir.path()).unwrap(), None);
        let summary = RunSummary {
            total: 0,
            passed: 0,
            all_pass: true,
            latency_us_by_shape: BTreeMap::new(),
            latency_us_geomean: None,
            max_rel_err: None,
            metric: "Forward TFLOPS".into(),
            aggregate: None,
        };
        let mut old = RunResult::new(
            OpName::Gemm,
            Dtype::F32,
            Validation::Full,
            "k.wgsl",
            "",
            RuntimeChecks::None,
            Utc::now(),
            &[],
            summary,
        );
        // Recorded before fingerprints existed: the fields imply one, of no known version.
        old.fingerprint = None;
        crate::fsutil::write_json_atomic(&dir.path().join(RESULT_JSON), &old).unwrap();
        let implied = Fingerprint::read(dir.path()).unwrap().unwrap();
        assert_eq!(implied.runtime_checks, Some(RuntimeChecks::None));
        assert_eq!(implied.kcamp_version, None);
        let f = Fingerprint::external(HarnessIdentity::Imported);
        f.write(dir.path()).unwrap();
        assert_eq!(Fingerprint::read(dir.path()).unwrap(), Some(f));
    }
}
