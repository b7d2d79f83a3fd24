#!/usr/bin/env bash
# Every H200 figure of the README in one run, with PyTorch references from the same run:
# the two campaigns recorded through kcamp's loop ($OUT/campaigns/h200-sgemm-f32 and
# h200-hgemm-f16, ready to copy into campaigns/ and open with `kcamp tui`), the cost
# of runtime checks, axpy against torch add, kcamp peak against torch copy. Builds nothing:
# run it from the repository root with a prebuilt binary.
#   scripts/h200.sh [path/to/kcamp]           (default target/release/kcamp)
# Writes under $OUT (default /tmp/kcamp-h200): JSON and CSVs as they come, campaigns/ (the
# recorded campaign directories), summary.txt, which it prints last, and h200-run.tgz, all of
# it in one archive: a borrowed machine may return only a few files and shallow folders (one
# run lost its recorded campaigns that way), so fetch the archive, not the tree.
# CONTINUE=DIR continues the campaigns already recorded in DIR (h200-sgemm-f32 and
# h200-hgemm-f16, e.g. campaigns/) with the plans scripts/h200/sgemm.next.rounds and
# hgemm.next.rounds instead of recording them anew: a later stretch of work on the bundled
# campaigns, whose final `kcamp report` re-measures the incumbent against the BASELINE in this
# run, beside this run's torch references. CAMPAIGNS (default "sgemm-f32 hgemm-f16") picks
# the campaigns; EXTRAS=0 skips the checks table and axpy (a run about one campaign).
# Rehearsal on the software adapter (small shapes, no torch):
#   ADAPTER=llvmpipe SHAPES=scripts/h200/rehearsal-shapes.yaml \
#     AXPY_SHAPES=scripts/h200/rehearsal-axpy.yaml scripts/h200.sh target/debug/kcamp
set -euo pipefail
KCAMP="$(realpath "${1:-target/release/kcamp}")"
ROOT="$(pwd)"
OUT="$(mkdir -p "${OUT:-/tmp/kcamp-h200}" && cd "${OUT:-/tmp/kcamp-h200}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
T0="$(date +%s)"
BUDGET="${BUDGET:-480}"   # seconds; each later step is skipped once its share is spent
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" XDG_DATA_HOME="$WORK/data"
sel=(--adapter "${ADAPTER:-H200}")
SHAPES="$(realpath "${SHAPES:-scripts/h200/shapes.yaml}")"
log() { echo "[h200 +$(( $(date +%s) - T0 ))s] $*" >&2; }
at() { echo $(( T0 + BUDGET * $1 / 100 )); }

"$KCAMP" adapters "${sel[@]}" --json > "$OUT/adapters.json"
log "kcamp peak"
"$KCAMP" peak "${sel[@]}" --json > "$OUT/peak.json" || log "kcamp peak failed"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  log "torch references"
  python3 scripts/h200/torch_ref.py "$OUT" "$SHAPES" > /dev/null || log "torch references failed"
else
  echo '{"device": "no CUDA torch here"}' > "$OUT/torch.json"
fi

# The two campaigns, recorded through kcamp's own loop (scripts/h200/record.sh).
scripts/h200/versions.sh "$WORK/v" > /dev/null
mkdir -p "$OUT/campaigns"
for spec in "sgemm-f32 sgemm f32 46" "hgemm-f16 hgemm f16 80"; do
  set -- $spec
  case " ${CAMPAIGNS:-sgemm-f32 hgemm-f16} " in *" $1 "*) ;; *) log "campaign h200-$1 not in CAMPAIGNS"; continue ;; esac
  log "campaign h200-$1"
  plan="scripts/h200/$2.rounds"
  if [ -n "${CONTINUE:-}" ]; then
    cp -r "$CONTINUE/h200-$1" "$WORK/"
    rm -rf "$WORK/h200-$1/runs" "$WORK/h200-$1/live" "$WORK/h200-$1/.kcamp.lock"
    plan="scripts/h200/$2.next.rounds"
  fi
  SHAPES_FILE="$SHAPES" PEAKS="$XDG_DATA_HOME/kcamp/peaks.json" DEADLINE="$(at "$4")" \
    scripts/h200/record.sh "$KCAMP" "$WORK/h200-$1" "$plan" "$WORK/v/$1" "$3" "${ADAPTER:-H200}" \
    || log "campaign h200-$1 ended early (exit $?)"
  rm -rf "$WORK/h200-$1/runs" "$WORK/h200-$1/live" "$WORK/h200-$1/.kcamp.lock"
  cp -r "$WORK/h200-$1" "$OUT/campaigns/" || true
  cp "$WORK"/h200-$1.*.json "$OUT/campaigns/" 2>/dev/null || true
done

# Runtime checks: one kernel, one shape (the largest), three modes, through `kcamp run`.
big="$(grep -o 'label: *[^,}]*' "$SHAPES" | sed -n 3p | sed 's/label: *//')"
grep "label: *$big[,}]" "$SHAPES" > "$WORK/one.yaml"
[ "${EXTRAS:-1}" = 1 ] || log "EXTRAS=0: checks table and axpy skipped"
for k in 01-naive 02-tiled64 13-unroll-bk16; do
  [ "${EXTRAS:-1}" = 1 ] || break
  [ "$(date +%s)" -lt "$(at 92)" ] || { log "checks table: $k skipped (time)"; continue; }
  c="$WORK/checks-$k"
  "$KCAMP" init "$c" --op gemm --shapes "$WORK/one.yaml" --json > /dev/null || continue
  sed -i "s/^git_commit: .*/git_commit: false/; s/^  warmup: .*/  warmup: 10\n  warmup_ms: 300/" "$c/manifest.yaml"
  rm -f "$c"/kernel/*; cp "$WORK/v/sgemm-f32/$k/gemm.wgsl" "$c/kernel/"
  for mode in full bounds_checks none; do
    sed "s/^trusted: .*/checks: $mode/" "$WORK/v/sgemm-f32/$k/kernel.yaml" > "$c/kernel/kernel.yaml"
    log "checks $k $mode"
    "$KCAMP" -C "$c" run "${sel[@]}" --json > "$OUT/checks-$k-$mode.json" 2>/dev/null || true
  done
done

# axpy: the shipped 4-elements-per-invocation kernel on 64 Mi and 256 Mi elements.
if [ "${EXTRAS:-1}" = 1 ] && [ "$(date +%s)" -lt "$(at 97)" ]; then
  log "axpy"
  printf -- '- {label: n64m, N: 67108864}\n- {label: n256m, N: 268435456}\n' > "$WORK/axpy.yaml"
  [ -n "${AXPY_SHAPES:-}" ] && cp "$AXPY_SHAPES" "$WORK/axpy.yaml"
  if "$KCAMP" init "$WORK/axpy" --kernel axpy_u4 --shapes "$WORK/axpy.yaml" --json > "$OUT/axpy-init.json"; then
    sed -i "s/^  warmup: .*/  warmup: 20\n  warmup_ms: 300/" "$WORK/axpy/manifest.yaml"
    "$KCAMP" -C "$WORK/axpy" run "${sel[@]}" --json > "$OUT/axpy.json" 2>/dev/null || log "axpy run failed"
  else
    log "axpy: init failed (see axpy-init.json)"
  fi
fi
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia-smi.csv" || true
log "summary"
RUN_T0="$T0" python3 scripts/h200/summary.py "$OUT" > "$OUT/summary.txt" || log "summary failed"
tar czf "$WORK/h200-run.tgz" -C "$OUT" --exclude h200-run.tgz . && mv "$WORK/h200-run.tgz" "$OUT/"
cat "$OUT/summary.txt"
