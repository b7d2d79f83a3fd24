#!/usr/bin/env bash
# Writes every kernel version of the two H200 lineages (generated, byte for byte what was
# measured) into OUT/sgemm-f32/<NN-name>/ and OUT/hgemm-f16/<NN-name>/: gemm.wgsl, kernel.yaml
# and hypothesis.txt each. The round plans (sgemm.rounds, hgemm.rounds) pick from them.
#   scripts/h200/versions.sh OUT
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
SHADERS="$HERE/../../shaders"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
cd "$OUT"

D=sgemm-f32
ver() { # ver NAME BM BN BK TM TN VEC DBUF TRUSTED "hypothesis"
  local d=$D/$1; mkdir -p $d
  python3 "$HERE/gen_sgemm.py" $d/gemm.wgsl $2 $3 $4 $5 $6 $7 $8
  cat > $d/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: forward, backward_da: backward_da, backward_db: backward_db}
workgroups: {x: ceil(N/$3), y: ceil(M/$2), z: B}
trusted: $9
Y
  echo "${10}" > $d/hypothesis.txt
}
mkdir -p $D/01-naive $D/02-tiled64
cp "$SHADERS"/gemm_naive.wgsl $D/01-naive/gemm.wgsl
cat > $D/01-naive/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: main}
workgroups: {x: ceil(N/16), y: ceil(M/16), z: B}
trusted: false
Y
echo "BASELINE: the bundled naive kernel, one invocation per output, operands read straight from storage." > $D/01-naive/hypothesis.txt
cp "$SHADERS"/gemm_tiled.wgsl $D/02-tiled64/gemm.wgsl
cat > $D/02-tiled64/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: main}
workgroups: {x: ceil(N/64), y: ceil(M/64), z: B}
trusted: false
Y
echo "Stage 64x64 tiles (k-depth 16) in workgroup memory, 4x4 outputs per invocation: 16x fewer global reads per FMA." > $D/02-tiled64/hypothesis.txt
ver 03-rb128 128 128 8 8 8 0 0 false "128x128 block tile, 8x8 outputs per invocation held in registers (vec4 accumulators, unrolled by construction), A stored k-major in workgroup memory: 2x the FMAs per shared-memory read of 02."
ver 04-vec4smem 128 128 8 8 8 1 0 false "Read shared memory as vec4 in split chunks (rows ty*4 and 64+ty*4, columns tx*4 and 64+tx*4): 4 LDS.128 instead of 16 LDS.32 per k step, conflict-free."
ver 05-dbuf 128 128 8 8 8 1 1 false "Double-buffer shared memory and prefetch the next k-tile into registers during the FMAs: one barrier per k-tile and global latency hidden."
ver 06-bk16 128 128 16 8 8 1 1 false "k-tile 16 instead of 8: half the barriers and loop overhead per FMA (32 KiB of shared memory, still 2 workgroups per SM)."
ver 07-tile128x256 128 256 8 8 16 1 1 false "128x256 block tile, 8x16 per invocation: 1.33x the FMAs per shared-memory byte; risk: ~170 registers, 1 workgroup per SM."
ver 08-tile256x128 256 128 8 16 8 1 1 false "256x128 block tile, 16x8 per invocation (the transpose of 07): A reads broadcast, B reads conflict-free."
ver 09-trusted 128 128 8 8 8 1 1 true "05 without runtime bounds checks (trusted): measures what the checks still cost once loop bounding is off."
ver 10-bk16-trusted 128 128 16 8 8 1 1 true "06 trusted."
# run 2
unr() { # like ver, with the unrolled k steps (fragment read-ahead, branch-free k-tile loop)
  local d=$D/$1; mkdir -p $d
  python3 "$HERE/gen_sgemm.py" $d/gemm.wgsl $2 $3 $4 $5 $6 $7 $8 1
  cat > $d/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: forward, backward_da: backward_da, backward_db: backward_db}
workgroups: {x: ceil(N/$3), y: ceil(M/$2), z: B}
trusted: $9
Y
  echo "${10}" > $d/hypothesis.txt
}
unr 11-unroll 128 128 8 8 8 1 1 false "05 with the 8 k steps written out, the next step's vec4 fragments read before this step's FMAs, and a branch-free k-tile loop (guarded loads as select of a clamped index): shared-memory latency hidden inside each subgroup instead of by other subgroups."
unr 12-unroll-128x256 128 256 8 8 16 1 1 false "The same on 07's 128x256 tile (8x16 per invocation), the best tile of run 1."
unr 13-unroll-bk16 128 128 16 8 8 1 1 false "k-tile 16 with every step written out: if 06 lost because its 16-step loop was not unrolled, this recovers and halves the barriers of 11."
unr 14-unroll-trusted 128 128 8 8 8 1 1 true "11 trusted (no runtime bounds checks)."
unr 15-unroll-128x256-trusted 128 256 8 8 16 1 1 true "12 trusted."

# v NAME 'JSON config' TRUSTED(0|1) "hypothesis"
v() { python3 "$HERE/gen_sgemm2.py" "$D/$1" "$2" "$3" "$4"; }
v 16-vec4g '{"cse": false}' 0 "13 with vec4 global loads and vec4 C stores where the leading dimension is a multiple of 4 (buffers are now padded to 16 bytes): 4 LDG.128 instead of 16 LDG.32 per k-tile and a quarter of the index/clamp arithmetic; unaligned operands keep scalar loads."
v 17-cse '{}' 0 "16 with shared memory as [stage][k][m/4] arrays indexed by loop-invariant lets: naga's bounds clamp becomes the same expression at every LDS (one clamp, folded offsets) instead of a min() per LDS on a different sum."
v 18-warp32x64 '{"warp": [32, 64]}' 0 "17 with a warp-tile mapping: 8 warps as 4x2 tiles of 32x64, lanes 4x8: per k step a warp reads 4 distinct A and 8 distinct B vec4 (one wavefront each) instead of 2 and 16 (1 + 2)."
v 19-swz8 '{"warp": [32, 64], "swz": 8}' 0 "18 with grouped block order (8 block rows per group): co-resident workgroups share A and B panels in L2."
v 20-16x8 '{"TM": 16, "TN": 8, "warp": [64, 64]}' 0 "128 invocations of 16x8 (4 warps of 64x64, lanes 4x8): 128 FMAs per 6 LDS.128 instead of 64 per 4, half the invocations per tile for the same global loads; risk ~220 registers, 2 workgroups per SM."
v 21-16x8-noahead '{"TM": 16, "TN": 8, "warp": [64, 64], "ahead": false}' 0 "20 without the fragment read-ahead: 24 fewer live registers; the 128 independent FMAs per k step may hide the LDS latency alone."
v 22-16x8-sbuf '{"TM": 16, "TN": 8, "warp": [64, 64], "dbuf": false}' 0 "20 single-buffered without the register prefetch: 32 fewer live registers and 16 KiB of shared memory, at one more barrier per k-tile."
v 23-16x8-bk8 '{"TM": 16, "TN": 8, "warp": [64, 64], "BK": 8}' 0 "20 with k-tile 8: half the prefetch registers (4 vec4 instead of 8), twice the barriers."
v 24-8x16 '{"TM": 8, "TN": 16, "warp": [64, 64]}' 0 "20 transposed: 8x16 per invocation (lanes 8x4): 2 A and 4 B vec4 per k step."
v 25-16x8-swz8 '{"TM": 16, "TN": 8, "warp": [64, 64], "swz": 8}' 0 "20 with grouped block order (8 block rows)."
v 26-warp-amapcol '{"warp": [32, 64], "amap": "col"}' 0 "18 with consecutive lanes loading consecutive rows of the k-contiguous operand: the transposing stores to shared memory hit 32 banks instead of 8 (4-way conflicts), at 16-byte rather than 64-byte runs per row in each load."
v 27-16x8-amapcol '{"TM": 16, "TN": 8, "warp": [64, 64], "amap": "col"}' 0 "20 with the conflict-free transposing stores of 26."
v 28-128x256-16x8 '{"BN": 256, "TM": 16, "TN": 8, "warp": [64, 64]}' 0 "128x256 block with 8 warps of 64x64 (16x8 per invocation): twice the FMAs per global byte of 20 at the same per-invocation tile; half the workgroups (bad for 8x512^3)."
v 29-warp32x64-trusted '{"warp": [32, 64]}' 1 "18 trusted: what the remaining runtime bounds checks cost once the clamps are shared."
v 30-16x8-trusted '{"TM": 16, "TN": 8, "warp": [64, 64]}' 1 "20 trusted."
v 31-warp64x32 '{"warp": [64, 32]}' 0 "17 with 8 warps as 2x4 tiles of 64x32 (lanes 8x4): the other warp-tile orientation of 18."
v 32-64x128 '{"BM": 64, "warp": [32, 64]}' 0 "64x128 block of 4 warps of 32x64 (8x8 per invocation, 128 invocations): twice the workgroups of 18, for shapes with few 128x128 tiles (8x512^3 fills only 128 of 132 SMs with one workgroup each)."
v 33-16x8-amapcol-swz8 '{"TM": 16, "TN": 8, "warp": [64, 64], "amap": "col", "swz": 8}' 0 "20 with both 25's grouped block order and 27's conflict-free transposing stores."
v 34-warp-amapcol-swz8 '{"warp": [32, 64], "amap": "col", "swz": 8}' 0 "18 with both 19's grouped block order and 26's conflict-free transposing stores."
# Prepared after run 3, rehearsed on lavapipe only (no device time left for this helper): NOT MEASURED.
v 35-split '{"split": true}' 0 "17 with the vec4 and scalar load paths as two copies of the k-loop behind one uniform branch: run 3 read 16-19 as register-bound (+5-7% where one workgroup per SM runs anyway, 8x512^3; -17% at 4096^3 where 13 keeps two), so a vec4-only loop with fewer live addresses than 13 should keep two workgroups per SM and the vec4 gain."
v 36-warp64x32-split '{"warp": [64, 32], "split": true}' 0 "31 (the fastest at 8x512^3 in run 3) with 35's split loops."
v 37-16x8-sbuf-split '{"TM": 16, "TN": 8, "warp": [64, 64], "dbuf": false, "split": true}' 0 "22 (33.2 at 4096^3 with 128 invocations, single buffered) with 35's split loops: fewer live addresses for the register-heaviest tile that did not spill."
# Run 5 read 35 as the vec4 gain without the occupancy loss (sq4096 41.6, b8x512 35.0 against 13's
# 33.4 and 27.0) but its scalar loop 12% slower than 13's at r2047x1999x1023 (27.5 vs 31.1):
# variants of the scalar loop alone.
v 38-split-scal-sbuf '{"split": true, "scal_dbuf": false}' 0 "35 with the scalar (unaligned) k-loop single-buffered: 35 lost 12% to 13 at r2047x1999x1023, and its scalar loop, sharing one register allocation with the vec4 loop and the prologue, likely no longer fits two workgroups per SM; dropping the 16 prefetch registers there costs one barrier per k-tile."
v 39-split-scal-sbuf-noahead '{"split": true, "scal_dbuf": false, "scal_ahead": false}' 0 "38 with the scalar loop also without the fragment read-ahead: 16 fewer live registers again, if 38's loop still does not fit two workgroups per SM."
v 40-split-sbuf '{"split": true, "dbuf": false}' 0 "35 with both k-loops single-buffered: if registers, not barriers, bound the aligned loop too, the vec4 path gains as well."
# Run 6 accepted 40 (sq4096 40.4 = 0.79x cuBLAS): two more steps on it.
v 41-split-sbuf-trusted '{"split": true, "dbuf": false}' 1 "40 trusted (no runtime bounds checks): the kernel already clamps every global read to the binding (min with arrayLength - 1), guards every store by M and N, and indexes workgroup memory only through invocation- and loop-derived values below the array sizes, so naga's checks repeat work the kernel does; on 13 they cost 5% (33.5 vs 35.3)."
v 42-split-sbuf-trusted-swz8 '{"split": true, "dbuf": false, "swz": 8}' 1 "41 with grouped block order (8 block rows per group): co-resident workgroups share A and B panels in L2 (+1% on 18 in run 3, where registers dominated)."
v 43-split-sbuf-bk32 '{"split": true, "dbuf": false, "BK": 32}' 0 "40 with k-tile 32: half of 40's barriers per FMA (its price for single buffering) in the same 32 KiB of workgroup memory that 35's two stages used."

# run 17: registers decide. The driver's statistics (run 16) read 171 registers per invocation
# for 13, 155 for 35 and 128 for 40 (256 invocations: two workgroups per multiprocessor only at
# <= 128). 35 ran 41.9 TFLOP/s at 4096^3 with one workgroup per SM; 40 ran 40.4 with two.
v 48-split-noahead '{"split": true, "ahead": false}' 0 "35 without the fragment read-ahead (16 fewer live registers): if 35's double-buffered loops then fit 128 registers, two workgroups share each multiprocessor and the vec4 loop keeps its double buffering, which 40 gave up to get there."
v 49-split-noahead-scal-sbuf '{"split": true, "ahead": false, "scal_dbuf": false}' 0 "48 with the scalar (unaligned) loop single-buffered as well: its 16 prefetch registers gone, should 48 still need more than 128."
v 50-split-bk8 '{"split": true, "BK": 8}' 0 "35 with k-tile 8: the register prefetch of the next k-tile is half as large (2 vec4 of A and of B per invocation instead of 4), at twice the barriers per FMA."
v 51-split-bk8-noahead '{"split": true, "BK": 8, "ahead": false}' 0 "50 without the fragment read-ahead."

# run 20: one pipeline per alignment. 35's vec4 loop (41.9 at 4096^3, 155 registers) lost at the
# unaligned shape because its scalar loop shared that register allocation; kcamp now runs the
# entry points of `kernel.aligned` on shapes whose M, N and K are multiples of 4, each entry point
# its own pipeline with its own registers.
v 52-sbuf-aligned-dbuf '{"split": true, "dbuf": false, "aligned": {"dbuf": true}}' 0 "40 (the incumbent) for unaligned shapes, and for shapes aligned to 4 entry points of their own with only 35's double-buffered vec4 loop: 35's aligned rate (41.9 at 4096^3, 35.0 at 8x512^3) with 40's unaligned rate (31.0 at 2047x1999x1023), the two loops no longer sharing registers."
v 53-sbuf-aligned-sbuf '{"split": true, "dbuf": false, "aligned": {"dbuf": false}}' 0 "52 with 40's single-buffered vec4 loop alone on aligned shapes: without the scalar loop beside it, fewer registers than 40's 128, perhaps three workgroups per SM."
# Run 20 read 52's vec4-only loop at 161 registers and 38.0 TFLOP/s at 4096^3 (35's whole body:
# 155 and 41.6), and 53's at 128 and 37.8 (40's whole body: 128 and 40.4): without the scalar
# loop beside it the driver compiled the same vec4 loop to slower code.
v 54-sbuf-aligned-35 '{"split": true, "dbuf": false, "aligned": {"split": true, "vec_only": false}}' 0 "40 for unaligned shapes and 35 unchanged for shapes aligned to 4 (its scalar loop never taken there): run 20 measured 35 at 41.6 TFLOP/s at 4096^3 and 34.8 at 8x512^3 against 40's 40.4 and 30.1, and 40 at 31.0 unaligned against 35's 27.3; as separate pipelines each keeps its own rate."

D=hgemm-f16
ver() { # ver NAME MODE BM BN BK WM WN DBUF PAD "hypothesis"
  local d=$D/$1; mkdir -p $d
  python3 "$HERE/gen_hgemm.py" $d/gemm.wgsl $2 $3 $4 $5 $6 $7 $8 $9 0
  cat > $d/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: forward, backward_da: backward_da, backward_db: backward_db}
workgroups: {x: ceil(N/$4), y: ceil(M/$3), z: B}
trusted: false
Y
  echo "${10}" > $d/hypothesis.txt
}
mkdir -p $D/01-naive
cp "$SHADERS"/gemm_naive_f16.wgsl $D/01-naive/gemm.wgsl
cat > $D/01-naive/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: main}
workgroups: {x: ceil(N/16), y: ceil(M/16), z: B}
trusted: false
Y
echo "BASELINE: the bundled naive f16 kernel (one invocation per output, f32 sum, no tensor cores)." > $D/01-naive/hypothesis.txt
ver 02-coop-direct direct 64 64 32 2 2 0 8 "Tensor cores through cooperative matrices: each subgroup owns 2x2 16x16 f32 accumulators and reads its f16 fragments straight from storage (edge tiles staged)."
ver 03-staged128 staged 128 128 32 2 4 0 8 "Stage 128x32 / 32x128 k-tiles in workgroup memory (rows padded by 8 halves) and load fragments from there: each element is read from global once per workgroup instead of once per subgroup; 4x2 fragments per subgroup."
ver 04-dbuf staged 128 128 32 2 4 1 8 "Double-buffer the staged tiles with a register prefetch of the next k-tile: one barrier per k-tile, global latency behind the MMAs."
ver 05-warp64x64 staged 128 128 32 2 2 1 8 "4 subgroups of 64x64 (4x4 fragments) instead of 8 of 64x32: 8 fragment loads per 16 MMAs instead of 6 per 8."
ver 06-tile128x256 staged 128 256 16 2 4 1 8 "128x256 workgroup tile, 8 subgroups of 64x64, k-tile 16 (fits 48 KiB double-buffered): half the global bytes per FLOP of 128x128."
ver 07-tile256x128 staged 256 128 16 4 2 1 8 "256x128 workgroup tile (transpose of 06)."
ver 08-nopad staged 128 128 32 2 4 1 0 "04 without row padding: checks that the padding pays (expected slower: bank conflicts on fragment loads)."
ver 09-bk64 staged 128 128 64 2 4 0 8 "k-tile 64 single-buffered (36 KiB): a quarter of the barriers per MMA of k-tile 16 without a second buffer."
# run 2: ver2 NAME MODE BM BN BK WM WN DBUF(0 single, 1 two stages, 2 prefetch) PAD EXTRA "hypothesis"
ver2() {
  local d=$D/$1; mkdir -p $d
  python3 "$HERE/gen_hgemm.py" $d/gemm.wgsl $2 $3 $4 $5 $6 $7 $8 $9 0 ${10}
  cat > $d/kernel.yaml <<Y
file: gemm.wgsl
entry_points: {forward: forward, backward_da: backward_da, backward_db: backward_db}
workgroups: {x: ceil(N/$4), y: ceil(M/$3), z: B}
trusted: false
Y
  echo "${11}" > $d/hypothesis.txt
}
ver2 10-bk64-prefetch staged 128 128 64 2 4 2 8 - "09 plus a register prefetch of the next 128x64/64x128 k-tile issued before the MMAs (one shared buffer, two barriers): global latency hidden without a second 35 KiB buffer."
ver2 11-bk64-warp64 staged 128 128 64 2 2 0 8 - "09 with 4 subgroups of 64x64 (4x4 fragments): 8 fragment loads per 16 MMAs instead of 6 per 8."
ver2 12-bk64-warp64-prefetch staged 128 128 64 2 2 2 8 - "11 plus the register prefetch of 10."
ver2 13-bk64-f16smem staged 128 128 64 2 4 0 8 f16smem "09 with workgroup arrays of f16 instead of vec2<f16>: does the driver's cooperative load from a reinterpreted vec2 array cost extra?"
ver2 14-tile256x128-bk32 staged 256 128 32 4 2 0 8 - "256x128 tile, 8 subgroups of 64x64, k-tile 32 single-buffered (38 KiB): more MMAs per barrier and per global byte than 09."
ver2 15-tile128x256-bk32-prefetch staged 128 256 32 2 4 2 8 - "128x256 tile, 8 subgroups of 64x64, k-tile 32, register prefetch."
ver2 16-bk64-prefetch-f16smem staged 128 128 64 2 4 2 8 f16smem "10 and 13 together: register prefetch with f16 workgroup arrays."
ver2 17-tile128x256-bk32 staged 128 256 32 2 4 0 8 - "15 without the prefetch (control for 15)."

# run 7: the global->shared copy in 8-byte words (g64), and without runtime checks.
ver2 18-bk64-g64 staged 128 128 64 2 4 0 8 g64 "09 with the global operands read as vec4<f16> (8-byte loads) instead of vec2<f16>: half the load instructions of the global->shared copy, the per-k-tile work besides the MMAs that k-tile 64 showed to dominate (buffers are padded to 16 bytes, so no load crosses the end of a binding)."
ver2 19-bk64-g64-trusted staged 128 128 64 2 4 0 8 g64 "18 trusted (no runtime bounds checks): every global read of the kernel is guarded or inside the tile's checked fast path, workgroup indices are bounded by construction, so naga's clamps on the staging stores, the cooperative loads' pointers and the epilogue repeat work; on the f32 kernels they cost 5%."
sed -i 's/^trusted: false/trusted: true/' $D/19-bk64-g64-trusted/kernel.yaml
ver2 20-tile128x256-bk32-g64 staged 128 256 32 2 4 0 8 g64 "17 (the fastest at 4096^3, 101 TFLOP/s, rolled back for 8x512^3) with 18's 8-byte global loads."
# run 16: the driver's statistics (registers per invocation) explain 19's rate; new variants.
D=hgemm-f16
ver3() { # like ver2, trusted (no runtime checks), as the incumbent 19
  ver2 "$@"; sed -i 's/^trusted: false/trusted: true/' $D/$1/kernel.yaml
}
ver3 21-bk64-g64-sv4 staged 128 128 64 2 4 0 8 "g64 sv4" "19 with workgroup arrays of vec4<f16> (8-byte elements) instead of vec2<f16>: going from f16 to vec2<f16> elements gained 16% (13 against 09), so the driver's cooperative load follows the pointer's element width, and 8-byte elements may read fragments in fewer, wider shared-memory accesses."
ver3 22-256x128-w16-bk32 staged 256 128 32 4 4 0 8 g64 "256x128 tile with 16 subgroups (512 invocations) of 64x32, k-tile 32: 19's per-subgroup tile and per-invocation registers, twice the subgroups per workgroup, so each multiprocessor keeps 16 warps to hide the single-buffered global loads even at one workgroup per SM."
ver3 23-128x256-w16-bk32 staged 128 256 32 2 8 0 8 g64 "22 transposed: a 128x256 tile of 16 subgroups of 64x32."
ver3 24-bk64-g128 staged 128 128 64 2 4 0 8 g128 "19 with 16-byte global loads (array<vec4<u32>>, each word unpacked to vec2<f16>): half of 19's load instructions in the global-to-shared copy, at four conversions per 8 halves."
ver3 25-bk64-g128-sv4 staged 128 128 64 2 4 0 8 "g128 sv4" "24 and 21 together: 16-byte global loads and 8-byte workgroup elements."
ver3 26-w16-32x32-bk32 staged 128 128 32 4 4 0 8 g64 "19's 128x128 tile with 16 subgroups (512 invocations) of 32x32 (2x2 fragments each), k-tile 32: 22 and 23 reached 128 registers and +10% at 4096^3 with 16 warps per workgroup but lost the batched 8x512^3 (a quarter of the SMs idle with 256-wide tiles); this keeps 19's tile count at 16 warps, at more fragment loads per MMA."
# run 19: run 18's `kcamp peak` read 650 TFLOP/s for a chain of cooperative-matrix multiply-adds
# (0.94x torch fp16 694): the tensor cores are reached; the kernels are not. 19 runs one
# workgroup (157 registers) per multiprocessor, single-buffered, so every k-tile's global loads
# stall the whole SM; two workgroups per SM (<= 128 registers at 256 invocations) would overlap
# one's loads with the other's MMAs.
ver3 27-bk32 staged 128 128 32 2 4 0 8 g64 "19 with k-tile 32: half the staging registers (16 instead of 32), to reach 128 registers per invocation and two workgroups per multiprocessor, whose loads and MMAs then overlap; k-tile 64 beat 32 only at one workgroup per SM."
ver3 28-128x64-w32x32 staged 128 64 64 4 2 0 8 g64 "128x64 tile, 8 subgroups of 32x32 (2x2 fragments), k-tile 64: 32 accumulator registers instead of 64, so two or more workgroups per multiprocessor, at three quarters of 19's FLOPs per global byte."
ver3 29-64x128-w32x32 staged 64 128 64 2 4 0 8 g64 "28 transposed: a 64x128 tile of 8 subgroups of 32x32."
ver3 30-bk16 staged 128 128 16 2 4 0 8 g64 "19 with k-tile 16: 8 staging registers, the fewest, at four times the barriers per MMA."
# run 20: fewer invocations per workgroup instead of fewer registers. Run 19's driver gave every
# variant meant to need fewer registers more of them; a workgroup of 4 subgroups (128
# invocations) fits two workgroups per multiprocessor up to 255 registers and three up to 170,
# whatever the driver chooses, so one workgroup's global loads overlap another's MMAs.
ver3 31-128x64-w4-bk64 staged 128 64 64 2 2 0 8 g64 "19's subgroup tile (64x32, 4x2 fragments) and k-tile 64 in a 128x64 workgroup tile of 4 subgroups: 128 invocations, so at 19's 157 registers three workgroups share a multiprocessor (27.6 KiB of workgroup memory each) instead of one."
ver3 32-64x128-w4-bk64 staged 64 128 64 2 2 0 8 g64 "31 transposed: a 64x128 tile of 4 subgroups of 32x64 (2x4 fragments)."
ver3 33-128x128-w4-bk64 staged 128 128 64 2 2 0 8 g64 "19's 128x128 tile with 4 subgroups of 64x64 (4x4 fragments, 11's layout with 19's 8-byte loads and no runtime checks): 128 invocations, two workgroups per SM up to 255 registers."
# Run 20: 31 and 32 got 197 and 196 registers (two workgroups, 8 warps per SM, as 19's one) and
# lost 40% at 4096^3; 33 got 255. Occupancy is not what bounds the f16 kernels.
ver3 34-bk64-g64-whole staged 128 128 64 2 4 0 8 "g64 aligned" "19 with entry points of its own for whole tiles (kernel.aligned, to 128: every shape but the unaligned one), built without the edge path: 19's loop carries a per-element fetch path for edge tiles beside its fast path in one register allocation, as 35's scalar loop did for f32."
printf 'aligned:\n  to: 128\n  entry_points: {forward: forward_aligned, backward_da: backward_da_aligned, backward_db: backward_db_aligned}\n' >> $D/34-bk64-g64-whole/kernel.yaml
# Run 21: 34 (whole-tile entry points) was accepted at 173 TFLOP/s at 4096^3 (+52% over 19):
# without the edge path beside it the driver spent 194 registers on the same loop and made it
# faster. Variants that lost to 19 with the edge path in their register allocation, again with
# whole-tile entry points of their own.
ver4() { # ver4 NAME MODE BM BN BK WM WN DBUF PAD TO "hypothesis": ver3 + whole-tile entry points (kernel.aligned.to = TO)
  local to=${10}; ver2 "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "g64 aligned" "${11}"
  sed -i 's/^trusted: false/trusted: true/' $D/$1/kernel.yaml
  printf 'aligned:\n  to: %s\n  entry_points: {forward: forward_aligned, backward_da: backward_da_aligned, backward_db: backward_db_aligned}\n' "$to" >> $D/$1/kernel.yaml
}
ver4 35-bk64-prefetch-whole staged 128 128 64 2 4 2 8 128 "34 with 10's register prefetch of the next k-tile (issued before the MMAs, one shared buffer): it lost 4% with the edge path beside it; whole tiles only, the driver may keep the loads in flight across the MMAs."
ver4 36-256x128-w16-bk32-whole staged 256 128 32 4 4 0 8 256 "22's 256x128 tile of 16 subgroups (126 TFLOP/s at 4096^3 with the edge path, the fastest then) with whole-tile entry points (to 256: every shape but the unaligned one)."
ver4 37-128x256-bk32-whole staged 128 256 32 2 4 0 8 256 "17's 128x256 tile of 8 subgroups of 64x64 (4x4 fragments: 8 fragment loads per 16 MMAs) with whole-tile entry points."
ver4 38-dbuf-bk32-whole staged 128 128 32 2 4 1 8 128 "04's two shared buffers (k-tile 32, 37 KiB) with a register prefetch and one barrier per k-tile, with whole-tile entry points: double buffering lost to k-tile 64 when the edge path shared its registers."
ver4 39-256x128-w16-bk32-prefetch-whole staged 256 128 32 4 4 2 8 256 "36 with the register prefetch of the next k-tile."
# Run 23: run 22's 256-wide tiles gained at 4096^3 and lost the shapes with fewer tiles than
# multiprocessors; these keep 34's 128x128 tile (its grid) and change what runs inside it.
ver4 40-w4x2-whole staged 128 128 64 4 2 0 8 128 "34 with its 8 subgroups as 4x2 of 32x64 (2x4 fragments: 2 A and 4 B fragment loads per 8 MMAs) instead of 2x4 of 64x32: the same work per subgroup, another shared-memory read pattern."
ver4 41-w16-bk32-whole staged 128 128 32 4 4 0 8 128 "34's tile with 16 subgroups of 32x32 (512 invocations, 16 warps per SM at one workgroup) and k-tile 32 (k-tile 64 with 16 subgroups would need 51 KiB of workgroup memory, over the 48 KiB limit): run 22's 16-subgroup 256x128 tile gained 7% at 4096^3; this keeps 34's grid."
ver4 42-pad16-whole staged 128 128 64 2 4 0 16 128 "34 with shared rows padded by 16 halves instead of 8 (row strides of 80 and 144 halves): another bank pattern for the cooperative loads."
ver4 43-bk32-whole staged 128 128 32 2 4 0 8 128 "34 with k-tile 32 (22 KiB of workgroup memory, so two workgroups per SM by memory): 27 lost 31% with the edge path beside it."
# run 8: back to the f32 lineage.
D=sgemm-f32
v 44-split-sbuf-swz8 '{"split": true, "dbuf": false, "swz": 8}' 0 "40 with grouped block order (8 block rows per group), with runtime checks on: in run 7 the grouped order gained 1.3% on the trusted kernel (42 against 41), and the trusted kernel itself was 6% slower than 40, so the order alone on 40."
# run 11: shared-memory traffic of 40. Per k step a warp of 40 reads 2 A vec4s (1 wavefront)
# and 16 B vec4s (2 wavefronts) per fragment load, 96 wavefronts per k-tile; its transposing
# A stores are 4-way conflicted (32 wavefronts for 8 stores). With 512 FMAs per invocation per
# k-tile (128 issue cycles per warp on 4 FP32 pipes) shared memory (1 wavefront per cycle)
# is as busy as the FMA pipes.
v 45-split-sbuf-apad '{"split": true, "dbuf": false, "amap": "half", "pad": 1}' 0 "40 with conflict-free transposing stores: each warp loads 16 rows x 2 k-vec4s (whole 32-byte sectors, as 40's 8 rows x 4), and shared-memory rows padded by one vec4 (stride 4 mod 32 banks), so the 8 scalar stores of A per k-tile take 8 wavefronts instead of 32; same registers, 16.5 KiB of workgroup memory."
v 46-split-sbuf-warp64x32 '{"split": true, "dbuf": false, "warp": [64, 32]}' 0 "40 with warp tiles of 64x32 (lanes 8x4): per k step a warp reads 8 distinct A and 4 distinct B vec4s, one wavefront each, instead of 1 + 2 for 16 B vec4s: 64 instead of 96 read wavefronts per k-tile; 36 (the same mapping, double-buffered) gained at 4096^3 and lost the unaligned shape to registers, which 40's single buffering removes."
v 47-split-sbuf-warp64x32-apad '{"split": true, "dbuf": false, "warp": [64, 32], "amap": "half", "pad": 1}' 0 "46's warp tiles with 45's conflict-free stores: 80 shared-memory wavefronts per k-tile instead of 40's 136."
