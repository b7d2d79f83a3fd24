#!/usr/bin/env bash
# Does a case's rate depend on the cases before it in the same worker? The shipped 128x128
# SGEMM on sq4096 measured first, and last after two smaller shapes, with one worker for the
# run (the default) and with a fresh worker per case (KCAMP_WORKER_PER_CASE=1).
#   scripts/h200/order.sh KCAMP OUT        (ADAPTER, default H200)
set -euo pipefail
K="$(realpath "$1")"; OUT="$(mkdir -p "$2" && cd "$2" && pwd)"; ROOT="$(pwd)"
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT
sel=(--adapter "${ADAPTER:-H200}")
big="${BIG:-- {label: sq4096, M: 4096, N: 4096, K: 4096\}}"
printf -- '%s\n- {label: odd3000x2000x1000, M: 3000, N: 2000, K: 1000}\n- {label: b4x1024, B: 4, M: 1024, N: 1024, K: 1024}\n' "$big" > "$W/first.yaml"
printf -- '- {label: b4x1024, B: 4, M: 1024, N: 1024, K: 1024}\n- {label: odd3000x2000x1000, M: 3000, N: 2000, K: 1000}\n%s\n' "$big" > "$W/last.yaml"
for order in first last; do
  c="$W/$order"
  "$K" init "$c" --kernel "${KERNEL:-gemm_sgemm_128x128_bk16}" --dtype "${DTYPE:-f32}" --shapes "$W/$order.yaml" --json > /dev/null
  sed -i 's/^git_commit: .*/git_commit: false/' "$c/manifest.yaml"
  for mode in shared fresh; do
    if [ $mode = fresh ]; then export KCAMP_WORKER_PER_CASE=1; else unset KCAMP_WORKER_PER_CASE; fi
    "$K" -C "$c" run "${sel[@]}" --json > "$OUT/$order-$mode.json" 2>/dev/null || true
  done
done
unset KCAMP_WORKER_PER_CASE
python3 - "$OUT" <<'PY'
import json, math, sys
out = sys.argv[1]
print(f"{'order':<7}{'worker':<8}{'big shape':>12}{'odd3000x2000x1000':>19}{'b4x1024':>10}   forward TFLOP/s (2·B·M·N·K / forward latency)")
for order in ("first", "last"):
    for mode in ("shared", "fresh"):
        try:
            shapes = json.load(open(f"{out}/{order}-{mode}.json"))["result"]["shapes"]
            rate = {s["label"]: 2 * math.prod(s["dims"]) / (s["latency_us"] * 1e-6) / 1e12 if s.get("latency_us") else None for s in shapes}
            big = next(k for k in rate if k not in ("odd3000x2000x1000", "b4x1024"))
            vals = [rate[big], rate.get("odd3000x2000x1000"), rate.get("b4x1024")]
            print(f"{order:<7}{mode:<8}" + "".join(f"{(f'{v:.3g}' if v else '-'):>{w}}" for v, w in zip(vals, (12, 19, 10))))
        except Exception as e:
            print(f"{order:<7}{mode:<8} - ({e!r})")
PY
