//! `kcamp analyze`: the ANALYZE step. Where a kernel stands against the roofline shape by
//! shape, what naga sees in it, and the open directions of the records; stored as the
//! round's `profile_evidence` so the next hypothesis (and the dashboard) start from it.

use std::fmt::Write as _;

use clap::Args;

use super::{CmdOutput, Ctx};
use kcamp_core::Result;
use kcamp_core::analysis::ProfileEvidence;
use kcamp_core::campaign::{self, AnalyzeTarget, Campaign};
use kcamp_core::next::{Command, NextStep};
use kcamp_core::specs::Bound;
use kcamp_core::units;

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct AnalyzeArgs {
    /// Analyze this round's kernel snapshot and measurement (default: the incumbent).
    #[arg(long, value_name = "N", conflicts_with = "working")]
    pub round: Option<u32>,
    #[serde(default)]
    /// Analyze the working kernel/ (static metrics), with the open round's latest
    /// validation when it has one, else the incumbent's numbers.
    #[arg(long)]
    pub working: bool,
    #[serde(default)]
    /// Print the evidence without storing it (no lock, nothing written): what the
    /// dashboard asks while a validation may hold the campaign.
    #[arg(long)]
    pub no_record: bool,
}

pub fn analyze(ctx: &Ctx, a: &AnalyzeArgs) -> Result<CmdOutput> {
    let c = Campaign::open_base(&ctx.campaign)?;
    let target = match (a.round, a.working) {
        (Some(n), _) => AnalyzeTarget::Round(n),
        (None, true) => AnalyzeTarget::Working,
        (None, false) => AnalyzeTarget::Incumbent,
    };
    let metrics = |path: &std::path::Path, source: &str, entry: &str| {
        kcamp_gpu::shader_metrics::entry_metrics(path, source, entry)
    };
    let evidence = campaign::gather_evidence(&c, target, &metrics)?;
    let record = if a.no_record {
        None
    } else {
        Some(campaign::record_evidence(&c, &evidence)?)
    };
    let mut human = render(&evidence);
    match &record {
        Some(path) => {
            let _ = writeln!(human, "profile_evidence written to {}", path.display());
        }
        None => human.push_str("not recorded (--no-record)\n"),
    }
    let next = if c.open_round()?.is_some() {
        vec![NextStep::run(Command::Validate).before(format!(
            "edit {}",
            c.kernel_dir().join(&c.manifest.kernel.file).display()
        ))]
    } else {
        vec![NextStep::new_round().why("start from the findings above")]
    };
    Ok(CmdOutput::ok(
        serde_json::json!({"record": record, "profile_evidence": evidence}),
        human,
    )
    .with_next(next))
}

fn bound(b: Option<Bound>) -> &'static str {
    match b {
        Some(Bound::Memory) => "memory",
        Some(Bound::Compute) => "compute",
        None => "-",
    }
}

fn render(e: &ProfileEvidence) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANALYZE round {}: kernel {}; numbers from its {} validation on {}, timing {}",
        e.round,
        e.kernel,
        e.validation.map_or("recorded", |v| v.as_str()),
        e.adapter
            .as_deref()
            .unwrap_or("an unrecorded adapter (harness CSV)"),
        if e.timing_methods.is_empty() && e.adapter.is_some() {
            // kcamp ran it and timed nothing: every shape failed before its timing.
            "none (no shape was timed)".to_owned()
        } else if e.timing_methods.is_empty() {
            "as recorded by the harness".to_owned()
        } else {
            e.timing_methods.join(", ")
        }
    );
    match &e.peaks {
        Some(p) => {
            let _ = writeln!(out, "roofs: {}", p.describe());
        }
        None => out.push_str("roofs: unknown\n"),
    }
    let _ = writeln!(
        out,
        "\nshapes, furthest from their roof first (forward pass):"
    );
    use super::table::{Align::Left as L, Align::Right as R, Table};
    // Text left, numbers right.
    let mut table = Table::new([L, L, R, R, R, R, L, R, R]).indented("  ");
    table.row([
        "shape",
        "check",
        "time",
        "FLOP/s",
        "B/s",
        "intensity",
        "bound",
        "of peak",
        "headroom",
    ]);
    for s in &e.shapes {
        let of_peak = match (s.bound, &e.peaks) {
            (Some(Bound::Memory), Some(peaks)) => s
                .bandwidth_pct
                .map(|p| format!("{} BW", peaks.bandwidth.utilization_text(p))),
            (Some(Bound::Compute), Some(peaks)) => s
                .compute_pct
                .map(|p| format!("{} FLOP", peaks.flops.utilization_text(p))),
            _ => None,
        };
        table.row([
            s.label.clone(),
            s.check.as_str().to_owned(),
            s.time_ms.map_or_else(|| "-".to_owned(), units::millis),
            s.flop_rate.map_or_else(|| "-".to_owned(), units::flop_rate),
            s.byte_rate.map_or_else(|| "-".to_owned(), units::byte_rate),
            units::intensity(s.intensity),
            bound(s.bound).to_owned(),
            of_peak.unwrap_or_else(|| "-".to_owned()),
            s.headroom.map_or_else(|| "-".to_owned(), units::times),
        ]);
    }
    out.push_str(&table.render());
    if let Some(m) = &e.static_metrics {
        let _ = writeln!(
            out,
            "\nstatic metrics (naga, entry point {}):",
            m.entry_point
        );
        let [x, y, z] = m.workgroup_size;
        let _ = writeln!(
            out,
            "  workgroup {x}×{y}×{z} = {} invocations; workgroup memory {}",
            m.invocations_per_workgroup,
            units::bytes(m.workgroup_memory_bytes as f64)
        );
        let trips: Vec<String> = m
            .loop_trip_counts
            .iter()
            .map(|t| t.map_or_else(|| "run-time".to_owned(), |n| n.to_string()))
            .collect();
        let _ = writeln!(
            out,
            "  loops: {} (nesting depth {}; trip counts {}); at most {} barrier(s) per loop iteration",
            m.loop_count,
            m.max_loop_depth,
            if trips.is_empty() {
                "-".to_owned()
            } else {
                trips.join(", ")
            },
            m.max_barriers_per_loop_iteration
        );
        let steady = m.main_loop.unwrap_or(m.unrolled_counts);
        let fma = steady.float_ops as f64 / 2.0;
        let per_fma = |n: u64| {
            if fma > 0.0 {
                units::sig(n as f64 / fma)
            } else {
                "-".to_owned()
            }
        };
        let _ = writeln!(
            out,
            "  {} per invocation: {} storage loads ({}), {} storage stores, {} workgroup loads, {} FLOP; loads per FMA {}, stores per FMA {}",
            if m.main_loop.is_some() {
                "one main-loop iteration"
            } else {
                "whole body"
            },
            steady.storage_loads,
            units::bytes(steady.storage_load_bytes as f64),
            steady.storage_stores,
            steady.workgroup_loads,
            steady.float_ops,
            per_fma(steady.storage_loads + steady.workgroup_loads),
            per_fma(steady.storage_stores)
        );
    }
    let _ = writeln!(
        out,
        "  runtime bounds checks: {}",
        if e.bounds_checks {
            "on"
        } else {
            "off (trusted)"
        }
    );
    match &e.driver_statistics {
        Some(d) => {
            let _ = writeln!(
                out,
                "\ncompiled by the driver ({}, as measured): {}",
                d.entry_point,
                d.summary()
            );
        }
        None => out.push_str(
            "\ncompiled by the driver: no statistics (the adapter does not report them: Vulkan's VK_KHR_pipeline_executable_properties; or the round predates them)\n",
        ),
    }
    if !e.isa_metric_progress.is_empty() {
        out.push_str("\ntargets (isa_metric_progress):\n");
        for m in &e.isa_metric_progress {
            let _ = writeln!(
                out,
                "  [{}] {}: {} (target {})",
                match m.met {
                    Some(true) => "met",
                    Some(false) => "NOT met",
                    None => "?",
                },
                m.metric,
                m.current.map_or_else(|| "-".to_owned(), units::sig),
                m.target
            );
        }
    }
    if !e.findings.is_empty() {
        out.push_str("\nfindings:\n");
        for f in &e.findings {
            let _ = writeln!(out, "  - {f}");
        }
    }
    if !e.open_directions.is_empty() {
        out.push_str("\nopen directions (from the records, newest first):\n");
        for d in &e.open_directions {
            let _ = writeln!(out, "  - {d}");
        }
    }
    if !e.problems.is_empty() {
        out.push_str("\nnot analyzed:\n");
        for p in &e.problems {
            let _ = writeln!(out, "  - {p}");
        }
    }
    out
}
