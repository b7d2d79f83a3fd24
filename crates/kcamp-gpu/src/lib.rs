//! kcamp-gpu: the wgpu runtime. Adapters, device, kernel compilation, timing, one benchmark
//! case, the adapter's peak ceilings and naga's static metrics of a kernel.
//!
//! Entry points: [`list_adapters`], [`GpuContext::open`], [`execute_case`] (and the
//! worker's [`executor`]), [`peak::measure`] and [`shader_metrics`]. Nothing here panics on user input: a kernel that fails to compile,
//! reads out of bounds or computes wrong numbers becomes a `CaseOutcome` with `FAIL`;
//! shapes beyond the adapter's limits and wgpu failures become `ERROR`.
//!
//! # How a case is measured
//! 1. Inputs: generated on the device in place by a counter-based generator
//!    (`kcamp_core::ops::inputs`, `inputs.wgsl`: each value a function of seed, buffer and
//!    index, exact in the dtype); the host computes only the values its references read.
//! 2. Compilation: naga parses and validates first (errors read `file:line:col: message`);
//!    then the device compiles inside an error scope, with runtime bounds checks unless
//!    `kernel.trusted` (recorded in `CaseOutcome.trusted`).
//! 3. Correctness: one dispatch per pass into an output pre-filled with NaN, compared with the
//!    f64 reference (exact below 2·10⁸ multiply-adds, else 4096 seeded entries plus corners).
//! 4. Timing: warm-up, then dispatches per sample grow until a sample lasts
//!    `timing.min_sample_ms`; `timing.repeats` samples. Each dispatch is its own compute
//!    pass; with TIMESTAMP_QUERY the pass's begin/end timestamps are summed (copies between
//!    passes are not timed), else the host clock spans submit → device wait. Outputs rotate
//!    over 2–64 buffers, each re-filled with NaN by a copy before every use, and the buffers
//!    written by the last timed command buffer are verified like the first output.
//! 5. Memory-bound ops also copy an L2-flush buffer (256 MiB; 32 MiB on software adapters)
//!    before every timed dispatch, outside the timed pass; `metrics["l2_flush_bytes"]`.
//!
//! Besides the CSV columns, `CaseOutcome.metrics` carries `<Step> Time (ms)_stddev`,
//! `<Step> Time (ms)_median`, `<Step> dispatches per sample` and (axpy) `l2_flush_bytes`.
//! SNR of an exact output is reported as [`kcamp_core::ops::verify::EXACT_SNR_DB`]; an output
//! with NaN/Inf has no SNR cell and `rel_err = None`, since JSON carries no infinities.

mod adapters;
mod case;
mod compile;
mod context;
mod driver_stats;
mod executor;
mod inputs;
pub mod peak;
pub mod shader_metrics;
mod timing;
mod warmup;

pub use adapters::{AdapterFeatures, AdapterReport, ComputeLimits, CooperativeMatrixConfig};
pub use case::execute_case;
pub use context::GpuContext;
pub use executor::executor;
pub use inputs::generated_bytes;

/// The wgpu major version kcamp is built against (the workspace's `wgpu = "30"`; a unit
/// test keeps the two in step, since Cargo exposes no dependency versions to the code).
pub const WGPU_VERSION: &str = "30";

/// Every adapter wgpu finds on every backend, with the features and limits that matter.
pub fn list_adapters() -> Vec<AdapterReport> {
    context::enumerate()
        .iter()
        .map(AdapterReport::from_adapter)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgpu_version_matches_cargo_toml() {
        let toml = include_str!("../../../Cargo.toml");
        let line = toml
            .lines()
            .find(|l| l.starts_with("wgpu = "))
            .expect("wgpu dependency line");
        assert_eq!(line, format!("wgpu = \"{WGPU_VERSION}\""));
    }
}
