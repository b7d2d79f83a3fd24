#!/usr/bin/env bash
# Does a case's rate depend on the cases before it in the same worker? The shipped 128x128
# SGEMM on sq4096 measured first, and last after two smaller shapes, with one worker for the
# run (KCAMP_WORKER_PER_CASE=0) and with a fresh worker per case (KCAMP_WORKER_PER_CASE=1,
# what kcamp does by default on a hardware adapter).
#   scripts/h200/order.sh KCAMP OUT        (ADAPTER, default H200)
# REPEAT=N runs the four combinations N times. Where nvidia-smi exists, clocks (SM and
# memory), power and the clock-event reasons are logged every 100 ms into OUT/clocks.csv,
# and each run's medians over its own window are printed beside its rates.
set -euo pipefail
K="$(realpath "$1")"; OUT="$(mkdir -p "$2" && cd "$2" && pwd)"; ROOT="$(pwd)"
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT
sel=(--adapter "${ADAPTER:-H200}")
big="${BIG:-- {label: sq4096, M: 4096, N: 4096, K: 4096\}}"
printf -- '%s\n- {label: odd3000x2000x1000, M: 3000, N: 2000, K: 1000}\n- {label: b4x1024, B: 4, M: 1024, N: 1024, K: 1024}\n' "$big" > "$W/first.yaml"
printf -- '- {label: b4x1024, B: 4, M: 1024, N: 1024, K: 1024}\n- {label: odd3000x2000x1000, M: 3000, N: 2000, K: 1000}\n%s\n' "$big" > "$W/last.yaml"
SMI=""
if command -v nvidia-smi > /dev/null; then
  q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active
  nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -i 0 > /dev/null 2>&1 || q="${q/clocks_event_reasons/clocks_throttle_reasons}"
  nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 100 -i 0 > "$OUT/clocks.csv" 2> /dev/null &
  SMI=$!
  trap 'kill $SMI 2> /dev/null; rm -rf "$W"' EXIT
fi
for order in first last; do
  c="$W/$order"
  "$K" init "$c" --kernel "${KERNEL:-gemm_sgemm_128x128_bk16}" --dtype "${DTYPE:-f32}" --shapes "$W/$order.yaml" --json > /dev/null
  sed -i 's/^git_commit: .*/git_commit: false/' "$c/manifest.yaml"
done
: > "$OUT/runs.txt"
for i in $(seq 1 "${REPEAT:-1}"); do
  for order in first last; do
    for mode in shared fresh; do
      if [ $mode = fresh ]; then export KCAMP_WORKER_PER_CASE=1; else export KCAMP_WORKER_PER_CASE=0; fi
      t0="$(date +%s.%N)"
      "$K" -C "$W/$order" run "${sel[@]}" --json > "$OUT/$order-$mode-$i.json" 2>/dev/null || true
      echo "$order $mode $i $t0 $(date +%s.%N)" >> "$OUT/runs.txt"
    done
  done
done
unset KCAMP_WORKER_PER_CASE
[ -z "$SMI" ] || kill "$SMI" 2> /dev/null || true
python3 - "$OUT" <<'PY'
import datetime, json, math, statistics, sys
out = sys.argv[1]
clocks = []
try:
    for line in open(f"{out}/clocks.csv"):
        f = [x.strip() for x in line.split(",")]
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        clocks.append((t, *f[1:]))
except (OSError, ValueError, IndexError):
    pass
def window(t0, t1):
    w = [c for c in clocks if t0 <= c[0] <= t1]
    if not w:
        return "-"
    med = lambda i: statistics.median(float(c[i]) for c in w)
    reasons = sorted({c[5] for c in w})
    return f"SM {med(1):.0f} MHz, mem {med(2):.0f} MHz, {med(3):.0f} W, {med(4):.0f} C, reasons {'/'.join(reasons)}"
print(f"{'order':<7}{'worker':<8}{'#':>3}{'big shape':>11}{'odd3000x2000x1000':>19}{'b4x1024':>10}   forward TFLOP/s (2·B·M·N·K / forward latency); medians over the run")
for line in open(f"{out}/runs.txt"):
    order, mode, i, t0, t1 = line.split()
    try:
        shapes = json.load(open(f"{out}/{order}-{mode}-{i}.json"))["result"]["shapes"]
        rate = {s["label"]: 2 * math.prod(s["dims"]) / (s["latency_us"] * 1e-6) / 1e12 if s.get("latency_us") else None for s in shapes}
        big = next(k for k in rate if k not in ("odd3000x2000x1000", "b4x1024"))
        vals = [rate[big], rate.get("odd3000x2000x1000"), rate.get("b4x1024")]
        cells = "".join(f"{(f'{v:.3g}' if v else '-'):>{w}}" for v, w in zip(vals, (11, 19, 10)))
    except Exception as e:
        cells = f" - ({e!r})"
    print(f"{order:<7}{mode:<8}{i:>3}{cells}   {window(float(t0), float(t1))}")
PY
