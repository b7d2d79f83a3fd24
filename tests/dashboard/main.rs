//! Integration tests of the dashboard: every screen drawn through ratatui's TestBackend and
//! compared with its insta snapshot in tests/dashboard/snapshots/
//! (`dashboard__screens__<name>.snap`), and the real binary driven in tmux.
//!
//! One binary for both: each test binary links the whole workspace, wgpu included, so a
//! binary per file made the build of the tests slow. Helpers shared with the `cli` and `gpu`
//! binaries live in tests/common/.
//!
//! Slow: `tmux_e2e`, which runs validations on the software adapter from the dashboard and
//! waits for their processes to end; it needs tmux (skipped without it outside CI).

#[path = "../common/mod.rs"]
mod common;

mod screens;
mod tmux_e2e;
