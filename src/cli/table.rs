//! Aligned text tables for a terminal: each column as wide as its widest cell on screen
//! (East Asian and emoji characters take two columns, combining marks none), two spaces
//! between columns, no trailing spaces.

use unicode_width::UnicodeWidthStr;

/// Where a cell sits in its column: text on the left, numbers on the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Rows of cells, the first usually the header.
pub struct Table<const N: usize> {
    align: [Align; N],
    /// Put before every line (`"  "` indents the table under a heading).
    indent: &'static str,
    /// Each row's cells written one after another, and where each cell ends: one string a
    /// row rather than one a cell (a gate's table can have tens of thousands of rows).
    rows: Vec<(String, [usize; N])>,
}

impl<const N: usize> Table<N> {
    pub fn new(align: [Align; N]) -> Table<N> {
        Table {
            align,
            indent: "",
            rows: Vec::new(),
        }
    }

    pub fn indented(mut self, indent: &'static str) -> Table<N> {
        self.indent = indent;
        self
    }

    /// Room for `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.rows.reserve(rows);
    }

    pub fn row(&mut self, cells: [impl AsRef<str>; N]) {
        let mut text = String::with_capacity(cells.iter().map(|c| c.as_ref().len()).sum());
        let mut ends = [0; N];
        for (end, cell) in ends.iter_mut().zip(&cells) {
            text.push_str(cell.as_ref());
            *end = text.len();
        }
        self.rows.push((text, ends));
    }

    /// The cells of a row.
    fn cells<'r>(&self, (text, ends): &'r (String, [usize; N])) -> [&'r str; N] {
        std::array::from_fn(|i| &text[if i == 0 { 0 } else { ends[i - 1] }..ends[i]])
    }

    /// Every row on its own line. A column empty in every row takes no room at all.
    pub fn render(&self) -> String {
        let mut widths = [0; N];
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(self.cells(row)) {
                *w = (*w).max(width(cell));
            }
        }
        // Room for every cell, its padding and separators, made once.
        let line = self.indent.len() + widths.iter().map(|w| w + 2).sum::<usize>();
        let bytes: usize = self.rows.iter().map(|(text, _)| text.len()).sum();
        let mut out = String::with_capacity(bytes + self.rows.len() * line);
        for row in &self.rows {
            let start = out.len();
            out.push_str(self.indent);
            let shown = self
                .cells(row)
                .into_iter()
                .zip(widths)
                .zip(self.align)
                .filter(|((_, width), _)| *width > 0);
            for (i, ((cell, width), align)) in shown.enumerate() {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = width - self::width(cell);
                if align == Align::Right {
                    out.extend(std::iter::repeat_n(' ', pad));
                }
                out.push_str(cell);
                if align == Align::Left {
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            let end = out[start..].trim_end_matches(' ').len();
            out.truncate(start + end);
            out.push('\n');
        }
        out
    }
}

/// A cell's width on screen. unicode-width counts every ASCII character one column: an
/// ASCII cell (every number, most labels) is as wide as it is long, without a lookup a
/// character.
fn width(cell: &str) -> usize {
    if cell.is_ascii() {
        cell.len()
    } else {
        cell.width()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_on_screen() {
        let mut t = Table::new([Align::Left, Align::Right, Align::Left]);
        t.row(["label", "n", "note"]);
        t.row(["日本", "1234", ""]);
        t.row(["é→x", "5", "fine"]);
        assert_eq!(
            t.render(),
            "label     n  note\n\
             日本   1234\n\
             é→x       5  fine\n"
        );
        // Indented, with a column that is empty everywhere left out.
        let mut t = Table::new([Align::Left, Align::Left, Align::Right]).indented("  ");
        t.row(["a", "", "1"]);
        t.row(["bb", "", "22"]);
        assert_eq!(t.render(), "  a    1\n  bb  22\n");
    }
}
