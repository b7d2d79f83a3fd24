//! init, baseline, round, validate, accept, rollback, status, log, report.
//!
//! OWNER: lead.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{AdapterArgs, CmdOutput, Ctx, not_yet};
use crate::Result;

#[derive(Debug, Args)]
pub struct InitArgs {
    pub dir: PathBuf,
    #[arg(long, default_value = "gemm")]
    pub op: String,
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    /// YAML or CSV file of target shapes (default: the op's standard set).
    #[arg(long)]
    pub shapes: Option<PathBuf>,
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub primary_metric: Option<String>,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Import this CSV (from your own harness) instead of running the kernel.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Subcommand)]
pub enum RoundCommand {
    /// Open round N with its one hypothesis.
    New {
        #[arg(long)]
        hypothesis: String,
    },
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// All target shapes instead of the representative ones.
    #[arg(long)]
    pub full: bool,
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

#[derive(Debug, Args)]
pub struct AcceptArgs {
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct RollbackArgs {
    #[arg(long)]
    pub reason: String,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Skip the final full validation and report on the recorded rounds only.
    #[arg(long)]
    pub no_run: bool,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

pub fn init(_ctx: &Ctx, _a: &InitArgs) -> Result<CmdOutput> {
    not_yet("init")
}
pub fn baseline(_ctx: &Ctx, _a: &BaselineArgs) -> Result<CmdOutput> {
    not_yet("baseline")
}
pub fn round(_ctx: &Ctx, _c: &RoundCommand) -> Result<CmdOutput> {
    not_yet("round")
}
pub fn validate(_ctx: &Ctx, _a: &ValidateArgs) -> Result<CmdOutput> {
    not_yet("validate")
}
pub fn accept(_ctx: &Ctx, _a: &AcceptArgs) -> Result<CmdOutput> {
    not_yet("accept")
}
pub fn rollback(_ctx: &Ctx, _a: &RollbackArgs) -> Result<CmdOutput> {
    not_yet("rollback")
}
pub fn status(_ctx: &Ctx) -> Result<CmdOutput> {
    not_yet("status")
}
pub fn log(_ctx: &Ctx) -> Result<CmdOutput> {
    not_yet("log")
}
pub fn report(_ctx: &Ctx, _a: &ReportArgs) -> Result<CmdOutput> {
    not_yet("report")
}
