//! init, baseline, round, validate, accept, rollback, status, log, report.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Subcommand};

use serde_json::{Value, json};

use super::export::{Format, LogRow, exporter};
use super::{AdapterArgs, CmdOutput, Ctx};
use kcamp_core::artifacts::result::{RunResult, RunSummary, ShapeFailure};
use kcamp_core::campaign::{
    self, AcceptOptions, Campaign, CampaignState, InitOptions, MeasureSource, Measurer, ledger,
};
use kcamp_core::case::ProgressEvent;
use kcamp_core::error::exit;
use kcamp_core::gate::{GateReport, ShapeClass, Verdict};
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::next::{Call, Command, NextStep};
use kcamp_core::types::{Check, DecisionKind, Dtype, OpName};
use kcamp_core::units;
use kcamp_core::{Error, Result};
use kcamp_runner::Builtin;

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct InitArgs {
    /// The campaign directory to create (made when missing; one that already holds a
    /// campaign is refused).
    pub dir: PathBuf,
    /// gemm or axpy (default: the --kernel's op, else gemm).
    #[arg(long)]
    pub op: Option<String>,
    /// f32 or f16 (default: the --kernel's dtype, else f32).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Start from a kernel shipped in shaders/ (and its measured settings) instead of the
    /// op's naive one, e.g. gemm_sgemm_128x128_bk16; an unknown name lists them all.
    #[arg(long)]
    pub kernel: Option<String>,
    /// YAML (`- {label: s64, M: 64, N: 64, K: 64}` a line) or CSV file of target shapes
    /// (default: the op's standard set, up to 4096 and 8192 a side: slow on a software
    /// adapter).
    #[arg(long)]
    pub shapes: Option<PathBuf>,
    /// The campaign's name, shown in its reports and the dashboard (default: DIR's name).
    #[arg(long)]
    pub name: Option<String>,
    /// The CSV column the gate judges: for gemm `Forward TFLOPS` (default), `Backward
    /// TFLOPS` or `Combined Step TFLOPS`; for axpy `Forward GB/s`.
    #[arg(long, value_name = "METRIC")]
    pub primary_metric: Option<String>,
    /// Measure with a harness kcamp writes instead of the built-in runner: `torch` writes
    /// harness/bench.py (PyTorch: CUDA-event timing, L2 flush, float64 reference; runs on
    /// CPU torch too) and kernel/kernel.py, and wires the manifest's commands to them.
    #[arg(long, value_name = "KIND")]
    pub harness: Option<String>,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct BaselineArgs {
    /// Import this CSV (from your own harness) instead of running the kernel.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[serde(default)]
    /// Do not measure the adapter's peaks first when none are stored or cited (utilization
    /// and the roofline then stay unknown until `kcamp peak`).
    #[arg(long)]
    pub no_peak: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Subcommand)]
// Arguments built only for the command run, as for `cli::Command`.
#[command(defer = true)]
pub enum RoundCommand {
    /// Open round N with its one hypothesis.
    New(RoundNewArgs),
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct RoundNewArgs {
    /// The one change this round tries, and why it should be faster (one line).
    #[arg(long)]
    pub hypothesis: String,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct ValidateArgs {
    #[serde(default)]
    /// All target shapes instead of the representative ones.
    #[arg(long)]
    pub full: bool,
    /// Import this CSV (from your own harness) as the round's measurement instead of
    /// running the kernel.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    #[serde(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct AcceptArgs {
    #[serde(default)]
    /// Accept although the gate does not allow it (needs --reason; recorded as forced). A
    /// kernel that passes no shape, or is wrong on the held-out shapes, is refused still.
    #[arg(long)]
    pub force: bool,
    /// Why the gate is overridden (with --force): recorded with the decision.
    #[arg(long)]
    pub reason: Option<String>,
    /// The confirming full validation's CSV, when a small quick gain needs one (campaigns
    /// whose measurements are imported CSVs).
    #[arg(long)]
    pub csv: Option<PathBuf>,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct RollbackArgs {
    /// Why the round is rolled back (one line): what later rounds read before they try the
    /// same direction again.
    #[arg(long)]
    pub reason: String,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct ReportArgs {
    #[serde(default)]
    /// Skip the final full validation and report on the recorded rounds only.
    #[arg(long)]
    pub no_run: bool,
    /// The final full validation's CSV, from your harness (campaigns whose measurements are
    /// imported CSVs).
    #[arg(long, conflicts_with = "no_run")]
    pub csv: Option<PathBuf>,
    /// text (a summary), markdown (report.md on stdout, for a pull request) or json.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    #[serde(skip)]
    pub format: ReportFormat,
    #[command(flatten)]
    #[serde(flatten)]
    pub adapter: AdapterArgs,
}

/// `kcamp report --format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    #[default]
    Text,
    Markdown,
    Json,
}

impl From<ReportFormat> for Format {
    fn from(f: ReportFormat) -> Format {
        match f {
            ReportFormat::Text => Format::Text,
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Json => Format::Json,
        }
    }
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct LogArgs {
    /// text, markdown (a pull-request table), csv or json.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    #[serde(skip)]
    pub format: Format,
}

impl AdapterArgs {
    /// An override of the manifest's adapter, if any flag was given.
    pub fn selector(&self) -> Option<AdapterSelector> {
        (self.adapter.is_some() || self.backend.is_some()).then(|| AdapterSelector {
            name: self.adapter.clone(),
            backend: self.backend.clone(),
            ..AdapterSelector::default()
        })
    }
}

/// The campaign's measurer (its harness command, else the built-in runner with the adapter
/// flags as an override) and the progress printer. The measurer stops on SIGINT, SIGTERM and
/// SIGHUP (see `cancel`); the two share the flag a signal sets, so the shape a Ctrl-C stopped
/// is printed as cancelled, not as ERROR.
fn measuring(
    ctx: &Ctx,
    c: &Campaign,
    adapter: &AdapterArgs,
) -> Result<(Box<dyn Measurer>, impl FnMut(ProgressEvent) + use<>)> {
    let cancel = super::cancel::flag(ctx)?;
    // Whatever a harness or a worker leaves running, in its process group or not, is this
    // command's to end.
    kcamp_runner::adopt_descendants();
    let progress = progress_printer(ctx, &c.manifest.primary_metric, Arc::clone(&cancel));
    let measurer = kcamp_runner::measurer_for(
        &c.manifest,
        Builtin {
            adapter: adapter.selector(),
            cancel,
            ..Builtin::default()
        },
        kcamp_runner::AdapterProbe(Arc::new(|| {
            kcamp_gpu::list_adapters()
                .iter()
                .map(kcamp_gpu::AdapterReport::description)
                .collect()
        })),
    );
    Ok((measurer, progress))
}

/// A cancelled command's error with the step that runs it again: nothing was recorded, so
/// the same command is what comes next.
fn run_again<T>(result: Result<T>, again: Call) -> Result<T> {
    result.map_err(|e| match e.cause() {
        Error::Cancelled(_) => e.with_next(vec![
            NextStep::call(again).why("cancelled: run it again to measure every shape"),
        ]),
        _ => e,
    })
}

/// `call` with the adapter selection it was typed with.
fn with_adapter(mut call: Call, adapter: &AdapterArgs) -> Call {
    for (name, value) in [("adapter", &adapter.adapter), ("backend", &adapter.backend)] {
        if let Some(v) = value {
            call = call.arg(name, v.clone());
        }
    }
    call
}

/// An imported CSV, or a run of `measurer`.
fn source<'a>(csv: &'a Option<PathBuf>, measurer: &'a dyn Measurer) -> MeasureSource<'a> {
    match csv {
        Some(p) => MeasureSource::Csv(p),
        None => MeasureSource::Run(measurer),
    }
}

/// Progress on stderr for the plain commands (the dashboard follows live/progress.json).
/// Once `cancel` is set, a shape that ends in ERROR is the one the signal stopped.
fn progress_printer(
    ctx: &Ctx,
    metric: &str,
    cancel: Arc<AtomicBool>,
) -> impl FnMut(ProgressEvent) + use<> {
    let quiet = ctx.json;
    let metric = metric.to_owned();
    let hooks = ctx.step.clone();
    move |e| {
        if let Some(h) = &hooks {
            (h.progress)(&e);
        }
        if quiet {
            return;
        }
        match e {
            ProgressEvent::ShapeStarted {
                index,
                total,
                label,
            } => eprintln!("[{}/{}] {label}", index + 1, total),
            ProgressEvent::ShapeFinished { label, check, .. }
                if check == Check::Error && cancel.load(Ordering::SeqCst) =>
            {
                eprintln!("      {label}: cancelled (not measured)")
            }
            ProgressEvent::ShapeFinished {
                label,
                check,
                primary,
                ..
            } => eprintln!(
                "      {label}: {}{}",
                check.as_str(),
                primary
                    .map(|p| format!(" {}", units::metric(p, &metric)))
                    .unwrap_or_default()
            ),
            ProgressEvent::WorkerRestarted { label, reason } => {
                eprintln!("      {label}: worker restarted: {reason}")
            }
            _ => {}
        }
    }
}

fn parse_op(s: &str) -> Result<OpName> {
    s.parse().map_err(|e| Error::input(format!("--op: {e}")))
}

fn parse_dtype(s: &str) -> Result<Dtype> {
    match s {
        "f32" => Ok(Dtype::F32),
        "f16" => Ok(Dtype::F16),
        other => Err(Error::input(format!(
            "--dtype: unknown dtype '{other}' (available: f32, f16)"
        ))),
    }
}

/// `kcamp -C DIR ` when the campaign is not the current directory, so a printed next step
/// can be pasted as is.
pub(super) fn prefix(ctx: &Ctx) -> String {
    if ctx.campaign == std::path::Path::new(".") {
        "kcamp".to_owned()
    } else {
        format!(
            "kcamp -C {}",
            kcamp_core::text::shell_word(&ctx.campaign.display().to_string())
        )
    }
}

pub fn init(_ctx: &Ctx, a: &InitArgs) -> Result<CmdOutput> {
    let shipped = a
        .kernel
        .as_deref()
        .map(kcamp_core::kernels::ShippedKernel::find)
        .transpose()?;
    let opts = InitOptions {
        op: match &a.op {
            Some(op) => parse_op(op)?,
            None => shipped.map_or(OpName::Gemm, |k| k.op),
        },
        dtype: match &a.dtype {
            Some(d) => parse_dtype(d)?,
            None => shipped.map_or(Dtype::F32, |k| k.dtype),
        },
        shapes: a.shapes.clone(),
        name: a.name.clone(),
        primary_metric: a.primary_metric.clone(),
        kernel: a.kernel.clone(),
        harness: a
            .harness
            .as_deref()
            .map(str::parse::<campaign::HarnessStarter>)
            .transpose()?,
    };
    let c = campaign::init(&a.dir, &opts)?;
    let mut json = json!({
        "campaign": c.dir,
        "name": c.manifest.name,
        "op": c.manifest.op,
        "dtype": c.manifest.dtype,
        "primary_metric": c.manifest.primary_metric,
        "target_shapes": c.manifest.target_shapes.len(),
        "kernel": c.kernel_dir().join(&c.manifest.kernel.file),
    });
    let mut human = format!(
        "created campaign '{}' in {} ({} {}, {} target shapes, primary metric {})\nkernel: {}",
        c.manifest.name,
        c.dir.display(),
        c.manifest.op.as_str(),
        c.manifest.dtype.as_str(),
        c.manifest.target_shapes.len(),
        c.manifest.primary_metric,
        c.kernel_dir().join(&c.manifest.kernel.file).display(),
    );
    if let (Some(h), Some(cmd)) = (opts.harness, &c.manifest.full_command) {
        json["harness"] =
            json!({"kind": h.as_str(), "command": cmd, "files": c.manifest.harness_files});
        human.push_str(&format!(
            "\nharness: {} ({cmd}; needs a python3 with torch on PATH)",
            c.dir.join(campaign::HARNESS_DIR).display()
        ));
    }
    let what = if opts.harness.is_some() {
        "runs harness/bench.py on every target shape"
    } else {
        "measures every target shape; the adapter's peaks first when none are known"
    };
    Ok(CmdOutput::ok(json, human).with_next(vec![
        NextStep::run(Command::Baseline)
            .why(what)
            .in_campaign(c.dir.display().to_string()),
    ]))
}

/// BASELINE with the built-in runner on a GPU whose peaks are neither stored nor cited:
/// measure them first, so utilization and the roofline are known from round 1 on.
fn ensure_peaks(c: &Campaign, a: &BaselineArgs, ctx: &Ctx) -> Result<Option<String>> {
    if a.no_peak || a.csv.is_some() || kcamp_runner::Harness::of(&c.manifest).is_some() {
        return Ok(None);
    }
    // The cases run on a Slurm node: this machine's adapter is not theirs
    // (docs/scale.md says how to measure the node's peaks).
    if c.manifest
        .executor
        .as_ref()
        .is_some_and(|e| e.slurm.is_some())
    {
        return Ok(None);
    }
    let selector = a
        .adapter
        .selector()
        .unwrap_or_else(|| c.manifest.adapter.clone());
    // No adapter: the run will say so, shape by shape.
    let Ok(gpu) = kcamp_gpu::GpuContext::open(&selector) else {
        return Ok(None);
    };
    let desc = gpu.description();
    drop(gpu);
    let roofs = kcamp_core::specs::Roofs::for_adapter(&c.dir, &desc, c.manifest.dtype);
    if let Some(p) = roofs.primary() {
        return Ok(Some(format!("peaks of {}: {}", desc.name, p.describe())));
    }
    if !ctx.json {
        eprintln!(
            "no peaks stored or cited for {}: measuring them first (`kcamp peak`; skip with --no-peak)",
            desc.name
        );
    }
    // Seconds without a shape: an MCP client is told what runs meanwhile.
    let phase = |phase: &str| {
        if let Some(hooks) = &ctx.step {
            (hooks.progress)(&ProgressEvent::Phase {
                label: "adapter".into(),
                phase: phase.into(),
            });
        }
    };
    phase("measuring the adapter's compute and bandwidth peaks (kcamp peak)");
    let (measured, _) = super::run_cmd::measure_peaks(&selector, None)?;
    phase("peaks measured");
    let path = kcamp_core::specs::peak_store_path(&c.dir)?;
    let source = kcamp_core::specs::record_measured(&path, measured.clone())?;
    Ok(Some(format!(
        "measured peaks of {}: compute {}, bandwidth {} [{source}, stored in {}]",
        measured.adapter,
        measured
            .flops
            .get(c.manifest.dtype.as_str())
            .or(measured.flops.get("f32"))
            .map_or_else(|| "-".to_owned(), |f| units::flop_rate(*f)),
        measured
            .bandwidth
            .map_or_else(|| "-".to_owned(), units::byte_rate),
        path.display()
    )))
}

/// `[kcamp] RESULT_JSON={...}`: the last line of a measuring command's text; with --json
/// it goes to stderr, since stdout holds one JSON document (whose `summary` it repeats).
fn result_line(ctx: &Ctx, summary: &RunSummary) -> Option<String> {
    let line = kcamp_core::artifacts::result::result_json_line(summary);
    if ctx.json {
        eprintln!("{line}");
        None
    } else {
        Some(line)
    }
}

/// The shapes that did not PASS, with their reasons; shapes sharing one reason (a compile
/// error fails every shape) are listed together.
fn render_failures(failures: &[ShapeFailure], harness_log: Option<&std::path::Path>) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for f in failures {
        let reason = f.reason.clone().unwrap_or_else(|| match harness_log {
            Some(log) => format!("no reason recorded: see the harness log {}", log.display()),
            None => "no reason recorded (an imported CSV has no run record)".to_owned(),
        });
        let key = format!("{}: {reason}", f.check.as_str());
        // An untimed shape has no row in the table above: say why it is listed.
        let label = if f.untimed {
            format!("{} (untimed)", f.label)
        } else {
            f.label.clone()
        };
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(label),
            None => groups.push((key, vec![label])),
        }
    }
    let mut out = String::new();
    for (reason, labels) in groups {
        let mut lines = reason.lines();
        out.push_str(&format!(
            "  {}: {}\n",
            labels.join(", "),
            lines.next().unwrap_or_default()
        ));
        for l in lines {
            out.push_str(&format!("    {l}\n"));
        }
    }
    out
}

/// The harness log beside a round's artifacts, when a harness measured it.
fn harness_log(c: &Campaign, round: u32) -> Option<PathBuf> {
    let p = c.artifacts_dir(round).join("harness.log");
    p.is_file().then_some(p)
}

pub fn baseline(ctx: &Ctx, a: &BaselineArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let peaks_line = ensure_peaks(&c, a, ctx)?;
    let (m, mut progress) = measuring(ctx, &c, &a.adapter)?;
    let out = run_again(
        campaign::baseline(&c, source(&a.csv, m.as_ref()), &mut progress, |c| {
            kcamp_report::campaign::write_baseline_report(c)
        }),
        with_adapter(
            Call::new(Command::Baseline).arg("no_peak", a.no_peak),
            &a.adapter,
        ),
    )?;
    let metric = &out.metric;
    let mut human = format!(
        "BASELINE recorded as round 1: {}/{} shapes PASS, {metric} aggregate {} (geomean over PASS shapes, full validation)\nrepresentative shapes: {}",
        out.passed,
        out.shapes,
        units::metric_opt(out.aggregate, metric),
        out.representative_shapes.join(", ")
    );
    if !out.failures.is_empty() {
        human.push_str("\nnot PASS (recorded as is; they stay out of every aggregate):\n");
        human.push_str(render_failures(&out.failures, harness_log(&c, 1).as_deref()).trim_end());
    }
    if let Some(p) = peaks_line {
        human.push_str(&format!("\n{p}"));
    }
    for w in &out.warnings {
        human.push_str(&format!("\nwarning: {w}"));
    }
    human.push_str(&adapter_line(&c, out.round));
    // Only a report that was written is named.
    if let Some(report) = &out.baseline_report {
        human.push_str(&format!("\nreport: {}", report.display()));
    }
    if let Some(line) = result_line(ctx, &out.summary) {
        human.push_str(&format!("\n{line}"));
    }
    let mut next = vec![
        NextStep::run(Command::Analyze).why("where the kernel stands against the roofline"),
        NextStep::new_round(),
    ];
    // Recorded as it is, yet a BASELINE with a shape that does not PASS did not pass.
    let code = if out.failures.is_empty() {
        exit::OK
    } else {
        next.insert(
            0,
            NextStep::new_round().before(format!(
                "fix the failing shapes in {} if they should pass",
                c.kernel_dir().display()
            )),
        );
        exit::GATE_REJECTED
    };
    Ok(CmdOutput::with_exit(out, human, code).with_next(next))
}

pub fn round(ctx: &Ctx, c: &RoundCommand) -> Result<CmdOutput> {
    let RoundCommand::New(RoundNewArgs { hypothesis }) = c;
    let camp = Campaign::open(&ctx.campaign)?;
    // Short: a signal (the dashboard quitting) lets it finish rather than cut it in half.
    super::cancel::flag(ctx)?;
    // Read first: a ledger that cannot be read changes nothing.
    let tried = ledger::tried_before(&camp, &camp.kernel_dir())?;
    let n = campaign::new_round(&camp, hypothesis)?;
    let mut human = format!("opened round {n}: {}", hypothesis.trim());
    for line in ledger::tried_lines("kernel/", &tried) {
        human.push_str(&format!("\nnote: {line}"));
    }
    Ok(CmdOutput::ok(
        json!({"round": n, "hypothesis": hypothesis.trim(), "tried_before": tried}),
        human,
    )
    .with_next(vec![NextStep::run(Command::Validate).before(format!(
        "edit {}",
        camp.kernel_dir().join(&camp.manifest.kernel.file).display(),
    ))]))
}

/// What to do after a verdict. `mismatch`: the sides were measured differently (the
/// fingerprints differ), so validating the same way again would repeat the NEEDS_REMEASURE;
/// `None` where that is not known (a stored gate report).
/// `failures`: where the reasons of the shapes that failed are to be read, when some failed.
fn next_after_verdict(
    verdict: Verdict,
    failures: Option<&str>,
    mismatch: Option<bool>,
) -> Vec<NextStep> {
    if let Some(reasons) = failures {
        return vec![
            NextStep::run(Command::Validate).before(format!("fix the kernel ({reasons})")),
            NextStep::rollback(),
        ];
    }
    match verdict {
        Verdict::Accept | Verdict::AcceptWithNote => vec![NextStep::run(Command::Accept)],
        Verdict::NeedsRemeasure => match mismatch {
            Some(true) => vec![NextStep::by_hand(
                "re-measure like the incumbent with the command the reason above names (the sides were measured differently: validating the same way again repeats this verdict)",
            )],
            Some(false) => vec![
                NextStep::run(Command::Validate).why("again, without changing the kernel"),
            ],
            None => vec![NextStep::run(Command::Validate).why(
                "again, without changing the kernel; where the sides were measured differently, with the command the verdict's reason names instead",
            )],
        },
        Verdict::Reject => vec![
            NextStep::rollback(),
            NextStep::run(Command::Validate).before("change the kernel"),
        ],
    }
}

pub fn validate(ctx: &Ctx, a: &ValidateArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let (m, mut progress) = measuring(ctx, &c, &a.adapter)?;
    let out = run_again(
        campaign::validate(&c, a.full, source(&a.csv, m.as_ref()), &mut progress),
        with_adapter(Call::new(Command::Validate).arg("full", a.full), &a.adapter),
    )?;
    let r = &out.record;
    let exit = if r.report.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    let mut human = recovered_lines(&out.recovered);
    human.push_str(&format!(
        "round {} ({} validation) against round {}:\n{}",
        r.round,
        r.validation.as_str(),
        r.incumbent,
        render_gate(&r.report)
    ));
    if !out.failures.is_empty() {
        human.push_str("not PASS:\n");
        human.push_str(&render_failures(
            &out.failures,
            harness_log(&c, r.round).as_deref(),
        ));
    }
    let measured_on = adapter_line(&c, r.round);
    if !measured_on.is_empty() {
        human.push_str(measured_on.trim_start());
        human.push('\n');
    }
    if let Some(t) = &out.time_breakdown {
        human.push_str(&format!("time: {}\n", t.summary()));
    }
    for line in ledger::tried_lines("the kernel measured", &out.tried_before) {
        human.push_str(&format!("note: {line}\n"));
    }
    if let Some(line) = result_line(ctx, &out.summary) {
        human.push_str(&line);
    }
    let mismatch = r.like_for_like.as_ref().map(|l| !l.comparable());
    let next = if r.unfloored.is_some() && r.report.verdict == Verdict::NeedsRemeasure {
        // Measuring again changes nothing until something names what the rows ran on.
        vec![NextStep::run(Command::Validate).before(format!(
            "name the GPU the rows come from: target_gpu in {} (the reason above lists the known ones), or `{} peak` on it",
            c.dir.join("manifest.yaml").display(),
            prefix(ctx)
        ))]
    } else {
        next_after_verdict(
            r.report.verdict,
            (!out.failures.is_empty()).then_some("the reasons above"),
            Some(mismatch.unwrap_or(false)),
        )
    };
    Ok(CmdOutput::with_exit(out, human, exit).with_next(next))
}

pub fn accept(ctx: &Ctx, a: &AcceptArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let (m, mut progress) = measuring(ctx, &c, &AdapterArgs::default())?;
    let opts = AcceptOptions {
        force: a.force,
        reason: a.reason.clone(),
        confirm_source: source(&a.csv, m.as_ref()),
        check_with: Some(m.as_ref()),
    };
    let again = match &a.reason {
        Some(reason) if a.force => Call::new(Command::Accept)
            .arg("force", true)
            .arg("reason", reason.clone()),
        _ => Call::new(Command::Accept),
    };
    let out = run_again(campaign::accept(&c, &opts, &mut progress), again)?;
    let d = &out.decision;
    let metric = &c.manifest.primary_metric;
    let mut human = recovered_lines(&out.recovered);
    if let Some(conf) = &out.confirmation {
        human.push_str(&format!(
            "confirming full validation of round {} against round {}:\n{}",
            conf.record.round,
            conf.record.incumbent,
            render_gate(&conf.record.report)
        ));
        if !conf.failures.is_empty() {
            human.push_str("not PASS:\n");
            human.push_str(&render_failures(&conf.failures, None));
        }
        if let Some(line) = result_line(ctx, &conf.summary) {
            human.push_str(&format!("{line}\n"));
        }
    }
    human.push_str(&match d.decision {
        DecisionKind::Accepted => format!(
            "round {} ACCEPTED{}: it is the incumbent now ({metric} aggregate {}, {} against round {}, {} validation)",
            d.round,
            if d.forced { " (forced)" } else { "" },
            units::metric_opt(d.aggregate, metric),
            d.aggregate_delta.map_or_else(|| "-".to_owned(), units::change),
            d.parent.unwrap_or(1),
            d.validation.map_or("no", |v| v.as_str()),
        ),
        _ => format!(
            "round {} ROLLED BACK: {}\nkernel/ restored from round {}",
            d.round,
            d.reason.clone().unwrap_or_default(),
            d.parent.unwrap_or(1)
        ),
    });
    if let Some(held) = &out.held_out {
        human.push_str(&render_held_out(held, d.round));
    }
    if let Some(hash) = &d.git_commit {
        human.push_str(&format!("\ngit commit {hash}"));
    }
    for w in &out.warnings {
        human.push_str(&format!("\nwarning: {w}"));
    }
    let target = campaign::target_status(&c)?;
    let next = match (&d.decision, &target) {
        (DecisionKind::Accepted, Some(t)) if t.met => {
            human.push_str(&format!("\nperformance target met: {}", t.describe()));
            vec![NextStep::run(Command::Report).why("final full validation, report.md and charts")]
        }
        _ => vec![
            NextStep::run(Command::Analyze).why("where the incumbent stands against the roofline"),
            NextStep::new_round(),
        ],
    };
    let exit = if d.decision == DecisionKind::Accepted {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    Ok(CmdOutput::with_exit(out, human, exit).with_next(next))
}

/// The held-out check of an accept, after its decision: each shape with its dimensions and
/// check, or why none was checked (`held_out.json` in the round holds the same).
fn render_held_out(held: &campaign::HeldOutCheck, round: u32) -> String {
    use campaign::HeldOutStatus;
    let mut out = format!(
        "\nheld-out check ({}, rounds/round-{round}/held_out.json): {}",
        held.source,
        held.status.as_str()
    );
    match held.status {
        HeldOutStatus::Skipped | HeldOutStatus::NotChecked => {
            out.push_str(&format!(" ({})", held.why.as_deref().unwrap_or("")));
        }
        HeldOutStatus::Pass | HeldOutStatus::Fail => {
            out.push_str(&format!(
                ", fresh inputs (seed {})",
                held.input_seed.unwrap_or_default()
            ));
            for s in &held.shapes {
                out.push_str(&format!(
                    "\n  {}: {}{}",
                    held.describe(s),
                    s.check.as_str(),
                    s.reason
                        .as_deref()
                        .map_or_else(String::new, |r| format!(" ({r})"))
                ));
            }
        }
    }
    out
}

/// What a step first completed or undid of an interrupted one, a line each, before its own
/// output.
fn recovered_lines(recovered: &[String]) -> String {
    recovered
        .iter()
        .map(|r| format!("recovered: {r}\n"))
        .collect()
}

pub fn rollback(ctx: &Ctx, a: &RollbackArgs) -> Result<CmdOutput> {
    let c = Campaign::open_base(&ctx.campaign)?;
    // Short: a signal (the dashboard quitting) lets it finish rather than cut it in half.
    super::cancel::flag(ctx)?;
    let out = campaign::rollback(&c, &a.reason)?;
    let mut human = recovered_lines(&out.recovered);
    human += &format!(
        "round {} ROLLED BACK; kernel/ restored from round {}",
        out.decision.round,
        out.decision
            .parent
            .map(|p| p.to_string())
            .unwrap_or_default()
    );
    if let Some(hash) = &out.decision.git_commit {
        human.push_str(&format!("\ngit commit {hash}"));
    }
    for w in &out.warnings {
        human.push_str(&format!("\nwarning: {w}"));
    }
    let next = vec![
        NextStep::new_round(),
        // v<N-1> belongs to round N.
        NextStep::run(Command::MemoryShow)
            .arg(
                "version",
                format!("v{}", out.decision.round.saturating_sub(1)),
            )
            .why("what was learned from this round"),
    ];
    Ok(CmdOutput::ok(out, human).with_next(next))
}

/// What to do next in a campaign, from its state (status and log end with it).
fn next_from_state(st: &CampaignState) -> Vec<NextStep> {
    if !st.damage.is_empty() {
        return vec![
            NextStep::run(Command::Repair)
                .why("rebuilds what was read around; `--dry-run` says how first"),
        ];
    }
    if st.incumbent.is_none() {
        return vec![NextStep::run(Command::Baseline)];
    }
    match st.open_round.and_then(|n| st.round(n)) {
        Some(r) => match &r.gate {
            None => vec![NextStep::run(Command::Validate).before(format!(
                "edit {}",
                st.dir
                    .join("kernel")
                    .join(&st.manifest.kernel.file)
                    .display()
            ))],
            Some(g) => {
                // Neither status nor log prints why a shape failed: say where it is (the
                // built-in runner's run record, a harness's log; an imported CSV has none).
                let artifacts = st.dir.join(format!("rounds/round-{}/artifacts", r.number));
                let reasons = match ["result.json", "harness.log"]
                    .iter()
                    .map(|f| artifacts.join(f))
                    .find(|p| p.is_file())
                {
                    Some(p) => format!("why each shape failed: {}, or the dashboard's e", p.display()),
                    None => "the CSV was imported: why each shape failed is in the output of the harness that wrote it".to_owned(),
                };
                next_after_verdict(
                    g.verdict,
                    g.shapes
                        .iter()
                        .any(|s| s.class == ShapeClass::Failed)
                        .then_some(reasons.as_str()),
                    None,
                )
            }
        },
        None => vec![
            NextStep::new_round(),
            NextStep::run(Command::Report).why("when the campaign is done"),
        ],
    }
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct RepairArgs {
    #[serde(default)]
    /// Say what would be repaired, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `kcamp repair`: exit 0 when everything reads again, 2 when something was refused (named,
/// with what to do by hand).
pub fn repair(ctx: &Ctx, a: &RepairArgs) -> Result<CmdOutput> {
    let c = Campaign::open_base(&ctx.campaign)?;
    let out = campaign::repair(&c, a.dry_run)?;
    let mut human = String::new();
    let (done, would) = if a.dry_run {
        ("would rebuild", "would refuse")
    } else {
        ("rebuilt", "refused")
    };
    for r in &out.repaired {
        human.push_str(&format!("{done}: {r}\n"));
    }
    for r in &out.refused {
        human.push_str(&format!("{would}: {r}\n"));
    }
    for r in &out.recovered {
        human.push_str(&format!("recovered: {r}\n"));
    }
    if human.is_empty() {
        human.push_str("nothing to repair: every journal line, decision, record and decided snapshot reads as recorded\n");
    }
    let (code, next) = if !out.refused.is_empty() {
        (
            exit::BAD_INPUT,
            vec![NextStep::run(Command::Repair).before("fix what is refused by hand")],
        )
    } else if a.dry_run && !out.repaired.is_empty() {
        (exit::OK, vec![NextStep::run(Command::Repair)])
    } else {
        (exit::OK, vec![NextStep::run(Command::Status)])
    };
    Ok(CmdOutput::with_exit(out, human, code).with_next(next))
}

/// What status and log say about damage they read around: each file and line, and what
/// `kcamp repair` would do about it.
fn damage_text(st: &CampaignState) -> (String, Vec<String>) {
    if st.damage.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut text =
        String::from("read around (the campaign's writers refuse until it is repaired):\n");
    for d in &st.damage {
        text.push_str(&format!("  {d}\n"));
    }
    let plan = Campaign::open_base(&st.dir).and_then(|c| campaign::repair(&c, true));
    let mut would = Vec::new();
    match plan {
        Ok(p) => {
            would.extend(
                p.repaired
                    .iter()
                    .map(|r| format!("kcamp repair would rebuild {r}")),
            );
            would.extend(
                p.refused
                    .iter()
                    .map(|r| format!("kcamp repair would refuse {r}")),
            );
        }
        Err(e) => would.push(format!("kcamp repair cannot plan: {e}")),
    }
    for w in &would {
        text.push_str(&format!("  {w}\n"));
    }
    (text, would)
}

/// `doc` with `damage` (what was read around) and `repair` (what `kcamp repair` would do),
/// when there is any.
fn with_damage(mut doc: Value, st: &CampaignState, plan: &[String]) -> Value {
    if !st.damage.is_empty() {
        doc["damage"] = json!(st.damage);
        doc["repair"] = json!(plan);
    }
    doc
}

pub fn status(ctx: &Ctx) -> Result<CmdOutput> {
    let st = CampaignState::load(&ctx.campaign)?;
    let (damage, repair_plan) = damage_text(&st);
    let open = st.open_round.and_then(|n| st.round(n));
    let incumbent = st.incumbent.and_then(|n| st.round(n));
    let metric = &st.manifest.primary_metric;
    let target = Campaign::open_base(&ctx.campaign)
        .ok()
        .and_then(|c| campaign::target_status(&c).ok().flatten());
    let rolled_back = ledger::rolled_back(&st);
    let working_tried = ledger::working_tried(&st, &rolled_back);
    let json = json!({
        "campaign": st.dir,
        "name": st.manifest.name,
        "op": st.manifest.op,
        "dtype": st.manifest.dtype,
        "primary_metric": st.manifest.primary_metric,
        "rounds": st.rounds.len(),
        "baseline_done": st.incumbent.is_some(),
        "incumbent": incumbent.map(|r| json!({
            "round": r.number,
            "hypothesis": r.hypothesis,
            "aggregate": r.decision.as_ref().and_then(|d| d.aggregate),
            "validation": r.decision.as_ref().and_then(|d| d.validation),
        })),
        "open_round": open.map(|r| json!({
            "round": r.number,
            "hypothesis": r.hypothesis,
            "validated": r.gate.is_some(),
            "validation": r.gate_validation,
            "verdict": r.gate.as_ref().map(|g| g.verdict),
            "aggregate_delta": r.gate.as_ref().and_then(|g| g.aggregate.delta),
        })),
        "target": target,
        "lock_holder": kcamp_core::fsutil::LockHolder::of(&st.dir.join(kcamp_core::files::LOCK_FILE))
            .or_else(|| st.lock_holder.as_deref().and_then(kcamp_core::fsutil::LockHolder::parse)),
        "representative_shapes": st.manifest.representative_shapes,
        "frozen_header": st.frozen_header,
        "rolled_back": rolled_back,
        "working_kernel_tried": working_tried,
    });
    let json = with_damage(json, &st, &repair_plan);
    let mut human = format!(
        "campaign '{}' ({} {}, primary metric {metric})\n",
        st.manifest.name,
        st.manifest.op.as_str(),
        st.manifest.dtype.as_str(),
    );
    match incumbent {
        Some(r) => {
            let d = r.decision.as_ref();
            human.push_str(&format!(
                "incumbent: round {} ({}) aggregate {} ({} validation, {} shapes)\n",
                r.number,
                r.hypothesis,
                units::metric_opt(d.and_then(|d| d.aggregate), metric),
                d.and_then(|d| d.validation).map_or("no", |v| v.as_str()),
                r.table.as_ref().map_or(0, |t| t
                    .rows
                    .iter()
                    .filter(|x| x.check == Check::Pass)
                    .count())
            ))
        }
        None => human.push_str("no BASELINE yet\n"),
    }
    match open {
        Some(r) => human.push_str(&format!(
            "open round {}: {} — {}\n",
            r.number,
            r.hypothesis,
            match &r.gate {
                Some(g) => format!(
                    "{} {} ({} validation){}",
                    g.verdict.as_str(),
                    g.aggregate.delta.map_or_else(
                        || "(no aggregate: no shape passed on both sides)".to_owned(),
                        units::change
                    ),
                    r.gate_validation.map_or("?", |v| v.as_str()),
                    match failed_shapes(r).len() {
                        0 => String::new(),
                        1 => ", 1 shape does not PASS".to_owned(),
                        n => format!(", {n} shapes do not PASS"),
                    }
                ),
                None => "not validated yet".to_owned(),
            }
        )),
        None => human.push_str("no open round\n"),
    }
    if !rolled_back.is_empty() {
        human.push_str(&format!(
            "rolled back: {} (`kcamp log` lists each direction and why)\n",
            kcamp_core::text::count(rolled_back.len(), "round")
        ));
    }
    for line in ledger::tried_lines("kernel/", &working_tried) {
        human.push_str(&format!("note: {line}\n"));
    }
    if let Some(t) = &target {
        human.push_str(&format!(
            "performance target: {} — {}\n",
            if t.met { "met" } else { "not met" },
            t.describe()
        ));
    }
    if let Some(h) = &st.lock_holder {
        human.push_str(&format!("locked by {h}\n"));
    }
    human.push_str(&damage);
    let next = next_from_state(&st);
    Ok(CmdOutput::ok(json, human).with_next(next))
}

/// The lineage as rows: each round's aggregate over the shapes it measured, its
/// validation, and the gate's Δ (never a quick aggregate against a full one). Verdict,
/// failures and Δ are the round's [`RoundOutcome`](kcamp_core::campaign::RoundOutcome), as
/// its iteration record, report.md and the dashboard state them.
fn log_rows(st: &CampaignState) -> Vec<LogRow> {
    let metric = &st.manifest.primary_metric;
    st.rounds
        .iter()
        .map(|r| {
            let d = r.decision.as_ref();
            let table = r.table.as_ref();
            let outcome = r.outcome();
            let held_out = campaign::read_held_out(&r.dir).ok().flatten();
            LogRow {
                round: r.number,
                incumbent: st.incumbent == Some(r.number),
                decision: d.map(|d| d.decision),
                validation: outcome.validation,
                verdict: outcome.verdict.map(|v| v.as_str().to_owned()),
                aggregate: table.and_then(|t| t.aggregate(metric)),
                shapes: table.map_or(0, |t| {
                    t.rows.iter().filter(|x| x.check == Check::Pass).count()
                }),
                delta: outcome.delta,
                parent: outcome.parent,
                failed: outcome.failed_labels(),
                forced: d.is_some_and(|d| d.forced),
                cause: d.and_then(kcamp_core::campaign::DecisionCause::of),
                reason: d.and_then(|d| d.reason.clone()),
                git_commit: d.and_then(|d| d.git_commit.clone()),
                hypothesis: r.hypothesis.clone(),
                time: d.map(|d| d.time),
                // Unreadable, it is left out: the log still shows the round.
                held_out: held_out.as_ref().map(|h| h.summary()),
                held_out_status: held_out.as_ref().map(|h| h.status.as_str()),
            }
        })
        .collect()
}

/// A round's shapes that do not PASS (`label CHECK`), the target shapes its validation
/// checked without timing included (`label CHECK (untimed)`): they reject it as well.
fn failed_shapes(r: &kcamp_core::campaign::RoundState) -> Vec<String> {
    r.outcome().failed_labels()
}

pub fn log(ctx: &Ctx, a: &LogArgs) -> Result<CmdOutput> {
    let st = CampaignState::load(&ctx.campaign)?;
    let metric = st.manifest.primary_metric.clone();
    let rows = log_rows(&st);
    let (damage, repair_plan) = damage_text(&st);
    let rolled_back = ledger::rolled_back(&st);
    if let Some(export) = exporter(a.format) {
        let text = export.log(&metric, &rows);
        if !damage.is_empty() {
            eprint!("kcamp: {damage}");
        }
        return Ok(CmdOutput::ok(
            with_damage(
                json!({"rounds": rows, "incumbent": st.incumbent, "rolled_back": rolled_back}),
                &st,
                &repair_plan,
            ),
            text,
        ));
    }
    let mut human = String::new();
    if !rows.is_empty() {
        human.push_str(&format!(
            "  round  state        validation  {:>24}  {:>14}  hypothesis\n",
            format!("{metric} (shapes)"),
            "Δ (gate)"
        ));
    }
    for r in &rows {
        human.push_str(&format!(
            "{} {:>5}  {:<11}  {:<10}  {:>24}  {:>14}  {}\n",
            if r.incumbent { "*" } else { " " },
            r.round,
            r.state(),
            r.validation.map_or("-", |v| v.as_str()),
            r.aggregate.map_or_else(
                || "-".to_owned(),
                |v| format!("{} ({})", units::metric(v, &metric), r.shapes)
            ),
            r.delta_text(),
            r.hypothesis
        ));
    }
    let held: Vec<String> = rows
        .iter()
        .filter_map(|r| Some(format!("round {} {}", r.round, r.held_out.as_ref()?)))
        .collect();
    if !held.is_empty() {
        human.push_str(&format!("held-out checks: {}\n", held.join("; ")));
    }
    if !rolled_back.is_empty() {
        human.push_str("rolled-back directions (tried, not to be tried again as they were):\n");
        for t in &rolled_back {
            human.push_str(&format!("  {} — {}\n", t.line, t.hypothesis));
        }
    }
    if human.is_empty() {
        human.push_str("no rounds yet\n");
    } else {
        human.push_str("(* the incumbent; Δ is the gate's against the incumbent each round was judged against, over the same shapes)\n");
    }
    human.push_str(&damage);
    let next = next_from_state(&st);
    Ok(CmdOutput::ok(
        with_damage(
            json!({"rounds": rows, "incumbent": st.incumbent, "rolled_back": rolled_back}),
            &st,
            &repair_plan,
        ),
        human,
    )
    .with_next(next))
}

pub fn report(ctx: &Ctx, a: &ReportArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    if a.no_run {
        let markdown = c.dir.join(kcamp_report::campaign::FINAL_REPORT);
        if let Some(record) =
            campaign::standing_final_acceptance(&c)?.filter(|_| markdown.is_file())
        {
            return standing_report(ctx, &c, a, &record, &markdown);
        }
    }
    let (m, mut progress) = measuring(ctx, &c, &a.adapter)?;
    let source = (!a.no_run).then(|| source(&a.csv, m.as_ref()));
    let mut summary = None;
    let mut warnings = Vec::new();
    let (files, acceptance, held_out) = run_again(
        campaign::final_report(&c, source, Some(m.as_ref()), &mut progress, |fm| {
            summary = fm.summary.clone();
            // Derived from round 1 alone: rewritten so that it follows the current code. An
            // optional output of this command: a failure is a warning naming it.
            match kcamp_report::campaign::write_baseline_report(&c) {
                Ok(skipped) => warnings.extend(skipped),
                Err(e) => warnings.push(format!(
                    "{} not written: {e}",
                    c.dir
                        .join(kcamp_report::campaign::BASELINE_REPORT)
                        .display()
                )),
            }
            let files = kcamp_report::campaign::write_final_report(&c, fm)?;
            Ok((files, fm.acceptance.clone(), fm.held_out.clone()))
        }),
        with_adapter(Call::new(Command::Report), &a.adapter),
    )?;
    warnings.extend(files.warnings.iter().cloned());
    let gate = &acceptance.report;
    let report = &files.report;
    let metric = &report.primary_metric;
    let cmp = &report.comparison;
    let chart_paths: Vec<&std::path::Path> = files
        .charts
        .iter()
        .flat_map(|c| [c.svg.as_path(), c.png.as_path()])
        .collect();
    let next = report_next(
        ctx,
        gate.verdict,
        report.target.as_ref(),
        acceptance.unfloored.is_some(),
    );
    let human = match a.format {
        ReportFormat::Markdown => {
            // stdout is the markdown to paste; the run's line goes to stderr.
            if let Some(s) = &summary {
                eprintln!("{}", kcamp_core::artifacts::result::result_json_line(s));
            }
            files.markdown.clone()
        }
        _ => {
            // The verdict leads; the table and every reason follow.
            let mut h = format!(
                "final acceptance of round {} against the BASELINE ({}): verdict: {}\n{}",
                report.incumbent_round,
                if a.no_run {
                    "recorded numbers"
                } else {
                    "final full validation"
                },
                gate.verdict.as_str(),
                render_gate_of(
                    gate,
                    "BASELINE",
                    &format!("round {}", report.incumbent_round)
                )
            );
            h += &format!(
                "report.md written: incumbent round {}, {metric} {} vs BASELINE {} ({}) over {} shapes, incumbent from its {}, BASELINE = {}; {} round{} accepted\ncharts: {}",
                report.incumbent_round,
                units::metric_opt(cmp.incumbent, metric),
                units::metric_opt(cmp.baseline, metric),
                cmp.gain().map_or_else(|| "-".to_owned(), units::change),
                cmp.shapes,
                cmp.incumbent_source,
                cmp.baseline_basis.short(),
                files.accepted_rounds,
                if files.accepted_rounds == 1 { "" } else { "s" },
                chart_paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some(t) = &report.target {
                h.push_str(&format!(
                    "\nperformance target: {} — {}",
                    if t.met { "target met" } else { "not met" },
                    t.describe()
                ));
            }
            if let Some(line) = summary.as_ref().and_then(|s| result_line(ctx, s)) {
                h.push_str(&format!("\n{line}"));
            }
            for w in &warnings {
                h.push_str(&format!("\nwarning: {w}"));
            }
            h
        }
    };
    if a.format == ReportFormat::Markdown {
        for w in &warnings {
            eprintln!("kcamp: warning: {w}");
        }
    }
    let exit = if gate.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    let out = CmdOutput::with_exit(
        json!({
            "verdict": gate.verdict,
            "reasons": kcamp_core::gate::reason_texts(&gate.reasons),
            "reason_details": &gate.reasons.0,
            "shapes": gate.shapes,
            "aggregate": gate.aggregate,
            "like_for_like": acceptance.like_for_like,
            "held_out": held_out,
            "report": c.dir.join(kcamp_report::campaign::FINAL_REPORT),
            "incumbent": report.incumbent_round,
            "metric": metric,
            "baseline_aggregate": cmp.baseline,
            "baseline_basis": cmp.baseline_basis,
            "incumbent_aggregate": cmp.incumbent,
            "gain": cmp.gain(),
            "final_validation": !a.no_run,
            "summary": summary,
            "charts": chart_paths,
            "warnings": warnings,
            "data": report,
        }),
        human,
        exit,
    );
    // Markdown on stdout is meant to be pasted: nothing after it.
    Ok(if a.format == ReportFormat::Markdown {
        out
    } else {
        out.with_next(next)
    })
}

/// `report --no-run` where a final full validation of the incumbent stands: that report is
/// shown as it is and nothing is written.
fn standing_report(
    ctx: &Ctx,
    c: &Campaign,
    a: &ReportArgs,
    record: &campaign::GateRecord,
    markdown: &std::path::Path,
) -> Result<CmdOutput> {
    let gate = &record.report;
    let exit = if gate.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    let doc = json!({
        "verdict": gate.verdict,
        "reasons": kcamp_core::gate::reason_texts(&gate.reasons),
        "reason_details": &gate.reasons.0,
        "shapes": gate.shapes,
        "aggregate": gate.aggregate,
        "like_for_like": record.like_for_like,
        "report": markdown,
        "incumbent": record.round,
        "metric": gate.metric,
        "final_validation": true,
        "measured_at": record.time,
        "unchanged": true,
    });
    if a.format == ReportFormat::Markdown {
        let text = std::fs::read_to_string(markdown)
            .map_err(|e| Error::io(format!("reading {}", markdown.display()), e))?;
        return Ok(CmdOutput::with_exit(doc, text, exit));
    }
    let human = format!(
        "final acceptance of round {} against the BASELINE (final full validation of {}, {}): verdict: {}\n{}\nthat final full validation stands: {} and report/ are left as they are, not replaced by a report on round {}'s recorded numbers (`kcamp report` measures again)",
        record.round,
        record.time.format("%Y-%m-%d %H:%M UTC"),
        record.origin,
        gate.verdict.as_str(),
        render_gate_of(gate, "BASELINE", &format!("round {}", record.round)).trim_end(),
        markdown.display(),
        record.round,
    );
    let target = campaign::target_status(c)?;
    Ok(
        CmdOutput::with_exit(doc, human, exit).with_next(report_next(
            ctx,
            gate.verdict,
            target.as_ref(),
            record.unfloored.is_some(),
        )),
    )
}

/// What follows a final report, by its verdict: only an accepted incumbent is a result to
/// share; one the final acceptance refused is measured again or improved first.
fn report_next(
    ctx: &Ctx,
    verdict: kcamp_core::gate::Verdict,
    target: Option<&kcamp_core::campaign::TargetStatus>,
    unfloored: bool,
) -> Vec<NextStep> {
    use kcamp_core::gate::Verdict;
    match verdict {
        Verdict::NeedsRemeasure if unfloored => vec![NextStep::run(Command::Report).before(format!(
            "name the GPU the rows come from (target_gpu in manifest.yaml: the reason above lists the known ones; or run {} peak on it)",
            prefix(ctx)
        ))],
        Verdict::Accept | Verdict::AcceptWithNote => match target {
            Some(t) if !t.met => {
                vec![NextStep::new_round().why("the performance target is not met yet")]
            }
            _ => vec![
                NextStep::run(Command::Report)
                    .arg("no_run", true)
                    .arg("format", "markdown")
                    .why("paste into a pull request"),
            ],
        },
        Verdict::NeedsRemeasure => vec![
            NextStep::run(Command::Report)
                .why("measure the final acceptance again: the gain is inside the noise"),
            NextStep::new_round().why("or improve the kernel further first"),
        ],
        Verdict::Reject => vec![
            NextStep::new_round().why(
                "the incumbent does not hold against the BASELINE: fix or improve it, then report again",
            ),
            NextStep::run(Command::Log).why("which rounds led here"),
        ],
    }
}

/// The gate verdict as a table plus reasons, the two sides labelled as a round's gate
/// labels them (its incumbent, the candidate).
pub fn render_gate(r: &GateReport) -> String {
    render_gate_of(r, "incumbent", "candidate")
}

/// [`render_gate`] with the columns of the two sides labelled `base` and `candidate` (a
/// final report judges the incumbent against the BASELINE).
fn render_gate_of(r: &GateReport, base: &str, candidate: &str) -> String {
    let metric = &r.metric;
    let mut s = super::gate_cmd::shape_table(r, "dims", [base, candidate]);
    let change = r
        .aggregate
        .delta
        .map_or_else(|| "-".to_owned(), units::change);
    let means = format!(
        "{} -> {}",
        units::metric_opt(r.aggregate.incumbent, metric),
        units::metric_opt(r.aggregate.candidate, metric)
    );
    // Paired, the change is the median of per-unit ratios, not the ratio of the two
    // geomeans printed beside it: say which is which, or the two read as a contradiction.
    let aggregate = match r.aggregate.pairs {
        Some(n) => format!(
            "aggregate ({metric}): {change} paired (median over {n} {}); geomean of the mean rates {means}",
            r.aggregate
                .unit
                .unwrap_or(kcamp_core::gate::PairedUnit::Pair)
                .noun(n as usize)
        ),
        None => format!(
            "aggregate ({metric}, geomean over shapes passing on both sides): {means} ({change})"
        ),
    };
    s.push_str(&format!("{aggregate}\nverdict: {}\n", r.verdict.as_str()));
    for reason in &r.reasons {
        s.push_str(&format!("  - {reason}\n"));
    }
    s
}

/// Where the round was measured, from its result.json (absent for imported CSVs), so a
/// number from the software adapter is never mistaken for a GPU's.
fn adapter_line(c: &Campaign, round: u32) -> String {
    let path = c.artifacts_dir(round).join(kcamp_core::files::RESULT_JSON);
    let Ok(Some(result)) = RunResult::read(&path) else {
        return String::new();
    };
    let Some(adapter) = &result.adapter else {
        return String::new();
    };
    let software = if adapter.software {
        " — SOFTWARE ADAPTER (CPU), not a GPU measurement"
    } else {
        ""
    };
    let methods = super::timing_methods(&result);
    // The mode the fingerprint recorded (full / bounds_checks / none); older results only
    // say whether the kernel was trusted.
    let checks = result
        .fingerprint
        .as_ref()
        .and_then(|f| f.runtime_checks)
        .unwrap_or_else(|| kcamp_core::types::RuntimeChecks::of_trusted(result.trusted));
    format!(
        "\nmeasured on {} ({}){software}; timing: {methods}; runtime checks: {}{}",
        adapter.name,
        adapter.backend,
        checks.as_str(),
        super::driver_line(&result)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::gate::{Aggregate, GateConfig, ShapeClass, ShapeVerdict, Verdict};
    use kcamp_core::types::Check;

    fn shape(label: &str, delta: f64) -> ShapeVerdict {
        ShapeVerdict {
            label: label.to_owned(),
            dims: vec![1, 64, 64, 64],
            check: Check::Pass,
            incumbent_check: Check::Pass,
            incumbent: Some(449e-6),
            candidate: Some(648e-6),
            delta: Some(delta),
            band: 0.05,
            p_value: Some(0.03),
            pairs: Some(6),
            class: ShapeClass::Improved,
            hard_regression: false,
        }
    }

    /// A paired Δ the two means contradict (449 → 648 MFLOP/s printed beside +132%) is
    /// marked, with the legend under the table; the sides are labelled as asked.
    #[test]
    fn a_gate_table_marks_a_paired_delta_its_means_contradict() {
        let report = GateReport {
            verdict: Verdict::Accept,
            metric: "Forward TFLOPS".to_owned(),
            aggregate: Aggregate {
                incumbent: None,
                candidate: None,
                delta: None,
                band: None,
                p_value: None,
                pairs: Some(6),
                unit: None,
                unstable: false,
            },
            reasons: Default::default(),
            shapes: vec![shape("s32", 0.45), shape("s64", 1.32)],
            noted_regressions: Vec::new(),
            config: GateConfig::default(),
            paired: true,
        };
        let text = render_gate(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("incumbent") && lines[0].contains("candidate"),
            "{text}"
        );
        assert!(lines[1].contains("+45.0%  "), "{text}");
        assert!(lines[2].contains("+132%≠ "), "{text}");
        assert_eq!(lines[3], kcamp_core::gate::MEANS_DISAGREE_LEGEND, "{text}");
        let report_text = render_gate_of(&report, "BASELINE", "round 3");
        assert!(
            report_text
                .lines()
                .next()
                .is_some_and(|h| h.contains("BASELINE")
                    && h.contains("round 3")
                    && !h.contains("incumbent")),
            "{report_text}"
        );
        // Without a contradicted row: no mark, no legend.
        let mut agreeing = report;
        agreeing.shapes.truncate(1);
        assert!(!render_gate(&agreeing).contains('≠'));
    }
}
