#!/usr/bin/env bash
# Open the dashboard on the bundled demo campaign (campaigns/demo-gemm). When wgpu finds no
# adapter at all, installs Mesa's software Vulkan driver (lavapipe) first.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ "$(target/release/kcamp adapters --json 2>/dev/null | tr -d '[:space:]')" = "[]" ]; then
  scripts/ensure-driver.sh
fi
exec target/release/kcamp tui campaigns/demo-gemm "$@"
