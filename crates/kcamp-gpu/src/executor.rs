//! The executor behind `kcamp __worker`: one GPU context, opened once, runs every case the
//! runner sends.

use kcamp_core::case::{CaseExecutor, CaseOutcome, CaseSpec, ProgressEvent};
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::types::TimingMethod;
use kcamp_core::{Error, Result};

/// The worker's executor: one GPU context, opened once, runs every case it is sent.
/// `KCAMP_TIMING=host` forces the host clock (after a full device wait) even where GPU
/// timestamps exist, to compare the two methods; `timestamps` insists on timestamps.
pub fn executor(adapter: &AdapterSelector) -> Result<Box<dyn CaseExecutor>> {
    let mut ctx = crate::GpuContext::open(adapter)?;
    match std::env::var("KCAMP_TIMING").as_deref() {
        Err(_) | Ok("") | Ok("auto") => {}
        Ok("host") => ctx.set_timing_method(TimingMethod::HostClock)?,
        Ok("timestamps") => ctx.set_timing_method(TimingMethod::GpuTimestamps)?,
        Ok(other) => {
            return Err(Error::input(format!(
                "KCAMP_TIMING='{other}': expected auto, host or timestamps"
            )));
        }
    }
    Ok(Box::new(GpuExecutor { ctx }))
}

struct GpuExecutor {
    ctx: crate::GpuContext,
}

impl CaseExecutor for GpuExecutor {
    fn execute(&mut self, spec: &CaseSpec, progress: &mut dyn FnMut(ProgressEvent)) -> CaseOutcome {
        crate::execute_case(&self.ctx, spec, progress)
    }
}
