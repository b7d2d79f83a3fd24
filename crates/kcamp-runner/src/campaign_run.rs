//! A campaign's benchmark run: the manifest's shapes through isolated workers, the roofline
//! floor, the artifacts, and `live/progress.json` for a dashboard in another process.
//! `kcamp run`, `baseline`, `validate` and `report` all go through [`run_campaign_cases`].

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use kcamp_core::artifacts::paired::PairedSide;
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::artifacts::result::{
    PairedRun, RunResult, RunSummary, ShapeRecord, TimeBreakdown, kernel_sha256, result_json_line,
};
use kcamp_core::case::{CaseOutcome, CaseSpec, EnvironmentFault, PairedKernel, ProgressEvent};
use kcamp_core::files::{
    ARTIFACTS_DIR, KERNEL_DIR, KERNEL_SETTINGS_FILE, PROGRESS_FILE, RESULT_JSON,
};
use kcamp_core::fsutil::write_json_atomic;
use kcamp_core::host::Host;
use kcamp_core::manifest::{AdapterSelector, Manifest};
use kcamp_core::next::{Command, NextStep};
use kcamp_core::ops::{op as op_spec, pass_work, shape_dims};
use kcamp_core::schema::{BenchTable, Samples};
use kcamp_core::specs::{FloorPeaks, PeakStore, Registry, peak_store_path};
use kcamp_core::types::Check;
use kcamp_core::types::{AdapterDescription, Dtype, OpName, ShapeSpec, Validation};
use kcamp_core::{Error, Result};

use crate::artifacts::{apply_roofline_floor, outcomes_to_table, summarize, write_run_artifacts};
use crate::isolation::{RunOptions, run_cases};
use crate::shards::{ShardEvent, ShardPlan, run_sharded};
use crate::slurm::SlurmJobs;
use kcamp_core::artifacts::progress::ShardProgress;
use kcamp_core::executor::{Placement, Shard};

/// Directory of ad-hoc runs (`kcamp run`) inside a campaign.
pub use kcamp_core::files::RUNS_DIR;
/// The live progress file is rewritten at most this often.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// How to run a campaign's cases.
#[derive(Debug, Clone)]
pub struct CampaignRunOptions {
    pub validation: Validation,
    /// Overrides the manifest's adapter selector.
    pub adapter: Option<AdapterSelector>,
    /// Where the artifacts go (default `<campaign>/runs/<UTC timestamp>/`).
    pub artifacts_dir: Option<PathBuf>,
    /// Round being validated, shown in the live progress.
    pub round: Option<u32>,
    /// Worker program and arguments (default: this executable's `__worker`).
    pub worker_command: Option<Vec<OsString>>,
    /// The shapes to run (default: the validation's shapes from the manifest).
    pub shapes: Option<Vec<ShapeSpec>>,
    /// The kernel directory (default: the campaign's `kernel/`).
    pub kernel_dir: Option<PathBuf>,
    /// Measure this kernel directory (a round's snapshot, with its own `kernel.yaml`) in
    /// the same cases, interleaved; its numbers go to `paired.csv`.
    pub paired_kernel_dir: Option<PathBuf>,
    /// Shapes whose outputs are checked, untimed, after the timed ones (alone when
    /// `shapes` is an empty list: a check-only run).
    pub check_shapes: Vec<ShapeSpec>,
    /// The seed of the inputs (default: the manifest's, else a fresh one).
    pub seed: Option<u64>,
    pub cancel: Arc<AtomicBool>,
}

impl CampaignRunOptions {
    pub fn new(validation: Validation) -> CampaignRunOptions {
        CampaignRunOptions {
            validation,
            adapter: None,
            artifacts_dir: None,
            round: None,
            worker_command: None,
            shapes: None,
            kernel_dir: None,
            paired_kernel_dir: None,
            check_shapes: Vec::new(),
            seed: None,
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What a campaign run produced (the artifacts are already on disk in `artifacts_dir`).
#[derive(Debug, Clone)]
pub struct RunReport {
    pub artifacts_dir: PathBuf,
    pub outcomes: Vec<CaseOutcome>,
    pub table: BenchTable,
    pub samples: Samples,
    pub result: RunResult,
    /// `[kcamp] RESULT_JSON={...}`.
    pub result_line: String,
}

impl RunReport {
    pub fn summary(&self) -> &RunSummary {
        &self.result.summary
    }
}

/// A run in which some case never reached its kernel (no worker, no adapter, a worker lost
/// before it opened one) is no measurement: an error before anything is written, so that
/// no verdict, held-out check or record stands on the machine's failure. A selection that
/// matches no adapter is the user's input (exit 2); anything else the machine's (exit 3).
fn environment_failure(outcomes: &[CaseOutcome]) -> Result<()> {
    let faulty = outcomes
        .iter()
        .flat_map(|o| std::iter::once(o).chain(o.paired.as_deref()))
        .find(|o| o.environment.is_some());
    let Some(o) = faulty else {
        return Ok(());
    };
    let reason = o.reason.as_deref().unwrap_or("no reason given");
    let adapters = NextStep::run(Command::Adapters);
    Err(match o.environment {
        Some(EnvironmentFault::Selection) => Error::input(format!(
            "the adapter selection matches no adapter, so nothing was measured and nothing recorded (shape {}: {reason})",
            o.label
        ))
        .with_next(vec![adapters.why(
            "lists the adapters; pick one with --adapter / --backend or the manifest's adapter: section, then run the command again",
        )]),
        _ => Error::Gpu(format!(
            "the machine could not run the kernel, so nothing was measured and nothing recorded; this is not the kernel's failure (shape {}: {reason})",
            o.label
        ))
        .with_next(vec![adapters
            .before("fix what stops the GPU from opening (its driver, `ulimit -n` descriptors, `ulimit -v` memory, `ulimit -f` file size)")
            .why("says whether an adapter opens now; then run the command again")]),
    })
}

/// Run the campaign's working kernel on its quick or full shape set and write the
/// artifacts. Shapes that fail do not make this an error; a missing kernel or an empty
/// quick set does.
pub fn run_campaign_cases(
    campaign_dir: &Path,
    manifest: &Manifest,
    opts: &CampaignRunOptions,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<RunReport> {
    let shapes: Vec<&ShapeSpec> = match (&opts.shapes, opts.validation) {
        (Some(shapes), _) => shapes.iter().collect(),
        (None, Validation::Full) => manifest.target_shapes.iter().collect(),
        (None, Validation::Quick) => manifest.representative(),
    };
    // No shape to time is a check-only run when there are shapes to check.
    if shapes.is_empty() && opts.check_shapes.is_empty() {
        return Err(Error::State(
            "quick validation needs representative_shapes in manifest.yaml (BASELINE picks \
             them); run a full validation instead"
                .into(),
        ));
    }
    let kernel_dir = opts
        .kernel_dir
        .clone()
        .unwrap_or_else(|| campaign_dir.join(KERNEL_DIR));
    let kernel_path = kernel_dir.join(&manifest.kernel.file);
    // A missing or unreadable kernel file is the user's to fix (exit 2), naming the path.
    let kernel_source =
        kcamp_core::fsutil::read_input_text(&kernel_path, kcamp_core::fsutil::MAX_INPUT_BYTES)?;
    let base_seed = opts.seed.or(manifest.seed).unwrap_or_else(time_seed);
    let adapter = opts
        .adapter
        .clone()
        .unwrap_or_else(|| manifest.adapter.clone());
    let paired = match &opts.paired_kernel_dir {
        Some(dir) => Some(paired_kernel(campaign_dir, dir)?),
        None => None,
    };
    let timed = shapes.len();
    let specs: Vec<CaseSpec> = shapes
        .iter()
        .copied()
        .chain(&opts.check_shapes)
        .enumerate()
        .map(|(i, shape)| CaseSpec {
            op: manifest.op,
            dtype: manifest.dtype,
            shape: shape.clone(),
            kernel_path: kernel_path.clone(),
            kernel_source: kernel_source.clone(),
            kernel: manifest.kernel.clone(),
            adapter: adapter.clone(),
            timing: manifest.timing.clone(),
            seed: base_seed.wrapping_add(i as u64),
            paired: if i < timed { paired.clone() } else { None },
            check_only: i >= timed,
            driver_statistics: i == 0 && timed > 0,
        })
        .collect();

    let mut run_opts = match &opts.worker_command {
        Some(cmd) => RunOptions::with_worker(cmd.clone(), manifest.effective_timeout_sec()?),
        None => RunOptions::new(manifest.effective_timeout_sec()?)?,
    };
    run_opts.cancel = Arc::clone(&opts.cancel);
    run_opts.primary_metric = Some(manifest.primary_metric.clone());

    let started_at = Utc::now();
    let mut live = LiveProgress::new(
        campaign_dir,
        opts.validation,
        opts.round,
        started_at,
        &specs,
    );
    let mut checks_started: Option<Instant> = None;
    let mut checks_ms = None;
    let mut timing_checks = |event: &ProgressEvent| match event {
        ProgressEvent::ShapeStarted { index, .. } if *index >= timed => {
            checks_started.get_or_insert_with(Instant::now);
        }
        ProgressEvent::RunFinished { .. } => {
            checks_ms = checks_started.map(|t| t.elapsed().as_secs_f64() * 1e3);
        }
        _ => {}
    };
    let spread = Spread::plan(campaign_dir, manifest, &adapter, &run_opts, &mut live)?;
    // After the jobs' queue wait, which is the cluster's, not the cases'.
    let cases_started = Instant::now();
    let (mut outcomes, placement) = match spread {
        Spread::One => {
            let outcomes = run_cases(&specs, &run_opts, &mut |event| {
                timing_checks(&event);
                live.observe(&event);
                on_event(event);
            });
            (outcomes, None)
        }
        Spread::Shards {
            plans,
            places,
            mut jobs,
        } => {
            let totals: Vec<usize> = (0..plans.len())
                .map(|s| crate::shards::cases_of(s, plans.len(), specs.len()).len())
                .collect();
            live.start_shards(&places, &totals);
            on_event(ProgressEvent::RunStarted {
                total_shapes: specs.len(),
            });
            let (mut outcomes, shard_of) = run_sharded(&specs, &plans, &mut |e| {
                if matches!(
                    e.event,
                    ProgressEvent::RunStarted { .. } | ProgressEvent::RunFinished { .. }
                ) {
                    live.observe_shard(&e);
                    return;
                }
                timing_checks(&e.event);
                live.observe_shard(&e);
                on_event(e.event);
            });
            let passed = outcomes.iter().filter(|o| o.check == Check::Pass).count();
            let finished = ProgressEvent::RunFinished {
                passed,
                total: specs.len(),
            };
            timing_checks(&finished);
            on_event(finished);
            let placement = placement_of(&specs, &outcomes, &shard_of, &plans, &places, &mut jobs);
            if let Some(jobs) = jobs.as_mut() {
                // How each job stood when the cases ended (a job that ended early says
                // why its shapes failed), then every job ends with the step.
                let _ = jobs.refresh();
                let tasks = jobs.tasks.clone();
                jobs.cancel()?;
                for (s, task) in tasks.iter().enumerate() {
                    let mut mine: Vec<CaseOutcome> = Vec::new();
                    let idx: Vec<usize> =
                        (0..outcomes.len()).filter(|i| shard_of[*i] == s).collect();
                    for &i in &idx {
                        mine.push(outcomes[i].clone());
                    }
                    jobs.account(task, &mut mine);
                    for (&i, o) in idx.iter().zip(mine) {
                        outcomes[i] = o;
                    }
                }
            }
            (outcomes, Some(placement))
        }
    };
    live.finish();
    environment_failure(&outcomes)?;
    let cases_ms = cases_started.elapsed().as_secs_f64() * 1e3;

    let checked = outcomes.split_off(timed.min(outcomes.len()));
    let time_breakdown = TimeBreakdown::of(cases_ms, &outcomes, &checked);
    let mut paired_outcomes: Vec<CaseOutcome> = outcomes
        .iter_mut()
        .zip(&specs)
        .map(|(o, spec)| match o.paired.take() {
            Some(p) => *p,
            None => CaseOutcome::without_measurement(
                spec,
                Check::Error,
                format!(
                    "not measured: the case ended before the pair ({})",
                    o.reason.as_deref().unwrap_or("no reason given")
                ),
            ),
        })
        .collect();

    let peaks = floor_peaks(campaign_dir, &outcomes, manifest)?;
    apply_roofline_floor(&mut outcomes, manifest.op, manifest.dtype, &peaks);
    apply_roofline_floor(&mut paired_outcomes, manifest.op, manifest.dtype, &peaks);

    let (table, samples) = outcomes_to_table(manifest.op, &outcomes)?;
    let everything: Vec<CaseOutcome> = outcomes.iter().chain(&checked).cloned().collect();
    let summary = summarize(&table, &everything, &manifest.primary_metric);
    let result_line = result_json_line(&summary);
    let mut result = RunResult::new(
        manifest.op,
        manifest.dtype,
        opts.validation,
        &manifest.kernel.file,
        &kernel_source,
        manifest.kernel.runtime_checks(),
        started_at,
        &outcomes,
        summary,
    );
    result.checked_shapes = checked.iter().map(ShapeRecord::of).collect();
    result.checked_shapes_ms = checks_ms;
    result.kernel_settings = Some(manifest.kernel.clone());
    result.time_breakdown = Some(time_breakdown);
    if let (Some(f), Some(p)) = (result.fingerprint.as_mut(), placement) {
        f.placement = Some(p);
    }
    let artifacts_dir = opts.artifacts_dir.clone().unwrap_or_else(|| {
        campaign_dir
            .join(RUNS_DIR)
            .join(started_at.format("%Y%m%dT%H%M%S%.3fZ").to_string())
    });
    if let (Some(p), Some(dir)) = (&paired, &opts.paired_kernel_dir) {
        let (paired_table, paired_samples) = outcomes_to_table(manifest.op, &paired_outcomes)?;
        PairedSide {
            table: paired_table,
            samples: Some(paired_samples),
            checks: Some(p.kernel.runtime_checks()),
        }
        .write(&artifacts_dir)?;
        result.paired = Some(PairedRun {
            kernel_dir: dir
                .strip_prefix(campaign_dir)
                .unwrap_or(dir)
                .display()
                .to_string(),
            kernel_file: p.kernel.file.clone(),
            kernel_sha256: kernel_sha256(&p.kernel_source),
            interleaved: true,
            shapes: paired_outcomes.iter().map(ShapeRecord::of).collect(),
            runtime_checks: Some(p.kernel.runtime_checks()),
        });
    }
    write_run_artifacts(&artifacts_dir, &table, &samples, &result)?;
    Ok(RunReport {
        artifacts_dir,
        outcomes,
        table,
        samples,
        result,
        result_line,
    })
}

/// The paired kernel of a run: the snapshot's file with the snapshot's own settings (its
/// `kernel.yaml`, else the ones its round recorded in `result.json`, else the manifest's),
/// its runtime-checks mode included: the checks mode is a kernel setting that travels with
/// the snapshot, so a round whose change is `trusted: true` is judged against the incumbent
/// as the incumbent runs (compiling both sides the candidate's way hid that change).
fn paired_kernel(campaign_dir: &Path, dir: &Path) -> Result<PairedKernel> {
    let base = Manifest::load_base(campaign_dir)?;
    let recorded = match dir.parent() {
        Some(round) => RunResult::read(&round.join(ARTIFACTS_DIR).join(RESULT_JSON))?
            .and_then(|r| r.kernel_settings),
        None => None,
    };
    let kernel = Manifest {
        kernel: recorded.unwrap_or_else(|| base.kernel.clone()),
        ..base
    }
    .with_kernel_settings_of(&dir.join(KERNEL_SETTINGS_FILE))?
    .kernel;
    let kernel_path = dir.join(&kernel.file);
    let kernel_source = std::fs::read_to_string(&kernel_path).map_err(|e| {
        Error::io(
            format!("reading the paired kernel {}", kernel_path.display()),
            e,
        )
    })?;
    Ok(PairedKernel {
        kernel_path,
        kernel_source,
        kernel,
    })
}

/// The floor's peaks for the adapter the cases ran on (none if no case reached one).
fn floor_peaks(dir: &Path, outcomes: &[CaseOutcome], manifest: &Manifest) -> Result<FloorPeaks> {
    let Some(adapter) = outcomes.iter().find_map(|o| o.adapter.as_ref()) else {
        return Ok(FloorPeaks::default());
    };
    let store = PeakStore::load(&peak_store_path(dir)?)?;
    let peaks = FloorPeaks::for_adapter(&Registry::builtin()?, &store, adapter, manifest.dtype);
    // A software adapter computes on this machine's CPUs: they bound it even before
    // `kcamp peak` has measured it.
    Ok(if adapter.software {
        peaks.with_flops_bound(Host::detect().cpu_peak(manifest.dtype))
    } else {
        peaks
    })
}

/// A seed for runs whose manifest sets none; recorded per shape in result.json.
fn time_seed() -> u64 {
    let now = Utc::now();
    ((now.timestamp() as u64) << 20) ^ u64::from(now.timestamp_subsec_micros())
}

/// How a run's cases are spread: all in one stream of workers here, or over shards (the
/// identical adapters of this machine, or Slurm jobs) with where each runs.
enum Spread {
    One,
    Shards {
        plans: Vec<ShardPlan>,
        /// How the live panel and the fingerprint name each shard.
        places: Vec<String>,
        jobs: Option<SlurmJobs>,
    },
}

impl Spread {
    fn plan(
        campaign_dir: &Path,
        manifest: &Manifest,
        adapter: &AdapterSelector,
        run_opts: &RunOptions,
        live: &mut LiveProgress,
    ) -> Result<Spread> {
        if let Some(cfg) = manifest.executor.as_ref().and_then(|e| e.slurm.as_ref()) {
            let dir = std::path::absolute(campaign_dir)
                .map_err(|e| Error::io(format!("resolving {}", campaign_dir.display()), e))?;
            let name = format!("kcamp-{}", job_name(&manifest.name));
            let worker = remote_command(&run_opts.worker_command)?;
            live.pending(cfg.shards as usize);
            let jobs = SlurmJobs::start(cfg, cfg.shards, &name, &run_opts.cancel, &mut |tasks| {
                live.job_states(tasks)
            })?;
            let plans = jobs
                .tasks
                .iter()
                .map(|t| ShardPlan {
                    opts: RunOptions {
                        worker_command: crate::shards::wrapped(
                            crate::slurm::srun_prefix(t, &dir),
                            &worker,
                        ),
                        ..run_opts.clone()
                    },
                    adapter_index: None,
                })
                .collect();
            let places = jobs
                .tasks
                .iter()
                .map(|t| {
                    let on = t
                        .node
                        .as_ref()
                        .map_or_else(String::new, |n| format!(" on {n}"));
                    format!("slurm job {}{on}", jobs.name(t.task))
                })
                .collect();
            return Ok(Spread::Shards {
                plans,
                places,
                jobs: Some(jobs),
            });
        }
        if !adapter.all {
            return Ok(Spread::One);
        }
        let found = matching_adapters(adapter)?;
        let wanted = format!(
            "name {:?} and backend {:?}",
            adapter.name.as_deref().unwrap_or("*"),
            adapter.backend.as_deref().unwrap_or("*")
        );
        let descriptions: Vec<AdapterDescription> = found.iter().map(|(d, _)| d.clone()).collect();
        let n = crate::shards::identical_adapters(&descriptions, &wanted)?;
        let plans = (0..n)
            .map(|i| ShardPlan {
                opts: run_opts.clone(),
                adapter_index: Some(i as u32),
            })
            .collect();
        let places = found
            .iter()
            .enumerate()
            .map(|(i, (_, bus))| {
                if bus.is_empty() {
                    format!("adapter {i}")
                } else {
                    format!("adapter {i} (pci {bus})")
                }
            })
            .collect();
        Ok(Spread::Shards {
            plans,
            places,
            jobs: None,
        })
    }
}

/// The worker command as another machine runs it: `/proc/self/exe` names this binary only
/// here (under srun it would name srun), so it becomes the binary's path, which a node
/// reaches on the shared filesystem.
fn remote_command(command: &[OsString]) -> Result<Vec<OsString>> {
    let mut out = command.to_vec();
    if let Some(first) = out.first_mut()
        && Path::new(first) == Path::new("/proc/self/exe")
    {
        *first = std::env::current_exe()
            .map_err(|e| Error::io("finding the path of the kcamp executable for srun", e))?
            .into_os_string();
    }
    Ok(out)
}

/// A job name Slurm shows as typed: the campaign's name in letters, digits, `-` and `_`.
pub(crate) fn job_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if cleaned.is_empty() {
        "campaign".into()
    } else {
        cleaned
    }
}

/// The adapters `kcamp adapters` lists for `sel` on this machine, each with its PCI bus.
fn matching_adapters(sel: &AdapterSelector) -> Result<Vec<(AdapterDescription, String)>> {
    /// What `kcamp adapters --json` says of each adapter that tells two apart.
    #[derive(serde::Deserialize)]
    struct Listed {
        name: String,
        backend: String,
        driver: String,
        driver_info: String,
        vendor: u32,
        device: u32,
        software: bool,
        #[serde(default)]
        pci_bus_id: String,
    }
    let exe = kcamp_core::fsutil::this_executable()
        .map_err(|e| Error::io("finding the kcamp executable to list the adapters", e))?;
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(["--json", "adapters"]);
    if let Some(n) = &sel.name {
        cmd.args(["--adapter", n]);
    }
    if let Some(b) = &sel.backend {
        cmd.args(["--backend", b]);
    }
    let out = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::io(format!("running {} adapters", exe.display()), e))?;
    if !out.status.success() {
        return Err(Error::Gpu(format!(
            "`kcamp adapters` failed ({}): {}",
            out.status,
            kcamp_core::text::quote(String::from_utf8_lossy(&out.stderr).trim(), 400)
        )));
    }
    let listed: Vec<Listed> = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::Internal(format!("reading `kcamp adapters --json`: {e}")))?;
    Ok(listed
        .into_iter()
        .map(|a| {
            (
                AdapterDescription {
                    name: a.name,
                    backend: a.backend,
                    driver: a.driver,
                    driver_info: a.driver_info,
                    vendor: a.vendor,
                    device: a.device,
                    software: a.software,
                    ..AdapterDescription::default()
                },
                a.pci_bus_id,
            )
        })
        .collect())
}

/// Where each shard ran and what it measured, for the fingerprint.
fn placement_of(
    specs: &[CaseSpec],
    outcomes: &[CaseOutcome],
    shard_of: &[usize],
    plans: &[ShardPlan],
    places: &[String],
    jobs: &mut Option<SlurmJobs>,
) -> Placement {
    let shards = (0..plans.len())
        .map(|s| {
            let mine = (0..specs.len()).filter(|i| shard_of[*i] == s);
            let adapter = mine
                .clone()
                .find_map(|i| outcomes[i].adapter.as_ref())
                .map(|a| a.name.clone());
            let task = jobs.as_ref().and_then(|j| j.tasks.get(s));
            Shard {
                index: s as u32,
                adapter_index: plans[s].adapter_index,
                adapter: match (adapter, plans[s].adapter_index) {
                    (Some(a), Some(_)) => Some(
                        places[s]
                            .find(" (pci ")
                            .map_or_else(|| a.clone(), |at| format!("{a}{}", &places[s][at..])),
                    ),
                    (a, _) => a,
                },
                job: task.and_then(|t| jobs.as_ref().map(|j| j.name(t.task))),
                node: task.and_then(|t| t.node.clone()),
                shapes: mine.map(|i| specs[i].shape.label.clone()).collect(),
            }
        })
        .collect();
    Placement {
        executor: if jobs.is_some() { "slurm" } else { "local" }.to_owned(),
        shards,
    }
}

/// Keeps `live/progress.json` current (rate-limited) and removes it when the run ends.
struct LiveProgress {
    path: PathBuf,
    doc: Progress,
    last_write: Option<Instant>,
    op: OpName,
    dtype: Dtype,
    /// Dimensions by label, to turn a sample's time into a rate.
    dims: BTreeMap<String, Vec<u64>>,
}

impl LiveProgress {
    fn new(
        dir: &Path,
        validation: Validation,
        round: Option<u32>,
        started_at: DateTime<Utc>,
        specs: &[CaseSpec],
    ) -> Self {
        let (op, dtype) = specs
            .first()
            .map_or((OpName::Gemm, Dtype::F32), |s| (s.op, s.dtype));
        LiveProgress {
            op,
            dtype,
            dims: specs
                .iter()
                .map(|s| (s.shape.label.clone(), shape_dims(s.op, &s.shape)))
                .collect(),
            path: dir.join(PROGRESS_FILE),
            doc: Progress {
                state: "running".to_owned(),
                validation,
                round,
                index: 0,
                total: 0,
                label: String::new(),
                samples: 0,
                phase: None,
                last_ms: None,
                last_rate: None,
                rate_unit: op_spec(op).rate_unit().to_owned(),
                started_at,
                pid: std::process::id(),
                shards: Vec::new(),
            },
            last_write: None,
        }
    }

    fn observe(&mut self, event: &ProgressEvent) {
        let shape_changed = match event {
            ProgressEvent::RunStarted { total_shapes } => {
                self.doc.total = *total_shapes;
                true
            }
            ProgressEvent::ShapeStarted {
                index,
                total,
                label,
            } => {
                self.doc.index = *index;
                self.doc.total = *total;
                self.doc.label = label.clone();
                self.doc.samples = 0;
                self.doc.phase = None;
                true
            }
            ProgressEvent::Phase { phase, .. } => {
                self.doc.phase = Some(phase.clone());
                // A phase can last long (a compile, a reference): the view shows it now.
                true
            }
            ProgressEvent::Sample {
                label, pass, ms, ..
            } => {
                self.doc.samples += 1;
                self.doc.last_ms = Some(*ms);
                if pass == "forward" && *ms > 0.0 {
                    let work = self
                        .dims
                        .get(label)
                        .and_then(|d| pass_work(self.op, self.dtype, d)[0]);
                    // The rate the op reports: FLOP/s in TFLOPS, else bytes/s in GB/s.
                    let in_tflops = op_spec(self.op).rate_unit() == "TFLOPS";
                    self.doc.last_rate = work.map(|(flops, bytes)| {
                        if in_tflops {
                            flops / (ms * 1e9)
                        } else {
                            bytes / (ms * 1e6)
                        }
                    });
                }
                false
            }
            _ => false,
        };
        let due = self
            .last_write
            .is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL);
        if shape_changed || due {
            // Best effort: a dashboard that misses an update is better than a failed run.
            if write_json_atomic(&self.path, &self.doc).is_ok() {
                self.last_write = Some(Instant::now());
            }
        }
    }

    fn write(&mut self) {
        // Best effort, as in `observe`.
        if write_json_atomic(&self.path, &self.doc).is_ok() {
            self.last_write = Some(Instant::now());
        }
    }

    /// Slurm jobs submitted for `shards` shards, none running yet.
    fn pending(&mut self, shards: usize) {
        self.doc.state = "pending".into();
        self.doc.shards = (0..shards)
            .map(|i| ShardProgress {
                place: format!("slurm job, shard {i}"),
                state: "submitting".into(),
                label: None,
                done: 0,
                total: 0,
            })
            .collect();
        self.write();
    }

    /// The jobs' states changed while they wait for their nodes.
    fn job_states(&mut self, tasks: &[crate::slurm::Task]) {
        for (shard, t) in self.doc.shards.iter_mut().zip(tasks) {
            shard.state = crate::slurm::shown_state(&t.state);
            shard.place = match &t.node {
                Some(n) => format!("slurm job {} on {n}", t.job_id),
                None => format!("slurm job {}", t.job_id),
            };
        }
        self.write();
    }

    /// The shards start: where each runs and how many cases it has.
    fn start_shards(&mut self, places: &[String], totals: &[usize]) {
        self.doc.state = "running".into();
        self.doc.total = totals.iter().sum();
        self.doc.index = 0;
        self.doc.shards = places
            .iter()
            .zip(totals)
            .map(|(p, &t)| ShardProgress {
                place: p.clone(),
                state: "running".into(),
                label: None,
                done: 0,
                total: t,
            })
            .collect();
        self.write();
    }

    /// An event of one shard: its shape and count, the run's count of shapes done.
    fn observe_shard(&mut self, e: &ShardEvent) {
        let Some(shard) = self.doc.shards.get_mut(e.shard) else {
            return;
        };
        let changed = match &e.event {
            // The run's own count and total stand; a shard's lost worker is in its outcome.
            ProgressEvent::RunStarted { .. } | ProgressEvent::WorkerRestarted { .. } => return,
            ProgressEvent::ShapeStarted { label, .. } => {
                shard.label = Some(label.clone());
                true
            }
            ProgressEvent::ShapeFinished { .. } => {
                shard.done += 1;
                shard.label = None;
                self.doc.index += 1;
                true
            }
            ProgressEvent::RunFinished { .. } => {
                shard.state = "done".into();
                shard.label = None;
                true
            }
            _ => false,
        };
        if changed {
            let current: Vec<&str> = self
                .doc
                .shards
                .iter()
                .filter_map(|s| s.label.as_deref())
                .collect();
            self.doc.label = current.join(", ");
        }
        // Samples and phases update the rate and the phase as for one stream.
        if !changed {
            self.observe(&e.event);
        } else {
            self.write();
        }
    }

    fn finish(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Drop for LiveProgress {
    fn drop(&mut self) {
        self.finish();
    }
}
