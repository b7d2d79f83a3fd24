#!/usr/bin/env bash
# The H200 figures of docs/performance.md in one run, each kcamp figure beside a reference
# measured in the same run: `kcamp peak` (copy, f32 FMA chain, cooperative-matrix chain), every
# shipped GEMM kernel of shaders/ on the six shapes of scripts/h200/shapes.yaml, the cost of
# naga's runtime checks, and axpy; PyTorch (cuBLAS fp32 with TF32 off, fp16 on the tensor cores,
# add, copy) through scripts/h200/torch_ref.py. Builds nothing: run it from the repository root
# with a built binary.
#   scripts/h200.sh [path/to/kcamp]        (default target/release/kcamp)
# Writes under $OUT (default /tmp/kcamp-h200): every command's JSON, every kernel's CSV,
# summary.txt (printed last) and h200-run.tgz, all of it in one archive.
# Env: ADAPTER (part of the adapter's name, default H200); SHAPES (default scripts/h200/shapes.yaml);
# KERNELS (default: every shipped GEMM kernel); CHECKS_SHAPE (the shape of the runtime-checks
# table, default sq4096); AXPY_N (element counts for axpy, default 2^26 and 2^28).
# Rehearsal on the software adapter (small shapes, no torch, no cooperative matrices):
#   ADAPTER=llvmpipe SHAPES=scripts/h200/rehearsal-shapes.yaml AXPY_N="65536 262144" scripts/h200.sh
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
OUT="$(mkdir -p "${OUT:-/tmp/kcamp-h200}" && cd "${OUT:-/tmp/kcamp-h200}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" XDG_DATA_HOME="$WORK/data"
sel=(--adapter "${ADAPTER:-H200}")
SHAPES="$(realpath "${SHAPES:-scripts/h200/shapes.yaml}")"
KERNELS="${KERNELS:-gemm_naive gemm_tiled gemm_sgemm_128x128_bk16 gemm_sgemm_128x128_split gemm_sgemm_128x128_aligned gemm_naive_f16 gemm_hgemm_coop_128x128_bk64 gemm_hgemm_coop_128x128_bk64_g64 gemm_hgemm_coop_128x128_whole gemm_hgemm_coop_128x256}"
T0="$(date +%s)"
log() { echo "[h200 +$(( $(date +%s) - T0 ))s] $*" >&2; }

# A campaign directory for `kcamp run` (nothing is recorded): commits off, and the warm-up the
# figures were measured with (at least 10 dispatches and 300 ms per timed step).
prepare() { # prepare DIR INIT_ARGS...
  local dir="$1"; shift
  "$KCAMP" init "$dir" "$@" --json > /dev/null
  sed -i "s/^git_commit: .*/git_commit: false/; s/^  warmup: .*/  warmup: 10\n  warmup_ms: 300/" "$dir/manifest.yaml"
}
# run DIR NAME: measure the campaign's working kernel, keep its JSON and CSV as NAME.*
run() {
  "$KCAMP" -C "$1" run "${sel[@]}" --json > "$OUT/$2.json" 2> "$OUT/$2.log" || log "$2: kcamp run exited $?"
  local csv="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["artifacts_dir"])' "$OUT/$2.json" 2>/dev/null)/benchmark.csv"
  [ -f "$csv" ] && cp "$csv" "$OUT/$2.csv" || true
}

"$KCAMP" adapters "${sel[@]}" --json > "$OUT/adapters.json"
log "kcamp peak"
"$KCAMP" peak "${sel[@]}" --json > "$OUT/peak.json" || log "kcamp peak failed"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  log "torch references"
  python3 scripts/h200/torch_ref.py "$OUT" "$SHAPES" > /dev/null || log "torch references failed"
else
  echo '{"device": "no CUDA torch here"}' > "$OUT/torch.json"
fi

# Every shipped GEMM kernel with the settings it was measured with, on every shape.
for k in $KERNELS; do
  log "kernel $k"
  prepare "$WORK/$k" --kernel "$k" --shapes "$SHAPES" && run "$WORK/$k" "kernel-$k"
done

# Runtime checks: three kernels on one shape, compiled three ways (`checks:` in the kernel section
# init wrote into the manifest).
grep "label: *${CHECKS_SHAPE:-sq4096}[,}]" "$SHAPES" > "$WORK/one.yaml"
for k in gemm_naive gemm_tiled gemm_sgemm_128x128_bk16; do
  for mode in full bounds_checks none; do
    log "checks $k $mode"
    c="$WORK/checks-$k-$mode"
    prepare "$c" --kernel "$k" --shapes "$WORK/one.yaml" || continue
    sed -i "s/^  trusted: .*/  trusted: false\n  checks: $mode/" "$c/manifest.yaml"
    run "$c" "checks-$k-$mode"
  done
done

# axpy: the shipped 4-elements-per-invocation kernel.
log "axpy"
for n in ${AXPY_N:-67108864 268435456}; do echo "- {label: n$n, N: $n}"; done > "$WORK/axpy.yaml"
prepare "$WORK/axpy" --kernel axpy_u4 --shapes "$WORK/axpy.yaml" && run "$WORK/axpy" axpy

command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/nvidia-smi.csv" || true
log "summary"
python3 - "$OUT" "$KERNELS" > "$OUT/summary.txt" <<'PY'
import csv, json, sys

out, kernels = sys.argv[1], sys.argv[2].split()


def load(name, default=None):
    try:
        return json.load(open(f"{out}/{name}"))
    except (OSError, ValueError):
        return default


def rows(name):
    try:
        return list(csv.DictReader(open(f"{out}/{name}")))
    except OSError:
        return []


def f(x, d=3):
    """Three significant digits, whatever the scale."""
    if x is None:
        return "-"
    return f"{x:.{d}g}" if abs(x) < 10 ** d else f"{x:,.0f}"


def ratio(a, b):
    return f(a / b, 2) if a and b else "-"


torch = load("torch.json", {})
ref = torch.get("gemm_tflops", {})
peak = (load("peak.json", {}) or {}).get("measurement", {})
adapter = (peak.get("adapter") or {})
print(f"adapter: {adapter.get('name', '?')} ({adapter.get('backend', '?')}, {adapter.get('driver', '')} {adapter.get('driver_info', '')})")
print("kcamp: GPU timestamps around each dispatch's compute pass, warm-up >= 10 dispatches and 300 ms per step, 10 repeats")
print(f"reference: torch {torch.get('torch', '-')}: {torch.get('method', torch.get('device', '-'))}")


def registers(doc):
    """Registers per invocation of the forward entry point (and of the aligned one), as the driver reports them."""
    st = ((doc or {}).get("result") or {}).get("driver_statistics") or {}
    def regs(s):
        for e in (s or {}).get("executables", []):
            for x in e.get("statistics", []):
                if x["name"] == "Register Count":
                    return x["value"]
        return None
    general, aligned = regs(st), regs(st.get("aligned"))
    return "-" if general is None else f"{aligned} / {general}" if aligned is not None else f"{general}"


shapes = []
table = {}
for k in kernels:
    dt = "fp16" if "f16" in k or "hgemm" in k else "fp32"
    for r in rows(f"kernel-{k}.csv"):
        if r["label"] not in shapes:
            shapes.append(r["label"])
        table[(k, r["label"])] = (float(r["Forward TFLOPS"]) if r["Check"] == "PASS" else None, r["Check"], dt)

print("\nForward TFLOP/s; x = over the same-run torch reference of the shape (fp32: cuBLAS, TF32 off; fp16: tensor cores)")
print(f"{'kernel':<34}{'registers':>11}" + "".join(f"{s:>17}" for s in shapes))
for k in kernels:
    cells = []
    for s in shapes:
        v, check, dt = table.get((k, s), (None, "-", "fp32"))
        cells.append(f"{f(v)} ({ratio(v, ref.get(f'{dt}/{s}'))}x)" if v else check)
    print(f"{k:<34}{registers(load(f'kernel-{k}.json')):>11}" + "".join(f"{c:>17}" for c in cells))
for dt in ("fp32", "fp16"):
    print(f"{'torch ' + dt:<34}{'':>11}" + "".join(f"{f(ref.get(f'{dt}/{s}')):>17}" for s in shapes))

print("\nruntime checks, forward TFLOP/s (kcamp run, one shape)")
print(f"{'kernel':<28}{'full':>10}{'bounds_checks':>15}{'none':>10}")
for k in ("gemm_naive", "gemm_tiled", "gemm_sgemm_128x128_bk16"):
    vals = []
    for mode in ("full", "bounds_checks", "none"):
        rs = [r for r in rows(f"checks-{k}-{mode}.csv") if r["Check"] == "PASS"]
        vals.append(float(rs[0]["Forward TFLOPS"]) if rs else None)
    print(f"{k:<28}" + "".join(f"{f(v):>{w}}" for v, w in zip(vals, (10, 15, 10))))

print("\nbandwidth and ceilings")
add, copy = torch.get("add_gbps_n256m"), torch.get("copy_gbps_1GiB")
for r in rows("axpy.csv"):
    v = float(r["Forward GB/s"]) if r["Check"] == "PASS" else None
    print(f"axpy_u4 N={r['N']}: {f(v)} GB/s; torch add at 2^28 {f(add)} GB/s; x {ratio(v, add)}")
c = (peak.get("copy") or {}).get("gbps")
print(f"kcamp peak copy of {f((peak.get('copy') or {}).get('buffer_bytes', 0) / 2**30)} GiB: {f(c)} GB/s; torch copy of 1 GiB {f(copy)} GB/s; x {ratio(c, copy)}")
print(f"kcamp peak FMA chain f32: {f((peak.get('fma_f32') or {}).get('tflops'))} TFLOP/s")
coop = (peak.get("coop_f16") or {}).get("tflops")
print(f"kcamp peak cooperative-matrix chain (f16 in, f32 sums): {f(coop)} TFLOP/s; torch fp16 at sq4096 {f(ref.get('fp16/sq4096'))}; x {ratio(coop, ref.get('fp16/sq4096'))}")
PY
tar czf "$WORK/h200-run.tgz" -C "$OUT" --exclude h200-run.tgz . && mv "$WORK/h200-run.tgz" "$OUT/"
cat "$OUT/summary.txt"
