//! Keys and what they start: moving, popups, and the commands sent to the kcamp binary.
//! Every refusal says why, in the log and in the toast.

use crossterm::event::KeyEvent;
use kcamp_core::campaign::RoundState;
use kcamp_core::error::exit;
use kcamp_core::units;

use super::{Effect, Model, Running};
use crate::commands::{self, CampaignCommand, CommandResult};
use crate::derive::{self, Tone};
use crate::keys::{self, Action, Panel};
use crate::loading::LoadScope;
use crate::popups::confirm::ConfirmOutcome;
use crate::popups::input::InputOutcome;
use crate::popups::viewer::ViewerOutcome;
use crate::popups::{ConfirmPopup, InputPopup, InputPurpose, Pending, Popup, ViewerPopup};

pub(super) fn on_key(model: &mut Model, key: &KeyEvent) -> Vec<Effect> {
    let action = keys::resolve(model.context(), key);
    if action == Some(Action::ForceQuit) {
        return quit_effects(model);
    }
    let area = crate::view::body_area(model.size);
    match model.popup.take() {
        None => on_main_action(model, action),
        Some(Popup::Viewer(mut viewer)) => {
            if viewer.on_action(action, area) == ViewerOutcome::Stay {
                model.popup = Some(Popup::Viewer(viewer));
            }
            Vec::new()
        }
        Some(Popup::Confirm(mut confirm)) => match confirm.on_action(action, area) {
            ConfirmOutcome::Confirmed(Some(pending)) => run_pending(model, pending),
            ConfirmOutcome::Confirmed(None) | ConfirmOutcome::Dismissed => Vec::new(),
            ConfirmOutcome::Ignored => {
                model.popup = Some(Popup::Confirm(confirm));
                Vec::new()
            }
        },
        Some(Popup::Input(mut input)) => {
            let outcome = input.on_key(action, key, area);
            let purpose = input.purpose;
            match outcome {
                InputOutcome::Editing => {
                    if purpose == InputPurpose::Filter {
                        // The table narrows while the user types.
                        model.gate.set_filter(&input.text);
                    }
                    model.popup = Some(Popup::Input(input));
                    Vec::new()
                }
                InputOutcome::Dismissed => {
                    if purpose == InputPurpose::Filter {
                        model.gate.set_filter("");
                    }
                    Vec::new()
                }
                InputOutcome::Submitted(text) => submit_input(model, purpose, text),
            }
        }
    }
}

/// Quit; a running command is cancelled first (the event loop waits for it to end).
pub(super) fn quit_effects(model: &mut Model) -> Vec<Effect> {
    match &mut model.running {
        Some(run) => {
            run.cancelling = true;
            vec![Effect::Cancel, Effect::Quit]
        }
        None => vec![Effect::Quit],
    }
}

fn run_pending(model: &mut Model, pending: Pending) -> Vec<Effect> {
    match pending {
        Pending::Spawn(command) => spawn(model, command),
        Pending::CancelRun => match &mut model.running {
            Some(run) => {
                run.cancelling = true;
                let text = format!(
                    "cancelling `kcamp {}`: its workers end, nothing is recorded",
                    run.command.label()
                );
                model.note(text, Tone::Warn);
                vec![Effect::Cancel]
            }
            None => Vec::new(),
        },
        Pending::Quit => quit_effects(model),
    }
}

fn spawn(model: &mut Model, command: CampaignCommand) -> Vec<Effect> {
    if let Some(why) = model.write_blocked() {
        model.note(why, Tone::Warn);
        return Vec::new();
    }
    model.note(format!("started `kcamp {}`", command.label()), Tone::Normal);
    model.running = Some(Running {
        command: command.clone(),
        cancelling: false,
    });
    vec![Effect::Spawn(command)]
}

fn submit_input(model: &mut Model, purpose: InputPurpose, text: String) -> Vec<Effect> {
    match purpose {
        InputPurpose::Filter => {
            model.gate.set_filter(&text);
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

/// j/k, pages, g/G in the focused panel.
fn move_in_panel(model: &mut Model, action: Action) {
    let page = crate::view::page_rows(model.size, model.focus) as isize;
    let step: isize = match action {
        Action::Down => 1,
        Action::Up => -1,
        Action::PageDown => page,
        Action::PageUp => -page,
        Action::Top => isize::MIN / 2,
        _ => isize::MAX / 2,
    };
    match model.focus {
        Panel::Rounds => {
            if model.rounds.is_empty() {
                return;
            }
            let last = model.rounds.len() - 1;
            model.selected = model.selected.saturating_add_signed(step).min(last);
            model.follow_latest = model.selected == last;
            model.refresh_selection();
        }
        Panel::Gate => model.gate.move_by(step),
        Panel::Details => {
            let last = model.details.len().saturating_sub(1);
            model.details_scroll = model.details_scroll.saturating_add_signed(step).min(last);
        }
        // Counted from the newest line: down goes towards it, g to the oldest.
        Panel::Log => {
            let last = model.log.len().saturating_sub(1);
            model.log_scroll = model.log_scroll.saturating_add_signed(-step).min(last);
        }
        Panel::Chart | Panel::Live => {}
    }
}

fn verdict_line(round: &RoundState) -> Option<(String, Tone)> {
    let gate = round.gate.as_ref()?;
    let tone = if gate.verdict.allows_accept() {
        Tone::Good
    } else {
        Tone::Bad
    };
    Some((
        format!(
            "Gate verdict: {} · aggregate {} on {}{}",
            gate.verdict.as_str(),
            gate.aggregate.delta.map_or("—".into(), units::change),
            gate.metric,
            match round.gate_validation {
                Some(kcamp_core::types::Validation::Quick) => " (quick validation)",
                Some(kcamp_core::types::Validation::Full) => " (full validation)",
                None => "",
            }
        ),
        tone,
    ))
}

/// The verdict and every reason (repeated ones collapsed), for the accept and rollback
/// popups and the reasons viewer.
fn reason_lines(reasons: &[kcamp_core::gate::Reason], noted: &[String]) -> Vec<(String, Tone)> {
    let mut lines: Vec<(String, Tone)> = derive::collapse_reasons(reasons)
        .into_iter()
        .map(|r| (format!("• {}", r.text), Tone::Normal))
        .collect();
    if !noted.is_empty() {
        lines.push((
            format!("noted regressions: {}", noted.join(", ")),
            Tone::Warn,
        ));
    }
    lines
}

fn verdict_lines(model: &Model, round: &RoundState) -> Vec<(String, Tone)> {
    let mut lines = vec![(
        format!("Round {}: {}", round.number, round.hypothesis.trim()),
        Tone::Normal,
    )];
    let shown = model.gate.view.round;
    if shown.is_some() && shown != Some(round.number) {
        lines.push((
            format!(
                "The table shows round {}; this acts on the open round {}.",
                shown.unwrap_or_default(),
                round.number
            ),
            Tone::Warn,
        ));
    }
    lines.extend(verdict_line(round));
    if let Some(gate) = &round.gate {
        lines.extend(reason_lines(&gate.reasons, &gate.noted_regressions));
    }
    if let Some(holder) = model.state.as_ref().and_then(|s| s.lock_holder.as_ref()) {
        lines.push((format!("campaign locked by {holder}"), Tone::Warn));
    }
    lines
}

fn open_round(model: &Model) -> Option<&RoundState> {
    let state = model.state.as_ref()?;
    state.round(state.open_round?)
}

/// Why nothing can be validated or opened before the first measurement.
const NO_BASELINE: &str =
    "no BASELINE yet: run `kcamp baseline` in a terminal (it measures every target shape)";

/// Why `v`/`V` cannot run now.
fn validate_blocked(model: &Model) -> Option<String> {
    let Some(state) = &model.state else {
        return Some("the campaign is still loading".into());
    };
    if state.incumbent.is_none() {
        return Some(NO_BASELINE.into());
    }
    if state.open_round.is_none() {
        return Some(format!(
            "no open round to validate: press n to open round {} with its hypothesis",
            model.next_round_number()
        ));
    }
    model.write_blocked()
}

/// Why `action` would be refused now, in full; None when it would do something. Every key
/// that can be refused asks here first, and the key bar leaves out what this refuses, so
/// what the bar offers and what a key does cannot disagree.
pub(crate) fn refusal(model: &Model, action: Action) -> Option<String> {
    match action {
        Action::ValidateQuick | Action::ValidateFull => validate_blocked(model),
        Action::NewRound => model.write_blocked().or_else(|| {
            if model.state.as_ref().is_some_and(|s| s.incumbent.is_none()) {
                return Some(NO_BASELINE.to_owned());
            }
            open_round(model).map(|round| {
                format!(
                    "round {} is still open: accept (a) or roll back (r) first",
                    round.number
                )
            })
        }),
        Action::Accept => model.write_blocked().or_else(|| match open_round(model) {
            None => Some(format!(
                "no open round to accept: press n to open round {}",
                model.next_round_number()
            )),
            Some(round) if round.gate.is_none() => Some(format!(
                "round {} has no gate verdict yet: validate it first (v)",
                round.number
            )),
            // Not even a forced accept takes it: asking for a reason first would only lead
            // to that refusal.
            Some(round)
                if round
                    .gate
                    .as_ref()
                    .is_some_and(kcamp_core::campaign::nothing_passed) =>
            {
                Some(format!(
                    "no shape passes in round {}: it cannot become the incumbent, not even forced; fix the kernel and validate again (v), or roll it back (r)",
                    round.number
                ))
            }
            Some(_) => None,
        }),
        Action::Rollback => model.write_blocked().or_else(|| {
            open_round(model)
                .is_none()
                .then(|| "no open round to roll back".to_owned())
        }),
        Action::Reasons => {
            let view = &model.gate.view;
            let failing = view
                .lines
                .iter()
                .any(|l| l.check != kcamp_core::types::Check::Pass);
            match (view.round, view.verdict) {
                (None, _) => Some("no round selected".into()),
                (Some(_), None) if failing => None,
                (Some(n), None) => Some(format!(
                    "round {n} has no gate verdict (a BASELINE, or not validated yet)"
                )),
                (Some(_), Some(_)) => None,
            }
        }
        Action::CancelRun => cancel_blocked(model),
        _ => None,
    }
}

/// Why Esc cancels nothing now.
fn cancel_blocked(model: &Model) -> Option<String> {
    match &model.running {
        Some(run) if run.cancelling => Some("already cancelling: waiting for it to end".into()),
        Some(run) if run.command.is_cancellable() => None,
        Some(run) => Some(format!(
            "`kcamp {}` is short and cannot be cancelled",
            run.command.label()
        )),
        None => Some(match model.state.as_ref().and_then(|s| s.live.as_ref()) {
            Some(live) => format!(
                "the run in progress was started elsewhere (pid {}): stop it there with Ctrl-C, or `kill {}`",
                live.pid, live.pid
            ),
            None => "nothing is running".into(),
        }),
    }
}

/// Note a refusal of `action`; true when it was refused.
fn refused(model: &mut Model, action: Action) -> bool {
    match refusal(model, action) {
        Some(why) => {
            model.note(why, Tone::Warn);
            true
        }
        None => false,
    }
}

fn on_main_action(model: &mut Model, action: Option<Action>) -> Vec<Effect> {
    let Some(action) = action else {
        return Vec::new();
    };
    match action {
        Action::Help => {
            model.popup = Some(Popup::Viewer(ViewerPopup::help()));
            Vec::new()
        }
        Action::Quit => {
            if let Some(run) = &model.running {
                model.popup = Some(Popup::Confirm(ConfirmPopup::new(
                    "Quit?",
                    vec![(
                        format!(
                            "`kcamp {}` is still running; quitting cancels it: its workers end and nothing is recorded.",
                            run.command.label()
                        ),
                        Tone::Warn,
                    )],
                    Some(Pending::Quit),
                )));
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
        Action::Down
        | Action::Up
        | Action::PageDown
        | Action::PageUp
        | Action::Top
        | Action::Bottom => {
            move_in_panel(model, action);
            Vec::new()
        }
        Action::SortByDelta => {
            model.gate.cycle_sort();
            Vec::new()
        }
        Action::Filter => {
            model.popup = Some(Popup::Input(InputPopup::new(
                InputPurpose::Filter,
                "Filter shapes",
                model.gate.filter.clone(),
            )));
            Vec::new()
        }
        Action::Reasons => {
            open_reasons(model);
            Vec::new()
        }
        Action::ValidateQuick | Action::ValidateFull => {
            if refused(model, action) {
                return Vec::new();
            }
            spawn(
                model,
                CampaignCommand::Validate {
                    full: action == Action::ValidateFull,
                },
            )
        }
        Action::NewRound => {
            if !refused(model, action) {
                let next = model.next_round_number();
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
            cancel_run(model);
            Vec::new()
        }
        Action::Confirm | Action::Dismiss | Action::Submit | Action::DeleteChar => Vec::new(),
    }
}

fn cancel_run(model: &mut Model) {
    let idle = model.running.is_none() && model.state.as_ref().is_none_or(|s| s.live.is_none());
    if idle {
        // Esc with nothing running is no mistake worth a message.
        return;
    }
    if refused(model, Action::CancelRun) {
        return;
    }
    let Some(run) = &model.running else {
        return;
    };
    let label = run.command.label();
    let round = open_round(model)
        .map(|r| format!("round {} keeps its last recorded verdict", r.number))
        .unwrap_or_else(|| "the campaign keeps its last recorded state".into());
    model.popup = Some(Popup::Confirm(ConfirmPopup::new(
        format!("Cancel `kcamp {label}`?"),
        vec![(
            format!("Stop it and every worker it started? Nothing is recorded: {round}."),
            Tone::Warn,
        )],
        Some(Pending::CancelRun),
    )));
}

fn open_reasons(model: &mut Model) {
    if refused(model, Action::Reasons) {
        return;
    }
    let view = &model.gate.view;
    let Some(number) = view.round else {
        return;
    };
    let failing: Vec<&derive::GateLine> = view
        .lines
        .iter()
        .filter(|l| l.check != kcamp_core::types::Check::Pass)
        .collect();
    let mut lines = Vec::new();
    let title = match view.verdict {
        Some(verdict) => {
            lines.push((
                format!(
                    "{} · aggregate {}{}",
                    verdict.as_str(),
                    view.aggregate_delta.map_or("—".into(), units::change),
                    match view.validation {
                        Some(kcamp_core::types::Validation::Quick) => " · quick validation",
                        Some(kcamp_core::types::Validation::Full) => " · full validation",
                        None => "",
                    }
                ),
                if verdict.allows_accept() {
                    Tone::Good
                } else {
                    Tone::Bad
                },
            ));
            lines.extend(reason_lines(&view.reasons, &view.noted_regressions));
            format!("Verdict of round {number}")
        }
        // A round without a verdict (BASELINE) has only its failures to explain.
        None if !failing.is_empty() => format!("Shapes of round {number} that do not PASS"),
        None => return,
    };
    if !failing.is_empty() {
        lines.push((String::new(), Tone::Normal));
        let verb = if failing.len() == 1 { "does" } else { "do" };
        lines.push((
            format!(
                "{} that {verb} not PASS, and why, as the run recorded it:",
                shapes(failing.len())
            ),
            Tone::Bad,
        ));
        // Shapes that failed alike (a compile error fails them all) share one entry.
        let mut groups: Vec<(Vec<&str>, &derive::GateLine)> = Vec::new();
        for line in failing {
            let alike = |g: &&mut (Vec<&str>, &derive::GateLine)| {
                g.1.check == line.check && g.1.untimed == line.untimed && g.1.reason == line.reason
            };
            match groups.iter_mut().find(alike) {
                Some(group) => group.0.push(&line.label),
                None => groups.push((vec![&line.label], line)),
            }
        }
        for (labels, line) in groups {
            let untimed = if line.untimed {
                " (checked, untimed)"
            } else {
                ""
            };
            lines.push((
                format!("{} {}{untimed}", labels.join(", "), line.check.as_str()),
                Tone::Bad,
            ));
            // The whole reason: a compile error's later lines say where.
            let reason = line
                .reason
                .as_deref()
                .unwrap_or("no reason recorded (a CSV from a harness: its log says why)");
            lines.extend(
                reason
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| (format!("    {}", l.trim_end()), Tone::Normal)),
            );
        }
    }
    model.popup = Some(Popup::Viewer(ViewerPopup::lines(title, lines)));
}

/// `1 shape`, `3 shapes`.
fn shapes(n: usize) -> String {
    if n == 1 {
        "1 shape".into()
    } else {
        format!("{n} shapes")
    }
}

fn open_accept(model: &mut Model) {
    if refused(model, Action::Accept) {
        return;
    }
    let Some(round) = open_round(model) else {
        return;
    };
    let Some(gate) = &round.gate else {
        return;
    };
    let mut lines = verdict_lines(model, round);
    let popup = if gate.verdict.allows_accept() {
        Popup::Confirm(ConfirmPopup::new(
            format!("Accept round {}?", round.number),
            lines,
            Some(Pending::Spawn(CampaignCommand::Accept {
                force: false,
                reason: None,
            })),
        ))
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
    if refused(model, Action::Rollback) {
        return;
    }
    let Some(round) = open_round(model) else {
        return;
    };
    // What decision.json will say: why the round goes, never a note on how it was measured.
    let suggestion = match &round.gate {
        Some(g) if !g.verdict.allows_accept() => derive::rollback_reason(g, &round.failures()),
        Some(g) => format!(
            "abandoned although the gate allowed it ({})",
            derive::rollback_reason(g, &round.failures())
        ),
        None => "abandoned before validation".to_owned(),
    };
    let lines = verdict_lines(model, round);
    let number = round.number;
    model.popup = Some(Popup::Input(
        InputPopup::new(
            InputPurpose::RollbackReason,
            format!("Roll back round {number}"),
            suggestion,
        )
        .with_lines(lines),
    ));
}

pub(super) fn on_command_finished(
    model: &mut Model,
    command: CampaignCommand,
    result: &CommandResult,
) -> Vec<Effect> {
    model.running = None;
    let outcome = commands::interpret(&command, result);
    let gate_said_no = result.exit_code == Some(exit::GATE_REJECTED);
    let hard_failure = !outcome.success && !result.cancelled && !gate_said_no;
    let tone = if outcome.success {
        Tone::Good
    } else if hard_failure {
        Tone::Bad
    } else {
        Tone::Warn
    };
    model.note(outcome.summary.clone(), tone);
    if outcome.success {
        model.toast(outcome.summary.clone(), Tone::Good);
    }
    if hard_failure && model.popup.is_none() {
        let mut lines = vec![(outcome.summary.clone(), Tone::Bad)];
        // Details the summary already says are not repeated.
        lines.extend(
            outcome
                .details
                .into_iter()
                .filter(|d| !d.is_empty() && !outcome.summary.contains(d.as_str()))
                .map(|d| (d, Tone::Normal)),
        );
        model.popup = Some(Popup::Confirm(ConfirmPopup::new(
            format!("`kcamp {}` failed", command.label()),
            lines,
            None,
        )));
    }
    // What the command wrote: its round (or the one it opened), the journal, the lock
    // and the live run. The watcher reports the same changes; this covers a missing one.
    let mut scope = LoadScope::liveness();
    scope.journal = true;
    scope.rounds.extend(model.open_round_number());
    scope.rounds.insert(model.next_round_number());
    vec![Effect::Load(scope)]
}
