#!/usr/bin/env bash
# What pairing buys (docs/performance.md, "The gate on a noisy machine"), on whatever adapter is
# selected (default: the software adapter, on a machine that is busy with other work: that is
# the point): ten re-validations of an unchanged kernel, paired (the default) and unpaired, and
# one kernel that is really ~1.3x faster (tests/fixtures/kernels/gemm_naive_extra.wgsl with 13
# k-loop iterations for every 10 as BASELINE, the same kernel with 10 as the candidate; the
# ratio the paired run measured is printed beside the verdict). Prints verdicts, deltas, bands
# and times, then a summary table.
#   scripts/verdicts-software.sh [path/to/kcamp]    (default target/release/kcamp)
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
OUT="${OUT:-/tmp/kcamp-verdicts-software}"
RUNS="${RUNS:-10}"
ROOT="$(pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
sel=(--adapter "${ADAPTER:-llvmpipe}" --backend "${BACKEND:-vulkan}")

cat > "$WORK/shapes.yaml" <<'YAML'
- {label: s32, M: 32, N: 32, K: 32}
- {label: s64, M: 64, N: 64, K: 64}
- {label: r48x80x40, M: 48, N: 80, K: 40}
- {label: s96, M: 96, N: 96, K: 96}
- {label: s128, M: 128, N: 128, K: 128}
YAML

new_campaign() {
  "$KCAMP" init "$1" --op gemm --dtype f32 --shapes "$WORK/shapes.yaml" --json > /dev/null
  sed -i 's/^git_commit: true/git_commit: false/' "$1/manifest.yaml"
}
# validate NAME: one quick validation, its JSON and wall time kept under $OUT.
validate() {
  local dir="$1" name="$2" t0 t1
  t0=$(date +%s.%N)
  "$KCAMP" -C "$dir" validate "${sel[@]}" --json > "$OUT/$name.json" || true
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$OUT/$name.time"
  cp "$dir/rounds/round-2/artifacts/result.json" "$OUT/$name.result.json"
}

uptime > "$OUT/load.txt"
# 1. The unchanged kernel, re-validated RUNS times, paired and unpaired.
new_campaign "$WORK/same"
"$KCAMP" -C "$WORK/same" baseline "${sel[@]}" --json > "$OUT/same_baseline.json"
"$KCAMP" -C "$WORK/same" round new --hypothesis "unchanged kernel" --json > /dev/null
for i in $(seq 1 "$RUNS"); do validate "$WORK/same" "paired_$i"; done
sed -i 's/^  paired: true$/  paired: false/' "$WORK/same/manifest.yaml"
for i in $(seq 1 "$RUNS"); do validate "$WORK/same" "unpaired_$i"; done
# 2. A kernel that is really faster: the naive loop run 13/10 of K as BASELINE, the same
#    kernel run K as the candidate.
new_campaign "$WORK/faster"
cp "$ROOT/tests/fixtures/kernels/gemm_naive_extra.wgsl" "$WORK/faster/kernel/gemm.wgsl"
"$KCAMP" -C "$WORK/faster" baseline "${sel[@]}" --json > "$OUT/faster_baseline.json"
"$KCAMP" -C "$WORK/faster" round new --hypothesis "drop the wasted work" --json > /dev/null
sed -i 's/^const EXTRA_TENTHS: u32 = 3u;/const EXTRA_TENTHS: u32 = 0u;/' "$WORK/faster/kernel/gemm.wgsl"
validate "$WORK/faster" "faster"
uptime >> "$OUT/load.txt"

python3 - "$OUT" "$RUNS" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    v = json.load(open(f"{out}/{name}.json"))
    t0, t1 = (float(x) for x in open(f"{out}/{name}.time").read().split())
    res = json.load(open(f"{out}/{name}.result.json"))
    return v, t1 - t0, res
def line(name):
    v, secs, res = load(name)
    r = v["report"]
    hard = [s["label"] for s in r["shapes"] if s.get("hard_regression")]
    bands = [s["band"] for s in r["shapes"]]
    deltas = [s["delta"] for s in r["shapes"] if s.get("delta") is not None]
    agg = r["aggregate"]["delta"]
    return dict(verdict=r["verdict"], agg=agg, max_band=max(bands), max_abs=max(abs(d) for d in deltas),
                hard=hard, secs=secs, checks_ms=res.get("checked_shapes_ms"),
                adapter=res["adapter"]["name"], backend=res["adapter"]["backend"])
rows = {k: [line(f"{k}_{i}") for i in range(1, runs + 1)] for k in ("paired", "unpaired")}
fast = line("faster")
print("load:", open(f"{out}/load.txt").read().strip().replace("\n", " / "))
a = rows["paired"][0]
print(f"adapter: {a['adapter']} ({a['backend']}), GPU timestamps; quick validation of 3 representative shapes, 10 repeats")
for k, rs in rows.items():
    print(f"\n{k}: verdict, aggregate Δ, largest |Δ| of a shape, largest band, hard regressions, wall s")
    for i, r in enumerate(rs, 1):
        print(f"  {i:>2} {r['verdict']:<16} {r['agg'] * 100:+7.2f}% {r['max_abs'] * 100:7.2f}% ±{r['max_band'] * 100:6.2f}% {','.join(r['hard']) or '-':<12} {r['secs']:6.1f}")
print(f"\n1.3x kernel: {fast['verdict']} {fast['agg'] * 100:+.1f}% (largest band ±{fast['max_band'] * 100:.1f}%), {fast['secs']:.1f} s")
def summary(rs):
    rej = sum(1 for r in rs if r["verdict"] == "REJECT" and r["hard"])
    acc = sum(1 for r in rs if r["verdict"] in ("ACCEPT", "ACCEPT_WITH_NOTE"))
    mean = lambda xs: sum(xs) / len(xs)
    return rej, acc, mean([r["max_band"] for r in rs]), max(r["max_band"] for r in rs), mean([r["secs"] for r in rs]), mean([r["checks_ms"] or 0 for r in rs])
print(f"\n{'':<28}{'REJECT for regression':>22}{'ACCEPT':>8}{'mean max band':>15}{'worst band':>12}{'mean s':>8}{'checks ms':>11}")
for k, rs in rows.items():
    rej, acc, mb, wb, secs, chk = summary(rs)
    print(f"{k + f' ({runs} re-validations)':<28}{rej:>22}{acc:>8}{mb * 100:>14.1f}%{wb * 100:>11.1f}%{secs:>8.1f}{chk:>11.0f}")
print(f"{'1.3x faster kernel, paired':<28}{'':>22}{'yes' if fast['verdict'].startswith('ACCEPT') else 'NO':>8}{fast['max_band'] * 100:>14.1f}%{'':>12}{fast['secs']:>8.1f}")
PY
