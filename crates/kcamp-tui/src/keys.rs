//! Every key binding in one table. The bottom bar and the help overlay are generated from
//! [`BINDINGS`], and [`resolve`] dispatches through it, so the three cannot disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The six panels, in Tab order; `1`–`6` pick them directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Panel {
    Rounds,
    Gate,
    Chart,
    Live,
    Details,
    Log,
}

impl Panel {
    pub const ALL: [Panel; 6] = [
        Panel::Rounds,
        Panel::Gate,
        Panel::Chart,
        Panel::Live,
        Panel::Details,
        Panel::Log,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Panel::Rounds => "Rounds",
            Panel::Gate => "Gate",
            Panel::Chart => "Metric",
            Panel::Live => "Live run",
            Panel::Details => "Details",
            Panel::Log => "Log",
        }
    }

    pub fn number(self) -> usize {
        Panel::ALL.iter().position(|p| *p == self).unwrap_or(0) + 1
    }

    pub fn next(self) -> Panel {
        Panel::ALL[self.number() % Panel::ALL.len()]
    }

    pub fn prev(self) -> Panel {
        Panel::ALL[(self.number() + Panel::ALL.len() - 2) % Panel::ALL.len()]
    }
}

/// Where a key is pressed: the focused panel, or the open popup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Main(Panel),
    Confirm,
    Input,
    /// A read-only, scrollable popup: the help, the verdict's reasons.
    Viewer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Help,
    Quit,
    ForceQuit,
    FocusNext,
    FocusPrev,
    Focus(Panel),
    Down,
    Up,
    PageDown,
    PageUp,
    /// Half a page (Ctrl-d / Ctrl-u, as in vi and less).
    HalfPageDown,
    HalfPageUp,
    Top,
    Bottom,
    Reasons,
    ValidateQuick,
    ValidateFull,
    NewRound,
    Accept,
    Rollback,
    SortByDelta,
    Filter,
    CancelRun,
    Confirm,
    Dismiss,
    Submit,
    /// Move the cursor or delete in a text field (the key itself says how).
    Edit,
    /// Clear the focused list's search.
    ClearSearch,
    /// The selected round's kernel against its incumbent's (`kcamp diff`).
    Diff,
    /// `$VISUAL`/`$EDITOR` on the working kernel.
    EditKernel,
    /// Enter: a gate row's shape, the whole log.
    Open,
    /// The whole log, wrapped, in a viewer.
    LogViewer,
    /// Copy the selected item to the clipboard (OSC 52).
    Copy,
    NextMatch,
    PrevMatch,
    /// Every key of the key bar, over as many rows as they take (again: one row).
    ExpandBar,
    /// The focused panel over the whole screen (again: every panel).
    Zoom,
    /// Give the terminal back to the shell and stop (Ctrl-Z); `fg` brings the dashboard
    /// back.
    Suspend,
}

/// Which contexts a binding applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every panel (no popup open).
    Main,
    /// Only these panels.
    Panels(&'static [Panel]),
    Confirm,
    Input,
    Viewer,
    /// Every popup that scrolls its text (confirmation, input, viewer).
    Popups,
}

impl Scope {
    /// The main screen's, not a popup's.
    fn is_main(self) -> bool {
        matches!(self, Scope::Main | Scope::Panels(_))
    }

    fn covers(self, context: Context) -> bool {
        match (self, context) {
            (Scope::Main, Context::Main(_)) => true,
            (Scope::Panels(panels), Context::Main(p)) => panels.contains(&p),
            (Scope::Confirm, Context::Confirm)
            | (Scope::Input, Context::Input)
            | (Scope::Viewer, Context::Viewer) => true,
            (Scope::Popups, c) => !matches!(c, Context::Main(_)),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    pub code: KeyCode,
    pub ctrl: bool,
}

const fn key(c: char) -> KeySpec {
    KeySpec {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn code(code: KeyCode) -> KeySpec {
    KeySpec { code, ctrl: false }
}

const fn ctrl(c: char) -> KeySpec {
    KeySpec {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

/// Keys the config file gave actions of the main screen, in place of their own; set once,
/// when the dashboard starts.
static REMAPS: std::sync::OnceLock<Vec<(Action, KeySpec)>> = std::sync::OnceLock::new();

/// Give these actions of the main screen these keys instead of their own (the config file's
/// `[keys]`); only the first call counts.
pub fn set_remaps(remaps: Vec<(Action, KeySpec)>) {
    let _ = REMAPS.set(remaps);
}

fn remaps() -> &'static [(Action, KeySpec)] {
    REMAPS.get().map_or(&[], Vec::as_slice)
}

/// A key as the config file writes it: one character (`x`, `V`), `C-x`, or a name of
/// [`KeySpec::name`] (`Enter`, `Tab`, `Esc`, `PgUp`, ...), `Space` for the space bar.
pub fn parse_key(text: &str) -> Option<KeySpec> {
    let (ctrl, rest) = match text.strip_prefix("C-") {
        Some(rest) if !rest.is_empty() => (true, rest),
        _ => (false, text),
    };
    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => KeyCode::Char(c),
        _ => match rest {
            "Space" => KeyCode::Char(' '),
            "Enter" => KeyCode::Enter,
            "Tab" => KeyCode::Tab,
            "Esc" => KeyCode::Esc,
            "PgUp" => KeyCode::PageUp,
            "PgDn" => KeyCode::PageDown,
            "Home" => KeyCode::Home,
            "End" => KeyCode::End,
            "Up" => KeyCode::Up,
            "Down" => KeyCode::Down,
            "Left" => KeyCode::Left,
            "Right" => KeyCode::Right,
            _ => return None,
        },
    };
    // Ctrl-C always quits.
    if ctrl && code == KeyCode::Char('c') {
        return None;
    }
    Some(KeySpec { code, ctrl })
}

/// The action of the main screen that `spec` does now, if any (to refuse a remap onto it).
pub fn main_action_of(spec: KeySpec) -> Option<Action> {
    BINDINGS
        .iter()
        .find(|b| b.scope.is_main() && b.keys.contains(&spec))
        .map(|b| b.action)
}

impl KeySpec {
    fn matches(self, event: &KeyEvent) -> bool {
        let has_ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        // Shift is already folded into the character ('V') and into BackTab.
        self.code == event.code && self.ctrl == has_ctrl
    }

    pub fn name(self) -> String {
        let base = match self.code {
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Delete => "Del".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            other => format!("{other:?}"),
        };
        if self.ctrl { format!("C-{base}") } else { base }
    }
}

/// The round a binding acts on, named in the bottom bar (`a accept r4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    None,
    /// The open round (validate, accept, roll back).
    OpenRound,
    /// The round `n` would open.
    NextRound,
    /// The round selected in the rounds panel.
    Selected,
}

pub struct Binding {
    pub keys: &'static [KeySpec],
    pub action: Action,
    pub scope: Scope,
    pub target: Target,
    /// Shown in the bottom bar (short) and the help overlay.
    pub short: &'static str,
    pub description: &'static str,
    /// Listed in the bottom bar (the help overlay lists every binding).
    pub bar: bool,
}

impl Binding {
    /// Its keys now: on the main screen, the config file's key for its action, if it gave one.
    fn keys_with(&self, remaps: &[(Action, KeySpec)]) -> Vec<KeySpec> {
        match remaps.iter().find(|(a, _)| *a == self.action) {
            Some((_, key)) if self.scope.is_main() => vec![*key],
            _ => self.keys.to_vec(),
        }
    }

    pub fn key_names(&self) -> String {
        self.keys_with(remaps())
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join("/")
    }
}

const MOVABLE: &[Panel] = &[Panel::Rounds, Panel::Gate, Panel::Details, Panel::Log];
const GATE: &[Panel] = &[Panel::Gate];
const LISTS: &[Panel] = &[Panel::Rounds, Panel::Gate, Panel::Log];
const ROUND_PANELS: &[Panel] = &[Panel::Rounds, Panel::Gate, Panel::Details];
const OPENABLE: &[Panel] = &[Panel::Gate, Panel::Log];

/// The key table. Order matters twice: the first match wins, and the bar lists bindings in
/// this order (panel-specific ones first, so they survive a narrow terminal).
pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: &[key('y'), code(KeyCode::Enter)],
        action: Action::Confirm,
        scope: Scope::Confirm,
        target: Target::None,
        short: "yes",
        description: "confirm",
        bar: true,
    },
    Binding {
        keys: &[key('n'), code(KeyCode::Esc)],
        action: Action::Dismiss,
        scope: Scope::Confirm,
        target: Target::None,
        short: "no",
        description: "cancel",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::Enter)],
        action: Action::Submit,
        scope: Scope::Input,
        target: Target::None,
        short: "ok",
        description: "submit the text",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        action: Action::Dismiss,
        scope: Scope::Input,
        target: Target::None,
        short: "cancel",
        description: "close without sending",
        bar: true,
    },
    Binding {
        keys: &[
            code(KeyCode::Left),
            code(KeyCode::Right),
            code(KeyCode::Home),
            code(KeyCode::End),
            ctrl('a'),
            ctrl('e'),
            ctrl('b'),
            ctrl('f'),
            ctrl('u'),
            ctrl('w'),
            ctrl('k'),
            code(KeyCode::Backspace),
            code(KeyCode::Delete),
        ],
        action: Action::Edit,
        scope: Scope::Input,
        target: Target::None,
        short: "edit",
        description: "edit the text: ←/→, Home/End (C-a/C-e) move the cursor; Bksp/Del, C-w (a word), C-u (to the start), C-k (to the end) delete",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::Esc), key('q'), key('?'), key('e')],
        action: Action::Dismiss,
        scope: Scope::Viewer,
        target: Target::None,
        short: "close",
        description: "close",
        bar: true,
    },
    Binding {
        keys: &[key('/')],
        action: Action::Filter,
        scope: Scope::Viewer,
        target: Target::None,
        short: "search",
        description: "search the text (n/N: the next/previous match)",
        bar: true,
    },
    Binding {
        keys: &[key('n')],
        action: Action::NextMatch,
        scope: Scope::Viewer,
        target: Target::None,
        short: "next match",
        description: "the next match of the search",
        bar: true,
    },
    Binding {
        keys: &[key('N')],
        action: Action::PrevMatch,
        scope: Scope::Viewer,
        target: Target::None,
        short: "prev",
        description: "the previous match of the search",
        bar: false,
    },
    Binding {
        keys: &[key('y')],
        action: Action::Copy,
        scope: Scope::Viewer,
        target: Target::None,
        short: "copy",
        description: "copy what the viewer is about (a diff: the command that prints it; a shape: its line and reason) through the terminal (OSC 52)",
        bar: false,
    },
    Binding {
        keys: &[key('j'), code(KeyCode::Down)],
        action: Action::Down,
        scope: Scope::Viewer,
        target: Target::None,
        short: "down",
        description: "scroll down",
        bar: true,
    },
    Binding {
        keys: &[key('k'), code(KeyCode::Up)],
        action: Action::Up,
        scope: Scope::Viewer,
        target: Target::None,
        short: "up",
        description: "scroll up",
        bar: true,
    },
    Binding {
        keys: &[ctrl('d')],
        action: Action::HalfPageDown,
        scope: Scope::Viewer,
        target: Target::None,
        short: "half page",
        description: "scroll half a page down",
        bar: false,
    },
    Binding {
        keys: &[ctrl('u')],
        action: Action::HalfPageUp,
        scope: Scope::Viewer,
        target: Target::None,
        short: "half page up",
        description: "scroll half a page up",
        bar: false,
    },
    Binding {
        keys: &[key('g'), code(KeyCode::Home)],
        action: Action::Top,
        scope: Scope::Viewer,
        target: Target::None,
        short: "top",
        description: "scroll to the top",
        bar: false,
    },
    Binding {
        keys: &[key('G'), code(KeyCode::End)],
        action: Action::Bottom,
        scope: Scope::Viewer,
        target: Target::None,
        short: "end",
        description: "scroll to the end",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::Down)],
        action: Action::Down,
        scope: Scope::Popups,
        target: Target::None,
        short: "scroll",
        description: "scroll the popup's text down",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::Up)],
        action: Action::Up,
        scope: Scope::Popups,
        target: Target::None,
        short: "scroll up",
        description: "scroll the popup's text up",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::PageDown)],
        action: Action::PageDown,
        scope: Scope::Popups,
        target: Target::None,
        short: "page",
        description: "scroll the popup's text a page down",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::PageUp)],
        action: Action::PageUp,
        scope: Scope::Popups,
        target: Target::None,
        short: "page up",
        description: "scroll the popup's text a page up",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::Home)],
        action: Action::Top,
        scope: Scope::Popups,
        target: Target::None,
        short: "top",
        description: "scroll the popup's text to the top",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::End)],
        action: Action::Bottom,
        scope: Scope::Popups,
        target: Target::None,
        short: "end",
        description: "scroll the popup's text to the end",
        bar: false,
    },
    Binding {
        keys: &[key('j'), code(KeyCode::Down)],
        action: Action::Down,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "down",
        description: "move down (rounds: select; gate: cursor; others: scroll)",
        bar: true,
    },
    Binding {
        keys: &[key('k'), code(KeyCode::Up)],
        action: Action::Up,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "up",
        description: "move up",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::PageDown)],
        action: Action::PageDown,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "page down",
        description: "move a page down",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::PageUp)],
        action: Action::PageUp,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "page up",
        description: "move a page up",
        bar: false,
    },
    Binding {
        keys: &[ctrl('d')],
        action: Action::HalfPageDown,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "half page",
        description: "move half a page down (as in vi and less)",
        bar: false,
    },
    Binding {
        keys: &[ctrl('u')],
        action: Action::HalfPageUp,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "half page up",
        description: "move half a page up",
        bar: false,
    },
    Binding {
        keys: &[key('g'), code(KeyCode::Home)],
        action: Action::Top,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "top",
        description: "go to the first line (the log: the oldest)",
        bar: false,
    },
    Binding {
        keys: &[key('G'), code(KeyCode::End)],
        action: Action::Bottom,
        scope: Scope::Panels(MOVABLE),
        target: Target::None,
        short: "end",
        description: "go to the last line (the log: the newest)",
        bar: false,
    },
    Binding {
        keys: &[key('s')],
        action: Action::SortByDelta,
        scope: Scope::Panels(GATE),
        target: Target::None,
        short: "sort",
        description: "sort shapes: worst first (FAIL, regressed, then by Δ), best first, file order",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::Enter)],
        action: Action::Open,
        scope: Scope::Panels(OPENABLE),
        target: Target::None,
        short: "open",
        description: "open the selected item: a shape (gate: its verdict, reason, samples, history, roofline), the log (wrapped, searchable)",
        bar: true,
    },
    Binding {
        keys: &[key('/')],
        action: Action::Filter,
        scope: Scope::Panels(LISTS),
        target: Target::None,
        short: "search",
        description: "search the list as you type: shapes by label, rounds by hypothesis, log lines by text (Esc clears)",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        action: Action::ClearSearch,
        scope: Scope::Panels(LISTS),
        target: Target::None,
        short: "clear search",
        description: "clear the list's search",
        bar: true,
    },
    Binding {
        keys: &[key('d')],
        action: Action::Diff,
        scope: Scope::Panels(ROUND_PANELS),
        target: Target::Selected,
        short: "diff",
        description: "the selected round's kernel against its incumbent's (the open round: the working kernel/), as `kcamp diff` prints it",
        bar: true,
    },
    Binding {
        keys: &[key('?')],
        action: Action::Help,
        scope: Scope::Main,
        target: Target::None,
        short: "help",
        description: "show this help",
        bar: true,
    },
    Binding {
        keys: &[key('q')],
        action: Action::Quit,
        scope: Scope::Main,
        target: Target::None,
        short: "quit",
        description: "quit the dashboard (asks first while a command runs: quitting cancels it)",
        bar: true,
    },
    Binding {
        keys: &[key('v')],
        action: Action::ValidateQuick,
        scope: Scope::Main,
        target: Target::OpenRound,
        short: "validate",
        description: "quick validation of the open round (representative shapes)",
        bar: true,
    },
    Binding {
        keys: &[key('V')],
        action: Action::ValidateFull,
        scope: Scope::Main,
        target: Target::OpenRound,
        short: "full",
        description: "full validation of the open round (all target shapes)",
        bar: true,
    },
    Binding {
        keys: &[key('a')],
        action: Action::Accept,
        scope: Scope::Main,
        target: Target::OpenRound,
        short: "accept",
        description: "accept the open round (asks for confirmation)",
        bar: true,
    },
    Binding {
        keys: &[key('r')],
        action: Action::Rollback,
        scope: Scope::Main,
        target: Target::OpenRound,
        short: "rollback",
        description: "roll back the open round (asks for a reason)",
        bar: true,
    },
    Binding {
        keys: &[key('n')],
        action: Action::NewRound,
        scope: Scope::Main,
        target: Target::NextRound,
        short: "new round",
        description: "open a new round (asks for the hypothesis)",
        bar: true,
    },
    Binding {
        keys: &[key('e')],
        action: Action::Reasons,
        scope: Scope::Main,
        target: Target::Selected,
        short: "reasons",
        description: "every reason of the selected round's verdict, and why each shape that does not PASS failed",
        bar: true,
    },
    Binding {
        keys: &[key('E')],
        action: Action::EditKernel,
        scope: Scope::Main,
        target: Target::None,
        short: "edit kernel",
        description: "open $VISUAL (else $EDITOR, else vi) on the working kernel; the dashboard comes back when the editor ends and shows what changed",
        bar: true,
    },
    Binding {
        keys: &[key('L')],
        action: Action::LogViewer,
        scope: Scope::Main,
        target: Target::None,
        short: "log",
        description: "the whole log, wrapped, searchable",
        bar: false,
    },
    Binding {
        keys: &[key('y')],
        action: Action::Copy,
        scope: Scope::Main,
        target: Target::Selected,
        short: "copy",
        description: "copy the selected item through the terminal (OSC 52, works over SSH): a round's hypothesis, a shape's line and reason, a log line, the running command",
        bar: false,
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        action: Action::CancelRun,
        scope: Scope::Main,
        target: Target::None,
        short: "cancel run",
        description: "cancel the running validation: its workers end, nothing is recorded (asks first)",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::Tab), key('l')],
        action: Action::FocusNext,
        scope: Scope::Main,
        target: Target::None,
        short: "next panel",
        description: "focus the next panel (l, as in lazygit)",
        bar: true,
    },
    Binding {
        keys: &[code(KeyCode::BackTab), key('h')],
        action: Action::FocusPrev,
        scope: Scope::Main,
        target: Target::None,
        short: "prev panel",
        description: "focus the previous panel (h)",
        bar: false,
    },
    Binding {
        keys: &[key('1')],
        action: Action::Focus(Panel::Rounds),
        scope: Scope::Main,
        target: Target::None,
        short: "rounds",
        description: "focus panel 1: rounds and lineage",
        bar: false,
    },
    Binding {
        keys: &[key('2')],
        action: Action::Focus(Panel::Gate),
        scope: Scope::Main,
        target: Target::None,
        short: "gate",
        description: "focus panel 2: gate table",
        bar: false,
    },
    Binding {
        keys: &[key('3')],
        action: Action::Focus(Panel::Chart),
        scope: Scope::Main,
        target: Target::None,
        short: "chart",
        description: "focus panel 3: metric over rounds",
        bar: false,
    },
    Binding {
        keys: &[key('4')],
        action: Action::Focus(Panel::Live),
        scope: Scope::Main,
        target: Target::None,
        short: "live",
        description: "focus panel 4: live run",
        bar: false,
    },
    Binding {
        keys: &[key('5')],
        action: Action::Focus(Panel::Details),
        scope: Scope::Main,
        target: Target::None,
        short: "details",
        description: "focus panel 5: round details",
        bar: false,
    },
    Binding {
        keys: &[key('6')],
        action: Action::Focus(Panel::Log),
        scope: Scope::Main,
        target: Target::None,
        short: "log",
        description: "focus panel 6: log",
        bar: false,
    },
    Binding {
        keys: &[key('+')],
        action: Action::Zoom,
        scope: Scope::Main,
        target: Target::None,
        short: "zoom",
        description: "the focused panel over the whole screen; + again shows every panel (Tab still moves, zoomed)",
        bar: false,
    },
    Binding {
        keys: &[key('.')],
        action: Action::ExpandBar,
        scope: Scope::Main,
        target: Target::None,
        short: "more keys",
        description: "the key bar over several rows, every key it leaves out at this width shown (. again: one row)",
        bar: false,
    },
    Binding {
        keys: &[ctrl('z')],
        action: Action::Suspend,
        scope: Scope::Main,
        target: Target::None,
        short: "suspend",
        description: "suspend the dashboard to the shell (fg brings it back); a command it started goes on",
        bar: false,
    },
    Binding {
        keys: &[ctrl('c')],
        action: Action::ForceQuit,
        scope: Scope::Main,
        target: Target::None,
        short: "quit now",
        description: "quit at once (cancels a running validation)",
        bar: false,
    },
];

/// The action a key triggers in a context, if any. Key releases are ignored (Windows and
/// kitty-protocol terminals report them).
pub fn resolve(context: Context, event: &KeyEvent) -> Option<Action> {
    resolve_with(remaps(), context, event)
}

/// [`resolve`] with these remaps.
pub fn resolve_with(
    remaps: &[(Action, KeySpec)],
    context: Context,
    event: &KeyEvent,
) -> Option<Action> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    // Ctrl-C quits from anywhere, popups included.
    if event.code == KeyCode::Char('c') && event.modifiers.contains(KeyModifiers::CONTROL) {
        return Some(Action::ForceQuit);
    }
    BINDINGS
        .iter()
        .find(|b| b.scope.covers(context) && b.keys_with(remaps).iter().any(|k| k.matches(event)))
        .map(|b| b.action)
}

/// The key that does `action` in the main screen (`v`), for messages that say how to do it
/// again.
pub fn key_for(action: Action) -> Option<String> {
    BINDINGS
        .iter()
        .find(|b| b.action == action && b.scope.covers(Context::Main(Panel::Gate)))
        .map(Binding::key_names)
}

/// The key that runs a step's call in the dashboard (`validate` `v`, `validate --full` `V`),
/// where one runs it: the CLI names it beside the command line.
pub fn key_for_call(call: &kcamp_core::next::Call) -> Option<String> {
    use kcamp_core::next::Command;
    let flag = |name: &str| {
        call.arguments
            .iter()
            .any(|(k, v)| *k == name && *v == serde_json::Value::Bool(true))
    };
    let action = match call.command {
        Command::Validate if flag("full") => Action::ValidateFull,
        Command::Validate => Action::ValidateQuick,
        Command::Accept if !flag("force") => Action::Accept,
        Command::Rollback => Action::Rollback,
        Command::RoundNew => Action::NewRound,
        _ => return None,
    };
    key_for(action)
}

/// The bindings of the bottom bar in a context, in table order.
pub fn bindings_for(context: Context) -> impl Iterator<Item = &'static Binding> {
    BINDINGS
        .iter()
        .filter(move |b| b.bar && b.scope.covers(context))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn a_remapped_key_does_its_action_and_frees_the_old_one() {
        let x = parse_key("x").unwrap();
        let remaps = [(Action::ValidateQuick, x)];
        let main = Context::Main(Panel::Rounds);
        let none = KeyModifiers::NONE;
        let at = |code| resolve_with(&remaps, main, &press(code, none));
        assert_eq!(at(KeyCode::Char('x')), Some(Action::ValidateQuick));
        assert_eq!(at(KeyCode::Char('v')), None);
        assert_eq!(at(KeyCode::Char('V')), Some(Action::ValidateFull));
        // Popups keep their keys.
        let confirm = resolve_with(&remaps, Context::Confirm, &press(KeyCode::Char('y'), none));
        assert_eq!(confirm, Some(Action::Confirm));
        assert_eq!(
            parse_key("C-d"),
            Some(KeySpec {
                code: KeyCode::Char('d'),
                ctrl: true
            })
        );
        assert_eq!(parse_key("PgDn").map(|k| k.code), Some(KeyCode::PageDown));
        assert_eq!(parse_key("C-c"), None, "Ctrl-C always quits");
        assert_eq!(parse_key("xy"), None);
        assert_eq!(
            main_action_of(parse_key("v").unwrap()),
            Some(Action::ValidateQuick)
        );
    }

    #[test]
    fn the_same_key_means_different_things_in_different_contexts() {
        let n = press(KeyCode::Char('n'), KeyModifiers::NONE);
        assert_eq!(
            resolve(Context::Main(Panel::Rounds), &n),
            Some(Action::NewRound)
        );
        assert_eq!(resolve(Context::Confirm, &n), Some(Action::Dismiss));
        assert_eq!(resolve(Context::Input, &n), None, "typed into the text");
    }

    #[test]
    fn shifted_letters_and_backtab_resolve() {
        let big_v = press(KeyCode::Char('V'), KeyModifiers::SHIFT);
        assert_eq!(
            resolve(Context::Main(Panel::Gate), &big_v),
            Some(Action::ValidateFull)
        );
        let backtab = press(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(
            resolve(Context::Main(Panel::Gate), &backtab),
            Some(Action::FocusPrev)
        );
    }

    #[test]
    fn ctrl_c_quits_even_inside_a_text_input() {
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(resolve(Context::Input, &ctrl_c), Some(Action::ForceQuit));
        let plain_c = press(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(resolve(Context::Input, &plain_c), None);
    }

    #[test]
    fn sort_and_filter_belong_to_the_gate_panel_only() {
        let s = press(KeyCode::Char('s'), KeyModifiers::NONE);
        assert_eq!(
            resolve(Context::Main(Panel::Gate), &s),
            Some(Action::SortByDelta)
        );
        assert_eq!(resolve(Context::Main(Panel::Rounds), &s), None);
        let bar: Vec<_> = bindings_for(Context::Main(Panel::Rounds))
            .map(|b| b.action)
            .collect();
        assert!(!bar.contains(&Action::SortByDelta));
        assert!(bar.contains(&Action::Down));
    }

    #[test]
    fn paging_keys_and_reasons() {
        let none = KeyModifiers::NONE;
        let gate = Context::Main(Panel::Gate);
        assert_eq!(
            resolve(gate, &press(KeyCode::Char('g'), none)),
            Some(Action::Top)
        );
        assert_eq!(
            resolve(gate, &press(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Bottom)
        );
        assert_eq!(
            resolve(gate, &press(KeyCode::End, none)),
            Some(Action::Bottom)
        );
        assert_eq!(
            resolve(gate, &press(KeyCode::PageDown, none)),
            Some(Action::PageDown)
        );
        assert_eq!(
            resolve(gate, &press(KeyCode::Char('e'), none)),
            Some(Action::Reasons)
        );
        let e = press(KeyCode::Char('e'), none);
        assert_eq!(resolve(Context::Viewer, &e), Some(Action::Dismiss));
        // In a text input, letters are text and only arrows and pages scroll.
        assert_eq!(
            resolve(Context::Input, &press(KeyCode::Char('j'), none)),
            None
        );
        assert_eq!(
            resolve(Context::Input, &press(KeyCode::Down, none)),
            Some(Action::Down)
        );
        assert_eq!(
            resolve(Context::Confirm, &press(KeyCode::PageDown, none)),
            Some(Action::PageDown)
        );
    }

    #[test]
    fn tab_order_wraps_both_ways() {
        assert_eq!(Panel::Log.next(), Panel::Rounds);
        assert_eq!(Panel::Rounds.prev(), Panel::Log);
        assert_eq!(Panel::Gate.number(), 2);
    }
}
