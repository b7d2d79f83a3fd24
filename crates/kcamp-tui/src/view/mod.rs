//! Drawing: `view(&Model, &mut Frame)` lays out the six panels, the header, the toast, the
//! key bar and the open popup. It reads the model and changes nothing. Text that does not
//! fit is cut with `…` ([`text`]); numbers go through `kcamp_core::units`.

mod chart;
mod details;
mod gate;
mod live;
mod log;
mod rounds;
pub mod text;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::Model;
use crate::derive::Tone;
use crate::keys::{self, Action, Binding, Context, Panel, Target};
use crate::style::Theme;

pub use gate::GATE_DROP_ORDER;

/// From this size on, panels sit side by side in three columns.
const WIDE_MIN_WIDTH: u16 = 140;
const WIDE_MIN_HEIGHT: u16 = 36;
/// The toast never takes more than this many rows.
const TOAST_MAX_ROWS: usize = 3;

pub fn view(model: &Model, frame: &mut Frame) {
    let area = frame.area();
    let [header, body, bar] = outer(area);
    draw_header(model, frame, header);
    let areas = panel_areas(body);
    rounds::draw(model, frame, areas[0]);
    gate::draw(model, frame, areas[1]);
    chart::draw(model, frame, areas[2]);
    live::draw(model, frame, areas[3]);
    details::draw(model, frame, areas[4]);
    log::draw(model, frame, areas[5]);
    frame.render_widget(Paragraph::new(key_bar(model, bar.width as usize)), bar);
    if let Some(popup) = &model.popup {
        popup.draw(frame, body, model.theme);
    }
    draw_toast(model, frame, body);
}

fn outer(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// Where popups go on a terminal of `size`: between the header and the key bar.
pub fn body_area((width, height): (u16, u16)) -> Rect {
    outer(Rect::new(0, 0, width, height))[1]
}

/// Rows a page key moves in `panel` on a terminal of `size`.
pub fn page_rows(size: (u16, u16), panel: Panel) -> usize {
    let areas = panel_areas(body_area(size));
    let index = Panel::ALL.iter().position(|p| *p == panel).unwrap_or(0);
    // Borders, and the table header where there is one.
    let overhead = match panel {
        Panel::Rounds => 3,
        Panel::Gate => 4,
        _ => 2,
    };
    (areas[index].height.saturating_sub(overhead) as usize).max(1)
}

/// Areas of the panels in `Panel::ALL` order.
fn panel_areas(body: Rect) -> [Rect; 6] {
    if body.width >= WIDE_MIN_WIDTH && body.height + 2 >= WIDE_MIN_HEIGHT {
        let log_height = (body.height / 5).clamp(6, 14);
        let [main, log] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(log_height)]).areas(body);
        let [left, middle, right] = Layout::horizontal([
            Constraint::Percentage(30),
            Constraint::Percentage(46),
            Constraint::Percentage(24),
        ])
        .areas(main);
        let [rounds, details] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(left);
        let [chart, live] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(9)]).areas(right);
        [rounds, middle, chart, live, details, log]
    } else {
        // The gate table gets what the live run (4 lines) and the details and log leave.
        let mid = (body.height / 4).clamp(6, 12);
        let bottom = (body.height / 4).clamp(4, 14);
        let [top, mid, bottom] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(mid),
            Constraint::Length(bottom),
        ])
        .areas(body);
        // The gate table needs the width: it decides the verdict.
        let [rounds, gate] =
            Layout::horizontal([Constraint::Percentage(34), Constraint::Percentage(66)]).areas(top);
        let [chart, live] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(mid);
        let [details, log] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(bottom);
        [rounds, gate, chart, live, details, log]
    }
}

/// The bordered block of a panel: `N Title extra`, highlighted when focused; the title is
/// cut with `…` to the panel's width.
fn panel_block<'a>(
    model: &Model,
    panel: Panel,
    extra: Vec<Span<'static>>,
    area: Rect,
) -> Block<'a> {
    let theme = model.theme;
    let focused = model.popup.is_none() && model.focus == panel;
    let mut title = vec![
        Span::styled(format!(" {} ", panel.number()), theme.key()),
        Span::styled(format!("{} ", panel.title()), theme.title()),
    ];
    title.extend(extra);
    let room = area.width.saturating_sub(2) as usize;
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(text::fit_line(Line::from(title), room))
}

/// `extra` of a panel title, in the dim style, with a trailing space.
fn dim_extra(theme: Theme, text: impl Into<String>) -> Vec<Span<'static>> {
    let text = text.into();
    if text.is_empty() {
        Vec::new()
    } else {
        vec![Span::styled(format!("{text} "), theme.dim())]
    }
}

/// Parts of a panel title joined by ` · `, in the dim style.
fn dim_parts(theme: Theme, parts: &[String]) -> Vec<Span<'static>> {
    let parts: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    dim_extra(theme, parts.join(" · "))
}

fn draw_header(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let mut spans = vec![Span::styled(" kcamp ", theme.title())];
    match &model.state {
        Some(state) => {
            let m = &state.manifest;
            // What changes first, what never changes last: a narrow terminal cuts the latter.
            spans.push(Span::raw(m.name.clone()));
            if model.scratch {
                spans.push(Span::styled(" (scratch copy)", theme.warning()));
            }
            if let Some(open) = state.open_round {
                spans.push(Span::styled(format!(" · open r{open}"), theme.warning()));
            }
            if let Some(inc) = model.rounds.iter().find(|r| r.incumbent) {
                spans.push(Span::styled(
                    format!(
                        " · incumbent r{} {}",
                        inc.number,
                        fmt_metric(inc.aggregate, &m.primary_metric)
                    ),
                    theme.incumbent(),
                ));
            }
            if let Some(holder) = &state.lock_holder {
                spans.push(Span::styled(
                    format!(" · locked by {holder}"),
                    theme.warning(),
                ));
            }
            spans.push(Span::raw(format!(" · {}", m.primary_metric)));
            spans.push(Span::raw(format!(
                " · {} {}",
                m.op.as_str(),
                m.dtype.as_str()
            )));
        }
        None => spans.push(Span::styled("loading…", theme.dim())),
    }
    if let Some(err) = &model.load_error {
        spans.push(Span::styled(
            format!(" · cannot read: {err}"),
            theme.error(),
        ));
    }
    // Whole parts or none: a metric name cut in half reads as another name.
    let width = area.width as usize;
    let mut used = 0;
    let mut kept = Vec::new();
    let total = spans.len();
    for (i, span) in spans.into_iter().enumerate() {
        let room = if i + 1 == total {
            width
        } else {
            width.saturating_sub(2)
        };
        if used + span.width() > room && !kept.is_empty() {
            kept.push(Span::styled(" …", theme.dim()));
            break;
        }
        used += span.width();
        kept.push(span);
    }
    let line = text::fit_line(Line::from(kept), width);
    frame.render_widget(Paragraph::new(line), area);
}

/// The toast: the last refusal or error, in full (wrapped), over the bottom of the body.
fn draw_toast(model: &Model, frame: &mut Frame, body: Rect) {
    let Some(toast) = &model.toast else {
        return;
    };
    if body.height == 0 || body.width < 4 {
        return;
    }
    let style =
        tone_style(model.theme, toast.tone).add_modifier(ratatui::style::Modifier::REVERSED);
    let line = Line::from(vec![
        Span::raw(" » "),
        Span::raw(toast.text.clone()),
        Span::raw(" "),
    ])
    .style(style);
    let mut rows = text::wrap(&line, body.width as usize);
    let max_rows = TOAST_MAX_ROWS.min(body.height as usize);
    if rows.len() > max_rows {
        let last = rows.swap_remove(max_rows - 1);
        rows.truncate(max_rows - 1);
        let mut cut = last;
        // Mark the cut so it never reads as the whole message.
        cut.spans.push(Span::raw("…"));
        rows.push(text::fit_line(cut, body.width as usize));
    }
    let height = rows.len() as u16;
    let rect = Rect {
        y: body.y + body.height - height,
        height,
        ..body
    };
    // Full-width rows, so the reversed style reads as one bar.
    let rows: Vec<Line> = rows
        .into_iter()
        .map(|mut l| {
            let pad = (body.width as usize).saturating_sub(l.width());
            l.spans.push(Span::raw(" ".repeat(pad)));
            l.style(style)
        })
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(rows), rect);
}

/// The rounds the key bar names: the open round for v/V/a/r, the next one for n, the
/// selected one for e.
#[derive(Debug, Clone, Copy, Default)]
pub struct Targets {
    pub open: Option<u32>,
    pub next: Option<u32>,
    pub selected: Option<u32>,
}

impl Targets {
    fn of(model: &Model) -> Targets {
        Targets {
            open: model.open_round_number(),
            next: model.state.as_ref().map(|_| model.next_round_number()),
            selected: model.gate.view.round,
        }
    }

    fn label(&self, b: &Binding) -> String {
        let round = match b.target {
            Target::None => None,
            Target::OpenRound => self.open,
            Target::NextRound => self.next,
            Target::Selected => self.selected,
        };
        match round {
            Some(n) => format!("{} r{n}", b.short),
            None => b.short.to_owned(),
        }
    }
}

fn bar_spans(
    context: Context,
    theme: Theme,
    targets: Targets,
) -> Vec<(Action, Vec<Span<'static>>)> {
    keys::bindings_for(context)
        .map(|b| {
            (
                b.action,
                vec![
                    Span::styled(format!(" {}", b.key_names()), theme.key()),
                    Span::styled(format!(" {} ", targets.label(b)), theme.dim()),
                ],
            )
        })
        .collect()
}

/// `key description` pairs of the bindings valid in `context`, from the key table, fitted
/// to `width`: bindings that do not fit are left out from the end, the help key stays, and
/// `…` says that some were left out.
pub fn key_hints(context: Context, theme: Theme, width: usize) -> Line<'static> {
    fit_bar(bar_spans(context, theme, Targets::default()), width, theme)
}

/// The bar under the panels: the keys that would do something now (a key that would be
/// refused is left out), with `Esc cancel run` first while a run of ours goes on.
fn key_bar(model: &Model, width: usize) -> Line<'static> {
    let context = model.context();
    let mut items = bar_spans(context, model.theme, Targets::of(model));
    if matches!(context, Context::Main(_)) {
        items.retain(|(action, _)| model.refusal(*action).is_none());
        if let Some(i) = items.iter().position(|(a, _)| *a == Action::CancelRun) {
            let cancel = items.remove(i);
            items.insert(0, cancel);
        }
    }
    fit_bar(items, width, model.theme)
}

fn fit_bar(items: Vec<(Action, Vec<Span<'static>>)>, width: usize, theme: Theme) -> Line<'static> {
    let item_width = |spans: &Vec<Span<'static>>| spans.iter().map(Span::width).sum::<usize>();
    let total: usize = items.iter().map(|(_, s)| item_width(s)).sum();
    let mut kept = items;
    if total > width {
        let more = Span::styled(" …", theme.dim());
        let budget = width.saturating_sub(more.width());
        // Help, and the way to stop a run, are never left out.
        let always = |a: &Action| matches!(a, Action::Help | Action::CancelRun);
        let mut used: usize = kept
            .iter()
            .filter(|(a, _)| always(a))
            .map(|(_, s)| item_width(s))
            .sum();
        kept.retain(|(action, spans)| {
            if always(action) {
                return true;
            }
            let w = item_width(spans);
            if used + w <= budget {
                used += w;
                true
            } else {
                used = usize::MAX / 2;
                false
            }
        });
        let mut spans: Vec<Span<'static>> = kept.into_iter().flat_map(|(_, s)| s).collect();
        spans.push(more);
        return text::fit_line(Line::from(spans), width);
    }
    Line::from(kept.into_iter().flat_map(|(_, s)| s).collect::<Vec<_>>())
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

/// A value of `metric` in its unit (`80.7 GFLOP/s`), `—` for none.
pub fn fmt_metric(value: Option<f64>, metric: &str) -> String {
    value.map_or_else(|| "—".into(), |v| kcamp_core::units::metric(v, metric))
}

/// A change as a signed percentage (`+10.8%`), `—` for none.
pub fn fmt_pct(value: Option<f64>) -> String {
    value.map_or_else(|| "—".into(), kcamp_core::units::change)
}

/// The window of `len` items of `height` rows that keeps `cursor` visible (cursor at the
/// bottom once it passes the first screen).
fn window(len: usize, height: usize, cursor: usize) -> std::ops::Range<usize> {
    let start = (cursor + 1).saturating_sub(height.max(1));
    start..(start + height).min(len)
}

/// ` 37/200 ` for a panel's bottom border, when there is more than one screen of rows.
fn position(cursor: usize, len: usize, visible: usize, theme: Theme) -> Option<Line<'static>> {
    (len > visible).then(|| {
        Line::styled(format!(" {}/{len} ", (cursor + 1).min(len)), theme.key()).right_aligned()
    })
}

/// Column widths: fixed ones as given, the flexible one (`None`) takes the rest.
fn widths(total: u16, fixed: &[Option<u16>], spacing: u16) -> Vec<u16> {
    let gaps = spacing * fixed.len().saturating_sub(1) as u16;
    let taken: u16 = fixed.iter().flatten().sum::<u16>() + gaps;
    let rest = total.saturating_sub(taken);
    fixed.iter().map(|w| w.unwrap_or(rest)).collect()
}
