//! Snapshots of every dashboard screen over fixture campaigns, drawn through ratatui's
//! TestBackend at 80×24 and 160×48. Review changes with `cargo insta review` (or
//! `INSTA_UPDATE=always`), reading the rendered text.

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kcamp_core::campaign::CampaignState;
use kcamp_tui::app::{Model, Msg, update};
use kcamp_tui::fixtures;
use kcamp_tui::style::Theme;
use kcamp_tui::view::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

const SMALL: (u16, u16) = (80, 24);
const BIG: (u16, u16) = (160, 48);

fn clock() -> DateTime<Utc> {
    fixtures::at(240)
}

fn model(state: CampaignState, theme: Theme) -> Model {
    let mut m = Model::new(theme, clock);
    update(&mut m, Msg::StateLoaded(Ok(Box::new(state))));
    m
}

fn press(m: &mut Model, keys: &str) {
    for c in keys.chars() {
        update(
            m,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
    }
}

fn terminal(m: &Model, (w, h): (u16, u16)) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view(m, f)).unwrap();
    t
}

fn screen(m: &Model, size: (u16, u16)) -> String {
    terminal(m, size).backend().to_string()
}

/// Every screen at both sizes.
fn snap(name: &str, m: &Model) {
    insta::assert_snapshot!(format!("{name}_80x24"), screen(m, SMALL));
    insta::assert_snapshot!(format!("{name}_160x48"), screen(m, BIG));
}

#[test]
fn empty_campaign() {
    let m = model(fixtures::empty(), Theme::colored());
    let text = screen(&m, SMALL);
    assert!(text.contains("no rounds yet"));
    snap("empty", &m);
}

#[test]
fn baseline_only() {
    let m = model(fixtures::baseline_only(), Theme::colored());
    let text = screen(&m, BIG);
    assert!(text.contains("BASELINE"));
    assert!(text.contains("no gate (baseline values)"));
    snap("baseline_only", &m);
}

#[test]
fn several_rounds_with_an_open_candidate() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "2");
    let text = screen(&m, BIG);
    for class in ["improved", "neutral", "regressed", "failed"] {
        assert!(text.contains(class), "class {class} shown");
    }
    assert!(text.contains("ROLLED_BACK"));
    assert!(text.contains("★2"), "incumbent marked");
    snap("several_rounds", &m);
}

/// Foreground colour of the gate table cell that starts a row with `label`.
fn label_colour(t: &Terminal<TestBackend>, label: &str) -> Color {
    let buffer = t.backend().buffer();
    let area = buffer.area;
    for y in 0..area.height {
        for x in 0..area.width.saturating_sub(label.len() as u16 + 1) {
            let starts_row = buffer[(x, y)].symbol() == "│";
            let matches = label
                .chars()
                .enumerate()
                .all(|(i, c)| buffer[(x + 1 + i as u16, y)].symbol() == c.to_string());
            let ends = buffer[(x + 1 + label.len() as u16, y)].symbol() == " ";
            // The gate panel is the one whose rows carry a Check column.
            let line: String = (0..area.width).map(|cx| buffer[(cx, y)].symbol()).collect();
            if starts_row && matches && ends && (line.contains("PASS") || line.contains("FAIL")) {
                return buffer[(x + 1, y)].fg;
            }
        }
    }
    panic!("no gate row for {label}")
}

#[test]
fn gate_rows_are_coloured_by_class() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    // Focus elsewhere so that no row carries the selection highlight.
    press(&mut m, "3");
    let t = terminal(&m, BIG);
    assert_eq!(label_colour(&t, "sq1024"), Color::Red, "failed");
    assert_eq!(label_colour(&t, "sq512"), Color::Green, "improved");
    assert_eq!(label_colour(&t, "sq128"), Color::Yellow, "regressed");
    assert_eq!(label_colour(&t, "sq64"), Color::Reset, "neutral");
}

#[test]
fn sorted_and_filtered_gate() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "2s/sq");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let text = screen(&m, BIG);
    assert!(text.contains("[Δ worst first · filter 'sq' 6/6]"), "{text}");
    insta::assert_snapshot!("sorted_filtered_160x48", text);
}

#[test]
fn drifted_csv_shows_the_error_in_the_gate_panel() {
    let m = model(fixtures::drifted_csv(), Theme::colored());
    let text = screen(&m, BIG);
    assert!(text.contains("the round's CSV cannot be read"));
    assert!(text.contains("header differs"), "{text}");
    snap("drifted_csv", &m);
}

#[test]
fn running_benchmark_shows_live_progress() {
    let m = model(fixtures::running(), Theme::colored());
    let text = screen(&m, BIG);
    assert!(text.contains("shape 3 of 3 · 67%"), "{text}");
    assert!(text.contains("sq256: 7 samples"), "{text}");
    assert!(text.contains("rate 0.1032 TFLOPS"), "{text}");
    assert!(text.contains("locked by pid 5151"));
    snap("running", &m);
}

#[test]
fn help_overlay() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "?");
    let text = screen(&m, BIG);
    assert!(text.contains("quick validation (representative shapes)"));
    snap("help", &m);
}

#[test]
fn accept_confirmation_popup_shows_the_verdict_and_reasons() {
    let mut m = model(fixtures::acceptable_candidate(), Theme::colored());
    press(&mut m, "a");
    let text = screen(&m, SMALL);
    assert!(text.contains("Accept round 4?"));
    assert!(text.contains("ACCEPT_WITH_NOTE"));
    assert!(text.contains("aggregate +14.2% over the 2% noise floor"));
    snap("accept_confirm", &m);
}

#[test]
fn forced_accept_asks_for_a_reason() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "a");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let text = screen(&m, BIG);
    assert!(text.contains("Force-accept round 4"));
    assert!(text.contains("a reason is required"));
    snap("forced_accept", &m);
}

#[test]
fn no_color_uses_no_colours_at_all() {
    let mut m = model(fixtures::several_rounds(), Theme::plain());
    press(&mut m, "2");
    for size in [SMALL, BIG] {
        let t = terminal(&m, size);
        for cell in &t.backend().buffer().content {
            assert_eq!(cell.fg, Color::Reset, "foreground at {size:?}");
            assert_eq!(cell.bg, Color::Reset, "background at {size:?}");
        }
    }
    snap("no_color", &m);
}

#[test]
fn tiny_terminals_do_not_panic() {
    let states = [
        fixtures::empty(),
        fixtures::several_rounds(),
        fixtures::drifted_csv(),
        fixtures::running(),
    ];
    for state in states {
        let mut m = model(state, Theme::colored());
        for keys in ["", "?", "2", "a"] {
            press(&mut m, keys);
            for size in [(1, 1), (10, 3), (20, 5), (40, 12), (79, 23)] {
                let text = screen(&m, size);
                assert_eq!(text.lines().count(), size.1 as usize);
            }
        }
    }
}
