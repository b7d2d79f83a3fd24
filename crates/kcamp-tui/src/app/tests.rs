use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::fixtures;
use crate::popups::{InputPurpose, Pending};

fn fixed_clock() -> DateTime<Utc> {
    fixtures::at(200)
}

fn model_with(state: CampaignState) -> Model {
    let mut m = Model::new(Theme::plain(), fixed_clock);
    update(&mut m, Msg::StateLoaded(Ok(Box::new(state.into()))));
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

/// The open text viewer's title and lines.
fn viewer(m: &Model) -> (&str, Vec<&str>) {
    let Some(Popup::Viewer(v)) = &m.popup else {
        panic!("expected a viewer, got {:?} ({:?})", m.popup, m.messages)
    };
    let crate::popups::viewer::ViewerContent::Lines(lines) = &v.content else {
        panic!("text expected")
    };
    (&v.title, lines.iter().map(|l| l.0.as_str()).collect())
}

fn finished(
    m: &mut Model,
    command: CampaignCommand,
    code: Option<i32>,
    stdout: &str,
    cancelled: bool,
) -> Vec<Effect> {
    let result = CommandResult {
        exit_code: code,
        stdout: stdout.into(),
        stderr: String::new(),
        spawn_error: None,
        cancelled,
    };
    update(m, Msg::CommandFinished { command, result })
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
        p.text(),
        "gate REJECT · aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL) · sq1024: output mismatch: rel_err 3.2e-2 over the 1e-4 tolerance (worst at row 12, column 40)"
    );
    let effects = key(&mut m, KeyCode::Enter);
    assert!(matches!(
        &effects[..],
        [Effect::Spawn(CampaignCommand::Rollback { .. })]
    ));
}

#[test]
fn a_paired_verdicts_pairing_note_is_never_the_rollback_reason() {
    let mut m = model_with(fixtures::paired_candidate());
    let first = &m.gate.view.reasons[0];
    assert!(
        first.starts_with("paired: "),
        "the fixture leads with the note: {first}"
    );
    chr(&mut m, 'r');
    let Some(Popup::Input(p)) = &m.popup else {
        panic!("expected the reason input")
    };
    assert_eq!(
        p.text(),
        "gate REJECT · aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL) · sq1024: output mismatch: rel_err 3.2e-2 over the 1e-4 tolerance (worst at row 12, column 40)"
    );
    // Enter records what the field says.
    assert_eq!(
        key(&mut m, KeyCode::Enter),
        [Effect::Spawn(CampaignCommand::Rollback {
            reason: "gate REJECT · aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL) · sq1024: output mismatch: rel_err 3.2e-2 over the 1e-4 tolerance (worst at row 12, column 40)".into()
        })]
    );
}

#[test]
fn a_rollback_reason_names_what_decided_the_verdict() {
    use kcamp_core::gate::Verdict;
    let mut gate = fixtures::paired_candidate().rounds[3].gate.clone().unwrap();
    // Hard regressions are named with their change.
    gate.shapes[0].hard_regression = true;
    gate.shapes[0].delta = Some(-0.12);
    assert_eq!(
        derive::rollback_reason(&gate, &[], std::path::Path::new("/c")),
        "gate REJECT · aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL) · \
         1 shape regressed beyond the threshold: sq64 -12.0%"
    );
    // No shape decided it: the reason that did, never the pairing note.
    for s in &mut gate.shapes {
        s.hard_regression = false;
        s.class = kcamp_core::gate::ShapeClass::Neutral;
    }
    gate.reasons.retain(|r| !r.contains("do not PASS"));
    gate.reasons.insert(
        1,
        "1 of the 3 untimed target shape(s) checked by this validation do not PASS: sq2048 (FAIL)."
            .into(),
    );
    assert_eq!(
        derive::rollback_reason(&gate, &[], std::path::Path::new("/c")),
        "gate REJECT · aggregate +10.8% · 1 of the 3 untimed target shape(s) checked by this \
         validation do not PASS: sq2048 (FAIL)"
    );
    // A paired gain inside its band, as `kcamp validate` words it.
    gate.reasons[1] = "aggregate Forward TFLOPS +3.15% (median over 6 repeats of each repeat's \
        geomean of the paired ratios over 7 shapes; geomean of the mean rates in this run: \
        278 MFLOP/s -> 303 MFLOP/s) does not clear the paired band ±18.4%, p = 0.562: no gain \
        distinguishable from noise."
        .into();
    gate.aggregate.band = Some(0.184);
    gate.aggregate.pairs = Some(6);
    assert_eq!(
        derive::rollback_reason(&gate, &[], std::path::Path::new("/c")),
        "gate REJECT · aggregate +10.8% · no gain distinguishable from noise (paired band ±18.4%)"
    );
    gate.reasons.remove(1);
    gate.aggregate.delta = Some(-0.05);
    assert_eq!(
        derive::rollback_reason(&gate, &[], std::path::Path::new("/c")),
        "gate REJECT · aggregate -5.00% · not a gain"
    );
    gate.verdict = Verdict::NeedsRemeasure;
    gate.aggregate.delta = Some(0.01);
    assert_eq!(
        derive::rollback_reason(&gate, &[], std::path::Path::new("/c")),
        "gate NEEDS_REMEASURE · aggregate +1.00%"
    );
}

#[test]
fn popups_of_an_action_say_when_the_table_shows_another_round() {
    let mut m = model_with(fixtures::several_rounds());
    // Select round 3 (rolled back); accept still acts on the open round 4.
    chr(&mut m, 'k');
    assert_eq!(m.gate.view.round, Some(3));
    chr(&mut m, 'r');
    let Some(Popup::Input(p)) = &m.popup else {
        panic!("expected the reason input")
    };
    assert_eq!(p.title, "Roll back round 4");
    assert!(
        p.lines
            .iter()
            .any(|l| l.0 == "The table shows round 3; this acts on the open round 4."),
        "{:?}",
        p.lines
    );
}

#[test]
fn filter_narrows_rows_while_typing_and_esc_clears_it() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, '2');
    assert_eq!(m.gate.rows.len(), 6);
    chr(&mut m, '/');
    typed(&mut m, "sq1");
    // sq128, sq1024
    assert_eq!(m.gate.rows.len(), 2);
    typed(&mut m, "28");
    assert_eq!(m.gate.rows, [1]);
    key(&mut m, KeyCode::Enter);
    assert!(m.popup.is_none());
    assert_eq!(m.gate.filter, "sq128");
    chr(&mut m, '/');
    key(&mut m, KeyCode::Esc);
    assert_eq!(m.gate.rows.len(), 6);
}

#[test]
fn the_gate_opens_worst_first_and_sorting_after_scrolling_returns_to_the_top() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, '2');
    let labels = |m: &Model| -> Vec<String> {
        m.gate
            .rows
            .iter()
            .map(|&i| m.gate.view.lines[i].label.clone())
            .collect()
    };
    assert_eq!(labels(&m)[..2], ["sq1024", "sq128"]);
    chr(&mut m, 'G');
    assert_eq!(m.gate.cursor, 5);
    chr(&mut m, 'g');
    assert_eq!(m.gate.cursor, 0);
    key(&mut m, KeyCode::End);
    chr(&mut m, 's');
    assert_eq!(m.gate.cursor, 0, "the rows the order is about are in sight");
    assert_eq!(labels(&m)[0], "sq512");
    chr(&mut m, 's');
    assert_eq!(labels(&m)[0], "sq64");
}

#[test]
fn a_lock_held_elsewhere_blocks_writing_keys_with_a_toast() {
    let mut m = model_with(fixtures::running());
    for c in ['v', 'V', 'a', 'r', 'n'] {
        assert!(chr(&mut m, c).is_empty(), "{c} must not send anything");
        assert!(m.popup.is_none());
        assert!(
            last_message(&m).contains("pid 5151 (kcamp validate)"),
            "{c}"
        );
        let toast = m.toast.as_ref().expect("a toast");
        assert_eq!(toast.text, last_message(&m), "the toast says it in full");
    }
}

#[test]
fn validate_without_an_open_round_is_refused_here_not_by_a_failed_command() {
    let mut m = model_with(fixtures::baseline_only());
    assert!(chr(&mut m, 'v').is_empty());
    assert!(m.popup.is_none(), "no yes/no prompt for a refusal");
    assert_eq!(
        m.toast.as_ref().map(|t| t.text.as_str()),
        Some("no open round to validate: press n to open round 2 with its hypothesis")
    );
    let mut m = model_with(fixtures::empty());
    chr(&mut m, 'V');
    assert!(last_message(&m).starts_with("no BASELINE yet"));
}

#[test]
fn our_own_running_command_blocks_a_second_one() {
    let mut m = model_with(fixtures::several_rounds());
    assert_eq!(
        chr(&mut m, 'v'),
        [Effect::Spawn(CampaignCommand::Validate { full: false })]
    );
    assert!(chr(&mut m, 'V').is_empty());
    assert!(last_message(&m).contains("still running (Esc cancels it)"));
}

#[test]
fn esc_asks_before_cancelling_a_running_validation() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'V');
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(matches!(m.popup, Some(Popup::Confirm(_))));
    assert_eq!(chr(&mut m, 'y'), [Effect::Cancel]);
    assert!(m.running.as_ref().is_some_and(|r| r.cancelling));
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(m.popup.is_none(), "no second question while cancelling");
    let effects = finished(
        &mut m,
        CampaignCommand::Validate { full: true },
        Some(2),
        r#"{"error":{"kind":"cancelled","message":"cancelled after 1 of 6 shapes: nothing was recorded"}}"#,
        true,
    );
    assert!(matches!(&effects[..], [Effect::Load(s)] if s.lock && s.live && s.journal));
    assert!(m.running.is_none());
    assert!(m.popup.is_none(), "a cancel is not an error popup");
    assert_eq!(
        last_message(&m),
        "validate --full: cancelled after 1 of 6 shapes: nothing was recorded · V runs it again"
    );
}

#[test]
fn a_failed_command_opens_a_notice_without_repeating_itself() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'v');
    finished(
        &mut m,
        CampaignCommand::Validate { full: false },
        Some(2),
        r#"{"error":{"kind":"locked","message":"campaign is locked by pid 9"}}"#,
        false,
    );
    let Some(Popup::Confirm(c)) = &m.popup else {
        panic!("expected a notice")
    };
    assert!(c.on_confirm.is_none());
    assert_eq!(
        c.lines,
        [(
            "validate failed (locked): campaign is locked by pid 9".to_owned(),
            Tone::Bad
        )]
    );
    assert!(chr(&mut m, 'y').is_empty());
    assert!(m.popup.is_none());
}

#[test]
fn a_gate_reject_is_a_toast_not_an_error() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'v');
    finished(
        &mut m,
        CampaignCommand::Validate { full: false },
        Some(1),
        r#"{"round":4,"report":{"verdict":"REJECT","reasons":["sq64 regressed -9.0%"]}}"#,
        false,
    );
    assert!(m.popup.is_none());
    let toast = m.toast.as_ref().unwrap();
    assert_eq!(
        toast.text,
        "validate round 4: REJECT (sq64 regressed -9.0%)"
    );
    assert_eq!(toast.tone, Tone::Warn);
}

#[test]
fn toasts_expire_and_only_then_redraw() {
    static NOW: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
    fn clock() -> DateTime<Utc> {
        fixtures::at(0) + chrono::Duration::seconds(NOW.load(std::sync::atomic::Ordering::SeqCst))
    }
    let mut m = Model::new(Theme::plain(), clock);
    update(
        &mut m,
        Msg::StateLoaded(Ok(Box::new(fixtures::baseline_only().into()))),
    );
    m.take_redraw();
    chr(&mut m, 'v');
    assert!(m.toast.is_some());
    assert!(m.take_redraw());
    NOW.store(3, std::sync::atomic::Ordering::SeqCst);
    assert!(update(&mut m, Msg::Tick).is_empty());
    assert!(!m.take_redraw(), "nothing changed on screen");
    NOW.store(60, std::sync::atomic::Ordering::SeqCst);
    update(&mut m, Msg::Tick);
    assert!(m.toast.is_none());
    assert!(m.take_redraw());
}

#[test]
fn half_written_files_are_retried_before_the_error_shows() {
    let mut m = model_with(fixtures::several_rounds());
    for attempt in 1..=RELOAD_RETRIES {
        update(&mut m, Msg::StateLoaded(Err("EOF while parsing".into())));
        assert!(m.load_error.is_none(), "attempt {attempt}");
        assert_eq!(
            update(&mut m, Msg::Tick),
            [Effect::Load(LoadScope::everything())]
        );
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
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds().into()))),
    );
    assert!(m.load_error.is_none());
    // Nothing on screen still says it cannot be read: no toast outlives the fix.
    assert!(
        m.toast
            .as_ref()
            .is_none_or(|t| !t.text.contains("cannot read")),
        "{:?}",
        m.toast
    );
    assert!(last_message(&m).contains("readable again"));
}

#[test]
fn file_changes_load_their_scope_and_an_unchanged_patch_draws_nothing() {
    let mut m = model_with(fixtures::several_rounds());
    assert!(m.take_redraw());
    let scope = LoadScope {
        journal: true,
        ..LoadScope::default()
    };
    assert_eq!(
        update(&mut m, Msg::FilesChanged(scope.clone())),
        [Effect::Load(scope)]
    );
    assert!(
        !m.take_redraw(),
        "a notification alone changes nothing on screen"
    );
    let same = crate::loading::StatePatch {
        journal: Some(fixtures::several_rounds().journal),
        ..Default::default()
    };
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(same))));
    assert!(!m.take_redraw(), "the same journal again");
    let progress = crate::loading::StatePatch {
        live: Some(Some(fixtures::progress(1, 2))),
        ..Default::default()
    };
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(progress))));
    assert!(m.take_redraw());
    assert_eq!(m.live.as_ref().and_then(|l| l.ratio()), Some(0.5));
}

#[test]
fn a_patched_round_updates_the_table_in_place() {
    let mut m = model_with(fixtures::several_rounds());
    let mut accepted = fixtures::acceptable_candidate();
    let round4 = accepted.rounds.pop();
    let patch = crate::loading::StatePatch {
        rounds: vec![(4, round4)],
        ..Default::default()
    };
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(patch))));
    assert_eq!(
        m.gate.view.verdict,
        Some(kcamp_core::gate::Verdict::AcceptWithNote)
    );
    let gone = crate::loading::StatePatch {
        rounds: vec![(4, None)],
        ..Default::default()
    };
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(gone))));
    assert_eq!(m.rounds.len(), 3);
    assert_eq!(m.open_round_number(), None);
}

#[test]
fn selection_follows_the_newest_round_until_moved() {
    let mut m = model_with(fixtures::baseline_only());
    assert_eq!(m.selected, 0);
    update(
        &mut m,
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds().into()))),
    );
    assert_eq!(m.selected, 3);
    chr(&mut m, 'k');
    assert_eq!(m.gate.view.round, Some(3));
    update(
        &mut m,
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds().into()))),
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
fn quitting_while_running_asks_and_ctrl_c_or_a_signal_cancels_at_once() {
    let mut m = model_with(fixtures::several_rounds());
    assert_eq!(chr(&mut m, 'q'), [Effect::Quit]);
    chr(&mut m, 'v');
    assert!(chr(&mut m, 'q').is_empty());
    assert!(matches!(&m.popup, Some(Popup::Confirm(c)) if c.on_confirm == Some(Pending::Quit)));
    assert_eq!(chr(&mut m, 'y'), [Effect::Cancel, Effect::Quit]);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(
        update(&mut m, Msg::Key(ctrl_c)),
        [Effect::Cancel, Effect::Quit]
    );
    assert_eq!(
        update(&mut m, Msg::Terminate),
        [Effect::Cancel, Effect::Quit]
    );
    let mut idle = model_with(fixtures::several_rounds());
    assert_eq!(update(&mut idle, Msg::Terminate), [Effect::Quit]);
}

#[test]
fn accept_without_a_verdict_or_open_round_explains_why() {
    let mut m = model_with(fixtures::baseline_only());
    chr(&mut m, 'a');
    assert_eq!(
        last_message(&m),
        "no open round to accept: press n to open round 2"
    );
    let state = fixtures::CampaignBuilder::new(fixtures::shapes(&[64]), &[])
        .baseline(&[fixtures::pass(0.01)])
        .open("idea", None, kcamp_core::gate::Verdict::Accept, &[])
        .build();
    let mut m = model_with(state);
    chr(&mut m, 'a');
    assert!(last_message(&m).contains("validate it first"));
}

#[test]
fn accept_is_refused_at_once_where_no_shape_passes() {
    let failed = fixtures::Measured {
        check: kcamp_core::types::Check::Fail,
        tflops: 0.0,
    };
    let state = fixtures::CampaignBuilder::new(fixtures::shapes(&[64, 128]), &[])
        .baseline(&[fixtures::pass(0.01), fixtures::pass(0.02)])
        .open(
            "does not compile",
            Some(&[failed, failed]),
            kcamp_core::gate::Verdict::Reject,
            &[],
        )
        .build();
    let mut m = model_with(state);
    // Not offered, and no reason asked for that a forced accept would then refuse.
    assert!(actions::refusal(&m, crate::keys::Action::Accept).is_some());
    assert!(chr(&mut m, 'a').is_empty());
    assert!(m.popup.is_none(), "{:?}", m.popup);
    assert!(
        last_message(&m).starts_with("no shape passes in round 2"),
        "{}",
        last_message(&m)
    );
    // Rolling it back is still offered.
    assert!(actions::refusal(&m, crate::keys::Action::Rollback).is_none());
}

#[test]
fn e_says_why_each_shape_failed_in_full() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'e');
    let (_, text) = viewer(&m);
    let at = text
        .iter()
        .position(|l| l.starts_with("1 shape that does not PASS"))
        .unwrap_or_else(|| panic!("{text:#?}"));
    assert_eq!(text[at + 1], "sq1024 FAIL", "{text:#?}");
    assert!(
        text[at + 2].contains("worst at row 12, column 40"),
        "{text:#?}"
    );
}

#[test]
fn e_on_a_baseline_with_failed_shapes_shows_why_they_failed() {
    let mut measured = vec![fixtures::pass(0.01); 5];
    measured.push(fixtures::Measured {
        check: kcamp_core::types::Check::Error,
        tflops: 0.0,
    });
    let state = fixtures::CampaignBuilder::new(
        fixtures::shapes(&[64, 128, 256, 512, 768, 1024]),
        &["sq64"],
    )
    .baseline(&measured)
    .build();
    let mut m = model_with(state);
    chr(&mut m, 'e');
    let (title, text) = viewer(&m);
    assert_eq!(title, "Shapes of round 1 that do not PASS");
    // The whole compile error, its later line included.
    assert!(text.contains(&"sq1024 ERROR"), "{text:#?}");
    assert!(
        text.iter().any(|l| l.contains("let b = tile_b[ty][k];")),
        "{text:#?}"
    );
    // A baseline where every shape passes still has nothing to show.
    let mut m = model_with(fixtures::baseline_only());
    chr(&mut m, 'e');
    assert!(m.popup.is_none());
    assert!(
        last_message(&m).contains("has no gate verdict"),
        "{}",
        last_message(&m)
    );
}

#[test]
fn e_lists_every_reason_with_repeats_collapsed() {
    let mut m = model_with(fixtures::many_reasons());
    chr(&mut m, 'e');
    let (title, lines) = viewer(&m);
    assert_eq!(title, "Verdict of round 4");
    assert!(lines.len() <= 12, "200 reasons collapse: {lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("and 199 others")),
        "{lines:?}"
    );
    assert!(chr(&mut m, 'e').is_empty());
    assert!(m.popup.is_none());
}

#[test]
fn ticks_check_liveness_only_while_something_runs_and_redraw_once_a_second() {
    let mut m = model_with(fixtures::several_rounds());
    m.take_redraw();
    assert!(update(&mut m, Msg::Tick).is_empty(), "idle: nothing to do");
    assert!(!m.take_redraw());
    let mut busy = model_with(fixtures::running());
    busy.take_redraw();
    assert_eq!(
        update(&mut busy, Msg::Tick),
        [Effect::Load(LoadScope::liveness())]
    );
    assert!(busy.take_redraw(), "the elapsed time moved on");
    assert!(update(&mut busy, Msg::Tick).is_empty(), "once a second");
    assert!(!busy.take_redraw(), "same second");
}

#[test]
fn the_gate_panel_says_what_an_unmeasured_round_is_waiting_for() {
    let mut m = model_with(fixtures::unmeasured_round());
    // It opens on the BASELINE; the open round is selected by hand.
    chr(&mut m, 'G');
    assert_eq!(
        m.gate_note().as_deref(),
        Some("round 2 is not measured yet: press v to validate it (V: every target shape)")
    );
    // While V runs on it, pressing v again would be refused: the note says what runs.
    assert_eq!(
        chr(&mut m, 'V'),
        [Effect::Spawn(CampaignCommand::Validate { full: true })]
    );
    let note = m.gate_note().unwrap();
    assert_eq!(
        note,
        "round 2 is being measured by `kcamp validate --full`: the live panel (4) shows its progress; Esc cancels it"
    );
    key(&mut m, KeyCode::Esc);
    chr(&mut m, 'y');
    assert!(m.gate_note().unwrap().starts_with("round 2: cancelling"));
    // The same run, started by another process.
    let mut elsewhere = fixtures::unmeasured_round();
    elsewhere.live = Some(fixtures::progress(0, 2));
    elsewhere.lock_holder = Some("pid 77 (kcamp validate)".into());
    let mut m = model_with(elsewhere);
    chr(&mut m, 'G');
    let note = m.gate_note().unwrap();
    assert!(note.contains("started elsewhere"), "{note}");
    assert!(!note.contains("press v"), "{note}");
}

#[test]
fn a_round_rolled_back_before_it_was_measured_has_nothing_to_validate() {
    let mut m = model_with(fixtures::rolled_back_unmeasured());
    assert_eq!(m.gate.view.round, Some(2));
    assert_eq!(
        m.gate_note().as_deref(),
        Some(
            "round 2 was rolled back before it was measured: nothing to validate; n opens round 3"
        )
    );
    // And v is indeed refused there.
    assert!(chr(&mut m, 'v').is_empty());
    assert!(last_message(&m).starts_with("no open round to validate"));
}

#[test]
fn it_opens_on_the_last_decided_round_while_the_open_round_is_unmeasured() {
    // Rounds 1–3 decided and measured, open round 4 not measured yet.
    let mut m = model_with(fixtures::tried_kernel_unmeasured());
    assert_eq!(m.rounds[m.selected].number, 3);
    assert_eq!(m.gate.view.round, Some(3));
    assert!(
        !m.gate.view.lines.is_empty(),
        "the first screen shows a gate"
    );
    assert_eq!(m.gate_note(), None);
    // The round keys still act on the open round.
    assert_eq!(
        chr(&mut m, 'v'),
        [Effect::Spawn(CampaignCommand::Validate { full: false })]
    );
    // Once the open round is measured, the selection moves onto it.
    m.running = None;
    update(
        &mut m,
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds().into()))),
    );
    assert_eq!(m.rounds[m.selected].number, 4);
    // A round opened with nothing measured: the selection stays on one with a gate.
    let mut fresh = model_with(fixtures::unmeasured_round());
    assert_eq!(fresh.rounds[fresh.selected].number, 1);
    // Moved onto the open round by hand, the selection stays there through reloads.
    chr(&mut fresh, 'G');
    assert_eq!(fresh.rounds[fresh.selected].number, 2);
    update(
        &mut fresh,
        Msg::StateLoaded(Ok(Box::new(fixtures::unmeasured_round().into()))),
    );
    assert_eq!(fresh.rounds[fresh.selected].number, 2);
    assert!(fresh.gate_note().unwrap().contains("press v"));
}

#[test]
fn a_key_is_refused_exactly_when_refusal_says_so_and_then_says_that() {
    use crate::keys::Action;
    let keys = [
        ('v', Action::ValidateQuick),
        ('V', Action::ValidateFull),
        ('a', Action::Accept),
        ('r', Action::Rollback),
        ('n', Action::NewRound),
        ('e', Action::Reasons),
    ];
    let states = [
        fixtures::empty(),
        fixtures::baseline_only(),
        fixtures::several_rounds(),
        fixtures::acceptable_candidate(),
        fixtures::drifted_csv(),
        fixtures::running(),
        fixtures::unmeasured_round(),
        fixtures::rolled_back_unmeasured(),
    ];
    for state in states {
        for running in [false, true] {
            for (c, action) in keys {
                let mut m = model_with(state.clone());
                if running {
                    m.running = Some(Running {
                        command: CampaignCommand::Validate { full: true },
                        cancelling: false,
                    });
                }
                let why = m.refusal(action);
                let before = m.messages.len();
                let effects = chr(&mut m, c);
                match &why {
                    Some(why) => {
                        assert!(effects.is_empty(), "{c}: refused, yet {effects:?}");
                        assert!(m.popup.is_none(), "{c}: refused, yet a popup");
                        assert_eq!(last_message(&m), why, "{c}");
                    }
                    None => {
                        assert!(
                            m.messages[before..].iter().all(|l| l.tone == Tone::Normal),
                            "{c}: not refused, yet warned: {:?}",
                            &m.messages[before..]
                        );
                        assert!(
                            m.popup.is_some() || !effects.is_empty(),
                            "{c}: neither a popup nor a command"
                        );
                    }
                }
            }
            // Esc: offered only for a run of ours that can be cancelled.
            let mut m = model_with(state.clone());
            if running {
                m.running = Some(Running {
                    command: CampaignCommand::Validate { full: true },
                    cancelling: false,
                });
            }
            let offered = m.refusal(Action::CancelRun).is_none();
            assert_eq!(offered, running);
            key(&mut m, KeyCode::Esc);
            assert_eq!(m.popup.is_some(), offered);
        }
    }
}

fn loaded_with_key(state: CampaignState, key: &str) -> Msg {
    Msg::StateLoaded(Ok(Box::new(Loaded {
        state,
        working_key: Some(key.into()),
    })))
}

fn key_read(key: &str) -> Msg {
    Msg::PatchLoaded(Ok(Box::new(StatePatch {
        working_key: Some(Some(key.into())),
        ..StatePatch::default()
    })))
}

#[test]
fn a_working_kernel_a_rolled_back_round_tried_is_named_beside_the_open_round() {
    let mut m = Model::new(Theme::plain(), fixed_clock);
    update(
        &mut m,
        loaded_with_key(fixtures::tried_kernel(), fixtures::TRIED_KEY),
    );
    assert_eq!(m.tried.iter().map(|t| t.round).collect::<Vec<_>>(), [3]);
    // The open round (selected) says it in its details, after its decision.
    assert_eq!(m.gate.view.round, Some(4));
    let keys: Vec<&str> = m.details.iter().map(|d| d.key).collect();
    assert_eq!(keys[..3], ["hypothesis", "decision", "tried"], "{keys:?}");
    let tried = &m.details[2];
    assert!(
        tried.value.starts_with("in round 3: REJECT ")
            && tried
                .value
                .contains("% vs r2, reason: vec4 loads are unaligned at 64"),
        "{}",
        tried.value
    );
    assert_eq!(tried.tone, Tone::Warn);
    // Said once in the log and the toast, in the words of `kcamp status`.
    assert!(
        last_message(&m).starts_with("kernel/ equals the snapshot of a rolled-back round")
            && last_message(&m).contains("tried in round 3: REJECT"),
        "{}",
        last_message(&m)
    );
    assert!(m.toast.as_ref().is_some_and(|t| t.tone == Tone::Warn));
    // `e` on the open round's verdict names it too, after the verdict; so does the
    // rollback's popup.
    chr(&mut m, 'e');
    let (_, lines) = viewer(&m);
    assert!(
        lines[1].starts_with("kernel/ was tried in round 3"),
        "{lines:?}"
    );
    key(&mut m, KeyCode::Esc);
    chr(&mut m, 'r');
    let Some(Popup::Input(input)) = &m.popup else {
        panic!("the rollback reason: {:?}", m.popup)
    };
    assert!(
        input
            .lines
            .iter()
            .any(|(l, _)| l.starts_with("kernel/ was tried in round 3")),
        "{:?}",
        input.lines
    );
    key(&mut m, KeyCode::Esc);
    // Round 3 itself is not the open round: its details say nothing of it.
    chr(&mut m, 'k');
    assert_eq!(m.gate.view.round, Some(3));
    assert!(m.details.iter().all(|d| d.key != "tried"));
    chr(&mut m, 'j');

    // An edit to another kernel: the line goes, and nothing new is said.
    let said = m.messages.len();
    m.take_redraw();
    update(&mut m, key_read("another"));
    assert!(m.tried.is_empty() && m.details.iter().all(|d| d.key != "tried"));
    assert!(m.take_redraw());
    assert_eq!(m.messages.len(), said);
    // The same key read again changes nothing on screen.
    update(&mut m, key_read("another"));
    assert!(!m.take_redraw());
    // Back to round 3's kernel: said again.
    update(&mut m, key_read(fixtures::TRIED_KEY));
    assert_eq!(m.messages.len(), said + 1);
    assert!(m.details.iter().any(|d| d.key == "tried"));
}

#[test]
fn a_rollback_that_leaves_the_working_kernel_equal_to_its_snapshot_names_it() {
    // The working kernel is round 4's; rolling round 4 back (a re-read round) makes it a
    // kernel tried and given up.
    let mut m = Model::new(Theme::plain(), fixed_clock);
    update(&mut m, loaded_with_key(fixtures::several_rounds(), "k4"));
    assert!(m.tried.is_empty());
    let mut round4 = fixtures::several_rounds().rounds.pop().unwrap();
    let mut decision = fixtures::several_rounds().rounds[2]
        .decision
        .clone()
        .unwrap();
    decision.round = 4;
    decision.kernel_key = Some("k4".into());
    decision.reason = Some("sq1024 FAIL".into());
    round4.decision = Some(decision);
    let patch = StatePatch {
        rounds: vec![(4, Some(round4))],
        ..StatePatch::default()
    };
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(patch))));
    assert_eq!(m.tried.iter().map(|t| t.round).collect::<Vec<_>>(), [4]);
    assert!(
        last_message(&m).contains("tried in round 4"),
        "{}",
        last_message(&m)
    );
    // No round is open: no details line claims one.
    assert_eq!(m.open_round_number(), None);
    assert!(m.details.iter().all(|d| d.key != "tried"));
}

#[test]
fn round_new_and_validate_say_when_the_kernel_was_tried_before() {
    let mut m = model_with(fixtures::several_rounds());
    let doc = r#"{"round": 5, "hypothesis": "vec4 again", "tried_before": [
        {"round": 3, "line": "round 3: REJECT -8.00% vs r2, reason: slower"}]}"#;
    finished(
        &mut m,
        CampaignCommand::NewRound {
            hypothesis: "vec4 again".into(),
        },
        Some(0),
        doc,
        false,
    );
    assert_eq!(
        last_message(&m),
        "round new: kernel/ was tried in round 3: REJECT -8.00% vs r2, reason: slower"
    );
    let toast = m.toast.as_ref().expect("a toast");
    assert_eq!(
        (toast.text.as_str(), toast.tone),
        (last_message(&m), Tone::Warn)
    );
    // Nothing tried before: nothing said beyond the outcome.
    finished(
        &mut m,
        CampaignCommand::NewRound {
            hypothesis: "x".into(),
        },
        Some(0),
        r#"{"round": 6, "hypothesis": "x", "tried_before": []}"#,
        false,
    );
    assert!(
        last_message(&m).starts_with("round new round 6"),
        "{}",
        last_message(&m)
    );
}

fn paste(m: &mut Model, text: &str) -> Vec<Effect> {
    update(m, Msg::Paste(text.into()))
}

#[test]
fn a_multi_line_paste_is_one_line_of_the_field_and_never_a_submit() {
    // Every text field: the rollback reason, the forced accept's reason, the hypothesis and
    // a search. A pasted line break or TAB is a space; nothing is sent.
    let pasted = "first line of pasted note\ndef\tghi\r\n";
    let one_line = "first line of pasted note def ghi ";
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'r');
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    assert!(paste(&mut m, pasted).is_empty());
    let Some(Popup::Input(p)) = &m.popup else {
        panic!("the reason field stays open: {:?}", m.popup)
    };
    assert_eq!(p.purpose, InputPurpose::RollbackReason);
    assert_eq!(p.text(), one_line);
    key(&mut m, KeyCode::Esc);

    chr(&mut m, 'a');
    assert!(paste(&mut m, pasted).is_empty());
    assert!(matches!(&m.popup,
        Some(Popup::Input(p)) if p.purpose == InputPurpose::ForceReason && p.text() == one_line));
    let effects = key(&mut m, KeyCode::Enter);
    assert_eq!(
        effects,
        [Effect::Spawn(CampaignCommand::Accept {
            force: true,
            reason: Some(one_line.trim().into())
        })],
        "Enter typed by the user submits the whole pasted text"
    );

    let mut m = model_with(fixtures::baseline_only());
    chr(&mut m, 'n');
    assert!(paste(&mut m, pasted).is_empty());
    assert!(matches!(&m.popup,
        Some(Popup::Input(p)) if p.purpose == InputPurpose::Hypothesis && p.text() == one_line));

    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, '2');
    chr(&mut m, '/');
    assert!(paste(&mut m, "sq1\n28").is_empty());
    assert!(m.popup.is_some(), "the search is still being typed");
    assert!(m.gate.rows.is_empty(), "'sq1 28' matches no label");
}

#[test]
fn a_paste_outside_a_text_field_is_no_keys() {
    let mut m = model_with(fixtures::several_rounds());
    let before = m.selected;
    // Letters that would be keys (v validates, q quits, j moves) and a line break.
    assert!(paste(&mut m, "vqj\n").is_empty());
    assert!(m.popup.is_none());
    assert_eq!(m.selected, before);
    let toast = m.toast.as_ref().expect("said so");
    assert!(toast.text.contains("text field only"), "{}", toast.text);
}

#[test]
fn a_resize_that_hides_the_focused_panel_moves_the_focus() {
    let mut m = model_with(fixtures::several_rounds());
    update(&mut m, Msg::Resize(80, 24));
    chr(&mut m, '6');
    assert_eq!(m.focus, Panel::Log);
    update(&mut m, Msg::Resize(80, 17));
    assert!(!crate::view::shown_panels(&m).contains(&Panel::Log));
    assert_eq!(m.focus, Panel::Rounds, "on a panel in sight");
    assert_eq!(m.context(), Context::Main(Panel::Rounds));
    let before = m.selected;
    chr(&mut m, 'k');
    assert_ne!(m.selected, before, "k moves the rounds, the panel in sight");
    // Too small for any panel: nothing moves until the panels are back.
    chr(&mut m, '2');
    update(&mut m, Msg::Resize(40, 10));
    assert_eq!(m.focus, Panel::Gate);
}

#[test]
fn a_key_that_does_nothing_is_named_as_pressed() {
    let mut m = model_with(fixtures::several_rounds());
    for (code, modifiers, name) in [
        (KeyCode::Char('f'), KeyModifiers::CONTROL, "C-f "),
        (KeyCode::Char('l'), KeyModifiers::CONTROL, "C-l "),
        (KeyCode::Char(' '), KeyModifiers::NONE, "Space "),
        (KeyCode::Char('x'), KeyModifiers::ALT, "M-x "),
    ] {
        let effects = update(&mut m, Msg::Key(KeyEvent::new(code, modifiers)));
        assert!(effects.is_empty());
        let toast = m.toast.as_ref().expect("said").text.clone();
        assert!(toast.starts_with(name), "{toast}");
        assert!(toast.contains("does nothing in panel 1 Rounds"), "{toast}");
    }
}

fn copied(effects: &[Effect]) -> String {
    match effects {
        [Effect::Copy(text)] => text.clone(),
        other => panic!("expected a copy, got {other:?}"),
    }
}

#[test]
fn y_copies_a_shapes_whole_line_and_reason() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, '2');
    // Worst first: sq1024 FAIL, with its reason.
    let text = copied(&chr(&mut m, 'y'));
    assert!(text.starts_with("sq1024 ["), "{text}");
    assert!(text.contains(" FAIL "), "{text}");
    assert!(text.contains("output mismatch: rel_err 3.2e-2"), "{text}");
    chr(&mut m, 'j');
    let text = copied(&chr(&mut m, 'y'));
    assert!(
        text.contains(" → ") && text.contains("Δ ") && text.contains("band ±"),
        "{text}"
    );
    // A BASELINE row: its own value, never an empty Δ.
    let mut m = model_with(fixtures::baseline_only());
    chr(&mut m, '2');
    let text = copied(&chr(&mut m, 'y'));
    assert!(
        text.contains("(no gate: its own value)") && !text.contains("Δ —"),
        "{text}"
    );
}

#[test]
fn keys_a_viewer_has_no_use_for_say_so() {
    let mut m = model_with(fixtures::several_rounds());
    chr(&mut m, 'e');
    assert!(matches!(m.popup, Some(Popup::Viewer(_))));
    for code in [KeyCode::Left, KeyCode::Right, KeyCode::Char('v')] {
        m.toast = None;
        assert!(
            key(&mut m, code).is_empty(),
            "v validates nothing from a viewer"
        );
        let toast = m.toast.as_ref().expect("said").text.clone();
        assert!(toast.contains("does nothing in the"), "{toast}");
        assert!(toast.contains("Esc closes"), "{toast}");
        assert!(m.popup.is_some(), "the viewer stays open");
    }
}

#[test]
fn ctrl_d_and_ctrl_u_move_half_a_page_and_h_l_change_panels() {
    let mut m = model_with(fixtures::synthetic_gate(200));
    update(&mut m, Msg::Resize(120, 40));
    chr(&mut m, '2');
    let page = crate::view::page_rows(&m, Panel::Gate);
    let ctrl = |c| Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    update(&mut m, ctrl('d'));
    assert_eq!(m.gate.cursor, page / 2);
    update(&mut m, ctrl('u'));
    assert_eq!(m.gate.cursor, 0);
    chr(&mut m, 'l');
    assert_eq!(m.focus, Panel::Chart);
    chr(&mut m, 'h');
    chr(&mut m, 'h');
    assert_eq!(m.focus, Panel::Rounds);
}

#[test]
fn plus_zooms_the_focused_panel_and_tab_still_moves() {
    let mut m = model_with(fixtures::several_rounds());
    update(&mut m, Msg::Resize(120, 40));
    chr(&mut m, '6');
    chr(&mut m, '+');
    let areas = crate::view::panel_areas(&m);
    assert_eq!(
        areas[5],
        crate::view::body_area(&m),
        "the log over the body"
    );
    assert!(areas[..5].iter().all(|a| a.is_empty()));
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Panel::Rounds);
    assert_eq!(crate::view::panel_areas(&m)[0], crate::view::body_area(&m));
    chr(&mut m, '+');
    assert!(crate::view::panel_areas(&m).iter().all(|a| !a.is_empty()));
}

#[test]
fn a_config_file_sets_the_layout_and_its_problems_are_said_never_fatal() {
    let mut m = model_with(fixtures::several_rounds());
    let config = crate::config::parse("[layout]\nfocus = \"gate\"\nzoom = true\n", "tui.toml");
    m.apply_config(&config);
    assert_eq!(m.focus, Panel::Gate);
    assert!(m.zoomed);
    let mut m = model_with(fixtures::several_rounds());
    let config = crate::config::parse("[layout]\nfocus = \"gaet\"\n", "tui.toml");
    m.apply_config(&config);
    assert_eq!(m.focus, Panel::Rounds, "the default");
    let said = m.toast.as_ref().map(|t| t.text.as_str()).unwrap_or("");
    assert!(
        said.starts_with("tui.toml:2:9: no panel is called 'gaet'"),
        "{said}"
    );
    assert!(last_message(&m).starts_with("tui.toml:2:9:"));
}
