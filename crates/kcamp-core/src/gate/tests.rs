//! Tests of the gate: classes, verdicts, reasons and the SPEC §7 properties.

use super::*;
use crate::schema::BenchTable;
use crate::schema::{COMBINED_STEP_TFLOPS, Row, Schema};
use proptest::prelude::*;

const FWD: &str = "Forward TFLOPS";

/// A GEMM row: forward TFLOPS and its stddev; backward is half of it; times fixed.
fn row(label: &str, check: Check, fwd: f64, fwd_sd: f64) -> Row {
    timed_row(label, check, fwd, fwd_sd, 1.0, 2.0)
}

fn timed_row(label: &str, check: Check, fwd: f64, sd: f64, fwd_ms: f64, bwd_ms: f64) -> Row {
    let mut values = vec![f64::NAN; 15];
    values[6..].copy_from_slice(&[
        fwd,
        sd,
        fwd / 2.0,
        sd / 2.0,
        fwd_ms,
        bwd_ms,
        100.0,
        100.0,
        100.0,
    ]);
    Row {
        label: label.to_owned(),
        dims: vec![1, 64, 64, 64],
        check,
        values,
    }
}

fn table(rows: Vec<Row>) -> BenchTable {
    BenchTable {
        schema: Schema::gemm(),
        rows,
    }
}

/// Incumbent: every shape at 10 TFLOPS ± 1%; candidate: each shape scaled by its factor.
fn pair(factors: &[f64]) -> (BenchTable, BenchTable) {
    let label = |i: usize| format!("s{i}");
    let inc = factors
        .iter()
        .enumerate()
        .map(|(i, _)| row(&label(i), Check::Pass, 10.0, 0.1))
        .collect();
    let cand = factors
        .iter()
        .enumerate()
        .map(|(i, f)| row(&label(i), Check::Pass, 10.0 * f, 0.1 * f))
        .collect();
    (table(inc), table(cand))
}

/// A gate of `inc` against `cand` on the forward metric, without samples, by the default
/// rules.
fn forward<'a>(inc: &'a BenchTable, cand: &'a BenchTable, paired: bool) -> GateInput<'a> {
    static DEFAULT: std::sync::LazyLock<GateConfig> = std::sync::LazyLock::new(GateConfig::default);
    GateInput {
        incumbent: inc,
        candidate: cand,
        incumbent_samples: None,
        candidate_samples: None,
        metric: FWD,
        config: &DEFAULT,
        paired,
    }
}

fn run(inc: &BenchTable, cand: &BenchTable, metric: &str) -> Result<GateReport> {
    judge(&GateInput {
        metric,
        ..forward(inc, cand, false)
    })
}

fn class_of<'r>(report: &'r GateReport, label: &str) -> &'r ShapeVerdict {
    report.shapes.iter().find(|s| s.label == label).unwrap()
}

#[test]
fn shapes_pair_by_key_in_any_order_and_a_duplicate_is_named() {
    // The same shapes in another order pair by label and dims, as in the same order.
    let (inc, cand) = pair(&[1.1, 0.9, 1.0]);
    let mut reversed = cand.clone();
    reversed.rows.reverse();
    let (same, other) = (
        run(&inc, &cand, FWD).unwrap(),
        run(&inc, &reversed, FWD).unwrap(),
    );
    let mut backwards = other.shapes.clone();
    backwards.reverse();
    assert_eq!(same.shapes, backwards);
    assert_eq!(same.aggregate, other.aggregate);
    // One shape twice on both sides, in the same order: the incumbent's duplicate is named.
    let (mut inc, mut cand) = pair(&[1.0, 1.0]);
    inc.rows[1] = inc.rows[0].clone();
    cand.rows[1] = cand.rows[0].clone();
    let err = run(&inc, &cand, FWD).unwrap_err().to_string();
    assert!(
        err.contains("duplicated shape 's0'") && err.contains("incumbent"),
        "{err}"
    );
}

#[test]
fn a_large_table_judged_in_pieces_is_judged_shape_by_shape() {
    // 4,000 shapes take the two-thread path; 1,000 at a time the one-thread path.
    let factors: Vec<f64> = (0..4_000).map(|i| 0.9 + (i % 23) as f64 * 0.01).collect();
    let (mut inc, mut cand) = pair(&factors);
    for i in (0..4_000).step_by(97) {
        cand.rows[i].check = Check::Fail;
    }
    for i in (0..4_000).step_by(89) {
        inc.rows[i].check = Check::TimeoutFail;
    }
    let whole = run(&inc, &cand, FWD).unwrap();
    let mut pieces = Vec::new();
    for part in 0..4 {
        let rows = |t: &BenchTable| table(t.rows[part * 1_000..(part + 1) * 1_000].to_vec());
        pieces.extend(run(&rows(&inc), &rows(&cand), FWD).unwrap().shapes);
    }
    assert_eq!(whole.shapes, pieces);
    // The first bad shape in the candidate's order is the one named, wherever the pieces
    // that hold them are taken from: one piece, two near each other or far apart.
    for bad in [
        [100, 3_000],
        [3_000, 3_500],
        [600, 3_700],
        [1_990, 2_010],
        [2_400, 2_450],
    ] {
        let mut broken = cand.clone();
        for i in bad {
            broken.rows[i].check = Check::Pass;
            broken.rows[i].values[6] = 0.0;
        }
        let err = run(&inc, &broken, FWD).unwrap_err().to_string();
        assert!(err.contains(&format!("'s{}'", bad[0])), "{err}");
    }
}

/// The kind of shape `i` of [`tables_of_every_kind`]: failed (ERROR on both sides:
/// untimed), hard regressions, noted regressions (-3%, band 2%) and newly passing shapes,
/// some in the first 2,000 only, some after them only, and some throughout.
fn kind(i: usize) -> &'static str {
    match i {
        _ if i % 97 == 5 => "failed",
        _ if i >= 2_000 && i.is_multiple_of(13) => "hard",
        _ if i < 2_000 && i % 29 == 3 => "noted",
        _ if i % 41 == 7 => "newly",
        _ => "same",
    }
}

/// `n` shapes `s0`, `s1`, … of the kinds [`kind`] gives.
fn tables_of_every_kind(n: usize) -> (BenchTable, BenchTable) {
    let label = |i: usize| format!("s{i}");
    let inc = (0..n).map(|i| match kind(i) {
        "failed" | "newly" => row(&label(i), Check::Error, 10.0, 0.1),
        _ => row(&label(i), Check::Pass, 10.0, 0.01),
    });
    let cand = (0..n).map(|i| match kind(i) {
        "failed" => row(&label(i), Check::Error, 10.0, 0.1),
        "hard" => row(&label(i), Check::Pass, 5.0, 0.01),
        "noted" => row(&label(i), Check::Pass, 9.7, 0.01),
        _ => row(&label(i), Check::Pass, 10.0, 0.01),
    });
    (table(inc.collect()), table(cand.collect()))
}

/// A large table is judged in pieces on two threads: what they count is what one pass over
/// all the verdicts counts, each piece's shapes listed after those before it and no more
/// than the reasons show, whichever pieces each kind lies in.
#[test]
fn a_large_table_judged_in_pieces_is_counted_as_one_pass_counts() {
    let n = 4_000;
    let label = |i: usize| format!("s{i}");
    let (inc, cand) = tables_of_every_kind(n);
    assert!(n >= 2 * super::classify::SPLIT_FROM);
    let input = forward(&inc, &cand, true);
    let classified = super::classify::classify(&input, None).unwrap();
    let tally = &classified.tally;
    assert_eq!(*tally, super::classify::Tally::of(classified.shapes.all()));
    let of_kind = |k: &str| (0..n).filter(|i| kind(*i) == k).collect::<Vec<_>>();
    let first = |k: &str| {
        of_kind(k)
            .iter()
            .take(10)
            .map(|&i| i as u32)
            .collect::<Vec<_>>()
    };
    assert_eq!(tally.failed.count, of_kind("failed").len());
    assert_eq!(tally.failed.first, first("failed"));
    assert_eq!(tally.untimed, tally.failed);
    assert_eq!(tally.hard.count, of_kind("hard").len());
    assert_eq!(tally.hard.first, first("hard"));
    assert!(tally.hard.first.iter().all(|&at| at >= 2_000));
    let noted: Vec<u32> = of_kind("noted").iter().map(|&i| i as u32).collect();
    assert_eq!(tally.noted, noted);
    assert_eq!(tally.newly_passing.count, of_kind("newly").len());
    assert_eq!(tally.newly_passing.first, first("newly"));
    // The reasons name those shapes and count the rest; the aggregate counts the shapes
    // that PASS on both sides.
    let report = judge(&input).unwrap();
    let compared = n - of_kind("failed").len() - of_kind("newly").len();
    let over = format!("geomean over {compared} shapes passing on both sides");
    assert!(
        report.reasons.iter().any(|r| r.contains(&over)),
        "{:?}",
        report.reasons
    );
    let hard = &report.reasons[2];
    assert!(
        hard.starts_with(&format!("{} shapes regressed", of_kind("hard").len())),
        "{hard}"
    );
    assert!(hard.contains("s2002 -50.0%"), "{hard}");
    assert!(
        hard.ends_with(&format!("… and {} more.", of_kind("hard").len() - 10)),
        "{hard}"
    );
    let noted_labels: Vec<String> = of_kind("noted").iter().map(|&i| label(i)).collect();
    assert_eq!(report.noted_regressions, noted_labels);
}

/// The verdicts handed over piece by piece (`judge_each`) are `judge`'s, each shape once and
/// in place, and the report is `judge`'s without them: for a large table judged by two
/// threads, a small one judged by one, and a paired judgement; an error is `judge`'s too.
#[test]
fn verdicts_handed_over_in_pieces_are_the_verdicts_judge_keeps() {
    let each = |input: &GateInput<'_>| {
        let pieces = std::sync::Mutex::new(Vec::new());
        let report = super::judge_each(input, &|at, verdicts: &[ShapeVerdict]| {
            pieces.lock().unwrap().push((at, verdicts.to_vec()));
        });
        let mut pieces = pieces.into_inner().unwrap();
        pieces.sort_by_key(|(at, _)| *at);
        let mut shapes = Vec::new();
        for (at, verdicts) in pieces {
            assert_eq!(at, shapes.len(), "a piece out of place");
            shapes.extend(verdicts);
        }
        report.map(|report| (report, shapes))
    };
    let large = tables_of_every_kind(4_000);
    let small = tables_of_every_kind(700);
    for (inc, cand) in [&large, &small] {
        for paired in [false, true] {
            let input = forward(inc, cand, paired);
            let mut whole = judge(&input).unwrap();
            let (report, shapes) = each(&input).unwrap();
            assert!(report.shapes.is_empty());
            assert_eq!(shapes.len(), cand.rows.len());
            assert_eq!(std::mem::take(&mut whole.shapes), shapes);
            assert_eq!(whole, report);
            // The reasons name shapes of every kind, in both halves.
            assert!(report.reasons.len() >= 4, "{:?}", report.reasons);
        }
    }
    let (inc, mut cand) = large.clone();
    for i in [3_100, 3_900] {
        cand.rows[i].values[6] = 0.0;
    }
    let input = forward(&inc, &cand, false);
    let expected = judge(&input).unwrap_err().to_string();
    assert!(expected.contains("'s3100'"), "{expected}");
    assert_eq!(each(&input).unwrap_err().to_string(), expected);
}

/// Paired judging of a large table in pieces on two threads: a shape's repeats reach its
/// verdict wherever it lies, whether the paired shapes are in the first half, the second or
/// both.
#[test]
fn a_large_table_judged_paired_in_pieces_is_judged_shape_by_shape() {
    let factors: Vec<f64> = (0..4_000).map(|i| 0.9 + (i % 23) as f64 * 0.01).collect();
    let (inc, cand) = pair(&factors);
    let samples = |t: &BenchTable, paired: &dyn Fn(usize) -> bool| Samples {
        rows: (0..t.rows.len())
            .filter(|i| paired(*i))
            .flat_map(|i| {
                let (label, v) = (t.rows[i].label.clone(), t.rows[i].values[6]);
                (1..=3u32).map(move |repeat| crate::schema::SampleRow {
                    label: label.clone(),
                    metric: FWD.to_owned(),
                    repeat,
                    value: v * (1.0 + 0.001 * f64::from(repeat)),
                })
            })
            .collect(),
    };
    let judged = |inc: &BenchTable, cand: &BenchTable, paired: &dyn Fn(usize) -> bool| {
        let (inc_s, cand_s) = (samples(inc, paired), samples(cand, paired));
        let input = GateInput {
            incumbent: inc,
            candidate: cand,
            incumbent_samples: Some(&inc_s),
            candidate_samples: Some(&cand_s),
            metric: FWD,
            config: &GateConfig::default(),
            paired: true,
        };
        // Each shape's repeats are in its own place; none at all when no shape has any.
        let logs = super::classify::classify(&input, None).unwrap().paired_logs;
        let n = inc.rows.len();
        if (0..n).any(paired) {
            assert_eq!(logs.len(), n);
            for (i, l) in logs.iter().enumerate() {
                assert_eq!(l.is_some(), paired(i), "shape {i}");
            }
        } else {
            assert!(logs.is_empty());
        }
        judge(&input).unwrap()
    };
    let halves: [(&str, &dyn Fn(usize) -> bool); 3] = [
        ("first", &|i| i < 300),
        ("second", &|i| i >= 3_700),
        ("all", &|_| true),
    ];
    for (name, paired) in halves {
        let whole = judged(&inc, &cand, paired);
        let mut pieces = Vec::new();
        for part in 0..4 {
            let rows = |t: &BenchTable| table(t.rows[part * 1_000..(part + 1) * 1_000].to_vec());
            let at = |i: usize| paired(part * 1_000 + i);
            pieces.extend(judged(&rows(&inc), &rows(&cand), &at).shapes);
        }
        assert_eq!(whole.shapes, pieces, "{name}");
        assert!(whole.paired, "{name}");
        let judged_paired = whole.shapes.iter().filter(|s| s.pairs == Some(3)).count();
        assert_eq!(
            judged_paired,
            (0..4_000).filter(|i| paired(*i)).count(),
            "{name}"
        );
        // The aggregate is paired only when every shape is.
        assert_eq!(whole.aggregate.pairs.is_some(), name == "all", "{name}");
    }
}

#[test]
fn clear_gain_is_accepted() {
    let (inc, cand) = pair(&[1.1, 1.1, 1.1]);
    let report = run(&inc, &cand, FWD).unwrap();
    assert_eq!(report.verdict, Verdict::Accept);
    assert!((report.aggregate.delta.unwrap() - 0.1).abs() < 1e-12);
    assert!(
        report
            .shapes
            .iter()
            .all(|s| s.class == ShapeClass::Improved)
    );
    assert!(report.reasons[0].contains("+10.0%"), "{:?}", report.reasons);
}

#[test]
fn regression_hidden_by_better_geomean_is_rejected() {
    let (inc, cand) = pair(&[0.9, 1.2, 1.2, 1.2]);
    let report = run(&inc, &cand, FWD).unwrap();
    assert!(report.aggregate.delta.unwrap() > 0.1);
    assert_eq!(report.verdict, Verdict::Reject);
    let s0 = class_of(&report, "s0");
    assert!(s0.hard_regression && s0.class == ShapeClass::Regressed);
    assert!(
        report.reasons[0].contains("s0 -10.0% (band ±2.83%)"),
        "{:?}",
        report.reasons
    );
}

#[test]
fn gain_inside_the_noise_needs_remeasure() {
    let (inc, cand) = pair(&[1.01, 1.01, 1.01]);
    let report = run(&inc, &cand, FWD).unwrap();
    assert_eq!(report.verdict, Verdict::NeedsRemeasure);
    assert!(report.shapes.iter().all(|s| s.class == ShapeClass::Neutral));
    assert!(
        report.reasons[0].contains("re-measure at least 3 times"),
        "{:?}",
        report.reasons
    );
}

#[test]
fn small_regression_beyond_band_is_noted() {
    let (inc, cand) = pair(&[0.97, 1.1, 1.1]);
    let report = run(&inc, &cand, FWD).unwrap();
    assert_eq!(report.verdict, Verdict::AcceptWithNote);
    assert_eq!(report.noted_regressions, ["s0"]);
    let s0 = class_of(&report, "s0");
    assert_eq!(s0.class, ShapeClass::Regressed);
    assert!(!s0.hard_regression);
    assert!(report.reasons.iter().any(|r| r.contains("s0 -3.00%")));
}

#[test]
fn noisy_shapes_widen_the_band() {
    // 3% relative stddev on both sides: band = 2*sqrt(2)*3% = 8.49%, so -6% is neutral.
    let inc = table(vec![
        row("a", Check::Pass, 10.0, 0.3),
        row("b", Check::Pass, 10.0, 0.1),
    ]);
    let cand = table(vec![
        row("a", Check::Pass, 9.4, 0.282),
        row("b", Check::Pass, 12.0, 0.12),
    ]);
    let report = run(&inc, &cand, FWD).unwrap();
    let a = class_of(&report, "a");
    assert!((a.band - 2.0 * 0.03 * 2f64.sqrt()).abs() < 1e-12);
    assert_eq!(a.class, ShapeClass::Neutral);
    assert!(!a.hard_regression);
    assert_eq!(report.verdict, Verdict::Accept);
}

#[test]
fn shrinking_aggregate_is_rejected() {
    let (inc, cand) = pair(&[0.99, 0.99, 1.0]);
    let report = run(&inc, &cand, FWD).unwrap();
    assert_eq!(report.verdict, Verdict::Reject);
    assert!(
        report.reasons[0].contains("is not a gain"),
        "{:?}",
        report.reasons
    );
}

#[test]
fn failed_candidate_shape_is_rejected() {
    let (inc, mut cand) = pair(&[1.5, 1.5]);
    cand.rows[1].check = Check::TimeoutFail;
    let report = run(&inc, &cand, FWD).unwrap();
    assert_eq!(report.verdict, Verdict::Reject);
    let s1 = class_of(&report, "s1");
    assert_eq!(s1.class, ShapeClass::Failed);
    assert_eq!((s1.candidate, s1.delta), (None, None));
    assert!(report.reasons[0].contains("s1 (TIMEOUT_FAIL)"));
    // The aggregate covers the shapes that pass on both sides.
    assert!((report.aggregate.delta.unwrap() - 0.5).abs() < 1e-12);
}

#[test]
fn a_paired_incumbent_not_timed_beside_a_failed_candidate_is_explained() {
    let (mut inc, mut cand) = pair(&[1.5, 1.5]);
    cand.rows[1].check = Check::Fail;
    inc.rows[1].check = Check::Error;
    let judge_with = |paired| judge(&forward(&inc, &cand, paired)).unwrap();
    let note = "the incumbent shows ERROR (not timed) on s1: a paired run times it only where the candidate passes.";
    assert!(judge_with(true).reasons.iter().any(|r| r == note));
    // Judged against recorded numbers, an incumbent's ERROR is its own.
    assert!(
        !judge_with(false)
            .reasons
            .iter()
            .any(|r| r.contains("not timed"))
    );
}

#[test]
fn newly_passing_shape_is_improved_without_delta() {
    let (mut inc, cand) = pair(&[1.1, 1.1]);
    inc.rows[0].check = Check::Fail;
    let report = run(&inc, &cand, FWD).unwrap();
    let s0 = class_of(&report, "s0");
    assert_eq!(
        (s0.class, s0.delta, s0.incumbent),
        (ShapeClass::Improved, None, None)
    );
    assert_eq!(report.verdict, Verdict::Accept);
    assert!(report.reasons.iter().any(|r| r.contains("s0 (was FAIL)")));
}

fn samples(label: &str, values: &[f64]) -> Samples {
    Samples {
        rows: values
            .iter()
            .enumerate()
            .map(|(i, v)| crate::schema::SampleRow {
                label: label.to_owned(),
                metric: FWD.to_owned(),
                repeat: i as u32,
                value: *v,
            })
            .collect(),
    }
}

fn run_with_samples(inc_s: &Samples, cand_s: &Samples) -> GateReport {
    // The CSV stddevs claim 1%, the raw samples tell the real spread.
    let inc = table(vec![
        row("a", Check::Pass, 10.0, 0.1),
        row("b", Check::Pass, 10.0, 0.1),
    ]);
    let cand = table(vec![
        row("a", Check::Pass, 9.0, 0.09),
        row("b", Check::Pass, 12.0, 0.12),
    ]);
    judge(&GateInput {
        incumbent: &inc,
        candidate: &cand,
        incumbent_samples: Some(inc_s),
        candidate_samples: Some(cand_s),
        metric: FWD,
        config: &GateConfig::default(),
        paired: false,
    })
    .unwrap()
}

#[test]
fn welch_test_turns_a_noisy_change_neutral() {
    let noisy = run_with_samples(
        &samples("a", &[6.0, 14.0, 8.0, 12.0]),
        &samples("a", &[5.0, 13.0, 7.0, 11.0]),
    );
    let a = class_of(&noisy, "a");
    assert!(a.p_value.unwrap() > 0.5);
    assert_eq!(a.class, ShapeClass::Neutral);
    assert!(!a.hard_regression);
    assert_eq!(noisy.verdict, Verdict::Accept);
    assert!(noisy.reasons.iter().any(|r| r.contains("not significant")));

    let tight = run_with_samples(
        &samples("a", &[10.0, 10.1, 9.9, 10.0]),
        &samples("a", &[9.0, 9.1, 8.9, 9.0]),
    );
    let a = class_of(&tight, "a");
    assert!(a.p_value.unwrap() < 0.001);
    assert!(a.hard_regression);
    assert_eq!(tight.verdict, Verdict::Reject);
    // Shape b has no samples: the band alone decides.
    assert_eq!(class_of(&tight, "b").p_value, None);
    assert_eq!(class_of(&tight, "b").class, ShapeClass::Improved);
}

#[test]
fn combined_step_tflops_is_judged() {
    // Forward unchanged, backward twice as fast: the step goes from 3 ms to 2 ms.
    let inc = table(vec![timed_row("a", Check::Pass, 10.0, 0.1, 1.0, 2.0)]);
    let cand = table(vec![timed_row("a", Check::Pass, 10.0, 0.1, 1.0, 1.0)]);
    let report = run(&inc, &cand, COMBINED_STEP_TFLOPS).unwrap();
    assert_eq!(report.metric, COMBINED_STEP_TFLOPS);
    assert!((report.aggregate.delta.unwrap() - 0.5).abs() < 1e-12);
    let expected_inc = 6.0 * 64f64.powi(3) / 3e-3 / 1e12;
    assert!((report.aggregate.incumbent.unwrap() - expected_inc).abs() < 1e-15);
    assert_eq!(report.verdict, Verdict::Accept);
    let forward_only = run(&inc, &cand, FWD).unwrap();
    assert_eq!(forward_only.verdict, Verdict::Reject);
}

#[test]
fn refuses_mismatched_inputs() {
    let (inc, cand) = pair(&[1.1, 1.1]);
    let msg = run(&inc, &cand, "out_snr").unwrap_err().to_string();
    assert!(
        msg.contains("valid metrics: Forward TFLOPS, Backward TFLOPS, Combined Step TFLOPS"),
        "{msg}"
    );

    let mut short = cand.clone();
    short.rows.pop();
    let msg = run(&inc, &short, FWD).unwrap_err().to_string();
    assert!(
        msg.contains(
            "'s1' (B=1, M=64, N=64, K=64) is in the incumbent but missing from the candidate"
        ),
        "{msg}"
    );
    let msg = run(&short, &cand, FWD).unwrap_err().to_string();
    assert!(
        msg.contains(
            "'s1' (B=1, M=64, N=64, K=64) is in the candidate but missing from the incumbent"
        ),
        "{msg}"
    );

    let mut other_dims = cand.clone();
    other_dims.rows[0].dims[1] = 128;
    let msg = run(&inc, &other_dims, FWD).unwrap_err().to_string();
    assert!(msg.contains("'s0' (B=1, M=128"), "{msg}");

    let mut drifted = cand.clone();
    drifted.schema.columns[6].name = "Forward TFLOP/s".to_owned();
    let msg = run(&inc, &drifted, FWD).unwrap_err().to_string();
    assert!(
        msg.contains("column 7: incumbent 'Forward TFLOPS' but candidate 'Forward TFLOP/s'"),
        "{msg}"
    );

    let mut zero = cand.clone();
    zero.rows[0].values[6] = 0.0;
    let msg = run(&inc, &zero, FWD).unwrap_err().to_string();
    assert!(msg.contains("positive finite value"), "{msg}");
}

#[test]
fn remeasure_rule() {
    let config = GateConfig::default();
    assert!(remeasure_holds(&[0.015, 0.016, 0.014], &config));
    assert!(!remeasure_holds(&[0.015, 0.016], &config), "too few runs");
    assert!(
        !remeasure_holds(&[0.009, 0.010, 0.011], &config),
        "gain too small"
    );
    assert!(!remeasure_holds(&[0.0, 0.05, 0.01], &config), "too noisy");
    assert!(!remeasure_holds(&[0.02, f64::NAN, 0.02], &config));
}

fn arb_pass_table() -> impl Strategy<Value = BenchTable> {
    proptest::collection::vec((0.01..1000.0f64, 0.0..0.1f64), 1..20).prop_map(|cells| {
        table(
            cells
                .into_iter()
                .enumerate()
                .map(|(i, (v, rel))| row(&format!("s{i}"), Check::Pass, v, v * rel))
                .collect(),
        )
    })
}

fn scaled(t: &BenchTable, factor: f64) -> BenchTable {
    let mut out = t.clone();
    for r in &mut out.rows {
        r.values[6] *= factor;
        r.values[7] *= factor;
    }
    out
}

proptest! {
    #[test]
    fn identical_inputs_never_regress(t in arb_pass_table()) {
        let report = run(&t, &t, FWD).unwrap();
        prop_assert!(report.shapes.iter().all(|s| s.class == ShapeClass::Neutral && !s.hard_regression));
        prop_assert!(report.noted_regressions.is_empty());
        prop_assert_eq!(report.aggregate.delta, Some(0.0));
    }

    #[test]
    fn uniform_scaling_is_the_aggregate_delta(t in arb_pass_table(), x in -0.5..1.0f64) {
        let report = run(&t, &scaled(&t, 1.0 + x), FWD).unwrap();
        let delta = report.aggregate.delta.unwrap();
        prop_assert!((delta - x).abs() <= 1e-9 * (1.0 + x), "delta {} vs {}", delta, x);
    }

    #[test]
    fn any_failed_candidate_rejects(
        t in arb_pass_table(),
        pick in any::<prop::sample::Index>(),
        check in prop_oneof![Just(Check::Fail), Just(Check::Error), Just(Check::TimeoutFail)],
    ) {
        let mut cand = scaled(&t, 2.0);
        let i = pick.index(cand.rows.len());
        cand.rows[i].check = check;
        let report = run(&t, &cand, FWD).unwrap();
        prop_assert_eq!(report.verdict, Verdict::Reject);
        prop_assert_eq!(report.shapes[i].class, ShapeClass::Failed);
    }

    #[test]
    fn row_order_does_not_matter(
        t in arb_pass_table(),
        factors in proptest::collection::vec(0.8..1.3f64, 20),
        seed in any::<u64>(),
    ) {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut cand = t.clone();
        for (r, f) in cand.rows.iter_mut().zip(&factors) {
            r.values[6] *= f;
        }
        let base = run(&t, &cand, FWD).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (mut inc2, mut cand2) = (t.clone(), cand.clone());
        inc2.rows.shuffle(&mut rng);
        cand2.rows.shuffle(&mut rng);
        let shuffled = run(&inc2, &cand2, FWD).unwrap();
        prop_assert_eq!(base.verdict, shuffled.verdict);
        prop_assert_eq!(&base.aggregate, &shuffled.aggregate);
        for s in &base.shapes {
            let other = class_of(&shuffled, &s.label);
            prop_assert_eq!(s, other);
        }
    }
}

/// A table and its samples from per-shape streams of per-repeat Forward TFLOPS values:
/// the mean and population stddev of each stream, as the runner writes them.
fn measured(streams: &[(&str, Vec<f64>)]) -> (BenchTable, Samples) {
    let mut rows = Vec::new();
    let mut sample_rows = Vec::new();
    for (label, values) in streams {
        let mean = crate::stats::mean(values).unwrap();
        let sd = crate::stats::pop_stddev(values).unwrap();
        rows.push(row(label, Check::Pass, mean, sd));
        sample_rows.extend(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| crate::schema::SampleRow {
                    label: (*label).to_owned(),
                    metric: FWD.to_owned(),
                    repeat: i as u32 + 1,
                    value: *v,
                }),
        );
    }
    (table(rows), Samples { rows: sample_rows })
}

fn judge_streams(inc: &[(&str, Vec<f64>)], cand: &[(&str, Vec<f64>)], paired: bool) -> GateReport {
    let (inc_t, inc_s) = measured(inc);
    let (cand_t, cand_s) = measured(cand);
    judge(&GateInput {
        incumbent: &inc_t,
        candidate: &cand_t,
        incumbent_samples: Some(&inc_s),
        candidate_samples: Some(&cand_s),
        metric: FWD,
        config: &GateConfig::default(),
        paired,
    })
    .unwrap()
}

/// The machine's load over ten repeats: a factor both kernels of a pair see alike.
fn busy_machine() -> Vec<f64> {
    vec![1.0, 0.55, 0.9, 0.6, 1.0, 0.5, 0.95, 0.7, 0.8, 0.52]
}

#[test]
fn drift_within_a_run_is_no_change_when_paired() {
    // The same kernel (10 TFLOPS idle), both sides measured under the same load: every
    // paired ratio is 1 ± 1%. Unpaired, the spread is ±25% and any offset is noise.
    let load = busy_machine();
    let wobble = [1.01, 0.99, 1.0, 1.01, 0.99, 1.0, 1.01, 0.99, 1.0, 1.0];
    let inc: Vec<f64> = load.iter().map(|l| 10.0 * l).collect();
    let cand: Vec<f64> = load.iter().zip(wobble).map(|(l, w)| 10.0 * l * w).collect();
    let r = judge_streams(&[("a", inc.clone())], &[("a", cand.clone())], true);
    let a = class_of(&r, "a");
    assert_eq!(a.pairs, Some(10));
    assert!(a.delta.unwrap().abs() < 0.005, "{a:?}");
    assert!(
        a.band < 0.03,
        "the paired band is the ratios' spread: {a:?}"
    );
    assert_eq!(a.class, ShapeClass::Neutral);
    assert!(r.paired);
    assert_ne!(r.verdict, Verdict::Accept);
    assert!(
        r.reasons
            .iter()
            .any(|x| x.contains("geomean of the paired ratios")),
        "{:?}",
        r.reasons
    );
}

#[test]
fn drift_between_runs_rejects_when_unpaired_but_not_when_paired() {
    // Case 2 of the like-for-like issue: the incumbent measured idle days ago, the same
    // kernel re-validated on a busy machine reads 40% slower. Unpaired, that is a
    // regression; re-measured in the same run, both sides read the busy numbers.
    let idle: Vec<f64> = vec![10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0];
    let busy: Vec<f64> = idle.iter().map(|v| v * 0.6).collect();
    let unpaired = judge_streams(&[("a", idle)], &[("a", busy.clone())], false);
    assert!(class_of(&unpaired, "a").hard_regression);
    assert_eq!(unpaired.verdict, Verdict::Reject);
    let paired = judge_streams(&[("a", busy.clone())], &[("a", busy)], true);
    let a = class_of(&paired, "a");
    assert!(
        !a.hard_regression && a.class == ShapeClass::Neutral,
        "{a:?}"
    );
}

#[test]
fn a_real_gain_under_noise_is_accepted_when_paired() {
    // A kernel 1.3x faster, both sides under the same noisy load, each pair ±3%.
    let load = busy_machine();
    let noise = [1.03, 0.97, 1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0];
    let inc: Vec<f64> = load.iter().map(|l| 10.0 * l).collect();
    let cand: Vec<f64> = load.iter().zip(noise).map(|(l, n)| 13.0 * l * n).collect();
    let shapes = |v: &Vec<f64>| vec![("a", v.clone()), ("b", v.iter().map(|x| x * 2.0).collect())];
    let r = judge_streams(&shapes(&inc), &shapes(&cand), true);
    assert_eq!(r.verdict, Verdict::Accept, "{:?}", r.reasons);
    assert!((r.aggregate.delta.unwrap() - 0.3).abs() < 0.01);
    assert_eq!(r.aggregate.pairs, Some(10));
    assert!(r.aggregate.band.unwrap() < 0.1);
    for s in &r.shapes {
        assert_eq!(s.class, ShapeClass::Improved, "{s:?}");
        // All ten pairs up (some tied: the normal approximation).
        assert!(s.p_value.unwrap() < 0.01, "{s:?}");
    }
}

#[test]
fn a_gain_inside_the_paired_band_is_not_accepted() {
    // +3.5% in the median, but the pairs scatter by ±10%: not distinguishable from noise.
    let scatter = [1.15, 0.92, 1.12, 0.95, 1.1, 0.93, 1.05, 1.0, 1.03, 1.04];
    let inc = vec![10.0; 10];
    let cand: Vec<f64> = scatter.iter().map(|s| 10.0 * s).collect();
    let r = judge_streams(&[("a", inc)], &[("a", cand)], true);
    let d = r.aggregate.delta.unwrap();
    assert!(d > 0.02, "{d}");
    assert_eq!(r.verdict, Verdict::Reject);
    assert!(
        r.reasons
            .iter()
            .any(|x| x.contains("no gain distinguishable from noise")),
        "{:?}",
        r.reasons
    );
}

#[test]
fn a_small_significant_gain_needs_remeasure_when_paired() {
    let inc = vec![10.0; 10];
    let cand: Vec<f64> = (0..10).map(|i| 10.1 + 0.001 * i as f64).collect();
    let r = judge_streams(&[("a", inc)], &[("a", cand)], true);
    assert_eq!(r.verdict, Verdict::NeedsRemeasure, "{:?}", r.reasons);
}

proptest! {
    #[test]
    fn a_paired_judgement_of_identical_sample_streams_never_regresses(
        streams in proptest::collection::vec(proptest::collection::vec(0.001..1000.0f64, 2..12), 1..6),
        multiplier in 0.5..4.0f64,
        threshold in 0.0..0.2f64,
    ) {
        // Whatever the values (drift, outliers, a busy machine), two identical streams
        // judged paired are the same kernel: no shape regresses and nothing is accepted.
        let named: Vec<(String, Vec<f64>)> = streams
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("s{i}"), v))
            .collect();
        let refs: Vec<(&str, Vec<f64>)> = named.iter().map(|(l, v)| (l.as_str(), v.clone())).collect();
        let (t, s) = measured(&refs);
        let config = GateConfig {
            stddev_multiplier: multiplier,
            regression_threshold: threshold,
            ..GateConfig::default()
        };
        let r = judge(&GateInput {
            incumbent: &t,
            candidate: &t,
            incumbent_samples: Some(&s),
            candidate_samples: Some(&s),
            metric: FWD,
            config: &config,
            paired: true,
        })
        .unwrap();
        prop_assert!(r.paired);
        for shape in &r.shapes {
            prop_assert!(shape.class != ShapeClass::Regressed && !shape.hard_regression, "{:?}", shape);
        }
        prop_assert!(r.noted_regressions.is_empty());
        prop_assert!(!r.verdict.allows_accept());
        prop_assert_eq!(r.aggregate.delta, Some(0.0));
    }
}
