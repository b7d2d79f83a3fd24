//! Synthetic campaign states for the dashboard's tests, snapshots and benchmark. Built in
//! code (no disk), with fixed times, so snapshots never change between runs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use serde_json::json;

use kcamp_core::artifacts::progress::Progress;
use kcamp_core::artifacts::result::{RunResult, RunSummary, ShapeRecord};
use kcamp_core::campaign::{CampaignState, Decision, JournalEntry, RoundState};
use kcamp_core::gate::{
    Aggregate, GateConfig, GateReport, Reason, Reasons, ShapeClass, ShapeVerdict, Verdict,
};
use kcamp_core::manifest::{AdapterSelector, KernelSpec, Manifest, TimingConfig, WorkgroupExprs};
use kcamp_core::schema::{BenchTable, Column, ColumnRole, GEMM_HEADER, Row, Schema, SchemaKind};
use kcamp_core::types::{AdapterDescription, Check, TimingMethod};
use kcamp_core::types::{DecisionKind, Validation};
use kcamp_core::types::{Dtype, OpName, ShapeSpec};

pub const METRIC: &str = "Forward TFLOPS";

/// The GEMM schema, with roles assigned here (the schema module's constructors belong to
/// another module and are not needed to describe a fixed header).
pub fn gemm_schema() -> Schema {
    let columns = GEMM_HEADER
        .split(',')
        .map(|name| {
            let role = match name {
                "label" => ColumnRole::Label,
                "B" | "M" | "N" | "K" => ColumnRole::Dim,
                "Check" => ColumnRole::Check,
                "Forward TFLOPS" | "Backward TFLOPS" => ColumnRole::Metric,
                n if n.ends_with("_stddev") => ColumnRole::Stddev {
                    of: n.trim_end_matches("_stddev").to_owned(),
                },
                _ => ColumnRole::Value,
            };
            Column {
                name: name.to_owned(),
                role,
            }
        })
        .collect();
    Schema {
        kind: SchemaKind::Gemm,
        columns,
    }
}

/// A fixed point in time plus `minutes`.
pub fn at(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 9, 0, 0)
        .single()
        .unwrap_or_default()
        + chrono::Duration::minutes(minutes)
}

/// One shape of a fixture: its label and M = N = K.
#[derive(Debug, Clone)]
pub struct FixtureShape {
    pub label: String,
    pub size: u64,
}

pub fn shapes(sizes: &[u64]) -> Vec<FixtureShape> {
    sizes
        .iter()
        .map(|&s| FixtureShape {
            label: format!("sq{s}"),
            size: s,
        })
        .collect()
}

pub fn manifest(shapes: &[FixtureShape], representative: &[&str]) -> Manifest {
    Manifest {
        name: "demo-gemm".into(),
        op: OpName::Gemm,
        dtype: Dtype::F32,
        primary_metric: METRIC.into(),
        target_shapes: shapes
            .iter()
            .map(|s| ShapeSpec {
                label: s.label.clone(),
                dims: BTreeMap::from([
                    ("M".to_owned(), s.size),
                    ("N".to_owned(), s.size),
                    ("K".to_owned(), s.size),
                ]),
            })
            .collect(),
        representative_shapes: representative.iter().map(|s| (*s).to_owned()).collect(),
        adapter: AdapterSelector {
            name: Some("llvmpipe".into()),
            backend: Some("vulkan".into()),
            ..Default::default()
        },
        kernel: KernelSpec {
            file: "gemm.wgsl".into(),
            entry_points: BTreeMap::from([("forward".to_owned(), "main".to_owned())]),
            workgroups: WorkgroupExprs {
                x: "ceil(N/16)".into(),
                y: "ceil(M/16)".into(),
                z: "1".into(),
            },
            bindings: BTreeMap::new(),
            trusted: false,
            checks: None,
            aligned: None,
        },
        gate: GateConfig::default(),
        timing: TimingConfig::default(),
        timeout_sec: 30.0,
        quick_command: None,
        full_command: None,
        performance_target: None,
        max_iterations: None,
        git_commit: true,
        seed: None,
        target_gpu: None,
        harness_files: Vec::new(),
        held_out: Default::default(),
        harness: Default::default(),
        executor: None,
    }
}

/// A measured shape: its Check and primary metric (TFLOPS; ignored unless PASS).
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub check: Check,
    pub tflops: f64,
}

pub fn pass(tflops: f64) -> Measured {
    Measured {
        check: Check::Pass,
        tflops,
    }
}

/// What a run records for a shape that did not PASS, by its Check.
fn failure_reason(check: Check) -> Option<String> {
    match check {
        Check::Pass => None,
        Check::Fail => Some(
            "output mismatch: rel_err 3.2e-2 over the 1e-4 tolerance (worst at row 12, column 40)"
                .into(),
        ),
        Check::Error => Some(
            "shader compile error: gemm.wgsl:41:9: no definition in scope for identifier: 'tile_b'\n  let b = tile_b[ty][k];"
                .into(),
        ),
        Check::TimeoutFail => Some("no result within 30 s: the worker was killed".into()),
    }
}

pub fn table(shapes: &[FixtureShape], measured: &[Measured]) -> BenchTable {
    let schema = gemm_schema();
    let rows = shapes
        .iter()
        .zip(measured)
        .map(|(shape, m)| {
            let s = shape.size as f64;
            let passed = m.check == Check::Pass;
            let value = |v: f64| if passed { v } else { f64::NAN };
            let fwd_ms = 2.0 * s * s * s / (m.tflops * 1e12) * 1e3;
            let values = vec![
                f64::NAN,
                1.0,
                s,
                s,
                s,
                f64::NAN,
                value(m.tflops),
                value(m.tflops * 0.01),
                value(m.tflops * 0.9),
                value(m.tflops * 0.012),
                value(fwd_ms),
                value(fwd_ms * 2.2),
                value(140.0),
                value(138.0),
                value(137.5),
            ];
            Row {
                label: shape.label.clone(),
                dims: vec![1, shape.size, shape.size, shape.size],
                check: m.check,
                values,
            }
        })
        .collect();
    BenchTable { schema, rows }
}

/// Geometric mean of the positive values (non-PASS cells are NaN and skipped).
fn geomean(values: impl Iterator<Item = f64>) -> Option<f64> {
    kcamp_core::stats::geomean(&values.filter(|v| *v > 0.0).collect::<Vec<_>>())
}

/// A gate report with the gate's classes (band = the 2% floor), for fixtures only.
pub fn gate_report(
    shapes: &[FixtureShape],
    incumbent: &[Measured],
    candidate: &[Measured],
    verdict: Verdict,
    reasons: &[&str],
) -> GateReport {
    let band = 0.02;
    let verdicts: Vec<ShapeVerdict> = shapes
        .iter()
        .zip(incumbent.iter().zip(candidate))
        .map(|(shape, (inc, cand))| {
            let inc_v = (inc.check == Check::Pass).then_some(inc.tflops);
            let cand_v = (cand.check == Check::Pass).then_some(cand.tflops);
            let delta = inc_v.zip(cand_v).map(|(i, c)| c / i - 1.0);
            let class = match delta {
                None => ShapeClass::Failed,
                Some(d) if d > band => ShapeClass::Improved,
                Some(d) if d < -band => ShapeClass::Regressed,
                Some(_) => ShapeClass::Neutral,
            };
            ShapeVerdict {
                label: shape.label.as_str().into(),
                dims: [1, shape.size, shape.size, shape.size].into(),
                check: cand.check,
                incumbent_check: inc.check,
                incumbent: inc_v,
                candidate: cand_v,
                delta,
                band,
                p_value: None,
                pairs: None,
                class,
                hard_regression: delta.is_some_and(|d| d < -0.05),
            }
        })
        .collect();
    let both: Vec<(f64, f64)> = verdicts
        .iter()
        .filter_map(|v| v.incumbent.zip(v.candidate))
        .collect();
    let agg_inc = geomean(both.iter().map(|p| p.0));
    let agg_cand = geomean(both.iter().map(|p| p.1));
    GateReport {
        verdict,
        metric: METRIC.into(),
        aggregate: Aggregate {
            incumbent: agg_inc,
            candidate: agg_cand,
            delta: agg_inc.zip(agg_cand).map(|(i, c)| c / i - 1.0),
            band: None,
            p_value: None,
            pairs: None,
            unit: None,
            unstable: false,
        },
        reasons: reasons.iter().map(|&r| Reason::from(r)).collect(),
        noted_regressions: verdicts
            .iter()
            .filter(|v| v.class == ShapeClass::Regressed && !v.hard_regression)
            .map(|v| v.label.to_string())
            .collect(),
        shapes: verdicts,
        config: GateConfig::default(),
        paired: false,
    }
}

/// Builds a campaign round by round.
pub struct CampaignBuilder {
    state: CampaignState,
    shapes: Vec<FixtureShape>,
    incumbent_measured: Option<Vec<Measured>>,
}

impl CampaignBuilder {
    pub fn new(shapes: Vec<FixtureShape>, representative: &[&str]) -> CampaignBuilder {
        let manifest = manifest(&shapes, representative);
        CampaignBuilder {
            state: CampaignState {
                dir: PathBuf::from("campaigns/demo-gemm"),
                manifest,
                frozen_header: None,
                rounds: Vec::new(),
                incumbent: None,
                open_round: None,
                lock_holder: None,
                journal: vec![journal(0, "init", None, json!({}))],
                live: None,
                damage: Vec::new(),
            },
            shapes,
            incumbent_measured: None,
        }
    }

    fn next_number(&self) -> u32 {
        self.state.rounds.len() as u32 + 1
    }

    fn memory(&self, number: u32, hypothesis: &str) -> serde_json::Value {
        json!({
            "version": format!("v{}", number - 1),
            "optimization": {
                "action_category": if number == 1 { "baseline" } else { "tiling" },
                "action_description": hypothesis,
            },
            "correctness": {"status": "PASS", "rel_err": 3.1e-7},
            "quality_gate": {"result": if number == 1 { "BASELINE" } else { "PENDING" }},
            "pitfalls_and_fixes": if number == 3 {
                json!([{"error_type": "bank conflict", "lesson": "pad the shared tile by one column"}])
            } else {
                json!([])
            },
        })
    }

    /// The run record of `measured`: every shape, with the reason a real run gives for each
    /// that did not PASS.
    fn result_json(&self, validation: Validation, measured: &[Measured]) -> RunResult {
        let shapes = self
            .shapes
            .iter()
            .zip(measured)
            .map(|(shape, m)| ShapeRecord {
                label: shape.label.clone(),
                dims: vec![1, shape.size, shape.size, shape.size],
                check: m.check,
                reason: failure_reason(m.check),
                seed: 0,
                latency_us: None,
                rel_err: None,
                timing_method: Some(TimingMethod::GpuTimestamps),
                warmup: Vec::new(),
                aligned_entries: Vec::new(),
            })
            .collect();
        RunResult {
            op: OpName::Gemm,
            dtype: Dtype::F32,
            validation,
            adapter: Some(AdapterDescription {
                name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
                backend: "vulkan".into(),
                device_type: "cpu".into(),
                ..AdapterDescription::default()
            }),
            wgpu_version: "30".into(),
            timing_methods: vec![TimingMethod::GpuTimestamps],
            trusted: false,
            kernel_file: "gemm.wgsl".into(),
            kernel_sha256: String::new(),
            started_at: at(0),
            finished_at: at(0),
            shapes,
            summary: RunSummary {
                total: 0,
                passed: 0,
                all_pass: false,
                latency_us_by_shape: BTreeMap::new(),
                latency_us_geomean: None,
                max_rel_err: None,
                metric: METRIC.into(),
                aggregate: None,
            },
            kernel_metrics: None,
            driver_statistics: None,
            fingerprint: None,
            checked_shapes: Vec::new(),
            checked_shapes_ms: None,
            paired: None,
            kernel_settings: None,
            time_breakdown: None,
        }
    }

    /// Round 1, measured in full.
    pub fn baseline(mut self, measured: &[Measured]) -> CampaignBuilder {
        let table = table(&self.shapes, measured);
        let aggregate = geomean(
            measured
                .iter()
                .filter(|m| m.check == Check::Pass)
                .map(|m| m.tflops),
        );
        let number = self.next_number();
        let hypothesis = "baseline kernel".to_owned();
        self.state.rounds.push(RoundState {
            number,
            dir: PathBuf::from(format!("rounds/round-{number}")),
            hypothesis: hypothesis.clone(),
            decision: Some(Decision {
                round: number,
                decision: DecisionKind::Baseline,
                parent: None,
                verdict: None,
                validation: Some(Validation::Full),
                aggregate,
                aggregate_delta: None,
                reason: None,
                cause: None,
                forced: false,
                time: at(5),
                git_commit: Some("3f2a9c1".into()),
                gate: None,
                kernel_hash: None,
                kernel_files: None,
                kernel_key: None,
            }),
            table: Some(table),
            table_error: None,
            gate: None,
            gate_validation: None,
            gate_incumbent: None,
            checked: None,
            result: Some(self.result_json(Validation::Full, measured)),
            memory: Some(self.memory(number, &hypothesis)),
        });
        self.state.frozen_header = Some(GEMM_HEADER.into());
        self.state.incumbent = Some(number);
        self.state.journal.push(journal(
            5,
            "baseline",
            Some(number),
            json!({"aggregate": aggregate}),
        ));
        self.incumbent_measured = Some(measured.to_vec());
        self
    }

    /// A decided round (accepted or rolled back) judged against the incumbent.
    pub fn decided(
        mut self,
        hypothesis: &str,
        measured: &[Measured],
        kind: DecisionKind,
        verdict: Verdict,
        reasons: &[&str],
    ) -> CampaignBuilder {
        let number = self.next_number();
        let minutes = i64::from(number) * 30;
        let incumbent = self.incumbent_measured.clone().unwrap_or_default();
        let gate = gate_report(&self.shapes, &incumbent, measured, verdict, reasons);
        self.state.rounds.push(RoundState {
            number,
            dir: PathBuf::from(format!("rounds/round-{number}")),
            hypothesis: hypothesis.into(),
            decision: Some(Decision {
                round: number,
                decision: kind,
                parent: self.state.incumbent,
                verdict: Some(verdict),
                validation: Some(Validation::Full),
                aggregate: gate.aggregate.candidate,
                aggregate_delta: gate.aggregate.delta,
                reason: match kind {
                    DecisionKind::RolledBack => Some(format!("gate {}", verdict.as_str())),
                    _ => None,
                },
                cause: None,
                forced: false,
                time: at(minutes),
                git_commit: None,
                gate: Some(gate.clone()),
                kernel_hash: None,
                kernel_files: None,
                kernel_key: None,
            }),
            table: Some(table(&self.shapes, measured)),
            table_error: None,
            gate: Some(gate),
            gate_validation: None,
            gate_incumbent: None,
            checked: None,
            result: Some(self.result_json(Validation::Full, measured)),
            memory: Some(self.memory(number, hypothesis)),
        });
        let event = match kind {
            DecisionKind::Accepted => "accept_done",
            DecisionKind::RolledBack => "rollback_done",
            DecisionKind::Baseline => "baseline",
        };
        self.state.journal.push(journal(
            minutes - 10,
            "round_opened",
            Some(number),
            json!({"hypothesis": hypothesis}),
        ));
        self.state.journal.push(journal(
            minutes - 2,
            "validated",
            Some(number),
            json!({"verdict": verdict}),
        ));
        self.state
            .journal
            .push(journal(minutes, event, Some(number), json!({})));
        if kind == DecisionKind::Accepted {
            self.state.incumbent = Some(number);
            self.incumbent_measured = Some(measured.to_vec());
        }
        self
    }

    /// The open round; measured and judged when `measured` is given.
    pub fn open(
        mut self,
        hypothesis: &str,
        measured: Option<&[Measured]>,
        verdict: Verdict,
        reasons: &[&str],
    ) -> CampaignBuilder {
        let number = self.next_number();
        let minutes = i64::from(number) * 30;
        let incumbent = self.incumbent_measured.clone().unwrap_or_default();
        let gate = measured.map(|m| gate_report(&self.shapes, &incumbent, m, verdict, reasons));
        self.state.rounds.push(RoundState {
            number,
            dir: PathBuf::from(format!("rounds/round-{number}")),
            hypothesis: hypothesis.into(),
            decision: None,
            table: measured.map(|m| table(&self.shapes, m)),
            table_error: None,
            gate_validation: gate.as_ref().map(|_| Validation::Quick),
            gate_incumbent: gate.as_ref().and(self.state.incumbent),
            checked: None,
            gate,
            result: measured.map(|m| self.result_json(Validation::Quick, m)),
            memory: Some(self.memory(number, hypothesis)),
        });
        self.state.open_round = Some(number);
        self.state.journal.push(journal(
            minutes - 10,
            "round_opened",
            Some(number),
            json!({"hypothesis": hypothesis}),
        ));
        if measured.is_some() {
            self.state.journal.push(journal(
                minutes - 2,
                "validated",
                Some(number),
                json!({"verdict": verdict}),
            ));
        }
        self
    }

    /// Mark the open round's CSV as unreadable.
    pub fn open_table_error(mut self, message: &str) -> CampaignBuilder {
        if let Some(round) = self.state.rounds.last_mut() {
            round.table = None;
            round.gate = None;
            round.table_error = Some(message.into());
        }
        self
    }

    pub fn live(mut self, progress: Progress) -> CampaignBuilder {
        self.state.live = Some(progress);
        self
    }

    pub fn locked_by(mut self, holder: &str) -> CampaignBuilder {
        self.state.lock_holder = Some(holder.into());
        self
    }

    pub fn build(self) -> CampaignState {
        self.state
    }
}

fn journal(
    minutes: i64,
    event: &str,
    round: Option<u32>,
    detail: serde_json::Value,
) -> JournalEntry {
    JournalEntry {
        time: at(minutes),
        event: event.into(),
        round,
        pid: 4242,
        detail,
    }
}

const SIZES: [u64; 6] = [64, 128, 256, 512, 768, 1024];

/// A campaign with a manifest and nothing measured.
pub fn empty() -> CampaignState {
    CampaignBuilder::new(shapes(&SIZES), &[]).build()
}

fn baseline_values() -> Vec<Measured> {
    [0.010, 0.035, 0.090, 0.140, 0.150, 0.155]
        .into_iter()
        .map(pass)
        .collect()
}

pub fn baseline_only() -> CampaignState {
    CampaignBuilder::new(shapes(&SIZES), &["sq64", "sq256", "sq1024"])
        .baseline(&baseline_values())
        .build()
}

fn several_builder() -> CampaignBuilder {
    let base = baseline_values();
    let tiled: Vec<Measured> = base.iter().map(|m| pass(m.tflops * 1.18)).collect();
    let vec4: Vec<Measured> = tiled
        .iter()
        .enumerate()
        .map(|(i, m)| pass(m.tflops * if i < 2 { 0.90 } else { 1.01 }))
        .collect();
    let regs: Vec<Measured> = tiled
        .iter()
        .enumerate()
        .map(|(i, m)| pass(m.tflops * [1.01, 0.97, 1.12, 1.25, 1.22, 1.20][i]))
        .collect();
    CampaignBuilder::new(shapes(&SIZES), &["sq64", "sq256", "sq1024"])
        .baseline(&base)
        .decided(
            "16x16 shared-memory tiles cut global loads",
            &tiled,
            DecisionKind::Accepted,
            Verdict::Accept,
            &["aggregate +18.0% over the 2% noise floor"],
        )
        .decided(
            "vec4 loads of A and B",
            &vec4,
            DecisionKind::RolledBack,
            Verdict::Reject,
            &["sq64 regressed -10.0% (hard threshold -5%)"],
        )
        .open(
            "4x4 register blocking per thread",
            Some(&{
                let mut r = regs;
                r[5] = Measured {
                    check: Check::Fail,
                    tflops: 0.0,
                };
                r
            }),
            Verdict::Reject,
            &[
                "sq1024 is FAIL (rel_err 3.2e-2 over 1e-4)",
                "sq128 regressed -3.0% (noted)",
            ],
        )
}

/// Baseline, one accepted, one rolled back, and an open candidate with every class.
pub fn several_rounds() -> CampaignState {
    several_builder().build()
}

/// Like [`several_rounds`], but the open candidate passes the gate with a note.
pub fn acceptable_candidate() -> CampaignState {
    let mut state = several_rounds();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        gate.verdict = Verdict::AcceptWithNote;
        gate.reasons = Reasons(vec![
            "aggregate +14.2% over the 2% noise floor".into(),
            "sq128 regressed -3.0% (under the 5% threshold)".into(),
        ]);
    }
    state
}

/// The open round's CSV has a drifted header.
pub fn drifted_csv() -> CampaignState {
    several_builder()
        .open_table_error(
            "rounds/round-4/artifacts/benchmark.csv:1 (column 'Forward TFLOPs'): header differs \
             from the frozen schema: expected 'Forward TFLOPS'",
        )
        .build()
}

/// A validation in progress (started by another process).
pub fn running() -> CampaignState {
    several_builder()
        .live(Progress {
            state: "running".into(),
            validation: Validation::Quick,
            round: Some(4),
            index: 2,
            total: 3,
            label: "sq256".into(),
            samples: 7,
            phase: Some("timing Forward".into()),
            last_ms: Some(0.33),
            last_rate: Some(0.1032),
            rate_unit: "TFLOPS".into(),
            started_at: at(121),
            pid: 5151,
            shards: Vec::new(),
        })
        .locked_by("pid 5151 (kcamp validate)")
        .build()
}

/// `n` shapes named by `label`, M = N = K cycling through `sizes.0` sizes from 64 in steps
/// of `sizes.1`, and a baseline cycling through `rates` values from 0.05 TFLOPS.
fn many_shapes(
    n: usize,
    label: impl Fn(usize) -> String,
    sizes: (u64, u64),
    rates: usize,
) -> (Vec<FixtureShape>, Vec<Measured>) {
    let shapes = (0..n)
        .map(|i| FixtureShape {
            label: label(i),
            size: 64 + (i as u64 % sizes.0) * sizes.1,
        })
        .collect();
    let base = (0..n)
        .map(|i| pass(0.05 + (i % rates) as f64 * 0.01))
        .collect();
    (shapes, base)
}

/// `shapes` GEMM shapes over `rounds` rounds (every third rolled back, the last one open):
/// the dashboard's worst case for the frame-time benchmark.
pub fn synthetic(shape_count: usize, rounds: usize) -> CampaignState {
    let (shapes, base) = many_shapes(shape_count, |i| format!("shape{i:04}"), (64, 16), 17);
    let mut builder = CampaignBuilder::new(shapes, &[]).baseline(&base);
    let mut current = base;
    for r in 2..rounds {
        let factor = if r % 3 == 0 { 0.97 } else { 1.01 };
        let next: Vec<Measured> = current
            .iter()
            .enumerate()
            .map(|(i, m)| pass(m.tflops * factor * (1.0 + ((i + r) % 7) as f64 * 0.001)))
            .collect();
        if r % 3 == 0 {
            builder = builder.decided(
                "synthetic step",
                &next,
                DecisionKind::RolledBack,
                Verdict::Reject,
                &["synthetic regression"],
            );
        } else {
            builder = builder.decided(
                "synthetic step",
                &next,
                DecisionKind::Accepted,
                Verdict::Accept,
                &["synthetic gain"],
            );
            current = next;
        }
    }
    let candidate: Vec<Measured> = current.iter().map(|m| pass(m.tflops * 1.03)).collect();
    builder
        .open(
            "synthetic candidate",
            Some(&candidate),
            Verdict::Accept,
            &["synthetic gain"],
        )
        .build()
}

/// A live progress document of shape `index` (0-based) of `total`.
pub fn progress(index: usize, total: usize) -> Progress {
    Progress {
        state: "running".into(),
        validation: Validation::Quick,
        round: Some(2),
        index,
        total,
        label: "sq64".into(),
        samples: 3,
        phase: None,
        last_ms: Some(0.5),
        last_rate: Some(0.01),
        rate_unit: "TFLOPS".into(),
        started_at: at(0),
        pid: std::process::id(),
        shards: Vec::new(),
    }
}

/// Like [`several_rounds`], but the open candidate was judged paired (the default): its
/// reasons open with the pairing note, as `kcamp validate` writes them, before the ones
/// that say why it is rejected.
pub fn paired_candidate() -> CampaignState {
    let mut state = several_rounds();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        gate.paired = true;
        gate.reasons = Reasons(vec![
            "paired: round 2's kernel snapshot was re-measured in this run, its samples \
             alternating with the candidate's (A B B A); Δ and bands come from the per-repeat \
             ratios (their median, so a single stray sample can move the mean columns but not \
             Δ), the incumbent column is this run's (round 2's own numbers stay in its round)."
                .into(),
            "1 of 6 shapes do not PASS in the candidate: sq1024 (FAIL).".into(),
            "aggregate Forward TFLOPS +10.8% (median over 10 repeats of each repeat's geomean \
             of the paired ratios over 5 shapes) clears the paired band ±2.00%."
                .into(),
        ]);
    }
    state
}

/// A BASELINE and round 2, opened and never measured.
pub fn unmeasured_round() -> CampaignState {
    CampaignBuilder::new(shapes(&[64, 128]), &[])
        .baseline(&[pass(0.01), pass(0.03)])
        .open("unroll the k loop by 4", None, Verdict::Accept, &[])
        .build()
}

/// [`unmeasured_round`] rolled back before it was measured: no round is open.
pub fn rolled_back_unmeasured() -> CampaignState {
    let mut state = unmeasured_round();
    if let Some(mut decision) = state.rounds[0].decision.clone() {
        decision.round = 2;
        decision.decision = DecisionKind::RolledBack;
        decision.parent = Some(1);
        decision.aggregate = None;
        decision.validation = None;
        decision.reason = Some("abandoned before validation".into());
        decision.time = at(40);
        state.rounds[1].decision = Some(decision);
    }
    state.open_round = None;
    state
}

/// The open candidate's verdict carries 200 reference notes, the way a quick validation
/// against an incumbent accepted on a quick run does.
pub fn many_reasons() -> CampaignState {
    let mut state = several_rounds();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        for i in 0..200 {
            gate.reasons.push(
                kcamp_core::gate::Reason::new(
                    kcamp_core::gate::ReasonKind::Method,
                    format!(
                        "shape 's{i}' judged against round 2, the newest accepted round that measured it"
                    ),
                )
                .with_shapes([format!("s{i}")]),
            );
        }
    }
    state
}

/// Long labels, batched dimensions, p-values and a large neutral change: the text the
/// gate table must cut or drop without lying.
pub fn long_labels() -> CampaignState {
    let mut state = several_rounds();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        for (i, s) in gate.shapes.iter_mut().enumerate() {
            s.label = format!("b{}_m{}_n512_k2048_fwd", i + 1, 128 << i);
            s.dims = [2, 4096, 2048, 40 + i as u64].into();
            s.p_value = Some(0.004 * (i + 1) as f64);
        }
        // Inside a wide band: a big drop that the gate calls neutral, for a reason the
        // band column must show.
        let noisy = &mut gate.shapes[0];
        noisy.delta = Some(-0.968);
        noisy.band = 1.2;
        noisy.p_value = Some(0.31);
        noisy.class = ShapeClass::Neutral;
        noisy.hard_regression = false;
    }
    state
}

/// An open candidate over `n` shapes: one FAIL, twelve regressed, the rest improved or
/// neutral, in file order mixed so that worst-first sorting has work to do.
pub fn synthetic_gate(n: usize) -> CampaignState {
    let (shapes, base) = many_shapes(n, |i| format!("s{i:03}"), (16, 32), 13);
    let candidate: Vec<Measured> = base
        .iter()
        .enumerate()
        .map(|(i, m)| match i {
            137 => Measured {
                check: Check::Fail,
                tflops: 0.0,
            },
            i if i % 16 == 5 && i < 16 * 12 => pass(m.tflops * (0.97 - (i % 5) as f64 * 0.01)),
            i if i % 3 == 0 => pass(m.tflops * 1.001),
            _ => pass(m.tflops * 1.06),
        })
        .collect();
    CampaignBuilder::new(shapes, &["s000", "s050", "s150"])
        .baseline(&base)
        .open(
            "wider tiles for the large shapes",
            Some(&candidate),
            Verdict::Reject,
            &[
                "s137 is FAIL (rel_err 2.0e-2 over 1e-4)",
                "12 shapes regressed beyond -max(5%, band)",
            ],
        )
        .build()
}

/// Write `state` as a campaign directory in the real formats (manifest, frozen schema,
/// rounds with their decisions, CSVs, gate records and run results, iteration records,
/// journal), so a real dashboard process can be pointed at it.
pub fn write_campaign(state: &CampaignState, dir: &std::path::Path) -> kcamp_core::Result<()> {
    use kcamp_core::campaign::GateRecord;
    use kcamp_core::files::{
        ARTIFACTS_DIR, BENCHMARK_CSV, DECISION_FILE, FROZEN_HEADER_FILE, GATE_JSON,
        HYPOTHESIS_FILE, JOURNAL_FILE, KERNEL_DIR, MANIFEST_FILE, MEMORY_DIR, RESULT_JSON,
    };
    use kcamp_core::fsutil::{write_atomic, write_json_atomic};
    let m = &state.manifest;
    write_atomic(&dir.join(MANIFEST_FILE), m.to_yaml()?.as_bytes())?;
    write_atomic(
        &dir.join(KERNEL_DIR).join(&m.kernel.file),
        b"// synthetic campaign: no kernel to run\n",
    )?;
    if let Some(h) = &state.frozen_header {
        write_atomic(&dir.join(FROZEN_HEADER_FILE), format!("{h}\n").as_bytes())?;
    }
    for r in &state.rounds {
        let rdir = dir
            .join(kcamp_core::files::ROUNDS_DIR)
            .join(format!("round-{}", r.number));
        write_atomic(
            &rdir.join(HYPOTHESIS_FILE),
            format!("{}\n", r.hypothesis).as_bytes(),
        )?;
        if let Some(d) = &r.decision {
            write_json_atomic(&rdir.join(DECISION_FILE), d)?;
        }
        let artifacts = rdir.join(ARTIFACTS_DIR);
        if let Some(t) = &r.table {
            write_atomic(&artifacts.join(BENCHMARK_CSV), t.to_csv().as_bytes())?;
        }
        if let Some(report) = &r.gate {
            let record = GateRecord {
                round: r.number,
                validation: r.gate_validation.unwrap_or(Validation::Full),
                incumbent: r
                    .decision
                    .as_ref()
                    .and_then(|d| d.parent)
                    .or(state.incumbent)
                    .unwrap_or(1),
                kernel_hash: String::new(),
                needs_full_confirmation: false,
                time: r.decision.as_ref().map_or(at(0), |d| d.time),
                origin: "builtin".into(),
                reference_notes: Vec::new(),
                report: report.clone(),
                like_for_like: None,
                checked_shapes: Vec::new(),
                raw_verdict: None,
                csv_hash: None,
                unfloored: None,
            };
            write_json_atomic(&artifacts.join(GATE_JSON), &record)?;
        }
        if let Some(result) = &r.result {
            write_json_atomic(&artifacts.join(RESULT_JSON), result)?;
        }
        if let Some(memory) = &r.memory {
            write_json_atomic(
                &dir.join(MEMORY_DIR).join(format!("v{}.json", r.number - 1)),
                memory,
            )?;
        }
    }
    let mut journal = String::new();
    for e in &state.journal {
        journal.push_str(
            &serde_json::to_string(e)
                .map_err(|e| kcamp_core::Error::Internal(format!("journal line: {e}")))?,
        );
        journal.push('\n');
    }
    write_atomic(&dir.join(JOURNAL_FILE), journal.as_bytes())
}

/// Labels that look alike when cut in the middle to a few cells (`b1_m…2048`): the label
/// column must be wide enough to tell them apart.
pub fn colliding_labels() -> CampaignState {
    let mut state = several_rounds();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        for (i, s) in gate.shapes.iter_mut().enumerate() {
            s.label = format!("b1_m{}_n512_k2048", 128 + 64 * i);
            s.dims = [1, 128 + 64 * i as u64, 512, 2048].into();
        }
    }
    state
}

/// A paired verdict with a row whose paired Δ and means disagree: the run drifted.
pub fn disagreeing_means() -> CampaignState {
    let mut state = paired_candidate();
    if let Some(gate) = state.rounds.last_mut().and_then(|r| r.gate.as_mut()) {
        for s in &mut gate.shapes {
            s.pairs = Some(10);
        }
        let s = gate
            .shapes
            .iter_mut()
            .find(|s| s.check == Check::Pass)
            .expect("a passing shape");
        // +6% paired, while the means say -2%.
        s.delta = Some(0.06);
        s.candidate = s.incumbent.map(|i| i * 0.98);
        s.class = ShapeClass::Improved;
    }
    state
}

/// A campaign whose measurements are imported CSVs: no harness command, and a BASELINE
/// without kcamp's run record.
pub fn imported() -> CampaignState {
    let mut state = several_rounds();
    for r in &mut state.rounds {
        r.result = None;
    }
    state.manifest.quick_command = None;
    state.manifest.full_command = None;
    state
}

/// The key [`tried_kernel`]'s rolled-back round 3 kept of its kernel snapshot: a working
/// kernel with this key is the one round 3 tried.
pub const TRIED_KEY: &str = "5e7f0c1d";

/// [`several_rounds`] whose rolled-back round 3 kept its kernel's key and says why it was
/// given up: the open round's working kernel, loaded with [`TRIED_KEY`], is round 3's.
pub fn tried_kernel() -> CampaignState {
    let mut state = several_rounds();
    if let Some(d) = state.rounds[2].decision.as_mut() {
        d.kernel_key = Some(TRIED_KEY.into());
        d.reason = Some("vec4 loads are unaligned at 64: sq64 regressed -10.0%".into());
    }
    state
}

/// [`tried_kernel`] with its open round 4 not measured yet: the working kernel was edited
/// back to round 3's before `v`.
pub fn tried_kernel_unmeasured() -> CampaignState {
    let mut state = tried_kernel();
    let Some(open) = state.rounds.last_mut() else {
        return state;
    };
    open.table = None;
    open.gate = None;
    open.gate_validation = None;
    open.result = None;
    open.memory = None;
    let n = open.number;
    // Nor does its journal say it was validated.
    state
        .journal
        .retain(|e| !(e.round == Some(n) && e.event == "validated"));
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_campaign_reads_back_as_the_same_state() {
        let dir = tempfile::tempdir().unwrap();
        let state = several_rounds();
        write_campaign(&state, dir.path()).unwrap();
        let back = CampaignState::load(dir.path()).unwrap();
        assert_eq!(back.manifest, state.manifest);
        assert_eq!(back.rounds.len(), 4);
        assert_eq!(back.incumbent, Some(2));
        assert_eq!(back.open_round, Some(4));
        assert_eq!(back.journal, state.journal);
        for (a, b) in back.rounds.iter().zip(&state.rounds) {
            assert_eq!(a.decision, b.decision, "round {}", a.number);
            assert_eq!(a.gate, b.gate, "round {}", a.number);
            assert_eq!(a.memory, b.memory, "round {}", a.number);
            assert_eq!(
                a.table.as_ref().map(|t| t.rows.len()),
                b.table.as_ref().map(|t| t.rows.len())
            );
            assert!(a.table_error.is_none(), "{:?}", a.table_error);
        }
    }
}
