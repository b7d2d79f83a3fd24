//! End to end: the real binary in tmux on a copy of the demo campaign. Opens a round if
//! none is open, runs a quick validation with `v` on the software adapter, accepts through
//! the popup (typing a reason if the gate does not allow it), quits with `q`, and checks
//! `decision.json` and `journal.jsonl` on disk.
//!
//! Skipped (with a message) when tmux is missing outside CI; fails in CI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const DEMO: &str = "campaigns/demo-gemm";
const VALIDATION_TIMEOUT: Duration = Duration::from_secs(600);

/// A private tmux server (its own socket), killed on drop whatever the test's outcome.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &str) -> Tmux {
        let socket = format!("kcamp-e2e-{}", std::process::id());
        let status = Command::new("tmux")
            .args(["-L", &socket, "new-session", "-d", "-x", "120", "-y", "40"])
            .args(["-s", "e2e", command])
            .status()
            .expect("starting tmux");
        assert!(status.success(), "tmux new-session failed");
        Tmux { socket }
    }

    fn capture(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "e2e"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "e2e"])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    /// Literal text (no key-name lookup).
    fn type_text(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "e2e", "-l", text])
            .status()
            .expect("tmux send-keys -l");
        assert!(status.success());
    }

    /// Poll the screen until `found` says yes; panics with the last screen on timeout.
    fn wait_for(&self, what: &str, timeout: Duration, found: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if found(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The round number after "open r" in the header, if a round is open.
fn open_round(screen: &str) -> Option<u32> {
    let header = screen.lines().next()?;
    let rest = &header[header.find("open r")? + "open r".len()..];
    rest.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn validate_and_accept_through_the_dashboard() {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DEMO);
    assert!(
        demo.join("manifest.yaml").is_file(),
        "the bundled demo campaign {} is missing (scripts/make-demo.sh rebuilds it)",
        demo.display()
    );
    // CI installs tmux (scripts/ensure-driver.sh): there a missing tmux is a failure.
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "tmux is required in CI");
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let campaign = tmp.path().join("demo-gemm");
    copy_dir(&demo, &campaign);
    // The software adapter's timings are noisy: a small quick gain would trigger the
    // confirming full run (tested in tests/campaign_cli.rs), which may overturn it. This test
    // is about the dashboard, so the copy accepts what the quick gate allows.
    let manifest = std::fs::read_to_string(campaign.join("manifest.yaml")).unwrap();
    assert!(manifest.contains("quick_confirm_below: 0.05"), "{manifest}");
    std::fs::write(
        campaign.join("manifest.yaml"),
        manifest.replace("quick_confirm_below: 0.05", "quick_confirm_below: 0.0"),
    )
    .unwrap();
    let exe = env!("CARGO_BIN_EXE_kcamp");
    let command = format!(
        "env XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \
         TERM=xterm-256color {} tui {}; echo KCAMP_EXIT=$?; sleep 600",
        shell_quote(exe),
        shell_quote(&campaign.display().to_string())
    );
    let tmux = Tmux::start(&command);
    let screen = tmux.wait_for("the dashboard", Duration::from_secs(30), |s| {
        s.contains("1 Rounds") && s.contains("demo-gemm")
    });

    let round = match open_round(&screen) {
        Some(n) => n,
        None => {
            tmux.send(&["n"]);
            tmux.wait_for("the hypothesis popup", Duration::from_secs(10), |s| {
                s.contains("one hypothesis")
            });
            tmux.type_text("e2e: unchanged kernel");
            tmux.send(&["Enter"]);
            let s = tmux.wait_for("the new round", Duration::from_secs(60), |s| {
                open_round(s).is_some()
            });
            open_round(&s).unwrap()
        }
    };

    tmux.send(&["v"]);
    let screen = tmux.wait_for("the verdict", VALIDATION_TIMEOUT, |s| {
        s.lines().any(|l| {
            // The log panel may cut the line before its "— done".
            l.contains("» validate")
                && (l.contains("done")
                    || l.contains(": ACCEPT")
                    || l.contains(": REJECT")
                    || l.contains(": NEEDS_REMEASURE")
                    || l.contains("failed"))
        })
    });
    assert!(
        !screen.contains("validate failed"),
        "validation must run on the software adapter:\n{screen}"
    );

    tmux.send(&["a"]);
    let popup = tmux.wait_for("the accept popup", Duration::from_secs(10), |s| {
        s.contains(&format!("Accept round {round}?"))
            || s.contains(&format!("Force-accept round {round}"))
    });
    if popup.contains("Force-accept") {
        tmux.type_text("e2e: accepted through the dashboard");
        tmux.send(&["Enter"]);
    } else {
        assert!(popup.contains("Gate verdict:"), "{popup}");
        tmux.send(&["y"]);
    }
    tmux.wait_for("the accept to finish", Duration::from_secs(120), |s| {
        s.lines()
            // "» started `kcamp accept`" comes first; "» accept…" is the result line.
            .any(|l| l.contains("» accept"))
    });

    tmux.send(&["q"]);
    let end = tmux.wait_for("the dashboard to exit", Duration::from_secs(20), |s| {
        s.contains("KCAMP_EXIT=")
    });
    assert!(end.contains("KCAMP_EXIT=0"), "{end}");
    assert!(
        end.contains("1 accepted") || end.contains("accepted"),
        "{end}"
    );

    let decision_path = campaign.join(format!("rounds/round-{round}/decision.json"));
    let decision: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&decision_path).unwrap()).unwrap();
    assert_eq!(decision["decision"], "ACCEPTED", "{decision}");
    assert_eq!(decision["round"], round);
    let journal = std::fs::read_to_string(campaign.join("journal.jsonl")).unwrap();
    let accepted = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .any(|e| {
            e["round"] == round
                && e["event"]
                    .as_str()
                    .is_some_and(|ev| ev.starts_with("accept"))
        });
    assert!(
        accepted,
        "no accept event for round {round} in the journal:\n{journal}"
    );
}

#[test]
fn open_round_is_read_from_the_header() {
    assert_eq!(
        open_round(" kcamp demo-gemm · gemm f32 · Forward TFLOPS · incumbent r2 0.08 · open r4 "),
        Some(4)
    );
    assert_eq!(open_round(" kcamp demo-gemm · incumbent r1 0.05"), None);
}
