//! The model and `update` (the Elm architecture): every change of dashboard state happens
//! here, in response to a [`Msg`], and everything with a side effect is returned as an
//! [`Effect`] for the event loop to perform.

use chrono::{DateTime, Utc};
use crossterm::event::KeyEvent;

use crate::commands::{self, CampaignCommand, CommandResult};
use crate::derive::{
    self, ChartData, DetailLine, GateView, LiveView, LogLine, LogSource, RoundLine, ShapeSpark,
    Tone,
};
use crate::keys::{self, Action, Context, Panel};
use crate::popups::confirm::ConfirmOutcome;
use crate::popups::help::HelpOutcome;
use crate::popups::input::InputOutcome;
use crate::popups::{ConfirmPopup, HelpPopup, InputPopup, InputPurpose, Pending, Popup};
use crate::style::Theme;
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::campaign::CampaignState;

/// A failed reload is retried on this many ticks before its error is shown: a reader can
/// catch a file that another process is in the middle of replacing.
pub const RELOAD_RETRIES: u32 = 3;

/// Shapes with a sparkline in the metric panel.
const MAX_SPARKLINES: usize = 12;

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(KeyEvent),
    Resize(u16, u16),
    Tick,
    StateLoaded(Result<Box<CampaignState>, String>),
    /// Files under the campaign changed; `progress_only` when only `live/` did.
    FilesChanged {
        progress_only: bool,
    },
    CommandFinished {
        command: CampaignCommand,
        result: CommandResult,
    },
    /// `live/progress.json` was re-read (None: no run in progress).
    Progress(Option<Progress>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Load the whole campaign again (answers with `StateLoaded`).
    Reload,
    /// Read only `live/progress.json` (answers with `Progress`).
    ReadProgress,
    Spawn(CampaignCommand),
    /// Kill the running command's process group.
    Cancel,
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    File,
    WorstFirst,
    BestFirst,
}

impl SortOrder {
    fn next(self) -> SortOrder {
        match self {
            SortOrder::File => SortOrder::WorstFirst,
            SortOrder::WorstFirst => SortOrder::BestFirst,
            SortOrder::BestFirst => SortOrder::File,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SortOrder::File => "file order",
            SortOrder::WorstFirst => "Δ worst first",
            SortOrder::BestFirst => "Δ best first",
        }
    }
}

pub struct Model {
    pub theme: Theme,
    /// Time source for the dashboard's own log lines (fixed in tests).
    pub clock: fn() -> DateTime<Utc>,
    /// The last campaign state that loaded; kept on screen while reloads fail.
    pub state: Option<CampaignState>,
    pub rounds: Vec<RoundLine>,
    pub chart: ChartData,
    pub sparks: Vec<ShapeSpark>,
    journal: Vec<LogLine>,
    messages: Vec<LogLine>,
    /// Journal and dashboard messages merged by time, newest last.
    pub log: Vec<LogLine>,
    pub live: Option<LiveView>,
    pub focus: Panel,
    /// Index into `rounds` of the round shown in the gate and details panels.
    pub selected: usize,
    /// The selection follows the newest round until the user moves it.
    follow_latest: bool,
    pub gate: GateView,
    pub gate_filter: String,
    pub gate_sort: SortOrder,
    /// Indices into `gate.lines` after filter and sort.
    pub gate_rows: Vec<usize>,
    pub gate_scroll: usize,
    pub details: Vec<DetailLine>,
    pub details_scroll: usize,
    /// Lines scrolled up from the newest.
    pub log_scroll: usize,
    pub popup: Option<Popup>,
    /// The command this dashboard started and is waiting for.
    pub running: Option<CampaignCommand>,
    /// Shown once reloads have failed RELOAD_RETRIES times in a row.
    pub load_error: Option<String>,
    failed_loads: u32,
    retry_on_tick: bool,
}

impl Model {
    pub fn new(theme: Theme, clock: fn() -> DateTime<Utc>) -> Model {
        Model {
            theme,
            clock,
            state: None,
            rounds: Vec::new(),
            chart: ChartData::default(),
            sparks: Vec::new(),
            journal: Vec::new(),
            messages: Vec::new(),
            log: Vec::new(),
            live: None,
            focus: Panel::Rounds,
            selected: 0,
            follow_latest: true,
            gate: GateView::default(),
            gate_filter: String::new(),
            gate_sort: SortOrder::File,
            gate_rows: Vec::new(),
            gate_scroll: 0,
            details: Vec::new(),
            details_scroll: 0,
            log_scroll: 0,
            popup: None,
            running: None,
            load_error: None,
            failed_loads: 0,
            retry_on_tick: false,
        }
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        self.popup
            .as_ref()
            .map_or(Context::Main(self.focus), Popup::context)
    }

    fn note(&mut self, text: impl Into<String>, tone: Tone) {
        self.messages.push(LogLine {
            time: (self.clock)(),
            source: LogSource::Dashboard,
            text: text.into(),
            tone,
        });
        self.merge_log();
    }

    fn merge_log(&mut self) {
        let mut log: Vec<LogLine> = self.journal.iter().chain(&self.messages).cloned().collect();
        // Stable: a journal line and a message of the same instant keep journal first.
        log.sort_by_key(|l| l.time);
        self.log = log;
    }

    fn apply_state(&mut self, state: CampaignState) {
        let previous = self.rounds.get(self.selected).map(|r| r.number);
        self.rounds = derive::round_lines(&state);
        self.chart = derive::chart(&state);
        self.sparks = derive::sparklines(&state, MAX_SPARKLINES);
        self.journal = derive::journal_lines(&state);
        self.live = state.live.as_ref().map(LiveView::from_progress);
        let last = self.rounds.len().saturating_sub(1);
        self.selected = if self.follow_latest {
            last
        } else {
            previous
                .and_then(|n| self.rounds.iter().position(|r| r.number == n))
                .unwrap_or(last)
        };
        self.state = Some(state);
        self.merge_log();
        self.refresh_selection();
    }

    /// Recompute what depends on the selected round.
    fn refresh_selection(&mut self) {
        let Some(state) = &self.state else {
            return;
        };
        self.gate = derive::gate_view(state, self.selected);
        self.details = derive::details(state, self.selected);
        self.details_scroll = 0;
        self.refresh_gate_rows();
    }

    fn refresh_gate_rows(&mut self) {
        let needle = self.gate_filter.to_lowercase();
        let mut rows: Vec<usize> = self
            .gate
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| needle.is_empty() || l.label.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect();
        let delta = |i: &usize| self.gate.lines[*i].delta;
        match self.gate_sort {
            SortOrder::File => {}
            // Shapes without a Δ (failed) are the worst of all.
            SortOrder::WorstFirst => rows.sort_by(|a, b| {
                delta(a)
                    .unwrap_or(f64::NEG_INFINITY)
                    .total_cmp(&delta(b).unwrap_or(f64::NEG_INFINITY))
            }),
            SortOrder::BestFirst => rows.sort_by(|a, b| {
                delta(b)
                    .unwrap_or(f64::NEG_INFINITY)
                    .total_cmp(&delta(a).unwrap_or(f64::NEG_INFINITY))
            }),
        }
        self.gate_scroll = self.gate_scroll.min(rows.len().saturating_sub(1));
        self.gate_rows = rows;
    }

    fn open_round(&self) -> Option<&kcamp_core::campaign::RoundState> {
        let state = self.state.as_ref()?;
        let number = state.open_round?;
        state.rounds.iter().find(|r| r.number == number)
    }

    /// Why a command that writes the campaign cannot be sent now.
    fn write_blocked(&self) -> Option<String> {
        if let Some(cmd) = &self.running {
            let hint = if cmd.is_validate() {
                " (Esc cancels it)"
            } else {
                ""
            };
            return Some(format!("`{}` is still running{hint}", cmd.label()));
        }
        let state = self.state.as_ref()?;
        state
            .lock_holder
            .as_ref()
            .map(|h| format!("campaign is locked by {h}: wait until it finishes"))
    }
}

pub fn update(model: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) => on_key(model, &key),
        Msg::Resize(..) => Vec::new(),
        Msg::Tick => {
            if model.retry_on_tick {
                model.retry_on_tick = false;
                vec![Effect::Reload]
            } else {
                Vec::new()
            }
        }
        Msg::StateLoaded(Ok(state)) => {
            let state = *state;
            model.failed_loads = 0;
            model.retry_on_tick = false;
            if model.load_error.take().is_some() {
                model.note("campaign readable again", Tone::Good);
            }
            model.apply_state(state);
            Vec::new()
        }
        Msg::StateLoaded(Err(error)) => {
            model.failed_loads += 1;
            if model.failed_loads <= RELOAD_RETRIES {
                model.retry_on_tick = true;
            } else if model.load_error.as_deref() != Some(error.as_str()) {
                model.note(format!("cannot read the campaign: {error}"), Tone::Bad);
                model.load_error = Some(error);
            }
            Vec::new()
        }
        Msg::FilesChanged {
            progress_only: true,
        } => vec![Effect::ReadProgress],
        Msg::FilesChanged {
            progress_only: false,
        } => vec![Effect::Reload],
        Msg::Progress(progress) => {
            model.live = progress.as_ref().map(LiveView::from_progress);
            Vec::new()
        }
        Msg::CommandFinished { command, result } => {
            model.running = None;
            let outcome = commands::interpret(&command, &result);
            let hard_failure = !outcome.success
                && !result.cancelled
                && result.exit_code != Some(kcamp_core::error::exit::GATE_REJECTED);
            model.note(
                outcome.summary.clone(),
                if outcome.success {
                    Tone::Good
                } else {
                    Tone::Bad
                },
            );
            if hard_failure && model.popup.is_none() {
                let mut lines = vec![(outcome.summary, Tone::Bad)];
                lines.extend(
                    outcome
                        .details
                        .into_iter()
                        .filter(|d| !d.is_empty())
                        .map(|d| (d, Tone::Normal)),
                );
                model.popup = Some(Popup::Confirm(ConfirmPopup {
                    title: format!("{} failed", command.label()),
                    lines,
                    on_confirm: None,
                }));
            }
            vec![Effect::Reload]
        }
    }
}

fn on_key(model: &mut Model, key: &KeyEvent) -> Vec<Effect> {
    let action = keys::resolve(model.context(), key);
    if action == Some(Action::ForceQuit) {
        return quit_effects(model);
    }
    match model.popup.take() {
        None => on_main_action(model, action),
        Some(Popup::Help(mut help)) => {
            if help.on_action(action) == HelpOutcome::Stay {
                model.popup = Some(Popup::Help(help));
            }
            Vec::new()
        }
        Some(Popup::Confirm(confirm)) => match confirm.on_action(action) {
            ConfirmOutcome::Confirmed(Some(pending)) => run_pending(model, pending),
            ConfirmOutcome::Confirmed(None) | ConfirmOutcome::Dismissed => Vec::new(),
            ConfirmOutcome::Ignored => {
                model.popup = Some(Popup::Confirm(confirm));
                Vec::new()
            }
        },
        Some(Popup::Input(mut input)) => {
            let outcome = input.on_key(action, key);
            let purpose = input.purpose;
            match outcome {
                InputOutcome::Editing => {
                    if purpose == InputPurpose::Filter {
                        // The table narrows while the user types.
                        model.gate_filter = input.text.trim().to_owned();
                        model.refresh_gate_rows();
                    }
                    model.popup = Some(Popup::Input(input));
                    Vec::new()
                }
                InputOutcome::Dismissed => {
                    if purpose == InputPurpose::Filter {
                        model.gate_filter.clear();
                        model.refresh_gate_rows();
                    }
                    Vec::new()
                }
                InputOutcome::Submitted(text) => submit_input(model, purpose, text),
            }
        }
    }
}

fn quit_effects(model: &Model) -> Vec<Effect> {
    if model.running.is_some() {
        vec![Effect::Cancel, Effect::Quit]
    } else {
        vec![Effect::Quit]
    }
}

fn run_pending(model: &mut Model, pending: Pending) -> Vec<Effect> {
    match pending {
        Pending::Spawn(command) => spawn(model, command),
        Pending::CancelRun => {
            if model.running.is_some() {
                model.note("cancelling the validation…", Tone::Warn);
                vec![Effect::Cancel]
            } else {
                Vec::new()
            }
        }
        Pending::Quit => quit_effects(model),
    }
}

fn spawn(model: &mut Model, command: CampaignCommand) -> Vec<Effect> {
    if let Some(why) = model.write_blocked() {
        model.note(why, Tone::Warn);
        return Vec::new();
    }
    model.note(format!("started `kcamp {}`", command.label()), Tone::Normal);
    model.running = Some(command.clone());
    vec![Effect::Spawn(command)]
}

fn submit_input(model: &mut Model, purpose: InputPurpose, text: String) -> Vec<Effect> {
    match purpose {
        InputPurpose::Filter => {
            model.gate_filter = text;
            model.refresh_gate_rows();
            Vec::new()
        }
        InputPurpose::Hypothesis => spawn(model, CampaignCommand::NewRound { hypothesis: text }),
        InputPurpose::ForceReason => spawn(
            model,
            CampaignCommand::Accept {
                force: true,
                reason: Some(text),
            },
        ),
        InputPurpose::RollbackReason => spawn(model, CampaignCommand::Rollback { reason: text }),
    }
}

fn move_selection(model: &mut Model, down: bool) {
    match model.focus {
        Panel::Rounds => {
            if model.rounds.is_empty() {
                return;
            }
            let last = model.rounds.len() - 1;
            model.selected = if down {
                (model.selected + 1).min(last)
            } else {
                model.selected.saturating_sub(1)
            };
            model.follow_latest = model.selected == last;
            model.refresh_selection();
        }
        Panel::Gate => {
            let last = model.gate_rows.len().saturating_sub(1);
            model.gate_scroll = step(model.gate_scroll, down, last);
        }
        Panel::Details => {
            let last = model.details.len().saturating_sub(1);
            model.details_scroll = step(model.details_scroll, down, last);
        }
        // Scrolled from the newest line: "down" goes back towards it.
        Panel::Log => {
            let last = model.log.len().saturating_sub(1);
            model.log_scroll = step(model.log_scroll, !down, last);
        }
        Panel::Chart | Panel::Live => {}
    }
}

fn step(value: usize, up: bool, max: usize) -> usize {
    if up {
        (value + 1).min(max)
    } else {
        value.saturating_sub(1)
    }
}

fn pct(delta: Option<f64>) -> String {
    delta.map_or("n/a".into(), |d| format!("{:+.1}%", d * 100.0))
}

fn verdict_lines(model: &Model, round: &kcamp_core::campaign::RoundState) -> Vec<(String, Tone)> {
    let mut lines = vec![(
        format!("Round {}: {}", round.number, round.hypothesis.trim()),
        Tone::Normal,
    )];
    if let Some(gate) = &round.gate {
        let tone = if gate.verdict.allows_accept() {
            Tone::Good
        } else {
            Tone::Bad
        };
        lines.push((
            format!(
                "Gate verdict: {} · aggregate {} on {}",
                gate.verdict.as_str(),
                pct(gate.aggregate.delta),
                gate.metric
            ),
            tone,
        ));
        lines.extend(
            gate.reasons
                .iter()
                .map(|r| (format!("• {r}"), Tone::Normal)),
        );
        if !gate.noted_regressions.is_empty() {
            lines.push((
                format!("noted regressions: {}", gate.noted_regressions.join(", ")),
                Tone::Warn,
            ));
        }
    }
    if let Some(holder) = model.state.as_ref().and_then(|s| s.lock_holder.as_ref()) {
        lines.push((format!("campaign locked by {holder}"), Tone::Warn));
    }
    lines
}

fn on_main_action(model: &mut Model, action: Option<Action>) -> Vec<Effect> {
    let Some(action) = action else {
        return Vec::new();
    };
    match action {
        Action::Help => {
            model.popup = Some(Popup::Help(HelpPopup::default()));
            Vec::new()
        }
        Action::Quit => {
            if let Some(cmd) = &model.running {
                model.popup = Some(Popup::Confirm(ConfirmPopup {
                    title: "Quit?".into(),
                    lines: vec![(
                        format!(
                            "`kcamp {}` is still running; quitting cancels it.",
                            cmd.label()
                        ),
                        Tone::Warn,
                    )],
                    on_confirm: Some(Pending::Quit),
                }));
                Vec::new()
            } else {
                vec![Effect::Quit]
            }
        }
        Action::ForceQuit => quit_effects(model),
        Action::FocusNext => {
            model.focus = model.focus.next();
            Vec::new()
        }
        Action::FocusPrev => {
            model.focus = model.focus.prev();
            Vec::new()
        }
        Action::Focus(panel) => {
            model.focus = panel;
            Vec::new()
        }
        Action::Down | Action::Up => {
            move_selection(model, action == Action::Down);
            Vec::new()
        }
        Action::SortByDelta => {
            model.gate_sort = model.gate_sort.next();
            model.refresh_gate_rows();
            Vec::new()
        }
        Action::Filter => {
            model.popup = Some(Popup::Input(InputPopup::new(
                InputPurpose::Filter,
                "Filter shapes",
                model.gate_filter.clone(),
            )));
            Vec::new()
        }
        Action::ValidateQuick | Action::ValidateFull => spawn(
            model,
            CampaignCommand::Validate {
                full: action == Action::ValidateFull,
            },
        ),
        Action::NewRound => {
            if let Some(why) = model.write_blocked() {
                model.note(why, Tone::Warn);
            } else if let Some(round) = model.open_round() {
                let text = format!(
                    "round {} is still open: accept (a) or roll back (r) first",
                    round.number
                );
                model.note(text, Tone::Warn);
            } else {
                let next = model.rounds.last().map_or(1, |r| r.number + 1);
                model.popup = Some(Popup::Input(InputPopup::new(
                    InputPurpose::Hypothesis,
                    format!("New round {next}: one hypothesis"),
                    "",
                )));
            }
            Vec::new()
        }
        Action::Accept => {
            open_accept(model);
            Vec::new()
        }
        Action::Rollback => {
            open_rollback(model);
            Vec::new()
        }
        Action::CancelRun => {
            match &model.running {
                Some(cmd) if cmd.is_validate() => {
                    model.popup = Some(Popup::Confirm(ConfirmPopup {
                        title: "Cancel the validation?".into(),
                        lines: vec![(
                            format!(
                                "Stop `kcamp {}` and its worker? The round keeps its last recorded state.",
                                cmd.label()
                            ),
                            Tone::Warn,
                        )],
                        on_confirm: Some(Pending::CancelRun),
                    }));
                }
                Some(cmd) => {
                    let text = format!("`{}` is short and cannot be cancelled", cmd.label());
                    model.note(text, Tone::Warn);
                }
                None => {}
            }
            Vec::new()
        }
        Action::Confirm | Action::Dismiss | Action::Submit | Action::DeleteChar => Vec::new(),
    }
}

fn open_accept(model: &mut Model) {
    if let Some(why) = model.write_blocked() {
        model.note(why, Tone::Warn);
        return;
    }
    let Some(round) = model.open_round() else {
        model.note("no open round to accept", Tone::Warn);
        return;
    };
    let Some(gate) = &round.gate else {
        let text = format!(
            "round {} has no gate verdict yet: validate it first (v)",
            round.number
        );
        model.note(text, Tone::Warn);
        return;
    };
    let mut lines = verdict_lines(model, round);
    let popup = if gate.verdict.allows_accept() {
        Popup::Confirm(ConfirmPopup {
            title: format!("Accept round {}?", round.number),
            lines,
            on_confirm: Some(Pending::Spawn(CampaignCommand::Accept {
                force: false,
                reason: None,
            })),
        })
    } else {
        lines.push((
            format!(
                "The gate does not allow {}: accepting forces it (--force) and records your reason.",
                gate.verdict.as_str()
            ),
            Tone::Warn,
        ));
        Popup::Input(
            InputPopup::new(
                InputPurpose::ForceReason,
                format!("Force-accept round {}", round.number),
                "",
            )
            .with_lines(lines),
        )
    };
    model.popup = Some(popup);
}

fn open_rollback(model: &mut Model) {
    if let Some(why) = model.write_blocked() {
        model.note(why, Tone::Warn);
        return;
    }
    let Some(round) = model.open_round() else {
        model.note("no open round to roll back", Tone::Warn);
        return;
    };
    let suggestion = match &round.gate {
        Some(g) if !g.verdict.allows_accept() => match g.reasons.first() {
            Some(r) => format!("gate {}: {r}", g.verdict.as_str()),
            None => format!("gate {}", g.verdict.as_str()),
        },
        Some(_) => "abandoned although the gate allowed it".to_owned(),
        None => "abandoned before validation".to_owned(),
    };
    let lines = verdict_lines(model, round);
    model.popup = Some(Popup::Input(
        InputPopup::new(
            InputPurpose::RollbackReason,
            format!("Roll back round {}", round.number),
            suggestion,
        )
        .with_lines(lines),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn fixed_clock() -> DateTime<Utc> {
        fixtures::at(200)
    }

    fn model_with(state: CampaignState) -> Model {
        let mut m = Model::new(Theme::plain(), fixed_clock);
        update(&mut m, Msg::StateLoaded(Ok(Box::new(state))));
        m
    }

    fn key(m: &mut Model, code: KeyCode) -> Vec<Effect> {
        update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn chr(m: &mut Model, c: char) -> Vec<Effect> {
        key(m, KeyCode::Char(c))
    }

    fn typed(m: &mut Model, text: &str) {
        for c in text.chars() {
            assert!(chr(m, c).is_empty());
        }
    }

    fn last_message(m: &Model) -> &str {
        &m.messages.last().expect("a message").text
    }

    #[test]
    fn accept_opens_a_confirmation_with_the_reasons_and_yes_spawns_accept() {
        let mut m = model_with(fixtures::acceptable_candidate());
        assert!(chr(&mut m, 'a').is_empty());
        let Some(Popup::Confirm(c)) = &m.popup else {
            panic!("expected a confirmation, got {:?}", m.popup)
        };
        let text: Vec<&str> = c.lines.iter().map(|l| l.0.as_str()).collect();
        assert!(
            text.iter().any(|l| l.contains("ACCEPT_WITH_NOTE")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|l| l.contains("sq128 regressed")),
            "{text:?}"
        );
        let effects = key(&mut m, KeyCode::Enter);
        assert_eq!(
            effects,
            [Effect::Spawn(CampaignCommand::Accept {
                force: false,
                reason: None
            })]
        );
        assert!(m.popup.is_none());
        assert!(m.running.is_some());
    }

    #[test]
    fn declining_the_confirmation_sends_nothing() {
        let mut m = model_with(fixtures::acceptable_candidate());
        chr(&mut m, 'a');
        assert!(chr(&mut m, 'n').is_empty());
        assert!(m.popup.is_none());
        assert!(m.running.is_none());
    }

    #[test]
    fn forced_accept_requires_a_non_empty_reason() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, 'a');
        assert!(matches!(
            &m.popup,
            Some(Popup::Input(p)) if p.purpose == InputPurpose::ForceReason
        ));
        assert!(
            key(&mut m, KeyCode::Enter).is_empty(),
            "blank reason refused"
        );
        assert!(m.popup.is_some());
        typed(&mut m, "sq1024 FAIL is a known lavapipe bug");
        let effects = key(&mut m, KeyCode::Enter);
        assert_eq!(
            effects,
            [Effect::Spawn(CampaignCommand::Accept {
                force: true,
                reason: Some("sq1024 FAIL is a known lavapipe bug".into())
            })]
        );
    }

    #[test]
    fn rollback_prefills_a_reason_from_the_gate() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, 'r');
        let Some(Popup::Input(p)) = &m.popup else {
            panic!("expected the reason input")
        };
        assert_eq!(
            p.text,
            "gate REJECT: sq1024 is FAIL (rel_err 3.2e-2 over 1e-4)"
        );
        let effects = key(&mut m, KeyCode::Enter);
        assert!(matches!(
            &effects[..],
            [Effect::Spawn(CampaignCommand::Rollback { .. })]
        ));
    }

    #[test]
    fn filter_narrows_rows_while_typing_and_esc_clears_it() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, '2');
        assert_eq!(m.gate_rows.len(), 6);
        chr(&mut m, '/');
        typed(&mut m, "sq1");
        // sq128, sq1024
        assert_eq!(m.gate_rows.len(), 2);
        typed(&mut m, "28");
        assert_eq!(m.gate_rows, [1]);
        key(&mut m, KeyCode::Enter);
        assert!(m.popup.is_none());
        assert_eq!(m.gate_filter, "sq128");
        chr(&mut m, '/');
        key(&mut m, KeyCode::Esc);
        assert_eq!(m.gate_rows.len(), 6);
    }

    #[test]
    fn sort_by_delta_puts_the_failed_shape_first_then_the_best() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, '2');
        chr(&mut m, 's');
        let labels = |m: &Model| -> Vec<String> {
            m.gate_rows
                .iter()
                .map(|&i| m.gate.lines[i].label.clone())
                .collect()
        };
        assert_eq!(labels(&m)[..2], ["sq1024", "sq128"]);
        chr(&mut m, 's');
        assert_eq!(labels(&m)[0], "sq512");
        chr(&mut m, 's');
        assert_eq!(labels(&m)[0], "sq64");
    }

    #[test]
    fn a_lock_held_elsewhere_blocks_writing_keys_with_a_message() {
        let mut m = model_with(fixtures::running());
        for c in ['v', 'V', 'a', 'r', 'n'] {
            assert!(chr(&mut m, c).is_empty(), "{c} must not send anything");
            assert!(m.popup.is_none());
            assert!(
                last_message(&m).contains("pid 5151 (kcamp validate)"),
                "{c}"
            );
        }
    }

    #[test]
    fn our_own_running_command_blocks_a_second_one() {
        let mut m = model_with(fixtures::several_rounds());
        assert_eq!(
            chr(&mut m, 'v'),
            [Effect::Spawn(CampaignCommand::Validate { full: false })]
        );
        assert!(chr(&mut m, 'V').is_empty());
        assert!(last_message(&m).contains("still running"));
    }

    #[test]
    fn esc_asks_before_cancelling_a_running_validation() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, 'V');
        assert!(key(&mut m, KeyCode::Esc).is_empty());
        assert!(matches!(m.popup, Some(Popup::Confirm(_))));
        assert_eq!(chr(&mut m, 'y'), [Effect::Cancel]);
        let result = CommandResult {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            spawn_error: None,
            cancelled: true,
        };
        let effects = update(
            &mut m,
            Msg::CommandFinished {
                command: CampaignCommand::Validate { full: true },
                result,
            },
        );
        assert_eq!(effects, [Effect::Reload]);
        assert!(m.running.is_none());
        assert!(m.popup.is_none(), "a cancel is not an error popup");
        assert_eq!(last_message(&m), "validate --full: cancelled");
    }

    #[test]
    fn a_failed_command_opens_a_notice_and_reloads() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, 'v');
        let result = CommandResult {
            exit_code: Some(2),
            stdout: r#"{"error":{"kind":"locked","message":"campaign is locked by pid 9"}}"#.into(),
            stderr: String::new(),
            spawn_error: None,
            cancelled: false,
        };
        let effects = update(
            &mut m,
            Msg::CommandFinished {
                command: CampaignCommand::Validate { full: false },
                result,
            },
        );
        assert_eq!(effects, [Effect::Reload]);
        assert!(matches!(&m.popup, Some(Popup::Confirm(c)) if c.on_confirm.is_none()));
        assert!(chr(&mut m, 'y').is_empty());
        assert!(m.popup.is_none());
    }

    #[test]
    fn half_written_files_are_retried_before_the_error_shows() {
        let mut m = model_with(fixtures::several_rounds());
        for attempt in 1..=RELOAD_RETRIES {
            update(&mut m, Msg::StateLoaded(Err("EOF while parsing".into())));
            assert!(m.load_error.is_none(), "attempt {attempt}");
            assert_eq!(update(&mut m, Msg::Tick), [Effect::Reload]);
            assert!(
                update(&mut m, Msg::Tick).is_empty(),
                "one retry per failure"
            );
        }
        update(&mut m, Msg::StateLoaded(Err("EOF while parsing".into())));
        assert_eq!(m.load_error.as_deref(), Some("EOF while parsing"));
        assert!(update(&mut m, Msg::Tick).is_empty());
        assert_eq!(m.rounds.len(), 4, "the last good state stays");
        update(
            &mut m,
            Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds()))),
        );
        assert!(m.load_error.is_none());
    }

    #[test]
    fn file_changes_reload_and_progress_only_changes_read_progress() {
        let mut m = model_with(fixtures::several_rounds());
        assert_eq!(
            update(
                &mut m,
                Msg::FilesChanged {
                    progress_only: false
                }
            ),
            [Effect::Reload]
        );
        assert_eq!(
            update(
                &mut m,
                Msg::FilesChanged {
                    progress_only: true
                }
            ),
            [Effect::ReadProgress]
        );
        update(&mut m, Msg::Progress(Some(fixtures::progress(1, 2))));
        assert_eq!(m.live.as_ref().and_then(|l| l.ratio()), Some(0.5));
        update(&mut m, Msg::Progress(None));
        assert!(m.live.is_none());
    }

    #[test]
    fn selection_follows_the_newest_round_until_moved() {
        let mut m = model_with(fixtures::baseline_only());
        assert_eq!(m.selected, 0);
        update(
            &mut m,
            Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds()))),
        );
        assert_eq!(m.selected, 3);
        chr(&mut m, 'k');
        assert_eq!(m.gate.round, Some(3));
        update(
            &mut m,
            Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds()))),
        );
        assert_eq!(m.selected, 2, "a reload keeps a manual selection");
    }

    #[test]
    fn new_round_needs_no_open_round_and_a_hypothesis() {
        let mut m = model_with(fixtures::several_rounds());
        chr(&mut m, 'n');
        assert!(m.popup.is_none());
        assert!(last_message(&m).contains("round 4 is still open"));
        let mut m = model_with(fixtures::baseline_only());
        chr(&mut m, 'n');
        typed(&mut m, "tile 32");
        assert_eq!(
            key(&mut m, KeyCode::Enter),
            [Effect::Spawn(CampaignCommand::NewRound {
                hypothesis: "tile 32".into()
            })]
        );
    }

    #[test]
    fn quitting_while_running_asks_and_ctrl_c_cancels_at_once() {
        let mut m = model_with(fixtures::several_rounds());
        assert_eq!(chr(&mut m, 'q'), [Effect::Quit]);
        chr(&mut m, 'v');
        assert!(chr(&mut m, 'q').is_empty());
        assert_eq!(chr(&mut m, 'y'), [Effect::Cancel, Effect::Quit]);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(
            update(&mut m, Msg::Key(ctrl_c)),
            [Effect::Cancel, Effect::Quit]
        );
    }

    #[test]
    fn accept_without_a_verdict_or_open_round_explains_why() {
        let mut m = model_with(fixtures::baseline_only());
        chr(&mut m, 'a');
        assert_eq!(last_message(&m), "no open round to accept");
        let state = fixtures::CampaignBuilder::new(fixtures::shapes(&[64]), &[])
            .baseline(&[fixtures::pass(0.01)])
            .open("idea", None, kcamp_core::gate::Verdict::Accept, &[])
            .build();
        let mut m = model_with(state);
        chr(&mut m, 'a');
        assert!(last_message(&m).contains("validate it first"));
    }
}
