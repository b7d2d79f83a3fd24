"""The kernel this campaign optimizes: out = alpha·x + y, measured by harness/bench.py.

kcamp snapshots this directory every round (rounds/round-N/kernel/) and restores it on a
rollback; bench.py imports this file from the directory kcamp hands it, so any helper
module beside it (kernel/my_triton.py, imported as `import my_triton`) travels with it.

The contract bench.py relies on:
  axpy(alpha, x, y) -> out   alpha: a Python float; x, y: (N,) on the measured device,
                             of the campaign's dtype; out: (N,), same dtype and device,
                             a fresh tensor each call.
bench.py checks the output against a float64 reference of the same inputs and counts
3·N elements moved (x and y read, out written) for the GB/s.

The starting point is PyTorch's own element-wise kernel. To measure a Triton kernel
instead, replace axpy() with a launcher, for example:

    import triton
    import triton.language as tl

    @triton.jit
    def _axpy(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, alpha * x + y, mask=mask)

    def axpy(alpha, x, y):
        out = torch.empty_like(x)
        n = x.numel()
        _axpy[(triton.cdiv(n, 1024),)](x, y, out, alpha, n, BLOCK=1024)
        return out

A CUDA kernel goes the same way: build it with torch.utils.cpp_extension.load() (or
load_inline) from a source file in this directory and call it from axpy().
"""

import torch


def axpy(alpha: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.add(y, x, alpha=alpha)
