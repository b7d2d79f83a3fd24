enable f16;

// Baseline GEMM (kcamp kernel ABI, f16 storage, f32 accumulation): one invocation per output element.
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

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f16>;
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
    var acc = 0.0;
    for (var p = 0u; p < params.k; p = p + 1u) {
        var av: f32;
        if (params.trans_a == 1u) {
            av = f32(a[a_base + p * params.m + row]);
        } else {
            av = f32(a[a_base + row * params.k + p]);
        }
        var bv: f32;
        if (params.trans_b == 1u) {
            bv = f32(b[b_base + col * params.k + p]);
        } else {
            bv = f32(b[b_base + p * params.n + col]);
        }
        acc = fma(av, bv, acc);
    }
    c[batch * params.m * params.n + row * params.n + col] = f16(acc);
}
