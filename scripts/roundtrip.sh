#!/usr/bin/env bash
# An agent's round trip: where the time of one quick validation goes, and the verdicts of an
# unchanged and of a faster kernel, for one or two kcamp binaries in the same sitting (a
# "before" build and an "after" build: each measures its own BASELINE and both rounds). A
# quick validation times the 3 representative shapes (paired with the incumbent's snapshot)
# and checks the 3 other target shapes untimed. Prints, per binary and round: the verdict,
# the gate's aggregate Δ, the wall time of `kcamp validate` and the run's time breakdown
# (`time_breakdown` in result.json; a build without it prints the wall time alone).
#   scripts/roundtrip.sh KCAMP [KCAMP_BEFORE]
# Shapes and kernels: 4096-class GEMMs, f32, gemm_sgemm_128x128_bk16 as the BASELINE and
# gemm_sgemm_128x128_aligned as the faster kernel (an H200: docs/performance.md). SMALL=1:
# 128- to 256-class shapes, gemm_naive then gemm_tiled, for a rehearsal on the software adapter.
# ADAPTER / BACKEND pick the adapter (passed to every measuring command).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
AFTER="$(realpath "${1:?usage: scripts/roundtrip.sh KCAMP [KCAMP_BEFORE]}")"
BEFORE="${2:+$(realpath "$2")}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
sel=()
[ -n "${ADAPTER:-}" ] && sel+=(--adapter "$ADAPTER")
[ -n "${BACKEND:-}" ] && sel+=(--backend "$BACKEND")

if [ "${SMALL:-0}" = 1 ]; then
  BASE_KERNEL=gemm_naive FAST_KERNEL=gemm_tiled
  cat > "$WORK/shapes.yaml" <<'YAML'
- {label: s192, M: 192, N: 192, K: 192}
- {label: r256x192x128, M: 256, N: 192, K: 128}
- {label: s160, M: 160, N: 160, K: 160}
- {label: b2s128, B: 2, M: 128, N: 128, K: 128}
- {label: r96x384x192, M: 96, N: 384, K: 192}
- {label: s176, M: 176, N: 176, K: 176}
YAML
  REPS="['s192', 'r256x192x128', 's160']"
else
  BASE_KERNEL=gemm_sgemm_128x128_bk16 FAST_KERNEL=gemm_sgemm_128x128_aligned
  cat > "$WORK/shapes.yaml" <<'YAML'
- {label: s4096, M: 4096, N: 4096, K: 4096}
- {label: r4096x2048x4096, M: 4096, N: 2048, K: 4096}
- {label: r2048x4096x4096, M: 2048, N: 4096, K: 4096}
- {label: r4096x4096x2048, M: 4096, N: 4096, K: 2048}
- {label: b2s2048, B: 2, M: 2048, N: 2048, K: 2048}
- {label: r4096x3072x4096, M: 4096, N: 3072, K: 4096}
YAML
  REPS="['s4096', 'r4096x2048x4096', 'r2048x4096x4096']"
fi

# The faster kernel, as its files would be in kernel/: the shipped WGSL and its settings.
mkdir -p "$WORK/fast"
cp "$ROOT/shaders/$FAST_KERNEL.wgsl" "$WORK/fast/gemm.wgsl"
if [ -f "$ROOT/shaders/$FAST_KERNEL.kernel.yaml" ]; then
  sed 's/^file: .*/file: gemm.wgsl/' "$ROOT/shaders/$FAST_KERNEL.kernel.yaml" > "$WORK/fast/kernel.yaml"
fi

# report NAME KERNEL JSON WALL_S: one line per validation.
report() {
  python3 - "$@" <<'PY'
import json, sys
name, kernel, path, wall = sys.argv[1:5]
doc = json.load(open(path))
if "error" in doc:
    print(f"{name:7} {kernel:10} error: {doc['error']['message'].splitlines()[0]}")
    sys.exit(0)
delta = doc["report"]["aggregate"].get("delta")
line = f"{name:7} {kernel:10} {doc['report']['verdict']:16} {'-' if delta is None else f'{delta*100:+.2f}%':>8}  wall {float(wall):6.2f} s"
t = doc.get("time_breakdown")
if t:
    phases = sorted(t["phases_ms"].items(), key=lambda kv: -kv[1])
    line += f"  cases {t['wall_ms']/1e3:.2f} s, {t['workers_started']} workers: " + ", ".join(
        f"{k} {v/1e3:.2f} s" for k, v in phases if v >= 5)
print(line)
PY
}

# rounds NAME KCAMP: a BASELINE, then a round with the kernel unchanged and one with the
# faster kernel, each validated once (quick) and rolled back.
rounds() {
  local name="$1" kcamp="$2" dir="$WORK/$1" t0 t1
  "$kcamp" init "$dir" --op gemm --dtype f32 --kernel "$BASE_KERNEL" --shapes "$WORK/shapes.yaml" --json > /dev/null
  sed -i 's/^git_commit: true/git_commit: false/' "$dir/manifest.yaml"
  sed -i "s/^representative_shapes: \[\]/representative_shapes: $REPS/" "$dir/manifest.yaml"
  "$kcamp" -C "$dir" baseline --no-peak "${sel[@]}" --json > "$WORK/$name-baseline.json" || {
    echo "$name: baseline failed: $(head -c 400 "$WORK/$name-baseline.json")" >&2; return 1; }
  for kernel in unchanged faster; do
    "$kcamp" -C "$dir" round new --hypothesis "$kernel kernel" --json > /dev/null
    [ "$kernel" = faster ] && cp "$WORK/fast/"* "$dir/kernel/"
    t0=$(date +%s.%N)
    "$kcamp" -C "$dir" validate "${sel[@]}" --json > "$WORK/$name-$kernel.json" || true
    t1=$(date +%s.%N)
    report "$name" "$kernel" "$WORK/$name-$kernel.json" "$(python3 -c "print($t1 - $t0)")"
    "$kcamp" -C "$dir" rollback --reason "measured" --json > /dev/null
  done
}

echo "binary  kernel     verdict          Δ (quick)  wall time of kcamp validate, and where the run's time went"
[ -n "$BEFORE" ] && rounds before "$BEFORE"
rounds after "$AFTER"
