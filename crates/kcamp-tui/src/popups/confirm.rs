//! A yes/no question (accept, cancel a run, quit while running), or a notice when there
//! is nothing to confirm (a command that failed).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{place, render, scrolled};
use crate::commands::CampaignCommand;
use crate::derive::Tone;
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{key_hints, tone_style};

/// What confirming does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    Spawn(CampaignCommand),
    CancelRun,
    Quit,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmPopup {
    pub title: String,
    pub lines: Vec<(String, Tone)>,
    /// None: a notice, any answer closes it.
    pub on_confirm: Option<Pending>,
    pub scroll: usize,
}

/// What a key did to the popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmOutcome {
    Confirmed(Option<Pending>),
    Dismissed,
    Ignored,
}

/// Widest a confirmation gets.
const MAX_WIDTH: u16 = 96;

impl ConfirmPopup {
    pub fn new(
        title: impl Into<String>,
        lines: Vec<(String, Tone)>,
        on_confirm: Option<Pending>,
    ) -> Self {
        ConfirmPopup {
            title: title.into(),
            lines,
            on_confirm,
            scroll: 0,
        }
    }

    /// `area` is where the popup is drawn (for scrolling by pages).
    pub fn on_action(&mut self, action: Option<Action>, area: Rect) -> ConfirmOutcome {
        match action {
            Some(Action::Confirm) => ConfirmOutcome::Confirmed(self.on_confirm.clone()),
            Some(Action::Dismiss) => ConfirmOutcome::Dismissed,
            other => {
                if let Some(s) = scrolled(self.scroll, other, &self.placed(area, Theme::plain())) {
                    self.scroll = s;
                }
                ConfirmOutcome::Ignored
            }
        }
    }

    fn body(&self, theme: Theme) -> Vec<Line<'static>> {
        self.lines
            .iter()
            .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
            .collect()
    }

    fn placed(&self, area: Rect, theme: Theme) -> super::Placed {
        place(area, MAX_WIDTH, &self.body(theme), 1)
    }

    /// A notice: nothing to confirm, every answer closes it.
    pub fn is_notice(&self) -> bool {
        self.on_confirm.is_none()
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = self.placed(area, theme);
        let width = placed.footer.width as usize;
        let hints = if self.on_confirm.is_some() {
            key_hints(Context::Confirm, theme, width)
        } else {
            notice_hints(theme)
        };
        render(frame, &placed, &self.title, self.scroll, vec![hints], theme);
    }
}

/// The keys of a notice, in its footer and the key bar alike: each of the confirmation's
/// answers closes it.
pub fn notice_hints(theme: Theme) -> Line<'static> {
    let keys: Vec<String> = crate::keys::bindings_for(Context::Confirm)
        .map(crate::keys::Binding::key_names)
        .collect();
    Line::from(vec![
        ratatui::text::Span::styled(format!(" {}", keys.join("/")), theme.key()),
        ratatui::text::Span::styled(" close ", theme.dim()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirm_returns_the_pending_action_and_notices_return_none() {
        let mut popup = ConfirmPopup::new("t", vec![], Some(Pending::Quit));
        let area = Rect::new(0, 0, 80, 24);
        assert_eq!(
            popup.on_action(Some(Action::Confirm), area),
            ConfirmOutcome::Confirmed(Some(Pending::Quit))
        );
        assert_eq!(
            popup.on_action(Some(Action::Dismiss), area),
            ConfirmOutcome::Dismissed
        );
        assert_eq!(popup.on_action(None, area), ConfirmOutcome::Ignored);
        let mut notice = ConfirmPopup {
            on_confirm: None,
            ..popup
        };
        assert_eq!(
            notice.on_action(Some(Action::Confirm), area),
            ConfirmOutcome::Confirmed(None)
        );
    }

    #[test]
    fn a_long_body_scrolls_within_its_bounds() {
        let lines = (0..100)
            .map(|i| (format!("reason {i}"), Tone::Normal))
            .collect();
        let mut popup = ConfirmPopup::new("t", lines, Some(Pending::Quit));
        let area = Rect::new(0, 0, 80, 24);
        popup.on_action(Some(Action::PageDown), area);
        assert!(popup.scroll > 10, "{}", popup.scroll);
        popup.on_action(Some(Action::Bottom), area);
        let max = popup.scroll;
        popup.on_action(Some(Action::Down), area);
        assert_eq!(popup.scroll, max, "never past the end");
        // 24 rows: border 2, footer 1, gap 1.
        assert_eq!(max, 100 - 20);
        popup.on_action(Some(Action::Top), area);
        assert_eq!(popup.scroll, 0);
    }
}
