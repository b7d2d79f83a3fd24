//! kcamp-report: what a person reads after a campaign. `baseline_report.md`, `report.md`
//! and the charts under `report/`.
//!
//! [`campaign`] gathers the numbers from a campaign's rounds and artifacts into the plain
//! data below; [`markdown`] and [`charts`] only present that data, so reports can be tested
//! without a GPU or a campaign. Every number is written through `kcamp_core::units`.

pub mod campaign;
pub mod charts;
pub mod markdown;

use serde::Serialize;

use kcamp_core::analysis::ShapeRoof;
use kcamp_core::campaign::TargetStatus;
use kcamp_core::specs::Roofs;
use kcamp_core::types::{Check, DecisionKind, Validation};

pub use charts::{
    ChartFiles, chart_metric_over_rounds, chart_roofline, chart_speedup, roofline_points,
};
pub use markdown::{baseline_report_md, final_report_md};

/// Where and how a measurement was made: named with every figure (adapter, timing).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Provenance {
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (vulkan, driver Mesa 22.3.6)`, or how an imported
    /// CSV was made.
    pub adapter: String,
    /// A CPU posing as a GPU: its numbers are for correctness and exercise only.
    pub software: bool,
    /// `GPU timestamps`, `host clock`, or "recorded by the harness".
    pub timing: String,
    /// Runtime bounds checks were on.
    pub bounds_checks: Option<bool>,
}

/// One shape of a full validation, as the baseline report shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShapeResult {
    pub label: String,
    /// Dimension name and value in CSV order (`M`, 256), ...
    pub dims: Vec<(String, u64)>,
    pub check: Check,
    /// Why the shape is not PASS (compile error, timeout, ...).
    pub reason: Option<String>,
    pub rel_err: Option<f64>,
    /// The primary metric and its stddev (in the metric's unit).
    pub metric: Option<f64>,
    pub metric_stddev: Option<f64>,
    /// The forward pass on the roofline (time, rates, utilization, bound, headroom).
    pub roof: ShapeRoof,
}

/// Everything `baseline_report.md` states.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaselineReport {
    pub campaign: String,
    pub op: String,
    pub dtype: String,
    pub provenance: Provenance,
    pub kernel_path: String,
    /// The correctness check (built-in runner or the external harness command).
    pub correctness_test: String,
    /// How the reference is computed (e.g. "f64 CPU GEMM, C = A·B").
    pub reference: String,
    /// Key/value summary of the configuration (timing, seeds, gate thresholds, ...).
    pub configuration: Vec<(String, String)>,
    pub shapes: Vec<ShapeResult>,
    pub primary_metric: String,
    /// Geometric mean of the primary metric over PASS shapes.
    pub aggregate: Option<f64>,
    /// Geometric mean forward latency over PASS shapes, µs.
    pub latency_us: Option<f64>,
    /// The adapter's measured and cited roofs; utilization uses the measured ones first.
    pub roofs: Roofs,
    /// Why there are no peaks, and how to get them.
    pub peaks_note: Option<String>,
    /// Charts to link, relative to the report.
    pub charts: Vec<ChartLink>,
}

/// A chart in both formats, relative to the report that links it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartLink {
    pub title: String,
    pub svg: String,
    pub png: String,
}

/// An aggregate (geomean over PASS shapes) of one round over one shape set, with ±1σ
/// propagated from the per-shape `_stddev` columns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Aggregate {
    pub value: f64,
    /// Relative stddev of the geomean: sqrt(Σ (σᵢ/μᵢ)²) / n.
    pub rel_stddev: Option<f64>,
    pub shapes: usize,
}

/// One round on the metric chart and in the lineage table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundPoint {
    pub round: u32,
    /// The hypothesis, shortened.
    pub label: String,
    /// None while the round is open.
    pub decision: Option<DecisionKind>,
    /// The validation this round's numbers come from (None: not measured).
    pub validation: Option<Validation>,
    /// Over the representative shapes (every round measures them): comparable across all
    /// rounds.
    pub quick: Option<Aggregate>,
    /// Over all target shapes (full validations only).
    pub full: Option<Aggregate>,
    /// Shapes of this round's CSV that did not PASS.
    pub failed: Vec<String>,
    /// The gate's Δ against the incumbent it was judged against (same shapes, same kind).
    pub delta: Option<f64>,
    /// That incumbent.
    pub parent: Option<u32>,
}

/// The primary metric of one shape at BASELINE and for the incumbent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShapeComparison {
    pub label: String,
    pub dims: Vec<u64>,
    pub baseline: Option<f64>,
    pub baseline_stddev: Option<f64>,
    pub baseline_check: Check,
    pub incumbent: Option<f64>,
    pub incumbent_stddev: Option<f64>,
    pub incumbent_check: Check,
}

impl ShapeComparison {
    /// incumbent / baseline when both PASS.
    pub fn speedup(&self) -> Option<f64> {
        match (self.incumbent, self.baseline) {
            (Some(i), Some(b)) if b > 0.0 => Some(i / b),
            _ => None,
        }
    }

    /// ±1σ of the speedup, from both relative stddevs.
    pub fn speedup_stddev(&self) -> Option<f64> {
        let rel = |v: Option<f64>, s: Option<f64>| match (v, s) {
            (Some(v), Some(s)) if v > 0.0 => Some(s / v),
            _ => None,
        };
        let (b, i) = (
            rel(self.baseline, self.baseline_stddev)?,
            rel(self.incumbent, self.incumbent_stddev)?,
        );
        Some(self.speedup()? * (b * b + i * i).sqrt())
    }
}

/// Which numbers a report's baseline side is: always the ones the final acceptance judged
/// the incumbent against, so that the verdict and every figure beside it agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BaselineBasis {
    /// Round 1's kernel snapshot re-measured in the final validation's run, beside the
    /// incumbent (`file`: where those numbers are, relative to the campaign).
    SameRun {
        /// Samples alternated with the incumbent's (A B B A; the built-in runner), else
        /// measured one after the other in the same sitting (a harness).
        interleaved: bool,
        file: String,
    },
    /// Round 1's numbers as recorded at BASELINE; `why` it was not re-measured.
    Recorded { why: String },
}

impl BaselineBasis {
    /// A few words for a table, a chart axis or a CLI line.
    pub fn short(&self) -> &'static str {
        match self {
            BaselineBasis::SameRun { .. } => "round 1's kernel re-measured in this run",
            BaselineBasis::Recorded { .. } => "round 1's recorded numbers",
        }
    }

    /// What the baseline numbers of a report are, said once: `baseline = ...`.
    pub fn describe(&self) -> String {
        match self {
            BaselineBasis::SameRun { interleaved, file } => format!(
                "baseline = round 1's kernel re-measured in this run ({}; `{file}`)",
                if *interleaved {
                    "in the same cases, its samples alternating with the incumbent's"
                } else {
                    "by the harness, in the same sitting as the incumbent"
                }
            ),
            BaselineBasis::Recorded { why } => format!(
                "baseline = round 1's recorded numbers (its BASELINE measurement), not re-measured in this run ({why})"
            ),
        }
    }

    pub fn same_run(&self) -> bool {
        matches!(self, BaselineBasis::SameRun { .. })
    }
}

/// Baseline against incumbent over the shapes both measured and passed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub baseline: Option<f64>,
    pub incumbent: Option<f64>,
    /// Shapes in both geomeans.
    pub shapes: usize,
    /// The incumbent's numbers: "final full validation" or "round 3's quick validation".
    pub incumbent_source: String,
    /// The baseline's numbers: the same ones the final acceptance judged against.
    pub baseline_basis: BaselineBasis,
    /// The final acceptance's aggregate Δ when it judged paired ratios (the median over
    /// repeats of each repeat's geomean ratio): a different statistic of the same numbers
    /// than [`Comparison::gain`] (the ratio of the geomeans of the mean rates), named beside
    /// it so that the two never read as a contradiction.
    pub verdict_delta: Option<f64>,
}

impl Comparison {
    pub fn gain(&self) -> Option<f64> {
        match (self.incumbent, self.baseline) {
            (Some(i), Some(b)) if b > 0.0 => Some(i / b - 1.0),
            _ => None,
        }
    }
}

/// Everything `report.md` states.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalReport {
    pub campaign: String,
    pub op: String,
    pub dtype: String,
    pub primary_metric: String,
    pub incumbent_round: u32,
    pub incumbent_hypothesis: String,
    pub comparison: Comparison,
    pub target: Option<TargetStatus>,
    /// The incumbent's numbers: where and how they were measured.
    pub provenance: Provenance,
    /// Where BASELINE was measured, when it differs from the incumbent's.
    pub baseline_provenance: Option<Provenance>,
    pub rounds: Vec<RoundPoint>,
    pub representative_shapes: Vec<String>,
    pub target_shapes: usize,
    pub shapes: Vec<ShapeComparison>,
    /// The incumbent's shapes on the roofline.
    pub roofline: Vec<ShapeRoof>,
    pub roofs: Roofs,
    pub peaks_note: Option<String>,
    /// How the noise band and the aggregates are defined, for a reader of the numbers.
    pub method: Vec<String>,
    pub charts: Vec<ChartLink>,
    /// The final acceptance (the incumbent judged against the BASELINE): leads the report.
    pub acceptance: Option<Acceptance>,
}

/// The verdict of the final acceptance and its reasons.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptance {
    pub verdict: String,
    pub reasons: Vec<String>,
}

/// Report data for tests: a GEMM campaign on a made-up adapter, numbers chosen so that
/// each printed figure can be checked by hand.
#[cfg(test)]
pub(crate) mod test_data {
    use kcamp_core::analysis::shape_roofs;
    use kcamp_core::schema::{BenchTable, GEMM_HEADER};
    use kcamp_core::specs::{PeakValue, Roofs, UtilPeaks};
    use kcamp_core::types::{Check, DecisionKind, Dtype, OpName, Validation};

    use super::*;

    pub fn peaks(flops: f64, bw: f64, source: &str) -> UtilPeaks {
        UtilPeaks {
            flops: PeakValue {
                value: flops,
                source: source.into(),
                key: None,
            },
            bandwidth: PeakValue {
                value: bw,
                source: source.into(),
                key: None,
            },
            units: None,
        }
    }

    pub fn roofs() -> Roofs {
        Roofs {
            measured: Some(peaks(100e9, 10e9, "measured:cpu:2026-12-01")),
            cited: Some(peaks(150e9, 20e9, "vendor-datasheet")),
        }
    }

    /// s128 at 1 GFLOP/s (4.194304 ms), s256 at 2 GFLOP/s, odd FAILs.
    pub fn baseline_table() -> BenchTable {
        let text = format!(
            "{GEMM_HEADER}\n\
             s128,1,128,128,128,PASS,0.001,0.00001,0.001,0.00001,4.194304,8.388608,300,300,300\n\
             s256,1,256,256,256,PASS,0.002,0.00004,0.002,0.00004,16.777216,33.554432,300,300,300\n\
             odd,1,7,9,5,FAIL,0,0,0,0,0,0,0,0,0\n"
        );
        BenchTable::parse(&text, std::path::Path::new("baseline.csv")).unwrap()
    }

    /// Twice as fast on both measured shapes; odd passes now.
    pub fn incumbent_table() -> BenchTable {
        let text = format!(
            "{GEMM_HEADER}\n\
             s128,1,128,128,128,PASS,0.002,0.00002,0.002,0.00002,2.097152,4.194304,300,300,300\n\
             s256,1,256,256,256,PASS,0.004,0.00008,0.004,0.00008,8.388608,16.777216,300,300,300\n\
             odd,1,7,9,5,PASS,0.00005,0.0000005,0.00005,0.0000005,0.0126,0.0252,300,300,300\n"
        );
        BenchTable::parse(&text, std::path::Path::new("final.csv")).unwrap()
    }

    pub fn provenance() -> Provenance {
        Provenance {
            adapter: "TestGPU (vulkan, driver 1.0)".into(),
            software: false,
            timing: "GPU timestamp queries around each dispatch".into(),
            bounds_checks: Some(true),
        }
    }

    pub fn baseline_report() -> BaselineReport {
        let table = baseline_table();
        let roofs = roofs();
        let roofline = shape_roofs(OpName::Gemm, Dtype::F32, &table, roofs.primary());
        let shapes = table
            .rows
            .iter()
            .zip(roofline)
            .map(|(r, roof)| ShapeResult {
                label: r.label.clone(),
                dims: ["B", "M", "N", "K"]
                    .iter()
                    .map(|d| (*d).to_owned())
                    .zip(r.dims.iter().copied())
                    .collect(),
                check: r.check,
                reason: (r.check == Check::Fail)
                    .then(|| "kernel/gemm.wgsl:33:5: expected ';'".to_owned()),
                rel_err: (r.check == Check::Pass).then_some(2.1e-7),
                metric: (r.check == Check::Pass)
                    .then(|| r.metric(&table.schema, "Forward TFLOPS"))
                    .flatten(),
                metric_stddev: (r.check == Check::Pass)
                    .then(|| r.stddev(&table.schema, "Forward TFLOPS"))
                    .flatten(),
                roof,
            })
            .collect();
        BaselineReport {
            campaign: "demo-gemm".into(),
            op: "gemm".into(),
            dtype: "f32".into(),
            provenance: provenance(),
            kernel_path: "rounds/round-1/kernel/gemm.wgsl".into(),
            correctness_test: "built-in wgpu runner".into(),
            reference: "f64 CPU GEMM, C = A·B".into(),
            configuration: vec![
                (
                    "timing".into(),
                    "10 samples per shape, each sample batching dispatches until it lasts at least 1.00 ms".into(),
                ),
                (
                    "warm-up".into(),
                    "before each timed step, by time and stability: dispatches for at least 200 ms (the default of `timing.warmup_ms` on a GPU) and at least 3 dispatch(es) (`timing.warmup`), until the last 3 warm-up samples agree within 2.00% (`timing.warmup_tolerance`), giving up settling after 2.00 s; as recorded in result.json: 4 warm-up(s) over 2 timed shape(s), 48–191 dispatches and 201–212 ms each, all settled".into(),
                ),
            ],
            shapes,
            primary_metric: "Forward TFLOPS".into(),
            aggregate: table.aggregate("Forward TFLOPS"),
            latency_us: Some(8388.608),
            roofs,
            peaks_note: None,
            charts: vec![ChartLink {
                title: "Roofline of the baseline".into(),
                svg: "report/baseline_roofline.svg".into(),
                png: "report/baseline_roofline.png".into(),
            }],
        }
    }

    fn agg(value: f64, rel: f64, shapes: usize) -> Option<Aggregate> {
        Some(Aggregate {
            value,
            rel_stddev: Some(rel),
            shapes,
        })
    }

    pub fn rounds() -> Vec<RoundPoint> {
        let p = |round, decision, validation, quick, full, failed: &[&str], delta, label: &str| {
            RoundPoint {
                round,
                label: label.into(),
                decision,
                validation,
                quick,
                full,
                failed: failed.iter().map(|s| (*s).to_owned()).collect(),
                delta,
                parent: (round > 1).then_some(1),
            }
        };
        vec![
            p(
                1,
                Some(DecisionKind::Baseline),
                Some(Validation::Full),
                agg(1.414e-3, 0.01, 2),
                agg(1.414e-3, 0.01, 2),
                &["odd FAIL"],
                None,
                "BASELINE",
            ),
            p(
                2,
                Some(DecisionKind::RolledBack),
                Some(Validation::Quick),
                agg(3.0e-3, 0.02, 1),
                None,
                &["s256 FAIL"],
                Some(1.27),
                "vec4 | loads",
            ),
            p(
                3,
                Some(DecisionKind::Accepted),
                Some(Validation::Full),
                agg(2.828e-3, 0.015, 2),
                agg(1.587e-3, 0.015, 3),
                &[],
                Some(1.0),
                "tile 64x64",
            ),
            p(4, None, None, None, None, &[], None, "double buffering"),
        ]
    }

    pub fn comparisons() -> Vec<ShapeComparison> {
        let (b, i) = (baseline_table(), incumbent_table());
        i.rows
            .iter()
            .map(|r| {
                let base = b.find(&r.shape_key()).unwrap();
                let pass = |row: &kcamp_core::schema::Row| row.check == Check::Pass;
                ShapeComparison {
                    label: r.label.clone(),
                    dims: r.dims.clone(),
                    baseline: pass(base)
                        .then(|| base.metric(&b.schema, "Forward TFLOPS"))
                        .flatten(),
                    baseline_stddev: pass(base)
                        .then(|| base.stddev(&b.schema, "Forward TFLOPS"))
                        .flatten(),
                    baseline_check: base.check,
                    incumbent: pass(r)
                        .then(|| r.metric(&i.schema, "Forward TFLOPS"))
                        .flatten(),
                    incumbent_stddev: pass(r)
                        .then(|| r.stddev(&i.schema, "Forward TFLOPS"))
                        .flatten(),
                    incumbent_check: r.check,
                }
            })
            .collect()
    }

    pub fn final_report() -> FinalReport {
        let roofs = roofs();
        FinalReport {
            campaign: "demo-gemm".into(),
            op: "gemm".into(),
            dtype: "f32".into(),
            primary_metric: "Forward TFLOPS".into(),
            incumbent_round: 3,
            incumbent_hypothesis: "tile 64x64".into(),
            comparison: Comparison {
                baseline: Some(1.414e-3),
                incumbent: Some(2.828e-3),
                shapes: 2,
                incumbent_source: "final full validation (report/final/benchmark.csv)".into(),
                baseline_basis: BaselineBasis::SameRun {
                    interleaved: true,
                    file: "report/final/paired.csv".into(),
                },
                verdict_delta: Some(0.98),
            },
            target: None,
            provenance: provenance(),
            baseline_provenance: None,
            rounds: rounds(),
            representative_shapes: vec!["s128".into(), "s256".into()],
            target_shapes: 3,
            shapes: comparisons(),
            roofline: shape_roofs(
                OpName::Gemm,
                Dtype::F32,
                &incumbent_table(),
                roofs.primary(),
            ),
            roofs,
            peaks_note: None,
            method: vec!["Each shape's value is the mean of 10 samples.".into()],
            charts: vec![ChartLink {
                title: "Speedup per shape".into(),
                svg: "report/speedup.svg".into(),
                png: "report/speedup.png".into(),
            }],
            acceptance: None,
        }
    }
}
