//! Rows, cells and whole benchmark CSVs: parsing (every refusal names file, line and
//! column), writing, lookups and the aggregate.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cells::{CellRule, MAX_RELATIVE_STDDEV, cell_rule, parse_cell, parse_dim};
use super::columns::{ColumnRole, Schema, header_difference, infer_schema};
use crate::types::{Check, validate_label};
use crate::{Error, Result};

/// One shape's row. `values[i]` holds column `i` of the schema for numeric columns
/// (NaN where the cell was empty on a non-PASS row); label/dims/check are parsed out.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub label: String,
    pub dims: Vec<u64>,
    pub check: Check,
    /// Indexed by schema column index; non-numeric columns hold NaN.
    pub values: Vec<f64>,
}

/// NaN marks an empty cell, so two NaN cells are equal: a table equals its own re-parse.
impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        self.label == other.label
            && self.dims == other.dims
            && self.check == other.check
            && self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }
}

impl Row {
    /// Value of a named numeric column, derived metrics included (Combined Step TFLOPS).
    pub fn metric(&self, schema: &Schema, name: &str) -> Option<f64> {
        schema.resolve_metric(name)?.value(self)
    }

    /// Absolute stddev of a metric (docs/csv-schema.md, "Conventions").
    pub fn stddev(&self, schema: &Schema, name: &str) -> Option<f64> {
        schema.resolve_metric(name)?.stddev(self)
    }

    /// The cell of schema column `column`: NaN for an empty cell (of a non-PASS row) and
    /// for non-numeric columns, None past the row.
    pub fn value(&self, column: usize) -> Option<f64> {
        self.values.get(column).copied()
    }

    /// The key a shape is matched by: label plus dimensions.
    pub fn shape_key(&self) -> ShapeKey {
        ShapeKey {
            label: self.label.clone(),
            dims: self.dims.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ShapeKey {
    pub label: String,
    pub dims: Vec<u64>,
}

impl ShapeKey {
    /// `'label' (B=1, M=64, ...)` for messages.
    pub fn describe(&self, schema: &Schema) -> String {
        describe_shape(&self.label, &self.dims, schema)
    }
}

/// `'label' (B=1, M=64, ...)` for messages.
pub fn describe_shape(label: &str, dims: &[u64], schema: &Schema) -> String {
    let dims: Vec<String> = schema
        .dim_names()
        .iter()
        .zip(dims)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    format!("'{label}' ({})", dims.join(", "))
}

/// Split CSV text into its header line (its `\n` or `\r\n` removed) and the body: the rest,
/// from the header's `\n` on, as [`for_each_record`] takes it.
pub(super) fn split_header(text: &str) -> std::result::Result<(&str, &str), String> {
    if text.starts_with('\u{feff}') {
        return Err(
            "the file starts with a UTF-8 byte order mark (BOM); save it without one".to_owned(),
        );
    }
    if text.is_empty() {
        return Err("empty file: expected a header line".to_owned());
    }
    Ok(match text.find('\n') {
        Some(end) => {
            let header = &text[..end];
            (header.strip_suffix('\r').unwrap_or(header), &text[end..])
        }
        None => (text, ""),
    })
}

/// Read a CSV file as UTF-8: a missing file, a directory, a device, an oversized file or
/// an invalid byte (with its line) is bad input naming the path.
pub(super) fn read_text(path: &Path) -> Result<String> {
    crate::fsutil::read_input_text(path, crate::fsutil::MAX_INPUT_BYTES)
}

/// Each data record of a CSV body through the csv crate, with its file line number. The
/// body starts with the header's line break ([`split_header`]): the records' lines are
/// counted from it, and the reader's start, where the csv crate drops a byte order mark, is
/// not the first record's (a label may begin with U+FEFF). Blank lines are skipped.
/// The label of a record, after the checks every reader of a frozen-schema CSV starts with:
/// as many fields as the header, a valid label.
pub(super) fn record_label<'r>(
    record: &'r csv::StringRecord,
    width: usize,
    origin: &Path,
    line: u64,
) -> Result<&'r str> {
    if record.len() != width {
        return Err(Error::in_file(
            origin,
            Some(line),
            None,
            format!(
                "expected {width} fields (as in the header), found {}",
                record.len()
            ),
        ));
    }
    let label = &record[0];
    validate_label(label).map_err(|m| Error::in_file(origin, Some(line), Some("label"), m))?;
    Ok(label)
}

pub(super) fn for_each_record(
    body: &str,
    origin: &Path,
    mut each: impl FnMut(&csv::StringRecord, u64) -> Result<()>,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut record = csv::StringRecord::new();
    let bytes = body.as_bytes();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                // The reader counts every line break it reads, quoted ones too, from line 1
                // (the header's); a record's position is where the reader began it, before
                // the blank lines it skipped.
                let (mut at, mut line) = record
                    .position()
                    .map_or((0, 1), |p| (p.byte() as usize, p.line()));
                while let Some(b @ (b'\n' | b'\r')) = bytes.get(at) {
                    line += u64::from(*b == b'\n');
                    at += 1;
                }
                each(&record, line)?;
            }
            Err(e) => {
                let line = e.position().map(|p| p.line());
                return Err(Error::in_file(
                    origin,
                    line,
                    None,
                    format!("malformed CSV: {e}"),
                ));
            }
        }
    }
}

/// Append a float so that it parses back to the same value; NaN (an empty cell) as nothing.
pub(super) fn push_number(out: &mut String, value: f64) {
    use std::fmt::Write;
    if !value.is_nan() {
        let _ = write!(out, "{value}");
    }
}

/// Append a CSV field, quoted only when it must be.
pub(super) fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Labels identify shapes: a label seen twice is a duplicated shape (same dims) or two
/// shapes under one name.
fn check_unique_shapes(rows: &[Row], lines: &[u64], schema: &Schema, origin: &Path) -> Result<()> {
    let mut seen: HashMap<std::borrow::Cow<'_, str>, usize> = HashMap::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let reading = crate::text::label_reading(&row.label);
        let Some(&first) = seen.get(&reading) else {
            seen.insert(reading, i);
            continue;
        };
        if rows[first].label != row.label {
            let msg = format!(
                "{} (line {})",
                crate::text::reads_as_another(&row.label, &rows[first].label),
                lines[first]
            );
            return Err(Error::in_file(origin, Some(lines[i]), Some("label"), msg));
        }
        let (label, dims, earlier) = (&row.label, &row.dims, &rows[first].dims);
        let (first_line, line) = (lines[first], lines[i]);
        let msg = if earlier == dims {
            format!(
                "duplicated shape {} (lines {first_line} and {line})",
                describe_shape(label, dims, schema)
            )
        } else {
            format!(
                "label '{label}' names two shapes: {} on line {first_line} and {} on line {line} (labels identify shapes)",
                describe_shape(label, earlier, schema),
                describe_shape(label, dims, schema)
            )
        };
        return Err(Error::in_file(origin, Some(line), Some("label"), msg));
    }
    Ok(())
}

/// Turns the records of one CSV into rows: the schema inferred from its header, each
/// cell's rule, and the rows so far.
struct RowBuilder<'p> {
    origin: &'p Path,
    schema: Schema,
    check_at: usize,
    rules: Vec<Option<CellRule>>,
    /// (stddev column, its metric column): a PASS row's spread is bounded by its mean.
    spreads: Vec<(usize, usize)>,
    rows: Vec<Row>,
    lines: Vec<u64>,
}

impl<'p> RowBuilder<'p> {
    fn new(header: &str, origin: &'p Path) -> Result<RowBuilder<'p>> {
        let schema = infer_schema(header).map_err(|f| {
            Error::in_file(
                origin,
                Some(1),
                f.column.as_deref(),
                format!("header: {}", f.message),
            )
        })?;
        let check_at = schema
            .check_index()
            .ok_or_else(|| Error::Internal("inferred schema without a Check column".into()))?;
        let rules: Vec<Option<CellRule>> = schema.columns.iter().map(cell_rule).collect();
        let spreads: Vec<(usize, usize)> = schema
            .columns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match &c.role {
                ColumnRole::Stddev { of } => schema.index_of(of).map(|m| (i, m)),
                _ => None,
            })
            .collect();
        Ok(RowBuilder {
            origin,
            schema,
            check_at,
            rules,
            spreads,
            rows: Vec::new(),
            lines: Vec::new(),
        })
    }

    /// One record, found on file line `line`.
    fn push(&mut self, record: &csv::StringRecord, line: u64) -> Result<()> {
        let (origin, schema, check_at) = (self.origin, &self.schema, self.check_at);
        let width = schema.columns.len();
        let bad = |column: &str, msg: String| Error::in_file(origin, Some(line), Some(column), msg);
        let label = record_label(record, width, origin, line)?;
        // Past the label, an error names the shape too: a line number alone is hard to
        // find in a 10,000-row file.
        let bad = |column: &str, msg: String| bad(column, format!("shape '{label}': {msg}"));
        let mut dims = Vec::with_capacity(check_at.saturating_sub(1));
        for (cell, column) in record
            .iter()
            .take(check_at)
            .skip(1)
            .zip(&schema.columns[1..])
        {
            dims.push(parse_dim(cell).map_err(|m| bad(&column.name, m))?);
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
        let pass = check == Check::Pass;
        let mut values = vec![f64::NAN; width];
        for (i, rule) in self.rules.iter().enumerate() {
            if let Some(rule) = *rule {
                values[i] = parse_cell(&record[i], rule, pass)
                    .map_err(|m| bad(&schema.columns[i].name, format!("column {}: {m}", i + 1)))?;
            }
        }
        if pass {
            for &(sd, of) in &self.spreads {
                if values[sd] > MAX_RELATIVE_STDDEV * values[of] {
                    return Err(bad(
                        &schema.columns[sd].name,
                        format!(
                            "column {}: stddev {} is more than {MAX_RELATIVE_STDDEV} times the mean {} of '{}': no set of repeats of non-negative rates spreads that far",
                            sd + 1,
                            crate::text::quote(&record[sd], crate::text::QUOTE_CHARS),
                            crate::text::quote(&record[of], crate::text::QUOTE_CHARS),
                            schema.columns[of].name
                        ),
                    ));
                }
            }
        }
        self.lines.push(line);
        self.rows.push(Row {
            label: label.to_owned(),
            dims,
            check,
            values,
        });
        Ok(())
    }

    /// The table, once every record is in: at least one row, no shape twice.
    fn finish(self) -> Result<BenchTable> {
        if self.rows.is_empty() {
            return Err(Error::in_file(
                self.origin,
                None,
                None,
                "no data rows: the CSV has only a header",
            ));
        }
        check_unique_shapes(&self.rows, &self.lines, &self.schema, self.origin)?;
        Ok(BenchTable {
            schema: self.schema,
            rows: self.rows,
        })
    }
}

/// A parsed benchmark CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchTable {
    pub schema: Schema,
    pub rows: Vec<Row>,
}

impl BenchTable {
    /// Parse CSV text; `origin` names the file in errors. Refuses: rows with the wrong
    /// field count, Check outside the four values, NaN/Inf/negative/empty metric on a PASS
    /// row, duplicated shapes, labels with path separators or control characters.
    pub fn parse(text: &str, origin: &Path) -> Result<BenchTable> {
        let (header, body) =
            split_header(text).map_err(|m| Error::in_file(origin, None, None, m))?;
        let mut rows = RowBuilder::new(header, origin)?;
        for_each_record(body, origin, |record, line| rows.push(record, line))?;
        rows.finish()
    }

    pub fn read(path: &Path) -> Result<BenchTable> {
        BenchTable::parse(&read_text(path)?, path)
    }

    /// Like `read`, but the header must equal `frozen` byte for byte; a mismatch names
    /// the first differing column with both spellings and the file.
    pub fn read_frozen(path: &Path, frozen: &str) -> Result<BenchTable> {
        BenchTable::read_with_header(path, frozen, "frozen", "found")
    }

    /// `read_frozen` once a campaign has frozen its header, plain `read` before BASELINE.
    pub fn read_held_to(path: &Path, frozen: Option<&str>) -> Result<BenchTable> {
        match frozen {
            Some(h) => BenchTable::read_frozen(path, h),
            None => BenchTable::read(path),
        }
    }

    /// Like `read`, but the header must equal `expected` byte for byte, checked before the
    /// header is interpreted; `expected_side`/`found_side` name the two headers in the
    /// message (`kcamp gate` says "incumbent" and "candidate").
    pub fn read_with_header(
        path: &Path,
        expected: &str,
        expected_side: &str,
        found_side: &str,
    ) -> Result<BenchTable> {
        let text = read_text(path)?;
        let (header, _) = split_header(&text).map_err(|m| Error::in_file(path, None, None, m))?;
        if let Some(diff) = header_difference(expected, header, expected_side, found_side) {
            return Err(Error::in_file(
                path,
                Some(1),
                Some(&diff.name),
                format!(
                    "header drifted from the {expected_side} header: {}",
                    diff.message
                ),
            ));
        }
        BenchTable::parse(&text, path)
    }

    /// CSV text whose header is always the schema's frozen bytes.
    pub fn to_csv(&self) -> String {
        let mut out = self.schema.header();
        out.push('\n');
        let roles: Vec<&ColumnRole> = self.schema.columns.iter().map(|c| &c.role).collect();
        for row in &self.rows {
            let mut dims = row.dims.iter();
            for (i, role) in roles.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match role {
                    ColumnRole::Label => push_field(&mut out, &row.label),
                    ColumnRole::Dim => {
                        if let Some(d) = dims.next() {
                            out.push_str(&d.to_string());
                        }
                    }
                    ColumnRole::Check => out.push_str(row.check.as_str()),
                    _ => push_number(&mut out, row.values.get(i).copied().unwrap_or(f64::NAN)),
                }
            }
            out.push('\n');
        }
        out
    }

    /// Geometric mean of `metric` (derived metrics too) over the PASS rows; the aggregate
    /// every verdict, record and report uses.
    pub fn aggregate(&self, metric: &str) -> Option<f64> {
        let values: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.check == Check::Pass)
            .filter_map(|r| r.metric(&self.schema, metric))
            .collect();
        crate::stats::geomean(&values)
    }

    /// Linear search; index the rows once when looking up many shapes.
    pub fn find(&self, key: &ShapeKey) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.label == key.label && r.dims == key.dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_parse_as_str_parse_reads_digits() {
        for cell in [
            "0",
            "007",
            "64",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
            "",
            "+1",
            "-1",
            "1 ",
            "1e3",
            "٣",
        ] {
            let digits = !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_digit());
            match parse_dim(cell) {
                Ok(n) => assert_eq!(Some(n), cell.parse::<u64>().ok().filter(|_| digits)),
                Err(e) if digits && cell.parse::<u64>() == Ok(0) => {
                    assert!(e.contains("must be positive"), "{e}")
                }
                Err(e) if digits => {
                    assert!(
                        cell.parse::<u64>().is_err() && e.contains("does not fit"),
                        "{e}"
                    )
                }
                Err(e) => assert!(e.contains("is not an unsigned integer"), "{e}"),
            }
        }
    }

    /// Records are numbered by the file line they start on, blank lines and quoted line
    /// breaks counted.
    #[test]
    fn records_carry_their_file_lines() {
        let body = "\na,1\n\nb,2\r\n\"c\nd\",3\n\n\ne,4\n\u{feff}f,5";
        let mut seen = Vec::new();
        for_each_record(body, Path::new("x.csv"), |record, line| {
            seen.push((record.iter().collect::<Vec<_>>().join("|"), line));
            Ok(())
        })
        .unwrap();
        let expected = [
            ("a|1", 2),
            ("b|2", 4),
            ("c\nd|3", 5),
            ("e|4", 9),
            ("\u{feff}f|5", 10),
        ];
        let expected: Vec<(String, u64)> = expected
            .iter()
            .map(|(r, l)| ((*r).to_owned(), *l))
            .collect();
        assert_eq!(seen, expected);
    }
}
