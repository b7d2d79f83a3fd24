#!/usr/bin/env python3
"""Two builds of phase-timing.patch (say, before and after a change) run in turn, each run
right after the Python gate, in an order shuffled per round: each phase's median per build,
measured under the same load (phases.py runs one build; one build's runs minutes after the
other's do not separate them on this machine).

    scripts/gate-perf/phases-ab.py PH_KCAMP_A PH_KCAMP_B [N]     (N=40 rounds by default)
"""
import os, random, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab


def phases(text):
    """Each phase line's time since `main` (ms), by name."""
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) ([\d.]+) f\d+", text, re.M)}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    builds, n = sys.argv[1:3], int(sys.argv[3]) if len(sys.argv) > 3 else 40
    files = ab.generate_pair(tempfile.mkdtemp())
    here = os.path.dirname(os.path.abspath(__file__))
    reference = [sys.executable, os.path.join(here, "..", "..", "benches", "gate_reference.py")] + files
    runs, rng = {b: [] for b in builds}, random.Random(3)
    for _ in range(n):
        order = builds[:]
        rng.shuffle(order)
        for b in order:
            subprocess.run(reference, stdout=subprocess.DEVNULL)
            done = subprocess.run([b, "gate", *files], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=dict(os.environ, PH="1"), text=True)
            runs[b].append(phases(done.stderr))
    spans = [("main to the gate", "main", "gate"), ("reading", "gate", "read"),
             ("judging", "read", "judged"), ("the table", "judged", "table"),
             ("judging and the table", "read", "table"), ("main to its end", "main", "end")]
    for b in builds:
        print(b)
        for name, start, end in spans:
            v = [r[end] - r.get(start, 0.0) for r in runs[b] if end in r]
            if v:
                print(f"  {name:<24} median {statistics.median(v):6.3f} ms")


if __name__ == "__main__":
    main()
