//! Exports that paste into a pull request or a spreadsheet: one file per format behind
//! one [`Exporter`] trait (text is each command's own rendering, JSON its document).

mod csv;
mod markdown;

use kcamp_core::gate::GateReport;
use kcamp_core::types::{DecisionKind, Validation};

/// `--format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text for a terminal (default).
    #[default]
    Text,
    /// GitHub-flavoured markdown, for a pull-request comment.
    Markdown,
    /// Comma-separated values with raw numbers in the metric's unit.
    Csv,
    /// The command's JSON document (the same as --json).
    Json,
}

/// Where the two sides of a gate come from, for the export's provenance line.
#[derive(Debug, Clone, Default)]
pub struct GateSides {
    pub base: String,
    pub candidate: String,
    /// `adapter (backend), timing` from a result.json beside each CSV, if any.
    pub base_measured: Option<String>,
    pub candidate_measured: Option<String>,
}

/// One round of the lineage, as `kcamp log` exports it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LogRow {
    pub round: u32,
    pub incumbent: bool,
    pub decision: Option<DecisionKind>,
    pub validation: Option<Validation>,
    pub verdict: Option<String>,
    /// The round's aggregate of the primary metric over the shapes it measured.
    pub aggregate: Option<f64>,
    /// How many shapes that aggregate covers.
    pub shapes: usize,
    /// The gate's Δ against the incumbent it was judged against.
    pub delta: Option<f64>,
    pub parent: Option<u32>,
    /// Shapes that did not PASS.
    pub failed: Vec<String>,
    pub forced: bool,
    /// Why it was decided so, as data (`gate_reject`, `held_out_failed`, …); none while open
    /// and for the BASELINE.
    pub cause: Option<kcamp_core::campaign::DecisionCause>,
    pub reason: Option<String>,
    pub git_commit: Option<String>,
    pub hypothesis: String,
    pub time: Option<chrono::DateTime<chrono::Utc>>,
    /// The held-out check made when the round was decided (`held_out.json`), in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_out: Option<String>,
    /// That check's status, as data: `PASS`, `FAIL`, `skipped`, `not checked`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_out_status: Option<&'static str>,
}

impl LogRow {
    /// `+12.3% vs r1`, `FAIL (2 shapes)` (a round with failing shapes has no honest Δ), `-`.
    pub fn delta_text(&self) -> String {
        kcamp_core::campaign::delta_text(self.failed.len(), self.delta, self.parent)
    }

    pub fn state(&self) -> &'static str {
        self.decision.map_or("open", DecisionKind::as_str)
    }
}

/// A format that is neither the command's text nor its JSON document.
pub trait Exporter {
    fn gate(&self, report: &GateReport, dim_names: &[&str], sides: &GateSides) -> String;
    fn log(&self, metric: &str, rows: &[LogRow]) -> String;
}

/// The exporter of `format`; None for text and JSON, which every command renders itself.
pub fn exporter(format: Format) -> Option<Box<dyn Exporter>> {
    match format {
        Format::Markdown => Some(Box::new(markdown::Markdown)),
        Format::Csv => Some(Box::new(csv::Csv)),
        Format::Text | Format::Json => None,
    }
}
