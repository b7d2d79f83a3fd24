//! CSV exports: raw numbers in the metric's own unit (as in the frozen-schema CSVs), one
//! row per shape or round, quoted by the csv crate.

use kcamp_core::gate::GateReport;

use super::{Exporter, GateSides, LogRow};

pub struct Csv;

/// A number that parses back to the same value; very small or large ones in exponent form
/// (a p-value of 2.9e-19 written out is 36 characters of zeros).
fn num(v: Option<f64>) -> String {
    v.map(|x| {
        if x != 0.0 && x.is_finite() && !(1e-5..1e16).contains(&x.abs()) {
            format!("{x:e}")
        } else {
            x.to_string()
        }
    })
    .unwrap_or_default()
}

fn finish(w: csv::Writer<Vec<u8>>) -> String {
    w.into_inner()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

impl Exporter for Csv {
    fn gate(&self, r: &GateReport, dim_names: &[&str], _sides: &GateSides) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = vec!["label".into()];
        header.extend(dim_names.iter().map(|d| (*d).to_owned()));
        header.extend(
            [
                "incumbent_check",
                "candidate_check",
                &format!("incumbent {}", r.metric),
                &format!("candidate {}", r.metric),
                "delta",
                "band",
                "p_value",
                "class",
                "regression",
            ]
            .map(str::to_owned),
        );
        let _ = w.write_record(&header);
        for s in &r.shapes {
            let mut row: Vec<String> = vec![s.label.clone()];
            row.extend(s.dims.iter().map(u64::to_string));
            row.extend([
                s.incumbent_check.as_str().to_owned(),
                s.check.as_str().to_owned(),
                num(s.incumbent),
                num(s.candidate),
                num(s.delta),
                // No change, no band it was held to (as the tables show it).
                num(s.delta.map(|_| s.band)),
                num(s.p_value),
                s.class.as_str().to_owned(),
                s.hard_regression.to_string(),
            ]);
            let _ = w.write_record(&row);
        }
        finish(w)
    }

    fn log(&self, metric: &str, rows: &[LogRow]) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record([
            "round",
            "incumbent",
            "decision",
            "validation",
            "verdict",
            &format!("aggregate {metric}"),
            "aggregate_shapes",
            "delta",
            "parent",
            "failed",
            "forced",
            "reason",
            "git_commit",
            "hypothesis",
        ]);
        for r in rows {
            let _ = w.write_record([
                r.round.to_string(),
                r.incumbent.to_string(),
                r.state().to_owned(),
                r.validation.map_or("", |v| v.as_str()).to_owned(),
                r.verdict.clone().unwrap_or_default(),
                num(r.aggregate),
                r.shapes.to_string(),
                num(r.delta),
                r.parent.map(|p| p.to_string()).unwrap_or_default(),
                r.failed.join("; "),
                r.forced.to_string(),
                r.reason.clone().unwrap_or_default(),
                r.git_commit.clone().unwrap_or_default(),
                r.hypothesis.clone(),
            ]);
        }
        finish(w)
    }
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_round_trip_and_tiny_ones_use_an_exponent() {
        for x in [
            0.0,
            1.0,
            0.05,
            123.456,
            2.8795748467386033e-19,
            3e20,
            -4.5e-7,
            1e-5,
        ] {
            let text = num(Some(x));
            assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
            assert!(text.len() <= 24, "{text}");
        }
        assert_eq!(num(Some(2.8795748467386033e-19)), "2.8795748467386033e-19");
        assert_eq!(num(Some(0.05)), "0.05");
        assert_eq!(num(None), "");
    }
}
