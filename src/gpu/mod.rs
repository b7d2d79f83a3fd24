//! wgpu runtime: adapters, device, kernel compilation, timing and case execution.
//!
//! OWNER: gpu helper.
