//! File-system notifications (notify) turned into one debounced message; the rest of the
//! dashboard never touches notify.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use kcamp_core::{Error, Result};

/// Changes that arrive within this window become one reload.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Keeps the watch alive; dropping it stops the notifications.
pub struct CampaignWatcher {
    _watcher: notify::RecommendedWatcher,
}

/// Watch `dir` recursively; each burst of changes sends one `progress_only` flag (true when
/// every changed path is under `live/`).
pub fn watch(dir: &Path, out: mpsc::UnboundedSender<bool>) -> Result<CampaignWatcher> {
    let (raw_tx, raw_rx) = mpsc::unbounded_channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            for path in event.paths {
                // The receiver is gone only when the dashboard is closing.
                let _ = raw_tx.send(path);
            }
        }
    })
    .map_err(|e| Error::Internal(format!("cannot watch {}: {e}", dir.display())))?;
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .map_err(|e| Error::Internal(format!("cannot watch {}: {e}", dir.display())))?;
    tokio::spawn(debounce(dir.to_path_buf(), raw_rx, out));
    Ok(CampaignWatcher { _watcher: watcher })
}

async fn debounce(
    dir: PathBuf,
    mut raw: mpsc::UnboundedReceiver<PathBuf>,
    out: mpsc::UnboundedSender<bool>,
) {
    while let Some(first) = raw.recv().await {
        let mut paths = vec![first];
        let deadline = tokio::time::sleep(DEBOUNCE);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                () = &mut deadline => break,
                next = raw.recv() => match next {
                    Some(p) => paths.push(p),
                    None => break,
                },
            }
        }
        if let Some(progress_only) = classify(&dir, &paths)
            && out.send(progress_only).is_err()
        {
            return;
        }
    }
}

/// None when nothing relevant changed (only atomic-write temp files); otherwise whether
/// only live progress changed.
pub fn classify(dir: &Path, paths: &[PathBuf]) -> Option<bool> {
    let live = dir.join("live");
    let relevant: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".kcamp-tmp-"))
        })
        .collect();
    if relevant.is_empty() {
        return None;
    }
    Some(relevant.iter().all(|p| p.starts_with(&live)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_files_are_ignored_and_live_only_bursts_are_flagged() {
        let dir = Path::new("/c");
        let tmp = PathBuf::from("/c/rounds/round-2/.kcamp-tmp-abc");
        assert_eq!(classify(dir, std::slice::from_ref(&tmp)), None);
        let progress = PathBuf::from("/c/live/progress.json");
        assert_eq!(classify(dir, &[progress.clone(), tmp]), Some(true));
        let decision = PathBuf::from("/c/rounds/round-2/decision.json");
        assert_eq!(classify(dir, &[progress, decision]), Some(false));
    }

    #[tokio::test]
    async fn a_burst_of_writes_becomes_one_message() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _w = watch(dir.path(), tx).unwrap();
        for i in 0..5 {
            std::fs::write(dir.path().join(format!("f{i}")), "x").unwrap();
        }
        let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a notification")
            .unwrap();
        assert!(!first);
        let second = tokio::time::timeout(DEBOUNCE * 3, rx.recv()).await;
        assert!(second.is_err(), "the burst was debounced into one message");
    }
}
