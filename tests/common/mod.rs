//! Process checks shared by the integration tests that cancel runs: who is whose child,
//! and whether a pid is still alive. Linux /proc only.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `kcamp init` of a GEMM campaign with the target shapes `shapes` (YAML) in a fresh temp
/// directory, with short timing (one warm-up, three repeats) and no git commits.
pub fn gemm_campaign(shapes: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("camp");
    let shapes_file = tmp.path().join("shapes.yaml");
    std::fs::write(&shapes_file, shapes).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcamp"))
        .arg("init")
        .arg(&dir)
        .args(["--op", "gemm", "--shapes"])
        .arg(&shapes_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kcamp init: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
    let quick = manifest
        .replace("  warmup: 3", "  warmup: 1")
        .replace("  repeats: 10", "  repeats: 3")
        .replace("git_commit: true", "git_commit: false");
    std::fs::write(dir.join("manifest.yaml"), quick).unwrap();
    (tmp, dir)
}

/// Alive and not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

/// The command line of `pid`, arguments joined by spaces (empty once it is gone).
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Pids whose parent is `parent`.
pub fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // After the command name: the state, then the parent's pid.
                stat.rsplit(')')
                    .next()
                    .and_then(|rest| rest.split_whitespace().nth(1))
                    .and_then(|p| p.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// The first child of `parent` whose command line contains `needle`.
pub fn child_running(parent: u32, needle: &str) -> Option<u32> {
    children(parent)
        .into_iter()
        .find(|&pid| cmdline(pid).contains(needle))
}

/// Poll `found` until it answers; panics naming `what` after `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut found: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = found() {
            return v;
        }
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
