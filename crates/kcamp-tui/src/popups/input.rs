//! One line of text: a hypothesis, a reason (forced accept, rollback), a search, a path.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::field::TextField;
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
    /// A search of a panel's list: the gate's shapes by label, the rounds by hypothesis,
    /// the log by text.
    Filter(crate::keys::Panel),
    /// The CSV an imported campaign's validation reads (`kcamp validate --csv PATH`).
    CsvPath {
        full: bool,
    },
    /// The CSV of the confirming full validation an imported campaign's accept needs.
    AcceptCsv,
}

impl InputPurpose {
    /// A search may be empty (it clears); everything else is needed.
    fn allows_empty(self) -> bool {
        matches!(self, InputPurpose::Filter(_))
    }

    fn prompt(self) -> &'static str {
        match self {
            InputPurpose::Hypothesis => "hypothesis",
            InputPurpose::ForceReason | InputPurpose::RollbackReason => "reason",
            InputPurpose::Filter(crate::keys::Panel::Gate) => "label contains",
            InputPurpose::Filter(crate::keys::Panel::Rounds) => "hypothesis contains",
            InputPurpose::Filter(_) => "contains",
            InputPurpose::CsvPath { .. } | InputPurpose::AcceptCsv => "CSV path",
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
    pub field: TextField,
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
            field: TextField::new(text),
            error: None,
            scroll: 0,
        }
    }

    pub fn with_lines(mut self, lines: Vec<(String, Tone)>) -> Self {
        self.lines = lines;
        self
    }

    /// The text as typed so far.
    pub fn text(&self) -> &str {
        self.field.text()
    }

    /// Pasted text goes into the field as one line (never a submit).
    pub fn paste(&mut self, text: &str) {
        if self.field.paste(text) {
            self.error = None;
        }
    }

    /// `area` is where the popup is drawn (for scrolling by pages).
    pub fn on_key(&mut self, action: Option<Action>, key: &KeyEvent, area: Rect) -> InputOutcome {
        match action {
            Some(Action::Submit) => {
                let text = self.field.text().trim().to_owned();
                if text.is_empty() && !self.purpose.allows_empty() {
                    self.error = Some(format!("a {} is required", self.purpose.prompt()));
                    InputOutcome::Editing
                } else {
                    InputOutcome::Submitted(text)
                }
            }
            Some(Action::Dismiss) => InputOutcome::Dismissed,
            Some(Action::Edit) | None => {
                if self.field.edit(key) {
                    self.error = None;
                }
                InputOutcome::Editing
            }
            other => {
                if let Some(s) = scrolled(self.scroll, other, &self.placed(area, Theme::plain())) {
                    self.scroll = s;
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
        let field = self.field(area, theme).len() as u16;
        place(area, MAX_WIDTH, &body, FOOTER_ROWS + field)
    }

    fn prompt(&self) -> String {
        format!("{}: ", self.purpose.prompt())
    }

    /// The field's rows in a popup placed in `area`: wrapped, at most [`FIELD_ROWS`], the
    /// cursor in sight.
    fn field(&self, area: Rect, theme: Theme) -> Vec<Line<'static>> {
        let width = area.width.min(MAX_WIDTH).saturating_sub(2).max(1) as usize;
        self.field.lines(
            &self.prompt(),
            width,
            FIELD_ROWS,
            theme.key(),
            theme.selected(),
        )
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.placed(area, theme);
        let width = placed.footer.width as usize;
        // Wrapped, the whole of a long reason is in sight; past the rows the field has, the
        // rows around the cursor.
        let mut footer = self.field(area, theme);
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
    use crossterm::event::{KeyCode, KeyModifiers};

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

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
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
            s48 (FAIL, untimed) · s16: kernel/gemm.wgsl:33:5: expected `;`, found \"for\"";
        let p = InputPopup::new(InputPurpose::RollbackReason, "t", reason);
        let field = plain(&p.field(AREA, Theme::plain()));
        assert!(field.len() > 1 && field.len() <= FIELD_ROWS, "{field:?}");
        let whole = field.concat();
        assert_eq!(
            whole.trim_end().trim_start_matches("reason: "),
            reason,
            "every character, in order, from the start"
        );
        // Longer than the rows: the end (where the cursor is) stays, the start is marked.
        let long = reason.repeat(4);
        let p = InputPopup::new(InputPurpose::RollbackReason, "t", long.as_str());
        let field = plain(&p.field(AREA, Theme::plain()));
        assert_eq!(field.len(), FIELD_ROWS);
        assert!(field[0].starts_with('…'), "{field:?}");
        assert!(long.ends_with(field[1..].concat().trim_end()));
    }

    #[test]
    fn a_search_may_be_cleared_and_backspace_deletes() {
        let mut p = InputPopup::new(InputPurpose::Filter(crate::keys::Panel::Gate), "t", "ab");
        let bksp = KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE);
        for _ in 0..3 {
            p.on_key(Some(Action::Edit), &bksp, AREA);
        }
        assert_eq!(p.text(), "");
        assert_eq!(
            p.on_key(Some(Action::Submit), &enter(), AREA),
            InputOutcome::Submitted(String::new())
        );
    }
}
