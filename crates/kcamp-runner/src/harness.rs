//! An external harness: the campaign's own `quick_command`/`full_command`, run through
//! `sh -c` in the campaign directory with `{csv}` replaced by the output path and
//! `{kernel_dir}` (also `$KCAMP_KERNEL_DIR`) by the kernel directory to measure
//! (docs/harness.md, "The harness contract").
//!
//! A harness that takes a kernel directory is paired: it runs `2 × harness.pairs` times,
//! the incumbent's snapshot and the candidate alternating A B B A, each invocation one
//! sample per shape, so the gate judges per-shape paired ratios as it does for the built-in
//! runner. One that does not runs once and is judged against recorded numbers. A quick
//! validation then runs the command once more on the target shapes it did not time, with
//! `KCAMP_VALIDATION=check`, so every target shape is checked. Every invocation has a limit
//! (`timeout_sec` per shape plus [`START_ALLOWANCE_SEC`]); one that runs past it, crashes or
//! leaves a shape out is recorded (TIMEOUT_FAIL or ERROR rows, with the reason), not an
//! error. A CSV kcamp rejects is kept under the round's `rejected/` and the error names it.

mod combine;
mod invoke;
mod persistent;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::json;

use kcamp_core::artifacts::fingerprint::{Fingerprint, HarnessIdentity};
use kcamp_core::artifacts::harness::{HarnessRecord, Invocation, InvocationEnd, InvocationRole};
use kcamp_core::artifacts::result::ShapeRecord;
use kcamp_core::campaign::{Campaign, MeasureRequest, Measurer, PairingSupport};
use kcamp_core::case::ProgressEvent;
use kcamp_core::error::IoContext;
use kcamp_core::files::{BENCHMARK_CSV, CHECKED_JSON, PAIRED_CSV, PAIRED_SAMPLES_CSV, SAMPLES_CSV};
use kcamp_core::fsutil::{MAX_INPUT_BYTES, read_input_text, write_atomic, write_json_atomic};
use kcamp_core::manifest::{HarnessProtocol, Manifest};
use kcamp_core::schema::{
    BenchTable, CheckedRow, Row, Samples, Schema, describe_shape, parse_checks, schema_of_header,
};
use kcamp_core::types::{Check, ShapeSpec, Validation};
use kcamp_core::{Error, Result};

use crate::hardware::AdapterProbe;
use combine::{Run, combine};
use invoke::{Call, Ended, Ran, invoke};

/// The campaign's harness commands.
#[derive(Debug, Clone)]
pub struct Harness {
    pub quick_command: String,
    /// The full validation's command; the quick one when the manifest sets none.
    pub full_command: String,
    /// Set to stop the run: the command's process group is killed and `measure` answers
    /// `Error::Cancelled`.
    pub cancel: Arc<AtomicBool>,
    /// The adapters wgpu finds on this machine, for the hardware recorded in the
    /// fingerprint (the vendors' tools and the device nodes are asked without it).
    pub adapters: Option<AdapterProbe>,
    /// Started per invocation, or once per measurement (`harness.protocol`).
    pub protocol: HarnessProtocol,
}

impl Harness {
    /// The harness of a campaign whose manifest names one.
    pub fn of(manifest: &Manifest) -> Option<Harness> {
        let quick = manifest.quick_command.clone();
        let full = manifest.full_command.clone().or_else(|| quick.clone());
        Some(Harness {
            quick_command: quick.or_else(|| full.clone())?,
            full_command: full?,
            cancel: Arc::new(AtomicBool::new(false)),
            adapters: None,
            protocol: manifest.harness.protocol,
        })
    }

    fn command(&self, validation: Validation) -> &str {
        match validation {
            Validation::Quick => &self.quick_command,
            Validation::Full => &self.full_command,
        }
    }

    /// Whether the command can be pointed at another kernel directory.
    fn takes_kernel_dir(&self, validation: Validation) -> bool {
        if self.protocol == HarnessProtocol::Persistent {
            // Every request names its kernel directory.
            return true;
        }
        let cmd = self.command(validation);
        cmd.contains(KERNEL_DIR_PLACEHOLDER) || cmd.contains("KCAMP_KERNEL_DIR")
    }
}

/// Replaced by the kernel directory to measure (also in `$KCAMP_KERNEL_DIR`).
pub const KERNEL_DIR_PLACEHOLDER: &str = "{kernel_dir}";
/// Seconds every invocation gets beyond `timeout_sec` per shape: to start an interpreter,
/// import its libraries and create a device context (torch with CUDA takes several).
pub const START_ALLOWANCE_SEC: f64 = 30.0;
/// Where each invocation's own directory (its CSV, anything it writes beside it) and the
/// shapes files go, inside the artifacts directory.
const RUNS_DIR: &str = "harness";
/// Beside the artifacts: the measurement's log, every invocation in order.
const LOG_FILE: &str = "harness.log";
/// Under the round's directory (or `live/`): CSVs kcamp rejected.
const REJECTED_DIR: &str = "rejected";

impl Measurer for Harness {
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        _on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()> {
        let cmd = self.command(req.validation);
        let paired = req.paired_kernel_dir.is_some() && self.takes_kernel_dir(req.validation);
        Measurement::new(req, cmd, &self.cancel)?.run(paired)
    }

    fn origin(&self, validation: Validation) -> String {
        format!("command:{}", self.command(validation))
    }

    fn pairing(&self, validation: Validation) -> PairingSupport {
        if self.takes_kernel_dir(validation) {
            PairingSupport::Interleaved
        } else {
            PairingSupport::Unsupported(format!(
                "the harness command `{}` takes no kernel directory (put {KERNEL_DIR_PLACEHOLDER} or $KCAMP_KERNEL_DIR in it), so it cannot re-measure the incumbent's snapshot",
                self.command(validation)
            ))
        }
    }

    fn checks_untimed_shapes(&self) -> bool {
        true
    }

    fn fingerprint(&self, campaign: &Campaign, _out_dir: &Path) -> Result<Fingerprint> {
        let harness = HarnessIdentity::of_commands(&campaign.manifest, &campaign.dir)?
            .ok_or_else(|| Error::Internal("a harness without commands".into()))?;
        // Run here, what this machine has is what its rows can come from; run as a Slurm
        // job, they come from a node this machine knows nothing of.
        let on_slurm = campaign
            .manifest
            .executor
            .as_ref()
            .is_some_and(|e| e.slurm.is_some());
        let hardware = if on_slurm {
            kcamp_core::host::Hardware::elsewhere("a Slurm node (executor: slurm)")
        } else {
            crate::hardware::detect(self.adapters.as_ref())
        };
        Ok(Fingerprint {
            hardware: Some(hardware),
            ..Fingerprint::external(harness)
        })
    }
}

/// The invocations of a measurement, in order, with the pair of each timed one: A B B A
/// over `pairs` pairs when paired (the incumbent first), else the candidate once; then the
/// check run when there are shapes to check.
fn sequence(paired: bool, pairs: u32, timed: bool, check: bool) -> Vec<(InvocationRole, u32)> {
    use InvocationRole::{Candidate, Check, Incumbent};
    let mut out = Vec::new();
    if timed && paired {
        for pair in 1..=pairs.max(1) {
            // Alternating which goes first cancels a linear drift within every two pairs.
            let order = if pair % 2 == 1 {
                [Incumbent, Candidate]
            } else {
                [Candidate, Incumbent]
            };
            out.extend(order.map(|r| (r, pair)));
        }
    } else if timed {
        out.push((Candidate, 1));
    }
    if check {
        out.push((Check, 0));
    }
    out
}

/// Why a timed-out invocation's partial CSV was not read: the first line of the error, which
/// names the kept copy (the rest is the context a fatal read error carries: the log as it
/// was staged, its last lines).
fn partial_csv_note(e: &Error) -> String {
    let text = e.to_string();
    format!(
        "the partial CSV it left was not read: {}",
        kcamp_core::text::quote(text.lines().next().unwrap_or_default(), 400)
    )
}

/// How an invocation's role reads in a message.
fn described(role: InvocationRole) -> &'static str {
    match role {
        InvocationRole::Candidate => "the candidate",
        InvocationRole::Incumbent => "the incumbent's snapshot",
        InvocationRole::Check => "the candidate's check run, KCAMP_VALIDATION=check",
    }
}

/// Seconds as a message shows them: `31`, `4.5`.
fn secs(s: f64) -> String {
    format!("{}", (s * 1000.0).round() / 1000.0)
}

/// One measurement: its invocations and what they leave in the artifacts directory.
struct Measurement<'a> {
    req: &'a MeasureRequest<'a>,
    cmd: &'a str,
    cancel: &'a AtomicBool,
    campaign_dir: PathBuf,
    out_dir: PathBuf,
    log: PathBuf,
    timeout_sec: f64,
    /// The header every CSV is held to: the frozen one, else the first one read.
    header: Option<String>,
    frozen: bool,
    /// Invocations planned.
    total: usize,
    invocations: Vec<Invocation>,
    /// The Slurm job the invocations run in as job steps (`executor: slurm`).
    job: Option<crate::slurm::SlurmJobs>,
    /// The harness process of `harness.protocol: persistent`, else None.
    server: Option<persistent::Server>,
}

/// One invocation of the sequence.
#[derive(Clone, Copy)]
struct Slot<'s> {
    /// 1-based.
    position: usize,
    role: InvocationRole,
    /// The pair of a timed invocation.
    pair: Option<u32>,
    kernel_dir: &'s Path,
    shapes: &'s [ShapeSpec],
}

/// What a timed invocation gave: its rows, and whether it reported every shape.
struct Timed {
    run: Run,
    complete: bool,
    ran: Ran,
    dir: PathBuf,
}

impl<'a> Measurement<'a> {
    fn new(req: &'a MeasureRequest<'a>, cmd: &'a str, cancel: &'a AtomicBool) -> Result<Self> {
        // The command runs in the campaign directory: paths given relative to ours would
        // point elsewhere there.
        let absolute =
            |p: &Path| std::path::absolute(p).ctx(|| format!("resolving {}", p.display()));
        let out_dir = absolute(&req.out_dir)?;
        kcamp_core::fsutil::create_dir_all(&out_dir.join(RUNS_DIR))?;
        let frozen = req.campaign.frozen_header()?;
        Ok(Measurement {
            req,
            cmd,
            cancel,
            campaign_dir: absolute(&req.campaign.dir)?,
            log: out_dir.join(LOG_FILE),
            out_dir,
            timeout_sec: req.campaign.manifest.effective_timeout_sec()?,
            frozen: frozen.is_some(),
            header: frozen,
            total: 0,
            invocations: Vec::new(),
            job: None,
            server: (req.campaign.manifest.harness.protocol == HarnessProtocol::Persistent)
                .then(persistent::Server::default),
        })
    }

    fn manifest(&self) -> &Manifest {
        &self.req.campaign.manifest
    }

    fn run(mut self, paired: bool) -> Result<()> {
        let req = self.req;
        let pairs = self.manifest().harness.pairs;
        let plan = sequence(
            paired,
            pairs,
            !req.shapes.is_empty(),
            !req.check_shapes.is_empty(),
        );
        self.total = plan.len();
        if let Some(cfg) = req
            .campaign
            .manifest
            .executor
            .as_ref()
            .and_then(|e| e.slurm.as_ref())
        {
            // One job for the whole sequence: its invocations are its steps, in order.
            let one = kcamp_core::executor::SlurmConfig {
                shards: 1,
                ..cfg.clone()
            };
            self.job = Some(crate::slurm::SlurmJobs::start(
                &one,
                1,
                &format!(
                    "kcamp-{}",
                    crate::campaign_run::job_name(&req.campaign.manifest.name)
                ),
                self.cancel,
                &mut |_| {},
            )?);
        }
        // Written only for the kinds of invocation the sequence has.
        let timed_file = if req.shapes.is_empty() {
            PathBuf::new()
        } else {
            self.shapes_file(req.validation.as_str(), &req.shapes, true)?
        };
        let check_file = if req.check_shapes.is_empty() {
            PathBuf::new()
        } else {
            self.shapes_file("check", &req.check_shapes, false)?
        };
        let candidate_dir = req.kernel_dir.clone();
        let incumbent_dir = req.paired_kernel_dir.clone().unwrap_or_default();
        let (mut candidate, mut incumbent) = (Vec::new(), Vec::new());
        let mut single: Option<(PathBuf, bool)> = None;
        let mut checked: Option<Vec<ShapeRecord>> = None;
        let mut stopped = None;
        for (i, (role, pair)) in plan.iter().copied().enumerate() {
            let position = i + 1;
            if role == InvocationRole::Check {
                checked = Some(self.check(position, &candidate_dir, &check_file)?);
                continue;
            }
            let dir = match role {
                InvocationRole::Incumbent => &incumbent_dir,
                _ => &candidate_dir,
            };
            let t = self.timed(position, role, pair, dir, &timed_file)?;
            if role == InvocationRole::Incumbent {
                incumbent.push(t.run);
                continue;
            }
            if !paired {
                single = Some((t.dir.clone(), t.ran.succeeded()));
            }
            let complete = t.complete;
            candidate.push(t.run);
            if !complete {
                // The round fails whatever the rest would measure: no more waiting on it.
                stopped = Some(format!(
                    "stopped after invocation {position} of {}: the candidate did not report every shape, so the round fails whatever the remaining invocations would measure",
                    self.total
                ));
                break;
            }
        }
        if let Some(server) = self.server.as_mut() {
            server.finish();
        }
        let mut record = HarnessRecord {
            protocol: self
                .server
                .is_some()
                .then(|| HarnessProtocol::Persistent.as_str().to_owned()),
            request_grace_sec: self
                .server
                .is_some()
                .then_some(persistent::REQUEST_GRACE_SEC),
            seed: req.seed,
            pairs: if paired { pairs } else { 0 },
            timeout_sec: self.timeout_sec,
            start_allowance_sec: START_ALLOWANCE_SEC,
            invocations: Vec::new(),
            stopped,
            reasons: BTreeMap::new(),
            paired_reasons: BTreeMap::new(),
        };
        if !req.shapes.is_empty() {
            let schema = self.schema()?;
            let m = self.manifest();
            let shapes: Vec<(String, Vec<u64>)> = req
                .shapes
                .iter()
                .map(|s| (s.label.clone(), m.shape_dims(s)))
                .collect();
            let side = combine(&schema, &shapes, &candidate);
            write_atomic(
                &self.out_dir.join(BENCHMARK_CSV),
                side.table.to_csv().as_bytes(),
            )?;
            let samples = match &single {
                None => Some(side.samples),
                // One invocation is one sample: the harness's own samples, if it wrote
                // them, are what the statistics can use.
                Some((dir, succeeded)) => self.own_samples(dir, *succeeded, &side.table)?,
            };
            if let Some(s) = samples {
                write_atomic(&self.out_dir.join(SAMPLES_CSV), s.to_csv().as_bytes())?;
            }
            record.reasons = side.reasons;
            if paired {
                let side = combine(&schema, &shapes, &incumbent);
                write_atomic(
                    &self.out_dir.join(PAIRED_CSV),
                    side.table.to_csv().as_bytes(),
                )?;
                write_atomic(
                    &self.out_dir.join(PAIRED_SAMPLES_CSV),
                    side.samples.to_csv().as_bytes(),
                )?;
                record.paired_reasons = side.reasons;
            }
        }
        if let Some(records) = checked {
            write_json_atomic(&self.out_dir.join(CHECKED_JSON), &records)?;
        }
        record.invocations = std::mem::take(&mut self.invocations);
        if let Some(mut job) = self.job.take() {
            job.cancel()?;
        }
        record.write(&self.out_dir)
    }

    /// `KCAMP_SHAPES_FILE` of the invocations of one kind: the op, the dtype, the
    /// validation, the seed, the per-shape timeout and each shape with its dimensions.
    fn shapes_file(&self, validation: &str, shapes: &[ShapeSpec], timed: bool) -> Result<PathBuf> {
        let doc = self.shapes_doc(validation, shapes, timed);
        let path = self
            .out_dir
            .join(RUNS_DIR)
            .join(format!("shapes-{validation}.json"));
        write_json_atomic(&path, &doc)?;
        Ok(path)
    }

    /// What a shapes file holds.
    fn shapes_doc(&self, validation: &str, shapes: &[ShapeSpec], timed: bool) -> serde_json::Value {
        let m = self.manifest();
        let shapes: Vec<serde_json::Value> = shapes
            .iter()
            .map(|s| {
                let dims: serde_json::Map<String, serde_json::Value> = m
                    .dim_names()
                    .iter()
                    .zip(m.shape_dims(s))
                    .map(|(n, v)| ((*n).to_owned(), json!(v)))
                    .collect();
                json!({"label": s.label, "dims": dims, "timed": timed})
            })
            .collect();
        json!({
            "op": m.op.as_str(),
            "dtype": m.dtype.as_str(),
            "validation": validation,
            "seed": self.req.seed,
            "timeout_sec": self.timeout_sec,
            "shapes": shapes,
        })
    }

    /// The schema of the tables kcamp writes: the CSVs', else the frozen one, else the op's.
    fn schema(&self) -> Result<Schema> {
        match &self.header {
            Some(h) => schema_of_header(h).map_err(|m| {
                Error::Internal(format!(
                    "the header {h} was read once and is not valid: {m}"
                ))
            }),
            None => Ok(kcamp_core::ops::op(self.manifest().op).schema()),
        }
    }

    /// Run the command once for `slot`, its CSV at `csv` (a persistent harness: one
    /// request).
    fn invoke(&mut self, slot: Slot<'_>, csv: &Path, shapes_file: &Path) -> Result<(Ran, f64)> {
        if self.server.is_some() {
            return self.request(slot, csv, shapes_file);
        }
        let Slot {
            position,
            role,
            kernel_dir,
            shapes,
            ..
        } = slot;
        let kernel_dir = std::path::absolute(kernel_dir)
            .ctx(|| format!("resolving {}", kernel_dir.display()))?;
        let line = self
            .cmd
            .replace(
                "{csv}",
                &kcamp_core::text::shell_word(&csv.to_string_lossy()),
            )
            .replace(
                KERNEL_DIR_PLACEHOLDER,
                &kcamp_core::text::shell_word(&kernel_dir.to_string_lossy()),
            );
        let validation = match role {
            InvocationRole::Check => "check",
            _ => self.req.validation.as_str(),
        };
        let labels: Vec<&str> = shapes.iter().map(|s| s.label.as_str()).collect();
        let limit = self.timeout_sec * shapes.len().max(1) as f64 + START_ALLOWANCE_SEC;
        let env = [
            ("KCAMP_SHAPES", labels.join(",")),
            (
                "KCAMP_SHAPES_FILE",
                shapes_file.to_string_lossy().into_owned(),
            ),
            ("KCAMP_SEED", self.req.seed.to_string()),
            (
                "KCAMP_KERNEL_DIR",
                kernel_dir.to_string_lossy().into_owned(),
            ),
            ("KCAMP_VALIDATION", validation.to_owned()),
        ];
        let header = format!(
            "[kcamp] harness invocation {position} of {}: {}, kernel_dir {}, KCAMP_VALIDATION={validation}, KCAMP_SHAPES={}, limit {} s: {line}",
            self.total,
            described(role),
            kernel_dir.display(),
            labels.join(","),
            secs(limit)
        );
        let prefix = self
            .job
            .as_ref()
            .and_then(|j| j.tasks.first())
            .map(|t| crate::slurm::srun_prefix(t, &self.campaign_dir));
        let ran = invoke(
            &Call {
                prefix: prefix.as_deref(),
                line: &line,
                campaign_dir: &self.campaign_dir,
                env: &env,
                limit: Duration::from_secs_f64(limit),
                log: &self.log,
                header: &header,
            },
            self.cancel,
        )?;
        Ok((ran, limit))
    }

    /// One request of `slot` to the persistent harness, started first when none runs.
    fn request(&mut self, slot: Slot<'_>, csv: &Path, shapes_file: &Path) -> Result<(Ran, f64)> {
        let Slot {
            position,
            role,
            pair,
            kernel_dir,
            shapes,
        } = slot;
        let kernel_dir = std::path::absolute(kernel_dir)
            .ctx(|| format!("resolving {}", kernel_dir.display()))?;
        let validation = match role {
            InvocationRole::Check => "check",
            _ => self.req.validation.as_str(),
        };
        let mut doc = self.shapes_doc(validation, shapes, role != InvocationRole::Check);
        if let Some(obj) = doc.as_object_mut() {
            obj.insert("kernel_dir".into(), json!(kernel_dir));
            obj.insert("csv".into(), json!(csv));
            obj.insert("shapes_file".into(), json!(shapes_file));
            obj.insert("request".into(), json!(position));
            obj.insert("role".into(), json!(role.as_str()));
            obj.insert("pair".into(), json!(pair));
        }
        let limit = self.timeout_sec * shapes.len().max(1) as f64 + persistent::REQUEST_GRACE_SEC;
        let labels: Vec<&str> = shapes.iter().map(|s| s.label.as_str()).collect();
        let header = format!(
            "[kcamp] harness request {position} of {}: {}, kernel_dir {}, validation {validation}, shapes {}, limit {} s",
            self.total,
            described(role),
            kernel_dir.display(),
            labels.join(","),
            secs(limit)
        );
        let env = [
            ("KCAMP_SEED", self.req.seed.to_string()),
            ("KCAMP_VALIDATION", self.req.validation.as_str().to_owned()),
        ];
        let prefix = self
            .job
            .as_ref()
            .and_then(|j| j.tasks.first())
            .map(|t| crate::slurm::srun_prefix(t, &self.campaign_dir));
        let start = persistent::Start {
            prefix: prefix.as_deref(),
            line: self.cmd,
            campaign_dir: &self.campaign_dir,
            env: &env,
            log: &self.log,
            allowance: Duration::from_secs_f64(START_ALLOWANCE_SEC),
        };
        let request = persistent::Request {
            json: &doc,
            csv,
            limit: Duration::from_secs_f64(limit),
            header: &header,
        };
        let server = self
            .server
            .as_mut()
            .ok_or_else(|| Error::Internal("a request without a persistent harness".into()))?;
        let ran = server.request(&start, &request, self.cancel)?;
        Ok((ran, limit))
    }

    /// The directory of invocation `position`, created.
    fn run_dir(&self, position: usize, role: InvocationRole) -> Result<PathBuf> {
        let dir = self
            .out_dir
            .join(RUNS_DIR)
            .join(format!("{position:02}-{}", role.as_str()));
        kcamp_core::fsutil::create_dir_all(&dir)?;
        Ok(dir)
    }

    /// Record how invocation `slot` ran.
    fn remember(&mut self, slot: Slot<'_>, (ran, limit): (&Ran, f64), csv: &Path) {
        let Slot {
            position,
            role,
            pair,
            kernel_dir,
            shapes,
        } = slot;
        let validation = match role {
            InvocationRole::Check => "check",
            _ => self.req.validation.as_str(),
        };
        self.invocations.push(Invocation {
            position: position as u32,
            role,
            pair,
            kernel_dir: std::path::absolute(kernel_dir)
                .unwrap_or_else(|_| kernel_dir.to_path_buf())
                .display()
                .to_string(),
            validation: validation.to_owned(),
            shapes: shapes.iter().map(|s| s.label.clone()).collect(),
            limit_sec: limit,
            seconds: ran.seconds,
            ended: match &ran.ended {
                Ended::Exited(s) => InvocationEnd::Exited { code: s.code() },
                Ended::TimedOut => InvocationEnd::TimedOut,
                Ended::Answered => InvocationEnd::Answered,
                Ended::Refused(reason) => InvocationEnd::Refused {
                    reason: reason.clone(),
                },
            },
            process: ran.process,
            start_sec: ran.start_sec,
            csv: csv.is_file().then(|| {
                csv.strip_prefix(&self.out_dir)
                    .unwrap_or(csv)
                    .display()
                    .to_string()
            }),
            output_cut: ran.output_cut,
        });
    }

    /// What a shape invocation `slot` did not report becomes, and why.
    fn missing(
        &self,
        slot: Slot<'_>,
        (ran, limit): (&Ran, f64),
        note: Option<&str>,
    ) -> (Check, String) {
        let Slot { position, role, .. } = slot;
        let shapes = slot.shapes.len();
        let job = self
            .job
            .as_ref()
            .and_then(|j| {
                j.tasks
                    .first()
                    .map(|t| format!(", slurm job {}", j.name(t.task)))
            })
            .unwrap_or_default();
        let who = format!(
            "harness invocation {position} of {} ({}{job})",
            self.total,
            described(role)
        );
        let note = note.map_or_else(String::new, |n| format!("; {n}"));
        let overridden = std::env::var("TEST_TIMEOUT_SEC").map_or_else(
            |_| String::new(),
            |v| {
                format!(
                    " (here TEST_TIMEOUT_SEC={} overrides it)",
                    kcamp_core::text::quote(&v, 20)
                )
            },
        );
        // A persistent harness: which process, and whether it got as far as being ready.
        let process = match (ran.process, ran.starting) {
            (Some(n), true) => format!(" while persistent harness process {n} was starting"),
            (Some(n), false) => format!(" (persistent harness process {n})"),
            (None, _) => String::new(),
        };
        let last = match (ran.last_lines.as_slice(), &ran.last_line) {
            ([], None) => String::new(),
            ([], Some(l)) | ([l], _) => format!(" (its last line: {l})"),
            (lines, _) => format!(" (its last lines: {})", lines.join(" / ")),
        };
        match &ran.ended {
            Ended::TimedOut if ran.starting => (
                Check::TimeoutFail,
                format!(
                    "{who}: persistent harness process {} did not say it was ready within the {} s start allowance and was killed with its process group before it reported this shape{last}{note}",
                    ran.process.unwrap_or(0),
                    secs(START_ALLOWANCE_SEC),
                ),
            ),
            Ended::TimedOut if ran.process.is_some() => (
                Check::TimeoutFail,
                format!(
                    "{who}{process} ran past its limit of {} s = timeout_sec {} s × {} + {} s (no start allowance: its process was ready before the request) and was killed with its process group before it reported this shape; raise `timeout_sec:` in manifest.yaml{overridden}{note}",
                    secs(limit),
                    secs(self.timeout_sec),
                    kcamp_core::text::count(shapes, "shape"),
                    secs(persistent::REQUEST_GRACE_SEC),
                ),
            ),
            Ended::TimedOut => (
                Check::TimeoutFail,
                format!(
                    "{who} ran past its limit of {} s = timeout_sec {} s × {} + {} s start allowance and was killed with its process group before it reported this shape; raise `timeout_sec:` in manifest.yaml{overridden}{note}",
                    secs(limit),
                    secs(self.timeout_sec),
                    kcamp_core::text::count(shapes, "shape"),
                    secs(START_ALLOWANCE_SEC),
                ),
            ),
            Ended::Exited(status) if !status.success() || ran.process.is_some() => {
                let how = match status.code() {
                    Some(code) => format!("exited with status {code}"),
                    None => format!("was killed ({status})"),
                };
                (
                    Check::Error,
                    format!(
                        "{who}{process} {how} before it reported this shape; its output is in the measurement's {LOG_FILE}{last}{note}"
                    ),
                )
            }
            Ended::Exited(_) => (
                Check::Error,
                format!("{who} exited with status 0 without reporting this shape{note}"),
            ),
            Ended::Refused(why) => (
                Check::Error,
                format!("{who}{process} {why}; it did not report this shape{note}"),
            ),
            Ended::Answered => (
                Check::Error,
                format!("{who}{process} answered done without reporting this shape{note}"),
            ),
        }
    }

    /// Where a CSV kcamp rejects is kept: the round's `rejected/` (a round being measured
    /// exists already), else `live/rejected/` (a BASELINE not yet recorded, a `kcamp run`).
    fn rejected_path(&self, position: usize, role: InvocationRole, what: &str) -> PathBuf {
        let c = self.req.campaign;
        let base = match self.req.round {
            Some(n) if c.round_dir(n).is_dir() => c.round_dir(n),
            _ => self.campaign_dir.join("live"),
        };
        base.join(REJECTED_DIR).join(format!(
            "{}-{position:02}-{}{what}",
            self.req.validation.as_str(),
            role.as_str()
        ))
    }

    /// `read(path)`, or, when kcamp rejects the file, a copy of it kept at `kept` and the
    /// error read from that copy (so that it names a file that stays), with the log kept.
    fn read_or_keep<T>(
        &self,
        path: &Path,
        kept: &Path,
        what: &str,
        read: impl Fn(&Path) -> Result<T>,
    ) -> std::result::Result<T, Error> {
        let e = match read(path) {
            Ok(t) => return Ok(t),
            Err(e) => e,
        };
        let copied = kept
            .parent()
            .map_or(Ok(()), kcamp_core::fsutil::create_dir_all)
            .and_then(|()| kcamp_core::fsutil::copy_file(path, kept));
        let (e, place) = match copied {
            Ok(()) => (
                read(kept).err().unwrap_or(e),
                format!("it is kept at {}", kept.display()),
            ),
            Err(k) => (e, format!("it could not be kept ({k})")),
        };
        let log = keep_log(&self.campaign_dir, &self.log);
        Err(Error::input(format!(
            "{e}\n  (kcamp rejects {what}; {place}; the harness's {log})"
        )))
    }

    /// One timed invocation of `kernel_dir` over the validation's shapes.
    fn timed(
        &mut self,
        position: usize,
        role: InvocationRole,
        pair: u32,
        kernel_dir: &Path,
        shapes_file: &Path,
    ) -> Result<Timed> {
        let req = self.req;
        let shapes = &req.shapes;
        let slot = Slot {
            position,
            role,
            pair: Some(pair),
            kernel_dir,
            shapes,
        };
        let dir = self.run_dir(position, role)?;
        let csv = dir.join(BENCHMARK_CSV);
        let (ran, limit) = self.invoke(slot, &csv, shapes_file)?;
        self.remember(slot, (&ran, limit), &csv);
        let mut note = None;
        let mut rows = HashMap::new();
        if csv.is_file() {
            let kept = self.rejected_path(position, role, ".csv");
            let what = format!(
                "the CSV of harness invocation {position} of {} ({})",
                self.total,
                described(role)
            );
            let header = self.header.clone();
            let frozen = self.frozen;
            let m = &req.campaign.manifest;
            let read = |p: &Path| -> Result<(HashMap<String, Row>, String)> {
                let table = read_table(p, header.as_deref(), frozen)?;
                let h = table.schema.header();
                Ok((matched_rows(p, table, m, shapes)?, h))
            };
            match self.read_or_keep(&csv, &kept, &what, read) {
                Ok((r, h)) => {
                    self.header.get_or_insert(h);
                    rows = r;
                }
                // A run killed mid-write leaves a partial CSV: what it holds is not its word.
                Err(e) if ran.ended == Ended::TimedOut => {
                    note = Some(partial_csv_note(&e));
                }
                Err(e) => return Err(e),
            }
        }
        let complete = shapes.iter().all(|s| rows.contains_key(&s.label));
        let missing = self.missing(slot, (&ran, limit), note.as_deref());
        Ok(Timed {
            run: Run {
                pair,
                rows,
                missing,
            },
            complete,
            ran,
            dir,
        })
    }

    /// The check run: the candidate over the shapes this validation does not time; their
    /// Check and relative error become shape records (`checked.json`).
    fn check(
        &mut self,
        position: usize,
        kernel_dir: &Path,
        shapes_file: &Path,
    ) -> Result<Vec<ShapeRecord>> {
        let role = InvocationRole::Check;
        let req = self.req;
        let shapes = &req.check_shapes;
        let slot = Slot {
            position,
            role,
            pair: None,
            kernel_dir,
            shapes,
        };
        let dir = self.run_dir(position, role)?;
        let csv = dir.join("check.csv");
        let (ran, limit) = self.invoke(slot, &csv, shapes_file)?;
        self.remember(slot, (&ran, limit), &csv);
        let mut note = None;
        let mut rows: HashMap<String, CheckedRow> = HashMap::new();
        if csv.is_file() {
            let kept = self.rejected_path(position, role, ".csv");
            let what = format!(
                "the CSV of harness invocation {position} of {} ({})",
                self.total,
                described(role)
            );
            let header = self.header.clone();
            let m = &req.campaign.manifest;
            let read = |p: &Path| -> Result<HashMap<String, CheckedRow>> {
                let text = read_input_text(p, MAX_INPUT_BYTES)?;
                let mut by_label = HashMap::new();
                // Rows of shapes it was not asked for are left out: a harness that cannot
                // do less may run every shape.
                for row in parse_checks(&text, p, header.as_deref())? {
                    if let Some(s) = shapes.iter().find(|s| s.label == row.label) {
                        check_dims(p, m, s, &row.label, &row.dims)?;
                        by_label.insert(row.label.clone(), row);
                    }
                }
                Ok(by_label)
            };
            match self.read_or_keep(&csv, &kept, &what, read) {
                Ok(r) => rows = r,
                Err(e) if ran.ended == Ended::TimedOut => {
                    note = Some(partial_csv_note(&e));
                }
                Err(e) => return Err(e),
            }
        }
        let (missing_check, missing_reason) = self.missing(slot, (&ran, limit), note.as_deref());
        let m = &req.campaign.manifest;
        Ok(shapes
            .iter()
            .map(|s| {
                let (check, reason, rel_err) = match rows.get(&s.label) {
                    Some(r) => (r.check, None, r.rel_err),
                    None => (missing_check, Some(missing_reason.clone()), None),
                };
                ShapeRecord {
                    label: s.label.clone(),
                    dims: m.shape_dims(s),
                    check,
                    reason,
                    seed: self.req.seed,
                    latency_us: None,
                    rel_err,
                    timing_method: None,
                    warmup: Vec::new(),
                    aligned_entries: Vec::new(),
                }
            })
            .collect())
    }

    /// A measurement of one invocation: the `samples.csv` the harness wrote beside its CSV,
    /// held to the table (a run that did not finish may leave a partial one: dropped).
    fn own_samples(
        &self,
        dir: &Path,
        succeeded: bool,
        table: &BenchTable,
    ) -> Result<Option<Samples>> {
        let path = dir.join(SAMPLES_CSV);
        if !path.is_file() {
            return Ok(None);
        }
        let position = self
            .invocations
            .iter()
            .find(|i| i.role == InvocationRole::Candidate)
            .map_or(1, |i| i.position as usize);
        let kept = self.rejected_path(position, InvocationRole::Candidate, "-samples.csv");
        let what = format!(
            "the samples.csv of harness invocation {position} of {} (the candidate)",
            self.total
        );
        let read = |p: &Path| -> Result<Samples> {
            let s = Samples::read(p)?;
            s.check_against(table, p)?;
            Ok(s)
        };
        match self.read_or_keep(&path, &kept, &what, read) {
            Ok(s) => Ok(Some(s)),
            Err(_) if !succeeded => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A harness CSV held to `header`: the frozen one, or the first invocation's.
fn read_table(path: &Path, header: Option<&str>, frozen: bool) -> Result<BenchTable> {
    match header {
        Some(h) if frozen => BenchTable::read_frozen(path, h),
        Some(h) => BenchTable::read_with_header(path, h, "first invocation's", "found"),
        None => BenchTable::read(path),
    }
}

/// The rows of `table` by label, each a shape asked for with its dimensions; a row of
/// another shape is an error naming it.
fn matched_rows(
    path: &Path,
    table: BenchTable,
    m: &Manifest,
    shapes: &[ShapeSpec],
) -> Result<HashMap<String, Row>> {
    let mut rows = HashMap::with_capacity(table.rows.len());
    for row in table.rows {
        let Some(s) = shapes.iter().find(|s| s.label == row.label) else {
            let asked: Vec<&str> = shapes.iter().map(|s| s.label.as_str()).collect();
            return Err(Error::in_file(
                path,
                None,
                Some("label"),
                format!(
                    "shape {} was not asked for (KCAMP_SHAPES held {})",
                    describe_shape(&row.label, &row.dims, &table.schema),
                    asked.join(",")
                ),
            ));
        };
        check_dims(path, m, s, &row.label, &row.dims)?;
        rows.insert(row.label.clone(), row);
    }
    Ok(rows)
}

/// A row under a shape's label must have that shape's dimensions.
fn check_dims(path: &Path, m: &Manifest, s: &ShapeSpec, label: &str, dims: &[u64]) -> Result<()> {
    let want = m.shape_dims(s);
    if dims == want.as_slice() {
        return Ok(());
    }
    let show = |d: &[u64]| {
        m.dim_names()
            .iter()
            .zip(d)
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(Error::in_file(
        path,
        None,
        Some("label"),
        format!(
            "shape '{label}' is reported with {} but it is {} (KCAMP_SHAPES_FILE has its dimensions)",
            show(dims),
            show(&want)
        ),
    ))
}

/// Lines of a harness's output quoted in an error.
const LOG_TAIL_LINES: usize = 12;

/// Copy a harness's log to `live/harness.log` (the staging directory it was in is about to
/// be removed) and describe it: where it is, and its last lines.
fn keep_log(campaign_dir: &Path, log: &Path) -> String {
    let text = std::fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let kept = campaign_dir.join("live").join(LOG_FILE);
    let place = match write_atomic(&kept, text.as_bytes()) {
        Ok(()) => format!("output is in {}", kept.display()),
        Err(e) => format!("output could not be kept ({e})"),
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
    if tail.is_empty() {
        return format!("{place} (empty)");
    }
    let tail: Vec<String> = tail
        .iter()
        .map(|l| kcamp_core::text::quote(l, 200))
        .collect();
    format!("{place}; its last lines:\n  {}", tail.join("\n  "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use InvocationRole::{Candidate as B, Check as C, Incumbent as A};

    #[test]
    fn a_paired_measurement_runs_a_b_b_a_and_then_the_check() {
        let roles =
            |s: Vec<(InvocationRole, u32)>| s.into_iter().map(|(r, _)| r).collect::<Vec<_>>();
        assert_eq!(roles(sequence(true, 3, true, true)), [A, B, B, A, A, B, C]);
        let pairs: Vec<u32> = sequence(true, 3, true, false)
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(pairs, [1, 1, 2, 2, 3, 3]);
        assert_eq!(roles(sequence(false, 6, true, true)), [B, C]);
        // Held-out shapes only: the check run alone.
        assert_eq!(roles(sequence(true, 6, false, true)), [C]);
        assert_eq!(sequence(true, 6, true, false).len(), 12);
    }

    /// Held-out shapes at accept time: no timed shapes, only shapes to check. Only the
    /// check invocation runs, no benchmark.csv is written, and a shape it leaves out is an
    /// ERROR record saying so.
    #[test]
    fn a_request_of_shapes_to_check_only_runs_the_check_invocation() {
        use kcamp_core::campaign::{InitOptions, init, read_checked};
        let tmp = tempfile::tempdir().unwrap();
        let c = init(
            &tmp.path().join("c"),
            &InitOptions {
                op: kcamp_core::types::OpName::Axpy,
                dtype: kcamp_core::types::Dtype::F32,
                shapes: None,
                name: None,
                primary_metric: None,
                kernel: None,
                harness: None,
            },
        )
        .unwrap();
        // Reports every shape but `h2`, and logs what it was asked.
        std::fs::write(
            c.dir.join("h.sh"),
            "echo \"$KCAMP_VALIDATION $KCAMP_SHAPES $KCAMP_SEED\" >> calls\n\
             echo 'label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr' > \"$1\"\n\
             for l in $(echo \"$KCAMP_SHAPES\" | tr , ' '); do\n\
               [ \"$l\" = h2 ] || echo \"$l,$(grep -o '\"N\": *[0-9]*' \"$KCAMP_SHAPES_FILE\" | head -1 | tr -dc 0-9),PASS,0,0,0,60\" >> \"$1\"\n\
             done\n",
        )
        .unwrap();
        let harness = Harness {
            quick_command: "sh h.sh {csv}".into(),
            full_command: "sh h.sh {csv}".into(),
            cancel: Arc::new(AtomicBool::new(false)),
            adapters: None,
            protocol: HarnessProtocol::Invocation,
        };
        let shape = |label: &str, n: u64| ShapeSpec {
            label: label.into(),
            dims: [("N".to_owned(), n)].into_iter().collect(),
        };
        let out = tmp.path().join("out");
        let req = MeasureRequest {
            campaign: &c,
            validation: Validation::Quick,
            round: None,
            shapes: Vec::new(),
            kernel_dir: c.kernel_dir(),
            out_dir: out.clone(),
            paired_kernel_dir: None,
            check_shapes: vec![shape("h1", 1000), shape("h2", 1000)],
            seed: 42,
        };
        harness.measure(&req, &mut |_| {}).unwrap();
        let calls = std::fs::read_to_string(c.dir.join("calls")).unwrap();
        assert_eq!(calls, "check h1,h2 42\n");
        assert!(!out.join(BENCHMARK_CSV).exists());
        let checked = read_checked(&out).unwrap();
        assert_eq!(checked.len(), 2);
        assert_eq!((checked[0].check, checked[0].seed), (Check::Pass, 42));
        assert!((checked[0].rel_err.unwrap() - 1e-3).abs() < 1e-12);
        assert_eq!(checked[1].check, Check::Error);
        let why = checked[1].reason.as_deref().unwrap();
        assert!(
            why.contains("harness invocation 1 of 1 (the candidate's check run")
                && why.contains("exited with status 0 without reporting this shape"),
            "{why}"
        );
        let record = HarnessRecord::read(&out).unwrap().unwrap();
        assert_eq!(record.invocations.len(), 1);
        assert_eq!(record.invocations[0].role, InvocationRole::Check);
        assert_eq!(record.pairs, 0);
    }

    #[test]
    fn seconds_read_as_written() {
        assert_eq!(secs(31.0), "31");
        assert_eq!(secs(0.1 + 0.2), "0.3");
        assert_eq!(secs(34.5), "34.5");
    }
}
