//! The contract between the campaign, the runner that spawns workers and the executor
//! that runs one case on a GPU: case specs and outcomes, progress events. Cases cross the
//! process boundary as JSON lines, so every type here is serializable.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::isa::{DriverStatistics, EntryMetrics};
use crate::manifest::{AdapterSelector, KernelSpec, TimingConfig};
use crate::schema::SampleRow;
use crate::types::{AdapterDescription, Check, Dtype, OpName, ShapeSpec, TimingMethod};

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
    /// A second kernel measured in the same case (the incumbent's snapshot): the problem is
    /// built once, both outputs are checked, and their timed samples alternate A B B A over
    /// the repeats after a common warm-up, so each repeat gives a paired ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedKernel>,
    /// Check the output of every pass (one dispatch each) and time nothing: how a quick
    /// validation covers the shapes it does not time.
    #[serde(default)]
    pub check_only: bool,
    /// Also ask the driver what it made of the forward entry point (registers, code size,
    /// ...: [`DriverStatistics`]) where the adapter can say: the runner asks once a run,
    /// since it costs a second device and a second compile.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub driver_statistics: bool,
}

/// The other kernel of a paired case, with its own settings (its snapshot's `kernel.yaml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedKernel {
    pub kernel_path: PathBuf,
    pub kernel_source: String,
    pub kernel: KernelSpec,
}

/// The warm-up a timed step got before its samples: dispatched until `min_ms` of wall time
/// had passed and the last samples agreed within the tolerance (`settled`), or until the
/// cap (`settled: false`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmupRecord {
    /// `Forward`, `Backward`.
    pub step: String,
    pub dispatches: u64,
    /// Wall time of the warm-up.
    pub ms: f64,
    pub settled: bool,
    /// Time of one dispatch over the last warm-up samples.
    pub last_dispatch_ms: Vec<f64>,
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
    /// Static metrics of the kernel's forward entry point, from the compiler's front end.
    #[serde(default)]
    pub kernel_metrics: Option<EntryMetrics>,
    /// What the driver made of the forward entry point, when the case asked and the adapter
    /// could say ([`CaseSpec::driver_statistics`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_statistics: Option<DriverStatistics>,
    /// The warm-up each timed step actually got.
    #[serde(default)]
    pub warmup: Vec<WarmupRecord>,
    /// The entry points from `kernel.aligned` the case ran (its dimensions being aligned);
    /// empty where it ran the general ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aligned_entries: Vec<String>,
    /// The paired kernel's outcome, when the case was paired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Box<CaseOutcome>>,
    /// Where the case's time went, in ms by phase ([`phase`] names them): the worker's own
    /// (inputs, compiling, checks, warm-up, timing), then the runner's (starting the worker,
    /// the whole case as the runner saw it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub time_ms: BTreeMap<String, f64>,
    /// Set when the case could not run for a reason of the machine's, not the kernel's (no
    /// worker, no adapter, a worker that died before it opened one): no verdict may stand on
    /// it, so the measurement fails with nothing recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentFault>,
}

/// Why a case never reached its kernel ([`CaseOutcome::environment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentFault {
    /// The adapter selection (`--adapter`, `--backend`, the manifest's `adapter:`) matches
    /// none of the adapters found: the user's to fix.
    Selection,
    /// The machine could not run it: no worker could start, no adapter opened (none found,
    /// out of descriptors or memory), or the worker died before it had opened one.
    Machine,
}

/// The phases of a case's time ([`CaseOutcome::time_ms`], `result.json`'s `time_breakdown`).
pub mod phase {
    /// Generating the seeded inputs on the device, in place (its generator pass, and the
    /// generator's pipeline where the worker has none yet).
    pub const INPUTS: &str = "inputs";
    /// The host's f64 references (the operand values they read generated on the host).
    pub const REFS: &str = "refs";
    /// Compiling the scored kernel (its pipelines, bind groups, rotating outputs).
    pub const COMPILE: &str = "compile";
    /// Compiling the paired kernel (the incumbent's snapshot).
    pub const COMPILE_PAIRED: &str = "compile_paired";
    /// Asking the driver what it made of the kernel.
    pub const DRIVER_STATISTICS: &str = "driver_statistics";
    /// The first dispatch of every pass checked against the reference, scored kernel.
    pub const CHECK: &str = "check";
    pub const CHECK_PAIRED: &str = "check_paired";
    /// The warm-up of each timed step (both kernels of a pair alternating).
    pub const WARMUP: &str = "warmup";
    /// Sizing the batches and the timed samples (both kernels of a pair interleaved).
    pub const TIMING: &str = "timing";
    /// The outputs of the last timed dispatches checked against the reference.
    pub const VERIFY: &str = "verify";
    pub const VERIFY_PAIRED: &str = "verify_paired";
    /// Everything else inside the worker (buffers, timers, the metrics).
    pub const WORKER_OTHER: &str = "worker_other";
    /// Starting a worker process for the case (the runner's clock).
    pub const WORKER_SPAWN: &str = "worker_spawn";
    /// The case as the runner saw it, from sending it to the worker to its outcome: the
    /// worker's phases plus opening the adapter in a new worker and the messages.
    pub const CASE_WALL: &str = "case_wall";
    /// The run's throwaway worker that compiles the first timed case's kernels first.
    pub const PRECOMPILE: &str = "precompile";
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
    /// What the worker is doing for a case before and between its samples (`compiling the
    /// kernel`, `checking the first dispatch against the f64 reference`, `warming up
    /// Forward`, ...): a case that runs out of time says where it was.
    Phase {
        label: String,
        phase: String,
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
            dims: crate::ops::shape_dims(spec.op, &spec.shape),
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
            kernel_metrics: None,
            driver_statistics: None,
            warmup: Vec::new(),
            aligned_entries: Vec::new(),
            paired: None,
            time_ms: BTreeMap::new(),
            environment: None,
        }
    }

    /// Adds `ms` to the case's time in `phase`.
    pub fn add_time(&mut self, phase: &str, ms: f64) {
        *self.time_ms.entry(phase.to_owned()).or_default() += ms;
    }
}
