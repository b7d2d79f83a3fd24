//! Statistics over samples, as pure functions.

use statrs::distribution::{ContinuousCDF, StudentsT};

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
    if xs.is_empty() || xs.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return None;
    }
    // Through logarithms: the product of 10,000 TFLOPS values would overflow.
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
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

/// Two-sided one-sample t-test of `xs` against a mean of 0 (the paired t-test when `xs` are
/// the per-pair log ratios); None with fewer than 2 values or zero variance.
pub fn one_sample_t_p_value(xs: &[f64]) -> Option<f64> {
    let var = sample_variance(xs)?;
    let n = xs.len() as f64;
    let se2 = var / n;
    if !(se2.is_finite() && se2 > 0.0) {
        return None;
    }
    let t = mean(xs)? / se2.sqrt();
    let dist = StudentsT::new(0.0, 1.0, n - 1.0).ok()?;
    Some((2.0 * dist.cdf(-t.abs())).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn one_sample_t_test_matches_the_closed_form() {
        // n = 3, mean 2, sample sd 1: t = 2·sqrt(3), df = 2.
        let p = one_sample_t_p_value(&[1.0, 2.0, 3.0]).unwrap();
        let t = 2.0 * 3f64.sqrt();
        assert!(close(p, 1.0 - t / (2.0 + t * t).sqrt(), 1e-9), "p = {p}");
        assert!(close(
            one_sample_t_p_value(&[-1.0, 1.0]).unwrap(),
            1.0,
            1e-12
        ));
        assert_eq!(one_sample_t_p_value(&[0.5]), None);
        assert_eq!(one_sample_t_p_value(&[0.5, 0.5]), None);
    }

    #[test]
    fn welch_degenerate_inputs() {
        assert_eq!(welch_p_value(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_p_value(&[1.0, 1.0], &[2.0, 2.0]), None);
        let same = welch_p_value(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!(close(same, 1.0, 1e-12));
    }
}
