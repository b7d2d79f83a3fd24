#!/usr/bin/env bash
# Open the dashboard on a scratch copy of the bundled demo campaign (campaigns/demo-gemm),
# so validating, accepting or rolling back in the demo never changes the repository's
# files. When wgpu finds no adapter at all, installs Mesa's software Vulkan driver
# (lavapipe) first.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if [ "$(target/release/kcamp adapters --json 2>/dev/null | tr -d '[:space:]')" = "[]" ]; then
  scripts/ensure-driver.sh
fi
scratch="$(mktemp -d "${TMPDIR:-/tmp}/kcamp-demo-XXXXXX")"
cp -R campaigns/demo-gemm "$scratch/demo-gemm"
rm -f "$scratch/demo-gemm/.kcamp.lock"
echo "demo: a scratch copy of campaigns/demo-gemm in $scratch/demo-gemm (the repository stays untouched)"
echo "      afterwards: target/release/kcamp -C $scratch/demo-gemm status"
exec target/release/kcamp tui "$scratch/demo-gemm" "$@"
