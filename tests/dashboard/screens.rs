//! Snapshots of every dashboard screen over fixture campaigns, drawn through ratatui's
//! TestBackend at 80×24, 120×40 and 200×60. Review changes with `cargo insta review` (or
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
use ratatui::style::{Color, Modifier};

use crate::common;

const SMALL: (u16, u16) = (80, 24);
const MID: (u16, u16) = (120, 40);
const BIG: (u16, u16) = (200, 60);

fn clock() -> DateTime<Utc> {
    fixtures::at(240)
}

fn model(state: CampaignState, theme: Theme) -> Model {
    let mut m = Model::new(theme, clock);
    update(&mut m, Msg::StateLoaded(Ok(Box::new(state.into()))));
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
    let m = sized(m, (w, h));
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view(&m, f)).unwrap();
    t
}

fn screen(m: &Model, size: (u16, u16)) -> String {
    terminal(&sized(m, size), size).backend().to_string()
}

/// Every screen at the three sizes.
fn snap(name: &str, m: &Model) {
    let mut m = sized(m, SMALL);
    insta::assert_snapshot!(format!("{name}_80x24"), screen(&m, SMALL));
    m.size = MID;
    insta::assert_snapshot!(format!("{name}_120x40"), screen(&m, MID));
    m.size = BIG;
    insta::assert_snapshot!(format!("{name}_200x60"), screen(&m, BIG));
}

/// The model as if the terminal were of `size` (layouts, paging and clicks follow it).
fn sized(m: &Model, size: (u16, u16)) -> Model {
    let mut m = m.clone();
    m.size = size;
    m
}

#[test]
fn empty_campaign() {
    let m = model(fixtures::empty(), Theme::colored());
    let text = screen(&m, SMALL);
    assert!(text.contains("no rounds yet"));
    snap("empty", &m);
}

#[test]
fn a_scratch_copy_says_so_in_the_header() {
    // `kcamp` outside any campaign opens a scratch copy of the demo: what is done there
    // changes no campaign of the user's, and the first line says so.
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    let header = |m: &Model| screen(m, BIG).lines().next().unwrap_or_default().to_owned();
    assert!(!header(&m).contains("scratch"), "{}", header(&m));
    m.scratch = true;
    assert!(header(&m).contains(" (scratch copy)"), "{}", header(&m));
}

#[test]
fn log_lines_of_an_earlier_day_show_their_date() {
    use kcamp_tui::derive::{LogLine, LogSource};
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    let line = |time, text: &str| LogLine {
        time,
        source: LogSource::Journal,
        text: text.to_owned(),
        tone: m.log[0].tone,
    };
    // The clock reads 2026-03-14 13:00 UTC.
    m.log = vec![
        line(fixtures::at(240 - 3 * 24 * 60 + 5), "from three days ago"),
        line(fixtures::at(239), "from a minute ago"),
    ];
    let text = screen(&m, BIG);
    assert!(text.contains("03-11 13:05   from three days ago"), "{text}");
    assert!(text.contains("12:59:00   from a minute ago"), "{text}");
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

#[test]
fn a_round_where_nothing_passed_is_drawn_on_the_chart_floor() {
    // A kernel that does not compile: measured, no shape passed, no aggregate. The chart
    // shows the round instead of leaving a gap, and its legend says what the mark means.
    let mut state = fixtures::several_rounds();
    let open = state.rounds.last_mut().unwrap();
    let gate = open.gate.as_mut().unwrap();
    gate.aggregate.candidate = None;
    for shape in &mut gate.shapes {
        shape.check = kcamp_core::types::Check::Fail;
        shape.candidate = None;
        shape.delta = None;
        shape.class = kcamp_core::gate::ShapeClass::Failed;
    }
    open.table = None;
    let m = model(state, Theme::colored());
    let t = terminal(&m, BIG);
    let buffer = t.backend().buffer();
    let area = buffer.area;
    // The legend joins a mark and its word with a no-break space.
    let rows: Vec<String> = (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .replace('\u{a0}', " ")
        })
        .collect();
    // The legend (two lines in this panel's width) names the mark.
    let top = rows.iter().position(|r| r.contains("━ lineage")).unwrap();
    let legend = format!("{}{}", rows[top], rows[top + 1]);
    assert!(legend.contains("✗ none passed"), "{}", rows.join("\n"));
    // The mark itself: on the plot, below every other point of the chart.
    let marks: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.matches('✗').count() > usize::from(r.contains("✗ none passed")))
        .map(|(y, _)| y)
        .collect();
    assert_eq!(marks.len(), 1, "{}", rows.join("\n"));
    let points = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.contains('●') && !r.contains("━ lineage"))
        .map(|(y, _)| y)
        .max()
        .unwrap();
    assert!(marks[0] > points, "{}", rows.join("\n"));
    snap("nothing_passed", &m);
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
    assert!(text.contains("best first · filter 'sq' 6/6"), "{text}");
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
    assert!(text.contains("shape 3 of 3: sq256"), "{text}");
    assert!(text.contains("2/3  67%"), "{text}");
    assert!(text.contains("7 samples · last 103 GFLOP/s"), "{text}");
    // Started at 11:01, now 13:00; two shapes in 119 min: one more takes about 59.5.
    assert!(text.contains("1 h 59 min elapsed"), "{text}");
    assert!(text.contains("≈59 min 30 s left"), "{text}");
    assert!(text.contains("started 11:01:00 UTC"), "{text}");
    assert!(text.contains("locked by pid 5151"));
    snap("running", &m);
}

#[test]
fn a_sharded_run_shows_each_shards_place_state_and_shape() {
    use kcamp_core::artifacts::progress::ShardProgress;
    let mut state = fixtures::running();
    let live = state.live.as_mut().unwrap();
    live.state = "running".into();
    live.shards = vec![
        ShardProgress {
            place: "slurm job 42_0 on gpu01".into(),
            state: "running".into(),
            label: Some("sq256".into()),
            done: 1,
            total: 2,
        },
        ShardProgress {
            place: "slurm job 42_1".into(),
            state: "pending".into(),
            label: None,
            done: 0,
            total: 1,
        },
    ];
    let m = model(state, Theme::colored());
    let text = screen(&m, BIG);
    // The panel is narrow: the first line is cut at its end, where its shape is.
    assert!(text.contains("slurm job 42_0 on gpu01 · running"), "{text}");
    assert!(text.contains("slurm job 42_1 · pending (0/1)"), "{text}");
    let wide = screen(&m, (300, 48));
    assert!(
        wide.contains("slurm job 42_0 on gpu01 · running · sq256 (1/2)"),
        "{wide}"
    );
    assert!(!text.contains("shape 3 of 3"), "{text}");
}

#[test]
fn help_overlay() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "?");
    let text = screen(&m, BIG);
    assert!(text.contains("quick validation of the open round (representative shapes)"));
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
        for keys in ["", "?", "2", "a", "e", "r", "v"] {
            press(&mut m, keys);
            for size in [(1, 1), (10, 3), (20, 5), (40, 12), (79, 23)] {
                let text = screen(&m, size);
                assert_eq!(text.lines().count(), size.1 as usize);
            }
        }
    }
}

#[test]
fn the_gate_opens_worst_first_with_counts_and_a_position() {
    let mut m = model(fixtures::synthetic_gate(200), Theme::colored());
    press(&mut m, "2");
    let text = screen(&m, BIG);
    assert!(text.contains("REJECT aggregate"), "{text}");
    assert!(text.contains("1 failed · 12 regressed"), "{text}");
    assert!(text.contains(" 1/200 "), "{text}");
    // The worst rows are at the top, in sight.
    let header = text
        .lines()
        .position(|l| l.contains("label") && l.contains("Check"))
        .unwrap();
    let first_row = text.lines().nth(header + 1).unwrap();
    assert!(first_row.contains("FAIL"), "{first_row}");
    for _ in 0..36 {
        press(&mut m, "j");
    }
    let text = screen(&m, BIG);
    assert!(text.contains(" 37/200 "), "{text}");
    snap("gate_200_shapes", &m);
}

#[test]
fn many_reasons_stay_in_reach_and_collapse() {
    let mut m = model(fixtures::many_reasons(), Theme::colored());
    let text = screen(&m, SMALL);
    // The one line there is room for says why the failed shape failed; `e` has the rest.
    assert!(text.contains("• sq1024 FAIL: output mismatch"), "{text}");
    assert!(text.contains("+3 more: e"), "{text}");
    press(&mut m, "e");
    let text = screen(&m, SMALL);
    assert!(text.contains("Verdict of round 4"), "{text}");
    assert!(text.contains("'s0' and 199 others"), "{text}");
    snap("reasons", &m);
}

#[test]
fn the_rollback_reason_field_stays_visible_over_200_reasons_at_every_size() {
    let mut m = model(fixtures::many_reasons(), Theme::colored());
    press(&mut m, "r");
    for size in [SMALL, BIG, (60, 16), (100, 12)] {
        let text = screen(&m, size);
        assert!(text.contains("│reason: "), "{size:?}\n{text}");
        assert!(text.contains("Enter ok"), "{size:?}\n{text}");
    }
    snap("rollback_many_reasons", &m);
}

#[test]
fn long_labels_and_dims_are_cut_with_an_ellipsis_and_columns_dropped_with_a_hint() {
    let mut m = model(fixtures::long_labels(), Theme::colored());
    press(&mut m, "2");
    let small = screen(&m, SMALL);
    assert!(small.contains('…'), "{small}");
    // p goes first: the dims name the shape.
    assert!(small.contains("hidden: p"), "{small}");
    // The big neutral drop keeps its explanation: the band.
    assert!(small.contains("±120%"), "{small}");
    assert!(small.contains("-96.8%"), "{small}");
    let big = screen(&m, BIG);
    assert!(
        big.contains("0.310"),
        "p-values shown when there is room: {big}"
    );
    // A value's unit is never cut: no `12.3 GFLO…`.
    let unit = "FLOP/s";
    for text in [&small, &big] {
        for line in text.lines() {
            for prefix in ["", "k", "M", "G", "T"] {
                for end in 1..unit.len() {
                    let cut = format!("{prefix}{}…", &unit[..end]);
                    assert!(!line.contains(&format!(" {cut}")), "unit cut: {line}");
                }
            }
        }
    }
    snap("long_labels", &m);
}

#[test]
fn refusals_show_in_full_in_the_toast() {
    let mut m = model(fixtures::baseline_only(), Theme::colored());
    press(&mut m, "v");
    let text = screen(&m, SMALL);
    assert!(
        text.contains("no open round to validate: press n to open round 2"),
        "{text}"
    );
    snap("toast", &m);
}

#[test]
fn the_key_bar_names_the_round_each_action_acts_on() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    let text = screen(&m, BIG);
    let bar = text.lines().last().unwrap();
    assert!(bar.contains("v validate r4"), "{bar}");
    // Round 4's gate says REJECT: `a` force-accepts it, and says so.
    assert!(bar.contains("a force-accept r4"), "{bar}");
    assert!(bar.contains("? help"), "{bar}");
    // Looking at round 3, the gate says where the keys go.
    press(&mut m, "k");
    let text = screen(&m, BIG);
    assert!(text.contains("keys act on open r4"), "{text}");
    let small = screen(&m, SMALL);
    assert!(small.lines().last().unwrap().contains("? help"), "{small}");
}

#[test]
fn cancelling_a_run_asks_and_says_what_happens() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "V");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    let text = screen(&m, SMALL);
    assert!(text.contains("Cancel `kcamp validate --full`?"), "{text}");
    assert!(text.contains("Nothing is recorded"), "{text}");
    snap("cancel_confirm", &m);
    press(&mut m, "y");
    let text = screen(&m, SMALL);
    assert!(
        text.contains("cancelling `kcamp validate --full`"),
        "{text}"
    );
}

/// Every cell of the selected row must read: reversed, and never the same colour on
/// itself.
fn selected_row_reads(t: &Terminal<TestBackend>) -> usize {
    let buffer = t.backend().buffer();
    let mut checked = 0;
    for cell in &buffer.content {
        if cell.modifier.contains(Modifier::REVERSED) {
            checked += 1;
            assert!(
                cell.fg != cell.bg || cell.fg == Color::Reset,
                "cell '{}' is {:?} on {:?}",
                cell.symbol(),
                cell.fg,
                cell.bg
            );
        }
    }
    checked
}

#[test]
fn the_selected_row_is_readable_in_every_state() {
    for theme in [Theme::colored(), Theme::plain()] {
        let mut m = model(fixtures::several_rounds(), theme);
        // Rounds panel: every round selected in turn, the rolled-back one included.
        for _ in 0..4 {
            assert!(selected_row_reads(&terminal(&m, BIG)) > 0);
            press(&mut m, "k");
        }
        // Gate panel: every class under the cursor.
        press(&mut m, "2");
        for _ in 0..6 {
            assert!(selected_row_reads(&terminal(&m, SMALL)) > 0);
            press(&mut m, "j");
        }
    }
}

#[test]
fn help_fits_the_terminal_and_scrolls_to_its_end_only() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "?");
    let text = screen(&m, SMALL);
    assert!(text.contains("more (↓ PgDn)"), "{text}");
    for _ in 0..200 {
        press(&mut m, "j");
    }
    let text = screen(&m, SMALL);
    assert!(
        text.contains("Labels are cut in the middle")
            || text.contains("labels are cut in the middle"),
        "{text}"
    );
    assert!(!text.contains("more (↓ PgDn)"), "at the end: {text}");
}

/// The text of the gate panel's bottom border, between its corners.
fn gate_bottom_border(text: &str) -> String {
    let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
    let (top, x) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| {
            let s: String = l.iter().collect();
            let byte = s.find("┌ 2 Gate")?;
            Some((y, s[..byte].chars().count()))
        })
        .expect("the gate panel");
    let bottom = (top + 1..lines.len())
        .find(|&y| lines[y].get(x) == Some(&'└'))
        .expect("the gate panel's bottom border");
    let row = &lines[bottom][x + 1..];
    row.iter().take_while(|c| **c != '┘').collect()
}

#[test]
fn the_gate_order_stays_in_sight_at_every_width() {
    for state in [
        fixtures::long_labels(),
        fixtures::synthetic_gate(200),
        fixtures::baseline_only(),
    ] {
        let mut m = model(state, Theme::colored());
        press(&mut m, "2");
        for (keys, long, short) in [
            ("", "worst first", "worst 1st"),
            ("s", "best first", "best 1st"),
            ("s", "file order", "file"),
        ] {
            press(&mut m, keys);
            for width in (60..=160).step_by(5) {
                for height in [15, 24, 48] {
                    let border = gate_bottom_border(&screen(&m, (width, height)));
                    assert!(
                        border.contains(long) || border.contains(short),
                        "{width}x{height}: {border}"
                    );
                }
            }
        }
    }
    // With a filter on, the order and the filter are both there at 80×24.
    let mut m = model(fixtures::long_labels(), Theme::colored());
    press(&mut m, "2/b");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let border = gate_bottom_border(&screen(&m, SMALL));
    assert!(border.contains("worst 1st"), "{border}");
    assert!(border.contains("'b' 6/6"), "{border}");
    snap("gate_order_filtered", &m);
}

/// Every `FLOP` on screen is a whole `FLOP/s` (or the metric's name, `TFLOPS`): no unit is
/// cut.
fn assert_units_whole(text: &str, size: (u16, u16)) {
    for line in text.lines() {
        for (i, _) in line.match_indices("FLOP") {
            assert!(
                line[i..].starts_with("FLOP/s") || line[i..].starts_with("FLOPS"),
                "unit cut at {size:?}: {line}\n{text}"
            );
        }
        assert!(!line.contains("FLO…") && !line.contains("FL…"), "{line}");
    }
}

#[test]
fn chart_labels_never_cut_their_unit() {
    for state in [
        fixtures::several_rounds(),
        fixtures::synthetic_gate(200),
        fixtures::baseline_only(),
    ] {
        let m = model(state, Theme::colored());
        for width in (40..=160).step_by(2) {
            for height in [12, 15, 18, 24, 30, 48] {
                assert_units_whole(&screen(&m, (width, height)), (width, height));
            }
        }
    }
    // At 60 columns the axis keeps the numbers and names the unit once.
    let m = model(fixtures::several_rounds(), Theme::colored());
    let text = screen(&m, (60, 20));
    assert!(text.contains("GFLOP/s│"), "{text}");
    insta::assert_snapshot!("several_rounds_60x20", text);
}

#[test]
fn while_a_run_goes_on_the_bar_offers_esc_and_no_refused_key() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "V");
    for size in [SMALL, BIG, (60, 15)] {
        let text = screen(&m, size);
        // TestBackend quotes every line.
        let bar = text.lines().last().unwrap().trim_matches('"');
        assert!(bar.starts_with(" Esc cancel run"), "{size:?}: {bar}");
        for refused in ["validate", "full", "accept", "rollback", "new round"] {
            assert!(!bar.contains(refused), "{size:?}: {refused} offered: {bar}");
        }
        assert!(bar.contains("? help"), "{bar}");
    }
    // No open round: nothing to validate, accept or roll back; n is what there is to do.
    let m = model(fixtures::baseline_only(), Theme::colored());
    let bar = screen(&m, BIG).lines().last().unwrap().to_owned();
    assert!(bar.contains("n new round r2"), "{bar}");
    for refused in ["validate", "accept", "rollback", "Esc", "reasons"] {
        assert!(!bar.contains(refused), "{refused} offered: {bar}");
    }
    // A run started elsewhere: no Esc to offer, and no key that writes.
    let m = model(fixtures::running(), Theme::colored());
    let bar = screen(&m, BIG).lines().last().unwrap().to_owned();
    for refused in ["Esc", "validate", "accept", "rollback", "new round"] {
        assert!(!bar.contains(refused), "{refused} offered: {bar}");
    }
}

#[test]
fn the_live_panel_marks_the_lines_it_leaves_out() {
    let m = model(fixtures::running(), Theme::colored());
    let text = screen(&m, SMALL);
    assert!(
        text.contains("≈59 min 30 s left"),
        "the time left stays: {text}"
    );
    assert!(text.contains("+2 lines (taller terminal)"), "{text}");
    let text = screen(&m, BIG);
    assert!(!text.contains("taller terminal"), "all of it fits: {text}");
    let text = screen(&m, (60, 20));
    assert!(text.contains("more "), "{text}");
}

#[test]
fn an_unmeasured_round_says_what_it_waits_for() {
    let mut m = model(fixtures::unmeasured_round(), Theme::colored());
    // It opens on the BASELINE's gate; the open round is selected by hand.
    assert!(screen(&m, BIG).contains("2 Gate round 1"));
    press(&mut m, "G");
    assert!(screen(&m, BIG).contains("press v to validate"));
    press(&mut m, "V");
    let text = screen(&m, BIG);
    assert!(!text.contains("press v"), "V is running: {text}");
    assert!(text.contains("Esc cancels it"), "{text}");
    snap("unmeasured_running", &m);
    let m = model(fixtures::rolled_back_unmeasured(), Theme::colored());
    let text = screen(&m, BIG);
    assert!(!text.contains("press v"), "{text}");
    assert!(text.contains("nothing to validate; n"), "{text}");
    assert!(text.contains("opens round 3"), "{text}");
    // The rounds and the gate keep the room on a small terminal: the whole note is read.
    let small = screen(&m, (60, 15));
    assert!(small.contains("n opens round 3"), "{small}");
    snap("rolled_back_unmeasured", &m);
}

#[test]
fn a_small_change_keeps_its_percent_sign_in_the_rounds_panel() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    // Three significant digits of a change under 0.1% take 8 columns: `+0.0814%`.
    m.rounds[2].delta = Some(0.000814);
    for size in [SMALL, BIG] {
        let text = screen(&m, size);
        assert!(text.contains("+0.0814%"), "{text}");
    }
}

/// The dashboard states a round's verdict, failures and Δ as `kcamp log`, report.md and its
/// iteration record do: a round that fails a shape its quick validation only checked shows
/// FAIL, never the Δ of the shapes it timed. The campaign is made by the real binary, with a
/// harness that checks the shapes it does not time.
#[test]
fn a_round_that_fails_an_untimed_shape_shows_fail_as_the_log_does() {
    let tmp = tempfile::tempdir().unwrap();
    let nums = tmp.path().join("numbers");
    std::fs::create_dir_all(&nums).unwrap();
    for name in ["baseline.csv", "better.csv"] {
        std::fs::copy(
            common::fixture(&format!("campaign/{name}")),
            nums.join(name),
        )
        .unwrap();
    }
    let dir = common::harness_campaign(tmp.path(), &nums);
    common::run(&dir, &["baseline"], 0);
    common::run(
        &dir,
        &["round", "new", "--hypothesis", "faster but wrong"],
        0,
    );
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    std::fs::write(dir.join("kernel/wrong"), "").unwrap();
    let v = common::run(&dir, &["validate"], 1);
    let bad = v["failures"][0]["label"].as_str().unwrap().to_owned();
    common::run(
        &dir,
        &["rollback", "--reason", "wrong on an untimed shape"],
        0,
    );
    let state = CampaignState::load(&dir).unwrap();
    let m = model(state, Theme::plain());
    let text = screen(&m, BIG);
    let row = text
        .lines()
        .find(|l| l.contains("ROLLED_BACK"))
        .unwrap_or_else(|| panic!("no round line:\n{text}"));
    assert!(
        row.contains("REJECT") && row.contains("FAIL 1") && !row.contains("+12"),
        "{row}\n{text}"
    );
    // The selected round's gate lists the untimed shape; its record says FAIL.
    assert!(
        text.lines()
            .any(|l| l.contains(&bad) && l.contains("failed")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("correctness") && l.contains("FAIL")),
        "{text}"
    );
}

fn key(m: &mut Model, code: KeyCode) {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The reasons in the gate's head: what decided the verdict before the note on how the run
/// was paired, which the fixture's report lists first.
#[test]
fn the_why_comes_before_the_method_notes() {
    let mut m = model(fixtures::paired_candidate(), Theme::colored());
    press(&mut m, "2");
    for size in [MID, BIG] {
        let text = screen(&m, size);
        let at = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{needle} at {size:?}:\n{text}"))
        };
        assert!(
            at("• sq1024 FAIL") < at("do not PASS in the candidate"),
            "{text}"
        );
        assert!(
            at("do not PASS in the candidate") < at("• aggregate"),
            "{text}"
        );
        assert!(at("• aggregate") < at("• paired:"), "{text}");
    }
    snap("why_first", &m);
}

#[test]
fn cut_labels_never_look_alike_and_columns_follow_the_content() {
    let mut m = model(fixtures::colliding_labels(), Theme::colored());
    press(&mut m, "2");
    for size in [SMALL, MID, BIG] {
        let text = screen(&m, size);
        let labels: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("PASS") || l.contains("FAIL"))
            .filter_map(|l| l.split('│').nth(3))
            .filter_map(|cell| cell.split_whitespace().next())
            .filter(|label| label.starts_with('b'))
            .collect();
        assert!(labels.len() >= 3, "{size:?}\n{text}");
        let mut unique = labels.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            labels.len(),
            "alike at {size:?}: {labels:?}\n{text}"
        );
    }
    snap("colliding_labels", &m);
}

#[test]
fn the_rounds_say_quick_or_full_and_what_a_delta_is_against() {
    let m = model(fixtures::several_rounds(), Theme::colored());
    let text = screen(&m, MID);
    let row = text
        .lines()
        .find(|l| l.contains("ACC") && l.contains("r1"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("full") || row.contains("quick"), "{row}");
    // 2,002 rounds: the round numbers are whole.
    let mut many = model(fixtures::synthetic(3, 2002), Theme::colored());
    let text = screen(&many, SMALL);
    assert!(text.contains("2001"), "{text}");
    press(&mut many, "g");
    for _ in 0..1980 {
        press(&mut many, "j");
    }
    let text = screen(&many, SMALL);
    assert!(text.contains(" 1980 ") || text.contains("1981"), "{text}");
    snap("several_rounds_columns", &m);
}

#[test]
fn a_terminal_too_small_says_so_and_panels_give_way_in_order() {
    let m = model(fixtures::several_rounds(), Theme::colored());
    let text = screen(&m, (50, 10));
    assert!(
        text.contains("terminal too small (need 60×12, have 50×10)"),
        "{text}"
    );
    insta::assert_snapshot!("too_small_50x10", text);
    // 100×20: the rounds and the gate keep the room; the log and details go first.
    let text = screen(&m, (100, 20));
    assert!(
        text.contains("1 Rounds") && text.contains("2 Gate"),
        "{text}"
    );
    assert!(text.contains("3 Metric"), "{text}");
    assert!(!text.contains("6 Log"), "{text}");
    for label in ["sq1024", "sq128", "sq64", "sq256"] {
        assert!(
            text.contains(label),
            "the gate shows its rows: {label}\n{text}"
        );
    }
    insta::assert_snapshot!("small_100x20", text);
    // Below the chart's height, the rounds and gate alone.
    let text = screen(&m, (80, 14));
    assert!(
        text.contains("1 Rounds") && text.contains("2 Gate"),
        "{text}"
    );
    assert!(!text.contains("3 Metric"), "{text}");
}

fn diff_answer(m: &mut Model) {
    use kcamp_core::campaign::diff::KernelSide;
    use kcamp_tui::commands::{Answer, DiffWhy, Query};
    let doc = serde_json::json!({
        "from": {"kind": "round", "round": 2},
        "to": {"kind": "round", "round": 3},
        "files": [{
            "path": "gemm.wgsl", "status": "modified", "added": 2, "removed": 1, "binary": false,
            "diff": "--- r2/gemm.wgsl\n+++ r3/gemm.wgsl\n@@ -1,3 +1,4 @@\n const TILE: u32 = 64u;\n-var<workgroup> a: array<f32, 4096>;\n+var<workgroup> a: array<f32, 8192>;\n+var<workgroup> b: array<f32, 8192>;\n fn main() {}\n"
        }]
    });
    update(
        m,
        Msg::Answered {
            query: Query::Diff {
                from: KernelSide::Round(2),
                to: KernelSide::Round(3),
                why: DiffWhy::Show,
            },
            answer: Answer::Json(doc),
        },
    );
}

#[test]
fn d_asks_for_the_diff_and_shows_it_coloured_and_searchable() {
    use kcamp_tui::app::Effect;
    use kcamp_tui::commands::Query;
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "k");
    let effects = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE)),
    );
    assert!(
        matches!(&effects[..], [Effect::Ask(Query::Diff { .. })]),
        "{effects:?}"
    );
    diff_answer(&mut m);
    let t = terminal(&m, MID);
    let text = t.backend().to_string();
    assert!(
        text.contains("Diff 1 file changed, +2 −1 (r2 → r3)"),
        "{text}"
    );
    // Added lines green, removed red.
    let buffer = t.backend().buffer();
    let colour_of = |needle: &str| {
        let y = text.lines().position(|l| l.contains(needle)).unwrap();
        let x = text
            .lines()
            .nth(y)
            .unwrap()
            .chars()
            .position(|c| c == '+' || c == '-')
            .unwrap();
        buffer[(x as u16, y as u16)].fg
    };
    assert_eq!(colour_of("+var<workgroup> b"), Color::Green);
    assert_eq!(colour_of("-var<workgroup> a"), Color::Red);
    press(&mut m, "/8192");
    key(&mut m, KeyCode::Enter);
    let text = screen(&m, MID);
    assert!(
        text.contains("search: 8192") && text.contains("1/2"),
        "{text}"
    );
    snap("diff", &m);
    // The BASELINE has nothing to be compared with: d is refused, with why.
    press(&mut m, "q");
    for _ in 0..3 {
        press(&mut m, "k");
    }
    assert!(
        update(
            &mut m,
            Msg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE))
        )
        .is_empty()
    );
    assert!(screen(&m, MID).contains("is the BASELINE"));
}

#[test]
fn enter_on_a_gate_row_opens_the_shape() {
    use kcamp_tui::app::Effect;
    use kcamp_tui::commands::{Answer, Query};
    use kcamp_tui::popups::shape::ShapeSamples;
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    press(&mut m, "2j");
    let effects = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let samples = effects.iter().find_map(|e| match e {
        Effect::Ask(q @ Query::Samples { .. }) => Some(q.clone()),
        _ => None,
    });
    let analyze = effects.iter().find_map(|e| match e {
        Effect::Ask(q @ Query::Analyze { .. }) => Some(q.clone()),
        _ => None,
    });
    let (Some(samples), Some(analyze)) = (samples, analyze) else {
        panic!("{effects:?}")
    };
    let label = match &samples {
        Query::Samples { label, .. } => label.clone(),
        _ => unreachable!(),
    };
    let text = screen(&m, MID);
    assert!(
        text.contains(&format!("Shape {label} of round 4")),
        "{text}"
    );
    assert!(text.contains("reading…"), "{text}");
    update(
        &mut m,
        Msg::Answered {
            query: samples,
            answer: Answer::Samples(ShapeSamples {
                incumbent: vec![0.050, 0.051, 0.052, 0.050, 0.049],
                candidate: vec![0.040, 0.041, 0.043, 0.040, 0.039],
                incumbent_source: "measured in the same run, interleaved".into(),
            }),
        },
    );
    let roofline = serde_json::json!({"profile_evidence": {"shapes": [{
        "label": label, "dims": [1, 128, 128, 128], "check": "PASS", "time_ms": 0.5,
        "flops": 4.2e6, "bytes": 196608.0, "intensity": 21.3, "flop_rate": 8.4e9,
        "byte_rate": 3.9e8, "compute_pct": 0.37, "bandwidth_pct": 0.1, "bound": "compute",
        "roof_flop_rate": 2.2e12, "headroom": 267.0
    }]}});
    update(
        &mut m,
        Msg::Answered {
            query: analyze,
            answer: Answer::Json(roofline),
        },
    );
    let text = screen(&m, MID);
    assert!(text.contains("5 samples, median"), "{text}");
    assert!(text.contains("compute-bound at 21.3 FLOP/B"), "{text}");
    assert!(text.contains("headroom ×267"), "{text}");
    assert!(text.contains("history"), "{text}");
    snap("shape", &m);
}

#[test]
fn search_in_every_list_and_esc_clears_it() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    // Rounds by hypothesis.
    press(&mut m, "1/");
    let hypothesis = m.rounds[1].hypothesis.clone();
    let word = hypothesis.split_whitespace().next().unwrap().to_owned();
    press(&mut m, &word);
    key(&mut m, KeyCode::Enter);
    let text = screen(&m, MID);
    assert!(text.contains(&format!("'{word}'")), "{text}");
    snap("rounds_search", &m);
    key(&mut m, KeyCode::Esc);
    assert!(m.rounds_filter.is_empty());
    // A search of the gate that matches nothing says so, and Esc clears it.
    press(&mut m, "2/zzz");
    key(&mut m, KeyCode::Enter);
    let text = screen(&m, MID);
    assert!(
        text.contains("no shape's label contains 'zzz' (Esc clears the search)"),
        "{text}"
    );
    key(&mut m, KeyCode::Esc);
    assert!(m.gate.filter.is_empty());
    // The log, wrapped, searched.
    press(&mut m, "L/round");
    let text = screen(&m, MID);
    assert!(
        text.contains("Log: ") && text.contains("search: round"),
        "{text}"
    );
    snap("log_viewer", &m);
    // Text fields: the cursor moves and C-w deletes a word.
    key(&mut m, KeyCode::Esc);
    key(&mut m, KeyCode::Esc);
    press(&mut m, "2/ab cd");
    key(&mut m, KeyCode::Left);
    key(&mut m, KeyCode::Left);
    press(&mut m, "x");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL)),
    );
    assert_eq!(
        m.gate.filter, "ab cd",
        "C-w deleted `x` before the cursor: {}",
        m.gate.filter
    );
}

#[test]
fn a_click_selects_and_the_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    m.size = MID;
    let text = screen(&m, MID);
    let y = text.lines().position(|l| l.contains("│ 3 ")).unwrap() as u16;
    let click = |kind, column, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut m, click(MouseEventKind::Down(MouseButton::Left), 3, y));
    assert_eq!(m.rounds[m.selected].number, 3);
    assert_eq!(m.gate.view.round, Some(3));
    // The gate: a click on its third row puts the cursor there and focuses it.
    let text = screen(&m, MID);
    let header = text
        .lines()
        .position(|l| l.contains("label") && l.contains("Check"))
        .unwrap();
    let x = text.lines().nth(header).unwrap().find("label").unwrap() as u16;
    update(
        &mut m,
        click(
            MouseEventKind::Down(MouseButton::Left),
            x,
            header as u16 + 3,
        ),
    );
    assert_eq!(m.focus, kcamp_tui::keys::Panel::Gate);
    assert_eq!(m.gate.cursor, 2);
    update(
        &mut m,
        click(MouseEventKind::ScrollUp, x, header as u16 + 3),
    );
    assert_eq!(m.gate.cursor, 0, "the wheel moves the gate's cursor");
    // Over the rounds list, one turn of the wheel moves one round: from 3, up to 2, not 1.
    update(&mut m, click(MouseEventKind::ScrollUp, 3, y));
    assert_eq!(m.rounds[m.selected].number, 2, "one wheel step, one round");
    update(&mut m, click(MouseEventKind::ScrollDown, 3, y));
    assert_eq!(m.rounds[m.selected].number, 3);
}

#[test]
fn y_copies_the_selected_item() {
    use kcamp_tui::app::Effect;
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    let effects = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)),
    );
    let hypothesis = m.state.as_ref().unwrap().rounds[3]
        .hypothesis
        .trim()
        .to_owned();
    assert_eq!(effects, [Effect::Copy(hypothesis)]);
    assert!(screen(&m, MID).contains("copied: "));
}

#[test]
fn chart_marks_differ_without_colour_and_disagreeing_means_are_marked() {
    let m = model(fixtures::several_rounds(), Theme::plain());
    let text = screen(&m, BIG);
    for mark in ["● accepted", "■ rolled back", "○□◇ quick"] {
        assert!(text.replace('\u{a0}', " ").contains(mark), "{mark}\n{text}");
    }
    let mut m = model(fixtures::disagreeing_means(), Theme::colored());
    press(&mut m, "2");
    let text = screen(&m, MID);
    assert!(text.contains("+6.00%≠"), "{text}");
    assert!(
        text.contains("the paired Δ and the ratio of the means disagree"),
        "{text}"
    );
    snap("disagreeing_means", &m);
}

#[test]
fn an_imported_campaign_asks_for_the_csv() {
    let mut m = model(fixtures::imported(), Theme::colored());
    press(&mut m, "v");
    let text = screen(&m, MID);
    assert!(
        text.contains("Quick validation of round 4: its CSV"),
        "{text}"
    );
    assert!(text.contains("CSV path: "), "{text}");
    assert!(text.contains("imported CSVs"), "{text}");
    snap("imported_csv", &m);
}

#[test]
fn a_working_kernel_already_tried_is_named_where_the_open_round_is_decided() {
    let loaded = |state| {
        let mut m = Model::new(Theme::colored(), clock);
        let loaded = kcamp_tui::loading::Loaded {
            state,
            working_key: Some(fixtures::TRIED_KEY.into()),
        };
        update(&mut m, Msg::StateLoaded(Ok(Box::new(loaded))));
        m
    };
    // Measured: the gate's head says it under the verdict, the details after the decision,
    // the toast once.
    let m = loaded(fixtures::tried_kernel());
    for size in [SMALL, MID, BIG] {
        let text = screen(&m, size);
        assert!(
            text.contains("kernel/ was tried in round 3"),
            "{size:?}\n{text}"
        );
    }
    let text = screen(&m, BIG);
    assert!(text.contains("tried        in round 3: REJECT"), "{text}");
    assert!(text.contains("vec4 loads are unaligned at 64"), "{text}");
    snap("tried_kernel", &m);
    // Not measured yet: under the note that `v` measures it, the gate says that this
    // kernel was given up once.
    let mut m = loaded(fixtures::tried_kernel_unmeasured());
    press(&mut m, "G");
    for size in [SMALL, MID, BIG] {
        let text = screen(&m, size);
        assert!(
            text.contains("round 4 is not measured yet"),
            "{size:?}\n{text}"
        );
        assert!(
            text.contains("kernel/ was tried in round 3"),
            "{size:?}\n{text}"
        );
    }
    snap("tried_kernel_unmeasured", &m);
}

#[test]
fn an_unreadable_round_stays_listed_marked_and_the_incumbent_is_not_replaced() {
    // Round 2 (the incumbent) with its decision cut short, and a torn last journal line:
    // read from disk as the dashboard reads them.
    let dir = tempfile::tempdir().unwrap();
    let state = fixtures::several_rounds();
    assert_eq!(state.incumbent, Some(2));
    fixtures::write_campaign(&state, dir.path()).unwrap();
    let decision = dir.path().join("rounds/round-2/decision.json");
    let text = std::fs::read_to_string(&decision).unwrap();
    std::fs::write(&decision, &text[..text.len() / 2]).unwrap();
    let journal = dir.path().join("journal.jsonl");
    let mut lines = std::fs::read_to_string(&journal).unwrap();
    lines.push_str("{\"event\":\"accept\",\"rou");
    std::fs::write(&journal, lines).unwrap();
    let loaded = kcamp_tui::loading::read_all(dir.path(), CampaignState::load).unwrap();
    let mut m = Model::new(Theme::colored(), clock);
    update(&mut m, Msg::StateLoaded(Ok(Box::new(loaded))));
    for size in [SMALL, MID, BIG] {
        let text = screen(&m, size);
        let header = text.lines().next().unwrap();
        assert!(
            header.contains("⚠ 2 unreadable records"),
            "{size:?}\n{text}"
        );
        let row = text
            .lines()
            .find(|l| l.contains(" r2 ⚠ decision.json:"))
            .unwrap_or_else(|| panic!("round 2 is listed, marked, at {size:?}:\n{text}"));
        assert!(
            row.contains("unreadable") || size == SMALL,
            "{size:?}: {row}"
        );
        assert!(text.contains("4 rounds · 1 ⚠"), "{size:?}\n{text}");
        if size != SMALL {
            // At 80 columns the header keeps the warning and cuts what follows.
            assert!(header.contains("incumbent r1? (r2 unreadable)"), "{header}");
        }
        assert!(
            !header.contains("incumbent r1 "),
            "never silently r1: {header}"
        );
    }
    let log: Vec<&str> = m.log.iter().map(|l| l.text.as_str()).collect();
    assert!(
        log.iter()
            .any(|l| l.starts_with("read around: rounds/round-2/decision.json:")),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l.contains("journal.jsonl: torn last line (22 bytes, no newline)")),
        "{log:?}"
    );
    // Repaired: the row is the round again, and the warning goes.
    std::fs::write(&decision, &text).unwrap();
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    let whole = &journal_text[..journal_text.rfind('\n').unwrap() + 1];
    std::fs::write(&journal, whole).unwrap();
    let mut scope = kcamp_tui::loading::LoadScope::default();
    scope.rounds.insert(2);
    scope.journal = true;
    let patch =
        kcamp_tui::loading::read_patch(dir.path(), &scope, state.frozen_header.as_deref()).unwrap();
    update(&mut m, Msg::PatchLoaded(Ok(Box::new(patch))));
    let text = screen(&m, MID);
    assert!(!text.contains('⚠'), "{text}");
    assert!(
        text.lines().next().unwrap().contains("incumbent r2"),
        "{text}"
    );
}

#[test]
fn the_key_bar_shows_the_round_actions_first_and_expands_on_dot() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    for size in [SMALL, MID] {
        let text = screen(&m, size);
        let bar = text.lines().last().unwrap();
        for action in [
            "v validate r4",
            "V full r4",
            "a force-accept r4",
            "r rollback r4",
        ] {
            assert!(bar.contains(action), "{size:?}: {bar}");
        }
        assert!(bar.contains(". more"), "{size:?}: {bar}");
        assert!(bar.contains("? help"), "{size:?}: {bar}");
    }
    let acceptable = model(fixtures::acceptable_candidate(), Theme::colored());
    let text = screen(&acceptable, BIG);
    assert!(
        text.lines().last().unwrap().contains("a accept r"),
        "{text}"
    );
    press(&mut m, ".");
    let text = screen(&m, SMALL);
    let rows: Vec<&str> = text.lines().rev().take(3).collect();
    let bar = rows.join("\n");
    assert!(
        bar.contains("j/↓ down") && bar.contains("/ search"),
        "{bar}"
    );
    assert!(bar.contains(". fewer"), "{bar}");
    press(&mut m, ".");
    assert!(screen(&m, SMALL).lines().last().unwrap().contains(". more"));
}

#[test]
fn the_header_keeps_the_lock_holder_at_80_columns() {
    let m = model(fixtures::running(), Theme::colored());
    let text = screen(&m, SMALL);
    let header = text.lines().next().unwrap();
    assert!(header.contains("locked by pid 5151"), "{header}");
}

#[test]
fn a_read_error_goes_as_soon_as_the_campaign_reads_again() {
    let mut m = model(fixtures::several_rounds(), Theme::colored());
    let error = "manifest.yaml: mapping values are not allowed here at line 3 column 9";
    for _ in 0..=kcamp_tui::app::RELOAD_RETRIES {
        update(&mut m, Msg::StateLoaded(Err(error.into())));
        update(&mut m, Msg::Tick);
    }
    // The rows under the panels: the status rows and the key bar.
    let status = |m: &Model, size: (u16, u16)| {
        let text = screen(m, size);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len() - 3..].join("\n")
    };
    for size in [SMALL, MID, BIG] {
        assert!(
            status(&m, size).contains("cannot read the campaign"),
            "{size:?}"
        );
    }
    update(
        &mut m,
        Msg::StateLoaded(Ok(Box::new(fixtures::several_rounds().into()))),
    );
    for size in [SMALL, MID, BIG] {
        let rows = status(&m, size);
        assert!(!rows.contains("cannot read"), "{size:?}:\n{rows}");
    }
}

#[test]
fn joined_and_accented_text_stays_whole_and_control_characters_show() {
    // `e` + a combining acute, a family emoji joined by U+200D, a TAB; and a second line.
    let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
    let mut state = fixtures::several_rounds();
    state.rounds[3].hypothesis = format!("cafe\u{301} {family} tab\there\nsecond line");
    let m = model(state, Theme::colored());
    for size in [SMALL, MID, BIG] {
        let t = terminal(&m, size);
        let buffer = t.backend().buffer();
        let cells: Vec<&str> = buffer.content().iter().map(|c| c.symbol()).collect();
        assert!(
            cells.contains(&"e\u{301}"),
            "{size:?}: the accent on its letter"
        );
        assert!(cells.contains(&family), "{size:?}: the family in one cell");
        let text = t.backend().to_string();
        assert!(text.contains("tab␉here"), "{size:?}:\n{text}");
        assert!(!text.contains("tabhere"), "{size:?}");
        // The details list each line of the hypothesis, the second under the first.
        assert!(text.contains("second line"), "{size:?}:\n{text}");
        assert!(!text.contains("heresecond"), "{size:?}");
    }
}
