//! The problem one case runs: the seeded inputs (their generator, which the GPU runs in
//! place), the passes with their uniforms, bindings and f64 references, and how passes group
//! into timed steps. Built by each op ([`super::Op::problem`]); the GPU runtime only
//! executes it.

use super::inputs::Seeded;
use super::verify::Reference;

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
    /// (buffer description, its seeded values), in the op's input order: the input's
    /// position is its buffer number in the generator.
    pub inputs: Vec<(String, Seeded)>,
    pub passes: Vec<PassPlan>,
    pub steps: Vec<Step>,
    /// `TFLOPS` or `GB/s`; the work unit is 1e12 or 1e9 of it.
    pub unit: &'static str,
    pub unit_scale: f64,
    pub memory_bound: bool,
}
