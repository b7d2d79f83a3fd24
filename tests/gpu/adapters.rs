//! `kcamp adapters` end to end (lavapipe must be installed).

use assert_cmd::Command;

fn kcamp() -> Command {
    let mut cmd = Command::cargo_bin("kcamp").unwrap();
    cmd.env("XDG_RUNTIME_DIR", "/tmp");
    cmd
}

#[test]
fn adapters_json_applies_the_filters() {
    let out = kcamp()
        .args([
            "adapters",
            "--json",
            "--adapter",
            "LLVMPIPE",
            "--backend",
            "vulkan",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), 1, "{json}");
    assert_eq!(list[0]["backend"], "vulkan");
    assert_eq!(list[0]["software"], true);
    assert!(
        list[0]["limits"]["max_storage_buffer_binding_size"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn adapters_human_output_and_bad_backend() {
    let out = kcamp()
        .args(["adapters", "--adapter", "llvmpipe"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("llvmpipe") && text.contains("timestamps yes"),
        "{text}"
    );
    assert!(text.contains("next: kcamp peak --adapter NAME"), "{text}");
    let out = kcamp()
        .args(["adapters", "--backend", "cuda"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown backend 'cuda'"));
}

/// `kcamp peak` on an adapter that is not there is a selection to correct (exit 2), not a
/// failure of kcamp: the error lists the adapters found and how to pick one.
#[test]
fn peak_on_an_adapter_that_matches_none_is_bad_input_listing_the_adapters() {
    let tmp = tempfile::tempdir().unwrap();
    let out = kcamp()
        .current_dir(tmp.path())
        .env("XDG_DATA_HOME", tmp.path().join("xdg-data"))
        .args(["--json", "peak", "--adapter", "no-such-gpu-kcamp-test"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "bad_input", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no adapter matches name \"no-such-gpu-kcamp-test\"")
            && message.contains("adapters found: llvmpipe"),
        "{message}"
    );
    let next = doc["error"]["next"][0].as_str().unwrap();
    assert!(
        next.contains("--adapter SUBSTR") && next.contains("--backend vulkan|metal|dx12|gl"),
        "{next}"
    );
    // Nothing was measured, so nothing was stored.
    assert!(!tmp.path().join("xdg-data").exists());
}
