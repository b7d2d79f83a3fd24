//! kcamp-runner: how kcamp measures. The built-in runner runs each case in a worker
//! process (`kcamp __worker`) that is killed on timeout, writes the run's artifacts and keeps
//! `live/progress.json` current for a dashboard in another process; an external harness runs
//! the campaign's own command. Both sit behind kcamp-core's `Measurer` trait.

mod artifacts;
mod builtin;
mod campaign_run;
mod hardware;
mod harness;
mod isolation;
mod lifeline;
mod shards;
mod slurm;
mod worker;

pub use builtin::Builtin;
pub use hardware::{AdapterProbe, detect as detect_hardware};
pub use harness::Harness;

pub use artifacts::{
    apply_roofline_floor, outcomes_to_table, outcomes_to_table_with, summarize, write_run_artifacts,
};
pub use campaign_run::{CampaignRunOptions, RunReport, run_campaign_cases};
pub use isolation::{RunOptions, WorkerReuse, run_cases};
pub use lifeline::{adopt_descendants, exit_when_orphaned, terminate_with_parent};
pub use worker::{WorkerMessage, serve};

use kcamp_core::campaign::Measurer;
use kcamp_core::manifest::Manifest;

/// The campaign's measurer: its harness command when the manifest names one, else the
/// built-in runner. A campaign keeps one harness for every measurement it makes; either
/// one stops on `builtin.cancel`. A harness asks `adapters` for the GPUs wgpu finds, to
/// record the machine it ran on.
pub fn measurer_for(
    manifest: &Manifest,
    builtin: Builtin,
    adapters: AdapterProbe,
) -> Box<dyn Measurer> {
    match Harness::of(manifest) {
        Some(h) => Box::new(Harness {
            cancel: builtin.cancel,
            adapters: Some(adapters),
            ..h
        }),
        None => Box::new(builtin),
    }
}
