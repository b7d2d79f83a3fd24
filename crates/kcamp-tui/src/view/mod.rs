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
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::Model;
use crate::derive::Tone;
use crate::keys::{self, Action, Binding, Context, Panel, Target};
use crate::style::Theme;

pub use gate::{
    COLS as GATE_COLS, GATE_DROP_ORDER, content_widths, row_at as gate_row_at,
    unambiguous_label_width,
};
pub use rounds::{ROUNDS_DROP_ORDER, row_at as rounds_row_at};

/// From this size on, the rounds and details sit left of the gate, the chart and live run
/// under the gate, the log across the bottom.
const WIDE_MIN_WIDTH: u16 = 140;
const WIDE_MIN_HEIGHT: u16 = 36;
/// The expanded key bar never takes more than this many rows.
const BAR_MAX_ROWS: usize = 4;
/// The toast never takes more than this many rows.
const TOAST_MAX_ROWS: usize = 3;
/// Below this the panels cannot be drawn: the screen says so and what it needs.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;
/// Rows of the body the rounds and the gate keep before any other panel gets one: the
/// gate's verdict, a reason, its header and a few shapes.
const TOP_MIN: u16 = 10;
/// The chart and live row, and the details and log row, at their smallest.
const MID_MIN: u16 = 6;
const BOTTOM_MIN: u16 = 4;

pub fn too_small((width, height): (u16, u16)) -> bool {
    width < MIN_WIDTH || height < MIN_HEIGHT
}

/// The terminal size from which `panel` is drawn: panels are left out in this order as the
/// height shrinks (the log and details first, then the chart and live run), so that the
/// rounds and the gate stay.
pub fn needed_for(panel: Panel) -> (u16, u16) {
    match panel {
        Panel::Rounds | Panel::Gate => (MIN_WIDTH, MIN_HEIGHT),
        Panel::Chart | Panel::Live => (MIN_WIDTH, TOP_MIN + MID_MIN + 2),
        Panel::Details | Panel::Log => (MIN_WIDTH, TOP_MIN + MID_MIN + BOTTOM_MIN + 2),
    }
}

pub fn view(model: &Model, frame: &mut Frame) {
    let area = frame.area();
    if too_small((area.width, area.height)) {
        draw_too_small(model, frame, area);
        return;
    }
    let status = status_lines(model, area.width as usize);
    let bar_lines = key_bar(model, area.width as usize);
    let [header, body, status_area, bar] = outer(area, status.len() as u16, bar_lines.len() as u16);
    draw_header(model, frame, header);
    let areas = panel_areas(model);
    let draws: [fn(&Model, &mut Frame, Rect); 6] = [
        rounds::draw,
        gate::draw,
        chart::draw,
        live::draw,
        details::draw,
        log::draw,
    ];
    for (draw, area) in draws.into_iter().zip(areas) {
        if !area.is_empty() {
            draw(model, frame, area);
        }
    }
    frame.render_widget(Paragraph::new(bar_lines), bar);
    if let Some(popup) = &model.popup {
        popup.draw(frame, body, model.theme);
    }
    frame.render_widget(Paragraph::new(status), status_area);
}

/// `terminal too small (need 60×12, have 40×10)`, centred, and how to quit.
fn draw_too_small(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let lines = [
        Line::styled(
            format!(
                "terminal too small (need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{})",
                area.width, area.height
            ),
            theme.warning(),
        ),
        Line::styled("enlarge it, or q to quit", theme.dim()),
    ];
    let lines: Vec<Line> = lines
        .iter()
        .flat_map(|l| text::wrap(l, area.width as usize))
        .collect();
    let height = (lines.len() as u16).min(area.height);
    let rect = Rect {
        y: area.y + area.height.saturating_sub(height) / 2,
        height,
        ..area
    };
    frame.render_widget(Paragraph::new(lines).alignment(Alignment::Center), rect);
}

/// Header, body, the status rows (the toast, a read error) and the key bar.
fn outer(area: Rect, status_rows: u16, bar_rows: u16) -> [Rect; 4] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(status_rows),
        Constraint::Length(bar_rows),
    ])
    .areas(area)
}

/// Where the panels and popups go: between the header and the status rows.
pub fn body_area(model: &Model) -> Rect {
    let (width, height) = model.size;
    let status = status_lines(model, width as usize).len() as u16;
    let bar = key_bar(model, width as usize).len() as u16;
    outer(Rect::new(0, 0, width, height), status, bar)[1]
}

/// Rows a page key moves in `panel`.
pub fn page_rows(model: &Model, panel: Panel) -> usize {
    let area = panel_areas(model)[panel.number() - 1];
    // Borders, and the table header where there is one.
    let overhead = match panel {
        Panel::Rounds => 3,
        Panel::Gate => 4,
        _ => 2,
    };
    (area.height.saturating_sub(overhead) as usize).max(1)
}

/// The panels drawn at the model's terminal size, in Tab order.
pub fn shown_panels(model: &Model) -> Vec<Panel> {
    // A zoomed panel hides the others from sight, not from Tab: the layout they would have.
    Panel::ALL
        .into_iter()
        .zip(layout_areas(model))
        .filter(|(_, a)| !a.is_empty())
        .map(|(p, _)| p)
        .collect()
}

/// Areas of the panels in `Panel::ALL` order on the model's terminal; an empty one for a
/// panel left out for want of room.
pub fn panel_areas(model: &Model) -> [Rect; 6] {
    let areas = layout_areas(model);
    if model.zoomed && !too_small(model.size) {
        // `+`: the focused panel over the whole body (as lazygit's zoom).
        let mut zoomed = [Rect::default(); 6];
        zoomed[model.focus.number() - 1] = body_area(model);
        return zoomed;
    }
    areas
}

/// The areas of the panels without a zoom.
fn layout_areas(model: &Model) -> [Rect; 6] {
    if too_small(model.size) {
        return [Rect::default(); 6];
    }
    let body = body_area(model);
    if body.width >= WIDE_MIN_WIDTH && body.height + 2 >= WIDE_MIN_HEIGHT {
        let log_height = (body.height / 6).clamp(5, 10);
        let [main, log] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(log_height)]).areas(body);
        // The gate gets what its table needs (at least 45%); the rounds' hypotheses the rest.
        let gate_width = gate::natural_width(model).max(body.width * 45 / 100);
        let left_width = body
            .width
            .saturating_sub(gate_width)
            .clamp(56, (body.width * 55 / 100).max(56));
        let [left, right] =
            Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)]).areas(main);
        let [rounds, details] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(left);
        let lower = (main.height / 3).clamp(10, 16);
        let [gate, lower] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(lower)]).areas(right);
        let [chart, live] =
            Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                .areas(lower);
        return [rounds, gate, chart, live, details, log];
    }
    let h = body.height;
    // The rounds and the gate first; then the chart and live run; then details and log.
    let (mid, bottom) = if h >= TOP_MIN + MID_MIN + BOTTOM_MIN {
        let mut mid = (h / 4).clamp(MID_MIN, 12);
        let mut bottom = (h / 4).clamp(BOTTOM_MIN, 14);
        while h - mid - bottom < TOP_MIN.max(h / 2) && (mid > MID_MIN || bottom > BOTTOM_MIN) {
            if bottom > BOTTOM_MIN {
                bottom -= 1;
            } else {
                mid -= 1;
            }
        }
        (mid, bottom)
    } else if h >= TOP_MIN + MID_MIN {
        (MID_MIN, 0)
    } else {
        (0, 0)
    };
    let [top, mid, bottom] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(mid),
        Constraint::Length(bottom),
    ])
    .areas(body);
    // The gate table needs the width: it decides the verdict.
    let [rounds, gate] =
        Layout::horizontal([Constraint::Percentage(38), Constraint::Percentage(62)]).areas(top);
    let [chart, live] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(mid);
    let [details, log] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
    [rounds, gate, chart, live, details, log]
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
            if !model.damage.is_empty() {
                let n = model.damage.len();
                spans.push(Span::styled(
                    format!(
                        " · ⚠ {n} unreadable record{} (log) — kcamp repair",
                        if n == 1 { "" } else { "s" }
                    ),
                    theme.error(),
                ));
            }
            if let Some(open) = state.open_round {
                spans.push(Span::styled(format!(" · open r{open}"), theme.warning()));
            }
            // Who holds the lock says why the writing keys are refused: before the
            // incumbent, so that 80 columns keep it.
            if let Some(holder) = &state.lock_holder {
                spans.push(Span::styled(
                    format!(" · locked by {holder}"),
                    theme.warning(),
                ));
            }
            let incumbent = model.rounds.iter().find(|r| r.incumbent);
            match (model.incumbent_doubt(), incumbent) {
                // A later round's decision is unreadable: it may have been accepted.
                (Some(doubt), Some(inc)) => spans.push(Span::styled(
                    format!(" · incumbent r{}? (r{doubt} unreadable)", inc.number),
                    theme.error(),
                )),
                (Some(doubt), None) => spans.push(Span::styled(
                    format!(" · incumbent unknown (r{doubt} unreadable)"),
                    theme.error(),
                )),
                (None, Some(inc)) => spans.push(Span::styled(
                    format!(
                        " · incumbent r{} {}",
                        inc.number,
                        fmt_metric(inc.aggregate, &m.primary_metric)
                    ),
                    theme.incumbent(),
                )),
                (None, None) => {}
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
    if model.load_error.is_some() {
        spans.push(Span::styled(" · cannot read (below)", theme.error()));
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

/// The rows above the key bar, each on rows of its own (never over a panel): the campaign
/// that cannot be read now (what is on screen is the last state that could), then the
/// toast, the last refusal or message, in full (wrapped, at most [`TOAST_MAX_ROWS`]).
fn status_lines(model: &Model, width: usize) -> Vec<Line<'static>> {
    let theme = model.theme;
    let mut rows = Vec::new();
    if width == 0 {
        return rows;
    }
    let bar = |text: String, style: ratatui::style::Style| -> Vec<Line<'static>> {
        let line = Line::from(vec![Span::raw(" » "), Span::raw(text), Span::raw(" ")]).style(style);
        let mut lines = text::wrap(&line, width);
        if lines.len() > TOAST_MAX_ROWS {
            lines.truncate(TOAST_MAX_ROWS);
            if let Some(last) = lines.pop() {
                let mut cut = last;
                // Mark the cut so it never reads as the whole message.
                cut.spans.push(Span::raw("…"));
                lines.push(text::fit_line(cut, width));
            }
        }
        // Full-width rows, so the reversed style reads as one bar.
        lines
            .into_iter()
            .map(|mut l| {
                let pad = width.saturating_sub(l.width());
                l.spans.push(Span::raw(" ".repeat(pad)));
                l.style(style)
            })
            .collect()
    };
    let reversed = ratatui::style::Modifier::REVERSED;
    if let Some(err) = &model.load_error {
        rows.extend(bar(
            format!("cannot read the campaign; the panels show the last state read: {err}"),
            theme.error().add_modifier(reversed),
        ));
    }
    if let Some(toast) = &model.toast {
        rows.extend(bar(
            toast.text.clone(),
            tone_style(theme, toast.tone).add_modifier(reversed),
        ));
    }
    rows
}

/// The rounds the key bar names: the open round for v/V/a/r, the next one for n, the
/// selected one for e.
#[derive(Debug, Clone, Copy, Default)]
pub struct Targets {
    pub open: Option<u32>,
    pub next: Option<u32>,
    pub selected: Option<u32>,
    /// The open round's gate does not allow accepting: `a` force-accepts it.
    pub force: bool,
}

impl Targets {
    fn of(model: &Model) -> Targets {
        Targets {
            open: model.open_round_number(),
            next: model.state.as_ref().map(|_| model.next_round_number()),
            selected: model.gate.view.round,
            force: model
                .open_round_number()
                .and_then(|n| model.state.as_ref()?.round(n)?.gate.as_ref())
                .is_some_and(|g| !g.verdict.allows_accept()),
        }
    }

    fn label(&self, b: &Binding) -> String {
        let round = match b.target {
            Target::None => None,
            Target::OpenRound => self.open,
            Target::NextRound => self.next,
            Target::Selected => self.selected,
        };
        // What the key does: `a` on a round the gate does not allow opens the forced accept.
        let short = if b.action == Action::Accept && self.force {
            "force-accept"
        } else {
            b.short
        };
        match round {
            Some(n) => format!("{short} r{n}"),
            None => short.to_owned(),
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

/// The same, without the keys of `actions` (a viewer that has no search).
pub fn key_hints_without(
    context: Context,
    theme: Theme,
    width: usize,
    actions: &[Action],
) -> Line<'static> {
    let mut items = bar_spans(context, theme, Targets::default());
    items.retain(|(a, _)| !actions.contains(a));
    fit_bar(items, width, theme)
}

/// The bar under the panels: the keys that would do something now (a key that would be
/// refused is left out), with `Esc cancel run` first while a run of ours goes on.
fn key_bar(model: &Model, width: usize) -> Vec<Line<'static>> {
    let context = model.context();
    if let Some(crate::popups::Popup::Confirm(c)) = &model.popup
        && c.is_notice()
    {
        return vec![text::fit_line(
            crate::popups::confirm::notice_hints(model.theme),
            width,
        )];
    }
    let mut items = bar_spans(context, model.theme, Targets::of(model));
    if matches!(model.popup, Some(crate::popups::Popup::Shape(_))) {
        // The shape popup has no search.
        items.retain(|(a, _)| !matches!(a, Action::Filter | Action::NextMatch));
    }
    if matches!(context, Context::Main(_)) {
        items.retain(|(action, _)| model.refusal(*action).is_none());
        // The round's actions first (what a narrow bar must keep), then the panel's keys.
        let round_action = |a: &Action| {
            matches!(
                a,
                Action::CancelRun
                    | Action::ValidateQuick
                    | Action::ValidateFull
                    | Action::Accept
                    | Action::Rollback
                    | Action::NewRound
                    | Action::EditKernel
            )
        };
        let (mut first, rest): (Vec<_>, Vec<_>) =
            items.into_iter().partition(|(a, _)| round_action(a));
        if let Some(i) = first.iter().position(|(a, _)| *a == Action::CancelRun) {
            let cancel = first.remove(i);
            first.insert(0, cancel);
        }
        first.extend(rest);
        items = first;
        if model.bar_expanded {
            return wrap_bar(items, width, model.theme);
        }
        let line = fit_bar(items.clone(), width, model.theme);
        if line.width()
            < items
                .iter()
                .flat_map(|(_, s)| s)
                .map(Span::width)
                .sum::<usize>()
        {
            // Cut: `.` shows the rest.
            let mut kept = items;
            kept.push((
                Action::ExpandBar,
                vec![
                    Span::styled(" .", model.theme.key()),
                    Span::styled(" more ", model.theme.dim()),
                ],
            ));
            return vec![fit_bar_keeping(kept, width, model.theme, Action::ExpandBar)];
        }
        return vec![line];
    }
    vec![fit_bar(items, width, model.theme)]
}

/// Every item of the bar, over the rows they take (at most [`BAR_MAX_ROWS`]).
fn wrap_bar(
    items: Vec<(Action, Vec<Span<'static>>)>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    let items = items.into_iter().chain([(
        Action::ExpandBar,
        vec![
            Span::styled(" .", theme.key()),
            Span::styled(" fewer ", theme.dim()),
        ],
    )]);
    for (_, spans) in items {
        let w: usize = spans.iter().map(Span::width).sum();
        if used + w > width && used > 0 {
            rows.push(Vec::new());
            used = 0;
        }
        used += w;
        if let Some(r) = rows.last_mut() {
            r.extend(spans);
        }
    }
    rows.truncate(BAR_MAX_ROWS);
    rows.into_iter()
        .map(|r| text::fit_line(Line::from(r), width))
        .collect()
}

/// [`fit_bar`], `keep` never left out (with help and the run's cancel).
fn fit_bar_keeping(
    items: Vec<(Action, Vec<Span<'static>>)>,
    width: usize,
    theme: Theme,
    keep: Action,
) -> Line<'static> {
    fit_bar_with(items, width, theme, |a| *a == keep, false)
}

fn fit_bar(items: Vec<(Action, Vec<Span<'static>>)>, width: usize, theme: Theme) -> Line<'static> {
    fit_bar_with(items, width, theme, |_| false, true)
}

fn fit_bar_with(
    items: Vec<(Action, Vec<Span<'static>>)>,
    width: usize,
    theme: Theme,
    keep: impl Fn(&Action) -> bool,
    mark_cut: bool,
) -> Line<'static> {
    let item_width = |spans: &Vec<Span<'static>>| spans.iter().map(Span::width).sum::<usize>();
    let total: usize = items.iter().map(|(_, s)| item_width(s)).sum();
    let mut kept = items;
    if total > width {
        // Where the bar says how to see the rest (`. more`), no `…` besides.
        let more = Span::styled(if mark_cut { " …" } else { "" }, theme.dim());
        let budget = width.saturating_sub(more.width());
        // Help, and the way to stop a run, are never left out.
        let always = |a: &Action| matches!(a, Action::Help | Action::CancelRun) || keep(a);
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
