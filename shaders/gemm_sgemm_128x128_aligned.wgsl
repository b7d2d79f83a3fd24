// kcamp GEMM f32 (sgemm-f32 lineage, gen_sgemm2.py {"aligned": {"split": true, "vec_only": false}, "dbuf": false, "split": true})
// 128x128 block tile, k-tile 16, 8x8 outputs per invocation, 256 invocations;
// invocations 16x16 over the block, each 2x2 chunks of 4x4 strided by the block;
// global loads vec4 where the leading dimension is a multiple of 4, else scalar; single buffered, next fragments read ahead.
// Needs buffers padded to 16 bytes (kcamp pads every binding), the bindings being vec4 arrays.
// Entry points forward, backward_da, backward_db. Workgroups: x = ceil(N/128), y = ceil(M/128), z = B.

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

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> As: array<array<array<vec4<f32>, 32>, 16>, 1>;
var<workgroup> Bs: array<array<array<vec4<f32>, 32>, 16>, 1>;

@compute @workgroup_size(256, 1, 1)
fn forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (K & 3u) == 0u;
    let b_vec = (N & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_r0 = (tid + 0u) / 4u;
    let la_k0 = ((tid + 0u) % 4u) * 4u;
    let la_r4_0 = la_r0 >> 2u;
    let la_rc0 = la_r0 & 3u;
    let la_kk0_0 = la_k0 + 0u;
    let la_kk0_1 = la_k0 + 1u;
    let la_kk0_2 = la_k0 + 2u;
    let la_kk0_3 = la_k0 + 3u;
    var ra0: vec4<f32>;
    let la_r1 = (tid + 256u) / 4u;
    let la_k1 = ((tid + 256u) % 4u) * 4u;
    let la_r4_1 = la_r1 >> 2u;
    let la_rc1 = la_r1 & 3u;
    let la_kk1_0 = la_k1 + 0u;
    let la_kk1_1 = la_k1 + 1u;
    let la_kk1_2 = la_k1 + 2u;
    let la_kk1_3 = la_k1 + 3u;
    var ra1: vec4<f32>;
    let lb_k0 = (tid + 0u) / 32u;
    let lb_c4_0 = (tid + 0u) % 32u;
    var rb0: vec4<f32>;
    let lb_k1 = (tid + 256u) / 32u;
    let lb_c4_1 = (tid + 256u) % 32u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + k0 + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (k0 + la_k0 < K));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + k0 + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (k0 + la_k1 < K));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
            As[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs[0u][lb_k0][lb_c4_0] = rb0;
            Bs[0u][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    } else {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 0u < K));
            ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 1u < K));
            ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 2u < K));
            ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 3u < K));
            ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 0u < K));
            ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 1u < K));
            ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 2u < K));
            ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 3u < K));
            rb0.x = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
            rb0.y = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
            rb0.z = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
            rb0.w = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
            rb1.x = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
            rb1.y = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
            rb1.z = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
            rb1.w = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
            As[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs[0u][lb_k0][lb_c4_0] = rb0;
            Bs[0u][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}

@compute @workgroup_size(256, 1, 1)
fn backward_da(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (K & 3u) == 0u;
    let b_vec = (K & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_r0 = (tid + 0u) / 4u;
    let la_k0 = ((tid + 0u) % 4u) * 4u;
    let la_r4_0 = la_r0 >> 2u;
    let la_rc0 = la_r0 & 3u;
    let la_kk0_0 = la_k0 + 0u;
    let la_kk0_1 = la_k0 + 1u;
    let la_kk0_2 = la_k0 + 2u;
    let la_kk0_3 = la_k0 + 3u;
    var ra0: vec4<f32>;
    let la_r1 = (tid + 256u) / 4u;
    let la_k1 = ((tid + 256u) % 4u) * 4u;
    let la_r4_1 = la_r1 >> 2u;
    let la_rc1 = la_r1 & 3u;
    let la_kk1_0 = la_k1 + 0u;
    let la_kk1_1 = la_k1 + 1u;
    let la_kk1_2 = la_k1 + 2u;
    let la_kk1_3 = la_k1 + 3u;
    var ra1: vec4<f32>;
    let lb_r0 = (tid + 0u) / 4u;
    let lb_k0 = ((tid + 0u) % 4u) * 4u;
    let lb_r4_0 = lb_r0 >> 2u;
    let lb_rc0 = lb_r0 & 3u;
    let lb_kk0_0 = lb_k0 + 0u;
    let lb_kk0_1 = lb_k0 + 1u;
    let lb_kk0_2 = lb_k0 + 2u;
    let lb_kk0_3 = lb_k0 + 3u;
    var rb0: vec4<f32>;
    let lb_r1 = (tid + 256u) / 4u;
    let lb_k1 = ((tid + 256u) % 4u) * 4u;
    let lb_r4_1 = lb_r1 >> 2u;
    let lb_rc1 = lb_r1 & 3u;
    let lb_kk1_0 = lb_k1 + 0u;
    let lb_kk1_1 = lb_k1 + 1u;
    let lb_kk1_2 = lb_k1 + 2u;
    let lb_kk1_3 = lb_k1 + 3u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + k0 + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (k0 + la_k0 < K));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + k0 + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (k0 + la_k1 < K));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0) >> 2u, b_last)], (col0 + lb_r0 < N) & (k0 + lb_k0 < K));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1) >> 2u, b_last)], (col0 + lb_r1 < N) & (k0 + lb_k1 < K));
            As[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs[0u][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
            Bs[0u][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
            Bs[0u][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
            Bs[0u][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
            Bs[0u][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
            Bs[0u][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
            Bs[0u][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
            Bs[0u][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    } else {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 0u < K));
            ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 1u < K));
            ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 2u < K));
            ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 3u < K));
            ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 0u < K));
            ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 1u < K));
            ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 2u < K));
            ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 3u < K));
            rb0.x = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 0u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 0u < K));
            rb0.y = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 1u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 1u < K));
            rb0.z = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 2u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 2u < K));
            rb0.w = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 3u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 3u < K));
            rb1.x = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 0u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 0u < K));
            rb1.y = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 1u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 1u < K));
            rb1.z = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 2u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 2u < K));
            rb1.w = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 3u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 3u < K));
            As[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs[0u][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
            Bs[0u][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
            Bs[0u][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
            Bs[0u][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
            Bs[0u][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
            Bs[0u][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
            Bs[0u][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
            Bs[0u][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}

@compute @workgroup_size(256, 1, 1)
fn backward_db(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (M & 3u) == 0u;
    let b_vec = (N & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_k0 = (tid + 0u) / 32u;
    let la_c4_0 = (tid + 0u) % 32u;
    var ra0: vec4<f32>;
    let la_k1 = (tid + 256u) / 32u;
    let la_c4_1 = (tid + 256u) % 32u;
    var ra1: vec4<f32>;
    let lb_k0 = (tid + 0u) / 32u;
    let lb_c4_0 = (tid + 0u) % 32u;
    var rb0: vec4<f32>;
    let lb_k1 = (tid + 256u) / 32u;
    let lb_c4_1 = (tid + 256u) % 32u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u) >> 2u, a_last)], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u < M));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u) >> 2u, a_last)], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u < M));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
            As[0u][la_k0][la_c4_0] = ra0;
            As[0u][la_k1][la_c4_1] = ra1;
            Bs[0u][lb_k0][lb_c4_0] = rb0;
            Bs[0u][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    } else {
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let k0 = t * 16u;
            ra0.x = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 0u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 0u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 0u < M));
            ra0.y = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 1u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 1u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 1u < M));
            ra0.z = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 2u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 2u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 2u < M));
            ra0.w = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 3u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 3u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 3u < M));
            ra1.x = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 0u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 0u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 0u < M));
            ra1.y = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 1u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 1u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 1u < M));
            ra1.z = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 2u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 2u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 2u < M));
            ra1.w = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 3u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 3u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 3u < M));
            rb0.x = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
            rb0.y = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
            rb0.z = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
            rb0.w = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
            rb1.x = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
            rb1.y = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
            rb1.z = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
            rb1.w = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
            As[0u][la_k0][la_c4_0] = ra0;
            As[0u][la_k1][la_c4_1] = ra1;
            Bs[0u][lb_k0][lb_c4_0] = rb0;
            Bs[0u][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
            let av0_0 = As[0u][0u][a4_0];
            let av0_1 = As[0u][0u][a4_1];
            let bv0_0 = Bs[0u][0u][b4_0];
            let bv0_1 = Bs[0u][0u][b4_1];
            let av1_0 = As[0u][1u][a4_0];
            let av1_1 = As[0u][1u][a4_1];
            let bv1_0 = Bs[0u][1u][b4_0];
            let bv1_1 = Bs[0u][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As[0u][2u][a4_0];
            let av2_1 = As[0u][2u][a4_1];
            let bv2_0 = Bs[0u][2u][b4_0];
            let bv2_1 = Bs[0u][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As[0u][3u][a4_0];
            let av3_1 = As[0u][3u][a4_1];
            let bv3_0 = Bs[0u][3u][b4_0];
            let bv3_1 = Bs[0u][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As[0u][4u][a4_0];
            let av4_1 = As[0u][4u][a4_1];
            let bv4_0 = Bs[0u][4u][b4_0];
            let bv4_1 = Bs[0u][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As[0u][5u][a4_0];
            let av5_1 = As[0u][5u][a4_1];
            let bv5_0 = Bs[0u][5u][b4_0];
            let bv5_1 = Bs[0u][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As[0u][6u][a4_0];
            let av6_1 = As[0u][6u][a4_1];
            let bv6_0 = Bs[0u][6u][b4_0];
            let bv6_1 = Bs[0u][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As[0u][7u][a4_0];
            let av7_1 = As[0u][7u][a4_1];
            let bv7_0 = Bs[0u][7u][b4_0];
            let bv7_1 = Bs[0u][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As[0u][8u][a4_0];
            let av8_1 = As[0u][8u][a4_1];
            let bv8_0 = Bs[0u][8u][b4_0];
            let bv8_1 = Bs[0u][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As[0u][9u][a4_0];
            let av9_1 = As[0u][9u][a4_1];
            let bv9_0 = Bs[0u][9u][b4_0];
            let bv9_1 = Bs[0u][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As[0u][10u][a4_0];
            let av10_1 = As[0u][10u][a4_1];
            let bv10_0 = Bs[0u][10u][b4_0];
            let bv10_1 = Bs[0u][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As[0u][11u][a4_0];
            let av11_1 = As[0u][11u][a4_1];
            let bv11_0 = Bs[0u][11u][b4_0];
            let bv11_1 = Bs[0u][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As[0u][12u][a4_0];
            let av12_1 = As[0u][12u][a4_1];
            let bv12_0 = Bs[0u][12u][b4_0];
            let bv12_1 = Bs[0u][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As[0u][13u][a4_0];
            let av13_1 = As[0u][13u][a4_1];
            let bv13_0 = Bs[0u][13u][b4_0];
            let bv13_1 = Bs[0u][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As[0u][14u][a4_0];
            let av14_1 = As[0u][14u][a4_1];
            let bv14_0 = Bs[0u][14u][b4_0];
            let bv14_1 = Bs[0u][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As[0u][15u][a4_0];
            let av15_1 = As[0u][15u][a4_1];
            let bv15_0 = Bs[0u][15u][b4_0];
            let bv15_1 = Bs[0u][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}

// Entry points for shapes whose M, N and K are multiples of 4 (kernel.aligned), gen_sgemm2.py {"aligned": null, "split": true, "vec_only": false}:
var<workgroup> As_al: array<array<array<vec4<f32>, 32>, 16>, 2>;
var<workgroup> Bs_al: array<array<array<vec4<f32>, 32>, 16>, 2>;

@compute @workgroup_size(256, 1, 1)
fn forward_aligned(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (K & 3u) == 0u;
    let b_vec = (N & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_r0 = (tid + 0u) / 4u;
    let la_k0 = ((tid + 0u) % 4u) * 4u;
    let la_r4_0 = la_r0 >> 2u;
    let la_rc0 = la_r0 & 3u;
    let la_kk0_0 = la_k0 + 0u;
    let la_kk0_1 = la_k0 + 1u;
    let la_kk0_2 = la_k0 + 2u;
    let la_kk0_3 = la_k0 + 3u;
    var ra0: vec4<f32>;
    let la_r1 = (tid + 256u) / 4u;
    let la_k1 = ((tid + 256u) % 4u) * 4u;
    let la_r4_1 = la_r1 >> 2u;
    let la_rc1 = la_r1 & 3u;
    let la_kk1_0 = la_k1 + 0u;
    let la_kk1_1 = la_k1 + 1u;
    let la_kk1_2 = la_k1 + 2u;
    let la_kk1_3 = la_k1 + 3u;
    var ra1: vec4<f32>;
    let lb_k0 = (tid + 0u) / 32u;
    let lb_c4_0 = (tid + 0u) % 32u;
    var rb0: vec4<f32>;
    let lb_k1 = (tid + 256u) / 32u;
    let lb_c4_1 = (tid + 256u) % 32u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + 0u + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (0u + la_k0 < K));
        ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + 0u + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (0u + la_k1 < K));
        rb0 = select(vec4<f32>(0.0), b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
        rb1 = select(vec4<f32>(0.0), b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
        As_al[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
        As_al[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
        As_al[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
        As_al[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
        As_al[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
        As_al[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
        As_al[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
        As_al[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
        Bs_al[0u][lb_k0][lb_c4_0] = rb0;
        Bs_al[0u][lb_k1][lb_c4_1] = rb1;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + k0 + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (k0 + la_k0 < K));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + k0 + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (k0 + la_k1 < K));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As_al[nxt][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As_al[nxt][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As_al[nxt][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As_al[nxt][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As_al[nxt][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As_al[nxt][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As_al[nxt][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs_al[nxt][lb_k0][lb_c4_0] = rb0;
            Bs_al[nxt][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
        }
    } else {
        ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 0u < K));
        ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 1u < K));
        ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 2u < K));
        ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 3u < K));
        ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 0u < K));
        ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 1u < K));
        ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 2u < K));
        ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 3u < K));
        rb0.x = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
        rb0.y = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
        rb0.z = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
        rb0.w = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
        rb1.x = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
        rb1.y = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
        rb1.z = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
        rb1.w = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
        As_al[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
        As_al[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
        As_al[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
        As_al[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
        As_al[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
        As_al[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
        As_al[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
        As_al[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
        Bs_al[0u][lb_k0][lb_c4_0] = rb0;
        Bs_al[0u][lb_k1][lb_c4_1] = rb1;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 0u < K));
            ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 1u < K));
            ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 2u < K));
            ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 3u < K));
            ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 0u < K));
            ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 1u < K));
            ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 2u < K));
            ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 3u < K));
            rb0.x = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
            rb0.y = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
            rb0.z = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
            rb0.w = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
            rb1.x = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
            rb1.y = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
            rb1.z = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
            rb1.w = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As_al[nxt][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As_al[nxt][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As_al[nxt][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As_al[nxt][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As_al[nxt][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As_al[nxt][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As_al[nxt][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs_al[nxt][lb_k0][lb_c4_0] = rb0;
            Bs_al[nxt][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}

@compute @workgroup_size(256, 1, 1)
fn backward_da_aligned(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (K & 3u) == 0u;
    let b_vec = (K & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_r0 = (tid + 0u) / 4u;
    let la_k0 = ((tid + 0u) % 4u) * 4u;
    let la_r4_0 = la_r0 >> 2u;
    let la_rc0 = la_r0 & 3u;
    let la_kk0_0 = la_k0 + 0u;
    let la_kk0_1 = la_k0 + 1u;
    let la_kk0_2 = la_k0 + 2u;
    let la_kk0_3 = la_k0 + 3u;
    var ra0: vec4<f32>;
    let la_r1 = (tid + 256u) / 4u;
    let la_k1 = ((tid + 256u) % 4u) * 4u;
    let la_r4_1 = la_r1 >> 2u;
    let la_rc1 = la_r1 & 3u;
    let la_kk1_0 = la_k1 + 0u;
    let la_kk1_1 = la_k1 + 1u;
    let la_kk1_2 = la_k1 + 2u;
    let la_kk1_3 = la_k1 + 3u;
    var ra1: vec4<f32>;
    let lb_r0 = (tid + 0u) / 4u;
    let lb_k0 = ((tid + 0u) % 4u) * 4u;
    let lb_r4_0 = lb_r0 >> 2u;
    let lb_rc0 = lb_r0 & 3u;
    let lb_kk0_0 = lb_k0 + 0u;
    let lb_kk0_1 = lb_k0 + 1u;
    let lb_kk0_2 = lb_k0 + 2u;
    let lb_kk0_3 = lb_k0 + 3u;
    var rb0: vec4<f32>;
    let lb_r1 = (tid + 256u) / 4u;
    let lb_k1 = ((tid + 256u) % 4u) * 4u;
    let lb_r4_1 = lb_r1 >> 2u;
    let lb_rc1 = lb_r1 & 3u;
    let lb_kk1_0 = lb_k1 + 0u;
    let lb_kk1_1 = lb_k1 + 1u;
    let lb_kk1_2 = lb_k1 + 2u;
    let lb_kk1_3 = lb_k1 + 3u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + 0u + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (0u + la_k0 < K));
        ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + 0u + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (0u + la_k1 < K));
        rb0 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r0) * K + 0u + lb_k0) >> 2u, b_last)], (col0 + lb_r0 < N) & (0u + lb_k0 < K));
        rb1 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r1) * K + 0u + lb_k1) >> 2u, b_last)], (col0 + lb_r1 < N) & (0u + lb_k1 < K));
        As_al[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
        As_al[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
        As_al[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
        As_al[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
        As_al[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
        As_al[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
        As_al[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
        As_al[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
        Bs_al[0u][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
        Bs_al[0u][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
        Bs_al[0u][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
        Bs_al[0u][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
        Bs_al[0u][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
        Bs_al[0u][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
        Bs_al[0u][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
        Bs_al[0u][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r0) * K + k0 + la_k0) >> 2u, a_last)], (row0 + la_r0 < M) & (k0 + la_k0 < K));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (row0 + la_r1) * K + k0 + la_k1) >> 2u, a_last)], (row0 + la_r1 < M) & (k0 + la_k1 < K));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0) >> 2u, b_last)], (col0 + lb_r0 < N) & (k0 + lb_k0 < K));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1) >> 2u, b_last)], (col0 + lb_r1 < N) & (k0 + lb_k1 < K));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As_al[nxt][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As_al[nxt][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As_al[nxt][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As_al[nxt][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As_al[nxt][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As_al[nxt][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As_al[nxt][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs_al[nxt][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
            Bs_al[nxt][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
            Bs_al[nxt][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
            Bs_al[nxt][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
            Bs_al[nxt][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
            Bs_al[nxt][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
            Bs_al[nxt][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
            Bs_al[nxt][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
            workgroupBarrier();
        }
    } else {
        ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 0u < K));
        ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 1u < K));
        ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 2u < K));
        ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + 0u + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + 0u + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (0u + la_k0 + 3u < K));
        ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 0u < K));
        ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 1u < K));
        ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 2u < K));
        ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + 0u + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + 0u + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (0u + la_k1 + 3u < K));
        rb0.x = select(0.0, b[min((b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 0u) & 3u], (col0 + lb_r0 < N) & (0u + lb_k0 + 0u < K));
        rb0.y = select(0.0, b[min((b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 1u) & 3u], (col0 + lb_r0 < N) & (0u + lb_k0 + 1u < K));
        rb0.z = select(0.0, b[min((b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 2u) & 3u], (col0 + lb_r0 < N) & (0u + lb_k0 + 2u < K));
        rb0.w = select(0.0, b[min((b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + 0u + lb_k0 + 3u) & 3u], (col0 + lb_r0 < N) & (0u + lb_k0 + 3u < K));
        rb1.x = select(0.0, b[min((b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 0u) & 3u], (col0 + lb_r1 < N) & (0u + lb_k1 + 0u < K));
        rb1.y = select(0.0, b[min((b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 1u) & 3u], (col0 + lb_r1 < N) & (0u + lb_k1 + 1u < K));
        rb1.z = select(0.0, b[min((b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 2u) & 3u], (col0 + lb_r1 < N) & (0u + lb_k1 + 2u < K));
        rb1.w = select(0.0, b[min((b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + 0u + lb_k1 + 3u) & 3u], (col0 + lb_r1 < N) & (0u + lb_k1 + 3u < K));
        As_al[0u][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
        As_al[0u][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
        As_al[0u][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
        As_al[0u][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
        As_al[0u][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
        As_al[0u][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
        As_al[0u][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
        As_al[0u][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
        Bs_al[0u][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
        Bs_al[0u][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
        Bs_al[0u][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
        Bs_al[0u][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
        Bs_al[0u][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
        Bs_al[0u][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
        Bs_al[0u][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
        Bs_al[0u][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0.x = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 0u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 0u < K));
            ra0.y = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 1u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 1u < K));
            ra0.z = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 2u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 2u < K));
            ra0.w = select(0.0, a[min((a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r0) * K + k0 + la_k0 + 3u) & 3u], (row0 + la_r0 < M) & (k0 + la_k0 + 3u < K));
            ra1.x = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 0u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 0u < K));
            ra1.y = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 1u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 1u < K));
            ra1.z = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 2u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 2u < K));
            ra1.w = select(0.0, a[min((a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) >> 2u, a_last)][(a_base + (row0 + la_r1) * K + k0 + la_k1 + 3u) & 3u], (row0 + la_r1 < M) & (k0 + la_k1 + 3u < K));
            rb0.x = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 0u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 0u < K));
            rb0.y = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 1u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 1u < K));
            rb0.z = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 2u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 2u < K));
            rb0.w = select(0.0, b[min((b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r0) * K + k0 + lb_k0 + 3u) & 3u], (col0 + lb_r0 < N) & (k0 + lb_k0 + 3u < K));
            rb1.x = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 0u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 0u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 0u < K));
            rb1.y = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 1u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 1u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 1u < K));
            rb1.z = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 2u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 2u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 2u < K));
            rb1.w = select(0.0, b[min((b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 3u) >> 2u, b_last)][(b_base + (col0 + lb_r1) * K + k0 + lb_k1 + 3u) & 3u], (col0 + lb_r1 < N) & (k0 + lb_k1 + 3u < K));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_kk0_0][la_r4_0][la_rc0] = ra0.x;
            As_al[nxt][la_kk0_1][la_r4_0][la_rc0] = ra0.y;
            As_al[nxt][la_kk0_2][la_r4_0][la_rc0] = ra0.z;
            As_al[nxt][la_kk0_3][la_r4_0][la_rc0] = ra0.w;
            As_al[nxt][la_kk1_0][la_r4_1][la_rc1] = ra1.x;
            As_al[nxt][la_kk1_1][la_r4_1][la_rc1] = ra1.y;
            As_al[nxt][la_kk1_2][la_r4_1][la_rc1] = ra1.z;
            As_al[nxt][la_kk1_3][la_r4_1][la_rc1] = ra1.w;
            Bs_al[nxt][lb_kk0_0][lb_r4_0][lb_rc0] = rb0.x;
            Bs_al[nxt][lb_kk0_1][lb_r4_0][lb_rc0] = rb0.y;
            Bs_al[nxt][lb_kk0_2][lb_r4_0][lb_rc0] = rb0.z;
            Bs_al[nxt][lb_kk0_3][lb_r4_0][lb_rc0] = rb0.w;
            Bs_al[nxt][lb_kk1_0][lb_r4_1][lb_rc1] = rb1.x;
            Bs_al[nxt][lb_kk1_1][lb_r4_1][lb_rc1] = rb1.y;
            Bs_al[nxt][lb_kk1_2][lb_r4_1][lb_rc1] = rb1.z;
            Bs_al[nxt][lb_kk1_3][lb_r4_1][lb_rc1] = rb1.w;
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}

@compute @workgroup_size(256, 1, 1)
fn backward_db_aligned(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let M = params.m;
    let N = params.n;
    let K = params.k;
    let by = wg.y;
    let bx = wg.x;
    let row0 = by * 128u;
    let col0 = bx * 128u;
    let a_vec = (M & 3u) == 0u;
    let b_vec = (N & 3u) == 0u;
    let c_vec = (N & 3u) == 0u;
    let a_base = wg.z * M * K;
    let b_base = wg.z * K * N;
    let c_base = wg.z * M * N;
    let a_last = arrayLength(&a) - 1u;
    let b_last = arrayLength(&b) - 1u;
    let lx = tid % 16u;
    let ly = tid / 16u;
    let a4_0 = 0u + ly;
    let a4_1 = 16u + ly;
    let b4_0 = 0u + lx;
    let b4_1 = 16u + lx;
    let la_k0 = (tid + 0u) / 32u;
    let la_c4_0 = (tid + 0u) % 32u;
    var ra0: vec4<f32>;
    let la_k1 = (tid + 256u) / 32u;
    let la_c4_1 = (tid + 256u) % 32u;
    var ra1: vec4<f32>;
    let lb_k0 = (tid + 0u) / 32u;
    let lb_c4_0 = (tid + 0u) % 32u;
    var rb0: vec4<f32>;
    let lb_k1 = (tid + 256u) / 32u;
    let lb_c4_1 = (tid + 256u) % 32u;
    var rb1: vec4<f32>;
    var acc0_0 = vec4<f32>(0.0);
    var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0);
    var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0);
    var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0);
    var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0);
    var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0);
    var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0);
    var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0);
    var acc7_1 = vec4<f32>(0.0);
    let ntiles = (K + 15u) / 16u;
    if (a_vec & b_vec) {
        ra0 = select(vec4<f32>(0.0), a[min((a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u) >> 2u, a_last)], (0u + la_k0 < K) & (row0 + la_c4_0 * 4u < M));
        ra1 = select(vec4<f32>(0.0), a[min((a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u) >> 2u, a_last)], (0u + la_k1 < K) & (row0 + la_c4_1 * 4u < M));
        rb0 = select(vec4<f32>(0.0), b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
        rb1 = select(vec4<f32>(0.0), b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
        As_al[0u][la_k0][la_c4_0] = ra0;
        As_al[0u][la_k1][la_c4_1] = ra1;
        Bs_al[0u][lb_k0][lb_c4_0] = rb0;
        Bs_al[0u][lb_k1][lb_c4_1] = rb1;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0 = select(vec4<f32>(0.0), a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u) >> 2u, a_last)], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u < M));
            ra1 = select(vec4<f32>(0.0), a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u) >> 2u, a_last)], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u < M));
            rb0 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u) >> 2u, b_last)], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u < N));
            rb1 = select(vec4<f32>(0.0), b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u) >> 2u, b_last)], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u < N));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_k0][la_c4_0] = ra0;
            As_al[nxt][la_k1][la_c4_1] = ra1;
            Bs_al[nxt][lb_k0][lb_c4_0] = rb0;
            Bs_al[nxt][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
        }
    } else {
        ra0.x = select(0.0, a[min((a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 0u) >> 2u, a_last)][(a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 0u) & 3u], (0u + la_k0 < K) & (row0 + la_c4_0 * 4u + 0u < M));
        ra0.y = select(0.0, a[min((a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 1u) >> 2u, a_last)][(a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 1u) & 3u], (0u + la_k0 < K) & (row0 + la_c4_0 * 4u + 1u < M));
        ra0.z = select(0.0, a[min((a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 2u) >> 2u, a_last)][(a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 2u) & 3u], (0u + la_k0 < K) & (row0 + la_c4_0 * 4u + 2u < M));
        ra0.w = select(0.0, a[min((a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 3u) >> 2u, a_last)][(a_base + (0u + la_k0) * M + row0 + la_c4_0 * 4u + 3u) & 3u], (0u + la_k0 < K) & (row0 + la_c4_0 * 4u + 3u < M));
        ra1.x = select(0.0, a[min((a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 0u) >> 2u, a_last)][(a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 0u) & 3u], (0u + la_k1 < K) & (row0 + la_c4_1 * 4u + 0u < M));
        ra1.y = select(0.0, a[min((a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 1u) >> 2u, a_last)][(a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 1u) & 3u], (0u + la_k1 < K) & (row0 + la_c4_1 * 4u + 1u < M));
        ra1.z = select(0.0, a[min((a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 2u) >> 2u, a_last)][(a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 2u) & 3u], (0u + la_k1 < K) & (row0 + la_c4_1 * 4u + 2u < M));
        ra1.w = select(0.0, a[min((a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 3u) >> 2u, a_last)][(a_base + (0u + la_k1) * M + row0 + la_c4_1 * 4u + 3u) & 3u], (0u + la_k1 < K) & (row0 + la_c4_1 * 4u + 3u < M));
        rb0.x = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
        rb0.y = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
        rb0.z = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
        rb0.w = select(0.0, b[min((b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (0u + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (0u + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
        rb1.x = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
        rb1.y = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
        rb1.z = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
        rb1.w = select(0.0, b[min((b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (0u + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (0u + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
        As_al[0u][la_k0][la_c4_0] = ra0;
        As_al[0u][la_k1][la_c4_1] = ra1;
        Bs_al[0u][lb_k0][lb_c4_0] = rb0;
        Bs_al[0u][lb_k1][lb_c4_1] = rb1;
        workgroupBarrier();
        for (var t = 0u; t < ntiles; t = t + 1u) {
            let cur = t & 1u;
            let nxt = cur ^ 1u;
            let k0 = (t + 1u) * 16u;
            ra0.x = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 0u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 0u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 0u < M));
            ra0.y = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 1u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 1u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 1u < M));
            ra0.z = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 2u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 2u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 2u < M));
            ra0.w = select(0.0, a[min((a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 3u) >> 2u, a_last)][(a_base + (k0 + la_k0) * M + row0 + la_c4_0 * 4u + 3u) & 3u], (k0 + la_k0 < K) & (row0 + la_c4_0 * 4u + 3u < M));
            ra1.x = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 0u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 0u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 0u < M));
            ra1.y = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 1u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 1u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 1u < M));
            ra1.z = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 2u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 2u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 2u < M));
            ra1.w = select(0.0, a[min((a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 3u) >> 2u, a_last)][(a_base + (k0 + la_k1) * M + row0 + la_c4_1 * 4u + 3u) & 3u], (k0 + la_k1 < K) & (row0 + la_c4_1 * 4u + 3u < M));
            rb0.x = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 0u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 0u < N));
            rb0.y = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 1u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 1u < N));
            rb0.z = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 2u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 2u < N));
            rb0.w = select(0.0, b[min((b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k0) * N + col0 + lb_c4_0 * 4u + 3u) & 3u], (k0 + lb_k0 < K) & (col0 + lb_c4_0 * 4u + 3u < N));
            rb1.x = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 0u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 0u < N));
            rb1.y = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 1u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 1u < N));
            rb1.z = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 2u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 2u < N));
            rb1.w = select(0.0, b[min((b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) >> 2u, b_last)][(b_base + (k0 + lb_k1) * N + col0 + lb_c4_1 * 4u + 3u) & 3u], (k0 + lb_k1 < K) & (col0 + lb_c4_1 * 4u + 3u < N));
            let av0_0 = As_al[cur][0u][a4_0];
            let av0_1 = As_al[cur][0u][a4_1];
            let bv0_0 = Bs_al[cur][0u][b4_0];
            let bv0_1 = Bs_al[cur][0u][b4_1];
            let av1_0 = As_al[cur][1u][a4_0];
            let av1_1 = As_al[cur][1u][a4_1];
            let bv1_0 = Bs_al[cur][1u][b4_0];
            let bv1_1 = Bs_al[cur][1u][b4_1];
            acc0_0 = fma(vec4<f32>(av0_0.x), bv0_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av0_0.x), bv0_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av0_0.y), bv0_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av0_0.y), bv0_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av0_0.z), bv0_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av0_0.z), bv0_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av0_0.w), bv0_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av0_0.w), bv0_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av0_1.x), bv0_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av0_1.x), bv0_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av0_1.y), bv0_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av0_1.y), bv0_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av0_1.z), bv0_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av0_1.z), bv0_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av0_1.w), bv0_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av0_1.w), bv0_1, acc7_1);
            let av2_0 = As_al[cur][2u][a4_0];
            let av2_1 = As_al[cur][2u][a4_1];
            let bv2_0 = Bs_al[cur][2u][b4_0];
            let bv2_1 = Bs_al[cur][2u][b4_1];
            acc0_0 = fma(vec4<f32>(av1_0.x), bv1_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av1_0.x), bv1_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av1_0.y), bv1_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av1_0.y), bv1_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av1_0.z), bv1_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av1_0.z), bv1_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av1_0.w), bv1_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av1_0.w), bv1_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av1_1.x), bv1_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av1_1.x), bv1_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av1_1.y), bv1_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av1_1.y), bv1_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av1_1.z), bv1_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av1_1.z), bv1_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av1_1.w), bv1_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av1_1.w), bv1_1, acc7_1);
            let av3_0 = As_al[cur][3u][a4_0];
            let av3_1 = As_al[cur][3u][a4_1];
            let bv3_0 = Bs_al[cur][3u][b4_0];
            let bv3_1 = Bs_al[cur][3u][b4_1];
            acc0_0 = fma(vec4<f32>(av2_0.x), bv2_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av2_0.x), bv2_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av2_0.y), bv2_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av2_0.y), bv2_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av2_0.z), bv2_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av2_0.z), bv2_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av2_0.w), bv2_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av2_0.w), bv2_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av2_1.x), bv2_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av2_1.x), bv2_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av2_1.y), bv2_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av2_1.y), bv2_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av2_1.z), bv2_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av2_1.z), bv2_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av2_1.w), bv2_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av2_1.w), bv2_1, acc7_1);
            let av4_0 = As_al[cur][4u][a4_0];
            let av4_1 = As_al[cur][4u][a4_1];
            let bv4_0 = Bs_al[cur][4u][b4_0];
            let bv4_1 = Bs_al[cur][4u][b4_1];
            acc0_0 = fma(vec4<f32>(av3_0.x), bv3_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av3_0.x), bv3_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av3_0.y), bv3_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av3_0.y), bv3_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av3_0.z), bv3_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av3_0.z), bv3_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av3_0.w), bv3_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av3_0.w), bv3_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av3_1.x), bv3_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av3_1.x), bv3_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av3_1.y), bv3_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av3_1.y), bv3_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av3_1.z), bv3_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av3_1.z), bv3_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av3_1.w), bv3_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av3_1.w), bv3_1, acc7_1);
            let av5_0 = As_al[cur][5u][a4_0];
            let av5_1 = As_al[cur][5u][a4_1];
            let bv5_0 = Bs_al[cur][5u][b4_0];
            let bv5_1 = Bs_al[cur][5u][b4_1];
            acc0_0 = fma(vec4<f32>(av4_0.x), bv4_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av4_0.x), bv4_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av4_0.y), bv4_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av4_0.y), bv4_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av4_0.z), bv4_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av4_0.z), bv4_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av4_0.w), bv4_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av4_0.w), bv4_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av4_1.x), bv4_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av4_1.x), bv4_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av4_1.y), bv4_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av4_1.y), bv4_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av4_1.z), bv4_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av4_1.z), bv4_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av4_1.w), bv4_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av4_1.w), bv4_1, acc7_1);
            let av6_0 = As_al[cur][6u][a4_0];
            let av6_1 = As_al[cur][6u][a4_1];
            let bv6_0 = Bs_al[cur][6u][b4_0];
            let bv6_1 = Bs_al[cur][6u][b4_1];
            acc0_0 = fma(vec4<f32>(av5_0.x), bv5_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av5_0.x), bv5_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av5_0.y), bv5_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av5_0.y), bv5_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av5_0.z), bv5_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av5_0.z), bv5_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av5_0.w), bv5_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av5_0.w), bv5_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av5_1.x), bv5_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av5_1.x), bv5_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av5_1.y), bv5_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av5_1.y), bv5_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av5_1.z), bv5_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av5_1.z), bv5_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av5_1.w), bv5_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av5_1.w), bv5_1, acc7_1);
            let av7_0 = As_al[cur][7u][a4_0];
            let av7_1 = As_al[cur][7u][a4_1];
            let bv7_0 = Bs_al[cur][7u][b4_0];
            let bv7_1 = Bs_al[cur][7u][b4_1];
            acc0_0 = fma(vec4<f32>(av6_0.x), bv6_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av6_0.x), bv6_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av6_0.y), bv6_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av6_0.y), bv6_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av6_0.z), bv6_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av6_0.z), bv6_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av6_0.w), bv6_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av6_0.w), bv6_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av6_1.x), bv6_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av6_1.x), bv6_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av6_1.y), bv6_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av6_1.y), bv6_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av6_1.z), bv6_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av6_1.z), bv6_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av6_1.w), bv6_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av6_1.w), bv6_1, acc7_1);
            let av8_0 = As_al[cur][8u][a4_0];
            let av8_1 = As_al[cur][8u][a4_1];
            let bv8_0 = Bs_al[cur][8u][b4_0];
            let bv8_1 = Bs_al[cur][8u][b4_1];
            acc0_0 = fma(vec4<f32>(av7_0.x), bv7_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av7_0.x), bv7_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av7_0.y), bv7_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av7_0.y), bv7_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av7_0.z), bv7_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av7_0.z), bv7_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av7_0.w), bv7_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av7_0.w), bv7_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av7_1.x), bv7_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av7_1.x), bv7_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av7_1.y), bv7_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av7_1.y), bv7_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av7_1.z), bv7_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av7_1.z), bv7_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av7_1.w), bv7_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av7_1.w), bv7_1, acc7_1);
            let av9_0 = As_al[cur][9u][a4_0];
            let av9_1 = As_al[cur][9u][a4_1];
            let bv9_0 = Bs_al[cur][9u][b4_0];
            let bv9_1 = Bs_al[cur][9u][b4_1];
            acc0_0 = fma(vec4<f32>(av8_0.x), bv8_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av8_0.x), bv8_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av8_0.y), bv8_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av8_0.y), bv8_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av8_0.z), bv8_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av8_0.z), bv8_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av8_0.w), bv8_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av8_0.w), bv8_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av8_1.x), bv8_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av8_1.x), bv8_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av8_1.y), bv8_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av8_1.y), bv8_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av8_1.z), bv8_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av8_1.z), bv8_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av8_1.w), bv8_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av8_1.w), bv8_1, acc7_1);
            let av10_0 = As_al[cur][10u][a4_0];
            let av10_1 = As_al[cur][10u][a4_1];
            let bv10_0 = Bs_al[cur][10u][b4_0];
            let bv10_1 = Bs_al[cur][10u][b4_1];
            acc0_0 = fma(vec4<f32>(av9_0.x), bv9_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av9_0.x), bv9_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av9_0.y), bv9_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av9_0.y), bv9_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av9_0.z), bv9_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av9_0.z), bv9_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av9_0.w), bv9_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av9_0.w), bv9_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av9_1.x), bv9_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av9_1.x), bv9_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av9_1.y), bv9_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av9_1.y), bv9_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av9_1.z), bv9_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av9_1.z), bv9_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av9_1.w), bv9_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av9_1.w), bv9_1, acc7_1);
            let av11_0 = As_al[cur][11u][a4_0];
            let av11_1 = As_al[cur][11u][a4_1];
            let bv11_0 = Bs_al[cur][11u][b4_0];
            let bv11_1 = Bs_al[cur][11u][b4_1];
            acc0_0 = fma(vec4<f32>(av10_0.x), bv10_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av10_0.x), bv10_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av10_0.y), bv10_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av10_0.y), bv10_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av10_0.z), bv10_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av10_0.z), bv10_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av10_0.w), bv10_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av10_0.w), bv10_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av10_1.x), bv10_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av10_1.x), bv10_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av10_1.y), bv10_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av10_1.y), bv10_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av10_1.z), bv10_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av10_1.z), bv10_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av10_1.w), bv10_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av10_1.w), bv10_1, acc7_1);
            let av12_0 = As_al[cur][12u][a4_0];
            let av12_1 = As_al[cur][12u][a4_1];
            let bv12_0 = Bs_al[cur][12u][b4_0];
            let bv12_1 = Bs_al[cur][12u][b4_1];
            acc0_0 = fma(vec4<f32>(av11_0.x), bv11_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av11_0.x), bv11_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av11_0.y), bv11_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av11_0.y), bv11_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av11_0.z), bv11_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av11_0.z), bv11_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av11_0.w), bv11_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av11_0.w), bv11_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av11_1.x), bv11_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av11_1.x), bv11_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av11_1.y), bv11_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av11_1.y), bv11_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av11_1.z), bv11_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av11_1.z), bv11_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av11_1.w), bv11_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av11_1.w), bv11_1, acc7_1);
            let av13_0 = As_al[cur][13u][a4_0];
            let av13_1 = As_al[cur][13u][a4_1];
            let bv13_0 = Bs_al[cur][13u][b4_0];
            let bv13_1 = Bs_al[cur][13u][b4_1];
            acc0_0 = fma(vec4<f32>(av12_0.x), bv12_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av12_0.x), bv12_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av12_0.y), bv12_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av12_0.y), bv12_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av12_0.z), bv12_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av12_0.z), bv12_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av12_0.w), bv12_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av12_0.w), bv12_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av12_1.x), bv12_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av12_1.x), bv12_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av12_1.y), bv12_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av12_1.y), bv12_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av12_1.z), bv12_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av12_1.z), bv12_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av12_1.w), bv12_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av12_1.w), bv12_1, acc7_1);
            let av14_0 = As_al[cur][14u][a4_0];
            let av14_1 = As_al[cur][14u][a4_1];
            let bv14_0 = Bs_al[cur][14u][b4_0];
            let bv14_1 = Bs_al[cur][14u][b4_1];
            acc0_0 = fma(vec4<f32>(av13_0.x), bv13_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av13_0.x), bv13_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av13_0.y), bv13_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av13_0.y), bv13_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av13_0.z), bv13_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av13_0.z), bv13_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av13_0.w), bv13_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av13_0.w), bv13_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av13_1.x), bv13_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av13_1.x), bv13_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av13_1.y), bv13_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av13_1.y), bv13_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av13_1.z), bv13_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av13_1.z), bv13_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av13_1.w), bv13_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av13_1.w), bv13_1, acc7_1);
            let av15_0 = As_al[cur][15u][a4_0];
            let av15_1 = As_al[cur][15u][a4_1];
            let bv15_0 = Bs_al[cur][15u][b4_0];
            let bv15_1 = Bs_al[cur][15u][b4_1];
            acc0_0 = fma(vec4<f32>(av14_0.x), bv14_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av14_0.x), bv14_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av14_0.y), bv14_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av14_0.y), bv14_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av14_0.z), bv14_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av14_0.z), bv14_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av14_0.w), bv14_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av14_0.w), bv14_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av14_1.x), bv14_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av14_1.x), bv14_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av14_1.y), bv14_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av14_1.y), bv14_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av14_1.z), bv14_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av14_1.z), bv14_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av14_1.w), bv14_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av14_1.w), bv14_1, acc7_1);
            acc0_0 = fma(vec4<f32>(av15_0.x), bv15_0, acc0_0);
            acc0_1 = fma(vec4<f32>(av15_0.x), bv15_1, acc0_1);
            acc1_0 = fma(vec4<f32>(av15_0.y), bv15_0, acc1_0);
            acc1_1 = fma(vec4<f32>(av15_0.y), bv15_1, acc1_1);
            acc2_0 = fma(vec4<f32>(av15_0.z), bv15_0, acc2_0);
            acc2_1 = fma(vec4<f32>(av15_0.z), bv15_1, acc2_1);
            acc3_0 = fma(vec4<f32>(av15_0.w), bv15_0, acc3_0);
            acc3_1 = fma(vec4<f32>(av15_0.w), bv15_1, acc3_1);
            acc4_0 = fma(vec4<f32>(av15_1.x), bv15_0, acc4_0);
            acc4_1 = fma(vec4<f32>(av15_1.x), bv15_1, acc4_1);
            acc5_0 = fma(vec4<f32>(av15_1.y), bv15_0, acc5_0);
            acc5_1 = fma(vec4<f32>(av15_1.y), bv15_1, acc5_1);
            acc6_0 = fma(vec4<f32>(av15_1.z), bv15_0, acc6_0);
            acc6_1 = fma(vec4<f32>(av15_1.z), bv15_1, acc6_1);
            acc7_0 = fma(vec4<f32>(av15_1.w), bv15_0, acc7_0);
            acc7_1 = fma(vec4<f32>(av15_1.w), bv15_1, acc7_1);
            As_al[nxt][la_k0][la_c4_0] = ra0;
            As_al[nxt][la_k1][la_c4_1] = ra1;
            Bs_al[nxt][lb_k0][lb_c4_0] = rb0;
            Bs_al[nxt][lb_k1][lb_c4_1] = rb1;
            workgroupBarrier();
        }
    }
    let cc0 = col0 + b4_0 * 4u;
    let cc1 = col0 + b4_1 * 4u;
    let r0 = row0 + a4_0 * 4u + 0u;
    if (r0 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r0 * N + cc0) >> 2u] = acc0_0; }
            if (cc1 < N) { c[(c_base + r0 * N + cc1) >> 2u] = acc0_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r0 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc0_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r0 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc0_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r0 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc0_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r0 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc0_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r0 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc0_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r0 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc0_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r0 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc0_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r0 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc0_1.w; }
        }
    }
    let r1 = row0 + a4_0 * 4u + 1u;
    if (r1 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r1 * N + cc0) >> 2u] = acc1_0; }
            if (cc1 < N) { c[(c_base + r1 * N + cc1) >> 2u] = acc1_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r1 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc1_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r1 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc1_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r1 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc1_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r1 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc1_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r1 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc1_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r1 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc1_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r1 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc1_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r1 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc1_1.w; }
        }
    }
    let r2 = row0 + a4_0 * 4u + 2u;
    if (r2 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r2 * N + cc0) >> 2u] = acc2_0; }
            if (cc1 < N) { c[(c_base + r2 * N + cc1) >> 2u] = acc2_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r2 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc2_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r2 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc2_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r2 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc2_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r2 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc2_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r2 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc2_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r2 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc2_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r2 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc2_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r2 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc2_1.w; }
        }
    }
    let r3 = row0 + a4_0 * 4u + 3u;
    if (r3 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r3 * N + cc0) >> 2u] = acc3_0; }
            if (cc1 < N) { c[(c_base + r3 * N + cc1) >> 2u] = acc3_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r3 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc3_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r3 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc3_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r3 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc3_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r3 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc3_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r3 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc3_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r3 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc3_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r3 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc3_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r3 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc3_1.w; }
        }
    }
    let r4 = row0 + a4_1 * 4u + 0u;
    if (r4 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r4 * N + cc0) >> 2u] = acc4_0; }
            if (cc1 < N) { c[(c_base + r4 * N + cc1) >> 2u] = acc4_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r4 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc4_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r4 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc4_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r4 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc4_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r4 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc4_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r4 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc4_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r4 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc4_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r4 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc4_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r4 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc4_1.w; }
        }
    }
    let r5 = row0 + a4_1 * 4u + 1u;
    if (r5 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r5 * N + cc0) >> 2u] = acc5_0; }
            if (cc1 < N) { c[(c_base + r5 * N + cc1) >> 2u] = acc5_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r5 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc5_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r5 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc5_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r5 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc5_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r5 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc5_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r5 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc5_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r5 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc5_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r5 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc5_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r5 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc5_1.w; }
        }
    }
    let r6 = row0 + a4_1 * 4u + 2u;
    if (r6 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r6 * N + cc0) >> 2u] = acc6_0; }
            if (cc1 < N) { c[(c_base + r6 * N + cc1) >> 2u] = acc6_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r6 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc6_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r6 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc6_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r6 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc6_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r6 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc6_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r6 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc6_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r6 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc6_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r6 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc6_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r6 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc6_1.w; }
        }
    }
    let r7 = row0 + a4_1 * 4u + 3u;
    if (r7 < M) {
        if (c_vec) {
            if (cc0 < N) { c[(c_base + r7 * N + cc0) >> 2u] = acc7_0; }
            if (cc1 < N) { c[(c_base + r7 * N + cc1) >> 2u] = acc7_1; }
        } else {
            if (cc0 + 0u < N) { let o = c_base + r7 * N + cc0 + 0u; c[o >> 2u][o & 3u] = acc7_0.x; }
            if (cc0 + 1u < N) { let o = c_base + r7 * N + cc0 + 1u; c[o >> 2u][o & 3u] = acc7_0.y; }
            if (cc0 + 2u < N) { let o = c_base + r7 * N + cc0 + 2u; c[o >> 2u][o & 3u] = acc7_0.z; }
            if (cc0 + 3u < N) { let o = c_base + r7 * N + cc0 + 3u; c[o >> 2u][o & 3u] = acc7_0.w; }
            if (cc1 + 0u < N) { let o = c_base + r7 * N + cc1 + 0u; c[o >> 2u][o & 3u] = acc7_1.x; }
            if (cc1 + 1u < N) { let o = c_base + r7 * N + cc1 + 1u; c[o >> 2u][o & 3u] = acc7_1.y; }
            if (cc1 + 2u < N) { let o = c_base + r7 * N + cc1 + 2u; c[o >> 2u][o & 3u] = acc7_1.z; }
            if (cc1 + 3u < N) { let o = c_base + r7 * N + cc1 + 3u; c[o >> 2u][o & 3u] = acc7_1.w; }
        }
    }
}
