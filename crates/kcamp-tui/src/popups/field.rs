//! One line of editable text, through `tui-input`: the cursor moves (←/→, Home/End, C-a/C-e,
//! C-b/C-f, C-←/C-→), and the readline keys delete (C-u to the start, C-w a word, C-k to the
//! end, Delete, Backspace). Drawn wrapped over a few rows, the cursor always in sight.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tui_input::backend::crossterm::to_input_request;
use tui_input::{Input, InputRequest};
use unicode_segmentation::UnicodeSegmentation;

use crate::view::text;

#[derive(Debug, Clone, Default)]
pub struct TextField {
    input: Input,
}

/// Two fields are alike when their text and cursor are.
impl PartialEq for TextField {
    fn eq(&self, other: &TextField) -> bool {
        self.input.value() == other.input.value() && self.input.cursor() == other.input.cursor()
    }
}

impl TextField {
    pub fn new(text: impl Into<String>) -> TextField {
        TextField {
            input: Input::new(text.into()),
        }
    }

    pub fn text(&self) -> &str {
        self.input.value()
    }

    /// The cursor's position, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.input.cursor()
    }

    /// Apply an editing key; true when the text changed. Keys that are no edit (Enter, Esc,
    /// a function key) change nothing.
    pub fn edit(&mut self, key: &KeyEvent) -> bool {
        // C-a and C-e reach the terminal as letters with CONTROL; Alt-letters as META or ALT.
        let request = match (key.code, key.modifiers) {
            (KeyCode::Char(c), m) if m.contains(KeyModifiers::ALT) && c == 'b' => {
                Some(InputRequest::GoToPrevWord)
            }
            (KeyCode::Char(c), m) if m.contains(KeyModifiers::ALT) && c == 'f' => {
                Some(InputRequest::GoToNextWord)
            }
            _ => to_input_request(&Event::Key(*key)),
        };
        let before = self.input.value().to_owned();
        if let Some(request) = request {
            self.input.handle(request);
        }
        self.input.value() != before
    }

    /// Insert pasted text at the cursor, as one line: a line break (CR, LF or CRLF), a TAB
    /// and any other control character become one space each, so a paste never submits
    /// and never loses a word boundary. True when the text changed.
    pub fn paste(&mut self, text: &str) -> bool {
        let before = self.input.value().to_owned();
        for c in one_line(text).chars() {
            self.input.handle(InputRequest::InsertChar(c));
        }
        self.input.value() != before
    }

    /// The field as rows of at most `width` cells: `prompt` then the text, wrapped; the
    /// cursor a reversed cell. Past `max_rows`, the rows around the cursor, the first one
    /// kept marked `…` when rows before it are left out.
    pub fn lines(
        &self,
        prompt: &str,
        width: usize,
        max_rows: usize,
        prompt_style: Style,
        cursor_style: Style,
    ) -> Vec<Line<'static>> {
        let width = width.max(2);
        let value = self.input.value();
        let cursor = self.input.cursor();
        // Cells of the prompt, the text, and one more for a cursor at the end.
        // One cell per grapheme cluster, so an accent typed after its letter stays on it;
        // the cursor (counted in characters) is on the cluster that holds it.
        let mut cells: Vec<(String, Style)> = prompt
            .graphemes(true)
            .map(|c| (c.to_owned(), prompt_style))
            .collect();
        let mut at = None;
        let mut chars = 0;
        for cluster in value.graphemes(true) {
            let count = cluster.chars().count();
            if at.is_none() && cursor < chars + count {
                at = Some(cells.len());
            }
            chars += count;
            cells.push((text::printable(cluster).into_owned(), Style::default()));
        }
        cells.push((" ".to_owned(), Style::default()));
        let at = at.unwrap_or(cells.len() - 1);
        cells[at].1 = cursor_style;
        let mut rows: Vec<Vec<(String, Style)>> = Vec::new();
        let mut row = Vec::new();
        let mut used = 0;
        let mut cursor_row = 0;
        for (i, (c, style)) in cells.into_iter().enumerate() {
            let w = text::width(&c).max(1);
            if used + w > width && !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            if i == at {
                cursor_row = rows.len();
            }
            used += w;
            row.push((c, style));
        }
        rows.push(row);
        let max_rows = max_rows.max(1);
        let first = if rows.len() <= max_rows {
            0
        } else {
            // The cursor's row last in view (or the end, when the cursor is there).
            (cursor_row + 1)
                .saturating_sub(max_rows)
                .min(rows.len() - max_rows)
        };
        let last = (first + max_rows).min(rows.len());
        rows[first..last]
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let mut spans: Vec<Span<'static>> = row
                    .iter()
                    .map(|(c, style)| Span::styled(c.clone(), *style))
                    .collect();
                if i == 0 && first > 0 {
                    spans[0] = Span::styled(text::ELLIPSIS.to_string(), prompt_style);
                }
                Line::from(spans)
            })
            .collect()
    }
}

/// `text` as one line: CRLF, CR, LF, TAB and other control characters each become a space.
pub fn one_line(text: &str) -> String {
    text.replace("\r\n", "\n")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(field: &mut TextField, code: KeyCode, modifiers: KeyModifiers) -> bool {
        field.edit(&KeyEvent::new(code, modifiers))
    }

    fn typed(field: &mut TextField, text: &str) {
        for c in text.chars() {
            press(field, KeyCode::Char(c), KeyModifiers::NONE);
        }
    }

    #[test]
    fn the_cursor_moves_and_the_readline_keys_delete() {
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        let mut f = TextField::new("");
        typed(&mut f, "tile 64 wide");
        press(&mut f, KeyCode::Left, none);
        press(&mut f, KeyCode::Left, none);
        typed(&mut f, "x");
        assert_eq!(f.text(), "tile 64 wixde");
        press(&mut f, KeyCode::Char('a'), ctrl);
        assert_eq!(f.cursor(), 0);
        typed(&mut f, "> ");
        press(&mut f, KeyCode::End, none);
        assert!(
            press(&mut f, KeyCode::Char('w'), ctrl),
            "C-w deletes a word"
        );
        assert_eq!(f.text(), "> tile 64 ");
        press(&mut f, KeyCode::Home, none);
        press(&mut f, KeyCode::Right, none);
        press(&mut f, KeyCode::Right, none);
        assert!(
            press(&mut f, KeyCode::Char('k'), ctrl),
            "C-k deletes to the end"
        );
        assert_eq!(f.text(), "> ");
        press(&mut f, KeyCode::Char('u'), ctrl);
        assert_eq!(f.text(), "");
        assert!(!press(&mut f, KeyCode::Enter, none), "Enter is no edit");
    }

    #[test]
    fn a_paste_is_one_line_inserted_at_the_cursor() {
        let mut f = TextField::new("ab");
        press(&mut f, KeyCode::Left, KeyModifiers::NONE);
        assert!(f.paste("first line\r\nsecond\tcol\nthird\u{7}"));
        assert_eq!(f.text(), "afirst line second col third b");
        assert_eq!(f.cursor(), "afirst line second col third ".chars().count());
        assert!(!f.paste(""), "an empty paste changes nothing");
    }

    #[test]
    fn an_accent_typed_after_its_letter_stays_on_it() {
        let mut f = TextField::new("cafe\u{301}");
        let cursor = Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let rows = f.lines("> ", 20, 1, Style::default(), cursor);
        assert_eq!(rows[0].to_string(), "> cafe\u{301} ");
        assert!(rows[0].spans.iter().any(|s| s.content == "e\u{301}"));
        // The cursor on the accent (between its two characters) marks the whole cluster.
        press(&mut f, KeyCode::Left, KeyModifiers::NONE);
        let rows = f.lines("> ", 20, 1, Style::default(), cursor);
        let marked: Vec<&str> = rows[0]
            .spans
            .iter()
            .filter(|s| s.style == cursor)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, ["e\u{301}"]);
    }

    #[test]
    fn a_long_text_wraps_and_keeps_the_cursor_in_sight() {
        let mut f = TextField::new("a".repeat(100));
        let plain = Style::default();
        let cursor = Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let rows = f.lines("reason: ", 20, 3, plain, cursor);
        assert_eq!(rows.len(), 3);
        assert!(rows[0].to_string().starts_with('…'), "{rows:?}");
        let has_cursor = |rows: &[Line]| {
            rows.iter()
                .any(|r| r.spans.iter().any(|s| s.style == cursor))
        };
        assert!(has_cursor(&rows));
        press(&mut f, KeyCode::Home, KeyModifiers::NONE);
        let rows = f.lines("reason: ", 20, 3, plain, cursor);
        assert!(rows[0].to_string().starts_with("reason: "), "{rows:?}");
        assert!(has_cursor(&rows));
        assert!(rows.iter().all(|r| r.width() <= 20));
    }
}
