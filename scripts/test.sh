#!/usr/bin/env bash
# Run every test: format and lint checks, unit tests, integration tests driving the real
# binary, GPU tests on the software adapter, dashboard snapshots and the tmux end-to-end test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-driver.sh tmux git
# Silence Mesa's runtime-dir warning; where no real GPU driver is installed, pin lavapipe.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ -z "${VK_DRIVER_FILES:-}" ] && ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1; then
  VK_DRIVER_FILES="$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -n1)"
  export VK_DRIVER_FILES
fi
cargo fmt --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --all-targets --locked
