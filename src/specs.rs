//! GPU spec registry, utilization and roofline (SPEC §9).
//!
//! OWNER: runner helper.
