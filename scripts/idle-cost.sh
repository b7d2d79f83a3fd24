#!/usr/bin/env bash
# What it costs to leave the dashboard open, on its worst case: a real `kcamp tui` process in
# tmux on a synthetic 1,000-shape × 200-round campaign (targets: docs/performance.md, "kcamp
# itself").
#
#   1. idle: the process's CPU time (utime + stime from /proc/PID/stat) and the bytes it
#      read (rchar from /proc/PID/io) over IDLE_SECONDS; target under 1% of a core;
#   2. resident memory (VmRSS from /proc/PID/status) once the campaign is read;
#   3. a key answered: the time from `tmux send-keys j` in the gate panel to the cursor's
#      new position on screen, three times;
#   4. a change on screen: the time from a write to the text appearing in the terminal,
#      polled with `tmux capture-pane` every few milliseconds (the poll adds its own few
#      ms); target under 200 ms. Twice each: a journal line (the log panel), and a new
#      verdict of the open round (its 1,000-shape gate.json re-read; the gate panel).
#
# Usage: scripts/idle-cost.sh            (SHAPES=1000 ROUNDS=200 IDLE_SECONDS=20)
# No GPU is involved: the dashboard only reads files.
set -euo pipefail
cd "$(dirname "$0")/.."
SHAPES=${SHAPES:-1000}
ROUNDS=${ROUNDS:-200}
IDLE_SECONDS=${IDLE_SECONDS:-20}
SOCKET=kcamp-idle-$$

cargo build --release --quiet --bin kcamp --example synthetic_campaign
work=$(mktemp -d)
cleanup() {
    tmux -L "$SOCKET" kill-server 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
camp="$work/campaign"
target/release/examples/synthetic_campaign "$camp" "$SHAPES" "$ROUNDS"
echo "on disk: $(du -sh "$camp" | cut -f1) in $(find "$camp" -type f | wc -l) files"

screen() { tmux -L "$SOCKET" capture-pane -p -t idle; }
now_ms() { date +%s%3N; }

tmux -L "$SOCKET" new-session -d -x 160 -y 48 -s idle \
    "TERM=xterm-256color exec target/release/kcamp tui '$camp'"
start=$(now_ms)
until screen | grep -q "incumbent r"; do sleep 0.05; done
echo "first screen after $(( $(now_ms) - start )) ms (full read of the campaign)"
pid=$(tmux -L "$SOCKET" list-panes -t idle -F '#{pane_pid}')
[ "$(cat "/proc/$pid/comm")" = kcamp ] || { echo "pane runs $(cat "/proc/$pid/comm"), not kcamp" >&2; exit 3; }

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
rchar() { awk '/^rchar/ { print $2 }' "/proc/$pid/io"; }
hz=$(getconf CLK_TCK)
sleep 2 # let the first load's notifications settle
t0=$(ticks); r0=$(rchar)
sleep "$IDLE_SECONDS"
t1=$(ticks); r1=$(rchar)
awk -v d="$((t1 - t0))" -v hz="$hz" -v s="$IDLE_SECONDS" -v r="$((r1 - r0))" 'BEGIN {
    printf "idle %d s: %.2f%% of a core (%d ticks of 1/%d s), read %d bytes\n", s, 100 * d / hz / s, d, hz, r }'

echo "resident memory after the first read: $(awk '/^VmRSS/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$pid/status")"

# Wait until `pattern` is on screen; print the ms since `since`.
latency() {
    local pattern=$1 since=$2
    until screen | grep -q -- "$pattern"; do
        if (( $(now_ms) - since > 10000 )); then echo "not on screen after 10 s: $pattern" >&2; exit 3; fi
        sleep 0.002
    done
    echo $(( $(now_ms) - since ))
}

tmux -L "$SOCKET" send-keys -t idle 2
sleep 0.5
for i in 1 2 3; do
    t=$(now_ms)
    tmux -L "$SOCKET" send-keys -t idle j
    echo "key j (gate cursor to $((i + 1))/$SHAPES) on screen after $(latency " $((i + 1))/$SHAPES " "$t") ms"
    sleep 0.3
done

journal="$camp/journal.jsonl"
open=$(ls "$camp/rounds" | sed 's/round-//' | sort -n | tail -1)
gate="$camp/rounds/round-$open/artifacts/gate.json"
for i in 1 2; do
    t=$(now_ms)
    # Stamped now, as kcamp stamps its lines: the log panel orders lines by time, and the
    # synthetic campaign's lines are dated 2026-03-14.
    printf '{"time":"%s","event":"idle_check_%d","round":null,"pid":1,"detail":{}}\n' "$(date -u +%FT%TZ)" "$i" >> "$journal"
    echo "journal line $i on screen after $(latency "idle_check_$i" "$t") ms"
    sleep 1
    # A new verdict for the open round, written the way kcamp writes: temp file, rename.
    sed "s/synthetic gain[^\"]*/synthetic gain, check $i/" "$gate" > "$gate.tmp"
    t=$(now_ms)
    mv "$gate.tmp" "$gate"
    echo "open round's new verdict $i on screen after $(latency "check $i" "$t") ms"
    sleep 1
done
t0=$(ticks)
sleep 5
t1=$(ticks)
awk -v d="$((t1 - t0))" -v hz="$hz" 'BEGIN { printf "idle again 5 s: %.2f%% of a core\n", 100 * d / hz / 5 }'
