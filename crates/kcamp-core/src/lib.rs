//! kcamp-core: the campaign engine, with neither a GPU nor a terminal.
//!
//! Data flows one way: a measurement (the built-in runner or an external harness, behind
//! [`campaign::Measurer`]) writes a frozen-schema CSV; the [`gate`] judges it against the
//! incumbent; the [`campaign`] records the decision; views (CLI, dashboard, reports) only
//! read that state.

pub mod analysis;
pub mod artifacts;
pub mod campaign;
pub mod case;
pub mod error;
pub mod executor;
pub mod files;
pub mod fsutil;
pub mod gate;
pub mod held_out;
pub mod host;
pub mod inputs;
pub mod isa;
pub mod kernel_spec;
pub mod kernels;
pub mod manifest;
pub mod memory;
pub mod next;
pub mod ops;
pub mod plausibility;
pub mod schema;
pub mod specs;
pub mod stats;
pub mod text;
pub mod types;
pub mod units;

pub use error::{Error, Result};
