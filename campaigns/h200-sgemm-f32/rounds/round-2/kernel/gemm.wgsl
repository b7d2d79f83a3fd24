// Tiled GEMM (kcamp kernel ABI, f32): each 16x16 workgroup computes a 64x64 output tile,
// each invocation a 4x4 block, staging 16-deep slices of lhs and rhs in workgroup memory.
// Honours trans_a / trans_b, so it serves the forward and both backward passes.
// Dispatch: x = ceil(N/64), y = ceil(M/64), z = B.

struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    trans_a: u32,
    trans_b: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

const TILE_M: u32 = 64u;
const TILE_N: u32 = 64u;
const TILE_K: u32 = 16u;

// [TILE_K][TILE_M] and [TILE_K][TILE_N]: k-major so the inner loop reads a row of each.
var<workgroup> lhs_tile: array<f32, 1024>;
var<workgroup> rhs_tile: array<f32, 1024>;

fn load_lhs(base: u32, row: u32, p: u32) -> f32 {
    if (row >= params.m || p >= params.k) {
        return 0.0;
    }
    if (params.trans_a == 1u) {
        return a[base + p * params.m + row];
    }
    return a[base + row * params.k + p];
}

fn load_rhs(base: u32, p: u32, col: u32) -> f32 {
    if (p >= params.k || col >= params.n) {
        return 0.0;
    }
    if (params.trans_b == 1u) {
        return b[base + col * params.k + p];
    }
    return b[base + p * params.n + col];
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let batch = wg.z;
    let row0 = wg.y * TILE_M;
    let col0 = wg.x * TILE_N;
    let a_base = batch * params.m * params.k;
    let b_base = batch * params.k * params.n;
    let tid = lid.y * 16u + lid.x;
    var acc: array<f32, 16>;
    for (var t = 0u; t < params.k; t = t + TILE_K) {
        // 256 invocations stage 1024 elements of each operand: four apiece.
        for (var i = 0u; i < 4u; i = i + 1u) {
            let idx = tid + i * 256u;
            let kk = idx / TILE_M;
            let r = idx % TILE_M;
            lhs_tile[idx] = load_lhs(a_base, row0 + r, t + kk);
            rhs_tile[idx] = load_rhs(b_base, t + kk, col0 + r);
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TILE_K; kk = kk + 1u) {
            var av: array<f32, 4>;
            var bv: array<f32, 4>;
            for (var i = 0u; i < 4u; i = i + 1u) {
                av[i] = lhs_tile[kk * TILE_M + lid.y * 4u + i];
                bv[i] = rhs_tile[kk * TILE_N + lid.x * 4u + i];
            }
            for (var i = 0u; i < 4u; i = i + 1u) {
                for (var j = 0u; j < 4u; j = j + 1u) {
                    acc[i * 4u + j] = fma(av[i], bv[j], acc[i * 4u + j]);
                }
            }
        }
        workgroupBarrier();
    }
    let c_base = batch * params.m * params.n;
    for (var i = 0u; i < 4u; i = i + 1u) {
        let row = row0 + lid.y * 4u + i;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let col = col0 + lid.x * 4u + j;
            if (row < params.m && col < params.n) {
                c[c_base + row * params.n + col] = acc[i * 4u + j];
            }
        }
    }
}
