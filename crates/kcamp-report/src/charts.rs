//! Charts in SVG and PNG (plotters): the primary metric over rounds, the per-shape speedup
//! and the roofline. Every chart is drawn from plain data, names its units through
//! `kcamp_core::units`, and is written atomically with mode 0644.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::full_palette::{BLUE_700, GREEN_700, GREY, GREY_500, ORANGE_800, RED_700};

use kcamp_core::analysis::ShapeRoof;
use kcamp_core::error::IoContext;
use kcamp_core::fsutil::fault;
use kcamp_core::specs::{Roofs, UtilPeaks};
use kcamp_core::types::DecisionKind;
use kcamp_core::units;
use kcamp_core::{Error, Result};

use crate::{Aggregate, RoundPoint, ShapeComparison};

/// The files a chart was written to.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartFiles {
    pub svg: PathBuf,
    pub png: PathBuf,
}

pub(crate) const CHART_SIZE: (u32, u32) = (960, 560);
const FONT: &str = "sans-serif";

/// plotters is built without fontconfig: register the embedded DejaVu once per process.
fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            for (style, bytes) in [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
            ] {
                plotters::style::register_font(FONT, style, bytes)
                    .map_err(|_| "the embedded DejaVu font was refused".to_owned())?;
            }
            Ok(())
        })
        .clone()
        .map_err(Error::Internal)
}

/// The colour of a round by its decision.
fn decision_colour(d: Option<DecisionKind>) -> RGBColor {
    match d {
        Some(DecisionKind::Baseline) => BLUE_700,
        Some(DecisionKind::Accepted) => GREEN_700,
        Some(DecisionKind::RolledBack) => RED_700,
        None => GREY,
    }
}

/// `[value·e^{-σ}, value·e^{+σ}]`: ±1σ of a geomean whose log has stddev `rel`.
fn error_span(a: &Aggregate) -> Option<(f64, f64)> {
    a.rel_stddev
        .filter(|r| r.is_finite() && *r > 0.0)
        .map(|r| (a.value * (-r).exp(), a.value * r.exp()))
}

/// The primary metric's aggregate over rounds, the two shape sets kept apart: the
/// representative shapes (measured by every round, quick or full) and all target shapes
/// (full validations only). Points are coloured by decision, FAIL rounds crossed out,
/// error bars are ±1σ from the per-shape stddev columns. Writes `<stem>.svg|png`.
pub fn chart_metric_over_rounds(
    metric: &str,
    rounds: &[RoundPoint],
    representative: usize,
    target_shapes: usize,
    stem: &Path,
) -> Result<ChartFiles> {
    let any = rounds.iter().any(|r| r.quick.is_some() || r.full.is_some());
    if !any {
        return Err(Error::State(format!(
            "no measured round to chart for {}",
            stem.display()
        )));
    }
    let last_round = rounds.iter().map(|r| r.round).max().unwrap_or(1);
    let y_max = rounds
        .iter()
        .flat_map(|r| [r.quick, r.full])
        .flatten()
        .map(|a| error_span(&a).map_or(a.value, |s| s.1))
        .fold(0.0, f64::max)
        * 1.15;
    let sets = [
        (
            format!("representative shapes ({representative}): ○, incumbent ─"),
            rounds
                .iter()
                .filter_map(|r| r.quick.map(|a| (r, a)))
                .collect::<Vec<_>>(),
            false,
        ),
        (
            format!("all target shapes ({target_shapes}, full validations): ●, incumbent ─"),
            rounds
                .iter()
                .filter_map(|r| r.full.map(|a| (r, a)))
                .collect::<Vec<_>>(),
            true,
        ),
    ];
    let title = format!("{metric} over rounds (geomean, ±1σ)");
    let input = RoundsChart {
        title: &title,
        metric,
        rounds,
        sets: &sets,
        last_round,
        y_max,
    };
    render(
        stem,
        |root| draw_rounds(root, &input),
        |root| draw_rounds(root, &input),
    )
}

type RoundSet<'a> = (String, Vec<(&'a RoundPoint, Aggregate)>, bool);

struct RoundsChart<'a> {
    title: &'a str,
    metric: &'a str,
    rounds: &'a [RoundPoint],
    sets: &'a [RoundSet<'a>],
    last_round: u32,
    y_max: f64,
}

fn draw_rounds<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    input: &RoundsChart<'_>,
) -> std::result::Result<(), String> {
    let RoundsChart {
        title,
        metric,
        rounds,
        sets,
        last_round,
        y_max,
    } = *input;
    {
        root.fill(&WHITE).map_err(|x| x.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(96)
            .build_cartesian_2d(0.5f64..f64::from(last_round) + 0.5, 0.0..y_max.max(1e-30))
            .map_err(|x| x.to_string())?;
        chart
            .configure_mesh()
            .max_light_lines(1)
            .x_desc("round")
            .y_desc(metric)
            .x_labels((last_round as usize).min(20) + 1)
            .x_label_formatter(&|x| {
                if x.fract().abs() < 1e-9 {
                    format!("{x:.0}")
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| units::metric(*y, metric))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(|x| x.to_string())?;
        for (name, points, full) in sets {
            if points.is_empty() {
                continue;
            }
            // Quick set slightly left, full set slightly right, so both stay visible.
            let dx = if *full { 0.12 } else { -0.12 };
            let colour_line = if *full { BLUE_700 } else { ORANGE_800 };
            // The incumbent's path: BASELINE and accepted rounds of this set.
            let path: Vec<(f64, f64)> = points
                .iter()
                .filter(|(r, _)| {
                    matches!(
                        r.decision,
                        Some(DecisionKind::Baseline | DecisionKind::Accepted)
                    )
                })
                .map(|(r, a)| (f64::from(r.round) + dx, a.value))
                .collect();
            let style = colour_line.stroke_width(2);
            let series = chart
                .draw_series(LineSeries::new(path, style))
                .map_err(|x| x.to_string())?;
            // The legend shows the set's marker (its shape) on its incumbent line (its colour).
            let full = *full;
            let marker = if full {
                GREY.filled()
            } else {
                GREY.stroke_width(3)
            };
            series.label(name.as_str()).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (22, 0)], colour_line.stroke_width(2))
                    + Circle::new((11, 0), 5, marker)
            });
            for (r, a) in points {
                let x = f64::from(r.round) + dx;
                if let Some((lo, hi)) = error_span(a) {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(x, lo), (x, hi)],
                            BLACK.stroke_width(1),
                        )))
                        .map_err(|x| x.to_string())?;
                    for y in [lo, hi] {
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                vec![(x - 0.06, y), (x + 0.06, y)],
                                BLACK.stroke_width(1),
                            )))
                            .map_err(|x| x.to_string())?;
                    }
                }
                let colour = decision_colour(r.decision);
                // The full set's points are filled, the representative set's hollow.
                let style = if full {
                    colour.filled()
                } else {
                    colour.stroke_width(3)
                };
                chart
                    .draw_series(std::iter::once(Circle::new((x, a.value), 6, style)))
                    .map_err(|x| x.to_string())?;
                if !r.failed.is_empty() {
                    chart
                        .draw_series(std::iter::once(Cross::new(
                            (x, a.value),
                            9,
                            RED.stroke_width(3),
                        )))
                        .map_err(|x| x.to_string())?;
                }
            }
        }
        // Legend entries for the decision colours and the FAIL mark.
        for (kind, name) in [
            (Some(DecisionKind::Baseline), "baseline"),
            (Some(DecisionKind::Accepted), "accepted"),
            (Some(DecisionKind::RolledBack), "rolled back"),
            (None, "open"),
        ] {
            if !rounds
                .iter()
                .any(|r| r.decision == kind && (r.quick.is_some() || r.full.is_some()))
            {
                continue;
            }
            let colour = decision_colour(kind);
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(|x| x.to_string())?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 9, y), 5, colour.filled()));
        }
        if rounds.iter().any(|r| !r.failed.is_empty()) {
            chart
                .draw_series(std::iter::empty::<Cross<(f64, f64), i32>>())
                .map_err(|x| x.to_string())?
                .label("a shape FAILs")
                .legend(|(x, y)| Cross::new((x + 9, y), 6, RED.stroke_width(3)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|x| x.to_string())?;
        root.present().map_err(|x| x.to_string())
    }
}

/// Incumbent over baseline per shape (bars around 1×, ±1σ from both stddevs); shapes that
/// do not PASS on either side are marked with their Check. Writes `<stem>.svg|png`.
pub fn chart_speedup(
    metric: &str,
    shapes: &[ShapeComparison],
    baseline: &str,
    stem: &Path,
) -> Result<ChartFiles> {
    if shapes.is_empty() {
        return Err(Error::State(format!(
            "no shapes to chart for {}",
            stem.display()
        )));
    }
    let top = shapes
        .iter()
        .filter_map(|s| Some(s.speedup()? + s.speedup_stddev().unwrap_or(0.0)))
        .fold(1.0, f64::max)
        * 1.15;
    let title = format!("{metric}: incumbent / baseline per shape (±1σ)");
    let x_desc = format!("shape (baseline: {baseline})");
    render(
        stem,
        |root| draw_speedup(root, &title, &x_desc, shapes, top),
        |root| draw_speedup(root, &title, &x_desc, shapes, top),
    )
}

fn draw_speedup<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    shapes: &[ShapeComparison],
    top: f64,
) -> std::result::Result<(), String> {
    let n = shapes.len();
    {
        root.fill(&WHITE).map_err(|x| x.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(16)
            .x_label_area_size(56)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0.0..top)
            .map_err(|x| x.to_string())?;
        let label_of = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                shapes[i as usize].label.clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(1)
            .x_desc(x_desc)
            .y_desc("speedup (×)")
            .x_labels(n.min(30))
            .x_label_formatter(&label_of)
            .y_label_formatter(&|y| units::times(*y))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(|x| x.to_string())?;
        let bars: Vec<(usize, f64)> = shapes
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.speedup().map(|v| (i, v)))
            .collect();
        chart
            .draw_series(bars.iter().map(|&(i, v)| {
                let colour = if v >= 1.0 { GREEN_700 } else { RED_700 };
                Rectangle::new(
                    [(i as f64 - 0.3, 0.0), (i as f64 + 0.3, v)],
                    colour.filled(),
                )
            }))
            .map_err(|x| x.to_string())?
            .label("speedup (incumbent / baseline)")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], GREEN_700.filled()));
        for (i, s) in shapes.iter().enumerate() {
            let x = i as f64;
            if let (Some(v), Some(sd)) = (s.speedup(), s.speedup_stddev()) {
                let (lo, hi) = ((v - sd).max(0.0), v + sd);
                for path in [
                    vec![(x, lo), (x, hi)],
                    vec![(x - 0.1, lo), (x + 0.1, lo)],
                    vec![(x - 0.1, hi), (x + 0.1, hi)],
                ] {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            path,
                            BLACK.stroke_width(1),
                        )))
                        .map_err(|x| x.to_string())?;
                }
            }
            if s.speedup().is_none() {
                let check = if s.incumbent_check != kcamp_core::types::Check::Pass {
                    s.incumbent_check
                } else {
                    s.baseline_check
                };
                chart
                    .draw_series(std::iter::once(Text::new(
                        check.as_str().to_owned(),
                        (x - 0.3, top * 0.05),
                        (FONT, 14).into_font().color(&RED),
                    )))
                    .map_err(|x| x.to_string())?;
            }
        }
        chart
            .draw_series(DashedLineSeries::new(
                vec![(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
                6,
                4,
                GREY_500.stroke_width(2),
            ))
            .map_err(|x| x.to_string())?
            .label("1× (no change)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], GREY_500.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FONT, 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|x| x.to_string())?;
        root.present().map_err(|x| x.to_string())
    }
}

/// A log axis label only where the mantissa is 1, 2 or 5: the other key points stay as
/// grid lines without crowding the axis.
fn decade_label(v: f64, format: fn(f64) -> String) -> String {
    if !(v.is_finite() && v > 0.0) {
        return String::new();
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    if [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6) {
        format(v)
    } else {
        String::new()
    }
}

/// The attainable FLOP/s of `peaks` at intensity `x`.
fn roof_at(peaks: &UtilPeaks, x: f64) -> f64 {
    peaks.flops.value.min(x * peaks.bandwidth.value)
}

/// The (intensity, FLOP/s) of the shapes that have both.
pub fn roofline_points(shapes: &[ShapeRoof]) -> Vec<(&str, f64, f64)> {
    shapes
        .iter()
        .filter_map(|s| {
            let r = s.flop_rate?;
            (s.intensity.is_finite() && s.intensity > 0.0 && r > 0.0).then_some((
                s.label.as_str(),
                s.intensity,
                r,
            ))
        })
        .collect()
}

/// The roofline (log-log): measured roofs solid, cited roofs dashed, their ridge points,
/// and the baseline's and the incumbent's shapes as labelled points. Writes
/// `<stem>.svg|png`.
pub fn chart_roofline(
    roofs: &Roofs,
    baseline: &[ShapeRoof],
    incumbent: &[ShapeRoof],
    stem: &Path,
) -> Result<ChartFiles> {
    let base_pts = roofline_points(baseline);
    let inc_pts = roofline_points(incumbent);
    if base_pts.is_empty() && inc_pts.is_empty() {
        return Err(Error::State(format!(
            "no measured shape to place on the roofline for {}",
            stem.display()
        )));
    }
    let roof_list: Vec<(&str, &UtilPeaks, bool)> = [
        ("measured", roofs.measured.as_ref(), false),
        ("cited", roofs.cited.as_ref(), true),
    ]
    .into_iter()
    .filter_map(|(name, p, dashed)| p.map(|p| (name, p, dashed)))
    .collect();
    let xs = base_pts.iter().chain(&inc_pts).map(|p| p.1);
    let ridges = roof_list.iter().map(|(_, p, _)| p.ridge_point());
    let (x_lo, x_hi) = xs
        .chain(ridges)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    let (x_lo, x_hi) = (x_lo / 4.0, x_hi * 4.0);
    let ys = base_pts
        .iter()
        .chain(&inc_pts)
        .map(|p| p.2)
        .chain(roof_list.iter().map(|(_, p, _)| p.flops.value));
    let (y_lo, y_hi) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    let y_lo = y_lo
        .min(
            roof_list
                .iter()
                .map(|(_, p, _)| roof_at(p, x_lo))
                .fold(f64::INFINITY, f64::min),
        )
        .max(y_hi * 1e-7)
        / 2.0;
    let y_hi = y_hi * 2.0;
    let input = RooflineChart {
        roofs: &roof_list,
        base: &base_pts,
        inc: &inc_pts,
        x: (x_lo, x_hi),
        y: (y_lo, y_hi),
    };
    render(
        stem,
        |root| draw_roofline(root, &input),
        |root| draw_roofline(root, &input),
    )
}

type RoofPoint<'a> = (&'a str, f64, f64);

struct RooflineChart<'a> {
    roofs: &'a [(&'a str, &'a UtilPeaks, bool)],
    base: &'a [RoofPoint<'a>],
    inc: &'a [RoofPoint<'a>],
    x: (f64, f64),
    y: (f64, f64),
}

fn draw_roofline<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    input: &RooflineChart<'_>,
) -> std::result::Result<(), String> {
    let RooflineChart {
        roofs: roof_list,
        base: base_pts,
        inc: inc_pts,
        x: (x_lo, x_hi),
        y: (y_lo, y_hi),
    } = *input;
    {
        root.fill(&WHITE).map_err(|x| x.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Roofline: forward pass per shape", (FONT, 22))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(96)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(|x| x.to_string())?;
        chart
            .configure_mesh()
            .max_light_lines(1)
            .x_desc("arithmetic intensity (FLOP/B)")
            .y_desc("attained (FLOP/s)")
            .x_label_formatter(&|x| decade_label(*x, units::sig))
            .y_label_formatter(&|y| decade_label(*y, units::flop_rate))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(|x| x.to_string())?;
        for (name, peaks, dashed) in roof_list {
            let ridge = peaks.ridge_point();
            let line = vec![
                (x_lo, roof_at(peaks, x_lo)),
                (ridge, peaks.flops.value),
                (x_hi, peaks.flops.value),
            ];
            let colour = if *dashed { GREY_500 } else { BLACK };
            // The source ids are in the report beside the chart; the legend stays narrow.
            let legend = format!(
                "{name} roof: {}, {}",
                units::flop_rate(peaks.flops.value),
                units::byte_rate(peaks.bandwidth.value),
            );
            if *dashed {
                chart
                    .draw_series(DashedLineSeries::new(line, 8, 5, colour.stroke_width(2)))
                    .map_err(|x| x.to_string())?
                    .label(legend)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
            } else {
                chart
                    .draw_series(LineSeries::new(line, colour.stroke_width(2)))
                    .map_err(|x| x.to_string())?
                    .label(legend)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
            }
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((ridge, peaks.flops.value))
                        + Circle::new((0, 0), 4, colour.filled())
                        + Text::new(
                            format!("{name} ridge {}", units::intensity(ridge)),
                            (6, 6),
                            (FONT, 13).into_font(),
                        ),
                ))
                .map_err(|x| x.to_string())?;
        }
        // Baseline labels below their point, incumbent labels above, so both stay legible
        // when a shape barely moved.
        for (name, points, colour, filled, label_dy) in [
            ("baseline shapes", base_pts, GREY_500, false, 4),
            ("incumbent shapes", inc_pts, BLUE_700, true, -16),
        ] {
            if points.is_empty() {
                continue;
            }
            let style = if filled {
                colour.filled()
            } else {
                colour.stroke_width(2)
            };
            chart
                .draw_series(points.iter().map(|&(label, x, y)| {
                    EmptyElement::at((x, y))
                        + Circle::new((0, 0), 5, style)
                        + Text::new(label.to_owned(), (7, label_dy), (FONT, 12).into_font())
                }))
                .map_err(|x| x.to_string())?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 9, y), 5, style));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FONT, 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|x| x.to_string())?;
        root.present().map_err(|x| x.to_string())
    }
}

/// Draw the same chart as SVG and PNG; each file appears complete or not at all, with
/// mode 0644 like every other document of the campaign.
fn render<S, P>(stem: &Path, draw_svg: S, draw_png: P) -> Result<ChartFiles>
where
    S: FnOnce(DrawingArea<SVGBackend<'_>, Shift>) -> std::result::Result<(), String>,
    P: FnOnce(DrawingArea<BitMapBackend<'_>, Shift>) -> std::result::Result<(), String>,
{
    ensure_font()?;
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let chart_error = |path: &Path, msg: String| {
        Error::Internal(format!("drawing the chart {}: {msg}", path.display()))
    };

    let mut text = String::new();
    draw_svg(SVGBackend::with_string(&mut text, CHART_SIZE).into_drawing_area())
        .map_err(|m| chart_error(&svg, m))?;
    kcamp_core::fsutil::write_atomic(&svg, text.as_bytes())?;

    // The bitmap backend writes its file itself: draw into a temp name, then rename.
    let dir = png
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    kcamp_core::fsutil::create_dir_all(dir)?;
    let tmp = fault("write", &png)
        .and_then(|()| {
            tempfile::Builder::new()
                .prefix(kcamp_core::fsutil::TMP_PREFIX)
                .suffix(".png")
                .tempfile_in(dir)
        })
        .ctx(|| {
            format!(
                "creating a temp file in {} to write {}",
                dir.display(),
                png.display()
            )
        })?;
    draw_png(BitMapBackend::new(tmp.path(), CHART_SIZE).into_drawing_area())
        .map_err(|m| chart_error(&png, m))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .ctx(|| format!("setting the mode of {}", png.display()))?;
    }
    fault("fsync", &png)
        .and_then(|()| tmp.as_file().sync_all())
        .ctx(|| format!("syncing {}", png.display()))?;
    fault("rename", &png).ctx(|| format!("renaming into {}", png.display()))?;
    tmp.persist(&png)
        .map_err(|e| Error::io(format!("renaming into {}", png.display()), e.error))?;
    kcamp_core::fsutil::sync_dir(dir)?;
    Ok(ChartFiles { svg, png })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data;

    /// Every `<text>` of an SVG, parsed as XML.
    fn svg_texts(path: &Path) -> (Vec<String>, roxmltree::Document<'static>) {
        let text: &'static str = Box::leak(std::fs::read_to_string(path).unwrap().into_boxed_str());
        let doc = roxmltree::Document::parse(text).unwrap();
        let texts = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(|t| t.trim().to_owned()))
            .collect();
        (texts, doc)
    }

    /// Every label must be the whole text of some `<text>` element.
    fn assert_labels(texts: &[String], labels: &[&str]) {
        for label in labels {
            assert!(texts.iter().any(|t| t == label), "{label} not in {texts:?}");
        }
    }

    fn count(doc: &roxmltree::Document<'_>, tag: &str) -> usize {
        doc.descendants().filter(|n| n.has_tag_name(tag)).count()
    }

    fn assert_png(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o644, 0o644, "{} has mode {mode:o}", path.display());
        let img = image::open(path).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), CHART_SIZE);
        let distinct: std::collections::HashSet<[u8; 3]> = img.pixels().map(|p| p.0).collect();
        assert!(distinct.len() > 10, "only {} colours", distinct.len());
        let non_white = img.pixels().filter(|p| p.0 != [255, 255, 255]).count();
        assert!(non_white > 5_000, "{non_white} drawn pixels");
    }

    #[test]
    fn rounds_chart_keeps_the_shape_sets_apart_with_error_bars_and_fail_marks() {
        let dir = tempfile::tempdir().unwrap();
        let files = chart_metric_over_rounds(
            "Forward TFLOPS",
            &test_data::rounds(),
            2,
            3,
            &dir.path().join("report/metric_over_rounds"),
        )
        .unwrap();
        let (texts, doc) = svg_texts(&files.svg);
        assert_labels(
            &texts,
            &[
                "representative shapes (2): ○, incumbent ─",
                "all target shapes (3, full validations): ●, incumbent ─",
                "baseline",
                "accepted",
                "rolled back",
                "a shape FAILs",
                "round",
                "Forward TFLOPS",
            ],
        );
        assert!(
            texts.iter().any(|t| t.ends_with("GFLOP/s")),
            "y labels carry their unit: {texts:?}"
        );
        // Three rounds measured the representative set and two the full set: five markers,
        // each with an error bar (a line and two caps); five legend entries are circles too
        // (two sets, three decisions: the open round has no measurement).
        assert_eq!(count(&doc, "circle"), 3 + 2 + 5);
        assert!(
            count(&doc, "polyline") >= 5 * 3,
            "{}",
            count(&doc, "polyline")
        );
        assert_png(&files.png);
        let leftovers = std::fs::read_dir(dir.path().join("report"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".kcamp-tmp-")
            })
            .count();
        assert_eq!(leftovers, 0);
    }

    #[test]
    fn speedup_chart_names_every_shape_and_marks_a_failed_one() {
        let dir = tempfile::tempdir().unwrap();
        let files = chart_speedup(
            "Forward TFLOPS",
            &test_data::comparisons(),
            "round 1's kernel re-measured in this run",
            &dir.path().join("s"),
        )
        .unwrap();
        let (texts, _) = svg_texts(&files.svg);
        assert_labels(
            &texts,
            &[
                "s128",
                "s256",
                "odd",
                "FAIL",
                "1× (no change)",
                "speedup (×)",
                "shape (baseline: round 1's kernel re-measured in this run)",
            ],
        );
        assert!(texts.iter().any(|t| t == "2.00×"), "{texts:?}");
        assert_png(&files.png);
    }

    #[test]
    fn roofline_chart_has_both_roofs_ridges_and_labelled_points() {
        let dir = tempfile::tempdir().unwrap();
        let roofs = test_data::roofs();
        let base = kcamp_core::analysis::shape_roofs(
            kcamp_core::types::OpName::Gemm,
            kcamp_core::types::Dtype::F32,
            &test_data::baseline_table(),
            roofs.primary(),
        );
        let inc = kcamp_core::analysis::shape_roofs(
            kcamp_core::types::OpName::Gemm,
            kcamp_core::types::Dtype::F32,
            &test_data::incumbent_table(),
            roofs.primary(),
        );
        let files = chart_roofline(&roofs, &base, &inc, &dir.path().join("roof")).unwrap();
        let (texts, doc) = svg_texts(&files.svg);
        assert_labels(
            &texts,
            &[
                "measured roof: 100 GFLOP/s, 10.0 GB/s",
                "cited roof: 150 GFLOP/s, 20.0 GB/s",
                "measured ridge 10.0 FLOP/B",
                "cited ridge 7.50 FLOP/B",
                "baseline shapes",
                "incumbent shapes",
                "arithmetic intensity (FLOP/B)",
            ],
        );
        // Two baseline points (odd FAILed) and three incumbent points, each labelled.
        assert_eq!(
            texts.iter().filter(|t| *t == "s128").count(),
            2,
            "{texts:?}"
        );
        assert_eq!(texts.iter().filter(|t| *t == "odd").count(), 1, "{texts:?}");
        assert!(count(&doc, "circle") >= 5 + 2);
        assert_png(&files.png);
    }

    #[test]
    fn charts_without_data_are_an_error_and_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let open_only = [RoundPoint {
            round: 1,
            label: "x".into(),
            decision: None,
            validation: None,
            quick: None,
            full: None,
            failed: Vec::new(),
            delta: None,
            parent: None,
        }];
        assert!(chart_metric_over_rounds("m", &open_only, 1, 1, &dir.path().join("a")).is_err());
        assert!(chart_speedup("m", &[], "b", &dir.path().join("b")).is_err());
        assert!(chart_roofline(&Roofs::default(), &[], &[], &dir.path().join("c")).is_err());
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}
