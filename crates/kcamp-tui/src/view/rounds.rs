//! Panel 1: rounds and lineage. Columns are as wide as their widest value (a round number
//! is never cut); the hypothesis takes the rest. Where the width is short, columns are left
//! out in a stated order, and the border names them.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::text::{fit_end, width};
use super::{dim_extra, fmt_metric, fmt_pct, panel_block, position, window};
use crate::app::Model;
use crate::derive::{RoundLine, RoundStatus};
use crate::keys::Panel;
use kcamp_core::gate::Verdict;
use kcamp_core::types::Validation;

/// The columns that may be left out, first left out first; `#`, state, Δ and the
/// hypothesis always stay.
pub const ROUNDS_DROP_ORDER: [&str; 4] = ["aggregate", "gate", "vs", "val"];

/// The hypothesis keeps at least this many cells before columns are left out for it.
const HYPOTHESIS_MIN: u16 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Number,
    State,
    Gate,
    Val,
    Aggregate,
    Delta,
    Vs,
    Hypothesis,
}

impl Col {
    fn header(self) -> &'static str {
        match self {
            Col::Number => "#",
            Col::State => "state",
            Col::Gate => "gate",
            Col::Val => "val",
            Col::Aggregate => "aggregate",
            Col::Delta => "Δ",
            Col::Vs => "vs",
            Col::Hypothesis => "hypothesis",
        }
    }
}

fn verdict_short(v: Verdict) -> &'static str {
    match v {
        Verdict::Accept => "ACCEPT",
        Verdict::AcceptWithNote => "NOTE",
        Verdict::NeedsRemeasure => "AGAIN",
        Verdict::Reject => "REJECT",
    }
}

fn status_text(r: &RoundLine, narrow: bool) -> String {
    let mut text = if narrow {
        match r.status {
            RoundStatus::Baseline => "BASE",
            RoundStatus::Accepted => "ACC",
            RoundStatus::RolledBack => "RB",
            RoundStatus::Open => "open",
        }
        .to_owned()
    } else {
        r.status.as_str().to_owned()
    };
    if r.forced {
        text.push('!');
    }
    text
}

/// The Δ cell: the aggregate change, or `FAIL n` where n shapes do not PASS.
fn delta_text(r: &RoundLine) -> String {
    match r.failed {
        0 => fmt_pct(r.delta),
        n => format!("FAIL {n}"),
    }
}

fn cell_text(col: Col, r: &RoundLine, aggregate: &str, narrow: bool) -> String {
    match col {
        Col::Number => format!("{}{}", if r.incumbent { "★" } else { " " }, r.number),
        Col::State => status_text(r, narrow),
        Col::Gate => r
            .verdict
            .map_or(String::new(), |v| verdict_short(v).to_owned()),
        Col::Val => match r.validation {
            Some(Validation::Quick) => "quick".into(),
            Some(Validation::Full) => "full".into(),
            None => String::new(),
        },
        Col::Aggregate => aggregate.to_owned(),
        Col::Delta => delta_text(r),
        Col::Vs => r.parent.map_or(String::new(), |p| format!("r{p}")),
        Col::Hypothesis => r.hypothesis.clone(),
    }
}

/// The columns that fit in `room` cells with their widths, and the names of those left out.
fn columns(
    rounds: &[RoundLine],
    aggregates: &[String],
    room: u16,
) -> (Vec<(Col, u16)>, Vec<&'static str>, bool) {
    let widest = |col: Col, narrow: bool| -> u16 {
        rounds
            .iter()
            .zip(aggregates)
            .map(|(r, a)| width(&cell_text(col, r, a, narrow)))
            .chain([width(col.header())])
            .max()
            .unwrap_or(0) as u16
    };
    let all = [
        Col::Number,
        Col::State,
        Col::Gate,
        Col::Val,
        Col::Aggregate,
        Col::Delta,
        Col::Vs,
    ];
    for narrow in [false, true] {
        let mut cols: Vec<(Col, u16)> = all.iter().map(|&c| (c, widest(c, narrow))).collect();
        let mut hidden = Vec::new();
        let used = |cols: &[(Col, u16)]| cols.iter().map(|(_, w)| w + 1).sum::<u16>();
        for name in ROUNDS_DROP_ORDER {
            if used(&cols) + HYPOTHESIS_MIN <= room {
                break;
            }
            // The full state names go before any column does.
            if !narrow && name == "aggregate" {
                break;
            }
            cols.retain(|(c, _)| c.header() != name);
            hidden.push(name);
        }
        if used(&cols) + HYPOTHESIS_MIN <= room || narrow {
            cols.push((Col::Hypothesis, room.saturating_sub(used(&cols))));
            return (cols, hidden, narrow);
        }
    }
    unreachable!("the narrow pass always returns")
}

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let shown_rows = &model.round_rows;
    let damaged = model.damaged_rounds.len();
    let mut count = match (model.rounds.len() + damaged, model.rounds_filter.is_empty()) {
        (1, true) => "1 round".to_owned(),
        (n, true) => format!("{n} rounds"),
        (n, false) => format!("'{}' {}/{n}", model.rounds_filter, shown_rows.len()),
    };
    if damaged > 0 {
        count.push_str(&format!(" · {damaged} ⚠"));
    }
    let mut block = panel_block(model, Panel::Rounds, dim_extra(theme, count), area);
    let inner = block.inner(area);
    if (model.rounds.is_empty() && damaged == 0)
        || (!model.rounds.is_empty() && shown_rows.is_empty())
    {
        let text = if model.rounds.is_empty() {
            "no rounds yet: run `kcamp baseline`".to_owned()
        } else {
            format!(
                "no hypothesis contains '{}' (Esc clears the search)",
                model.rounds_filter
            )
        };
        frame.render_widget(block, area);
        let lines = super::text::wrap(&Line::styled(text, theme.dim()), inner.width as usize);
        let lines = super::text::clip_rows(lines, inner.height as usize, inner.width as usize);
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let metric = model
        .state
        .as_ref()
        .map_or("", |s| s.manifest.primary_metric.as_str());
    let aggregates: Vec<String> = model
        .rounds
        .iter()
        .map(|r| fmt_metric(r.aggregate, metric))
        .collect();
    let (cols, hidden, narrow) = columns(&model.rounds, &aggregates, inner.width);
    let visible_rows = inner.height.saturating_sub(1) as usize;
    let cursor = shown_rows
        .iter()
        .position(|&i| i == model.selected)
        .unwrap_or(0);
    let pos = position(cursor, shown_rows.len(), visible_rows, theme);
    if !hidden.is_empty() {
        // Beside the position, with a line of border between them.
        let room = (inner.width as usize).saturating_sub(pos.as_ref().map_or(0, |p| p.width()) + 2);
        let long = format!(" hidden: {} (widen) ", hidden.join(", "));
        let short = format!(" -{} ", hidden.join(","));
        if let Some(text) = [long, short].into_iter().find(|t| width(t) <= room) {
            block = block.title_bottom(Line::styled(text, theme.key()));
        }
    }
    if let Some(pos) = pos {
        block = block.title_bottom(pos);
    }
    frame.render_widget(block, area);
    let listed = listed_rows(model, visible_rows);
    let mut selected_at = None;
    let rows: Vec<Row> = listed
        .iter()
        .enumerate()
        .map(|(at, row)| match *row {
            // Drawn over the whole row below: a table cell cannot span the columns.
            Listed::Damaged(_) => Row::new(Vec::<Cell>::new()),
            Listed::Round(i) => {
                if i == model.selected {
                    selected_at = Some(at);
                }
                round_row(model, &cols, &aggregates, narrow, i)
            }
        })
        .collect();
    let header: Vec<String> = cols
        .iter()
        .map(|&(c, w)| fit_end(c.header(), w as usize))
        .collect();
    let constraints: Vec<Constraint> = cols.iter().map(|&(_, w)| Constraint::Length(w)).collect();
    let table = Table::new(rows, constraints)
        .header(Row::new(header).style(theme.title()))
        .row_highlight_style(theme.selected())
        .column_spacing(1);
    let mut state = TableState::default().with_selected(selected_at);
    frame.render_stateful_widget(table, inner, &mut state);
    for (at, row) in listed.iter().enumerate() {
        if let Listed::Damaged(j) = *row {
            let y = inner.y + 1 + at as u16;
            if y < inner.y + inner.height {
                let line = damaged_line(model, j, inner.width as usize);
                frame.render_widget(
                    Paragraph::new(line),
                    Rect {
                        y,
                        height: 1,
                        ..inner
                    },
                );
            }
        }
    }
}

/// A row of the rounds table: a round, or a round whose decision is unreadable (listed
/// where it belongs, never left out, never selected).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    /// An index into the rounds.
    Round(usize),
    /// An index into the damaged rounds.
    Damaged(usize),
}

/// The rows shown in `visible_rows`: the window of the listed rounds around the selection,
/// with the damaged rounds that fall among them (or after the last, when it is shown).
fn listed_rows(model: &Model, visible_rows: usize) -> Vec<Listed> {
    let shown = &model.round_rows;
    let cursor = shown.iter().position(|&i| i == model.selected).unwrap_or(0);
    // The damaged rounds are few; each takes a row from the window.
    let room = visible_rows
        .saturating_sub(model.damaged_rounds.len())
        .max(1);
    let visible = window(shown.len(), room, cursor);
    let at_end = visible.end == shown.len();
    let at_start = visible.start == 0;
    let rounds: Vec<usize> = shown[visible].to_vec();
    let first = rounds.first().map(|&i| model.rounds[i].number);
    let last = rounds.last().map(|&i| model.rounds[i].number);
    let mut out = Vec::new();
    let mut damaged = model.damaged_rounds.iter().enumerate().peekable();
    for &i in &rounds {
        let n = model.rounds[i].number;
        while let Some(&(j, (d, _))) = damaged.peek() {
            if *d > n {
                break;
            }
            if at_start || first.is_some_and(|f| *d > f) {
                out.push(Listed::Damaged(j));
            }
            damaged.next();
        }
        out.push(Listed::Round(i));
    }
    for (j, (d, _)) in damaged {
        if at_end || last.is_none_or(|l| *d < l) {
            out.push(Listed::Damaged(j));
        }
    }
    out.truncate(visible_rows.max(1));
    out
}

fn round_row<'a>(
    model: &Model,
    cols: &[(Col, u16)],
    aggregates: &[String],
    narrow: bool,
    i: usize,
) -> Row<'a> {
    let theme = model.theme;
    let r = &model.rounds[i];
    let cells: Vec<Cell> = cols
        .iter()
        .map(|&(col, w)| {
            let text = fit_end(&cell_text(col, r, &aggregates[i], narrow), w as usize);
            let style = match col {
                Col::Number if r.incumbent => theme.incumbent(),
                Col::State => match r.status {
                    RoundStatus::Baseline | RoundStatus::Accepted => theme.good(),
                    RoundStatus::RolledBack => theme.dim(),
                    RoundStatus::Open => theme.warning(),
                },
                Col::Gate => r.verdict.map_or(theme.text(), |v| theme.verdict(v)),
                // A round with a failing shape has no honest Δ (as `kcamp log` says).
                Col::Delta if r.failed > 0 => theme.error(),
                Col::Val | Col::Vs => theme.dim(),
                _ => theme.text(),
            };
            Cell::from(text).style(style)
        })
        .collect();
    Row::new(cells)
}

/// `r2 ⚠ decision.json:9 unreadable — kcamp repair`, across the row; in a narrow panel
/// the words go first, the file and line stay.
fn damaged_line(model: &Model, j: usize, width: usize) -> Line<'static> {
    let (n, text) = &model.damaged_rounds[j];
    let whole = format!(" r{n} ⚠ {text}");
    let shorter: Vec<String> = [" — kcamp repair", " unreadable — kcamp repair"]
        .iter()
        .filter_map(|tail| text.strip_suffix(tail))
        .map(|t| format!(" r{n} ⚠ {t}"))
        .collect();
    let fitting = std::iter::once(whole.clone())
        .chain(shorter)
        .find(|t| super::text::width(t) <= width)
        .unwrap_or(whole);
    Line::styled(fit_end(&fitting, width), model.theme.error())
}

/// The row of the rounds table at terminal row `y` (a click), as an index into the rounds.
pub fn row_at(model: &Model, area: Rect, y: u16) -> Option<usize> {
    let inner = ratatui::widgets::Block::bordered().inner(area);
    let first = inner.y + 1;
    if y < first || y >= inner.y + inner.height {
        return None;
    }
    let visible_rows = inner.height.saturating_sub(1) as usize;
    match listed_rows(model, visible_rows).get((y - first) as usize)? {
        Listed::Round(i) => Some(*i),
        Listed::Damaged(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::round_lines;
    use crate::fixtures;

    #[test]
    fn round_numbers_are_never_cut_and_columns_go_in_the_stated_order() {
        let mut rounds = round_lines(&fixtures::several_rounds());
        // 2,002 rounds: the numbers of the last ones take five cells and a star.
        for r in &mut rounds {
            r.number += 1998;
        }
        let aggregates: Vec<String> = rounds.iter().map(|_| "80.7 GFLOP/s".into()).collect();
        let mut previous = 0;
        for room in (30..140).rev() {
            let (cols, hidden, _) = columns(&rounds, &aggregates, room);
            assert!(hidden.len() >= previous, "a wider panel never hides more");
            previous = hidden.len();
            assert_eq!(hidden[..], ROUNDS_DROP_ORDER[..hidden.len()], "at {room}");
            let number = cols.iter().find(|(c, _)| *c == Col::Number).unwrap().1;
            for r in &rounds {
                assert!(width(&cell_text(Col::Number, r, "", false)) <= number as usize);
            }
            let delta = cols.iter().find(|(c, _)| *c == Col::Delta).unwrap().1;
            for r in &rounds {
                assert!(width(&delta_text(r)) <= delta as usize, "Δ cut at {room}");
            }
        }
        let (cols, hidden, narrow) = columns(&rounds, &aggregates, 140);
        assert!(hidden.is_empty() && !narrow, "{cols:?}");
    }
}
