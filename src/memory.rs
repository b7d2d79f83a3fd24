//! Iteration records `memory/v<N>.json` (SPEC §8).
//!
//! OWNER: records helper.
