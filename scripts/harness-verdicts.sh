#!/usr/bin/env bash
# The gate's verdicts through the torch starter harness (docs/performance.md, "Verdicts through
# a harness"), on whatever device torch finds (CUDA, else the CPU): RUNS re-validations of an
# unchanged kernel (each in its own round, rolled back after), one kernel that is really faster
# (on the CPU: the BASELINE spends 3/10 of its work again, the candidate does not; on CUDA:
# fp32 -> TF32), and one that caches its result (faster than the device can compute: the
# roofline floor must refuse it). Every figure is the harness's own (CUDA events or
# perf_counter), judged by kcamp; torch's own matmul is the kernel, so it is its own reference.
#   scripts/harness-verdicts.sh [path/to/kcamp]    (default target/release/kcamp)
# Env: PYTHON (an interpreter with torch, default python3), RUNS (default 10), SHAPES (a shapes
# file; default small GEMMs on the CPU, 4096-class ones on CUDA), OUT (default
# /tmp/kcamp-harness-verdicts). Prints a table last.
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
PYTHON="$(command -v "${PYTHON:-python3}")"
OUT="$(mkdir -p "${OUT:-/tmp/kcamp-harness-verdicts}" && cd "${OUT:-/tmp/kcamp-harness-verdicts}" && pwd)"
RUNS="${RUNS:-10}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" XDG_DATA_HOME="$WORK/data"
DEVICE="$("$PYTHON" -c 'import torch; print("cuda" if torch.cuda.is_available() else "cpu")')"
"$PYTHON" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu", torch.get_num_threads(), "threads")' > "$OUT/device.txt"
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

# new_campaign DIR: a torch-harness GEMM f32 campaign on $SHAPES, run by $PYTHON, no commits.
new_campaign() {
  "$KCAMP" init "$1" --harness torch --op gemm --dtype f32 --shapes "$SHAPES" --json > /dev/null
  sed -i "s/^git_commit: true/git_commit: false/; s#python3 harness/bench.py#$PYTHON harness/bench.py#g" "$1/manifest.yaml"
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
  echo "$t0 $t1" > "$OUT/$name.time"
  if [ -z "${KEEP:-}" ]; then
    "$KCAMP" -C "$dir" rollback --reason "measurement run" --json > /dev/null
  fi
}

uptime > "$OUT/load.txt"
BASE="torch.backends.cuda.matmul.allow_tf32 = False"
# 1. The unchanged kernel, re-validated RUNS times.
new_campaign "$WORK/same"
kernel "$WORK/same" "a @ b" "$BASE"
"$KCAMP" -C "$WORK/same" baseline --json > "$OUT/same_baseline.json"
for i in $(seq 1 "$RUNS"); do validate "$WORK/same" "unchanged_$i"; done
# 2. A kernel that is really faster.
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
# 3. A kernel that returns the result it computed for the first call of each input: faster
#    than any device can compute it.
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
uptime >> "$OUT/load.txt"

"$PYTHON" - "$OUT" "$RUNS" <<'PY' | tee "$OUT/summary.txt"
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    v = json.load(open(f"{out}/{name}.json"))
    t0, t1 = (float(x) for x in open(f"{out}/{name}.time").read().split())
    return v, t1 - t0
def line(name):
    v, secs = load(name)
    r = v.get("report") or {}
    shapes = r.get("shapes", [])
    bands = [s["band"] for s in shapes if s.get("band") is not None] or [float("nan")]
    hard = [s["label"] for s in shapes if s.get("hard_regression")]
    agg = (r.get("aggregate") or {}).get("delta")
    # The first reason that is not about how it was measured: the one that decided.
    details = r.get("reason_details", [])
    deciding = [d["text"] for d in details if d.get("kind") not in ("method", "coverage")]
    why = (deciding or [d["text"] for d in details] or [""])[0]
    return dict(verdict=r.get("verdict", v.get("error", {}).get("kind", "?")), agg=agg,
                band=max(bands), hard=hard, secs=secs, why=why)
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
rows = [line(f"unchanged_{i}") for i in range(1, runs + 1)]
print("\nunchanged kernel: verdict, aggregate Δ, widest shape band, hard regressions, wall s, first reason")
for i, r in enumerate(rows, 1):
    print(f"  {i:>2} {r['verdict']:<16} {pct(r['agg']):>8} ±{r['band'] * 100:5.2f}% {','.join(r['hard']) or '-':<10} {r['secs']:6.1f}  {r['why'][:90]}")
fast, cached = line("faster"), line("cached")
print(f"\nfaster kernel:  {fast['verdict']} {pct(fast['agg'])} (widest band ±{fast['band'] * 100:.2f}%), {fast['secs']:.1f} s; accept: {accepted('faster')}")
print(f"  {fast['why'][:160]}")
print(f"caching kernel: {cached['verdict']} {pct(cached['agg'])}; accept: {accepted('cached')}")
print(f"  {cached['why'][:160]}")
acc = sum(1 for r in rows if r["verdict"].startswith("ACCEPT"))
rej = sum(1 for r in rows if r["verdict"] == "REJECT" and r["hard"])
print(f"\n{'case':<34}{'ACCEPT':>8}{'REJECT for a regression':>25}{'mean s':>8}")
print(f"{f'unchanged, {runs} re-validations':<34}{acc:>8}{rej:>25}{sum(r['secs'] for r in rows) / runs:>8.1f}")
print(f"{'really faster':<34}{'yes' if fast['verdict'].startswith('ACCEPT') else 'NO':>8}{'':>25}{fast['secs']:>8.1f}")
print(f"{'caching (faster than the device)':<34}{'yes' if cached['verdict'].startswith('ACCEPT') else 'no':>8}{'':>25}{cached['secs']:>8.1f}")
PY
