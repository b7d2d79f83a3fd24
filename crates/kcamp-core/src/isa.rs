//! Static metrics of a kernel (a record's `isa_metric_progress`: docs/campaign-dir.md,
//! "Iteration records: `memory/v<N>.json`") as plain data, and the targets they are held
//! to. The numbers come from naga's analysis of the WGSL, done where the kernel is compiled
//! (kcamp-gpu) and stored in `result.json`; records read them back without opening a GPU.

use serde::{Deserialize, Serialize};

/// Memory traffic, synchronization and arithmetic of a piece of code, per invocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct OpCounts {
    pub storage_loads: u64,
    pub storage_load_bytes: u64,
    pub storage_stores: u64,
    pub storage_store_bytes: u64,
    pub uniform_loads: u64,
    pub workgroup_loads: u64,
    pub workgroup_stores: u64,
    pub atomics: u64,
    /// Control and memory barriers (`workgroupBarrier`, `storageBarrier`, ...), and
    /// `workgroupUniformLoad`, which synchronizes the workgroup too.
    pub barriers: u64,
    /// Floating-point operations: one per component of an arithmetic result, two for a
    /// fused multiply-add, 2·n for a dot product of n-vectors.
    pub float_ops: u64,
    /// Integer arithmetic and bit operations (mostly index math).
    pub integer_ops: u64,
}

/// Metrics of one compute entry point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryMetrics {
    pub entry_point: String,
    pub workgroup_size: [u32; 3],
    pub invocations_per_workgroup: u32,
    /// Sum of the `var<workgroup>` globals this entry point uses (naga's layout).
    pub workgroup_memory_bytes: u64,
    /// The whole body, every loop body counted once.
    pub counts: OpCounts,
    /// True when the body has loops, so `counts` mixes straight-line code with single
    /// iterations of loops.
    pub counts_are_per_loop_iteration: bool,
    /// The whole body with loops of constant trip count (`for (var k = 0u; k < 16u; k++)`)
    /// multiplied out; loops bounded at run time still count one iteration.
    pub unrolled_counts: OpCounts,
    pub loop_count: u32,
    /// Trip count of each loop when it is a compile-time constant, innermost first.
    pub loop_trip_counts: Vec<Option<u64>>,
    /// 0 without loops, 1 for a single loop, 2 for a loop inside a loop, ...
    pub max_loop_depth: u32,
    /// One iteration of the most deeply nested loop (nested calls included), if any.
    pub innermost_loop: Option<OpCounts>,
    /// One iteration of the run-time-bounded loop doing the most arithmetic (a GEMM's
    /// K loop), constant inner loops multiplied out: the kernel's steady state.
    pub main_loop: Option<OpCounts>,
    /// The most barriers any loop executes per iteration outside its nested loops.
    pub max_barriers_per_loop_iteration: u64,
}

/// Adapter limits and roofline, as plain numbers, from which the targets are derived.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IsaLimits {
    pub max_workgroup_storage_bytes: u64,
    pub max_invocations_per_workgroup: u32,
    pub subgroup_size: u32,
    /// Peak FLOP/s divided by peak bytes/s of the adapter (the roofline's ridge point).
    pub ridge_point_flop_per_byte: f64,
}

/// The roofline's ridge point: FLOP per byte at which compute and memory peaks meet.
pub fn ridge_point(peak_tflops: f64, peak_gbps: f64) -> Option<f64> {
    (peak_tflops > 0.0 && peak_gbps > 0.0).then(|| peak_tflops * 1e12 / (peak_gbps * 1e9))
}

/// One `isa_metric_progress` entry of an iteration record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsaMetric {
    pub metric: String,
    /// The condition, in words and numbers (e.g. `<= 32768`).
    pub target: String,
    pub current: Option<f64>,
    pub met: Option<bool>,
}

/// At most two barriers per loop iteration: one after a tile is loaded into workgroup
/// memory and one before it is overwritten; double buffering needs only one.
pub const MAX_BARRIERS_PER_LOOP_ITERATION: u64 = 2;

impl OpCounts {
    /// Adds `other` counted `times` times (saturating).
    pub fn accumulate(&mut self, other: &OpCounts, times: u64) {
        self.storage_loads = self
            .storage_loads
            .saturating_add(other.storage_loads.saturating_mul(times));
        self.storage_load_bytes = self
            .storage_load_bytes
            .saturating_add(other.storage_load_bytes.saturating_mul(times));
        self.storage_stores = self
            .storage_stores
            .saturating_add(other.storage_stores.saturating_mul(times));
        self.storage_store_bytes = self
            .storage_store_bytes
            .saturating_add(other.storage_store_bytes.saturating_mul(times));
        self.uniform_loads = self
            .uniform_loads
            .saturating_add(other.uniform_loads.saturating_mul(times));
        self.workgroup_loads = self
            .workgroup_loads
            .saturating_add(other.workgroup_loads.saturating_mul(times));
        self.workgroup_stores = self
            .workgroup_stores
            .saturating_add(other.workgroup_stores.saturating_mul(times));
        self.atomics = self
            .atomics
            .saturating_add(other.atomics.saturating_mul(times));
        self.barriers = self
            .barriers
            .saturating_add(other.barriers.saturating_mul(times));
        self.float_ops = self
            .float_ops
            .saturating_add(other.float_ops.saturating_mul(times));
        self.integer_ops = self
            .integer_ops
            .saturating_add(other.integer_ops.saturating_mul(times));
    }

    /// Field by field, the larger of the two: what the costlier of two branches, only one
    /// of which runs, can cost.
    pub fn max(&self, other: &OpCounts) -> OpCounts {
        OpCounts {
            storage_loads: self.storage_loads.max(other.storage_loads),
            storage_load_bytes: self.storage_load_bytes.max(other.storage_load_bytes),
            storage_stores: self.storage_stores.max(other.storage_stores),
            storage_store_bytes: self.storage_store_bytes.max(other.storage_store_bytes),
            uniform_loads: self.uniform_loads.max(other.uniform_loads),
            workgroup_loads: self.workgroup_loads.max(other.workgroup_loads),
            workgroup_stores: self.workgroup_stores.max(other.workgroup_stores),
            atomics: self.atomics.max(other.atomics),
            barriers: self.barriers.max(other.barriers),
            float_ops: self.float_ops.max(other.float_ops),
            integer_ops: self.integer_ops.max(other.integer_ops),
        }
    }
}

/// Compare an entry point's metrics with targets derived from the adapter and roofline.
pub fn isa_metric_progress(metrics: &EntryMetrics, limits: &IsaLimits) -> Vec<IsaMetric> {
    let invocations = metrics.invocations_per_workgroup;
    let mut out = Vec::new();
    // Subgroups run in lock step: a workgroup that is not a whole number of subgroups
    // leaves lanes of its last subgroup idle.
    let subgroup = limits.subgroup_size.max(1);
    out.push(IsaMetric {
        metric: "workgroup_size_multiple_of_subgroup".into(),
        target: format!("multiple of {subgroup} (adapter subgroup size)"),
        current: Some(f64::from(invocations)),
        met: Some(invocations > 0 && invocations.is_multiple_of(subgroup)),
    });
    // A larger workgroup does not launch at all.
    out.push(IsaMetric {
        metric: "invocations_per_workgroup".into(),
        target: format!(
            "<= {} (adapter max_compute_invocations_per_workgroup)",
            limits.max_invocations_per_workgroup
        ),
        current: Some(f64::from(invocations)),
        met: Some(invocations <= limits.max_invocations_per_workgroup),
    });
    // More workgroup memory than the adapter has does not launch.
    out.push(IsaMetric {
        metric: "workgroup_memory_bytes".into(),
        target: format!(
            "<= {} (adapter max_compute_workgroup_storage_size)",
            limits.max_workgroup_storage_bytes
        ),
        current: Some(metrics.workgroup_memory_bytes as f64),
        met: Some(metrics.workgroup_memory_bytes <= limits.max_workgroup_storage_bytes),
    });
    // Roofline: a kernel can only be compute-bound if it performs at least ridge-point
    // FLOPs per byte it reads from global memory. Measured over one iteration of the main
    // loop (constant inner loops multiplied out), else over the whole body; code that
    // reads no global memory meets the target trivially and has no finite ratio.
    let ridge = limits.ridge_point_flop_per_byte;
    let steady = metrics.main_loop.unwrap_or(metrics.unrolled_counts);
    let (current, met) = if steady.storage_load_bytes > 0 {
        let ratio = steady.float_ops as f64 / steady.storage_load_bytes as f64;
        (Some(ratio), Some(ratio >= ridge))
    } else {
        (None, Some(steady.float_ops > 0))
    };
    out.push(IsaMetric {
        metric: "main_loop_flops_per_global_load_byte".into(),
        target: format!(">= {ridge:.2} (roofline ridge point, FLOP/byte)"),
        current,
        met,
    });
    out.push(IsaMetric {
        metric: "barriers_per_loop_iteration".into(),
        target: format!(
            "<= {MAX_BARRIERS_PER_LOOP_ITERATION} (one after loading a tile, one before reusing it)"
        ),
        current: Some(metrics.max_barriers_per_loop_iteration as f64),
        met: Some(metrics.max_barriers_per_loop_iteration <= MAX_BARRIERS_PER_LOOP_ITERATION),
    });
    out
}

/// What the device's driver made of a compiled entry point, as it reports it through
/// Vulkan's `VK_KHR_pipeline_executable_properties` (NVIDIA, AMD and Intel drivers, Mesa's
/// RADV and ANV; not lavapipe): registers per invocation, code size, spills, ... The names
/// and meanings are the driver's own, so they are kept as reported. Registers decide how
/// many workgroups share a multiprocessor, which naga's static counts cannot show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverStatistics {
    pub entry_point: String,
    /// One per executable the driver made of the pipeline (one for a compute pipeline).
    pub executables: Vec<DriverExecutable>,
    /// Why the statistics could not be read on an adapter that offers them (opening the
    /// second device, compiling, or the query failed), so that their absence says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The same for the forward entry point of `kernel.aligned`, where the kernel has one:
    /// aligned shapes run that pipeline, with its own registers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned: Option<Box<DriverStatistics>>,
}

impl DriverStatistics {
    /// The statistics of `entry_point` could not be read, for `reason`.
    pub fn unread(entry_point: &str, reason: impl Into<String>) -> DriverStatistics {
        DriverStatistics {
            entry_point: entry_point.to_owned(),
            executables: Vec::new(),
            error: Some(reason.into()),
            aligned: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverExecutable {
    pub name: String,
    pub description: String,
    /// The subgroup size the executable runs with (0 when the driver does not say).
    pub subgroup_size: u32,
    pub statistics: Vec<DriverStatistic>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverStatistic {
    pub name: String,
    pub description: String,
    pub value: StatisticValue,
}

/// A statistic's value in the driver's own type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StatisticValue {
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl std::fmt::Display for StatisticValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatisticValue::Bool(v) => write!(f, "{v}"),
            StatisticValue::Unsigned(v) => write!(f, "{v}"),
            StatisticValue::Signed(v) => write!(f, "{v}"),
            StatisticValue::Float(v) => write!(f, "{}", crate::units::sig(*v)),
        }
    }
}

impl StatisticValue {
    fn as_u64(self) -> Option<u64> {
        match self {
            StatisticValue::Unsigned(v) => Some(v),
            StatisticValue::Signed(v) => u64::try_from(v).ok(),
            StatisticValue::Float(v) if v >= 0.0 && v.fract() == 0.0 => Some(v as u64),
            _ => None,
        }
    }
}

/// A statistic's value for people. NVIDIA's driver reports "Local Memory Size" with bit 36
/// set above the byte count (2^36 = 68,719,476,736 for a kernel that spills nothing), so
/// the bytes are shown with the reported value beside them (docs/roofline.md, "What the
/// driver made of the kernel").
fn shown(s: &DriverStatistic) -> String {
    const FLAG: u64 = 1 << 36;
    match s.value {
        StatisticValue::Unsigned(v) if s.name == "Local Memory Size" && v & FLAG != 0 => {
            format!("{} (reported {v}: bit 36 set)", v & (FLAG - 1))
        }
        v => v.to_string(),
    }
}

impl DriverStatistics {
    /// Registers per invocation: the first statistic named like a register count (NVIDIA
    /// "Register Count"; AMD and RADV report "VGPRs" and "SGPRs", of which the vector
    /// registers are the ones occupancy depends on).
    pub fn registers(&self) -> Option<u64> {
        let stats = || self.executables.iter().flat_map(|e| &e.statistics);
        let named = |pred: &dyn Fn(&str) -> bool| {
            stats()
                .find(|s| pred(&s.name.to_ascii_lowercase()))
                .and_then(|s| s.value.as_u64())
        };
        named(&|n| n.contains("register"))
            .or_else(|| named(&|n| n.contains("vgpr") && !n.contains("spill")))
    }

    /// `Register Count 128, Binary Size 45312, ...`: every statistic of every executable,
    /// as the driver names them, on one line.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for e in &self.executables {
            for s in &e.statistics {
                parts.push(format!("{} {}", s.name, shown(s)));
            }
            if e.subgroup_size > 0 {
                parts.push(format!("subgroup size {}", e.subgroup_size));
            }
        }
        let general = if let Some(e) = &self.error {
            format!("not read: {e}")
        } else if parts.is_empty() {
            "the driver reported no statistics".to_owned()
        } else {
            parts.join(", ")
        };
        match &self.aligned {
            Some(a) => format!(
                "{general}; aligned shapes' entry point {}: {}",
                a.entry_point,
                a.summary()
            ),
            None => general,
        }
    }
}

#[cfg(test)]
mod driver_tests {
    use super::*;

    fn stats(pairs: &[(&str, StatisticValue)]) -> DriverStatistics {
        DriverStatistics {
            error: None,
            aligned: None,
            entry_point: "forward".into(),
            executables: vec![DriverExecutable {
                name: "Compute".into(),
                description: String::new(),
                subgroup_size: 32,
                statistics: pairs
                    .iter()
                    .map(|(name, value)| DriverStatistic {
                        name: (*name).into(),
                        description: String::new(),
                        value: *value,
                    })
                    .collect(),
            }],
        }
    }

    #[test]
    fn registers_are_read_under_the_names_drivers_give_them() {
        use StatisticValue::*;
        // NVIDIA (H200, driver 580).
        let nvidia = stats(&[
            ("Binary Size", Unsigned(40960)),
            ("Register Count", Unsigned(171)),
        ]);
        assert_eq!(nvidia.registers(), Some(171));
        // RADV: vector registers, not the scalar ones or the spills.
        let radv = stats(&[
            ("SGPRs", Unsigned(48)),
            ("Spilled VGPRs", Unsigned(0)),
            ("VGPRs", Unsigned(96)),
        ]);
        assert_eq!(radv.registers(), Some(96));
        assert_eq!(stats(&[("Instructions", Unsigned(9))]).registers(), None);
        assert_eq!(stats(&[("Register Count", Float(1.5))]).registers(), None);
    }

    #[test]
    fn the_summary_names_every_statistic_as_the_driver_does() {
        let s = stats(&[
            ("Register Count", StatisticValue::Unsigned(128)),
            ("Spills", StatisticValue::Bool(false)),
        ]);
        assert_eq!(
            s.summary(),
            "Register Count 128, Spills false, subgroup size 32"
        );
        let nvidia = stats(&[(
            "Local Memory Size",
            StatisticValue::Unsigned((1 << 36) + 32),
        )]);
        assert_eq!(
            nvidia.summary(),
            "Local Memory Size 32 (reported 68719476768: bit 36 set), subgroup size 32"
        );
        let empty = DriverStatistics {
            entry_point: "forward".into(),
            executables: vec![],
            error: None,
            aligned: None,
        };
        assert_eq!(empty.summary(), "the driver reported no statistics");
        let mut both = empty.clone();
        both.aligned = Some(Box::new(DriverStatistics {
            entry_point: "forward_aligned".into(),
            ..nvidia.clone()
        }));
        assert_eq!(
            both.summary(),
            "the driver reported no statistics; aligned shapes' entry point forward_aligned: \
             Local Memory Size 32 (reported 68719476768: bit 36 set), subgroup size 32"
        );
        let failed = DriverStatistics::unread("forward", "compiling the pipeline: ERROR_UNKNOWN");
        assert_eq!(
            failed.summary(),
            "not read: compiling the pipeline: ERROR_UNKNOWN"
        );
        assert_eq!(failed.registers(), None);
    }

    #[test]
    fn values_keep_their_type_through_json() {
        let s = stats(&[
            ("u", StatisticValue::Unsigned(68_719_476_768)),
            ("i", StatisticValue::Signed(-3)),
            ("f", StatisticValue::Float(2.5)),
            ("b", StatisticValue::Bool(true)),
        ]);
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains(r#""value":68719476768"#), "{text}");
        let back: DriverStatistics = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
    }
}
