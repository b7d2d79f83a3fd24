//! Panel 3: the primary metric's aggregate over rounds, and per-shape sparklines. Every
//! measured round is a point at its own run's aggregate, its mark saying what became of it
//! (`●` accepted, `■` rolled back, `◆` open; hollow for a quick validation; `✗` on the
//! floor where no shape passed), so that no cue rests on colour alone. The accepted lineage
//! is a line chained from the speedups the gate measured, not from absolute aggregates of
//! different runs; BASELINE and the manifest's target are horizontal lines. A legend says
//! so.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline, SparklineBar};

use super::text::{fit_line, fit_middle, max_width};
use super::{dim_extra, fmt_metric, panel_block};
use crate::app::Model;
use crate::derive::RoundStatus;
use crate::keys::Panel;
use crate::style::Theme;

/// Below this inner height the sparklines are left out and the chart gets all the room.
const SPARKLINES_MIN_HEIGHT: u16 = 14;
const LABEL_WIDTH: u16 = 10;
/// Marks of a round's point: (full validation, quick validation).
const ACCEPTED_MARKS: (char, char) = ('●', '○');
const ROLLED_BACK_MARKS: (char, char) = ('■', '□');
const OPEN_MARKS: (char, char) = ('◆', '◇');
/// A measured round without an aggregate (nothing passed), on the chart's floor.
const FAILED: char = '✗';
const BASELINE_LINE: char = '┈';
const TARGET_LINE: char = '┄';

fn marks(status: RoundStatus) -> (char, char) {
    match status {
        RoundStatus::Baseline | RoundStatus::Accepted => ACCEPTED_MARKS,
        RoundStatus::RolledBack => ROLLED_BACK_MARKS,
        RoundStatus::Open => OPEN_MARKS,
    }
}

fn status_style(theme: Theme, status: RoundStatus) -> Style {
    match status {
        RoundStatus::Baseline | RoundStatus::Accepted => theme.chart_lineage(),
        RoundStatus::RolledBack => theme.error(),
        RoundStatus::Open => theme.warning(),
    }
}

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let metric = model
        .state
        .as_ref()
        .map_or("", |s| s.manifest.primary_metric.as_str());
    let data = &model.chart;
    // The metric's name is in the header line. The best value is shown whole or not at
    // all: a value cut in its unit reads as another value.
    let room = (area.width as usize).saturating_sub(2 + super::text::width(" 3 Metric "));
    let speedup = data
        .speedup
        .filter(|_| data.lineage.len() > 1)
        .map(|s| format!("×{}", kcamp_core::units::sig(s)));
    let extra = data
        .best
        .map(|(n, v)| {
            let value = fmt_metric(Some(v), metric);
            match &speedup {
                Some(x) => vec![
                    format!("{x} since BASELINE (gate Δ chained) · best r{n} {value}"),
                    format!("{x} chained · best r{n} {value}"),
                    format!("{x} · best {value}"),
                    format!("best {value}"),
                ],
                None => vec![format!("best r{n} {value}"), format!("best {value}")],
            }
        })
        .into_iter()
        .flatten()
        .find(|t| super::text::width(t) < room)
        .unwrap_or_default();
    let block = panel_block(model, Panel::Chart, dim_extra(theme, extra), area);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if data.is_empty() {
        frame.render_widget(
            Paragraph::new("nothing measured yet").style(theme.dim()),
            inner,
        );
        return;
    }
    let spark_rows = if inner.height >= SPARKLINES_MIN_HEIGHT {
        (model.sparks.len() as u16).min(inner.height / 3)
    } else {
        0
    };
    let legend_rows = if inner.height >= 10 { 2 } else { 1 };
    let legend_rows = legend(model, inner.width as usize, legend_rows, None).len();
    let [legend_area, chart_area, spark_area] = Layout::vertical([
        Constraint::Length(legend_rows as u16),
        Constraint::Min(0),
        Constraint::Length(spark_rows),
    ])
    .areas(inner);

    let [x0, x1] = data.x_bounds;
    let [y0, y1] = data.y_bounds;
    // Horizontal lines across the rounds: BASELINE and the target.
    let across = |y: Option<f64>| y.map_or(Vec::new(), |y| vec![(x0, y), (x1, y)]);
    let lines = [
        (across(data.baseline), BASELINE_LINE, theme.dim()),
        (across(data.target), TARGET_LINE, theme.title()),
    ];
    let mut datasets: Vec<Dataset> = lines
        .iter()
        .filter(|(points, _, _)| !points.is_empty())
        .map(|(points, mark, style)| {
            Dataset::default()
                .marker(Marker::Custom(*mark))
                .graph_type(GraphType::Line)
                .style(*style)
                .data(points)
        })
        .collect();
    datasets.push(
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.chart_lineage())
            .data(&data.lineage),
    );
    // Failed rounds sit on the floor of the plot, coloured by what became of them.
    let failed: Vec<(RoundStatus, Vec<(f64, f64)>)> = [
        RoundStatus::Baseline,
        RoundStatus::Accepted,
        RoundStatus::RolledBack,
        RoundStatus::Open,
    ]
    .into_iter()
    .map(|status| {
        let points = data
            .failed
            .iter()
            .filter(|(_, s)| *s == status)
            .map(|(x, _)| (*x, y0))
            .collect();
        (status, points)
    })
    .filter(|(_, points): &(RoundStatus, Vec<(f64, f64)>)| !points.is_empty())
    .collect();
    for (status, points) in &failed {
        datasets.push(
            Dataset::default()
                .marker(Marker::Custom(FAILED))
                .graph_type(GraphType::Scatter)
                .style(status_style(theme, *status))
                .data(points),
        );
    }
    for g in &data.groups {
        datasets.push(
            Dataset::default()
                .marker(Marker::Custom({
                    let (full, quick) = marks(g.status);
                    if g.quick { quick } else { full }
                }))
                .graph_type(GraphType::Scatter)
                .style(status_style(theme, g.status))
                .data(&g.points),
        );
    }
    // Labels never share a row: a short chart keeps one row per label, or drops the round
    // numbers under it to make room.
    let x_labels_shown = chart_area.height >= 5;
    let graph_rows = chart_area
        .height
        .saturating_sub(if x_labels_shown { 2 } else { 0 });
    // The chart gives its labels a third of its width at most and cuts longer ones.
    let axis = y_axis(y0, y1, metric, graph_rows, chart_area.width as usize / 3);
    // The legend comes first on its line: a unit there is never the part that is cut.
    let legend_lines = legend(
        model,
        legend_area.width as usize,
        legend_rows,
        axis.unit_in_legend.as_deref(),
    );
    frame.render_widget(Paragraph::new(legend_lines), legend_area);
    let x_labels: Vec<String> = if !x_labels_shown {
        Vec::new()
    } else if data.rounds_shown() == 1 {
        // One round, drawn in the middle.
        vec![
            String::new(),
            format!("r{:.0}", (x0 + x1) / 2.0),
            String::new(),
        ]
    } else if x1 - x0 >= 4.0 && chart_area.width >= 30 {
        vec![
            format!("r{x0:.0}"),
            format!("r{:.0}", (x0 + x1) / 2.0),
            format!("r{x1:.0}"),
        ]
    } else {
        vec![format!("r{x0:.0}"), format!("r{x1:.0}")]
    };
    let chart = Chart::new(datasets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .style(theme.dim())
                .bounds(data.x_bounds)
                .labels(x_labels),
        )
        .y_axis(
            Axis::default()
                .style(theme.dim())
                .bounds(data.y_bounds)
                .labels(axis.labels)
                .labels_alignment(axis.alignment),
        );
    frame.render_widget(chart, chart_area);

    let rows = Layout::vertical(vec![Constraint::Length(1); spark_rows as usize]).split(spark_area);
    let values: Vec<String> = model
        .sparks
        .iter()
        .map(|s| fmt_metric(s.last, metric))
        .collect();
    let value_width = super::text::max_width(&values) as u16 + 1;
    for ((spark, value), row) in model.sparks.iter().zip(&values).zip(rows.iter()) {
        let [label_area, line_area, value_area] = Layout::horizontal([
            Constraint::Length(LABEL_WIDTH),
            Constraint::Min(0),
            Constraint::Length(value_width),
        ])
        .areas(*row);
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                fit_middle(&spark.label, LABEL_WIDTH.saturating_sub(1) as usize),
                theme.dim(),
            ))),
            label_area,
        );
        // The newest rounds, as many as fit.
        let skip = spark.bars.len().saturating_sub(line_area.width as usize);
        let bars: Vec<SparklineBar> = spark.bars[skip..].iter().map(SparklineBar::from).collect();
        frame.render_widget(
            Sparkline::default()
                .data(bars)
                .max(100)
                .style(theme.chart_lineage()),
            line_area,
        );
        frame.render_widget(Paragraph::new(format!(" {value}")), value_area);
    }
}

/// The y axis's labels, in at most `room` cells each over `rows` rows of plot.
#[derive(Debug, Clone, PartialEq)]
struct YAxis {
    labels: Vec<String>,
    alignment: Alignment,
    /// The unit of bare-number labels, when no row is left for it on the axis: the legend
    /// names it.
    unit_in_legend: Option<String>,
}

/// `82.3 GFLOP/s` -> (`82.3`, `GFLOP/s`); None for a plain number.
fn split_unit(text: &str) -> Option<(&str, &str)> {
    text.split_once(' ')
}

/// A unit's SI prefix as a factor, and the unit without it: `GFLOP/s` -> (1e9, `FLOP/s`),
/// `ms` -> (1e-3, `s`), `B/s` -> (1, `B/s`).
fn unprefixed(unit: &str) -> (f64, &str) {
    const PREFIXES: [(char, f64); 9] = [
        ('P', 1e15),
        ('T', 1e12),
        ('G', 1e9),
        ('M', 1e6),
        ('k', 1e3),
        ('m', 1e-3),
        ('µ', 1e-6),
        ('n', 1e-9),
        ('p', 1e-12),
    ];
    let mut chars = unit.chars();
    match (chars.next(), chars.as_str()) {
        (Some(c), rest) if !rest.is_empty() => PREFIXES
            .iter()
            .find(|(p, _)| *p == c)
            .map_or((1.0, unit), |(_, f)| (*f, rest)),
        _ => (1.0, unit),
    }
}

/// `values` of `metric` as bare numbers in the unit that `kcamp_core::units` gives the
/// largest of them (`66.8`, `82.3` and `GFLOP/s`); None for a metric without a unit.
fn in_one_unit(values: &[f64], metric: &str) -> Option<(Vec<String>, String)> {
    let top = values.iter().copied().fold(f64::MIN, f64::max);
    let top_text = fmt_metric(Some(top), metric);
    let (_, unit) = split_unit(&top_text)?;
    // What one unit of the metric is in the same base unit (TFLOPS: 1e12 FLOP/s).
    let one = fmt_metric(Some(1.0), metric);
    let (_, one_unit) = split_unit(&one)?;
    let (per_metric, base) = unprefixed(one_unit);
    let (per_label, label_base) = unprefixed(unit);
    if base != label_base {
        return None;
    }
    let numbers = values
        .iter()
        .map(|v| kcamp_core::units::sig(v * per_metric / per_label))
        .collect();
    Some((numbers, unit.to_owned()))
}

/// The y axis's labels: the values with their unit (`82.3 GFLOP/s`) when they fit in
/// `room`; else bare numbers in one unit, named once as the middle label (`82.3`,
/// `GFLOP/s`, `66.8`) or, on a plot too short for three rows, in the legend; else none (the
/// panel's title keeps the best value with its unit). A unit is never cut.
fn y_axis(y0: f64, y1: f64, metric: &str, rows: u16, room: usize) -> YAxis {
    let none = YAxis {
        labels: Vec::new(),
        alignment: Alignment::Left,
        unit_in_legend: None,
    };
    // One label per row at most: ratatui spreads them over the plot's rows.
    let values = match rows {
        0 | 1 => return none,
        2..=6 => vec![y0, y1],
        _ => vec![y0, (y0 + y1) / 2.0, y1],
    };
    let full: Vec<String> = values
        .iter()
        .map(|v| fmt_metric(Some(*v), metric))
        .collect();
    if max_width(&full) <= room {
        return YAxis {
            labels: full,
            ..none
        };
    }
    let Some((numbers, unit)) = in_one_unit(&[y0, y1], metric) else {
        return none;
    };
    let (labels, unit_in_legend) = if rows >= 3 {
        (vec![numbers[0].clone(), unit, numbers[1].clone()], None)
    } else {
        (numbers, Some(unit))
    };
    if max_width(&labels) > room {
        return none;
    }
    YAxis {
        labels,
        alignment: Alignment::Right,
        unit_in_legend,
    }
}

/// What the marks mean; only what is drawn is listed, after the axis's unit when the legend
/// carries it. Wrapped on up to `max_lines` lines, and cut with `…` where that is not
/// enough.
fn legend(model: &Model, width: usize, max_lines: usize, unit: Option<&str>) -> Vec<Line<'static>> {
    let theme = model.theme;
    let data = &model.chart;
    let has = |s: RoundStatus| data.groups.iter().any(|g| g.status == s);
    let mut spans = Vec::new();
    if let Some(unit) = unit {
        spans.push(Span::styled(format!("{unit}: "), theme.dim()));
    }
    // A mark and its word never part on a wrap: a no-break space joins them.
    let nb = '\u{a0}';
    spans.push(Span::styled(format!("━{nb}lineage"), theme.chart_lineage()));
    let quick_any = data.groups.iter().any(|g| g.quick);
    if has(RoundStatus::Baseline) || has(RoundStatus::Accepted) {
        spans.push(Span::styled(
            format!(" {}{nb}accepted", ACCEPTED_MARKS.0),
            theme.chart_lineage(),
        ));
    }
    if has(RoundStatus::RolledBack) {
        spans.push(Span::styled(
            format!(" {}{nb}rolled{nb}back", ROLLED_BACK_MARKS.0),
            theme.error(),
        ));
    }
    if has(RoundStatus::Open) {
        spans.push(Span::styled(
            format!(" {}{nb}open", OPEN_MARKS.0),
            theme.warning(),
        ));
    }
    if quick_any {
        spans.push(Span::styled(
            format!(
                " {}{}{}{nb}quick",
                ACCEPTED_MARKS.1, ROLLED_BACK_MARKS.1, OPEN_MARKS.1
            ),
            theme.text(),
        ));
    }
    if !data.failed.is_empty() {
        spans.push(Span::styled(
            format!(" {FAILED}{nb}none{nb}passed"),
            theme.text(),
        ));
    }
    if data.baseline.is_some() {
        spans.push(Span::styled(
            format!(" {BASELINE_LINE}{nb}baseline"),
            theme.dim(),
        ));
    }
    if data.target.is_some() {
        spans.push(Span::styled(
            format!(" {TARGET_LINE}{nb}target"),
            theme.title(),
        ));
    }
    let line = Line::from(spans);
    if line.width() <= width || max_lines <= 1 {
        return vec![fit_line(line, width)];
    }
    let mut lines = super::text::wrap(&line, width);
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        // The last line says that more of the legend did not fit.
        if let Some(last) = lines.last_mut() {
            let mut cut = last.clone();
            cut.spans.push(Span::raw(" …"));
            *last = cut;
        }
    }
    lines.into_iter().map(|l| fit_line(l, width)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TFLOPS: &str = "Forward TFLOPS";

    fn labels(axis: &YAxis) -> Vec<&str> {
        axis.labels.iter().map(String::as_str).collect()
    }

    #[test]
    fn labels_keep_their_unit_or_name_it_once() {
        // Room for the values with their unit.
        let wide = y_axis(0.0668, 0.0823, TFLOPS, 3, 14);
        assert_eq!(labels(&wide), ["66.8 GFLOP/s", "82.3 GFLOP/s"]);
        assert_eq!(wide.unit_in_legend, None);
        let tall = y_axis(0.0668, 0.0823, TFLOPS, 9, 14);
        assert_eq!(tall.labels.len(), 3);
        // 60 columns: ten cells. The numbers, and the unit once between them.
        let narrow = y_axis(0.0668, 0.0823, TFLOPS, 3, 10);
        assert_eq!(labels(&narrow), ["66.8", "GFLOP/s", "82.3"]);
        assert_eq!(narrow.alignment, Alignment::Right);
        // Two rows: the unit goes to the legend.
        let short = y_axis(0.0668, 0.0823, TFLOPS, 2, 10);
        assert_eq!(labels(&short), ["66.8", "82.3"]);
        assert_eq!(short.unit_in_legend.as_deref(), Some("GFLOP/s"));
        // Too narrow even for the unit: no labels rather than cut ones.
        let none = y_axis(0.0668, 0.0823, TFLOPS, 3, 5);
        assert!(none.labels.is_empty());
        assert!(y_axis(0.0668, 0.0823, TFLOPS, 1, 40).labels.is_empty());
    }

    #[test]
    fn bare_numbers_share_the_unit_of_the_largest() {
        // 650 MFLOP/s and 1.20 GFLOP/s, both in GFLOP/s.
        let axis = y_axis(0.00065, 0.0012, TFLOPS, 4, 8);
        assert_eq!(labels(&axis), ["0.650", "GFLOP/s", "1.20"]);
        let bandwidth = y_axis(120.0, 950.0, "Forward GB/s", 4, 7);
        assert_eq!(labels(&bandwidth), ["120", "GB/s", "950"]);
        let latency = y_axis(0.25, 1.5, "Forward (ms)", 4, 6);
        assert_eq!(labels(&latency), ["0.250", "ms", "1.50"]);
        // A metric without a unit has nothing to shorten.
        assert!(y_axis(123456.0, 234567.0, "score", 4, 3).labels.is_empty());
    }

    #[test]
    fn prefixes_are_read_off_the_unit() {
        assert_eq!(unprefixed("GFLOP/s"), (1e9, "FLOP/s"));
        assert_eq!(unprefixed("FLOP/s"), (1.0, "FLOP/s"));
        assert_eq!(unprefixed("ms"), (1e-3, "s"));
        assert_eq!(unprefixed("s"), (1.0, "s"));
        assert_eq!(unprefixed("µs"), (1e-6, "s"));
        assert_eq!(unprefixed("B/s"), (1.0, "B/s"));
    }
}
