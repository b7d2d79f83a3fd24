//! A yes/no question (accept, cancel a run, quit while running), or a notice when there
//! is nothing to confirm (a command that failed).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

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
}

/// What a key did to the popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmOutcome {
    Confirmed(Option<Pending>),
    Dismissed,
    Ignored,
}

impl ConfirmPopup {
    pub fn on_action(&self, action: Option<Action>) -> ConfirmOutcome {
        match action {
            Some(Action::Confirm) => ConfirmOutcome::Confirmed(self.on_confirm.clone()),
            Some(Action::Dismiss) => ConfirmOutcome::Dismissed,
            _ => ConfirmOutcome::Ignored,
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
        let height = (wrapped as u16).saturating_add(4);
        let rect = super::centered(area, width, height);
        let mut lines: Vec<Line> = self
            .lines
            .iter()
            .map(|(text, tone)| Line::styled(text.clone(), tone_style(theme, *tone)))
            .collect();
        lines.push(Line::default());
        lines.push(Line::from(key_hints(Context::Confirm, theme)));
        super::render_framed(frame, rect, &self.title, lines, &theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirm_returns_the_pending_action_and_notices_return_none() {
        let popup = ConfirmPopup {
            title: "t".into(),
            lines: vec![],
            on_confirm: Some(Pending::Quit),
        };
        assert_eq!(
            popup.on_action(Some(Action::Confirm)),
            ConfirmOutcome::Confirmed(Some(Pending::Quit))
        );
        assert_eq!(
            popup.on_action(Some(Action::Dismiss)),
            ConfirmOutcome::Dismissed
        );
        assert_eq!(popup.on_action(None), ConfirmOutcome::Ignored);
        let notice = ConfirmPopup {
            on_confirm: None,
            ..popup
        };
        assert_eq!(
            notice.on_action(Some(Action::Confirm)),
            ConfirmOutcome::Confirmed(None)
        );
    }
}
