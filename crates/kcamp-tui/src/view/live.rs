//! Panel 4: the run in progress (ours or another process's), or "idle".

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Gauge, Paragraph};

use super::{fmt_metric, panel_block};
use crate::app::Model;
use crate::keys::Panel;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let block = panel_block(model, Panel::Live, "");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(live) = &model.live else {
        let text = match &model.running {
            Some(cmd) => Line::styled(
                format!("starting `kcamp {}`…", cmd.label()),
                theme.warning(),
            ),
            None => Line::styled("idle", theme.dim()),
        };
        frame.render_widget(Paragraph::new(text), inner);
        return;
    };
    let [gauge_area, text_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let position = match (live.index, live.total) {
        (Some(i), Some(n)) => format!("shape {} of {n}", (i + 1).min(n)),
        (Some(i), None) => format!("shape {}", i + 1),
        _ => "starting".to_owned(),
    };
    let ratio = live.ratio().unwrap_or(0.0);
    frame.render_widget(
        Gauge::default()
            .ratio(ratio)
            .label(format!("{position} · {:.0}%", ratio * 100.0))
            .gauge_style(theme.gauge()),
        gauge_area,
    );
    let unit = model
        .state
        .as_ref()
        .and_then(|s| {
            s.manifest
                .primary_metric
                .split_whitespace()
                .last()
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let samples = live.samples.map_or("—".into(), |s| s.to_string());
    let mut lines = vec![
        Line::raw(format!(
            "{}: {samples} samples",
            live.label.as_deref().unwrap_or("—")
        )),
        Line::raw(format!("rate {} {unit}", fmt_metric(live.last_rate))),
    ];
    let mut head = live.state.clone().unwrap_or_else(|| "running".into());
    if let Some(v) = &live.validation {
        head.push_str(&format!(" · {v}"));
    }
    if let Some(r) = live.round {
        head.push_str(&format!(" · round {r}"));
    }
    if let Some(pid) = live.pid {
        head.push_str(&format!(" · pid {pid}"));
    }
    lines.push(Line::styled(head, theme.warning()));
    if let Some(t) = &live.started_at {
        lines.push(Line::styled(format!("started {t}"), theme.dim()));
    }
    frame.render_widget(Paragraph::new(lines), text_area);
}
