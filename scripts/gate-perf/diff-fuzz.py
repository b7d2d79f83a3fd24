#!/usr/bin/env python3
"""Two kcamp binaries, the same answers: `kcamp gate` on generated pairs of GEMM CSVs, in
text, JSON and CSV, must give the same exit code, standard output and standard error.

    python3 diff-fuzz.py OLD NEW [PAIRS] [SEED]

A change to how the gate reads or judges is checked against the binary before it. The files
have 1 to 6,000 shapes (from 2,000 the gate judges and writes on two threads) with labels of up to 70 bytes (some not ASCII), dims from 1 to 10^6,
FAIL, ERROR and TIMEOUT_FAIL rows (half of them with empty cells), numbers written as
Python's repr, fixed, exponent and %g forms, now and then a cell of another spelling (`.5`,
`5.`, `+3.5`, `1E-3`, `-0.0`, `nan`, `inf`, empty, long runs of zeros, values at the
metric's ceiling), blank lines and a missing last newline. Each pair draws how often such
cells occur (never, 1 in 500, 1 in 50), so some pairs are judged and others refused.
Differing pairs are kept as diff-fuzz-N-{a,b}.csv in the current directory.
"""
import os
import random
import subprocess
import sys
import tempfile

HEADER = ("label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
          "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr")
ODD_CELLS = ["0", "0.0", "-0.0", "00.50", ".5", "5.", "1e5", "99999.9", "100000", "1E-3",
             "1e+2", "+3.5", "-2.5", "inf", "-inf", "nan", "", "1e0001", "0." + "0" * 68 + "1",
             "0" * 70 + "1.5"]


def number(v, rng):
    k = rng.random()
    if k < 0.6:
        return repr(v)
    if k < 0.8:
        return f"{v:.{rng.randint(0, 18)}f}"
    if k < 0.95:
        return f"{v:.{rng.randint(0, 8)}e}"
    return f"{v:.{rng.randint(1, 17)}g}"


def cells(check, odd, rng):
    scale = lambda: rng.uniform(0.01, 500) * 10 ** rng.randint(-3, 2)
    fwd, bwd = scale(), scale()
    values = [fwd, fwd * rng.uniform(0, 0.2), bwd, bwd * rng.uniform(0, 0.2),
              rng.uniform(1e-6, 10), rng.uniform(1e-6, 10), rng.uniform(20, 200),
              rng.choice([float("inf"), rng.uniform(20, 200)]), rng.uniform(-5, 200)]
    out = ["inf" if v == float("inf") else number(v, rng) for v in values]
    out = [rng.choice(ODD_CELLS) if rng.random() < odd else c for c in out]
    if check != "PASS" and rng.random() < 0.5:
        out = [""] * 9
    return out


def write(path, shapes, odd, rng):
    lines = [HEADER]
    for label, dims in shapes:
        check = rng.choice(["PASS"] * 20 + ["FAIL", "ERROR", "TIMEOUT_FAIL"])
        lines.append(",".join([label] + dims + [check] + cells(check, odd, rng)))
        if rng.random() < 0.005:
            lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines) + ("\n" if rng.random() < 0.9 else ""))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    codes, differing = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
        for pair in range(pairs):
            n = rng.choice([1, 5, 40, 300, 2000, 6000])
            shapes = [(rng.choice([f"s{i}", f"shape_{i}", f"ш{i}", f"l{i}" + "x" * rng.randint(0, 60),
                                   f"a b{i}"]),
                       [str(rng.choice([1, 64, 128, 4096, rng.randint(1, 10**6)])) for _ in range(4)])
                      for i in range(n)]
            odd = rng.choice([0.0, 0.002, 0.02])
            write(a, shapes, odd, rng)
            write(b, shapes, odd, rng)
            for fmt in ["text", "json", "csv"]:
                runs = [subprocess.run([k, "gate", a, b, "--format", fmt], capture_output=True)
                        for k in (old, new)]
                answers = [(r.returncode, r.stdout, r.stderr) for r in runs]
                codes[answers[1][0]] = codes.get(answers[1][0], 0) + 1
                if answers[0] != answers[1]:
                    differing += 1
                    for side, path in (("a", a), ("b", b)):
                        with open(path) as src, open(f"diff-fuzz-{differing}-{side}.csv", "w") as dst:
                            dst.write(src.read())
                    print(f"pair {pair}, --format {fmt}: exit {answers[0][0]} vs {answers[1][0]}")
                    print("  old:", answers[0][2].decode(errors="replace")[:300])
                    print("  new:", answers[1][2].decode(errors="replace")[:300])
    runs = sum(codes.values())
    print(f"{pairs} pairs, {runs} runs of each binary; exit codes of the new one: "
          + ", ".join(f"{c}: {k}" for c, k in sorted(codes.items()))
          + f"; differing: {differing}")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
