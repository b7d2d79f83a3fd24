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
