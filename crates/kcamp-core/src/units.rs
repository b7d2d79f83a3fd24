//! The one number formatter for people: the CLI, the dashboard and the reports all write
//! rates, times and changes through these functions, so a value reads the same everywhere.
//!
//! Values keep three significant digits and take an SI prefix that keeps the mantissa in
//! [1, 1000): `0.87 GFLOP/s`, `13.1 TFLOP/s`, `945 GB/s`, `1.46 ms`, `12.4 µs`. A unit is
//! never cut: callers that lack room drop a column, not the unit. Non-finite values are
//! written as `-`.

/// Significant digits of every formatted value.
pub const DIGITS: usize = 3;

/// `value` with [`DIGITS`] significant digits (no exponent, no prefix): `0.000123`, `12.4`,
/// `1240`.
pub fn sig(value: f64) -> String {
    let mut out = String::new();
    write_sig(&mut out, value);
    out
}

/// [`sig`], appended to `out` (a table of thousands of cells writes into one buffer).
pub fn write_sig(out: &mut String, value: f64) {
    use std::fmt::Write as _;
    if !value.is_finite() {
        out.push('-');
        return;
    }
    if value == 0.0 {
        out.push('0');
        return;
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (DIGITS as i32 - 1 - magnitude).max(0) as usize;
    // Rounding can carry into a new digit (9.996 -> "10.00"): one decimal fewer then.
    let carried = decimals > 0 && {
        let scale = 10f64.powi(decimals as i32);
        let rounded = (value.abs() * scale).round() / scale;
        rounded.log10().floor() as i32 > magnitude
    };
    let decimals = if carried { decimals - 1 } else { decimals };
    // Writing into a String cannot fail.
    let _ = write!(out, "{value:.decimals$}");
}

/// SI prefixes from 1e-9 to 1e15.
const PREFIXES: [(f64, &str); 9] = [
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
];

/// `value` in `unit` with the SI prefix that puts the mantissa in [1, 1000):
/// `si(1.31e13, "FLOP/s")` is `13.1 TFLOP/s`.
pub fn si(value: f64, unit: &str) -> String {
    let mut out = String::new();
    write_si(&mut out, value, unit);
    out
}

/// [`si`], appended to `out`.
pub fn write_si(out: &mut String, value: f64, unit: &str) {
    if !value.is_finite() {
        out.push('-');
        return;
    }
    if value == 0.0 {
        out.push_str("0 ");
        out.push_str(unit);
        return;
    }
    let magnitude = value.abs();
    let (scale, prefix) = PREFIXES
        .iter()
        .find(|(scale, _)| magnitude >= scale * 0.9995)
        .copied()
        .unwrap_or(PREFIXES[PREFIXES.len() - 1]);
    write_sig(out, value / scale);
    out.push(' ');
    out.push_str(prefix);
    out.push_str(unit);
}

/// A compute rate given in FLOP/s: `13.1 TFLOP/s`, `870 MFLOP/s`.
pub fn flop_rate(flop_per_s: f64) -> String {
    si(flop_per_s, "FLOP/s")
}

/// A bandwidth given in bytes/s: `945 GB/s`, `4.19 TB/s`.
pub fn byte_rate(bytes_per_s: f64) -> String {
    si(bytes_per_s, "B/s")
}

/// A duration given in milliseconds: `1.46 ms`, `12.4 µs`, `2.31 s`.
pub fn millis(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".to_owned();
    }
    // Durations stop at seconds: `2310 s` reads better than `2.31 ks`.
    let s = ms * 1e-3;
    if s.abs() >= 1.0 {
        format!("{} s", sig(s))
    } else {
        si(s, "s")
    }
}

/// A change given as a fraction, signed, with a `%`: `+10.0%`, `-0.42%`, `+1240%`.
pub fn change(fraction: f64) -> String {
    let mut out = String::new();
    write_change(&mut out, fraction);
    out
}

/// [`change`], appended to `out`.
pub fn write_change(out: &mut String, fraction: f64) {
    if !fraction.is_finite() {
        out.push('-');
        return;
    }
    let pct = fraction * 100.0;
    // A negative value's digits carry their own '-'.
    if pct > 0.0 {
        out.push('+');
    }
    write_sig(out, pct);
    out.push('%');
}

/// A noise band given as a fraction: `±2.00%`.
pub fn band(fraction: f64) -> String {
    if !fraction.is_finite() {
        return "±-".to_owned();
    }
    format!("±{}%", sig(fraction * 100.0))
}

/// A value of a CSV metric, in the unit its name implies: `Forward TFLOPS` and
/// `Combined Step TFLOPS` are TFLOP/s, `... GB/s` are GB/s, `... (ms)` are milliseconds;
/// anything else is a plain number.
pub fn metric(value: f64, name: &str) -> String {
    let mut out = String::new();
    write_metric(&mut out, value, name);
    out
}

/// [`metric`], appended to `out`.
pub fn write_metric(out: &mut String, value: f64, name: &str) {
    if name.ends_with("TFLOPS") {
        write_si(out, value * 1e12, "FLOP/s")
    } else if name.ends_with("GB/s") {
        write_si(out, value * 1e9, "B/s")
    } else if name.ends_with("(ms)") {
        out.push_str(&millis(value))
    } else {
        write_sig(out, value)
    }
}

/// A p-value as tables show it: three significant digits, `<0.001` below that (a table is
/// read for significance, not for digits; CSV and JSON exports carry the number).
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "<0.001".to_owned()
    } else {
        sig(p)
    }
}

/// A share given in percent (utilization of a peak): `0.612%`, `94.0%`.
pub fn percent(pct: f64) -> String {
    if !pct.is_finite() {
        return "-".to_owned();
    }
    format!("{}%", sig(pct))
}

/// A factor: `1.30×` (a speedup), `163×` (headroom to a roof).
pub fn times(factor: f64) -> String {
    if !factor.is_finite() {
        return "-".to_owned();
    }
    format!("{}×", sig(factor))
}

/// Arithmetic intensity: `0.250 FLOP/B`, `683 FLOP/B`.
pub fn intensity(flop_per_byte: f64) -> String {
    if !flop_per_byte.is_finite() {
        return "-".to_owned();
    }
    format!("{} FLOP/B", sig(flop_per_byte))
}

/// A byte count: `16.4 kB`, `128 B`.
pub fn bytes(count: f64) -> String {
    si(count, "B")
}

/// A small error or ratio in scientific notation with three significant digits:
/// `2.10e-7`.
pub fn sci(value: f64) -> String {
    if !value.is_finite() {
        return "-".to_owned();
    }
    format!("{value:.2e}")
}

/// A shape's dimensions: `1×128×128×128`.
pub fn dims(values: &[u64]) -> String {
    values
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

/// The optional form of [`metric`]: `-` for no value.
pub fn metric_opt(value: Option<f64>, name: &str) -> String {
    value.map_or_else(|| "-".to_owned(), |v| metric(v, name))
}

/// A wall-clock span given in seconds, to the second (elapsed time, time left):
/// `42 s`, `4 min 05 s`, `1 h 02 min`. Not for measurements: those are [`millis`].
pub fn wall_clock(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "-".to_owned();
    }
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(0.000123456), "0.000123");
        assert_eq!(sig(12.44), "12.4");
        assert_eq!(sig(1244.0), "1244");
        assert_eq!(sig(9.996), "10.0");
        assert_eq!(sig(0.0), "0");
        assert_eq!(sig(-1.23456), "-1.23");
        assert_eq!(sig(f64::NAN), "-");
    }

    #[test]
    fn rates_take_si_prefixes_and_keep_their_unit() {
        assert_eq!(flop_rate(0.87e9), "870 MFLOP/s");
        assert_eq!(flop_rate(1.31e13), "13.1 TFLOP/s");
        assert_eq!(byte_rate(945e9), "945 GB/s");
        assert_eq!(byte_rate(4.19e12), "4.19 TB/s");
        assert_eq!(metric(0.0007, "Forward TFLOPS"), "700 MFLOP/s");
        assert_eq!(metric(0.00087, "Combined Step TFLOPS"), "870 MFLOP/s");
        assert_eq!(metric(9.6, "Forward GB/s"), "9.60 GB/s");
        assert_eq!(flop_rate(999.96e9), "1.00 TFLOP/s");
    }

    #[test]
    fn durations_and_changes() {
        assert_eq!(millis(1.4567), "1.46 ms");
        assert_eq!(millis(0.01244), "12.4 µs");
        assert_eq!(millis(2310.0), "2.31 s");
        assert_eq!(metric(100.67, "Forward Time (ms)"), "101 ms");
        assert_eq!(change(0.1), "+10.0%");
        assert_eq!(change(-0.0042), "-0.420%");
        assert_eq!(change(12.4), "+1240%");
        assert_eq!(band(0.02), "±2.00%");
        assert_eq!(metric_opt(None, "Forward TFLOPS"), "-");
    }

    #[test]
    fn shares_factors_and_counts() {
        assert_eq!(percent(0.6123), "0.612%");
        assert_eq!(percent(94.0), "94.0%");
        assert_eq!(times(1.3), "1.30×");
        assert_eq!(times(163.2), "163×");
        assert_eq!(intensity(0.25), "0.250 FLOP/B");
        assert_eq!(bytes(16384.0), "16.4 kB");
        assert_eq!(sci(2.1e-7), "2.10e-7");
        assert_eq!(sci(f64::NAN), "-");
        let mut out = String::from("x=");
        write_metric(&mut out, 0.0021, "Forward TFLOPS");
        assert_eq!(out, "x=2.10 GFLOP/s");
        assert_eq!(sig(0.09996), "0.100");
        assert_eq!(sig(999.6), "1000");
        assert_eq!(dims(&[1, 128, 64]), "1×128×64");
    }

    #[test]
    fn wall_clock_spans() {
        assert_eq!(wall_clock(41.6), "42 s");
        assert_eq!(wall_clock(245.0), "4 min 05 s");
        assert_eq!(wall_clock(3720.0), "1 h 02 min");
        assert_eq!(wall_clock(f64::NAN), "-");
    }
}
