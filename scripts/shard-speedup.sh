#!/usr/bin/env bash
# What sharding a validation over the identical GPUs of one machine buys (docs/scale.md):
# a GEMM campaign of 8 shapes, BASELINE on one adapter, then one round (the kernel
# unchanged) validated on one adapter and on all of them (`adapter: {all: true}`),
# alternately, REPS times each. Prints the adapters, each wall time, the speedup of the
# medians and whether every verdict agrees.
#
# usage: scripts/shard-speedup.sh [KCAMP]    (default: target/release/kcamp, built if missing)
# env:   BACKEND (vulkan), ADAPTER (part of the adapters' name, optional), SIZE (4096: the
#        shapes are SIZE³ and seven neighbours), REPS (3), KEEP=1 keeps the campaign
#
# On a machine with one adapter, a test build presents it as several
# (KCAMP_TEST_ADAPTER_COPIES=N, compiled with kcamp-core's test-support feature, as
# `cargo build` of the tests does): a rehearsal of the script, not a speedup.
set -euo pipefail
cd "$(dirname "$0")/.."

kcamp="${1:-target/release/kcamp}"
if [ ! -x "$kcamp" ]; then
  cargo build --release --locked --bin kcamp >&2
fi
kcamp="$(realpath "$kcamp")"
backend="${BACKEND:-vulkan}"
size="${SIZE:-4096}"
reps="${REPS:-3}"
selector="backend: $backend"
[ -n "${ADAPTER:-}" ] && selector="name: '$ADAPTER', $selector"

work="$(mktemp -d)"
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; else echo "campaign kept in $work" >&2; fi

# Eight shapes around SIZE: square, rectangular, skinny and batched.
h=$((size / 2)); d=$((size * 2)); q=$((size / 4))
cat > "$work/shapes.yaml" <<EOF
- {label: sq, M: $size, N: $size, K: $size}
- {label: half, M: $h, N: $h, K: $h}
- {label: wide, M: $h, N: $d, K: $size}
- {label: tall, M: $d, N: $h, K: $size}
- {label: deepk, M: $h, N: $h, K: $d}
- {label: skinny, M: $q, N: $size, K: $size}
- {label: b4, B: 4, M: $h, N: $h, K: $h}
- {label: odd, M: $((size - 24)), N: $((size + 40)), K: $((size - 8))}
EOF

adapters=$("$kcamp" --json adapters --backend "$backend" ${ADAPTER:+--adapter "$ADAPTER"})
n=$(printf '%s' "$adapters" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "adapters matching {$selector}: $n" >&2
printf '%s' "$adapters" | python3 -c '
import json, sys
for i, a in enumerate(json.load(sys.stdin)):
    bus = a.get("pci_bus_id") or "-"
    print("  %d: %s (%s, %s %s) pci %s" % (i, a["name"], a["backend"], a["driver"], a["driver_info"], bus))' >&2
[ "$n" -ge 1 ] || { echo "no adapter matches" >&2; exit 1; }

camp="$work/one"
"$kcamp" init "$camp" --op gemm --shapes "$work/shapes.yaml" >/dev/null
python3 - "$camp/manifest.yaml" "$selector" <<'EOF'
import sys
path, selector = sys.argv[1], sys.argv[2]
text = open(path).read()
text = text.replace("adapter: {}", "adapter: {" + selector + "}").replace("git_commit: true", "git_commit: false")
open(path, "w").write(text)
EOF
echo "baseline (one adapter)…" >&2
"$kcamp" -C "$camp" --json baseline --no-peak >/dev/null 2>&1 || true
echo "// unchanged" >> "$camp/kernel/gemm.wgsl"
"$kcamp" -C "$camp" --json round new --hypothesis "unchanged kernel, to time validations" >/dev/null
cp -a "$camp" "$work/all"
sed -i "s/adapter: {$selector}/adapter: {$selector, all: true}/" "$work/all/manifest.yaml"
grep -q "all: true" "$work/all/manifest.yaml"

validate() { # DIR -> "seconds verdict shards"
  local start end out
  start=$(date +%s.%N)
  out=$("$kcamp" -C "$1" --json validate --full 2>/dev/null || true)
  end=$(date +%s.%N)
  printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
if "error" in doc:
    sys.exit("validate failed: " + doc["error"]["message"])
print(doc["report"]["verdict"])' | { read -r verdict; echo "$(python3 -c "print(f'{$end - $start:.2f}')") $verdict"; }
}

one_times=(); all_times=(); verdicts=()
for r in $(seq 1 "$reps"); do
  read -r t v < <(validate "$camp"); one_times+=("$t"); verdicts+=("$v")
  echo "rep $r: one adapter ${t} s, $v" >&2
  read -r t v < <(validate "$work/all"); all_times+=("$t"); verdicts+=("$v")
  echo "rep $r: $n adapters ${t} s, $v" >&2
done
shards=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
p = f.get("placement") or {}
parts = ["shard %d on %s: %s" % (s["index"], s.get("adapter", "?"), ",".join(s["shapes"])) for s in p.get("shards", [])]
print("; ".join(parts) or "one adapter")
' "$work/all/rounds/round-2/artifacts/fingerprint.json")

python3 - "$n" "$size" "$shards" "${one_times[*]}" "${all_times[*]}" "${verdicts[*]}" <<'EOF'
import statistics, sys
n, size, shards = sys.argv[1], sys.argv[2], sys.argv[3]
one = [float(x) for x in sys.argv[4].split()]
alln = [float(x) for x in sys.argv[5].split()]
verdicts = sys.argv[6].split()
m1, mn = statistics.median(one), statistics.median(alln)
print(f"validate --full of 8 GEMM f32 shapes around {size}^3, built-in runner, paired (A B B A per shape)")
print(f"  one adapter: {' '.join(f'{t:.2f}' for t in one)} s (median {m1:.2f} s)")
print(f"  {n} adapters:  {' '.join(f'{t:.2f}' for t in alln)} s (median {mn:.2f} s)")
print(f"  speedup of the medians: {m1 / mn:.2f}x on {n} adapters")
print(f"  shards: {shards}")
agree = len(set(verdicts)) == 1
print(f"  verdicts: {' '.join(verdicts)} -> {'all agree' if agree else 'DIFFER'}")
sys.exit(0 if agree else 1)
EOF
