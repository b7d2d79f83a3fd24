//! ANALYZE: the evidence the next hypothesis starts from. Gathers a round's measurement on
//! the roofline of the adapter that made it, the static metrics of its kernel (computed by
//! the caller: naga lives in kcamp-gpu, so core stays GPU-free), and the campaign's open
//! directions, and stores them as the round's `profile_evidence`.

use std::path::Path;

use chrono::Utc;
use serde_json::json;

use super::layout::Campaign;
use crate::analysis::{ProfileEvidence, findings, furthest_first, shape_roofs};
use crate::artifacts::result::RunResult;
use crate::files::{BENCHMARK_CSV, KERNEL_DIR, RESULT_JSON};
use crate::isa::{EntryMetrics, IsaLimits, isa_metric_progress};
use crate::manifest::Manifest;
use crate::memory::{MemoryStore, SetOp, Version};
use crate::next::{Command, NextStep};
use crate::schema::BenchTable;
use crate::specs::Roofs;
use crate::{Error, Result};

/// Which kernel to analyze.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnalyzeTarget {
    /// The incumbent's snapshot and its recorded measurement.
    Incumbent,
    /// A round's snapshot and measurement.
    Round(u32),
    /// The working `kernel/`, with the open round's latest validation when it has one,
    /// else the incumbent's numbers.
    Working,
}

/// Computes naga's metrics of one entry point: `(path shown in errors, WGSL, entry point)`.
pub type StaticMetrics<'a> = &'a dyn Fn(&Path, &str, &str) -> Result<EntryMetrics>;

/// Gather the evidence for `target` (reads only).
pub fn gather(
    c: &Campaign,
    target: AnalyzeTarget,
    static_metrics: StaticMetrics<'_>,
) -> Result<ProfileEvidence> {
    let incumbent = c.incumbent()?.ok_or_else(|| {
        Error::state(
            "no BASELINE yet: nothing to analyze.",
            vec![NextStep::run(Command::Baseline)],
        )
    })?;
    let (round, kernel_dir) = match target {
        AnalyzeTarget::Incumbent => (incumbent, c.round_dir(incumbent).join(KERNEL_DIR)),
        AnalyzeTarget::Round(n) => {
            if !c.round_dir(n).is_dir() {
                return Err(Error::input(format!(
                    "round {n} does not exist (rounds: {:?})",
                    c.round_numbers()?
                )));
            }
            (n, c.round_dir(n).join(KERNEL_DIR))
        }
        AnalyzeTarget::Working => {
            let measured_open = c
                .open_round()?
                .filter(|n| c.artifacts_dir(*n).join(BENCHMARK_CSV).is_file());
            (measured_open.unwrap_or(incumbent), c.kernel_dir())
        }
    };
    let adir = c.artifacts_dir(round);
    let csv = adir.join(BENCHMARK_CSV);
    if !csv.is_file() {
        return Err(Error::state(
            format!(
                "round {round} has no measurement to analyze ({} is missing).",
                csv.display()
            ),
            vec![NextStep::run(Command::Validate)],
        ));
    }
    let table = BenchTable::read_held_to(&csv, c.frozen_header()?.as_deref())?;
    let result = RunResult::read(&adir.join(RESULT_JSON)).ok().flatten();
    let manifest =
        Manifest::load_base(&c.dir)?.with_kernel_settings_of(&kernel_dir.join("kernel.yaml"))?;
    let mut problems = Vec::new();
    let adapter = result.as_ref().and_then(|r| r.adapter.clone());
    let roofs = match &adapter {
        Some(a) => Roofs::for_adapter(&c.dir, a, manifest.dtype),
        None => {
            problems.push("the measurement came from a harness that records no adapter: no roofs to compare with".to_owned());
            Roofs::default()
        }
    };
    let peaks = roofs.primary().cloned();
    if peaks.is_none() && adapter.is_some() {
        problems.push(
            "no measured or cited peaks for this adapter: run `kcamp peak`, then analyze again"
                .to_owned(),
        );
    }
    let mut shapes = shape_roofs(manifest.op, manifest.dtype, &table, peaks.as_ref());
    furthest_first(&mut shapes);

    let kernel_file = kernel_dir.join(&manifest.kernel.file);
    let entry = manifest
        .kernel
        .entry_points
        .get("forward")
        .cloned()
        .unwrap_or_else(|| "main".to_owned());
    let rel = kernel_file
        .strip_prefix(&c.dir)
        .unwrap_or(&kernel_file)
        .to_path_buf();
    let source = std::fs::read_to_string(&kernel_file)
        .map_err(|e| problems.push(format!("reading {}: {e}", kernel_file.display())))
        .ok();
    let metrics = source
        .as_ref()
        .and_then(|source| match static_metrics(&rel, source, &entry) {
            Ok(m) => Some(m),
            Err(e) => {
                problems.push(format!("no static metrics: {e}"));
                None
            }
        });
    let isa = match (&metrics, &adapter, &peaks) {
        (Some(m), Some(a), Some(p)) => isa_metric_progress(
            m,
            &IsaLimits {
                max_workgroup_storage_bytes: a.limits.max_workgroup_storage_bytes,
                max_invocations_per_workgroup: a.limits.max_invocations_per_workgroup,
                subgroup_size: a.limits.subgroup_size.max(1),
                ridge_point_flop_per_byte: p.ridge_point(),
            },
        ),
        _ => Vec::new(),
    };
    let bounds_checks = !manifest.kernel.trusted;
    let mut found = findings(
        &shapes,
        peaks.as_ref(),
        metrics.as_ref(),
        &isa,
        bounds_checks,
    );
    let driver_statistics = result.as_ref().and_then(|r| r.driver_statistics.clone());
    if let Some(stats) = &driver_statistics {
        let vendor = adapter.as_ref().map(|a| a.vendor);
        found.extend(crate::analysis::driver_findings(
            stats,
            metrics.as_ref().map(|m| m.invocations_per_workgroup),
            vendor,
        ));
        // Aligned shapes run a pipeline of their own, with its own workgroup size.
        if let (Some(aligned), Some(source)) = (&stats.aligned, &source) {
            let invocations = static_metrics(&rel, source, &aligned.entry_point)
                .ok()
                .map(|m| m.invocations_per_workgroup);
            found.extend(crate::analysis::driver_findings(
                aligned,
                invocations,
                vendor,
            ));
        }
    }
    let store = MemoryStore::new(&c.dir)?;
    let mut open_directions: Vec<String> = Vec::new();
    for record in store.list()?.records.iter().rev() {
        for d in record
            .get("open_directions")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
        {
            if !open_directions.iter().any(|x| x == d) {
                open_directions.push(d.to_owned());
            }
        }
    }
    Ok(ProfileEvidence {
        round,
        kernel: rel.display().to_string(),
        analyzed_at: Utc::now(),
        adapter: adapter
            .as_ref()
            .map(|a| format!("{} ({})", a.name, a.backend)),
        timing_methods: result
            .as_ref()
            .map(|r| {
                r.timing_methods
                    .iter()
                    .map(|m| m.as_str().to_owned())
                    .collect()
            })
            .unwrap_or_default(),
        validation: result
            .as_ref()
            .map(|r| r.validation)
            .or(c.decision(round)?.and_then(|d| d.validation)),
        ridge_point: peaks.as_ref().map(|p| p.ridge_point()),
        peaks,
        shapes,
        static_metrics: metrics,
        driver_statistics,
        isa_metric_progress: isa,
        bounds_checks,
        findings: found,
        open_directions,
        problems,
    })
}

/// Store `evidence` as `profile_evidence` of its round's record (created for an open
/// round that has none yet), under the campaign lock; journaled and, with `git_commit`,
/// committed. Returns the record's path.
pub fn record_evidence(c: &Campaign, evidence: &ProfileEvidence) -> Result<std::path::PathBuf> {
    let _lock = c.lock("kcamp analyze")?;
    let version = Version::for_round(evidence.round)?;
    let store = MemoryStore::new(&c.dir)?;
    if !store.path_of(version).exists() {
        store.create(version)?;
    }
    let value = serde_json::to_value(evidence)
        .map_err(|e| Error::Internal(format!("serializing the profile evidence: {e}")))?;
    let record = store.update(
        version,
        &[SetOp::Set {
            path: vec!["profile_evidence".into()],
            value,
        }],
    )?;
    c.journal(
        "analyzed",
        Some(evidence.round),
        json!({"kernel": evidence.kernel, "findings": evidence.findings.len()}),
    )?;
    super::git::commit_step(
        c,
        Some(evidence.round),
        &super::git::subject(evidence.round, "profile evidence (kcamp analyze)"),
    )?;
    Ok(record.path)
}
