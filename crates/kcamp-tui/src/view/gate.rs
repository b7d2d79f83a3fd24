//! Panel 2: the gate table of the selected round (the open candidate by default), worst
//! shapes first. Above it the verdict, the counts per class and the reasons; below, in the
//! border, the order, the filter, the columns left out and the position.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::text::{clip_rows, fit_differing, fit_end, fit_line, width, wrap};
use super::{dim_parts, fmt_metric, fmt_pct, panel_block, position, window};
use crate::app::Model;
use crate::derive::{GateLine, collapse_reasons};
use crate::keys::Panel;
use kcamp_core::gate::ShapeClass;
use kcamp_core::types::{Check, Validation};
use kcamp_core::units;

/// The columns that may be left out, first left out first. Label, Check, Δ and class are
/// always shown (the label is cut in the middle instead).
pub const GATE_DROP_ORDER: [&str; 5] = ["p", "dims", "inc", "cand", "band"];

/// The narrowest a label gets before columns are left out for it.
const LABEL_MIN: u16 = 8;

/// Check values in five columns.
fn check_name(check: Check) -> &'static str {
    match check {
        Check::TimeoutFail => "TMOUT",
        other => other.as_str(),
    }
}

fn class_name(class: Option<ShapeClass>) -> &'static str {
    match class {
        Some(ShapeClass::Improved) => "improved",
        Some(ShapeClass::Neutral) => "neutral",
        Some(ShapeClass::Regressed) => "regressed",
        Some(ShapeClass::Failed) => "failed",
        Some(ShapeClass::Ambiguous) => "ambiguous",
        None => "",
    }
}

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "—".into(),
        Some(p) => units::p_value(p),
    }
}

/// `• label CHECK: why` of the first shape that did not PASS, and how many more did not:
/// the head shows one and `e` every one (formatting them all on every frame would cost a
/// 10,000-shape gate its frame budget).
fn first_failure(lines: &[GateLine], style: Style) -> (Vec<(String, Style)>, usize) {
    let mut failing = lines.iter().filter(|l| l.check != Check::Pass);
    let first = failing
        .next()
        .and_then(GateLine::failure)
        .map(|f| (format!("• {f}"), style));
    (first.into_iter().collect(), failing.count())
}

/// Up to `max` of `items`, each on one line cut to `room`; the last one shown says how many
/// more `e` shows: the items left out and `hidden` more behind them.
fn push_items(
    head: &mut Vec<Line<'static>>,
    items: &[(String, Style)],
    max: usize,
    hidden: usize,
    room: usize,
    key: Style,
) {
    let shown = items.len().min(max);
    let more = items.len() - shown + hidden;
    for (i, (text, style)) in items[..shown].iter().enumerate() {
        let suffix = if i + 1 == shown && more > 0 {
            format!(" +{more} more: e")
        } else {
            String::new()
        };
        let text = fit_end(text, room.saturating_sub(width(&suffix)));
        head.push(Line::from(vec![
            Span::styled(text, *style),
            Span::styled(suffix, key),
        ]));
    }
}

/// `items` wrapped in at most `rows` rows of `room` cells (a hanging indent under the
/// bullet); an item that does not fit whole is cut with `…`. The last row shown says how
/// many more `e` shows: the items left out and `hidden` more behind them.
fn push_wrapped(
    head: &mut Vec<Line<'static>>,
    items: &[(String, Style)],
    rows: usize,
    hidden: usize,
    room: usize,
    key: Style,
) {
    let mut used = 0;
    let mut shown = 0;
    let mut clipped = false;
    for (text, style) in items {
        if used >= rows {
            break;
        }
        let wrapped = wrap_hanging(text.trim_start_matches("• "), *style, room);
        let left = rows - used;
        shown += 1;
        if wrapped.len() <= left {
            used += wrapped.len();
            head.extend(wrapped);
        } else {
            head.extend(clip_rows(wrapped, left, room));
            used = rows;
            clipped = true;
        }
    }
    let more = items.len() - shown + hidden;
    if (more > 0 || clipped)
        && let Some(last) = head.pop()
    {
        let suffix = if more > 0 {
            format!(" +{more} more: e")
        } else {
            " in full: e".to_owned()
        };
        let mut cut = fit_line(last, room.saturating_sub(width(&suffix)));
        cut.spans.push(Span::styled(suffix, key));
        head.push(cut);
    }
}

/// A bullet's text wrapped under itself, not under the bullet.
fn wrap_hanging(text: &str, style: Style, room: usize) -> Vec<Line<'static>> {
    let mut rows = wrap(
        &Line::styled(text.to_owned(), style),
        room.saturating_sub(2).max(1),
    );
    for (i, row) in rows.iter_mut().enumerate() {
        let lead = if i == 0 { "• " } else { "  " };
        row.spans.insert(0, Span::styled(lead, style));
    }
    rows
}

/// Columns of the table.
pub const COLS: usize = 9;

/// Each column's width: its widest cell or header, in [`Col`] order. Computed once per
/// round shown (formatting every cell of 10,000 shapes on every frame would not fit a
/// frame's budget).
pub fn content_widths(lines: &[GateLine], metric: &str) -> [u16; COLS] {
    let mut out = [0u16; COLS];
    for col in Col::ALL {
        out[col as usize] = lines
            .iter()
            .map(|l| width(&col.cell(l, metric)))
            .chain([width(col.header())])
            .max()
            .unwrap_or(0) as u16;
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Label,
    Dims,
    Check,
    Inc,
    Cand,
    Delta,
    Band,
    P,
    Class,
}

impl Col {
    const ALL: [Col; COLS] = [
        Col::Label,
        Col::Dims,
        Col::Check,
        Col::Inc,
        Col::Cand,
        Col::Delta,
        Col::Band,
        Col::P,
        Col::Class,
    ];

    fn header(self) -> &'static str {
        match self {
            Col::Label => "label",
            Col::Dims => "dims",
            Col::Check => "Check",
            Col::Inc => "inc",
            Col::Cand => "cand",
            Col::Delta => "Δ",
            Col::Band => "band",
            Col::P => "p",
            Col::Class => "class",
        }
    }

    fn cell(self, l: &GateLine, metric: &str) -> String {
        match self {
            Col::Label => l.label.clone(),
            Col::Dims => l.dims.clone(),
            Col::Check => check_name(l.check).into(),
            Col::Inc => fmt_metric(l.incumbent, metric),
            Col::Cand => fmt_metric(l.candidate, metric),
            // ≠: the paired Δ and the ratio of the means disagree (Enter says more).
            Col::Delta if l.disagrees() => format!("{}≠", fmt_pct(l.delta)),
            Col::Delta => fmt_pct(l.delta),
            Col::Band => l.band.map_or("—".into(), units::band),
            Col::P => p_text(l.p_value),
            Col::Class if l.untimed => format!("{} (untimed)", class_name(l.class)),
            Col::Class => class_name(l.class).into(),
        }
    }
}

/// The columns that fit in `room` cells, in display order, with their widths; and the
/// names of those left out. The label first gets `label_min` cells (the width at which no
/// two cut labels look alike), then the other columns in the reverse of
/// [`GATE_DROP_ORDER`], then the label the rest, up to its widest.
fn columns(
    widths_of: &[u16; COLS],
    any_p: bool,
    room: u16,
    judged: bool,
    label_min: u16,
) -> (Vec<(Col, u16)>, Vec<&'static str>) {
    let content = |col: Col| widths_of[col as usize];
    let order: Vec<Col> = if judged {
        Col::ALL.to_vec()
    } else {
        // A BASELINE's values: no comparison to show.
        vec![Col::Label, Col::Dims, Col::Check, Col::Cand]
    };
    let droppable: &[&str] = if judged { &GATE_DROP_ORDER } else { &["dims"] };
    let label_want = content(Col::Label);
    let label_min = label_min.clamp(LABEL_MIN.min(label_want), label_want.max(1));
    let mut kept: Vec<Col> = order
        .iter()
        .copied()
        .filter(|c| !droppable.contains(&c.header()))
        .collect();
    let widths = |cols: &[Col]| -> u16 {
        cols.iter()
            .filter(|c| **c != Col::Label)
            .map(|&c| content(c) + 1)
            .sum()
    };
    let mut hidden: Vec<&'static str> = Vec::new();
    let mut refused = false;
    for &name in droppable.iter().rev() {
        let Some(&col) = order.iter().find(|c| c.header() == name) else {
            continue;
        };
        if col == Col::P && !any_p {
            continue;
        }
        let mut with = kept.clone();
        with.push(col);
        // Once one column is left out, every one before it in the drop order is too, so
        // that what is hidden is always the start of the stated order.
        if !refused && widths(&with) + label_min <= room {
            kept = with;
        } else {
            refused = true;
            hidden.push(name);
        }
    }
    hidden.reverse();
    let mut sized: Vec<(Col, u16)> = order
        .iter()
        .filter(|c| kept.contains(c))
        .map(|&c| (c, content(c)))
        .collect();
    let others = widths(&kept);
    sized[0].1 = room.saturating_sub(others).min(label_want.max(5)).max(1);
    (sized, hidden)
}

/// The narrowest a label column can be with no two labels cut alike (what they share at
/// both ends elided first, [`fit_differing`]), at least [`LABEL_MIN`]; the widest label
/// when even that does not tell them apart.
pub fn unambiguous_label_width(labels: &[&str], ends: (usize, usize)) -> u16 {
    let widest = labels.iter().map(|l| width(l)).max().unwrap_or(0);
    let distinct = |w: usize| {
        let mut seen = std::collections::HashSet::with_capacity(labels.len());
        labels
            .iter()
            .all(|l| seen.insert(fit_differing(l, w, ends)))
    };
    let (mut lo, mut hi) = ((LABEL_MIN as usize).min(widest), widest);
    if distinct(lo) {
        return lo as u16;
    }
    // The narrowest width that tells them apart (cutting keeps more of both ends as the
    // width grows).
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if distinct(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi as u16
}

/// The width the table would take with every column whole, borders included.
pub fn natural_width(model: &Model) -> u16 {
    let t = &model.gate;
    let (cols, _) = columns(
        &t.widths,
        t.any_p,
        u16::MAX / 2,
        t.view.verdict.is_some(),
        0,
    );
    let label = t.widths[Col::Label as usize];
    cols.iter().skip(1).map(|(_, w)| w + 1).sum::<u16>() + label + 2
}

/// The lines above the table: the verdict with its counts, then why the first shape failed
/// and the reasons, what decided the verdict first, as many as the height allows.
fn head_lines(model: &Model, inner: Rect) -> Vec<Line<'static>> {
    let theme = model.theme;
    let table = &model.gate;
    let gate = &table.view;
    let room = inner.width as usize;
    let mut head: Vec<Line<'static>> = Vec::new();
    let counts = table.counts;
    match gate.verdict {
        Some(v) => {
            let verdict = vec![
                Span::styled(v.as_str(), theme.verdict(v)),
                Span::raw(format!(" aggregate {}", fmt_pct(gate.aggregate_delta))),
            ];
            let mut tally = Vec::new();
            let parts = [
                (counts.failed, "failed", theme.class(ShapeClass::Failed)),
                (
                    counts.regressed,
                    "regressed",
                    theme.class(ShapeClass::Regressed),
                ),
                (
                    counts.improved,
                    "improved",
                    theme.class(ShapeClass::Improved),
                ),
                (counts.neutral, "neutral", theme.text()),
            ];
            for (n, name, style) in parts {
                if !tally.is_empty() {
                    tally.push(Span::raw(" · "));
                }
                tally.push(Span::styled(
                    format!("{n} {name}"),
                    if n > 0 { style } else { theme.dim() },
                ));
            }
            // One line when it fits, else the counts on their own line: never cut.
            let together =
                Line::from([verdict.clone(), vec![Span::raw(" · ")], tally.clone()].concat());
            if together.width() <= room {
                head.push(together);
            } else {
                head.push(fit_line(Line::from(verdict), room));
                head.push(fit_line(Line::from(tally), room));
            }
            // The open round's kernel given up once already, then why the first shape
            // failed, then as many reasons as the height allows; the last line says how many
            // more `e` shows (every failure among them).
            let mut items = tried_items(model);
            let (failure, hidden) = first_failure(&gate.lines, theme.class(ShapeClass::Failed));
            items.extend(failure);
            // What decided the verdict before the notes on how it was measured.
            items.extend(collapse_reasons(&gate.reasons).into_iter().map(|r| {
                let style = if r.kind.decides() {
                    theme.text()
                } else {
                    theme.dim()
                };
                (format!("• {}", r.text), style)
            }));
            // As many rows as the table leaves (the shapes it has, its header), and at least
            // a few: reasons are wrapped whole while they fit.
            let least = match inner.height {
                h if h >= 24 => 4,
                h if h >= 14 => 2,
                _ => 1,
            };
            let table_rows = table.rows.len().max(1) + 1;
            let free = (inner.height as usize)
                .saturating_sub(head.len() + table_rows)
                .max(least);
            push_wrapped(&mut head, &items, free, hidden, room, theme.key());
            let apart = gate.lines.iter().filter(|l| l.disagrees()).count();
            if apart > 0 && inner.height >= 12 {
                let text = format!(
                    "≠ {}: the paired Δ and the ratio of the means disagree (Enter on a row)",
                    kcamp_core::text::count(apart, "row")
                );
                head.push(Line::styled(fit_end(&text, room), theme.warning()));
            }
        }
        None => {
            head.push(Line::styled(
                fit_end(
                    &format!(
                        "no gate (baseline values) · {} shapes, {} not PASS",
                        gate.lines.len(),
                        counts.failed
                    ),
                    room,
                ),
                theme.dim(),
            ));
            let (items, hidden) = first_failure(&gate.lines, theme.class(ShapeClass::Failed));
            push_items(&mut head, &items, 1, hidden, room, theme.key());
        }
    }

    head
}

/// `• kernel/ was tried in round 7: REJECT …` for the open round, in the warning style.
fn tried_items(model: &Model) -> Vec<(String, Style)> {
    if !model.gate.view.open {
        return Vec::new();
    }
    model
        .tried
        .iter()
        .map(|t| {
            (
                format!("• {}", crate::derive::tried_text(t)),
                model.theme.warning(),
            )
        })
        .collect()
}

/// The row of the table at terminal row `y` (a click), as a position in the table's rows.
pub fn row_at(model: &Model, area: Rect, y: u16) -> Option<usize> {
    let gate = &model.gate.view;
    if gate.error.is_some() || model.gate_note().is_some() {
        return None;
    }
    let inner = ratatui::widgets::Block::bordered().inner(area);
    let head = head_lines(model, inner).len() as u16;
    let first = inner.y + head + 1;
    if y < first || y >= inner.y + inner.height {
        return None;
    }
    let visible_rows = inner.height.saturating_sub(head + 1) as usize;
    let visible = window(model.gate.rows.len(), visible_rows, model.gate.cursor);
    let row = visible.start + (y - first) as usize;
    (row < visible.end).then_some(row)
}

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let table = &model.gate;
    let gate = &table.view;
    let metric = model
        .state
        .as_ref()
        .map_or("", |s| s.manifest.primary_metric.as_str());
    let round = match gate.round {
        Some(n) if gate.open => format!("round {n} (candidate)"),
        Some(n) => format!("round {n}"),
        None => String::new(),
    };
    let validation = match gate.validation {
        Some(Validation::Quick) => "quick",
        Some(Validation::Full) => "full",
        None => "",
    };
    let mut extra = dim_parts(theme, &[round, validation.to_owned()]);
    // The keys act on the open round: say so where another round is on screen.
    if let Some(open) = model.open_round_number()
        && gate.round != Some(open)
    {
        extra.push(Span::styled(
            format!("· keys act on open r{open} "),
            theme.warning(),
        ));
    }
    let mut block = panel_block(model, Panel::Gate, extra, area);
    let inner = block.inner(area);

    if let Some(err) = &gate.error {
        frame.render_widget(block, area);
        let mut text = vec![Line::styled(
            "the round's CSV cannot be read:",
            theme.error(),
        )];
        text.extend(wrap(
            &Line::styled(err.clone(), theme.error()),
            inner.width as usize,
        ));
        let text = clip_rows(text, inner.height as usize, inner.width as usize);
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    if let Some(note) = model.gate_note() {
        frame.render_widget(block, area);
        let mut lines = wrap(&Line::styled(note, theme.dim()), inner.width as usize);
        for (text, style) in tried_items(model) {
            lines.extend(wrap_hanging(
                text.trim_start_matches("• "),
                style,
                inner.width as usize,
            ));
        }
        let lines = clip_rows(lines, inner.height as usize, inner.width as usize);
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }

    let head = head_lines(model, inner);
    let [head_area, table_area] =
        Layout::vertical([Constraint::Length(head.len() as u16), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(head), head_area);

    let visible_rows = table_area.height.saturating_sub(1) as usize;
    let visible = window(table.rows.len(), visible_rows, table.cursor);
    let start = visible.start;
    let shown: Vec<&GateLine> = table.rows[visible]
        .iter()
        .map(|&i| &gate.lines[i])
        .collect();
    // Widths from every row, so they do not jump while scrolling.
    let (cols, hidden) = columns(
        &table.widths,
        table.any_p,
        table_area.width,
        gate.verdict.is_some(),
        table.label_width,
    );

    // The border says what is not plain: the order, the filter, the columns left out. The
    // order is always there (after `s` it is the only sign of what changed), in its short
    // form when room is short; the others shorten, then go, hidden columns last.
    let order = !gate.lines.is_empty();
    let order_long = order.then(|| table.sort.label().to_owned());
    let order_short = order.then(|| table.sort.short_label().to_owned());
    let filter = (!table.filter.is_empty()).then(|| {
        format!(
            "filter '{}' {}/{}",
            table.filter,
            table.rows.len(),
            gate.lines.len()
        )
    });
    let filter_short = (!table.filter.is_empty()).then(|| {
        format!(
            "'{}' {}/{}",
            table.filter,
            table.rows.len(),
            gate.lines.len()
        )
    });
    let hidden_text = |hint: bool| {
        (!hidden.is_empty()).then(|| {
            format!(
                "hidden: {}{}",
                hidden.join(", "),
                if hint { " (widen)" } else { "" }
            )
        })
    };
    let hidden_short = (!hidden.is_empty()).then(|| format!("-{}", hidden.join(",")));
    let pos = position(table.cursor, table.rows.len(), visible_rows, theme);
    // Beside the position, with a line of border between them.
    let room = (inner.width as usize).saturating_sub(pos.as_ref().map_or(0, Line::width) + 2);
    let candidates = [
        [order_long.clone(), filter.clone(), hidden_text(true)],
        [order_long.clone(), filter.clone(), hidden_text(false)],
        [order_short.clone(), filter.clone(), hidden_text(false)],
        [
            order_short.clone(),
            filter_short.clone(),
            hidden_text(false),
        ],
        [
            order_short.clone(),
            filter_short.clone(),
            hidden_short.clone(),
        ],
        [order_short.clone(), filter_short.clone(), None],
        [order_short.clone(), None, None],
    ];
    let joined = |parts: &[Option<String>; 3]| {
        let parts: Vec<&str> = parts.iter().flatten().map(String::as_str).collect();
        format!(" {} ", parts.join(" · "))
    };
    let status = candidates
        .iter()
        .map(joined)
        .find(|t| width(t) <= room)
        .unwrap_or_else(|| fit_end(&joined(&candidates[candidates.len() - 1]), room));
    if !status.trim().is_empty() {
        block = block.title_bottom(Line::styled(status, theme.key()));
    }
    if let Some(pos) = pos {
        block = block.title_bottom(pos);
    }
    frame.render_widget(block, area);
    if table.rows.is_empty() && !gate.lines.is_empty() {
        let note = format!(
            "no shape's label contains '{}' (Esc clears the search)",
            table.filter
        );
        let lines = wrap(
            &Line::styled(note, theme.warning()),
            table_area.width as usize,
        );
        frame.render_widget(Paragraph::new(lines), table_area);
        return;
    }

    let rows: Vec<Row> = shown
        .iter()
        .map(|l| {
            let style = l.class.map_or(theme.text(), |c| theme.class(c));
            let cells: Vec<Cell> = cols
                .iter()
                .map(|&(col, w)| {
                    let text = col.cell(l, metric);
                    let text = if col == Col::Label {
                        fit_differing(&text, w as usize, model.gate.label_ends)
                    } else {
                        fit_end(&text, w as usize)
                    };
                    match col {
                        Col::Check => Cell::from(text).style(theme.check(l.check)),
                        _ => Cell::from(text),
                    }
                })
                .collect();
            Row::new(cells).style(style)
        })
        .collect();
    let header: Vec<String> = cols
        .iter()
        .map(|&(c, w)| fit_end(c.header(), w as usize))
        .collect();
    let widths: Vec<Constraint> = cols.iter().map(|&(_, w)| Constraint::Length(w)).collect();
    let focused = model.focus == Panel::Gate && model.popup.is_none();
    let widget = Table::new(rows, widths)
        .header(Row::new(header).style(theme.title()))
        .row_highlight_style(theme.selected())
        .column_spacing(1);
    let mut state =
        TableState::default().with_selected(focused.then(|| table.cursor.saturating_sub(start)));
    frame.render_stateful_widget(widget, table_area, &mut state);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::gate_view;
    use crate::fixtures;

    #[test]
    fn columns_are_left_out_in_the_stated_order_and_units_are_never_cut() {
        let view = gate_view(&fixtures::long_labels(), 3);
        let lines: Vec<&GateLine> = view.lines.iter().collect();
        let metric = "Forward TFLOPS";
        let widths = content_widths(&view.lines, metric);
        let any_p = view.lines.iter().any(|l| l.p_value.is_some());
        let (wide, hidden) = columns(&widths, any_p, 200, true, 8);
        assert!(hidden.is_empty());
        assert_eq!(wide.len(), 9);
        let mut previous = 0;
        for room in (20..200).rev() {
            let (cols, hidden) = columns(&widths, any_p, room, true, 8);
            assert!(hidden.len() >= previous, "a wider table never hides more");
            previous = hidden.len();
            assert_eq!(hidden[..], GATE_DROP_ORDER[..hidden.len()], "at {room}");
            // Every value column is as wide as its widest value: nothing of a unit is cut.
            for &(col, w) in cols.iter().skip(1) {
                for l in &lines {
                    assert!(
                        width(&col.cell(l, metric)) <= w as usize,
                        "{col:?} at {room}"
                    );
                }
            }
            let used: u16 = cols.iter().map(|(_, w)| w + 1).sum::<u16>() - 1;
            assert!(
                used <= room || hidden.len() == GATE_DROP_ORDER.len(),
                "{used} > {room}"
            );
        }
    }
}
