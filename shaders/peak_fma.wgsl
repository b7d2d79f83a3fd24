// Peak FMA throughput (f32): 8 independent vec4 FMA chains per invocation, unrolled 4x.
// FLOPs per invocation = iterations * 8 chains * 4 unroll * 4 lanes * 2.
// The sum is stored so the chains cannot be removed; 2-D grid as in axpy.wgsl.
// fma() is explicit on purpose: written as a * mul + add, NVIDIA's driver re-associated
// the unrolled f16 chain and reported 4x the real rate on an H200.

struct Params {
    iterations: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.y * (groups.x * 256u) + gid.x;
    let seed = f32(i % 1024u) * f32(0.0001);
    let mul = vec4<f32>(f32(0.999));
    let add = vec4<f32>(f32(0.001));
    var a0 = vec4<f32>(seed + f32(0.0 * 0.01));
    var a1 = vec4<f32>(seed + f32(1.0 * 0.01));
    var a2 = vec4<f32>(seed + f32(2.0 * 0.01));
    var a3 = vec4<f32>(seed + f32(3.0 * 0.01));
    var a4 = vec4<f32>(seed + f32(4.0 * 0.01));
    var a5 = vec4<f32>(seed + f32(5.0 * 0.01));
    var a6 = vec4<f32>(seed + f32(6.0 * 0.01));
    var a7 = vec4<f32>(seed + f32(7.0 * 0.01));
    for (var it = 0u; it < params.iterations; it = it + 1u) {
        a0 = fma(a0, mul, add);
        a1 = fma(a1, mul, add);
        a2 = fma(a2, mul, add);
        a3 = fma(a3, mul, add);
        a4 = fma(a4, mul, add);
        a5 = fma(a5, mul, add);
        a6 = fma(a6, mul, add);
        a7 = fma(a7, mul, add);
        a0 = fma(a0, mul, add);
        a1 = fma(a1, mul, add);
        a2 = fma(a2, mul, add);
        a3 = fma(a3, mul, add);
        a4 = fma(a4, mul, add);
        a5 = fma(a5, mul, add);
        a6 = fma(a6, mul, add);
        a7 = fma(a7, mul, add);
        a0 = fma(a0, mul, add);
        a1 = fma(a1, mul, add);
        a2 = fma(a2, mul, add);
        a3 = fma(a3, mul, add);
        a4 = fma(a4, mul, add);
        a5 = fma(a5, mul, add);
        a6 = fma(a6, mul, add);
        a7 = fma(a7, mul, add);
        a0 = fma(a0, mul, add);
        a1 = fma(a1, mul, add);
        a2 = fma(a2, mul, add);
        a3 = fma(a3, mul, add);
        a4 = fma(a4, mul, add);
        a5 = fma(a5, mul, add);
        a6 = fma(a6, mul, add);
        a7 = fma(a7, mul, add);
    }
    if (i < arrayLength(&out)) {
        out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    }
}
