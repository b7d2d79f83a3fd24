//! The seeded inputs: a counter-based generator whose every value is a pure function of the
//! case's seed, the input's buffer number and the element's index. The GPU fills the input
//! buffers with it in place (kcamp-gpu's `inputs.wgsl`, the same bits); the host computes
//! only the values its f64 checks read. docs/harness.md ("Seeded inputs") is the definition
//! a harness implements too.

use crate::types::Dtype;

/// The "lowbias32" integer hash (all arithmetic wrapping mod 2^32).
pub const fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The key of input `buffer` (its number in the op's list of inputs) of a case seeded `seed`.
pub const fn key(seed: u64, buffer: u32) -> u32 {
    mix(mix((seed as u32) ^ mix((seed >> 32) as u32)) ^ buffer.wrapping_mul(0x9e37_79b9))
}

/// The 32 random bits of element `index` of the buffer keyed `key`.
pub const fn bits(key: u32, index: u32) -> u32 {
    mix(mix(index ^ key).wrapping_add(key))
}

/// The element `bits` stands for in `dtype`: uniform in [-1, 1), exact in the dtype (24 bits
/// for f32, 11 for f16), so no rounding differs between the host and the GPU.
pub fn value(dtype: Dtype, bits: u32) -> f64 {
    match dtype {
        Dtype::F32 => f64::from(bits >> 8) * (1.0 / f64::from(1u32 << 23)) - 1.0,
        Dtype::F16 => f64::from(bits >> 21) * (1.0 / f64::from(1u32 << 10)) - 1.0,
    }
}

/// A seeded scalar of the case (axpy's alpha) in `[lo, lo + width)`: the f32 value of
/// element 0 of buffer number `buffer` mapped as `lo + width·(v + 1)/2` in f64, then
/// rounded to f32 (the uniform's type).
pub fn scalar(seed: u64, buffer: u32, lo: f64, width: f64) -> f64 {
    let v = value(Dtype::F32, bits(key(seed, buffer), 0));
    f64::from((lo + width * (v + 1.0) / 2.0) as f32)
}

/// One input buffer of a case: `len` elements of `dtype`, element `i` being
/// `value(dtype, bits(key, i))`. `len` is at most 2^32 − 1 (`ops::check_buffers` refuses
/// larger buffers before any input is made), so every index fits the generator's u32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seeded {
    pub key: u32,
    pub dtype: Dtype,
    pub len: u64,
}

impl Seeded {
    pub fn new(seed: u64, buffer: u32, dtype: Dtype, len: u64) -> Seeded {
        Seeded {
            key: key(seed, buffer),
            dtype,
            len,
        }
    }

    /// Element `index` (below `len`).
    #[inline]
    pub fn at(&self, index: u64) -> f64 {
        debug_assert!(index < self.len && index <= u64::from(u32::MAX));
        value(self.dtype, bits(self.key, index as u32))
    }

    /// Every element, in order.
    pub fn values(&self) -> Vec<f64> {
        (0..self.len).map(|i| self.at(i)).collect()
    }

    /// Every element as the kernel reads it: little-endian `dtype`, unpadded.
    pub fn encoded(&self) -> Vec<u8> {
        match self.dtype {
            Dtype::F32 => (0..self.len)
                .flat_map(|i| (self.at(i) as f32).to_le_bytes())
                .collect(),
            Dtype::F16 => (0..self.len)
                .flat_map(|i| half::f16::from_f64(self.at(i)).to_le_bytes())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_lowbias32() {
        // lowbias32 of 0 is 0; of 1, the published constant chain.
        assert_eq!(mix(0), 0);
        let mut x = 1u32;
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846ca68b);
        x ^= x >> 16;
        assert_eq!(mix(1), x);
        assert_ne!(key(1, 0), key(1, 1));
        assert_ne!(key(1, 0), key(1 << 32, 0));
    }

    #[test]
    fn known_answers_of_the_definition() {
        // Computed by an independent implementation of docs/harness.md's definition.
        assert_eq!(key(42, 0), 0x601b_fb49);
        assert_eq!(key(1_819_543_016_187_904, 2), 0x98f6_0a54);
        let k = key(42, 1);
        assert_eq!(
            [bits(k, 0), bits(k, 1), bits(k, 2)],
            [0xf709_6a94, 0x91d2_b1b4, 0xb55f_cd80]
        );
        assert_eq!(value(Dtype::F32, 0x8272_cb80), 0.019_128_203_392_028_81);
        assert_eq!(value(Dtype::F16, 0x8272_cb80), 0.0185546875);
        assert_eq!(scalar(42, 2, 0.5, 1.5), f64::from(0.932_947_4_f32));
    }

    #[test]
    fn values_are_exact_in_their_dtype_and_cover_the_range() {
        for dtype in [Dtype::F32, Dtype::F16] {
            let s = Seeded::new(7, 1, dtype, 20_000);
            let v = s.values();
            for x in &v {
                assert!((-1.0..1.0).contains(x), "{x}");
                match dtype {
                    Dtype::F32 => assert_eq!(f64::from(*x as f32), *x),
                    Dtype::F16 => assert_eq!(half::f16::from_f64(*x).to_f64(), *x),
                }
            }
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            assert!(mean.abs() < 0.03, "{mean}");
            assert!(v.iter().any(|x| *x < -0.99) && v.iter().any(|x| *x > 0.99));
            assert_eq!(
                s.encoded().len() as u64,
                20_000 * crate::ops::dtype_size(dtype)
            );
        }
        // The extremes of the bits map to -1 and to just below 1.
        assert_eq!(value(Dtype::F32, 0), -1.0);
        assert_eq!(value(Dtype::F16, u32::MAX), 1.0 - 1.0 / 1024.0);
    }

    #[test]
    fn a_value_depends_on_seed_buffer_and_index_only() {
        let a = Seeded::new(99, 0, Dtype::F32, 100);
        assert_eq!(a.at(57), Seeded::new(99, 0, Dtype::F32, 1000).at(57));
        assert_ne!(a.values(), Seeded::new(100, 0, Dtype::F32, 100).values());
        assert_ne!(a.values(), Seeded::new(99, 1, Dtype::F32, 100).values());
        let alpha = scalar(99, 2, 0.5, 1.5);
        assert!((0.5..2.0).contains(&alpha));
        assert_eq!(f64::from(alpha as f32), alpha);
    }
}
