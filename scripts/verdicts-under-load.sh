#!/usr/bin/env bash
# Verdicts that hold on a busy machine (docs/performance.md, "Verdicts under bursts of
# load"): with scripts/load-burst.sh alternating busy and idle periods on every core, RUNS
# re-validations of an unchanged kernel and RUNS validations of a kernel that is really ~1.3x
# faster (tests/fixtures/kernels/gemm_naive_extra.wgsl: 13 k-loop iterations for every 10 as
# BASELINE, 10 as the candidate), all quick and paired (the default), on whatever adapter is
# selected (default: the software adapter). Prints one line per validation (verdict,
# aggregate Δ, shapes improved / regressed / unstable, load average before and after) and a
# summary table. The load stops with the script.
#   scripts/verdicts-under-load.sh [path/to/kcamp]    (default target/debug/kcamp)
# Environment: RUNS (10), OUT (/tmp/kcamp-verdicts-under-load), LOAD=0 to measure without
# the bursts, ADAPTER/BACKEND (llvmpipe/vulkan).
set -euo pipefail
KCAMP="$(realpath "${1:-target/debug/kcamp}")"
OUT="${OUT:-/tmp/kcamp-verdicts-under-load}"
RUNS="${RUNS:-10}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
load_pid=""
cleanup() {
  if [ -n "$load_pid" ]; then
    kill "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rm -rf "$OUT"
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
# validate DIR NAME: one quick validation; its JSON and the load average around it.
validate() {
  local dir="$1" name="$2"
  cut -d' ' -f1 /proc/loadavg > "$OUT/$name.load"
  "$KCAMP" -C "$dir" validate "${sel[@]}" --json > "$OUT/$name.json" || true
  cut -d' ' -f1 /proc/loadavg >> "$OUT/$name.load"
  # The raw samples of both sides, to judge again with other rules.
  local f
  for f in samples.csv paired_samples.csv result.json; do
    cp "$dir/rounds/round-2/artifacts/$f" "$OUT/$name.$f" 2>/dev/null || true
  done
}

new_campaign "$WORK/same"
"$KCAMP" -C "$WORK/same" baseline "${sel[@]}" --no-peak --json > "$OUT/same_baseline.json"
"$KCAMP" -C "$WORK/same" round new --hypothesis "unchanged kernel" --json > /dev/null
new_campaign "$WORK/faster"
cp "$ROOT/tests/fixtures/kernels/gemm_naive_extra.wgsl" "$WORK/faster/kernel/gemm.wgsl"
"$KCAMP" -C "$WORK/faster" baseline "${sel[@]}" --no-peak --json > "$OUT/faster_baseline.json"
"$KCAMP" -C "$WORK/faster" round new --hypothesis "drop the wasted work" --json > /dev/null
sed -i 's/^const EXTRA_TENTHS: u32 = 3u;/const EXTRA_TENTHS: u32 = 0u;/' "$WORK/faster/kernel/gemm.wgsl"

if [ "${LOAD:-1}" != 0 ]; then
  "$ROOT/scripts/load-burst.sh" 3600 2> "$OUT/load-burst.txt" &
  load_pid=$!
fi
# Alternating the two campaigns, so that both see the same load over the experiment.
for i in $(seq 1 "$RUNS"); do
  validate "$WORK/same" "same_$i"
  validate "$WORK/faster" "faster_$i"
done

python3 - "$OUT" "$RUNS" "${LOAD:-1}" <<'PY'
import json, sys
out, runs, load = sys.argv[1], int(sys.argv[2]), sys.argv[3] != "0"
def line(name):
    doc = json.load(open(f"{out}/{name}.json"))
    r = doc.get("report") or {}
    shapes = r.get("shapes", [])
    count = lambda c: sum(1 for s in shapes if s.get("class") == c)
    loads = open(f"{out}/{name}.load").read().split()
    return dict(verdict=r.get("verdict", "error: " + json.dumps(doc.get("error"))[:60]),
                agg=(r.get("aggregate") or {}).get("delta"),
                improved=count("improved"), regressed=count("regressed"), unstable=count("ambiguous"),
                load=f"{loads[0]}→{loads[-1]}")
try:
    a = json.load(open(f"{out}/same_1.result.json"))["adapter"]
    adapter = f"{a['name']} ({a['backend']}), GPU timestamps"
except (OSError, KeyError, ValueError):
    adapter = "?"
print(f"adapter: {adapter}; quick paired validations (3 of 5 GEMM shapes, 32³ to 128³, 10 repeats)")
print("load:", "scripts/load-burst.sh on every core (busy 0.5-4 s, idle 0.5-4 s)" if load else "none added")
agg = lambda a: "   n/a  " if a is None else f"{a * 100:+7.1f}%"
for kind in ("same", "faster"):
    print(f"\n{'unchanged kernel' if kind == 'same' else '1.3x faster kernel'}: verdict, aggregate Δ, shapes improved/regressed/unstable, 1-min load before→after")
    for i in range(1, runs + 1):
        l = line(f"{kind}_{i}")
        print(f"  {i:>2} {l['verdict']:<18} {agg(l['agg'])}  {l['improved']}/{l['regressed']}/{l['unstable']}  {l['load']}")
def summary(kind):
    ls = [line(f"{kind}_{i}") for i in range(1, runs + 1)]
    acc = sum(1 for l in ls if l["verdict"] in ("ACCEPT", "ACCEPT_WITH_NOTE"))
    rem = sum(1 for l in ls if l["verdict"] == "NEEDS_REMEASURE")
    return acc, rem, sum(l["improved"] for l in ls), sum(l["regressed"] for l in ls), sum(l["unstable"] for l in ls)
print(f"\n{'':<30}{'ACCEPT':>7}{'NEEDS_REMEASURE':>17}{'improved':>10}{'regressed':>11}{'unstable':>10}")
for kind, name in (("same", "unchanged"), ("faster", "1.3x faster")):
    acc, rem, imp, reg, amb = summary(kind)
    print(f"{name + f' ({runs} validations)':<30}{acc:>7}{rem:>17}{imp:>10}{reg:>11}{amb:>10}")
PY
