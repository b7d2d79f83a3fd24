// axpy (kcamp kernel ABI, f32): out[i] = alpha * x[i] + y[i], 4 elements per invocation.
// Workgroup b owns elements [b*256*4, (b+1)*256*4); invocation t handles b*256*4 + j*256 + t for j < 4, so
// every load and store instruction of a subgroup is one contiguous 128-byte line, and the 4 loads of x and y
// are all issued before the first store (4*8 bytes in flight per invocation instead of 8).
// Workgroups (2-D because of the 65,535 limit): x = min(ceil(N/1024), 65535), y = ceil(N/1024/65535).

struct Params {
    n: u32,
    alpha: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

const U: u32 = 4u;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = params.n;
    let alpha = params.alpha;
    let base = (wg.y * groups.x + wg.x) * (256u * U) + t;
    var xv: array<f32, U>;
    var yv: array<f32, U>;
    for (var j = 0u; j < U; j = j + 1u) {
        let i = base + j * 256u;
        if (i < n) {
            xv[j] = x[i];
            yv[j] = y[i];
        }
    }
    for (var j = 0u; j < U; j = j + 1u) {
        let i = base + j * 256u;
        if (i < n) {
            out[i] = fma(alpha, xv[j], yv[j]);
        }
    }
}
