//! The problem one case runs: the seeded inputs (as the kernel will read them), the passes
//! with their uniforms, bindings and f64 references, and how passes group into timed steps.
//! Built by each op ([`super::Op::problem`]); the GPU runtime only executes it.

use rand::Rng;
use rand::rngs::StdRng;

use super::verify::Reference;
use crate::types::Dtype;

/// One dispatch kind of the op (a GEMM pass, or axpy's only pass).
pub struct PassPlan {
    /// Entry point key: `forward`, `backward_da`, `backward_db`.
    pub key: &'static str,
    /// SNR column of its output.
    pub snr_column: &'static str,
    pub params: Vec<u8>,
    /// (buffer name, input index) for the read-only bindings.
    pub reads: [(&'static str, usize); 2],
    pub output_name: &'static str,
    pub output_len: u64,
    pub vars: Vec<(&'static str, u64)>,
    pub reference: Reference,
}

/// A group of passes timed together: `Forward` (forward) or `Backward` (dA + dB).
pub struct Step {
    pub prefix: &'static str,
    pub passes: Vec<usize>,
    /// Work of one step: FLOPs (GEMM, reported in TFLOPS) or bytes (axpy, GB/s).
    pub work: f64,
}

pub struct Problem {
    /// (buffer description, values as the kernel sees them).
    pub inputs: Vec<(String, Vec<f64>)>,
    pub passes: Vec<PassPlan>,
    pub steps: Vec<Step>,
    /// `TFLOPS` or `GB/s`; the work unit is 1e12 or 1e9 of it.
    pub unit: &'static str,
    pub unit_scale: f64,
    pub memory_bound: bool,
}

/// `len` seeded values uniform in [-1, 1), rounded to `dtype` so the f64 reference sees
/// exactly what the kernel reads (never all zero).
pub fn random_values(rng: &mut StdRng, len: u64, dtype: Dtype) -> Vec<f64> {
    (0..len)
        .map(|_| quantize(rng.random_range(-1.0..1.0), dtype))
        .collect()
}

/// `v` rounded to the nearest value of `dtype`.
pub fn quantize(v: f64, dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F32 => f64::from(v as f32),
        Dtype::F16 => half::f16::from_f64(v).to_f64(),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn f16_inputs_are_rounded_before_the_reference() {
        let mut rng = StdRng::seed_from_u64(3);
        for v in random_values(&mut rng, 64, Dtype::F16) {
            assert_eq!(half::f16::from_f64(v).to_f64(), v);
            assert!((-1.0..=1.0).contains(&v));
        }
    }
}
