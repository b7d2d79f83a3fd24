//! A validation sharded over the identical adapters of a machine (`adapter: {all: true}`,
//! docs/scale.md). This machine has one software adapter: the test-support seam
//! `KCAMP_TEST_ADAPTER_COPIES=2` presents it as two identical ones, each shard's worker
//! opening its own. Adapters that differ (llvmpipe on Vulkan and on GL) are refused for
//! real.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, copy_dir, edit_kernel, tree};

fn kcamp(dir: &Path, copies: Option<&str>) -> assert_cmd::Command {
    let mut cmd = common::kcamp(dir);
    cmd.arg("--json")
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
        )
        .env(
            "XDG_DATA_HOME",
            dir.parent().unwrap_or(dir).join("xdg-data"),
        );
    match copies {
        Some(n) => cmd.env("KCAMP_TEST_ADAPTER_COPIES", n),
        None => cmd.env_remove("KCAMP_TEST_ADAPTER_COPIES"),
    };
    cmd
}

fn run(dir: &Path, args: &[&str], codes: &[i32], copies: Option<&str>) -> Value {
    let out = kcamp(dir, copies).args(args).output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "{}",
        common::describe(args, &out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn set_adapter(dir: &Path, adapter: &str) {
    let path = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find("adapter:")
        .expect("the manifest's adapter section");
    let end = start
        + text[start..]
            .find("\nkernel:")
            .expect("the kernel section after the adapter's");
    std::fs::write(
        &path,
        format!("{}adapter: {adapter}{}", &text[..start], &text[end..]),
    )
    .unwrap();
}

const SHAPES: &str = "- {label: s16, M: 16, N: 16, K: 16}\n- {label: r24x40x8, M: 24, N: 40, K: 8}\n- {label: s32, M: 32, N: 32, K: 32}\n";

#[test]
fn a_validation_sharded_over_two_identical_adapters_pairs_each_shape_on_its_own() {
    let (tmp, dir) = common::gemm_campaign(SHAPES);
    set_adapter(&dir, "{backend: vulkan}");
    run(&dir, &["baseline", "--no-peak"], &[0], None);
    let one = tmp.path().join("one");
    copy_dir(&dir, &one);
    set_adapter(&dir, "{backend: vulkan, all: true}");
    for d in [&dir, &one] {
        edit_kernel(d, "unchanged");
        run(
            d,
            &["round", "new", "--hypothesis", "unchanged"],
            &[0],
            None,
        );
    }
    let sharded = run(&dir, &["validate", "--full"], &[0, 1], Some("2"));
    let single = run(&one, &["validate", "--full"], &[0, 1], None);
    common::assert_same_judgement(
        &sharded["report"],
        &single["report"],
        "sharded against one adapter",
    );
    assert_eq!(sharded["report"]["paired"], true);
    for s in sharded["report"]["shapes"].as_array().unwrap() {
        assert_eq!(s["pairs"], 3, "every shape paired in its own worker: {s}");
    }
    let artifacts = dir.join("rounds/round-2/artifacts");
    let fingerprint: Value =
        serde_json::from_str(&std::fs::read_to_string(artifacts.join("fingerprint.json")).unwrap())
            .unwrap();
    let placement = &fingerprint["placement"];
    assert_eq!(placement["executor"], "local", "{fingerprint}");
    let shards = placement["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2, "{placement}");
    assert_eq!(shards[0]["adapter_index"], 0);
    assert_eq!(shards[1]["adapter_index"], 1);
    assert_eq!(shards[0]["shapes"], serde_json::json!(["s16", "s32"]));
    assert_eq!(shards[1]["shapes"], serde_json::json!(["r24x40x8"]));
    assert!(
        shards[0]["adapter"]
            .as_str()
            .is_some_and(|a| a.contains("llvmpipe")),
        "{placement}"
    );
    // One adapter for the gate: both shards' are the same, and the same as round 1's.
    assert_eq!(fingerprint["adapter"]["backend"], "vulkan");
    let paired = std::fs::read_to_string(artifacts.join("paired.csv")).unwrap();
    assert_eq!(paired.lines().count(), 4, "{paired}");
}

#[test]
fn adapters_that_differ_are_refused_before_anything_is_measured() {
    let (_tmp, dir) = common::gemm_campaign(SHAPES);
    let adapters = run(&dir, &["adapters"], &[0], None);
    let backends: Vec<&str> = adapters
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["backend"].as_str())
        .collect();
    assert!(
        backends.contains(&"vulkan") && backends.contains(&"gl"),
        "llvmpipe on Vulkan and on GL (Mesa's EGL) must both be installed: {adapters}"
    );
    set_adapter(&dir, "{name: llvmpipe, all: true}");
    let before = tree(&dir);
    let out = kcamp(&dir, None)
        .args(["baseline", "--no-peak"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        common::describe(&[], &out)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("adapters that differ")
            && message.contains("vulkan backend")
            && message.contains("gl backend")
            && message.contains("adapter.backend"),
        "{message}"
    );
    assert_eq!(tree(&dir), before, "a refused baseline changes nothing");
}
