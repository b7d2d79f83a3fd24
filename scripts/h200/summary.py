# The table scripts/h200.sh prints last: what every figure was, measured in one run.
#   python3 summary.py OUT
import csv, glob, json, os, re, sys

out = sys.argv[1]


def load(path, default=None):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return default


torch = load(f"{out}/torch.json", {})
ref = torch.get("gemm_tflops", {})
peak = (load(f"{out}/peak.json", {}) or {}).get("measurement", {})
adapters = load(f"{out}/adapters.json", {})
lines = []
say = lines.append
say(f"kcamp on {json.dumps(adapters)[:160]}")
say(f"timing: GPU timestamps around each pass (kcamp); torch {torch.get('torch', '-')}: {torch.get('method', '-')}")


def rows(csv_path):
    try:
        return {r["label"]: r for r in csv.DictReader(open(csv_path))}
    except OSError:
        return {}


def f(x, d=3):
    """Three significant digits (0.000467, 33.5, 4290), whatever the scale."""
    if x is None:
        return "-"
    if x != x:
        return "FAIL"
    return f"{x:.{d}g}" if abs(x) < 10 ** d else f"{x:.0f}"


T0 = float(os.environ.get("RUN_T0", "0"))


def this_run(rd):
    """Whether the round was measured in this run (a continued campaign holds earlier runs' rounds)."""
    res = load(f"{rd}/artifacts/result.json", {}) or {}
    started = res.get("started_at", "")
    try:
        from datetime import datetime
        return datetime.fromisoformat(started[:26].rstrip("Z") + "+00:00").timestamp() >= T0
    except ValueError:
        return False


for name, dt in (("h200-sgemm-f32", "fp32"), ("h200-hgemm-f16", "fp16")):
    c = f"{out}/campaigns/{name}"
    if not os.path.isdir(c):
        say(f"\n{name}: not recorded")
        continue
    say(f"\n{name}: Forward TFLOP/s per round, x ref = / torch {dt} of this run; decision by kcamp's gate; * = measured in this run")
    say(f"{'round':<6}{'decision':<13}{'verdict':<18}{'sq4096':>8}{'x ref':>7}{'r2047':>8}{'b8x512':>8}  hypothesis")
    best = best_now = None
    for rd in sorted(glob.glob(f"{c}/rounds/round-*"), key=lambda p: int(p.rsplit("-", 1)[1])):
        n = int(rd.rsplit("-", 1)[1])
        dec = load(f"{rd}/decision.json", {}) or {}
        gate = load(f"{rd}/artifacts/gate.json", {}) or {}
        r = rows(f"{rd}/artifacts/benchmark.csv")
        hyp = open(f"{rd}/hypothesis.md").read().strip().replace("\n", " ") if os.path.exists(f"{rd}/hypothesis.md") else ""
        def tf(label):
            row = r.get(label)
            if not row or row["Check"] != "PASS":
                return None if not row else float("nan")
            return float(row["Forward TFLOPS"])
        sq = tf("sq4096")
        ratio = sq / ref[f"{dt}/sq4096"] if sq and ref.get(f"{dt}/sq4096") else None
        if dec.get("decision") in ("BASELINE", "ACCEPTED") and sq and sq == sq:
            best = max(best or 0, sq)
            if this_run(rd):
                best_now = max(best_now or 0, sq)
        verdict = (gate.get("report") or {}).get("verdict", dec.get("verdict") or "")
        say(f"{n:<5}{'*' if this_run(rd) else ' '}{dec.get('decision', 'OPEN'):<13}{verdict or '':<18}{f(sq):>8}{f(ratio, 2):>7}{f(tf('r2047x1999x1023')):>8}{f(tf('b8x512')):>8}  {hyp[:70]}")
        if this_run(rd) and dec.get("decision") == "ROLLED_BACK":
            # Why the gate said no, for the rounds of this run (the pairing note is method, not reason).
            why = [x for x in (gate.get("report") or {}).get("reasons", []) if not x.startswith("paired:")]
            say(f"      why: {' | '.join(why[:2])[:240]}")
    rep = load(f"{out}/campaigns/{name}.report.json", {}) or {}
    say(f"final acceptance (kcamp report): {rep.get('verdict', rep.get('error', '-'))}; gain {f((rep.get('gain') or 0) * 100)}% over BASELINE")
    final = rows(f"{c}/report/final/benchmark.csv")
    for label in final:
        row = final[label]
        v = float(row["Forward TFLOPS"]) if row["Check"] == "PASS" else None
        rr = ref.get(f"{dt}/{label}")
        say(f"  final {label:<18}{row['Check']:<6}{f(v):>8} TFLOP/s   torch {dt} {f(rr):>7}   x {f(v / rr if v and rr else None, 2)}")
    r4 = ref.get(f"{dt}/sq4096")
    say(f"best accepted at sq4096 (quick validations, any run): {f(best)} TFLOP/s; measured in this run: {f(best_now)} = {f(best_now / r4 if best_now and r4 else None, 2)}x torch {dt}")

say("\nruntime checks, forward TFLOP/s at the largest square (kcamp run, one shape):")
say(f"{'kernel':<16}{'full':>9}{'bounds':>9}{'none':>9}")
for k in ("01-naive", "02-tiled64", "13-unroll-bk16"):
    vals = []
    for mode in ("full", "bounds_checks", "none"):
        d = load(f"{out}/checks-{k}-{mode}.json", {}) or {}
        vals.append((d.get("summary") or {}).get("aggregate"))
    say(f"{k:<16}" + "".join(f" {f(v):>8}" for v in vals))

ax = load(f"{out}/axpy.json", {}) or {}
lat = (ax.get("summary") or {}).get("latency_us_by_shape", {})
for label, n in (("n64m", 1 << 26), ("n256m", 1 << 28)):
    if label in lat:
        gbps = 3 * n * 4 / (lat[label] * 1e-6) / 1e9
        t = torch.get("add_gbps_n256m")
        say(f"axpy_u4 {label}: {gbps:.0f} GB/s; torch add (2^28) {f(t)} GB/s; x {f(gbps / t if t else None, 3)}")
copy = (peak.get("copy") or {}).get("gbps")
tc = torch.get("copy_gbps_1GiB")
say(f"kcamp peak copy 1 GiB: {f(copy)} GB/s; torch copy {f(tc)} GB/s; x {f(copy / tc if copy and tc else None, 3)}; fma f32 {f((peak.get('fma_f32') or {}).get('tflops'))} TFLOP/s")
print("\n".join(lines))
