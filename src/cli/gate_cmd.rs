//! `kcamp gate BASE.csv CAND.csv [--metric NAME]`.
//!
//! OWNER: schema/gate helper.

use std::path::PathBuf;

use clap::Args;

use super::{CmdOutput, Ctx, not_yet};
use crate::Result;

#[derive(Debug, Args)]
pub struct GateArgs {
    /// The incumbent's CSV.
    pub base: PathBuf,
    /// The candidate's CSV.
    pub candidate: PathBuf,
    /// Metric to judge (default: the manifest's primary metric inside a campaign, else the
    /// schema's first metric column). Derived metrics such as `Combined Step TFLOPS` work.
    #[arg(long)]
    pub metric: Option<String>,
}

pub fn gate(_ctx: &Ctx, _a: &GateArgs) -> Result<CmdOutput> {
    not_yet("gate")
}
