//! `kcamp round new`: opens round N with its one hypothesis.

use serde_json::json;

use super::layout::Campaign;
use super::recover::recover;
use crate::files::HYPOTHESIS_FILE;
use crate::fsutil::{remove_dir_if_exists, rename, write_atomic};
use crate::next::{Command, NextStep};
use crate::{Error, Result};

pub fn new_round(c: &Campaign, hypothesis: &str) -> Result<u32> {
    crate::text::check_one_line(
        "--hypothesis",
        hypothesis,
        crate::text::MAX_HYPOTHESIS_CHARS,
    )?;
    let _lock = c.lock("kcamp round new")?;
    recover(c)?;
    let hypothesis = hypothesis.trim();
    if hypothesis.is_empty() {
        return Err(
            Error::input("--hypothesis must not be empty: one round, one hypothesis").with_next(
                vec![
                    NextStep::run(Command::RoundNew)
                        .arg("hypothesis", "stage 64x64 tiles in workgroup memory"),
                ],
            ),
        );
    }
    if c.incumbent()?.is_none() {
        return Err(super::no_baseline());
    }
    if let Some(open) = c.open_round()? {
        return Err(Error::state(
            format!("round {open} is still open; accept or roll it back before opening another."),
            vec![
                NextStep::run(Command::Validate).then(Command::Accept),
                NextStep::rollback(),
            ],
        ));
    }
    if let Some(t) = super::target::incumbent_status(c)?.filter(|t| t.met) {
        return Err(Error::state(
            format!(
                "the performance target is met ({}): the campaign is done.",
                t.describe()
            ),
            vec![
                NextStep::run(Command::Report)
                    .why("to go on instead, raise performance_target in manifest.yaml"),
            ],
        ));
    }
    let numbers = c.round_numbers()?;
    let n = numbers.last().copied().unwrap_or(0) + 1;
    if let Some(max) = c.manifest.max_iterations
        && n - 1 > max
    {
        return Err(Error::state(
            format!(
                "max_iterations ({max}) reached: the campaign has {} optimization rounds.",
                n - 2
            ),
            vec![
                NextStep::run(Command::Report)
                    .why("to go on instead, raise max_iterations in manifest.yaml"),
            ],
        ));
    }
    let staging = c.rounds_dir().join(format!(".round-{n}.tmp"));
    remove_dir_if_exists(&staging)?;
    write_atomic(
        &staging.join(HYPOTHESIS_FILE),
        format!("{hypothesis}\n").as_bytes(),
    )?;
    rename(&staging, &c.round_dir(n))?;
    c.journal("round_opened", Some(n), json!({"hypothesis": hypothesis}))?;
    super::git::commit_step(
        c,
        Some(n),
        &super::git::subject(n, &format!("opened: {hypothesis}")),
    )?;
    Ok(n)
}
