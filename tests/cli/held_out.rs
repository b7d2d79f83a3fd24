//! The manifest's `held_out` field and the held-out check where kcamp cannot run the kernel
//! (imported CSVs); the check itself on real kernels is in tests/gpu/held_out.rs.

use std::path::Path;

use serde_json::Value;

use crate::common;
use common::{append_to_manifest, csv, edit_kernel, init, run};

fn error_of(dir: &Path, args: &[&str]) -> String {
    let v = run(dir, args, 2);
    v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_bad_held_out_field_is_refused_naming_the_field_and_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    let manifest = dir.join("manifest.yaml");
    let good = std::fs::read_to_string(&manifest).unwrap();
    let line_of_key = good.lines().count() + 1;
    for (value, needles, line) in [
        (
            "held_out: sometimes\n",
            &[
                "held_out",
                "'sometimes' is not `auto`, `none` or a list of shapes",
            ][..],
            line_of_key,
        ),
        (
            "held_out: []\n",
            &["field 'held_out'", "lists no shape"][..],
            line_of_key,
        ),
        (
            "held_out:\n- {label: h1, M: 33, N: 17, K: 9}\n- {label: h2, M: 33, N: 17}\n",
            &["field 'held_out[1].K': missing"][..],
            line_of_key + 2,
        ),
        (
            "held_out:\n- {label: h1, M: 33, N: 17, K: 9, Q: 3}\n",
            &["field 'held_out[0].Q'", "unknown dimension"][..],
            line_of_key + 1,
        ),
        (
            "held_out:\n- {label: h1, M: 33, N: 0, K: 9}\n",
            &["field 'held_out[0].N': must be positive"][..],
            line_of_key + 1,
        ),
        (
            "held_out:\n- {label: h1, M: 33, N: 17, K: 9}\n- {label: h1, M: 35, N: 17, K: 9}\n",
            &["field 'held_out[1].label'", "duplicated shape label 'h1'"][..],
            line_of_key + 2,
        ),
        (
            "held_out: [{label: odd, M: 64, N: 64, K: 64}]\n",
            &[
                "field 'held_out[0]'",
                "has the dimensions of target shape 's64'",
                "must be one the campaign does not list",
            ][..],
            line_of_key,
        ),
        (
            "held_out: [{label: s64, M: 65, N: 64, K: 64}]\n",
            &["has the label of target shape 's64'"][..],
            line_of_key,
        ),
    ] {
        std::fs::write(&manifest, format!("{good}{value}")).unwrap();
        let message = error_of(&dir, &["status"]);
        for n in needles {
            assert!(message.contains(n), "{value}: '{n}' not in: {message}");
        }
        assert!(
            message.contains(&format!("manifest.yaml:{line}")),
            "{value}: line {line} not in: {message}"
        );
    }
    // Good values load; the default is `auto`.
    for value in [
        "held_out: none\n",
        "held_out: auto\n",
        "held_out: [{label: odd, M: 65, N: 63, K: 9}]\n",
    ] {
        std::fs::write(&manifest, format!("{good}{value}")).unwrap();
        run(&dir, &["status"], 0);
    }
}

#[test]
fn an_imported_campaign_records_that_its_held_out_shapes_were_not_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    run(&dir, &["baseline", "--csv", &csv("baseline.csv")], 0);
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    edit_kernel(&dir, "tiles");
    run(
        &dir,
        &["validate", "--full", "--csv", &csv("better.csv")],
        0,
    );
    assert!(!dir.join("rounds/round-2/held_out.json").exists());
    let v = run(&dir, &["accept"], 0);
    assert_eq!(v["decision"]["decision"], "ACCEPTED", "{v}");
    assert_eq!(v["held_out"]["status"], "not_checked", "{v}");
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-2/held_out.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record, v["held_out"]);
    assert!(
        record["why"]
            .as_str()
            .unwrap()
            .starts_with("imported measurements"),
        "{record}"
    );
    let decision: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rounds/round-2/decision.json")).unwrap(),
    )
    .unwrap();
    let details = decision["gate"]["reason_details"].as_array().unwrap();
    let note = details
        .iter()
        .find(|r| {
            r["text"]
                .as_str()
                .unwrap()
                .starts_with("held-out shapes not checked")
        })
        .unwrap_or_else(|| panic!("{decision}"));
    assert_eq!(note["kind"], "coverage");
    assert!(!dir.join("rounds/round-2/.held-out.tmp").exists());
    // `held_out: none` is recorded as skipped.
    append_to_manifest(&dir, "held_out: none");
    run(&dir, &["round", "new", "--hypothesis", "more tiles"], 0);
    edit_kernel(&dir, "more tiles");
    let (code, _) = {
        let out = common::output(&dir, &["validate", "--full", "--csv", &csv("better.csv")]);
        (out.status.code(), out)
    };
    assert!(code == Some(0) || code == Some(1));
    let v = common::output(&dir, &["accept", "--force", "--reason", "test"]);
    let v: Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(v["held_out"]["status"], "skipped", "{v}");
}
