//! `kcamp mcp` driven by a real MCP client that kcamp did not write: the Python `mcp` SDK
//! (tests/gpu/mcp_client.py), configured as docs/agents.md says, running a campaign on the
//! software adapter through initialize, the tool list, baseline, rounds that are validated,
//! rolled back and accepted, and the report; a refusal comes back as an error result, a
//! validate sends progress notifications, a cancelled validate leaves no worker and nothing
//! recorded, a server killed in a validate or dying in an accept leaves a campaign the next
//! call completes, and the ledger names the round whose kernel was tried again.
//!
//! It needs a Python with `mcp`: `KCAMP_TEST_PYTHON`, else `python3` if it imports mcp.
//! Without one it says why and passes, unless `KCAMP_REQUIRE_MCP=1` (CI sets it, and
//! installs `mcp` beside torch), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;

/// Five shapes small enough for the software adapter; the BASELINE picks some of them as
/// representative, and a quick validation checks the others untimed.
const SHAPES: &str = "- {label: s16, M: 16, N: 16, K: 16}\n- {label: r24x40x8, M: 24, N: 40, K: 8}\n- {label: b2s32, B: 2, M: 32, N: 32, K: 32}\n- {label: s48, M: 48, N: 48, K: 48}\n- {label: r8x64x16, M: 8, N: 64, K: 16}\n";

/// A Python interpreter that imports `mcp`, or None (after saying why) where the test may
/// skip.
fn mcp_python() -> Option<PathBuf> {
    let python =
        std::env::var_os("KCAMP_TEST_PYTHON").map_or_else(|| "python3".into(), PathBuf::from);
    let imports = Command::new(&python).args(["-c", "import mcp"]).output();
    let why = match imports {
        Ok(out) if out.status.success() => return Some(python),
        Ok(out) => format!(
            "{} cannot import mcp: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => format!("{} cannot be run: {e}", python.display()),
    };
    assert!(
        std::env::var("KCAMP_REQUIRE_MCP").as_deref() != Ok("1"),
        "KCAMP_REQUIRE_MCP=1 but {why} (set KCAMP_TEST_PYTHON to a python with mcp)"
    );
    eprintln!("skipping the MCP client test: {why} (set KCAMP_TEST_PYTHON)");
    None
}

/// The calls of `tool`, in order.
fn calls<'a>(t: &'a Value, tool: &str) -> Vec<&'a Value> {
    t["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tool"] == tool)
        .collect()
}

fn ok(call: &Value) -> &Value {
    assert_eq!(call["is_error"], false, "{call:#}");
    &call["doc"]
}

#[test]
fn an_mcp_client_runs_a_campaign_cancels_and_outlives_a_killed_server() {
    let Some(python) = mcp_python() else { return };
    let (tmp, dir) = common::gemm_campaign(SHAPES);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/mcp_client.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(assert_cmd::cargo::cargo_bin("kcamp"))
        .arg(&dir)
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
        )
        .env("XDG_DATA_HOME", tmp.path().join("xdg-data"))
        .env("GIT_DIR", "/nonexistent")
        .env_remove("KCAMP_FAILPOINT")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the client failed: {stderr}");
    let t: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not one JSON transcript ({e}): {stderr}"));
    eprintln!("{stderr}");

    // The server says who it is and the rules; every tool of the loop is listed with a
    // schema of its arguments.
    assert_eq!(t["server"]["name"], "kcamp");
    let rules = t["server"]["instructions"].as_str().unwrap();
    assert!(rules.contains("one hypothesis") && rules.contains("the gate decides"));
    for tool in [
        "status",
        "log",
        "analyze",
        "round_new",
        "validate",
        "accept",
        "rollback",
        "report",
        "gate",
        "memory_show",
        "memory_update",
        "run",
        "peak",
        "baseline",
    ] {
        assert_eq!(
            t["tools"][tool]["type"], "object",
            "{tool}: {:#}",
            t["tools"]
        );
    }
    assert_eq!(t["tools"]["round_new"]["required"][0], "hypothesis");

    // Every result is one JSON document, the same as text and as structured content, with
    // the command's exit code and the call's time beside it.
    for c in t["calls"].as_array().unwrap() {
        assert!(c["doc"].get("unparsed").is_none(), "{c:#}");
        assert_eq!(c["structured_is_doc"], true, "{c:#}");
        assert!(c["meta"]["kcamp/elapsed_ms"].as_f64().is_some(), "{c:#}");
        let code = c["meta"]["kcamp/exit_code"].as_i64().unwrap();
        assert_eq!(c["is_error"] == true, code >= 2, "{c:#}");
    }

    // A refusal is an error result holding the command's error document.
    let early = calls(&t, "round_new")[0];
    assert_eq!(early["is_error"], true);
    assert_eq!(early["doc"]["error"]["kind"], "bad_state", "{early:#}");
    assert!(
        early["doc"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no BASELINE yet")
    );
    let unforced = calls(&t, "accept")[0];
    assert_eq!(unforced["is_error"], true);
    assert_eq!(
        unforced["doc"]["error"]["kind"], "bad_input",
        "{unforced:#}"
    );

    // The loop: a BASELINE, round 2 validated with progress and rolled back.
    let baseline = ok(calls(&t, "baseline")[0]);
    assert_eq!(baseline["round"], 1, "{baseline:#}");
    let validates = calls(&t, "validate");
    let first = validates[0];
    let v2 = ok(first);
    assert_eq!(v2["round"], 2);
    assert!(v2["report"]["verdict"].is_string(), "{v2:#}");
    assert_eq!(v2["tried_before"], serde_json::json!([]));
    assert!(v2["next"].as_array().is_some_and(|n| !n.is_empty()));
    let notes = first["progress"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n["message"]
            .as_str()
            .is_some_and(|m| m.contains("timing Forward"))),
        "{notes:#?}"
    );
    assert!(
        notes
            .windows(2)
            .all(|w| w[1]["progress"].as_f64() > w[0]["progress"].as_f64()),
        "{notes:#?}"
    );
    assert_eq!(
        ok(calls(&t, "rollback")[0])["decision"]["decision"],
        "ROLLED_BACK"
    );

    // Round 3 tries the same change, written otherwise: the ledger names round 2, in
    // status before the validation and in the validation itself.
    let before = ok(calls(&t, "status")[1]);
    assert_eq!(before["working_kernel_tried"][0]["round"], 2, "{before:#}");
    let v3 = ok(validates[1]);
    let tried = &v3["tried_before"][0];
    assert_eq!(tried["round"], 2, "{v3:#}");
    assert_eq!(tried["reason"], "no gain from the helper");
    assert!(
        tried["line"].as_str().unwrap().starts_with("round 2: "),
        "{tried}"
    );
    let accepted = ok(calls(&t, "accept")[1]);
    assert_eq!(accepted["decision"]["decision"], "ACCEPTED", "{accepted:#}");
    assert_eq!(accepted["held_out"]["status"], "pass", "{accepted:#}");

    // Cancelled during its warm-up: every worker gone within a second, the server alive,
    // and nothing recorded.
    let cancel = &t["cancel"];
    assert_eq!(cancel["finished_anyway"], false, "{cancel:#}");
    assert!(
        !cancel["workers"].as_array().unwrap().is_empty(),
        "{cancel:#}"
    );
    let gone = cancel["workers_gone_after_s"]
        .as_f64()
        .expect("workers left");
    assert!(gone < 1.0, "{cancel:#}");
    assert_eq!(cancel["server_alive"], true);
    let after_cancel = ok(calls(&t, "status")[2]);
    assert_eq!(after_cancel["lock_holder"], Value::Null, "{after_cancel:#}");
    assert_eq!(after_cancel["open_round"]["round"], 4);
    assert_eq!(after_cancel["open_round"]["validated"], false);
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert!(
        journal.lines().any(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            e["event"] == "cancelled" && e["round"] == 4
        }),
        "{journal}"
    );

    // Killed in a validate: its workers die with it; the next server finds the lock free
    // and the validation completes.
    let kill = &t["kill"];
    assert_eq!(kill["finished_anyway"], Value::Null, "{kill:#}");
    assert!(!kill["workers"].as_array().unwrap().is_empty(), "{kill:#}");
    assert!(
        kill["workers_gone_after_s"]
            .as_f64()
            .is_some_and(|s| s < 1.0),
        "{kill:#}"
    );
    assert_eq!(kill["server_alive"], false);
    let after_kill = ok(calls(&t, "status")[3]);
    assert_eq!(after_kill["lock_holder"], Value::Null, "{after_kill:#}");
    // The cancelled and the killed validate returned nothing: this is the third result.
    let v4 = ok(validates[2]);
    assert_eq!(v4["round"], 4, "{v4:#}");

    // Dead inside an accept, its decision written but not finished (the failpoint
    // `accept:after_decision`): the next accept completes it and says so.
    assert_eq!(
        t["failpoint"]["finished_anyway"],
        Value::Null,
        "{:#}",
        t["failpoint"]
    );
    let completed = ok(calls(&t, "accept")[2]);
    assert_eq!(completed["decision"]["round"], 4, "{completed:#}");
    assert_eq!(completed["decision"]["decision"], "ACCEPTED");
    let interrupted = completed["warnings"][0].as_str().unwrap_or("");
    assert!(interrupted.contains("was interrupted"), "{completed:#}");

    // The lineage lists the direction rolled back and why; the report is written.
    let log = ok(calls(&t, "log")[0]);
    assert_eq!(log["rolled_back"][0]["round"], 2, "{log:#}");
    assert_eq!(log["rolled_back"][0]["reason"], "no gain from the helper");
    let report = ok(calls(&t, "report")[0]);
    assert!(report["verdict"].is_string(), "{report:#}");
    assert!(
        t["read"]["kcamp://report.md"]
            .as_str()
            .unwrap()
            .contains("round 4")
    );
    assert!(
        t["read"]["kcamp://kernel/gemm.wgsl"]
            .as_str()
            .unwrap()
            .contains("kcamp_halved")
    );
    // Round 5, right only on the listed shapes and forced past the gate: the held-out
    // check rolls it back, and the ledger says why as data, not in a sentence.
    let held = ok(calls(&t, "accept")[3]);
    assert_eq!(held["decision"]["round"], 5, "{held:#}");
    assert_eq!(held["decision"]["decision"], "ROLLED_BACK", "{held:#}");
    assert_eq!(held["decision"]["cause"], "held_out_failed", "{held:#}");
    assert_eq!(held["held_out"]["status"], "fail", "{held:#}");
    let after = ok(calls(&t, "status").last().unwrap());
    let five = after["rolled_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["round"] == 5)
        .unwrap_or_else(|| panic!("{after:#}"));
    assert_eq!(five["cause"], "held_out_failed", "{after:#}");
    // The diffs, as data: the working kernel against the incumbent before the round was
    // measured, and round 4's snapshot against round 5's.
    let diffs = calls(&t, "diff");
    for d in &diffs {
        let d = ok(d);
        assert!(d["changed"].as_u64().unwrap() >= 1, "{d:#}");
        assert!(
            d["files"].as_array().is_some_and(|f| !f.is_empty()),
            "{d:#}"
        );
    }
    assert_eq!(diffs.len(), 2);
    // A round's snapshot is a resource whose address the templates say how to make.
    let templates = t["templates"].as_array().unwrap();
    assert!(
        templates
            .iter()
            .any(|u| u == "kcamp://rounds/{n}/kernel/{path}"),
        "{templates:?}"
    );
    let snapshot = t["snapshot_uri"].as_str().unwrap();
    assert!(
        t["read"][snapshot].as_str().unwrap().contains("d == 40u"),
        "round 5's snapshot is the tuned kernel: {snapshot}"
    );
    let held_out: Value = serde_json::from_str(
        t["read"]["kcamp://rounds/5/held_out.json"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(held_out["status"], "fail", "{held_out:#}");
    let resources = t["resources"].as_array().unwrap();
    for uri in [
        "kcamp://manifest.yaml",
        "kcamp://kernel/gemm.wgsl",
        "kcamp://rounds/2/gate.json",
        "kcamp://rounds/2/decision.json",
        "kcamp://rounds/3/record.json",
    ] {
        assert!(resources.iter().any(|r| r == uri), "{uri}: {resources:?}");
    }
    assert!(
        t["manifest_resource"]
            .as_str()
            .unwrap()
            .contains("target_shapes")
    );
}
