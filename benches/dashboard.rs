//! Frame time of the dashboard on its worst case: 1,000 shapes × 200 rounds, drawn into a
//! 200×60 TestBackend. The target is under 10 ms a frame; the reload (which precomputes
//! what the view needs) is measured apart.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcamp_tui::app::{Model, Msg, update};
use kcamp_tui::fixtures;
use kcamp_tui::style::Theme;
use kcamp_tui::view::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn dashboard(c: &mut Criterion) {
    let state = fixtures::synthetic(1000, 200);
    let mut model = Model::new(Theme::colored(), || fixtures::at(0));
    update(&mut model, Msg::StateLoaded(Ok(Box::new(state.clone()))));
    assert_eq!(model.gate.lines.len(), 1000);
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
                Msg::StateLoaded(Ok(Box::new(black_box(state.clone())))),
            );
            m
        });
    });
}

criterion_group!(benches, dashboard);
criterion_main!(benches);
