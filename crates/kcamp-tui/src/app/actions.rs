//! Keys and what they start: moving, popups, and the commands sent to the kcamp binary.
//! Every refusal says why, in the log and in the toast.

use crossterm::event::KeyEvent;
use kcamp_core::campaign::RoundState;
use kcamp_core::error::exit;
use kcamp_core::units;

use super::{Effect, Model, Running};
use crate::commands::{self, CampaignCommand, CommandResult, DiffWhy, Query};
use crate::derive::{self, Tone};
use crate::keys::{self, Action, Panel};
use crate::loading::LoadScope;
use crate::popups::confirm::ConfirmOutcome;
use crate::popups::input::InputOutcome;
use crate::popups::viewer::ViewerOutcome;
use crate::popups::{
    ConfirmPopup, InputPopup, InputPurpose, Pending, Popup, ShapePopup, ViewerPopup, shape,
};
use kcamp_core::campaign::diff::KernelSide;

pub(super) fn on_key(model: &mut Model, key: &KeyEvent) -> Vec<Effect> {
    let action = keys::resolve(model.context(), key);
    if action == Some(Action::ForceQuit) {
        return quit_effects(model);
    }
    if model.too_small() {
        // Only quitting means something on a screen too small to show the panels.
        return match action {
            Some(Action::Quit) => on_main_action(model, action, key),
            _ => Vec::new(),
        };
    }
    let area = crate::view::body_area(model);
    match model.popup.take() {
        None => on_main_action(model, action, key),
        Some(Popup::Viewer(mut viewer)) => match viewer.on_key(action, key, area) {
            ViewerOutcome::Close => Vec::new(),
            ViewerOutcome::Stay => {
                model.popup = Some(Popup::Viewer(viewer));
                Vec::new()
            }
            ViewerOutcome::Copy => {
                let text = viewer.copy_text();
                model.popup = Some(Popup::Viewer(viewer));
                copy(model, text)
            }
            ViewerOutcome::Unknown => {
                let title = viewer.title.clone();
                model.popup = Some(Popup::Viewer(viewer));
                unknown_popup_key(model, key, &title);
                Vec::new()
            }
        },
        Some(Popup::Shape(mut shape)) => match shape.on_key(action, key, area) {
            ViewerOutcome::Close => Vec::new(),
            ViewerOutcome::Stay => {
                model.popup = Some(Popup::Shape(shape));
                Vec::new()
            }
            ViewerOutcome::Copy => {
                let text = shape.copy_text();
                model.popup = Some(Popup::Shape(shape));
                copy(model, text)
            }
            ViewerOutcome::Unknown => {
                model.popup = Some(Popup::Shape(shape));
                unknown_popup_key(model, key, "shape");
                Vec::new()
            }
        },
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
                    if let InputPurpose::Filter(panel) = purpose {
                        // The list narrows while the user types.
                        set_filter(model, panel, input.text());
                    }
                    model.popup = Some(Popup::Input(input));
                    Vec::new()
                }
                InputOutcome::Dismissed => {
                    if let InputPurpose::Filter(panel) = purpose {
                        set_filter(model, panel, "");
                    }
                    Vec::new()
                }
                InputOutcome::Submitted(text) => submit_input(model, purpose, text),
            }
        }
    }
}

/// Pasted text: into the text field being typed (an input popup, a viewer's search), as one
/// line; anywhere else it is no keys and does nothing, said so. A paste never submits.
pub(super) fn on_paste(model: &mut Model, text: &str) {
    let area = crate::view::body_area(model);
    let taken = match model.popup.as_mut() {
        Some(Popup::Input(input)) => {
            input.paste(text);
            if let InputPurpose::Filter(panel) = input.purpose {
                let typed = input.text().to_owned();
                set_filter(model, panel, &typed);
            }
            true
        }
        Some(Popup::Viewer(viewer)) => viewer.paste(text, area),
        _ => false,
    };
    if !taken {
        model.toast(
            "a paste goes into a text field only (n, r, /, a forced accept): nothing was done with it"
                .to_owned(),
            Tone::Dim,
        );
    }
}

/// Search a panel's list.
fn set_filter(model: &mut Model, panel: Panel, text: &str) {
    match panel {
        Panel::Gate => model.gate.set_filter(text),
        Panel::Rounds => model.set_rounds_filter(text),
        Panel::Log => model.set_log_filter(text),
        _ => {}
    }
}

/// The search of a panel's list, empty when none.
fn filter_of(model: &Model, panel: Panel) -> &str {
    match panel {
        Panel::Gate => &model.gate.filter,
        Panel::Rounds => &model.rounds_filter,
        Panel::Log => &model.log_filter,
        _ => "",
    }
}

/// `y`: the text on the terminal's clipboard, and a line that says what was copied.
fn copy(model: &mut Model, text: String) -> Vec<Effect> {
    if text.trim().is_empty() {
        model.note("nothing to copy here", Tone::Warn);
        return Vec::new();
    }
    let shown = kcamp_core::text::bounded(text.lines().next().unwrap_or(""), 60);
    let lines = text.lines().count();
    let more = if lines > 1 {
        format!(" (+{} lines)", lines - 1)
    } else {
        String::new()
    };
    model.note(
        format!("copied to the clipboard (OSC 52): {shown}{more}"),
        Tone::Normal,
    );
    model.toast(format!("copied: {shown}{more}"), Tone::Good);
    vec![Effect::Copy(text)]
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
        InputPurpose::Filter(panel) => {
            set_filter(model, panel, &text);
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
        InputPurpose::CsvPath { full } => match csv_path(model, &text) {
            Some(csv) => spawn(model, CampaignCommand::ValidateCsv { full, csv }),
            None => Vec::new(),
        },
        InputPurpose::AcceptCsv => match csv_path(model, &text) {
            Some(csv) => spawn(model, CampaignCommand::AcceptCsv { csv }),
            None => Vec::new(),
        },
    }
}

/// A CSV path as typed: `~/` is the home directory, a relative path is from where the
/// dashboard was started. One that is no file is refused here, before a command runs.
fn csv_path(model: &mut Model, text: &str) -> Option<std::path::PathBuf> {
    let typed = match (text.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::PathBuf::from(home).join(rest),
        _ => std::path::PathBuf::from(text),
    };
    let path = if typed.is_absolute() {
        typed
    } else {
        std::env::current_dir().map_or(typed.clone(), |cwd| cwd.join(&typed))
    };
    if path.is_file() {
        Some(path)
    } else {
        model.note(
            format!(
                "{}: no such file (a CSV written by your harness)",
                path.display()
            ),
            Tone::Warn,
        );
        None
    }
}

/// j/k, pages, g/G in the focused panel.
pub(super) fn move_in_panel(model: &mut Model, action: Action) {
    let page = crate::view::page_rows(model, model.focus) as isize;
    let step: isize = match action {
        Action::Down => 1,
        Action::Up => -1,
        Action::PageDown => page,
        Action::PageUp => -page,
        Action::HalfPageDown => (page / 2).max(1),
        Action::HalfPageUp => -(page / 2).max(1),
        Action::Top => isize::MIN / 2,
        _ => isize::MAX / 2,
    };
    match model.focus {
        // Among the rounds the search keeps.
        Panel::Rounds => {
            let rows = &model.round_rows;
            if rows.is_empty() {
                return;
            }
            let at = rows.iter().position(|&i| i == model.selected).unwrap_or(0);
            let to = at.saturating_add_signed(step).min(rows.len() - 1);
            model.selected = rows[to];
            model.follow = super::Follow::after_move(model.selected, model.rounds.len());
            model.refresh_selection();
        }
        Panel::Gate => model.gate.move_by(step),
        Panel::Details => {
            let last = model.details.len().saturating_sub(1);
            model.details_scroll = model.details_scroll.saturating_add_signed(step).min(last);
        }
        // Counted from the newest line: down goes towards it, g to the oldest.
        Panel::Log => {
            let last = model.log_rows.len().saturating_sub(1);
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

/// Every reason (repeated ones collapsed), what decided the verdict first and the notes on
/// how it was reached after them, for the accept and rollback popups and the reasons viewer.
fn reason_lines(reasons: &[kcamp_core::gate::Reason], noted: &[String]) -> Vec<(String, Tone)> {
    let collapsed = derive::collapse_reasons(reasons);
    let (deciding, notes): (Vec<_>, Vec<_>) = collapsed.into_iter().partition(|r| r.kind.decides());
    let mut lines: Vec<(String, Tone)> = deciding
        .into_iter()
        .map(|r| (format!("• {}", r.text), Tone::Normal))
        .collect();
    if !noted.is_empty() {
        lines.push((
            format!("noted regressions: {}", noted.join(", ")),
            Tone::Warn,
        ));
    }
    if !notes.is_empty() {
        lines.push(("Notes, and how the run was measured:".to_owned(), Tone::Dim));
        lines.extend(
            notes
                .into_iter()
                .map(|r| (format!("  {}", r.text), Tone::Dim)),
        );
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
    // The open round's kernel, given up once already.
    lines.extend(
        model
            .tried
            .iter()
            .map(|t| (derive::tried_text(t), Tone::Warn)),
    );
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
        Action::CancelRun if !filter_of(model, model.focus).is_empty() => {
            Some("Esc clears the search first".into())
        }
        Action::CancelRun => cancel_blocked(model),
        Action::ClearSearch => filter_of(model, model.focus)
            .is_empty()
            .then(|| "no search to clear".to_owned()),
        Action::Diff => diff_sides(model).err(),
        Action::EditKernel => model
            .state
            .is_none()
            .then(|| "the campaign is still loading".to_owned()),
        Action::Open if model.focus == Panel::Gate => match model.gate.current() {
            Some(_) => None,
            None if model.gate.view.lines.is_empty() => {
                Some("no shape to open: the round has no table".into())
            }
            None => Some("no shape matches the search (Esc clears it)".into()),
        },
        Action::Open | Action::LogViewer => model
            .log
            .is_empty()
            .then(|| "the log is empty".to_owned()),
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

fn on_main_action(model: &mut Model, action: Option<Action>, key: &KeyEvent) -> Vec<Effect> {
    let Some(action) = action else {
        unknown_key(model, key);
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
        Action::FocusNext | Action::FocusPrev => {
            // Panels left out for want of room are passed over.
            let shown = crate::view::shown_panels(model);
            let mut next = model.focus;
            for _ in 0..Panel::ALL.len() {
                next = if action == Action::FocusNext {
                    next.next()
                } else {
                    next.prev()
                };
                if shown.contains(&next) {
                    break;
                }
            }
            model.focus = next;
            Vec::new()
        }
        Action::Focus(panel) => {
            if crate::view::shown_panels(model).contains(&panel) {
                model.focus = panel;
            } else {
                let (w, h) = crate::view::needed_for(panel);
                model.note(
                    format!(
                        "panel {} {} is left out at this size ({}×{}): it needs a terminal of {w}×{h}",
                        panel.number(),
                        panel.title(),
                        model.size.0,
                        model.size.1
                    ),
                    Tone::Warn,
                );
            }
            Vec::new()
        }
        Action::Down
        | Action::Up
        | Action::PageDown
        | Action::PageUp
        | Action::HalfPageDown
        | Action::HalfPageUp
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
            let panel = model.focus;
            let title = match panel {
                Panel::Gate => "Search shapes",
                Panel::Rounds => "Search rounds",
                _ => "Search the log",
            };
            let text = filter_of(model, panel).to_owned();
            model.popup = Some(Popup::Input(InputPopup::new(
                InputPurpose::Filter(panel),
                title,
                text,
            )));
            Vec::new()
        }
        Action::ClearSearch => {
            if filter_of(model, model.focus).is_empty() {
                // Esc with no search: whatever Esc does besides (cancel a run).
                cancel_run(model);
            } else {
                set_filter(model, model.focus, "");
            }
            Vec::new()
        }
        Action::Diff => open_diff(model),
        Action::EditKernel => edit_kernel(model),
        Action::Open => match model.focus {
            Panel::Gate => open_shape(model),
            _ => {
                open_log(model);
                Vec::new()
            }
        },
        Action::LogViewer => {
            open_log(model);
            Vec::new()
        }
        Action::ExpandBar => {
            model.bar_expanded = !model.bar_expanded;
            Vec::new()
        }
        Action::Suspend => vec![Effect::Suspend],
        Action::Zoom => {
            model.zoomed = !model.zoomed;
            Vec::new()
        }
        Action::Copy => {
            let text = selected_text(model);
            copy(model, text)
        }
        Action::Reasons => {
            open_reasons(model);
            Vec::new()
        }
        Action::ValidateQuick | Action::ValidateFull => {
            if refused(model, action) {
                return Vec::new();
            }
            if model.imported() {
                // No harness kcamp can run: the validation reads the CSV the user names.
                let full = action == Action::ValidateFull;
                let round = model.open_round_number().unwrap_or_default();
                model.popup = Some(Popup::Input(
                    InputPopup::new(
                        InputPurpose::CsvPath { full },
                        format!(
                            "{} validation of round {round}: its CSV",
                            if full { "Full" } else { "Quick" }
                        ),
                        "",
                    )
                    .with_lines(vec![(IMPORTED.to_owned(), Tone::Normal)]),
                ));
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
        Action::Confirm
        | Action::Dismiss
        | Action::Submit
        | Action::Edit
        | Action::NextMatch
        | Action::PrevMatch => Vec::new(),
    }
}

/// What the dashboard says of a campaign of imported CSVs when it asks for one.
const IMPORTED: &str = "This campaign's measurements are imported CSVs: kcamp has no harness to run. Give the CSV your harness wrote for this kernel (a path from where the dashboard was started, or ~/…); `kcamp validate --csv PATH` is what runs.";

/// A key that does nothing here is said so, once, with where the keys are listed.
fn unknown_key(model: &mut Model, key: &KeyEvent) {
    let Some(name) = key_name(key) else {
        return;
    };
    let panel = model.focus;
    model.toast(
        format!(
            "{name} does nothing in panel {} {}: ? lists the keys",
            panel.number(),
            panel.title()
        ),
        Tone::Dim,
    );
}

/// The same in a read-only popup (a diff, the help, a shape), with the keys it has.
fn unknown_popup_key(model: &mut Model, key: &KeyEvent, title: &str) {
    let Some(name) = key_name(key) else {
        return;
    };
    let title = title.split_whitespace().next().unwrap_or("this");
    model.toast(
        format!(
            "{name} does nothing in the {} viewer: j/k and PgUp/PgDn scroll, / searches, y copies, Esc closes",
            title.to_lowercase()
        ),
        Tone::Dim,
    );
}

/// A key as pressed (`C-d`, `Space`, `M-x`, `←`); None for one not worth a word (a
/// release, a lone modifier, Esc).
fn key_name(key: &KeyEvent) -> Option<String> {
    use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
    if key.kind == KeyEventKind::Release {
        return None;
    }
    // The key as pressed: C-d is not d (the diff), and Space has a name.
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) if !c.is_control() => c.to_string(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::Backspace => "Bksp".into(),
        KeyCode::Delete => "Del".into(),
        KeyCode::Insert => "Ins".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::Esc | KeyCode::Modifier(_) => return None,
        KeyCode::F(n) => format!("F{n}"),
        _ => return None,
    };
    let mut name = String::new();
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        name.push_str("C-");
    }
    if key.modifiers.contains(KeyModifiers::ALT) {
        name.push_str("M-");
    }
    name.push_str(&base);
    Some(name)
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
            if view.open {
                lines.extend(
                    model
                        .tried
                        .iter()
                        .map(|t| (derive::tried_text(t), Tone::Warn)),
                );
            }
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
    let confirming = gate
        .reasons
        .iter()
        .any(|r| r.kind == kcamp_core::gate::ReasonKind::Confirmation);
    let popup = if gate.verdict.allows_accept() && confirming && model.imported() {
        // The confirming full validation reads a CSV too.
        lines.push((IMPORTED.to_owned(), Tone::Normal));
        Popup::Input(
            InputPopup::new(
                InputPurpose::AcceptCsv,
                format!("Accept round {}: the full validation's CSV", round.number),
                "",
            )
            .with_lines(lines),
        )
    } else if gate.verdict.allows_accept() {
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
    let campaign = model
        .state
        .as_ref()
        .map_or_else(Default::default, |s| s.dir.clone());
    // What decision.json will say: why the round goes, never a note on how it was measured.
    let suggestion = match &round.gate {
        Some(g) if !g.verdict.allows_accept() => {
            derive::rollback_reason(g, &round.failures(), &campaign)
        }
        Some(g) => format!(
            "abandoned although the gate allowed it ({})",
            derive::rollback_reason(g, &round.failures(), &campaign)
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
    let campaign = model.state.as_ref().map(|s| s.dir.clone());
    let outcome = commands::interpret(&command, result, campaign.as_deref());
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
    // `round new` and `validate` name the rolled-back rounds that tried this kernel: said
    // after the outcome, so the toast shows it.
    for line in commands::tried_before(result) {
        model.note(format!("{}: {line}", command.label()), Tone::Warn);
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

/// The round `d` compares, and with what: a decided round's snapshot against the
/// incumbent it was judged against; the open round's working kernel against the incumbent
/// (what `v` would measure). None, with why, where there is nothing to compare.
pub(crate) fn diff_sides(model: &Model) -> Result<(KernelSide, KernelSide), String> {
    let Some(state) = &model.state else {
        return Err("the campaign is still loading".into());
    };
    let Some(line) = model.rounds.get(model.selected) else {
        return Err("no round selected".into());
    };
    let n = line.number;
    if line.status == derive::RoundStatus::Open {
        return match state.incumbent {
            Some(inc) => Ok((KernelSide::Round(inc), KernelSide::Working)),
            None => Err(NO_BASELINE.into()),
        };
    }
    match line.parent {
        None if line.status == derive::RoundStatus::Baseline => Err(format!(
            "round {n} is the BASELINE: it has no incumbent to be compared with; select a later round"
        )),
        None => Err(format!(
            "round {n} was never judged against an incumbent (rolled back before it was measured): no kernel of it was kept"
        )),
        Some(parent) => Ok((KernelSide::Round(parent), KernelSide::Round(n))),
    }
}

fn open_diff(model: &mut Model) -> Vec<Effect> {
    if refused(model, Action::Diff) {
        return Vec::new();
    }
    let Ok((from, to)) = diff_sides(model) else {
        return Vec::new();
    };
    model.note(
        format!("asking `kcamp diff {} {}`", from.name(), to.name()),
        Tone::Dim,
    );
    vec![Effect::Ask(Query::Diff {
        from,
        to,
        why: DiffWhy::Show,
    })]
}

/// The working kernel's main file, which `E` opens.
pub(crate) fn kernel_file(model: &Model) -> Option<std::path::PathBuf> {
    let state = model.state.as_ref()?;
    Some(
        state
            .dir
            .join(kcamp_core::files::KERNEL_DIR)
            .join(&state.manifest.kernel.file),
    )
}

fn edit_kernel(model: &mut Model) -> Vec<Effect> {
    if refused(model, Action::EditKernel) {
        return Vec::new();
    }
    match kernel_file(model) {
        Some(path) => vec![Effect::Edit(path)],
        None => Vec::new(),
    }
}

/// The editor ended: say how, and ask what changed against the incumbent.
pub(super) fn on_editor_done(model: &mut Model, result: Result<(), String>) -> Vec<Effect> {
    match result {
        Err(e) => {
            model.note(format!("the editor did not run: {e}"), Tone::Bad);
            Vec::new()
        }
        Ok(()) => kernel_changed(model),
    }
}

/// The working kernel changed (an edit here or elsewhere): ask `kcamp diff` what differs
/// from the incumbent.
pub(super) fn kernel_changed(model: &mut Model) -> Vec<Effect> {
    match model.state.as_ref().and_then(|s| s.incumbent) {
        Some(inc) => vec![Effect::Ask(Query::Diff {
            from: KernelSide::Round(inc),
            to: KernelSide::Working,
            why: DiffWhy::KernelChanged,
        })],
        None => Vec::new(),
    }
}

fn open_shape(model: &mut Model) -> Vec<Effect> {
    if refused(model, Action::Open) {
        return Vec::new();
    }
    let Some(state) = &model.state else {
        return Vec::new();
    };
    let Some(line) = model.gate.current().cloned() else {
        return Vec::new();
    };
    let Some(round) = model.gate.view.round else {
        return Vec::new();
    };
    let metric = state.manifest.primary_metric.clone();
    let parent = model
        .rounds
        .iter()
        .find(|r| r.number == round)
        .and_then(|r| r.parent);
    let reasons = model
        .gate
        .view
        .reasons
        .iter()
        .filter(|r| r.shapes.contains(&line.label))
        .map(|r| r.text.clone())
        .collect();
    let history = derive::shape_history(state, &line.label);
    let measured = state.round(round).is_some_and(|r| r.table.is_some());
    let mut effects = Vec::new();
    let samples = if measured {
        effects.push(Effect::Ask(Query::Samples {
            round,
            parent,
            label: line.label.clone(),
            metric: metric.clone(),
        }));
        shape::Pending::Loading
    } else {
        shape::Pending::Failed("the round has no measurement".into())
    };
    let roof = if measured && state.incumbent.is_some() {
        effects.push(Effect::Ask(Query::Analyze { round }));
        shape::Pending::Loading
    } else {
        shape::Pending::Failed("no measurement to place on the roofline".into())
    };
    model.popup = Some(Popup::Shape(Box::new(ShapePopup {
        round,
        parent,
        metric,
        line,
        reasons,
        history,
        samples,
        roof,
        scroll: 0,
    })));
    effects
}

/// The whole log, wrapped, at its newest line.
fn open_log(model: &mut Model) {
    if refused(model, Action::LogViewer) {
        return;
    }
    let lines = model
        .log
        .iter()
        .map(|l| {
            let source = match l.source {
                derive::LogSource::Journal => "  ",
                derive::LogSource::Dashboard => "» ",
            };
            (
                format!("{} {source}{}", l.time.format("%Y-%m-%d %H:%M:%S"), l.text),
                l.tone,
            )
        })
        .collect();
    let mut viewer = ViewerPopup::lines(
        format!("Log: {} lines, newest last (times UTC)", model.log.len()),
        lines,
    );
    viewer.at_end = true;
    model.popup = Some(Popup::Viewer(viewer));
}

/// What `y` copies in the focused panel.
fn selected_text(model: &Model) -> String {
    match model.focus {
        Panel::Rounds | Panel::Details => model
            .state
            .as_ref()
            .and_then(|s| s.rounds.get(model.selected))
            .map(|r| r.hypothesis.trim().to_owned())
            .unwrap_or_default(),
        Panel::Gate => model
            .gate
            .current()
            .map(|l| shape::shape_text(l, &model.gate.view.metric))
            .unwrap_or_default(),
        Panel::Log => {
            let end = model.log_rows.len().saturating_sub(model.log_scroll);
            end.checked_sub(1)
                .and_then(|i| model.log_rows.get(i))
                .map(|&i| model.log[i].text.clone())
                .unwrap_or_default()
        }
        Panel::Live | Panel::Chart => match (&model.running, &model.state) {
            (Some(run), Some(state)) => format!(
                "kcamp -C {} {}",
                kcamp_core::text::shell_word(&absolute(&state.dir).display().to_string()),
                run.command.label()
            ),
            _ => String::new(),
        },
    }
}

/// `dir` as an absolute path, for a command copied to run elsewhere (`-C .` would not).
pub(crate) fn absolute(dir: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}
