#!/usr/bin/env bash
# Like-for-like verdicts on an NVIDIA H200: does the time-and-stability warm-up make the
# numbers independent of `timing.warmup` and of shape order, is forward no longer slower
# than backward for the same kernel, and what do checking every shape at a quick validation
# and pairing the incumbent cost? Builds nothing: run it from the repository root.
#   scripts/h200-verdicts.sh [path/to/kcamp]      (default target/release/kcamp)
# Rehearsal on the software adapter, with small shapes:
#   ADAPTER=llvmpipe SHAPES=scripts/verdicts-rehearsal-shapes.yaml scripts/h200-verdicts.sh target/debug/kcamp
# Writes JSON and CSVs under $OUT (default /tmp/kcamp-h200-verdicts) and prints one table last.
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
OUT="${OUT:-/tmp/kcamp-h200-verdicts}"
ROOT="$(pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
sel=(--adapter "${ADAPTER:-H200}")
KERNEL=shaders/gemm_sgemm_128x128_bk16.wgsl
SETTINGS=shaders/gemm_sgemm_128x128_bk16.kernel.yaml

if [[ -n "${SHAPES:-}" ]]; then
  cp "$SHAPES" "$WORK/shapes.yaml"
else
  cat > "$WORK/shapes.yaml" <<'YAML'
- {label: sq4096, M: 4096, N: 4096, K: 4096}
- {label: odd3000x2000x1000, M: 3000, N: 2000, K: 1000}
- {label: b4x1024, B: 4, M: 1024, N: 1024, K: 1024}
YAML
fi
# The same shapes, last first.
python3 - "$WORK/shapes.yaml" > "$WORK/reversed.yaml" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if l.lstrip().startswith("- ")]
print("".join(reversed(lines)), end="")
PY
LAST_LABEL="$(python3 -c 'import re,sys; print(re.search(r"label: *([^,}]+)", [l for l in open(sys.argv[1]) if l.lstrip().startswith("- ")][-1]).group(1).strip())' "$WORK/shapes.yaml")"

# A campaign measuring the 128x128 SGEMM with its own settings (kernel/kernel.yaml).
new_campaign() {
  "$KCAMP" init "$1" --op gemm --dtype f32 --shapes "$2" --json > /dev/null
  rm "$1/kernel/gemm.wgsl"
  cp "$ROOT/$KERNEL" "$1/kernel/"
  cp "$ROOT/$SETTINGS" "$1/kernel/kernel.yaml"
  sed -i 's/^git_commit: true/git_commit: false/' "$1/manifest.yaml"
}
set_warmup() { sed -i "s/^  warmup: .*/  warmup: $2/" "$1/manifest.yaml"; }
# `kcamp run` of every shape; its CSV and result.json are copied to $OUT/$2.*
run_full() {
  "$KCAMP" -C "$1" run --shapes full "${sel[@]}" --json > "$OUT/$2.json"
  local dir
  dir="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["artifacts_dir"])' "$OUT/$2.json")"
  cp "$dir/benchmark.csv" "$OUT/$2.csv"
  cp "$dir/result.json" "$OUT/$2.result.json"
}

"$KCAMP" adapters "${sel[@]}" --json > "$OUT/adapters.json"

# 1. The warm-up setting: the default count (3) and 300, in one sitting, same shape order.
new_campaign "$WORK/fwd" "$WORK/shapes.yaml"
set_warmup "$WORK/fwd" 3
run_full "$WORK/fwd" warmup3
set_warmup "$WORK/fwd" 300
run_full "$WORK/fwd" warmup300
# 2. Shape order: the same kernel and settings, shapes last-first.
new_campaign "$WORK/rev" "$WORK/reversed.yaml"
set_warmup "$WORK/rev" 3
run_full "$WORK/rev" reversed
run_full "$WORK/rev" reversed2

# 3. A quick validation that times one shape and checks the others, paired (the default)
#    and unpaired; the unchanged kernel against itself.
new_campaign "$WORK/quick" "$WORK/shapes.yaml"
"$KCAMP" -C "$WORK/quick" baseline "${sel[@]}" --json > "$OUT/quick_baseline.json"
sed -i "s/^representative_shapes:.*/representative_shapes: ['$LAST_LABEL']/" "$WORK/quick/manifest.yaml"
"$KCAMP" -C "$WORK/quick" round new --hypothesis "unchanged kernel" --json > /dev/null
t0=$(date +%s.%N)
"$KCAMP" -C "$WORK/quick" validate "${sel[@]}" --json > "$OUT/quick_paired.json" || true
t1=$(date +%s.%N)
cp "$WORK/quick/rounds/round-2/artifacts/result.json" "$OUT/quick_paired.result.json"
sed -i 's/^  paired: true$/  paired: false/' "$WORK/quick/manifest.yaml"
t2=$(date +%s.%N)
"$KCAMP" -C "$WORK/quick" validate "${sel[@]}" --json > "$OUT/quick_unpaired.json" || true
t3=$(date +%s.%N)
python3 - "$OUT" "$t0" "$t1" "$t2" "$t3" > "$OUT/quick_times.json" <<'PY'
import json, sys
t = [float(x) for x in sys.argv[2:]]
print(json.dumps({"paired_s": t[1] - t[0], "unpaired_s": t[3] - t[2]}))
PY

python3 - "$OUT" <<'PY'
import csv, json, math, sys
out = sys.argv[1]
adapter = json.load(open(f"{out}/adapters.json"))
name = adapter[0]["name"] if isinstance(adapter, list) and adapter else str(adapter)[:60]
def rows(name):
    return {r["label"]: r for r in csv.DictReader(open(f"{out}/{name}.csv"))}
def num(r, col):
    try:
        v = float(r[col]); return v if math.isfinite(v) else None
    except (KeyError, ValueError, TypeError):
        return None
w3, w300, rev = rows("warmup3"), rows("warmup300"), rows("reversed")
res = json.load(open(f"{out}/warmup3.result.json"))
warm = {s["label"]: s.get("warmup", []) for s in res["shapes"]}
print(f"\nlike-for-like verdicts on {name}: 128x128 SGEMM (bounds checks), forward and backward TFLOP/s, GPU timestamps")
print(f"{'shape':<20}{'warmup 3':>10}{'warmup 300':>11}{'Δ':>8}{'reversed':>10}{'Δ':>8}{'bwd':>9}{'fwd/bwd':>9}  warm-up (forward)")
ok = True
for lab, r in w3.items():
    a, b, c = num(r, "Forward TFLOPS"), num(w300.get(lab, {}), "Forward TFLOPS"), num(rev.get(lab, {}), "Forward TFLOPS")
    bwd = num(r, "Backward TFLOPS")
    d1 = b / a - 1 if a and b else None
    d2 = c / a - 1 if a and c else None
    ratio = a / bwd if a and bwd else None
    w = next((x for x in warm.get(lab, []) if x["step"] == "Forward"), None)
    wtxt = f"{w['dispatches']} dispatches, {w['ms']:.0f} ms, {'settled' if w['settled'] else 'NOT settled'}" if w else "-"
    fmt = lambda v: f"{v:.3g}" if v else "-"
    pct = lambda v: f"{v * 100:+.1f}%" if v is not None else "-"
    print(f"{lab:<20}{fmt(a):>10}{fmt(b):>11}{pct(d1):>8}{fmt(c):>10}{pct(d2):>8}{fmt(bwd):>9}{(f'{ratio:.2f}' if ratio else '-'):>9}  {wtxt}")
    ok &= d1 is not None and abs(d1) < 0.03 and d2 is not None and abs(d2) < 0.03 and ratio is not None and ratio >= 0.97
print("\nevery run's forward warm-ups and samples (TFLOP/s = 2·B·M·N·K / sample time):")
for run in ("warmup3", "warmup300", "reversed", "reversed2"):
    try:
        res = json.load(open(f"{out}/{run}.result.json"))
        rr = rows(run)
    except OSError:
        print(f"  {run}: missing")
        continue
    for s in res["shapes"]:
        w = next((x for x in s.get("warmup", []) if x["step"] == "Forward"), None)
        fwd = num(rr.get(s["label"], {}), "Forward TFLOPS")
        last = ", ".join(f"{v:.3g}" for v in (w or {}).get("last_dispatch_ms", [])[-3:]) if w else ""
        wtxt = f"{w['dispatches']} dispatches, {w['ms']:.0f} ms, {'settled' if w['settled'] else 'NOT settled'}, last ms [{last}]" if w else "-"
        print(f"  {run:<10} {s['label']:<20} fwd {fwd if fwd is None else f'{fwd:.3g}':>6}  {wtxt}")
rev2 = rows("reversed2")
ok2 = all(abs(num(rev2.get(l, {}), "Forward TFLOPS") / num(r, "Forward TFLOPS") - 1) < 0.03 for l, r in w3.items() if num(rev2.get(l, {}), "Forward TFLOPS") and num(r, "Forward TFLOPS"))
print(f"reversed order again: {'within 3% of warmup 3 on every shape' if ok2 else 'NOT within 3%'}")
times = json.load(open(f"{out}/quick_times.json"))
qp = json.load(open(f"{out}/quick_paired.result.json"))
def bands(doc):
    try:
        rep = json.load(open(f"{out}/{doc}.json"))["report"]
        return ", ".join(f"{s['label']} {s['delta'] * 100:+.1f}% ±{s['band'] * 100:.1f}%" for s in rep["shapes"] if s.get("delta") is not None) + f" → {rep['verdict']}"
    except Exception as e:
        return f"- ({e})"
print(f"\nquick validation of the unchanged kernel (1 shape timed, {len(qp.get('checked_shapes', []))} checked untimed):")
print(f"  checking the untimed shapes: {qp.get('checked_shapes_ms') or 0:.0f} ms of the run")
print(f"  paired (default):  {times['paired_s']:.1f} s, {bands('quick_paired')}")
print(f"  unpaired:          {times['unpaired_s']:.1f} s, {bands('quick_unpaired')}")
print(f"\nexpected: |Δ| < 3% for the warm-up setting and the shape order, fwd/bwd ≥ 0.97 → {'PASS' if ok else 'CHECK THE TABLE'}")
PY
