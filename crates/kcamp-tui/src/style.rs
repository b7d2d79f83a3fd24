//! The whole theme in one place. `NO_COLOR` (<https://no-color.org>) switches to a theme that
//! uses only bold/reverse/dim, so every cue still reads on a monochrome terminal.

use ratatui::style::{Color, Modifier, Style};

use kcamp_core::gate::{ShapeClass, Verdict};
use kcamp_core::types::Check;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub colored: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { colored: !no_color }
    }

    pub fn colored() -> Theme {
        Theme { colored: true }
    }

    pub fn plain() -> Theme {
        Theme { colored: false }
    }

    fn fg(self, color: Color) -> Style {
        if self.colored {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    pub fn text(self) -> Style {
        Style::new()
    }

    pub fn dim(self) -> Style {
        if self.colored {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn border(self, focused: bool) -> Style {
        match (focused, self.colored) {
            (true, true) => Style::new().fg(Color::Yellow),
            (true, false) => Style::new().add_modifier(Modifier::BOLD),
            (false, _) => self.dim(),
        }
    }

    /// The selected row: reversed, so every cell stays readable whatever its colour (a
    /// grey `RB` on a grey highlight was invisible).
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    pub fn key(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warning(self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn good(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn incumbent(self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    pub fn class(self, class: ShapeClass) -> Style {
        match class {
            ShapeClass::Improved => self.fg(Color::Green),
            ShapeClass::Neutral => self.text(),
            ShapeClass::Ambiguous => self.fg(Color::Magenta),
            ShapeClass::Regressed => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ShapeClass::Failed => self.error(),
        }
    }

    pub fn check(self, check: Check) -> Style {
        match check {
            Check::Pass => self.good(),
            _ => self.error(),
        }
    }

    pub fn verdict(self, verdict: Verdict) -> Style {
        match verdict {
            Verdict::Accept => self.good().add_modifier(Modifier::BOLD),
            Verdict::AcceptWithNote => self.good(),
            Verdict::NeedsRemeasure => self.warning(),
            Verdict::Reject => self.error(),
        }
    }

    /// Line colours of the metric chart: all measured rounds, and the accepted lineage.
    pub fn chart_measured(self) -> Style {
        self.fg(Color::Blue)
    }

    pub fn chart_lineage(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn gauge(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
}
