//! One line of text: a hypothesis, a reason (forced accept, rollback) or the shape filter.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Placed, place, render, scrolled};
use crate::derive::Tone;
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{key_hints, text, tone_style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputPurpose {
    Hypothesis,
    ForceReason,
    RollbackReason,
    Filter,
}

impl InputPurpose {
    /// The filter may be empty (it clears); everything else is recorded and needs text.
    fn allows_empty(self) -> bool {
        self == InputPurpose::Filter
    }

    fn prompt(self) -> &'static str {
        match self {
            InputPurpose::Hypothesis => "hypothesis",
            InputPurpose::ForceReason | InputPurpose::RollbackReason => "reason",
            InputPurpose::Filter => "label contains",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct InputPopup {
    pub purpose: InputPurpose,
    pub title: String,
    /// Context shown above the field (the verdict and its reasons); it scrolls, the field
    /// does not.
    pub lines: Vec<(String, Tone)>,
    pub text: String,
    pub error: Option<String>,
    pub scroll: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    Submitted(String),
    Dismissed,
    Editing,
}

/// Widest an input popup gets.
const MAX_WIDTH: u16 = 96;
/// The field, its error line and the keys.
const FOOTER_ROWS: u16 = 3;

impl InputPopup {
    pub fn new(purpose: InputPurpose, title: impl Into<String>, text: impl Into<String>) -> Self {
        InputPopup {
            purpose,
            title: title.into(),
            lines: Vec::new(),
            text: text.into(),
            error: None,
            scroll: 0,
        }
    }

    pub fn with_lines(mut self, lines: Vec<(String, Tone)>) -> Self {
        self.lines = lines;
        self
    }

    /// `area` is where the popup is drawn (for scrolling by pages).
    pub fn on_key(&mut self, action: Option<Action>, key: &KeyEvent, area: Rect) -> InputOutcome {
        match action {
            Some(Action::Submit) => {
                let text = self.text.trim().to_owned();
                if text.is_empty() && !self.purpose.allows_empty() {
                    self.error = Some(format!("a {} is required", self.purpose.prompt()));
                    InputOutcome::Editing
                } else {
                    InputOutcome::Submitted(text)
                }
            }
            Some(Action::Dismiss) => InputOutcome::Dismissed,
            Some(Action::DeleteChar) => {
                self.text.pop();
                InputOutcome::Editing
            }
            other => {
                if let Some(s) = scrolled(self.scroll, other, &self.placed(area, Theme::plain())) {
                    self.scroll = s;
                } else if let KeyCode::Char(c) = key.code
                    && !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                {
                    self.text.push(c);
                    self.error = None;
                }
                InputOutcome::Editing
            }
        }
    }

    fn placed(&self, area: Rect, theme: Theme) -> Placed {
        let body: Vec<Line<'static>> = self
            .lines
            .iter()
            .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
            .collect();
        place(area, MAX_WIDTH, &body, FOOTER_ROWS)
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.placed(area, theme);
        let width = placed.footer.width as usize;
        let prompt = format!("{}: ", self.purpose.prompt());
        // The end of the text stays in sight while it grows past the field.
        let room = width.saturating_sub(text::width(&prompt) + 1);
        let field = Line::from(vec![
            Span::styled(prompt, theme.key()),
            Span::raw(text::fit_start(&self.text, room)),
            Span::styled("▏", theme.key()),
        ]);
        let error = match &self.error {
            Some(e) => Line::styled(text::fit_end(e, width), theme.error()),
            None => Line::default(),
        };
        let footer = vec![field, error, key_hints(Context::Input, theme, width)];
        render(frame, &placed, &self.title, self.scroll, footer, theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: Rect = Rect::new(0, 0, 80, 24);

    fn typed(popup: &mut InputPopup, text: &str) {
        for c in text.chars() {
            let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            popup.on_key(None, &key, AREA);
        }
    }

    fn enter() -> KeyEvent {
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
    }

    #[test]
    fn a_reason_cannot_be_blank() {
        let mut p = InputPopup::new(InputPurpose::ForceReason, "t", "");
        typed(&mut p, "   ");
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter(), AREA),
            InputOutcome::Editing
        );
        assert_eq!(p.error.as_deref(), Some("a reason is required"));
        typed(&mut p, "ok");
        assert_eq!(p.error, None);
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter(), AREA),
            InputOutcome::Submitted("ok".into())
        );
    }

    #[test]
    fn the_filter_may_be_cleared_and_backspace_deletes() {
        let mut p = InputPopup::new(InputPurpose::Filter, "t", "ab");
        p.on_key(Some(Action::DeleteChar), &enter(), AREA);
        p.on_key(Some(Action::DeleteChar), &enter(), AREA);
        p.on_key(Some(Action::DeleteChar), &enter(), AREA);
        assert_eq!(p.text, "");
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter(), AREA),
            InputOutcome::Submitted(String::new())
        );
    }
}
