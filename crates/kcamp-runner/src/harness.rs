//! An external harness: the campaign's own `quick_command`/`full_command`, run through
//! `sh -c` in the campaign directory with `{csv}` replaced by the output path and
//! `{kernel_dir}` (also `$KCAMP_KERNEL_DIR`) by the kernel directory to measure. The gate
//! judges its CSV exactly like the built-in runner's. A harness that takes a kernel
//! directory also measures the incumbent's snapshot in the same sitting, so the verdict
//! compares two numbers of one run; one that does not is judged against recorded numbers,
//! fingerprint-checked, and the verdict says so.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kcamp_core::artifacts::fingerprint::{Fingerprint, HarnessIdentity};
use kcamp_core::campaign::{Campaign, MeasureRequest, Measurer, PairingSupport};
use kcamp_core::case::ProgressEvent;
use kcamp_core::error::IoContext;
use kcamp_core::files::{BENCHMARK_CSV, PAIRED_CSV, PAIRED_SAMPLES_CSV, SAMPLES_CSV};
use kcamp_core::manifest::Manifest;
use kcamp_core::types::Validation;
use kcamp_core::{Error, Result};

use crate::lifeline::{GroupGuard, die_with_parent, kill_group};

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

    /// Whether the command can be pointed at another kernel directory.
    fn takes_kernel_dir(&self, validation: Validation) -> bool {
        let cmd = self.command(validation);
        cmd.contains(KERNEL_DIR_PLACEHOLDER) || cmd.contains("KCAMP_KERNEL_DIR")
    }
}

/// Replaced by the kernel directory to measure (also in `$KCAMP_KERNEL_DIR`).
pub const KERNEL_DIR_PLACEHOLDER: &str = "{kernel_dir}";
/// Where the paired run's own files go before they are renamed beside the scored CSV.
const PAIRED_RUN_DIR: &str = "paired-run";

impl Measurer for Harness {
    fn measure(
        &self,
        req: &MeasureRequest<'_>,
        _on_event: &mut dyn FnMut(ProgressEvent),
    ) -> Result<()> {
        let cmd = self.command(req.validation);
        if let Some(dir) = &req.paired_kernel_dir {
            // The incumbent first, then the candidate, in one sitting; each run gets its own
            // directory so that a `samples.csv` written beside `{csv}` stays its own.
            let run_dir = req.out_dir.join(PAIRED_RUN_DIR);
            std::fs::create_dir_all(&run_dir).ctx(|| format!("creating {}", run_dir.display()))?;
            run_external(req, cmd, &run_dir.join(BENCHMARK_CSV), dir, &self.cancel)?;
            for (from, to) in [
                (BENCHMARK_CSV, PAIRED_CSV),
                (SAMPLES_CSV, PAIRED_SAMPLES_CSV),
            ] {
                let from = run_dir.join(from);
                if from.is_file() {
                    let to = req.out_dir.join(to);
                    std::fs::rename(&from, &to)
                        .ctx(|| format!("renaming {} to {}", from.display(), to.display()))?;
                }
            }
        }
        run_external(
            req,
            cmd,
            &req.out_dir.join(BENCHMARK_CSV),
            &req.kernel_dir,
            &self.cancel,
        )
    }

    fn origin(&self, validation: Validation) -> String {
        format!("command:{}", self.command(validation))
    }

    fn pairing(&self, validation: Validation) -> PairingSupport {
        if self.takes_kernel_dir(validation) {
            PairingSupport::SameRun
        } else {
            PairingSupport::Unsupported(format!(
                "the harness command `{}` takes no kernel directory (put {KERNEL_DIR_PLACEHOLDER} or $KCAMP_KERNEL_DIR in it), so it cannot re-measure the incumbent's snapshot",
                self.command(validation)
            ))
        }
    }

    fn fingerprint(&self, campaign: &Campaign, _out_dir: &Path) -> Result<Fingerprint> {
        let harness = HarnessIdentity::of_commands(&campaign.manifest, &campaign.dir)?
            .ok_or_else(|| Error::Internal("a harness without commands".into()))?;
        Ok(Fingerprint::external(harness))
    }
}

/// Run the manifest's harness command through `sh -c` in the campaign directory with
/// `{csv}` replaced by the (shell-quoted, absolute) output path and `{kernel_dir}` by the
/// (quoted, absolute) kernel directory. The shapes of this validation are passed as
/// `KCAMP_SHAPES` (comma-separated labels), the level as `KCAMP_VALIDATION`, the kernel
/// directory as `KCAMP_KERNEL_DIR`. The command runs in its own process group, which dies
/// with this process and is killed when the command ends, so nothing it started outlives
/// the measurement. Its output goes to `harness.log` beside the CSV; on failure a copy is
/// kept at `live/harness.log` (the staging directory is removed) and its tail is quoted.
fn run_external(
    req: &MeasureRequest<'_>,
    cmd: &str,
    csv_out: &Path,
    kernel_dir: &Path,
    cancel: &AtomicBool,
) -> Result<()> {
    let campaign = req.campaign;
    let validation = req.validation;
    let labels: Vec<&str> = req.shapes.iter().map(|s| s.label.as_str()).collect();
    // The command runs in the campaign directory: paths given relative to ours would
    // point elsewhere there.
    let absolute = |p: &Path| std::path::absolute(p).ctx(|| format!("resolving {}", p.display()));
    let csv_out = absolute(csv_out)?;
    let campaign_dir = absolute(&campaign.dir)?;
    let kernel_dir = absolute(kernel_dir)?;
    let line = cmd
        .replace(
            "{csv}",
            &kcamp_core::text::shell_word(&csv_out.to_string_lossy()),
        )
        .replace(
            KERNEL_DIR_PLACEHOLDER,
            &kcamp_core::text::shell_word(&kernel_dir.to_string_lossy()),
        );
    let log_path = csv_out.with_file_name("harness.log");
    let log =
        std::fs::File::create(&log_path).ctx(|| format!("creating {}", log_path.display()))?;
    let log_err = log
        .try_clone()
        .ctx(|| format!("opening {}", log_path.display()))?;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&line)
        .current_dir(&campaign_dir)
        .env("KCAMP_SHAPES", labels.join(","))
        .env("KCAMP_KERNEL_DIR", &kernel_dir)
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
        .process_group(0);
    die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .ctx(|| format!("starting harness command `{line}`"))?;
    let pgid = child.id();
    let guard = match GroupGuard::watch(pgid) {
        Ok(g) => g,
        Err(e) => {
            kill_group(pgid);
            let _ = child.wait();
            return Err(e);
        }
    };
    // The harness runs every shape: allow the per-case timeout for each, plus start-up.
    let budget = Duration::from_secs_f64(
        campaign.manifest.effective_timeout_sec()? * labels.len().max(1) as f64 + 60.0,
    );
    let start = Instant::now();
    let outcome = loop {
        match child.try_wait() {
            Err(e) => break Err(format!("could not be waited for ({e})")),
            Ok(Some(status)) if status.success() => break Ok(()),
            Ok(Some(status)) => {
                break Err(format!("failed with {status}"));
            }
            Ok(None) if cancel.load(Ordering::SeqCst) => {
                kill_group(pgid);
                let _ = child.wait();
                guard.release();
                return Err(Error::Cancelled(format!(
                    "cancelled: harness command `{line}` was stopped; nothing was recorded"
                )));
            }
            Ok(None) if start.elapsed() > budget => {
                kill_group(pgid);
                let _ = child.wait();
                break Err(format!(
                    "ran past {:.0} s and was killed",
                    budget.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    // Whatever the command left running in its group (a background job) ends with it.
    kill_group(pgid);
    guard.release();
    if let Err(what) = outcome {
        let kept = keep_log(&campaign_dir, &log_path);
        return Err(Error::input(format!(
            "harness command `{line}` {what}; {kept}"
        )));
    }
    if !csv_out.is_file() {
        return Err(Error::input(format!(
            "harness command `{line}` succeeded but wrote no CSV at {}",
            csv_out.display()
        )));
    }
    Ok(())
}

/// Lines of a failed harness's output quoted in the error.
const LOG_TAIL_LINES: usize = 12;

/// Copy a failed harness's log to `live/harness.log` (the staging directory it was in is
/// about to be removed) and describe it: where it is, and its last lines.
fn keep_log(campaign_dir: &Path, log: &Path) -> String {
    let text = std::fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let kept = campaign_dir.join("live").join("harness.log");
    let place = match kcamp_core::fsutil::write_atomic(&kept, text.as_bytes()) {
        Ok(()) => format!("its output is in {}", kept.display()),
        Err(e) => format!("its output could not be kept ({e})"),
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
    if tail.is_empty() {
        return format!("{place} (empty)");
    }
    let tail: Vec<String> = tail
        .iter()
        .map(|l| kcamp_core::text::quote(l, 200))
        .collect();
    format!("{place}; last lines:\n  {}", tail.join("\n  "))
}
