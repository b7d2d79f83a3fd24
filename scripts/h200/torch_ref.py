# PyTorch references for scripts/h200.sh, in the same run as kcamp's measurements: cuBLAS
# GEMMs (fp32 with TF32 off, fp16 on the tensor cores) on the campaigns' shapes, torch.add
# (the axpy reference) and a device-to-device copy (the bandwidth reference).
#   python3 torch_ref.py OUT SHAPES.yaml      -> OUT/torch.json
# Method: CUDA events around back-to-back calls, median of 5, after >= 0.5 s of warm-up.
import json, re, sys, time
import torch

out, shapes_file = sys.argv[1], sys.argv[2]
dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def bench(fn, reps=30, warm_s=0.5):
    t0 = time.time()
    while time.time() - t0 < warm_s:
        fn()
        torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    vals = []
    for _ in range(5):
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) / reps)
    return sorted(vals)[2]


shapes = {}
for line in open(shapes_file):
    if not line.lstrip().startswith("- "):
        continue
    d = dict(re.findall(r"(\w+): *([^,}]+)", line))
    shapes[d["label"].strip()] = tuple(int(d.get(k, 1)) for k in ("B", "M", "N", "K"))
ref = {
    "device": torch.cuda.get_device_name(0),
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "method": "torch.bmm; CUDA events around 30 back-to-back calls, median of 5, after >= 0.5 s warm-up; fp32 with allow_tf32 = False",
    "gemm_tflops": {},
}
for dt, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
    for label, (b, m, n, k) in shapes.items():
        a = torch.rand(b, m, k, device=dev, dtype=dtype) * 2 - 1
        bm = torch.rand(b, k, n, device=dev, dtype=dtype) * 2 - 1
        ms = bench(lambda: torch.bmm(a, bm))
        ref["gemm_tflops"][f"{dt}/{label}"] = 2 * b * m * n * k / (ms * 1e-3) / 1e12
        del a, bm
n = 1 << 28
x = torch.rand(n, device=dev)
y = torch.rand(n, device=dev)
o = torch.empty_like(x)
ms = bench(lambda: torch.add(y, x, alpha=1.5, out=o), reps=20)
ref["add_gbps_n256m"] = 3 * n * 4 / (ms * 1e-3) / 1e9
ms = bench(lambda: o.copy_(x), reps=20)
ref["copy_gbps_1GiB"] = 2 * n * 4 / (ms * 1e-3) / 1e9
json.dump(ref, open(f"{out}/torch.json", "w"), indent=1)
