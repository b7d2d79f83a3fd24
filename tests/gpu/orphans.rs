//! A measurement ends with its owner (docs/reliability.md). When the `kcamp` process
//! running a validation dies — SIGKILL included — its external harness (and whatever the
//! harness started) and its built-in `__worker` (mid-kernel, on the software adapter) die
//! within a second, and the next command removes the staging directories of the dead run.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{append_to_manifest, csv, init, kcamp_process, run};

fn alive(pid: i32) -> bool {
    // A zombie has exited already; only a process that still runs counts.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
    start.elapsed()
}

fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The pids whose parent is `ppid`, with their command lines.
fn children(ppid: u32) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        if rest.split(' ').nth(1) == Some(&ppid.to_string()) {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            out.push((pid, cmd));
        }
    }
    out
}

/// `kcamp -C dir ARGS` in the background.
fn start(dir: &Path, args: &[&str]) -> Child {
    kcamp_process(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: signalling a child we started.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

#[test]
fn harness_and_its_children_die_with_kcamp() {
    for sig in [libc::SIGKILL, libc::SIGTERM] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = init(tmp.path());
        let text = append_to_manifest(
            &dir,
            &format!(
                "quick_command: \"echo $$ > harness.pid; setsid sh -c 'echo $$ > stray.pid; exec sleep 300' & sleep 300 & echo $! > child.pid; wait; cp {} {{csv}}\"",
                csv("baseline.csv")
            ),
        );
        let mut owner = start(&dir, &["baseline"]);
        wait_until("the harness to start", Duration::from_secs(120), || {
            read_pid(&dir.join("child.pid")).is_some() && read_pid(&dir.join("stray.pid")).is_some()
        });
        let harness = read_pid(&dir.join("harness.pid")).unwrap();
        let child = read_pid(&dir.join("child.pid")).unwrap();
        // Out of the harness's process group and session: found by its run token.
        let stray = read_pid(&dir.join("stray.pid")).unwrap();
        assert!(alive(harness) && alive(child) && alive(stray));
        signal(&owner, sig);
        let status = owner.wait().unwrap();
        assert!(
            status.signal() == Some(sig) || status.code().is_some(),
            "{status:?}"
        );
        let took = wait_until(
            "the harness and its children to die",
            Duration::from_secs(15),
            || !alive(harness) && !alive(child) && !alive(stray),
        );
        eprintln!("signal {sig}: harness gone {took:?} after the owner");
        // The next writing command clears what the dead run staged.
        std::fs::write(dir.join("manifest.yaml"), &text).unwrap();
        run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
        assert!(!dir.join("rounds/.round-1.tmp").exists());
    }
}

#[test]
fn builtin_worker_dies_with_kcamp_mid_kernel() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    // One shape large enough that the software adapter computes for many seconds.
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let start_shapes = text.find("target_shapes:").unwrap();
    let end_shapes = text[start_shapes..]
        .find("\nrepresentative_shapes")
        .map(|i| start_shapes + i)
        .unwrap();
    let text = format!(
        "{}target_shapes:\n- {{label: big, M: 1024, N: 1024, K: 1024}}{}",
        &text[..start_shapes],
        &text[end_shapes..]
    );
    std::fs::write(&manifest, text).unwrap();
    let mut owner = start(&dir, &["baseline"]);
    let mut worker = None;
    // The worker of the case, not the one that compiles the kernels first and ends.
    wait_until("the worker to start", Duration::from_secs(180), || {
        if !common::in_a_timed_case(&dir) {
            return false;
        }
        worker = children(owner.id())
            .into_iter()
            .find(|(_, cmd)| cmd.contains("__worker"))
            .map(|(pid, _)| pid);
        worker.is_some()
    });
    let worker = worker.unwrap();
    // Let it get into the kernel.
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        alive(worker),
        "the worker ended before the owner was killed"
    );
    signal(&owner, libc::SIGKILL);
    owner.wait().unwrap();
    let took = wait_until("the worker to die", Duration::from_secs(15), || {
        !alive(worker)
    });
    eprintln!("worker gone {took:?} after the owner's SIGKILL");
    // A refused import changes nothing, the dead run's staging included; the next command
    // that takes the lock clears it, even one it then refuses.
    run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 2);
    assert!(dir.join("rounds/.round-1.tmp").exists());
    run(&dir, &["round", "new", "--hypothesis", "next"], 2);
    assert!(!dir.join("rounds/.round-1.tmp").exists());
}
