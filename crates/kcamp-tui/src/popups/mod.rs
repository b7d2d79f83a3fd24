//! Popups: each owns its state, its drawing and its keys (gitui's layout).

pub mod confirm;
pub mod help;
pub mod input;

use ratatui::layout::{Constraint, Flex, Layout, Rect};

pub use confirm::{ConfirmPopup, Pending};
pub use help::HelpPopup;
pub use input::{InputPopup, InputPurpose};

use crate::keys::Context;

#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    Help(HelpPopup),
    Confirm(ConfirmPopup),
    Input(InputPopup),
}

impl Popup {
    pub fn context(&self) -> Context {
        match self {
            Popup::Help(_) => Context::Help,
            Popup::Confirm(_) => Context::Confirm,
            Popup::Input(_) => Context::Input,
        }
    }
}

/// A centred rectangle of at most `width`×`height`, inside `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [rect] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    rect
}

/// A popup's frame: cleared background, bordered block titled `title`, wrapped lines.
pub(crate) fn render_framed(
    frame: &mut ratatui::Frame,
    rect: ratatui::layout::Rect,
    title: &str,
    lines: Vec<ratatui::text::Line<'_>>,
    theme: &crate::style::Theme,
) {
    use ratatui::text::Span;
    use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(format!(" {title} "), theme.title()));
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        rect,
    );
}
