//! Numeric cells: the rule each column's cells are held to, and their exact parse.

use super::columns::{Column, ColumnRole};

/// How a numeric cell is validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum CellRule {
    /// Positive on PASS rows (the gate divides by it), at most `ceiling`.
    Metric { ceiling: f64 },
    /// Non-negative, finite on PASS rows.
    NonNegative,
    /// A signal-to-noise ratio in dB: finite, or `inf` for an exact output; on a PASS row
    /// never `-inf` (an output with infinite error does not pass).
    Snr,
    /// Any number or ±inf; not NaN on PASS rows.
    Any,
}

/// Rates no single device reaches by orders of magnitude: 100 PFLOP/s and 1 PB/s (an H200
/// peaks near 2 PFLOP/s dense FP8 and 4.8 TB/s). A PASS row above them is a harness bug
/// or a hostile file, not a measurement; the adapter's own roofline is checked elsewhere.
pub const MAX_TFLOPS: f64 = 1e5;
/// The population stddev of n non-negative values is at most sqrt(n-1) times their mean;
/// with at most 10,000 repeats that is 100 times. Beyond it a stddev is not a measurement
/// (and would make the gate's noise band infinite).
pub const MAX_RELATIVE_STDDEV: f64 = 100.0;
pub const MAX_GBPS: f64 = 1e6;

pub(super) fn cell_rule(column: &Column) -> Option<CellRule> {
    match &column.role {
        ColumnRole::Metric => Some(CellRule::Metric {
            ceiling: metric_ceiling(&column.name),
        }),
        ColumnRole::Stddev { .. } => Some(CellRule::NonNegative),
        ColumnRole::Value if column.name.contains("Time") => Some(CellRule::NonNegative),
        ColumnRole::Value if column.name.ends_with("_snr") => Some(CellRule::Snr),
        ColumnRole::Value => Some(CellRule::Any),
        ColumnRole::Label | ColumnRole::Dim | ColumnRole::Check => None,
    }
}

/// The physical ceiling of a metric by its unit (infinite for units kcamp does not know).
fn metric_ceiling(name: &str) -> f64 {
    if name.contains("TFLOPS") {
        MAX_TFLOPS
    } else if name.contains("GB/s") {
        MAX_GBPS
    } else {
        f64::INFINITY
    }
}

/// Parse one numeric cell; the error is a message about the cell.
pub(super) fn parse_cell(
    cell: &str,
    rule: CellRule,
    pass: bool,
) -> std::result::Result<f64, String> {
    let value = if cell.is_empty() {
        f64::NAN
    } else {
        cell.parse::<f64>().map_err(|_| {
            format!(
                "'{}' is not a number",
                crate::text::quote(cell, crate::text::QUOTE_CHARS)
            )
        })?
    };
    if value.is_nan() {
        return if pass {
            Err(format!(
                "{} on a PASS row",
                if cell.is_empty() { "empty cell" } else { "NaN" }
            ))
        } else {
            Ok(f64::NAN)
        };
    }
    match rule {
        CellRule::Metric { .. } | CellRule::NonNegative if value < 0.0 => Err(format!(
            "negative value {}",
            crate::text::quote(cell, crate::text::QUOTE_CHARS)
        )),
        CellRule::Metric { .. } | CellRule::NonNegative if pass && value.is_infinite() => {
            Err(format!(
                "infinite value {} on a PASS row",
                crate::text::quote(cell, crate::text::QUOTE_CHARS)
            ))
        }
        CellRule::Metric { .. } if pass && value == 0.0 => {
            Err("a PASS row needs a positive metric, found 0".to_owned())
        }
        CellRule::Metric { ceiling, .. } if pass && value > ceiling => Err(format!(
            "{} is beyond what any device measures (at most {ceiling:e} in this unit)",
            crate::text::quote(cell, crate::text::QUOTE_CHARS)
        )),
        CellRule::Snr if pass && value == f64::NEG_INFINITY => Err(format!(
            "SNR {} on a PASS row: an output with infinite error does not pass",
            crate::text::quote(cell, crate::text::QUOTE_CHARS)
        )),
        _ => Ok(value),
    }
}

/// Positive decimal integer, digits only: no kernel runs on an empty dimension, and a row
/// of one would count no work and divide by it.
pub(super) fn parse_dim(cell: &str) -> std::result::Result<u64, String> {
    let n = parse_unsigned(cell)?;
    if n == 0 {
        return Err(format!(
            "dimension '{}' must be positive: no shape has an empty dimension",
            crate::text::quote(cell, crate::text::QUOTE_CHARS)
        ));
    }
    Ok(n)
}

/// Unsigned decimal integer, digits only.
fn parse_unsigned(cell: &str) -> std::result::Result<u64, String> {
    let shown = || crate::text::quote(cell, crate::text::QUOTE_CHARS);
    if cell.is_empty() || !cell.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "dimension '{}' is not an unsigned integer",
            shown()
        ));
    }
    // Digits only, so the value is theirs unless it overflows (what `str::parse` says).
    cell.bytes()
        .try_fold(0u64, |n, b| {
            n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        })
        .ok_or_else(|| format!("dimension '{}' does not fit in 64 bits", shown()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule's edges: the ceiling, zero, negatives, infinities and NaN, on a PASS row and
    /// off it.
    #[test]
    fn each_rule_holds_its_cells_to_their_edges() {
        let metric = CellRule::Metric {
            ceiling: MAX_TFLOPS,
        };
        let ok = |cell: &str, rule, pass| parse_cell(cell, rule, pass).is_ok();
        assert!(ok("99999.5", metric, true) && ok("1e5", metric, true));
        let over = parse_cell("100000.5", metric, true).unwrap_err();
        assert!(over.contains("beyond what any device measures"), "{over}");
        // Off a PASS row a metric may be anything but negative.
        assert!(ok("100000.5", metric, false) && ok("inf", metric, false));
        assert!(!ok("0.0", metric, true) && ok("0.0", metric, false));
        assert!(!ok("-1", metric, false) && !ok("-1", CellRule::NonNegative, false));
        assert!(ok("-0.0", CellRule::NonNegative, true));
        assert!(!ok("inf", CellRule::NonNegative, true));
        // An SNR may be negative or infinite, never -inf on a PASS row.
        assert!(ok("-12.5", CellRule::Snr, true) && ok("inf", CellRule::Snr, true));
        assert!(!ok("-inf", CellRule::Snr, true) && ok("-inf", CellRule::Snr, false));
        // Empty and NaN cells only off a PASS row; every spelling Rust reads is read.
        for rule in [metric, CellRule::NonNegative, CellRule::Snr, CellRule::Any] {
            assert!(!ok("", rule, true) && ok("", rule, false));
            assert!(!ok("NaN", rule, true) && ok("nan", rule, false));
            assert!(ok(".5", rule, true) && ok("5.", rule, true) && ok("+1E-3", rule, true));
            assert!(!ok("1,5", rule, false) && !ok(" 1", rule, false));
        }
    }
}
