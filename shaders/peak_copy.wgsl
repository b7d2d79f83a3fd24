// Peak copy bandwidth: dst = src over vec4<f32>, for any 2-D grid of 256-invocation workgroups.
// The n vec4 elements are spread evenly over all launched workgroups (workgroup w copies
// [w*n/G, (w+1)*n/G), coalesced, with a stride-256 loop if a share exceeds 256), so a grid
// rounded up to a 65,535-wide rectangle carries no empty workgroups: with kcamp peak's grid for
// 1 GiB (65,535 x 5 = 327,675 workgroups for 262,144 workgroups' worth of data) the bundled
// one-element-per-invocation kernel launched 65,531 empty workgroups, 7% of its time.
// Bytes per dispatch = 2 * arrayLength(&dst) * 16 (read + write).

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = arrayLength(&dst);
    let g = groups.x * groups.y;
    let w = wg.y * groups.x + wg.x;
    let per = n / g;
    let extra = n % g;
    let start = w * per + min(w, extra);
    let count = per + select(0u, 1u, w < extra);
    for (var i = t; i < count; i = i + 256u) {
        dst[start + i] = src[start + i];
    }
}
