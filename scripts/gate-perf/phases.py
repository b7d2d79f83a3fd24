#!/usr/bin/env python3
"""Where a `kcamp gate` run spends its time, from N runs of a build made with
phase-timing.patch: the medians and quartiles behind the READMEs' "in process" figures.

    scripts/gate-perf/phases.py PH_KCAMP [N] [py]

With `py`, each run comes right after a run of the Python gate (cold caches, an idle second
CPU), as in ab.py's rounds; without, the runs follow one another. Besides the phases it
prints how long each thread read: with this stop's patch, its own file and then its taking
from the other's (Lread/Rread lines); with the patch of `e80d566` and before, its one file
(rL0..rL1, rR0..rR1). A thread read fast (under FAST ms) or slow; the count of runs with
both fast, both slow or one of each is the README's "26, 40 and 34".
"""
import os, re, statistics, sys, tempfile, time

FAST = 3.3  # ms: between the two modes seen on the 2-vCPU machine (2.4-2.8 and 4.0-4.4)


def generate_if_missing(work):
    """ab.py's two files, made by ab.py's own generator."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ab
    return ab.generate_pair(work)


def main():
    kcamp, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with_py = "py" in sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp()
    files = generate_if_missing(work)
    reference = [sys.executable, os.path.join(here, "..", "..", "benches", "gate_reference.py")]
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    err = f"{work}/stderr"
    env = dict(os.environ, PH="1")
    runs = []
    for _ in range(n):
        if with_py:
            os.waitpid(os.posix_spawn(reference[0], reference + files, os.environ,
                                      file_actions=quiet), 0)
        t = time.perf_counter()
        pid = os.posix_spawn(kcamp, [kcamp, "gate"] + files, env, file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
        os.waitpid(pid, 0)
        total = (time.perf_counter() - t) * 1e3
        marks, threads = {}, {}
        for line in open(err):
            if m := re.match(r"(\w+) ([\d.]+) f\d+", line):
                marks[m.group(1)] = float(m.group(2))
            elif m := re.match(r"\s+(L|R)read ([\d.]+)\.\.([\d.]+) own", line):
                threads[m.group(1)] = float(m.group(3)) - float(m.group(2))
        for side in "LR":
            if f"r{side}1" in marks:
                threads[side] = marks[f"r{side}1"] - marks[f"r{side}0"]
        runs.append((total, marks, threads))

    def show(name, values):
        v = sorted(values)
        print(f"{name:26s} median {statistics.median(v):6.3f} ms, quartiles "
              f"{v[len(v) // 4]:6.3f} to {v[3 * len(v) // 4]:6.3f}")

    show("whole process", [t for t, _, _ in runs])
    for name, f in (("main to the gate", lambda m: m["gate"]),
                    ("reading both files", lambda m: m["read"] - m["gate"]),
                    ("judging", lambda m: m["judged"] - m["read"]),
                    ("the table", lambda m: m["table"] - m["built"]),
                    ("main to its end", lambda m: m["end"])):
        show(name, [f(m) for _, m, _ in runs])
    pairs = [(th["L"], th["R"]) for _, _, th in runs if "L" in th and "R" in th]
    if pairs:
        show("main thread's own file", [a for a, _ in pairs])
        show("helper's own file", [b for _, b in pairs])
        fast = [(a < FAST, b < FAST) for a, b in pairs]
        print(f"runs with both threads fast {sum(a and b for a, b in fast)}, both slow "
              f"{sum(not a and not b for a, b in fast)}, one of each "
              f"{sum(a != b for a, b in fast)} (fast: under {FAST} ms)")


if __name__ == "__main__":
    main()
