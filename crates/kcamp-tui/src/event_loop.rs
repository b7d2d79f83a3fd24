//! The only place with side effects: the terminal, the file watcher, child processes and
//! the campaign loader. Everything arrives as a [`Msg`]; `update` answers with effects that
//! are performed here. Loading and commands run off this task, so the screen never waits
//! on a benchmark.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::Utc;
use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyModifiers};
use futures::StreamExt;
use tokio::sync::mpsc;

use super::DashboardOptions;
use super::app::{self, Effect, Model, Msg};
use super::commands::{CampaignCommand, CommandResult};
use super::style::Theme;
use super::{view, watcher};
use kcamp_core::artifacts::progress::Progress;
use kcamp_core::campaign::CampaignState;
use kcamp_core::files::PROGRESS_FILE;
use kcamp_core::{Error, Result};

const TICK: Duration = Duration::from_millis(250);
/// Without file notifications, the campaign is re-read this often.
const POLL_WITHOUT_WATCHER: Duration = Duration::from_secs(2);
/// A cancelled command gets this long to exit on SIGTERM before its group is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(3);

/// Restores the terminal however the loop ends (error, quit); ratatui's panic hook covers
/// panics.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// The child this dashboard started.
struct RunningChild {
    pid: Option<u32>,
    cancelled: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
}

pub fn run(dir: &Path, options: &DashboardOptions) -> Result<Option<CampaignState>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the dashboard's runtime", e))?;
    runtime.block_on(run_async(dir, options))
}

async fn run_async(dir: &Path, options: &DashboardOptions) -> Result<Option<CampaignState>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (watch_tx, mut watch_rx) = mpsc::unbounded_channel::<bool>();
    let mut model = Model::new(Theme::from_env(), Utc::now);
    let watcher = watcher::watch(dir, watch_tx).ok();
    let mut poll = tokio::time::interval(POLL_WITHOUT_WATCHER);

    let mut terminal =
        ratatui::try_init().map_err(|e| Error::io("switching the terminal to raw mode", e))?;
    let _guard = TerminalGuard;
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    let mut loader = Loader::default();
    let mut child: Option<RunningChild> = None;
    let sigterm = terminate_signal();
    tokio::pin!(sigterm);

    loader.request(dir, options, &tx);
    loop {
        terminal
            .draw(|frame| view::view(&model, frame))
            .map_err(|e| Error::io("drawing the dashboard", e))?;
        let msg = tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => Msg::Key(key),
                Some(Ok(Event::Resize(w, h))) => Msg::Resize(w, h),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(Error::io("reading terminal events", e)),
                None => break,
            },
            Some(msg) = rx.recv() => msg,
            Some(progress_only) = watch_rx.recv() => Msg::FilesChanged { progress_only },
            _ = tick.tick() => Msg::Tick,
            _ = poll.tick(), if watcher.is_none() => Msg::FilesChanged { progress_only: false },
            () = &mut sigterm => Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        };
        if matches!(msg, Msg::StateLoaded(_)) {
            loader.finished(dir, options, &tx);
        }
        if let Msg::CommandFinished { .. } = msg {
            child = None;
        }
        let mut quit = false;
        for effect in app::update(&mut model, msg) {
            match effect {
                Effect::Reload => loader.request(dir, options, &tx),
                Effect::ReadProgress => read_progress(dir, &tx),
                Effect::Spawn(command) => child = Some(spawn(dir, options, command, &tx)),
                Effect::Cancel => {
                    if let Some(c) = &child {
                        cancel(c);
                    }
                }
                Effect::Quit => quit = true,
            }
        }
        if quit {
            break;
        }
    }
    Ok(model.state)
}

/// SIGTERM or SIGINT from outside (raw mode turns the terminal's Ctrl-C into a key).
async fn terminate_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {},
                    _ = int.recv() => {},
                }
            }
            _ => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// One load at a time; a request during a load runs once it is done.
#[derive(Default)]
struct Loader {
    loading: bool,
    queued: bool,
}

impl Loader {
    fn request(&mut self, dir: &Path, options: &DashboardOptions, tx: &mpsc::UnboundedSender<Msg>) {
        if self.loading {
            self.queued = true;
            return;
        }
        self.loading = true;
        let dir = dir.to_path_buf();
        let load = options.loader;
        let tx = tx.clone();
        tokio::spawn(async move {
            let result = tokio::task::spawn_blocking(move || load(&dir))
                .await
                .map_err(|e| format!("the campaign loader crashed: {e}"))
                .and_then(|r| r.map(Box::new).map_err(|e| e.to_string()));
            let _ = tx.send(Msg::StateLoaded(result));
        });
    }

    fn finished(
        &mut self,
        dir: &Path,
        options: &DashboardOptions,
        tx: &mpsc::UnboundedSender<Msg>,
    ) {
        self.loading = false;
        if std::mem::take(&mut self.queued) {
            self.request(dir, options, tx);
        }
    }
}

fn read_progress(dir: &Path, tx: &mpsc::UnboundedSender<Msg>) {
    let path = dir.join(PROGRESS_FILE);
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let msg = match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<Progress>(&text) {
                Ok(p) => Msg::Progress(Some(p)),
                // Caught mid-write: the next notification brings the complete file.
                Err(_) => return,
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Msg::Progress(None),
            Err(_) => return,
        };
        let _ = tx.send(msg);
    });
}

fn spawn(
    dir: &Path,
    options: &DashboardOptions,
    command: CampaignCommand,
    tx: &mpsc::UnboundedSender<Msg>,
) -> RunningChild {
    let mut cmd = tokio::process::Command::new(&options.program);
    cmd.args(command.args(dir))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group: a cancel reaches the benchmark worker too, and the terminal's
    // signals do not.
    #[cfg(unix)]
    cmd.process_group(0);
    let cancelled = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let running = RunningChild {
        pid: None,
        cancelled: cancelled.clone(),
        finished: finished.clone(),
    };
    let tx = tx.clone();
    match cmd.spawn() {
        Ok(child) => {
            let pid = child.id();
            tokio::spawn(async move {
                let output = child.wait_with_output().await;
                finished.store(true, Ordering::SeqCst);
                let result = match output {
                    Ok(out) => CommandResult {
                        exit_code: out.status.code(),
                        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                        spawn_error: None,
                        cancelled: cancelled.load(Ordering::SeqCst),
                    },
                    Err(e) => CommandResult {
                        exit_code: None,
                        stdout: String::new(),
                        stderr: String::new(),
                        spawn_error: Some(format!("waiting for the command: {e}")),
                        cancelled: cancelled.load(Ordering::SeqCst),
                    },
                };
                let _ = tx.send(Msg::CommandFinished { command, result });
            });
            RunningChild { pid, ..running }
        }
        Err(e) => {
            finished.store(true, Ordering::SeqCst);
            let program = options.program.display().to_string();
            let _ = tx.send(Msg::CommandFinished {
                command,
                result: CommandResult {
                    exit_code: None,
                    stdout: String::new(),
                    stderr: String::new(),
                    spawn_error: Some(format!("{program}: {e}")),
                    cancelled: false,
                },
            });
            running
        }
    }
}

/// SIGTERM to the child's process group, SIGKILL after a grace period if it is still there.
fn cancel(child: &RunningChild) {
    child.cancelled.store(true, Ordering::SeqCst);
    let Some(pid) = child.pid else {
        return;
    };
    #[cfg(unix)]
    {
        let Ok(group) = libc::pid_t::try_from(pid) else {
            return;
        };
        // SAFETY: killpg only sends a signal; the group is our own child's.
        unsafe { libc::killpg(group, libc::SIGTERM) };
        let finished = child.finished.clone();
        tokio::spawn(async move {
            tokio::time::sleep(CANCEL_GRACE).await;
            // Only while our child is unreaped does its group id still belong to it.
            if !finished.load(Ordering::SeqCst) {
                // SAFETY: as above.
                unsafe { libc::killpg(group, libc::SIGKILL) };
            }
        });
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    use super::*;

    fn options(program: PathBuf) -> DashboardOptions {
        DashboardOptions {
            program,
            loader: |_| Err(Error::Internal("not used by these tests".into())),
        }
    }

    fn script(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("fake-kcamp");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    async fn finished(rx: &mut mpsc::UnboundedReceiver<Msg>) -> CommandResult {
        let msg = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .expect("the command finishes")
            .expect("a message");
        match msg {
            Msg::CommandFinished { result, .. } => result,
            other => panic!("unexpected message {other:?}"),
        }
    }

    /// Gone, or a zombie waiting for a parent that may never reap it (init in containers).
    fn is_dead(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        }
    }

    #[tokio::test]
    async fn a_command_reports_its_exit_code_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(
            dir.path(),
            r#"echo "$@" > "$(dirname "$0")/args"; echo '{"verdict":"REJECT"}'; exit 1"#,
        );
        let (tx, mut rx) = mpsc::unbounded_channel();
        spawn(
            dir.path(),
            &options(program),
            CampaignCommand::Validate { full: true },
            &tx,
        );
        let result = finished(&mut rx).await;
        assert_eq!(result.exit_code, Some(1));
        assert_eq!(result.stdout.trim(), r#"{"verdict":"REJECT"}"#);
        assert!(!result.cancelled);
        let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
        assert_eq!(
            args.trim(),
            format!("--json -C {} validate --full", dir.path().display())
        );
    }

    #[tokio::test]
    async fn cancel_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        // The grandchild stands for the benchmark worker.
        let program = script(
            dir.path(),
            r#"sleep 60 & echo $! > "$(dirname "$0")/worker.pid"; wait"#,
        );
        let (tx, mut rx) = mpsc::unbounded_channel();
        let child = spawn(
            dir.path(),
            &options(program),
            CampaignCommand::Validate { full: false },
            &tx,
        );
        let pid_file = dir.path().join("worker.pid");
        let worker: u32 = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                break pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        cancel(&child);
        let result = finished(&mut rx).await;
        assert!(result.cancelled);
        assert_eq!(result.exit_code, None, "ended by a signal");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !is_dead(worker) {
            assert!(
                std::time::Instant::now() < deadline,
                "worker {worker} survived"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    #[tokio::test]
    async fn a_missing_program_is_a_spawn_error_not_a_crash() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        spawn(
            Path::new("."),
            &options(PathBuf::from("/nonexistent/kcamp")),
            CampaignCommand::Rollback { reason: "r".into() },
            &tx,
        );
        let result = finished(&mut rx).await;
        assert!(
            result
                .spawn_error
                .as_deref()
                .is_some_and(|e| e.contains("/nonexistent/kcamp")),
            "{result:?}"
        );
    }

    static LOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    #[tokio::test]
    async fn reloads_requested_during_a_load_run_once_afterwards() {
        let opts = DashboardOptions {
            program: PathBuf::from("unused"),
            loader: |_| {
                LOADS.fetch_add(1, Ordering::SeqCst);
                Err(Error::Internal("half-written".into()))
            },
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut loader = Loader::default();
        let dir = Path::new(".");
        loader.request(dir, &opts, &tx);
        loader.request(dir, &opts, &tx);
        loader.request(dir, &opts, &tx);
        let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap();
        assert_eq!(first, Some(Msg::StateLoaded(Err("half-written".into()))));
        loader.finished(dir, &opts, &tx);
        let second = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap();
        assert!(matches!(second, Some(Msg::StateLoaded(Err(_)))));
        loader.finished(dir, &opts, &tx);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), rx.recv())
                .await
                .is_err(),
            "three requests, two loads"
        );
        assert_eq!(LOADS.load(Ordering::SeqCst), 2);
    }
}
