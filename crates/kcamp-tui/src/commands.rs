//! The commands the dashboard sends: the kcamp binary itself, run as a child with
//! `--json -C <dir>`, so the dashboard and a script drive the campaign the same way.

use std::path::{Path, PathBuf};

use serde_json::Value;

use kcamp_core::artifacts::result::ShapeFailure;
use kcamp_core::campaign::diff::KernelSide;
use kcamp_core::error::exit;
use kcamp_core::gate::GateReport;
use kcamp_core::next::{Call, Command};

use crate::derive::{short_paths, verdict_summary};
use crate::keys::Action;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CampaignCommand {
    Validate {
        full: bool,
    },
    /// A campaign of imported CSVs: the validation reads this one.
    ValidateCsv {
        full: bool,
        csv: PathBuf,
    },
    NewRound {
        hypothesis: String,
    },
    Accept {
        force: bool,
        reason: Option<String>,
    },
    /// A campaign of imported CSVs: the confirming full validation reads this one.
    AcceptCsv {
        csv: PathBuf,
    },
    Rollback {
        reason: String,
    },
}

impl CampaignCommand {
    /// The command as a request: its tool and the arguments it is given, as an agent calls
    /// it through the MCP server.
    pub fn call(&self) -> Call {
        let csv = |p: &PathBuf| p.display().to_string();
        match self {
            CampaignCommand::Validate { full } => Call::new(Command::Validate).arg("full", *full),
            CampaignCommand::ValidateCsv { full, csv: path } => Call::new(Command::Validate)
                .arg("full", *full)
                .arg("csv", csv(path)),
            CampaignCommand::AcceptCsv { csv: path } => {
                Call::new(Command::Accept).arg("csv", csv(path))
            }
            CampaignCommand::NewRound { hypothesis } => {
                Call::new(Command::RoundNew).arg("hypothesis", hypothesis.clone())
            }
            CampaignCommand::Accept { force, reason } => {
                let call = Call::new(Command::Accept).arg("force", *force);
                match reason {
                    Some(r) => call.arg("reason", r.clone()),
                    None => call,
                }
            }
            CampaignCommand::Rollback { reason } => {
                Call::new(Command::Rollback).arg("reason", reason.clone())
            }
        }
    }

    /// Arguments after the program name.
    pub fn args(&self, campaign: &Path) -> Vec<String> {
        call_args(&self.call(), campaign)
    }

    /// A short name for log lines.
    pub fn label(&self) -> &'static str {
        match self {
            CampaignCommand::Validate { full: false } => "validate",
            CampaignCommand::Validate { full: true } => "validate --full",
            CampaignCommand::ValidateCsv { full: false, .. } => "validate --csv",
            CampaignCommand::ValidateCsv { full: true, .. } => "validate --full --csv",
            CampaignCommand::AcceptCsv { .. } => "accept --csv",
            CampaignCommand::NewRound { .. } => "round new",
            CampaignCommand::Accept { force: false, .. } => "accept",
            CampaignCommand::Accept { force: true, .. } => "accept --force",
            CampaignCommand::Rollback { .. } => "rollback",
        }
    }

    /// The dashboard action that runs this command.
    fn action(&self) -> Option<Action> {
        match self {
            CampaignCommand::Validate { full: false } => Some(Action::ValidateQuick),
            CampaignCommand::Validate { full: true } => Some(Action::ValidateFull),
            CampaignCommand::ValidateCsv { full: false, .. } => Some(Action::ValidateQuick),
            CampaignCommand::ValidateCsv { full: true, .. } => Some(Action::ValidateFull),
            CampaignCommand::Accept { .. } | CampaignCommand::AcceptCsv { .. } => {
                Some(Action::Accept)
            }
            CampaignCommand::NewRound { .. } | CampaignCommand::Rollback { .. } => None,
        }
    }

    /// Commands that measure and may run for minutes: `validate`, and `accept`, whose
    /// small quick gain is confirmed by a full validation first. Cancelling one ends its
    /// workers and records nothing.
    pub fn is_cancellable(&self) -> bool {
        matches!(
            self,
            CampaignCommand::Validate { .. }
                | CampaignCommand::ValidateCsv { .. }
                | CampaignCommand::Accept { force: false, .. }
                | CampaignCommand::AcceptCsv { .. }
        )
    }
}

/// A read-only question the dashboard asks while it runs: a command with `--json` (a diff,
/// the roofline of `kcamp analyze`), or a file read (a round's samples). Several may run at
/// once, beside a command that writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `kcamp diff A B`.
    Diff {
        from: KernelSide,
        to: KernelSide,
        why: DiffWhy,
    },
    /// `kcamp analyze --round N --no-record`: each shape on the roofline.
    Analyze { round: u32 },
    /// The samples of one shape: the round's, and the incumbent's it was judged against.
    Samples {
        round: u32,
        parent: Option<u32>,
        label: String,
        metric: String,
    },
}

/// Why a diff is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffWhy {
    /// `d`: shown in a viewer.
    Show,
    /// The working kernel changed (an edit): summed up in the log and the details.
    KernelChanged,
}

impl Query {
    /// The request of a query that is a command (None for a file read).
    pub fn call(&self) -> Option<Call> {
        let side = |s: &KernelSide| match s {
            KernelSide::Round(n) => format!("r{n}"),
            KernelSide::Working => "kernel".to_owned(),
        };
        match self {
            Query::Diff { from, to, .. } => Some(
                Call::new(Command::Diff)
                    .arg("from", side(from))
                    .arg("to", side(to)),
            ),
            Query::Analyze { round } => Some(
                Call::new(Command::Analyze)
                    .arg("round", *round)
                    .arg("no_record", true),
            ),
            Query::Samples { .. } => None,
        }
    }

    /// The kcamp arguments of a query that is a command (None for a file read).
    pub fn args(&self, campaign: &Path) -> Option<Vec<String>> {
        self.call().map(|c| call_args(&c, campaign))
    }

    /// The command line a person would type for it (what `y` copies), from the campaign.
    pub fn command_line(&self, campaign: &Path) -> Option<String> {
        let call = self.call()?;
        Some(kcamp_core::next::command_line(
            &call,
            Some(&campaign.display().to_string()),
            &kcamp_core::next::Plain,
        ))
    }
}

/// The arguments that run a request: `--json -C DIR __call TOOL ARGUMENTS`, the tool's
/// arguments as the JSON object an MCP client sends (the binary reads them with the same
/// schema), so the dashboard, a script and an agent drive the campaign the same way.
fn call_args(call: &Call, campaign: &Path) -> Vec<String> {
    let arguments: serde_json::Map<String, Value> = call
        .arguments
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    vec![
        "--json".to_owned(),
        "-C".to_owned(),
        campaign.display().to_string(),
        "__call".to_owned(),
        call.command.tool().to_owned(),
        Value::Object(arguments).to_string(),
    ]
}

/// What a query found.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The command's JSON document.
    Json(Value),
    Samples(crate::popups::shape::ShapeSamples),
    /// Why there is no answer, in full (the command's error message, the file's).
    Failed(String),
}

/// Read a query command's output: its JSON document, or the error it states.
pub fn answer_of(result: &CommandResult) -> Answer {
    if let Some(e) = &result.spawn_error {
        return Answer::Failed(e.clone());
    }
    match serde_json::from_str::<Value>(result.stdout.trim()) {
        Ok(doc) => match doc.pointer("/error/message").and_then(Value::as_str) {
            Some(message) => Answer::Failed(message.lines().next().unwrap_or(message).to_owned()),
            None if result.exit_code == Some(exit::OK) => Answer::Json(doc),
            None => Answer::Failed(format!(
                "exit {}",
                result
                    .exit_code
                    .map_or("by a signal".to_owned(), |c| c.to_string())
            )),
        },
        Err(_) => Answer::Failed(
            result
                .stderr
                .lines()
                .last()
                .unwrap_or("no JSON on stdout")
                .trim()
                .to_owned(),
        ),
    }
}

/// What a finished child left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResult {
    /// None when killed by a signal (cancelled) or never started.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The child could not be started at all.
    pub spawn_error: Option<String>,
    /// The user cancelled it.
    pub cancelled: bool,
}

/// How a command ended, as the dashboard reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub success: bool,
    /// One log line.
    pub summary: String,
    /// Extra lines for the error popup (the gate's reasons, the error message).
    pub details: Vec<String>,
}

/// Read a child's JSON stdout into a log line. Exit 1 is the gate saying REJECT or
/// NEEDS_REMEASURE (normal JSON); 2 and 3 carry `{"error": {kind, message}}`.
/// Paths under `campaign` are stated from it, other absolute ones by their file name
/// ([`crate::derive::short_paths`]).
pub fn interpret(
    command: &CampaignCommand,
    result: &CommandResult,
    campaign: Option<&Path>,
) -> Outcome {
    let name = command.label();
    if let Some(err) = &result.spawn_error {
        return failure(format!("{name}: could not start: {err}"), vec![err.clone()]);
    }
    let doc: Option<Value> = serde_json::from_str(result.stdout.trim()).ok();
    if result.cancelled {
        // The command says what it stopped (`cancelled after 1 of 3 shapes: …`) unless it
        // had to be killed; its `next:` line is a command line's, the log has its own keys.
        let said = doc
            .as_ref()
            .and_then(|d| d.pointer("/error/message"))
            .and_then(Value::as_str)
            .and_then(|m| m.lines().next());
        let again = command
            .action()
            .and_then(crate::keys::key_for)
            .map(|key| format!(" · {key} runs it again"))
            .unwrap_or_default();
        return Outcome {
            success: false,
            summary: match said {
                Some(m) => format!("{name}: {m}{again}"),
                None => format!("{name}: cancelled{again}"),
            },
            details: Vec::new(),
        };
    }
    if let Some(err) = doc.as_ref().and_then(|d| d.get("error")) {
        let kind = err.get("kind").and_then(Value::as_str).unwrap_or("error");
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        // One line in the log: a message's lines (its `next:` step) joined, not run together.
        let one_line = message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" · ");
        return failure(
            format!("{name} failed ({kind}): {one_line}"),
            vec![message.to_owned()],
        );
    }
    let code = result.exit_code;
    let Some(doc) = doc else {
        let stderr_tail = result.stderr.lines().last().unwrap_or("").trim().to_owned();
        let status = code.map_or("killed".to_owned(), |c| format!("exit {c}"));
        return failure(
            format!("{name}: {status}, no JSON on stdout {stderr_tail}")
                .trim_end()
                .to_owned(),
            vec![stderr_tail],
        );
    };
    // `validate` answers a gate record (`report.*`), `accept`/`rollback` a decision
    // (`decision.*`), `round new` a bare `round`.
    let first_of = |pointers: &[&str]| pointers.iter().find_map(|p| doc.pointer(p));
    let verdict = first_of(&[
        "/verdict",
        "/report/verdict",
        "/decision/verdict",
        "/gate/verdict",
    ])
    .and_then(Value::as_str)
    .map(str::to_owned);
    let reasons: Vec<String> = first_of(&[
        "/reasons",
        "/report/reasons",
        "/decision/gate/reasons",
        "/gate/reasons",
    ])
    .and_then(Value::as_array)
    .map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
    .unwrap_or_default();
    let round = first_of(&["/round", "/decision/round"]).and_then(Value::as_u64);
    let mut summary = name.to_owned();
    if let Some(r) = round {
        summary.push_str(&format!(" round {r}"));
    }
    // A whole gate report says what decided the verdict; its first reason may only say how
    // the run was measured (the pairing note of every paired validation).
    let report = first_of(&["/report", "/decision/gate", "/gate"])
        .and_then(|r| serde_json::from_value::<GateReport>(r.clone()).ok());
    // A rollback says why, as it was recorded (the dashboard's offered reason counts every
    // failing shape, which the gate report alone cannot).
    let rolled_back_because = (first_of(&["/decision/decision"])
        == Some(&Value::from("ROLLED_BACK")))
    .then(|| first_of(&["/decision/reason"]).and_then(Value::as_str))
    .flatten();
    if let Some(why) = rolled_back_because {
        summary.push_str(&format!(": {why}"));
    } else {
        match (&report, &verdict, reasons.first()) {
            (Some(report), _, _) => {
                // A validation lists the shapes that did not PASS with their reasons, the
                // untimed ones too.
                let failures: Vec<ShapeFailure> = doc
                    .get("failures")
                    .and_then(|f| serde_json::from_value(f.clone()).ok())
                    .unwrap_or_default();
                summary.push_str(&format!(
                    ": {}",
                    short_paths(&verdict_summary(report, &failures), campaign)
                ));
            }
            (None, Some(v), Some(first)) => summary.push_str(&format!(": {v} ({first})")),
            (None, Some(v), None) => summary.push_str(&format!(": {v}")),
            (None, None, Some(first)) => summary.push_str(&format!(" ({first})")),
            (None, None, None) => {}
        }
    }
    match code {
        Some(exit::OK) => Outcome {
            success: true,
            summary: format!("{summary} — done"),
            details: reasons,
        },
        Some(exit::GATE_REJECTED) => Outcome {
            success: false,
            summary,
            details: reasons,
        },
        other => failure(
            format!(
                "{summary} — {}",
                other.map_or("killed".to_owned(), |c| format!("exit {c}"))
            ),
            reasons,
        ),
    }
}

/// What `round new` and `validate` say of a kernel already tried (`tried_before` in their
/// JSON): `kernel/ was tried in round 7: REJECT -8.00% vs r1, reason: …`, one a round.
pub fn tried_before(result: &CommandResult) -> Vec<String> {
    let Ok(doc) = serde_json::from_str::<Value>(result.stdout.trim()) else {
        return Vec::new();
    };
    doc.get("tried_before")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("line").and_then(Value::as_str))
        .map(|line| format!("kernel/ was tried in {line}"))
        .collect()
}

fn failure(summary: String, details: Vec<String>) -> Outcome {
    Outcome {
        success: false,
        summary,
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a campaign directory: what the tests' documents say is kept as it is.
    fn interpret(command: &CampaignCommand, result: &CommandResult) -> Outcome {
        super::interpret(command, result, None)
    }

    fn result(code: i32, stdout: &str) -> CommandResult {
        CommandResult {
            exit_code: Some(code),
            stdout: stdout.into(),
            stderr: String::new(),
            spawn_error: None,
            cancelled: false,
        }
    }

    #[test]
    fn args_carry_json_the_campaign_and_the_request() {
        let cmd = CampaignCommand::Accept {
            force: true,
            reason: Some("noise on the small shapes".into()),
        };
        assert_eq!(
            cmd.args(Path::new("/c")),
            [
                "--json",
                "-C",
                "/c",
                "__call",
                "accept",
                r#"{"force":true,"reason":"noise on the small shapes"}"#
            ]
        );
        assert_eq!(
            CampaignCommand::Validate { full: true }.args(Path::new("d"))[3..],
            ["__call", "validate", r#"{"full":true}"#]
        );
        assert_eq!(
            CampaignCommand::NewRound {
                hypothesis: "--tile 64".into()
            }
            .args(Path::new("d"))[3..],
            ["__call", "round_new", r#"{"hypothesis":"--tile 64"}"#]
        );
        let diff = Query::Diff {
            from: KernelSide::Round(2),
            to: KernelSide::Working,
            why: DiffWhy::Show,
        };
        assert_eq!(
            diff.args(Path::new("d")).unwrap()[3..],
            ["__call", "diff", r#"{"from":"r2","to":"kernel"}"#]
        );
        assert_eq!(
            diff.command_line(Path::new("/my camp")).unwrap(),
            "kcamp -C '/my camp' diff r2 kernel"
        );
    }

    #[test]
    fn a_rollback_is_summed_up_by_the_reason_it_recorded() {
        let state = crate::fixtures::paired_candidate();
        let report = state.rounds[3].gate.clone().unwrap();
        let reason = "gate REJECT · 3 shapes do not PASS: s16 (FAIL), s32 (FAIL, untimed), s48 (FAIL, untimed)";
        let doc = serde_json::json!({"decision": {"round": 4, "decision": "ROLLED_BACK",
            "verdict": "REJECT", "reason": reason, "gate": report}});
        let out = interpret(
            &CampaignCommand::Rollback {
                reason: reason.into(),
            },
            &result(0, &doc.to_string()),
        );
        assert_eq!(out.summary, format!("rollback round 4: {reason} — done"));
    }

    #[test]
    fn an_error_document_becomes_a_failure_naming_kind_and_message() {
        let out = interpret(
            &CampaignCommand::Rollback { reason: "x".into() },
            &result(
                2,
                r#"{"error":{"kind":"bad_state","message":"no open round"}}"#,
            ),
        );
        assert!(!out.success);
        assert_eq!(out.summary, "rollback failed (bad_state): no open round");
        // A message's next step stays apart from its last sentence on the one log line,
        // and whole in the details.
        let out = interpret(
            &CampaignCommand::Accept {
                force: false,
                reason: None,
            },
            &result(
                2,
                r#"{"error":{"kind":"bad_state","message":"the gate says REJECT.\nnext: `kcamp rollback --reason TEXT`"}}"#,
            ),
        );
        assert_eq!(
            out.summary,
            "accept failed (bad_state): the gate says REJECT. · next: `kcamp rollback --reason TEXT`"
        );
        assert_eq!(
            out.details,
            ["the gate says REJECT.\nnext: `kcamp rollback --reason TEXT`"]
        );
    }

    #[test]
    fn the_real_validate_and_accept_documents_are_read() {
        let v = interpret(
            &CampaignCommand::Validate { full: false },
            &result(
                1,
                r#"{"round":4,"validation":"quick","report":{"verdict":"REJECT","reasons":["s96 regressed -37.0%"]}}"#,
            ),
        );
        assert_eq!(v.summary, "validate round 4: REJECT (s96 regressed -37.0%)");
        let a = interpret(
            &CampaignCommand::Accept {
                force: false,
                reason: None,
            },
            &result(
                0,
                r#"{"decision":{"round":4,"decision":"ACCEPTED","verdict":"ACCEPT","gate":{"reasons":["+3%"]}}}"#,
            ),
        );
        assert_eq!(a.summary, "accept round 4: ACCEPT (+3%) — done");
    }

    #[test]
    fn a_whole_report_is_summed_up_by_what_decided_it_not_by_its_pairing_note() {
        let state = crate::fixtures::paired_candidate();
        let report = state.rounds[3].gate.clone().unwrap();
        let doc = serde_json::json!({"round": 4, "validation": "quick", "report": report});
        let out = interpret(
            &CampaignCommand::Validate { full: false },
            &result(1, &doc.to_string()),
        );
        assert_eq!(
            out.summary,
            "validate round 4: REJECT · aggregate +10.8% · 1 shape does not PASS: sq1024 (FAIL)"
        );
        // Every reason is still there for the notice.
        assert_eq!(out.details, kcamp_core::gate::reason_texts(&report.reasons));
    }

    #[test]
    fn a_validations_untimed_failures_are_counted_and_its_first_reason_quoted() {
        let state = crate::fixtures::paired_candidate();
        let report = state.rounds[3].gate.clone().unwrap();
        let doc = serde_json::json!({"round": 4, "validation": "quick", "report": report,
        "failures": [
            {"label": "sq1024", "check": "FAIL", "reason": "kernel/gemm.wgsl:33:5: expected `;`\n  for (var k"},
            {"label": "sq2048", "check": "FAIL", "reason": "kernel/gemm.wgsl:33:5: expected `;`", "untimed": true},
        ]});
        let out = interpret(
            &CampaignCommand::Validate { full: false },
            &result(1, &doc.to_string()),
        );
        assert_eq!(
            out.summary,
            "validate round 4: REJECT · aggregate +10.8% · 2 shapes do not PASS: sq1024 (FAIL), \
             sq2048 (FAIL, untimed) · sq1024: kernel/gemm.wgsl:33:5: expected `;`"
        );
    }

    #[test]
    fn a_gate_reject_is_not_a_crash_and_keeps_its_reasons() {
        let out = interpret(
            &CampaignCommand::Validate { full: false },
            &result(
                1,
                r#"{"round":3,"gate":{"verdict":"REJECT","reasons":["m512 regressed -9.1%"]}}"#,
            ),
        );
        assert!(!out.success);
        assert_eq!(
            out.summary,
            "validate round 3: REJECT (m512 regressed -9.1%)"
        );
        assert_eq!(out.details, ["m512 regressed -9.1%"]);
    }

    #[test]
    fn success_and_unparseable_output() {
        let ok = interpret(
            &CampaignCommand::Accept {
                force: false,
                reason: None,
            },
            &result(0, r#"{"round":4,"verdict":"ACCEPT"}"#),
        );
        assert!(ok.success);
        assert_eq!(ok.summary, "accept round 4: ACCEPT — done");
        let mut garbage = result(3, "panicked");
        garbage.stderr = "thread main panicked at x\n".into();
        let bad = interpret(&CampaignCommand::Validate { full: true }, &garbage);
        assert!(!bad.success);
        assert!(bad.summary.contains("exit 3"), "{}", bad.summary);
        assert!(bad.summary.contains("panicked at x"), "{}", bad.summary);
    }

    #[test]
    fn cancelled_and_unstartable() {
        let mut r = result(0, "");
        r.cancelled = true;
        assert_eq!(
            interpret(&CampaignCommand::Validate { full: false }, &r).summary,
            "validate: cancelled · v runs it again"
        );
        assert_eq!(
            interpret(&CampaignCommand::Validate { full: true }, &r).summary,
            "validate --full: cancelled · V runs it again"
        );
        r.stdout = r#"{"error":{"kind":"cancelled","message":"cancelled after 1 of 3 shapes: nothing was recorded\nnext: kcamp validate   (cancelled: run it again to measure every shape)"}}"#.into();
        assert_eq!(
            interpret(&CampaignCommand::Validate { full: false }, &r).summary,
            "validate: cancelled after 1 of 3 shapes: nothing was recorded · v runs it again"
        );
        r.stdout.clear();
        r.cancelled = false;
        r.spawn_error = Some("No such file".into());
        assert!(
            interpret(&CampaignCommand::Validate { full: false }, &r)
                .summary
                .contains("could not start")
        );
    }
}
