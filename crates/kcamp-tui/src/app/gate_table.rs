//! The gate table's own state: filter, sort order, cursor, and the counts of the summary
//! line. It opens worst first, so the shapes that decide the verdict are what one sees.

use kcamp_core::gate::ShapeClass;
use kcamp_core::types::Check;

use crate::derive::{GateLine, GateView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    /// FAIL first, then regressed, then by Δ ascending.
    WorstFirst,
    BestFirst,
    File,
}

impl SortOrder {
    pub fn next(self) -> SortOrder {
        match self {
            SortOrder::WorstFirst => SortOrder::BestFirst,
            SortOrder::BestFirst => SortOrder::File,
            SortOrder::File => SortOrder::WorstFirst,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SortOrder::WorstFirst => "worst first",
            SortOrder::BestFirst => "best first",
            SortOrder::File => "file order",
        }
    }

    /// The order in a few cells, for a narrow table's border.
    pub fn short_label(self) -> &'static str {
        match self {
            SortOrder::WorstFirst => "worst 1st",
            SortOrder::BestFirst => "best 1st",
            SortOrder::File => "file",
        }
    }
}

/// Shapes per class, over the whole table (the filter does not change them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub failed: usize,
    pub regressed: usize,
    pub improved: usize,
    pub neutral: usize,
    /// Rows without a class (a BASELINE's values).
    pub unjudged: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GateTable {
    pub view: GateView,
    pub filter: String,
    pub sort: SortOrder,
    /// Indices into `view.lines` after filter and sort.
    pub rows: Vec<usize>,
    /// Position in `rows`.
    pub cursor: usize,
    pub counts: ClassCounts,
    /// The narrowest label column with no two labels cut alike.
    pub label_width: u16,
    /// Characters every label starts and ends with: a cut label elides them first.
    pub label_ends: (usize, usize),
    /// Each column's widest cell ([`crate::view::content_widths`]).
    pub widths: [u16; crate::view::GATE_COLS],
    /// Some shape has a p-value (else the column is left out).
    pub any_p: bool,
}

impl Default for GateTable {
    fn default() -> Self {
        GateTable {
            view: GateView::default(),
            filter: String::new(),
            sort: SortOrder::WorstFirst,
            rows: Vec::new(),
            cursor: 0,
            counts: ClassCounts::default(),
            label_width: 0,
            label_ends: (0, 0),
            widths: [0; crate::view::GATE_COLS],
            any_p: false,
        }
    }
}

/// Failed shapes first, then regressed ones; a shape that did not PASS is failed even
/// without a class (a BASELINE row).
fn rank(line: &GateLine) -> u8 {
    match line.class {
        Some(ShapeClass::Failed) => 0,
        _ if line.check != Check::Pass => 0,
        Some(ShapeClass::Regressed) => 1,
        _ => 2,
    }
}

impl GateTable {
    /// Show another round (or the same one re-read). A different round starts at the top;
    /// the same round keeps the cursor on the same shape.
    pub fn set_view(&mut self, view: GateView) {
        let same_round = view.round == self.view.round;
        let current = self.current().map(|l| l.label.clone());
        self.view = view;
        self.counts = count(&self.view.lines);
        let labels: Vec<&str> = self.view.lines.iter().map(|l| l.label.as_str()).collect();
        self.label_ends = crate::view::text::common_ends(&labels);
        self.label_width = crate::view::unambiguous_label_width(&labels, self.label_ends);
        self.widths = crate::view::content_widths(&self.view.lines, &self.view.metric);
        self.any_p = self.view.lines.iter().any(|l| l.p_value.is_some());
        self.arrange();
        self.cursor = match current {
            Some(label) if same_round => self
                .rows
                .iter()
                .position(|&i| self.view.lines[i].label == label)
                .unwrap_or(0),
            _ => 0,
        };
    }

    /// The next sort order, with the cursor back at the top: the first rows are the ones
    /// the order is about.
    pub fn cycle_sort(&mut self) {
        self.sort = self.sort.next();
        self.arrange();
        self.cursor = 0;
    }

    pub fn set_filter(&mut self, filter: &str) {
        self.filter = filter.trim().to_owned();
        self.arrange();
        self.cursor = 0;
    }

    /// The line under the cursor.
    pub fn current(&self) -> Option<&GateLine> {
        self.rows.get(self.cursor).map(|&i| &self.view.lines[i])
    }

    /// Move the cursor by `delta` rows, clamped to the table.
    pub fn move_by(&mut self, delta: isize) {
        let last = self.rows.len().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(delta).min(last);
    }

    pub fn to_end(&mut self) {
        self.cursor = self.rows.len().saturating_sub(1);
    }

    /// Filter, then sort.
    fn arrange(&mut self) {
        let needle = self.filter.to_lowercase();
        let lines = &self.view.lines;
        let mut rows: Vec<usize> = (0..lines.len())
            .filter(|&i| needle.is_empty() || lines[i].label.to_lowercase().contains(&needle))
            .collect();
        // Shapes without a Δ sort below every number in their rank.
        let delta = |i: usize| lines[i].delta.unwrap_or(f64::NEG_INFINITY);
        match self.sort {
            SortOrder::File => {}
            SortOrder::WorstFirst => rows.sort_by(|&a, &b| {
                rank(&lines[a])
                    .cmp(&rank(&lines[b]))
                    .then(delta(a).total_cmp(&delta(b)))
            }),
            SortOrder::BestFirst => rows.sort_by(|&a, &b| {
                rank(&lines[b])
                    .cmp(&rank(&lines[a]))
                    .then(delta(b).total_cmp(&delta(a)))
            }),
        }
        self.cursor = self.cursor.min(rows.len().saturating_sub(1));
        self.rows = rows;
    }
}

fn count(lines: &[GateLine]) -> ClassCounts {
    let mut c = ClassCounts::default();
    for l in lines {
        match l.class {
            Some(ShapeClass::Failed) => c.failed += 1,
            Some(ShapeClass::Regressed) => c.regressed += 1,
            Some(ShapeClass::Improved) => c.improved += 1,
            // Unstable: no change either way, like a neutral shape.
            Some(ShapeClass::Neutral | ShapeClass::Ambiguous) => c.neutral += 1,
            None if l.check != Check::Pass => c.failed += 1,
            None => c.unjudged += 1,
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::gate_view;
    use crate::fixtures;

    fn table() -> GateTable {
        let mut t = GateTable::default();
        t.set_view(gate_view(&fixtures::several_rounds(), 3));
        t
    }

    fn labels(t: &GateTable) -> Vec<&str> {
        t.rows
            .iter()
            .map(|&i| t.view.lines[i].label.as_str())
            .collect()
    }

    #[test]
    fn opens_worst_first_failed_then_regressed_then_by_delta() {
        let t = table();
        assert_eq!(
            labels(&t),
            ["sq1024", "sq128", "sq64", "sq256", "sq768", "sq512"]
        );
        assert_eq!(t.cursor, 0);
        assert_eq!(
            t.counts,
            ClassCounts {
                failed: 1,
                regressed: 1,
                improved: 3,
                neutral: 1,
                unjudged: 0
            }
        );
    }

    #[test]
    fn sorting_again_puts_the_cursor_back_at_the_top() {
        let mut t = table();
        t.to_end();
        assert_eq!(t.cursor, 5);
        t.cycle_sort();
        assert_eq!(t.sort, SortOrder::BestFirst);
        assert_eq!(t.cursor, 0);
        assert_eq!(labels(&t)[0], "sq512");
        t.cycle_sort();
        assert_eq!(labels(&t)[0], "sq64", "file order");
        t.cycle_sort();
        assert_eq!(t.sort, SortOrder::WorstFirst);
    }

    #[test]
    fn a_reload_of_the_same_round_keeps_the_cursor_on_its_shape() {
        let mut t = table();
        t.move_by(2);
        assert_eq!(t.current().unwrap().label, "sq64");
        t.set_view(gate_view(&fixtures::several_rounds(), 3));
        assert_eq!(t.current().unwrap().label, "sq64");
        t.set_view(gate_view(&fixtures::several_rounds(), 2));
        assert_eq!(t.cursor, 0, "another round starts at the top");
        t.move_by(-5);
        assert_eq!(t.cursor, 0);
        t.move_by(50);
        assert_eq!(t.cursor, 5);
    }

    #[test]
    fn the_filter_narrows_rows_but_not_the_counts() {
        let mut t = table();
        t.set_filter(" sq1 ");
        assert_eq!(labels(&t), ["sq1024", "sq128"]);
        assert_eq!(t.counts.improved, 3);
    }
}
