//! Process checks shared by the integration tests that cancel runs: who is whose child,
//! and whether a pid is still alive. Linux /proc only.

#![allow(dead_code)]

use std::time::{Duration, Instant};

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
