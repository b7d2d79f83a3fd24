//! `kcamp adapters`.
//!
//! OWNER: gpu helper.

use super::{AdapterArgs, CmdOutput, Ctx, not_yet};
use crate::Result;

pub fn adapters(_ctx: &Ctx, _a: &AdapterArgs) -> Result<CmdOutput> {
    not_yet("adapters")
}
