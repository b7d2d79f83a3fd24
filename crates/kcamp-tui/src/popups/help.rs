//! The help overlay: every binding of the key table, grouped by where it applies.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::keys::{Action, BINDINGS, Context, Scope};
use crate::style::Theme;
use crate::view::key_hints;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelpPopup {
    pub scroll: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpOutcome {
    Close,
    Stay,
}

/// Groups in display order; a binding is listed under the first group its scope matches.
type Group = (&'static str, fn(Scope) -> bool);

const GROUPS: [Group; 4] = [
    ("Everywhere", |s| s == Scope::Main),
    ("Focused panel", |s| matches!(s, Scope::Panels(_))),
    ("Confirmation popup", |s| s == Scope::Confirm),
    ("Text input popup", |s| s == Scope::Input),
];

impl HelpPopup {
    pub fn on_action(&mut self, action: Option<Action>) -> HelpOutcome {
        match action {
            Some(Action::Dismiss) => HelpOutcome::Close,
            Some(Action::Down) => {
                self.scroll = self
                    .scroll
                    .saturating_add(1)
                    .min(help_lines(Theme::plain()).len() as u16);
                HelpOutcome::Stay
            }
            Some(Action::Up) => {
                self.scroll = self.scroll.saturating_sub(1);
                HelpOutcome::Stay
            }
            _ => HelpOutcome::Stay,
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let lines = help_lines(theme);
        let rect = super::centered(area, 72, lines.len() as u16 + 3);
        let mut shown = lines;
        shown.push(Line::from(key_hints(Context::Help, theme)));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(" Keys ", theme.title()));
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(shown).block(block).scroll((self.scroll, 0)),
            rect,
        );
    }
}

fn help_lines(theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (heading, belongs) in GROUPS {
        lines.push(Line::styled(heading, theme.title()));
        for b in BINDINGS.iter().filter(|b| belongs(b.scope)) {
            let where_ = match b.scope {
                Scope::Panels(panels) => format!(
                    " [{}]",
                    panels
                        .iter()
                        .map(|p| p.title())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => String::new(),
            };
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<12}", b.key_names()), theme.key()),
                Span::raw(format!("{}{where_}", b.description)),
            ]));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_outside_the_help_itself_is_listed() {
        let text: String = help_lines(Theme::plain())
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect();
        for b in BINDINGS.iter().filter(|b| b.scope != Scope::Help) {
            assert!(text.contains(b.description), "missing: {}", b.description);
        }
    }

    #[test]
    fn scrolling_stays_in_range() {
        let mut h = HelpPopup::default();
        assert_eq!(h.on_action(Some(Action::Up)), HelpOutcome::Stay);
        assert_eq!(h.scroll, 0);
        for _ in 0..500 {
            h.on_action(Some(Action::Down));
        }
        assert_eq!(h.scroll as usize, help_lines(Theme::plain()).len());
        assert_eq!(h.on_action(Some(Action::Dismiss)), HelpOutcome::Close);
    }
}
