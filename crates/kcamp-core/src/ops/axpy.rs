//! axpy: `out = alpha·x + y` (memory-bound, GB/s schema).

use super::verify::Reference;

/// The f64 reference of `alpha·x + y`.
pub fn reference(alpha: f64, x: &[f64], y: &[f64]) -> Reference {
    Reference::Full(x.iter().zip(y).map(|(x, y)| alpha * x + y).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_alpha_x_plus_y() {
        assert_eq!(
            reference(2.0, &[1.0, -1.0], &[0.5, 0.25]),
            Reference::Full(vec![2.5, -1.75])
        );
    }
}
