enable f16;
enable wgpu_cooperative_matrix;

// Probe 'l6-barrier2' (scripts/h200/probes/gen_probes.py): per subgroup and iteration
// 6 cooperative loads from workgroup memory and 8 multiply-adds
// of 16x16x16 (f16 inputs, f32 sums), a workgroup barrier every 2 iterations;
// rows of 72 halves (A) and 136 halves (B). Timed by `kcamp peak --coop-probe THIS`.

struct Params {
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> As: array<vec2<f16>, 4608>;
var<workgroup> Bs: array<vec2<f16>, 4608>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = lid; i < 4608u; i = i + 256u) {
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
        Bs[i] = vec2<f16>(v, -v);
    }
    workgroupBarrier();
    let warp = lid / 32u;
    let wrow = (warp / 4u) * 64u;
    let wcol = (warp % 4u) * 32u;
    var c0 = coop_mat16x16<f32, C>();
    var c1 = coop_mat16x16<f32, C>();
    var c2 = coop_mat16x16<f32, C>();
    var c3 = coop_mat16x16<f32, C>();
    var c4 = coop_mat16x16<f32, C>();
    var c5 = coop_mat16x16<f32, C>();
    var c6 = coop_mat16x16<f32, C>();
    var c7 = coop_mat16x16<f32, C>();
    for (var it = 0u; it < params.iterations; it = it + 1u) {
        let kk0 = ((it * 1u + 0u) & 3u) * 16u;
        let a0_0 = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + 0u) * 36u + kk0 / 2u], 36u);
        let a0_1 = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + 16u) * 36u + kk0 / 2u], 36u);
        let a0_2 = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + 32u) * 36u + kk0 / 2u], 36u);
        let a0_3 = coopLoadT<coop_mat16x16<f16, A>>(&As[(wrow + 48u) * 36u + kk0 / 2u], 36u);
        let b0_0 = coopLoadT<coop_mat16x16<f16, B>>(&Bs[kk0 * 68u + (wcol + 0u) / 2u], 68u);
        let b0_1 = coopLoadT<coop_mat16x16<f16, B>>(&Bs[kk0 * 68u + (wcol + 16u) / 2u], 68u);
        c0 = coopMultiplyAdd(a0_0, b0_0, c0);
        c1 = coopMultiplyAdd(a0_0, b0_1, c1);
        c2 = coopMultiplyAdd(a0_1, b0_0, c2);
        c3 = coopMultiplyAdd(a0_1, b0_1, c3);
        c4 = coopMultiplyAdd(a0_2, b0_0, c4);
        c5 = coopMultiplyAdd(a0_2, b0_1, c5);
        c6 = coopMultiplyAdd(a0_3, b0_0, c6);
        c7 = coopMultiplyAdd(a0_3, b0_1, c7);
        if ((it & 1u) == 1u) {
            workgroupBarrier();
        }
    }
    // 64 slots of 8 subgroups x 8 accumulators x 256 floats (4 MiB), as the bundled chain.
    let slot = ((wg.y * groups.x + wg.x) % 64u) * 16384u + (lid / 32u) * 2048u;
    coopStoreT(c0, &out[slot + 0u], 16u);
    coopStoreT(c1, &out[slot + 256u], 16u);
    coopStoreT(c2, &out[slot + 512u], 16u);
    coopStoreT(c3, &out[slot + 768u], 16u);
    coopStoreT(c4, &out[slot + 1024u], 16u);
    coopStoreT(c5, &out[slot + 1280u], 16u);
    coopStoreT(c6, &out[slot + 1536u], 16u);
    coopStoreT(c7, &out[slot + 1792u], 16u);
}
