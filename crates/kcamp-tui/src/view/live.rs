//! Panel 4: the run in progress (ours or another process's), or "idle": what runs, how
//! far it is (shape i of n), the current shape, the elapsed time and an estimate of the
//! time left.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{LineGauge, Paragraph};

use super::text::fit_end;
use super::{fmt_metric, panel_block};
use crate::app::Model;
use crate::derive;
use crate::keys::Panel;
use kcamp_core::types::Validation;
use kcamp_core::units;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    // While a run of ours goes on, the panel says how to stop it.
    let cancellable = model
        .running
        .as_ref()
        .is_some_and(|r| !r.cancelling && r.command.is_cancellable());
    let extra = if cancellable {
        vec![Span::styled("Esc cancels ", theme.key())]
    } else {
        Vec::new()
    };
    let mut block = panel_block(model, Panel::Live, extra, area);
    let inner = block.inner(area);
    let width = inner.width as usize;
    let cancelling = model.running.as_ref().is_some_and(|r| r.cancelling);
    let Some(live) = &model.live else {
        frame.render_widget(block, area);
        let text = match &model.running {
            Some(run) if run.cancelling => Line::styled(
                fit_end(
                    &format!("cancelling `kcamp {}`…", run.command.label()),
                    width,
                ),
                theme.warning(),
            ),
            Some(run) => Line::styled(
                fit_end(&format!("starting `kcamp {}`…", run.command.label()), width),
                theme.warning(),
            ),
            None => Line::styled("idle", theme.dim()),
        };
        frame.render_widget(Paragraph::new(text), inner);
        return;
    };
    let now = model.now();
    let mut head = format!(
        "{} {}",
        match live.validation {
            Validation::Quick => "quick",
            Validation::Full => "full",
        },
        live.state
    );
    if let Some(r) = live.round {
        head.push_str(&format!(" · round {r}"));
    }
    head.push_str(&format!(" · pid {}", live.pid));
    if cancelling {
        head.push_str(" · cancelling…");
    }
    let done = live.index.min(live.total);
    let shape = format!(
        "shape {} of {}: {}",
        (live.index + 1).min(live.total.max(1)),
        live.total,
        live.label
    );
    let rate = live
        .last_rate
        .filter(|r| r.is_finite())
        .map_or("—".to_owned(), |r| {
            // `rate_unit` names the unit the same way a metric column does (TFLOPS, GB/s).
            fmt_metric(Some(r), &live.rate_unit)
        });
    let elapsed = units::wall_clock(derive::elapsed(live, now));
    let eta = derive::eta(live, now).map(|s| format!("≈{} left", units::wall_clock(s)));
    // Under the head and the gauge, most useful first: the current shape, the time it
    // takes, the samples, the start.
    // A sharded run: a line per shard (where, its job's state, its shape) instead.
    let mut lines: Vec<Line> = if live.shards.is_empty() {
        vec![Line::raw(fit_end(&shape, width))]
    } else {
        live.shards
            .iter()
            .map(|s| Line::raw(fit_end(&s.describe(), width)))
            .collect()
    };
    let long = format!(
        "{elapsed} elapsed · {}",
        eta.as_deref()
            .unwrap_or("time left known after the first shape")
    );
    let short = format!("{elapsed} · {}", eta.as_deref().unwrap_or("≈? left"));
    let rows = inner.height.saturating_sub(2);
    let fits = |t: &str| super::text::width(t) <= width;
    // One line in words; else two when every line has a row, else one without the words.
    if fits(&long) {
        lines.push(Line::raw(long));
    } else if rows < 5 && fits(&short) {
        lines.push(Line::raw(short));
    } else {
        lines.push(Line::raw(fit_end(&format!("{elapsed} elapsed"), width)));
        lines.push(Line::raw(fit_end(
            eta.as_deref()
                .unwrap_or("time left known after the first shape"),
            width,
        )));
    }
    // What the worker is doing leads when it fits: a compile or a reference can take a
    // while with no sample coming. Narrow, the samples and the rate win once they come.
    let samples = format!("{} samples · last {rate}", live.samples);
    let line = match live
        .phase
        .as_deref()
        .map(|p| (p, format!("{p} · {samples}")))
    {
        Some((_, both)) if fits(&both) => both,
        Some((phase, _)) if live.samples == 0 => phase.to_owned(),
        _ => samples,
    };
    lines.push(Line::raw(fit_end(&line, width)));
    lines.push(Line::styled(
        fit_end(
            &format!("started {} UTC", live.started_at.format("%H:%M:%S")),
            width,
        ),
        theme.dim(),
    ));
    let [head_area, gauge_area, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    // Lines that do not fit are counted on the border, never dropped in silence.
    let left_out = lines.len().saturating_sub(rest.height as usize);
    if left_out > 0 {
        let s = if left_out == 1 { "" } else { "s" };
        let long = format!(" +{left_out} line{s} (taller terminal) ");
        let text = if super::text::width(&long) + 2 <= width {
            long
        } else {
            format!(" +{left_out} more ")
        };
        block = block.title_bottom(Line::styled(text, theme.key()).right_aligned());
    }
    frame.render_widget(block, area);
    frame.render_widget(
        Paragraph::new(Line::styled(fit_end(&head, width), theme.warning())),
        head_area,
    );
    // The label sits left of the bar, never on it.
    let ratio = live.ratio().unwrap_or(0.0);
    frame.render_widget(
        LineGauge::default()
            .ratio(ratio)
            .label(format!("{done}/{} {:>3.0}%", live.total, ratio * 100.0))
            .filled_style(theme.gauge())
            .unfilled_style(theme.dim()),
        gauge_area,
    );
    frame.render_widget(Paragraph::new(lines), rest);
}
