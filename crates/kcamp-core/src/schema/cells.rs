//! Numeric cells: the rule each column's cells are held to, their exact parse, and a scan
//! of a cell's text that proves most cells valid without converting them.
//!
//! Every cell of a CSV is checked, but a table may keep only some of them (the gate keeps
//! the judged metric's). A kept cell is converted; an unkept one is only scanned: the digits
//! of a number in decimal notation bound its value to a decade, which settles the rules for
//! nearly every real measurement. A cell the scan cannot settle (an edge, a form it does not
//! read, an error) is converted and judged exactly, so both ways accept and refuse the same
//! cells with the same messages.

use super::columns::{Column, ColumnRole};
use super::masks::{RowMasks, scan_cell};

/// How a numeric cell is validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum CellRule {
    /// Positive on PASS rows (the gate divides by it), at most `ceiling`; a scan settles
    /// the ceiling for cells of decade `scan_max` or below ([`CellRule::metric`]).
    Metric { ceiling: f64, scan_max: i32 },
    /// Non-negative, finite on PASS rows.
    NonNegative,
    /// A signal-to-noise ratio in dB: finite, or `inf` for an exact output; on a PASS row
    /// never `-inf` (an output with infinite error does not pass).
    Snr,
    /// Any number or ±inf; not NaN on PASS rows.
    Any,
}

impl CellRule {
    /// The rule of a metric whose values are at most `ceiling`. A cell of decade `d` is
    /// below `10^(d+1)`, so it is certainly within the ceiling, whatever the rounding, when
    /// `10^(d+2)` is: the largest such `d` is worked out here once, not for every cell.
    pub(super) fn metric(ceiling: f64) -> CellRule {
        let scan_max = (-SCAN_DECADES..=SCAN_DECADES)
            .rev()
            .find(|d| 10f64.powi(d + 2) <= ceiling)
            .unwrap_or(i32::MIN);
        CellRule::Metric { ceiling, scan_max }
    }
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
        ColumnRole::Metric => Some(CellRule::metric(metric_ceiling(&column.name))),
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

/// Unsigned decimal integer, digits only.
pub(super) fn parse_dim(cell: &str) -> std::result::Result<u64, String> {
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

/// What the text of a cell in decimal notation says about its value, read without
/// converting it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scanned {
    /// Zero, of either sign.
    Zero,
    /// `10^decade <= |value| < 10^(decade + 1)` for the value as written, with
    /// `|decade| <= SCAN_DECADES`.
    NonZero { negative: bool, decade: i32 },
    /// `inf`, as Python writes an exact output's SNR.
    Infinite,
}

/// The decades a scan reads: f64 holds non-zero finite values from about 4.9e-324 to
/// 1.8e308, so a value within 10^±300 is finite and non-zero after rounding, by far.
pub(super) const SCAN_DECADES: i32 = 300;

/// The scan of a cell that `str::parse::<f64>` reads as a number in decimal notation
/// (`[+-]digits[.digits][e[+-]digits]`, either part of the mantissa may be empty but not
/// both), or exactly `inf`; None for anything else, and for values beyond
/// [`SCAN_DECADES`]. A cell scanned is a cell that parses. The one-pass reader scans cells
/// where they lie in their record ([`scan_cell`]); this is the same scan of a cell alone.
#[cfg(test)]
pub(super) fn scan(cell: &str) -> Option<Scanned> {
    scan_alone(cell, &mut RowMasks::default())
}

/// [`scan`], with `masks` (a reader's, reused from cell to cell) holding the cell's.
fn scan_alone(cell: &str, masks: &mut RowMasks) -> Option<Scanned> {
    masks.classify(cell.as_bytes());
    scan_cell(cell.as_bytes(), masks, 0, cell.len())
}

/// The scan of `cell` when it alone shows that the cell holds to `rule` (on a PASS row when
/// `pass`); None when it cannot tell, and [`parse_cell`] then decides and says why.
pub(super) fn passes_unconverted(
    cell: &str,
    rule: CellRule,
    pass: bool,
    masks: &mut RowMasks,
) -> Option<Scanned> {
    scan_alone(cell, masks).filter(|scanned| holds(*scanned, rule, pass))
}

/// Whether a cell whose scan is `scanned` certainly holds to `rule` (on a PASS row when
/// `pass`).
pub(super) fn holds(scanned: Scanned, rule: CellRule, pass: bool) -> bool {
    match (rule, scanned) {
        // Below a tenth of the ceiling, whatever the rounding.
        (
            CellRule::Metric { scan_max, .. },
            Scanned::NonZero {
                negative: false,
                decade,
            },
        ) => decade <= scan_max,
        (CellRule::Metric { .. }, Scanned::Zero) => !pass,
        (CellRule::NonNegative, Scanned::NonZero { negative, .. }) => !negative,
        (CellRule::NonNegative, Scanned::Zero) => true,
        (CellRule::Snr | CellRule::Any, _) => true,
        _ => false,
    }
}

/// Whether a PASS row's stddev is within [`MAX_RELATIVE_STDDEV`] times its metric by the
/// two cells' scans alone: a stddev at most the metric's decade is below ten times it.
pub(super) fn spread_within(stddev: Scanned, metric: Scanned) -> bool {
    const _: () = assert!(MAX_RELATIVE_STDDEV >= 10.0);
    match (stddev, metric) {
        (
            Scanned::Zero,
            Scanned::Zero
            | Scanned::NonZero {
                negative: false, ..
            },
        ) => true,
        (
            Scanned::NonZero {
                negative: false,
                decade: s,
            },
            Scanned::NonZero {
                negative: false,
                decade: m,
            },
        ) => s <= m,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rules() -> [CellRule; 5] {
        [
            CellRule::metric(MAX_TFLOPS),
            CellRule::metric(f64::INFINITY),
            CellRule::NonNegative,
            CellRule::Snr,
            CellRule::Any,
        ]
    }

    /// Cells near what the scan reads: signs, digits, points, exponents, and a few
    /// characters it must not take.
    fn cell() -> impl Strategy<Value = String> {
        prop_oneof![
            "[+-]?[0-9]{0,4}(\\.[0-9]{0,4})?([eE][+-]?[0-9]{0,5})?",
            "[+-]?0{0,3}\\.?0{0,3}[0-9]{0,3}(e-?3[0-9]{2})?",
            "[-+0-9.eE infINFnaNx_]{0,8}",
            "[0-9]{300,330}(\\.[0-9]{0,3})?",
            prop::num::f64::ANY.prop_map(|v| format!("{v:?}")),
            prop::num::f64::ANY.prop_map(|v| format!("{v:e}")),
        ]
    }

    /// The decade a scan gives, against the value the exact parse gives (which rounding may
    /// carry up to the next power of ten, not past it).
    fn decade_holds(value: f64, decade: i32) -> bool {
        let power = |k: i32| format!("1e{k}").parse::<f64>().unwrap();
        value.abs() >= power(decade) && value.abs() <= power(decade + 1)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// A cell scanned parses, to a value the scan describes.
        #[test]
        fn a_scan_describes_the_parsed_value(cell in cell()) {
            if let Some(scanned) = scan(&cell) {
                let value = cell.parse::<f64>();
                prop_assert!(value.is_ok(), "{cell:?} scanned as {scanned:?} but does not parse");
                let value = value.unwrap();
                match scanned {
                    Scanned::Zero => prop_assert_eq!(value, 0.0, "{}", cell),
                    Scanned::Infinite => prop_assert_eq!(value, f64::INFINITY),
                    Scanned::NonZero { negative, decade } => {
                        prop_assert_eq!(negative, value < 0.0, "{}", cell);
                        prop_assert!(decade_holds(value, decade), "{cell:?}: {value} not in decade {decade}");
                    }
                }
            }
        }

        /// What the scan passes, the exact parse passes; on a PASS row and off it.
        #[test]
        fn a_cell_passed_by_its_scan_passes_its_rule(cell in cell(), rule in 0..5usize, pass: bool) {
            let rule = rules()[rule];
            if passes_unconverted(&cell, rule, pass, &mut RowMasks::default()).is_some() {
                prop_assert!(parse_cell(&cell, rule, pass).is_ok(), "{cell:?} {rule:?} pass={pass}: {:?}", parse_cell(&cell, rule, pass));
            }
        }

        /// A spread the scans clear is within its bound exactly.
        #[test]
        fn a_spread_cleared_by_scans_is_within_its_bound(sd in cell(), metric in cell()) {
            if let (Some(s), Some(m)) = (scan(&sd), scan(&metric))
                && spread_within(s, m)
            {
                let (s, m) = (sd.parse::<f64>().unwrap(), metric.parse::<f64>().unwrap());
                prop_assert!(s <= MAX_RELATIVE_STDDEV * m, "{sd} vs {metric}");
            }
        }
    }

    #[test]
    fn a_scan_reads_the_forms_a_harness_writes() {
        let nonzero = |negative, decade| Some(Scanned::NonZero { negative, decade });
        for (cell, scanned) in [
            ("23.456789012345678", nonzero(false, 1)),
            ("1.048576e-05", nonzero(false, -5)),
            ("0.0025", nonzero(false, -3)),
            ("120.5", nonzero(false, 2)),
            ("-3.5", nonzero(true, 0)),
            ("+7", nonzero(false, 0)),
            ("1.5e+16", nonzero(false, 16)),
            (".5", nonzero(false, -1)),
            ("5.", nonzero(false, 0)),
            ("0.000", Some(Scanned::Zero)),
            ("-0", Some(Scanned::Zero)),
            ("inf", Some(Scanned::Infinite)),
        ] {
            assert_eq!(scan(cell), scanned, "{cell}");
        }
        // Left to the exact parse: other spellings of infinity and NaN, empty cells, stray
        // characters, values beyond the decades read, long exponents.
        for cell in [
            "", ".", "-", "e5", "1e", "1e+", "Inf", "-inf", "infinity", "NaN", "nan", "1,5",
            "1.5x", " 1", "1e301", "1e-301", "1e00001",
        ] {
            assert_eq!(scan(cell), None, "{cell:?}");
        }
    }

    #[test]
    fn the_scan_leaves_every_edge_of_a_rule_to_the_exact_parse() {
        let metric = CellRule::metric(MAX_TFLOPS);
        let mut masks = RowMasks::default();
        let mut passes_unconverted =
            |cell: &str, rule, pass| passes_unconverted(cell, rule, pass, &mut masks);
        // Within a tenth of the ceiling: passed by the scan. Past it: converted, and a value
        // over the ceiling is refused with the exact message.
        assert!(passes_unconverted("9999.5", metric, true).is_some());
        assert!(passes_unconverted("10000", metric, true).is_none());
        assert!(parse_cell("100000.5", metric, true).is_err());
        // A zero metric is refused on a PASS row only; negatives everywhere.
        assert!(passes_unconverted("0.0", metric, true).is_none());
        assert!(passes_unconverted("0.0", metric, false).is_some());
        assert!(passes_unconverted("-1", metric, false).is_none());
        assert!(passes_unconverted("-1", CellRule::NonNegative, false).is_none());
        assert!(passes_unconverted("-0.0", CellRule::NonNegative, true).is_some());
        // An SNR may be negative or infinite, never -inf on a PASS row (left to the parse).
        assert!(passes_unconverted("-12.5", CellRule::Snr, true).is_some());
        assert!(passes_unconverted("inf", CellRule::Snr, true).is_some());
        assert!(passes_unconverted("-inf", CellRule::Snr, true).is_none());
        // Within a decade of each other a spread is cleared; beyond, it is computed.
        let s = |cell| scan(cell).unwrap();
        assert!(spread_within(s("9.9"), s("1.0")));
        assert!(!spread_within(s("10"), s("1.0")));
        assert!(spread_within(s("0"), s("1.0")));
        assert!(!spread_within(s("1"), s("0")));
    }
}
