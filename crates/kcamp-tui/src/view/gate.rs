//! Panel 2: the gate table of the selected round (the open candidate by default).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState, Wrap};

use super::{fmt_metric, fmt_pct, panel_block, window};
use crate::app::{Model, SortOrder};
use crate::keys::Panel;
use kcamp_core::gate::ShapeClass;
use kcamp_core::types::Check;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Full,
    Medium,
    Narrow,
}

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
        None => "",
    }
}

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let gate = &model.gate;
    let mut extra = match gate.round {
        Some(n) if gate.open => format!("round {n} (candidate)"),
        Some(n) => format!("round {n}"),
        None => String::new(),
    };
    if let Some(v) = gate.validation {
        extra.push_str(match v {
            kcamp_core::types::Validation::Quick => " · quick",
            kcamp_core::types::Validation::Full => " · full",
        });
    }
    let block = panel_block(model, Panel::Gate, &extra);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    if let Some(err) = &gate.error {
        let text = vec![
            Line::styled("the round's CSV cannot be read:", theme.error()),
            Line::styled(err.clone(), theme.error()),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        return;
    }
    if let Some(note) = &gate.note {
        frame.render_widget(
            Paragraph::new(note.clone())
                .style(theme.dim())
                .wrap(Wrap { trim: false }),
            inner,
        );
        return;
    }
    let [summary_area, table_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let mut summary = Vec::new();
    match gate.verdict {
        Some(v) => {
            summary.push(Span::styled(v.as_str(), theme.verdict(v)));
            summary.push(Span::raw(format!(
                " aggregate {}",
                fmt_pct(gate.aggregate_delta)
            )));
            if let Some(first) = gate.reasons.first() {
                summary.push(Span::styled(format!(" · {first}"), theme.dim()));
            }
        }
        None => summary.push(Span::styled("no gate (baseline values)", theme.dim())),
    }
    let mut tail = Vec::new();
    if model.gate_sort != SortOrder::File {
        tail.push(model.gate_sort.label().to_owned());
    }
    if !model.gate_filter.is_empty() {
        tail.push(format!(
            "filter '{}' {}/{}",
            model.gate_filter,
            model.gate_rows.len(),
            gate.lines.len()
        ));
    }
    if !tail.is_empty() {
        summary.insert(
            0,
            Span::styled(format!("[{}] ", tail.join(" · ")), theme.key()),
        );
    }
    frame.render_widget(Paragraph::new(Line::from(summary)), summary_area);

    // Columns by width: dims need the most room, then incumbent and band.
    let tier = match table_area.width {
        w if w >= 72 => Tier::Full,
        w if w >= 54 => Tier::Medium,
        _ => Tier::Narrow,
    };
    let visible = window(
        model.gate_rows.len(),
        table_area.height.saturating_sub(1) as usize,
        model.gate_scroll,
    );
    let start = visible.start;
    let rows: Vec<Row> = model.gate_rows[visible]
        .iter()
        .map(|&i| {
            let l = &gate.lines[i];
            let style = l.class.map_or(theme.text(), |c| theme.class(c));
            let mut cells = vec![Cell::from(l.label.clone())];
            if tier == Tier::Full {
                cells.push(Cell::from(l.dims.clone()));
            }
            cells.push(Cell::from(check_name(l.check)).style(theme.check(l.check)));
            if tier != Tier::Narrow {
                cells.push(Cell::from(fmt_metric(l.incumbent)));
            }
            cells.push(Cell::from(fmt_metric(l.candidate)));
            cells.push(Cell::from(fmt_pct(l.delta)));
            if tier != Tier::Narrow {
                cells.push(Cell::from(
                    l.band.map_or("—".into(), |b| format!("±{:.1}%", b * 100.0)),
                ));
            }
            cells.push(Cell::from(class_name(l.class)));
            Row::new(cells).style(style)
        })
        .collect();
    let mut widths = vec![Constraint::Min(6)];
    let mut header = vec!["label"];
    if tier == Tier::Full {
        widths.push(Constraint::Length(14));
        header.push("dims");
    }
    widths.push(Constraint::Length(5));
    header.push("Check");
    if tier != Tier::Narrow {
        widths.push(Constraint::Length(7));
        header.push("inc");
    }
    widths.extend([Constraint::Length(7), Constraint::Length(7)]);
    header.extend(["cand", "Δ"]);
    if tier != Tier::Narrow {
        widths.push(Constraint::Length(6));
        header.push("band");
    }
    widths.push(Constraint::Length(9));
    header.push("class");
    let focused = model.focus == Panel::Gate && model.popup.is_none();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.title()))
        .row_highlight_style(theme.selected())
        .column_spacing(1);
    let mut state = TableState::default()
        .with_selected(focused.then(|| model.gate_scroll.saturating_sub(start)));
    frame.render_stateful_widget(table, table_area, &mut state);
}
