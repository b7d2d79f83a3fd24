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
    rows: Vec<[String; N]>,
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

    pub fn row(&mut self, cells: [impl Into<String>; N]) {
        self.rows.push(cells.map(Into::into));
    }

    /// Every row on its own line. A column empty in every row takes no room at all.
    pub fn render(&self) -> String {
        let mut widths = [0; N];
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.width());
            }
        }
        let mut out = String::new();
        for row in &self.rows {
            let start = out.len();
            out.push_str(self.indent);
            let shown = row
                .iter()
                .zip(widths)
                .zip(self.align)
                .filter(|((_, width), _)| *width > 0);
            for (i, ((cell, width), align)) in shown.enumerate() {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = " ".repeat(width - cell.width());
                match align {
                    Align::Left => {
                        out.push_str(cell);
                        out.push_str(&pad);
                    }
                    Align::Right => {
                        out.push_str(&pad);
                        out.push_str(cell);
                    }
                }
            }
            let end = out[start..].trim_end_matches(' ').len();
            out.truncate(start + end);
            out.push('\n');
        }
        out
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
