//! A read-only popup that scrolls and searches: the help, a verdict's reasons, a diff, the
//! log. `/` opens a search field under the text; every match is highlighted, the view moves
//! to the first one, `n`/`N` to the next and previous.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::field::TextField;
use super::{Placed, help, place, render, scrolled};
use crate::derive::Tone;
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{key_hints, text, tone_style};

#[derive(Debug, Clone, PartialEq)]
pub enum ViewerContent {
    /// Every binding of the key table.
    Help,
    Lines(Vec<(String, Tone)>),
    /// A unified diff: coloured by line (`+` added, `-` removed, `@@` hunks).
    Diff(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ViewerPopup {
    pub title: String,
    pub content: ViewerContent,
    pub scroll: usize,
    /// What `y` copies (the command that prints a diff); None: the text itself.
    pub copy: Option<String>,
    /// The search being typed (the field has the keys), or kept after Enter.
    pub search: Option<Search>,
    /// Start at the end (the log: the newest lines).
    pub at_end: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    pub field: TextField,
    pub typing: bool,
    /// Which match the view is on.
    pub current: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewerOutcome {
    Close,
    Stay,
    /// `y`: copy this text.
    Copy,
    /// A key that does nothing here.
    Unknown,
}

/// Widest a viewer gets.
const MAX_WIDTH: u16 = 120;

impl ViewerPopup {
    pub fn help() -> ViewerPopup {
        ViewerPopup::new("Keys", ViewerContent::Help)
    }

    pub fn lines(title: impl Into<String>, lines: Vec<(String, Tone)>) -> ViewerPopup {
        ViewerPopup::new(title, ViewerContent::Lines(lines))
    }

    pub fn diff(title: impl Into<String>, diff: String, command: String) -> ViewerPopup {
        let mut v = ViewerPopup::new(title, ViewerContent::Diff(diff));
        v.copy = Some(command);
        v
    }

    fn new(title: impl Into<String>, content: ViewerContent) -> ViewerPopup {
        ViewerPopup {
            title: title.into(),
            content,
            scroll: 0,
            copy: None,
            search: None,
            at_end: false,
        }
    }

    /// Keys go to the search field while one is typed.
    pub fn context(&self) -> Context {
        match &self.search {
            Some(s) if s.typing => Context::Input,
            _ => Context::Viewer,
        }
    }

    /// Pasted text goes into the search field while one is typed, as one line; false when
    /// no field takes it.
    pub fn paste(&mut self, text: &str, area: Rect) -> bool {
        let Some(search) = self.search.as_mut().filter(|s| s.typing) else {
            return false;
        };
        if search.field.paste(text) {
            search.current = 0;
            self.show_match(area);
        }
        true
    }

    pub fn on_key(&mut self, action: Option<Action>, key: &KeyEvent, area: Rect) -> ViewerOutcome {
        if let Some(search) = self.search.as_mut().filter(|s| s.typing) {
            match action {
                Some(Action::Submit) => search.typing = false,
                Some(Action::Dismiss) => self.search = None,
                Some(Action::Edit) | None => {
                    if search.field.edit(key) {
                        search.current = 0;
                        self.show_match(area);
                    }
                }
                other => self.scroll_by(other, area),
            }
            return ViewerOutcome::Stay;
        }
        match action {
            // Esc first clears a search, then closes.
            Some(Action::Dismiss)
                if self.search.is_some() && key.code == crossterm::event::KeyCode::Esc =>
            {
                self.search = None;
            }
            Some(Action::Dismiss) => return ViewerOutcome::Close,
            Some(Action::Filter) => {
                self.search = Some(Search {
                    field: TextField::new(""),
                    typing: true,
                    current: 0,
                });
            }
            Some(Action::NextMatch | Action::PrevMatch) => {
                let count = self.matches(area).len();
                if let Some(search) = self.search.as_mut()
                    && count > 0
                {
                    search.current = if action == Some(Action::NextMatch) {
                        (search.current + 1) % count
                    } else {
                        (search.current + count - 1) % count
                    };
                    self.show_match(area);
                }
            }
            Some(Action::Copy) => return ViewerOutcome::Copy,
            // A key the viewer has no use for (←, →, v) is said so, not dropped.
            None => return ViewerOutcome::Unknown,
            other => self.scroll_by(other, area),
        }
        ViewerOutcome::Stay
    }

    fn scroll_by(&mut self, action: Option<Action>, area: Rect) {
        let placed = self.placed(area, Theme::plain());
        let from = self.position(&placed);
        if let Some(s) = scrolled(from, action, &placed) {
            self.scroll = s;
            self.at_end = false;
        }
    }

    /// The scroll position in force: the end for a viewer that starts there.
    fn position(&self, placed: &Placed) -> usize {
        if self.at_end {
            placed.max_scroll()
        } else {
            self.scroll.min(placed.max_scroll())
        }
    }

    /// What `y` copies: the command, else the whole text.
    pub fn copy_text(&self) -> String {
        if let Some(command) = &self.copy {
            return command.clone();
        }
        self.body(Theme::plain())
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn needle(&self) -> Option<String> {
        let search = self.search.as_ref()?;
        let text = search.field.text().to_lowercase();
        (!text.is_empty()).then_some(text)
    }

    /// Rows (of the wrapped text) that hold a match.
    fn matches(&self, area: Rect) -> Vec<usize> {
        let Some(needle) = self.needle() else {
            return Vec::new();
        };
        self.placed(area, Theme::plain())
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_string().to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect()
    }

    /// Scroll so that the current match is in view, a few rows from the top.
    fn show_match(&mut self, area: Rect) {
        let matches = self.matches(area);
        let Some(search) = &self.search else {
            return;
        };
        if let Some(&row) = matches.get(search.current.min(matches.len().saturating_sub(1))) {
            let placed = self.placed(area, Theme::plain());
            self.scroll = row.saturating_sub(2).min(placed.max_scroll());
            self.at_end = false;
        }
    }

    fn body(&self, theme: Theme) -> Vec<Line<'static>> {
        match &self.content {
            ViewerContent::Help => help::help_lines(theme),
            ViewerContent::Lines(lines) => lines
                .iter()
                .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
                .collect(),
            ViewerContent::Diff(diff) => diff
                .lines()
                .map(|l| {
                    let style = if l.starts_with("+++") || l.starts_with("---") {
                        theme.title()
                    } else if l.starts_with("@@") {
                        theme.key()
                    } else if l.starts_with('+') {
                        theme.good()
                    } else if l.starts_with('-') {
                        theme.error()
                    } else {
                        theme.text()
                    };
                    Line::styled(l.to_owned(), style)
                })
                .collect(),
        }
    }

    fn footer_rows(&self) -> u16 {
        1 + u16::from(self.search.is_some())
    }

    fn placed(&self, area: Rect, theme: Theme) -> Placed {
        place(area, MAX_WIDTH, &self.body(theme), self.footer_rows())
    }

    /// Highlight every occurrence of the search in the visible rows (reversed cells).
    fn highlighted(&self, mut placed: Placed, theme: Theme) -> Placed {
        let Some(needle) = self.needle() else {
            return placed;
        };
        let mark = theme.selected();
        for line in &mut placed.lines {
            let plain = line.to_string();
            let lower = plain.to_lowercase();
            if !lower.contains(&needle) || lower.len() != plain.len() {
                continue;
            }
            // Cell styles of the line, then the matches reversed over them.
            let mut cells: Vec<(char, Style)> = line
                .spans
                .iter()
                .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
                .collect();
            let byte_to_char: Vec<usize> = plain.char_indices().map(|(b, _)| b).collect();
            for (start, m) in lower.match_indices(&needle) {
                let first = byte_to_char.iter().position(|&b| b == start).unwrap_or(0);
                let count = m.chars().count();
                for cell in cells.iter_mut().skip(first).take(count) {
                    cell.1 = cell.1.patch(mark);
                }
            }
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, style) in cells {
                match spans.last_mut() {
                    Some(s) if s.style == style => s.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), style)),
                }
            }
            line.spans = spans;
        }
        placed
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.highlighted(self.placed(area, theme), theme);
        let width = placed.footer.width as usize;
        let mut footer = Vec::new();
        if let Some(search) = &self.search {
            let count = self.matches(area).len();
            let found = match (count, search.field.text().is_empty()) {
                (_, true) => String::new(),
                (0, false) => "  no match".to_owned(),
                (n, false) => format!("  {}/{n}", (search.current % n) + 1),
            };
            let prompt = "search: ";
            let room = width.saturating_sub(text::width(&found));
            let mut line = search
                .field
                .lines(
                    prompt,
                    room,
                    1,
                    theme.key(),
                    if search.typing {
                        theme.selected()
                    } else {
                        Style::default()
                    },
                )
                .into_iter()
                .next()
                .unwrap_or_default();
            line.spans.push(Span::styled(found, theme.dim()));
            footer.push(line);
        }
        footer.push(key_hints(self.context(), theme, width));
        let scroll = self.position(&placed);
        render(frame, &placed, &self.title, scroll, footer, theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn press(
        v: &mut ViewerPopup,
        action: Option<Action>,
        code: KeyCode,
        area: Rect,
    ) -> ViewerOutcome {
        v.on_key(action, &KeyEvent::new(code, KeyModifiers::NONE), area)
    }

    #[test]
    fn scrolling_stays_in_range_and_follows_the_terminal_size() {
        let mut h = ViewerPopup::help();
        let small = Rect::new(0, 0, 80, 12);
        assert_eq!(
            press(&mut h, Some(Action::Up), KeyCode::Up, small),
            ViewerOutcome::Stay
        );
        assert_eq!(h.scroll, 0);
        for _ in 0..500 {
            press(&mut h, Some(Action::Down), KeyCode::Down, small);
        }
        let at_small = h.scroll;
        let lines = h.placed(small, Theme::plain()).lines.len();
        // 12 rows: border 2, footer 1, gap 1 leave 8 for the text.
        assert_eq!(at_small, lines - 8, "{at_small} of {lines}");
        press(&mut h, Some(Action::Top), KeyCode::Home, small);
        let big = Rect::new(0, 0, 200, 120);
        press(&mut h, Some(Action::Bottom), KeyCode::End, big);
        assert_eq!(h.scroll, 0, "everything fits: nothing to scroll");
        assert_eq!(
            press(&mut h, Some(Action::Dismiss), KeyCode::Esc, big),
            ViewerOutcome::Close
        );
    }

    #[test]
    fn a_search_moves_to_each_match_and_esc_clears_it_before_closing() {
        let lines = (0..100)
            .map(|i| {
                (
                    format!("line {i}{}", if i % 30 == 7 { " needle" } else { "" }),
                    Tone::Normal,
                )
            })
            .collect();
        let mut v = ViewerPopup::lines("t", lines);
        let area = Rect::new(0, 0, 80, 20);
        press(&mut v, Some(Action::Filter), KeyCode::Char('/'), area);
        assert_eq!(v.context(), Context::Input);
        for c in "NEEDLE".chars() {
            press(&mut v, None, KeyCode::Char(c), area);
        }
        assert_eq!(v.matches(area), [7, 37, 67, 97]);
        assert_eq!(v.scroll, 5, "the first match, two rows from the top");
        press(&mut v, Some(Action::Submit), KeyCode::Enter, area);
        assert_eq!(v.context(), Context::Viewer);
        press(&mut v, Some(Action::NextMatch), KeyCode::Char('n'), area);
        assert_eq!(v.scroll, 35);
        press(&mut v, Some(Action::PrevMatch), KeyCode::Char('N'), area);
        press(&mut v, Some(Action::PrevMatch), KeyCode::Char('N'), area);
        assert_eq!(v.search.as_ref().unwrap().current, 3, "wraps around");
        assert_eq!(
            press(&mut v, Some(Action::Dismiss), KeyCode::Esc, area),
            ViewerOutcome::Stay
        );
        assert!(v.search.is_none());
        assert_eq!(
            press(&mut v, Some(Action::Dismiss), KeyCode::Esc, area),
            ViewerOutcome::Close
        );
    }
}
