//! The whole theme in one place. `NO_COLOR` (<https://no-color.org>) switches to a theme that
//! uses only bold/reverse/dim, so every cue still reads on a monochrome terminal.

use ratatui::style::{Color, Modifier, Style};

use kcamp_core::gate::{ShapeClass, Verdict};
use kcamp_core::types::Check;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub colored: bool,
    pub palette: Palette,
}

/// The colours of a coloured theme (the config file's `[colors]` may change them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// Passes, improvements, the incumbent, the accepted lineage.
    pub good: Color,
    /// Failures and errors.
    pub bad: Color,
    /// Regressions and warnings.
    pub warn: Color,
    /// Panel titles and the live gauge.
    pub title: Color,
    /// Keys and the focused panel's border.
    pub key: Color,
    /// Secondary text.
    pub dim: Color,
    /// The chart's measured rounds.
    pub chart: Color,
}

impl Default for Palette {
    fn default() -> Palette {
        Palette {
            good: Color::Green,
            bad: Color::Red,
            warn: Color::Yellow,
            title: Color::Cyan,
            key: Color::Yellow,
            dim: Color::DarkGray,
            chart: Color::Blue,
        }
    }
}

impl Palette {
    /// Set the colour called `name` (one of the fields); an unknown name changes nothing.
    pub fn set(&mut self, name: &str, color: Color) {
        let slot = match name {
            "good" => &mut self.good,
            "bad" => &mut self.bad,
            "warn" => &mut self.warn,
            "title" => &mut self.title,
            "key" => &mut self.key,
            "dim" => &mut self.dim,
            "chart" => &mut self.chart,
            _ => return,
        };
        *slot = color;
    }
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme {
            colored: !no_color,
            palette: Palette::default(),
        }
    }

    pub fn colored() -> Theme {
        Theme {
            colored: true,
            palette: Palette::default(),
        }
    }

    pub fn plain() -> Theme {
        Theme {
            colored: false,
            palette: Palette::default(),
        }
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
            Style::new().fg(self.palette.dim)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(self) -> Style {
        self.fg(self.palette.title).add_modifier(Modifier::BOLD)
    }

    pub fn border(self, focused: bool) -> Style {
        match (focused, self.colored) {
            (true, true) => Style::new().fg(self.palette.key),
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
        self.fg(self.palette.key).add_modifier(Modifier::BOLD)
    }

    pub fn error(self) -> Style {
        self.fg(self.palette.bad).add_modifier(Modifier::BOLD)
    }

    pub fn warning(self) -> Style {
        self.fg(self.palette.warn)
    }

    pub fn good(self) -> Style {
        self.fg(self.palette.good)
    }

    pub fn incumbent(self) -> Style {
        self.fg(self.palette.good).add_modifier(Modifier::BOLD)
    }

    pub fn class(self, class: ShapeClass) -> Style {
        match class {
            ShapeClass::Improved => self.fg(self.palette.good),
            ShapeClass::Neutral => self.text(),
            ShapeClass::Ambiguous => self.fg(Color::Magenta),
            ShapeClass::Regressed => self.fg(self.palette.warn).add_modifier(Modifier::BOLD),
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
        self.fg(self.palette.chart)
    }

    pub fn chart_lineage(self) -> Style {
        self.fg(self.palette.good)
    }

    pub fn gauge(self) -> Style {
        self.fg(self.palette.title).add_modifier(Modifier::BOLD)
    }
}
