//! `kcamp memory ...` driven through the real binary on a temporary campaign directory.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::common;

fn kcamp(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("kcamp").unwrap();
    cmd.arg("-C").arg(dir).env_remove("KCAMP_DIR");
    cmd
}

/// Run with --json, expect success, return the parsed document.
fn json_ok(dir: &Path, args: &[&str]) -> Value {
    let out = kcamp(dir).arg("--json").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kcamp {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A campaign (`kcamp init`, git commits off) whose rounds 1 to 11 exist: records belong to
/// rounds, and `memory create` refuses one for a round that does not.
struct Campaign {
    _tmp: tempfile::TempDir,
    dir: std::path::PathBuf,
}

impl Campaign {
    fn path(&self) -> &Path {
        &self.dir
    }
}

fn campaign() -> Campaign {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::init(tmp.path());
    for n in 1..=11 {
        std::fs::create_dir_all(dir.join(format!("rounds/round-{n}"))).unwrap();
    }
    Campaign { _tmp: tmp, dir }
}

fn record_file(dir: &Path, v: u32) -> std::path::PathBuf {
    dir.join("memory").join(format!("v{v}.json"))
}

#[test]
fn create_update_show_round_trip() {
    let dir = campaign();
    let created = json_ok(dir.path(), &["memory", "create", "--version", "v0"]);
    assert_eq!(created["version"], "v0");
    assert_eq!(created["masked"], false);
    assert!(record_file(dir.path(), 0).is_file());

    let pitfall = std::fs::read_to_string("tests/fixtures/memory/pitfall.json").unwrap();
    let updated = json_ok(
        dir.path(),
        &[
            "memory",
            "update",
            "--version",
            "0",
            "--set",
            "performance.tflops=12.5",
            "--set",
            "performance.latency_us_by_shape.gemm_256=41",
            "--set",
            "correctness.status=PASS",
            "--set",
            "optimization.action_description=baseline tiled kernel, 16x16",
            "--set",
            "git_commit_hash=\"1234\"",
            "--append",
            &format!("pitfalls_and_fixes={}", pitfall.trim()),
            "--append",
            "open_directions=vectorize loads",
        ],
    );
    assert_eq!(updated["performance"]["tflops"], json!(12.5));
    assert_eq!(
        updated["performance"]["latency_us_by_shape"]["gemm_256"],
        json!(41)
    );
    assert_eq!(updated["correctness"]["status"], "PASS");
    assert_eq!(
        updated["optimization"]["action_description"],
        "baseline tiled kernel, 16x16"
    );
    assert_eq!(
        updated["git_commit_hash"], "1234",
        "quoted JSON stays a string"
    );
    assert_eq!(
        updated["pitfalls_and_fixes"][0]["lesson"],
        "run naga before measuring"
    );
    assert_eq!(updated["open_directions"], json!(["vectorize loads"]));

    let shown = json_ok(dir.path(), &["memory", "show", "--version", "v0"]);
    assert_eq!(shown, updated);
    let on_disk: Value =
        serde_json::from_slice(&std::fs::read(record_file(dir.path(), 0)).unwrap()).unwrap();
    assert_eq!(on_disk, updated);

    let human = kcamp(dir.path())
        .args(["memory", "show", "--version", "v0"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("\"tflops\": 12.5"));
}

#[test]
fn bool_and_null_values_are_typed() {
    let dir = campaign();
    json_ok(dir.path(), &["memory", "create", "--version", "v1"]);
    let r = json_ok(
        dir.path(),
        &[
            "memory",
            "update",
            "--version",
            "v1",
            "--set",
            "isa_metric_progress=[]",
            "--append",
            r#"isa_metric_progress={"metric":"workgroup_memory_bytes","target":"<= 32768","current":8192,"met":true}"#,
            "--set",
            "performance.tflops=null",
        ],
    );
    assert_eq!(r["isa_metric_progress"][0]["met"], json!(true));
    assert_eq!(r["isa_metric_progress"][0]["current"], json!(8192));
    assert_eq!(r["performance"]["tflops"], Value::Null);
    let r = json_ok(
        dir.path(),
        &[
            "memory",
            "update",
            "--version",
            "v1",
            "--set",
            "isa_metric_progress.0.met=false",
        ],
    );
    assert_eq!(r["isa_metric_progress"][0]["met"], json!(false));
}

#[test]
fn invalid_update_changes_nothing_and_names_the_field() {
    let dir = campaign();
    json_ok(dir.path(), &["memory", "create", "--version", "v2"]);
    let path = record_file(dir.path(), 2);
    let before = std::fs::read(&path).unwrap();

    // A string where the schema wants a number; the valid --set beside it is not written.
    let out = kcamp(dir.path())
        .args(["--json", "memory", "update", "--version", "v2"])
        .args([
            "--set",
            "performance.latency_us=3",
            "--set",
            "performance.tflops=fast",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let msg = doc["error"]["message"].as_str().unwrap();
    assert!(msg.contains("/performance/tflops"), "{msg}");
    assert!(msg.contains("v2.json"), "{msg}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // An unknown field and a bad status are refused as well.
    for set in ["speed=1", "correctness.status=MAYBE", "masked=yes"] {
        let out = kcamp(dir.path())
            .args(["memory", "update", "--version", "v2", "--set", set])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{set}");
        let field = set.split('=').next().unwrap().replace('.', "/");
        let leaf = field.rsplit('/').next().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(leaf), "{set}: {stderr}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "{set}");
    }

    // Appending to something that is not an array.
    let out = kcamp(dir.path())
        .args([
            "memory",
            "update",
            "--version",
            "v2",
            "--append",
            "performance.tflops=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn create_refuses_overwrite_and_missing_record_is_an_error() {
    let dir = campaign();
    json_ok(dir.path(), &["memory", "create", "--version", "3"]);
    let path = record_file(dir.path(), 3);
    let before = std::fs::read(&path).unwrap();
    let out = kcamp(dir.path())
        .args(["memory", "create", "--version", "v3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already exists"), "{stderr}");
    // The way forward is a command for this campaign and this record.
    let next = format!(
        "next: kcamp -C {} memory update v3 --set FIELD=VALUE",
        dir.path().display()
    );
    assert!(stderr.contains(&next), "{stderr}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let out = kcamp(dir.path())
        .args(["memory", "show", "--version", "v9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Round 13 was never opened: no record for it, and nothing written.
    let out = kcamp(dir.path())
        .args(["memory", "create", "--version", "v12"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "v12 is the record of round 13, which does not exist (the campaign has rounds 1 to 11; `kcamp round new` opens the next)"
        ),
        "{err}"
    );
    assert!(!record_file(dir.path(), 12).exists());
    let out = kcamp(dir.path())
        .args(["memory", "show", "--version", "nine"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn list_mask_unmask_and_broken_files() {
    let dir = campaign();
    for v in ["v0", "v1", "v2", "v10"] {
        json_ok(dir.path(), &["memory", "create", "--version", v]);
    }
    let versions = |doc: &Value| -> Vec<String> {
        doc["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["version"].as_str().unwrap().to_owned())
            .collect()
    };
    let listed = json_ok(dir.path(), &["memory", "list"]);
    assert_eq!(versions(&listed), ["v0", "v1", "v2", "v10"]);

    let masked = json_ok(dir.path(), &["memory", "mask", "--version", "v1"]);
    assert_eq!(masked["masked"], true);
    let listed = json_ok(dir.path(), &["memory", "list"]);
    assert_eq!(versions(&listed), ["v0", "v2", "v10"]);
    let all = json_ok(dir.path(), &["memory", "list", "--all"]);
    assert_eq!(versions(&all), ["v0", "v1", "v2", "v10"]);
    let human = kcamp(dir.path())
        .args(["memory", "list", "--all"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("v1") && l.contains("[masked]")),
        "{text}"
    );

    json_ok(dir.path(), &["memory", "unmask", "--version", "v1"]);
    let listed = json_ok(dir.path(), &["memory", "list"]);
    assert_eq!(versions(&listed), ["v0", "v1", "v2", "v10"]);

    // A malformed record is reported by list, not fatal, and show names the file.
    std::fs::write(record_file(dir.path(), 4), "{ \"version\": \"v4\", }").unwrap();
    let listed = json_ok(dir.path(), &["memory", "list"]);
    assert_eq!(versions(&listed), ["v0", "v1", "v2", "v10"]);
    let broken = listed["broken"][0]["error"].as_str().unwrap();
    assert!(broken.contains("v4.json"), "{broken}");
    let out = kcamp(dir.path())
        .args(["memory", "show", "--version", "v4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("v4.json:1"));
}

#[test]
fn list_of_empty_campaign() {
    let dir = campaign();
    let listed = json_ok(dir.path(), &["memory", "list"]);
    assert_eq!(listed["records"], json!([]));
    let out = kcamp(dir.path()).args(["memory", "list"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("no records"));
}

#[test]
fn writers_respect_the_campaign_lock() {
    let dir = campaign();
    json_ok(dir.path(), &["memory", "create", "--version", "v0"]);
    let before = std::fs::read(record_file(dir.path(), 0)).unwrap();
    let guard =
        kcamp_core::fsutil::LockGuard::acquire(&dir.path().join(".kcamp.lock"), "kcamp accept")
            .unwrap();
    let out = kcamp(dir.path())
        .args([
            "memory",
            "update",
            "--version",
            "v0",
            "--set",
            "performance.tflops=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("kcamp accept"), "{stderr}");
    assert_eq!(std::fs::read(record_file(dir.path(), 0)).unwrap(), before);
    // Readers do not need the lock.
    json_ok(dir.path(), &["memory", "show", "--version", "v0"]);
    drop(guard);
    json_ok(
        dir.path(),
        &[
            "memory",
            "update",
            "--version",
            "v0",
            "--set",
            "performance.tflops=1",
        ],
    );
}

#[test]
fn update_without_changes_is_refused() {
    let dir = campaign();
    json_ok(dir.path(), &["memory", "create", "--version", "v0"]);
    let out = kcamp(dir.path())
        .args(["memory", "update", "--version", "v0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--set"));
}
