#!/usr/bin/env python3
"""kcamp harness for a PyTorch / Triton / CUDA-extension kernel.

Written by `kcamp init --harness torch`. kcamp runs it through the manifest's
`quick_command` / `full_command`:

    python3 harness/bench.py --csv {csv} --kernel-dir {kernel_dir}

It loads `kernel.py` from the kernel directory it is given (the working `kernel/`, or
the incumbent's snapshot when kcamp pairs the two), measures the shapes kcamp asks
for, and writes the frozen-schema CSV at `--csv` and `samples.csv` beside it.

What kcamp passes (the harness contract, docs/harness.md in the kcamp repository):
  KCAMP_SHAPES_FILE  JSON {"op", "dtype", "validation", "seed", "timeout_sec",
                     "shapes": [{"label", "dims": {"M": .., "N": .., "K": ..}, "timed"}]}
  KCAMP_SHAPES       the labels, comma-separated (used with harness/shapes.json
                     when KCAMP_SHAPES_FILE is absent)
  KCAMP_VALIDATION   quick | full | check (check: correctness only, nothing timed)
  KCAMP_SEED         the input seed; kcamp changes it every validation
  KCAMP_KERNEL_DIR   the kernel directory (the same as --kernel-dir)

How a shape is measured (each step: forward, and for GEMM the backward dA and dB):
  inputs     uniform in [-1, 1), the bits of kcamp's built-in runner (value_bits below,
             seeded with KCAMP_SEED and the label), generated on the device: exact in
             the dtype, never all zero, fresh every validation, identical for the two
             kernels of one validation (under --persistent: of one pair).
  check      against a float64 reference computed on the same device from the very
             inputs the kernel read. rel_err = ||out - ref|| / ||ref|| (Frobenius),
             snr = 10 log10(||ref||^2 / ||out - ref||^2) dB. PASS iff the output has
             the right shape and dtype, no NaN or Inf, is not all zeros, and rel_err
             is below the tolerance (TOLERANCE below; --rtol overrides). The output of
             the last timed call is checked too.
  warm-up    calls until --warmup-ms of wall time and --warmup-iters calls have passed.
  timing     --repeats samples; each sample is as many calls as make it last
             --min-sample-ms. On a GPU each call is timed alone with CUDA events, after
             an L2 flush (a write of --flush-mib MiB, larger than any L2) outside the
             timed interval; on the CPU (one torch thread unless --threads) the calls
             of a sample are timed together (no cache flush) by the process's CPU
             time, time.process_time: on a shared machine the time another process
             held the core is not the kernel's (--cpu-clock wall: time.perf_counter).
  CSV        rate = work / mean time, with the relative stddev of the times. A
             kernel that raises, fails to import or returns a wrong result is a FAIL
             row, not a crash: the script exits 0 whenever it wrote every row, 2 on
             bad input (unknown shape, bad arguments).

With --persistent (manifest: harness.protocol: persistent, the command without --csv and
--kernel-dir) one process serves every invocation of a validation: a JSON request per line
on stdin, a reply tagged with $KCAMP_REPLY_TAG per request on stdout (serve() below).

Run it by hand (all target shapes of harness/shapes.json, a seed of your choice):
    KCAMP_SEED=1 python3 harness/bench.py --csv /tmp/out.csv --kernel-dir kernel
Only stdlib and torch are needed.
"""

import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import traceback
import warnings
import zlib

# kcamp hashes and snapshots the kernel directory: importing kernel.py must not leave a
# __pycache__ in it.
sys.dont_write_bytecode = True

# torch works without numpy (this script needs none) but warns at import without it.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402

# Relative Frobenius error a PASS allows, per (op, dtype). f32 GEMM admits TF32 (10-bit
# mantissa: about 5e-4 on random inputs); f16 admits f16 rounding of the output and
# f32 (or f16) accumulation. axpy has no reduction, so f32 is held to f32 rounding.
TOLERANCE = {
    ("gemm", "f32"): 2e-3,
    ("gemm", "f16"): 1e-2,
    ("axpy", "f32"): 1e-4,
    ("axpy", "f16"): 1e-2,
}

DTYPES = {"f32": torch.float32, "f16": torch.float16}

# The frozen CSV headers (kcamp's csv-schema.md): byte for byte.
HEADERS = {
    "gemm": "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr",
    "axpy": "label,N,Check,Forward GB/s,Forward GB/s_stddev,Forward Time (ms),out_snr",
}
SAMPLES_HEADER = "label,metric,repeat,value"

# At most this many calls make one sample: a kernel of a few microseconds needs
# hundreds for a millisecond, and more would only repeat the same cache state.
MAX_CALLS_PER_SAMPLE = 1000
DEFAULT_FLUSH_MIB = 256


class BadInput(Exception):
    """Something kcamp or the user passed is wrong: exit 2 with the message."""


# ---------------------------------------------------------------------------------------
# The shapes to measure


def load_request(args):
    """The op, dtype, validation, seed and shapes of this invocation.

    KCAMP_SHAPES_FILE when kcamp passes it; else harness/shapes.json (written by
    `kcamp init`, the target shapes) filtered by KCAMP_SHAPES when that is set.
    """
    path = os.environ.get("KCAMP_SHAPES_FILE")
    from_kcamp = bool(path)
    if not path:
        path = args.shapes_file or os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read the shapes file {path}: {e}") from e
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: expected a JSON object with 'op', 'dtype' and 'shapes'")
    op, dtype = doc.get("op"), doc.get("dtype")
    if op not in HEADERS:
        raise BadInput(f"{path}: field 'op' is {op!r}; this harness knows {sorted(HEADERS)}")
    if dtype not in DTYPES:
        raise BadInput(f"{path}: field 'dtype' is {dtype!r}; this harness knows {sorted(DTYPES)}")
    shapes = doc.get("shapes")
    if not isinstance(shapes, list):
        raise BadInput(f"{path}: field 'shapes' must be a list")
    parsed = [parse_shape(op, s, i, path) for i, s in enumerate(shapes)]
    labels = os.environ.get("KCAMP_SHAPES")
    if not from_kcamp and labels:
        by_label = {s["label"]: s for s in parsed}
        wanted = [l for l in labels.split(",") if l]
        unknown = [l for l in wanted if l not in by_label]
        if unknown:
            raise BadInput(
                f"KCAMP_SHAPES names {', '.join(unknown)}, which {path} does not list "
                "(without KCAMP_SHAPES_FILE the dimensions come from that file: add them there)"
            )
        parsed = [by_label[l] for l in wanted]
    validation = os.environ.get("KCAMP_VALIDATION") or doc.get("validation") or "full"
    if validation not in ("quick", "full", "check"):
        raise BadInput(f"KCAMP_VALIDATION is {validation!r}; expected quick, full or check")
    if validation == "check":
        for s in parsed:
            s["timed"] = False
    seed = os.environ.get("KCAMP_SEED", doc.get("seed"))
    if seed is None or seed == "":
        # Run by hand without a seed: a fresh one, printed so the run can be repeated.
        seed = int.from_bytes(os.urandom(8), "little") >> 1
        print(f"[bench] no KCAMP_SEED: using seed {seed}", flush=True)
    try:
        seed = int(seed)
    except (TypeError, ValueError) as e:
        raise BadInput(f"KCAMP_SEED {seed!r} is not an integer") from e
    return op, dtype, validation, seed, parsed


def parse_shape(op, s, i, path):
    where = f"{path}: shapes[{i}]"
    if not isinstance(s, dict) or not isinstance(s.get("label"), str) or not s["label"]:
        raise BadInput(f"{where}: expected {{\"label\": .., \"dims\": {{..}}}}")
    dims = s.get("dims")
    if not isinstance(dims, dict):
        raise BadInput(f"{where} ('{s['label']}'): field 'dims' must be an object")
    names = ["B", "M", "N", "K"] if op == "gemm" else ["N"]
    out = {}
    for name in names:
        v = dims.get(name, 1 if name == "B" else None)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise BadInput(f"{where} ('{s['label']}'): dimension {name} must be a positive integer, got {v!r}")
        out[name] = v
    extra = sorted(set(dims) - set(names))
    if extra:
        raise BadInput(f"{where} ('{s['label']}'): unknown dimension(s) {', '.join(extra)} for {op}")
    timed = s.get("timed", True)
    if not isinstance(timed, bool):
        raise BadInput(f"{where} ('{s['label']}'): field 'timed' must be true or false")
    return {"label": s["label"], "dims": out, "timed": timed}


def shape_seed(seed, label):
    """Per-shape seed: the same shape gets the same inputs whatever else is measured."""
    return (seed * 0x9E3779B97F4A7C15 + zlib.crc32(label.encode())) % (1 << 63)


def pair_seed(seed, pair):
    """The seed of one pair of a persistent harness's requests: pair 1 (and a check, and
    every one-process invocation) uses the validation's seed, pair p its seed + p - 1, so
    a kernel that kept a result from an earlier request fails the check."""
    if pair is None or pair <= 1:
        return seed
    return (seed + pair - 1) % (1 << 64)


# The counter-based generator kcamp's built-in runner uses (kcamp_core::inputs::value_bits):
# element `index` of input buffer `buffer` depends on the seed, the buffer and the index
# alone. u32 arithmetic in int64 tensors masked to 32 bits; a product with a 32-bit constant
# is taken in 16-bit halves so that it never overflows int64.
M32 = 0xFFFFFFFF


def _mul32(x, c):
    return ((x * (c & 0xFFFF)) + (((x * (c >> 16)) & 0xFFFF) << 16)) & M32


def _mix(x):
    """lowbias32, on a tensor or a Python int."""
    x = x ^ (x >> 16)
    x = _mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = _mul32(x, 0x846CA68B)
    return x ^ (x >> 16)


def input_key(seed, buffer):
    lo, hi = seed & M32, (seed >> 32) & M32
    return _mix(_mix(lo ^ _mix(hi)) ^ ((buffer * 0x9E3779B9) & M32))


def value_bits(seed, buffer, n, device):
    """The bits of elements 0..n-1 of `buffer`, an int64 tensor on `device`."""
    if n > 1 << 32:
        raise ValueError(f"{n} elements: the generator's index is 32 bits")
    key = input_key(seed, buffer)
    index = torch.arange(n, dtype=torch.int64, device=device)
    return _mix((_mix(index ^ key) + key) & M32)


def uniform(seed, buffer, shape, dtype, device):
    """Buffer `buffer` of a shape's inputs, row-major, in [-1, 1): 24 bits of f32 or 11 of
    f16, exact in the dtype, generated on the device."""
    n = math.prod(shape)
    bits = value_bits(seed, buffer, n, device)
    if dtype == torch.float16:
        t = (bits >> 21).to(torch.float32) * 2.0**-10 - 1.0
    else:
        t = (bits >> 8).to(torch.float32) * 2.0**-23 - 1.0
    return t.reshape(shape).to(dtype)


# ---------------------------------------------------------------------------------------
# The ops: inputs, the float64 reference, the calls to time


def gemm_problem(kernel, dims, dtype, device, seed):
    b, m, n, k = (dims[d] for d in "BMNK")
    # (M, K) @ (K, N) for B = 1, batched (B, M, K) @ (B, K, N) otherwise.
    lead = (b,) if b > 1 else ()
    a = uniform(seed, 0, lead + (m, k), dtype, device)
    bm = uniform(seed, 1, lead + (k, n), dtype, device)
    dc = uniform(seed, 2, lead + (m, n), dtype, device)
    a64, b64, dc64 = a.double(), bm.double(), dc.double()
    fwd = kernel.gemm
    # dA = dC·Bᵀ, dB = Aᵀ·dC. The default calls the forward kernel on transposed views,
    # as autograd does; kernel.py may define gemm_backward(a, b, dc) -> (da, db).
    bwd = getattr(kernel, "gemm_backward", None) or (
        lambda a_, b_, dc_: (fwd(dc_, b_.transpose(-1, -2)), fwd(a_.transpose(-1, -2), dc_))
    )
    steps = [
        {
            "prefix": "Forward",
            "call": lambda: (fwd(a, bm),),
            "refs": lambda: [a64 @ b64],
            "snr": ["out_snr"],
            "work": 2.0 * b * m * n * k,
        },
        {
            "prefix": "Backward",
            "call": lambda: tuple(bwd(a, bm, dc)),
            "refs": lambda: [dc64 @ b64.transpose(-1, -2), a64.transpose(-1, -2) @ dc64],
            "snr": ["da_snr", "db_snr"],
            "work": 4.0 * b * m * n * k,
        },
    ]
    return steps, "TFLOPS", 1e12


def axpy_problem(kernel, dims, dtype, device, seed):
    n = dims["N"]
    # alpha in [0.5, 2) from element 0 of buffer 2, exactly representable in f32.
    u = float(uniform(seed, 2, (1,), torch.float32, "cpu")[0])
    alpha = float(torch.tensor(0.5 + 1.5 * (u + 1) / 2, dtype=torch.float32))
    x = uniform(seed, 0, (n,), dtype, device)
    y = uniform(seed, 1, (n,), dtype, device)
    size = torch.finfo(dtype).bits // 8
    steps = [
        {
            "prefix": "Forward",
            "call": lambda: (kernel.axpy(alpha, x, y),),
            "refs": lambda: [alpha * x.double() + y.double()],
            "snr": ["out_snr"],
            # Reads x and y, writes out.
            "work": 3.0 * n * size,
        }
    ]
    return steps, "GB/s", 1e9


PROBLEMS = {"gemm": gemm_problem, "axpy": axpy_problem}


# ---------------------------------------------------------------------------------------
# Correctness


def compare(out, ref, dtype, tol):
    """(ok, reason or None, snr dB or None, rel_err or None) of one output."""
    if not isinstance(out, torch.Tensor):
        return False, f"returned {type(out).__name__}, not a tensor", None, None
    if tuple(out.shape) != tuple(ref.shape):
        return False, f"returned shape {tuple(out.shape)}, expected {tuple(ref.shape)}", None, None
    if out.dtype != dtype:
        return False, f"returned {out.dtype}, expected {dtype}", None, None
    if out.device != ref.device:
        out = out.to(ref.device)
    if not bool(torch.isfinite(out).all()):
        return False, "output holds NaN or Inf", None, None
    if int(torch.count_nonzero(out)) == 0:
        return False, "output is all zeros", None, None
    ref_norm = float(torch.linalg.vector_norm(ref))
    err_norm = float(torch.linalg.vector_norm(out.double() - ref))
    rel = err_norm / ref_norm
    snr = math.inf if err_norm == 0 else 20 * math.log10(ref_norm / err_norm)
    if not rel < tol:
        return False, f"rel_err {rel:.3g} >= tolerance {tol:g}", snr, rel
    return True, None, snr, rel


def check_outputs(step, outs, refs, dtype, tol, what):
    """Compare every output of a step; returns (ok, reason, {snr column: dB}, worst rel)."""
    ok, reasons, snrs, worst = True, [], {}, 0.0
    if len(outs) != len(refs):
        return False, f"{what}: returned {len(outs)} outputs, expected {len(refs)}", {}, None
    for out, ref, col in zip(outs, refs, step["snr"]):
        good, reason, snr, rel = compare(out, ref, dtype, tol)
        if snr is not None:
            snrs[col] = snr
        if rel is not None and worst is not None:
            worst = max(worst, rel)
        else:
            worst = None
        if not good:
            ok = False
            reasons.append(f"{what} {col[:-4]}: {reason}")
    return ok, "; ".join(reasons) or None, snrs, worst


# ---------------------------------------------------------------------------------------
# Timing


class Clock:
    """Times calls: CUDA events around each call after an L2 flush on a GPU; the process's
    CPU time (or, asked, the host clock) around a batch of calls on the CPU."""

    def __init__(self, device, flush_mib, cpu_clock="process"):
        self.cuda = device.type == "cuda"
        # CPU time counts only what this process computed: on a machine shared with other
        # work the wall clock also counts the time the scheduler gave the core away.
        self.cpu_clock = time.process_time if cpu_clock == "process" else time.perf_counter
        self.flush_buf = None
        if self.cuda and flush_mib > 0:
            self.flush_buf = torch.empty(int(flush_mib * (1 << 20)) // 4, dtype=torch.int32, device=device)

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def flush(self):
        # Writing a buffer larger than the L2 evicts the inputs and outputs of the last
        # call, so every timed call starts from device memory, as an op in a model does.
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    def wall_ms(self, call):
        """One call, synchronized, by the host clock (warm-up and untimed checks)."""
        self.sync()
        t0 = time.perf_counter()
        out = call()
        self.sync()
        return (time.perf_counter() - t0) * 1e3, out

    def sample_ms(self, call, calls):
        """Mean milliseconds of one call over `calls` calls; the last call's outputs."""
        if self.cuda:
            pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
            out = None
            for start, end in pairs:
                self.flush()
                start.record()
                out = call()
                end.record()
            torch.cuda.synchronize()
            return sum(s.elapsed_time(e) for s, e in pairs) / calls, out
        t0 = self.cpu_clock()
        out = None
        for _ in range(calls):
            out = call()
        return (self.cpu_clock() - t0) * 1e3 / calls, out


def warm_up(clock, call, warmup_ms, warmup_iters):
    """Call until `warmup_ms` of wall time and `warmup_iters` calls have passed (clocks up,
    autotuners and caches filled); at least one call. Returns the median milliseconds of
    the last five calls, which sizes the samples."""
    t0 = time.perf_counter()
    calls, last = 0, []
    while calls < max(1, warmup_iters) or (time.perf_counter() - t0) * 1e3 < warmup_ms:
        ms, _ = clock.wall_ms(call)
        calls += 1
        last = (last + [ms])[-5:]
    return statistics.median(last)


# ---------------------------------------------------------------------------------------
# One shape


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float) and math.isinf(v) and v > 0:
        return "inf"
    if isinstance(v, float) and not math.isfinite(v):
        return ""
    return repr(float(v))


def measure_shape(kernel, load_error, op, dtype, shape, device, clock, args, seed):
    """Returns (row dict, samples list, log line)."""
    label, dims = shape["label"], shape["dims"]
    tdtype = DTYPES[dtype]
    tol = args.rtol if args.rtol is not None else TOLERANCE[(op, dtype)]
    row = {"Check": "PASS"}
    samples = []
    if load_error:
        row["Check"] = "FAIL"
        return row, samples, f"FAIL ({load_error})"
    try:
        steps, unit, scale = PROBLEMS[op](kernel, dims, tdtype, device, shape_seed(seed, label))
    except Exception as e:  # inputs too large for the device, say
        row["Check"] = "ERROR"
        traceback.print_exc()
        return row, samples, f"ERROR (setting up inputs: {e})"
    reasons = []
    step_ms = []
    worst = 0.0
    for step in steps:
        refs = None
        try:
            refs = step["refs"]()
            # The first call checked on its own: a kernel that is wrong is not timed.
            first_ms, outs = clock.wall_ms(step["call"])
            ok, reason, snrs, rel = check_outputs(step, outs, refs, tdtype, tol, step["prefix"].lower())
            row.update(snrs)
            worst = None if (rel is None or worst is None) else max(worst, rel)
            if not ok:
                row["Check"] = "FAIL"
                reasons.append(reason)
                continue
            if not shape["timed"]:
                step_ms.append([first_ms])
                continue
            typical = warm_up(clock, step["call"], args.warmup_ms, args.warmup_iters)
            calls = max(1, min(MAX_CALLS_PER_SAMPLE, math.ceil(args.min_sample_ms / max(typical, 1e-6))))
            ms = []
            for _ in range(args.repeats):
                sample, outs = clock.sample_ms(step["call"], calls)
                ms.append(sample)
            # The last timed call's outputs are checked too: a kernel that skips work
            # when it has seen these inputs before fails.
            ok, reason, snrs, _ = check_outputs(step, outs, refs, tdtype, tol, step["prefix"].lower() + " (last timed call)")
            if not ok:
                row["Check"] = "FAIL"
                reasons.append(reason)
                continue
            step_ms.append(ms)
        except Exception as e:
            # The kernel raised (a compile error, an unsupported shape): this shape FAILs,
            # the traceback goes to the log, the other shapes go on.
            traceback.print_exc()
            row["Check"] = "FAIL"
            reasons.append(f"{step['prefix'].lower()}: {type(e).__name__}: {e}")
        finally:
            del refs
    if row["Check"] != "PASS":
        return row, [], f"{row['Check']} ({'; '.join(reasons)})"
    parts = []
    for step, ms in zip(steps, step_ms):
        rate_name = f"{step['prefix']} {unit}"
        time_name = f"{step['prefix']} Time (ms)"
        # A sample is never zero: a sample lasts --min-sample-ms, an untimed call includes
        # its synchronization.
        ms = [max(m, 1e-9) for m in ms]
        rates = [step["work"] / (m * 1e-3) / scale for m in ms]
        mean_ms = statistics.fmean(ms)
        row[rate_name] = step["work"] / (mean_ms * 1e-3) / scale
        # The rate's relative spread is the time's: consistent with a rate taken from the
        # mean time, however far one slow sample falls.
        row[rate_name + "_stddev"] = row[rate_name] * statistics.pstdev(ms) / mean_ms
        row[time_name] = mean_ms
        if shape["timed"]:
            for i, (m, r) in enumerate(zip(ms, rates), start=1):
                samples.append((label, rate_name, i, r))
                samples.append((label, time_name, i, m))
        parts.append(f"{step['prefix'].lower()} {mean_ms:.4g} ms {row[rate_name]:.4g} {unit}")
    if op == "gemm" and shape["timed"]:
        work = sum(s["work"] for s in steps)
        for i, (f, b) in enumerate(zip(*step_ms), start=1):
            samples.append((label, "Combined Step TFLOPS", i, work / ((f + b) * 1e-3) / 1e12))
    what = "timed" if shape["timed"] else "checked, not timed"
    err = "" if worst is None else f", rel_err {worst:.3g}"
    return row, samples, f"PASS ({what}: {', '.join(parts)}{err})"


def csv_row(op, label, dims, row):
    if op == "gemm":
        cells = [label, dims["B"], dims["M"], dims["N"], dims["K"], row["Check"]]
        metrics = ["Forward TFLOPS", "Forward TFLOPS_stddev", "Backward TFLOPS", "Backward TFLOPS_stddev",
                   "Forward Time (ms)", "Backward Time (ms)", "out_snr", "da_snr", "db_snr"]
    else:
        cells = [label, dims["N"], row["Check"]]
        metrics = ["Forward GB/s", "Forward GB/s_stddev", "Forward Time (ms)", "out_snr"]
    passed = row["Check"] == "PASS"
    for m in metrics:
        # A row that did not pass carries its SNRs (where known) and no timings.
        keep = passed or m.endswith("_snr")
        cells.append(fmt(row.get(m)) if keep else "")
    return ",".join(str(c) for c in cells)


# ---------------------------------------------------------------------------------------


def load_kernel(kernel_dir, op, name="kcamp_kernel"):
    """kernel.py of the kernel directory as module `name`, or the reason it cannot be used."""
    path = os.path.join(os.path.abspath(kernel_dir), "kernel.py")
    if not os.path.isfile(path):
        return None, f"{path} does not exist"
    # Helpers beside kernel.py (a Triton kernel in its own file) import by name.
    sys.path.insert(0, os.path.abspath(kernel_dir))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as e:
        traceback.print_exc()
        return None, f"importing {path}: {type(e).__name__}: {e}"
    if not callable(getattr(module, op, None)):
        return None, f"{path} defines no function {op}()"
    return module, None


def pick_device(name):
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise BadInput("--device cuda, but torch sees no CUDA device")
    return device


def flush_mib(device, asked):
    if asked is not None:
        return asked
    if device.type != "cuda":
        return 0
    # Twice the L2 where torch knows it, and never less than 256 MiB.
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
    return max(DEFAULT_FLUSH_MIB, math.ceil(2 * l2 / (1 << 20)))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", help="output CSV (samples.csv goes beside it); required unless --persistent")
    p.add_argument("--kernel-dir", default=os.environ.get("KCAMP_KERNEL_DIR", "kernel"),
                   help="directory holding kernel.py (default: $KCAMP_KERNEL_DIR, else kernel)")
    p.add_argument("--persistent", action="store_true",
                   help="serve kcamp's requests on stdin (harness.protocol: persistent) instead of one run")
    p.add_argument("--shapes-file", help="shapes JSON when KCAMP_SHAPES_FILE is not set (default: harness/shapes.json)")
    p.add_argument("--device", default="auto", help="auto (cuda if available, else cpu), cuda, cuda:N or cpu")
    p.add_argument("--repeats", type=int, default=10, help="timed samples per step (default 10)")
    p.add_argument("--warmup-ms", type=float, default=None, help="warm-up wall time per step (default 100 on a GPU, 20 on the CPU)")
    p.add_argument("--warmup-iters", type=int, default=3, help="least warm-up calls per step (default 3)")
    p.add_argument("--min-sample-ms", type=float, default=1.0, help="calls per sample grow until a sample lasts this (default 1)")
    p.add_argument("--flush-mib", type=float, default=None, help="L2 flush buffer on a GPU, MiB (default max(256, 2 x L2); 0: no flush)")
    p.add_argument("--threads", type=int, default=None, help="torch's CPU threads when measuring on the CPU (default 1)")
    p.add_argument("--cpu-clock", choices=["process", "wall"], default="process",
                   help="on the CPU: the process's CPU time (default; what the kernel computed, whatever else the machine ran) or the wall clock (use it with --threads N > 1: CPU time adds up the threads)")
    p.add_argument("--rtol", type=float, default=None, help="relative error a PASS allows (default: TOLERANCE in this file)")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.warmup_iters < 0 or args.min_sample_ms <= 0:
        raise BadInput("--repeats must be >= 1, --warmup-iters >= 0, --min-sample-ms > 0")
    if args.threads is not None and args.threads < 1:
        raise BadInput("--threads must be >= 1")
    if not args.persistent and not args.csv:
        raise BadInput("--csv is required (unless --persistent)")
    return args


def setup(args):
    """The device and the clock, set up once per process."""
    device = pick_device(args.device)
    if args.warmup_ms is None:
        args.warmup_ms = 100.0 if device.type == "cuda" else 20.0
    if device.type == "cpu":
        # The CPU path checks kernels and runs tests; torch's thread pool can wait out the
        # scheduler of a busy machine for milliseconds a call, so one thread unless asked.
        torch.set_num_threads(args.threads or 1)
    mib = flush_mib(device, args.flush_mib)
    return device, mib, Clock(device, mib, args.cpu_clock)


def measure(args, device, mib, clock, op, dtype, validation, seed, shapes, kernel_dir, csv_path, module="kcamp_kernel"):
    """Measure `shapes` of the kernel in `kernel_dir` into `csv_path` and samples.csv beside
    it. Returns 0, or 2 when the CSV cannot be written."""
    kernel, load_error = load_kernel(kernel_dir, op, module)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print(f"[bench] {op} {dtype} {validation}: {len(shapes)} shape(s) on {name} (torch {torch.__version__}), "
          f"kernel {os.path.abspath(kernel_dir)}, seed {seed}, flush {mib:g} MiB", flush=True)
    samples_path = os.path.join(os.path.dirname(os.path.abspath(csv_path)), "samples.csv")
    # Rows are written as they are measured, so a run that is killed leaves the shapes it
    # finished; a sample row follows its CSV row, never precedes it.
    try:
        out = open(csv_path, "w", encoding="utf-8")
        sam = open(samples_path, "w", encoding="utf-8")
    except OSError as e:
        raise BadInput(f"cannot write the CSV: {e}") from e
    with out, sam:
        out.write(HEADERS[op] + "\n")
        sam.write(SAMPLES_HEADER + "\n")
        for shape in shapes:
            row, samples, line = measure_shape(kernel, load_error, op, dtype, shape, device, clock, args, seed)
            out.write(csv_row(op, shape["label"], shape["dims"], row) + "\n")
            out.flush()
            for s in samples:
                sam.write(f"{s[0]},{s[1]},{s[2]},{fmt(s[3])}\n")
            sam.flush()
            print(f"[bench] {shape['label']}: {line}", flush=True)


# ---------------------------------------------------------------------------------------
# The persistent protocol (harness.protocol: persistent; docs/harness.md in kcamp)


def torch_settings():
    """The global switches a kernel.py may set (TF32, cuDNN's autotuner, the matmul
    precision): restored before every request, so that one kernel's settings never
    measure another."""
    b = torch.backends
    keys = [
        (b.cuda.matmul, "allow_tf32"),
        (b.cuda.matmul, "allow_fp16_reduced_precision_reduction"),
        (b.cuda.matmul, "allow_bf16_reduced_precision_reduction"),
        (b.cudnn, "allow_tf32"),
        (b.cudnn, "benchmark"),
        (b.cudnn, "deterministic"),
    ]
    saved = [(o, k, getattr(o, k)) for o, k in keys if hasattr(o, k)]
    precision = torch.get_float32_matmul_precision()
    threads = torch.get_num_threads()

    def restore():
        for o, k, v in saved:
            setattr(o, k, v)
        torch.set_float32_matmul_precision(precision)
        torch.set_num_threads(threads)

    return restore


def forget_kernel(kernel_dir, module):
    """Unload what a request imported from `kernel_dir`: the kernel module and the helpers
    beside it, so that the next request imports its own directory's, fresh."""
    root = os.path.abspath(kernel_dir)
    while root in sys.path:
        sys.path.remove(root)
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None) or ""
        if name == module or os.path.abspath(f).startswith(root + os.sep):
            del sys.modules[name]


def request_of(req):
    """The op, dtype, validation, seed, shapes, kernel_dir, csv and pair of a request."""
    if not isinstance(req, dict):
        raise BadInput("a request must be a JSON object")
    op, dtype = req.get("op"), req.get("dtype")
    if op not in HEADERS:
        raise BadInput(f"request field 'op' is {op!r}; this harness knows {sorted(HEADERS)}")
    if dtype not in DTYPES:
        raise BadInput(f"request field 'dtype' is {dtype!r}; this harness knows {sorted(DTYPES)}")
    validation = req.get("validation")
    if validation not in ("quick", "full", "check"):
        raise BadInput(f"request field 'validation' is {validation!r}; expected quick, full or check")
    seed, pair = req.get("seed"), req.get("pair")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BadInput(f"request field 'seed' is {seed!r}; expected an integer")
    if pair is not None and (not isinstance(pair, int) or isinstance(pair, bool) or pair < 1):
        raise BadInput(f"request field 'pair' is {pair!r}; expected a positive integer or null")
    shapes = req.get("shapes")
    if not isinstance(shapes, list):
        raise BadInput("request field 'shapes' must be a list")
    parsed = [parse_shape(op, s, i, "request") for i, s in enumerate(shapes)]
    if validation == "check":
        for s in parsed:
            s["timed"] = False
    for field in ("kernel_dir", "csv"):
        if not isinstance(req.get(field), str) or not req[field]:
            raise BadInput(f"request field '{field}' must be a path")
    return op, dtype, validation, pair_seed(seed, pair), parsed, req["kernel_dir"], req["csv"]


def serve(args):
    """Answer kcamp's requests, one JSON line each on stdin, until stdin ends."""
    tag = os.environ.get("KCAMP_REPLY_TAG")
    if not tag:
        raise BadInput("--persistent: KCAMP_REPLY_TAG is not set (kcamp sets it under harness.protocol: persistent)")
    # Replies go to a private copy of stdout; fd 1 becomes stderr, so that nothing a kernel
    # or a library prints (Python or C) lands on the reply channel. kcamp reads both.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)

    def reply(obj):
        replies.write(f"{tag} {json.dumps(obj)}\n")
        replies.flush()

    device, mib, clock = setup(args)
    restore = torch_settings()
    reply({"ready": True})
    served = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        served += 1
        module = f"kcamp_kernel_{served}"
        kernel_dir = None
        try:
            op, dtype, validation, seed, shapes, kernel_dir, csv_path = request_of(json.loads(line))
            restore()
            measure(args, device, mib, clock, op, dtype, validation, seed, shapes, kernel_dir, csv_path, module)
            reply({"done": True, "csv": csv_path})
        except (BadInput, ValueError) as e:
            reply({"error": f"bench.py: {e}"})
        except Exception as e:
            traceback.print_exc()
            reply({"error": f"bench.py: {type(e).__name__}: {e}"})
        finally:
            if kernel_dir:
                forget_kernel(kernel_dir, module)


def main(argv):
    try:
        args = parse_args(argv)
        if args.persistent:
            return serve(args)
        op, dtype, validation, seed, shapes = load_request(args)
        device, mib, clock = setup(args)
        measure(args, device, mib, clock, op, dtype, validation, seed, shapes, args.kernel_dir, args.csv)
    except BadInput as e:
        print(f"bench.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
