//! Panel 5: the selected round's hypothesis, decision, memory record and run facts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{panel_block, tone_style};
use crate::app::Model;
use crate::keys::Panel;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let extra = model
        .rounds
        .get(model.selected)
        .map_or(String::new(), |r| format!("round {}", r.number));
    let block = panel_block(model, Panel::Details, &extra);
    let lines: Vec<Line> = model
        .details
        .iter()
        .skip(model.details_scroll)
        .map(|d| {
            Line::from(vec![
                Span::styled(format!("{:<11} ", d.key), theme.dim()),
                Span::styled(d.value.clone(), tone_style(theme, d.tone)),
            ])
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}
