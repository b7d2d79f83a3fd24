enable f16;

// Baseline axpy (kcamp kernel ABI, f16 storage, f32 arithmetic): out[i] = alpha * x[i] + y[i].
// Dispatches are capped at 65,535 workgroups per dimension, so the grid is 2-D:
// x = min(ceil(N/256), 65535), y = ceil(N/256/65535), and the element index is
// i = gid.y * (num_workgroups.x * 256) + gid.x.

struct Params {
    n: u32,
    alpha: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f16>;
@group(0) @binding(1) var<storage, read> y: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<f16>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.y * (groups.x * 256u) + gid.x;
    if (i >= params.n) {
        return;
    }
    out[i] = f16(params.alpha * f32(x[i]) + f32(y[i]));
}
