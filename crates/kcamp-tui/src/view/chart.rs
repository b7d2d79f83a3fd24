//! Panel 3: the primary metric's aggregate over rounds, and per-shape sparklines.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline, SparklineBar};

use super::{fmt_metric, panel_block};
use crate::app::Model;
use crate::keys::Panel;

/// Below this inner height the sparklines are left out and the chart gets all the room.
const SPARKLINES_MIN_HEIGHT: u16 = 12;
const LABEL_WIDTH: u16 = 10;

pub fn draw(model: &Model, frame: &mut Frame, area: Rect) {
    let theme = model.theme;
    let metric = model
        .state
        .as_ref()
        .map_or("", |s| s.manifest.primary_metric.as_str());
    let best = model
        .chart
        .best
        .map(|(n, v)| format!("{metric} · best r{n} {}", fmt_metric(Some(v))))
        .unwrap_or_else(|| metric.to_owned());
    let block = panel_block(model, Panel::Chart, &best);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if model.chart.measured.is_empty() {
        frame.render_widget(
            Paragraph::new("nothing measured yet").style(theme.dim()),
            inner,
        );
        return;
    }
    let spark_rows = if inner.height >= SPARKLINES_MIN_HEIGHT {
        (model.sparks.len() as u16).min(inner.height / 2)
    } else {
        0
    };
    let [chart_area, spark_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(spark_rows)]).areas(inner);

    let data = &model.chart;
    let datasets = vec![
        Dataset::default()
            .name("all rounds")
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(theme.chart_measured())
            .data(&data.measured),
        Dataset::default()
            .name("accepted")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.chart_lineage())
            .data(&data.lineage),
    ];
    let [x0, x1] = data.x_bounds;
    let [y0, y1] = data.y_bounds;
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .style(theme.dim())
                .bounds(data.x_bounds)
                .labels([format!("r{x0:.0}"), format!("r{x1:.0}")]),
        )
        .y_axis(
            Axis::default()
                .style(theme.dim())
                .bounds(data.y_bounds)
                .labels([fmt_metric(Some(y0)), fmt_metric(Some(y1))]),
        );
    frame.render_widget(chart, chart_area);

    let rows = Layout::vertical(vec![Constraint::Length(1); spark_rows as usize]).split(spark_area);
    for (spark, row) in model.sparks.iter().zip(rows.iter()) {
        let [label_area, line_area, value_area] = Layout::horizontal([
            Constraint::Length(LABEL_WIDTH),
            Constraint::Min(0),
            Constraint::Length(8),
        ])
        .areas(*row);
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(spark.label.clone(), theme.dim()))),
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
        frame.render_widget(
            Paragraph::new(format!(" {}", fmt_metric(spark.last))),
            value_area,
        );
    }
}
