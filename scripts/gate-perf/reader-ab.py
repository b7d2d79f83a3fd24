#!/usr/bin/env python3
"""The gate's two ways of reading its files, compared in one binary: each file on its own
thread (`ONE_FILE_A_THREAD=1`) against the shared reading in chunks (`schema::chunks`), the
reading's time printed by the build (`READ_TIME=1`). Both ways run every round, in a shuffled
order; with `py`, each round starts with a run of the Python gate, as in ab.py.

    git apply scripts/gate-perf/reader-switch.patch && cargo build --release
    cp target/release/kcamp /tmp/kcamp-switch && git checkout -- src
    scripts/gate-perf/reader-ab.py /tmp/kcamp-switch [N] [py]

The gate-perf README's "4.22 -> 3.75 ms" (150 rounds, py) and "4.19 -> 3.65 ms" (150
rounds) are this script's medians.
"""
import os, random, re, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402  (its generator makes the same two files)


def main():
    kcamp, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 150
    with_py = "py" in sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp()
    files = ab.generate_pair(work)
    reference = [sys.executable, os.path.join(here, "..", "..", "benches", "gate_reference.py")]
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    err = f"{work}/stderr"
    reads = {"one file a thread": [], "in chunks": []}
    totals = {k: [] for k in reads}
    order, shuffle = list(reads), random.Random(3).shuffle
    for _ in range(n):
        if with_py:
            os.waitpid(os.posix_spawn(reference[0], reference + files, os.environ,
                                      file_actions=quiet), 0)
        shuffle(order)
        for way in order:
            env = dict(os.environ, READ_TIME="1")
            if way == "one file a thread":
                env["ONE_FILE_A_THREAD"] = "1"
            t = time.perf_counter()
            pid = os.posix_spawn(kcamp, [kcamp, "gate"] + files, env, file_actions=[
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
            os.waitpid(pid, 0)
            totals[way].append((time.perf_counter() - t) * 1e3)
            for line in open(err):
                if m := re.match(r"readtime ([\d.]+)", line):
                    reads[way].append(float(m.group(1)))
    for way, v in reads.items():
        v, t = sorted(v), sorted(totals[way])
        print(f"{way}: reading median {statistics.median(v):.3f} ms, quartiles "
              f"{v[len(v) // 4]:.3f} to {v[3 * len(v) // 4]:.3f}; whole process median "
              f"{statistics.median(t):.2f} ms")


if __name__ == "__main__":
    main()
