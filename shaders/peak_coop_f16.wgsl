enable f16;
enable wgpu_cooperative_matrix;

// Peak tensor-core throughput reachable from WGSL: cooperative-matrix multiply-adds
// (16x16x16, f16 inputs, f32 accumulators) with no memory traffic in the loop. Each
// subgroup (32 invocations on NVIDIA) keeps 8 independent accumulator chains; the operands
// are loaded once from workgroup memory. FLOPs per subgroup and iteration = 8 * 16^3 * 2;
// kcamp counts them per invocation (8192 * 8 / 32 = 2048 for subgroups of 32).
// The accumulators are stored, each to its own place, so no chain can be removed; workgroups
// share 64 output slots (the values are not checked).

struct Params {
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> operand: array<f16, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    operand[lid] = f16(f32(lid % 7u) * 0.01);
    workgroupBarrier();
    let origin = 0u;
    let stride = 16u;
    let a = coopLoadT<coop_mat16x16<f16, A>>(&operand[origin], stride);
    let b = coopLoadT<coop_mat16x16<f16, B>>(&operand[origin], stride);
    var c0 = coop_mat16x16<f32, C>();
    var c1 = coop_mat16x16<f32, C>();
    var c2 = coop_mat16x16<f32, C>();
    var c3 = coop_mat16x16<f32, C>();
    var c4 = coop_mat16x16<f32, C>();
    var c5 = coop_mat16x16<f32, C>();
    var c6 = coop_mat16x16<f32, C>();
    var c7 = coop_mat16x16<f32, C>();
    for (var it = 0u; it < params.iterations; it = it + 1u) {
        c0 = coopMultiplyAdd(a, b, c0);
        c1 = coopMultiplyAdd(a, b, c1);
        c2 = coopMultiplyAdd(a, b, c2);
        c3 = coopMultiplyAdd(a, b, c3);
        c4 = coopMultiplyAdd(a, b, c4);
        c5 = coopMultiplyAdd(a, b, c5);
        c6 = coopMultiplyAdd(a, b, c6);
        c7 = coopMultiplyAdd(a, b, c7);
    }
    // 64 slots of 8 subgroups x 8 accumulators x 256 floats (4 MiB).
    let slot = ((wg.y * groups.x + wg.x) % 64u) * 16384u + (lid / 32u) * 2048u;
    let s0 = slot;
    let s1 = slot + 256u;
    let s2 = slot + 512u;
    let s3 = slot + 768u;
    let s4 = slot + 1024u;
    let s5 = slot + 1280u;
    let s6 = slot + 1536u;
    let s7 = slot + 1792u;
    coopStoreT(c0, &out[s0], stride);
    coopStoreT(c1, &out[s1], stride);
    coopStoreT(c2, &out[s2], stride);
    coopStoreT(c3, &out[s3], stride);
    coopStoreT(c4, &out[s4], stride);
    coopStoreT(c5, &out[s5], stride);
    coopStoreT(c6, &out[s6], stride);
    coopStoreT(c7, &out[s7], stride);
}
