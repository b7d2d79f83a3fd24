//! Producing a round's measurement. The engine does not measure by itself: a [`Measurer`]
//! (the built-in runner or the campaign's harness command, both in kcamp-runner) writes the
//! artifacts into a directory, or a CSV written by anything else is imported.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::layout::Campaign;
use crate::case::ProgressEvent;
use crate::error::IoContext;
use crate::files::{BENCHMARK_CSV, SAMPLES_CSV};
use crate::fsutil::write_atomic;
use crate::schema::{BenchTable, Samples};
use crate::types::{ShapeSpec, Validation};
use crate::{Error, Result};

/// One measurement to make: which kernel, which shapes, where the artifacts go.
#[derive(Debug, Clone)]
pub struct MeasureRequest<'a> {
    pub campaign: &'a Campaign,
    pub validation: Validation,
    /// The round being validated, if any (shown in the live progress).
    pub round: Option<u32>,
    /// The shapes to measure, in manifest order.
    pub shapes: Vec<ShapeSpec>,
    /// The kernel directory to measure: the working `kernel/` or a round's snapshot.
    pub kernel_dir: PathBuf,
    /// Where `benchmark.csv` (required), `samples.csv` and `result.json` are written.
    pub out_dir: PathBuf,
}

/// Something that measures kernels: the built-in runner or an external harness.
pub trait Measurer {
    /// Measures `req` and writes its artifacts into `req.out_dir`. Shapes that fail are rows
    /// of the CSV, not errors; an error means no measurement was made.
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()>;

    /// How the journal and the gate record name this measurer: `builtin`, `command:<cmd>`.
    fn origin(&self, validation: Validation) -> String;
}

/// Where a measurement comes from.
#[derive(Clone, Copy)]
pub enum MeasureSource<'a> {
    /// Import a CSV written by any harness (its `samples.csv` beside it is taken too).
    Csv(&'a Path),
    /// Measure with the campaign's measurer.
    Run(&'a dyn Measurer),
}

impl std::fmt::Debug for MeasureSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureSource::Csv(p) => write!(f, "Csv({})", p.display()),
            MeasureSource::Run(m) => write!(f, "Run({})", m.origin(Validation::Full)),
        }
    }
}

/// A measurement, already written into `out_dir`.
#[derive(Debug, Clone)]
pub struct Measured {
    pub table: BenchTable,
    pub samples: Option<Samples>,
    /// How it was produced, for the journal: `import:<path>`, `command:<cmd>`, `builtin`.
    pub origin: String,
}

/// The shapes a validation covers: the representative ones (quick) or all (full).
pub fn shapes_of(campaign: &Campaign, validation: Validation) -> Vec<ShapeSpec> {
    match validation {
        Validation::Quick => campaign
            .manifest
            .representative()
            .into_iter()
            .cloned()
            .collect(),
        Validation::Full => campaign.manifest.target_shapes.clone(),
    }
}

/// Measure the working kernel into `out_dir` (the round's staged `artifacts/`). The CSV is
/// held to `frozen` when given.
pub(crate) fn measure(
    campaign: &Campaign,
    source: MeasureSource<'_>,
    validation: Validation,
    round: u32,
    frozen: Option<&str>,
    out_dir: &Path,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<Measured> {
    std::fs::create_dir_all(out_dir).ctx(|| format!("creating {}", out_dir.display()))?;
    let csv_out = out_dir.join(BENCHMARK_CSV);
    match source {
        MeasureSource::Csv(path) => {
            let table = BenchTable::read_held_to(path, frozen)?;
            let samples_in = path.with_file_name(SAMPLES_CSV);
            let samples = if samples_in.is_file() {
                Some(Samples::read(&samples_in)?)
            } else {
                None
            };
            // Copy the exact bytes: the frozen header is a byte-level contract.
            let bytes = std::fs::read(path).ctx(|| format!("reading {}", path.display()))?;
            write_atomic(&csv_out, &bytes)?;
            if let Some(s) = &samples {
                write_atomic(&out_dir.join(SAMPLES_CSV), s.to_csv().as_bytes())?;
            }
            Ok(Measured {
                table,
                samples,
                origin: format!("import:{}", path.display()),
            })
        }
        MeasureSource::Run(measurer) => {
            let request = MeasureRequest {
                campaign,
                validation,
                round: Some(round),
                shapes: shapes_of(campaign, validation),
                kernel_dir: campaign.kernel_dir(),
                out_dir: out_dir.to_path_buf(),
            };
            measurer.measure(&request, on_event)?;
            read_measured(out_dir, frozen, measurer.origin(validation))
        }
    }
}

/// The CSV (held to the frozen header) and the samples a measurer left in `out_dir`.
fn read_measured(out_dir: &Path, frozen: Option<&str>, origin: String) -> Result<Measured> {
    let table = BenchTable::read_held_to(&out_dir.join(BENCHMARK_CSV), frozen)?;
    let samples_path = out_dir.join(SAMPLES_CSV);
    let samples = if samples_path.is_file() {
        Some(Samples::read(&samples_path)?)
    } else {
        None
    };
    Ok(Measured {
        table,
        samples,
        origin,
    })
}

/// A measurement that did not finish: its staging directories go, and a cancellation is
/// journaled (`cancelled`, with the command and the validation) so that the lineage says
/// why the round has no new verdict. Returns the error for the caller to pass on.
pub(crate) fn abandon(
    campaign: &Campaign,
    error: Error,
    command: &str,
    round: u32,
    validation: Validation,
    staging: &[&Path],
) -> Error {
    for dir in staging {
        // Best effort: the next writing command's recovery removes what is left.
        let _ = std::fs::remove_dir_all(dir);
    }
    if let Error::Cancelled(why) = &error {
        let entry = campaign.journal(
            "cancelled",
            Some(round),
            json!({"command": command, "validation": validation, "why": why}),
        );
        if let Err(e) = entry {
            return Error::Internal(format!("{why}; journaling the cancellation failed: {e}"));
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::init::temp_campaign as campaign;

    #[test]
    fn a_cancelled_measurement_removes_its_staging_and_is_journaled() {
        let (_tmp, c) = campaign();
        let stage = c.dir.join("rounds/round-2/.artifacts.tmp");
        std::fs::create_dir_all(stage.join("deep")).unwrap();
        let err = abandon(
            &c,
            Error::Cancelled("cancelled by SIGTERM".into()),
            "validate",
            2,
            Validation::Quick,
            &[&stage],
        );
        assert!(matches!(err, Error::Cancelled(_)), "{err}");
        assert!(!stage.exists());
        let last = c.read_journal().unwrap().pop().unwrap();
        assert_eq!(last.event, "cancelled");
        assert_eq!(last.round, Some(2));
        assert_eq!(last.detail["command"], "validate");
        assert_eq!(last.detail["why"], "cancelled by SIGTERM");
    }

    #[test]
    fn other_failures_clean_up_without_a_cancellation_entry() {
        let (_tmp, c) = campaign();
        let before = c.read_journal().unwrap().len();
        let stage = c.dir.join(".stage");
        std::fs::create_dir_all(&stage).unwrap();
        let err = abandon(
            &c,
            Error::input("bad csv"),
            "validate",
            2,
            Validation::Quick,
            &[&stage],
        );
        assert_eq!(err.kind(), "bad_input");
        assert!(!stage.exists());
        assert_eq!(c.read_journal().unwrap().len(), before);
    }
}
