//! Panel 1: rounds and lineage.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::{fmt_metric, fmt_pct, panel_block, window};
use crate::app::Model;
use crate::derive::RoundStatus;
use crate::keys::Panel;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let count = match model.rounds.len() {
        1 => "1 round".to_owned(),
        n => format!("{n} rounds"),
    };
    let block = panel_block(model, Panel::Rounds, &count);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if model.rounds.is_empty() {
        frame.render_widget(
            Paragraph::new("no rounds yet: run `kcamp baseline`").style(theme.dim()),
            inner,
        );
        return;
    }
    let narrow = inner.width < 48;
    let visible = window(
        model.rounds.len(),
        inner.height.saturating_sub(1) as usize,
        model.selected,
    );
    let start = visible.start;
    let rows: Vec<Row> = model.rounds[visible]
        .iter()
        .map(|r| {
            let status = if narrow {
                match r.status {
                    RoundStatus::Baseline => "BASE",
                    RoundStatus::Accepted => "ACC",
                    RoundStatus::RolledBack => "RB",
                    RoundStatus::Open => "open",
                }
            } else {
                r.status.as_str()
            };
            let status_style = match r.status {
                RoundStatus::Baseline | RoundStatus::Accepted => theme.good(),
                RoundStatus::RolledBack => theme.dim(),
                RoundStatus::Open => theme.warning(),
            };
            let marker = if r.incumbent { "★" } else { " " };
            let number = Cell::from(format!("{marker}{}", r.number)).style(if r.incumbent {
                theme.incumbent()
            } else {
                theme.text()
            });
            let mut status_text = status.to_owned();
            if r.forced {
                status_text.push('!');
            }
            let verdict = r.verdict.map_or(Cell::from(""), |v| {
                let text = match v {
                    kcamp_core::gate::Verdict::Accept => "ACCEPT",
                    kcamp_core::gate::Verdict::AcceptWithNote => "NOTE",
                    kcamp_core::gate::Verdict::NeedsRemeasure => "AGAIN",
                    kcamp_core::gate::Verdict::Reject => "REJECT",
                };
                Cell::from(text).style(theme.verdict(v))
            });
            let mut cells = vec![number, Cell::from(status_text).style(status_style), verdict];
            if !narrow {
                cells.push(Cell::from(fmt_metric(r.aggregate)));
            }
            cells.push(Cell::from(fmt_pct(r.delta)));
            cells.push(Cell::from(r.hypothesis.clone()));
            Row::new(cells)
        })
        .collect();
    let (widths, header): (Vec<Constraint>, Vec<&str>) = if narrow {
        (
            vec![
                Constraint::Length(4),
                Constraint::Length(5),
                Constraint::Length(6),
                Constraint::Length(7),
                Constraint::Min(4),
            ],
            vec!["#", "state", "gate", "Δ", "hypothesis"],
        )
    } else {
        (
            vec![
                Constraint::Length(4),
                Constraint::Length(11),
                Constraint::Length(6),
                Constraint::Length(9),
                Constraint::Length(7),
                Constraint::Min(6),
            ],
            vec!["#", "state", "gate", "aggregate", "Δ", "hypothesis"],
        )
    };
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.title()))
        .row_highlight_style(theme.selected())
        .column_spacing(1);
    let mut state = TableState::default().with_selected(Some(model.selected - start));
    frame.render_stateful_widget(table, inner, &mut state);
}
