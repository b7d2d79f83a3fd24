//! Rows, cells and whole benchmark CSVs: parsing (every refusal names file, line and
//! column), writing, lookups and the aggregate.

use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cells::{
    CellRule, MAX_RELATIVE_STDDEV, Scanned, cell_rule, holds, parse_cell, parse_dim,
    passes_unconverted, spread_within,
};
use super::columns::{ColumnRole, Schema, header_difference, infer_schema};
use super::masks::{RowMasks, scan_cell};
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

    /// Absolute stddev of a metric (derived metrics: see SPEC §7 rule 2).
    pub fn stddev(&self, schema: &Schema, name: &str) -> Option<f64> {
        schema.resolve_metric(name)?.stddev(self)
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

/// One shape's row, borrowed: from a [`Row`] or from a [`ColumnTable`]'s columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowRef<'t> {
    pub label: &'t str,
    pub dims: &'t [u64],
    pub check: Check,
    /// The numeric cells from schema column `first` on (a [`ColumnTable`] keeps no slots
    /// for the label, dims and Check columns before them).
    values: &'t [f64],
    first: usize,
}

impl<'t> From<&'t Row> for RowRef<'t> {
    fn from(row: &'t Row) -> RowRef<'t> {
        RowRef {
            label: &row.label,
            dims: &row.dims,
            check: row.check,
            values: &row.values,
            first: 0,
        }
    }
}

impl RowRef<'_> {
    /// The cell of schema column `column`: NaN for an empty cell (of a non-PASS row) and
    /// for non-numeric columns, None past the row.
    pub fn value(&self, column: usize) -> Option<f64> {
        match column.checked_sub(self.first) {
            Some(i) => self.values.get(i).copied(),
            None => Some(f64::NAN),
        }
    }
}

/// A benchmark table the gate can judge: its schema and its rows by position. Both
/// [`BenchTable`] (rows that own their cells) and [`ColumnTable`] (one buffer a column kind)
/// are one.
pub trait ShapeTable: Sync {
    fn schema(&self) -> &Schema;
    fn len(&self) -> usize;
    fn row(&self, i: usize) -> RowRef<'_>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// True when no two rows can share a label, known without looking at them; false when
    /// unknown (the gate then checks).
    fn labels_unique(&self) -> bool {
        false
    }
    /// Every row's shape at once, where the table holds them that way; None: ask row by
    /// row.
    fn shapes(&self) -> Option<Shapes<'_>> {
        None
    }
}

/// The shapes of a table's rows, in order, as a column-wise table holds them: two tables
/// whose `Shapes` are equal hold the same shapes in the same order (compared in bulk, a
/// 10,000-shape table is three slice comparisons, not 10,000 row lookups).
#[derive(Debug, PartialEq)]
pub struct Shapes<'a> {
    /// The labels' text, one after another.
    pub labels: &'a str,
    /// Where each row's label ends in `labels`.
    pub label_ends: &'a [u32],
    /// Each row's dims, row after row (every row has the schema's number of dims).
    pub dims: &'a [u64],
}

impl ShapeTable for BenchTable {
    fn schema(&self) -> &Schema {
        &self.schema
    }
    fn len(&self) -> usize {
        self.rows.len()
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        RowRef::from(&self.rows[i])
    }
}

/// Split CSV text into its header line (one trailing `\n` or `\r\n` removed) and the rest.
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
            (
                header.strip_suffix('\r').unwrap_or(header),
                &text[end + 1..],
            )
        }
        None => (text, ""),
    })
}

/// Read a CSV file as UTF-8: a missing file, a directory, a device, an oversized file or
/// an invalid byte (with its line) is bad input naming the path.
pub(super) fn read_text(path: &Path) -> Result<String> {
    crate::fsutil::read_input_text(path, crate::fsutil::MAX_INPUT_BYTES)
}

/// Iterate data records of a CSV body (header already removed) with their file line
/// numbers (the body starts on line 2). Blank lines are skipped. A body without quotes or
/// carriage returns is split on commas and newlines directly, which is exactly what the
/// CSV grammar means for such text and several times faster than the general reader used
/// for everything else (`record_paths_agree` holds the two to the same records).
pub(super) fn for_each_record(
    body: &str,
    origin: &Path,
    each: impl FnMut(&[&str], u64) -> Result<()>,
) -> Result<()> {
    if is_plain(body) {
        split_records(body, each)
    } else {
        read_records(body, origin, each)
    }
}

/// A body without quotes or carriage returns: its records are its lines, and their fields
/// are what lies between commas.
pub(super) fn is_plain(body: &str) -> bool {
    memchr::memchr2(b'"', b'\r', body.as_bytes()).is_none()
}

/// Records of a body without quotes or carriage returns: commas and newlines found with
/// SIMD byte searches, fields borrowed from `body`.
fn split_records(body: &str, mut each: impl FnMut(&[&str], u64) -> Result<()>) -> Result<()> {
    let mut fields: Vec<&str> = Vec::new();
    for_each_line(body, |line, at| {
        split_fields(line, &mut fields);
        each(&fields, at)
    })
}

/// The non-blank lines of a plain body with their file line numbers (the body starts on
/// line 2).
fn for_each_line<'b>(
    body: &'b str,
    mut each: impl FnMut(&'b str, u64) -> Result<()>,
) -> Result<()> {
    for (i, line) in body.split('\n').enumerate() {
        if !line.is_empty() {
            each(line, i as u64 + 2)?;
        }
    }
    Ok(())
}

/// The comma-separated fields of a line without quotes, into `fields` (cleared first).
fn split_fields<'l>(line: &'l str, fields: &mut Vec<&'l str>) {
    fields.clear();
    let mut start = 0;
    for at in memchr::memchr_iter(b',', line.as_bytes()) {
        fields.push(&line[start..at]);
        start = at + 1;
    }
    fields.push(&line[start..]);
}

/// A benchmark CSV read from its file in blocks of 64 KiB, each block's complete lines
/// parsed before the next is read, instead of the whole file held as one string first:
/// the same table, without a fresh buffer the size of the file (a page fault every 4 KiB of
/// it; a 10,000-shape CSV is 1.6 MB). It takes only the plain case, a regular file within
/// the size limit, valid UTF-8, no BOM, a body without quotes or carriage returns, every
/// record valid, and the header equal to `expected` when one is given; anything else
/// returns None, and the caller reads the file whole, which gives the table or the exact
/// error (a file's first problem is found in the same order as before).
fn read_in_blocks<S: RowSink>(path: &Path, expected: Option<&str>, sink: S) -> Option<(Schema, S)> {
    read_in_blocks_of(path, expected, 1 << 16, sink)
}

/// [`read_in_blocks`] with blocks of `block` bytes (the tests cut lines everywhere).
pub(super) fn read_in_blocks_of<S: RowSink>(
    path: &Path,
    expected: Option<&str>,
    block: usize,
    sink: S,
) -> Option<(Schema, S)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > crate::fsutil::MAX_INPUT_BYTES {
        return None;
    }
    let mut buf = vec![0u8; block.max(1)];
    // buf[..filled] holds what was read and not yet parsed: at most one unfinished line.
    let (mut filled, mut total) = (0usize, 0u64);
    let mut rows: Option<RowBuilder<S>> = None;
    let mut sink = Some(sink);
    // The file line of the next line of the body.
    let mut line = 2u64;
    loop {
        if filled == buf.len() {
            // A line longer than the buffer.
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match file.read(&mut buf[filled..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                read => break read.ok()?,
            }
        };
        total += n as u64;
        if total > crate::fsutil::MAX_INPUT_BYTES {
            return None;
        }
        filled += n;
        let eof = n == 0;
        // Complete lines only, until the end of the file.
        let end = match memchr::memrchr(b'\n', &buf[..filled]) {
            _ if eof => filled,
            Some(at) => at + 1,
            None => continue,
        };
        let text = std::str::from_utf8(&buf[..end]).ok()?;
        let body = match &mut rows {
            Some(_) => text,
            None => {
                let (header, body) = split_header(text).ok()?;
                if expected.is_some_and(|e| header_difference(e, header, "", "").is_some()) {
                    return None;
                }
                rows = Some(
                    RowBuilder::new(header, path, sink.take()?)
                        .ok()?
                        .expecting(meta.len() as usize),
                );
                body
            }
        };
        if !is_plain(body) {
            return None;
        }
        line += rows.as_mut()?.push_lines(body, line)?;
        if eof {
            return rows?.finish().ok();
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
    }
}

/// Records of any body, through the general CSV reader.
fn read_records(
    body: &str,
    origin: &Path,
    mut each: impl FnMut(&[&str], u64) -> Result<()>,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut record = csv::StringRecord::new();
    // Lines are counted from byte offsets: the reader's own line count skips blank lines.
    let (mut counted_to, mut line) = (0usize, 2u64);
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                let bytes = body.as_bytes();
                let mut start = record.position().map_or(counted_to, |p| p.byte() as usize);
                // The reported start includes the blank lines skipped before the record.
                while let Some(b'\n' | b'\r') = bytes.get(start) {
                    start += 1;
                }
                if let Some(skipped) = bytes.get(counted_to..start) {
                    line += skipped.iter().filter(|b| **b == b'\n').count() as u64;
                    counted_to = start;
                }
                let fields: Vec<&str> = record.iter().collect();
                each(&fields, line)?;
            }
            Err(e) => {
                let line = e.position().map(|p| p.line() + 1);
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
/// shapes under one name. Checked after parsing with borrowed keys, so the hot loop
/// allocates no extra label copies.
fn check_unique_shapes<S: RowSink>(
    rows: &S,
    lines: &[u64],
    schema: &Schema,
    origin: &Path,
) -> Result<()> {
    if distinct_hashes((0..rows.len()).map(|i| rows.label(i))) {
        return Ok(());
    }
    let mut seen: HashMap<&str, usize> =
        HashMap::with_capacity_and_hasher(rows.len(), Default::default());
    for i in 0..rows.len() {
        let label = rows.label(i);
        let Some(&first) = seen.get(label) else {
            seen.insert(label, i);
            continue;
        };
        let (dims, earlier) = (rows.dims(i), rows.dims(first));
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

/// Whether the keys' 64-bit hashes are all different, which proves the keys are: the quick
/// half of a uniqueness check (a set of 8-byte hashes is a third of the memory of a map of
/// borrowed keys, and fresh memory costs a page fault every 4 KiB). A collision proves
/// nothing; the caller then runs its exact check, which finds the duplicate or clears it.
pub(crate) fn distinct_hashes<K: std::hash::Hash>(keys: impl ExactSizeIterator<Item = K>) -> bool {
    use std::hash::BuildHasher;
    let build = rustc_hash::FxBuildHasher;
    let mut seen: rustc_hash::FxHashSet<u64> =
        rustc_hash::FxHashSet::with_capacity_and_hasher(keys.len(), Default::default());
    keys.into_iter().all(|k| seen.insert(build.hash_one(k)))
}

/// Where validated records go: rows that own their cells ([`BenchTable`]) or one table's
/// columns ([`ColumnTable`]). Both are filled by the same [`RowBuilder`], so they refuse
/// the same files with the same messages.
pub(super) trait RowSink: Default + Clone {
    /// The schema of the rows to come, once its header is read.
    fn start(&mut self, _schema: &Schema) {}
    /// Whether the numeric cells of `column` are kept (converted); the others are only
    /// checked, and their place in `push`'s values is NaN.
    fn keeps(&self, _column: usize) -> bool {
        true
    }
    /// Room for about `rows` more rows (address space: nothing is touched until written).
    fn reserve(&mut self, rows: usize, width: usize, dims: usize);
    fn push(&mut self, label: &str, dims: &[u64], check: Check, values: &[f64]);
    /// `other`'s rows after this one's, as if pushed here in order.
    fn append(&mut self, other: Self);
    fn len(&self) -> usize;
    fn label(&self, i: usize) -> &str;
    fn dims(&self, i: usize) -> &[u64];
}

impl RowSink for Vec<Row> {
    fn reserve(&mut self, rows: usize, _: usize, _: usize) {
        Vec::reserve(self, rows);
    }
    fn push(&mut self, label: &str, dims: &[u64], check: Check, values: &[f64]) {
        Vec::push(
            self,
            Row {
                label: label.to_owned(),
                dims: dims.to_vec(),
                check,
                values: values.to_vec(),
            },
        );
    }
    fn append(&mut self, mut other: Self) {
        Vec::append(self, &mut other);
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn label(&self, i: usize) -> &str {
        &self[i].label
    }
    fn dims(&self, i: usize) -> &[u64] {
        &self[i].dims
    }
}

/// Turns the records of one CSV into rows: the schema inferred from its header, each
/// cell's rule, and the rows so far. `BenchTable::parse` feeds it a whole text, the block
/// reader a file piece by piece; both refuse the same things with the same messages.
#[derive(Clone)]
pub(super) struct RowBuilder<'p, S> {
    origin: &'p Path,
    schema: Schema,
    check_at: usize,
    rules: Vec<Option<CellRule>>,
    /// Per column: whether the sink keeps its cells (else they are scanned, not converted).
    kept: Vec<bool>,
    /// (stddev column, its metric column): a PASS row's spread is bounded by its mean.
    spreads: Vec<(usize, usize)>,
    rows: S,
    lines: Vec<u64>,
    /// The record being validated, reused from record to record.
    dims: Vec<u64>,
    values: Vec<f64>,
    /// The scans of the record's unkept cells that were not converted.
    scans: Vec<Option<Scanned>>,
    /// Where the record being read has digits and commas.
    masks: RowMasks,
    /// Bytes of body still to size the vectors for (0 once they are).
    expected_bytes: usize,
}

impl<'p, S: RowSink> RowBuilder<'p, S> {
    pub(super) fn new(header: &str, origin: &'p Path, mut rows: S) -> Result<RowBuilder<'p, S>> {
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
        rows.start(&schema);
        let kept = (0..schema.columns.len()).map(|i| rows.keeps(i)).collect();
        Ok(RowBuilder {
            origin,
            schema,
            check_at,
            rules,
            kept,
            spreads,
            rows,
            lines: Vec::new(),
            dims: Vec::new(),
            values: Vec::new(),
            scans: Vec::new(),
            masks: RowMasks::default(),
            expected_bytes: 0,
        })
    }

    /// Expect a body of `bytes` bytes: the first record's length then tells how many rows
    /// to make room for. Growing the vectors instead copies them and touches fresh pages
    /// each time; a generous guess costs as much (an allocator may commit what it reserves).
    pub(super) fn expecting(mut self, bytes: usize) -> Self {
        self.expected_bytes = bytes;
        self
    }

    /// Room for the rows of the expected body, from the length of its first record's line
    /// (its newline included).
    fn reserve_like(&mut self, line: usize) {
        let line = line.max(1);
        // A quarter more than the first line predicts: later labels and numbers may be longer.
        let rows = self.expected_bytes / line + self.expected_bytes / line / 4 + 1;
        let width = self.schema.columns.len();
        self.rows
            .reserve(rows, width, self.check_at.saturating_sub(1));
        self.lines.reserve(rows);
        self.expected_bytes = 0;
    }

    /// Every record of a plain body (no quotes or carriage returns) whose first line is file
    /// line `first_line`; returns how many lines it has, blank ones too, or None at the first
    /// record refused. As `split_records` counts: every '\n' ends a line, blank lines are
    /// skipped.
    pub(super) fn push_lines(&mut self, body: &str, first_line: u64) -> Option<u64> {
        let mut fields: Vec<&str> = Vec::new();
        let mut lines = 0u64;
        let mut rest = body;
        while !rest.is_empty() {
            let (record, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(at) => (&rest[..at], &rest[at + 1..]),
                None => (rest, ""),
            };
            if !record.is_empty() {
                self.push_line(record, &mut fields, first_line + lines)
                    .ok()?;
            }
            lines += 1;
            rest = next;
        }
        Some(lines)
    }

    /// One record of a plain body (no quotes or carriage returns), found on file line
    /// `line`: read in one pass when it is a valid row of the usual form
    /// ([`Self::read_plain`]), else split into `fields` and read as [`Self::push`] reads it,
    /// errors included.
    fn push_line<'l>(
        &mut self,
        record: &'l str,
        fields: &mut Vec<&'l str>,
        line: u64,
    ) -> Result<()> {
        if self.read_plain(record, line) {
            return Ok(());
        }
        split_fields(record, fields);
        self.push(fields, line)
    }

    /// A valid record of the usual form, read in one pass: split at the commas its masks
    /// give ([`RowMasks`]), a label, digits for the dims, a Check, then numbers in decimal
    /// notation, the kept ones converted and the others scanned from the masks
    /// ([`scan_cell`]). Returns false, having added no row, for anything else: another form,
    /// a field too many or too few, an edge a scan cannot settle, an error. [`Self::push`]
    /// then reads the record, and refuses it with the exact message or takes it as this
    /// would have.
    fn read_plain(&mut self, record: &str, line: u64) -> bool {
        if self.expected_bytes > 0 {
            self.reserve_like(record.len() + 1);
        }
        let bytes = record.as_bytes();
        let width = self.schema.columns.len();
        self.masks.classify(bytes);
        let masks = &self.masks;
        if masks.commas() + 1 != width {
            return false;
        }
        // Each field ends at the next comma, the last at the end of the record.
        let mut commas = masks.comma_positions();
        let mut next_end = || commas.next().unwrap_or(bytes.len());
        let label_end = next_end();
        let label = &record[..label_end];
        if validate_label(label).is_err() {
            return false;
        }
        let mut at = label_end + 1;
        self.dims.clear();
        for _ in 1..self.check_at {
            let end = next_end();
            // Nineteen digits always fit in 64 bits; a longer dim is left to `parse_dim`.
            if end == at || end - at > 19 || masks.digits_end(at) != end {
                return false;
            }
            let dim = bytes[at..end]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            self.dims.push(dim);
            at = end + 1;
        }
        let check_end = next_end();
        let Some(check) = Check::parse(&record[at..check_end]) else {
            return false;
        };
        at = check_end + 1;
        let pass = check == Check::Pass;
        let (values, scans) = (&mut self.values, &mut self.scans);
        // Sized once, not emptied per record: a record read here writes every cell it has
        // (the kept ones' values, the others' scans), and the spreads below tell a kept
        // cell from a scanned one by its scan alone.
        if values.len() != width || scans.len() != width {
            reset_cells(values, scans, width);
        }
        for i in self.check_at + 1..width {
            let (Some(rule), end) = (self.rules[i], next_end()) else {
                return false;
            };
            if self.kept[i] {
                match parse_cell(&record[at..end], rule, pass) {
                    Ok(value) => values[i] = value,
                    Err(_) => return false,
                }
            } else {
                match scan_cell(bytes, masks, at, end) {
                    Some(scanned) if holds(scanned, rule, pass) => scans[i] = Some(scanned),
                    _ => return false,
                }
            }
            at = end + 1;
        }
        if pass {
            for &(sd, of) in &self.spreads {
                let within = match (scans[sd], scans[of]) {
                    (Some(s), Some(m)) => spread_within(s, m),
                    (None, None) => values[sd] <= MAX_RELATIVE_STDDEV * values[of],
                    _ => false,
                };
                if !within {
                    return false;
                }
            }
        }
        self.lines.push(line);
        self.rows.push(label, &self.dims, check, &self.values);
        true
    }

    /// One record, found on file line `line`.
    fn push(&mut self, record: &[&str], line: u64) -> Result<()> {
        if self.expected_bytes > 0 {
            self.reserve_like(record.iter().map(|f| f.len() + 1).sum());
        }
        let (origin, schema, check_at) = (self.origin, &self.schema, self.check_at);
        let width = schema.columns.len();
        let bad = |column: &str, msg: String| Error::in_file(origin, Some(line), Some(column), msg);
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
        let label = record[0];
        validate_label(label).map_err(|m| bad("label", m))?;
        // Past the label, an error names the shape too: a line number alone is hard to
        // find in a 10,000-row file.
        let bad = |column: &str, msg: String| bad(column, format!("shape '{label}': {msg}"));
        self.dims.clear();
        for (cell, column) in record[1..check_at].iter().zip(&schema.columns[1..]) {
            let d = parse_dim(cell).map_err(|m| bad(&column.name, m))?;
            self.dims.push(d);
        }
        let check = Check::parse(record[check_at]).ok_or_else(|| {
            bad(
                "Check",
                format!(
                    "Check must be PASS, FAIL, ERROR or TIMEOUT_FAIL, found '{}'",
                    crate::text::quote(record[check_at], crate::text::QUOTE_CHARS)
                ),
            )
        })?;
        let pass = check == Check::Pass;
        let (values, scans, masks) = (&mut self.values, &mut self.scans, &mut self.masks);
        reset_cells(values, scans, width);
        let exact = |i: usize, rule: CellRule| {
            parse_cell(record[i], rule, pass)
                .map_err(|m| bad(&schema.columns[i].name, format!("column {}: {m}", i + 1)))
        };
        for (i, rule) in self.rules.iter().enumerate() {
            let Some(rule) = *rule else { continue };
            // Most of a gate's cells: checked by their digits alone, several times faster.
            if !self.kept[i] {
                scans[i] = passes_unconverted(record[i], rule, pass, masks);
                if scans[i].is_some() {
                    continue;
                }
            }
            values[i] = exact(i, rule)?;
        }
        if pass {
            for &(sd, of) in &self.spreads {
                if let (Some(s), Some(m)) = (scans[sd], scans[of])
                    && spread_within(s, m)
                {
                    continue;
                }
                // A scanned cell passed its rule, so its exact value is a number.
                for i in [sd, of] {
                    if let (Some(_), Some(rule)) = (scans[i], self.rules[i]) {
                        values[i] = exact(i, rule)?;
                    }
                }
                if values[sd] > MAX_RELATIVE_STDDEV * values[of] {
                    return Err(bad(
                        &schema.columns[sd].name,
                        format!(
                            "column {}: stddev {} is more than {MAX_RELATIVE_STDDEV} times the mean {} of '{}': no set of repeats of non-negative rates spreads that far",
                            sd + 1,
                            crate::text::quote(record[sd], crate::text::QUOTE_CHARS),
                            crate::text::quote(record[of], crate::text::QUOTE_CHARS),
                            schema.columns[of].name
                        ),
                    ));
                }
            }
        }
        self.lines.push(line);
        self.rows.push(label, &self.dims, check, values);
        Ok(())
    }

    /// `other`'s rows after these, its lines (numbered from 0) moved to start at file line
    /// `first_line`.
    pub(super) fn append(&mut self, other: RowBuilder<'p, S>, first_line: u64) {
        self.lines
            .extend(other.lines.iter().map(|line| line + first_line));
        self.rows.append(other.rows);
    }

    /// The file line of each row so far.
    #[cfg(test)]
    pub(super) fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// The rows, once every record is in: at least one, no shape twice.
    pub(super) fn finish(self) -> Result<(Schema, S)> {
        if self.rows.len() == 0 {
            return Err(Error::in_file(
                self.origin,
                None,
                None,
                "no data rows: the CSV has only a header",
            ));
        }
        check_unique_shapes(&self.rows, &self.lines, &self.schema, self.origin)?;
        Ok((self.schema, self.rows))
    }
}

/// A record's numbers (NaN where a cell is empty or not converted) and the scans of the
/// cells that were only scanned, emptied for the next record of `width` cells.
fn reset_cells(values: &mut Vec<f64>, scans: &mut Vec<Option<Scanned>>, width: usize) {
    values.clear();
    values.resize(width, f64::NAN);
    scans.clear();
    scans.resize(width, None);
}

/// The rows of CSV text; `origin` names the file in errors.
fn parse_text<S: RowSink>(text: &str, origin: &Path, sink: S) -> Result<(Schema, S)> {
    let (header, body) = split_header(text).map_err(|m| Error::in_file(origin, None, None, m))?;
    let mut rows = RowBuilder::new(header, origin, sink)?.expecting(body.len());
    if is_plain(body) {
        let mut fields = Vec::new();
        for_each_line(body, |record, line| {
            rows.push_line(record, &mut fields, line)
        })?;
    } else {
        read_records(body, origin, |record, line| rows.push(record, line))?;
    }
    rows.finish()
}

/// The rows of a CSV file whose header must equal `expected` byte for byte when one is
/// given (`(header, expected side, found side)`: the message names the two sides), checked
/// before the header is interpreted.
fn read_rows<S: RowSink>(
    path: &Path,
    expected: Option<(&str, &str, &str)>,
    sink: S,
) -> Result<(Schema, S)> {
    if let Some(rows) = read_in_blocks(path, expected.map(|e| e.0), sink.clone()) {
        return Ok(rows);
    }
    let text = read_text(path)?;
    if let Some((expected, expected_side, found_side)) = expected {
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
    }
    parse_text(&text, path, sink)
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
        let (schema, rows) = parse_text(text, origin, Vec::new())?;
        Ok(BenchTable { schema, rows })
    }

    pub fn read(path: &Path) -> Result<BenchTable> {
        let (schema, rows) = read_rows(path, None, Vec::new())?;
        Ok(BenchTable { schema, rows })
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
        let (schema, rows) = read_rows(
            path,
            Some((expected, expected_side, found_side)),
            Vec::new(),
        )?;
        Ok(BenchTable { schema, rows })
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

    /// Linear search; index the rows once when looking up many shapes.
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

    pub fn find(&self, key: &ShapeKey) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.label == key.label && r.dims == key.dims)
    }
}

/// A benchmark CSV held column-wise: all labels in one buffer, all dimensions in another,
/// all numeric cells in a third, instead of three heap blocks a row. What `kcamp gate`
/// reads two 10,000-shape files into: the same validation as [`BenchTable`] (one
/// `RowBuilder` fills both), a few allocations instead of 60,000, and a third less memory
/// to fault in.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnTable {
    pub schema: Schema,
    cells: Columns,
}

/// The columns of a [`ColumnTable`]: row `i`'s label is `labels[label_ends[i-1]..label_ends[i]]`,
/// its dims `dims[i * n_dims..]` and its numeric cells (schema columns `first..`)
/// `values[i * width..]`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Columns {
    labels: String,
    label_ends: Vec<u32>,
    dims: Vec<u64>,
    n_dims: usize,
    checks: Vec<Check>,
    values: Vec<f64>,
    first: usize,
    width: usize,
    /// Which numeric cells to keep (see [`ColumnTable::read_metric`]).
    keep: Keep,
    /// The schema columns kept, when only a metric's are.
    kept: Option<std::ops::Range<usize>>,
}

/// The numeric cells a [`ColumnTable`] keeps; every cell is checked whichever it is.
#[derive(Debug, Clone, Default, PartialEq)]
enum Keep {
    #[default]
    All,
    /// The cells this metric is computed from.
    Metric(String),
    /// The cells of the header's first metric.
    FirstMetric,
}

impl RowSink for Columns {
    fn keeps(&self, column: usize) -> bool {
        self.kept.as_ref().is_none_or(|kept| kept.contains(&column))
    }
    fn start(&mut self, schema: &Schema) {
        let name = match &self.keep {
            Keep::All => return,
            Keep::Metric(name) => Some(name.as_str()),
            Keep::FirstMetric => schema.metric_names().first().copied(),
        };
        self.kept = name
            .and_then(|n| schema.resolve_metric(n))
            .map(|m| m.columns());
    }
    fn reserve(&mut self, rows: usize, width: usize, dims: usize) {
        self.label_ends.reserve(rows);
        self.checks.reserve(rows);
        self.dims.reserve(rows * dims);
        // The label, dims and Check columns hold no numbers.
        let numeric = match &self.kept {
            Some(kept) => kept.len(),
            None => width.saturating_sub(dims + 2),
        };
        self.values.reserve(rows * numeric);
    }
    fn push(&mut self, label: &str, dims: &[u64], check: Check, values: &[f64]) {
        // Every row of one CSV has the header's number of dims and cells; the numeric cells
        // follow the label, the dims and Check.
        self.n_dims = dims.len();
        let kept = self.kept.clone().unwrap_or(dims.len() + 2..values.len());
        self.first = kept.start;
        let numeric = values.get(kept).unwrap_or_default();
        self.width = numeric.len();
        self.labels.push_str(label);
        // Labels are short and a CSV is at most MAX_INPUT_BYTES: u32 offsets hold them.
        self.label_ends.push(self.labels.len() as u32);
        self.dims.extend_from_slice(dims);
        self.checks.push(check);
        self.values.extend_from_slice(numeric);
    }
    fn append(&mut self, other: Self) {
        if other.checks.is_empty() {
            return;
        }
        if self.checks.is_empty() {
            // The layout `push` sets from a CSV's first row.
            (self.n_dims, self.first, self.width) = (other.n_dims, other.first, other.width);
        }
        let base = self.labels.len() as u32;
        self.labels.push_str(&other.labels);
        self.label_ends
            .extend(other.label_ends.iter().map(|end| end + base));
        self.dims.extend_from_slice(&other.dims);
        self.checks.extend_from_slice(&other.checks);
        self.values.extend_from_slice(&other.values);
    }
    fn len(&self) -> usize {
        self.checks.len()
    }
    fn label(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.label_ends[i - 1] as usize
        };
        &self.labels[start..self.label_ends[i] as usize]
    }
    fn dims(&self, i: usize) -> &[u64] {
        &self.dims[i * self.n_dims..(i + 1) * self.n_dims]
    }
}

impl ShapeTable for ColumnTable {
    fn schema(&self) -> &Schema {
        &self.schema
    }
    /// Only a read CSV makes one, and reading refuses a label seen twice.
    fn labels_unique(&self) -> bool {
        true
    }
    fn shapes(&self) -> Option<Shapes<'_>> {
        let c = &self.cells;
        Some(Shapes {
            labels: &c.labels,
            label_ends: &c.label_ends,
            dims: &c.dims,
        })
    }
    fn len(&self) -> usize {
        self.cells.len()
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        let c = &self.cells;
        RowRef {
            label: c.label(i),
            dims: c.dims(i),
            check: c.checks[i],
            values: &c.values[i * c.width..(i + 1) * c.width],
            first: c.first,
        }
    }
}

impl ColumnTable {
    /// [`BenchTable::read`], column-wise.
    pub fn read(path: &Path) -> Result<ColumnTable> {
        let (schema, cells) = read_rows(path, None, Columns::default())?;
        Ok(ColumnTable { schema, cells })
    }

    /// [`ColumnTable::read`], keeping only the cells `metric` is computed from (the
    /// header's first metric when None; every cell when it names none): every cell is still
    /// read and checked, but a gate of one metric holds a few numbers a row instead of all.
    /// Other numeric columns read as NaN (before the kept span) or None (after it).
    pub fn read_metric(path: &Path, metric: Option<&str>) -> Result<ColumnTable> {
        let sink = Columns {
            keep: metric.map_or(Keep::FirstMetric, |m| Keep::Metric(m.to_owned())),
            ..Columns::default()
        };
        let (schema, cells) = read_rows(path, None, sink)?;
        Ok(ColumnTable { schema, cells })
    }

    /// Two files read as [`Self::read_metric`] reads each, by this thread and one more that
    /// share the work (in chunks that either thread takes): the same tables and the same errors.
    pub fn read_metric_pair(
        a: &Path,
        b: &Path,
        metric: Option<&str>,
    ) -> (Result<ColumnTable>, Result<ColumnTable>) {
        let sink = || Columns {
            keep: metric.map_or(Keep::FirstMetric, |m| Keep::Metric(m.to_owned())),
            ..Columns::default()
        };
        let [first, second] =
            super::chunks::read_pair([a, b], [sink(), sink()], super::chunks::CHUNK);
        let table = |(schema, cells)| ColumnTable { schema, cells };
        // A file the one-pass reader does not take is read as read_metric reads it, which
        // finds the exact error; two such files side by side.
        match (first, second) {
            (Some(a), Some(b)) => (Ok(table(a)), Ok(table(b))),
            (Some(first), None) => (Ok(table(first)), Self::read_metric(b, metric)),
            (None, Some(second)) => (Self::read_metric(a, metric), Ok(table(second))),
            (None, None) => crate::par::join(
                || Self::read_metric(a, metric),
                || Self::read_metric(b, metric),
            ),
        }
    }

    /// [`BenchTable::read_with_header`], column-wise.
    pub fn read_with_header(
        path: &Path,
        expected: &str,
        expected_side: &str,
        found_side: &str,
    ) -> Result<ColumnTable> {
        let (schema, cells) = read_rows(
            path,
            Some((expected, expected_side, found_side)),
            Columns::default(),
        )?;
        Ok(ColumnTable { schema, cells })
    }

    /// [`BenchTable::parse`], column-wise.
    pub fn parse(text: &str, origin: &Path) -> Result<ColumnTable> {
        let (schema, cells) = parse_text(text, origin, Columns::default())?;
        Ok(ColumnTable { schema, cells })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;

    fn collect(
        run: impl FnOnce(&mut dyn FnMut(&[&str], u64) -> Result<()>) -> Result<()>,
    ) -> Vec<(Vec<String>, u64)> {
        let mut out = Vec::new();
        run(&mut |fields, line| {
            out.push((fields.iter().map(|f| (*f).to_owned()).collect(), line));
            Ok(())
        })
        .unwrap();
        out
    }

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

    /// A GEMM CSV whose rows are chosen by `picks`: good rows, blank lines, and a few kinds
    /// of trouble (a bad cell, a duplicated shape, quotes, a carriage return).
    pub(crate) fn csv_of(picks: &[u8], trailing_newline: bool) -> String {
        let mut text = format!("{}\n", crate::schema::GEMM_HEADER);
        for (i, pick) in picks.iter().enumerate() {
            let good = format!(
                "s{i},1,64,{},64,PASS,{}.5,0.25,3e1,0,1.5,2.25,120.5,inf,118.25",
                64 + i,
                i + 1
            );
            text.push_str(&match pick % 64 {
                0 => String::new(),
                1 => format!("s{i},1,64,64,64,FAIL,,,,,,,,,"),
                2 if i > 0 => "s0,1,64,64,64,PASS,1,0,1,0,1,1,1,1,1".to_owned(),
                3 => format!("s{i},1,64,64,64,PASS,x,0,1,0,1,1,1,1,1"),
                4 => format!("\"s{i}\",1,64,64,64,PASS,1,0,1,0,1,1,1,1,1"),
                5 => format!("{good}\r"),
                6 => format!("s{i},1,µ,64,64,PASS,1,0,1,0,1,1,1,1,1"),
                _ => good,
            });
            text.push('\n');
        }
        if !trailing_newline {
            text.pop();
        }
        text
    }

    proptest! {
        /// Read in blocks of any size, a file gives the table `parse` gives, or nothing (the
        /// caller then parses the whole text); a plain valid file always gives its table.
        #[test]
        fn block_reads_agree_with_parse(
            picks in prop::collection::vec(any::<u8>(), 0..40),
            trailing_newline: bool,
            block in 1usize..200,
        ) {
            let text = csv_of(&picks, trailing_newline);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("benchmark.csv");
            std::fs::write(&path, &text).unwrap();
            let parsed = BenchTable::parse(&text, &path);
            // Valid, and read by the direct split: what the block reader must take.
            let plain = parsed.is_ok() && !text.contains(['"', '\r']);
            for (expected, matches) in [
                (None, true),
                (Some(crate::schema::GEMM_HEADER), true),
                (Some("label,N,Check"), false),
            ] {
                match read_in_blocks_of(&path, expected, block, Vec::<Row>::new()) {
                    Some((schema, rows)) => {
                        prop_assert!(matches, "read in blocks against another header");
                        prop_assert_eq!(parsed.as_ref().ok(), Some(&BenchTable { schema, rows }));
                    }
                    None => prop_assert!(!(plain && matches), "a plain file was not read in blocks"),
                }
                // Column-wise, the same rows from the same reads.
                let columns = read_in_blocks_of(&path, expected, block, Columns::default());
                prop_assert_eq!(columns.is_some(), plain && matches);
                if let (Some((schema, cells)), Ok(table)) = (columns, &parsed) {
                    prop_assert_eq!(&same_rows(table, &ColumnTable { schema, cells }), &Ok(()));
                }
            }
        }

        /// A whole text parsed column-wise gives the rows, or the error, of `BenchTable`.
        #[test]
        fn column_tables_hold_the_rows_of_bench_tables(
            picks in prop::collection::vec(any::<u8>(), 0..40),
            trailing_newline: bool,
        ) {
            let text = csv_of(&picks, trailing_newline);
            let origin = Path::new("benchmark.csv");
            match (BenchTable::parse(&text, origin), ColumnTable::parse(&text, origin)) {
                (Ok(rows), Ok(columns)) => prop_assert_eq!(same_rows(&rows, &columns), Ok(())),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "{:?} against {:?}", a.map(|_| ()), b.map(|_| ())),
            }
        }
    }

    /// Whether two tables hold the same rows (NaN cells equal), else the first difference.
    pub(crate) fn same_rows(
        a: &dyn ShapeTable,
        b: &dyn ShapeTable,
    ) -> std::result::Result<(), String> {
        if a.schema() != b.schema() || a.len() != b.len() {
            return Err(format!("{} rows against {}", a.len(), b.len()));
        }
        for i in 0..a.len() {
            let (x, y) = (a.row(i), b.row(i));
            let cells = (0..a.schema().columns.len()).all(|c| {
                let (p, q) = (x.value(c), y.value(c));
                p == q || p.zip(q).is_some_and(|(p, q)| p.is_nan() && q.is_nan())
            });
            if x.label != y.label || x.dims != y.dims || x.check != y.check || !cells {
                return Err(format!("row {i}: {x:?} against {y:?}"));
            }
        }
        Ok(())
    }

    #[test]
    fn block_reads_take_a_long_line_and_refuse_a_bom() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("benchmark.csv");
        let long = "x".repeat(100);
        let text = format!(
            "{}\n{long},1,1,1,1,PASS,1,0,1,0,1,1,1,1,1\n",
            crate::schema::GEMM_HEADER
        );
        std::fs::write(&path, &text).unwrap();
        let (schema, rows) = read_in_blocks_of(&path, None, 8, Vec::<Row>::new()).unwrap();
        assert_eq!(
            BenchTable { schema, rows },
            BenchTable::parse(&text, &path).unwrap()
        );
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
        assert!(read_in_blocks_of(&path, None, 8, Vec::<Row>::new()).is_none());
        assert!(read_in_blocks_of(dir.path(), None, 8, Columns::default()).is_none());
    }

    /// Tables' shapes compared in bulk agree with their rows compared one by one: a label
    /// cut elsewhere, a dim changed, rows swapped or missing all differ.
    #[test]
    fn shapes_compared_in_bulk_are_equal_when_every_row_is() {
        let dir = tempfile::tempdir().unwrap();
        let read = |name: &str, rows: &[&str]| {
            let path = dir.path().join(name);
            let cells = ",PASS,7.5,0.2,40.25,1.5,0.07,0.02,120.5,inf,118";
            let mut text = format!("{}\n", crate::schema::GEMM_HEADER);
            for row in rows {
                text.push_str(&format!("{row}{cells}\n"));
            }
            std::fs::write(&path, text).unwrap();
            ColumnTable::read_metric(&path, Some("Forward TFLOPS")).unwrap()
        };
        let base = read("base.csv", &["ab,1,2,3,4", "c,1,2,3,5"]);
        let row_by_row = |a: &ColumnTable, b: &ColumnTable| {
            a.len() == b.len()
                && (0..a.len()).all(|i| {
                    let (x, y) = (a.row(i), b.row(i));
                    x.label == y.label && x.dims == y.dims
                })
        };
        let cases: [(&str, &[&str], bool); 5] = [
            ("same.csv", &["ab,1,2,3,4", "c,1,2,3,5"], true),
            ("cut.csv", &["a,1,2,3,4", "bc,1,2,3,5"], false),
            ("dim.csv", &["ab,1,2,3,4", "c,1,2,3,6"], false),
            ("swapped.csv", &["c,1,2,3,5", "ab,1,2,3,4"], false),
            ("fewer.csv", &["ab,1,2,3,4"], false),
        ];
        for (name, rows, same) in cases {
            let other = read(name, rows);
            assert_eq!(row_by_row(&base, &other), same, "{name}");
            assert_eq!(base.shapes() == other.shapes(), same, "{name}");
        }
        // A row-wise table is compared row by row.
        let text = format!(
            "{}\nab,1,2,3,4,PASS,1,0,1,0,1,1,1,1,1\n",
            crate::schema::GEMM_HEADER
        );
        let bench = BenchTable::parse(&text, Path::new("x.csv")).unwrap();
        assert_eq!(bench.shapes(), None);
    }

    #[test]
    fn a_table_of_one_metric_keeps_its_cells_and_checks_every_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("benchmark.csv");
        let rows = [
            "a,1,64,64,64,PASS,7.5,0.2,40.25,1.5,0.07,0.02,120.5,inf,118",
            "b,2,128,64,32,PASS,3.25,0.1,9.5,0.25,0.5,1.25,99,98,97",
            "c,1,32,32,32,FAIL,,,,,,,,,",
        ];
        std::fs::write(
            &path,
            format!("{}\n{}\n", crate::schema::GEMM_HEADER, rows.join("\n")),
        )
        .unwrap();
        let whole = ColumnTable::read(&path).unwrap();
        for (metric, kept) in [
            (Some("Forward TFLOPS"), 2),
            (Some("Backward TFLOPS"), 2),
            (None, 2),
            (Some("Combined Step TFLOPS"), 6),
        ] {
            let one = ColumnTable::read_metric(&path, metric).unwrap();
            assert_eq!(one.cells.width, kept, "{metric:?}");
            let name = metric.unwrap_or("Forward TFLOPS");
            let m = whole.schema.resolve_metric(name).unwrap();
            for i in 0..whole.len() {
                let (a, b) = (whole.row(i), one.row(i));
                assert_eq!((a.label, a.dims, a.check), (b.label, b.dims, b.check));
                for (x, y) in [(m.value(a), m.value(b)), (m.stddev(a), m.stddev(b))] {
                    assert_eq!(x.map(f64::to_bits), y.map(f64::to_bits), "{name} row {i}");
                }
            }
        }
        // A name the header lacks keeps every cell (the gate then says what is wrong).
        let all = ColumnTable::read_metric(&path, Some("nope")).unwrap();
        assert_eq!(all.cells.width, 9);
        // A cell the metric does not use is still checked.
        std::fs::write(
            &path,
            format!(
                "{}\n{}\n",
                crate::schema::GEMM_HEADER,
                rows[0].replace(",0.07,", ",-0.07,")
            ),
        )
        .unwrap();
        let err = ColumnTable::read_metric(&path, Some("Forward TFLOPS")).unwrap_err();
        assert!(err.to_string().contains("Forward Time (ms)"), "{err}");
    }

    /// A table that keeps one metric's cells scans the others instead of converting them:
    /// it refuses the same files as a table that keeps every cell, with the same message.
    #[test]
    fn scanned_cells_are_refused_as_converted_ones_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("benchmark.csv");
        let good = "a,1,64,64,64,PASS,7.5,0.2,40.25,1.5,0.07,0.02,120.5,inf,118";
        // Each cell after Forward TFLOPS and its stddev, made bad or put at an edge.
        let cases = [
            (8, "100000.5"),
            (8, "99999"),
            (8, "0"),
            (8, "-4"),
            (8, "inf"),
            (8, "nan"),
            (8, ""),
            (8, "4e1"),
            (9, "4025.5"),
            (9, "4024.9"),
            (9, "1e301"),
            (9, "-0.0"),
            (10, "-1e-3"),
            (10, "infinity"),
            (11, "0x10"),
            (12, "-inf"),
            (12, "-12.5"),
            (13, "NaN"),
            (14, "1e-400"),
        ];
        for (column, cell) in cases {
            let mut fields: Vec<&str> = good.split(',').collect();
            fields[column] = cell;
            let text = format!("{}\n{}\n", crate::schema::GEMM_HEADER, fields.join(","));
            std::fs::write(&path, &text).unwrap();
            let every = ColumnTable::read(&path)
                .map(|t| t.len())
                .map_err(|e| e.to_string());
            let one = ColumnTable::read_metric(&path, Some("Forward TFLOPS"))
                .map(|t| t.len())
                .map_err(|e| e.to_string());
            assert_eq!(one, every, "column {column} = {cell:?}");
        }
        // Some of those are refusals, and some pass.
        let refused = |cell: &str| {
            let text = format!(
                "{}\n{}\n",
                crate::schema::GEMM_HEADER,
                good.replace("40.25", cell)
            );
            std::fs::write(&path, text).unwrap();
            ColumnTable::read_metric(&path, Some("Forward TFLOPS")).is_err()
        };
        assert!(refused("100000.5") && refused("-4") && refused("0"));
        assert!(!refused("99999") && !refused("4e1"));
    }

    /// A row as a builder took it: label, dims, Check, the kept numbers (as bits, so that
    /// NaN equals NaN) and the line it came from.
    type Taken = (String, Vec<u64>, Check, Vec<u64>, u64);

    /// What a builder has taken.
    fn taken(rows: &RowBuilder<'_, Columns>) -> Vec<Taken> {
        let c = &rows.rows;
        (0..c.len())
            .map(|i| {
                let values = &c.values[i * c.width..(i + 1) * c.width];
                (
                    c.label(i).to_owned(),
                    c.dims(i).to_vec(),
                    c.checks[i],
                    values.iter().map(|v| v.to_bits()).collect(),
                    rows.lines[i],
                )
            })
            .collect()
    }

    #[test]
    fn the_usual_record_is_read_in_one_pass_and_anything_else_is_not() {
        let sink = Columns {
            keep: Keep::Metric("Forward TFLOPS".to_owned()),
            ..Columns::default()
        };
        let mut rows =
            RowBuilder::new(crate::schema::GEMM_HEADER, Path::new("b.csv"), sink).unwrap();
        let usual = "s0,1,64,64,64,PASS,7.15,0.2,40.25,1.5,1.048576e-05,0.02,120.5,inf,118.25";
        assert!(rows.read_plain(usual, 2));
        for other in [
            "s1,1,64,64,64,FAIL,,,,,,,,,",
            "s1,1,64,64,64,PASS,7.15,0.2,40.25,1.5,0.07,0.02,120.5,Infinity,118.25",
            "s1,1,64,64,64,PASS,7.15,0.2,40.25,1.5,0.07,0.02,120.5,inf,118.25,",
            "s1,1,64,64,PASS,7.15,0.2,40.25,1.5,0.07,0.02,120.5,inf,118.25",
            "s1,1,64,64,64,PASS,7.15,0.2,40.25,4025.5,0.07,0.02,120.5,inf,118.25",
            "s1,1,64,64,64,PASS,7.15,0.2,40.25,1.5,-0.07,0.02,120.5,inf,118.25",
            "s/1,1,64,64,64,PASS,7.15,0.2,40.25,1.5,0.07,0.02,120.5,inf,118.25",
        ] {
            assert!(!rows.read_plain(other, 3), "{other}");
        }
        assert_eq!(rows.rows.len(), 1);
    }

    /// Records of sixteen bytes or fewer (the masks are made sixteen bytes at a time) and
    /// longer than one 64-byte word of them: read as their split fields are read, in one
    /// pass where they are of the usual form.
    #[test]
    fn short_and_long_records_are_read_as_split_fields_are() {
        let sink = || Columns {
            keep: Keep::Metric("Forward GB/s".to_owned()),
            ..Columns::default()
        };
        let header = crate::schema::BANDWIDTH_HEADER;
        let origin = Path::new("b.csv");
        let mut one_pass = RowBuilder::new(header, origin, sink()).unwrap();
        let mut split = RowBuilder::new(header, origin, sink()).unwrap();
        let long = format!("{},4096,PASS,812.25,3.5,0.0125,120.5", "l".repeat(60));
        for (line, (record, usual)) in [
            ("a,1,PASS,2,0,1,1", true),
            ("b,2,FAIL,,,,", false),
            ("c,2,PASS,3.5,0,1,9", true),
            (long.as_str(), true),
        ]
        .into_iter()
        .enumerate()
        {
            let line = line as u64 + 2;
            let fields: Vec<&str> = record.split(',').collect();
            split.push(&fields, line).unwrap();
            assert_eq!(one_pass.read_plain(record, line), usual, "{record}");
            if !usual {
                one_pass.push(&fields, line).unwrap();
            }
        }
        assert_eq!(taken(&one_pass), taken(&split));
        assert_eq!(taken(&one_pass).len(), 4);
    }

    /// A GEMM cell of each kind a harness or a hand-edited file may hold.
    fn any_cell() -> impl Strategy<Value = String> {
        prop_oneof![
            16 => "[0-9]{1,3}\\.[0-9]{1,17}",
            1 => "[0-9]{1,3}\\.[0-9]{1,3}e-0[0-9]",
            1 => prop_oneof![
                Just(String::new()), Just("inf".to_owned()), Just("-inf".to_owned()),
                Just("nan".to_owned()), Just("0".to_owned()), Just("-0.0".to_owned()),
                Just("99999.9".to_owned()), Just("100000.5".to_owned()), Just("1e301".to_owned()),
                Just("5x".to_owned()), Just("4096".to_owned()), Just("+1.5".to_owned()),
            ],
            1 => "[-+0-9.eEinf]{0,5}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// A record read in one pass is read as its split fields are: the same rows from the
        /// same records, the same refusals with the same messages, whichever metric is kept.
        #[test]
        fn one_pass_reads_records_as_split_fields_do(
            records in prop::collection::vec((
                prop_oneof![8 => "s[0-9]{1,3}", 1 => "", 1 => "a/b", 1 => "[a-z ]{0,3}"],
                prop::collection::vec(prop_oneof![8 => "[0-9]{1,4}", 1 => "[0-9]{19,21}", 1 => "-?[0-9x]{0,2}"], 4),
                prop_oneof![6 => Just("PASS"), 1 => Just("FAIL"), 1 => Just("ERROR"), 1 => Just("pass")],
                prop::collection::vec(any_cell(), 9),
                prop_oneof![10 => Just(0usize), 1 => Just(1), 1 => Just(2)],
            ), 1..8),
            metric in prop_oneof![Just("Forward TFLOPS"), Just("Backward TFLOPS"), Just("Combined Step TFLOPS")],
        ) {
            let sink = || Columns { keep: Keep::Metric(metric.to_owned()), ..Columns::default() };
            let origin = Path::new("b.csv");
            let header = crate::schema::GEMM_HEADER;
            let mut one_pass = RowBuilder::new(header, origin, sink()).unwrap();
            let mut split = RowBuilder::new(header, origin, sink()).unwrap();
            for (line, (label, dims, check, cells, change)) in records.iter().enumerate() {
                let mut fields: Vec<&str> = vec![label];
                fields.extend(dims.iter().map(String::as_str));
                fields.push(check);
                fields.extend(cells.iter().map(String::as_str));
                // Now and then a field too many or too few.
                match change {
                    1 => fields.push("1.5"),
                    2 => { fields.pop(); }
                    _ => {}
                }
                let record = fields.join(",");
                let line = line as u64 + 2;
                let mut scratch = Vec::new();
                let a = one_pass.push_line(&record, &mut scratch, line).map_err(|e| e.to_string());
                let b = split.push(&fields, line).map_err(|e| e.to_string());
                prop_assert_eq!(a, b, "{}", record);
            }
            prop_assert_eq!(taken(&one_pass), taken(&split));
        }
    }

    proptest! {
        /// The direct split and the general reader see the same records on the same lines.
        #[test]
        fn record_paths_agree(lines in prop::collection::vec(
            prop::collection::vec("[a-z0-9._ -]{0,6}", 0..5), 0..12)) {
            let body: String = lines.iter().map(|l| l.join(",") + "\n").collect();
            let fast = collect(|each| split_records(&body, each));
            let general = collect(|each| read_records(&body, Path::new("x.csv"), each));
            prop_assert_eq!(fast, general);
        }
    }
}
