//! One line of text: a hypothesis, a reason (forced accept, rollback) or the shape filter.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::derive::Tone;
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{key_hints, tone_style};

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
    /// Context shown above the field (the verdict and its reasons).
    pub lines: Vec<(String, Tone)>,
    pub text: String,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    Submitted(String),
    Dismissed,
    Editing,
}

impl InputPopup {
    pub fn new(purpose: InputPurpose, title: impl Into<String>, text: impl Into<String>) -> Self {
        InputPopup {
            purpose,
            title: title.into(),
            lines: Vec::new(),
            text: text.into(),
            error: None,
        }
    }

    pub fn with_lines(mut self, lines: Vec<(String, Tone)>) -> Self {
        self.lines = lines;
        self
    }

    pub fn on_key(&mut self, action: Option<Action>, key: &KeyEvent) -> InputOutcome {
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
            _ => {
                if let KeyCode::Char(c) = key.code
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

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let width = area.width.saturating_sub(4).min(76);
        let inner_width = width.saturating_sub(2).max(1) as usize;
        let wrapped: usize = self
            .lines
            .iter()
            .map(|(t, _)| t.chars().count().div_ceil(inner_width).max(1))
            .sum();
        let height = (wrapped as u16).saturating_add(6);
        let rect = super::centered(area, width, height);
        let mut lines: Vec<Line> = self
            .lines
            .iter()
            .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
            .collect();
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(vec![
            Span::styled(format!("{}: ", self.purpose.prompt()), theme.key()),
            Span::raw(self.text.clone()),
            Span::styled("▏", theme.key()),
        ]));
        match &self.error {
            Some(e) => lines.push(Line::styled(e.clone(), theme.error())),
            None => lines.push(Line::default()),
        }
        lines.push(Line::from(key_hints(Context::Input, theme)));
        super::render_framed(frame, rect, &self.title, lines, &theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(popup: &mut InputPopup, text: &str) {
        for c in text.chars() {
            let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            popup.on_key(None, &key);
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
            p.on_key(Some(Action::Submit), &enter()),
            InputOutcome::Editing
        );
        assert_eq!(p.error.as_deref(), Some("a reason is required"));
        typed(&mut p, "ok");
        assert_eq!(p.error, None);
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter()),
            InputOutcome::Submitted("ok".into())
        );
    }

    #[test]
    fn the_filter_may_be_cleared_and_backspace_deletes() {
        let mut p = InputPopup::new(InputPurpose::Filter, "t", "ab");
        p.on_key(Some(Action::DeleteChar), &enter());
        p.on_key(Some(Action::DeleteChar), &enter());
        p.on_key(Some(Action::DeleteChar), &enter());
        assert_eq!(p.text, "");
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter()),
            InputOutcome::Submitted(String::new())
        );
    }
}
