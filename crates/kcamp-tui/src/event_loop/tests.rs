use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;

use super::*;
use crate::fixtures;

fn options(program: PathBuf) -> DashboardOptions {
    DashboardOptions {
        program,
        loader: CampaignState::load,
        scratch: false,
        editor: None,
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

async fn wait_until(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
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
        format!(
            "--json -C {} __call validate {}",
            dir.path().display(),
            r#"{"full":true}"#
        )
    );
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    // The grandchild stands for anything the command started in its group.
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
    let mut worker = 0;
    wait_until("the worker", Duration::from_secs(10), || {
        worker = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        worker > 0
    })
    .await;
    cancel(&child);
    let result = finished(&mut rx).await;
    assert!(result.cancelled);
    assert_eq!(result.exit_code, None, "ended by a signal");
    wait_until("the worker to die", Duration::from_secs(5), || {
        is_dead(worker)
    })
    .await;
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

static LOADS: AtomicUsize = AtomicUsize::new(0);

#[tokio::test]
async fn loads_requested_during_a_load_are_merged_into_one() {
    let opts = DashboardOptions {
        program: PathBuf::from("unused"),
        loader: |_| {
            LOADS.fetch_add(1, Ordering::SeqCst);
            Err(Error::Internal("half-written".into()))
        },
        scratch: false,
        editor: None,
    };
    let stats = LoopStats::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut loader = Loader::default();
    let dir = Path::new(".");
    loader.request(LoadScope::everything(), None, dir, &opts, &tx, &stats);
    loader.request(LoadScope::everything(), None, dir, &opts, &tx, &stats);
    loader.request(LoadScope::liveness(), None, dir, &opts, &tx, &stats);
    let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap();
    assert_eq!(first, Some(Msg::StateLoaded(Err("half-written".into()))));
    loader.finished(None, dir, &opts, &tx, &stats);
    let second = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap();
    assert!(matches!(second, Some(Msg::StateLoaded(Err(_)))));
    loader.finished(None, dir, &opts, &tx, &stats);
    assert!(
        tokio::time::timeout(Duration::from_millis(200), rx.recv())
            .await
            .is_err(),
        "three requests, two loads"
    );
    assert_eq!(LOADS.load(Ordering::SeqCst), 2);
    assert_eq!(stats.get(), (2, 0, 0));
}

/// A dashboard loop on a campaign written to disk, driven by a key channel and a signal
/// channel, drawing into a TestBackend.
struct Harness {
    keys: futures::channel::mpsc::UnboundedSender<std::io::Result<Event>>,
    signals: mpsc::UnboundedSender<()>,
    stats: Arc<LoopStats>,
    done: tokio::task::JoinHandle<Result<Model>>,
}

impl Harness {
    fn start(dir: &Path, program: PathBuf) -> Harness {
        let (keys, events) = futures::channel::mpsc::unbounded();
        let (signals, signal_rx) = mpsc::unbounded_channel();
        let stats = Arc::new(LoopStats::default());
        let loop_stats = stats.clone();
        let dir = dir.to_path_buf();
        let done = tokio::spawn(async move {
            let mut terminal = Terminal::new(TestBackend::new(120, 36)).unwrap();
            let model = Model::new(Theme::plain(), Utc::now);
            run_loop(
                &dir,
                &options(program),
                &mut terminal,
                events,
                signal_rx,
                model,
                &loop_stats,
            )
            .await
        });
        Harness {
            keys,
            signals,
            stats,
            done,
        }
    }

    fn key(&self, c: char) {
        let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        self.keys.unbounded_send(Ok(Event::Key(key))).unwrap();
    }

    async fn end(self) -> Model {
        tokio::time::timeout(Duration::from_secs(10), self.done)
            .await
            .expect("the loop ends")
            .unwrap()
            .unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_dashboard_reads_nothing_and_draws_nothing_until_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_campaign(&fixtures::several_rounds(), dir.path()).unwrap();
    let h = Harness::start(dir.path(), PathBuf::from("unused"));
    wait_until("the first load", Duration::from_secs(10), || {
        h.stats.get().0 == 1 && h.stats.get().2 >= 2
    })
    .await;
    // The first load opened every file of the campaign: those reads are events the watcher
    // must not count as changes. Let the debounce and several ticks pass.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let idle = h.stats.get();
    assert_eq!(
        (idle.0, idle.1),
        (1, 0),
        "no load after the first: {idle:?}"
    );
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(h.stats.get(), idle, "an idle second draws nothing");

    // A script appends to the journal: only the journal is read again, and drawn once.
    let line = serde_json::json!({
        "time": "2026-03-14T12:00:00Z", "event": "note", "round": 4, "pid": 1, "detail": {}
    });
    let journal = dir.path().join(kcamp_core::files::JOURNAL_FILE);
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str(&format!("{line}\n"));
    let written = Instant::now();
    std::fs::write(&journal, text).unwrap();
    wait_until("the journal patch", Duration::from_secs(10), || {
        let now = h.stats.get();
        now.1 >= 1 && now.2 > idle.2
    })
    .await;
    eprintln!(
        "journal change on screen after {} ms (watcher, patch, frame)",
        written.elapsed().as_millis()
    );
    let after = h.stats.get();
    assert_eq!(after.0, 1, "still no full load");
    h.key('q');
    let model = h.end().await;
    assert!(
        model.log.iter().any(|l| l.text == "note round 4"),
        "the new journal line is shown"
    );
}

/// A dashboard on a campaign whose `kcamp` is the shell script `body`, after `v` started
/// it: the campaign's directory, the loop, and the script's pid once it wrote `cmd.pid`.
async fn validating_with(body: &str) -> (tempfile::TempDir, Harness, u32) {
    let dir = tempfile::tempdir().unwrap();
    fixtures::write_campaign(&fixtures::several_rounds(), dir.path()).unwrap();
    let program = script(
        dir.path(),
        &format!("echo $$ > \"$(dirname \"$0\")/cmd.pid\"\n{body}"),
    );
    let h = Harness::start(dir.path(), program);
    wait_until("the first load", Duration::from_secs(10), || {
        h.stats.get().0 == 1
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    h.key('v');
    let pid_file = dir.path().join("cmd.pid");
    let mut pid = 0;
    wait_until("the command", Duration::from_secs(10), || {
        pid = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        pid > 0
    })
    .await;
    (dir, h, pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_cancels_the_running_command_and_waits_for_its_cleanup() {
    // Stands for `kcamp validate`: staging on disk until SIGTERM, then cleanup and exit 2.
    let (dir, h, pid) = validating_with(
        // The trap is set before the staging exists: the test signals once it sees the
        // staging, and a signal between the two would end the shell without its cleanup.
        r#"d="$(dirname "$0")"
trap 'rm -r "$d/staging"; echo "{\"error\":{\"kind\":\"cancelled\",\"message\":\"cancelled\"}}"; exit 2' TERM
mkdir "$d/staging"
while :; do sleep 0.05; done"#,
    )
    .await;
    let staging = dir.path().join("staging");
    wait_until("the command's staging", Duration::from_secs(10), || {
        staging.exists()
    })
    .await;
    // The terminal closes: SIGHUP.
    let sent = Instant::now();
    h.signals.send(()).unwrap();
    h.end().await;
    assert!(
        sent.elapsed() < CANCEL_GRACE,
        "ended by its own cleanup, not the kill"
    );
    assert!(
        !staging.exists(),
        "the command cleaned up before the dashboard left"
    );
    assert!(is_dead(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_ignores_sigterm_is_killed_after_the_grace() {
    let (_dir, h, pid) = validating_with("trap '' TERM; while :; do sleep 0.05; done").await;
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    h.keys.unbounded_send(Ok(Event::Key(ctrl_c))).unwrap();
    h.end().await;
    wait_until("the command to die", Duration::from_secs(5), || {
        is_dead(pid)
    })
    .await;
}
