//! Panel 5: the selected round's hypothesis, decision, memory record and run facts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::text::wrap;
use super::{dim_extra, panel_block, tone_style};
use crate::app::Model;
use crate::keys::Panel;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let extra = model
        .rounds
        .get(model.selected)
        .map_or(String::new(), |r| format!("round {}", r.number));
    let mut block = panel_block(model, Panel::Details, dim_extra(theme, extra), area);
    let inner = block.inner(area);
    // The open round's working kernel, once an edit was heard: what `v` would measure.
    let working = model
        .rounds
        .get(model.selected)
        .filter(|r| r.status == crate::derive::RoundStatus::Open)
        .and(model.working_kernel.as_ref())
        .map(|summary| crate::derive::DetailLine {
            key: "kernel/",
            value: summary.clone(),
            tone: crate::derive::Tone::Warn,
        });
    let lines: Vec<Line<'static>> = model
        .details
        .iter()
        .chain(working.iter())
        .skip(model.details_scroll)
        .flat_map(|d| {
            let line = Line::from(vec![
                Span::styled(format!("{:<11}  ", d.key), theme.dim()),
                Span::styled(d.value.clone(), tone_style(theme, d.tone)),
            ]);
            wrap(&line, inner.width as usize)
        })
        .collect();
    let below = lines.len().saturating_sub(inner.height as usize);
    if below > 0 {
        block = block.title_bottom(
            Line::styled(
                format!(
                    " ↓ {below} more {} ",
                    if below == 1 { "line" } else { "lines" }
                ),
                theme.key(),
            )
            .right_aligned(),
        );
    }
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines), inner);
}
