//! REPORT: the final full validation of the incumbent. Rendering the report is the
//! caller's (kcamp-report); it runs under the campaign lock through a callback, so the
//! report describes exactly the measurement just made.

use serde_json::json;

use super::layout::{Campaign, tree_hash};
use super::measure::{MeasureSource, abandon, measure};
use crate::case::ProgressEvent;
use crate::files::{BENCHMARK_CSV, KERNEL_DIR};
use crate::schema::BenchTable;
use crate::types::Validation;
use crate::{Error, Result};

/// The directory (under the campaign) where the final validation's artifacts go.
pub const FINAL_VALIDATION_DIR: &str = "report/final";

/// The incumbent's numbers a final report is made from.
#[derive(Debug, Clone)]
pub struct FinalMeasurement {
    pub incumbent: u32,
    /// The final full validation's CSV, or the incumbent's recorded one (no run).
    pub table: BenchTable,
    /// How the final validation was measured; None when no run was made.
    pub origin: Option<String>,
}

/// With a `source`, a final full validation of the incumbent (the working kernel must equal
/// its snapshot and no round may be open); without, the incumbent's recorded CSV. Then
/// `write` renders the report, still under the lock.
pub fn final_report<T>(
    c: &Campaign,
    source: Option<MeasureSource<'_>>,
    on_event: &mut dyn FnMut(ProgressEvent),
    write: impl FnOnce(&FinalMeasurement) -> Result<T>,
) -> Result<T> {
    let _lock = c.lock("kcamp report")?;
    super::recover(c)?;
    let incumbent = c
        .incumbent()?
        .ok_or_else(|| Error::State("no BASELINE yet: run `kcamp baseline` first".into()))?;
    let frozen = c.frozen_header()?;
    let measurement = match source {
        Some(source) => {
            if let Some(open) = c.open_round()? {
                return Err(Error::State(format!(
                    "round {open} is open: accept or roll it back before the final report"
                )));
            }
            if tree_hash(&c.kernel_dir())? != tree_hash(&c.round_dir(incumbent).join(KERNEL_DIR))? {
                return Err(Error::State(format!(
                    "kernel/ differs from the incumbent's snapshot (round {incumbent}): roll back or validate first"
                )));
            }
            let out = c.dir.join(FINAL_VALIDATION_DIR);
            let measured = measure(
                c,
                source,
                Validation::Full,
                incumbent,
                frozen.as_deref(),
                &out,
                on_event,
            )
            .map_err(|e| abandon(c, e, "report", incumbent, Validation::Full, &[]))?;
            c.journal(
                "final_validation",
                Some(incumbent),
                json!({"origin": measured.origin}),
            )?;
            FinalMeasurement {
                incumbent,
                table: measured.table,
                origin: Some(measured.origin),
            }
        }
        None => FinalMeasurement {
            incumbent,
            table: BenchTable::read_held_to(
                &c.artifacts_dir(incumbent).join(BENCHMARK_CSV),
                frozen.as_deref(),
            )?,
            origin: None,
        },
    };
    let out = write(&measurement)?;
    c.journal(
        "report",
        Some(incumbent),
        json!({"final_validation": measurement.origin.is_some()}),
    )?;
    Ok(out)
}
