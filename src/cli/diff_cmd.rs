//! `kcamp diff [A] [B]`: the unified diff of two kernels of the campaign — two rounds'
//! snapshots, or a round's and the working `kernel/`.

use clap::Args;

use super::{CmdOutput, Ctx};
use kcamp_core::Result;
use kcamp_core::campaign::Campaign;
use kcamp_core::campaign::diff::{KernelSide, kernel_diff, parse_round};
use kcamp_core::next::{Command, NextStep};

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct DiffArgs {
    /// The older side: a round (`3` or `r3`) or `kernel` (the working kernel/); default: the
    /// incumbent.
    #[arg(value_name = "A")]
    pub from: Option<String>,
    /// The newer side, the same way; default: the working kernel/.
    #[arg(value_name = "B")]
    pub to: Option<String>,
}

/// `kernel`, `kernel/` or `working` is the working kernel; anything else names a round.
fn side(text: &str) -> Result<KernelSide> {
    match text.trim_end_matches('/') {
        "kernel" | "working" => Ok(KernelSide::Working),
        round => parse_round(round).map(KernelSide::Round),
    }
}

pub fn diff(ctx: &Ctx, a: &DiffArgs) -> Result<CmdOutput> {
    let c = Campaign::open_base(&ctx.campaign)?;
    let from = match &a.from {
        Some(text) => side(text)?,
        None => KernelSide::Round(c.incumbent()?.ok_or_else(|| {
            kcamp_core::Error::state(
                "no BASELINE yet: there is no incumbent to compare the working kernel with.",
                vec![NextStep::run(Command::Baseline)],
            )
        })?),
    };
    let to = match &a.to {
        Some(text) => side(text)?,
        None => KernelSide::Working,
    };
    let diff = kernel_diff(&c.dir, from, to)?;
    let mut human = diff.unified();
    human.push_str(&diff.summary());
    let next = if to == KernelSide::Working && c.open_round()?.is_some() {
        vec![NextStep::run(Command::Validate).why("measures the working kernel")]
    } else {
        vec![NextStep::run(Command::Log).why("the rounds and what became of each")]
    };
    let summary = diff.summary();
    let (added, removed) = diff.totals();
    Ok(CmdOutput::ok(
        serde_json::json!({
            "from": diff.from,
            "to": diff.to,
            "changed": diff.changed().count(),
            "added": added,
            "removed": removed,
            "summary": summary,
            "files": diff.files,
        }),
        human,
    )
    .with_next(next))
}
