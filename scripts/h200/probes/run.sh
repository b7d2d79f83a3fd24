#!/usr/bin/env bash
# Times every probe of gen_probes.py through `kcamp peak --coop-probe`, the bundled
# multiply-add chain beside them, the shipped kernel the probes take apart
# (gemm_hgemm_coop_128x128_whole, version 34) through `kcamp run` at 4096^3, and torch fp16
# `a @ b` at 4096^3, all in the same run; prints a table last. On the H200 (the device's
# Vulkan loader set up as scripts/h200.sh does):
#   scripts/h200/probes/run.sh KCAMP [OUT]
set -euo pipefail
KCAMP="$(realpath "$1")"; OUT="${2:-${OUT:-/tmp/kcamp-probes}}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/wgsl"
python3 "$HERE/gen_probes.py" "$OUT/wgsl"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" XDG_DATA_HOME="$OUT/xdg"
adapter=(--adapter "${ADAPTER:-H200}")
"$KCAMP" --json peak "${adapter[@]}" > "$OUT/chain.json"
for f in "$OUT"/wgsl/*.wgsl; do
  n="$(basename "$f" .wgsl)"
  "$KCAMP" --json peak "${adapter[@]}" --coop-probe "$f" > "$OUT/$n.json" || echo "probe $n failed" >&2
done
# The control: the kernel whose inner loop the probes rebuild, whole, at 4096^3.
c="$OUT/k34"; rm -rf "$c"
printf -- '- {label: sq4096, M: 4096, N: 4096, K: 4096}\n' > "$OUT/sq4096.yaml"
"$KCAMP" init "$c" --kernel gemm_hgemm_coop_128x128_whole --shapes "$OUT/sq4096.yaml" --json > /dev/null
sed -i "s/^adapter: {}/adapter: {name: '${ADAPTER:-H200}'}/; s/^git_commit: .*/git_commit: false/" "$c/manifest.yaml"
sed -i "s/^  warmup: .*/  warmup: 10\n  warmup_ms: 300/" "$c/manifest.yaml"
"$KCAMP" -C "$c" run --shapes full --json > "$OUT/k34.run" 2> /dev/null || echo "the control failed" >&2
python3 - "$OUT" <<'PY' || echo "torch reference failed" >&2
import json, sys, torch
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
for _ in range(50):
    a @ b
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ms = []
for _ in range(5):
    s.record()
    for _ in range(30):
        a @ b
    e.record()
    torch.cuda.synchronize()
    ms.append(s.elapsed_time(e) / 30)
t = sorted(ms)[2]
json.dump({"tflops": 2 * 4096**3 / (t * 1e-3) / 1e12, "torch": torch.__version__}, open(sys.argv[1] + "/torch.json", "w"))
PY
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
try:
    torch = json.load(open(f"{out}/torch.json"))["tflops"]
except (OSError, ValueError, KeyError):
    torch = None
print(f"kcamp peak (GPU timestamps, best of 5 runs of >= 300 ms); torch fp16 a @ b 4096^3 same run: "
      + (f"{torch:.0f} TFLOP/s" if torch else "n/a"))
print(f"{'kernel':<14} {'TFLOP/s':>8} {'x chain':>8} {'x torch':>8}")
rows = []
names = ["chain"] + sorted(os.path.basename(f)[:-5] for f in glob.glob(f"{out}/*.json"))
for name in dict.fromkeys(n for n in names if n != "torch"):
    f = f"{out}/{name}.json"
    try:
        m = json.load(open(f))["measurement"]
        t = m["coop_f16"]["tflops"]
    except (OSError, ValueError, KeyError, TypeError):
        print(f"{name:<14} {'-':>8}"); continue
    rows.append((name, t))
try:
    r = json.load(open(f"{out}/k34.run"))["result"]["shapes"][0]
    rows.append(("34 (kernel)", 2 * 4096**3 / (r["latency_us"] * 1e-6) / 1e12 if r.get("check") == "PASS" else float("nan")))
except (OSError, ValueError, KeyError, IndexError, TypeError):
    print(f"{'34 (kernel)':<14} {'-':>8}")
chain = rows[0][1] if rows and rows[0][0] == "chain" else None
for name, t in rows:
    print(f"{name:<14} {t:>8.1f} {t / chain if chain else float('nan'):>8.2f} {t / torch if torch else float('nan'):>8.2f}")
PY
