//! Statistics over samples, as pure functions.
//!
//! OWNER: schema/gate helper.

/// Arithmetic mean; None for an empty slice.
pub fn mean(_xs: &[f64]) -> Option<f64> {
    todo!()
}

/// Population standard deviation (divides by n), as the source harness does.
pub fn pop_stddev(_xs: &[f64]) -> Option<f64> {
    todo!()
}

pub fn median(_xs: &[f64]) -> Option<f64> {
    todo!()
}

/// Geometric mean of positive values; None if empty or any value is not > 0.
pub fn geomean(_xs: &[f64]) -> Option<f64> {
    todo!()
}

/// Two-sided Welch's t-test p-value; None with fewer than 2 samples on a side or zero
/// variance on both.
pub fn welch_p_value(_a: &[f64], _b: &[f64]) -> Option<f64> {
    todo!()
}
