#!/usr/bin/env bash
# Rewrites the generated kernels of shaders/ from their generators, with the parameters each
# was measured with. After editing a generator, run this and review `git diff shaders/`; with
# the generators unchanged it rewrites every file byte for byte. The *.kernel.yaml settings
# beside each kernel are written by hand. Needs Python 3 only.
#   scripts/gen/shipped.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
G=scripts/gen
S=shaders
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# f32: 128x128 tile, k-tile 16, 8x8 per invocation, vec4 shared reads, double buffered, unrolled.
python3 $G/gen_sgemm.py $S/gemm_sgemm_128x128_bk16.wgsl 128 128 16 8 8 1 1 1
# f32: vec4 global loads, the aligned and unaligned k-loops as two copies, single buffered.
python3 $G/gen_sgemm2.py "$tmp/split" '{"split": true, "dbuf": false}' 0
cp "$tmp/split/gemm.wgsl" $S/gemm_sgemm_128x128_split.wgsl
# f32: the split kernel, plus entry points of its own for shapes aligned to 4 (double-buffered vec4 loop).
python3 $G/gen_sgemm2.py "$tmp/aligned" '{"split": true, "dbuf": false, "aligned": {"split": true, "vec_only": false}}' 0
cp "$tmp/aligned/gemm.wgsl" $S/gemm_sgemm_128x128_aligned.wgsl
# f16 (cooperative matrices): MODE BM BN BK WM WN DBUF PAD CVT [extras]
python3 $G/gen_hgemm.py $S/gemm_hgemm_coop_128x128_bk64.wgsl staged 128 128 64 2 4 0 8 0
python3 $G/gen_hgemm.py $S/gemm_hgemm_coop_128x256.wgsl staged 128 256 32 2 4 0 8 0
python3 $G/gen_hgemm.py $S/gemm_hgemm_coop_128x128_bk64_g64.wgsl staged 128 128 64 2 4 0 8 0 g64
python3 $G/gen_hgemm.py $S/gemm_hgemm_coop_128x128_whole.wgsl staged 128 128 64 2 4 0 8 0 g64 aligned
