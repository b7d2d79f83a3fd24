//! Producing a round's measurement. The engine does not measure by itself: a [`Measurer`]
//! (the built-in runner or the campaign's harness command, both in kcamp-runner) writes the
//! artifacts into a directory, or a CSV written by anything else is imported. Either way the
//! measurement leaves with its fingerprint, and every row kcamp did not measure itself is
//! held to the roofline floor of the campaign's target.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::layout::Campaign;
use crate::artifacts::fingerprint::{
    Fingerprint, HarnessIdentity, LoadAverage, load_average_now, sha256_hex,
};
use crate::artifacts::harness::HarnessRecord;
use crate::artifacts::paired::PairedSide;
use crate::artifacts::result::{
    RunResult, RunSummary, ShapeFailure, ShapeRecord, failures, untimed_failures,
};
use crate::case::ProgressEvent;
use crate::files::{BENCHMARK_CSV, CHECKED_JSON, RESULT_JSON, SAMPLES_CSV};
use crate::fsutil::write_atomic;
use crate::gate::{Reason, ReasonKind};
use crate::host::{Hardware, Host};
use crate::plausibility::{Impossible, check_table};
use crate::schema::{BenchTable, Samples};
use crate::specs::{FloorPeaks, PeakStore, Registry, peak_store_path};
use crate::types::{ShapeSpec, Validation};
use crate::{Error, Result};

/// One measurement to make: which kernel, which shapes, where the artifacts go.
#[derive(Debug, Clone)]
pub struct MeasureRequest<'a> {
    pub campaign: &'a Campaign,
    pub validation: Validation,
    /// The round being validated, if any (shown in the live progress).
    pub round: Option<u32>,
    /// The shapes to measure, in manifest order.
    pub shapes: Vec<ShapeSpec>,
    /// The kernel directory to measure: the working `kernel/` or a round's snapshot.
    pub kernel_dir: PathBuf,
    /// Where `benchmark.csv` (required), `samples.csv` and `result.json` are written.
    pub out_dir: PathBuf,
    /// A second kernel directory (a round's snapshot) to measure in the same run, on the
    /// same shapes, into `paired.csv` and `paired_samples.csv`; asked only of a measurer
    /// whose [`Measurer::pairing`] supports it.
    pub paired_kernel_dir: Option<PathBuf>,
    /// Shapes whose outputs are checked without being timed (a quick validation's other
    /// target shapes); asked only of a measurer that [`Measurer::checks_untimed_shapes`].
    /// A measurer other than the built-in runner writes their records to `CHECKED_JSON`.
    pub check_shapes: Vec<ShapeSpec>,
    /// The seed of the inputs: the same for every kernel measured in this request, fresh for
    /// each request unless the manifest pins one.
    pub seed: u64,
}

/// How a measurer can measure a second kernel beside the scored one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingSupport {
    /// In the same run, samples alternating A B B A: over the repeats of each case (built-in
    /// runner), or over whole invocations (a harness that takes a kernel dir).
    Interleaved,
    /// Not at all, and why.
    Unsupported(String),
}

/// Something that measures kernels: the built-in runner or an external harness.
pub trait Measurer {
    /// Measures `req` and writes its artifacts into `req.out_dir`. Shapes that fail are rows
    /// of the CSV, not errors; an error means no measurement was made.
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()>;

    /// How the journal and the gate record name this measurer: `builtin`, `command:<cmd>`.
    fn origin(&self, validation: Validation) -> String;

    /// Whether it can measure a paired kernel in the same run.
    fn pairing(&self, validation: Validation) -> PairingSupport;

    /// Whether it checks [`MeasureRequest::check_shapes`].
    fn checks_untimed_shapes(&self) -> bool {
        false
    }

    /// Whether this is kcamp's built-in runner (which a campaign of imported CSVs must
    /// never fall back to).
    fn is_builtin(&self) -> bool {
        false
    }

    /// The fingerprint of the measurement it just wrote into `out_dir`.
    fn fingerprint(&self, campaign: &Campaign, out_dir: &Path) -> Result<Fingerprint>;
}

/// Where a measurement comes from.
#[derive(Clone, Copy)]
pub enum MeasureSource<'a> {
    /// Import a CSV written by any harness (its `samples.csv` beside it is taken too).
    Csv(&'a Path),
    /// Measure with the campaign's measurer.
    Run(&'a dyn Measurer),
}

impl std::fmt::Debug for MeasureSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureSource::Csv(p) => write!(f, "Csv({})", p.display()),
            MeasureSource::Run(m) => write!(f, "Run({})", m.origin(Validation::Full)),
        }
    }
}

/// A measurement, already written into `out_dir`.
#[derive(Debug, Clone)]
pub struct Measured {
    pub table: BenchTable,
    pub samples: Option<Samples>,
    /// How it was produced, for the journal: `import:<path>`, `command:<cmd>`, `builtin`.
    pub origin: String,
    pub fingerprint: Fingerprint,
    /// The paired kernel's numbers from the same run, when it was paired.
    pub paired: Option<PairedSide>,
    /// Why the measurement is not paired although pairing was asked for.
    pub unpaired_because: Option<String>,
    /// Untimed shapes whose outputs were checked, with their Check.
    pub checked: Vec<ShapeRecord>,
    /// Rows the roofline floor turned into ERROR.
    pub impossible: Vec<Impossible>,
    /// What the verdict should also say about how this was measured.
    pub notes: Vec<Reason>,
    /// What the `RESULT_JSON` line carries: the run's own summary, or one made from the
    /// CSV when the measurement came without a run record (harness, import).
    pub summary: RunSummary,
    /// Shapes that did not PASS, with the reasons the run recorded.
    pub failures: Vec<ShapeFailure>,
    /// Why no roofline floor could hold these rows (see [`target_floor`]): then nothing
    /// says they are possible, and the verdict cannot accept them.
    pub unfloored: Option<String>,
    /// SHA-256 of the measured rows ([`table_sha256`], before the floor): one measurement
    /// imported twice is one measurement.
    pub csv_hash: String,
}

/// What to measure, beyond the source.
#[derive(Debug, Clone)]
pub(crate) struct Plan<'a> {
    pub validation: Validation,
    pub round: u32,
    /// Hold the CSV to this header.
    pub frozen: Option<&'a str>,
    pub out_dir: &'a Path,
    /// The kernel to measure (the working `kernel/`, or the incumbent's snapshot).
    pub kernel_dir: PathBuf,
    /// Measure this snapshot beside it when the measurer can.
    pub pair_with: Option<PathBuf>,
    /// Check the outputs of these shapes too, untimed, when the measurer can.
    pub check_shapes: Vec<ShapeSpec>,
}

/// The shapes a validation covers: the representative ones (quick) or all (full).
pub fn shapes_of(campaign: &Campaign, validation: Validation) -> Vec<ShapeSpec> {
    match validation {
        Validation::Quick => campaign
            .manifest
            .representative()
            .into_iter()
            .cloned()
            .collect(),
        Validation::Full => campaign.manifest.target_shapes.clone(),
    }
}

/// The target shapes a quick validation does not time.
pub(crate) fn untimed_shapes(campaign: &Campaign, validation: Validation) -> Vec<ShapeSpec> {
    match validation {
        Validation::Quick => campaign
            .manifest
            .target_shapes
            .iter()
            .filter(|s| !campaign.manifest.representative_shapes.contains(&s.label))
            .cloned()
            .collect(),
        Validation::Full => Vec::new(),
    }
}

/// Measure into `plan.out_dir` (a round's staged `artifacts/`), then write its fingerprint
/// and hold every row kcamp did not time itself to the target's roofline floor.
pub(crate) fn measure(
    campaign: &Campaign,
    source: MeasureSource<'_>,
    plan: &Plan<'_>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<Measured> {
    let out_dir = plan.out_dir;
    crate::fsutil::create_dir_all(out_dir)?;
    let csv_out = out_dir.join(BENCHMARK_CSV);
    let mut measured = match source {
        MeasureSource::Csv(path) => {
            let table = BenchTable::read_held_to(path, plan.frozen)?;
            let samples_in = path.with_file_name(SAMPLES_CSV);
            let samples = if samples_in.is_file() {
                Some(Samples::read_for(&samples_in, &table)?)
            } else {
                None
            };
            // Copy the exact bytes: the frozen header is a byte-level contract.
            let bytes = crate::fsutil::read_input_text(path, crate::fsutil::MAX_INPUT_BYTES)?;
            write_atomic(&csv_out, bytes.as_bytes())?;
            if let Some(s) = &samples {
                write_atomic(&out_dir.join(SAMPLES_CSV), s.to_csv().as_bytes())?;
            }
            Measured {
                table,
                samples,
                origin: format!("import:{}", path.display()),
                fingerprint: Fingerprint::external(HarnessIdentity::Imported),
                paired: None,
                unpaired_because: plan.pair_with.as_ref().map(|_| {
                    "an imported CSV has no re-measurement of the incumbent in the same run"
                        .to_owned()
                }),
                checked: Vec::new(),
                impossible: Vec::new(),
                notes: Vec::new(),
                summary: RunSummary::default(),
                failures: Vec::new(),
                unfloored: None,
                csv_hash: String::new(),
            }
        }
        MeasureSource::Run(measurer) => {
            refuse_builtin_on_imported(campaign, measurer)?;
            let support = measurer.pairing(plan.validation);
            let (paired_kernel_dir, unpaired_because) = match (&plan.pair_with, &support) {
                (None, _) => (None, None),
                (Some(_), PairingSupport::Unsupported(why)) => (None, Some(why.clone())),
                (Some(dir), _) => (Some(dir.clone()), None),
            };
            let checks = measurer.checks_untimed_shapes();
            let request = MeasureRequest {
                campaign,
                validation: plan.validation,
                round: Some(plan.round),
                shapes: shapes_of(campaign, plan.validation),
                kernel_dir: plan.kernel_dir.clone(),
                out_dir: out_dir.to_path_buf(),
                paired_kernel_dir: paired_kernel_dir.clone(),
                check_shapes: if checks {
                    plan.check_shapes.clone()
                } else {
                    Vec::new()
                },
                seed: campaign.manifest.seed.unwrap_or_else(fresh_seed),
            };
            let load_at_start = load_average_now();
            super::guard::guarded(&campaign.dir, &[out_dir], || {
                measurer.measure(&request, on_event)
            })?;
            let load = load_at_start
                .zip(load_average_now())
                .map(|(start, end)| LoadAverage { start, end });
            let table = BenchTable::read_held_to(&csv_out, plan.frozen)?;
            let samples_path = out_dir.join(SAMPLES_CSV);
            let samples = if samples_path.is_file() {
                Some(Samples::read_for(&samples_path, &table)?)
            } else {
                None
            };
            let result = RunResult::read(&out_dir.join(RESULT_JSON))?;
            let paired = match paired_kernel_dir {
                Some(dir) => Some(
                    PairedSide::read(out_dir, plan.frozen)?
                        .map(|mut side| {
                            side.checks = result
                                .as_ref()
                                .and_then(|r| r.paired.as_ref())
                                .and_then(|p| p.runtime_checks);
                            side
                        })
                        .ok_or_else(|| {
                        Error::Internal(format!(
                            "the measurer was asked to measure {} beside the kernel and wrote no paired CSV",
                            dir.display()
                        ))
                    })?,
                ),
                None => None,
            };
            let mut notes = Vec::new();
            if !checks && !plan.check_shapes.is_empty() {
                notes.push(Reason::new(ReasonKind::Coverage, format!(
                    "the outputs of the {} target shape(s) this quick validation does not time were not checked: the harness measures only the shapes in $KCAMP_SHAPES",
                    plan.check_shapes.len()
                )));
            }
            Measured {
                table,
                samples,
                origin: measurer.origin(plan.validation),
                fingerprint: Fingerprint {
                    load,
                    ..measurer.fingerprint(campaign, out_dir)?
                },
                paired,
                unpaired_because,
                checked: match result {
                    Some(r) => r.checked_shapes,
                    None => read_checked(out_dir)?,
                },
                impossible: Vec::new(),
                notes,
                summary: RunSummary::default(),
                failures: Vec::new(),
                unfloored: None,
                csv_hash: String::new(),
            }
        }
    };
    // The numbers as measured, before the floor turns any row into ERROR.
    measured.csv_hash = table_sha256(&measured.table);
    measured.fingerprint.write(out_dir)?;
    hold_to_target_floor(campaign, &mut measured, out_dir)?;
    // After the floor check, so rows it turned into ERROR are counted as failures. A run
    // record that does not parse must not lose the measurement: the CSV is what is scored.
    let result = RunResult::read(&out_dir.join(RESULT_JSON)).ok().flatten();
    measured.summary = result.as_ref().map_or_else(
        || RunSummary::from_table(&measured.table, &campaign.manifest.primary_metric),
        |r| r.summary.clone(),
    );
    measured.failures = failures(&measured.table, result.as_ref());
    // Untimed checked shapes that fail reject the round too: they are listed with the
    // timed ones, where their reasons are read.
    measured
        .failures
        .extend(untimed_failures(&measured.checked));
    // A row the floor turned into ERROR has its reason here, not in a run record (a harness
    // or an imported CSV has none), and so does a row kcamp wrote for a harness (a timeout, a
    // crash): the failure list must say it.
    let harness = HarnessRecord::read(out_dir).ok().flatten();
    // A log cut short says so in the verdict too, not only in the log.
    for i in harness.iter().flat_map(|h| &h.invocations) {
        if let Some(bytes) = i.output_cut {
            measured.notes.push(Reason::new(
                ReasonKind::Method,
                format!(
                    "harness invocation {} wrote {bytes} bytes of output: harness.log keeps its first and last {} bytes and says what it left out",
                    i.position,
                    crate::artifacts::harness::LOG_KEPT_BYTES / 2
                ),
            ));
        }
    }
    for f in measured.failures.iter_mut().filter(|f| f.reason.is_none()) {
        if let Some(i) = measured.impossible.iter().find(|i| i.label == f.label) {
            f.reason = Some(i.reason.clone());
        } else if let Some(why) = harness.as_ref().and_then(|h| h.reasons.get(&f.label)) {
            f.reason = Some(why.clone());
        }
    }
    Ok(measured)
}

/// The SHA-256 of a measurement's rows as kcamp writes them: the same numbers are the same
/// measurement however the file was spelled (line endings, number formats, quoting).
pub(crate) fn table_sha256(table: &BenchTable) -> String {
    sha256_hex(table.to_csv().as_bytes())
}

/// A seed for inputs whose manifest pins none: different for every measurement.
pub fn fresh_seed() -> u64 {
    let now = chrono::Utc::now();
    ((now.timestamp() as u64) << 20) ^ u64::from(now.timestamp_subsec_micros())
}

/// The untimed shapes a measurer other than the built-in runner checked (`CHECKED_JSON` in
/// `dir`); none when it wrote no such file.
pub fn read_checked(dir: &Path) -> Result<Vec<ShapeRecord>> {
    Ok(
        crate::artifacts::read_json_opt(&dir.join(CHECKED_JSON), "checked shapes")?
            .unwrap_or_default(),
    )
}

/// A campaign whose BASELINE was imported and whose manifest names no harness command has
/// no harness kcamp can run: measuring `kernel/` with the built-in runner would judge a
/// placeholder kernel against someone else's numbers.
fn refuse_builtin_on_imported(campaign: &Campaign, measurer: &dyn Measurer) -> Result<()> {
    if !measurer.is_builtin() {
        return Ok(());
    }
    refuse_builtin_if_imported(campaign)
}

/// An error when the campaign's measurements are imported CSVs, so that the built-in runner
/// (`kcamp run`, a `validate` without `--csv`) never benchmarks the placeholder kernel.
pub fn refuse_builtin_if_imported(campaign: &Campaign) -> Result<()> {
    if campaign.manifest.quick_command.is_some()
        || campaign.manifest.full_command.is_some()
        || campaign.round_numbers()?.is_empty()
    {
        return Ok(());
    }
    // A round 1 with neither fingerprint.json nor result.json was imported by an older kcamp.
    let baseline = Fingerprint::read(&campaign.artifacts_dir(1))?;
    if baseline.is_none_or(|f| f.harness == HarnessIdentity::Imported) {
        return Err(Error::State(
            "this campaign's measurements are imported CSVs (BASELINE came from `kcamp baseline --csv` and manifest.yaml names no quick_command/full_command), so kcamp will not measure kernel/ with its built-in runner: that would judge a different harness's numbers. Pass this measurement's CSV with --csv FILE (`kcamp validate --csv`, `kcamp accept --csv`, `kcamp report --csv`), or name your harness in manifest.yaml as quick_command/full_command".into(),
        ));
    }
    Ok(())
}

/// The roofline floor of rows kcamp did not time itself, or why there is none.
pub(crate) struct TargetFloor {
    pub peaks: FloorPeaks,
    /// Which floor it is, where that needs saying (the GPU found, the host's CPUs).
    pub note: Option<Reason>,
    /// No floor at all: why (the rows cannot be held to anything, so they cannot be accepted).
    pub missing: Option<String>,
}

/// The floor of a measurement whose fingerprint names no adapter (a harness run, an
/// import): the campaign's measured peaks and its `target_gpu`'s cited ones; for a harness
/// without a `target_gpu`, also the GPU its machine was found to have (recorded in the
/// fingerprint), or, on a machine with no GPU at all, that machine's CPUs.
pub(crate) fn target_floor(campaign: &Campaign, fingerprint: &Fingerprint) -> Result<TargetFloor> {
    let m = &campaign.manifest;
    let registry = Registry::builtin()?;
    let store = PeakStore::load(&peak_store_path(&campaign.dir)?)?;
    let mut peaks = FloorPeaks::for_target(&registry, &store, &m.floor_target())?;
    let named = peaks.is_known();
    let mut floor = TargetFloor {
        peaks: FloorPeaks::default(),
        note: None,
        missing: None,
    };
    let unnamed = "no measured peaks in this campaign (`kcamp peak` on the target) and no target_gpu in manifest.yaml";
    let is_harness = matches!(fingerprint.harness, HarnessIdentity::Command { .. });
    if is_harness && m.target_gpu.is_none() {
        // A record from before the machine was recorded: this machine's device nodes.
        let hardware = fingerprint.hardware.clone().unwrap_or_else(|| Hardware {
            device_nodes: Host::detect().gpus,
            ..Hardware::default()
        });
        if !hardware.identified.is_empty() {
            let mut names = Vec::new();
            for id in &hardware.identified {
                let gpu = registry.find(id)?;
                names.push(gpu.name.clone());
                peaks = peaks.with_gpu(gpu, m.dtype);
            }
            let others = hardware.unidentified(&registry);
            let others = if others.is_empty() {
                String::new()
            } else {
                format!(
                    "; also found, not in the GPU registry: {} (set target_gpu if the harness runs there)",
                    others
                        .iter()
                        .map(|g| g.describe())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            floor.note = Some(Reason::new(
                ReasonKind::Plausibility,
                format!(
                    "rows held to the roofline floor of {}, found on the machine the harness ran on ({}), at most {}{others}",
                    names.join(" and "),
                    hardware.describe(),
                    peaks
                        .flops
                        .as_ref()
                        .map_or_else(String::new, |p| p.describe("FLOP/s"))
                ),
            ));
        } else if !named && !hardware.has_gpu() {
            // The harness ran here, and here there is no GPU: only the CPUs can have computed.
            peaks = peaks.with_flops_bound(Host::detect().cpu_peak(m.dtype));
            floor.note = Some(Reason::new(
                ReasonKind::Plausibility,
                format!(
                    "rows held to this machine's CPUs, at most {}: {unnamed}, and it has no GPU device; a harness that measures another machine needs that machine named in target_gpu",
                    peaks
                        .flops
                        .as_ref()
                        .map_or_else(String::new, |p| p.describe("FLOP/s"))
                ),
            ));
        } else if !named {
            floor.missing = Some(match &hardware.elsewhere {
                Some(machine) => format!(
                    "{unnamed}, and the harness ran on {machine}, whose GPU kcamp cannot see from here"
                ),
                None => format!(
                    "{unnamed}, and the GPU of the machine the harness ran on is not one kcamp can identify ({})",
                    hardware.describe()
                ),
            });
        }
    } else if !named {
        floor.missing = Some(if is_harness {
            unnamed.to_owned()
        } else {
            // An imported CSV may come from any machine: this one's hardware says nothing.
            format!("{unnamed}; an imported CSV may come from any machine")
        });
    }
    floor.peaks = peaks;
    Ok(floor)
}

/// Why no roofline floor holds the rows of a measurement with `fingerprint` in this campaign
/// as it stands; None when one does (the built-in runner's rows are held by their adapter).
pub fn floor_missing(campaign: &Campaign, fingerprint: &Fingerprint) -> Result<Option<String>> {
    if fingerprint.adapter.is_some() {
        return Ok(None);
    }
    Ok(target_floor(campaign, fingerprint)?.missing)
}

/// Rows kcamp did not time itself (no adapter in the fingerprint) are held to the roofline
/// floor of [`target_floor`]; rows that beat it become ERROR on disk too. Without any floor,
/// [`Measured::unfloored`] says why.
fn hold_to_target_floor(
    campaign: &Campaign,
    measured: &mut Measured,
    out_dir: &Path,
) -> Result<()> {
    if measured.fingerprint.adapter.is_some() {
        // The built-in runner knows its adapter and applied that adapter's floor.
        return Ok(());
    }
    let m = &campaign.manifest;
    let TargetFloor {
        peaks,
        note,
        missing,
    } = target_floor(campaign, &measured.fingerprint)?;
    measured.notes.extend(note);
    if let Some(why) = missing {
        measured.unfloored = Some(why);
        return Ok(());
    }
    let found = check_table(&mut measured.table, m.op, m.dtype, &peaks);
    if !found.is_empty() {
        write_atomic(
            &out_dir.join(BENCHMARK_CSV),
            measured.table.to_csv().as_bytes(),
        )?;
    }
    measured.impossible = found;
    if let Some(side) = &mut measured.paired {
        let found = check_table(&mut side.table, m.op, m.dtype, &peaks);
        if !found.is_empty() {
            side.write(out_dir)?;
            measured.notes.extend(found.into_iter().map(|i| {
                Reason::new(
                    ReasonKind::Plausibility,
                    format!("paired side: {} ERROR, {}", i.label, i.reason),
                )
                .with_shapes([i.label])
            }));
        }
    }
    Ok(())
}

/// A measurement that did not finish: its staging directories go, and a cancellation is
/// journaled (`cancelled`, with the command and the validation) so that the lineage says
/// why the round has no new verdict, and committed where the campaign commits its steps (a
/// cancelled command leaves the work tree as clean as a finished one). Returns the error
/// for the caller to pass on.
pub(crate) fn abandon(
    campaign: &Campaign,
    error: Error,
    command: &str,
    round: u32,
    validation: Validation,
    staging: &[&Path],
) -> Error {
    for dir in staging {
        // Best effort: the next writing command's recovery removes what is left.
        let _ = std::fs::remove_dir_all(dir);
    }
    if let Error::Cancelled(why) = error.cause() {
        let entry = campaign.journal(
            "cancelled",
            Some(round),
            json!({"command": command, "validation": validation, "why": why}),
        );
        let committed = entry.and_then(|()| {
            super::git::commit_step(
                campaign,
                Some(round),
                &super::git::subject(round, &format!("{command} cancelled")),
            )
            .map(|_| ())
        });
        if let Err(e) = committed {
            return Error::Internal(format!("{why}; journaling the cancellation failed: {e}"));
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::init::temp_campaign as campaign;

    #[test]
    fn a_cancelled_measurement_removes_its_staging_and_is_journaled() {
        let (_tmp, c) = campaign();
        let stage = c.dir.join("rounds/round-2/.artifacts.tmp");
        std::fs::create_dir_all(stage.join("deep")).unwrap();
        let err = abandon(
            &c,
            Error::Cancelled("cancelled by SIGTERM".into()),
            "validate",
            2,
            Validation::Quick,
            &[&stage],
        );
        assert!(matches!(err, Error::Cancelled(_)), "{err}");
        assert!(!stage.exists());
        let last = c.read_journal().unwrap().pop().unwrap();
        assert_eq!(last.event, "cancelled");
        assert_eq!(last.round, Some(2));
        assert_eq!(last.detail["command"], "validate");
        assert_eq!(last.detail["why"], "cancelled by SIGTERM");
    }

    fn harness_run_on(hardware: Hardware) -> Fingerprint {
        Fingerprint {
            hardware: Some(hardware),
            ..Fingerprint::external(HarnessIdentity::Command {
                quick_command: "python3 bench.py {csv}".into(),
                full_command: "python3 bench.py {csv}".into(),
                files: Default::default(),
            })
        }
    }

    #[test]
    fn a_harness_is_held_to_the_gpu_found_on_its_machine_unless_the_target_is_named() {
        let (_tmp, mut c) = campaign();
        let registry = Registry::builtin().unwrap();
        let h200 = Hardware::identify(
            vec![crate::host::NamedGpu {
                name: "NVIDIA H200".into(),
                vendor: 0x10de,
                device: 0x2335,
                source: "nvidia-smi".into(),
            }],
            vec!["/dev/nvidia0".into()],
            &registry,
        );
        let floor = target_floor(&c, &harness_run_on(h200.clone())).unwrap();
        assert!(floor.missing.is_none());
        // f32 rows may be TF32: the floor is the dense TF32 rate.
        assert!(floor.peaks.flops.as_ref().unwrap().value >= 494.7e12);
        let note = floor.note.unwrap().text;
        assert!(
            note.starts_with("rows held to the roofline floor of NVIDIA H200 SXM, found on the machine the harness ran on (NVIDIA H200 (0x10de:0x2335, nvidia-smi))"),
            "{note}"
        );
        // A GPU nothing names: no floor at all, and the reason says what was found.
        let unknown = Hardware::identify(Vec::new(), vec!["/dev/nvidia0".into()], &registry);
        let floor = target_floor(&c, &harness_run_on(unknown.clone())).unwrap();
        let why = floor.missing.unwrap();
        assert!(
            why.contains("no target_gpu") && why.contains("(/dev/nvidia0)"),
            "{why}"
        );
        // A harness run as a Slurm job: this machine's hardware says nothing of its node.
        let floor = target_floor(&c, &harness_run_on(Hardware::elsewhere("a Slurm node"))).unwrap();
        let why = floor.missing.unwrap();
        assert!(why.contains("ran on a Slurm node"), "{why}");
        // target_gpu wins over what the machine has.
        c.manifest.target_gpu = Some("m2".into());
        for hw in [h200, unknown] {
            let floor = target_floor(&c, &harness_run_on(hw)).unwrap();
            assert!(floor.missing.is_none() && floor.note.is_none());
            assert!(floor.peaks.flops.as_ref().unwrap().value < 10e12);
        }
        // An import names no machine: without a target, nothing holds it.
        c.manifest.target_gpu = None;
        let floor = target_floor(&c, &Fingerprint::external(HarnessIdentity::Imported)).unwrap();
        assert!(
            floor
                .missing
                .unwrap()
                .contains("an imported CSV may come from any machine")
        );
    }

    #[test]
    fn other_failures_clean_up_without_a_cancellation_entry() {
        let (_tmp, c) = campaign();
        let before = c.read_journal().unwrap().len();
        let stage = c.dir.join(".stage");
        std::fs::create_dir_all(&stage).unwrap();
        let err = abandon(
            &c,
            Error::input("bad csv"),
            "validate",
            2,
            Validation::Quick,
            &[&stage],
        );
        assert_eq!(err.kind(), "bad_input");
        assert!(!stage.exists());
        assert_eq!(c.read_journal().unwrap().len(), before);
    }
}
