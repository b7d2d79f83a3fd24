//! Panel 1: rounds and lineage.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::text::fit_end;
use super::{dim_extra, fmt_metric, fmt_pct, panel_block, position, widths, window};
use crate::app::Model;
use crate::derive::{RoundLine, RoundStatus};
use crate::keys::Panel;
use kcamp_core::gate::Verdict;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let count = match model.rounds.len() {
        1 => "1 round".to_owned(),
        n => format!("{n} rounds"),
    };
    let mut block = panel_block(model, Panel::Rounds, dim_extra(theme, count), area);
    let inner = block.inner(area);
    if model.rounds.is_empty() {
        frame.render_widget(block, area);
        frame.render_widget(
            Paragraph::new(fit_end(
                "no rounds yet: run `kcamp baseline`",
                inner.width as usize,
            ))
            .style(theme.dim()),
            inner,
        );
        return;
    }
    let metric = model
        .state
        .as_ref()
        .map_or("", |s| s.manifest.primary_metric.as_str());
    // The aggregate needs its unit (`80.7 GFLOP/s`); the status names need 11 columns.
    let show_aggregate = inner.width >= 60;
    let narrow = inner.width < 40;
    // The verdict is left out before the hypothesis is: the state says most of it.
    let show_verdict = inner.width >= 34;
    let visible_rows = inner.height.saturating_sub(1) as usize;
    let pos = position(model.selected, model.rounds.len(), visible_rows, theme);
    // Columns left out for want of room are named, as the gate panel names its own.
    let hidden: Vec<&str> = [(!show_verdict, "gate"), (!show_aggregate, "aggregate")]
        .into_iter()
        .filter_map(|(hide, name)| hide.then_some(name))
        .collect();
    if !hidden.is_empty() {
        // Beside the position, with a line of border between them.
        let room = (inner.width as usize).saturating_sub(pos.as_ref().map_or(0, |p| p.width()) + 2);
        let long = format!(" hidden: {} (widen) ", hidden.join(", "));
        let short = format!(" -{} ", hidden.join(","));
        let text = [long, short]
            .into_iter()
            .find(|t| t.chars().count() <= room);
        if let Some(text) = text {
            block = block.title_bottom(ratatui::text::Line::styled(text, theme.key()));
        }
    }
    if let Some(pos) = pos {
        block = block.title_bottom(pos);
    }
    frame.render_widget(block, area);
    let visible = window(model.rounds.len(), visible_rows, model.selected);
    let start = visible.start;
    let aggregates: Vec<String> = model
        .rounds
        .iter()
        .map(|r| fmt_metric(r.aggregate, metric))
        .collect();
    let aggregate_width = super::text::max_width(&aggregates).max(9) as u16;
    let mut fixed: Vec<Option<u16>> = vec![Some(4), Some(if narrow { 5 } else { 12 })];
    if show_verdict {
        fixed.push(Some(6));
    }
    if show_aggregate {
        fixed.push(Some(aggregate_width));
    }
    // Δ as wide as its widest value, so a unit is never cut (`+0.0814%` is 8 columns).
    let delta_width = model.rounds[visible.clone()]
        .iter()
        .map(|r| delta_text(r).chars().count())
        .max()
        .unwrap_or(1)
        .max(1) as u16;
    fixed.extend([Some(delta_width), None]);
    let w = widths(inner.width, &fixed, 1);
    let hypothesis_width = *w.last().unwrap_or(&0) as usize;
    let rows: Vec<Row> = model.rounds[visible]
        .iter()
        .zip(&aggregates[start..])
        .map(|(r, aggregate)| {
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
                    Verdict::Accept => "ACCEPT",
                    Verdict::AcceptWithNote => "NOTE",
                    Verdict::NeedsRemeasure => "AGAIN",
                    Verdict::Reject => "REJECT",
                };
                Cell::from(text).style(theme.verdict(v))
            });
            let mut cells = vec![number, Cell::from(status_text).style(status_style)];
            if show_verdict {
                cells.push(verdict);
            }
            if show_aggregate {
                cells.push(Cell::from(aggregate.clone()));
            }
            // A round with a failing shape has no honest Δ (as `kcamp log` says it).
            cells.push(match r.failed {
                0 => Cell::from(fmt_pct(r.delta)),
                _ => Cell::from(delta_text(r)).style(theme.error()),
            });
            cells.push(Cell::from(fit_end(&r.hypothesis, hypothesis_width)));
            Row::new(cells)
        })
        .collect();
    let mut header = vec!["#", "state"];
    if show_verdict {
        header.push("gate");
    }
    if show_aggregate {
        header.push("aggregate");
    }
    header.extend(["Δ", "hypothesis"]);
    let header: Vec<String> = header
        .iter()
        .zip(&w)
        .map(|(h, &w)| fit_end(h, w as usize))
        .collect();
    let constraints: Vec<Constraint> = w.iter().map(|&w| Constraint::Length(w)).collect();
    let table = Table::new(rows, constraints)
        .header(ratatui::widgets::Row::new(header).style(theme.title()))
        .row_highlight_style(theme.selected())
        .column_spacing(1);
    let mut state = TableState::default().with_selected(Some(model.selected - start));
    frame.render_stateful_widget(table, inner, &mut state);
}

/// The Δ cell: the aggregate change, or `FAIL n` where n shapes do not PASS.
fn delta_text(r: &RoundLine) -> String {
    match r.failed {
        0 => fmt_pct(r.delta),
        n => format!("FAIL {n}"),
    }
}
