enable f16;
enable wgpu_cooperative_matrix;

// Probe 'l6-dbuf32' (scripts/h200/probes/gen_probes.py): per subgroup and iteration 6
// cooperative loads from workgroup memory and 8 multiply-adds of 16x16x16 (f16 inputs, f32
// sums), k-tile 32 double buffered: every 2 iterations 16 stores of vec2<f16> per invocation into the other buffer and a barrier. Timed by `kcamp peak --coop-probe THIS`.

struct Params {
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> As: array<vec2<f16>, 5120>;
var<workgroup> Bs: array<vec2<f16>, 4352>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = lid; i < 5120u; i = i + 256u) {
        let v = f16(f32(i % 7u) * 0.01);
        As[i] = vec2<f16>(v, v);
    }
    for (var i = lid; i < 4352u; i = i + 256u) {
        let v = f16(f32(i % 7u) * 0.01);
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
        let kk = (it & 1u) * 16u;
        let ab = ((it >> 1u) & 1u) * 2560u;
        let bb = ((it >> 1u) & 1u) * 2176u;
        let a0 = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + 0u) * 20u + kk / 2u], 20u);
        let a1 = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + 16u) * 20u + kk / 2u], 20u);
        let a2 = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + 32u) * 20u + kk / 2u], 20u);
        let a3 = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + (wrow + 48u) * 20u + kk / 2u], 20u);
        let b0 = coopLoadT<coop_mat16x16<f16, B>>(&Bs[bb + kk * 68u + (wcol + 0u) / 2u], 68u);
        let b1 = coopLoadT<coop_mat16x16<f16, B>>(&Bs[bb + kk * 68u + (wcol + 16u) / 2u], 68u);
        c0 = coopMultiplyAdd(a0, b0, c0);
        c1 = coopMultiplyAdd(a0, b1, c1);
        c2 = coopMultiplyAdd(a1, b0, c2);
        c3 = coopMultiplyAdd(a1, b1, c3);
        c4 = coopMultiplyAdd(a2, b0, c4);
        c5 = coopMultiplyAdd(a2, b1, c5);
        c6 = coopMultiplyAdd(a3, b0, c6);
        c7 = coopMultiplyAdd(a3, b1, c7);
        if ((it & 1u) == 1u) {
            let t = f16(f32(it & 7u) * 0.01);
            let na = 2560u - ab;
            let nb = 2176u - bb;
            let ra0 = na + ((lid + 0u) / 4u) * 20u + (lid % 4u) * 4u;
            As[ra0 + 0u] = vec2<f16>(t, t);
            As[ra0 + 1u] = vec2<f16>(t, t);
            As[ra0 + 2u] = vec2<f16>(t, t);
            As[ra0 + 3u] = vec2<f16>(t, t);
            let ra1 = na + ((lid + 256u) / 4u) * 20u + (lid % 4u) * 4u;
            As[ra1 + 0u] = vec2<f16>(t, t);
            As[ra1 + 1u] = vec2<f16>(t, t);
            As[ra1 + 2u] = vec2<f16>(t, t);
            As[ra1 + 3u] = vec2<f16>(t, t);
            let rb0 = nb + ((lid + 0u) / 16u) * 68u + (lid % 16u) * 4u;
            Bs[rb0 + 0u] = vec2<f16>(t, -t);
            Bs[rb0 + 1u] = vec2<f16>(t, -t);
            Bs[rb0 + 2u] = vec2<f16>(t, -t);
            Bs[rb0 + 3u] = vec2<f16>(t, -t);
            let rb1 = nb + ((lid + 256u) / 16u) * 68u + (lid % 16u) * 4u;
            Bs[rb1 + 0u] = vec2<f16>(t, -t);
            Bs[rb1 + 1u] = vec2<f16>(t, -t);
            Bs[rb1 + 2u] = vec2<f16>(t, -t);
            Bs[rb1 + 3u] = vec2<f16>(t, -t);
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
