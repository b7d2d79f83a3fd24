#!/usr/bin/env bash
# Kernel versions side by side on the H200: each through `kcamp run` (a campaign of its own,
# the shapes given), with the driver's statistics of its forward entry point (registers per
# invocation, ...: `driver_statistics` in result.json) and cuBLAS through PyTorch on the same
# shapes in the same run. For exploring before a version becomes a campaign round.
#   scripts/h200/explore.sh KCAMP SHAPES.yaml LINEAGE/VERSION ...
#   (LINEAGE: sgemm-f32 or hgemm-f16; VERSION as scripts/h200/versions.sh names it)
# Writes $OUT/explore/<lineage>-<version>.json and $OUT/explore.txt, which it prints last;
# with IR_DIR, the driver's internal representations of each version's forward entry point.
# Rehearsal on the software adapter: ADAPTER=llvmpipe and scripts/h200/rehearsal-shapes.yaml
# (cooperative-matrix versions then FAIL to compile: lavapipe has no cooperative matrices;
# gen_hgemm.py's `emu` build rehearses their indexing).
set -euo pipefail
KCAMP="$(realpath "$1")"; SHAPES="$(realpath "$2")"; shift 2
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mkdir -p "${OUT:-/tmp/kcamp-h200}/explore" && cd "${OUT:-/tmp/kcamp-h200}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
"$HERE/versions.sh" "$WORK/v" > /dev/null
if [ ! -f "$OUT/torch.json" ] && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  python3 "$HERE/torch_ref.py" "$OUT" "$SHAPES" > /dev/null || echo "torch references failed" >&2
fi
for lv in "$@"; do
  lineage="${lv%%/*}"; version="${lv#*/}"
  dtype=f32; [ "$lineage" = hgemm-f16 ] && dtype=f16
  c="$WORK/c-$lineage-$version"
  "$KCAMP" init "$c" --op gemm --dtype "$dtype" --shapes "$SHAPES" --json > /dev/null
  sed -i "s/^adapter: {}/adapter: {name: '${ADAPTER:-H200}'}/; s/^git_commit: .*/git_commit: false/" "$c/manifest.yaml"
  sed -i "s/^  warmup: .*/  warmup: 10\n  warmup_ms: 300/" "$c/manifest.yaml"
  rm -f "$c"/kernel/*
  cp "$WORK/v/$lineage/$version/gemm.wgsl" "$WORK/v/$lineage/$version/kernel.yaml" "$c/kernel/"
  echo "[explore $(date +%T)] $lineage/$version" >&2
  # IR_DIR: also keep whatever internal representations the driver offers, per version.
  ir=(); [ -n "${IR_DIR:-}" ] && ir=(env "KCAMP_DRIVER_IR_DIR=$IR_DIR/$lineage-$version")
  "${ir[@]}" "$KCAMP" -C "$c" run --shapes full --json > "$OUT/explore/$lineage-$version.json" 2> /dev/null || true
done
python3 - "$OUT" "$@" > "$OUT/explore.txt" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
torch = {}
try:
    torch = json.load(open(os.path.join(out, "torch.json"))).get("gemm_tflops", {})
except (OSError, ValueError):
    pass
print("kcamp run per version: Forward TFLOP/s per shape (GPU timestamps, warm-up >= 300 ms, 10 repeats);")
print("driver: the forward entry point's statistics as the driver reports them (Vulkan pipeline executable properties)")
rows = []
for lv in names:
    lineage, version = lv.split("/", 1)
    try:
        d = json.load(open(os.path.join(out, "explore", f"{lineage}-{version}.json")))
    except (OSError, ValueError):
        rows.append((lv, "no result", "", "")); continue
    r = d.get("result") or {}
    cells = []
    for s in r.get("shapes", []):
        b, m, n, k = s["dims"]
        us = s.get("latency_us")
        # The CSV's Forward TFLOPS: the forward FLOPs over the mean forward latency.
        v = 2 * b * m * n * k / (us * 1e-6) / 1e12 if us else None
        dt = "fp16" if lineage.startswith("hgemm") else "fp32"
        ref = torch.get(f"{dt}/{s['label']}")
        if s.get("check") != "PASS" or v is None:
            cells.append(f"{s['label']} {s.get('check')}")
        else:
            cells.append(f"{s['label']} {v:.3g}" + (f" ({v / ref:.2f}x)" if ref else ""))
    ds = r.get("driver_statistics") or {}
    stats = []
    for e in ds.get("executables", []):
        stats += [f"{st['name']}={st['value']}" for st in e.get("statistics", [])]
    rows.append((lv, "; ".join(cells), ", ".join(stats) or "no driver statistics", ""))
for lv, cells, stats, _ in rows:
    print(f"{lv}\n    {cells}\n    driver: {stats}")
if torch:
    print("torch (cuBLAS) same run: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(torch.items())))
PY
cat "$OUT/explore.txt"
