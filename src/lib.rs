//! kcamp: GPU-kernel optimization campaigns.
//!
//! Data flows one way: a run (built-in wgpu runner or an external harness) writes a
//! frozen-schema CSV; the gate judges it against the incumbent; the campaign records the
//! decision; the dashboard only reads that state and sends commands.

pub mod campaign;
pub mod cli;
pub mod error;
pub mod fsutil;
pub mod gate;
pub mod gpu;
pub mod manifest;
pub mod memory;
pub mod ops;
pub mod report;
pub mod runner;
pub mod schema;
pub mod shader_metrics;
pub mod specs;
pub mod stats;
pub mod tui;

pub use error::{Error, Result};
