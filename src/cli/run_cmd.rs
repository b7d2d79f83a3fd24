//! `kcamp run`, `kcamp peak`, `kcamp util`, and the hidden `kcamp __worker`.
//!
//! OWNER: runner helper (`peak` measurement kernels come from the gpu helper).

use clap::Args;

use super::{AdapterArgs, CmdOutput, Ctx, not_yet};
use crate::Result;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// quick (representative shapes) or full (all target shapes).
    #[arg(long, default_value = "full")]
    pub shapes: String,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args)]
pub struct PeakArgs {
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args)]
pub struct UtilArgs {
    #[arg(long)]
    pub gpu: String,
    #[arg(long)]
    pub dtype: String,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {}

pub fn run(_ctx: &Ctx, _a: &RunArgs) -> Result<CmdOutput> {
    not_yet("run")
}
pub fn peak(_ctx: &Ctx, _a: &PeakArgs) -> Result<CmdOutput> {
    not_yet("peak")
}
pub fn util(_ctx: &Ctx, _a: &UtilArgs) -> Result<CmdOutput> {
    not_yet("util")
}
pub fn worker(_a: &WorkerArgs) -> Result<CmdOutput> {
    not_yet("__worker")
}
