//! The counter-based generator of a kernel's inputs: the bits of element `index` of input
//! buffer `buffer` depend on the seed, the buffer and the index alone, so any runner (the
//! built-in one, a harness on another device, vectorized) computes the same inputs.

/// "lowbias32": a 32-bit integer hash, all arithmetic wrapping.
fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The key of one buffer under `seed`.
fn key(seed: u64, buffer: u32) -> u32 {
    mix(mix(seed as u32 ^ mix((seed >> 32) as u32)) ^ buffer.wrapping_mul(0x9e37_79b9))
}

/// The 32 random bits of element `index` of buffer `buffer`.
pub fn value_bits(seed: u64, buffer: u32, index: u32) -> u32 {
    let k = key(seed, buffer);
    mix(mix(index ^ k).wrapping_add(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_depend_on_seed_buffer_and_index() {
        let a = value_bits(42, 0, 0);
        assert_ne!(a, value_bits(43, 0, 0));
        assert_ne!(a, value_bits(42, 1, 0));
        assert_ne!(a, value_bits(42, 0, 1));
        // The high half of the seed counts too.
        assert_ne!(value_bits(1, 0, 7), value_bits(1 | (1 << 32), 0, 7));
        // mix(0) = 0, so element 0 of buffer 0 under seed 0 has bits 0 (the value -1.0);
        // its neighbours do not repeat it.
        assert_eq!(mix(0), 0);
        let firsts: std::collections::BTreeSet<u32> =
            (0..64).map(|i| value_bits(0, 0, i)).collect();
        assert_eq!(firsts.len(), 64);
    }

    #[test]
    fn values_are_spread_over_the_range() {
        // The f32 value's 24 bits, in [-1, 1): roughly half of them negative.
        let negative = (0..10_000)
            .filter(|&i| (value_bits(7, 0, i) >> 8) < (1 << 23))
            .count();
        assert!((4_700..5_300).contains(&negative), "{negative}");
    }
}
