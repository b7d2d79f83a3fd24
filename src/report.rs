//! baseline_report.md, report.md and charts.
//!
//! OWNER: records helper.

use crate::Result;
use crate::campaign::Campaign;
use crate::cli::CmdOutput;
use crate::manifest::AdapterSelector;

/// `kcamp report`: final full validation of the incumbent (unless `run` is false),
/// report.md and charts. Wired by the lead after the records merge.
pub fn campaign_report(_c: &Campaign, _run: bool, _adapter: Option<AdapterSelector>) -> Result<CmdOutput> {
    Err(crate::Error::Internal("`kcamp report` is not linked yet".into()))
}
