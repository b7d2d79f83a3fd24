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

/// [`sig`], appended to `out` (no allocation: the gate writes 10,000-shape tables with it).
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
    let magnitude = decade(value.abs());
    let decimals = (DIGITS as i32 - 1 - magnitude).max(0) as usize;
    // Rounding can carry into a new digit (9.996 -> "10.00"): one decimal fewer then. It
    // can only from within half a unit of the last digit below the next power of ten
    // (0.9995 · 10^(magnitude+1) for three digits): below 0.999 of it nothing is checked.
    const CARRY_FROM: f64 = 1.0 - TENS[22 - DIGITS];
    let next = usize::try_from(magnitude + 1 + 22)
        .ok()
        .and_then(|k| TENS.get(k));
    let near_next = next.is_none_or(|p| value.abs() >= CARRY_FROM * p);
    let carried = decimals > 0 && near_next && {
        let scale = 10f64.powi(decimals as i32);
        let rounded = (value.abs() * scale).round() / scale;
        decade(rounded) > magnitude
    };
    let decimals = if carried { decimals - 1 } else { decimals };
    if !write_fixed_fast(out, value, decimals) {
        let _ = write!(out, "{value:.decimals$}");
    }
}

/// `10^k` for k in -22..=22, each the nearest f64 (exact for k >= 0).
const TENS: [f64; 45] = [
    1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10,
    1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `x.log10().floor()` for a positive finite `x`, to the same answer: found by comparison
/// with the powers of ten, and through `log10` itself within 1e-9 (relative) of one, where
/// the comparison and the logarithm's rounding could disagree. Away from a power of ten the
/// logarithm lies more than 4e-10 from an integer, far beyond its error of an ulp or two.
fn decade(x: f64) -> i32 {
    const NEAR: f64 = 1e-9;
    if !(1e-21..1e21).contains(&x) {
        return x.log10().floor() as i32;
    }
    // 2^e <= x < 2^(e+1), so floor(log10 x) is floor(e · log10 2) or one more
    // (78913 / 2^18 is log10 2 closely enough for |e| < 1650).
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mut k = (((e * 78913) >> 18) + 22) as usize;
    if x >= TENS[k + 1] {
        k += 1;
    }
    // Now TENS[k] <= x < TENS[k + 1], unless x is within an ulp of TENS[k].
    if x <= TENS[k] * (1.0 + NEAR) || x >= TENS[k + 1] * (1.0 - NEAR) {
        return x.log10().floor() as i32;
    }
    k as i32 - 22
}

/// `format!("{value:.decimals$}")` appended to `out` without the exact decimal expansion,
/// where that gives the same text: `|value| · 10^decimals` is below 10^15 and its computed
/// product lies clearly off a half-integer (further than the product's rounding error), so
/// rounding it to the nearest integer is rounding the exact value. Returns false, writing
/// nothing, everywhere else (ties, near-ties, huge or tiny values, a result of zero).
fn write_fixed_fast(out: &mut String, value: f64, decimals: usize) -> bool {
    if decimals > 15 {
        return false;
    }
    let product = value.abs() * TENS[22 + decimals];
    if product >= 1e15 {
        return false;
    }
    // Below 2^53 the conversion truncates exactly, and the fraction is exact.
    let whole = product as u64;
    let fraction = product - whole as f64;
    // |product - exact| <= product · 2^-53; twice that keeps clear of every half-integer.
    if (fraction - 0.5).abs() <= product * f64::EPSILON {
        return false;
    }
    let rounded = whole + u64::from(fraction > 0.5);
    if rounded == 0 {
        return false;
    }
    // The rounded value's digits, the point placed `decimals` from their end (a value
    // below 1 has fewer digits than decimals: zeros go between the point and them).
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(rounded);
    if value < 0.0 {
        out.push('-');
    }
    match digits.len().checked_sub(decimals) {
        Some(0) | None => {
            out.push_str("0.");
            out.push_str(&ZEROS[..decimals - digits.len()]);
            out.push_str(digits);
        }
        Some(point) => {
            out.push_str(&digits[..point]);
            if decimals > 0 {
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    }
    true
}

/// Zeros after a decimal point, for the most decimals [`write_fixed_fast`] writes.
const ZEROS: &str = "000000000000000";

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
    // A positive value's digits never start with '-'.
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

    /// The formatter before its fast paths: `log10` for the decade, the exact decimal
    /// expansion for the digits.
    fn sig_reference(value: f64) -> String {
        if !value.is_finite() {
            return "-".to_owned();
        }
        if value == 0.0 {
            return "0".to_owned();
        }
        let magnitude = value.abs().log10().floor() as i32;
        let decimals = (DIGITS as i32 - 1 - magnitude).max(0) as usize;
        let carried = decimals > 0 && {
            let scale = 10f64.powi(decimals as i32);
            let rounded = (value.abs() * scale).round() / scale;
            rounded.log10().floor() as i32 > magnitude
        };
        let decimals = if carried { decimals - 1 } else { decimals };
        format!("{value:.decimals$}")
    }

    /// A seeded xorshift: the same million values on every run.
    fn values(seed: u64, count: usize) -> impl Iterator<Item = u64> {
        let mut x = seed;
        (0..count).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    #[test]
    fn fast_paths_write_what_the_exact_formatter_writes() {
        let mut checked = Vec::new();
        // Random bit patterns (every magnitude), uniform mantissas in the decades the gate
        // prints, and values a few ulps around every power of ten and every tie x.xx5.
        checked.extend(values(0x9e37_79b9_7f4a_7c15, 100_000).map(f64::from_bits));
        checked.extend(values(7, 100_000).map(|x| {
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            (unit * 12.0 - 6.0).exp2() * 10f64.powi((x % 9) as i32 - 4)
        }));
        for k in -30..=30 {
            let p = 10f64.powi(k);
            for m in [
                1.0, 9.995, 9.9949999, 9.9950001, 0.9995, 1.005, 1.0049999, 2.5,
            ] {
                let x = p * m;
                let mut y = x;
                for _ in 0..8 {
                    checked.push(y);
                    y = f64::from_bits(y.to_bits() + 1);
                }
                let mut y = x;
                for _ in 0..8 {
                    checked.push(y);
                    y = f64::from_bits(y.to_bits() - 1);
                }
            }
        }
        for n in 0..5_000u32 {
            // n + 0.5 at every scale the table uses: 100.5, 12.45, 0.001235, ...
            for scale in [1.0, 0.1, 0.01, 1e-3, 1e-6] {
                checked.push((f64::from(n) + 0.5) * scale);
                checked.push((f64::from(n) + 0.25) * scale);
            }
        }
        for x in checked {
            for v in [x, -x] {
                assert_eq!(sig(v), sig_reference(v), "{v:e} ({:#x})", v.to_bits());
                if v.is_finite() && v != 0.0 {
                    assert_eq!(decade(v.abs()), v.abs().log10().floor() as i32, "{v:e}");
                }
            }
        }
    }

    #[test]
    fn wall_clock_spans() {
        assert_eq!(wall_clock(41.6), "42 s");
        assert_eq!(wall_clock(245.0), "4 min 05 s");
        assert_eq!(wall_clock(3720.0), "1 h 02 min");
        assert_eq!(wall_clock(f64::NAN), "-");
    }
}
