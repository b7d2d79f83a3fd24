# Torch references for the kcamp H200 runs, same machine, same run. CUDA events, warm-up by time.
import json, sys, time, torch
out = sys.argv[1]
dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
def bench(fn, reps=30, warm_s=1.0):
    t0 = time.time()
    while time.time() - t0 < warm_s:
        fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    vals = []
    for _ in range(5):
        s.record()
        for _ in range(reps): fn()
        e.record(); torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) / reps)
    vals.sort()
    return vals[len(vals) // 2]
ref = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
       "method": "CUDA events around 30 back-to-back calls, median of 5, after 1 s warm-up"}
gemm = {}
for dt in ("fp32", "fp16"):
    for label, (bt, m, n, k) in {"sq4096": (1, 4096, 4096, 4096), "r2047x1999x1023": (1, 2047, 1999, 1023), "b8x512": (8, 512, 512, 512)}.items():
        d = torch.float32 if dt == "fp32" else torch.float16
        A = torch.rand(bt, m, k, device=dev, dtype=d) * 2 - 1; B = torch.rand(bt, k, n, device=dev, dtype=d) * 2 - 1
        ms = bench(lambda: torch.bmm(A, B))
        gemm[f"{dt}/{label}"] = 2 * bt * m * n * k / (ms * 1e-3) / 1e12
ref["gemm_tflops"] = gemm
torch.backends.cuda.matmul.allow_tf32 = True
A = torch.rand(4096, 4096, device=dev) * 2 - 1; B = torch.rand(4096, 4096, device=dev) * 2 - 1
ref["gemm_tflops"]["tf32/sq4096"] = 2 * 4096**3 / (bench(lambda: A @ B) * 1e-3) / 1e12
n = 1 << 28
x = torch.rand(n, device=dev); y = torch.rand(n, device=dev); o = torch.empty_like(x)
ms = bench(lambda: torch.add(y, x, alpha=1.5, out=o), reps=20)
ref["add_gbps_n256m"] = 3 * n * 4 / (ms * 1e-3) / 1e9
del x, y, o
x = torch.rand(1 << 28, device=dev); y = torch.empty_like(x)
ms = bench(lambda: y.copy_(x), reps=20)
ref["copy_gbps_1GiB"] = 2 * (1 << 28) * 4 / (ms * 1e-3) / 1e9
json.dump(ref, open(f"{out}/torch.json", "w"), indent=1)
print(json.dumps(ref))
