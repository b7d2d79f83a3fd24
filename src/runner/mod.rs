//! Running benchmark cases: the contract between the campaign, the GPU executor and the
//! dashboard. Cases run in a worker subprocess (`kcamp __worker`) that can be killed on
//! timeout; progress streams back as events.
//!
//! OWNER of the types below: shared contract (change only with care).
//! OWNER of orchestration (worker protocol, timeouts, artifacts, `kcamp run`): runner helper.

use std::collections::BTreeMap;
use std::path::PathBuf;

mod artifacts;
mod campaign_run;
mod isolation;
mod worker;

pub use artifacts::{
    RunResult, RunSummary, ShapeRecord, WGPU_VERSION, apply_roofline_floor, kernel_sha256,
    outcomes_to_table, outcomes_to_table_with, pass_work, result_json_line, summarize,
    write_run_artifacts,
};
pub use campaign_run::{CampaignRunOptions, RunReport, run_campaign_cases};
pub use isolation::{RunOptions, run_cases};
pub use worker::{WorkerMessage, real_executor, serve};

use serde::{Deserialize, Serialize};

use crate::manifest::{AdapterSelector, Dtype, KernelSpec, OpName, ShapeSpec, TimingConfig};
use crate::schema::{Check, SampleRow};

/// Everything a worker needs to run one shape. Serializable: it crosses the process
/// boundary as one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseSpec {
    pub op: OpName,
    pub dtype: Dtype,
    pub shape: ShapeSpec,
    /// Path of the WGSL file (for error messages) and its text.
    pub kernel_path: PathBuf,
    pub kernel_source: String,
    pub kernel: KernelSpec,
    pub adapter: AdapterSelector,
    pub timing: TimingConfig,
    /// Seed of the random inputs (recorded with the result).
    pub seed: u64,
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
}

/// The outcome of one case. `metrics` is keyed by CSV column name (e.g. `Forward TFLOPS`,
/// `Forward TFLOPS_stddev`, `Forward Time (ms)`, `out_snr`); missing columns are empty cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseOutcome {
    pub label: String,
    /// In the op's CSV dimension order.
    pub dims: Vec<u64>,
    pub check: Check,
    /// Why a case is not PASS (compile error with file:line:col, timeout, lost device...).
    pub reason: Option<String>,
    pub metrics: BTreeMap<String, f64>,
    /// Per-repeat samples of every metric (samples.csv rows).
    pub samples: Vec<SampleRow>,
    /// Worst relative error over the op's outputs.
    pub rel_err: Option<f64>,
    /// Mean forward latency in microseconds.
    pub latency_us: Option<f64>,
    pub timing_method: Option<TimingMethod>,
    pub adapter: Option<AdapterDescription>,
    pub seed: u64,
    pub trusted: bool,
}

/// Progress of a run, streamed to the dashboard or a terminal progress bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ProgressEvent {
    RunStarted {
        total_shapes: usize,
    },
    ShapeStarted {
        index: usize,
        total: usize,
        label: String,
    },
    /// One timed sample of a pass (`forward`, `backward_da`, ...): `repeat` of `repeats`.
    Sample {
        label: String,
        pass: String,
        repeat: u32,
        repeats: u32,
        ms: f64,
    },
    ShapeFinished {
        index: usize,
        label: String,
        check: Check,
        primary: Option<f64>,
    },
    /// A case was killed or failed outside the kernel (worker restarted).
    WorkerRestarted {
        label: String,
        reason: String,
    },
    RunFinished {
        passed: usize,
        total: usize,
    },
}

/// Runs one case in-process. The worker wraps the GPU executor in this; tests use fakes.
pub trait CaseExecutor {
    fn execute(&mut self, spec: &CaseSpec, progress: &mut dyn FnMut(ProgressEvent)) -> CaseOutcome;
}

impl CaseOutcome {
    /// The outcome of a case that produced no measurement (timeout, crash, no GPU...).
    pub fn without_measurement(spec: &CaseSpec, check: Check, reason: impl Into<String>) -> Self {
        CaseOutcome {
            label: spec.shape.label.clone(),
            dims: spec.op.shape_dims(&spec.shape),
            check,
            reason: Some(reason.into()),
            metrics: BTreeMap::new(),
            samples: Vec::new(),
            rel_err: None,
            latency_us: None,
            timing_method: None,
            adapter: None,
            seed: spec.seed,
            trusted: spec.kernel.trusted,
        }
    }
}
