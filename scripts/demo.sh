#!/usr/bin/env bash
# Open the dashboard on the bundled demo campaign (campaigns/demo-gemm). Installs Mesa's
# software Vulkan driver first when wgpu would find no adapter.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-driver.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cargo build --release --locked
exec target/release/kcamp tui campaigns/demo-gemm "$@"
