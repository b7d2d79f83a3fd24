#!/usr/bin/env bash
# A machine that is busy in bursts: busy periods on every core alternate with idle ones, each
# of a random length, for a bounded time; then it stops by itself. Its busy loops are its own
# children and end with it (on its end, Ctrl-C or SIGTERM). What the gate must survive: load
# that comes and goes during a measurement, so that neighbouring samples move together.
#   scripts/load-burst.sh [SECONDS]        (default 600, at most 7200)
# Environment: BUSY_MIN/BUSY_MAX and IDLE_MIN/IDLE_MAX (tenths of a second; default busy 5-40,
# idle 5-40), CORES (default: every online core), SEED (default 1: the same bursts every run).
set -euo pipefail
total="${1:-600}"
case "$total" in '' | *[!0-9]*) echo "load-burst: SECONDS must be a whole number, got '$total'" >&2; exit 2 ;; esac
[ "$total" -le 7200 ] || { echo "load-burst: at most 7200 seconds, got $total" >&2; exit 2; }
cores="${CORES:-$(nproc)}"
busy_min="${BUSY_MIN:-5}" busy_max="${BUSY_MAX:-40}"
idle_min="${IDLE_MIN:-5}" idle_max="${IDLE_MAX:-40}"
RANDOM="${SEED:-1}"

pids=()
nap=""
# Sleeps in the background and waits, so that a signal is handled at once, not after it.
rest() { sleep "$1" & nap=$!; wait "$nap" || true; nap=""; }
stop_busy() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap '[ -z "$nap" ] || kill "$nap" 2>/dev/null || true; stop_busy' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A length in tenths of a second from [lo, hi], as seconds for sleep.
pick() { local t=$(($1 + RANDOM % ($2 - $1 + 1))); printf '%d.%d' $((t / 10)) $((t % 10)); }

end=$((SECONDS + total))
bursts=0
while [ "$SECONDS" -lt "$end" ]; do
  for _ in $(seq 1 "$cores"); do
    # A busy loop in a shell of its own: its pid is the loop's, so kill ends it.
    bash -c 'while :; do :; done' &
    pids+=("$!")
  done
  rest "$(pick "$busy_min" "$busy_max")"
  stop_busy
  bursts=$((bursts + 1))
  [ "$SECONDS" -lt "$end" ] || break
  rest "$(pick "$idle_min" "$idle_max")"
done
echo "load-burst: $bursts busy periods on $cores cores over ${total} s" >&2
