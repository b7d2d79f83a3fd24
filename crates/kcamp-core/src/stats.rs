//! Statistics over samples, as pure functions.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Arithmetic mean; None for an empty slice.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Population standard deviation (divides by n), as the source harness does.
pub fn pop_stddev(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / xs.len() as f64).sqrt())
}

/// Median (mean of the two middle values for an even count); None for an empty slice.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// Geometric mean of positive values; None if empty or any value is not > 0.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    let mut logs = LogSum::default();
    xs.iter().for_each(|x| logs.add(*x));
    logs.geomean()
}

/// A geometric mean taken one value at a time, in parts that may be merged. Through
/// logarithms: the product of 10,000 TFLOPS values would overflow.
///
/// The logarithms are summed in fixed point, 64 bits below the binary point, so the sum is
/// exact integer arithmetic: the same to the last bit in any order and any split into parts.
/// A logarithm is exact on that grid from 2^-11 up; a smaller one is rounded by at most
/// 2^-65, which moves a mean of 10,000 logarithms by 3e-20, far below an f64's resolution.
/// The natural logarithm of a positive finite f64 lies within ±745, so a sum of up to 2^52
/// of them fits in 128 bits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogSum {
    fixed: i128,
    count: u64,
    /// A value that was not positive and finite was added: there is no geometric mean.
    invalid: bool,
}

impl LogSum {
    /// 2^64, the fixed point's scale.
    const SCALE: f64 = 18_446_744_073_709_551_616.0;

    pub fn add(&mut self, x: f64) {
        if !(x.is_finite() && x > 0.0) {
            self.invalid = true;
            return;
        }
        // Scaling by a power of two is exact; from 2^-11 up the product is an integer.
        self.fixed += (x.ln() * Self::SCALE).round() as i128;
        self.count += 1;
    }

    pub fn merge(&mut self, other: LogSum) {
        self.fixed += other.fixed;
        self.count += other.count;
        self.invalid |= other.invalid;
    }

    /// How many positive finite values were added.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// None when nothing was added or a value was not positive and finite.
    pub fn geomean(&self) -> Option<f64> {
        if self.invalid || self.count == 0 {
            return None;
        }
        Some((self.fixed as f64 / Self::SCALE / self.count as f64).exp())
    }
}

/// Sample variance (divides by n - 1): Welch's test needs the unbiased estimate.
fn sample_variance(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    Some(xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64)
}

/// Two-sided Welch's t-test p-value; None with fewer than 2 samples on a side or zero
/// variance on both.
///
/// Zero variance on one side is fine: the Welch–Satterthwaite degrees of freedom then
/// reduce to the other side's n − 1.
pub fn welch_p_value(a: &[f64], b: &[f64]) -> Option<f64> {
    let (va, vb) = (sample_variance(a)?, sample_variance(b)?);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (va / na, vb / nb);
    let se2 = sa + sb;
    if !(se2.is_finite() && se2 > 0.0) {
        return None;
    }
    let t = (mean(a)? - mean(b)?) / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * dist.cdf(-t.abs())).min(1.0))
}

/// The standard deviation a normal sample with this median absolute deviation would have
/// (1.4826 · MAD): a spread that one preempted sample cannot inflate.
pub fn robust_stddev(xs: &[f64]) -> Option<f64> {
    let m = median(xs)?;
    let deviations: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
    Some(1.482_602_218_505_602 * median(&deviations)?)
}

/// The larger of the sample standard deviation (n − 1) and the robust one
/// ([`robust_stddev`]): one wild value widens it through the first, and it does not shrink
/// to nothing when most values agree but the others scatter; None with fewer than 2 values.
pub fn cautious_stddev(xs: &[f64]) -> Option<f64> {
    Some(sample_variance(xs)?.sqrt().max(robust_stddev(xs)?))
}

/// A standard deviation at most this fraction of the mean's magnitude is rounding, not
/// spread: equal values summed in another order differ in their last bits.
const ROUNDING_SPREAD: f64 = 1e-12;

/// Two-sided one-sample Student's t-test of `xs` against a mean of 0 (the paired test when
/// `xs` are independent per-unit log ratios); None with fewer than 2 values or no spread
/// (a standard deviation at most 1e-12 of the mean's magnitude counts as none).
pub fn t_test_p_value(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sd = sample_variance(xs)?.sqrt();
    let m = mean(xs)?;
    if !(sd.is_finite() && sd > ROUNDING_SPREAD * m.abs() && sd > 0.0) {
        return None;
    }
    let t = m / (sd / n.sqrt());
    let dist = StudentsT::new(0.0, 1.0, n - 1.0).ok()?;
    Some((2.0 * dist.cdf(-t.abs())).min(1.0))
}

/// Two-sided Wilcoxon signed-rank test of `xs` against a median of 0 (the paired test when
/// `xs` are per-pair log ratios): exact without ties up to 30 non-zero values, else the
/// normal approximation with tie and continuity corrections. Zeros are dropped; None when
/// nothing is left.
pub fn wilcoxon_p_value(xs: &[f64]) -> Option<f64> {
    let mut nonzero: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|x| *x != 0.0 && x.is_finite())
        .collect();
    if nonzero.is_empty() {
        return None;
    }
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let n = nonzero.len();
    // Ranks of |x|, ties averaged; the tie correction term Σ(t³ − t).
    let mut ranks = vec![0.0; n];
    let mut ties = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        ranks[i..=j].fill(rank);
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let w_plus: f64 = nonzero
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let total = (n * (n + 1)) as f64 / 2.0;
    if ties == 0.0 && n <= 30 {
        // Exact: how many of the 2^n sign patterns give a rank sum this far from the middle.
        let w = w_plus.min(total - w_plus) as usize;
        let mut ways = vec![0f64; total as usize + 1];
        ways[0] = 1.0;
        for r in 1..=n {
            for s in (r..ways.len()).rev() {
                ways[s] += ways[s - r];
            }
        }
        let tail: f64 = ways[..=w].iter().sum();
        return Some((2.0 * tail / 2f64.powi(n as i32)).min(1.0));
    }
    let nf = n as f64;
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - ties / 48.0;
    if var.is_nan() || var <= 0.0 {
        return None;
    }
    let diff = w_plus - total / 2.0;
    let z = (diff.abs() - 0.5).max(0.0) / var.sqrt();
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some((2.0 * normal.cdf(-z)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A geometric mean is the same to the last bit however its values are ordered and
        /// split into parts, and within an f64's rounding of the exact one.
        #[test]
        fn a_geomean_does_not_depend_on_order_or_parts(
            values in prop::collection::vec(
                prop_oneof![1e-3f64..1e5, Just(7.25), Just(1.0), 1.0f64..1.0000001, 1e-300f64..1e300],
                1..300),
            at in 0usize..300,
            seed: u64,
        ) {
            let whole = geomean(&values).unwrap();
            let mut shuffled = values.clone();
            // A deterministic shuffle from the seed.
            let mut state = seed | 1;
            for i in (1..shuffled.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                shuffled.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let (a, b) = shuffled.split_at(at.min(shuffled.len()));
            let (mut first, mut second) = (LogSum::default(), LogSum::default());
            a.iter().for_each(|x| first.add(*x));
            b.iter().for_each(|x| second.add(*x));
            first.merge(second);
            prop_assert_eq!(first.geomean().map(f64::to_bits), Some(whole.to_bits()));
            // Against the logarithms summed in extended care (pairwise, sorted): the two
            // agree to a few units in the last place of the mean logarithm.
            let mut logs: Vec<f64> = values.iter().map(|x| x.ln()).collect();
            logs.sort_by(f64::total_cmp);
            let mean = logs.iter().sum::<f64>() / logs.len() as f64;
            let tolerance = 1e-12 * mean.abs().max(1.0);
            prop_assert!((whole.ln() - mean).abs() <= tolerance, "{} vs {}", whole.ln(), mean);
        }
    }

    #[test]
    fn a_geomean_needs_a_value_and_positive_finite_values() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(geomean(&[2.0, bad]), None, "{bad}");
        }
        assert_eq!(geomean(&[]), None);
        assert_eq!(LogSum::default().geomean(), None);
        assert!(close(geomean(&[4.0, 16.0]).unwrap(), 8.0, 1e-14));
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn mean_stddev_median() {
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&xs), Some(5.0));
        // The textbook population-stddev example: exactly 2.
        assert_eq!(pop_stddev(&xs), Some(2.0));
        assert_eq!(median(&xs), Some(4.5));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(mean(&[]), None);
        assert_eq!(pop_stddev(&[]), None);
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn geomean_of_powers() {
        assert!(close(geomean(&[1.0, 4.0, 16.0]).unwrap(), 4.0, 1e-12));
        assert!(close(geomean(&[2.0, 8.0]).unwrap(), 4.0, 1e-12));
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean(&[1.0, 0.0]), None);
        assert_eq!(geomean(&[1.0, -2.0]), None);
        assert_eq!(geomean(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn welch_equal_variances_matches_textbook() {
        // t = -2, df = 8: two-sided p = 0.0805162 (t tables / scipy.stats.ttest_ind).
        let p = welch_p_value(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 4.0, 5.0, 6.0, 7.0]).unwrap();
        assert!(close(p, 0.080_516_237_957, 1e-6), "p = {p}");
    }

    #[test]
    fn welch_two_degrees_of_freedom_closed_form() {
        // df = 2 has the closed form p = 1 - |t| / sqrt(2 + t^2); here t = -2*sqrt(2).
        let p = welch_p_value(&[0.0, 2.0], &[4.0, 6.0]).unwrap();
        let t: f64 = 8f64.sqrt();
        assert!(close(p, 1.0 - t / (2.0 + t * t).sqrt(), 1e-9), "p = {p}");
    }

    #[test]
    fn welch_zero_variance_on_one_side() {
        // se^2 = 1/3, t = -2*sqrt(3), df = n_b - 1 = 2.
        let p = welch_p_value(&[1.0, 1.0, 1.0], &[2.0, 3.0, 4.0]).unwrap();
        let t = 2.0 * 3f64.sqrt();
        assert!(close(p, 1.0 - t / (2.0 + t * t).sqrt(), 1e-9), "p = {p}");
    }

    #[test]
    fn wilcoxon_matches_the_exact_distribution_and_the_normal_approximation() {
        // Ten positive differences: W+ = 55, the most extreme of 1024 patterns on each side.
        let all_up: Vec<f64> = (1..=10).map(|i| i as f64 * 0.01).collect();
        assert!(close(
            wilcoxon_p_value(&all_up).unwrap(),
            2.0 / 1024.0,
            1e-12
        ));
        // Ranks 2 and 5 negative: W- = 7; 19 of the 1024 sign patterns have a rank sum
        // <= 7 (counted by enumeration), so p = 2 * 19 / 1024.
        let mixed = [1.0, -2.0, 3.0, 4.0, -5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert!(close(
            wilcoxon_p_value(&mixed).unwrap(),
            38.0 / 1024.0,
            1e-12
        ));
        // Symmetric: p = 1.
        assert!(close(wilcoxon_p_value(&[-1.0, 1.0]).unwrap(), 1.0, 1e-12));
        // Ties use the normal approximation: eight equal gains, W+ = 36 around a mean of 18,
        // variance 8·9·17/24 − (8³ − 8)/48 = 40.5, z = (18 − 0.5)/√40.5, p = 0.005962.
        let p = wilcoxon_p_value(&[0.1; 8]).unwrap();
        assert!(close(p, 0.005_962_078_5, 1e-8), "p = {p}");
        assert_eq!(wilcoxon_p_value(&[0.0, 0.0]), None);
    }

    #[test]
    fn robust_stddev_ignores_one_outlier() {
        let xs = [1.0, 1.1, 0.9, 1.05, 0.95, 9.0];
        let sd = robust_stddev(&xs).unwrap();
        assert!(sd < 0.15, "{sd}");
        assert!(pop_stddev(&xs).unwrap() > 2.5);
        assert_eq!(robust_stddev(&[2.0, 2.0, 2.0]), Some(0.0));
    }

    #[test]
    fn welch_degenerate_inputs() {
        assert_eq!(welch_p_value(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_p_value(&[1.0, 1.0], &[2.0, 2.0]), None);
        let same = welch_p_value(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!(close(same, 1.0, 1e-12));
    }

    #[test]
    fn the_t_test_matches_a_table_and_needs_a_spread() {
        // t = 2.776 with 4 degrees of freedom is the two-sided 5% point.
        let sd = 1.0_f64;
        let m = 2.776 * sd / 5f64.sqrt();
        // Five values with mean m and sample sd 1: m ± a spread that sums to zero.
        let d = [-1.0, -0.5, 0.0, 0.5, 1.0];
        let scale = 1.0 / (d.iter().map(|x| x * x).sum::<f64>() / 4.0).sqrt();
        let xs: Vec<f64> = d.iter().map(|x| m + x * scale * sd).collect();
        let p = t_test_p_value(&xs).unwrap();
        assert!((p - 0.05).abs() < 5e-4, "{p}");
        assert_eq!(t_test_p_value(&[0.1, 0.1, 0.1]), None);
        assert_eq!(t_test_p_value(&[0.1]), None);
        assert!(t_test_p_value(&[-0.1, 0.1, -0.2, 0.2]).unwrap() > 0.99);
        // The fewest units the gate calls changed: 3, whose 5% point is t = 4.303.
        let m = 4.303 / 3f64.sqrt();
        let p = t_test_p_value(&[m - 1.0, m, m + 1.0]).unwrap();
        assert!((p - 0.05).abs() < 5e-4, "{p}");
    }

    #[test]
    fn the_t_test_takes_rounding_for_no_spread() {
        // One ratio, its logarithm's last bit different in one unit: no spread to test.
        let x = 1.3f64.ln();
        let next = f64::from_bits(x.to_bits() + 1);
        let xs = [x, next, x, x];
        assert!(sample_variance(&xs).unwrap() > 0.0);
        assert_eq!(t_test_p_value(&xs), None);
        // A spread a billionth of the mean is a spread.
        let ys = [x, x * (1.0 + 1e-9), x * (1.0 - 1e-9)];
        assert!(t_test_p_value(&ys).unwrap() < 1e-6);
    }

    #[test]
    fn the_cautious_spread_is_the_larger_of_the_two() {
        let wild = [0.0, 0.01, -0.01, 0.0, 2.0];
        assert!(cautious_stddev(&wild).unwrap() > 0.8);
        let tight = [0.0, 0.0, 0.0, 1.0, -1.0];
        assert!(cautious_stddev(&tight).unwrap() >= sample_variance(&tight).unwrap().sqrt());
        assert_eq!(cautious_stddev(&[1.0]), None);
    }
}
