//! A read-only popup that scrolls: the help, or every reason of a verdict.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Placed, help, place, render, scrolled};
use crate::derive::Tone;
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{key_hints, tone_style};

#[derive(Debug, Clone, PartialEq)]
pub enum ViewerContent {
    /// Every binding of the key table.
    Help,
    Lines(Vec<(String, Tone)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ViewerPopup {
    pub title: String,
    pub content: ViewerContent,
    pub scroll: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewerOutcome {
    Close,
    Stay,
}

/// Widest a viewer gets.
const MAX_WIDTH: u16 = 100;

impl ViewerPopup {
    pub fn help() -> ViewerPopup {
        ViewerPopup {
            title: "Keys".into(),
            content: ViewerContent::Help,
            scroll: 0,
        }
    }

    pub fn lines(title: impl Into<String>, lines: Vec<(String, Tone)>) -> ViewerPopup {
        ViewerPopup {
            title: title.into(),
            content: ViewerContent::Lines(lines),
            scroll: 0,
        }
    }

    pub fn on_action(&mut self, action: Option<Action>, area: Rect) -> ViewerOutcome {
        if action == Some(Action::Dismiss) {
            return ViewerOutcome::Close;
        }
        if let Some(s) = scrolled(self.scroll, action, &self.placed(area, Theme::plain())) {
            self.scroll = s;
        }
        ViewerOutcome::Stay
    }

    fn body(&self, theme: Theme) -> Vec<Line<'static>> {
        match &self.content {
            ViewerContent::Help => help::help_lines(theme),
            ViewerContent::Lines(lines) => lines
                .iter()
                .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
                .collect(),
        }
    }

    fn placed(&self, area: Rect, theme: Theme) -> Placed {
        place(area, MAX_WIDTH, &self.body(theme), 1)
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.placed(area, theme);
        let hints = key_hints(Context::Viewer, theme, placed.footer.width as usize);
        render(frame, &placed, &self.title, self.scroll, vec![hints], theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_stays_in_range_and_follows_the_terminal_size() {
        let mut h = ViewerPopup::help();
        let small = Rect::new(0, 0, 80, 12);
        assert_eq!(h.on_action(Some(Action::Up), small), ViewerOutcome::Stay);
        assert_eq!(h.scroll, 0);
        for _ in 0..500 {
            h.on_action(Some(Action::Down), small);
        }
        let at_small = h.scroll;
        let lines = help::help_lines(Theme::plain()).len();
        // 12 rows: border 2, footer 1, gap 1 leave 8 for the text.
        assert!(at_small >= lines - 8, "{at_small} of {lines}");
        h.on_action(Some(Action::Top), small);
        let big = Rect::new(0, 0, 160, 60);
        h.on_action(Some(Action::Bottom), big);
        assert_eq!(h.scroll, 0, "everything fits: nothing to scroll");
        assert_eq!(
            h.on_action(Some(Action::Dismiss), big),
            ViewerOutcome::Close
        );
    }
}
