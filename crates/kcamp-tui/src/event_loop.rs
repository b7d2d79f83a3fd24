//! The only place with side effects: the terminal, the file watcher, signals, child
//! processes and the campaign loader. Everything arrives as a [`Msg`]; `update` answers
//! with effects that are performed here. Loading and commands run off this task, so the
//! screen never waits on a benchmark; a frame is drawn only when `update` changed the
//! model.
//!
//! However the loop ends (q, Ctrl-C, a signal, a closed terminal, an error), a command this
//! dashboard started does not outlive it: it gets SIGTERM (the kcamp CLI then ends its
//! workers, removes its staging and journals `cancelled`) and the dashboard waits for it,
//! with SIGKILL to its process group after a grace period.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use chrono::Utc;
use crossterm::event::{Event, EventStream};
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc;

use super::DashboardOptions;
use super::app::{self, Effect, Model, Msg};
use super::commands::{CampaignCommand, CommandResult};
use super::loading::{LoadScope, read_all, read_patch};
use super::style::Theme;
use super::{view, watcher};
use kcamp_core::campaign::CampaignState;
use kcamp_core::{Error, Result};

/// How often the model hears the clock (toasts, elapsed times, liveness); a tick that
/// changes nothing draws nothing.
const TICK: Duration = Duration::from_millis(250);
/// Without file notifications, the campaign is re-read this often.
const POLL_WITHOUT_WATCHER: Duration = Duration::from_secs(2);
/// A cancelled command gets this long to end its workers and clean up after SIGTERM
/// before its process group is killed. The kcamp CLI needs well under a second.
pub const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// Restores the terminal however the loop ends (error, quit); ratatui's panic hook covers
/// panics.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::event::DisableMouseCapture,
            crossterm::event::DisableBracketedPaste
        );
        ratatui::restore();
    }
}

/// Where keys and mouse events come from, and what else the loop does to the terminal:
/// hand it to an editor and take it back, put text on its clipboard. The real terminal,
/// or a channel in tests.
pub trait Console: Stream<Item = std::io::Result<Event>> + Unpin {
    /// Stop reading the terminal and give it back as the shell had it (an editor runs).
    fn pause(&mut self) -> std::io::Result<()>;
    /// Take the terminal again: raw mode, the alternate screen, the mouse.
    fn resume(&mut self) -> std::io::Result<()>;
    /// Put `text` on the clipboard of the terminal (OSC 52: through SSH and tmux too).
    fn copy(&mut self, text: &str) -> std::io::Result<()>;
    /// Stop this process until the shell continues it (the terminal already paused).
    fn stop(&mut self);
}

/// The terminal the dashboard runs in. Its event reader is dropped while an editor runs,
/// so that no key meant for the editor is read here.
struct TerminalConsole {
    events: Option<EventStream>,
}

impl Stream for TerminalConsole {
    type Item = std::io::Result<Event>;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        match self.events.as_mut() {
            Some(events) => std::pin::Pin::new(events).poll_next(cx),
            None => std::task::Poll::Pending,
        }
    }
}

impl Console for TerminalConsole {
    fn pause(&mut self) -> std::io::Result<()> {
        self.events = None;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::event::DisableMouseCapture,
            crossterm::event::DisableBracketedPaste,
            crossterm::terminal::LeaveAlternateScreen,
            crossterm::cursor::Show
        )?;
        crossterm::terminal::disable_raw_mode()
    }

    fn resume(&mut self) -> std::io::Result<()> {
        crossterm::terminal::enable_raw_mode()?;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::event::EnableMouseCapture,
            crossterm::event::EnableBracketedPaste
        )?;
        self.events = Some(EventStream::new());
        Ok(())
    }

    fn copy(&mut self, text: &str) -> std::io::Result<()> {
        crossterm::execute!(
            std::io::stdout(),
            crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
        )
    }

    fn stop(&mut self) {
        // SAFETY: raise only sends a signal to this process; SIGTSTP's default action stops
        // it, and raise returns once the shell continues it (`fg`).
        unsafe { libc::raise(libc::SIGTSTP) };
    }
}

/// A channel of events stands in for the terminal in tests: nothing to hand over.
impl Console for futures::channel::mpsc::UnboundedReceiver<std::io::Result<Event>> {
    fn pause(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn resume(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn copy(&mut self, _text: &str) -> std::io::Result<()> {
        Ok(())
    }
    fn stop(&mut self) {}
}

/// What the loop did, for tests and the idle-cost check.
#[derive(Debug, Default)]
pub struct LoopStats {
    pub full_loads: AtomicUsize,
    pub patch_loads: AtomicUsize,
    pub frames: AtomicUsize,
}

impl LoopStats {
    #[cfg(test)]
    pub fn get(&self) -> (usize, usize, usize) {
        (
            self.full_loads.load(Ordering::SeqCst),
            self.patch_loads.load(Ordering::SeqCst),
            self.frames.load(Ordering::SeqCst),
        )
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
    runtime.block_on(async {
        let signals = signals()?;
        let mut terminal =
            ratatui::try_init().map_err(|e| Error::io("switching the terminal to raw mode", e))?;
        let _guard = TerminalGuard;
        // Clicks and the wheel; text is still selected with Shift held, as in other
        // terminal programs that take the mouse. Bracketed paste: a pasted text arrives
        // whole, so its line breaks are never read as Enter (a submit) nor its letters as
        // keys.
        crossterm::execute!(
            std::io::stdout(),
            crossterm::event::EnableMouseCapture,
            crossterm::event::EnableBracketedPaste
        )
        .map_err(|e| {
            Error::io(
                "asking the terminal for mouse events and bracketed paste",
                e,
            )
        })?;
        let config = crate::config::load();
        crate::keys::set_remaps(config.remaps.clone());
        let mut theme = Theme::from_env();
        theme.palette = config.palette;
        let mut model = Model::new(theme, Utc::now);
        model.apply_config(&config);
        model.scratch = options.scratch;
        let stats = LoopStats::default();
        let model = run_loop(
            dir,
            options,
            &mut terminal,
            TerminalConsole {
                events: Some(EventStream::new()),
            },
            signals,
            model,
            &stats,
        )
        .await?;
        Ok(model.state)
    })
}

/// SIGTERM, SIGINT and SIGHUP as messages. Raw mode turns the terminal's Ctrl-C into a key;
/// a closed terminal sends SIGHUP, which would otherwise end the dashboard before it could
/// stop the command it started.
fn signals() -> Result<mpsc::UnboundedReceiver<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let (tx, rx) = mpsc::unbounded_channel();
    for kind in [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
    ] {
        let mut stream =
            signal(kind).map_err(|e| Error::io("installing the dashboard's signal handlers", e))?;
        let tx = tx.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                if tx.send(()).is_err() {
                    return;
                }
            }
        });
    }
    Ok(rx)
}

/// The loop: draw when the model changed, wait for the next message, update, perform the
/// effects. Returns the model when it ends; a command still running is cancelled and
/// waited for first.
pub async fn run_loop<B, E>(
    dir: &Path,
    options: &DashboardOptions,
    terminal: &mut Terminal<B>,
    mut events: E,
    mut signals: mpsc::UnboundedReceiver<()>,
    mut model: Model,
    stats: &LoopStats,
) -> Result<Model>
where
    B: Backend,
    B::Error: std::fmt::Display,
    E: Console,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (watch_tx, mut watch_rx) = mpsc::unbounded_channel::<LoadScope>();
    let watcher = watcher::watch(dir, watch_tx).ok();
    let mut poll = tokio::time::interval(POLL_WITHOUT_WATCHER);
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut loader = Loader::default();
    let mut child: Option<RunningChild> = None;
    // Read-only questions in flight; aborted (their processes killed) when the loop ends.
    let mut questions: Vec<tokio::task::JoinHandle<()>> = Vec::new();
    if let Ok(size) = terminal.size() {
        app::update(&mut model, Msg::Resize(size.width, size.height));
    }
    loader.request(LoadScope::everything(), None, dir, options, &tx, stats);

    let ended: Result<()> = loop {
        if model.take_redraw() {
            if let Err(e) = terminal.draw(|frame| view::view(&model, frame)) {
                break Err(Error::Internal(format!("drawing the dashboard: {e}")));
            }
            stats.frames.fetch_add(1, Ordering::SeqCst);
        }
        let msg = tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => Msg::Key(key),
                Some(Ok(Event::Resize(w, h))) => Msg::Resize(w, h),
                Some(Ok(Event::Paste(text))) => Msg::Paste(text),
                Some(Ok(Event::Mouse(m))) if matches!(
                    m.kind,
                    crossterm::event::MouseEventKind::Down(_)
                        | crossterm::event::MouseEventKind::ScrollUp
                        | crossterm::event::MouseEventKind::ScrollDown
                ) => Msg::Mouse(m),
                Some(Ok(_)) => continue,
                Some(Err(e)) => break Err(Error::io("reading terminal events", e)),
                // The terminal is gone.
                None => break Ok(()),
            },
            Some(msg) = rx.recv() => msg,
            Some(scope) = watch_rx.recv() => Msg::FilesChanged(scope),
            _ = tick.tick() => Msg::Tick,
            _ = poll.tick(), if watcher.is_none() => Msg::FilesChanged(LoadScope::everything()),
            Some(()) = signals.recv() => Msg::Terminate,
        };
        if matches!(msg, Msg::StateLoaded(_) | Msg::PatchLoaded(_)) {
            loader.finished(frozen(&model), dir, options, &tx, stats);
        }
        if let Msg::CommandFinished { .. } = msg {
            child = None;
        }
        let mut quit = false;
        for effect in app::update(&mut model, msg) {
            match effect {
                Effect::Load(scope) => {
                    loader.request(scope, frozen(&model), dir, options, &tx, stats)
                }
                Effect::Spawn(command) => child = Some(spawn(dir, options, command, &tx)),
                Effect::Cancel => {
                    if let Some(c) = &child {
                        cancel(c);
                    }
                }
                Effect::Quit => quit = true,
                Effect::Ask(query) => {
                    questions.retain(|q| !q.is_finished());
                    questions.push(ask(dir, options, query, &tx));
                }
                Effect::Copy(text) => {
                    if let Err(e) = events.copy(&text) {
                        let _ = tx.send(Msg::EffectFailed(format!(
                            "copying to the clipboard (writing to the terminal): {e}"
                        )));
                    }
                }
                Effect::Edit(path) => {
                    let result = edit(&mut events, terminal, options, &path).await;
                    // Heard on the next turn, as any other message.
                    let _ = tx.send(Msg::EditorDone(result));
                }
                Effect::Suspend => {
                    if let Err(e) = suspend(&mut events, terminal) {
                        let _ = tx.send(Msg::EffectFailed(format!("suspending: {e}")));
                    }
                    // Drawn whole again, at the size the terminal has now.
                    if let Ok(size) = terminal.size() {
                        let _ = tx.send(Msg::Resize(size.width, size.height));
                    }
                }
            }
        }
        if quit {
            break Ok(());
        }
    };
    for q in questions {
        q.abort();
    }
    if let Some(c) = child.take() {
        // Show that the command is being stopped, if the terminal is still there.
        if model.take_redraw() {
            let _ = terminal.draw(|frame| view::view(&model, frame));
        }
        shutdown(&c, &mut rx).await;
    }
    ended.map(|()| model)
}

fn frozen(model: &Model) -> Option<String> {
    model.state.as_ref().and_then(|s| s.frozen_header.clone())
}

/// Stop the command we started and wait for it: SIGTERM (unless a cancel already sent it),
/// then the grace, then SIGKILL to its group.
async fn shutdown(child: &RunningChild, rx: &mut mpsc::UnboundedReceiver<Msg>) {
    if !child.cancelled.load(Ordering::SeqCst) {
        cancel(child);
    }
    let finished = tokio::time::timeout(CANCEL_GRACE + Duration::from_secs(1), async {
        while let Some(msg) = rx.recv().await {
            if matches!(msg, Msg::CommandFinished { .. }) {
                return;
            }
        }
    })
    .await;
    if finished.is_err() {
        kill_group(child, libc::SIGKILL);
    }
}

/// One load at a time; requests during a load are merged and run once it is done.
#[derive(Default)]
struct Loader {
    loading: bool,
    queued: Option<LoadScope>,
}

impl Loader {
    fn request(
        &mut self,
        scope: LoadScope,
        frozen: Option<String>,
        dir: &Path,
        options: &DashboardOptions,
        tx: &mpsc::UnboundedSender<Msg>,
        stats: &LoopStats,
    ) {
        if scope.is_empty() {
            return;
        }
        if self.loading {
            self.queued
                .get_or_insert_with(LoadScope::default)
                .merge(scope);
            return;
        }
        self.loading = true;
        let dir = dir.to_path_buf();
        let tx = tx.clone();
        if scope.everything {
            stats.full_loads.fetch_add(1, Ordering::SeqCst);
            let load = options.loader;
            tokio::task::spawn_blocking(move || {
                let result = read_all(&dir, load)
                    .map(Box::new)
                    .map_err(|e| e.to_string());
                let _ = tx.send(Msg::StateLoaded(result));
            });
        } else {
            stats.patch_loads.fetch_add(1, Ordering::SeqCst);
            tokio::task::spawn_blocking(move || {
                let result = read_patch(&dir, &scope, frozen.as_deref())
                    .map(Box::new)
                    .map_err(|e| e.to_string());
                let _ = tx.send(Msg::PatchLoaded(result));
            });
        }
    }

    fn finished(
        &mut self,
        frozen: Option<String>,
        dir: &Path,
        options: &DashboardOptions,
        tx: &mpsc::UnboundedSender<Msg>,
        stats: &LoopStats,
    ) {
        self.loading = false;
        if let Some(scope) = self.queued.take() {
            self.request(scope, frozen, dir, options, tx, stats);
        }
    }
}

/// Ask a read-only question off the loop: a `kcamp --json` command (killed if the loop
/// ends first), or a file read.
fn ask(
    dir: &Path,
    options: &DashboardOptions,
    query: super::commands::Query,
    tx: &mpsc::UnboundedSender<Msg>,
) -> tokio::task::JoinHandle<()> {
    use super::commands::{Answer, Query, answer_of};
    let tx = tx.clone();
    let dir = dir.to_path_buf();
    if let Query::Samples {
        round,
        parent,
        label,
        metric,
    } = &query
    {
        let (round, parent, label, metric) = (*round, *parent, label.clone(), metric.clone());
        return tokio::task::spawn_blocking(move || {
            let answer =
                match super::loading::read_shape_samples(&dir, round, parent, &label, &metric) {
                    Ok(s) => Answer::Samples(s),
                    Err(e) => Answer::Failed(e),
                };
            let _ = tx.send(Msg::Answered { query, answer });
        });
    }
    let args = query.args(&dir).unwrap_or_default();
    let mut cmd = tokio::process::Command::new(&options.program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // The terminal's signals reach the dashboard only.
        .process_group(0);
    tokio::spawn(async move {
        let result = match cmd.output().await {
            Ok(out) => CommandResult {
                exit_code: out.status.code(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                spawn_error: None,
                cancelled: false,
            },
            Err(e) => CommandResult {
                exit_code: None,
                stdout: String::new(),
                stderr: String::new(),
                spawn_error: Some(e.to_string()),
                cancelled: false,
            },
        };
        let answer = answer_of(&result);
        let _ = tx.send(Msg::Answered { query, answer });
    })
}

/// The editor the user named: `$VISUAL`, else `$EDITOR`, else `vi` (as git chooses), split
/// as a shell would (`code --wait`).
fn editor_command(options: &DashboardOptions) -> Result<Vec<String>> {
    let named = options
        .editor
        .clone()
        .or_else(|| {
            std::env::var("VISUAL")
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".to_owned());
    match shlex::split(&named) {
        Some(words) if !words.is_empty() => Ok(words),
        _ => Err(Error::input(format!(
            "the editor `{named}` (from $VISUAL or $EDITOR) does not read as a command"
        ))),
    }
}

/// Hand the terminal to the editor on `path`, wait for it, take the terminal back.
async fn edit<B, E>(
    events: &mut E,
    terminal: &mut Terminal<B>,
    options: &DashboardOptions,
    path: &Path,
) -> std::result::Result<(), String>
where
    B: Backend,
    E: Console,
{
    let words = editor_command(options).map_err(|e| e.to_string())?;
    events
        .pause()
        .map_err(|e| format!("giving the terminal to the editor: {e}"))?;
    let status = tokio::process::Command::new(&words[0])
        .args(&words[1..])
        .arg(path)
        .status()
        .await;
    let resumed = events.resume();
    // The editor drew over the screen: clear it and draw every cell again. (`clear` would
    // first ask the terminal where its cursor is, through the input just handed back.)
    if let Ok(size) = terminal.size() {
        let _ = terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height));
    }
    resumed.map_err(|e| format!("taking the terminal back from the editor: {e}"))?;
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!(
            "`{}` ended with {s}; the kernel is as it left it",
            words.join(" ")
        )),
        Err(e) => Err(format!("`{}`: {e}", words[0])),
    }
}

/// Ctrl-Z: the terminal as the shell had it, then SIGTSTP to this process (stopped until
/// the shell continues it: `fg`), then the terminal taken again. A command the dashboard
/// started runs in its own process group and goes on meanwhile.
fn suspend<B, E>(events: &mut E, terminal: &mut Terminal<B>) -> std::io::Result<()>
where
    B: Backend,
    E: Console,
{
    events.pause()?;
    events.stop();
    let resumed = events.resume();
    if let Ok(size) = terminal.size() {
        let _ = terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height));
    }
    resumed
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
        .kill_on_drop(true)
        // Its own process group: a cancel reaches everything in it, and the terminal's
        // signals (Ctrl-C, the hangup of a closed terminal) reach the dashboard only, which
        // then stops the command in order.
        .process_group(0);
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

/// Signal the child's process group, while the child is unreaped (only then does its group
/// id still belong to it).
fn kill_group(child: &RunningChild, signal: libc::c_int) {
    let Some(group) = child.pid.and_then(|p| libc::pid_t::try_from(p).ok()) else {
        return;
    };
    if !child.finished.load(Ordering::SeqCst) {
        // SAFETY: killpg only sends a signal; the group is our own child's.
        unsafe { libc::killpg(group, signal) };
    }
}

/// SIGTERM to the child's process group, SIGKILL after the grace if it is still there.
fn cancel(child: &RunningChild) {
    child.cancelled.store(true, Ordering::SeqCst);
    kill_group(child, libc::SIGTERM);
    let last_resort = RunningChild {
        pid: child.pid,
        cancelled: child.cancelled.clone(),
        finished: child.finished.clone(),
    };
    tokio::spawn(async move {
        tokio::time::sleep(CANCEL_GRACE).await;
        kill_group(&last_resort, libc::SIGKILL);
    });
}

#[cfg(test)]
mod tests;
