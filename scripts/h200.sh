#!/usr/bin/env bash
# Measure kcamp on an NVIDIA H200 against PyTorch references in the same run.
# Builds nothing: run it from the repository root with a prebuilt binary.
#   scripts/h200.sh [path/to/kcamp]     (default target/release/kcamp)
# Writes JSON results under $OUT (default /tmp/kcamp-h200) and prints one table last.
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
OUT="${OUT:-/tmp/kcamp-h200}"
mkdir -p "$OUT"
WORK="$(mktemp -d)"
ROOT="$(pwd)"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# ADAPTER, GEMM_SHAPES and AXPY_SHAPES let the same script run a small rehearsal elsewhere.
sel=(--adapter "${ADAPTER:-H200}")
GEMM_SHAPES="$(realpath "${GEMM_SHAPES:-campaigns/h200/gemm_shapes.yaml}")"
AXPY_SHAPES="$(realpath "${AXPY_SHAPES:-campaigns/h200/axpy_shapes.yaml}")"

"$KCAMP" adapters "${sel[@]}" --json > "$OUT/adapters.json"
"$KCAMP" peak "${sel[@]}" --json > "$OUT/peak.json"

# GEMM: the bundled naive baseline kernel, full validation (BASELINE), GPU timestamps.
"$KCAMP" init "$WORK/gemm" --op gemm --dtype f32 --shapes "$GEMM_SHAPES" --json > /dev/null
"$KCAMP" -C "$WORK/gemm" baseline "${sel[@]}" --json > "$OUT/gemm_baseline.json"
cp "$WORK/gemm/rounds/round-1/artifacts/benchmark.csv" "$OUT/gemm_naive.csv"
# The same kernel timed with the host clock after a full device wait.
"$KCAMP" -C "$WORK/gemm" round new --hypothesis "host-clock timing of the same kernel" --json > /dev/null
KCAMP_TIMING=host "$KCAMP" -C "$WORK/gemm" validate --full "${sel[@]}" --json > "$OUT/gemm_hostclock.json" || true
cp "$WORK/gemm/rounds/round-2/artifacts/benchmark.csv" "$OUT/gemm_naive_hostclock.csv"
"$KCAMP" -C "$WORK/gemm" rollback --reason "timing comparison only" --json > /dev/null
# A 64x64-tiled kernel as a round, checked and trusted (no runtime bounds checks).
"$KCAMP" -C "$WORK/gemm" round new --hypothesis "64x64 tiles in workgroup memory" --json > /dev/null
cp "$ROOT/shaders/gemm_tiled.wgsl" "$WORK/gemm/kernel/gemm.wgsl"
sed -i 's|x: ceil(N/16)|x: ceil(N/64)|; s|y: ceil(M/16)|y: ceil(M/64)|' "$WORK/gemm/manifest.yaml"
"$KCAMP" -C "$WORK/gemm" validate --full "${sel[@]}" --json > "$OUT/gemm_tiled.json" || true
cp "$WORK/gemm/rounds/round-3/artifacts/benchmark.csv" "$OUT/gemm_tiled.csv"
sed -i 's|trusted: false|trusted: true|' "$WORK/gemm/manifest.yaml"
"$KCAMP" -C "$WORK/gemm" validate --full "${sel[@]}" --json > "$OUT/gemm_tiled_trusted.json" || true
cp "$WORK/gemm/rounds/round-3/artifacts/benchmark.csv" "$OUT/gemm_tiled_trusted.csv"

# Memory-bound: axpy baseline.
"$KCAMP" init "$WORK/axpy" --op axpy --dtype f32 --shapes "$AXPY_SHAPES" --json > /dev/null
"$KCAMP" -C "$WORK/axpy" baseline "${sel[@]}" --json > "$OUT/axpy_baseline.json"
cp "$WORK/axpy/rounds/round-1/artifacts/benchmark.csv" "$OUT/axpy.csv"

# References in the same run: torch device-to-device copy and fp32 SGEMM with TF32 off.
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
python3 - "$OUT" <<'PY'
import json, sys, torch
out = sys.argv[1]
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
def bench(fn, reps=20, warm=3):
    for _ in range(warm): fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps): fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / reps
ref = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
n = 1 << 28  # 1 GiB of f32
x = torch.randn(n, device=dev); y = torch.empty_like(x)
ms = bench(lambda: y.copy_(x))
ref["copy_gbps"] = 2 * n * 4 / (ms * 1e-3) / 1e9
a_ = torch.randn(n // 4, device=dev); b_ = torch.randn(n // 4, device=dev); o_ = torch.empty_like(a_)
ms = bench(lambda: torch.add(b_, a_, alpha=1.5, out=o_))
ref["axpy_gbps"] = 3 * (n // 4) * 4 / (ms * 1e-3) / 1e9
gemm = {}
for label, (bt, m, nn, k) in {"sq1024": (1, 1024, 1024, 1024), "sq2048": (1, 2048, 2048, 2048), "sq4096": (1, 4096, 4096, 4096),
                              "tall8192": (1, 8192, 1024, 1024), "batch8x512": (8, 512, 512, 512)}.items():
    A = torch.randn(bt, m, k, device=dev); B = torch.randn(bt, k, nn, device=dev)
    ms = bench(lambda: torch.bmm(A, B))
    gemm[label] = 2 * bt * m * nn * k / (ms * 1e-3) / 1e12
ref["sgemm_tflops"] = gemm
json.dump(ref, open(f"{out}/torch.json", "w"), indent=1)
PY
else
  echo '{"device": "no CUDA torch here", "torch": "-", "copy_gbps": null, "axpy_gbps": null, "sgemm_tflops": {}}' > "$OUT/torch.json"
fi

python3 - "$OUT" <<'PY'
import csv, json, sys, math
out = sys.argv[1]
ref = json.load(open(f"{out}/torch.json"))
peak = json.load(open(f"{out}/peak.json"))
def rows(name):
    try:
        return {r["label"]: r for r in csv.DictReader(open(f"{out}/{name}"))}
    except FileNotFoundError:
        return {}
naive, host, tiled, trusted, axpy = (rows(f) for f in ("gemm_naive.csv", "gemm_naive_hostclock.csv", "gemm_tiled.csv", "gemm_tiled_trusted.csv", "axpy.csv"))
def f(r, col):
    try:
        v = float(r[col]); return v if math.isfinite(v) else None
    except (KeyError, ValueError, TypeError):
        return None
print(f"\nkcamp on {ref['device']} (wgpu/Vulkan, GPU timestamps unless noted) vs torch {ref['torch']} in the same run")
print(f"{'measurement':<44}{'kcamp':>12}{'reference':>12}{'ratio':>8}")
def line(what, k, r, unit):
    ratio = f"{k / r:.2f}" if k and r else "-"
    ks = f"{k:.3g}" if k else "-"; rs = f"{r:.3g}" if r else "-"
    print(f"{what + ' (' + unit + ')':<44}{ks:>12}{rs:>12}{ratio:>8}")
meas = peak.get("measurement", {})
line("kcamp peak copy kernel vs torch d2d copy", meas.get("copy", {}).get("gbps"), ref["copy_gbps"], "GB/s")
line("kcamp peak FMA chain f32 (no reference)", (meas.get("fma_f32") or {}).get("tflops"), None, "TFLOP/s")
line("kcamp peak FMA chain f16 (no reference)", (meas.get("fma_f16") or {}).get("tflops"), None, "TFLOP/s")
for lab, r in axpy.items():
    line(f"axpy {lab} vs torch add(alpha)", f(r, "Forward GB/s"), ref["axpy_gbps"], "GB/s")
for lab in ref["sgemm_tflops"]:
    c = ref["sgemm_tflops"][lab]
    line(f"naive GEMM fwd {lab} vs cuBLAS fp32", f(naive.get(lab, {}), "Forward TFLOPS"), c, "TFLOP/s")
    line(f"tiled GEMM fwd {lab} vs cuBLAS fp32", f(tiled.get(lab, {}), "Forward TFLOPS"), c, "TFLOP/s")
    line(f"tiled trusted fwd {lab} vs cuBLAS fp32", f(trusted.get(lab, {}), "Forward TFLOPS"), c, "TFLOP/s")
print(f"\n{'naive GEMM forward ms':<20}{'timestamps':>12}{'host clock':>12}{'host/ts':>9}")
for lab, r in naive.items():
    t, h = f(r, "Forward Time (ms)"), f(host.get(lab, {}), "Forward Time (ms)")
    print(f"{lab:<20}{(t or 0):>12.4f}{(h or 0):>12.4f}{(h / t if t and h else 0):>9.3f}")
PY
