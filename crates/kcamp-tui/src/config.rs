//! The optional config file, `$XDG_CONFIG_HOME/kcamp/tui.toml` (else
//! `~/.config/kcamp/tui.toml`): keys of the main screen remapped, colours, the panel the
//! dashboard opens on. Nothing in it is fatal: a file that does not parse leaves every
//! default, a setting that does not read leaves that one, and each problem is named with its
//! line and column for the dashboard to say when it opens.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratatui::style::Color;
use serde::Deserialize;
use toml::Spanned;

use crate::keys::{self, Action, KeySpec, Panel};
use crate::style::Palette;

/// What the dashboard starts with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// Keys of the main screen given to actions in place of their own.
    pub remaps: Vec<(Action, KeySpec)>,
    pub palette: Palette,
    /// The panel focused at the start.
    pub focus: Option<Panel>,
    /// The focused panel over the whole screen from the start (`+`).
    pub zoom: bool,
    /// The key bar over several rows from the start (`.`).
    pub expand_key_bar: bool,
    /// `tui.toml:3:12: …`, each with what was used instead.
    pub problems: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    keys: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    colors: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    layout: RawLayout,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLayout {
    focus: Option<Spanned<String>>,
    #[serde(default)]
    zoom: bool,
    #[serde(default)]
    expand_key_bar: bool,
}

/// The actions a key can be given to, by the name the file uses.
pub const ACTIONS: &[(&str, Action)] = &[
    ("help", Action::Help),
    ("quit", Action::Quit),
    ("next-panel", Action::FocusNext),
    ("prev-panel", Action::FocusPrev),
    ("down", Action::Down),
    ("up", Action::Up),
    ("page-down", Action::PageDown),
    ("page-up", Action::PageUp),
    ("half-page-down", Action::HalfPageDown),
    ("half-page-up", Action::HalfPageUp),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("reasons", Action::Reasons),
    ("validate", Action::ValidateQuick),
    ("validate-full", Action::ValidateFull),
    ("new-round", Action::NewRound),
    ("accept", Action::Accept),
    ("rollback", Action::Rollback),
    ("sort", Action::SortByDelta),
    ("search", Action::Filter),
    ("diff", Action::Diff),
    ("edit-kernel", Action::EditKernel),
    ("open", Action::Open),
    ("log-viewer", Action::LogViewer),
    ("copy", Action::Copy),
    ("expand-key-bar", Action::ExpandBar),
    ("zoom", Action::Zoom),
    ("suspend", Action::Suspend),
];

/// The colours a file can set, by name.
const COLORS: &[&str] = &["good", "bad", "warn", "title", "key", "dim", "chart"];

/// Where the file is looked for.
pub fn path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("kcamp").join("tui.toml"))
}

/// The file read and parsed; no file is every default, silently.
pub fn load() -> Config {
    let Some(path) = path() else {
        return Config::default();
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Config::default(),
        Err(e) => Config {
            problems: vec![format!(
                "{}: cannot be read ({e}): every setting is at its default",
                path.display()
            )],
            ..Config::default()
        },
    }
}

/// `line:column` (1-based) of a byte offset in `text`.
fn at(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{line}:{column}")
}

pub fn parse(text: &str, name: &str) -> Config {
    let mut config = Config::default();
    let raw: Raw = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let place = e
                .span()
                .map_or(String::new(), |s| format!(":{}", at(text, s.start)));
            let message = e.message().trim_end_matches('\n').replace('\n', "; ");
            config.problems.push(format!(
                "{name}{place}: {message}: every setting is at its default"
            ));
            return config;
        }
    };
    let mut problem = |span: std::ops::Range<usize>, what: String| {
        config
            .problems
            .push(format!("{name}:{}: {what}", at(text, span.start)));
    };
    let mut remaps: Vec<(Action, KeySpec)> = Vec::new();
    for (action_name, key) in &raw.keys {
        let Some(&(_, action)) = ACTIONS.iter().find(|(n, _)| n == action_name) else {
            let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
            problem(
                key.span(),
                format!(
                    "no action is called '{action_name}' (the actions: {}); ignored",
                    names.join(", ")
                ),
            );
            continue;
        };
        let Some(spec) = keys::parse_key(key.get_ref()) else {
            problem(
                key.span(),
                format!(
                    "'{}' is not a key (a character, C-x, or Enter, Tab, Esc, Space, PgUp, PgDn, Home, End); {action_name} keeps its own",
                    key.get_ref()
                ),
            );
            continue;
        };
        let taken = remaps
            .iter()
            .find(|(_, k)| *k == spec)
            .map(|(a, _)| *a)
            .or_else(|| keys::main_action_of(spec).filter(|a| !raw_remapped(&raw, *a)));
        if let Some(other) = taken.filter(|a| *a != action) {
            problem(
                key.span(),
                format!(
                    "{} already does {}; {action_name} keeps its own key",
                    spec.name(),
                    action_name_of(other)
                ),
            );
            continue;
        }
        remaps.push((action, spec));
    }
    config.remaps = remaps;
    for (color_name, value) in &raw.colors {
        if !COLORS.contains(&color_name.as_str()) {
            problem(
                value.span(),
                format!(
                    "no colour is called '{color_name}' (the colours: {}); ignored",
                    COLORS.join(", ")
                ),
            );
            continue;
        }
        match value.get_ref().parse::<Color>() {
            Ok(color) => config.palette.set(color_name, color),
            Err(_) => problem(
                value.span(),
                format!(
                    "'{}' is not a colour (a name such as light-blue, #rrggbb, or 0–255); {color_name} keeps its default",
                    value.get_ref()
                ),
            ),
        }
    }
    if let Some(focus) = &raw.layout.focus {
        let wanted = focus.get_ref().to_lowercase();
        let panel = Panel::ALL.into_iter().find(|p| {
            p.number().to_string() == wanted
                || p.title().to_lowercase() == wanted
                || p.title().to_lowercase().split(' ').next() == Some(wanted.as_str())
        });
        match panel {
            Some(p) => config.focus = Some(p),
            None => problem(
                focus.span(),
                format!(
                    "no panel is called '{}' (1–6, or rounds, gate, metric, live, details, log); the focus starts on 1 Rounds",
                    focus.get_ref()
                ),
            ),
        }
    }
    config.zoom = raw.layout.zoom;
    config.expand_key_bar = raw.layout.expand_key_bar;
    config
}

/// The action is given a key of its own in the file (so its old key is free).
fn raw_remapped(raw: &Raw, action: Action) -> bool {
    raw.keys
        .keys()
        .any(|n| ACTIONS.iter().any(|(name, a)| *a == action && name == n))
}

fn action_name_of(action: Action) -> String {
    if let Action::Focus(panel) = action {
        return format!("panel {} {}", panel.number(), panel.title());
    }
    ACTIONS
        .iter()
        .find(|(_, a)| *a == action)
        .map_or_else(|| format!("{action:?}"), |(n, _)| (*n).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyCode;

    #[test]
    fn keys_colours_and_layout_are_read() {
        let c = parse(
            "[keys]\nvalidate = \"x\"\ndiff = \"D\"\n\n[colors]\ngood = \"#00ff88\"\n\n[layout]\nfocus = \"gate\"\nzoom = true\n",
            "tui.toml",
        );
        assert_eq!(c.problems, Vec::<String>::new());
        assert!(c.remaps.contains(&(
            Action::ValidateQuick,
            KeySpec {
                code: KeyCode::Char('x'),
                ctrl: false
            }
        )));
        assert_eq!(c.palette.good, Color::Rgb(0, 0xff, 0x88));
        assert_eq!(c.focus, Some(Panel::Gate));
        assert!(c.zoom);
    }

    #[test]
    fn errors_are_named_with_line_and_column_and_leave_defaults() {
        let c = parse("[keys]\nvalidate = \"x\"\n[layout\n", "tui.toml");
        assert_eq!(c.remaps, []);
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].starts_with("tui.toml:3:"), "{:?}", c.problems);
        assert!(c.problems[0].ends_with("every setting is at its default"));
        let c = parse(
            "[keys]\nvaldate = \"x\"\ndiff = \"v\"\n[colors]\ngood = \"greenish\"\n[layout]\nfocus = \"7\"\nzom = true\n",
            "tui.toml",
        );
        // An unknown key of a table refuses the file: a typo must not pass unnoticed.
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(
            c.problems[0].starts_with("tui.toml:8:1:"),
            "{:?}",
            c.problems
        );
        let c = parse(
            "[keys]\nvaldate = \"x\"\ndiff = \"v\"\n[colors]\ngood = \"greenish\"\n[layout]\nfocus = \"7\"\n",
            "tui.toml",
        );
        assert_eq!(c.problems.len(), 4, "{:?}", c.problems);
        assert!(c.problems[0].starts_with("tui.toml:3:8: v already does validate"));
        assert!(c.problems[1].starts_with("tui.toml:2:11: no action is called 'valdate'"));
        assert!(c.problems[2].starts_with("tui.toml:5:8: 'greenish' is not a colour"));
        assert!(c.problems[3].starts_with("tui.toml:7:9: no panel is called '7'"));
        assert_eq!(c.remaps, []);
        assert_eq!(c.palette, Palette::default());
        assert_eq!(c.focus, None);
    }

    #[test]
    fn a_remapped_action_frees_its_key_for_another() {
        let c = parse("[keys]\nvalidate = \"x\"\ndiff = \"v\"\n", "tui.toml");
        assert_eq!(c.problems, Vec::<String>::new());
        assert_eq!(c.remaps.len(), 2);
    }
}
