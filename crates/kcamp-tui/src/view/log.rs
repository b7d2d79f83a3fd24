//! Panel 6: the journal and the dashboard's own messages, newest last.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::text::fit_line;
use super::{dim_extra, panel_block, tone_style};
use crate::app::Model;
use crate::derive::LogSource;
use crate::keys::Panel;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let extra = if model.log_scroll > 0 {
        format!("{} lines up (G: newest)", model.log_scroll)
    } else {
        String::new()
    };
    let block = panel_block(model, Panel::Log, dim_extra(theme, extra), area);
    let inner = block.inner(area);
    let end = model.log.len().saturating_sub(model.log_scroll);
    let start = end.saturating_sub(inner.height as usize);
    // Times of today (UTC, as the journal records them) alone; older ones with their day,
    // or a line of last week would read as earlier today.
    let today = (model.clock)().date_naive();
    let lines: Vec<Line> = model.log[start..end]
        .iter()
        .map(|l| {
            let time = if l.time.date_naive() == today {
                l.time.format("%H:%M:%S ")
            } else {
                l.time.format("%m-%d %H:%M ")
            };
            let source = match l.source {
                LogSource::Journal => Span::styled("  ", theme.dim()),
                LogSource::Dashboard => Span::styled("» ", theme.key()),
            };
            let line = Line::from(vec![
                Span::styled(time.to_string(), theme.dim()),
                source,
                Span::styled(l.text.clone(), tone_style(theme, l.tone)),
            ]);
            fit_line(line, inner.width as usize)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
