#!/usr/bin/env bash
# Rebuild campaigns/demo-gemm by running a short real campaign on the adapter wgpu picks
# (the software adapter on a machine without a GPU): BASELINE, an accepted round, a
# rejected round that is rolled back, and an open round.
set -euo pipefail
cd "$(dirname "$0")/.."
KCAMP="${KCAMP:-target/release/kcamp}"
DEMO=campaigns/demo-gemm
rm -rf "$DEMO"
"$KCAMP" init "$DEMO" --op gemm --dtype f32 --shapes campaigns/demo-shapes.yaml --name demo-gemm
# The demo lives inside this repository: its rounds must not become commits of kcamp.
sed -i 's/^git_commit: true/git_commit: false/; s/^  repeats: 10/  repeats: 6/' "$DEMO/manifest.yaml"
# The adapter's own ceilings, for utilization and the roofline floor (stored in peaks.json).
"$KCAMP" -C "$DEMO" peak
"$KCAMP" -C "$DEMO" baseline
"$KCAMP" -C "$DEMO" round new --hypothesis "stage 64x64 tiles in workgroup memory, 4x4 outputs per invocation"
cp shaders/gemm_tiled.wgsl "$DEMO/kernel/gemm.wgsl"
cat > "$DEMO/kernel/kernel.yaml" <<'YAML'
file: gemm.wgsl
entry_points: {forward: main}
workgroups: {x: ceil(N/64), y: ceil(M/64), z: B}
YAML
# accept exits 1 when the confirming full validation overturns a small quick gain.
if "$KCAMP" -C "$DEMO" validate; then
  "$KCAMP" -C "$DEMO" accept || true
else
  "$KCAMP" -C "$DEMO" rollback --reason "the gate rejected the tiled kernel on this adapter"
fi
"$KCAMP" -C "$DEMO" round new --hypothesis "back to one invocation per output: simpler code for the shader compiler"
cp shaders/gemm_naive.wgsl "$DEMO/kernel/gemm.wgsl"
rm -f "$DEMO/kernel/kernel.yaml"
# accept exits 1 when the confirming full validation overturns a small quick gain.
if "$KCAMP" -C "$DEMO" validate; then
  "$KCAMP" -C "$DEMO" accept || true
else
  "$KCAMP" -C "$DEMO" rollback --reason "slower than the incumbent on every shape"
fi
"$KCAMP" -C "$DEMO" round new --hypothesis "unroll the inner k loop by 4"
rm -f "$DEMO/.kcamp.lock"
"$KCAMP" -C "$DEMO" log
