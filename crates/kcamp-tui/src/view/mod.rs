//! Drawing: `view(&Model, &mut Frame)` lays out the six panels, the header, the key bar and
//! the open popup. It reads the model and changes nothing.

mod chart;
mod details;
mod gate;
mod live;
mod log;
mod rounds;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::Model;
use crate::derive::Tone;
use crate::keys::{self, Context, Panel};
use crate::popups::Popup;
use crate::style::Theme;

/// From this size on, panels sit side by side in three columns.
const WIDE_MIN_WIDTH: u16 = 140;
const WIDE_MIN_HEIGHT: u16 = 36;

pub fn view(model: &Model, frame: &mut Frame) {
    let area = frame.area();
    let [header, body, bar] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(model, frame, header);
    let areas = panel_areas(body);
    rounds::draw(model, frame, areas[0]);
    gate::draw(model, frame, areas[1]);
    chart::draw(model, frame, areas[2]);
    live::draw(model, frame, areas[3]);
    details::draw(model, frame, areas[4]);
    log::draw(model, frame, areas[5]);
    frame.render_widget(
        Paragraph::new(Line::from(key_hints(model.context(), model.theme))),
        bar,
    );
    match &model.popup {
        Some(Popup::Help(p)) => p.draw(frame, body, model.theme),
        Some(Popup::Confirm(p)) => p.draw(frame, body, model.theme),
        Some(Popup::Input(p)) => p.draw(frame, body, model.theme),
        None => {}
    }
}

/// Areas of the panels in `Panel::ALL` order.
fn panel_areas(body: Rect) -> [Rect; 6] {
    if body.width >= WIDE_MIN_WIDTH && body.height + 2 >= WIDE_MIN_HEIGHT {
        let log_height = (body.height / 5).clamp(6, 14);
        let [main, log] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(log_height)]).areas(body);
        let [left, middle, right] = Layout::horizontal([
            Constraint::Percentage(34),
            Constraint::Percentage(42),
            Constraint::Percentage(24),
        ])
        .areas(main);
        let [rounds, details] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(left);
        let [chart, live] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(8)]).areas(right);
        [rounds, middle, chart, live, details, log]
    } else {
        let [top, mid, bottom] = Layout::vertical([
            Constraint::Percentage(45),
            Constraint::Percentage(25),
            Constraint::Percentage(30),
        ])
        .areas(body);
        let [rounds, gate] =
            Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(top);
        let [chart, live] =
            Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(mid);
        let [details, log] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(bottom);
        [rounds, gate, chart, live, details, log]
    }
}

/// The bordered block of a panel: `N Title`, highlighted when focused.
fn panel_block<'a>(model: &Model, panel: Panel, extra: &str) -> Block<'a> {
    let theme = model.theme;
    let focused = model.popup.is_none() && model.focus == panel;
    let mut title = vec![
        Span::styled(format!(" {} ", panel.number()), theme.key()),
        Span::styled(format!("{} ", panel.title()), theme.title()),
    ];
    if !extra.is_empty() {
        title.push(Span::styled(format!("{extra} "), theme.dim()));
    }
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(Line::from(title))
}

fn draw_header(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let mut spans = vec![Span::styled(" kcamp ", theme.title())];
    match &model.state {
        Some(state) => {
            let m = &state.manifest;
            spans.push(Span::raw(format!(
                "{} · {} {} · {}",
                m.name,
                m.op.as_str(),
                m.dtype.as_str(),
                m.primary_metric
            )));
            if let Some(inc) = model.rounds.iter().find(|r| r.incumbent) {
                spans.push(Span::styled(
                    format!(" · incumbent r{} {}", inc.number, fmt_metric(inc.aggregate)),
                    theme.incumbent(),
                ));
            }
            if let Some(open) = state.open_round {
                spans.push(Span::styled(format!(" · open r{open}"), theme.warning()));
            }
            if let Some(holder) = &state.lock_holder {
                spans.push(Span::styled(
                    format!(" · locked by {holder}"),
                    theme.warning(),
                ));
            }
        }
        None => spans.push(Span::styled("loading…", theme.dim())),
    }
    if let Some(err) = &model.load_error {
        spans.push(Span::styled(
            format!(" · cannot read: {err}"),
            theme.error(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `key description` pairs of every binding valid in `context`, from the key table.
pub fn key_hints(context: Context, theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for b in keys::bindings_for(context) {
        spans.push(Span::styled(format!(" {}", b.key_names()), theme.key()));
        spans.push(Span::styled(format!(" {} ", b.short), theme.dim()));
    }
    spans
}

pub fn tone_style(theme: Theme, tone: Tone) -> ratatui::style::Style {
    match tone {
        Tone::Normal => theme.text(),
        Tone::Good => theme.good(),
        Tone::Warn => theme.warning(),
        Tone::Bad => theme.error(),
        Tone::Dim => theme.dim(),
    }
}

/// A metric value with about four significant digits.
pub fn fmt_metric(value: Option<f64>) -> String {
    match value {
        None => "—".into(),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 10.0 => format!("{v:.2}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.3}"),
        Some(v) => format!("{v:.4}"),
    }
}

pub fn fmt_pct(value: Option<f64>) -> String {
    value.map_or("—".into(), |d| format!("{:+.1}%", d * 100.0))
}

/// The window of `len` items of `height` rows that keeps `cursor` visible (cursor at the
/// bottom once it passes the first screen).
fn window(len: usize, height: usize, cursor: usize) -> std::ops::Range<usize> {
    let start = (cursor + 1).saturating_sub(height.max(1));
    start..(start + height).min(len)
}
