"""The kernel this campaign optimizes: C = A·B, measured by harness/bench.py.

kcamp snapshots this directory every round (rounds/round-N/kernel/) and restores it on a
rollback; bench.py imports this file from the directory kcamp hands it, so any helper
module beside it (kernel/my_triton.py, imported as `import my_triton`) travels with it.

The contract bench.py relies on:
  gemm(a, b) -> c          a: (M, K) or (B, M, K), b: (K, N) or (B, K, N), on the
                           measured device, of the campaign's dtype; c: (M, N) or
                           (B, M, N), same dtype and device. A fresh tensor each call.
  gemm_backward(a, b, dc) -> (da, db)    optional: dA = dC·Bᵀ, dB = Aᵀ·dC. Without it
                           bench.py calls gemm(dc, bᵀ) and gemm(aᵀ, dc) on transposed
                           views (not contiguous: call .contiguous() where a kernel
                           needs it; the copy is then part of the time).
bench.py checks every output against a float64 reference of the same inputs.

The starting point is PyTorch's own matmul (cuBLAS on a GPU). fp32 matmuls do not use
TF32 unless you allow it (torch.backends.cuda.matmul.allow_tf32 = True here, within
the f32 tolerance of bench.py).

To measure a Triton kernel instead, replace gemm() with a launcher, for example:

    import triton
    import triton.language as tl

    @triton.jit
    def _matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m, pid_n = tl.program_id(0), tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                        mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                        mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn,
                 acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def gemm(a, b):
        if a.dim() == 3:  # batched shapes (B > 1): one launch per batch here
            return torch.stack([gemm(x, y) for x, y in zip(a, b)])
        (M, K), N = a.shape, b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                      b.stride(1), c.stride(0), c.stride(1), BM=64, BN=64, BK=32)
        return c

(tl.dot on f32 inputs uses TF32 by default; pass input_precision="ieee" for full f32.)
A CUDA kernel goes the same way: build it with torch.utils.cpp_extension.load() (or
load_inline) from a source file in this directory and call it from gemm().
"""

import torch


def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b
