//! Reports of a campaign: gathers what `baseline_report.md` and `report.md` state from the
//! campaign's rounds and artifacts, then renders them (markdown and charts).

use std::fmt::Write as _;
use std::path::Path;

use kcamp_core::analysis::shape_roofs;
use kcamp_core::artifacts::fingerprint::{AdapterIdentity, Fingerprint, HarnessIdentity};
use kcamp_core::artifacts::result::{RunResult, ShapeRecord};
use kcamp_core::campaign::{
    Campaign, FINAL_VALIDATION_DIR, FinalMeasurement, Pairing, RoundOutcome, RoundRecords,
    read_gate_record,
};
use kcamp_core::case::WarmupRecord;
use kcamp_core::files::{BENCHMARK_CSV, KERNEL_DIR, PAIRED_CSV, RESULT_JSON};
use kcamp_core::fsutil::write_atomic;
use kcamp_core::manifest::{Manifest, TimingConfig};
use kcamp_core::schema::BenchTable;
use kcamp_core::specs::Roofs;
use kcamp_core::types::{Check, DecisionKind, OpName, Validation};
use kcamp_core::units;
use kcamp_core::{Error, Result};

use crate::{
    Aggregate, BaselineBasis, BaselineReport, ChartFiles, ChartLink, Comparison, FinalReport,
    Provenance, RoundPoint, ShapeComparison, ShapeResult,
};

pub use kcamp_core::files::BASELINE_REPORT;
pub const FINAL_REPORT: &str = "report.md";
pub use kcamp_core::files::REPORT_DIR;

/// Where and how a run was measured, from its result.json (None: an imported CSV).
pub fn provenance(result: Option<&RunResult>) -> Provenance {
    match result {
        Some(r) => Provenance {
            adapter: r.adapter.as_ref().map_or_else(
                || "an adapter the run did not record".to_owned(),
                |a| format!("{} ({}, driver {})", a.name, a.backend, a.driver),
            ),
            software: r.adapter.as_ref().is_some_and(|a| a.software),
            timing: if r.timing_methods.is_empty() {
                "none (no shape was timed)".to_owned()
            } else {
                r.timing_methods
                    .iter()
                    .map(|m| match m {
                        kcamp_core::types::TimingMethod::GpuTimestamps => {
                            "GPU timestamp queries around each dispatch"
                        }
                        kcamp_core::types::TimingMethod::HostClock => {
                            "host clock after a full device wait"
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            bounds_checks: Some(!r.trusted),
        },
        None => Provenance {
            adapter: "an external harness (imported CSV: no adapter recorded)".to_owned(),
            software: false,
            timing: "as recorded by the harness".to_owned(),
            bounds_checks: None,
        },
    }
}

/// Who measured a CSV that came without a run record: the campaign's harness, or whatever
/// wrote an imported CSV (from the measurement's `fingerprint.json`).
#[derive(Debug, Clone, PartialEq)]
enum External {
    /// The campaign's harness command (`full_command`, else `quick_command`), and the
    /// adapter the fingerprint identified for it, if any.
    Harness(String, Option<AdapterIdentity>, Box<HarnessMachine>),
    Imported,
}

/// What the fingerprint of a harness run says of the machine it ran on, and whether a
/// roofline floor held its rows.
#[derive(Debug, Clone, PartialEq, Default)]
struct HarnessMachine {
    hardware: Option<kcamp_core::host::Hardware>,
    /// Why no floor held the rows (None: one did).
    unfloored: Option<String>,
}

impl External {
    /// The measurement in `artifacts` when kcamp's runner did not make it (no result.json).
    fn of(c: &Campaign, artifacts: &Path, result: Option<&RunResult>) -> Option<External> {
        if result.is_some() {
            return None;
        }
        let fingerprint = Fingerprint::read(artifacts).ok().flatten();
        let command = c
            .manifest
            .full_command
            .clone()
            .or_else(|| c.manifest.quick_command.clone());
        let machine = |f: &Fingerprint| HarnessMachine {
            hardware: f.hardware.clone(),
            unfloored: kcamp_core::campaign::floor_missing(c, f).ok().flatten(),
        };
        Some(match fingerprint {
            Some(
                ref f @ Fingerprint {
                    harness:
                        HarnessIdentity::Command {
                            ref full_command, ..
                        },
                    ref adapter,
                    ..
                },
            ) => External::Harness(full_command.clone(), adapter.clone(), Box::new(machine(f))),
            // Recorded without a fingerprint (older kcamp): a harness campaign's own
            // measurement is its harness's.
            None => command.map_or(External::Imported, |cmd| {
                External::Harness(cmd, None, Box::default())
            }),
            Some(_) => External::Imported,
        })
    }

    fn provenance(&self) -> Provenance {
        match self {
            External::Harness(cmd, adapter, machine) => Provenance {
                adapter: match (adapter, &machine.hardware) {
                    (Some(a), _) => format!(
                        "{} ({}, driver {}), as identified for the campaign's harness `{cmd}`",
                        a.name, a.backend, a.driver
                    ),
                    (None, Some(hw)) => format!(
                        "the machine the campaign's harness ran on (`{cmd}`), where kcamp found {}{}",
                        hw.describe(),
                        if hw.identified.is_empty() {
                            String::new()
                        } else {
                            format!(" (GPU registry: {})", hw.identified.join(", "))
                        }
                    ),
                    (None, None) => format!(
                        "the machine the campaign's harness ran on (`{cmd}`: it records no adapter)"
                    ),
                },
                software: adapter.as_ref().is_some_and(|a| a.software),
                timing: "the harness's own (kcamp did not time it)".to_owned(),
                bounds_checks: None,
            },
            External::Imported => provenance(None),
        }
    }

    /// What checked the outputs, and against what.
    fn correctness(&self, table: &BenchTable) -> (String, String) {
        let snr: Vec<&str> = table
            .schema
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .filter(|n| n.ends_with("_snr"))
            .collect();
        let says = if snr.is_empty() {
            "its CSV reports the Check column only".to_owned()
        } else {
            format!(
                "its CSV reports the Check column and {} (rel_err below is 10^(−SNR/20) of the worst of them)",
                snr.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        match self {
            External::Harness(cmd, _, machine) => (
                match &machine.unfloored {
                    None => format!(
                        "the campaign's harness `{cmd}` ran the kernel, checked its outputs and timed it itself; kcamp read the CSV it wrote and held its rows to the roofline floor"
                    ),
                    Some(why) => format!(
                        "the campaign's harness `{cmd}` ran the kernel, checked its outputs and timed it itself; kcamp read the CSV it wrote, and no roofline floor held its rows ({why})"
                    ),
                },
                format!("the harness's own reference and tolerance, not kcamp's; {says}"),
            ),
            External::Imported => (
                "an imported CSV: written by something kcamp did not run; the Check column is as it was written".to_owned(),
                format!("whatever wrote the CSV used its own; {says}"),
            ),
        }
    }
}

/// A row's worst relative error from its SNR columns (`snr = 20·log10(1/rel_err)`), for a
/// CSV without a run record.
fn rel_err_from_snr(table: &BenchTable, row: &kcamp_core::schema::Row) -> Option<f64> {
    table
        .schema
        .columns
        .iter()
        .filter(|c| c.name.ends_with("_snr"))
        .filter_map(|c| row.metric(&table.schema, &c.name))
        .filter(|s| s.is_finite())
        .map(|snr| 10f64.powf(-snr / 20.0))
        .reduce(f64::max)
}

/// The roofs of the adapter that made `result`, and a note when there are none.
fn roofs_of(c: &Campaign, result: Option<&RunResult>) -> (Roofs, Option<String>) {
    match result.and_then(|r| r.adapter.as_ref()) {
        Some(adapter) => {
            let roofs = Roofs::for_adapter(&c.dir, adapter, c.manifest.dtype);
            let note = roofs.primary().is_none().then(|| {
                format!(
                    "No measured or cited peaks for {}: run `kcamp peak` in the campaign to measure them, then `kcamp report --no-run`.",
                    adapter.name
                )
            });
            (roofs, note)
        }
        None => (
            Roofs::default(),
            Some("The numbers come from an external harness that records no adapter, so there are no peaks to state utilization against.".to_owned()),
        ),
    }
}

/// `rounds/round-N/kernel/...` relative paths and chart links, relative to the campaign.
fn link(c: &Campaign, title: &str, files: &ChartFiles) -> ChartLink {
    let rel = |p: &Path| p.strip_prefix(&c.dir).unwrap_or(p).display().to_string();
    ChartLink {
        title: title.to_owned(),
        svg: rel(&files.svg),
        png: rel(&files.png),
    }
}

/// A chart is an optional output: one that cannot be written (a full or failing disk) is a
/// warning naming it, and the report links only the charts that exist. A chart without
/// data is `Error::State`: `no_data_ok` says whether to skip it quietly or pass it on.
fn optional_chart(
    made: Result<ChartFiles>,
    stem: &Path,
    no_data_ok: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<ChartFiles>> {
    match made {
        Ok(f) => Ok(Some(f)),
        Err(e) if no_data_ok && matches!(e.cause(), Error::State(_)) => Ok(None),
        Err(e) if matches!(e.cause(), Error::State(_)) => Err(e),
        Err(e) => {
            warnings.push(format!(
                "chart {} (.svg, .png) not written: {e}",
                stem.display()
            ));
            Ok(None)
        }
    }
}

/// Write `baseline_report.md` (and the baseline's roofline chart) from round 1's artifacts.
/// Returns warnings for the charts it could not write (the report links the others).
pub fn write_baseline_report(c: &Campaign) -> Result<Vec<String>> {
    let adir = c.artifacts_dir(1);
    let table = BenchTable::read_held_to(&adir.join(BENCHMARK_CSV), c.frozen_header()?.as_deref())?;
    let result = RunResult::read(&adir.join(RESULT_JSON))?;
    let m = &c.manifest;
    let external = External::of(c, &adir, result.as_ref());
    let (roofs, peaks_note) = roofs_of(c, result.as_ref());
    let roofline = shape_roofs(m.op, m.dtype, &table, roofs.primary());
    let dim_names: Vec<String> = table
        .schema
        .dim_names()
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let shapes: Vec<ShapeResult> = table
        .rows
        .iter()
        .zip(roofline.iter())
        .map(|(r, roof)| {
            let info = result.as_ref().and_then(|res| res.shape(&r.label));
            ShapeResult {
                label: r.label.clone(),
                dims: dim_names
                    .iter()
                    .cloned()
                    .zip(r.dims.iter().copied())
                    .collect(),
                check: r.check,
                reason: info.and_then(|s| s.reason.clone()),
                rel_err: match &external {
                    Some(_) => (r.check == Check::Pass)
                        .then(|| rel_err_from_snr(&table, r))
                        .flatten(),
                    None => info.and_then(|s| s.rel_err),
                },
                metric: (r.check == Check::Pass)
                    .then(|| r.metric(&table.schema, &m.primary_metric))
                    .flatten(),
                metric_stddev: (r.check == Check::Pass)
                    .then(|| r.stddev(&table.schema, &m.primary_metric))
                    .flatten(),
                roof: roof.clone(),
            }
        })
        .collect();
    let latencies: Vec<f64> = roofline
        .iter()
        .filter_map(|s| s.time_ms.map(|ms| ms * 1000.0))
        .collect();
    let mut charts = Vec::new();
    let mut warnings = Vec::new();
    let stem = c.dir.join(REPORT_DIR).join("baseline_roofline");
    if let Some(files) = optional_chart(
        crate::chart_roofline(&roofs, &roofline, &[], &stem),
        &stem,
        true,
        &mut warnings,
    )? {
        charts.push(link(c, "Roofline of the baseline (forward pass)", &files));
    }
    let report = BaselineReport {
        campaign: m.name.clone(),
        op: m.op.as_str().to_owned(),
        dtype: m.dtype.as_str().to_owned(),
        provenance: match &external {
            Some(e) => e.provenance(),
            None => provenance(result.as_ref()),
        },
        kernel_path: format!("rounds/round-1/{KERNEL_DIR}/{}", m.kernel.file),
        correctness_test: match &external {
            Some(e) => e.correctness(&table).0,
            None => "built-in wgpu runner (`kcamp baseline`): seeded random inputs, NaN-poisoned outputs, every timed output checked".to_owned(),
        },
        reference: match &external {
            Some(e) => e.correctness(&table).1,
            None => kcamp_core::ops::op(m.op).reference_description().to_owned(),
        },
        configuration: configuration(m, result.as_ref(), external.as_ref()),
        primary_metric: m.primary_metric.clone(),
        aggregate: table.aggregate(&m.primary_metric),
        latency_us: kcamp_core::stats::geomean(&latencies),
        shapes,
        roofs,
        peaks_note,
        charts,
    };
    write_atomic(
        &c.dir.join(BASELINE_REPORT),
        crate::baseline_report_md(&report).as_bytes(),
    )?;
    Ok(warnings)
}

fn configuration(
    m: &Manifest,
    result: Option<&RunResult>,
    external: Option<&External>,
) -> Vec<(String, String)> {
    let timeout = units::millis(m.effective_timeout_sec().unwrap_or(m.timeout_sec) * 1000.0);
    let (timeout, checks) = match external {
        None => (
            ("timeout per case", timeout),
            if m.kernel.trusted {
                "off (kernel.trusted: true)"
            } else {
                "on"
            }
            .to_owned(),
        ),
        Some(External::Harness(..)) => (
            (
                "timeout",
                format!(
                    "the harness invocation as a whole: {timeout} (`timeout_sec`) per shape it is asked for, plus a start allowance (docs/harness.md); kcamp does not time single cases of a harness"
                ),
            ),
            "not kcamp's: the harness compiled and ran the kernel".to_owned(),
        ),
        Some(External::Imported) => (
            (
                "timeout",
                "none: kcamp did not run what measured it".to_owned(),
            ),
            "not kcamp's: kcamp did not run the kernel".to_owned(),
        ),
    };
    vec![
        ("primary metric".into(), m.primary_metric.clone()),
        ("timing".into(), sampling_text(&m.timing, result)),
        ("warm-up".into(), warmup_text(&m.timing, result)),
        (timeout.0.into(), timeout.1),
        ("runtime bounds checks".into(), checks),
        (
            "representative shapes".into(),
            m.representative_shapes.join(", "),
        ),
        ("gate".into(), gate_rule(m)),
    ]
}

/// How the samples of `result`'s run were taken; a CSV without a run record was timed by
/// its harness, not by these settings.
fn sampling_text(timing: &TimingConfig, result: Option<&RunResult>) -> String {
    match result {
        Some(_) => format!(
            "{} samples per shape, each sample batching dispatches until it lasts at least {}",
            timing.repeats,
            units::millis(timing.min_sample_ms)
        ),
        None => "the harness's own (an imported or harness CSV: kcamp did not time it)".to_owned(),
    }
}

/// How `result`'s run warmed up before each timed step: the rule it ran under and the
/// warm-ups its `result.json` recorded.
pub fn warmup_text(timing: &TimingConfig, result: Option<&RunResult>) -> String {
    match result {
        Some(r) => warmup_description(
            timing,
            r.adapter.as_ref().is_some_and(|a| a.software),
            &r.shapes,
            r.paired.as_ref().map_or(&[], |p| p.shapes.as_slice()),
        ),
        None => {
            "the harness's own (an imported or harness CSV: kcamp recorded no warm-up)".to_owned()
        }
    }
}

fn range(lo: f64, hi: f64, f: impl Fn(f64) -> String) -> String {
    if f(lo) == f(hi) {
        f(lo)
    } else {
        format!("{}–{}", f(lo), f(hi))
    }
}

/// The warm-up rule (`timing.warmup_ms`, `warmup`, `warmup_tolerance`) and a summary of the
/// warm-ups `shapes` recorded; `paired`: the records of the kernel measured beside them,
/// which shared each warm-up.
pub fn warmup_description(
    timing: &TimingConfig,
    software: bool,
    shapes: &[ShapeRecord],
    paired: &[ShapeRecord],
) -> String {
    let min_ms = timing.warmup_min_ms(software);
    let mut text = format!(
        "before each timed step, by time and stability: dispatches for at least {} ({}) and at least {} dispatch(es) (`timing.warmup`), until the last {} warm-up samples agree within {} (`timing.warmup_tolerance`), giving up settling after {}",
        units::millis(min_ms),
        match (timing.warmup_ms, software) {
            (Some(_), _) => "`timing.warmup_ms`",
            (None, true) => "the default of `timing.warmup_ms` on a software adapter",
            (None, false) => "the default of `timing.warmup_ms` on a GPU",
        },
        timing.warmup.max(1),
        TimingConfig::WARMUP_SETTLE_SAMPLES,
        units::percent(timing.warmup_tolerance * 100.0),
        units::millis(min_ms * TimingConfig::WARMUP_CAP_FACTOR)
    );
    let records: Vec<(&str, &WarmupRecord)> = shapes
        .iter()
        .flat_map(|s| s.warmup.iter().map(move |w| (s.label.as_str(), w)))
        .collect();
    if records.is_empty() {
        text.push_str(
            "; the run's result.json records no warm-up (no shape was timed, or the run predates warm-up records)",
        );
        return text;
    }
    let spread = |records: &[(&str, &WarmupRecord)], f: fn(&WarmupRecord) -> f64| {
        records
            .iter()
            .map(|(_, w)| f(w))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    };
    let count = |d: f64| format!("{d:.0}");
    let (dlo, dhi) = spread(&records, |w| w.dispatches as f64);
    let (mlo, mhi) = spread(&records, |w| w.ms);
    let timed = shapes.iter().filter(|s| !s.warmup.is_empty()).count();
    let _ = write!(
        text,
        "; as recorded in result.json: {} warm-up(s) over {timed} timed shape(s), {} dispatches and {} each",
        records.len(),
        range(dlo, dhi, count),
        range(mlo, mhi, units::millis)
    );
    let unsettled: Vec<String> = records
        .iter()
        .filter(|(_, w)| !w.settled)
        .map(|(label, w)| format!("{label} {}", w.step.to_lowercase()))
        .collect();
    if unsettled.is_empty() {
        text.push_str(", all settled");
    } else {
        let _ = write!(
            text,
            "; {} of them did not settle before giving up: {}",
            unsettled.len(),
            unsettled.join(", ")
        );
    }
    let paired: Vec<(&str, &WarmupRecord)> = paired
        .iter()
        .flat_map(|s| s.warmup.iter().map(move |w| (s.label.as_str(), w)))
        .collect();
    if !paired.is_empty() {
        let (plo, phi) = spread(&paired, |w| w.dispatches as f64);
        let _ = write!(
            text,
            "; the kernel re-measured beside it shared each warm-up ({} dispatches of its own)",
            range(plo, phi, count)
        );
    }
    text
}

fn gate_rule(m: &Manifest) -> String {
    let g = &m.gate;
    // A paired campaign's rounds are judged over units (blocks or pairs) with a t-test;
    // Welch's applies to unpaired sides with samples.
    let test = if g.paired {
        format!(
            "paired rounds (incumbent and candidate measured in one run): r the spread of the log ratios of their units (A B B A blocks where every shape has 5, else pairs) and a t-test over the units at p < {}, 3 units at least to call a change; otherwise Welch's t-test at p < {} when raw samples exist",
            g.p_value, g.p_value
        )
    } else {
        format!("Welch's t-test at p < {} when raw samples exist", g.p_value)
    };
    format!(
        "noise band = max({}, {}·r) with r the combined relative stddev; a shape below -max({}, band) is a regression (REJECT); aggregate gain >= {} to ACCEPT; {test}",
        units::percent(g.noise_floor * 100.0),
        g.stddev_multiplier,
        units::percent(g.regression_threshold * 100.0),
        units::percent(g.noise_floor * 100.0),
    )
}

/// How the FLOPs and bytes of a shape are counted, for the report's method section.
fn work_definition(op: OpName) -> &'static str {
    match op {
        OpName::Gemm => {
            "a forward GEMM dispatch is 2·B·M·N·K FLOP and moves at least B·(M·K + K·N + M·N) elements (each operand read once, the output written once)"
        }
        OpName::Axpy => {
            "an axpy dispatch is 2·N FLOP and moves 3·N elements (x and y read, out written)"
        }
    }
}

/// The aggregate of `metric` over the PASS rows whose label is in `labels` (all rows when
/// None), with its propagated relative stddev.
fn aggregate_over(
    table: &BenchTable,
    metric: &str,
    labels: Option<&[String]>,
) -> Option<Aggregate> {
    let rows: Vec<(f64, Option<f64>)> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .filter(|r| labels.is_none_or(|l| l.contains(&r.label)))
        .filter_map(|r| {
            let v = r.metric(&table.schema, metric)?;
            Some((v, r.stddev(&table.schema, metric)))
        })
        .collect();
    let values: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let value = kcamp_core::stats::geomean(&values)?;
    let cvs: Option<Vec<f64>> = rows
        .iter()
        .map(|(v, sd)| sd.filter(|_| *v > 0.0).map(|sd| sd / v))
        .collect();
    Some(Aggregate {
        value,
        rel_stddev: cvs.map(|cv| cv.iter().map(|x| x * x).sum::<f64>().sqrt() / cv.len() as f64),
        shapes: rows.len(),
    })
}

/// The lineage, every round with both aggregates kept apart.
fn round_points(c: &Campaign, frozen: Option<&str>) -> Result<Vec<RoundPoint>> {
    let metric = &c.manifest.primary_metric;
    let reps = &c.manifest.representative_shapes;
    let targets = c.manifest.target_shapes.len();
    let mut points = Vec::new();
    for (n, d) in c.decisions()? {
        let gate = read_gate_record(c, n).ok().flatten();
        let csv = c.artifacts_dir(n).join(BENCHMARK_CSV);
        let table = if csv.is_file() {
            BenchTable::read_held_to(&csv, frozen).ok()
        } else {
            None
        };
        let result = RunResult::read(&c.artifacts_dir(n).join(RESULT_JSON))
            .ok()
            .flatten();
        // Its verdict, failures (untimed checked shapes included) and Δ, as its iteration
        // record, `kcamp log` and the dashboard state them.
        let outcome = RoundOutcome::of(&RoundRecords {
            decision: d.as_ref(),
            gate: gate.as_ref().map(|g| &g.report),
            gate_incumbent: gate.as_ref().map(|g| g.incumbent),
            gate_validation: gate.as_ref().map(|g| g.validation),
            checked: gate.as_ref().map(|g| g.checked_shapes.as_slice()),
            table: table.as_ref(),
            result: result.as_ref(),
        });
        let validation = d
            .as_ref()
            .and_then(|d| d.validation)
            .or(gate.as_ref().map(|g| g.validation))
            .filter(|_| table.is_some());
        let full = table
            .as_ref()
            .filter(|t| validation == Some(Validation::Full) || t.rows.len() == targets)
            .and_then(|t| aggregate_over(t, metric, None));
        let quick = table
            .as_ref()
            .filter(|_| !reps.is_empty())
            .and_then(|t| aggregate_over(t, metric, Some(reps)));
        points.push(RoundPoint {
            round: n,
            label: cut(&c.hypothesis(n).unwrap_or_default(), 60),
            decision: d.as_ref().map(|d| d.decision),
            validation,
            quick,
            full,
            failed: outcome.failed_labels(),
            delta: outcome.delta,
            parent: outcome.parent,
        });
    }
    Ok(points)
}

/// The baseline side of the final report and what it is: the BASELINE's snapshot
/// re-measured beside the incumbent when the final acceptance was paired (its numbers, not
/// round 1's record, are what the verdict judged), else round 1's recorded rows.
fn baseline_side(
    c: &Campaign,
    fm: &FinalMeasurement,
    frozen: Option<&str>,
) -> Result<(BenchTable, BaselineBasis)> {
    let pairing = fm.acceptance.like_for_like.as_ref().map(|l| &l.pairing);
    let interleaved = match pairing {
        Some(Pairing::Interleaved { round: 1 }) => Some(true),
        Some(Pairing::SameRun { round: 1 }) => Some(false),
        _ => None,
    };
    if let (Some(interleaved), Some(side)) = (interleaved, &fm.paired) {
        return Ok((
            side.table.clone(),
            BaselineBasis::SameRun {
                interleaved,
                file: format!("{FINAL_VALIDATION_DIR}/{PAIRED_CSV}"),
            },
        ));
    }
    let why = match pairing {
        Some(Pairing::Unpaired { reason }) => reason.clone(),
        _ => "the final validation recorded no re-measurement of it".to_owned(),
    };
    let table = BenchTable::read_held_to(&c.artifacts_dir(1).join(BENCHMARK_CSV), frozen)?;
    Ok((table, BaselineBasis::Recorded { why }))
}

/// What `kcamp report` wrote.
#[derive(Debug, Clone)]
pub struct FinalReportFiles {
    pub report: FinalReport,
    /// The text of report.md.
    pub markdown: String,
    pub charts: Vec<ChartFiles>,
    pub accepted_rounds: usize,
    /// The charts that could not be written, each named.
    pub warnings: Vec<String>,
}

/// Write `report.md` and its charts under `report/`, comparing the incumbent's final full
/// validation (or, without one, its recorded CSV) with BASELINE on the shapes both passed.
pub fn write_final_report(c: &Campaign, fm: &FinalMeasurement) -> Result<FinalReportFiles> {
    let report_dir = c.dir.join(REPORT_DIR);
    let frozen = c.frozen_header()?;
    let m = &c.manifest;
    let metric = m.primary_metric.clone();
    let incumbent = fm.incumbent;
    let base_dir = c.artifacts_dir(1);
    let base_result = RunResult::read(&base_dir.join(RESULT_JSON)).ok().flatten();
    // The baseline side is what the final acceptance judged against: the BASELINE's snapshot
    // re-measured in this run when it was paired, else round 1's recorded rows.
    let (baseline, baseline_basis) = baseline_side(c, fm, frozen.as_deref())?;
    let (inc_result, incumbent_source) = match &fm.origin {
        Some(_) => (
            RunResult::read(&c.dir.join(FINAL_VALIDATION_DIR).join(RESULT_JSON))
                .ok()
                .flatten(),
            format!("final full validation ({FINAL_VALIDATION_DIR}/{BENCHMARK_CSV})"),
        ),
        None => {
            let validation = c
                .decision(incumbent)?
                .and_then(|d| d.validation)
                .map_or("recorded", Validation::as_str);
            (
                RunResult::read(&c.artifacts_dir(incumbent).join(RESULT_JSON))
                    .ok()
                    .flatten(),
                format!(
                    "{validation} validation of round {incumbent} (recorded numbers: `kcamp report --no-run`)"
                ),
            )
        }
    };
    let inc_dir = match &fm.origin {
        Some(_) => c.dir.join(FINAL_VALIDATION_DIR),
        None => c.artifacts_dir(incumbent),
    };
    let inc_external = External::of(c, &inc_dir, inc_result.as_ref());
    let shapes: Vec<ShapeComparison> = fm
        .table
        .rows
        .iter()
        .map(|r| {
            let b = baseline.find(&r.shape_key());
            let pass_b = b.filter(|b| b.check == Check::Pass);
            let pass_i = (r.check == Check::Pass).then_some(r);
            ShapeComparison {
                label: r.label.clone(),
                dims: r.dims.clone(),
                baseline: pass_b.and_then(|b| b.metric(&baseline.schema, &metric)),
                baseline_stddev: pass_b.and_then(|b| b.stddev(&baseline.schema, &metric)),
                baseline_check: b.map_or(Check::Error, |b| b.check),
                incumbent: pass_i.and_then(|r| r.metric(&fm.table.schema, &metric)),
                incumbent_stddev: pass_i.and_then(|r| r.stddev(&fm.table.schema, &metric)),
                incumbent_check: r.check,
            }
        })
        .collect();
    let both: Vec<&ShapeComparison> = shapes.iter().filter(|s| s.speedup().is_some()).collect();
    let geo = |f: fn(&ShapeComparison) -> Option<f64>| {
        kcamp_core::stats::geomean(&both.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
    };
    let verdict = &fm.acceptance.report;
    let comparison = Comparison {
        baseline: geo(|s| s.baseline),
        incumbent: geo(|s| s.incumbent),
        shapes: both.len(),
        incumbent_source,
        verdict_delta: verdict.aggregate.delta.filter(|_| verdict.paired),
        baseline_basis,
    };
    let (roofs, peaks_note) = roofs_of(c, inc_result.as_ref().or(base_result.as_ref()));
    let peaks = roofs.primary();
    let roofline = shape_roofs(m.op, m.dtype, &fm.table, peaks);
    let base_roofline = shape_roofs(m.op, m.dtype, &baseline, peaks);
    let rounds = round_points(c, frozen.as_deref())?;
    let provenance_inc = provenance(inc_result.as_ref());
    let provenance_base = provenance(base_result.as_ref());
    // Re-measured in the same run, the baseline was measured where the incumbent was.
    let differs = !comparison.baseline_basis.same_run()
        && (provenance_inc.adapter != provenance_base.adapter
            || provenance_inc.timing != provenance_base.timing);

    let mut files = Vec::new();
    let mut charts = Vec::new();
    let mut warnings = Vec::new();
    let stem = report_dir.join("metric_over_rounds");
    if let Some(rounds_chart) = optional_chart(
        crate::chart_metric_over_rounds(
            &metric,
            &rounds,
            m.representative_shapes.len(),
            m.target_shapes.len(),
            &stem,
        ),
        &stem,
        false,
        &mut warnings,
    )? {
        charts.push(link(c, &format!("{metric} over rounds"), &rounds_chart));
        files.push(rounds_chart);
    }
    let stem = report_dir.join("speedup");
    if let Some(speedup) = optional_chart(
        crate::chart_speedup(&metric, &shapes, comparison.baseline_basis.short(), &stem),
        &stem,
        false,
        &mut warnings,
    )? {
        charts.push(link(
            c,
            "Speedup per shape (incumbent / baseline)",
            &speedup,
        ));
        files.push(speedup);
    }
    let stem = report_dir.join("roofline");
    if let Some(roof) = optional_chart(
        crate::chart_roofline(&roofs, &base_roofline, &roofline, &stem),
        &stem,
        true,
        &mut warnings,
    )? {
        charts.push(link(c, "Roofline: baseline and incumbent shapes", &roof));
        files.push(roof);
    }
    let report = FinalReport {
        campaign: m.name.clone(),
        op: m.op.as_str().to_owned(),
        dtype: m.dtype.as_str().to_owned(),
        primary_metric: metric.clone(),
        incumbent_round: incumbent,
        incumbent_hypothesis: c.hypothesis(incumbent).unwrap_or_default(),
        comparison,
        target: kcamp_core::campaign::target_status(c)?,
        provenance: provenance_inc,
        baseline_provenance: differs.then_some(provenance_base),
        rounds,
        representative_shapes: m.representative_shapes.clone(),
        target_shapes: m.target_shapes.len(),
        shapes,
        roofline,
        roofs,
        peaks_note,
        method: vec![
            match &inc_result {
                Some(_) => format!(
                    "Each shape's value is the mean of {} samples, ± their population stddev; each sample batches dispatches until it lasts at least {}.",
                    m.timing.repeats,
                    units::millis(m.timing.min_sample_ms),
                ),
                None => "Each shape's value and stddev are the harness's (an imported or harness CSV: kcamp did not time it).".to_owned(),
            },
            format!(
                "Warm-up of the incumbent's numbers: {}.",
                warmup_text(&m.timing, inc_result.as_ref())
            ),
            match &inc_external {
                None => format!(
                    "Correctness: {}; PASS iff rel_err < {} and the output has no NaN/Inf and is not all zeros.",
                    kcamp_core::ops::op(m.op).reference_description(),
                    units::sci(m.dtype.rel_err_threshold())
                ),
                Some(External::Harness(cmd, ..)) => format!("Correctness: the Check column of the CSV of the harness `{cmd}`, by the harness's own reference and tolerance (kcamp did not check these outputs itself)."),
                Some(External::Imported) => "Correctness: the Check column of the imported CSV, as whatever wrote it checked (kcamp did not check these outputs itself).".to_owned(),
            },
            format!("FLOPs and bytes: {}.", work_definition(m.op)),
            format!("Gate: {}.", gate_rule(m)),
            "Aggregates compare like with like: the same shapes on both sides, a quick aggregate never against a full one.".to_owned(),
        ]
        .into_iter()
        .chain(verdict.paired.then(|| format!(
            "The final acceptance was paired: per shape, Δ is the median of the ratios incumbent/baseline over its units (A B B A blocks, each side's best sample in a block, where every shape has 5; else pairs, one repeat each) minus one and r the larger of their logarithms' standard deviation and robust spread, with a t-test over the units (p < {}) in place of Welch's; the aggregate Δ is the median over units of each unit's median ratio over the shapes. The table's values and speedups are the mean rates of the same samples.",
            m.gate.p_value
        )))
        .collect(),
        charts,
        acceptance: Some(crate::Acceptance {
            verdict: fm.acceptance.report.verdict.as_str().to_owned(),
            reasons: fm.acceptance.report.reasons.iter().map(|r| r.text.clone()).collect(),
        }),
    };
    let markdown = crate::final_report_md(&report);
    write_atomic(&c.dir.join(FINAL_REPORT), markdown.as_bytes())?;
    let accepted_rounds = report
        .rounds
        .iter()
        .filter(|r| r.decision == Some(DecisionKind::Accepted))
        .count();
    Ok(FinalReportFiles {
        report,
        markdown,
        charts: files,
        accepted_rounds,
        warnings,
    })
}

/// At most `max` characters of `text`; a cut one ends in `…` (so it does not read as whole).
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::types::Check;

    #[test]
    fn a_cut_hypothesis_ends_in_an_ellipsis() {
        assert_eq!(cut("short", 60), "short");
        let long = "x".repeat(61);
        let shown = cut(&long, 60);
        assert_eq!(shown.chars().count(), 60);
        assert!(shown.ends_with("x…"), "{shown}");
        assert_eq!(cut(&"é".repeat(60), 60), "é".repeat(60));
    }

    fn warmup(step: &str, dispatches: u64, ms: f64, settled: bool) -> WarmupRecord {
        WarmupRecord {
            step: step.into(),
            dispatches,
            ms,
            settled,
            last_dispatch_ms: Vec::new(),
        }
    }

    fn shape(label: &str, warmup: Vec<WarmupRecord>) -> ShapeRecord {
        ShapeRecord {
            label: label.into(),
            dims: vec![1, 64, 64, 64],
            check: Check::Pass,
            reason: None,
            seed: 1,
            latency_us: Some(1.0),
            rel_err: Some(1e-7),
            timing_method: None,
            warmup,
            aligned_entries: Vec::new(),
        }
    }

    #[test]
    fn the_warm_up_is_described_by_time_and_stability_with_what_was_recorded() {
        let timing = TimingConfig {
            warmup: 10,
            warmup_ms: Some(300.0),
            ..TimingConfig::default()
        };
        let shapes = [
            shape(
                "sq1024",
                vec![
                    warmup("Forward", 1034, 335.8, true),
                    warmup("Backward", 436, 303.3, true),
                ],
            ),
            shape(
                "sq4096",
                vec![
                    warmup("Forward", 12, 458.1, true),
                    warmup("Backward", 10, 3000.0, false),
                ],
            ),
        ];
        let paired = [shape(
            "sq1024",
            vec![
                warmup("Forward", 204, 335.8, true),
                warmup("Backward", 45, 303.3, true),
            ],
        )];
        let text = warmup_description(&timing, false, &shapes, &paired);
        assert!(!text.contains("warm-up dispatches"), "{text}");
        assert_eq!(
            text,
            "before each timed step, by time and stability: dispatches for at least 300 ms (`timing.warmup_ms`) and at least 10 dispatch(es) (`timing.warmup`), until the last 3 warm-up samples agree within 2.00% (`timing.warmup_tolerance`), giving up settling after 3.00 s; as recorded in result.json: 4 warm-up(s) over 2 timed shape(s), 10–1034 dispatches and 303 ms–3.00 s each; 1 of them did not settle before giving up: sq4096 backward; the kernel re-measured beside it shared each warm-up (45–204 dispatches of its own)"
        );
        // The defaults are named as such, per kind of adapter.
        let soft = warmup_description(&TimingConfig::default(), true, &shapes[..1], &[]);
        assert!(
            soft.starts_with("before each timed step, by time and stability: dispatches for at least 20.0 ms (the default of `timing.warmup_ms` on a software adapter) and at least 3 dispatch(es)"),
            "{soft}"
        );
        assert!(soft.ends_with(", all settled"), "{soft}");
        // A run that timed nothing records no warm-up, and says so.
        let none = warmup_description(&TimingConfig::default(), false, &[shape("s", vec![])], &[]);
        assert!(
            none.contains("at least 200 ms (the default of `timing.warmup_ms` on a GPU)"),
            "{none}"
        );
        assert!(
            none.ends_with(
                "records no warm-up (no shape was timed, or the run predates warm-up records)"
            ),
            "{none}"
        );
        // A harness's numbers: kcamp did not warm them up.
        assert_eq!(
            warmup_text(&timing, None),
            "the harness's own (an imported or harness CSV: kcamp recorded no warm-up)"
        );
    }
}
