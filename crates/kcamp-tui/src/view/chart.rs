//! Panel 3: the primary metric's aggregate over rounds, and per-shape sparklines. The
//! accepted lineage is a line; every measured round is a point, `●` for a full validation
//! and `○` for a quick one, coloured by what became of it; BASELINE and the manifest's
//! target are horizontal lines. A legend line says so.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline, SparklineBar};

use super::text::{fit_line, fit_middle};
use super::{dim_extra, fmt_metric, panel_block};
use crate::app::Model;
use crate::derive::RoundStatus;
use crate::keys::Panel;
use crate::style::Theme;

/// Below this inner height the sparklines are left out and the chart gets all the room.
const SPARKLINES_MIN_HEIGHT: u16 = 14;
const LABEL_WIDTH: u16 = 10;
const FULL: char = '●';
const QUICK: char = '○';
const BASELINE_LINE: char = '┈';
const TARGET_LINE: char = '┄';

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
    // The metric's name is in the header line; the unit is on every label.
    let extra = match data.best {
        Some((n, v)) => format!("best r{n} {}", fmt_metric(Some(v), metric)),
        None => String::new(),
    };
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
    let legend_lines = legend(model, legend_area_width(inner), inner.height >= 10);
    let [legend_area, chart_area, spark_area] = Layout::vertical([
        Constraint::Length(legend_lines.len() as u16),
        Constraint::Min(0),
        Constraint::Length(spark_rows),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(legend_lines), legend_area);

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
    for g in &data.groups {
        datasets.push(
            Dataset::default()
                .marker(Marker::Custom(if g.quick { QUICK } else { FULL }))
                .graph_type(GraphType::Scatter)
                .style(status_style(theme, g.status))
                .data(&g.points),
        );
    }
    // Labels never share a row: a short chart keeps one row per label, or drops the round
    // numbers under it to make room.
    let x_labels_shown = chart_area.height >= 5;
    let plot_rows = chart_area
        .height
        .saturating_sub(if x_labels_shown { 2 } else { 1 });
    let y_labels: Vec<String> = match plot_rows {
        0 | 1 => vec![fmt_metric(Some((y0 + y1) / 2.0), metric)],
        2..=6 => vec![fmt_metric(Some(y0), metric), fmt_metric(Some(y1), metric)],
        _ => vec![
            fmt_metric(Some(y0), metric),
            fmt_metric(Some((y0 + y1) / 2.0), metric),
            fmt_metric(Some(y1), metric),
        ],
    };
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
                .labels(y_labels),
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

fn legend_area_width(inner: Rect) -> usize {
    inner.width as usize
}

/// What the marks mean; only what is drawn is listed. Wrapped on two lines when there is
/// room for them, else cut with `…`.
fn legend(model: &Model, width: usize, two_lines: bool) -> Vec<Line<'static>> {
    let theme = model.theme;
    let data = &model.chart;
    let has = |s: RoundStatus| data.groups.iter().any(|g| g.status == s);
    let mut spans = vec![Span::styled("━ accepted", theme.chart_lineage())];
    spans.push(Span::styled(
        format!(" {FULL} full {QUICK} quick"),
        theme.text(),
    ));
    if has(RoundStatus::RolledBack) {
        spans.push(Span::styled(format!(" {FULL} rolled back"), theme.error()));
    }
    if has(RoundStatus::Open) {
        spans.push(Span::styled(format!(" {FULL} open"), theme.warning()));
    }
    if data.baseline.is_some() {
        spans.push(Span::styled(
            format!(" {BASELINE_LINE} baseline"),
            theme.dim(),
        ));
    }
    if data.target.is_some() {
        spans.push(Span::styled(
            format!(" {TARGET_LINE} target"),
            theme.title(),
        ));
    }
    let line = Line::from(spans);
    if line.width() <= width || !two_lines {
        return vec![fit_line(line, width)];
    }
    let mut lines = super::text::wrap(&line, width);
    lines.truncate(2);
    lines.into_iter().map(|l| fit_line(l, width)).collect()
}
