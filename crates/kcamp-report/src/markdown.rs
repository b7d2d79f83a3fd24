//! `baseline_report.md` and `report.md`: markdown a reviewer can follow number by number.
//! Every figure is written through `kcamp_core::units` and names where it comes from
//! (adapter, timing method, validation, peak source).

use std::fmt::Write as _;

use kcamp_core::analysis::ShapeRoof;
use kcamp_core::specs::{Bound, Roofs, UtilPeaks};
use kcamp_core::types::{Check, DecisionKind};
use kcamp_core::units;

use crate::{BaselineReport, ChartLink, FinalReport, Provenance, RoundPoint, ShapeResult};

/// Markdown table cells may not contain `|` or line breaks.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_owned(), f)
}

fn decision_text(d: Option<DecisionKind>) -> &'static str {
    d.map_or("OPEN", DecisionKind::as_str)
}

fn bound_text(b: Option<Bound>) -> &'static str {
    match b {
        Some(Bound::Memory) => "memory",
        Some(Bound::Compute) => "compute",
        None => "-",
    }
}

/// `llvmpipe (vulkan, driver ...) — SOFTWARE ADAPTER; timing: GPU timestamps; bounds checks on`.
pub(crate) fn provenance_text(p: &Provenance) -> String {
    let mut s = p.adapter.clone();
    if p.software {
        s.push_str(" — **software adapter (a CPU): numbers exercise the loop, they are not GPU performance**");
    }
    let _ = write!(s, "; timing: {}", p.timing);
    match p.bounds_checks {
        Some(true) => s.push_str("; runtime bounds checks on"),
        Some(false) => s.push_str("; runtime bounds checks off (trusted)"),
        None => {}
    }
    s
}

fn peaks_sentence(p: &UtilPeaks, kind: &str) -> String {
    format!("{kind}: {}", p.describe())
}

/// The roofs paragraph: both roofs where known, which one utilization uses, or how to get one.
fn roofs_text(md: &mut String, roofs: &Roofs, note: Option<&str>) {
    match (&roofs.measured, &roofs.cited) {
        (None, None) => {
            let _ = writeln!(
                md,
                "No peaks for this adapter: utilization and bound class are unknown. {}\n",
                note.unwrap_or("Run `kcamp peak` to measure them, then `kcamp report`.")
            );
        }
        (measured, cited) => {
            if let Some(m) = measured {
                let _ = writeln!(
                    md,
                    "- {}",
                    peaks_sentence(m, "Measured peaks (`kcamp peak`)")
                );
            }
            if let Some(c) = cited {
                let _ = writeln!(md, "- {}", peaks_sentence(c, "Cited peaks (spec registry)"));
            }
            let _ = writeln!(
                md,
                "- Utilization = achieved / peak against the {} peaks; bound = memory when the shape's FLOP/B is below the ridge point; headroom = the roof at the shape's intensity / achieved.\n",
                if measured.is_some() {
                    "measured"
                } else {
                    "cited"
                }
            );
        }
    }
}

/// A shape's roofline columns; its utilization is of `peaks`, the roofs' primary ones.
fn roof_row(s: &ShapeRoof, peaks: Option<&UtilPeaks>) -> String {
    let share = |pct: Option<f64>, peak: Option<&kcamp_core::specs::PeakValue>| match (pct, peak) {
        (Some(pct), Some(peak)) => peak.utilization_text(pct),
        (Some(pct), None) => units::percent(pct),
        (None, _) => "-".to_owned(),
    };
    format!(
        "{} | {} | {} | {} | {} | {} | {} | {}",
        opt(s.time_ms, units::millis),
        opt(s.flop_rate, units::flop_rate),
        opt(s.byte_rate, units::byte_rate),
        units::intensity(s.intensity),
        bound_text(s.bound),
        share(s.compute_pct, peaks.map(|p| &p.flops)),
        share(s.bandwidth_pct, peaks.map(|p| &p.bandwidth)),
        opt(s.headroom, units::times),
    )
}

const ROOF_HEADER: &str = "time (fwd) | FLOP/s | B/s | intensity | bound | of compute peak | of bandwidth peak | headroom";
const ROOF_ALIGN: &str = "---:|---:|---:|---:|---|---:|---:|---:";

fn charts_section(md: &mut String, charts: &[ChartLink]) {
    if charts.is_empty() {
        return;
    }
    md.push_str("\n## Charts\n");
    for c in charts {
        let _ = writeln!(
            md,
            "\n### {}\n\n![{}]({})\n\n[SVG]({}) · [PNG]({})",
            c.title, c.title, c.svg, c.svg, c.png
        );
    }
}

/// `baseline_report.md` (the seed procedure's Phase 4 list, step 6).
pub fn baseline_report_md(r: &BaselineReport) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Baseline report: {}\n", r.campaign);
    let _ = writeln!(
        md,
        "Op `{}`, dtype `{}`. Measured on {}.\n",
        r.op,
        r.dtype,
        provenance_text(&r.provenance)
    );
    md.push_str("## Setup\n\n");
    let _ = writeln!(md, "- Baseline kernel: `{}`", r.kernel_path);
    let _ = writeln!(md, "- Correctness test: {}", r.correctness_test);
    let _ = writeln!(md, "- Reference: {}", r.reference);
    let mut ids: Vec<&str> = [&r.roofs.measured, &r.roofs.cited]
        .into_iter()
        .flatten()
        .flat_map(|p| [p.flops.source.as_str(), p.bandwidth.source.as_str()])
        .collect();
    ids.dedup();
    let _ = writeln!(
        md,
        "- Peak source ids consulted: {}\n",
        if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    md.push_str("### Configuration\n\n");
    for (key, value) in &r.configuration {
        let _ = writeln!(md, "- {key}: {value}");
    }

    let passed = r.shapes.iter().filter(|s| s.check == Check::Pass).count();
    let max_rel_err = r
        .shapes
        .iter()
        .filter_map(|s| s.rel_err)
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
    md.push_str("\n## Correctness\n\n");
    let _ = writeln!(
        md,
        "{passed} of {} cases PASS; max rel_err {}.\n",
        r.shapes.len(),
        opt(max_rel_err, units::sci)
    );
    md.push_str("| case | dims | Check | rel_err | why not PASS |\n|---|---|---|---:|---|\n");
    for s in &r.shapes {
        let dims = s
            .dims
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            cell(&s.label),
            dims,
            s.check.as_str(),
            opt(s.rel_err, units::sci),
            cell(s.reason.as_deref().unwrap_or(""))
        );
    }
    let not_passing: Vec<&ShapeResult> =
        r.shapes.iter().filter(|s| s.check != Check::Pass).collect();
    if !not_passing.is_empty() {
        md.push_str("\nCases that did not pass:\n\n");
        for s in not_passing {
            let _ = writeln!(
                md,
                "- `{}`: {} — {}",
                s.label,
                s.check.as_str(),
                s.reason
                    .as_deref()
                    .unwrap_or("no reason recorded (the CSV came from a harness: see its log)")
            );
        }
    }

    md.push_str("\n## Performance\n\n");
    roofs_text(&mut md, &r.roofs, r.peaks_note.as_deref());
    let _ = writeln!(
        md,
        "| case | {} ± stddev | {ROOF_HEADER} |\n|---|---:|{ROOF_ALIGN}|",
        r.primary_metric
    );
    for s in &r.shapes {
        let metric = match (s.metric, s.metric_stddev) {
            (Some(m), Some(sd)) => format!(
                "{} ± {}",
                units::metric(m, &r.primary_metric),
                units::metric(sd, &r.primary_metric)
            ),
            (Some(m), None) => units::metric(m, &r.primary_metric),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            md,
            "| {} | {metric} | {} |",
            cell(&s.label),
            roof_row(&s.roof, r.roofs.primary())
        );
    }
    let _ = writeln!(
        md,
        "\nPrimary metric `{}`: aggregate {} (geometric mean over the {passed} PASS shapes); geomean forward latency {}.",
        r.primary_metric,
        opt(r.aggregate, |a| units::metric(a, &r.primary_metric)),
        opt(r.latency_us, |us| units::millis(us / 1000.0))
    );
    charts_section(&mut md, &r.charts);
    md
}

/// An aggregate with its ±1σ; one over fewer shapes than its set (some failed) says so,
/// since it is then not comparable with the others.
fn aggregate_cell(a: Option<&crate::Aggregate>, metric: &str, set: usize) -> String {
    let Some(a) = a else {
        return "-".to_owned();
    };
    let mut text = units::metric(a.value, metric);
    if let Some(r) = a.rel_stddev {
        let _ = write!(text, " ±{}", units::percent(r * 100.0));
    }
    if a.shapes < set {
        let _ = write!(text, " (only {} of {set} shapes)", a.shapes);
    }
    text
}

fn delta_cell(p: &RoundPoint) -> String {
    kcamp_core::campaign::delta_text(p.failed.len(), p.delta, p.parent)
}

/// `report.md`: the incumbent against BASELINE (per shape, on the roofline), the lineage,
/// the charts, and how the numbers were made.
pub fn final_report_md(r: &FinalReport) -> String {
    let mut md = String::new();
    let metric = &r.primary_metric;
    let _ = writeln!(md, "# Campaign report: {}\n", r.campaign);
    if let Some(a) = &r.acceptance {
        let _ = writeln!(
            md,
            "**Final acceptance: {}** (round {} against the BASELINE)\n",
            a.verdict, r.incumbent_round
        );
        for reason in &a.reasons {
            let _ = writeln!(md, "- {}", cell(reason));
        }
        md.push('\n');
    }
    let c = &r.comparison;
    let _ = write!(
        md,
        "**Incumbent: round {}** (\"{}\"). {metric}: baseline {} → incumbent {} (**{}**), the ratio of the geometric means of the mean rates over the {} shape(s) that PASS on both sides",
        r.incumbent_round,
        cell(&r.incumbent_hypothesis),
        opt(c.baseline, |v| units::metric(v, metric)),
        opt(c.incumbent, |v| units::metric(v, metric)),
        opt(c.gain(), units::change),
        c.shapes,
    );
    if let Some(d) = c.verdict_delta {
        let _ = write!(
            md,
            "; the final acceptance's paired Δ over the same numbers (the median over units of each unit's median ratio over the shapes) is {}",
            units::change(d)
        );
    }
    let _ = writeln!(
        md,
        ".\n\nCompared: {} — the numbers the final acceptance judged against, used by the per-shape table, the speedups and the charts{}. Incumbent = {}.\n",
        c.baseline_basis.describe(),
        if c.baseline_basis.same_run() {
            "; round 1's own recorded numbers appear only in the lineage"
        } else {
            ""
        },
        c.incumbent_source
    );
    if let Some(t) = &r.target {
        let _ = writeln!(
            md,
            "Performance target: **{}** — {}.\n",
            if t.met {
                "target met"
            } else {
                "target not met"
            },
            t.describe()
        );
    }
    let _ = match (c.baseline_basis.same_run(), &r.baseline_provenance) {
        (true, _) => writeln!(
            md,
            "Both sides were measured in one run on {}.",
            provenance_text(&r.provenance)
        ),
        (false, None) => writeln!(
            md,
            "Both sides were measured, in separate runs, on {}.",
            provenance_text(&r.provenance)
        ),
        (false, Some(_)) => writeln!(
            md,
            "The incumbent was measured on {}.",
            provenance_text(&r.provenance)
        ),
    };
    if let Some(b) = &r.baseline_provenance {
        let _ = writeln!(
            md,
            "The baseline was measured elsewhere: {} — the two are not like for like.",
            provenance_text(b)
        );
    }
    md.push('\n');

    md.push_str("## Per shape\n\n");
    let _ = writeln!(
        md,
        "| shape | dims | baseline | incumbent | speedup | Check (base → inc) |\n|---|---|---:|---:|---:|---|"
    );
    for s in &r.shapes {
        let with_sd = |v: Option<f64>, sd: Option<f64>| match (v, sd) {
            (Some(v), Some(sd)) => format!(
                "{} ± {}",
                units::metric(v, metric),
                units::metric(sd, metric)
            ),
            (Some(v), None) => units::metric(v, metric),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} → {} |",
            cell(&s.label),
            units::dims(&s.dims),
            with_sd(s.baseline, s.baseline_stddev),
            with_sd(s.incumbent, s.incumbent_stddev),
            opt(s.speedup(), units::times),
            s.baseline_check.as_str(),
            s.incumbent_check.as_str()
        );
    }

    md.push_str("\n## Roofline (incumbent, forward pass)\n\n");
    roofs_text(&mut md, &r.roofs, r.peaks_note.as_deref());
    let _ = writeln!(md, "| shape | {ROOF_HEADER} |\n|---|{ROOF_ALIGN}|");
    for s in &r.roofline {
        let _ = writeln!(
            md,
            "| {} | {} |",
            cell(&s.label),
            roof_row(s, r.roofs.primary())
        );
    }

    md.push_str("\n## Lineage\n\n");
    let _ = writeln!(
        md,
        "Each row is that round's own recorded measurement{}. Aggregates are geometric means over PASS shapes, ±1σ propagated from the per-shape stddev columns. The two columns are never mixed: every round measures the {} representative shapes; only full validations measure all {} target shapes.\n",
        if c.baseline_basis.same_run() {
            " (round 1's: the BASELINE as recorded then, not its re-measurement compared above)"
        } else {
            ""
        },
        r.representative_shapes.len(),
        r.target_shapes
    );
    md.push_str("| round | decision | validation | representative shapes | all target shapes | Δ (gate, vs its incumbent) | hypothesis |\n|---|---|---|---:|---:|---:|---|\n");
    for p in &r.rounds {
        let marker = if p.round == r.incumbent_round {
            " ★"
        } else {
            ""
        };
        let _ = writeln!(
            md,
            "| {}{marker} | {} | {} | {} | {} | {} | {} |",
            p.round,
            decision_text(p.decision),
            p.validation.map_or("-", |v| v.as_str()),
            aggregate_cell(p.quick.as_ref(), metric, r.representative_shapes.len()),
            aggregate_cell(p.full.as_ref(), metric, r.target_shapes),
            delta_cell(p),
            cell(&p.label)
        );
    }
    let failed: Vec<&RoundPoint> = r.rounds.iter().filter(|p| !p.failed.is_empty()).collect();
    if !failed.is_empty() {
        md.push_str("\nRounds with shapes that did not PASS (their Δ is not a gain):\n\n");
        for p in failed {
            let _ = writeln!(md, "- round {}: {}", p.round, cell(&p.failed.join("; ")));
        }
    }
    charts_section(&mut md, &r.charts);
    if !r.method.is_empty() {
        md.push_str("\n## How these numbers were made\n\n");
        for m in &r.method {
            let _ = writeln!(md, "- {m}");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data;

    #[test]
    fn baseline_report_states_every_number_with_its_unit_and_source() {
        let md = baseline_report_md(&test_data::baseline_report());
        // 4,194,304 FLOP in 4.194304 ms = 1.00 GFLOP/s; 196,608 B in that time = 46.9 MB/s;
        // intensity 21.3 FLOP/B above the ridge 10.0 -> compute-bound; 1.00 % of 100
        // GFLOP/s; headroom 100×.
        assert!(
            md.contains("| s128 | 1.00 GFLOP/s ± 10.0 MFLOP/s | 4.19 ms | 1.00 GFLOP/s | 46.9 MB/s | 21.3 FLOP/B | compute | 1.00% | 0.469% | 100× |"),
            "{md}"
        );
        assert!(
            md.contains("- `odd`: FAIL — kernel/gemm.wgsl:33:5: expected ';'"),
            "{md}"
        );
        assert!(md.contains("[measured:cpu:2026-12-01]"), "{md}");
        assert!(md.contains("[vendor-datasheet]"), "{md}");
        assert!(
            md.contains(
                "[SVG](report/baseline_roofline.svg) · [PNG](report/baseline_roofline.png)"
            )
        );
        insta::assert_snapshot!("baseline_report", md);
    }

    #[test]
    fn baseline_report_without_peaks_says_how_to_get_them() {
        let mut r = test_data::baseline_report();
        r.roofs = Roofs::default();
        let md = baseline_report_md(&r);
        assert!(md.contains("Run `kcamp peak`"), "{md}");
    }

    #[test]
    fn the_final_acceptance_leads_the_report() {
        let mut r = test_data::final_report();
        r.acceptance = Some(crate::Acceptance {
            verdict: "REJECT".into(),
            reasons: vec!["1 of 2 shapes do not PASS in the candidate: s1 (FAIL).".into()],
        });
        let md = final_report_md(&r);
        assert!(
            md.starts_with(
                "# Campaign report: demo-gemm\n\n**Final acceptance: REJECT** (round 3 against the BASELINE)\n\n- 1 of 2 shapes do not PASS"
            ),
            "the verdict leads: {md}"
        );
    }

    #[test]
    fn a_paired_final_report_compares_the_same_run_baseline_and_says_so_once() {
        let md = final_report_md(&test_data::final_report());
        assert_eq!(
            md.matches("re-measured in this run").count(),
            1,
            "said once: {md}"
        );
        assert!(
            md.contains("\n\nCompared: baseline = round 1's kernel re-measured in this run (in the same cases, its samples alternating with the incumbent's; `report/final/paired.csv`) — the numbers the final acceptance judged against, used by the per-shape table, the speedups and the charts; round 1's own recorded numbers appear only in the lineage. Incumbent = final full validation (report/final/benchmark.csv).\n"),
            "{md}"
        );
        // The verdict's own statistic of the same numbers is named beside the headline's.
        assert!(
            md.contains("(**+100%**), the ratio of the geometric means of the mean rates over the 2 shape(s) that PASS on both sides; the final acceptance's paired Δ over the same numbers (the median over units of each unit's median ratio over the shapes) is +98.0%."),
            "{md}"
        );
        assert!(
            md.contains("Both sides were measured in one run on TestGPU"),
            "{md}"
        );
        assert!(
            md.contains(
                "round 1's: the BASELINE as recorded then, not its re-measurement compared above"
            ),
            "{md}"
        );
    }

    #[test]
    fn an_unpaired_final_report_says_it_compares_round_1s_recorded_numbers() {
        let mut r = test_data::final_report();
        r.comparison.baseline_basis = crate::BaselineBasis::Recorded {
            why: "--no-run: round 3's recorded numbers, no final validation".into(),
        };
        r.comparison.verdict_delta = None;
        r.comparison.incumbent_source =
            "full validation of round 3 (recorded numbers: `kcamp report --no-run`)".into();
        let md = final_report_md(&r);
        assert!(
            md.contains("\n\nCompared: baseline = round 1's recorded numbers (its BASELINE measurement), not re-measured in this run (--no-run: round 3's recorded numbers, no final validation) — the numbers the final acceptance judged against, used by the per-shape table, the speedups and the charts. Incumbent = full validation of round 3 (recorded numbers: `kcamp report --no-run`).\n"),
            "{md}"
        );
        assert!(!md.contains("paired Δ"), "{md}");
        assert!(!md.contains("kernel re-measured in this run"), "{md}");
        assert!(
            md.contains("Both sides were measured, in separate runs, on TestGPU"),
            "{md}"
        );
    }

    #[test]
    fn final_report_keeps_quick_and_full_apart_and_marks_failures() {
        let md = final_report_md(&test_data::final_report());
        assert!(
            md.contains(
                "Forward TFLOPS: baseline 1.41 GFLOP/s → incumbent 2.83 GFLOP/s (**+100%**)"
            ),
            "{md}"
        );
        // Round 2 failed a shape: its +127% is not shown as a gain.
        assert!(md.contains("| 2 | ROLLED_BACK | quick | 3.00 GFLOP/s ±2.00% (only 1 of 2 shapes) | - | FAIL (1 shape) | vec4 \\| loads |"), "{md}");
        assert!(md.contains("| 3 ★ | ACCEPTED | full |"), "{md}");
        assert!(md.contains("| s128 | 1×128×128×128 | 1.00 GFLOP/s ± 10.0 MFLOP/s | 2.00 GFLOP/s ± 20.0 MFLOP/s | 2.00× | PASS → PASS |"), "{md}");
        assert!(
            md.contains("| odd | 1×7×9×5 | - | 50.0 MFLOP/s ± 500 kFLOP/s | - | FAIL → PASS |"),
            "{md}"
        );
        insta::assert_snapshot!("final_report", md);
    }
}
