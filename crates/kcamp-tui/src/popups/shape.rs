//! One shape of a round, opened with Enter on its gate row: its verdict and whole reason,
//! its samples on both sides (a distribution each), its value in every round, and its
//! place on the roofline as `kcamp analyze` states it. The samples and the roofline come
//! in after the popup opens (a file read, a command); until then it says so.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{place, render, scrolled};
use crate::derive::{GateLine, Tone};
use crate::keys::{Action, Context};
use crate::style::Theme;
use crate::view::{fmt_metric, fmt_pct, key_hints_without, tone_style};
use kcamp_core::analysis::ShapeRoof;
use kcamp_core::specs::Bound;
use kcamp_core::units;

/// A gate row as `y` copies it, whole: label, dims, check, class, both values, Δ, band,
/// p and the whole reason (`s32 [1×32×32×32] PASS regressed: 120 GFLOP/s → 10.1 GFLOP/s,
/// Δ -91.6% (band ±5.0%, p 0.004)`); a BASELINE row, its value.
pub fn shape_text(l: &GateLine, metric: &str) -> String {
    let mut text = l.label.clone();
    if !l.dims.is_empty() {
        text.push_str(&format!(" [{}]", l.dims));
    }
    text.push_str(&format!(" {}", l.check.as_str()));
    match l.class {
        Some(class) => {
            text.push_str(&format!(" {}", class.as_str()));
            if l.untimed {
                text.push_str(" (untimed)");
            }
            text.push_str(&format!(
                ": {} → {}, Δ {}",
                fmt_metric(l.incumbent, metric),
                fmt_metric(l.candidate, metric),
                fmt_pct(l.delta)
            ));
            let mut stats = Vec::new();
            if let Some(band) = l.band {
                stats.push(format!("band {}", units::band(band)));
            }
            if let Some(p) = l.p_value {
                stats.push(format!("p {}", units::p_value(p)));
            }
            if !stats.is_empty() {
                text.push_str(&format!(" ({})", stats.join(", ")));
            }
        }
        None => text.push_str(&format!(
            ": {} (no gate: its own value)",
            fmt_metric(l.candidate, metric)
        )),
    }
    if let Some(reason) = &l.reason {
        text.push_str(&format!(" — {reason}"));
    }
    text
}

/// Where a part of the popup stands: asked for, come in, or failed (said in full).
#[derive(Debug, Clone, PartialEq)]
pub enum Pending<T> {
    Loading,
    Ready(T),
    Failed(String),
}

/// Both sides' samples of the shape, in the primary metric.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShapeSamples {
    pub incumbent: Vec<f64>,
    pub candidate: Vec<f64>,
    /// Where the incumbent's come from (`paired_samples.csv`: measured in the same run).
    pub incumbent_source: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ShapePopup {
    pub round: u32,
    /// The incumbent the round was judged against.
    pub parent: Option<u32>,
    pub metric: String,
    pub line: GateLine,
    /// The verdict's reasons that name this shape.
    pub reasons: Vec<String>,
    /// (round, value) of every measured round that has the shape.
    pub history: Vec<(u32, Option<f64>)>,
    pub samples: Pending<ShapeSamples>,
    pub roof: Pending<Option<ShapeRoof>>,
    pub scroll: usize,
}

/// Widest the popup gets.
const MAX_WIDTH: u16 = 100;
/// Bars of a distribution.
const BINS: usize = 24;
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// `values` as one row of bars, scaled to the largest (`None`: a gap, `·`).
pub fn spark(values: &[Option<f64>]) -> String {
    let top = values.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
    values
        .iter()
        .map(|v| match v {
            None => '·',
            Some(_) if top <= 0.0 => BARS[0],
            Some(v) => BARS[((v / top) * 7.0).round().clamp(0.0, 7.0) as usize],
        })
        .collect()
}

/// Two sample sets as histograms over one shared range: each bar a bin's count, so the
/// sides can be compared by eye. (lo, hi) is the range.
fn distributions(a: &[f64], b: &[f64]) -> Option<(String, String, f64, f64)> {
    let all = a.iter().chain(b).copied().filter(|v| v.is_finite());
    let (lo, hi) = all.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
    if lo > hi {
        return None;
    }
    let span = (hi - lo).max(hi.abs() * 1e-9).max(f64::MIN_POSITIVE);
    let hist = |values: &[f64]| {
        let mut bins = [0usize; BINS];
        for v in values.iter().filter(|v| v.is_finite()) {
            let i = (((v - lo) / span) * BINS as f64).floor() as usize;
            bins[i.min(BINS - 1)] += 1;
        }
        let top = *bins.iter().max().unwrap_or(&0);
        bins.iter()
            .map(|&n| match n {
                0 => ' ',
                n => BARS[((n as f64 / top as f64) * 7.0).round().clamp(0.0, 7.0) as usize],
            })
            .collect::<String>()
    };
    Some((hist(a), hist(b), lo, hi))
}

fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    })
}

impl ShapePopup {
    pub fn title(&self) -> String {
        format!("Shape {} of round {}", self.line.label, self.round)
    }

    pub fn on_key(
        &mut self,
        action: Option<Action>,
        _key: &KeyEvent,
        area: Rect,
    ) -> super::viewer::ViewerOutcome {
        use super::viewer::ViewerOutcome;
        match action {
            Some(Action::Dismiss) => ViewerOutcome::Close,
            Some(Action::Copy) => ViewerOutcome::Copy,
            None => ViewerOutcome::Unknown,
            other => {
                let placed = place(area, MAX_WIDTH, &self.body(Theme::plain()), 1);
                if let Some(s) = scrolled(self.scroll, other, &placed) {
                    self.scroll = s;
                }
                ViewerOutcome::Stay
            }
        }
    }

    /// What `y` copies: the shape's line and its whole reason.
    pub fn copy_text(&self) -> String {
        shape_text(&self.line, &self.metric)
    }

    pub fn body(&self, theme: Theme) -> Vec<Line<'static>> {
        let l = &self.line;
        let m = self.metric.as_str();
        let key = |k: &str| Span::styled(format!("{k:<11}  "), theme.dim());
        let row = |k: &str, v: String, tone: Tone| {
            Line::from(vec![key(k), Span::styled(v, tone_style(theme, tone))])
        };
        let mut out = Vec::new();
        let verdict_tone = match l.class {
            Some(kcamp_core::gate::ShapeClass::Improved) => Tone::Good,
            Some(
                kcamp_core::gate::ShapeClass::Regressed | kcamp_core::gate::ShapeClass::Failed,
            ) => Tone::Bad,
            _ if l.check != kcamp_core::types::Check::Pass => Tone::Bad,
            _ => Tone::Normal,
        };
        let class = l
            .class
            .map_or("not judged (BASELINE values)", |c| c.as_str());
        let untimed = if l.untimed {
            " · checked, not timed"
        } else {
            ""
        };
        out.push(row(
            "verdict",
            format!("{} · {class}{untimed}", l.check.as_str()),
            verdict_tone,
        ));
        out.push(row("dims", l.dims.clone(), Tone::Normal));
        let against = self
            .parent
            .map_or(String::new(), |p| format!(" (r{p} → r{})", self.round));
        // A shape the run could not time (a FAIL) has no incumbent value of its own in
        // this gate: the incumbent's, from its round in the history, is still worth saying.
        let incumbent = match (l.incumbent, self.parent) {
            (Some(v), _) => fmt_metric(Some(v), m),
            (None, Some(p)) => match self.history.iter().find(|(n, _)| *n == p) {
                Some((_, Some(v))) => format!("{} (r{p}'s own run)", fmt_metric(Some(*v), m)),
                _ => fmt_metric(None, m),
            },
            (None, None) => fmt_metric(None, m),
        };
        out.push(row(
            "value",
            format!("{incumbent} → {}{against}", fmt_metric(l.candidate, m)),
            Tone::Normal,
        ));
        if l.delta.is_some() || l.band.is_some() {
            let mut text = format!(
                "Δ {} · band {} · p {}",
                fmt_pct(l.delta),
                l.band.map_or("—".into(), units::band),
                l.p_value.map_or("—".into(), units::p_value)
            );
            if let Some(means) = l.means_delta() {
                text.push_str(&format!(" · means {}", fmt_pct(Some(means))));
            }
            out.push(row("change", text, Tone::Normal));
            if l.disagrees() {
                out.push(row(
                    "≠",
                    "the paired Δ (the median of the per-unit ratios, measured side by side) and the ratio of the means disagree: the run drifted while it was measured; the paired Δ is the one the gate judged".into(),
                    Tone::Warn,
                ));
            }
        }
        match &l.reason {
            Some(reason) => {
                let mut lines = reason.lines().filter(|x| !x.trim().is_empty());
                if let Some(first) = lines.next() {
                    out.push(row("reason", first.trim_end().to_owned(), Tone::Bad));
                }
                for more in lines {
                    out.push(row("", more.trim_end().to_owned(), Tone::Normal));
                }
            }
            None if l.check != kcamp_core::types::Check::Pass => out.push(row(
                "reason",
                "no reason recorded (a CSV from a harness: its log says why)".into(),
                Tone::Dim,
            )),
            None => {}
        }
        for (i, r) in self.reasons.iter().enumerate() {
            out.push(row(
                if i == 0 { "gate says" } else { "" },
                r.clone(),
                Tone::Normal,
            ));
        }
        out.push(Line::default());
        match &self.samples {
            Pending::Loading => out.push(row("samples", "reading…".into(), Tone::Dim)),
            Pending::Failed(e) => out.push(row("samples", e.clone(), Tone::Dim)),
            Pending::Ready(s) => match distributions(&s.incumbent, &s.candidate) {
                None => out.push(row(
                    "samples",
                    "none recorded for this shape".into(),
                    Tone::Dim,
                )),
                Some((inc, cand, lo, hi)) => {
                    out.push(row(
                        "samples",
                        format!(
                            "from {} to {} ({} bins)",
                            fmt_metric(Some(lo), m),
                            fmt_metric(Some(hi), m),
                            BINS
                        ),
                        Tone::Dim,
                    ));
                    let side = |name: &str, bars: String, values: &[f64], note: String| {
                        Line::from(vec![
                            key(name),
                            Span::styled(format!("▕{bars}▏"), theme.chart_lineage()),
                            Span::raw(format!(
                                " {} samples, median {}{note}",
                                values.len(),
                                fmt_metric(median(values), m)
                            )),
                        ])
                    };
                    let inc_name = self
                        .parent
                        .map_or("incumbent".to_owned(), |p| format!("r{p}"));
                    out.push(side(
                        &inc_name,
                        inc,
                        &s.incumbent,
                        format!(" · {}", s.incumbent_source),
                    ));
                    out.push(side(
                        &format!("r{}", self.round),
                        cand,
                        &s.candidate,
                        String::new(),
                    ));
                }
            },
        }
        let values: Vec<Option<f64>> = self.history.iter().map(|(_, v)| *v).collect();
        if let (Some(first), Some(last)) = (self.history.first(), self.history.last()) {
            let best = self
                .history
                .iter()
                .filter_map(|(n, v)| v.map(|v| (*n, v)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            out.push(Line::from(vec![
                key("history"),
                Span::styled(spark(&values), theme.chart_lineage()),
                Span::raw(format!(
                    " r{}–r{}{}",
                    first.0,
                    last.0,
                    best.map_or(String::new(), |(n, v)| format!(
                        " · best r{n} {}",
                        fmt_metric(Some(v), m)
                    ))
                )),
            ]));
            out.push(row(
                "",
                "each mark a round's own run (· not measured or not PASS); runs far apart in time are not side by side".into(),
                Tone::Dim,
            ));
        }
        match &self.roof {
            Pending::Loading => {
                out.push(row("roofline", "asking `kcamp analyze`…".into(), Tone::Dim))
            }
            Pending::Failed(e) => out.push(row("roofline", e.clone(), Tone::Dim)),
            Pending::Ready(None) => out.push(row(
                "roofline",
                "`kcamp analyze` has no line for this shape".into(),
                Tone::Dim,
            )),
            Pending::Ready(Some(r)) => {
                let bound = match r.bound {
                    Some(Bound::Memory) => "memory-bound",
                    Some(Bound::Compute) => "compute-bound",
                    None => "no peaks known (run `kcamp peak`)",
                };
                let of_peak = match r.bound {
                    Some(Bound::Memory) => r
                        .bandwidth_pct
                        .map(|p| format!("{}% of the bandwidth peak", units::sig(p))),
                    Some(Bound::Compute) => r
                        .compute_pct
                        .map(|p| format!("{}% of the FLOP peak", units::sig(p))),
                    None => None,
                };
                let mut text = format!("{bound} at {} FLOP/B", units::sig(r.intensity));
                if let Some(p) = of_peak {
                    text.push_str(&format!(" · {p}"));
                }
                if let Some(h) = r.headroom {
                    text.push_str(&format!(" · headroom ×{}", units::sig(h)));
                }
                out.push(row("roofline", text, Tone::Normal));
            }
        }
        out
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let placed = place(area, MAX_WIDTH, &self.body(theme), 1);
        let hints = key_hints_without(
            Context::Viewer,
            theme,
            placed.footer.width as usize,
            &[Action::Filter, Action::NextMatch],
        );
        render(
            frame,
            &placed,
            &self.title(),
            self.scroll,
            vec![hints],
            theme,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparks_and_distributions_scale_and_mark_gaps() {
        assert_eq!(spark(&[Some(1.0), None, Some(2.0), Some(0.0)]), "▅·█▁");
        let (a, b, lo, hi) = distributions(&[1.0, 1.0, 2.0], &[3.0, 3.0, 3.0]).unwrap();
        assert_eq!((lo, hi), (1.0, 3.0));
        assert_eq!(a.chars().count(), BINS);
        assert!(a.starts_with('█') && b.ends_with('█'), "{a}|{b}");
        assert!(distributions(&[], &[]).is_none());
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }
}
