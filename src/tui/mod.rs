//! The dashboard (SPEC §11).
//!
//! OWNER: tui helper.

use std::path::Path;

use crate::Result;
use crate::cli::CmdOutput;

/// Open the dashboard on a campaign; returns the quit summary.
pub fn run_dashboard(_dir: &Path) -> Result<CmdOutput> {
    Err(crate::Error::Internal(
        "the dashboard is not implemented yet".into(),
    ))
}
