//! The help overlay: every binding of the key table, grouped by where it applies.

use ratatui::text::{Line, Span};

use crate::keys::{BINDINGS, Scope};
use crate::style::Theme;

/// Groups in display order; a binding is listed under the first group its scope matches.
type Group = (&'static str, fn(Scope) -> bool);

const GROUPS: [Group; 6] = [
    ("Everywhere", |s| s == Scope::Main),
    ("Focused panel", |s| matches!(s, Scope::Panels(_))),
    ("Confirmation popup", |s| s == Scope::Confirm),
    ("Text fields (popups, searches)", |s| s == Scope::Input),
    (
        "Viewers (this help, reasons, a diff, the log, a shape)",
        |s| s == Scope::Viewer,
    ),
    ("Popups with more text than fits", |s| s == Scope::Popups),
];

/// The help text: every binding, grouped, then how the gate table drops columns.
pub fn help_lines(theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (heading, belongs) in GROUPS {
        lines.push(Line::styled(heading, theme.title()));
        for b in BINDINGS.iter().filter(|b| belongs(b.scope)) {
            let where_ = match b.scope {
                Scope::Panels(panels) => format!(
                    " [{}]",
                    panels
                        .iter()
                        .map(|p| p.title())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => String::new(),
            };
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<14}  ", b.key_names()), theme.key()),
                Span::raw(format!("{}{where_}", b.description)),
            ]));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled("Mouse", theme.title()));
    lines.push(Line::raw(
        "  A click focuses the panel under it and selects the round or shape clicked; the wheel scrolls the panel (or popup) under the pointer. Hold Shift to select text with the mouse.",
    ));
    lines.push(Line::default());
    lines.push(Line::styled("Rounds panel", theme.title()));
    lines.push(Line::raw(
        "  Verdict column: ACCEPT; NOTE = ACCEPT_WITH_NOTE (a shape regressed within the threshold);",
    ));
    lines.push(Line::raw(
        "  AGAIN = NEEDS_REMEASURE (measure again: a small gain, or the sides measured unalike); REJECT.",
    ));
    lines.push(Line::raw(
        "  A status ending in ! was forced (accepted against the gate, with a reason).",
    ));
    lines.push(Line::raw(
        "  val: quick (the representative shapes) or full; Δ is the gate's, against the round in vs.",
    ));
    lines.push(Line::raw(format!(
        "  Columns that do not fit are dropped in this order: {}.",
        crate::view::ROUNDS_DROP_ORDER.join(", ")
    )));
    lines.push(Line::default());
    lines.push(Line::styled("Gate table", theme.title()));
    lines.push(Line::raw(format!(
        "  Columns that do not fit are dropped in this order, and the table says which: {}.",
        crate::view::GATE_DROP_ORDER.join(", ")
    )));
    lines.push(Line::raw(
        "  Cut text ends in …; labels are cut in the middle to keep both ends, and get room first so that no two look alike.",
    ));
    lines.push(Line::raw(
        "  ≠ after a Δ: the paired Δ (what the gate judged) and the ratio of the two means disagree.",
    ));
    lines.push(Line::default());
    lines.push(Line::styled("Metric chart", theme.title()));
    lines.push(Line::raw(
        "  ● accepted, ■ rolled back, ◆ open; hollow (○ □ ◇) for a quick validation; ✗ no shape passed. Each point is its own run's aggregate.",
    ));
    lines.push(Line::raw(
        "  The line is the accepted lineage chained from the speedup each acceptance's gate measured (BASELINE × (1+Δ) × …): runs far apart are not compared by their absolute values.",
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help as plain text, one line each.
    fn help_text() -> String {
        help_lines(Theme::plain())
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect()
    }

    #[test]
    fn every_binding_is_listed() {
        let text = help_text();
        for b in BINDINGS {
            assert!(text.contains(b.description), "missing: {}", b.description);
        }
    }

    #[test]
    fn the_rounds_panels_short_verdicts_are_explained() {
        let text = help_text();
        for short in [
            "NOTE = ACCEPT_WITH_NOTE",
            "AGAIN = NEEDS_REMEASURE",
            "ending in ! was forced",
        ] {
            assert!(text.contains(short), "missing: {short}");
        }
    }
}
