#!/usr/bin/env bash
# The gate's verdicts through the torch starter harness (docs/performance.md, "Verdicts through
# a harness"), on whatever device torch finds (CUDA, else the CPU): RUNS re-validations of an
# unchanged kernel (each in its own round, rolled back after), one kernel that is really faster
# (on the CPU: the BASELINE spends 3/10 of its work again, the candidate does not; on CUDA:
# fp32 -> TF32), and one that caches its result (faster than the device can compute: the
# roofline floor must refuse it). Every figure is the harness's own (CUDA events or
# perf_counter), judged by kcamp; torch's own matmul is the kernel, so it is its own reference.
#   scripts/harness-verdicts.sh [path/to/kcamp]    (default target/release/kcamp)
# On an H200 it makes the issue's CUDA figures: five re-validations of cuBLAS fp32, fp32 -> TF32
# accepted, a cached result above the H200's dense TF32 peak refused, with no target_gpu in the
# manifest (the floor comes from the GPU kcamp finds on the machine; the summary shows which).
# Env: PYTHON (an interpreter with torch, default python3), RUNS (default 5 on CUDA, 10 on the
# CPU), SHAPES (a shapes file; default small GEMMs on the CPU, 4096-class ones on CUDA), CLOCK
# (on the CPU: process, the default, or wall; bench.py's --cpu-clock), PAIRS (harness.pairs,
# default 6), UNPAIRED=1 (commands without {kernel_dir}: judged against recorded numbers),
# PROTOCOL (harness.protocol: persistent, the default, one bench.py process per validation;
# invocation: one per invocation), OUT (default /tmp/kcamp-harness-verdicts), CASES (which of "unchanged faster cached" to run,
# default all three: a long run split over two sittings, the summary of one OUT read with
# SUMMARY_ONLY=1). Prints a table last.
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
PYTHON="$(command -v "${PYTHON:-python3}")"
OUT="$(mkdir -p "${OUT:-/tmp/kcamp-harness-verdicts}" && cd "${OUT:-/tmp/kcamp-harness-verdicts}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" XDG_DATA_HOME="$WORK/data"
DEVICE="$("$PYTHON" -c 'import torch; print("cuda" if torch.cuda.is_available() else "cpu")')"
if [ "$DEVICE" = cuda ]; then RUNS="${RUNS:-5}"; else RUNS="${RUNS:-10}"; fi
CLOCK="${CLOCK:-process}"
# A persistent harness names the kernel directory in every request: always paired.
PROTOCOL="${PROTOCOL:-$([ -n "${UNPAIRED:-}" ] && echo invocation || echo persistent)}"
if [ -z "${SUMMARY_ONLY:-}" ]; then
"$PYTHON" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu", torch.get_num_threads(), "threads")' > "$OUT/device.txt"
echo "clock: $([ "$DEVICE" = cuda ] && echo cuda-events || echo "$CLOCK"), pairs: ${PAIRS:-6}, $([ -n "${UNPAIRED:-}" ] && echo unpaired || echo paired), protocol: $PROTOCOL" >> "$OUT/device.txt"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,pci.device_id,driver_version --format=csv,noheader >> "$OUT/device.txt" || true
fi
if [ -z "${SHAPES:-}" ]; then
  SHAPES="$WORK/shapes.yaml"
  if [ "$DEVICE" = cuda ]; then
    cat > "$SHAPES" <<'YAML'
- {label: sq4096, M: 4096, N: 4096, K: 4096}
- {label: sq2048, M: 2048, N: 2048, K: 2048}
- {label: odd, M: 2047, N: 1999, K: 1023}
- {label: tall, M: 8192, N: 1024, K: 1024}
- {label: batched, B: 8, M: 512, N: 512, K: 512}
YAML
  else
    cat > "$SHAPES" <<'YAML'
- {label: sq256, M: 256, N: 256, K: 256}
- {label: sq192, M: 192, N: 192, K: 192}
- {label: r320x128x256, M: 320, N: 128, K: 256}
- {label: batched, B: 4, M: 96, N: 96, K: 128}
YAML
  fi
fi

# new_campaign DIR: a torch-harness GEMM f32 campaign on $SHAPES, run by $PYTHON, no commits;
# no target_gpu: the rows are held to the GPU found on this machine (or its CPUs).
new_campaign() {
  "$KCAMP" init "$1" --harness torch --op gemm --dtype f32 --shapes "$SHAPES" --json > /dev/null
  local flags=""
  [ "$DEVICE" = cpu ] && flags=" --cpu-clock $CLOCK"
  sed -i "s/^git_commit: true/git_commit: false/; s#^\(quick_command\|full_command\): python3 harness/bench.py\(.*\)#\1: $PYTHON harness/bench.py\2$flags#" "$1/manifest.yaml"
  if [ -n "${UNPAIRED:-}" ]; then sed -i 's# --kernel-dir {kernel_dir}##g' "$1/manifest.yaml"; fi
  if [ "$PROTOCOL" = persistent ]; then
    sed -i 's# --csv {csv}\( --kernel-dir {kernel_dir}\)\?# --persistent#' "$1/manifest.yaml"
  fi
  {
    echo "harness:"
    [ -n "${PAIRS:-}" ] && echo "  pairs: $PAIRS"
    echo "  protocol: $PROTOCOL"
  } >> "$1/manifest.yaml"
}
# kernel DIR BODY: kernel/kernel.py's gemm() made of BODY (a Python expression of a, b).
kernel() {
  cat > "$1/kernel/kernel.py" <<PY
import torch
$3
def gemm(a, b):
    return $2
PY
}
# validate DIR NAME: one quick validation of a new round, kept as NAME.json; rolled back after
# unless KEEP is set.
validate() {
  local dir="$1" name="$2" t0 t1
  "$KCAMP" -C "$dir" round new --hypothesis "$name" --json > /dev/null
  [ -n "${EDIT:-}" ] && eval "$EDIT"
  t0=$(date +%s.%N)
  "$KCAMP" -C "$dir" validate --json > "$OUT/$name.json" || true
  t1=$(date +%s.%N)
  echo "$t0 $t1 $(cut -d' ' -f1 /proc/loadavg)" > "$OUT/$name.time"
  if [ -z "${KEEP:-}" ]; then
    "$KCAMP" -C "$dir" rollback --reason "measurement run" --json > /dev/null
  fi
}

want() { [[ " ${CASES:-unchanged faster cached} " == *" $1 "* ]]; }
[ -n "${SUMMARY_ONLY:-}" ] && CASES=" "
uptime >> "$OUT/load.txt"
BASE="torch.backends.cuda.matmul.allow_tf32 = False"
# 1. The unchanged kernel, re-validated RUNS times.
if want unchanged; then
new_campaign "$WORK/same"
kernel "$WORK/same" "a @ b" "$BASE"
"$KCAMP" -C "$WORK/same" baseline --json > "$OUT/same_baseline.json"
for i in $(seq 1 "$RUNS"); do validate "$WORK/same" "unchanged_$i"; done
fi
# 2. A kernel that is really faster.
if want faster; then
new_campaign "$WORK/faster"
if [ "$DEVICE" = cuda ]; then
  kernel "$WORK/faster" "a @ b" "$BASE"
  EDIT="kernel $WORK/faster 'a @ b' 'torch.backends.cuda.matmul.allow_tf32 = True'"
else
  # 3/10 of K computed a second time and thrown away: the candidate drops it (1.3x the work).
  kernel "$WORK/faster" "(a[..., : a.shape[-1] * 3 // 10] @ b[..., : a.shape[-1] * 3 // 10, :], a @ b)[1]" "$BASE"
  EDIT="kernel $WORK/faster 'a @ b' '$BASE'"
fi
"$KCAMP" -C "$WORK/faster" baseline --json > "$OUT/faster_baseline.json"
KEEP=1 EDIT="$EDIT" validate "$WORK/faster" faster
"$KCAMP" -C "$WORK/faster" accept --json > "$OUT/faster_accept.json" || true
fi
# 3. A kernel that returns the result it computed for the first call of each input: faster
#    than any device can compute it.
if want cached; then
new_campaign "$WORK/cached"
kernel "$WORK/cached" "a @ b" "$BASE"
"$KCAMP" -C "$WORK/cached" baseline --json > "$OUT/cached_baseline.json"
cached_kernel() {
  cat > "$1/kernel/kernel.py" <<'PY'
import torch
_seen = {}
def _key(t):
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()))
def gemm(a, b):
    key = (_key(a), _key(b))
    if key not in _seen:
        _seen[key] = a @ b
    return _seen[key]
PY
}
KEEP=1 EDIT="cached_kernel $WORK/cached" validate "$WORK/cached" cached
"$KCAMP" -C "$WORK/cached" accept --json > "$OUT/cached_accept.json" || true
fi
uptime >> "$OUT/load.txt"

"$PYTHON" - "$OUT" "$RUNS" <<'PY' | tee "$OUT/summary.txt"
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    v = json.load(open(f"{out}/{name}.json"))
    t0, t1, la = (float(x) for x in open(f"{out}/{name}.time").read().split())
    return v, t1 - t0, la
def line(name):
    v, secs, la = load(name)
    r = v.get("report") or {}
    shapes = r.get("shapes", [])
    bands = [s["band"] for s in shapes if s.get("band") is not None] or [float("nan")]
    hard = [s["label"] for s in shapes if s.get("hard_regression")]
    agg = (r.get("aggregate") or {}).get("delta")
    # The first reason that is not about how it was measured: the one that decided.
    details = r.get("reason_details", [])
    deciding = [d["text"] for d in details if d.get("kind") not in ("method", "coverage")]
    why = (deciding or [d["text"] for d in details] or [""])[0]
    floor = [d["text"] for d in details if d.get("kind") == "plausibility"]
    return dict(verdict=r.get("verdict", v.get("error", {}).get("kind", "?")), agg=agg,
                band=max(bands), agg_band=(r.get("aggregate") or {}).get("band"),
                p=(r.get("aggregate") or {}).get("p_value"), hard=hard, secs=secs, load=la,
                why=why, floor=floor)
def pct(x):
    return "-" if x is None else f"{x * 100:+.2f}%"
def accepted(name):
    try:
        d = json.load(open(f"{out}/{name}_accept.json"))
    except (OSError, ValueError):
        return "?"
    dec = (d.get("decision") or {}).get("decision")
    return dec or ("refused: " + d.get("error", {}).get("message", "")[:70].replace("\n", " "))
print("device:", open(f"{out}/device.txt").read().strip(), "| load:", open(f"{out}/load.txt").read().strip().replace("\n", " / "))
import os
have = lambda name: os.path.exists(f"{out}/{name}.json")
rows = [line(f"unchanged_{i}") for i in range(1, runs + 1) if have(f"unchanged_{i}")]
def band(r):
    b = "-" if r["agg_band"] is None else f"±{r['agg_band'] * 100:.2f}%"
    return b + ("" if r["p"] is None else f" p={r['p']:.3f}")
if rows:
    print("\nunchanged kernel: verdict, aggregate Δ, its band, widest shape band, hard regressions, wall s, 1-min load, first reason")
for i, r in enumerate(rows, 1):
    print(f"  {i:>2} {r['verdict']:<16} {pct(r['agg']):>8} {band(r):>16} ±{r['band'] * 100:6.2f}% {','.join(r['hard']) or '-':<10} {r['secs']:6.1f} {r['load']:5.2f}  {r['why'][:90]}")
fast = line("faster") if have("faster") else None
cached = line("cached") if have("cached") else None
if fast:
    print(f"\nfaster kernel:  {fast['verdict']} {pct(fast['agg'])} (aggregate band {band(fast)}, widest shape band ±{fast['band'] * 100:.2f}%), {fast['secs']:.1f} s, load {fast['load']:.2f}; accept: {accepted('faster')}")
    print(f"  {fast['why'][:200]}")
if cached:
    print(f"caching kernel: {cached['verdict']} {pct(cached['agg'])}; accept: {accepted('cached')}")
    print(f"  {cached['why'][:200]}")
for note in (fast["floor"][:1] if fast else []) + (cached["floor"][:2] if cached else []):
    print(f"  floor: {note[:240]}")
print(f"\n{'case':<34}{'ACCEPT':>8}{'REJECT for a regression':>25}{'mean s':>8}")
if rows:
    acc = sum(1 for r in rows if r["verdict"].startswith("ACCEPT"))
    rej = sum(1 for r in rows if r["verdict"] == "REJECT" and r["hard"])
    print(f"{f'unchanged, {len(rows)} re-validations':<34}{acc:>8}{rej:>25}{sum(r['secs'] for r in rows) / len(rows):>8.1f}")
if fast:
    print(f"{'really faster':<34}{'yes' if fast['verdict'].startswith('ACCEPT') else 'NO':>8}{'':>25}{fast['secs']:>8.1f}")
if cached:
    print(f"{'caching (faster than the device)':<34}{'yes' if cached['verdict'].startswith('ACCEPT') else 'no':>8}{'':>25}{cached['secs']:>8.1f}")
PY
