#!/usr/bin/env bash
# The slow state of the 4096^3 case (run 9-11: some processes run it at 14-25 instead of
# 33.5 TFLOP/s, at full SM and memory clocks): is it per process or per allocation, and
# does it follow the power-of-two row stride? Each `kcamp run` measures, in one worker,
# sq4096, then sq3968 (128-aligned, 15.5 KiB rows), then sq4096 again (new buffers), for
# the shipped 128x128 kernels and version 44 (grouped block order), REPEAT times each.
#   scripts/h200/slow.sh KCAMP OUT          (ADAPTER, default H200; REPEAT, default 4)
set -euo pipefail
K="$(realpath "$1")"; OUT="$(mkdir -p "$2" && cd "$2" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT
sel=(--adapter "${ADAPTER:-H200}")
printf -- '- {label: sq4096, M: 4096, N: 4096, K: 4096}\n- {label: sq3968, M: 3968, N: 3968, K: 3968}\n- {label: sq4096b, M: 4096, N: 4096, K: 4096}\n' > "$W/shapes.yaml"
"$HERE/versions.sh" "$W/v" > /dev/null
: > "$OUT/runs.txt"
for kernel in gemm_sgemm_128x128_bk16 gemm_sgemm_128x128_split 44-split-sbuf-swz8; do
  c="$W/$kernel"
  if [ -d "$W/v/sgemm-f32/$kernel" ]; then
    "$K" init "$c" --op gemm --shapes "$W/shapes.yaml" --json > /dev/null
    rm -f "$c"/kernel/*; cp "$W/v/sgemm-f32/$kernel/gemm.wgsl" "$W/v/sgemm-f32/$kernel/kernel.yaml" "$c/kernel/"
  else
    "$K" init "$c" --kernel "$kernel" --shapes "$W/shapes.yaml" --json > /dev/null
  fi
  sed -i 's/^git_commit: .*/git_commit: false/' "$c/manifest.yaml"
  for i in $(seq 1 "${REPEAT:-4}"); do
    "$K" -C "$c" run "${sel[@]}" --json > "$OUT/$kernel-$i.json" 2> /dev/null || true
    echo "$kernel $i" >> "$OUT/runs.txt"
  done
done
python3 - "$OUT" <<'PY'
import json, math, sys
out = sys.argv[1]
print(f"{'kernel':<26}{'#':>3}{'sq4096':>9}{'sq3968':>9}{'sq4096b':>9}   forward TFLOP/s, one worker per row, in this order")
for line in open(f"{out}/runs.txt"):
    kernel, i = line.split()
    try:
        shapes = json.load(open(f"{out}/{kernel}-{i}.json"))["result"]["shapes"]
        rate = {s["label"]: 2 * math.prod(s["dims"]) / (s["latency_us"] * 1e-6) / 1e12 if s.get("latency_us") else None for s in shapes}
        cells = "".join(f"{(f'{rate.get(l):.3g}' if rate.get(l) else '-'):>9}" for l in ("sq4096", "sq3968", "sq4096b"))
    except Exception as e:
        cells = f" - ({e!r})"
    print(f"{kernel:<26}{i:>3}{cells}")
PY
