//! GEMM: the three passes of a training step and their f64 references.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::inputs::Seeded;
use super::problem::{PassPlan, Problem, Step};
use super::verify::Reference;
use super::{BaselineKernel, GemmParams, Op, dtype_size};
use crate::schema::Schema;
use crate::types::{Dtype, OpName, ShapeSpec};

/// Above this many multiply-adds the reference is a seeded sample of exact dot products.
pub const FULL_REFERENCE_MAX_FMAS: u64 = 200_000_000;
/// Sampled entries per output (plus the corners of the first and last batch).
pub const SAMPLED_ENTRIES: usize = 4096;

/// Which operands a pass reads, by the ABI's roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
    DC,
}

/// One GEMM dispatch: `out[m×n] = op(lhs)[m×k] · op(rhs)[k×n]` for each of `batch` batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmDispatch {
    /// `forward`, `backward_da` or `backward_db` (the entry point key).
    pub pass: &'static str,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub batch: u64,
    pub trans_a: bool,
    pub trans_b: bool,
    pub lhs: Operand,
    pub rhs: Operand,
}

/// The forward and backward passes of a `B×M×N×K` shape (see the ABI table in `ops`).
pub fn passes(batch: u64, m: u64, n: u64, k: u64) -> [GemmDispatch; 3] {
    let pass = |pass, m, n, k, trans_a, trans_b, lhs, rhs| GemmDispatch {
        pass,
        m,
        n,
        k,
        batch,
        trans_a,
        trans_b,
        lhs,
        rhs,
    };
    [
        pass("forward", m, n, k, false, false, Operand::A, Operand::B),
        pass("backward_da", m, k, n, false, true, Operand::DC, Operand::B),
        pass("backward_db", k, n, m, true, false, Operand::A, Operand::DC),
    ]
}

impl GemmDispatch {
    pub fn params(&self) -> GemmParams {
        GemmParams {
            m: self.m as u32,
            n: self.n as u32,
            k: self.k as u32,
            batch: self.batch as u32,
            trans_a: self.trans_a as u32,
            trans_b: self.trans_b as u32,
            _pad0: 0,
            _pad1: 0,
        }
    }

    /// Elements of the output.
    pub fn output_len(&self) -> u64 {
        self.batch * self.m * self.n
    }

    /// Variables of the workgroup expressions.
    pub fn vars(&self) -> [(&'static str, u64); 4] {
        [
            ("M", self.m),
            ("N", self.n),
            ("K", self.k),
            ("B", self.batch),
        ]
    }

    /// Flat index of `op(lhs)[row][p]` of batch `z`.
    fn lhs_index(&self, z: u64, row: u64, p: u64) -> u64 {
        let base = z * self.m * self.k;
        if self.trans_a {
            base + p * self.m + row
        } else {
            base + row * self.k + p
        }
    }

    /// Flat index of `op(rhs)[p][col]` of batch `z`.
    fn rhs_index(&self, z: u64, p: u64, col: u64) -> u64 {
        let base = z * self.k * self.n;
        if self.trans_b {
            base + col * self.k + p
        } else {
            base + p * self.n + col
        }
    }

    /// One exact output entry, the operands read through `lhs` and `rhs` (flat index →
    /// value): the seeded generator itself, so a sampled reference needs no operand in memory.
    pub fn entry(
        &self,
        lhs: impl Fn(u64) -> f64,
        rhs: impl Fn(u64) -> f64,
        z: u64,
        row: u64,
        col: u64,
    ) -> f64 {
        (0..self.k)
            .map(|p| lhs(self.lhs_index(z, row, p)) * rhs(self.rhs_index(z, p, col)))
            .sum()
    }

    /// Every output entry: operands are first laid out as row-major lhs (m×k) and
    /// transposed rhs (n×k) so each entry is a contiguous dot product.
    pub fn full(&self, lhs: &[f64], rhs: &[f64]) -> Vec<f64> {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        let mut out = Vec::with_capacity(self.output_len() as usize);
        let mut lhs_rows = vec![0.0; m * k];
        let mut rhs_cols = vec![0.0; n * k];
        for z in 0..self.batch {
            for row in 0..m {
                for p in 0..k {
                    lhs_rows[row * k + p] = lhs[self.lhs_index(z, row as u64, p as u64) as usize];
                }
            }
            for col in 0..n {
                for p in 0..k {
                    rhs_cols[col * k + p] = rhs[self.rhs_index(z, p as u64, col as u64) as usize];
                }
            }
            for row in lhs_rows.chunks_exact(k.max(1)).take(m) {
                for col in rhs_cols.chunks_exact(k.max(1)).take(n) {
                    out.push(row.iter().zip(col).map(|(a, b)| a * b).sum());
                }
            }
        }
        out
    }

    /// Whether the reference is every entry (below [`FULL_REFERENCE_MAX_FMAS`]).
    pub fn full_reference(&self) -> bool {
        self.output_len() * self.k <= FULL_REFERENCE_MAX_FMAS
    }

    /// The entries a sampled reference holds, as `(batch, row, column)`, sorted and
    /// distinct: the corners of the first and last batch plus [`SAMPLED_ENTRIES`] drawn
    /// with `seed`.
    pub fn sampled_entries(&self, seed: u64) -> Vec<(u64, u64, u64)> {
        let (m, n, b) = (self.m, self.n, self.batch);
        let mut picks = Vec::with_capacity(SAMPLED_ENTRIES + 8);
        for z in [0, b - 1] {
            for (row, col) in [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)] {
                picks.push((z, row, col));
            }
        }
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..SAMPLED_ENTRIES {
            picks.push((
                rng.random_range(0..b),
                rng.random_range(0..m),
                rng.random_range(0..n),
            ));
        }
        picks.sort_unstable();
        picks.dedup();
        picks
    }

    /// The reference of the seeded operands: exact for small dispatches, else the exact
    /// dot products of [`Self::sampled_entries`], whose operand values are generated as the
    /// products read them (the rows and columns behind the sampled entries, nothing else).
    pub fn reference(&self, lhs: &Seeded, rhs: &Seeded, seed: u64) -> Reference {
        if self.full_reference() {
            return Reference::Full(self.full(&lhs.values(), &rhs.values()));
        }
        let picks = self.sampled_entries(seed);
        // Each entry is a K-long dot product of generated values: the entries are shared
        // out over the host's cores.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let chunk = picks.len().div_ceil(threads).max(1);
        let entries = std::thread::scope(|scope| {
            let handles: Vec<_> = picks
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|&(z, row, col)| {
                                let index = ((z * self.m + row) * self.n + col) as usize;
                                let value = self.entry(|i| lhs.at(i), |i| rhs.at(i), z, row, col);
                                (index, value)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| match h.join() {
                    Ok(part) => part,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        });
        Reference::Sampled(entries)
    }
}

/// The GEMM op: C = A·B forward; dA = dC·Bᵀ and dB = Aᵀ·dC backward (GEMM schema).
pub struct Gemm;

impl Op for Gemm {
    fn name(&self) -> OpName {
        OpName::Gemm
    }

    fn dim_names(&self) -> &'static [&'static str] {
        &["B", "M", "N", "K"]
    }

    fn dim_default(&self, dim: &str) -> Option<u64> {
        (dim == "B").then_some(1)
    }

    fn schema(&self) -> Schema {
        Schema::gemm()
    }

    fn primary_metrics(&self) -> &'static [&'static str] {
        &["Forward TFLOPS", "Backward TFLOPS", "Combined Step TFLOPS"]
    }

    fn rate_unit(&self) -> &'static str {
        "TFLOPS"
    }

    fn buffers(&self) -> &'static [&'static str] {
        &["a", "b", "c", "params"]
    }

    /// Forward 2·B·M·N·K, backward 4·B·M·N·K.
    fn flops(&self, dims: &[u64]) -> (f64, f64) {
        let product: f64 = dims.iter().map(|d| *d as f64).product();
        (2.0 * product, 4.0 * product)
    }

    /// Forward reads A, B and writes C; backward reads dC, B, A and writes dA, dB.
    fn bytes(&self, dtype: Dtype, dims: &[u64]) -> (f64, f64) {
        let size = dtype_size(dtype) as f64;
        let [b, m, n, k] = <[u64; 4]>::try_from(dims)
            .unwrap_or_default()
            .map(|d| d as f64);
        let (a, bm, c) = (b * m * k, b * k * n, b * m * n);
        ((a + bm + c) * size, (c + bm + a + a + bm) * size)
    }

    fn default_shapes(&self) -> Vec<ShapeSpec> {
        let mk = |label: &str, dims: &[(&str, u64)]| ShapeSpec {
            label: label.to_owned(),
            dims: dims.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        };
        let square = |n: u64| [("M", n), ("N", n), ("K", n)];
        vec![
            mk("sq256", &square(256)),
            mk("sq512", &square(512)),
            mk("sq1024", &square(1024)),
            mk("sq2048", &square(2048)),
            mk("sq4096", &square(4096)),
            mk("odd1000", &square(1000)),
            mk("tall8192", &[("M", 8192), ("N", 1024), ("K", 1024)]),
            mk("deepk8192", &[("M", 1024), ("N", 1024), ("K", 8192)]),
            mk(
                "batch8x512",
                &[("B", 8), ("M", 512), ("N", 512), ("K", 512)],
            ),
        ]
    }

    fn baseline_kernel(&self, dtype: Dtype) -> BaselineKernel {
        let workgroups = ["ceil(N/16)", "ceil(M/16)", "B"];
        match dtype {
            Dtype::F32 => BaselineKernel::new(
                "gemm_naive.wgsl",
                include_str!("../../../../shaders/gemm_naive.wgsl"),
                workgroups,
            ),
            Dtype::F16 => BaselineKernel::new(
                "gemm_naive_f16.wgsl",
                include_str!("../../../../shaders/gemm_naive_f16.wgsl"),
                workgroups,
            ),
        }
    }

    fn reference_description(&self) -> &'static str {
        "f64 CPU GEMM: C = A·B, dA = dC·Bᵀ, dB = Aᵀ·dC (sampled entries for large shapes); SNR and rel_err per output"
    }

    fn buffer_elements(&self, dims: &[u64]) -> Vec<(&'static str, Option<u64>)> {
        let (b, m, n, k) = (dims[0], dims[1], dims[2], dims[3]);
        let product = |x: u64, y: u64| b.checked_mul(x)?.checked_mul(y);
        vec![
            ("a and dA (B×M×K)", product(m, k)),
            ("b and dB (B×K×N)", product(k, n)),
            ("c and dC (B×M×N)", product(m, n)),
        ]
    }

    fn problem(&self, dtype: Dtype, dims: &[u64], seed: u64) -> Problem {
        let (b, m, n, k) = (dims[0], dims[1], dims[2], dims[3]);
        // Buffer numbers of the generator: A = 0, B = 1, dC = 2.
        let a = Seeded::new(seed, 0, dtype, b * m * k);
        let bm = Seeded::new(seed, 1, dtype, b * k * n);
        let dc = Seeded::new(seed, 2, dtype, b * m * n);
        let operand = |o: Operand| match o {
            Operand::A => 0usize,
            Operand::B => 1,
            Operand::DC => 2,
        };
        let values = [a, bm, dc];
        let dispatches = passes(b, m, n, k);
        // The three references are independent: one thread each.
        let references: Vec<Reference> = std::thread::scope(|scope| {
            let handles: Vec<_> = dispatches
                .iter()
                .map(|d| {
                    let (lhs, rhs) = (values[operand(d.lhs)], values[operand(d.rhs)]);
                    scope.spawn(move || d.reference(&lhs, &rhs, seed ^ 0x5eed))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h.join() {
                    Ok(r) => r,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        });
        let passes = dispatches
            .iter()
            .zip(references)
            .map(|(d, reference)| PassPlan {
                key: d.pass,
                snr_column: match d.pass {
                    "forward" => "out_snr",
                    "backward_da" => "da_snr",
                    _ => "db_snr",
                },
                params: bytemuck::bytes_of(&d.params()).to_vec(),
                reads: [("a", operand(d.lhs)), ("b", operand(d.rhs))],
                output_name: "c",
                output_len: d.output_len(),
                vars: d.vars().to_vec(),
                reference,
            })
            .collect();
        let (fwd, bwd) = self.flops(dims);
        Problem {
            inputs: vec![
                (format!("a ({b}x{m}x{k})"), a),
                (format!("b ({b}x{k}x{n})"), bm),
                (format!("dC ({b}x{m}x{n})"), dc),
            ],
            passes,
            steps: vec![
                Step {
                    prefix: "Forward",
                    passes: vec![0],
                    work: fwd,
                },
                Step {
                    prefix: "Backward",
                    passes: vec![1, 2],
                    work: bwd,
                },
            ],
            unit: "TFLOPS",
            unit_scale: 1e12,
            memory_bound: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operand(len: u64, salt: f64) -> Vec<f64> {
        (0..len).map(|i| ((i as f64 + salt) * 0.37).sin()).collect()
    }

    #[test]
    fn backward_passes_are_the_transposed_products() {
        // A 2x3, B 3x2, dC 2x2 (B=1): check dA = dC·Bᵀ and dB = Aᵀ·dC entry by entry.
        let (m, n, k) = (2u64, 2u64, 3u64);
        let a = operand(m * k, 1.0);
        let b = operand(k * n, 2.0);
        let dc = operand(m * n, 3.0);
        let [fwd, da, db] = passes(1, m, n, k);
        let c = fwd.full(&a, &b);
        assert!((c[1] - (a[0] * b[1] + a[1] * b[3] + a[2] * b[5])).abs() < 1e-12);
        let got_da = da.full(&dc, &b);
        // dA[1][2] = sum_j dC[1][j] * B[2][j]
        assert!((got_da[5] - (dc[2] * b[4] + dc[3] * b[5])).abs() < 1e-12);
        let got_db = db.full(&a, &dc);
        // dB[2][1] = sum_i A[i][2] * dC[i][1]
        assert!((got_db[5] - (a[2] * dc[1] + a[5] * dc[3])).abs() < 1e-12);
    }

    #[test]
    fn full_matches_entry_with_batches() {
        let [_, da, db] = passes(2, 5, 4, 3);
        for d in [da, db] {
            let lhs = operand(d.batch * d.m * d.k, 0.5);
            let rhs = operand(d.batch * d.k * d.n, 1.5);
            let full = d.full(&lhs, &rhs);
            let i = ((d.m + 2) * d.n + 1) as usize;
            let got = d.entry(|i| lhs[i as usize], |i| rhs[i as usize], 1, 2, 1);
            assert!((full[i] - got).abs() < 1e-12);
        }
    }

    #[test]
    fn large_dispatches_sample_deterministically() {
        let [fwd, ..] = passes(1, 1024, 1024, 256);
        let a = Seeded::new(3, 0, Dtype::F32, 1024 * 256);
        let b = Seeded::new(3, 1, Dtype::F32, 256 * 1024);
        let Reference::Sampled(first) = fwd.reference(&a, &b, 7) else {
            panic!("expected a sampled reference")
        };
        assert!(first.len() > 4000);
        assert!(first.iter().any(|(i, _)| *i == 1024 * 1024 - 1));
        assert_eq!(fwd.reference(&a, &b, 7), Reference::Sampled(first));
    }

    #[test]
    fn sampled_entries_from_the_generator_equal_the_full_product() {
        // The sampled path reads operands through the generator, the full one from its
        // values: at every sampled position (batched, transposed) both give the same number.
        for d in passes(2, 9, 7, 5) {
            let lhs = Seeded::new(11, 0, Dtype::F16, d.batch * d.m * d.k);
            let rhs = Seeded::new(11, 2, Dtype::F16, d.batch * d.k * d.n);
            let full = d.full(&lhs.values(), &rhs.values());
            for (z, row, col) in d.sampled_entries(5) {
                let i = ((z * d.m + row) * d.n + col) as usize;
                let got = d.entry(|i| lhs.at(i), |i| rhs.at(i), z, row, col);
                assert_eq!(got.to_bits(), full[i].to_bits(), "{} at {i}", d.pass);
            }
            assert_eq!(d.reference(&lhs, &rhs, 5), Reference::Full(full));
        }
    }
}
