//! File-system notifications (notify) turned into one debounced [`LoadScope`]; the rest of
//! the dashboard never touches notify.
//!
//! Only writes, creations, removals and renames count. Reading a file is an event too
//! (inotify's IN_OPEN, IN_CLOSE_NOWRITE, and IN_CLOSE_WRITE for the lock check, which opens
//! the lock file for writing without writing): counting those made every reload cause the
//! next one, and an idle dashboard re-read the campaign six times a second.

use std::path::Path;
use std::time::Duration;

use notify::event::EventKind;
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use kcamp_core::{Error, Result};

use crate::loading::LoadScope;

/// A burst ends after this long without a new change...
pub const QUIET: Duration = Duration::from_millis(25);
/// ...or this long after its first change, whichever comes first, so a steady stream of
/// writes (a journal during a run) still shows within the 200 ms target.
pub const MAX_DELAY: Duration = Duration::from_millis(100);

/// Keeps the watch alive; dropping it stops the notifications.
pub struct CampaignWatcher {
    _watcher: notify::RecommendedWatcher,
}

/// Whether an event is a change of content or of the tree (not a read).
pub fn is_change(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    )
}

/// Watch `dir` recursively; each burst of changes sends the scope to read again.
pub fn watch(dir: &Path, out: mpsc::UnboundedSender<LoadScope>) -> Result<CampaignWatcher> {
    let (raw_tx, raw_rx) = mpsc::unbounded_channel::<LoadScope>();
    // Events name absolute paths: a relative `-C camp` (or one through a symlink) would
    // match none of them, and the dashboard would never see a live run.
    let root = std::fs::canonicalize(dir)
        .map_err(|e| Error::io(format!("cannot watch {}", dir.display()), e))?;
    let watched = root.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let scope = match event {
            // Events were lost (queue overflow): only a full read is sure to be right.
            Ok(e) if e.need_rescan() => LoadScope::everything(),
            Ok(e) if is_change(&e.kind) => {
                let mut scope = LoadScope::default();
                for path in &e.paths {
                    scope.merge(LoadScope::of_path(&root, path));
                }
                scope
            }
            Ok(_) => return,
            Err(_) => LoadScope::everything(),
        };
        if !scope.is_empty() {
            // The receiver is gone only when the dashboard is closing.
            let _ = raw_tx.send(scope);
        }
    })
    .map_err(|e| Error::Internal(format!("cannot watch {}: {e}", dir.display())))?;
    watcher
        .watch(&watched, RecursiveMode::Recursive)
        .map_err(|e| Error::Internal(format!("cannot watch {}: {e}", dir.display())))?;
    tokio::spawn(debounce(raw_rx, out));
    Ok(CampaignWatcher { _watcher: watcher })
}

async fn debounce(
    mut raw: mpsc::UnboundedReceiver<LoadScope>,
    out: mpsc::UnboundedSender<LoadScope>,
) {
    while let Some(mut scope) = raw.recv().await {
        let deadline = tokio::time::sleep(MAX_DELAY);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                () = &mut deadline => break,
                next = tokio::time::timeout(QUIET, raw.recv()) => match next {
                    Ok(Some(s)) => scope.merge(s),
                    Ok(None) | Err(_) => break,
                },
            }
        }
        if out.send(scope).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn next(
        rx: &mut mpsc::UnboundedReceiver<LoadScope>,
        within: Duration,
    ) -> Option<LoadScope> {
        tokio::time::timeout(within, rx.recv()).await.ok().flatten()
    }

    #[tokio::test]
    async fn reads_are_not_changes_and_a_burst_of_writes_is_one_message() {
        let dir = tempfile::tempdir().unwrap();
        let round = dir.path().join("rounds/round-2");
        std::fs::create_dir_all(&round).unwrap();
        std::fs::write(round.join("decision.json"), "{}").unwrap();
        std::fs::write(dir.path().join(".kcamp.lock"), "").unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _w = watch(dir.path(), tx).unwrap();
        // What a load does: list directories, read files, open the lock file for writing.
        for _ in 0..20 {
            let _ = std::fs::read_dir(dir.path().join("rounds"))
                .unwrap()
                .count();
            let _ = std::fs::read_to_string(round.join("decision.json")).unwrap();
            let lock = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(dir.path().join(".kcamp.lock"))
                .unwrap();
            drop(lock);
        }
        assert_eq!(next(&mut rx, Duration::from_millis(400)).await, None);
        for i in 0..5 {
            std::fs::write(round.join(format!("f{i}")), "x").unwrap();
        }
        std::fs::write(dir.path().join("journal.jsonl"), "{}\n").unwrap();
        let scope = next(&mut rx, Duration::from_secs(5))
            .await
            .expect("a change");
        assert_eq!(scope.rounds.iter().copied().collect::<Vec<_>>(), [2]);
        assert!(scope.journal);
        assert_eq!(
            next(&mut rx, MAX_DELAY * 3).await,
            None,
            "the burst was debounced into one message"
        );
    }

    #[tokio::test]
    async fn a_campaign_named_by_a_relative_path_is_watched_too() {
        // `kcamp -C camp tui`: a folder below the working directory, named relatively.
        let cwd = std::env::current_dir().unwrap();
        let dir = tempfile::tempdir_in(&cwd).unwrap();
        let relative = dir.path().strip_prefix(&cwd).unwrap().to_path_buf();
        assert!(relative.is_relative());
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _w = watch(&relative, tx).unwrap();
        std::fs::create_dir_all(dir.path().join("live")).unwrap();
        std::fs::write(dir.path().join("live/progress.json"), "{}").unwrap();
        let scope = next(&mut rx, Duration::from_secs(5))
            .await
            .expect("the live file's change reaches the dashboard");
        assert!(scope.live, "{scope:?}");
    }
}
