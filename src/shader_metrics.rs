//! Static shader metrics from naga (SPEC §8 `isa_metric_progress`).
//!
//! OWNER: records helper.
