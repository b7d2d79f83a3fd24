//! init, baseline, round, validate, accept, rollback, status, log, report.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use serde_json::json;

use super::{AdapterArgs, CmdOutput, Ctx};
use kcamp_core::campaign::{
    self, AcceptOptions, Campaign, CampaignState, InitOptions, MeasureSource, Measurer,
};
use kcamp_core::case::ProgressEvent;
use kcamp_core::error::exit;
use kcamp_core::gate::{GateReport, ShapeClass};
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::types::DecisionKind;
use kcamp_core::types::{Dtype, OpName, Validation};
use kcamp_core::{Error, Result};
use kcamp_runner::Builtin;

#[derive(Debug, Args)]
pub struct InitArgs {
    pub dir: PathBuf,
    #[arg(long, default_value = "gemm")]
    pub op: String,
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    /// YAML or CSV file of target shapes (default: the op's standard set).
    #[arg(long)]
    pub shapes: Option<PathBuf>,
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub primary_metric: Option<String>,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Import this CSV (from your own harness) instead of running the kernel.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Subcommand)]
pub enum RoundCommand {
    /// Open round N with its one hypothesis.
    New {
        #[arg(long)]
        hypothesis: String,
    },
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// All target shapes instead of the representative ones.
    #[arg(long)]
    pub full: bool,
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args)]
pub struct AcceptArgs {
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct RollbackArgs {
    #[arg(long)]
    pub reason: String,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Skip the final full validation and report on the recorded rounds only.
    #[arg(long)]
    pub no_run: bool,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

impl AdapterArgs {
    /// An override of the manifest's adapter, if any flag was given.
    pub fn selector(&self) -> Option<AdapterSelector> {
        (self.adapter.is_some() || self.backend.is_some()).then(|| AdapterSelector {
            name: self.adapter.clone(),
            backend: self.backend.clone(),
        })
    }
}

/// The campaign's measurer: its harness command, else the built-in runner (with the
/// adapter flags as an override). It stops on SIGINT, SIGTERM and SIGHUP (see `cancel`).
fn measurer(c: &Campaign, adapter: &AdapterArgs) -> Result<Box<dyn Measurer>> {
    Ok(kcamp_runner::measurer_for(
        &c.manifest,
        Builtin {
            adapter: adapter.selector(),
            cancel: super::cancel::on_signals()?,
            ..Builtin::default()
        },
    ))
}

/// An imported CSV, or a run of `measurer`.
fn source<'a>(csv: &'a Option<PathBuf>, measurer: &'a dyn Measurer) -> MeasureSource<'a> {
    match csv {
        Some(p) => MeasureSource::Csv(p),
        None => MeasureSource::Run(measurer),
    }
}

/// Progress on stderr for the plain commands (the dashboard follows live/progress.json).
fn progress_printer(ctx: &Ctx) -> impl FnMut(ProgressEvent) + use<> {
    let quiet = ctx.json;
    move |e| {
        if quiet {
            return;
        }
        match e {
            ProgressEvent::ShapeStarted {
                index,
                total,
                label,
            } => eprintln!("[{}/{}] {label}", index + 1, total),
            ProgressEvent::ShapeFinished {
                label,
                check,
                primary,
                ..
            } => {
                eprintln!(
                    "      {label}: {}{}",
                    check.as_str(),
                    primary.map(|p| format!(" ({p:.4})")).unwrap_or_default()
                )
            }
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

pub fn init(_ctx: &Ctx, a: &InitArgs) -> Result<CmdOutput> {
    let opts = InitOptions {
        op: parse_op(&a.op)?,
        dtype: parse_dtype(&a.dtype)?,
        shapes: a.shapes.clone(),
        name: a.name.clone(),
        primary_metric: a.primary_metric.clone(),
    };
    let c = campaign::init(&a.dir, &opts)?;
    let json = json!({
        "campaign": c.dir,
        "name": c.manifest.name,
        "op": c.manifest.op,
        "dtype": c.manifest.dtype,
        "primary_metric": c.manifest.primary_metric,
        "target_shapes": c.manifest.target_shapes.len(),
        "kernel": c.kernel_dir().join(&c.manifest.kernel.file),
    });
    let human = format!(
        "created campaign '{}' in {} ({} {}, {} target shapes, primary metric {})\nkernel: {}\nnext: kcamp -C {} baseline",
        c.manifest.name,
        c.dir.display(),
        c.manifest.op.as_str(),
        c.manifest.dtype.as_str(),
        c.manifest.target_shapes.len(),
        c.manifest.primary_metric,
        c.kernel_dir().join(&c.manifest.kernel.file).display(),
        c.dir.display()
    );
    Ok(CmdOutput::ok(json, human))
}

pub fn baseline(ctx: &Ctx, a: &BaselineArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let mut progress = progress_printer(ctx);
    let m = measurer(&c, &a.adapter)?;
    let mut out = campaign::baseline(&c, source(&a.csv, m.as_ref()), &mut progress)?;
    // The report is derived from round 1's artifacts; a failure here loses nothing that
    // `kcamp report` does not write again.
    let reopened = Campaign::open(&c.dir)?;
    if let Err(e) = kcamp_report::campaign::write_baseline_report(&reopened) {
        out.warnings
            .push(format!("baseline_report.md not written: {e}"));
    }
    let mut human = format!(
        "BASELINE recorded as round 1: {}/{} shapes PASS, {} aggregate {}\nrepresentative shapes: {}",
        out.passed,
        out.shapes,
        out.metric,
        fmt_opt(out.aggregate),
        out.representative_shapes.join(", ")
    );
    for (label, check) in &out.not_passing {
        human.push_str(&format!("\n  {label}: {}", check.as_str()));
    }
    for w in &out.warnings {
        human.push_str(&format!("\nwarning: {w}"));
    }
    human.push_str(&adapter_line(&c, out.round));
    Ok(CmdOutput::ok(out, human))
}

pub fn round(ctx: &Ctx, c: &RoundCommand) -> Result<CmdOutput> {
    let RoundCommand::New { hypothesis } = c;
    let camp = Campaign::open(&ctx.campaign)?;
    // Short: a signal (the dashboard quitting) lets it finish rather than cut it in half.
    super::cancel::on_signals()?;
    let n = campaign::new_round(&camp, hypothesis)?;
    let human = format!(
        "opened round {n}: {}\nedit {} then run `kcamp validate`",
        hypothesis.trim(),
        camp.kernel_dir().display()
    );
    Ok(CmdOutput::ok(
        json!({"round": n, "hypothesis": hypothesis.trim()}),
        human,
    ))
}

pub fn validate(ctx: &Ctx, a: &ValidateArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let mut progress = progress_printer(ctx);
    let m = measurer(&c, &a.adapter)?;
    let out = campaign::validate(&c, a.full, source(&a.csv, m.as_ref()), &mut progress)?;
    let r = &out.record;
    let exit = if r.report.verdict.allows_accept() {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    let human = format!(
        "round {} ({} validation) against round {}:\n{}",
        r.round,
        match r.validation {
            Validation::Quick => "quick",
            Validation::Full => "full",
        },
        r.incumbent,
        render_gate(&r.report)
    ) + adapter_line(&c, r.round).trim_start();
    Ok(CmdOutput::with_exit(out.record, human, exit))
}

pub fn accept(ctx: &Ctx, a: &AcceptArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let mut progress = progress_printer(ctx);
    let m = measurer(&c, &AdapterArgs::default())?;
    let opts = AcceptOptions {
        force: a.force,
        reason: a.reason.clone(),
        confirm_source: MeasureSource::Run(m.as_ref()),
    };
    let out = campaign::accept(&c, &opts, &mut progress)?;
    let d = &out.decision;
    let mut human = match d.decision {
        DecisionKind::Accepted => format!(
            "round {} ACCEPTED{}: it is the incumbent now (aggregate {}, {})",
            d.round,
            if d.forced { " (forced)" } else { "" },
            fmt_opt(d.aggregate),
            fmt_pct(d.aggregate_delta)
        ),
        _ => format!(
            "round {} ROLLED BACK: {}",
            d.round,
            d.reason.clone().unwrap_or_default()
        ),
    };
    for w in &out.warnings {
        human.push_str(&format!("\nwarning: {w}"));
    }
    let exit = if d.decision == DecisionKind::Accepted {
        exit::OK
    } else {
        exit::GATE_REJECTED
    };
    Ok(CmdOutput::with_exit(out, human, exit))
}

pub fn rollback(ctx: &Ctx, a: &RollbackArgs) -> Result<CmdOutput> {
    let c = Campaign::open_base(&ctx.campaign)?;
    // Short: a signal (the dashboard quitting) lets it finish rather than cut it in half.
    super::cancel::on_signals()?;
    let out = campaign::rollback(&c, &a.reason)?;
    let human = format!(
        "round {} ROLLED BACK; kernel/ restored from round {}",
        out.decision.round,
        out.decision
            .parent
            .map(|p| p.to_string())
            .unwrap_or_default()
    );
    Ok(CmdOutput::ok(out, human))
}

pub fn status(ctx: &Ctx) -> Result<CmdOutput> {
    let st = CampaignState::load(&ctx.campaign)?;
    let open = st.open_round.and_then(|n| st.round(n));
    let incumbent = st.incumbent.and_then(|n| st.round(n));
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
        })),
        "open_round": open.map(|r| json!({
            "round": r.number,
            "hypothesis": r.hypothesis,
            "validated": r.gate.is_some(),
            "verdict": r.gate.as_ref().map(|g| g.verdict),
            "aggregate_delta": r.gate.as_ref().and_then(|g| g.aggregate.delta),
        })),
        "lock_holder": st.lock_holder,
        "representative_shapes": st.manifest.representative_shapes,
        "frozen_header": st.frozen_header,
    });
    let mut human = format!(
        "campaign '{}' ({} {}, primary metric {})\n",
        st.manifest.name,
        st.manifest.op.as_str(),
        st.manifest.dtype.as_str(),
        st.manifest.primary_metric
    );
    match incumbent {
        Some(r) => human.push_str(&format!(
            "incumbent: round {} ({}) aggregate {}\n",
            r.number,
            r.hypothesis,
            fmt_opt(r.decision.as_ref().and_then(|d| d.aggregate))
        )),
        None => human.push_str("no BASELINE yet: run `kcamp baseline`\n"),
    }
    match open {
        Some(r) => human.push_str(&format!(
            "open round {}: {} — {}\n",
            r.number,
            r.hypothesis,
            match &r.gate {
                Some(g) => format!("{} ({})", g.verdict.as_str(), fmt_pct(g.aggregate.delta)),
                None => "not validated yet".to_owned(),
            }
        )),
        None => human.push_str("no open round\n"),
    }
    if let Some(h) = &st.lock_holder {
        human.push_str(&format!("locked by {h}\n"));
    }
    Ok(CmdOutput::ok(json, human))
}

pub fn log(ctx: &Ctx) -> Result<CmdOutput> {
    let st = CampaignState::load(&ctx.campaign)?;
    let rows: Vec<serde_json::Value> = st
        .rounds
        .iter()
        .map(|r| {
            json!({
                "round": r.number,
                "hypothesis": r.hypothesis,
                "decision": r.decision.as_ref().map(|d| d.decision),
                "parent": r.decision.as_ref().and_then(|d| d.parent),
                "verdict": r.decision.as_ref().and_then(|d| d.verdict).or(r.gate.as_ref().map(|g| g.verdict)),
                "aggregate": r.decision.as_ref().and_then(|d| d.aggregate).or(r.gate.as_ref().and_then(|g| g.aggregate.candidate)),
                "aggregate_delta": r.decision.as_ref().and_then(|d| d.aggregate_delta),
                "reason": r.decision.as_ref().and_then(|d| d.reason.clone()),
                "forced": r.decision.as_ref().is_some_and(|d| d.forced),
                "git_commit": r.decision.as_ref().and_then(|d| d.git_commit.clone()),
                "incumbent": st.incumbent == Some(r.number),
                "time": r.decision.as_ref().map(|d| d.time),
            })
        })
        .collect();
    let mut human = String::new();
    for r in &st.rounds {
        let state = match r.decision.as_ref().map(|d| d.decision) {
            Some(DecisionKind::Baseline) => "BASELINE",
            Some(DecisionKind::Accepted) => "ACCEPTED",
            Some(DecisionKind::RolledBack) => "ROLLED_BACK",
            None => "open",
        };
        human.push_str(&format!(
            "{} round {:>3}  {:<11} {:>12}  {:>8}  {}\n",
            if st.incumbent == Some(r.number) {
                "*"
            } else {
                " "
            },
            r.number,
            state,
            fmt_opt(r.decision.as_ref().and_then(|d| d.aggregate)),
            fmt_pct(r.decision.as_ref().and_then(|d| d.aggregate_delta)),
            r.hypothesis
        ));
    }
    if human.is_empty() {
        human.push_str("no rounds yet\n");
    }
    Ok(CmdOutput::ok(
        json!({"rounds": rows, "incumbent": st.incumbent}),
        human,
    ))
}

pub fn report(ctx: &Ctx, a: &ReportArgs) -> Result<CmdOutput> {
    let c = Campaign::open(&ctx.campaign)?;
    let m = measurer(&c, &a.adapter)?;
    let source = (!a.no_run).then(|| MeasureSource::Run(m.as_ref()));
    let mut progress = progress_printer(ctx);
    let files = campaign::final_report(&c, source, &mut progress, |fm| {
        // Derived from round 1 alone: rewritten so that it follows the current code.
        kcamp_report::campaign::write_baseline_report(&c)?;
        kcamp_report::campaign::write_final_report(&c, fm.incumbent, &fm.table)
    })?;
    let report = &files.report;
    let metric = &report.primary_metric;
    let incumbent = report.incumbent_round;
    let gain = match (report.baseline_aggregate, report.incumbent_aggregate) {
        (Some(b), Some(i)) if b > 0.0 => Some(i / b - 1.0),
        _ => None,
    };
    let chart_paths: Vec<&std::path::Path> = files
        .charts
        .iter()
        .flat_map(|c| [c.svg.as_path(), c.png.as_path()])
        .collect();
    let human = format!(
        "report.md written: incumbent round {incumbent}, {metric} {} vs BASELINE {} ({}), {} rounds accepted\ncharts: {}",
        fmt_opt(report.incumbent_aggregate),
        fmt_opt(report.baseline_aggregate),
        fmt_pct(gain),
        files.accepted_rounds,
        chart_paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(CmdOutput::ok(
        json!({
            "report": c.dir.join(kcamp_report::campaign::FINAL_REPORT),
            "incumbent": incumbent,
            "metric": metric,
            "baseline_aggregate": report.baseline_aggregate,
            "incumbent_aggregate": report.incumbent_aggregate,
            "gain": gain,
            "final_validation": !a.no_run,
            "charts": chart_paths,
        }),
        human,
    ))
}

/// The gate verdict as a table plus reasons.
pub fn render_gate(r: &GateReport) -> String {
    let mut s = format!(
        "{:<16} {:<22} {:<12} {:>12} {:>12} {:>8} {:>6}  {}\n",
        "shape", "dims", "check", "incumbent", "candidate", "delta", "band", "class"
    );
    for sh in &r.shapes {
        s.push_str(&format!(
            "{:<16} {:<22} {:<12} {:>12} {:>12} {:>8} {:>5.1}%  {}\n",
            sh.label,
            sh.dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x"),
            sh.check.as_str(),
            fmt_opt(sh.incumbent),
            fmt_opt(sh.candidate),
            fmt_pct(sh.delta),
            sh.band * 100.0,
            match sh.class {
                ShapeClass::Improved => "improved",
                ShapeClass::Neutral => "neutral",
                ShapeClass::Regressed => "regressed",
                ShapeClass::Failed => "failed",
            }
        ));
    }
    s.push_str(&format!(
        "aggregate ({}): {} -> {} ({})\nverdict: {}\n",
        r.metric,
        fmt_opt(r.aggregate.incumbent),
        fmt_opt(r.aggregate.candidate),
        fmt_pct(r.aggregate.delta),
        r.verdict.as_str()
    ));
    for reason in &r.reasons {
        s.push_str(&format!("  - {reason}\n"));
    }
    s
}

/// Where the round was measured, from its result.json (absent for imported CSVs), so a
/// number from the software adapter is never mistaken for a GPU's.
fn adapter_line(c: &Campaign, round: u32) -> String {
    let path = c.artifacts_dir(round).join(kcamp_core::files::RESULT_JSON);
    let Some(result) = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return String::new();
    };
    let adapter = &result["adapter"];
    let name = adapter["name"].as_str().unwrap_or("unknown adapter");
    let software = if adapter["software"].as_bool() == Some(true) {
        " — SOFTWARE ADAPTER (CPU), not a GPU measurement"
    } else {
        ""
    };
    let methods = result["timing_methods"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!(
        "\nmeasured on {name} ({}){software}; timing: {methods}; bounds checks {}",
        adapter["backend"].as_str().unwrap_or("?"),
        if result["trusted"].as_bool() == Some(true) {
            "off (trusted)"
        } else {
            "on"
        }
    )
}

fn fmt_opt(v: Option<f64>) -> String {
    match v {
        Some(x) if x.abs() >= 1000.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.4}"),
        None => "-".to_owned(),
    }
}

fn fmt_pct(v: Option<f64>) -> String {
    v.map(kcamp_core::gate::percent)
        .unwrap_or_else(|| "-".to_owned())
}
