// Peak copy bandwidth: dst[i] = src[i] over vec4<f32>, one element per invocation.
// Bytes per dispatch = 2 * arrayLength(&dst) * 16 (read + write); 2-D grid as in axpy.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.y * (groups.x * 256u) + gid.x;
    if (i < arrayLength(&dst)) {
        dst[i] = src[i];
    }
}
