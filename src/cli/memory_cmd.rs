//! `kcamp memory create|update|show|list|mask|unmask`.
//!
//! OWNER: records helper.

use clap::Subcommand;

use super::{CmdOutput, Ctx, not_yet};
use crate::Result;

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Placeholder until the records helper defines the subcommands.
    List,
}

pub fn memory(_ctx: &Ctx, _c: &MemoryCommand) -> Result<CmdOutput> {
    not_yet("memory")
}
