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
/// The error line and the keys, under the field.
const FOOTER_ROWS: u16 = 2;
/// Lines the field wraps over at most: a reason the dashboard offers (a verdict in one line,
/// with the first failure's reason) is read whole before it is confirmed.
const FIELD_ROWS: usize = 4;

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
        let field = self.field(area).len() as u16;
        place(area, MAX_WIDTH, &body, FOOTER_ROWS + field)
    }

    fn prompt(&self) -> String {
        format!("{}: ", self.purpose.prompt())
    }

    /// The text as the field shows it in a popup placed in `area`: wrapped after the prompt
    /// (the cursor keeps a cell at the end), its last [`FIELD_ROWS`] lines, the first of
    /// them marked `…` when earlier ones are left out.
    fn field(&self, area: Rect) -> Vec<String> {
        let width = area.width.min(MAX_WIDTH).saturating_sub(2).max(1) as usize;
        let first = width.saturating_sub(text::width(&self.prompt()) + 1);
        let mut lines = text::chunks(&self.text, first, width.saturating_sub(1));
        if lines.is_empty() {
            lines.push(String::new());
        }
        if lines.len() > FIELD_ROWS {
            let cut = lines.len() - FIELD_ROWS;
            lines.drain(..cut);
            let room = if FIELD_ROWS == 1 { first } else { width - 1 };
            lines[0] = text::fit_start(&lines[0], room.saturating_sub(1));
            lines[0].insert(0, '…');
        }
        lines
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.placed(area, theme);
        let width = placed.footer.width as usize;
        // Wrapped, the whole of a long reason is in sight; past the rows the field has, its
        // end (where typing goes) stays in sight.
        let field = self.field(area);
        let last = field.len() - 1;
        let mut footer: Vec<Line> = field
            .into_iter()
            .enumerate()
            .map(|(i, piece)| {
                let mut spans = Vec::new();
                if i == 0 {
                    spans.push(Span::styled(self.prompt(), theme.key()));
                }
                spans.push(Span::raw(piece));
                if i == last {
                    spans.push(Span::styled("▏", theme.key()));
                }
                Line::from(spans)
            })
            .collect();
        footer.push(match &self.error {
            Some(e) => Line::styled(text::fit_end(e, width), theme.error()),
            None => Line::default(),
        });
        footer.push(key_hints(Context::Input, theme, width));
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
    fn a_long_reason_wraps_and_is_read_whole() {
        let reason = "gate REJECT · 3 shapes do not PASS: s16 (FAIL), s32 (FAIL, untimed), \
            s48 (FAIL, untimed) · s16: ./kernel/gemm.wgsl:33:5: expected `;`, found \"for\"";
        let p = InputPopup::new(InputPurpose::RollbackReason, "t", reason);
        let field = p.field(AREA);
        assert!(field.len() > 1 && field.len() <= FIELD_ROWS, "{field:?}");
        assert_eq!(
            field.concat(),
            reason,
            "every character, in order, from the start"
        );
        // Longer than the rows: the end stays, the start is marked as left out.
        let long = reason.repeat(4);
        let p = InputPopup::new(InputPurpose::RollbackReason, "t", long.as_str());
        let field = p.field(AREA);
        assert_eq!(field.len(), FIELD_ROWS);
        assert!(field[0].starts_with('…'), "{field:?}");
        assert!(long.ends_with(&field[1..].concat()));
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
