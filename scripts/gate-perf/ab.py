#!/usr/bin/env python3
"""Whole `kcamp gate` processes of two (or more) binaries timed alternately on the same two
generated 10,000-shape GEMM CSVs (the shape of benches/gate.rs's files), with the Python
reference gate beside them when `py` is named: the README's "44.9 to 35.6 ms" comparison.

    scripts/gate-perf/ab.py OLD_KCAMP NEW_KCAMP [py]      (N=80 rounds by default)
    ARGS=--json scripts/gate-perf/ab.py OLD NEW py         (the JSON form)
    RAW=rounds.txt scripts/gate-perf/ab.py NEW py          (each round appended to rounds.txt)

Each round runs every command once, in an order shuffled per round, so neighbouring runs
meet the same load and no binary always follows the Python gate (whose 150 ms leave caches
cold and the second CPU idle: the run right after it is slower). On a
shared virtual machine that load changes within seconds, and a run of one command after
another (hyperfine's) can put the whole of one command in a quiet minute and the other in a
busy one. With `py`, each binary's ratio to the Python gate is also taken round by round
(the Python gate's time over the binary's, in the same round) and its median printed.

Processes are started by posix_spawn, with /dev/null for their outputs, and timed from the
spawn to the end of waitpid (as hyperfine -N times them; subprocess.run added about 1 ms).
"""
import os, random, statistics, sys, tempfile, time

HEADER = ("label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
          "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr")


def generate(seed, scale, path):
    r, out = random.Random(seed), [HEADER]
    for i in range(10_000):
        m, n, k = 64 * (1 + i % 32), 64 * (1 + i % 17), 64 * (1 + i % 23)
        f, b, rel = r.uniform(0.5, 50) * scale, r.uniform(0.5, 50) * scale, r.uniform(0.005, 0.03)
        fl = 2.0 * m * n * k
        out.append(f"shape{i},1,{m},{n},{k},PASS,{f!r},{f * rel!r},{b!r},{b * rel!r},"
                   f"{fl / (f * 1e12) * 1e3!r},{2 * fl / (b * 1e12) * 1e3!r},120.5,inf,118.25")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def generate_pair(work):
    """The incumbent's and the candidate's files in `work` (inc/ and cand/benchmark.csv): the
    pair every script here measures."""
    files = []
    for side, seed, scale in (("inc", 1, 1.0), ("cand", 2, 1.05)):
        os.makedirs(f"{work}/{side}", exist_ok=True)
        generate(seed, scale, f"{work}/{side}/benchmark.csv")
        files.append(f"{work}/{side}/benchmark.csv")
    return files


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = generate_pair(tempfile.mkdtemp())
    python = sys.executable  # the interpreter itself, not a launcher script in front of it
    reference = os.path.join(here, "..", "..", "benches", "gate_reference.py")
    # ARGS: kcamp's own arguments before `gate`, e.g. ARGS=--json for the JSON form.
    kcamp_args = os.environ.get("ARGS", "").split()
    commands = {b: ([python, reference] if b == "py" else [b, *kcamp_args, "gate"]) + files
                for b in sys.argv[1:]}
    times = {b: [] for b in commands}
    # Whether each run came right after the Python gate's (in this round or the last).
    after_py = {b: [] for b in commands}
    previous = None
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    # The order is shuffled every round: a command run right after the 150 ms Python gate
    # meets colder caches and an idle second CPU, and one run right after another kcamp
    # does not, so a fixed order favoured whichever binary came second.
    order, shuffle = list(commands), random.Random(7).shuffle
    for _ in range(int(os.environ.get("N", "80"))):
        shuffle(order)
        for b in order:
            cmd = commands[b]
            t = time.perf_counter()
            pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=quiet)
            os.waitpid(pid, 0)
            times[b].append(time.perf_counter() - t)
            after_py[b].append(previous == "py")
            previous = b
    for b, v in times.items():
        v = sorted(v)
        print(f"{b}: median {statistics.median(v) * 1e3:.2f} ms, quartile {v[len(v) // 4] * 1e3:.2f}, "
              f"least {v[0] * 1e3:.2f} ({len(v)} runs)")
    if "py" in times:
        for b, v in times.items():
            if b != "py":
                cold = [t for t, a in zip(v, after_py[b]) if a]
                warm = [t for t, a in zip(v, after_py[b]) if not a]
                if cold and warm:
                    print(f"{b}: median {statistics.median(cold) * 1e3:.2f} ms right after the "
                          f"Python gate ({len(cold)} runs), {statistics.median(warm) * 1e3:.2f} ms "
                          f"after a kcamp run ({len(warm)})")
        for b, v in times.items():
            if b != "py":
                ratios = [p / k for p, k in zip(times["py"], v)]
                # RAW=FILE appends each round's two times and ratio, to pool several sets.
                if os.environ.get("RAW"):
                    with open(os.environ["RAW"], "a") as raw:
                        stamp = time.strftime("%H:%M:%S")
                        for p, k in zip(times["py"], v):
                            print(f"{stamp} {b} {' '.join(kcamp_args) or '-'} {k * 1e3:.3f} "
                                  f"{p * 1e3:.3f} {p / k:.3f}", file=raw)
                print(f"py / {b}, round by round: median {statistics.median(ratios):.1f}x, "
                      f"quartiles {statistics.quantiles(ratios, n=4)[0]:.1f}x to "
                      f"{statistics.quantiles(ratios, n=4)[2]:.1f}x")


if __name__ == "__main__":
    main()
