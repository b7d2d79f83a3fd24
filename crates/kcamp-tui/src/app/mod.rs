//! The model and `update` (the Elm architecture): every change of dashboard state happens
//! here, in response to a [`Msg`], and everything with a side effect is returned as an
//! [`Effect`] for the event loop to perform. `update` also says whether the screen changed
//! ([`Model::take_redraw`]): an idle dashboard draws nothing.
//!
//! - `mod.rs`: the model, messages, loading and the clock;
//! - `actions`: keys and what they start (popups, commands);
//! - [`gate_table`]: the gate table's filter, sort and cursor.

mod actions;
pub mod gate_table;
mod mouse;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use crossterm::event::KeyEvent;

use crate::commands::{Answer, CampaignCommand, CommandResult, DiffWhy, Query};
use crate::derive::{
    self, ChartData, DetailLine, LogLine, LogSource, RoundLine, RoundStatus, ShapeSpark, Tone,
};
use crate::keys::{Context, Panel};
use crate::loading::{LoadScope, Loaded, StatePatch};
use crate::popups::Popup;
use crate::style::Theme;
use crossterm::event::MouseEvent;
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::campaign::CampaignState;
use kcamp_core::campaign::ledger::Tried;

pub use gate_table::{ClassCounts, GateTable, SortOrder};

/// A failed reload is retried on this many ticks before its error is shown: a reader can
/// catch a file that another process is in the middle of replacing.
pub const RELOAD_RETRIES: u32 = 3;

/// Shapes with a sparkline in the metric panel.
const MAX_SPARKLINES: usize = 12;

/// How long a toast stays: long enough to read a sentence twice.
const TOAST_SECONDS: i64 = 6;
/// Errors stay longer.
const TOAST_ERROR_SECONDS: i64 = 12;

/// While a run goes on (or the lock is held), whether it still does is checked this often:
/// a process that dies releases its lock without writing a file.
const LIVENESS_SECONDS: i64 = 1;

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(KeyEvent),
    /// Text the terminal pasted (bracketed paste): it goes into the text field being
    /// typed, as one line, and is never read as keys.
    Paste(String),
    Resize(u16, u16),
    Tick,
    /// A whole campaign read.
    StateLoaded(Result<Box<Loaded>, String>),
    /// Parts of the campaign read again.
    PatchLoaded(Result<Box<StatePatch>, String>),
    /// Files under the campaign changed; the scope says which parts to read again.
    FilesChanged(LoadScope),
    CommandFinished {
        command: CampaignCommand,
        result: CommandResult,
    },
    /// A read-only question answered.
    Answered {
        query: Query,
        answer: Answer,
    },
    /// The editor `E` started has ended (Err: it could not run).
    EditorDone(Result<(), String>),
    /// A click or a turn of the wheel.
    Mouse(MouseEvent),
    /// Something asked of the terminal failed (said in full in the log).
    EffectFailed(String),
    /// A signal asked the dashboard to end (SIGTERM, SIGINT, SIGHUP: the terminal closed).
    Terminate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Read these parts of the campaign again (answers with `StateLoaded` for everything,
    /// else `PatchLoaded`).
    Load(LoadScope),
    Spawn(CampaignCommand),
    /// Ask the running command to stop (SIGTERM to its process group; it ends its workers,
    /// removes its staging and journals `cancelled`).
    Cancel,
    Quit,
    /// Ask a read-only question (answers with `Answered`).
    Ask(Query),
    /// Hand the terminal to `$VISUAL`/`$EDITOR` on this file and take it back when the
    /// editor ends (answers with `EditorDone`).
    Edit(std::path::PathBuf),
    /// Put the text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Hand the terminal back to the shell and stop the process (SIGTSTP), as Ctrl-Z does
    /// outside raw mode; take the terminal again when the shell continues it.
    Suspend,
}

/// The command this dashboard started and is waiting for.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub command: CampaignCommand,
    /// A cancel was sent; the command is cleaning up.
    pub cancelling: bool,
}

/// A status line shown above the key bar for a few seconds: refusals and errors, in full.
#[derive(Debug, Clone, PartialEq)]
pub struct Toast {
    pub text: String,
    pub tone: Tone,
    pub until: DateTime<Utc>,
}

/// Where the selection goes when the rounds change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// Until the user moves it: on [`derive::landing_round`], so the gate shows a table while
    /// the open round is unmeasured, and on the open round once it has a measurement.
    Landing,
    /// On the newest round, measured or not: the user moved onto it.
    Newest,
    /// On the round the user chose.
    Chosen,
}

impl Follow {
    /// After the user selected `index` of `len` rounds.
    fn after_move(index: usize, len: usize) -> Follow {
        if index + 1 == len {
            Follow::Newest
        } else {
            Follow::Chosen
        }
    }
}

#[derive(Clone)]
pub struct Model {
    pub theme: Theme,
    /// Time source (fixed in tests).
    pub clock: fn() -> DateTime<Utc>,
    /// The last campaign state that loaded; kept on screen while reloads fail.
    pub state: Option<CampaignState>,
    pub rounds: Vec<RoundLine>,
    /// The rounds search (`/` in the rounds panel): hypotheses that contain it, any case.
    pub rounds_filter: String,
    /// Indices into `rounds` the panel lists (all of them without a search).
    pub round_rows: Vec<usize>,
    pub chart: ChartData,
    pub sparks: Vec<ShapeSpark>,
    journal: Vec<LogLine>,
    messages: Vec<LogLine>,
    /// Journal and dashboard messages merged by time, newest last.
    pub log: Vec<LogLine>,
    /// The log search (`/` in the log panel).
    pub log_filter: String,
    /// Indices into `log` the panel lists (all of them without a search).
    pub log_rows: Vec<usize>,
    /// The run in progress (`live/progress.json` of a live process).
    pub live: Option<Progress>,
    pub focus: Panel,
    /// Index into `rounds` of the round shown in the gate and details panels.
    pub selected: usize,
    /// How the selection moves when the rounds change.
    follow: Follow,
    pub gate: GateTable,
    pub details: Vec<DetailLine>,
    pub details_scroll: usize,
    /// Lines scrolled up from the newest.
    pub log_scroll: usize,
    pub popup: Option<Popup>,
    pub running: Option<Running>,
    pub toast: Option<Toast>,
    /// What the last read of the campaign went around (a file, its line, what is wrong),
    /// relative to the campaign: the header warns, each is said once in the log.
    pub damage: Vec<String>,
    /// Rounds whose decision is unreadable, with what to show in their row of the rounds
    /// list (`decision.json:9 unreadable — kcamp repair`): they are not left out of it.
    pub damaged_rounds: Vec<(u32, String)>,
    /// Shown once reloads have failed RELOAD_RETRIES times in a row.
    pub load_error: Option<String>,
    /// The campaign is a scratch copy (of the bundled demo): the header says so, since what
    /// is done here changes no campaign of the user's.
    pub scratch: bool,
    /// The key bar shows every key, over several rows (`.`).
    pub bar_expanded: bool,
    /// The focused panel takes the whole body (`+`).
    pub zoomed: bool,
    /// The terminal's size, for paging.
    pub size: (u16, u16),
    /// What the working kernel holds against the incumbent, once an edit was seen
    /// (`1 file changed, +3 −1 (r1 → kernel/)`).
    pub working_kernel: Option<String>,
    /// The working kernel's normalised key, as last read (None: not read, or unreadable).
    pub working_key: Option<String>,
    /// The rolled-back rounds whose kernel snapshot equals the working kernel (comments and
    /// whitespace aside): `v` would measure a kernel already tried and given up.
    pub tried: Vec<Tried>,
    failed_loads: u32,
    /// A failed load to try again on the next tick.
    retry: Option<LoadScope>,
    last_liveness_check: Option<DateTime<Utc>>,
    /// The second the screen last showed (elapsed times, toasts).
    shown_second: i64,
    redraw: bool,
}

impl Model {
    pub fn new(theme: Theme, clock: fn() -> DateTime<Utc>) -> Model {
        Model {
            theme,
            clock,
            state: None,
            rounds: Vec::new(),
            rounds_filter: String::new(),
            round_rows: Vec::new(),
            chart: ChartData::default(),
            sparks: Vec::new(),
            journal: Vec::new(),
            messages: Vec::new(),
            log: Vec::new(),
            log_filter: String::new(),
            log_rows: Vec::new(),
            live: None,
            focus: Panel::Rounds,
            selected: 0,
            follow: Follow::Landing,
            gate: GateTable::default(),
            details: Vec::new(),
            details_scroll: 0,
            log_scroll: 0,
            popup: None,
            running: None,
            toast: None,
            load_error: None,
            damage: Vec::new(),
            damaged_rounds: Vec::new(),
            bar_expanded: false,
            zoomed: false,
            scratch: false,
            size: (80, 24),
            working_kernel: None,
            working_key: None,
            tried: Vec::new(),
            failed_loads: 0,
            retry: None,
            last_liveness_check: None,
            shown_second: 0,
            redraw: true,
        }
    }

    /// The config file's layout, and each of its problems said (a warning, in the log):
    /// what it could not read is at its default.
    pub fn apply_config(&mut self, config: &crate::config::Config) {
        if let Some(panel) = config.focus {
            self.focus = panel;
        }
        self.zoomed = config.zoom;
        self.bar_expanded = config.expand_key_bar;
        for problem in &config.problems {
            self.note(problem.clone(), Tone::Warn);
        }
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        self.popup
            .as_ref()
            .map_or(Context::Main(self.focus), Popup::context)
    }

    /// Whether the screen must be drawn again; resets the flag.
    pub fn take_redraw(&mut self) -> bool {
        std::mem::take(&mut self.redraw)
    }

    pub fn now(&self) -> DateTime<Utc> {
        (self.clock)()
    }

    /// The open round's number, if one is open.
    pub fn open_round_number(&self) -> Option<u32> {
        self.state.as_ref()?.open_round
    }

    /// The terminal is below the smallest size the panels can be drawn in.
    pub fn too_small(&self) -> bool {
        crate::view::too_small(self.size)
    }

    /// The campaign's measurements are imported CSVs (validations need one).
    pub fn imported(&self) -> bool {
        self.state.as_ref().is_some_and(derive::imported)
    }

    /// The number `n` would give the next round.
    pub fn next_round_number(&self) -> u32 {
        self.rounds.last().map_or(1, |r| r.number + 1)
    }

    /// Why `action` would be refused now (said in full), or None: the key bar offers only
    /// keys this does not refuse.
    pub fn refusal(&self, action: crate::keys::Action) -> Option<String> {
        actions::refusal(self, action)
    }

    /// What the gate panel says instead of a table: no rounds yet, or why the selected
    /// round has no measurement and what would give it one now. Never offers a key that
    /// would be refused.
    pub fn gate_note(&self) -> Option<String> {
        let view = &self.gate.view;
        if let Some(note) = &view.note {
            return Some(note.clone());
        }
        let status = view.unmeasured?;
        let n = view.round?;
        let text = match status {
            RoundStatus::RolledBack => {
                let next = match self.open_round_number() {
                    Some(open) => format!("the keys act on the open round {open}"),
                    None => format!("n opens round {}", self.next_round_number()),
                };
                format!(
                    "round {n} was rolled back before it was measured: nothing to validate; {next}"
                )
            }
            RoundStatus::Baseline | RoundStatus::Accepted => {
                format!("round {n} ({}) has no measurement to show", status.as_str())
            }
            RoundStatus::Open => self.unmeasured_open_note(n),
        };
        Some(text)
    }

    /// The open round `n` without a measurement: being measured (here or elsewhere), or
    /// waiting for `v`.
    fn unmeasured_open_note(&self, n: u32) -> String {
        let state = self.state.as_ref();
        let live = state.and_then(|s| s.live.as_ref());
        match &self.running {
            Some(run) if run.cancelling => format!(
                "round {n}: cancelling `kcamp {}`; nothing is recorded and the round stays unmeasured",
                run.command.label()
            ),
            Some(run) if run.command.is_cancellable() => format!(
                "round {n} is being measured by `kcamp {}`: the live panel (4) shows its progress; Esc cancels it",
                run.command.label()
            ),
            Some(run) => format!(
                "round {n} is not measured yet: v validates it once `kcamp {}` has finished",
                run.command.label()
            ),
            None => match (live, state.and_then(|s| s.lock_holder.as_ref())) {
                (Some(live), _) => format!(
                    "round {n} is being measured by pid {} (started elsewhere): the live panel (4) shows its progress; stop it there (Ctrl-C, or kill {})",
                    live.pid, live.pid
                ),
                (None, Some(holder)) => format!(
                    "round {n} is not measured yet; the campaign is locked by {holder}: v validates it once that has finished"
                ),
                (None, None) => format!(
                    "round {n} is not measured yet: press v to validate it (V: every target shape)"
                ),
            },
        }
    }

    /// A line in the log, and the toast when it is a warning or an error.
    fn note(&mut self, text: impl Into<String>, tone: Tone) {
        let text = text.into();
        if matches!(tone, Tone::Warn | Tone::Bad) {
            self.toast(text.clone(), tone);
        }
        self.log_line(text, tone);
    }

    /// A line in the log only.
    fn log_line(&mut self, text: String, tone: Tone) {
        self.messages.push(LogLine {
            time: self.now(),
            source: LogSource::Dashboard,
            text,
            tone,
        });
        self.merge_log();
    }

    fn toast(&mut self, text: String, tone: Tone) {
        let seconds = if tone == Tone::Bad {
            TOAST_ERROR_SECONDS
        } else {
            TOAST_SECONDS
        };
        self.toast = Some(Toast {
            text,
            tone,
            until: self.now() + chrono::Duration::seconds(seconds),
        });
    }

    fn merge_log(&mut self) {
        self.log = derive::merge_log(&self.journal, &self.messages);
        self.refresh_log_rows();
    }

    /// The log lines the search keeps (every line without one).
    fn refresh_log_rows(&mut self) {
        let needle = self.log_filter.to_lowercase();
        self.log_rows = (0..self.log.len())
            .filter(|&i| needle.is_empty() || self.log[i].text.to_lowercase().contains(&needle))
            .collect();
        self.log_scroll = self.log_scroll.min(self.log_rows.len().saturating_sub(1));
    }

    /// Search the log; an empty text lists every line again.
    pub fn set_log_filter(&mut self, text: &str) {
        self.log_filter = text.trim().to_owned();
        self.log_scroll = 0;
        self.refresh_log_rows();
    }

    /// The rounds the search keeps; the selection moves to the newest of them when the
    /// selected round is not one.
    fn refresh_round_rows(&mut self) {
        let needle = self.rounds_filter.to_lowercase();
        self.round_rows = (0..self.rounds.len())
            .filter(|&i| {
                needle.is_empty() || self.rounds[i].hypothesis.to_lowercase().contains(&needle)
            })
            .collect();
    }

    /// Search the rounds by hypothesis; an empty text lists every round again.
    pub fn set_rounds_filter(&mut self, text: &str) {
        self.rounds_filter = text.trim().to_owned();
        self.refresh_round_rows();
        if !self.round_rows.contains(&self.selected)
            && let Some(&last) = self.round_rows.last()
        {
            self.selected = last;
            self.follow = Follow::after_move(self.selected, self.rounds.len());
            self.refresh_selection();
        }
    }

    fn apply_state(&mut self, loaded: Loaded) {
        self.state = Some(loaded.state);
        self.working_key = loaded.working_key;
        self.rounds_changed();
        self.journal_changed();
        self.live_changed();
    }

    /// The rolled-back rounds that tried the working kernel, after the rounds or the
    /// working kernel changed; a round newly among them is said in the log and the toast
    /// (an edit that went back to a kernel already given up). True when they changed.
    fn ledger_changed(&mut self) -> bool {
        let Some(state) = &self.state else {
            return false;
        };
        let tried = derive::working_tried(state, self.working_key.as_deref());
        if tried == self.tried {
            return false;
        }
        let new: Vec<Tried> = tried
            .iter()
            .filter(|t| !self.tried.iter().any(|o| o.round == t.round))
            .cloned()
            .collect();
        self.tried = tried;
        for line in kcamp_core::campaign::ledger::tried_lines("kernel/", &new) {
            self.note(line, Tone::Warn);
        }
        true
    }

    /// The damage of the state, after a read: kept for the header and the rounds list, and
    /// each new one said in the log (a warning).
    fn damage_changed(&mut self) {
        let Some(state) = &self.state else {
            return;
        };
        let dir = state.dir.clone();
        let relative =
            |p: &std::path::Path| p.strip_prefix(&dir).unwrap_or(p).display().to_string();
        let mut lines = Vec::new();
        let mut rounds = Vec::new();
        for d in &state.damage {
            let file = relative(&d.path);
            let at = d.line.map_or(String::new(), |l| format!(":{l}"));
            lines.push(format!("{file}{at}: {}", d.problem));
            let round = file
                .strip_prefix(&format!("{}/round-", kcamp_core::files::ROUNDS_DIR))
                .and_then(|rest| {
                    rest.strip_suffix(&format!("/{}", kcamp_core::files::DECISION_FILE))
                })
                .and_then(|n| n.parse::<u32>().ok());
            if let Some(n) = round {
                rounds.push((
                    n,
                    format!(
                        "{}{at} unreadable — kcamp repair",
                        kcamp_core::files::DECISION_FILE
                    ),
                ));
            }
        }
        rounds.sort();
        let new: Vec<String> = lines
            .iter()
            .filter(|l| !self.damage.contains(l))
            .cloned()
            .collect();
        if lines != self.damage || rounds != self.damaged_rounds {
            self.redraw = true;
        }
        self.damage = lines;
        self.damaged_rounds = rounds;
        for line in new {
            self.note(format!("read around: {line} (kcamp repair)"), Tone::Warn);
        }
    }

    /// A resize that leaves the focused panel out moves the focus to the first panel still
    /// drawn, so that the keys and the key bar are of a panel in sight.
    fn refocus_if_hidden(&mut self) {
        if self.too_small() {
            return;
        }
        let shown = crate::view::shown_panels(self);
        if shown.contains(&self.focus) {
            return;
        }
        if let Some(&first) = shown.first() {
            let hidden = self.focus;
            self.focus = first;
            self.toast(
                format!(
                    "panel {} {} is left out at {}×{}: the focus is on {} {}",
                    hidden.number(),
                    hidden.title(),
                    self.size.0,
                    self.size.1,
                    first.number(),
                    first.title()
                ),
                Tone::Dim,
            );
        }
    }

    /// The incumbent as the header names it: None when a round with an unreadable decision
    /// comes after the incumbent read, since that round may be the real one.
    pub fn incumbent_doubt(&self) -> Option<u32> {
        let incumbent = self.rounds.iter().find(|r| r.incumbent).map(|r| r.number);
        self.damaged_rounds
            .iter()
            .map(|(n, _)| *n)
            .filter(|&n| incumbent.is_none_or(|i| n > i))
            .max()
    }

    fn rounds_changed(&mut self) {
        self.damage_changed();
        // A round rolled back (or a decision re-read) may be one the working kernel tried.
        self.ledger_changed();
        let Some(state) = &self.state else {
            return;
        };
        let previous = self.rounds.get(self.selected).map(|r| r.number);
        self.rounds = derive::round_lines(state);
        self.chart = derive::chart(state);
        self.sparks = derive::sparklines(state, MAX_SPARKLINES);
        self.refresh_round_rows();
        let last = self.rounds.len().saturating_sub(1);
        self.selected = match self.follow {
            Follow::Landing => self.state.as_ref().map_or(last, derive::landing_round),
            Follow::Newest => last,
            Follow::Chosen => previous
                .and_then(|n| self.rounds.iter().position(|r| r.number == n))
                .unwrap_or(last),
        };
        self.refresh_selection();
    }

    fn journal_changed(&mut self) {
        self.damage_changed();
        if let Some(state) = &self.state {
            self.journal = derive::journal_lines(state);
            self.merge_log();
        }
    }

    fn live_changed(&mut self) {
        self.live = self.state.as_ref().and_then(|s| s.live.clone());
    }

    /// Recompute what depends on the selected round.
    fn refresh_selection(&mut self) {
        let Some(state) = &self.state else {
            return;
        };
        let view = derive::gate_view(state, self.selected);
        let mut details = derive::details(state, self.selected);
        if view.open {
            derive::add_tried(&mut details, &self.tried);
        }
        if details != self.details {
            self.details_scroll = 0;
        }
        self.details = details;
        self.gate.set_view(view);
    }

    /// Why a command that writes the campaign cannot be sent now.
    fn write_blocked(&self) -> Option<String> {
        if let Some(run) = &self.running {
            let hint = if run.command.is_cancellable() {
                " (Esc cancels it)"
            } else {
                ""
            };
            return Some(format!(
                "`kcamp {}` is still running{hint}",
                run.command.label()
            ));
        }
        let state = self.state.as_ref()?;
        state
            .lock_holder
            .as_ref()
            .map(|h| format!("campaign is locked by {h}: wait until it finishes"))
    }

    fn on_tick(&mut self) -> Vec<Effect> {
        let now = self.now();
        let mut effects = Vec::new();
        if let Some(scope) = self.retry.take() {
            effects.push(Effect::Load(scope));
        }
        if self.toast.as_ref().is_some_and(|t| now >= t.until) {
            self.toast = None;
            self.redraw = true;
        }
        let busy = self.running.is_some()
            || self
                .state
                .as_ref()
                .is_some_and(|s| s.live.is_some() || s.lock_holder.is_some());
        if busy {
            // The elapsed time and the ETA change every second.
            if now.timestamp() != self.shown_second {
                self.shown_second = now.timestamp();
                self.redraw = true;
            }
            let due = self
                .last_liveness_check
                .is_none_or(|t| (now - t).num_seconds() >= LIVENESS_SECONDS);
            if due && effects.is_empty() {
                self.last_liveness_check = Some(now);
                effects.push(Effect::Load(LoadScope::liveness()));
            }
        }
        effects
    }

    fn on_load_failed(&mut self, scope: LoadScope, error: String) {
        self.failed_loads += 1;
        if self.failed_loads <= RELOAD_RETRIES {
            self.retry = Some(scope);
        } else if self.load_error.as_deref() != Some(error.as_str()) {
            // In the log, not a toast: the read error's own status row says it for exactly
            // as long as it holds, where a toast would outlive the fix by seconds.
            self.log_line(format!("cannot read the campaign: {error}"), Tone::Bad);
            self.load_error = Some(error);
            self.redraw = true;
        }
    }

    fn on_loaded(&mut self) {
        self.failed_loads = 0;
        self.retry = None;
        if self.load_error.take().is_some() {
            self.note("campaign readable again", Tone::Good);
            self.redraw = true;
        }
    }

    fn on_patch(&mut self, mut patch: StatePatch) -> Vec<Effect> {
        let Some(state) = self.state.as_mut() else {
            // Nothing to patch yet: the first full load is on its way or failed.
            return vec![Effect::Load(LoadScope::everything())];
        };
        // The working kernel's key is the model's, not the campaign state's.
        let key = patch.working_key.take();
        let changed = patch.apply(state);
        let key_changed = key.is_some_and(|k| {
            let differs = k != self.working_key;
            self.working_key = k;
            differs
        });
        if !changed.rounds.is_empty() {
            self.rounds_changed();
        } else if key_changed && self.ledger_changed() {
            self.refresh_selection();
            self.redraw = true;
        }
        if changed.journal {
            self.journal_changed();
        }
        if changed.live {
            self.live_changed();
        }
        self.redraw |= changed.any();
        Vec::new()
    }
}

impl Model {
    /// A question's answer: a diff into its viewer or the log, a shape's samples and
    /// roofline into its popup (when it is still open on that shape).
    fn on_answer(&mut self, query: Query, answer: Answer) {
        match query {
            Query::Diff { from, to, why } => {
                let doc = match answer {
                    Answer::Json(doc) => doc,
                    Answer::Failed(e) => {
                        let tone = if why == DiffWhy::Show {
                            Tone::Warn
                        } else {
                            Tone::Dim
                        };
                        self.note(
                            format!("kcamp diff {} {}: {e}", from.name(), to.name()),
                            tone,
                        );
                        return;
                    }
                    Answer::Samples(_) => return,
                };
                let diff: Option<kcamp_core::campaign::diff::KernelDiff> =
                    serde_json::from_value(doc).ok();
                let Some(diff) = diff else {
                    self.note("kcamp diff: its document did not read as a diff", Tone::Bad);
                    return;
                };
                match why {
                    DiffWhy::Show => {
                        let command = self
                            .state
                            .as_ref()
                            .and_then(|s| query_line(&s.dir, from, to))
                            .unwrap_or_default();
                        let mut text = diff.unified();
                        if text.is_empty() {
                            text = format!("{}\n", diff.summary());
                        }
                        self.popup = Some(Popup::Viewer(crate::popups::ViewerPopup::diff(
                            format!("Diff {}", diff.summary()),
                            text,
                            command,
                        )));
                    }
                    DiffWhy::KernelChanged => {
                        let summary = diff.summary();
                        if self.working_kernel.as_deref() != Some(summary.as_str()) {
                            let next = match self.open_round_number() {
                                Some(n) if diff.changed().count() > 0 => {
                                    format!(": v validates it as round {n}")
                                }
                                Some(_) => String::new(),
                                None => format!(
                                    ": n opens round {} to measure it",
                                    self.next_round_number()
                                ),
                            };
                            self.note(format!("working kernel: {summary}{next}"), Tone::Normal);
                            self.working_kernel = Some(summary);
                            self.refresh_selection();
                        }
                    }
                }
            }
            Query::Samples { round, label, .. } => {
                if let Some(Popup::Shape(p)) = &mut self.popup
                    && p.round == round
                    && p.line.label == label
                {
                    p.samples = match answer {
                        Answer::Samples(s) => crate::popups::shape::Pending::Ready(s),
                        Answer::Failed(e) => crate::popups::shape::Pending::Failed(e),
                        Answer::Json(_) => return,
                    };
                }
            }
            Query::Analyze { round } => {
                if let Some(Popup::Shape(p)) = &mut self.popup
                    && p.round == round
                {
                    p.roof = match answer {
                        Answer::Json(doc) => {
                            let shapes: Vec<kcamp_core::analysis::ShapeRoof> = doc
                                .pointer("/profile_evidence/shapes")
                                .and_then(|v| serde_json::from_value(v.clone()).ok())
                                .unwrap_or_default();
                            crate::popups::shape::Pending::Ready(
                                shapes.into_iter().find(|s| s.label == p.line.label),
                            )
                        }
                        Answer::Failed(e) => {
                            crate::popups::shape::Pending::Failed(format!("`kcamp analyze`: {e}"))
                        }
                        Answer::Samples(_) => return,
                    };
                }
            }
        }
    }
}

/// `kcamp -C DIR diff A B`, for `y` in a diff.
fn query_line(
    dir: &std::path::Path,
    from: kcamp_core::campaign::diff::KernelSide,
    to: kcamp_core::campaign::diff::KernelSide,
) -> Option<String> {
    let line = Query::Diff {
        from,
        to,
        why: DiffWhy::Show,
    }
    .command_line(&actions::absolute(dir))?;
    Some(line)
}

pub fn update(model: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) => {
            model.redraw = true;
            actions::on_key(model, &key)
        }
        Msg::Paste(text) => {
            model.redraw = true;
            actions::on_paste(model, &text);
            Vec::new()
        }
        Msg::Resize(w, h) => {
            model.size = (w, h);
            model.redraw = true;
            model.refocus_if_hidden();
            Vec::new()
        }
        Msg::Tick => model.on_tick(),
        Msg::StateLoaded(Ok(state)) => {
            model.on_loaded();
            model.apply_state(*state);
            model.redraw = true;
            Vec::new()
        }
        Msg::StateLoaded(Err(error)) => {
            model.on_load_failed(LoadScope::everything(), error);
            Vec::new()
        }
        Msg::PatchLoaded(Ok(patch)) => {
            model.on_loaded();
            model.on_patch(*patch)
        }
        Msg::PatchLoaded(Err(error)) => {
            // A part that cannot be read alone (a round mid-write) is read with the rest.
            model.on_load_failed(LoadScope::everything(), error);
            Vec::new()
        }
        Msg::FilesChanged(scope) => {
            let mut effects = Vec::new();
            if scope.working_kernel {
                effects.extend(actions::kernel_changed(model));
            }
            if !scope.is_empty() {
                effects.push(Effect::Load(scope));
            }
            effects
        }
        Msg::CommandFinished { command, result } => {
            model.redraw = true;
            actions::on_command_finished(model, command, &result)
        }
        Msg::Answered { query, answer } => {
            model.redraw = true;
            model.on_answer(query, answer);
            Vec::new()
        }
        Msg::EditorDone(result) => {
            // The editor drew over the screen: all of it is drawn again.
            model.redraw = true;
            actions::on_editor_done(model, result)
        }
        Msg::Mouse(event) => mouse::on_mouse(model, &event),
        Msg::EffectFailed(text) => {
            model.redraw = true;
            model.note(text, Tone::Bad);
            Vec::new()
        }
        Msg::Terminate => {
            model.redraw = true;
            actions::quit_effects(model)
        }
    }
}
