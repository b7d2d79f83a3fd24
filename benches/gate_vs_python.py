#!/usr/bin/env python3
"""`kcamp gate` against the plain Python gate (gate_reference.py), whole processes, on the
same two generated 10,000-shape GEMM CSVs, run in turn in a shuffled order each round so both
meet the same load. Prints each command's median and the ratio taken round by round.

    benches/gate_vs_python.py [KCAMP] [ROUNDS]     (default target/release/kcamp, 30)
"""
import os, random, statistics, subprocess, sys, tempfile, time

HEADER = ("label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
          "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr")


def write(path, seed, scale):
    r, lines = random.Random(seed), [HEADER]
    for i in range(10_000):
        m, n, k = 64 * (1 + i % 32), 64 * (1 + i % 17), 64 * (1 + i % 23)
        f, b, rel = r.uniform(0.5, 50) * scale, r.uniform(0.5, 50) * scale, r.uniform(0.005, 0.03)
        flop = 2.0 * m * n * k
        lines.append(f"shape{i},1,{m},{n},{k},PASS,{f!r},{f * rel!r},{b!r},{b * rel!r},"
                     f"{flop / (f * 1e12) * 1e3!r},{2 * flop / (b * 1e12) * 1e3!r},120.5,inf,118.25")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1e3


def main():
    kcamp = sys.argv[1] if len(sys.argv) > 1 else "target/release/kcamp"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    reference = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gate_reference.py")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
        write(a, 1, 1.0)
        write(b, 2, 1.01)
        commands = {
            "kcamp gate": [kcamp, "gate", a, b],
            "kcamp --json gate": [kcamp, "--json", "gate", a, b],
            "python gate": [sys.executable, reference, a, b],
        }
        times = {name: [] for name in commands}
        for _ in range(rounds):
            order = list(commands)
            random.shuffle(order)
            for name in order:
                times[name].append(timed(commands[name]))
    for name, ts in times.items():
        print(f"{name:18} median {statistics.median(ts):7.1f} ms over {rounds} rounds")
    for name in ("kcamp gate", "kcamp --json gate"):
        ratios = [p / k for p, k in zip(times["python gate"], times[name])]
        print(f"python / {name}: median {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main()
