//! Comparing a kernel's output with the f64 reference (docs/harness.md, "How a case is
//! measured", item 3).

use crate::types::Dtype;

/// SNR reported when the output equals the reference exactly. JSON and the CSV validator
/// carry only finite numbers; f64 arithmetic itself resolves about 320 dB.
pub const EXACT_SNR_DB: f64 = 300.0;

/// Expected values of an output: every element, or a seeded sample of `(index, value)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    Full(Vec<f64>),
    Sampled(Vec<(usize, f64)>),
}

/// How an output compares with its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// 10·log10(‖ref‖² / ‖out−ref‖²) in dB over the compared entries.
    pub snr_db: f64,
    /// ‖out−ref‖ / ‖ref‖ over the compared entries (infinite if an entry is NaN/Inf).
    pub rel_err: f64,
    /// NaN or Inf elements anywhere in the output (unwritten elements stay NaN).
    pub non_finite: usize,
    /// First non-finite element, for the failure reason.
    pub first_non_finite: Option<usize>,
    pub all_zero: bool,
    pub compared: usize,
}

impl Comparison {
    /// Why the output fails `dtype`'s threshold, or None when it passes.
    pub fn failure(&self, dtype: Dtype) -> Option<String> {
        if self.non_finite > 0 {
            return Some(format!(
                "{} of the output elements are NaN or Inf (first at index {}): unwritten or invalid",
                self.non_finite,
                self.first_non_finite.unwrap_or(0)
            ));
        }
        if self.all_zero {
            return Some("the output is all zeros".to_owned());
        }
        let threshold = dtype.rel_err_threshold();
        if self.rel_err >= threshold {
            return Some(format!(
                "rel_err {:.3e} >= {threshold:e} ({} dtype threshold, SNR {:.1} dB over {} entries)",
                self.rel_err,
                dtype.as_str(),
                self.snr_db,
                self.compared
            ));
        }
        None
    }
}

/// Compares `out` with `reference`. Non-finite and all-zero checks always scan all of `out`.
pub fn compare(out: &[f64], reference: &Reference) -> Comparison {
    compare_with(out.len(), |i| out[i], reference)
}

/// [`compare`] on an output as the GPU wrote it (`bytes` of little-endian `dtype`), decoded
/// one element at a time: the same comparison, number for number, without a copy of the
/// output in f64 (128 MiB for a 4096×4096 output).
pub fn compare_encoded(bytes: &[u8], dtype: Dtype, reference: &Reference) -> Comparison {
    match dtype {
        Dtype::F32 => compare_with(
            bytes.len() / 4,
            |i| {
                let b = &bytes[4 * i..4 * i + 4];
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            },
            reference,
        ),
        Dtype::F16 => compare_with(
            bytes.len() / 2,
            |i| half::f16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]).to_f64(),
            reference,
        ),
    }
}

/// The comparison over `len` elements read through `value`: one pass over all of them (the
/// non-finite and all-zero scans, and a full reference), then the sampled entries.
fn compare_with(len: usize, value: impl Fn(usize) -> f64, reference: &Reference) -> Comparison {
    let (mut first_non_finite, mut non_finite, mut all_zero) = (None, 0usize, true);
    let (mut ref_sq, mut err_sq, mut compared) = (0.0f64, 0.0f64, 0usize);
    let mut add = |got: f64, want: f64| {
        ref_sq += want * want;
        let diff = got - want;
        err_sq += diff * diff;
        compared += 1;
    };
    let full = match reference {
        Reference::Full(want) => want.as_slice(),
        Reference::Sampled(_) => &[],
    };
    for i in 0..len {
        let got = value(i);
        if !got.is_finite() {
            non_finite += 1;
            first_non_finite.get_or_insert(i);
        }
        if got != 0.0 {
            all_zero = false;
        }
        if let Some(want) = full.get(i) {
            add(got, *want);
        }
    }
    if let Reference::Sampled(entries) = reference {
        for (index, want) in entries {
            let got = if *index < len {
                value(*index)
            } else {
                f64::NAN
            };
            add(got, *want);
        }
    }
    let rel_err = if ref_sq > 0.0 {
        (err_sq / ref_sq).sqrt()
    } else if err_sq == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    let snr_db = if err_sq.is_nan() {
        f64::NEG_INFINITY
    } else if err_sq == 0.0 {
        EXACT_SNR_DB
    } else {
        (10.0 * (ref_sq / err_sq).log10()).min(EXACT_SNR_DB)
    };
    Comparison {
        snr_db,
        rel_err: if rel_err.is_nan() {
            f64::INFINITY
        } else {
            rel_err
        },
        non_finite,
        first_non_finite,
        all_zero,
        compared,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_output_passes_with_capped_snr() {
        let c = compare(&[1.0, -2.0], &Reference::Full(vec![1.0, -2.0]));
        assert_eq!(c.snr_db, EXACT_SNR_DB);
        assert_eq!(c.rel_err, 0.0);
        assert!(c.failure(Dtype::F32).is_none());
    }

    #[test]
    fn snr_and_rel_err_match_their_definitions() {
        let c = compare(&[1.1, 2.0], &Reference::Full(vec![1.0, 2.0]));
        let rel = (0.01f64 / 5.0).sqrt();
        assert!((c.rel_err - rel).abs() < 1e-12);
        assert!((c.snr_db - 10.0 * (5.0f64 / 0.01).log10()).abs() < 1e-9);
        assert!(c.failure(Dtype::F16).is_some());
    }

    #[test]
    fn the_encoded_output_compares_as_its_decoded_values() {
        let values = [1.5f32, -0.0, 0.0, 3.25, f32::NAN, 7.0, f32::INFINITY, -2.5];
        let f32_bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let f16_bytes: Vec<u8> = values
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
            .collect();
        let decoded: Vec<f64> = values.iter().map(|v| f64::from(*v)).collect();
        let full = Reference::Full(vec![1.5, 0.0, 0.1, 3.0, 1.0, 7.0, 1.0, -2.5]);
        let sampled = Reference::Sampled(vec![(0, 1.4), (3, 3.25), (7, -2.5), (99, 1.0)]);
        let finite = Reference::Sampled(vec![(0, 1.4), (3, 3.25), (7, -2.5)]);
        for reference in [&full, &sampled, &finite] {
            let want = compare(&decoded, reference);
            // NaN fields compare by their bits: the same computation, the same numbers.
            let same = |a: &Comparison, b: &Comparison| {
                a.snr_db.to_bits() == b.snr_db.to_bits()
                    && a.rel_err.to_bits() == b.rel_err.to_bits()
                    && (a.non_finite, a.first_non_finite, a.all_zero, a.compared)
                        == (b.non_finite, b.first_non_finite, b.all_zero, b.compared)
            };
            assert!(same(
                &compare_encoded(&f32_bytes, Dtype::F32, reference),
                &want
            ));
            assert!(same(
                &compare_encoded(&f16_bytes, Dtype::F16, reference),
                &want
            ));
        }
        let zeros = compare_encoded(&[0u8; 16], Dtype::F32, &finite);
        assert!(zeros.all_zero && zeros.non_finite == 0);
    }

    #[test]
    fn nan_and_zero_outputs_fail() {
        let c = compare(&[1.0, f64::NAN], &Reference::Sampled(vec![(0, 1.0)]));
        assert_eq!(c.non_finite, 1);
        assert!(c.failure(Dtype::F16).unwrap().contains("index 1"));
        let c = compare(&[0.0, 0.0], &Reference::Full(vec![0.0, 0.0]));
        assert!(c.failure(Dtype::F32).unwrap().contains("all zeros"));
    }
}
