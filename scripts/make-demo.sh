#!/usr/bin/env bash
# Rebuild campaigns/demo-gemm by running a short real campaign on the adapter wgpu picks
# (the software adapter on a machine without a GPU): BASELINE, two rounds of real changes,
# each accepted or rolled back as the gate decides, and an open round.
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
# The naive kernel with its transpose branches taken out of the k loop (on the software
# adapter round 2's 64x64 tiles lose at these sizes, and the naive kernel stays the incumbent).
"$KCAMP" -C "$DEMO" round new --hypothesis "pick the operands' strides once: no branch inside the k loop"
rm -f "$DEMO/kernel/kernel.yaml"
python3 - "$DEMO/kernel/gemm.wgsl" <<'PY'
import sys
src = open("shaders/gemm_naive.wgsl").read()
start = src.index("    var acc = 0.0;")
end = src.index("    c[batch * params.m")
loop = """    // The strides are picked once, so the loop body has no branch.
    var ai = a_base + row * params.k;
    var a_step = 1u;
    if (params.trans_a == 1u) {
        ai = a_base + row;
        a_step = params.m;
    }
    var bi = b_base + col;
    var b_step = params.n;
    if (params.trans_b == 1u) {
        bi = b_base + col * params.k;
        b_step = 1u;
    }
    var acc = 0.0;
    for (var p = 0u; p < params.k; p = p + 1u) {
        acc = fma(a[ai], b[bi], acc);
        ai = ai + a_step;
        bi = bi + b_step;
    }
"""
open(sys.argv[1], "w").write(src[:start] + loop + src[end:])
PY
# accept exits 1 when the confirming full validation overturns a small quick gain.
if "$KCAMP" -C "$DEMO" validate; then
  "$KCAMP" -C "$DEMO" accept || true
else
  "$KCAMP" -C "$DEMO" rollback --reason "the gate did not accept it on this adapter: see the round's gate report"
fi
"$KCAMP" -C "$DEMO" round new --hypothesis "unroll the inner k loop by 4"
rm -f "$DEMO/.kcamp.lock"
"$KCAMP" -C "$DEMO" log
