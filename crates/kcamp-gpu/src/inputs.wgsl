// The seeded inputs, generated in place: kcamp-core's ops::inputs bit for bit
// (docs/harness.md, "Seeded inputs"). One invocation writes one 32-bit word: an f32
// element, or two f16 elements (the lower index in the low half, as little-endian f16).
// Every value is exact in its dtype, so converting and packing round nothing.

struct Params {
    key: u32,
    // Elements of the buffer.
    len: u32,
    // 1 for f16 (two elements a word), 0 for f32.
    half: u32,
    // Words to write: len for f32, ceil(len / 2) for f16.
    words: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

// "lowbias32"; u32 arithmetic wraps.
fn mix(x0: u32) -> u32 {
    var x = x0;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn bits(index: u32) -> u32 {
    return mix(mix(index ^ params.key) + params.key);
}

// 24 bits: (bits >> 8) · 2^-23 − 1.
fn f32_value(b: u32) -> f32 {
    return f32(b >> 8u) * 1.1920928955078125e-7 - 1.0;
}

// 11 bits: (bits >> 21) · 2^-10 − 1.
fn f16_value(b: u32) -> f32 {
    return f32(b >> 21u) * 0.0009765625 - 1.0;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = groups.x * 256u;
    var w = gid.x;
    loop {
        if w >= params.words {
            break;
        }
        if params.half == 0u {
            out[w] = bitcast<u32>(f32_value(bits(w)));
        } else {
            let i = 2u * w;
            var hi = 0.0;
            if i + 1u < params.len {
                hi = f16_value(bits(i + 1u));
            }
            out[w] = pack2x16float(vec2<f32>(f16_value(bits(i)), hi));
        }
        // Grid-stride, stopping before the index would wrap past 2^32.
        if params.words - w <= stride {
            break;
        }
        w += stride;
    }
}
