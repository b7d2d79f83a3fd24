//! The built-in runner as a [`Measurer`]: the campaign's shapes through isolated workers.

use std::ffi::OsString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::path::Path;

use kcamp_core::artifacts::fingerprint::Fingerprint;
use kcamp_core::artifacts::result::RunResult;
use kcamp_core::campaign::{Campaign, MeasureRequest, Measurer, PairingSupport};
use kcamp_core::case::ProgressEvent;
use kcamp_core::files::RESULT_JSON;
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
        opts.paired_kernel_dir = req.paired_kernel_dir.clone();
        opts.check_shapes = req.check_shapes.clone();
        opts.seed = Some(req.seed);
        opts.cancel = Arc::clone(&self.cancel);
        let report =
            run_campaign_cases(&req.campaign.dir, &req.campaign.manifest, &opts, on_event)?;
        // A cancelled run stops between cases; its partial artifacts are not a measurement.
        if self.cancel.load(Ordering::SeqCst) {
            // Counted as the progress counts them: the timed shapes, then those only checked.
            let reached = |reason: Option<&str>| reason != Some(CANCELLED_REASON);
            let done = report
                .outcomes
                .iter()
                .filter(|o| reached(o.reason.as_deref()))
                .count()
                + report
                    .result
                    .checked_shapes
                    .iter()
                    .filter(|s| reached(s.reason.as_deref()))
                    .count();
            let (timed, checked) = (req.shapes.len(), req.check_shapes.len());
            let of = if checked == 0 {
                format!("{timed} shapes")
            } else {
                format!(
                    "{} shapes to run ({timed} to time, {checked} to check only)",
                    timed + checked
                )
            };
            return Err(Error::Cancelled(format!(
                "cancelled after {done} of {of}: nothing was recorded"
            )));
        }
        // The CLI prints the run's RESULT_JSON line (from the measurement's summary), the
        // same way for this runner and for harness commands.
        Ok(())
    }

    fn origin(&self, _validation: Validation) -> String {
        "builtin".to_owned()
    }

    fn pairing(&self, _validation: Validation) -> PairingSupport {
        PairingSupport::Interleaved
    }

    fn checks_untimed_shapes(&self) -> bool {
        true
    }

    fn is_builtin(&self) -> bool {
        true
    }

    fn fingerprint(&self, _campaign: &Campaign, out_dir: &Path) -> Result<Fingerprint> {
        let path = out_dir.join(RESULT_JSON);
        RunResult::read(&path)?
            .map(|r| Fingerprint::of_result(&r))
            .ok_or_else(|| Error::Internal(format!("the run wrote no {}", path.display())))
    }
}
