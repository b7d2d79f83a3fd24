//! Producing a round's benchmark CSV: imported from the user's harness, produced by the
//! manifest's external command, or measured by the built-in wgpu runner.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Validation;
use super::layout::{BENCHMARK_CSV, Campaign, SAMPLES_CSV};
use crate::error::IoContext;
use crate::fsutil::write_atomic;
use crate::manifest::AdapterSelector;
use crate::schema::{BenchTable, Samples};
use crate::{Error, Result};

/// Where a measurement comes from.
#[derive(Debug, Clone)]
pub enum MeasureSource {
    /// Import a CSV written by any harness (its `samples.csv` beside it is taken too).
    Csv(PathBuf),
    /// The manifest's `quick_command`/`full_command` if set, else the built-in runner
    /// (with an optional adapter override).
    Run { adapter: Option<AdapterSelector> },
}

/// A measurement, already written into `out_dir`.
#[derive(Debug, Clone)]
pub struct Measured {
    pub table: BenchTable,
    pub samples: Option<Samples>,
    /// How it was produced, for the journal: `import:<path>`, `command:<cmd>`, `builtin`.
    pub origin: String,
}

/// Measure the kernel in `kernel_dir` into `out_dir` (the round's `artifacts/`). The CSV
/// is held to `frozen` when given. `shapes` are the labels this validation covers.
pub fn measure(
    campaign: &Campaign,
    source: &MeasureSource,
    validation: Validation,
    round: u32,
    frozen: Option<&str>,
    out_dir: &Path,
    on_event: &mut dyn FnMut(crate::runner::ProgressEvent),
) -> Result<Measured> {
    std::fs::create_dir_all(out_dir).ctx(|| format!("creating {}", out_dir.display()))?;
    let csv_out = out_dir.join(BENCHMARK_CSV);
    match source {
        MeasureSource::Csv(path) => {
            let table = BenchTable::read_held_to(path, frozen)?;
            let samples_in = path.with_file_name(SAMPLES_CSV);
            let samples = if samples_in.is_file() {
                Some(Samples::read(&samples_in)?)
            } else {
                None
            };
            // Copy the exact bytes: the frozen header is a byte-level contract.
            let bytes = std::fs::read(path).ctx(|| format!("reading {}", path.display()))?;
            write_atomic(&csv_out, &bytes)?;
            if let Some(s) = &samples {
                write_atomic(&out_dir.join(SAMPLES_CSV), s.to_csv().as_bytes())?;
            }
            Ok(Measured {
                table,
                samples,
                origin: format!("import:{}", path.display()),
            })
        }
        MeasureSource::Run { adapter } => {
            let command = match validation {
                Validation::Quick => campaign.manifest.quick_command.as_ref(),
                Validation::Full => campaign
                    .manifest
                    .full_command
                    .as_ref()
                    .or(campaign.manifest.quick_command.as_ref()),
            };
            if let Some(cmd) = command {
                run_external(campaign, cmd, validation, &csv_out)?;
                return read_measured(out_dir, frozen, format!("command:{cmd}"));
            }
            let selector = adapter
                .clone()
                .unwrap_or_else(|| campaign.manifest.adapter.clone());
            builtin_run(campaign, validation, round, &selector, out_dir, on_event)?;
            read_measured(out_dir, frozen, "builtin".to_owned())
        }
    }
}

/// The CSV (held to the frozen header) and the samples a harness or the runner left in
/// `out_dir`.
fn read_measured(out_dir: &Path, frozen: Option<&str>, origin: String) -> Result<Measured> {
    let table = BenchTable::read_held_to(&out_dir.join(BENCHMARK_CSV), frozen)?;
    let samples_path = out_dir.join(SAMPLES_CSV);
    let samples = if samples_path.is_file() {
        Some(Samples::read(&samples_path)?)
    } else {
        None
    };
    Ok(Measured {
        table,
        samples,
        origin,
    })
}

/// Run the manifest's harness command through `sh -c` in the campaign directory with
/// `{csv}` replaced by the (shell-quoted) output path. The shapes of this validation are
/// passed as `KCAMP_SHAPES` (comma-separated labels) and `KCAMP_VALIDATION`.
fn run_external(
    campaign: &Campaign,
    cmd: &str,
    validation: Validation,
    csv_out: &Path,
) -> Result<()> {
    let labels: Vec<&str> = match validation {
        Validation::Quick => campaign
            .manifest
            .representative_shapes
            .iter()
            .map(String::as_str)
            .collect(),
        Validation::Full => campaign
            .manifest
            .target_shapes
            .iter()
            .map(|s| s.label.as_str())
            .collect(),
    };
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
            None if start.elapsed() > budget => {
                let _ = child.kill();
                let _ = child.wait();
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

/// The built-in wgpu runner: writes benchmark.csv, samples.csv and result.json into
/// `out_dir`.
fn builtin_run(
    campaign: &Campaign,
    validation: Validation,
    round: u32,
    selector: &AdapterSelector,
    out_dir: &Path,
    on_event: &mut dyn FnMut(crate::runner::ProgressEvent),
) -> Result<()> {
    let mut opts = crate::runner::CampaignRunOptions::new(validation);
    opts.adapter = Some(selector.clone());
    opts.artifacts_dir = Some(out_dir.to_path_buf());
    opts.round = Some(round);
    let report =
        crate::runner::run_campaign_cases(&campaign.dir, &campaign.manifest, &opts, on_event)?;
    // The run's one-line summary for logs and agents (stderr keeps --json stdout clean).
    eprintln!("{}", report.result_line);
    Ok(())
}
