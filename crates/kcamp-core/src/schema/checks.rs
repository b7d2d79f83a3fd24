//! The CSV of a run that only checks outputs (a harness's `KCAMP_VALIDATION=check` run):
//! the same header as a benchmark CSV, of which only the label, the dimensions, `Check` and
//! the SNR columns are read. Its times and rates are not: a run that does not time may
//! leave them empty or zero.

use std::collections::HashMap;
use std::path::Path;

use super::cells::{CellRule, parse_cell, parse_dim};
use super::columns::{Schema, header_difference, infer_schema};
use super::table::{for_each_record, read_text, record_label, split_header};
use crate::types::Check;
use crate::{Error, Result};

/// One row of a check run.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedRow {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    /// `‖out − ref‖ / ‖ref‖` of the worst SNR column (`snr = 20·log10(1/rel_err)`); None
    /// when the row has no SNR cell.
    pub rel_err: Option<f64>,
}

/// The rows of the check-run CSV at `path`, its header held to `expected` when given (the
/// campaign's frozen header). Refuses what a benchmark CSV refuses in those columns: a bad
/// header, a wrong field count, a bad label, dimension or Check, an SNR that is not a
/// number, a label twice; every refusal names the file, line and column.
pub fn read_checks(path: &Path, expected: Option<&str>) -> Result<Vec<CheckedRow>> {
    parse_checks(&read_text(path)?, path, expected)
}

/// [`read_checks`] of CSV text; `path` names the file in errors.
pub fn parse_checks(text: &str, path: &Path, expected: Option<&str>) -> Result<Vec<CheckedRow>> {
    let (header, body) = split_header(text).map_err(|m| Error::in_file(path, None, None, m))?;
    if let Some(want) = expected
        && let Some(diff) = header_difference(want, header, "frozen", "found")
    {
        return Err(Error::in_file(
            path,
            Some(1),
            Some(&diff.name),
            format!("header drifted from the frozen header: {}", diff.message),
        ));
    }
    let schema = infer_schema(header).map_err(|f| {
        Error::in_file(
            path,
            Some(1),
            f.column.as_deref(),
            format!("header: {}", f.message),
        )
    })?;
    let check_at = schema
        .check_index()
        .ok_or_else(|| Error::Internal("inferred schema without a Check column".into()))?;
    let snr: Vec<usize> = (0..schema.columns.len())
        .filter(|&i| i > check_at && schema.columns[i].name.ends_with("_snr"))
        .collect();
    let width = schema.columns.len();
    let mut rows: Vec<CheckedRow> = Vec::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    for_each_record(body, path, |record, line| {
        let bad = |column: &str, msg: String| Error::in_file(path, Some(line), Some(column), msg);
        let label = record_label(record, width, path, line)?;
        if let Some(first) = seen.insert(label.to_owned(), line) {
            return Err(bad(
                "label",
                format!("shape '{label}' appears twice (lines {first} and {line})"),
            ));
        }
        let bad = |column: &str, msg: String| bad(column, format!("shape '{label}': {msg}"));
        let mut dims = Vec::with_capacity(check_at.saturating_sub(1));
        for (i, column) in schema.columns.iter().enumerate().take(check_at).skip(1) {
            dims.push(parse_dim(&record[i]).map_err(|m| bad(&column.name, m))?);
        }
        let check = Check::parse(&record[check_at]).ok_or_else(|| {
            bad(
                "Check",
                format!(
                    "Check must be PASS, FAIL, ERROR or TIMEOUT_FAIL, found '{}'",
                    crate::text::quote(&record[check_at], crate::text::QUOTE_CHARS)
                ),
            )
        })?;
        let mut worst: Option<f64> = None;
        for &i in &snr {
            // An empty SNR cell is allowed on any row here: only the Check is required.
            if record[i].is_empty() {
                continue;
            }
            let v = parse_cell(&record[i], CellRule::Snr, check == Check::Pass)
                .map_err(|m| bad(&schema.columns[i].name, format!("column {}: {m}", i + 1)))?;
            worst = Some(worst.map_or(v, |w: f64| w.min(v)));
        }
        rows.push(CheckedRow {
            label: label.to_owned(),
            dims,
            check,
            rel_err: worst.map(|snr| 10f64.powf(-snr / 20.0)),
        });
        Ok(())
    })?;
    Ok(rows)
}

/// The schema a header line implies (for a table kcamp writes when no CSV came to read
/// one from); the message says what is wrong with it.
pub fn schema_of_header(header: &str) -> std::result::Result<Schema, String> {
    infer_schema(header).map_err(|f| f.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::GEMM_HEADER;

    fn read(text: &str, expected: Option<&str>) -> Result<Vec<CheckedRow>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("check.csv");
        std::fs::write(&path, text).unwrap();
        read_checks(&path, expected)
    }

    #[test]
    fn reads_check_and_worst_snr_and_ignores_times() {
        let text = format!(
            "{GEMM_HEADER}\na,1,64,64,64,PASS,0,0,,,,,40,20,inf\nb,2,32,32,32,FAIL,,,,,,,,,\n"
        );
        let rows = read(&text, Some(GEMM_HEADER)).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].label.as_str(), rows[0].check), ("a", Check::Pass));
        assert_eq!(rows[0].dims, vec![1, 64, 64, 64]);
        // The worst of 40, 20 and inf dB: 20 dB is a relative error of 0.1.
        assert!((rows[0].rel_err.unwrap() - 0.1).abs() < 1e-12);
        assert_eq!((rows[1].check, rows[1].rel_err), (Check::Fail, None));
    }

    #[test]
    fn refusals_name_the_file_line_and_column() {
        let drifted = GEMM_HEADER.replace("Check", "check");
        let e = read(&format!("{drifted}\n"), Some(GEMM_HEADER)).unwrap_err();
        assert!(e.to_string().contains("header drifted"), "{e}");
        let e = read(
            &format!("{GEMM_HEADER}\na,1,64,64,64,MAYBE,,,,,,,,,\n"),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(":2") && e.contains("Check must be PASS"), "{e}");
        let e = read(
            &format!("{GEMM_HEADER}\na,1,64,64,64,PASS,,,,,,,,,\na,1,64,64,64,PASS,,,,,,,,,\n"),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("appears twice (lines 2 and 3)"), "{e}");
        let e = read(
            &format!("{GEMM_HEADER}\na,1,64,64,64,PASS,,,,,,,-inf,,\n"),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("out_snr") && e.contains("infinite error"), "{e}");
        let e = read(&format!("{GEMM_HEADER}\na,1,x,64,64,PASS,,,,,,,,,\n"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an unsigned integer"), "{e}");
    }
}
