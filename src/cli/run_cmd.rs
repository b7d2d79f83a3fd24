//! `kcamp run`, `kcamp peak`, `kcamp util`, and the hidden `kcamp __worker`.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::{AdapterArgs, CmdOutput, Ctx};
use kcamp_core::case::ProgressEvent;
use kcamp_core::manifest::{AdapterSelector, Manifest};
use kcamp_core::next::{Command, NextStep};
use kcamp_core::specs::{self, MeasuredPeaks, Registry};
use kcamp_core::types::Validation;
use kcamp_core::{Error, Result};
use kcamp_runner::{CampaignRunOptions, run_campaign_cases};

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct RunArgs {
    /// quick (representative shapes) or full (all target shapes).
    #[arg(long, default_value = "full")]
    #[serde(default = "full_shapes")]
    #[schemars(extend("enum" = ["quick", "full"]))]
    pub shapes: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct PeakArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub adapter: AdapterArgs,
    /// Time this WGSL file in place of the cooperative-matrix chain: a probe of what a
    /// kernel's inner loop costs on the tensor cores (docs/roofline.md;
    /// docs/performance.md, "What bounds the f16 kernel"). It keeps the chain's bindings,
    /// 256 invocations and 8 multiply-adds of 16×16×16 per subgroup and iteration; its rate
    /// is shown as the probe's, not as a ceiling.
    #[arg(long, value_name = "FILE")]
    pub coop_probe: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UtilArgs {
    /// GPU of the spec registry: id (h200, h100, a100, mi300x, rtx4090, m2) or name part.
    #[arg(long)]
    pub gpu: String,
    /// Peak to compare against: f32, f16 or f16-tensor.
    #[arg(long)]
    pub dtype: String,
    /// FLOPs of one launch, an expression over --dims (e.g. '2*M*N*K').
    #[arg(long, value_name = "EXPR")]
    pub flops_expr: String,
    /// Bytes moved by one launch, an expression over --dims (e.g. '4*(M*K+K*N+M*N)').
    #[arg(long, value_name = "EXPR")]
    pub bytes_expr: String,
    /// Measured time of one launch in milliseconds.
    #[arg(long, value_name = "MS")]
    pub time_ms: f64,
    /// Workgroups (thread blocks) of the launch, for the wave count.
    #[arg(long, value_name = "G")]
    pub grid_blocks: Option<u64>,
    /// Dimensions the expressions use, e.g. M=4096,N=4096,K=4096.
    #[arg(long, value_name = "NAME=V,...", default_value = "")]
    pub dims: String,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {}

fn selector(args: &AdapterArgs) -> Option<AdapterSelector> {
    (args.adapter.is_some() || args.backend.is_some()).then(|| AdapterSelector {
        name: args.adapter.clone(),
        backend: args.backend.clone(),
        ..AdapterSelector::default()
    })
}

fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

pub fn run(ctx: &Ctx, a: &RunArgs) -> Result<CmdOutput> {
    let validation = match a.shapes.as_str() {
        "quick" => Validation::Quick,
        "full" => Validation::Full,
        other => {
            return Err(Error::input(format!(
                "--shapes must be quick or full, got '{other}'"
            )));
        }
    };
    let manifest = Manifest::load(&ctx.campaign)?;
    // `run` takes no lock (it records no round) but writes runs/ and live/: never through
    // a link.
    kcamp_core::campaign::check_closed_world(&ctx.campaign)?;
    kcamp_core::campaign::refuse_builtin_if_imported(&kcamp_core::campaign::Campaign::open(
        &ctx.campaign,
    )?)?;
    let mut opts = CampaignRunOptions::new(validation);
    opts.adapter = selector(&a.adapter);
    // The worker runs in its own process group, which the terminal's Ctrl-C does not
    // reach: a signal stops the run and the runner kills the worker.
    opts.cancel = super::cancel::flag(ctx)?;
    kcamp_runner::adopt_descendants();
    let bar = progress_bar();
    let hooks = ctx.step.clone();
    // The shapes in progress: one, or one per shard of a sharded run (docs/scale.md), whose
    // list the bar shows instead of one shape's phase.
    let mut current: Vec<String> = Vec::new();
    let report = run_campaign_cases(&ctx.campaign, &manifest, &opts, &mut |event| {
        if let Some(h) = &hooks {
            (h.progress)(&event);
        }
        match event {
            ProgressEvent::RunStarted { total_shapes } => bar.set_length(total_shapes as u64),
            ProgressEvent::ShapeStarted { label, .. } => {
                current.push(label);
                bar.set_message(current.join(" | "));
            }
            ProgressEvent::Phase { .. } | ProgressEvent::Sample { .. } if current.len() > 1 => {}
            ProgressEvent::Phase { label, phase } => bar.set_message(format!("{label}: {phase}")),
            ProgressEvent::Sample {
                label,
                pass,
                repeat,
                repeats,
                ms,
            } => bar.set_message(format!("{label} {pass} {repeat}/{repeats} {ms:.3} ms")),
            ProgressEvent::ShapeFinished { label, .. } => {
                current.retain(|l| *l != label);
                bar.inc(1);
            }
            ProgressEvent::WorkerRestarted { label, reason } => {
                bar.println(format!("worker restarted after {label}: {reason}"))
            }
            ProgressEvent::RunFinished { .. } => bar.finish_and_clear(),
        }
    })?;
    // A cancelled run ends without its RunFinished: the bar must not stay on screen.
    bar.finish_and_clear();
    let cancelled = opts.cancel.load(Ordering::SeqCst);
    let summary = report.summary();
    let mut human = String::new();
    let metric = &manifest.primary_metric;
    for o in &report.outcomes {
        let _ = write!(human, "{:<24} {:<12}", o.label, o.check.as_str());
        match (&o.reason, o.metrics.get(metric)) {
            (Some(reason), _) => {
                let mut lines = reason.lines();
                let _ = writeln!(human, " {}", lines.next().unwrap_or_default());
                for l in lines {
                    let _ = writeln!(human, "    {l}");
                }
            }
            (None, Some(v)) => {
                let _ = write!(human, " {metric} {}", kcamp_core::units::metric(*v, metric));
                // Which pipeline measured the shape is part of its number.
                if !o.aligned_entries.is_empty() {
                    let _ = write!(human, "  (aligned: {})", o.aligned_entries.join(", "));
                }
                human.push('\n');
            }
            (None, None) => human.push('\n'),
        }
    }
    if cancelled {
        human.push_str("cancelled: the remaining shapes were not run\n");
    }
    let driver = super::driver_line(&report.result);
    if !driver.is_empty() {
        let _ = writeln!(human, "{}", driver.trim_start());
    }
    if let Some(t) = &report.result.time_breakdown {
        let _ = writeln!(human, "time: {}", t.summary());
    }
    let _ = writeln!(human, "artifacts: {}", report.artifacts_dir.display());
    // With --json stdout carries exactly one JSON document (its `summary` is the line),
    // so the line goes to stderr.
    if ctx.json {
        eprintln!("{}", report.result_line);
    } else {
        human.push_str(&report.result_line);
    }
    let doc = json!({
        "artifacts_dir": report.artifacts_dir,
        "cancelled": cancelled,
        "summary": summary,
        "result": report.result,
    });
    // A run records nothing: the next step is the one that would, given the campaign's state.
    let state = kcamp_core::campaign::CampaignState::load(&ctx.campaign).ok();
    let next = match state {
        // Cancelled: what it measured is incomplete, and a signal is not a success (exit 2,
        // as a cancelled validate); measuring again comes before anything else.
        _ if cancelled => {
            let again =
                NextStep::run(Command::Run).why("cancelled: run again to measure every shape");
            return Ok(
                CmdOutput::with_exit(doc, human, kcamp_core::error::exit::BAD_INPUT)
                    .with_next(vec![again]),
            );
        }
        Some(st) if st.incumbent.is_none() => NextStep::run(Command::Baseline)
            .why("record these measurements as round 1, the BASELINE"),
        Some(st) if st.open_round.is_none() => NextStep::new_round()
            .then(Command::Validate)
            .why("a run records nothing"),
        _ => NextStep::run(Command::Validate)
            .why("record this kernel in the open round and judge it"),
    };
    // A run records nothing, yet a shape that does not PASS is a run that did not pass.
    let code = if summary.all_pass {
        kcamp_core::error::exit::OK
    } else {
        kcamp_core::error::exit::GATE_REJECTED
    };
    Ok(CmdOutput::with_exit(doc, human, code).with_next(vec![next]))
}

/// Measure the adapter's FMA (f32, and f16 where it has SHADER_F16) and copy ceilings.
pub(crate) fn measure_peaks(
    adapter: &AdapterSelector,
    coop_probe: Option<kcamp_gpu::peak::CoopProbe>,
) -> Result<(MeasuredPeaks, kcamp_gpu::peak::PeakReport)> {
    let ctx = kcamp_gpu::GpuContext::open(adapter)?;
    let opts = kcamp_gpu::peak::PeakOptions {
        coop_probe,
        ..Default::default()
    };
    let report = kcamp_gpu::peak::measure(&ctx, &opts)?;
    let now = chrono::Utc::now();
    let desc = ctx.description();
    let mut flops =
        std::collections::BTreeMap::from([("f32".to_owned(), report.fma_f32.gflops * 1e9)]);
    if let Some(f16) = &report.fma_f16 {
        flops.insert("f16".to_owned(), f16.gflops * 1e9);
    }
    let measured = MeasuredPeaks {
        source: MeasuredPeaks::source_id(&desc.name, now),
        adapter: desc.name.clone(),
        driver: desc.driver.clone(),
        measured_at: now,
        flops,
        bandwidth: Some(report.copy.gbps * 1e9),
    };
    Ok((measured, report))
}

pub fn peak(ctx: &Ctx, a: &PeakArgs) -> Result<CmdOutput> {
    let adapter = match selector(&a.adapter) {
        Some(s) => s,
        None => Manifest::load(&ctx.campaign)
            .map(|m| m.adapter)
            .unwrap_or_default(),
    };
    let probe = a
        .coop_probe
        .as_ref()
        .map(|path| {
            Ok::<_, kcamp_core::Error>(kcamp_gpu::peak::CoopProbe {
                name: path.display().to_string(),
                source: kcamp_core::fsutil::read_input_text(
                    path,
                    kcamp_core::fsutil::MAX_INPUT_BYTES,
                )?,
            })
        })
        .transpose()?;
    let (measured, report) = measure_peaks(&adapter, probe)?;
    let path = specs::peak_store_path(&ctx.campaign)?;
    let source = specs::record_measured(&path, measured.clone())?;
    let mut human = format!(
        "{} ({}); timing {}\n",
        measured.adapter,
        measured.driver,
        report.timing_method.as_str()
    );
    for (key, flops) in &measured.flops {
        let _ = writeln!(
            human,
            "  {key:<12} {} (FMA chain)",
            kcamp_core::units::flop_rate(*flops)
        );
    }
    if let Some(bw) = measured.bandwidth {
        let _ = writeln!(
            human,
            "  bandwidth    {} (vec4 copy, read + write)",
            kcamp_core::units::byte_rate(bw)
        );
    }
    // The tensor cores as WGSL reaches them: the ceiling of a cooperative-matrix kernel, shown
    // beside the FMA roofs (the roofline keeps using those and the cited tensor rates).
    match (&report.coop_f16, &report.coop_f16_error) {
        (Some(c), _) => match &report.coop_f16_probe {
            Some(probe) => {
                let _ = writeln!(
                    human,
                    "  f16 coop     {} (probe {probe}, in place of the multiply-add chain: 8 multiply-adds of 16x16x16 per subgroup and iteration, and what else its loop does)",
                    kcamp_core::units::flop_rate(c.gflops * 1e9)
                );
            }
            None => {
                let _ = writeln!(
                    human,
                    "  f16 coop     {} (cooperative-matrix multiply-add chain, 16x16x16, f32 sums; not a roof kcamp judges by)",
                    kcamp_core::units::flop_rate(c.gflops * 1e9)
                );
            }
        },
        (None, Some(e)) => {
            let _ = writeln!(human, "  f16 coop     not measured: {e}");
        }
        (None, None) => {}
    }
    let _ = write!(human, "stored as source '{source}' in {}", path.display());
    let in_campaign = ctx
        .campaign
        .join(kcamp_core::files::MANIFEST_FILE)
        .is_file();
    let next = if in_campaign {
        vec![
            NextStep::run(Command::Baseline)
                .why("if not done yet; utilization is stated against these peaks"),
            NextStep::run(Command::Report)
                .arg("no_run", true)
                .why("restate utilization and the roofline with these peaks"),
        ]
    } else {
        Vec::new()
    };
    Ok(CmdOutput::ok(
        json!({"source": source, "file": path, "peaks": measured, "measurement": report}),
        human,
    )
    .with_next(next))
}

pub fn util(_ctx: &Ctx, a: &UtilArgs) -> Result<CmdOutput> {
    let registry = Registry::builtin()?;
    let gpu = registry.find(&a.gpu)?;
    let peaks = gpu.util_peaks(&a.dtype)?;
    let dims = specs::parse_dims(&a.dims)?;
    let flops = specs::eval_work_expr("--flops-expr", &a.flops_expr, &dims)?;
    let bytes = specs::eval_work_expr("--bytes-expr", &a.bytes_expr, &dims)?;
    let u = specs::utilization(&peaks, flops, bytes, a.time_ms, a.grid_blocks)?;
    let source = |id: &str| {
        registry
            .sources
            .get(id)
            .map(|s| format!("{id}: {} ({}, {})", s.title, s.url, s.date))
            .unwrap_or_else(|| id.to_owned())
    };
    use kcamp_core::units as fmt;
    let mut human = format!(
        "{} ({}), {} and {} per launch in {}\n",
        gpu.name,
        a.dtype,
        fmt::si(flops, "FLOP"),
        fmt::bytes(bytes),
        fmt::millis(a.time_ms)
    );
    let _ = writeln!(
        human,
        "achieved     {} = {} of {} [{}]",
        fmt::flop_rate(u.achieved_tflops * 1e12),
        peaks.flops.utilization_text(u.flops_utilization_pct),
        fmt::flop_rate(peaks.flops.value),
        peaks.flops.source
    );
    let _ = writeln!(
        human,
        "             {} = {} of {} [{}]",
        fmt::byte_rate(u.achieved_gbps * 1e9),
        peaks
            .bandwidth
            .utilization_text(u.bandwidth_utilization_pct),
        fmt::byte_rate(peaks.bandwidth.value),
        peaks.bandwidth.source
    );
    let _ = writeln!(
        human,
        "intensity    {}, ridge point {}: {}-bound",
        fmt::intensity(u.arithmetic_intensity),
        fmt::intensity(u.ridge_point),
        match u.bound {
            specs::Bound::Memory => "memory",
            specs::Bound::Compute => "compute",
        }
    );
    if let (Some(waves), Some(units)) = (u.waves, &peaks.units) {
        let _ = writeln!(
            human,
            "waves        {} ({} blocks over {} {}s) [{}]",
            fmt::sig(waves),
            a.grid_blocks.unwrap_or_default(),
            units.value,
            units.kind,
            units.source
        );
    }
    // Caveats recorded with the cited values (dense vs. sparse, unverified figures).
    let cited = [
        (
            format!("peak_flops.{}", a.dtype),
            gpu.peak_flops.get(&a.dtype),
        ),
        ("memory_bandwidth".to_owned(), gpu.memory_bandwidth.as_ref()),
    ];
    for (field, c) in cited {
        let Some(c) = c else { continue };
        if c.uncertain {
            let _ = writeln!(
                human,
                "caution      {field} is not verified against its source"
            );
        }
        if let Some(note) = &c.note {
            let _ = writeln!(human, "note         {field}: {note}");
        }
    }
    let mut ids = vec![peaks.flops.source.clone(), peaks.bandwidth.source.clone()];
    ids.extend(peaks.units.iter().map(|u| u.source.clone()));
    ids.sort();
    ids.dedup();
    human.push_str("sources:\n");
    for id in &ids {
        let _ = writeln!(human, "  {}", source(id));
    }
    let doc = json!({
        "gpu": gpu.id,
        "dtype": a.dtype,
        "flops": flops,
        "bytes": bytes,
        "time_ms": a.time_ms,
        "utilization": u,
        "sources": ids
            .iter()
            .filter_map(|id| registry.sources.get(id).map(|s| (id.clone(), s)))
            .collect::<std::collections::BTreeMap<_, _>>(),
    });
    Ok(CmdOutput::ok(doc, human).with_next(vec![
        NextStep::run(Command::Peak)
            .fill("adapter", "NAME")
            .why("measured ceilings of the adapter itself; a campaign uses them before cited ones"),
    ]))
}

/// `kcamp __worker`: serve cases on stdin/stdout until EOF (see `runner::serve`).
pub fn worker(_a: &WorkerArgs) -> Result<CmdOutput> {
    // A worker never outlives the kcamp that started it, even mid-kernel.
    kcamp_runner::exit_when_orphaned();
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    kcamp_runner::serve(stdin.lock(), stdout.lock(), &mut kcamp_gpu::executor)?;
    Ok(CmdOutput::ok(serde_json::Value::Null, ""))
}

fn full_shapes() -> String {
    "full".to_owned()
}
