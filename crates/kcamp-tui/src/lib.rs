//! kcamp-tui: the dashboard (docs/dashboard.md), in the Elm architecture: [`app`] holds the
//! model and `update`, [`view`] draws it, `event_loop` turns terminal keys, file changes,
//! child processes, signals and ticks into messages and performs the effects `update` asks
//! for. The dashboard only reads the campaign and sends commands (the kcamp binary itself,
//! with `--json`).
//!
//! Idle, it does nothing: the watcher reports writes only (not the dashboard's own reads),
//! only the parts that changed are read again ([`loading`]), and a frame is drawn only when
//! the model changed.
//!
//! Quitting, Ctrl-C, SIGTERM and a closed terminal (SIGHUP) cancel a command the dashboard
//! started, the same way Esc does: SIGTERM to its process group, after which the command
//! kills its workers, removes its staging directories and journals `cancelled`; the
//! dashboard waits for it (SIGKILL after a grace period) before it exits.

pub mod app;
pub mod commands;
pub mod config;
pub mod derive;
mod event_loop;
/// Synthetic states for snapshots, tests and benchmarks; not in a release binary.
#[cfg(any(test, feature = "test-support"))]
pub mod fixtures;
pub mod keys;
pub mod loading;
pub mod popups;
pub mod style;
pub mod view;
mod watcher;

use std::path::{Path, PathBuf};

use kcamp_core::Result;
use kcamp_core::campaign::CampaignState;

use crate::derive::RoundStatus;

/// Reads a campaign directory into a state (the seam tests replace).
pub type Loader = fn(&Path) -> Result<CampaignState>;

/// How the dashboard reaches the outside world; tests replace the program it runs and
/// the loader.
#[derive(Debug, Clone)]
pub struct DashboardOptions {
    /// The kcamp binary that runs commands (default: this executable).
    pub program: PathBuf,
    pub loader: Loader,
    /// The campaign is a scratch copy made for this dashboard (`kcamp` outside a campaign).
    pub scratch: bool,
    /// The editor `E` runs (None: `$VISUAL`, else `$EDITOR`, else `vi`).
    pub editor: Option<String>,
}

impl DashboardOptions {
    pub fn from_env() -> Result<DashboardOptions> {
        let program = kcamp_core::fsutil::this_executable().map_err(|e| {
            kcamp_core::Error::io("finding the kcamp executable to run commands with", e)
        })?;
        Ok(DashboardOptions {
            program,
            // The campaign module's reader: never writes, takes no lock.
            loader: CampaignState::load,
            scratch: false,
            editor: None,
        })
    }
}

/// What the dashboard says when it closes: the campaign's standing at that moment.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DashboardSummary {
    pub campaign: String,
    /// False when the campaign was never read (the dashboard closed before loading it).
    pub loaded: bool,
    pub metric: Option<String>,
    pub rounds: usize,
    pub rounds_accepted: usize,
    pub rounds_rolled_back: usize,
    pub incumbent_round: Option<u32>,
    pub incumbent_aggregate: Option<f64>,
    pub best_round: Option<u32>,
    pub best_aggregate: Option<f64>,
    pub open_round: Option<u32>,
    /// The same, as a sentence.
    #[serde(skip)]
    pub text: String,
}

/// Open the dashboard on a campaign; returns the quit summary.
pub fn run_dashboard(dir: &Path) -> Result<DashboardSummary> {
    run_dashboard_with(dir, DashboardOptions::from_env()?)
}

/// The dashboard draws on stdout: into a pipe or a file it would write escape codes that no
/// one sees, and wait for keys. Refused then, with the commands it stands for.
pub fn require_terminal() -> Result<()> {
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Ok(());
    }
    Err(kcamp_core::Error::input(
        "the dashboard draws on a terminal, and stdout is not one (a pipe or a file): run it in a terminal, or use the commands it stands for (`kcamp status`, `kcamp log`, `kcamp accept`, `kcamp rollback`)",
    ))
}

pub fn run_dashboard_with(dir: &Path, options: DashboardOptions) -> Result<DashboardSummary> {
    if !dir.join(kcamp_core::files::MANIFEST_FILE).is_file() {
        return Err(kcamp_core::manifest::not_a_campaign(dir));
    }
    require_terminal()?;
    let last_state = event_loop::run(dir, &options)?;
    Ok(summary(last_state.as_ref(), dir))
}

/// The quit summary: incumbent, best aggregate, how many rounds were accepted and rolled
/// back. The text says the same as the fields.
pub fn summary(state: Option<&CampaignState>, dir: &Path) -> DashboardSummary {
    let Some(state) = state else {
        return DashboardSummary {
            campaign: dir.display().to_string(),
            loaded: false,
            metric: None,
            rounds: 0,
            rounds_accepted: 0,
            rounds_rolled_back: 0,
            incumbent_round: None,
            incumbent_aggregate: None,
            best_round: None,
            best_aggregate: None,
            open_round: None,
            text: format!(
                "Dashboard closed; the campaign in {} was never read.",
                dir.display()
            ),
        };
    };
    let rounds = derive::round_lines(state);
    let chart = derive::chart(state);
    let count = |s: RoundStatus| rounds.iter().filter(|r| r.status == s).count();
    let accepted = count(RoundStatus::Accepted);
    let rolled_back = count(RoundStatus::RolledBack);
    let incumbent = rounds.iter().find(|r| r.incumbent);
    let metric = &state.manifest.primary_metric;
    let mut text = format!(
        "Campaign {} ({} {}, {metric}): {} round{}, {accepted} accepted, {rolled_back} rolled back",
        state.manifest.name,
        state.manifest.op.as_str(),
        state.manifest.dtype.as_str(),
        rounds.len(),
        if rounds.len() == 1 { "" } else { "s" },
    );
    match incumbent {
        Some(r) => text.push_str(&format!(
            "; incumbent is round {} at {}",
            r.number,
            view::fmt_metric(r.aggregate, metric)
        )),
        None => text.push_str("; no incumbent yet"),
    }
    if let Some((n, v)) = chart.best {
        text.push_str(&format!(
            "; best aggregate {} (round {n})",
            view::fmt_metric(Some(v), metric)
        ));
    }
    if let Some(open) = state.open_round {
        text.push_str(&format!("; round {open} is open"));
    }
    text.push('.');
    DashboardSummary {
        campaign: state.manifest.name.clone(),
        loaded: true,
        metric: Some(metric.clone()),
        rounds: rounds.len(),
        rounds_accepted: accepted,
        rounds_rolled_back: rolled_back,
        incumbent_round: incumbent.map(|r| r.number),
        incumbent_aggregate: incumbent.and_then(|r| r.aggregate),
        best_round: chart.best.map(|b| b.0),
        best_aggregate: chart.best.map(|b| b.1),
        open_round: state.open_round,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_incumbent_best_and_counts() {
        let state = fixtures::several_rounds();
        let out = summary(Some(&state), Path::new("x"));
        assert_eq!(out.rounds_accepted, 1);
        assert_eq!(out.rounds_rolled_back, 1);
        assert_eq!(out.incumbent_round, Some(2));
        assert_eq!(out.best_round, Some(2));
        assert_eq!(out.open_round, Some(4));
        assert!(out.text.contains("incumbent is round 2"), "{}", out.text);
        assert!(
            out.text.contains("1 accepted, 1 rolled back"),
            "{}",
            out.text
        );
        let empty = summary(Some(&fixtures::empty()), Path::new("x"));
        assert!(empty.text.contains("no incumbent yet"), "{}", empty.text);
        assert_eq!(empty.incumbent_round, None);
    }

    #[test]
    fn a_directory_without_manifest_is_refused_before_touching_the_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_dashboard_with(
            dir.path(),
            DashboardOptions {
                program: PathBuf::from("kcamp"),
                loader: CampaignState::load,
                scratch: false,
                editor: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("manifest.yaml"), "{err}");
    }
}
