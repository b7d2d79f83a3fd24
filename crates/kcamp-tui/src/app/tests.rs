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
        Msg::StateLoaded(Ok(Box::new(fixtures::baseline_only()))),
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
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds()))),
    );
    assert!(m.load_error.is_none());
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
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds()))),
    );
    assert_eq!(m.selected, 3);
    chr(&mut m, 'k');
    assert_eq!(m.gate.view.round, Some(3));
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
    let m = model_with(elsewhere);
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
