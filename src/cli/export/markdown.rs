//! Markdown exports: a verdict a reviewer reads first, then the table, then where the
//! numbers come from. Numbers go through `kcamp_core::units`.

use std::fmt::Write as _;

use kcamp_core::gate::{GateReport, ShapeClass, ShapeVerdict};
use kcamp_core::units;
use kcamp_report::markdown::cell;

use super::{Exporter, GateSides, LogRow};

pub struct Markdown;

impl Exporter for Markdown {
    fn gate(&self, r: &GateReport, dim_names: &[&str], sides: &GateSides) -> String {
        let metric = &r.metric;
        let mut md = format!("### kcamp gate: **{}** ({metric})\n\n", r.verdict.as_str());
        for reason in &r.reasons {
            let _ = writeln!(md, "- {}", cell(reason));
        }
        // A p column only when a test was run (samples beside the CSVs).
        let tested = r.shapes.iter().any(|s| s.p_value.is_some());
        let (p_head, p_rule) = if tested { (" p |", "---:|") } else { ("", "") };
        let _ = writeln!(
            md,
            "\n| label | {} | check | incumbent | candidate | Δ | band |{p_head} class |\n|---|---|---|---:|---:|---:|---:|{p_rule}---|",
            dim_names.join("×")
        );
        let mut rows = Vec::with_capacity(r.shapes.len());
        for s in &r.shapes {
            let mut md = String::new();
            let check = if s.incumbent_check != s.check {
                format!("{}→{}", s.incumbent_check.as_str(), s.check.as_str())
            } else {
                s.check.as_str().to_owned()
            };
            let p = match (tested, s.p_value) {
                (false, _) => String::new(),
                (true, Some(p)) => format!(" {} |", units::p_value(p)),
                (true, None) => " - |".to_owned(),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |{p} {}{} |",
                cell(&s.label),
                units::dims(&s.dims),
                check,
                units::metric_opt(s.incumbent, metric),
                units::metric_opt(s.candidate, metric),
                s.delta.map_or_else(|| "-".to_owned(), units::change),
                s.delta
                    .map_or_else(|| "-".to_owned(), |_| units::band(s.band)),
                s.class.as_str(),
                if s.hard_regression {
                    " **REGRESSION**"
                } else {
                    ""
                }
            );
            rows.push(md);
        }
        push_rows(&mut md, &r.shapes, rows);
        let _ = writeln!(
            md,
            "\nAggregate (geomean over shapes that PASS on both sides): {} → {} ({}).",
            units::metric_opt(r.aggregate.incumbent, metric),
            units::metric_opt(r.aggregate.candidate, metric),
            r.aggregate
                .delta
                .map_or_else(|| "-".to_owned(), units::change)
        );
        let measured = |m: &Option<String>| {
            m.as_deref().map_or_else(
                || " (no run record beside it)".to_owned(),
                |m| format!(", measured on {m}"),
            )
        };
        let _ = writeln!(
            md,
            "\n<sub>incumbent `{}`{}; candidate `{}`{}. Band = max({}, {}·r), r the combined relative stddev of the two sides; a shape below -max({}, band) is a regression.</sub>",
            sides.base,
            measured(&sides.base_measured),
            sides.candidate,
            measured(&sides.candidate_measured),
            units::percent(r.config.noise_floor * 100.0),
            r.config.stddev_multiplier,
            units::percent(r.config.regression_threshold * 100.0),
        );
        md
    }

    fn log(&self, metric: &str, rows: &[LogRow]) -> String {
        let mut md = format!(
            "| round | decision | validation | {metric} (geomean) | Δ (gate) | hypothesis |\n|---|---|---|---:|---:|---|\n"
        );
        for r in rows {
            let _ = writeln!(
                md,
                "| {}{} | {}{} | {} | {} | {} | {} |",
                r.round,
                if r.incumbent { " ★" } else { "" },
                r.state(),
                if r.forced { " (forced)" } else { "" },
                r.validation.map_or("-", |v| v.as_str()),
                match r.aggregate {
                    Some(a) => format!("{} ({} shapes)", units::metric(a, metric), r.shapes),
                    None => "-".to_owned(),
                },
                r.delta_text(),
                cell(&r.hypothesis)
            );
        }
        md.push_str("\n<sub>★ the incumbent. Δ is the gate's, against the incumbent each round was judged against, over the same shapes; a round with failing shapes shows FAIL, not a gain.</sub>\n");
        md
    }
}

/// The most characters a GitHub comment holds.
const COMMENT_CHARS: usize = 65_536;
/// Room kept for what follows the table (the aggregate and the footnote).
const AFTER_TABLE_CHARS: usize = 2_000;

/// The table's rows, every one where the comment holds them; otherwise the shapes that
/// decide first (failed, hard regressions, other regressions, then improved and neutral ones,
/// most negative Δ first within each) and a line saying how many are left out and where
/// they all are.
fn push_rows(md: &mut String, shapes: &[ShapeVerdict], rows: Vec<String>) {
    let room = COMMENT_CHARS.saturating_sub(md.chars().count() + AFTER_TABLE_CHARS);
    let total: usize = rows.iter().map(|r| r.chars().count()).sum();
    if total <= room {
        rows.iter().for_each(|r| md.push_str(r));
        return;
    }
    let rank = |s: &ShapeVerdict| match s.class {
        ShapeClass::Failed => 0,
        _ if s.hard_regression => 1,
        ShapeClass::Regressed => 2,
        ShapeClass::Improved => 3,
        ShapeClass::Ambiguous => 4,
        ShapeClass::Neutral => 5,
    };
    let mut order: Vec<usize> = (0..shapes.len()).collect();
    order.sort_by(|&a, &b| {
        let delta = |i: usize| shapes[i].delta.unwrap_or(f64::NEG_INFINITY);
        rank(&shapes[a])
            .cmp(&rank(&shapes[b]))
            .then(delta(a).total_cmp(&delta(b)))
    });
    // Room for the line that counts the rest.
    let mut left = room.saturating_sub(300);
    let mut shown = 0;
    for &i in &order {
        let n = rows[i].chars().count();
        if n > left {
            break;
        }
        md.push_str(&rows[i]);
        left -= n;
        shown += 1;
    }
    let rest = &order[shown..];
    let count = |class: ShapeClass| rest.iter().filter(|&&i| shapes[i].class == class).count();
    let _ = writeln!(
        md,
        "\n_{} of {} shapes are shown, those that decide first; {} more ({} improved, {} neutral, {} regressed, {} failed) would not fit in a pull-request comment ({} characters at most): `--format csv` lists every shape._",
        shown,
        shapes.len(),
        rest.len(),
        count(ShapeClass::Improved),
        count(ShapeClass::Neutral),
        count(ShapeClass::Regressed),
        count(ShapeClass::Failed),
        COMMENT_CHARS
    );
}
