// Baseline GEMM (kcamp kernel ABI, f32): one invocation per output element.
// out[batch][row][col] = sum_p lhs(row, p) * rhs(p, col), row-major per batch.
// trans_a = 1: lhs is stored k x m; trans_b = 1: rhs is stored n x k.
// Dispatch: x = ceil(N/16), y = ceil(M/16), z = B.

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

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = gid.x;
    let row = gid.y;
    let batch = gid.z;
    if (row >= params.m || col >= params.n || batch >= params.batch) {
        return;
    }
    let a_base = batch * params.m * params.k;
    let b_base = batch * params.k * params.n;
    // The strides are picked once, so the loop body has no branch.
    var ai = a_base + row * params.k;
    var a_step = 1u;
    if (params.trans_a == 1u) {
        ai = a_base + row;
        a_step = params.m;
    }
    var bi = b_base + col;
    var b_step = params.n;
    if (params.trans_b == 1u) {
        bi = b_base + col * params.k;
        b_step = 1u;
    }
    var acc = 0.0;
    for (var p = 0u; p < params.k; p = p + 1u) {
        acc = fma(a[ai], b[bi], acc);
        ai = ai + a_step;
        bi = bi + b_step;
    }
    c[batch * params.m * params.n + row * params.n + col] = acc;
}
