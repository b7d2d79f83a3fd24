#!/usr/bin/env python3
"""Pick the version worth a campaign round from an explore.sh run: the fastest at the largest
square shape among the versions that lose no shape by more than 5% to the control (the first
version named, usually the incumbent), measured in the same run. Prints its name (nothing when
no version beats the control by 2% there), so a run can go on to record it as a round.
    scripts/h200/pick.py EXPLORE_OUT LINEAGE CONTROL VERSION...
"""
import json, os, sys

out, lineage, control, versions = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]


def rates(version):
    try:
        d = json.load(open(os.path.join(out, "explore", f"{lineage}-{version}.json")))
    except (OSError, ValueError):
        return None
    r = {}
    for s in (d.get("result") or {}).get("shapes", []):
        if s.get("check") != "PASS" or not s.get("latency_us"):
            return None
        b, m, n, k = s["dims"]
        r[s["label"]] = 2 * b * m * n * k / (s["latency_us"] * 1e-6) / 1e12
    return r or None


base = rates(control)
if not base:
    sys.exit(f"no result for the control {control}")
big = max(base, key=lambda label: base[label])  # the control's fastest shape: the large square
best, best_rate = None, base[big] * 1.02
for v in versions:
    r = rates(v)
    if not r or any(r.get(label, 0) < 0.95 * rate for label, rate in base.items()):
        continue
    if r[big] > best_rate:
        best, best_rate = v, r[big]
if best:
    print(best)
