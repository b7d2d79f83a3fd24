//! The tools of `kcamp mcp`: each one a kcamp command. A call's arguments become that
//! command's own command line, parsed by the same argument parser and run by the same
//! function as `kcamp COMMAND --json`, so that a tool returns exactly the command's JSON
//! document and refuses exactly what the command refuses.

use std::path::Path;

use serde_json::{Map, Value, json};

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

/// One argument of a tool.
pub struct Param {
    pub name: &'static str,
    pub ty: Ty,
    pub description: &'static str,
    pub required: bool,
}

#[derive(Debug, Clone, Copy)]
pub enum Ty {
    String,
    /// A file path: relative ones are taken from the campaign directory.
    Path,
    Bool,
    Integer,
    Strings,
    OneOf(&'static [&'static str]),
}

pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub params: &'static [Param],
    pub kind: Kind,
    /// The command line (after `kcamp`) of a call.
    pub argv: fn(&Args<'_>) -> Result<Vec<String>, String>,
}

/// A call's arguments, checked against the tool's parameters.
pub struct Args<'a> {
    values: &'a Map<String, Value>,
    campaign: &'a Path,
}

impl<'a> Args<'a> {
    /// The arguments of a call of `tool`: every name one of its parameters, every value of
    /// its type, every required one given.
    pub fn check(
        tool: &ToolDef,
        values: &'a Map<String, Value>,
        campaign: &'a Path,
    ) -> Result<Args<'a>, String> {
        for (name, value) in values {
            let Some(p) = tool.params.iter().find(|p| p.name == name) else {
                let known: Vec<&str> = tool.params.iter().map(|p| p.name).collect();
                return Err(format!(
                    "{}: unknown argument '{name}' (it takes: {})",
                    tool.name,
                    if known.is_empty() {
                        "no arguments".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            let fits = match p.ty {
                Ty::String | Ty::Path => value.is_string(),
                Ty::Bool => value.is_boolean(),
                Ty::Integer => value.as_u64().is_some_and(|n| u32::try_from(n).is_ok()),
                Ty::Strings => value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string)),
                Ty::OneOf(choices) => value.as_str().is_some_and(|s| choices.contains(&s)),
            };
            if !fits {
                return Err(format!(
                    "{}: argument '{name}' must be {}, got {value}",
                    tool.name,
                    describe(p.ty)
                ));
            }
        }
        if let Some((a, b)) = exclusive(tool.name)
            .iter()
            .find(|(a, b)| values.contains_key(*a) && values.contains_key(*b))
        {
            return Err(format!(
                "{}: arguments '{a}' and '{b}' exclude each other: give one of them",
                tool.name
            ));
        }
        if let Some(p) = tool
            .params
            .iter()
            .find(|p| p.required && !values.contains_key(p.name))
        {
            return Err(format!(
                "{}: argument '{}' is required ({})",
                tool.name, p.name, p.description
            ));
        }
        Ok(Args { values, campaign })
    }

    fn str(&self, name: &str) -> Option<&'a str> {
        self.values.get(name).and_then(Value::as_str)
    }

    fn flag(&self, name: &str) -> bool {
        self.values.get(name).and_then(Value::as_bool) == Some(true)
    }

    fn strings(&self, name: &str) -> Vec<&'a str> {
        self.values
            .get(name)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// `--name=VALUE` (one word whatever VALUE holds: a hypothesis that starts with `-` is
    /// not taken for an option).
    fn option(&self, out: &mut Vec<String>, flag: &str, name: &str) {
        if let Some(v) = self.str(name) {
            out.push(format!("--{flag}={v}"));
        }
    }

    /// A path argument, taken from the campaign directory when relative.
    fn path(&self, name: &str) -> Option<String> {
        self.str(name).map(|p| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.display().to_string()
            } else {
                self.campaign.join(p).display().to_string()
            }
        })
    }

    fn path_option(&self, out: &mut Vec<String>, flag: &str, name: &str) {
        if let Some(p) = self.path(name) {
            out.push(format!("--{flag}={p}"));
        }
    }

    fn adapter(&self, out: &mut Vec<String>) {
        self.option(out, "adapter", "adapter");
        self.option(out, "backend", "backend");
    }
}

fn describe(ty: Ty) -> String {
    match ty {
        Ty::String | Ty::Path => "a string".into(),
        Ty::Bool => "true or false".into(),
        Ty::Integer => "a non-negative integer".into(),
        Ty::Strings => "a list of strings".into(),
        Ty::OneOf(c) => format!("one of {}", c.join(", ")),
    }
}

/// The JSON Schema of a tool's arguments.
pub fn input_schema(tool: &ToolDef) -> Map<String, Value> {
    let mut properties = Map::new();
    for p in tool.params {
        let mut schema = match p.ty {
            Ty::String | Ty::Path => json!({"type": "string"}),
            Ty::Bool => json!({"type": "boolean"}),
            Ty::Integer => json!({"type": "integer", "minimum": 0}),
            Ty::Strings => json!({"type": "array", "items": {"type": "string"}}),
            Ty::OneOf(c) => json!({"type": "string", "enum": c}),
        };
        schema["description"] = json!(p.description);
        properties.insert(p.name.to_owned(), schema);
    }
    let required: Vec<&str> = tool
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    let pairs = exclusive(tool.name);
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

/// The pairs of a tool's arguments that exclude each other (its command's clap conflicts).
pub fn exclusive(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        "analyze" => &[("round", "working")],
        _ => &[],
    }
}

/// A refusal of the command's argument parser as a tool's: the first line of clap's
/// message, each option it names (`'--version <vN>'`) written as the tool's argument
/// (`'version'`), without clap's usage and help lines, which name a command line the tool
/// does not take.
pub fn usage_message(tool: &str, e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let mut lines: Vec<&str> = rendered
        .lines()
        .map(str::trim_end)
        .take_while(|l| !l.trim_start().starts_with("Usage:"))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("tip:"))
        .collect();
    if lines.is_empty() {
        lines.push("the arguments do not fit the tool");
    }
    let text = lines.join(" ");
    let text = text.trim_start_matches("error: ");
    format!("{tool}: {}", argument_names(text))
}

/// `'--no-peak'` and `'--version <vN>'` as `'no_peak'` and `'version'`.
fn argument_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("'--") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 3..];
        let Some(end) = after.find('\'') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let name = after[..end]
            .split([' ', '='])
            .next()
            .unwrap_or("")
            .replace('-', "_");
        out.push_str(&format!("argument '{name}'"));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

const ADAPTER: Param = Param {
    name: "adapter",
    ty: Ty::String,
    description: "part of the adapter's name (case-insensitive), e.g. H200 or llvmpipe; default: the manifest's adapter",
    required: false,
};
const BACKEND: Param = Param {
    name: "backend",
    ty: Ty::OneOf(&["vulkan", "metal", "dx12", "gl"]),
    description: "the wgpu backend; default: the manifest's",
    required: false,
};

/// Every tool, in the order of the loop.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "status",
        title: "Campaign status",
        description: "Where the campaign stands (`kcamp status --json`): the incumbent, the open round and its last verdict, the performance target, who holds the lock, and `rolled_back`: every direction already tried and rolled back, with its verdict and reason (read it before choosing a hypothesis: do not walk in circles); `working_kernel_tried` names a rolled-back round whose kernel equals the working kernel. Read-only.",
        params: &[],
        kind: Kind::Read,
        argv: |_| Ok(vec!["status".into()]),
    },
    ToolDef {
        name: "log",
        title: "Lineage of rounds",
        description: "The lineage (`kcamp log --json`): every round with its hypothesis, state, validation, aggregate, the gate's Δ against its incumbent (or the shapes that failed), the decision's reason, the held-out check; `rolled_back` lists the directions rolled back and why. Read-only.",
        params: &[],
        kind: Kind::Read,
        argv: |_| Ok(vec!["log".into()]),
    },
    ToolDef {
        name: "analyze",
        title: "Analyze against the roofline",
        description: "ANALYZE (`kcamp analyze --json`): every shape of the incumbent (or of `round`, or of the working kernel with `working`) against the compute and bandwidth roofs, the kernel's static metrics, what the driver compiled, findings and the open directions of the records. Use it to choose the next hypothesis. Records the evidence in the round's iteration record.",
        params: &[
            Param {
                name: "round",
                ty: Ty::Integer,
                description: "analyze this round's snapshot and measurement instead of the incumbent",
                required: false,
            },
            Param {
                name: "working",
                ty: Ty::Bool,
                description: "analyze the working kernel (static metrics, the open round's latest validation)",
                required: false,
            },
        ],
        kind: Kind::Write,
        argv: |a| {
            let mut out = vec!["analyze".to_owned()];
            if let Some(n) = a.values.get("round").and_then(Value::as_u64) {
                out.push(format!("--round={n}"));
            }
            if a.flag("working") {
                out.push("--working".into());
            }
            Ok(out)
        },
    },
    ToolDef {
        name: "round_new",
        title: "Open a round",
        description: "OPTIMIZE (`kcamp round new --hypothesis TEXT --json`): opens the next round with ONE hypothesis, one line (one round, one hypothesis, one change). Refused while a round is open, before the BASELINE, or once the performance target is met. Then edit the working kernel (the resources kcamp://kernel/...) and call `validate`. `tried_before` lists rolled-back rounds whose kernel equals the working kernel.",
        params: &[Param {
            name: "hypothesis",
            ty: Ty::String,
            description: "the one change this round tries and why it should be faster, on one line",
            required: true,
        }],
        kind: Kind::Write,
        argv: |a| {
            let mut out = vec!["round".to_owned(), "new".to_owned()];
            a.option(&mut out, "hypothesis", "hypothesis");
            Ok(out)
        },
    },
    ToolDef {
        name: "validate",
        title: "Validate the working kernel",
        description: "VALIDATE (`kcamp validate --json`): measures the working kernel (quick: the representative shapes, timed, the other target shapes checked untimed; `full`: every target shape), beside the incumbent's snapshot in the same run, snapshots it into the open round and returns the gate's verdict (ACCEPT, ACCEPT_WITH_NOTE, NEEDS_REMEASURE, REJECT) with a reason for every shape. The gate decides: a shape that fails or regresses beyond -5% (outside its noise band) rejects the round whatever the mean says. `tried_before` names rolled-back rounds whose kernel equals this one. Sends progress notifications; cancelling stops it as Ctrl-C does (workers ended, nothing recorded).",
        params: &[
            Param {
                name: "full",
                ty: Ty::Bool,
                description: "every target shape instead of the representative ones",
                required: false,
            },
            Param {
                name: "csv",
                ty: Ty::Path,
                description: "import this CSV from your own harness instead of measuring (campaigns of imported CSVs); relative to the campaign directory",
                required: false,
            },
            ADAPTER,
            BACKEND,
        ],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["validate".to_owned()];
            if a.flag("full") {
                out.push("--full".into());
            }
            a.path_option(&mut out, "csv", "csv");
            a.adapter(&mut out);
            Ok(out)
        },
    },
    ToolDef {
        name: "accept",
        title: "Accept the open round",
        description: "ACCEPT (`kcamp accept --json`): makes the validated open round the incumbent, only when the gate allows it. A quick ACCEPT under +5% is first confirmed by a full validation (and rolled back if that overturns it); then the kernel's output is checked on held-out shapes you are not shown, and a failure there rolls the round back whatever else was said. `force` overrides the gate and needs a `reason`; it is recorded as forced and never takes a round in which no shape passes. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        params: &[
            Param {
                name: "force",
                ty: Ty::Bool,
                description: "accept against the gate's verdict (recorded as forced); needs reason",
                required: false,
            },
            Param {
                name: "reason",
                ty: Ty::String,
                description: "why the gate is overridden (with force), one line",
                required: false,
            },
            Param {
                name: "csv",
                ty: Ty::Path,
                description: "the confirming full validation's CSV (campaigns of imported CSVs)",
                required: false,
            },
        ],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["accept".to_owned()];
            if a.flag("force") {
                out.push("--force".into());
            }
            a.option(&mut out, "reason", "reason");
            a.path_option(&mut out, "csv", "csv");
            Ok(out)
        },
    },
    ToolDef {
        name: "rollback",
        title: "Roll the open round back",
        description: "ROLLBACK (`kcamp rollback --reason TEXT --json`): restores the working kernel from the incumbent's snapshot exactly (files added in the round are removed) and closes the round as rolled back with its reason. The reason is what `status` and `log` show later under `rolled_back`: say what was learned.",
        params: &[Param {
            name: "reason",
            ty: Ty::String,
            description: "why the round is rolled back, one line",
            required: true,
        }],
        kind: Kind::Write,
        argv: |a| {
            let mut out = vec!["rollback".to_owned()];
            a.option(&mut out, "reason", "reason");
            Ok(out)
        },
    },
    ToolDef {
        name: "report",
        title: "Final report",
        description: "REPORT (`kcamp report --json`): the final full validation of the incumbent beside the BASELINE's snapshot, judged against the BASELINE, then a held-out check; writes report.md (resource kcamp://report.md) and charts. `no_run` reports on the recorded numbers. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        params: &[
            Param {
                name: "no_run",
                ty: Ty::Bool,
                description: "skip the final full validation: report on the recorded rounds",
                required: false,
            },
            Param {
                name: "csv",
                ty: Ty::Path,
                description: "the final full validation's CSV (campaigns of imported CSVs)",
                required: false,
            },
            ADAPTER,
            BACKEND,
        ],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["report".to_owned()];
            if a.flag("no_run") {
                out.push("--no-run".into());
            }
            a.path_option(&mut out, "csv", "csv");
            a.adapter(&mut out);
            Ok(out)
        },
    },
    ToolDef {
        name: "baseline",
        title: "Record the BASELINE",
        description: "BASELINE (`kcamp baseline --json`): round 1, a full validation of the working kernel; freezes the CSV schema and picks the representative shapes. Once per campaign. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        params: &[
            Param {
                name: "csv",
                ty: Ty::Path,
                description: "import this CSV instead of measuring",
                required: false,
            },
            Param {
                name: "no_peak",
                ty: Ty::Bool,
                description: "do not measure the adapter's peaks first",
                required: false,
            },
            ADAPTER,
            BACKEND,
        ],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["baseline".to_owned()];
            a.path_option(&mut out, "csv", "csv");
            if a.flag("no_peak") {
                out.push("--no-peak".into());
            }
            a.adapter(&mut out);
            Ok(out)
        },
    },
    ToolDef {
        name: "gate",
        title: "Judge two CSVs",
        description: "The gate on any two CSVs of one schema (`kcamp gate BASE CAND --json`): per-shape change, band, class and the verdict. Read-only.",
        params: &[
            Param {
                name: "base",
                ty: Ty::Path,
                description: "the incumbent's CSV, relative to the campaign directory",
                required: true,
            },
            Param {
                name: "candidate",
                ty: Ty::Path,
                description: "the candidate's CSV, relative to the campaign directory",
                required: true,
            },
            Param {
                name: "metric",
                ty: Ty::String,
                description: "the metric to judge (default: the campaign's primary metric)",
                required: false,
            },
        ],
        kind: Kind::Read,
        argv: |a| {
            let mut out = vec!["gate".to_owned()];
            a.option(&mut out, "metric", "metric");
            out.push("--".into());
            out.extend(a.path("base"));
            out.extend(a.path("candidate"));
            Ok(out)
        },
    },
    ToolDef {
        name: "memory_show",
        title: "Show an iteration record",
        description: "One iteration record (`kcamp memory show vN --json`): v0 is round 1 (the BASELINE), vN round N+1; what was tried, measured and learned. Read-only.",
        params: &[VERSION],
        kind: Kind::Read,
        argv: |a| {
            let mut out = vec!["memory".to_owned(), "show".to_owned()];
            a.option(&mut out, "version", "version");
            Ok(out)
        },
    },
    ToolDef {
        name: "memory_list",
        title: "List the iteration records",
        description: "The iteration records (`kcamp memory list --json`). Read-only.",
        params: &[Param {
            name: "all",
            ty: Ty::Bool,
            description: "include masked records",
            required: false,
        }],
        kind: Kind::Read,
        argv: |a| {
            let mut out = vec!["memory".to_owned(), "list".to_owned()];
            if a.flag("all") {
                out.push("--all".into());
            }
            Ok(out)
        },
    },
    ToolDef {
        name: "memory_update",
        title: "Update an iteration record",
        description: "Changes fields of an iteration record (`kcamp memory update vN --set FIELD=VALUE --append FIELD=JSON --json`): every set, then every append; the result must satisfy the record's schema or nothing is written. Use it to record what a round taught (pitfalls_and_fixes, open directions).",
        params: &[
            VERSION,
            Param {
                name: "set",
                ty: Ty::Strings,
                description: "FIELD=VALUE with a dotted path (performance.tflops=12.5); VALUE is a number, bool or null when it reads as one, JSON when it starts with [ or {, else a string",
                required: false,
            },
            Param {
                name: "append",
                ty: Ty::Strings,
                description: "FIELD=JSON: one element appended to an array field",
                required: false,
            },
        ],
        kind: Kind::Write,
        argv: |a| {
            let mut out = vec!["memory".to_owned(), "update".to_owned()];
            a.option(&mut out, "version", "version");
            out.extend(a.strings("set").into_iter().map(|s| format!("--set={s}")));
            out.extend(
                a.strings("append")
                    .into_iter()
                    .map(|s| format!("--append={s}")),
            );
            Ok(out)
        },
    },
    ToolDef {
        name: "run",
        title: "Measure without recording",
        description: "Measures the working kernel without recording a round (`kcamp run --json`; artifacts under runs/): a look before a validation. Sends progress notifications; cancelling stops it as Ctrl-C does.",
        params: &[
            Param {
                name: "shapes",
                ty: Ty::OneOf(&["quick", "full"]),
                description: "quick (the representative shapes) or full (every target shape, the default)",
                required: false,
            },
            ADAPTER,
            BACKEND,
        ],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["run".to_owned()];
            a.option(&mut out, "shapes", "shapes");
            a.adapter(&mut out);
            Ok(out)
        },
    },
    ToolDef {
        name: "peak",
        title: "Measure the adapter's peaks",
        description: "Measures the adapter's own FMA and copy ceilings (`kcamp peak --json`) and stores them in the campaign's peaks.json: the roofs analyze and the reports use. Runs in the server's own process: it cannot be cancelled half-way.",
        params: &[ADAPTER, BACKEND],
        kind: Kind::Measure,
        argv: |a| {
            let mut out = vec!["peak".to_owned()];
            a.adapter(&mut out);
            Ok(out)
        },
    },
];

const VERSION: Param = Param {
    name: "version",
    ty: Ty::String,
    description: "the record: v0 (round 1, the BASELINE), v1 (round 2), ...",
    required: true,
};

/// A command's next step (a line such as `kcamp -C DIR validate, then kcamp accept
/// (dashboard: v, then a)`) as what an agent calls: `{tool, arguments}` naming only
/// arguments that tool takes (an option the tool has not, `--format`, is left out), with
/// `fill` for the arguments the step leaves to the caller (`--hypothesis TEXT`), `then`
/// for the calls that follow, `before` for what to do first (`fix the kernel`), `why` for
/// the step's note. A command no tool runs is named as `command` (`tool` null).
pub fn next_step(step: &str) -> Value {
    let step = step.strip_prefix("or: ").unwrap_or(step).trim();
    let (body, why) = split_why(step);
    let mut calls: Vec<Value> = Vec::new();
    let mut before = None;
    for (i, part) in body.split(", then ").enumerate() {
        let part = part.trim();
        match command_at(part) {
            Some((lead, command)) => {
                if i == 0 && !lead.is_empty() {
                    before = Some(lead.trim_end_matches([',', ' ']).to_owned());
                }
                calls.push(call_of(command));
            }
            None if calls.is_empty() => {
                before = Some(match before {
                    Some(b) => format!("{b}, then {part}"),
                    None => part.to_owned(),
                })
            }
            None => {}
        }
    }
    let mut first = if calls.is_empty() {
        json!({"tool": Value::Null, "arguments": {}})
    } else {
        calls.remove(0)
    };
    if !calls.is_empty() {
        first["then"] = Value::Array(calls);
    }
    if let Some(b) = before {
        first["before"] = json!(b);
    }
    if let Some(w) = why {
        first["why"] = json!(w);
    }
    first
}

/// A step's text and its note: `(…)` after three spaces or `# …`, without the dashboard's
/// key hints (`dashboard: v`), which are no step of an agent's.
fn split_why(step: &str) -> (&str, Option<String>) {
    let (body, note) = if let Some(i) = step.find("   (") {
        (
            &step[..i],
            step[i + 4..].strip_suffix(')').unwrap_or(&step[i + 4..]),
        )
    } else if let Some(i) = step.find("   # ") {
        (&step[..i], &step[i + 5..])
    } else {
        return (step, None);
    };
    let kept: Vec<&str> = note
        .split("; ")
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with("dashboard:"))
        .collect();
    (body.trim(), (!kept.is_empty()).then(|| kept.join("; ")))
}

/// The text before the command a part names, and the command (from `kcamp `).
fn command_at(part: &str) -> Option<(&str, &str)> {
    let i = part
        .match_indices("kcamp ")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || part[..i].ends_with(' '))?;
    Some((&part[..i], &part[i..]))
}

/// Words as a POSIX shell splits them (quotes and backslashes; no expansions).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// A value the step leaves to the caller: `TEXT`, `N`, `vN`, `CSV`.
fn placeholder(value: &str) -> bool {
    value == "vN"
        || (!value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c == '.'))
}

/// `kcamp [-C DIR] COMMAND [ARGS]` as `{tool, arguments, fill}`.
fn call_of(command: &str) -> Value {
    let mut words = shell_words(command).into_iter().skip(1).peekable();
    let mut rest: Vec<String> = Vec::new();
    while let Some(w) = words.next() {
        match w.as_str() {
            "-C" | "--campaign" => {
                words.next();
            }
            "--json" => {}
            _ if w.starts_with("--campaign=") => {}
            _ => rest.push(w),
        }
    }
    let two = rest.iter().take(2).cloned().collect::<Vec<_>>().join("_");
    let (tool, skip) = match (find(&two), rest.first().and_then(|w| find(w))) {
        (Some(t), _) if rest.len() >= 2 => (t, 2),
        (_, Some(t)) => (t, 1),
        _ => {
            return json!({"tool": Value::Null, "command": command.trim(), "arguments": {}});
        }
    };
    let mut arguments = Map::new();
    let mut fill: Vec<&str> = Vec::new();
    let mut positional: Vec<String> = Vec::new();
    let mut args = rest.into_iter().skip(skip).peekable();
    let mut options = true;
    while let Some(w) = args.next() {
        let flag = w.strip_prefix("--").filter(|f| options && !f.is_empty());
        let Some(flag) = flag else {
            if w == "--" {
                options = false;
            } else {
                positional.push(w);
            }
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.replace('-', "_"), Some(v.to_owned())),
            None => (flag.replace('-', "_"), None),
        };
        let param = tool.params.iter().find(|p| p.name == name);
        let takes_value = !matches!(param.map(|p| p.ty), Some(Ty::Bool));
        let value = match inline {
            Some(v) => Some(v),
            None if takes_value && args.peek().is_some_and(|n| !n.starts_with("--")) => args.next(),
            None => None,
        };
        let Some(p) = param else { continue };
        match (p.ty, value) {
            (Ty::Bool, _) => {
                arguments.insert(p.name.into(), json!(true));
            }
            (_, Some(v)) if placeholder(&v) => fill.push(p.name),
            (Ty::Integer, Some(v)) => match v.parse::<u64>() {
                Ok(n) => {
                    arguments.insert(p.name.into(), json!(n));
                }
                Err(_) => fill.push(p.name),
            },
            (Ty::Strings, Some(v)) => {
                arguments.insert(p.name.into(), json!([v]));
            }
            (_, Some(v)) => {
                arguments.insert(p.name.into(), json!(v));
            }
            (_, None) => fill.push(p.name),
        }
    }
    // Positional words fill the tool's arguments that the command line takes in place:
    // the record's version, the gate's two CSVs.
    let slots: Vec<&Param> = tool
        .params
        .iter()
        .filter(|p| p.required && !arguments.contains_key(p.name) && !fill.contains(&p.name))
        .collect();
    let mut slots = slots.into_iter();
    for w in positional {
        let Some(p) = slots.next() else { break };
        if placeholder(&w) {
            fill.push(p.name);
        } else {
            arguments.insert(p.name.into(), json!(w));
        }
    }
    let mut call = json!({"tool": tool.name, "arguments": arguments});
    if !fill.is_empty() {
        call["fill"] = json!(fill);
    }
    call
}

/// A command's document with its next steps as [`next_step`] objects: the document's own
/// `next`, and an error document's `error.next`.
pub fn with_next_steps(mut doc: Value) -> Value {
    fn convert(next: &mut Value) {
        if let Value::Array(steps) = next {
            for s in steps.iter_mut() {
                if let Value::String(line) = s {
                    *s = next_step(line);
                }
            }
        }
    }
    if let Some(next) = doc.get_mut("next") {
        convert(next);
    }
    if let Some(next) = doc.get_mut("error").and_then(|e| e.get_mut("next")) {
        convert(next);
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(tool: &str, args: Value) -> Result<Vec<String>, String> {
        let t = find(tool).unwrap();
        let Value::Object(map) = args else { panic!() };
        let a = Args::check(t, &map, Path::new("/camp"))?;
        (t.argv)(&a)
    }

    #[test]
    fn a_call_becomes_the_command_line_of_its_command() {
        assert_eq!(
            argv("round_new", json!({"hypothesis": "--tile 64x64"})).unwrap(),
            ["round", "new", "--hypothesis=--tile 64x64"]
        );
        assert_eq!(
            argv(
                "validate",
                json!({"full": true, "csv": "a.csv", "backend": "gl"})
            )
            .unwrap(),
            ["validate", "--full", "--csv=/camp/a.csv", "--backend=gl"]
        );
        assert_eq!(
            argv("gate", json!({"base": "/x/b.csv", "candidate": "c.csv"})).unwrap(),
            ["gate", "--", "/x/b.csv", "/camp/c.csv"]
        );
        assert_eq!(
            argv(
                "memory_update",
                json!({"version": "v1", "set": ["a.b=1"], "append": ["c=[]"]})
            )
            .unwrap(),
            [
                "memory",
                "update",
                "--version=v1",
                "--set=a.b=1",
                "--append=c=[]"
            ]
        );
        assert_eq!(
            argv("validate", json!({"full": false})).unwrap(),
            ["validate"]
        );
    }

    #[test]
    fn arguments_of_the_wrong_name_or_type_are_refused_naming_them() {
        let e = argv("rollback", json!({})).unwrap_err();
        assert!(e.contains("'reason' is required"), "{e}");
        let e = argv("validate", json!({"ful": true})).unwrap_err();
        assert!(
            e.contains("unknown argument 'ful'") && e.contains("full, csv"),
            "{e}"
        );
        let e = argv("validate", json!({"full": "yes"})).unwrap_err();
        assert!(e.contains("'full' must be true or false"), "{e}");
        let e = argv("run", json!({"shapes": "some"})).unwrap_err();
        assert!(e.contains("one of quick, full"), "{e}");
        let e = argv("analyze", json!({"round": -1})).unwrap_err();
        assert!(e.contains("non-negative integer"), "{e}");
        let e = argv("analyze", json!({"round": 3, "working": true})).unwrap_err();
        assert!(
            e.contains("'round' and 'working' exclude each other"),
            "{e}"
        );
    }

    #[test]
    fn a_next_step_is_a_tool_call_naming_only_arguments_the_tool_takes() {
        assert_eq!(
            next_step(
                "kcamp -C '/my camp' report --no-run --format markdown   (paste into a pull request)"
            ),
            json!({"tool": "report", "arguments": {"no_run": true}, "why": "paste into a pull request"})
        );
        assert_eq!(
            next_step("kcamp round new --hypothesis TEXT   (dashboard: n)"),
            json!({"tool": "round_new", "arguments": {}, "fill": ["hypothesis"]})
        );
        assert_eq!(
            next_step("kcamp validate, then kcamp accept   (dashboard: v, then a)"),
            json!({"tool": "validate", "arguments": {}, "then": [{"tool": "accept", "arguments": {}}]})
        );
        assert_eq!(
            next_step(
                "or: fix the kernel, then kcamp -C x validate --full   (measures kernel/ as it is now; dashboard: v)"
            ),
            json!({"tool": "validate", "arguments": {"full": true}, "before": "fix the kernel", "why": "measures kernel/ as it is now"})
        );
        assert_eq!(
            next_step("kcamp accept --force --reason \"s32 -3% is noise\""),
            json!({"tool": "accept", "arguments": {"force": true, "reason": "s32 -3% is noise"}})
        );
        assert_eq!(
            next_step("kcamp gate a.csv 'b c.csv' --format csv   # every shape's numbers"),
            json!({"tool": "gate", "arguments": {"base": "a.csv", "candidate": "b c.csv"}, "why": "every shape's numbers"})
        );
        assert_eq!(
            next_step("kcamp memory show v2"),
            json!({"tool": "memory_show", "arguments": {"version": "v2"}})
        );
        assert_eq!(
            next_step("kcamp repair   (restores it from the git history)"),
            json!({"tool": null, "command": "kcamp repair", "arguments": {}, "why": "restores it from the git history"})
        );
        assert_eq!(
            next_step("put the file back as it was"),
            json!({"tool": null, "arguments": {}, "before": "put the file back as it was"})
        );
    }

    #[test]
    fn a_refusal_of_the_parser_names_the_tools_argument_without_usage_text() {
        use clap::Parser;
        let e = crate::cli::Cli::try_parse_from(["kcamp", "memory", "show", "--version=vx"])
            .unwrap_err();
        let m = usage_message("memory_show", &e);
        assert!(m.starts_with("memory_show: "), "{m}");
        assert!(m.contains("argument 'version'"), "{m}");
        assert!(!m.contains("--version") && !m.contains("Usage"), "{m}");
        let e = crate::cli::Cli::try_parse_from(["kcamp", "analyze", "--round=3", "--working"])
            .unwrap_err();
        let m = usage_message("analyze", &e);
        assert!(
            m.contains("argument 'round'") && m.contains("argument 'working'"),
            "{m}"
        );
    }

    #[test]
    fn every_tool_parses_as_its_command_and_has_a_schema() {
        use clap::Parser;
        let samples = json!({
            "status": {}, "log": {}, "analyze": {"round": 2}, "round_new": {"hypothesis": "h"},
            "validate": {"full": true}, "accept": {"force": true, "reason": "r"},
            "rollback": {"reason": "r"}, "report": {"no_run": true}, "baseline": {"no_peak": true},
            "gate": {"base": "a.csv", "candidate": "b.csv"}, "memory_show": {"version": "v0"},
            "memory_list": {}, "memory_update": {"version": "v0", "set": ["a=1"]},
            "run": {"shapes": "quick"}, "peak": {"backend": "vulkan"},
        });
        for tool in TOOLS {
            let args = samples
                .get(tool.name)
                .unwrap_or_else(|| panic!("{}", tool.name));
            let line = argv(tool.name, args.clone()).unwrap();
            let parsed = crate::cli::Cli::try_parse_from(
                std::iter::once("kcamp".to_owned()).chain(line.clone()),
            );
            assert!(parsed.is_ok(), "{} {line:?}: {:?}", tool.name, parsed.err());
            let schema = input_schema(tool);
            assert_eq!(schema["type"], "object");
            assert!(tool.description.len() > 40, "{}", tool.name);
        }
    }
}
