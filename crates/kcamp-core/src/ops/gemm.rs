//! GEMM: the three passes of a training step and their f64 references.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::GemmParams;
use super::verify::Reference;

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

    fn lhs_at(&self, lhs: &[f64], z: u64, row: u64, p: u64) -> f64 {
        let base = z * self.m * self.k;
        let i = if self.trans_a {
            base + p * self.m + row
        } else {
            base + row * self.k + p
        };
        lhs[i as usize]
    }

    fn rhs_at(&self, rhs: &[f64], z: u64, p: u64, col: u64) -> f64 {
        let base = z * self.k * self.n;
        let i = if self.trans_b {
            base + col * self.k + p
        } else {
            base + p * self.n + col
        };
        rhs[i as usize]
    }

    /// One exact output entry.
    pub fn entry(&self, lhs: &[f64], rhs: &[f64], z: u64, row: u64, col: u64) -> f64 {
        (0..self.k)
            .map(|p| self.lhs_at(lhs, z, row, p) * self.rhs_at(rhs, z, p, col))
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
                    lhs_rows[row * k + p] = self.lhs_at(lhs, z, row as u64, p as u64);
                }
            }
            for col in 0..n {
                for p in 0..k {
                    rhs_cols[col * k + p] = self.rhs_at(rhs, z, p as u64, col as u64);
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

    /// The reference: exact for small dispatches, else exact dot products at the corners of
    /// the first and last batch plus [`SAMPLED_ENTRIES`] entries drawn with `seed`.
    pub fn reference(&self, lhs: &[f64], rhs: &[f64], seed: u64) -> Reference {
        if self.output_len() * self.k <= FULL_REFERENCE_MAX_FMAS {
            return Reference::Full(self.full(lhs, rhs));
        }
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
        Reference::Sampled(
            picks
                .into_iter()
                .map(|(z, row, col)| {
                    let index = ((z * m + row) * n + col) as usize;
                    (index, self.entry(lhs, rhs, z, row, col))
                })
                .collect(),
        )
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
            assert!((full[i] - d.entry(&lhs, &rhs, 1, 2, 1)).abs() < 1e-12);
        }
    }

    #[test]
    fn large_dispatches_sample_deterministically() {
        let [fwd, ..] = passes(1, 1024, 1024, 256);
        let a = operand(1024 * 256, 0.1);
        let b = operand(256 * 1024, 0.2);
        let Reference::Sampled(first) = fwd.reference(&a, &b, 7) else {
            panic!("expected a sampled reference")
        };
        assert!(first.len() > 4000);
        assert!(first.iter().any(|(i, _)| *i == 1024 * 1024 - 1));
        assert_eq!(fwd.reference(&a, &b, 7), Reference::Sampled(first));
    }
}
