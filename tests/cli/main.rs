//! Integration tests that need no GPU: the real binary on CSVs from an external harness
//! (tests/fixtures), and the runner against fake workers that speak the line protocol.
//!
//! One binary for every module: each test binary links the whole workspace, wgpu included,
//! so a binary per file made the build of the tests slow. Helpers shared with the `gpu` and
//! `dashboard` binaries live in tests/common/; insta keeps this binary's snapshots in
//! tests/cli/snapshots/ (`cli__<module>__<name>.snap`).
//!
//! Slow: `crash_safety`, which kills the binary before each of its file-system steps in turn
//! and replays the command after every kill, and `fault_sweep`, which makes file-system calls
//! fail. Leave them out while iterating with
//! `cargo test --test cli -- --skip crash_safety:: --skip fault_sweep::`.

#[path = "../common/mod.rs"]
mod common;

mod campaign;
mod crash_safety;
mod environment;
mod fault_sweep;
mod gate;
mod harness;
mod held_out;
mod history;
mod hostile_input;
mod integrity;
mod mcp;
mod memory;
mod reading;
mod records;
mod runner_campaign;
mod runner_isolation;
mod torch_starter;
mod util;
mod verdicts;
