#!/usr/bin/env bash
# Record one campaign through kcamp's own loop, as a kernel engineer would run it: the plan's
# first version is the BASELINE, every later version one round (its hypothesis from the
# version), validated quick (paired with the incumbent in the same run, every other target
# shape checked), then accepted or rolled back as the gate says. A quick ACCEPT under 5% is
# confirmed by `kcamp accept`'s full validation. Ends with `kcamp report` (the final full
# validation, paired with the BASELINE, gated).
#   scripts/h200/record.sh KCAMP DIR PLAN VERSIONS DTYPE ADAPTER
# A DIR that already holds a campaign is continued: every version of PLAN is then a round
# (a later stretch of work on a bundled campaign, measured on the same kind of machine).
# ADAPTER (part of the adapter's name) goes into the manifest, so every command measures there.
# Env: DEADLINE (epoch seconds): no round is started after it. WARMUP, WARMUP_MS, REPEATS.
# PEAKS: a peaks.json from `kcamp peak` on this adapter, copied into the campaign (else
# `kcamp baseline` measures the peaks itself).
set -euo pipefail
K="$1"; C="$2"; PLAN="$3"; V="$4"; DTYPE="$5"; ADAPTER="$6"
HERE="$(cd "$(dirname "$0")" && pwd)"
log() { echo "[record $(basename "$C") $(date +%T)] $*" >&2; }
plan() { grep -v '^#' "$PLAN" | grep -v '^ *$'; }
version() { echo "${1%% |*}"; }
hypothesis() { # the override after ` | `, else the version's hypothesis.txt
  case "$1" in *" | "*) echo "${1#* | }" ;; *) cat "$V/$(version "$1")/hypothesis.txt" ;; esac
}
put_kernel() { rm -f "$C"/kernel/*; cp "$V/$1/gemm.wgsl" "$V/$1/kernel.yaml" "$C/kernel/"; }

if [ -f "$C/manifest.yaml" ]; then
  log "continuing at round $(ls "$C/rounds" | wc -l) + 1"
  rounds() { plan; }
else
  rounds() { plan | tail -n +2; }
  "$K" init "$C" --op gemm --dtype "$DTYPE" --shapes "${SHAPES_FILE:-$HERE/shapes.yaml}" --json > /dev/null
  # Commits off (the campaign is committed with the repository); warm-up by time so the GPU
  # leaves its idle clocks before every timed step; the representative shapes fixed.
  sed -i "s/^adapter: {}/adapter: {name: '$ADAPTER'}/; s/^git_commit: .*/git_commit: false/; s/^representative_shapes: .*/representative_shapes: ['sq4096', 'r2047x1999x1023', 'b8x512']/" "$C/manifest.yaml"
  sed -i "s/^  warmup: .*/  warmup: ${WARMUP:-10}\n  warmup_ms: ${WARMUP_MS:-300}/; s/^  repeats: .*/  repeats: ${REPEATS:-10}/" "$C/manifest.yaml"
  if [ -n "${PEAKS:-}" ] && [ -f "$PEAKS" ]; then cp "$PEAKS" "$C/peaks.json"; fi
  first="$(plan | head -1)"
  put_kernel "$(version "$first")"
  log "BASELINE $(version "$first")"
  "$K" -C "$C" baseline --json > "$C.baseline.json"
fi
rounds | while IFS= read -r line; do
  name="$(version "$line")"
  if [ -n "${DEADLINE:-}" ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
    log "deadline reached: $name and later versions not run"; break
  fi
  "$K" -C "$C" round new --hypothesis "$(hypothesis "$line")" --json > /dev/null
  put_kernel "$name"
  rc=0; "$K" -C "$C" validate --json > "$C.$name.validate.json" || rc=$?
  verdict="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d.get("report") or {}).get("verdict") or d.get("error",{}).get("kind","?"))' "$C.$name.validate.json" 2>/dev/null || echo '?')"
  if [ "$rc" = 0 ] && [ "$verdict" = ACCEPT -o "$verdict" = ACCEPT_WITH_NOTE ]; then
    rc=0; "$K" -C "$C" accept --json > "$C.$name.decide.json" || rc=$?
    log "$name: $verdict -> accept (exit $rc)"
  else
    "$K" -C "$C" rollback --reason "the gate said $verdict" --json > "$C.$name.decide.json" || true
    log "$name: $verdict -> rollback"
  fi
done
rc=0; "$K" -C "$C" report --json > "$C.report.json" || rc=$?
log "report (exit $rc)"
