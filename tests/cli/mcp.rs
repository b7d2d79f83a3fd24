//! `kcamp mcp` at the edges of the protocol, spoken line by line as JSON-RPC (no SDK: an SDK
//! would not send what these tests send): a line that is not JSON, a `tools/call` without a
//! name or with array arguments, the end of standard input during a validate (it cancels
//! the step exactly as SIGTERM does), usage errors as `bad_input` naming the argument, and
//! `next` as `{tool, arguments}` objects naming only arguments that tool takes. Measured by
//! a shell harness (no GPU).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;
use common::{fixture, run};

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
    /// Messages read while waiting for another one (notifications, other responses).
    seen: Vec<Value>,
}

impl Client {
    fn start(dir: &Path) -> Client {
        let mut child = common::kcamp_process(dir)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v = serde_json::from_str(&line)
                    .unwrap_or_else(|e| json!({"not_json": line, "why": e.to_string()}));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut c = Client {
            child,
            stdin,
            lines,
            next_id: 0,
            seen: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "kcamp-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "kcamp", "{init}");
        c.raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        c
    }

    fn raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.raw(&msg.to_string());
        id
    }

    /// The next message for which `pick` holds, within `limit`.
    fn wait(&mut self, limit: Duration, pick: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.seen.iter().position(&pick) {
            return Some(self.seen.remove(i));
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(v) if pick(&v) => return Some(v),
                Ok(v) => self.seen.push(v),
                Err(_) => return None,
            }
        }
    }

    fn response(&mut self, id: u64) -> Value {
        self.wait(Duration::from_secs(120), |v| v["id"] == id)
            .unwrap_or_else(|| panic!("no response to request {id}: {:?}", self.seen))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    /// A tool's result (`structuredContent`), and whether it is an error result.
    fn call(&mut self, tool: &str, args: Value) -> (Value, bool) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{tool} {args}: {r}");
        (
            result["structuredContent"].clone(),
            result["isError"] == true,
        )
    }

    /// Close standard input and wait for the server to end.
    fn close(mut self, limit: Duration) -> (Option<i32>, Vec<Value>) {
        drop(self.stdin.take());
        let child = &mut self.child;
        let status = common::wait_for("the server to end", limit, || child.try_wait().unwrap());
        let mut rest = std::mem::take(&mut self.seen);
        rest.extend(self.lines.try_iter());
        (status.code(), rest)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A campaign measured by [`common::RECORDS_HARNESS`], baselined, with round 2 open; a
/// kernel holding `hang` makes the harness write `started` (in the temporary folder) and
/// sleep 4 s in timed runs: less than rmcp waits for a running call at the end of input, so
/// a server that only waited would finish the validation and record it.
fn campaign() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::harness_campaign(tmp.path(), &fixture("campaign"));
    let started = tmp.path().join("started");
    let hang = format!(
        "if [ -f \"$2/hang\" ] && [ \"$KCAMP_VALIDATION\" != check ]; then echo $$ > '{}'; exec sleep 4; fi\n",
        started.display()
    );
    let harness = common::RECORDS_HARNESS.replacen("set -eu\n", &format!("set -eu\n{hang}"), 1);
    std::fs::write(dir.join("harness.sh"), harness).unwrap();
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "a change"], 0);
    common::edit_kernel(&dir, "a change");
    (tmp, dir, started)
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_bad_tools_call_params_invalid_params() {
    let (_tmp, dir, _) = campaign();
    let mut c = Client::start(&dir);
    c.raw(r#"{"jsonrpc": "2.0", "id": 41, "method": "tools/list""#);
    let parse = c
        .wait(Duration::from_secs(10), |v| v.get("error").is_some())
        .expect("no answer to a line that is not JSON");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null, "{parse}");

    let no_name = c.request("tools/call", json!({"arguments": {}}));
    assert_eq!(no_name["error"]["code"], -32602, "{no_name}");
    let array = c.request("tools/call", json!({"name": "status", "arguments": [1]}));
    assert_eq!(array["error"]["code"], -32602, "{array}");
    assert!(
        array["error"]["message"]
            .as_str()
            .unwrap()
            .contains("arguments"),
        "{array}"
    );
    // Usage errors are bad input naming the tool's arguments, not the command line's.
    for (tool, args, names) in [
        (
            "analyze",
            json!({"round": 3, "working": true}),
            &["'round'", "'working'"][..],
        ),
        ("memory_show", json!({"version": "vx"}), &["'version'"][..]),
    ] {
        let (doc, error) = c.call(tool, args.clone());
        assert!(error, "{tool} {args}: {doc}");
        assert_eq!(doc["error"]["kind"], "bad_input", "{tool} {args}: {doc}");
        let message = doc["error"]["message"].as_str().unwrap();
        for name in names {
            assert!(message.contains(name), "{tool} {args}: {message}");
        }
        assert!(
            !message.contains("Usage") && !message.contains("--"),
            "{tool} {args}: {message}"
        );
        assert!(doc["error"].get("next").is_none(), "{doc}");
    }
    // The server goes on answering.
    let (status, error) = c.call("status", json!({}));
    assert!(!error, "{status}");
    assert_eq!(status["open_round"]["round"], 2, "{status}");
}

/// What a stopped validate left: the journal's `cancelled` event for round 2, no gate
/// verdict, the harness gone; and the server's exit code.
fn stopped_validate(stop: impl FnOnce(Client) -> Option<i32>) -> (Option<i32>, Value) {
    let (_tmp, dir, started) = campaign();
    std::fs::write(dir.join("kernel/hang"), "").unwrap();
    let mut c = Client::start(&dir);
    c.send(
        "tools/call",
        json!({"name": "validate", "arguments": {}, "_meta": {"progressToken": "v"}}),
    );
    let harness: u32 = common::wait_for("the harness to start", Duration::from_secs(60), || {
        std::fs::read_to_string(&started)
            .ok()
            .and_then(|s| s.trim().parse().ok())
    });
    let code = stop(c);
    common::wait_for("the harness to be stopped", Duration::from_secs(2), || {
        (!common::alive(harness)).then_some(())
    });
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert!(
        journal.lines().any(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            e["event"] == "cancelled" && e["round"] == 2
        }),
        "{journal}"
    );
    assert!(!dir.join("rounds/round-2/gate.json").exists());
    let status = run(&dir, &["status"], 0);
    assert_eq!(status["open_round"]["validated"], false, "{status}");
    assert_eq!(status["lock_holder"], Value::Null, "{status}");
    (code, status["open_round"].clone())
}

#[test]
fn closing_stdin_during_a_validate_cancels_it_exactly_as_sigterm_does() {
    let (eof_code, eof_round) = stopped_validate(|c| {
        let (code, rest) = c.close(Duration::from_secs(2));
        // Whatever answer gets out is the cancellation's, never a verdict.
        for m in rest.iter().filter(|m| m["id"] == 2) {
            assert_eq!(m["result"]["isError"], true, "{m}");
            assert_eq!(
                m["result"]["structuredContent"]["error"]["kind"], "cancelled",
                "{m}"
            );
        }
        code
    });
    let (term_code, term_round) = stopped_validate(|mut c| {
        // SAFETY: kill(2) sends a signal to our own child and touches no memory.
        unsafe {
            libc::kill(c.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let child = &mut c.child;
        let status = common::wait_for("the server to end", Duration::from_secs(2), || {
            child.try_wait().unwrap()
        });
        status.code()
    });
    assert_eq!(eof_code, term_code);
    assert_eq!(eof_round, term_round);
}

/// Every next step of `doc` (its `next`, its `error.next`, each one's `then`).
fn next_steps(doc: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for next in [&doc["next"], &doc["error"]["next"]] {
        for step in next.as_array().into_iter().flatten() {
            out.push(step.clone());
            out.extend(step["then"].as_array().into_iter().flatten().cloned());
        }
    }
    out
}

#[test]
fn next_steps_are_tool_calls_that_name_only_arguments_the_tool_takes() {
    let (_tmp, dir, _) = campaign();
    let mut c = Client::start(&dir);
    let tools = c.request("tools/list", json!({}));
    let schemas: serde_json::Map<String, Value> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["inputSchema"].clone(),
            )
        })
        .collect();
    let base = fixture("campaign/baseline.csv");
    let better = fixture("campaign/better.csv");
    let calls = [
        ("status", json!({})),
        ("round_new", json!({"hypothesis": "another"})),
        ("accept", json!({})),
        ("validate", json!({})),
        ("rollback", json!({"reason": "no gain"})),
        ("rollback", json!({"reason": "again"})),
        ("report", json!({"no_run": true})),
        ("gate", json!({"base": base, "candidate": better})),
        ("log", json!({})),
    ];
    let mut seen = 0;
    for (tool, args) in calls {
        let (doc, _) = c.call(tool, args.clone());
        for step in next_steps(&doc) {
            seen += 1;
            assert!(
                step.is_object(),
                "{tool} {args}: a step that is text: {step}"
            );
            let Some(name) = step["tool"].as_str() else {
                assert!(
                    step["command"].is_string() || step["before"].is_string(),
                    "{step}"
                );
                continue;
            };
            let schema = schemas
                .get(name)
                .unwrap_or_else(|| panic!("{tool}: next names no tool: {step}"));
            let properties = schema["properties"].as_object().unwrap();
            let given = step["arguments"].as_object().unwrap();
            let filled = step["fill"].as_array().into_iter().flatten();
            for arg in given
                .keys()
                .map(String::as_str)
                .chain(filled.map(|f| f.as_str().unwrap()))
            {
                assert!(
                    properties.contains_key(arg),
                    "{tool} {args}: next names '{arg}', which {name} does not take: {step}"
                );
            }
        }
    }
    assert!(seen >= 5, "too few next steps to judge: {seen}");
}

/// What an agent reads between steps, as data: the diff of the working kernel against the
/// incumbent (a tool), a round's kernel snapshot and records (resources), and the templates
/// that say how such addresses are made.
#[test]
fn a_diff_and_the_rounds_snapshots_are_read_as_data() {
    let (_tmp, dir, _) = campaign();
    let mut c = Client::start(&dir);
    let (diff, error) = c.call("diff", json!({}));
    assert!(!error, "{diff}");
    assert!(diff["changed"].as_u64().unwrap() >= 1, "{diff}");
    assert!(diff["added"].as_u64().unwrap() >= 1, "{diff}");
    let (named, error) = c.call("diff", json!({"from": "r1", "to": "kernel"}));
    assert!(!error, "{named}");
    assert_eq!(named["files"], diff["files"], "{named}");
    let (bad, error) = c.call("diff", json!({"from": "r9"}));
    assert!(error, "{bad}");
    assert_eq!(bad["error"]["kind"], "bad_input", "{bad}");

    let listed = c.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    let snapshot = uris
        .iter()
        .find(|u| u.starts_with("kcamp://rounds/1/kernel/"))
        .unwrap_or_else(|| panic!("round 1's snapshot is listed: {uris:?}"));
    let read = c.request("resources/read", json!({"uri": snapshot}));
    let file = snapshot.trim_start_matches("kcamp://rounds/1/kernel/");
    assert_eq!(
        read["result"]["contents"][0]["text"].as_str().unwrap(),
        std::fs::read_to_string(dir.join("rounds/round-1/kernel").join(file)).unwrap(),
        "{read}"
    );
    // A path out of the snapshot is no resource.
    let outside = c.request(
        "resources/read",
        json!({"uri": "kcamp://rounds/1/kernel/../decision.json"}),
    );
    assert!(outside["error"].is_object(), "{outside}");
    let templates = c.request("resources/templates/list", json!({}));
    let made: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    for want in [
        "kcamp://rounds/{n}/kernel/{path}",
        "kcamp://rounds/{n}/gate.json",
        "kcamp://rounds/{n}/held_out.json",
        "kcamp://rounds/{n}/samples.csv",
    ] {
        assert!(made.contains(&want), "{want} in {made:?}");
    }
}
