//! The built-in runner as a [`Measurer`]: the campaign's shapes through isolated workers.

use std::ffi::OsString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kcamp_core::campaign::{MeasureRequest, Measurer};
use kcamp_core::case::ProgressEvent;
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::types::Validation;
use kcamp_core::{Error, Result};

use crate::campaign_run::{CampaignRunOptions, run_campaign_cases};
use crate::isolation::CANCELLED_REASON;

/// The built-in runner: WGSL kernels through wgpu, each case in a `kcamp __worker`.
#[derive(Debug, Clone, Default)]
pub struct Builtin {
    /// Overrides the manifest's adapter selector.
    pub adapter: Option<AdapterSelector>,
    /// Worker program and arguments (default: this executable's `__worker`).
    pub worker_command: Option<Vec<OsString>>,
    /// Set to stop the run: the case in progress is abandoned (its worker killed) and
    /// `measure` answers `Error::Cancelled`.
    pub cancel: Arc<AtomicBool>,
}

impl Measurer for Builtin {
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()> {
        let mut opts = CampaignRunOptions::new(req.validation);
        opts.adapter = self.adapter.clone();
        opts.artifacts_dir = Some(req.out_dir.clone());
        opts.round = req.round;
        opts.worker_command = self.worker_command.clone();
        opts.shapes = Some(req.shapes.clone());
        opts.kernel_dir = Some(req.kernel_dir.clone());
        opts.cancel = Arc::clone(&self.cancel);
        let report =
            run_campaign_cases(&req.campaign.dir, &req.campaign.manifest, &opts, on_event)?;
        // A cancelled run stops between cases; its partial artifacts are not a measurement.
        if self.cancel.load(Ordering::SeqCst) {
            return Err(Error::Cancelled(format!(
                "cancelled after {} of {} shapes: nothing was recorded",
                report
                    .outcomes
                    .iter()
                    .filter(|o| o.reason.as_deref() != Some(CANCELLED_REASON))
                    .count(),
                req.shapes.len()
            )));
        }
        // The run's one-line summary for logs and agents (stderr keeps --json stdout clean).
        eprintln!("{}", report.result_line);
        Ok(())
    }

    fn origin(&self, _validation: Validation) -> String {
        "builtin".to_owned()
    }
}
