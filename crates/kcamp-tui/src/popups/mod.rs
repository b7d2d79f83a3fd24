//! Popups: each owns its state, its drawing and its keys (gitui's layout). They share one
//! frame: a body that scrolls and a footer that never does, so an input field and the
//! keys that answer stay in sight at every terminal size, however long the body is.

pub mod confirm;
pub mod field;
pub mod help;
pub mod input;
pub mod shape;
pub mod viewer;

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub use confirm::{ConfirmPopup, Pending};
pub use input::{InputPopup, InputPurpose};
pub use shape::ShapePopup;
pub use viewer::ViewerPopup;

use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::text::wrap;

#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    /// Read-only text: the help, a verdict's reasons, a diff, the log.
    Viewer(ViewerPopup),
    Confirm(ConfirmPopup),
    Input(InputPopup),
    /// One shape of the gate: its verdict, reason, samples, history and roofline.
    Shape(Box<ShapePopup>),
}

impl Popup {
    pub fn context(&self) -> Context {
        match self {
            Popup::Viewer(v) => v.context(),
            Popup::Confirm(_) => Context::Confirm,
            Popup::Input(_) => Context::Input,
            Popup::Shape(_) => Context::Viewer,
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        match self {
            Popup::Viewer(p) => p.draw(frame, area, theme),
            Popup::Confirm(p) => p.draw(frame, area, theme),
            Popup::Input(p) => p.draw(frame, area, theme),
            Popup::Shape(p) => p.draw(frame, area, theme),
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

/// Where a popup's parts go.
#[derive(Debug, Clone)]
pub struct Placed {
    pub rect: Rect,
    pub body: Rect,
    pub footer: Rect,
    /// The body wrapped to its width.
    pub lines: Vec<Line<'static>>,
}

impl Placed {
    /// The most the body can be scrolled.
    pub fn max_scroll(&self) -> usize {
        self.lines.len().saturating_sub(self.body.height as usize)
    }

    pub fn page(&self) -> usize {
        (self.body.height as usize).max(1)
    }
}

/// Lay out a popup of at most `max_width` columns in `area`: the footer (`footer_rows`)
/// first, the body gets what is left and scrolls.
pub fn place(area: Rect, max_width: u16, body: &[Line<'static>], footer_rows: u16) -> Placed {
    let width = area.width.min(max_width);
    let inner_width = width.saturating_sub(2).max(1) as usize;
    let lines: Vec<Line<'static>> = body.iter().flat_map(|l| wrap(l, inner_width)).collect();
    // A blank line between body and footer when there is a body.
    let gap = u16::from(!lines.is_empty());
    let wanted = (lines.len() as u16)
        .saturating_add(gap)
        .saturating_add(footer_rows)
        .saturating_add(2);
    let rect = centered(area, width, wanted.min(area.height));
    let inner = Block::default().borders(Borders::ALL).inner(rect);
    let footer_height = footer_rows.min(inner.height);
    let body_height = inner.height.saturating_sub(footer_height + gap);
    let body = Rect {
        height: body_height,
        ..inner
    };
    let footer = Rect {
        y: inner.y + inner.height - footer_height,
        height: footer_height,
        ..inner
    };
    Placed {
        rect,
        body,
        footer,
        lines,
    }
}

/// Scroll position after a scrolling key; None when the action is not about scrolling.
pub fn scrolled(scroll: usize, action: Option<Action>, placed: &Placed) -> Option<usize> {
    let max = placed.max_scroll();
    let page = placed.page();
    let next = match action? {
        Action::Down => scroll + 1,
        Action::Up => scroll.saturating_sub(1),
        Action::PageDown => scroll + page,
        Action::PageUp => scroll.saturating_sub(page),
        Action::HalfPageDown => scroll + (page / 2).max(1),
        Action::HalfPageUp => scroll.saturating_sub((page / 2).max(1)),
        Action::Top => 0,
        Action::Bottom => max,
        _ => return None,
    };
    Some(next.min(max))
}

/// Draw the frame: cleared background, border with the title, the visible part of the body
/// with how much more there is in the bottom border, and the footer.
pub fn render(
    frame: &mut Frame,
    placed: &Placed,
    title: &str,
    scroll: usize,
    footer: Vec<Line<'static>>,
    theme: Theme,
) {
    let scroll = scroll.min(placed.max_scroll());
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(
            crate::view::text::fit_end(
                &format!(" {title} "),
                placed.rect.width.saturating_sub(2) as usize,
            ),
            theme.title(),
        ));
    let visible = placed.body.height as usize;
    let below = placed.lines.len().saturating_sub(scroll + visible);
    if scroll > 0 || below > 0 {
        let text = match (scroll, below) {
            (0, b) => format!(" ↓ {b} more (↓ PgDn) "),
            (s, 0) => format!(" ↑ {s} above (↑ PgUp) "),
            (s, b) => format!(" ↑ {s} · ↓ {b} more "),
        };
        block = block.title_bottom(Line::styled(text, theme.key()).right_aligned());
    }
    frame.render_widget(Clear, placed.rect);
    frame.render_widget(block, placed.rect);
    let shown: Vec<Line> = placed
        .lines
        .iter()
        .skip(scroll)
        .take(visible)
        .cloned()
        .collect();
    frame.render_widget(Paragraph::new(shown), placed.body);
    frame.render_widget(Paragraph::new(footer), placed.footer);
}
