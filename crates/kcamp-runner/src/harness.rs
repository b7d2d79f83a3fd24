//! An external harness: the campaign's own `quick_command`/`full_command`, run through
//! `sh -c` in the campaign directory with `{csv}` replaced by the output path. The gate
//! judges its CSV exactly like the built-in runner's.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kcamp_core::campaign::{MeasureRequest, Measurer};
use kcamp_core::case::ProgressEvent;
use kcamp_core::error::IoContext;
use kcamp_core::files::BENCHMARK_CSV;
use kcamp_core::manifest::Manifest;
use kcamp_core::types::Validation;
use kcamp_core::{Error, Result};

use crate::isolation::kill_group;

/// The campaign's harness commands.
#[derive(Debug, Clone)]
pub struct Harness {
    pub quick_command: String,
    /// The full validation's command; the quick one when the manifest sets none.
    pub full_command: String,
    /// Set to stop the run: the command's process group is killed and `measure` answers
    /// `Error::Cancelled`.
    pub cancel: Arc<AtomicBool>,
}

impl Harness {
    /// The harness of a campaign whose manifest names one.
    pub fn of(manifest: &Manifest) -> Option<Harness> {
        let quick = manifest.quick_command.clone();
        let full = manifest.full_command.clone().or_else(|| quick.clone());
        Some(Harness {
            quick_command: quick.or_else(|| full.clone())?,
            full_command: full?,
            cancel: Arc::new(AtomicBool::new(false)),
        })
    }

    fn command(&self, validation: Validation) -> &str {
        match validation {
            Validation::Quick => &self.quick_command,
            Validation::Full => &self.full_command,
        }
    }
}

impl Measurer for Harness {
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        _on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()> {
        let cmd = self.command(req.validation);
        run_external(req, cmd, &req.out_dir.join(BENCHMARK_CSV), &self.cancel)
    }

    fn origin(&self, validation: Validation) -> String {
        format!("command:{}", self.command(validation))
    }
}

/// Run the manifest's harness command through `sh -c` in the campaign directory with
/// `{csv}` replaced by the (shell-quoted) output path. The shapes of this validation are
/// passed as `KCAMP_SHAPES` (comma-separated labels) and `KCAMP_VALIDATION`.
fn run_external(
    req: &MeasureRequest<'_>,
    cmd: &str,
    csv_out: &Path,
    cancel: &AtomicBool,
) -> Result<()> {
    let campaign = req.campaign;
    let validation = req.validation;
    let labels: Vec<&str> = req.shapes.iter().map(|s| s.label.as_str()).collect();
    let quoted = shell_quote(&csv_out.to_string_lossy());
    let line = cmd.replace("{csv}", &quoted);
    let log_path = csv_out.with_file_name("harness.log");
    let log =
        std::fs::File::create(&log_path).ctx(|| format!("creating {}", log_path.display()))?;
    let log_err = log
        .try_clone()
        .ctx(|| format!("opening {}", log_path.display()))?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(&campaign.dir)
        .env("KCAMP_SHAPES", labels.join(","))
        .env(
            "KCAMP_VALIDATION",
            match validation {
                Validation::Quick => "quick",
                Validation::Full => "full",
            },
        )
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        // Its own process group: a cancel or a timeout ends everything the command
        // started, not only the shell.
        .process_group(0)
        .spawn()
        .ctx(|| format!("starting harness command `{line}`"))?;
    // The harness runs every shape: allow the per-case timeout for each, plus start-up.
    let budget = Duration::from_secs_f64(
        campaign.manifest.effective_timeout_sec()? * labels.len().max(1) as f64 + 60.0,
    );
    let start = Instant::now();
    loop {
        match child
            .try_wait()
            .ctx(|| "waiting for the harness command".to_owned())?
        {
            Some(status) if status.success() => break,
            Some(status) => {
                return Err(Error::input(format!(
                    "harness command `{line}` failed with {status}; its output is in {}",
                    log_path.display()
                )));
            }
            None if cancel.load(Ordering::SeqCst) => {
                kill_group(&mut child);
                return Err(Error::Cancelled(format!(
                    "cancelled: harness command `{line}` was stopped; nothing was recorded"
                )));
            }
            None if start.elapsed() > budget => {
                kill_group(&mut child);
                return Err(Error::input(format!(
                    "harness command `{line}` ran past {:.0} s and was killed; its output is in {}",
                    budget.as_secs_f64(),
                    log_path.display()
                )));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    if !csv_out.is_file() {
        return Err(Error::input(format!(
            "harness command `{line}` succeeded but wrote no CSV at {}",
            csv_out.display()
        )));
    }
    Ok(())
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
