#!/usr/bin/env python3
"""A plain Python gate over two benchmark CSVs, the reference `kcamp gate` is timed against
(benches/gate.rs). It does what the CLI does for one metric without samples: read both files
with csv.DictReader, pair shapes by label and dimensions, compute each shape's change and
noise band, classify, take the geometric mean over shapes passing on both sides, and print
one line per shape and the verdict.

usage: gate_reference.py BASE.csv CAND.csv [METRIC]
"""
import csv
import math
import sys

FLOOR, MULT, REGRESSION = 0.02, 2.0, 0.05


def read(path, metric):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        names = reader.fieldnames
        dims = names[1 : names.index("Check")]
        rows = {}
        for r in reader:
            key = (r["label"], tuple(int(r[d]) for d in dims))
            if key in rows:
                sys.exit(f"{path}: duplicated shape {key}")
            value = float(r[metric]) if r["Check"] == "PASS" else None
            sd = float(r[metric + "_stddev"]) if r["Check"] == "PASS" else None
            rows[key] = (r["Check"], value, sd)
        return rows


def main():
    base, cand = sys.argv[1], sys.argv[2]
    metric = sys.argv[3] if len(sys.argv) > 3 else "Forward TFLOPS"
    inc, new = read(base, metric), read(cand, metric)
    if inc.keys() != new.keys():
        sys.exit("the two CSVs hold different shapes")
    out, logs_i, logs_c, hard, failed = [], [], [], 0, 0
    for key, (check, mu_c, sd_c) in new.items():
        inc_check, mu_i, sd_i = inc[key]
        if check != "PASS":
            failed += 1
            out.append(f"{key[0]} {check} failed")
            continue
        if inc_check != "PASS":
            out.append(f"{key[0]} PASS improved")
            continue
        delta = mu_c / mu_i - 1.0
        band = max(FLOOR, MULT * math.hypot(sd_i / mu_i, sd_c / mu_c))
        cls = "improved" if delta > band else "regressed" if delta < -band else "neutral"
        hard += delta < -max(REGRESSION, band)
        logs_i.append(math.log(mu_i))
        logs_c.append(math.log(mu_c))
        out.append(f"{key[0]} {mu_i:.5g} {mu_c:.5g} {delta * 100:+.2f}% ±{band * 100:.2f}% {cls}")
    agg = math.exp((sum(logs_c) - sum(logs_i)) / len(logs_i)) - 1.0 if logs_i else None
    if failed or hard:
        verdict = "REJECT"
    elif agg is not None and agg >= FLOOR:
        verdict = "ACCEPT"
    elif agg is not None and agg > 0:
        verdict = "NEEDS_REMEASURE"
    else:
        verdict = "REJECT"
    print("\n".join(out))
    print(f"verdict: {verdict} aggregate {agg}")
    return 0 if verdict == "ACCEPT" else 1


if __name__ == "__main__":
    sys.exit(main())
