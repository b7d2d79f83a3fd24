//! wgpu runtime: adapters, device, kernel compilation, timing and case execution.
//!
//! OWNER: gpu helper.
//!
//! Entry points: [`list_adapters`], [`GpuContext::open`], [`execute_case`] and
//! [`peak::measure`]. Nothing here panics on user input: a kernel that fails to compile,
//! reads out of bounds or computes wrong numbers becomes a `CaseOutcome` with `FAIL`;
//! shapes beyond the adapter's limits and wgpu failures become `ERROR`.

mod adapters;
mod case;
mod compile;
mod context;
pub mod peak;
mod timing;

pub use adapters::{AdapterFeatures, AdapterReport, ComputeLimits, CooperativeMatrixConfig};
pub use case::execute_case;
pub use context::GpuContext;

/// Every adapter wgpu finds on every backend, with the features and limits that matter.
pub fn list_adapters() -> Vec<AdapterReport> {
    context::enumerate()
        .iter()
        .map(AdapterReport::from_adapter)
        .collect()
}
