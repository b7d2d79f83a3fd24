//! Ops: kernel ABI (bindings, uniforms, dispatch), CPU f64 references, FLOP/byte counts,
//! CSV columns.
//!
//! OWNER: gpu helper.
