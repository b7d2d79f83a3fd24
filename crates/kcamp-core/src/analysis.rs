//! ANALYZE: where a kernel stands against the roofline, shape by shape, and what its static
//! metrics say — as plain data. `kcamp analyze` gathers the inputs (a round's CSV, the roofs
//! of the adapter that measured it, naga's metrics of its kernel) and stores the result as
//! the round's `profile_evidence`, where the dashboard and the next hypothesis read it.
//! Reports use [`shape_roofs`] for their utilization columns and the roofline chart.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::isa::{DriverStatistics, EntryMetrics, IsaMetric, MAX_BARRIERS_PER_LOOP_ITERATION};
use crate::ops::pass_work;
use crate::schema::{BenchTable, FORWARD_TIME, Row};
use crate::specs::{Bound, UtilPeaks};
use crate::types::{Check, Dtype, OpName, Validation};
use crate::units;

/// One shape's forward pass on the roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeRoof {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    /// Mean time of one forward dispatch, ms (None when the shape did not PASS).
    pub time_ms: Option<f64>,
    /// FLOPs and minimum DRAM bytes of one forward dispatch (the op's own counts).
    pub flops: f64,
    pub bytes: f64,
    /// FLOP per byte.
    pub intensity: f64,
    /// Achieved FLOP/s and bytes/s.
    pub flop_rate: Option<f64>,
    pub byte_rate: Option<f64>,
    /// Percent of the compute and bandwidth peaks.
    pub compute_pct: Option<f64>,
    pub bandwidth_pct: Option<f64>,
    /// Which roof limits the shape at its intensity (None without peaks).
    pub bound: Option<Bound>,
    /// The attainable FLOP/s at this intensity: min(compute peak, intensity × bandwidth).
    pub roof_flop_rate: Option<f64>,
    /// Roof over achieved: how many times faster the shape could be at its intensity.
    pub headroom: Option<f64>,
}

/// The forward time of a row: its `Forward Time (ms)` column, else derived from a rate
/// column and the op's work (a harness CSV may carry only rates).
fn forward_ms(row: &Row, table: &BenchTable, flops: f64, bytes: f64) -> Option<f64> {
    if let Some(ms) = row.metric(&table.schema, FORWARD_TIME) {
        return Some(ms);
    }
    if let Some(t) = row
        .metric(&table.schema, "Forward TFLOPS")
        .filter(|t| *t > 0.0)
    {
        return Some(flops / (t * 1e12) * 1e3);
    }
    row.metric(&table.schema, "Forward GB/s")
        .filter(|g| *g > 0.0)
        .map(|g| bytes / (g * 1e9) * 1e3)
}

/// Every row of `table` on the roofline of `peaks` (achieved rates only, without peaks).
pub fn shape_roofs(
    op: OpName,
    dtype: Dtype,
    table: &BenchTable,
    peaks: Option<&UtilPeaks>,
) -> Vec<ShapeRoof> {
    table
        .rows
        .iter()
        .map(|row| {
            let (flops, bytes) = pass_work(op, dtype, &row.dims)[0].unwrap_or((0.0, 0.0));
            let time_ms = (row.check == Check::Pass)
                .then(|| forward_ms(row, table, flops, bytes))
                .flatten()
                .filter(|ms| ms.is_finite() && *ms > 0.0);
            let seconds = time_ms.map(|ms| ms * 1e-3);
            let flop_rate = seconds.map(|s| flops / s);
            let byte_rate = seconds.map(|s| bytes / s);
            let intensity = if bytes > 0.0 {
                flops / bytes
            } else {
                f64::INFINITY
            };
            let (mut bound, mut roof, mut compute_pct, mut bandwidth_pct) =
                (None, None, None, None);
            if let Some(p) = peaks {
                let ridge = p.ridge_point();
                bound = Some(if intensity < ridge {
                    Bound::Memory
                } else {
                    Bound::Compute
                });
                roof = Some(p.flops.value.min(intensity * p.bandwidth.value));
                compute_pct = flop_rate.map(|r| 100.0 * r / p.flops.value);
                bandwidth_pct = byte_rate.map(|r| 100.0 * r / p.bandwidth.value);
            }
            let headroom = match (roof, flop_rate) {
                (Some(roof), Some(r)) if r > 0.0 => Some(roof / r),
                _ => None,
            };
            ShapeRoof {
                label: row.label.clone(),
                dims: row.dims.clone(),
                check: row.check,
                time_ms,
                flops,
                bytes,
                intensity,
                flop_rate,
                byte_rate,
                compute_pct,
                bandwidth_pct,
                bound,
                roof_flop_rate: roof,
                headroom,
            }
        })
        .collect()
}

/// Shapes furthest from their roof first (largest headroom); shapes without a headroom
/// (not PASS, no peaks) last, in their original order.
pub fn furthest_first(shapes: &mut [ShapeRoof]) {
    shapes.sort_by(|a, b| match (a.headroom, b.headroom) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// What `kcamp analyze` found for one kernel: stored as the round's `profile_evidence`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileEvidence {
    /// The round whose measurement is analyzed.
    pub round: u32,
    /// The kernel file the static metrics come from, relative to the campaign.
    pub kernel: String,
    pub analyzed_at: DateTime<Utc>,
    /// Adapter that measured the round (None for an imported CSV).
    pub adapter: Option<String>,
    pub timing_methods: Vec<String>,
    /// The validation whose numbers are analyzed.
    pub validation: Option<Validation>,
    /// The roofs the positions are measured against, each naming its source id.
    pub peaks: Option<UtilPeaks>,
    /// FLOP per byte where the compute and bandwidth roofs meet.
    pub ridge_point: Option<f64>,
    /// Furthest from its roof first.
    pub shapes: Vec<ShapeRoof>,
    /// naga's static metrics of the forward entry point (None when the kernel does not
    /// compile: `problems` says why).
    pub static_metrics: Option<EntryMetrics>,
    /// What the driver made of the forward entry point when the round was measured
    /// (registers, ...), where the adapter reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_statistics: Option<DriverStatistics>,
    pub isa_metric_progress: Vec<IsaMetric>,
    /// Runtime bounds checks were on (`kernel.trusted: false`).
    pub bounds_checks: bool,
    /// Evidence-based observations, most important first.
    pub findings: Vec<String>,
    /// The open directions of the campaign's records, newest first.
    pub open_directions: Vec<String>,
    /// Inputs that could not be analyzed (no peaks, kernel does not compile, ...).
    pub problems: Vec<String>,
}

/// NVIDIA's PCI vendor id.
pub const NVIDIA_VENDOR: u32 = 0x10de;
/// 32-bit registers of one NVIDIA multiprocessor (every architecture since Kepler, Hopper
/// included); a warp's registers are allocated in units of 8 per invocation.
pub const NVIDIA_REGISTERS_PER_SM: u64 = 65_536;

/// Workgroups of `invocations` that one NVIDIA multiprocessor's registers hold at `registers`
/// per invocation (other limits, such as workgroup memory, may hold fewer).
pub fn nvidia_workgroups_by_registers(registers: u64, invocations: u64) -> u64 {
    let warps = invocations.div_ceil(32).max(1);
    let per_invocation = registers.max(1).next_multiple_of(8);
    NVIDIA_REGISTERS_PER_SM / (warps * 32 * per_invocation)
}

/// What the driver's statistics say about occupancy: the registers per invocation and, on
/// NVIDIA, how many workgroups they leave room for and where the next step lies.
pub fn driver_findings(
    stats: &DriverStatistics,
    invocations: Option<u32>,
    vendor: Option<u32>,
) -> Vec<String> {
    let Some(registers) = stats.registers() else {
        return Vec::new();
    };
    let head = format!(
        "the driver compiled {} to {registers} registers per invocation",
        stats.entry_point
    );
    let (Some(invocations), Some(NVIDIA_VENDOR)) = (invocations.map(u64::from), vendor) else {
        return vec![head];
    };
    let fit = nvidia_workgroups_by_registers(registers, invocations);
    let warps = invocations.div_ceil(32);
    if fit == 0 {
        return vec![format!(
            "{head}: {invocations} invocations need {} registers, more than a multiprocessor's {NVIDIA_REGISTERS_PER_SM}",
            invocations * registers.next_multiple_of(8)
        )];
    }
    // The most registers at which one more workgroup would fit.
    let next = NVIDIA_REGISTERS_PER_SM / (warps * 32 * (fit + 1)) / 8 * 8;
    let more = if next >= 8 {
        format!("; at {next} or fewer, {}", fit + 1)
    } else {
        String::new()
    };
    vec![format!(
        "{head}: {fit} workgroup(s) of {invocations} per multiprocessor by registers ({} warps of the {NVIDIA_REGISTERS_PER_SM}-register file){more}",
        fit * warps
    )]
}

/// Observations from the roofline positions and the static metrics, most important first.
/// Each names the numbers it rests on.
pub fn findings(
    shapes: &[ShapeRoof],
    peaks: Option<&UtilPeaks>,
    metrics: Option<&EntryMetrics>,
    isa: &[IsaMetric],
    bounds_checks: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let measured: Vec<&ShapeRoof> = shapes.iter().filter(|s| s.headroom.is_some()).collect();
    if let (Some(worst), Some(p)) = (measured.first(), peaks) {
        let roof = match worst.bound {
            Some(Bound::Memory) => format!(
                "memory-bound at {} of the bandwidth roof [{}]",
                p.bandwidth
                    .utilization_text(worst.bandwidth_pct.unwrap_or(0.0)),
                p.bandwidth.source
            ),
            _ => format!(
                "compute-bound at {} of the compute roof [{}]",
                p.flops.utilization_text(worst.compute_pct.unwrap_or(0.0)),
                p.flops.source
            ),
        };
        out.push(format!(
            "furthest from its roof: {} ({roof}; {} headroom at {})",
            worst.label,
            units::times(worst.headroom.unwrap_or(f64::NAN)),
            units::intensity(worst.intensity)
        ));
        let memory = measured
            .iter()
            .filter(|s| s.bound == Some(Bound::Memory))
            .count();
        if memory > 0 && memory < measured.len() {
            out.push(format!(
                "{memory} of {} shapes are memory-bound, the rest compute-bound: a change that helps one class may not help the other",
                measured.len()
            ));
        }
    }
    if let Some(m) = metrics {
        let steady = m.main_loop.unwrap_or(m.unrolled_counts);
        if steady.storage_load_bytes > 0
            && let Some(p) = peaks
        {
            let ratio = steady.float_ops as f64 / steady.storage_load_bytes as f64;
            let ridge = p.ridge_point();
            if ratio < ridge {
                out.push(format!(
                    "the main loop does {} FLOP per byte it loads from global memory, below the ridge point {}: reuse loaded data (tiles in workgroup memory, several outputs per invocation) before the compute roof is reachable",
                    units::sig(ratio),
                    units::intensity(ridge)
                ));
            }
        }
        if m.workgroup_memory_bytes == 0 && m.max_loop_depth > 0 {
            out.push(
                "no workgroup memory is used: every operand is read from global memory by each invocation that needs it".to_owned(),
            );
        }
        if m.max_barriers_per_loop_iteration > MAX_BARRIERS_PER_LOOP_ITERATION {
            out.push(format!(
                "{} barriers per loop iteration (target <= {MAX_BARRIERS_PER_LOOP_ITERATION})",
                m.max_barriers_per_loop_iteration
            ));
        }
    }
    for unmet in isa.iter().filter(|m| m.met == Some(false)) {
        if unmet.metric == "workgroup_size_multiple_of_subgroup" {
            out.push(format!(
                "workgroup of {} invocations is not a {}: lanes of its last subgroup idle",
                unmet.current.map_or_else(|| "?".to_owned(), units::sig),
                unmet.target
            ));
        }
    }
    if bounds_checks {
        out.push(
            "runtime bounds checks are on (kernel.trusted: false); once the kernel is correct, set `trusted: true` in kernel/kernel.yaml (the kernel's own settings: they travel with its snapshot, so a rollback undoes them; the file replaces the manifest's whole `kernel:` section, so start from a copy of it) and measure it, to see what they cost".to_owned(),
        );
    }
    let launch_bound: Vec<&str> = shapes
        .iter()
        .filter(|s| s.time_ms.is_some_and(|t| t < 0.02))
        .map(|s| s.label.as_str())
        .collect();
    if !launch_bound.is_empty() {
        out.push(format!(
            "under 20 µs a dispatch, launch overhead weighs on: {}",
            launch_bound.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{DriverExecutable, DriverStatistic, StatisticValue};
    use crate::specs::PeakValue;

    fn registers(n: u64) -> DriverStatistics {
        DriverStatistics {
            error: None,
            aligned: None,
            entry_point: "forward".into(),
            executables: vec![DriverExecutable {
                name: "compute".into(),
                description: String::new(),
                subgroup_size: 32,
                statistics: vec![DriverStatistic {
                    name: "Register Count".into(),
                    description: String::new(),
                    value: StatisticValue::Unsigned(n),
                }],
            }],
        }
    }

    #[test]
    fn registers_decide_workgroups_per_nvidia_multiprocessor() {
        // Register counts NVIDIA's driver gave real kernels: 128, 155 and 171 with 256
        // invocations, 128 with 512 (docs/performance.md, "What bounds the SGEMM: registers").
        assert_eq!(nvidia_workgroups_by_registers(128, 256), 2);
        assert_eq!(nvidia_workgroups_by_registers(155, 256), 1);
        assert_eq!(nvidia_workgroups_by_registers(171, 256), 1);
        assert_eq!(nvidia_workgroups_by_registers(128, 512), 1);
        assert_eq!(nvidia_workgroups_by_registers(129, 512), 0);
        // 65 registers round up to 72 per invocation.
        assert_eq!(nvidia_workgroups_by_registers(65, 128), 7);
        assert_eq!(nvidia_workgroups_by_registers(64, 128), 8);
    }

    #[test]
    fn the_driver_findings_say_how_far_the_next_workgroup_is() {
        let f = driver_findings(&registers(155), Some(256), Some(NVIDIA_VENDOR));
        assert_eq!(
            f,
            vec![
                "the driver compiled forward to 155 registers per invocation: 1 workgroup(s) of 256 per multiprocessor by registers (8 warps of the 65536-register file); at 128 or fewer, 2"
            ]
        );
        let f = driver_findings(&registers(128), Some(256), Some(NVIDIA_VENDOR));
        assert!(
            f[0].contains("2 workgroup(s) of 256") && f[0].contains("at 80 or fewer, 3"),
            "{f:?}"
        );
        let f = driver_findings(&registers(200), Some(512), Some(NVIDIA_VENDOR));
        assert!(f[0].contains("need 102400 registers"), "{f:?}");
        // Elsewhere the register file is not known: the count alone.
        let f = driver_findings(&registers(96), Some(256), Some(0x1002));
        assert_eq!(
            f,
            vec!["the driver compiled forward to 96 registers per invocation"]
        );
        let none = DriverStatistics {
            error: None,
            aligned: None,
            entry_point: "forward".into(),
            executables: vec![],
        };
        assert!(driver_findings(&none, Some(256), Some(NVIDIA_VENDOR)).is_empty());
    }

    fn table(rows: &str) -> BenchTable {
        let text = format!("{}\n{rows}", crate::schema::GEMM_HEADER);
        BenchTable::parse(&text, std::path::Path::new("t.csv")).unwrap()
    }

    fn peaks() -> UtilPeaks {
        UtilPeaks {
            flops: PeakValue {
                value: 100e9,
                source: "measured:cpu".into(),
                key: None,
            },
            bandwidth: PeakValue {
                value: 10e9,
                source: "measured:cpu".into(),
                key: None,
            },
            units: None,
        }
    }

    /// 128³ f32 GEMM in 4.194304 ms: 2·128³ = 4,194,304 FLOP -> 1 GFLOP/s; bytes
    /// 4·3·128² = 196,608 -> 46.875 MB/s; intensity 21.33 FLOP/B above the ridge 10 ->
    /// compute-bound, roof 100 GFLOP/s, headroom 100×.
    #[test]
    fn a_shape_on_the_roofline_by_hand() {
        let t = table(
            "s128,1,128,128,128,PASS,0.001,0,0.001,0,4.194304,8.388608,300,300,300\nbad,1,8,8,8,FAIL,0,0,0,0,0,0,0,0,0",
        );
        let mut r = shape_roofs(OpName::Gemm, Dtype::F32, &t, Some(&peaks()));
        let s = &r[0];
        assert_eq!(s.flops, 4_194_304.0);
        assert_eq!(s.bytes, 196_608.0);
        assert!((s.flop_rate.unwrap() - 1e9).abs() < 1.0);
        assert!((s.intensity - 21.333).abs() < 1e-3);
        assert_eq!(s.bound, Some(Bound::Compute));
        assert!((s.compute_pct.unwrap() - 1.0).abs() < 1e-9);
        assert!((s.headroom.unwrap() - 100.0).abs() < 1e-6);
        assert_eq!(r[1].time_ms, None, "a FAIL row has no time");
        assert_eq!(r[1].headroom, None);
        furthest_first(&mut r);
        assert_eq!(r[0].label, "s128");
        let f = findings(&r, Some(&peaks()), None, &[], true);
        assert!(f[0].contains("s128") && f[0].contains("100×"), "{f:?}");
        assert!(f.iter().any(|x| x.contains("bounds checks")), "{f:?}");
    }

    #[test]
    fn memory_bound_shapes_are_measured_against_bandwidth() {
        // 8³: 1024 FLOP, 4·3·64 = 768 B, intensity 1.33 < 10 -> memory-bound; the roof
        // there is 1.33 × 10 GB/s = 13.3 GFLOP/s.
        let t = table("s8,1,8,8,8,PASS,0.001024,0,0.001024,0,0.001,0.002,300,300,300");
        let r = shape_roofs(OpName::Gemm, Dtype::F32, &t, Some(&peaks()));
        assert_eq!(r[0].bound, Some(Bound::Memory));
        assert!((r[0].roof_flop_rate.unwrap() - 40e9 / 3.0).abs() < 1.0);
        // 768 B in 1 µs = 0.768 GB/s = 7.68 % of 10 GB/s.
        assert!((r[0].bandwidth_pct.unwrap() - 7.68).abs() < 1e-9);
        let no_peaks = shape_roofs(OpName::Gemm, Dtype::F32, &t, None);
        assert!(no_peaks[0].bound.is_none() && no_peaks[0].flop_rate.is_some());
    }
}
