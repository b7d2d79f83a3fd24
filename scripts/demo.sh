#!/usr/bin/env bash
# Open the dashboard on a scratch copy of a bundled campaign (default campaigns/demo-gemm;
# `scripts/demo.sh h200-sgemm-f32` or `h200-hgemm-f16` for the campaigns recorded on an H200),
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
name=demo-gemm
if [ $# -gt 0 ] && [ -f "campaigns/$1/manifest.yaml" ]; then name="$1"; shift; fi
scratch="$(mktemp -d "${TMPDIR:-/tmp}/kcamp-demo-XXXXXX")"
cp -R "campaigns/$name" "$scratch/$name"
rm -f "$scratch/$name/.kcamp.lock"
echo "demo: a scratch copy of campaigns/$name in $scratch/$name (the repository stays untouched)"
case "$name" in h200-*) echo "      recorded on an NVIDIA H200: browse it here; validating it needs that GPU" ;; esac
echo "      afterwards: target/release/kcamp -C $scratch/$name status"
exec target/release/kcamp tui "$scratch/$name" "$@"
