//! The dashboard's costs on its worst case, 1,000 shapes × 200 rounds: a frame drawn into a
//! 200×60 TestBackend (target under 10 ms), a full reload of the model (precomputing what
//! the view needs), applying a re-read round (what a file change costs), and a tick of an
//! idle dashboard (what it costs to leave it open: nothing to load, nothing to draw).
//! Reading the campaign from disk is measured by `scripts/idle-cost.sh` on a real process.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcamp_tui::app::{Model, Msg, update};
use kcamp_tui::fixtures;
use kcamp_tui::loading::StatePatch;
use kcamp_tui::style::Theme;
use kcamp_tui::view::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn dashboard(c: &mut Criterion) {
    let state = fixtures::synthetic(1000, 200);
    let mut model = Model::new(Theme::colored(), || fixtures::at(0));
    update(
        &mut model,
        Msg::StateLoaded(Ok(Box::new(state.clone().into()))),
    );
    assert_eq!(model.gate.view.lines.len(), 1000);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("test backend");

    c.bench_function("frame 200x60, 1000 shapes x 200 rounds", |b| {
        b.iter(|| {
            terminal
                .draw(|frame| view(black_box(&model), frame))
                .expect("draw");
        });
    });

    c.bench_function("reload 1000 shapes x 200 rounds", |b| {
        b.iter(|| {
            let mut m = Model::new(Theme::colored(), || fixtures::at(0));
            update(
                &mut m,
                Msg::StateLoaded(Ok(Box::new(black_box(state.clone()).into()))),
            );
            m
        });
    });

    // The open round re-read after a validation: a changed verdict of 1,000 shapes. Two
    // versions in turn, so every iteration is a change.
    let original = state.rounds.last().cloned().expect("an open round");
    let mut changed = original.clone();
    if let Some(gate) = changed.gate.as_mut() {
        gate.reasons.push("re-measured".into());
    }
    let versions = [original, changed];
    let number = versions[0].number;
    let mut turn = 0;
    c.bench_function("patch one round of 1000 shapes x 200 rounds", |b| {
        b.iter(|| {
            turn ^= 1;
            let patch = StatePatch {
                rounds: vec![(number, Some(black_box(versions[turn].clone())))],
                ..StatePatch::default()
            };
            update(&mut model, Msg::PatchLoaded(Ok(Box::new(patch))));
            assert!(model.take_redraw());
        });
    });

    c.bench_function("idle tick 1000 shapes x 200 rounds", |b| {
        b.iter(|| {
            let effects = update(&mut model, black_box(Msg::Tick));
            assert!(effects.is_empty());
            assert!(!model.take_redraw());
        });
    });
}

criterion_group!(benches, dashboard);
criterion_main!(benches);
