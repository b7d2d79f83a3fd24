//! Integration tests on real WGSL kernels through wgpu: the runtime itself, and the real
//! binary measuring with its built-in runner (Mesa's lavapipe in CI: scripts/ensure-driver.sh
//! installs it, and these tests fail without an adapter). A few tests of `cancel`, `orphans`
//! and `shipped_kernels` use a harness or no kernel at all; they sit beside the GPU tests
//! of the same behaviour.
//!
//! One binary for every module: each test binary links the whole workspace, wgpu included,
//! so a binary per file made the build of the tests slow. Helpers shared with the `cli` and
//! `dashboard` binaries live in tests/common/.
//!
//! Every module here computes on the software adapter, which runs on the CPU. Slowest:
//! `campaign` (whole BASELINEs and validations, peaks measured, a case run past its timeout)
//! and `verdicts` (validations on two backends, Vulkan and GL); `orphans` and `cancel` wait
//! for a worker busy in a large GEMM; `mcp` drives a whole campaign through `kcamp mcp` from
//! the Python `mcp` SDK.

#[path = "../common/mod.rs"]
mod common;

mod adapters;
mod campaign;
mod cancel;
mod environment;
mod held_out;
mod mcp;
mod orphans;
mod runtime;
mod shards;
mod shipped_kernels;
mod slurm;
mod verdicts;
