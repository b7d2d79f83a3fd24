//! The tools of `kcamp mcp`: each one a kcamp command. A tool's arguments are its
//! command's own request type (the clap arguments of the command line, which also
//! deserialize from JSON), its input schema is derived from that type, and a call runs the
//! same function as `kcamp COMMAND --json`: a tool returns exactly the command's JSON
//! document and refuses what the command refuses. Only what an agent needs beyond the
//! command line is written here: each tool's title, description and how it runs.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use kcamp_core::gate::GateConfig;
use kcamp_core::next::{self, Call, NextStep};

use crate::cli::{self, Command};

/// How a tool's step runs beside the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Reads the campaign (as the dashboard does, without the lock): runs at any time.
    Read,
    /// Changes the campaign: one such step at a time, each under the campaign lock.
    Write,
    /// Measures (runs kernels): a write step that sends progress and can be cancelled.
    Measure,
}

/// A tool's arguments: the JSON Schema of its command's request type, and the request read
/// from a call's arguments.
pub struct Request {
    schema: fn() -> Map<String, Value>,
    parse: fn(Value) -> serde_json::Result<Command>,
}

pub struct ToolDef {
    pub command: next::Command,
    pub title: &'static str,
    /// What the tool does; `{regression}` and `{confirm}` stand for the campaign's gate
    /// thresholds.
    description: &'static str,
    pub kind: Kind,
    request: Request,
}

impl ToolDef {
    pub fn name(&self) -> &'static str {
        self.command.tool()
    }

    /// The description, with the thresholds of the campaign's gate.
    pub fn description(&self, gate: &GateConfig) -> String {
        self.description
            .replace("{regression}", &percent(gate.regression_threshold))
            .replace("{confirm}", &percent(gate.quick_confirm_below))
    }

    /// The JSON Schema of the tool's arguments (derived once per tool).
    pub fn input_schema(&self) -> &'static Map<String, Value> {
        static SCHEMAS: OnceLock<Vec<Map<String, Value>>> = OnceLock::new();
        let all = SCHEMAS.get_or_init(|| TOOLS.iter().map(ToolDef::derive_schema).collect());
        let i = TOOLS
            .iter()
            .position(|t| t.command == self.command)
            .unwrap_or_default();
        &all[i]
    }

    fn derive_schema(&self) -> Map<String, Value> {
        let mut schema = (self.request.schema)();
        let pairs = self.exclusive();
        if !pairs.is_empty() {
            let not: Vec<Value> = pairs
                .iter()
                .map(|(a, b)| json!({"required": [a, b]}))
                .collect();
            // Valid when no excluded pair is given together.
            schema.insert("not".into(), json!({"anyOf": not}));
        }
        schema
    }

    /// The pairs of arguments that exclude each other: the conflicts its command's clap
    /// definition declares, between arguments the tool takes.
    pub fn exclusive(&self) -> Vec<(String, String)> {
        let Some(def) = cli::command_def(self.command) else {
            return Vec::new();
        };
        let schema = (self.request.schema)();
        let takes = |id: &str| properties(&schema).is_some_and(|p| p.contains_key(id));
        let mut pairs: Vec<(String, String)> = Vec::new();
        for arg in def.get_arguments() {
            let a = arg.get_id().as_str();
            for other in def.get_arg_conflicts_with(arg) {
                let b = other.get_id().as_str();
                if a < b && takes(a) && takes(b) {
                    pairs.push((a.to_owned(), b.to_owned()));
                }
            }
        }
        pairs.sort();
        pairs.dedup();
        pairs
    }

    /// A call's arguments as the command they run: every name one of the request's
    /// fields, every value of its type, the required ones given, no two that exclude each
    /// other; relative paths taken from the campaign directory. The error names the
    /// argument.
    pub fn request(
        &self,
        arguments: Map<String, Value>,
        campaign: &Path,
    ) -> Result<Command, String> {
        let tool = self.name();
        let schema = self.input_schema();
        let props = properties(schema).cloned().unwrap_or_default();
        if let Some(name) = arguments.keys().find(|k| !props.contains_key(*k)) {
            let known: Vec<&str> = props.keys().map(String::as_str).collect();
            return Err(format!(
                "{tool}: unknown argument '{name}' (it takes: {})",
                if known.is_empty() {
                    "no arguments".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        }
        if let Some((a, b)) = self
            .exclusive()
            .into_iter()
            .find(|(a, b)| arguments.contains_key(a) && arguments.contains_key(b))
        {
            return Err(format!(
                "{tool}: arguments '{a}' and '{b}' exclude each other: give one of them"
            ));
        }
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        for name in required {
            if !arguments.contains_key(name) {
                let about = props
                    .get(name)
                    .and_then(|p| p.get("description"))
                    .and_then(Value::as_str)
                    .map_or_else(String::new, |d| format!(" ({})", d.trim_end_matches('.')));
                return Err(format!("{tool}: argument '{name}' is required{about}"));
            }
        }
        for (name, value) in &arguments {
            let Some(prop) = props.get(name) else {
                continue;
            };
            if let Err(e) = jsonschema::validate(prop, value) {
                return Err(format!(
                    "{tool}: argument '{name}' {}",
                    type_message(prop, &e)
                ));
            }
        }
        let mut command =
            (self.request.parse)(Value::Object(arguments)).map_err(|e| format!("{tool}: {e}"))?;
        for path in paths_of(&mut command) {
            if path.is_relative() {
                *path = campaign.join(&*path);
            }
        }
        Ok(command)
    }
}

/// What a value must be, in words, from the property's schema.
fn type_message(prop: &Value, e: &jsonschema::ValidationError<'_>) -> String {
    if let Some(choices) = prop.get("enum").and_then(Value::as_array) {
        let choices: Vec<String> = choices
            .iter()
            .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned))
            .collect();
        return format!("must be one of {}: {e}", choices.join(", "));
    }
    let ty = match prop.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or(""),
        _ => "",
    };
    let want = match ty {
        "boolean" => "must be true or false",
        "integer" => "must be a non-negative integer",
        "string" => "must be a string",
        "array" => "must be a list of strings",
        _ => "does not fit the tool",
    };
    format!("{want}: {e}")
}

fn properties(schema: &Map<String, Value>) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn percent(fraction: f64) -> String {
    kcamp_core::units::percent(fraction * 100.0)
}

/// The schema of a request type, as a tool's input schema: an object of its fields, no
/// others.
fn schema_of<T: schemars::JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    for meta in ["$schema", "title", "description"] {
        map.remove(meta);
    }
    map.insert("type".into(), json!("object"));
    map.entry("properties").or_insert_with(|| json!({}));
    map.insert("additionalProperties".into(), json!(false));
    map
}

fn no_arguments() -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("type".into(), json!("object"));
    map.insert("properties".into(), json!({}));
    map.insert("additionalProperties".into(), json!(false));
    map
}

fn from_value<T: DeserializeOwned>(v: Value) -> serde_json::Result<T> {
    serde_json::from_value(v)
}

/// The file paths a command's request names: relative ones are the campaign's.
fn paths_of(command: &mut Command) -> Vec<&mut PathBuf> {
    match command {
        Command::Validate(a) => a.csv.iter_mut().collect(),
        Command::Accept(a) => a.csv.iter_mut().collect(),
        Command::Report(a) => a.csv.iter_mut().collect(),
        Command::Baseline(a) => a.csv.iter_mut().collect(),
        Command::Peak(a) => a.coop_probe.iter_mut().collect(),
        Command::Gate(a) => vec![&mut a.base, &mut a.candidate],
        _ => Vec::new(),
    }
}

pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name() == name)
}

/// Every tool, in the order of the loop.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        command: next::Command::Status,
        title: "Campaign status",
        description: "Where the campaign stands (`kcamp status --json`): the incumbent, the open round and its last verdict, the performance target, who holds the lock, and `rolled_back`: every direction already tried and rolled back, with its verdict and reason (read it before choosing a hypothesis: do not walk in circles); `working_kernel_tried` names a rolled-back round whose kernel equals the working kernel. Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: no_arguments,
            parse: |_| Ok(Command::Status),
        },
    },
    ToolDef {
        command: next::Command::Log,
        title: "Lineage of rounds",
        description: "The lineage (`kcamp log --json`): every round with its hypothesis, state, validation, aggregate, the gate's Δ against its incumbent (or the shapes that failed), the decision's reason, the held-out check; `rolled_back` lists the directions rolled back and why. Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::LogArgs>,
            parse: |v| from_value::<cli::campaign_cmd::LogArgs>(v).map(Command::Log),
        },
    },
    ToolDef {
        command: next::Command::Diff,
        title: "Diff of two kernels",
        description: "DIFF (`kcamp diff --json`): the unified diff of two kernels: rounds' snapshots (`r3`) or the working kernel (`kernel`); by default the incumbent against the working kernel. Each file with its lines added and removed, and a summary. Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: schema_of::<cli::diff_cmd::DiffArgs>,
            parse: |v| from_value::<cli::diff_cmd::DiffArgs>(v).map(Command::Diff),
        },
    },
    ToolDef {
        command: next::Command::Analyze,
        title: "Analyze against the roofline",
        description: "ANALYZE (`kcamp analyze --json`): every shape of the incumbent (or of `round`, or of the working kernel with `working`) against the compute and bandwidth roofs, the kernel's static metrics, what the driver compiled, findings and the open directions of the records. Use it to choose the next hypothesis. Records the evidence in the round's iteration record.",
        kind: Kind::Write,
        request: Request {
            schema: schema_of::<cli::analyze_cmd::AnalyzeArgs>,
            parse: |v| from_value::<cli::analyze_cmd::AnalyzeArgs>(v).map(Command::Analyze),
        },
    },
    ToolDef {
        command: next::Command::RoundNew,
        title: "Open a round",
        description: "OPTIMIZE (`kcamp round new --hypothesis TEXT --json`): opens the next round with ONE hypothesis, one line (one round, one hypothesis, one change). Refused while a round is open, before the BASELINE, or once the performance target is met. Then edit the working kernel (the resources kcamp://kernel/...) and call `validate`. `tried_before` lists rolled-back rounds whose kernel equals the working kernel.",
        kind: Kind::Write,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::RoundNewArgs>,
            parse: |v| {
                from_value::<cli::campaign_cmd::RoundNewArgs>(v)
                    .map(|a| Command::Round(cli::campaign_cmd::RoundCommand::New(a)))
            },
        },
    },
    ToolDef {
        command: next::Command::Validate,
        title: "Validate the working kernel",
        description: "VALIDATE (`kcamp validate --json`): measures the working kernel (quick: the representative shapes, timed, the other target shapes checked untimed; `full`: every target shape), beside the incumbent's snapshot in the same run, snapshots it into the open round and returns the gate's verdict (ACCEPT, ACCEPT_WITH_NOTE, NEEDS_REMEASURE, REJECT) with a reason for every shape. The gate decides: a shape that fails or regresses beyond -{regression} (outside its noise band) rejects the round whatever the mean says. `tried_before` names rolled-back rounds whose kernel equals this one. Sends progress notifications; cancelling stops it as Ctrl-C does (workers ended, nothing recorded).",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::ValidateArgs>,
            parse: |v| from_value::<cli::campaign_cmd::ValidateArgs>(v).map(Command::Validate),
        },
    },
    ToolDef {
        command: next::Command::Accept,
        title: "Accept the open round",
        description: "ACCEPT (`kcamp accept --json`): makes the validated open round the incumbent, only when the gate allows it. A quick ACCEPT under +{confirm} is first confirmed by a full validation (and rolled back if that overturns it); then the kernel's output is checked on held-out shapes you are not shown, and a failure there rolls the round back whatever else was said. `force` overrides the gate and needs a `reason`; it is recorded as forced and never takes a round in which no shape passes. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::AcceptArgs>,
            parse: |v| from_value::<cli::campaign_cmd::AcceptArgs>(v).map(Command::Accept),
        },
    },
    ToolDef {
        command: next::Command::Rollback,
        title: "Roll the open round back",
        description: "ROLLBACK (`kcamp rollback --reason TEXT --json`): restores the working kernel from the incumbent's snapshot exactly (files added in the round are removed) and closes the round as rolled back with its reason. The reason is what `status` and `log` show later under `rolled_back`: say what was learned.",
        kind: Kind::Write,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::RollbackArgs>,
            parse: |v| from_value::<cli::campaign_cmd::RollbackArgs>(v).map(Command::Rollback),
        },
    },
    ToolDef {
        command: next::Command::Report,
        title: "Final report",
        description: "REPORT (`kcamp report --json`): the final full validation of the incumbent beside the BASELINE's snapshot, judged against the BASELINE, then a held-out check; writes report.md (resource kcamp://report.md) and charts. `no_run` reports on the recorded numbers. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::ReportArgs>,
            parse: |v| from_value::<cli::campaign_cmd::ReportArgs>(v).map(Command::Report),
        },
    },
    ToolDef {
        command: next::Command::Baseline,
        title: "Record the BASELINE",
        description: "BASELINE (`kcamp baseline --json`): round 1, a full validation of the working kernel; freezes the CSV schema and picks the representative shapes. Once per campaign. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::BaselineArgs>,
            parse: |v| from_value::<cli::campaign_cmd::BaselineArgs>(v).map(Command::Baseline),
        },
    },
    ToolDef {
        command: next::Command::Gate,
        title: "Judge two CSVs",
        description: "The gate on any two CSVs of one schema (`kcamp gate BASE CAND --json`): per-shape change, band, class and the verdict. Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: schema_of::<cli::gate_cmd::GateArgs>,
            parse: |v| from_value::<cli::gate_cmd::GateArgs>(v).map(Command::Gate),
        },
    },
    ToolDef {
        command: next::Command::MemoryShow,
        title: "Show an iteration record",
        description: "One iteration record (`kcamp memory show vN --json`): v0 is round 1 (the BASELINE), vN round N+1; what was tried, measured and learned. Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: schema_of::<cli::memory_cmd::VersionArg>,
            parse: |v| {
                from_value::<cli::memory_cmd::VersionArg>(v)
                    .map(|a| Command::Memory(cli::memory_cmd::MemoryCommand::Show(a)))
            },
        },
    },
    ToolDef {
        command: next::Command::MemoryList,
        title: "List the iteration records",
        description: "The iteration records (`kcamp memory list --json`). Read-only.",
        kind: Kind::Read,
        request: Request {
            schema: schema_of::<cli::memory_cmd::ListArgs>,
            parse: |v| {
                from_value::<cli::memory_cmd::ListArgs>(v)
                    .map(|a| Command::Memory(cli::memory_cmd::MemoryCommand::List(a)))
            },
        },
    },
    ToolDef {
        command: next::Command::MemoryUpdate,
        title: "Update an iteration record",
        description: "Changes fields of an iteration record (`kcamp memory update vN --set FIELD=VALUE --append FIELD=JSON --json`): every set, then every append; the result must satisfy the record's schema or nothing is written. Use it to record what a round taught (pitfalls_and_fixes, open directions).",
        kind: Kind::Write,
        request: Request {
            schema: schema_of::<cli::memory_cmd::UpdateArgs>,
            parse: |v| {
                from_value::<cli::memory_cmd::UpdateArgs>(v)
                    .map(|a| Command::Memory(cli::memory_cmd::MemoryCommand::Update(a)))
            },
        },
    },
    ToolDef {
        command: next::Command::Run,
        title: "Measure without recording",
        description: "Measures the working kernel without recording a round (`kcamp run --json`; artifacts under runs/): a look before a validation. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::run_cmd::RunArgs>,
            parse: |v| from_value::<cli::run_cmd::RunArgs>(v).map(Command::Run),
        },
    },
    ToolDef {
        command: next::Command::Peak,
        title: "Measure the adapter's peaks",
        description: "Measures the adapter's own FMA and copy ceilings (`kcamp peak --json`) and stores them in the campaign's peaks.json: the roofs analyze and the reports use. Runs in the server's own process: it cannot be cancelled half-way.",
        kind: Kind::Measure,
        request: Request {
            schema: schema_of::<cli::run_cmd::PeakArgs>,
            parse: |v| from_value::<cli::run_cmd::PeakArgs>(v).map(Command::Peak),
        },
    },
    ToolDef {
        command: next::Command::Repair,
        title: "Repair damaged records",
        description: "REPAIR (`kcamp repair --json`): rebuilds what cannot be read (a malformed journal line, decision or record, a decided round's changed snapshot) from the git history and the other records, or says why not; `dry_run` says what it would do and changes nothing.",
        kind: Kind::Write,
        request: Request {
            schema: schema_of::<cli::campaign_cmd::RepairArgs>,
            parse: |v| from_value::<cli::campaign_cmd::RepairArgs>(v).map(Command::Repair),
        },
    },
];

/// The steps as the calls of tools: each `{tool, arguments}` naming only arguments that
/// tool takes (an option of the command line alone, `--format`, is left out), with `fill`
/// for the arguments left to the caller, `then` for the calls that follow, `before` for
/// what to do first (`fix the kernel`), `why` for the step's note. A step no tool runs (one
/// in another campaign) is named as its command line in `command`, `tool` null.
pub fn next_calls(steps: &[NextStep]) -> Value {
    Value::Array(steps.iter().map(step_object).collect())
}

fn step_object(step: &NextStep) -> Value {
    let mut calls: Vec<Value> = match &step.campaign {
        Some(_) => Vec::new(),
        None => step.calls.iter().map(call_object).collect(),
    };
    let mut first = if calls.is_empty() {
        json!({"tool": Value::Null, "arguments": {}})
    } else {
        calls.remove(0)
    };
    if step.campaign.is_some()
        && let Some(call) = step.calls.first()
    {
        first["command"] = json!(next::command_line(
            call,
            step.campaign.as_deref(),
            &next::Plain
        ));
    }
    if !calls.is_empty() {
        first["then"] = Value::Array(calls);
    }
    if let Some(b) = &step.before {
        first["before"] = json!(b);
    }
    if let Some(w) = &step.why {
        first["why"] = json!(w);
    }
    first
}

fn call_object(call: &Call) -> Value {
    let Some(tool) = find(call.command.tool()) else {
        return json!({
            "tool": Value::Null,
            "command": next::command_line(call, None, &next::Plain),
            "arguments": {},
        });
    };
    let props = properties(tool.input_schema());
    let takes = |name: &str| props.and_then(|p| p.get(name));
    let mut arguments = Map::new();
    for (name, value) in &call.arguments {
        let Some(prop) = takes(name) else { continue };
        let value = match (prop.get("type").and_then(Value::as_str), value) {
            // A flag left off is the tool's default.
            (_, Value::Bool(false)) => continue,
            (Some("array"), Value::String(_)) => json!([value]),
            _ => value.clone(),
        };
        arguments.insert((*name).to_owned(), value);
    }
    let fill: Vec<&str> = call
        .fill
        .iter()
        .filter(|(name, _)| takes(name).is_some())
        .map(|(name, _)| *name)
        .collect();
    let mut object = json!({"tool": tool.name(), "arguments": arguments});
    if !fill.is_empty() {
        object["fill"] = json!(fill);
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(tool: &str, args: Value) -> Result<Command, String> {
        let Value::Object(map) = args else { panic!() };
        find(tool).unwrap().request(map, Path::new("/camp"))
    }

    #[test]
    fn a_call_becomes_the_request_of_its_command() {
        let Command::Round(cli::campaign_cmd::RoundCommand::New(r)) =
            request("round_new", json!({"hypothesis": "--tile 64x64"})).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.hypothesis, "--tile 64x64");
        let Command::Validate(v) = request(
            "validate",
            json!({"full": true, "csv": "a.csv", "backend": "gl"}),
        )
        .unwrap() else {
            panic!()
        };
        assert!(v.full);
        assert_eq!(v.csv, Some(PathBuf::from("/camp/a.csv")));
        assert_eq!(v.adapter.backend.as_deref(), Some("gl"));
        let Command::Gate(g) =
            request("gate", json!({"base": "/x/b.csv", "candidate": "c.csv"})).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (g.base, g.candidate),
            (PathBuf::from("/x/b.csv"), PathBuf::from("/camp/c.csv"))
        );
        let Command::Memory(cli::memory_cmd::MemoryCommand::Update(u)) = request(
            "memory_update",
            json!({"version": "v1", "set": ["a.b=1"], "append": ["c=[]"]}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(u.version.get().unwrap(), kcamp_core::memory::Version(1));
        assert_eq!(
            (u.set, u.append),
            (vec!["a.b=1".to_owned()], vec!["c=[]".to_owned()])
        );
        let Command::Validate(v) = request("validate", json!({})).unwrap() else {
            panic!()
        };
        assert!(!v.full && v.csv.is_none());
    }

    #[test]
    fn arguments_of_the_wrong_name_or_type_are_refused_naming_them() {
        let e = request("rollback", json!({})).unwrap_err();
        assert!(e.contains("'reason' is required"), "{e}");
        let e = request("validate", json!({"ful": true})).unwrap_err();
        assert!(
            e.contains("unknown argument 'ful'") && e.contains("full") && e.contains("csv"),
            "{e}"
        );
        let e = request("validate", json!({"full": "yes"})).unwrap_err();
        assert!(e.contains("'full' must be true or false"), "{e}");
        let e = request("run", json!({"shapes": "some"})).unwrap_err();
        assert!(e.contains("one of quick, full"), "{e}");
        let e = request("analyze", json!({"round": -1})).unwrap_err();
        assert!(e.contains("'round' must be a non-negative integer"), "{e}");
        let e = request("analyze", json!({"round": 3, "working": true})).unwrap_err();
        assert!(
            e.contains("'round' and 'working' exclude each other"),
            "{e}"
        );
        let e = request("memory_show", json!({"version": "vx"})).unwrap_err();
        assert!(e.starts_with("memory_show: ") && e.contains("vx"), "{e}");
        // A command-line option no tool takes.
        let e = request("report", json!({"format": "markdown"})).unwrap_err();
        assert!(e.contains("unknown argument 'format'"), "{e}");
        let e = request("status", json!({"x": 1})).unwrap_err();
        assert!(e.contains("no arguments"), "{e}");
    }

    /// Every tool's schema is derived from its command's request: the same arguments as
    /// its clap definition (less the command line's own `--format`), described, with the
    /// exclusive pairs in `not`.
    #[test]
    fn every_tool_has_the_arguments_of_its_command() {
        for tool in TOOLS {
            let schema = tool.input_schema();
            assert_eq!(schema["type"], "object", "{}", tool.name());
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name());
            let props = properties(schema).unwrap();
            let def = cli::command_def(tool.command).unwrap();
            for arg in def.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "format" | "flag" | "help" | "json" | "campaign") {
                    continue;
                }
                let prop = props
                    .get(id)
                    .unwrap_or_else(|| panic!("{}: no argument '{id}'", tool.name()));
                assert!(
                    prop.get("description").is_some_and(Value::is_string),
                    "{}: '{id}' has no description",
                    tool.name()
                );
            }
            for name in props.keys() {
                assert!(
                    def.get_arguments().any(|a| a.get_id().as_str() == name),
                    "{}: '{name}' is no argument of the command",
                    tool.name()
                );
            }
        }
        let analyze = find("analyze").unwrap().input_schema();
        assert_eq!(
            analyze["not"],
            json!({"anyOf": [{"required": ["round", "working"]}]})
        );
    }

    #[test]
    fn descriptions_state_the_campaigns_thresholds() {
        let gate = GateConfig {
            regression_threshold: 0.03,
            ..GateConfig::default()
        };
        let d = find("validate").unwrap().description(&gate);
        assert!(d.contains("beyond -3"), "{d}");
        assert!(!d.contains('{'), "{d}");
    }

    #[test]
    fn a_next_step_is_a_tool_call_naming_only_arguments_the_tool_takes() {
        use kcamp_core::next::Command;
        let one = |step: NextStep| next_calls(&[step])[0].clone();
        assert_eq!(
            one(NextStep::run(Command::Report)
                .arg("no_run", true)
                .arg("format", "markdown")
                .why("paste into a pull request")),
            json!({"tool": "report", "arguments": {"no_run": true}, "why": "paste into a pull request"})
        );
        assert_eq!(
            one(NextStep::new_round()),
            json!({"tool": "round_new", "arguments": {}, "fill": ["hypothesis"]})
        );
        assert_eq!(
            one(NextStep::run(Command::Validate).then(Command::Accept)),
            json!({"tool": "validate", "arguments": {}, "then": [{"tool": "accept", "arguments": {}}]})
        );
        assert_eq!(
            one(NextStep::run(Command::Validate)
                .arg("full", true)
                .before("fix the kernel")
                .why("measures kernel/ as it is now")),
            json!({"tool": "validate", "arguments": {"full": true}, "before": "fix the kernel", "why": "measures kernel/ as it is now"})
        );
        // A flag given as false is the tool's default: left out.
        assert_eq!(
            one(NextStep::run(Command::Validate).arg("full", false)),
            json!({"tool": "validate", "arguments": {}})
        );
        assert_eq!(
            one(NextStep::run(Command::Accept)
                .arg("force", true)
                .arg("reason", "s32 -3% is noise")),
            json!({"tool": "accept", "arguments": {"force": true, "reason": "s32 -3% is noise"}})
        );
        assert_eq!(
            one(NextStep::run(Command::Gate)
                .arg("base", "a.csv")
                .arg("candidate", "b c.csv")
                .arg("format", "csv")
                .why("every shape's numbers")),
            json!({"tool": "gate", "arguments": {"base": "a.csv", "candidate": "b c.csv"}, "why": "every shape's numbers"})
        );
        assert_eq!(
            one(NextStep::run(Command::MemoryShow).arg("version", "v2")),
            json!({"tool": "memory_show", "arguments": {"version": "v2"}})
        );
        assert_eq!(
            one(NextStep::run(Command::Repair).why("restores it from the git history")),
            json!({"tool": "repair", "arguments": {}, "why": "restores it from the git history"})
        );
        assert_eq!(
            one(NextStep::by_hand("put the file back as it was")),
            json!({"tool": null, "arguments": {}, "before": "put the file back as it was"})
        );
        // A command no tool runs is named as its command line.
        assert_eq!(
            one(NextStep::run(Command::Adapters)),
            json!({"tool": null, "command": "kcamp adapters", "arguments": {}})
        );
        // A step in another campaign is no call of this server's tools.
        assert_eq!(
            one(NextStep::run(Command::Baseline).in_campaign("/x/new camp")),
            json!({"tool": null, "command": "kcamp -C '/x/new camp' baseline", "arguments": {}})
        );
    }
}
