//! Glue between decisions and the iteration records / reports.

use super::layout::Campaign;
use crate::Result;

/// BASELINE: memory/v0.json and baseline_report.md.
pub fn on_baseline(_c: &Campaign) -> Result<()> {
    Ok(())
}

/// ACCEPT or ROLLBACK of round N: memory/v<N-1>.json.
pub fn on_decision(_c: &Campaign, _round: u32) -> Result<()> {
    Ok(())
}
