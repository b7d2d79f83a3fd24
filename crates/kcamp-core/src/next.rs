//! What to do next, as data: a refusal or an outcome names the commands that move the
//! campaign on, with their arguments. Each front end renders them its own way: the CLI as a
//! `next:` command line (`kcamp -C DIR validate`), the MCP server as `{tool, arguments}`
//! calls, the dashboard as its keys. Argument names are the commands' own request fields
//! (`hypothesis`, `full`, `reason`), so every front end can check them against its schema.

use serde::Serialize;
use serde_json::Value;

/// A kcamp command a step runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    Init,
    Baseline,
    RoundNew,
    Validate,
    Accept,
    Rollback,
    Status,
    Log,
    Diff,
    Report,
    Analyze,
    Run,
    Adapters,
    Peak,
    Gate,
    MemoryList,
    MemoryShow,
    MemoryUpdate,
    Repair,
}

impl Command {
    /// Every command, in the order `kcamp --help` lists them.
    pub const ALL: [Command; 19] = [
        Command::Init,
        Command::Baseline,
        Command::RoundNew,
        Command::Validate,
        Command::Accept,
        Command::Rollback,
        Command::Status,
        Command::Log,
        Command::Diff,
        Command::Report,
        Command::Analyze,
        Command::Run,
        Command::Adapters,
        Command::Peak,
        Command::Gate,
        Command::MemoryList,
        Command::MemoryShow,
        Command::MemoryUpdate,
        Command::Repair,
    ];

    /// The name of the MCP tool that runs it (`round_new`).
    pub fn tool(self) -> &'static str {
        match self {
            Command::Init => "init",
            Command::Baseline => "baseline",
            Command::RoundNew => "round_new",
            Command::Validate => "validate",
            Command::Accept => "accept",
            Command::Rollback => "rollback",
            Command::Status => "status",
            Command::Log => "log",
            Command::Diff => "diff",
            Command::Report => "report",
            Command::Analyze => "analyze",
            Command::Run => "run",
            Command::Adapters => "adapters",
            Command::Peak => "peak",
            Command::Gate => "gate",
            Command::MemoryList => "memory_list",
            Command::MemoryShow => "memory_show",
            Command::MemoryUpdate => "memory_update",
            Command::Repair => "repair",
        }
    }

    /// The words after `kcamp` on a command line (`round new`).
    pub fn words(self) -> &'static str {
        match self {
            Command::RoundNew => "round new",
            Command::MemoryList => "memory list",
            Command::MemoryShow => "memory show",
            Command::MemoryUpdate => "memory update",
            other => other.tool(),
        }
    }

    /// The command an MCP tool name runs.
    pub fn from_tool(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.tool() == name)
    }
}

/// One command of a step, with the arguments it is given and the ones left to the caller.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Call {
    pub command: Command,
    /// Arguments given, by request field name, in the order they are written.
    pub arguments: Vec<(&'static str, Value)>,
    /// Arguments the caller supplies, each with the placeholder a command line shows
    /// (`hypothesis`, `TEXT`).
    pub fill: Vec<(&'static str, &'static str)>,
}

impl Call {
    pub fn new(command: Command) -> Call {
        Call {
            command,
            arguments: Vec::new(),
            fill: Vec::new(),
        }
    }

    pub fn arg(mut self, name: &'static str, value: impl Into<Value>) -> Call {
        self.arguments.push((name, value.into()));
        self
    }

    pub fn fill(mut self, name: &'static str, placeholder: &'static str) -> Call {
        self.fill.push((name, placeholder));
        self
    }

    /// Whether the call is given no value of its own: only flags, or arguments left to the
    /// caller (a dashboard key runs such a call; one with a value written out is an
    /// example to copy).
    pub fn is_generic(&self) -> bool {
        self.arguments.iter().all(|(_, v)| v.is_boolean())
    }
}

/// One way forward: what to do by hand first, the commands to run in order, and why.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct NextStep {
    /// What to do first, by hand (`fix the kernel`); alone, a step no command runs.
    pub before: Option<String>,
    /// The commands, in order (`validate`, then `accept`).
    pub calls: Vec<Call>,
    /// A note on the step: what it does or when to take it.
    pub why: Option<String>,
    /// The campaign its commands run in, where it is not the one the step comes from
    /// (`init` names the campaign it made).
    pub campaign: Option<String>,
}

impl NextStep {
    /// Run `command`.
    pub fn run(command: Command) -> NextStep {
        NextStep::call(Call::new(command))
    }

    pub fn call(call: Call) -> NextStep {
        NextStep {
            calls: vec![call],
            ..NextStep::default()
        }
    }

    /// A step done by hand (edit a file, wait), no command.
    pub fn by_hand(what: impl Into<String>) -> NextStep {
        NextStep {
            before: Some(what.into()),
            ..NextStep::default()
        }
    }

    /// Give the last call an argument.
    pub fn arg(mut self, name: &'static str, value: impl Into<Value>) -> NextStep {
        if let Some(call) = self.calls.last_mut() {
            call.arguments.push((name, value.into()));
        }
        self
    }

    /// Leave an argument of the last call to the caller.
    pub fn fill(mut self, name: &'static str, placeholder: &'static str) -> NextStep {
        if let Some(call) = self.calls.last_mut() {
            call.fill.push((name, placeholder));
        }
        self
    }

    /// Then run `command`.
    pub fn then(mut self, command: Command) -> NextStep {
        self.calls.push(Call::new(command));
        self
    }

    /// Do `what` by hand before the first command.
    pub fn before(mut self, what: impl Into<String>) -> NextStep {
        self.before = Some(what.into());
        self
    }

    pub fn why(mut self, why: impl Into<String>) -> NextStep {
        self.why = Some(why.into());
        self
    }

    /// Run the commands in the campaign `dir`.
    pub fn in_campaign(mut self, dir: impl Into<String>) -> NextStep {
        self.campaign = Some(dir.into());
        self
    }

    /// `round new --hypothesis TEXT`, the step after every decision.
    pub fn new_round() -> NextStep {
        NextStep::run(Command::RoundNew).fill("hypothesis", "TEXT")
    }

    /// `rollback --reason TEXT`.
    pub fn rollback() -> NextStep {
        NextStep::run(Command::Rollback).fill("reason", "TEXT")
    }
}

/// How a front end writes a step as a command line.
pub trait Style {
    /// The program and the options every command line of this front end starts with
    /// (`kcamp`, `kcamp -C 'my camp'`).
    fn program(&self) -> &str;
    /// Whether `name` is one of `command`'s positional arguments (written in place, in the
    /// order given), not an option.
    fn positional(&self, command: Command, name: &str) -> bool;
    /// The key that runs `call` in the dashboard, where one does.
    fn key(&self, call: &Call) -> Option<String>;
    /// How the keys of a step's calls are named in its note (all of its calls have one).
    fn keys_note(&self, keys: &[String]) -> String;
}

/// The plain style: `kcamp` and no dashboard keys; `version` and the gate's CSVs in place.
pub struct Plain;

impl Style for Plain {
    fn program(&self) -> &str {
        "kcamp"
    }
    fn positional(&self, command: Command, name: &str) -> bool {
        matches!(
            (command, name),
            (Command::MemoryShow | Command::MemoryUpdate, "version")
                | (Command::Gate, "base" | "candidate")
                | (Command::Init, "dir")
                | (Command::Diff, "from" | "to")
        )
    }
    fn key(&self, _call: &Call) -> Option<String> {
        None
    }
    fn keys_note(&self, keys: &[String]) -> String {
        keys.join(", then ")
    }
}

/// A call as a command line: `kcamp round new --hypothesis TEXT`; in `campaign` where it
/// names one (`kcamp -C DIR baseline`).
pub fn command_line(call: &Call, campaign: Option<&str>, style: &dyn Style) -> String {
    let program = match campaign {
        Some(dir) => format!("kcamp -C {}", crate::text::shell_word(dir)),
        None => style.program().to_owned(),
    };
    let mut line = format!("{program} {}", call.command.words());
    let word = |v: &Value| match v {
        Value::String(s) => crate::text::shell_word(s).into_owned(),
        other => other.to_string(),
    };
    for (name, value) in &call.arguments {
        if style.positional(call.command, name) {
            line.push(' ');
            line.push_str(&word(value));
            continue;
        }
        let flag = name.replace('_', "-");
        match value {
            Value::Bool(true) => line.push_str(&format!(" --{flag}")),
            Value::Bool(false) => {}
            Value::Array(items) => {
                for item in items {
                    line.push_str(&format!(" --{flag} {}", word(item)));
                }
            }
            v => line.push_str(&format!(" --{flag} {}", word(v))),
        }
    }
    for (name, placeholder) in &call.fill {
        if style.positional(call.command, name) {
            line.push_str(&format!(" {placeholder}"));
        } else {
            line.push_str(&format!(" --{} {placeholder}", name.replace('_', "-")));
        }
    }
    line
}

/// A step as one line: what to do first, the commands, then its note and the keys of its
/// calls in parentheses (`fix the kernel, then kcamp validate   (why; KEYS)`).
pub fn step_line(step: &NextStep, style: &dyn Style) -> String {
    let mut parts: Vec<String> = step.before.iter().cloned().collect();
    parts.extend(
        step.calls
            .iter()
            .map(|c| command_line(c, step.campaign.as_deref(), style)),
    );
    let mut line = parts.join(", then ");
    let keys: Option<Vec<String>> = (!step.calls.is_empty())
        .then(|| {
            step.calls
                .iter()
                .map(|c| c.is_generic().then(|| style.key(c)).flatten())
                .collect()
        })
        .flatten();
    let mut note: Vec<String> = step.why.iter().cloned().collect();
    if let Some(keys) = keys {
        note.push(style.keys_note(&keys));
    }
    if !note.is_empty() {
        line.push_str(&format!("   ({})", note.join("; ")));
    }
    line
}

/// How a step after the first is indented under `next: `.
pub const STEP_INDENT: &str = "      ";

/// The steps as printed after a message or an output: `next: ` and the first, then each
/// other one indented, as an alternative (`or: `). Empty when there are none.
pub fn lines(steps: &[NextStep], style: &dyn Style) -> String {
    let mut text = String::new();
    for (i, step) in steps.iter().enumerate() {
        if i == 0 {
            text.push_str("next: ");
        } else {
            text.push('\n');
            text.push_str(STEP_INDENT);
            text.push_str("or: ");
        }
        text.push_str(&step_line(step, style));
    }
    text
}

/// A message with its steps after it, as a person reads it.
pub fn with_lines(message: &str, steps: &[NextStep], style: &dyn Style) -> String {
    if steps.is_empty() {
        message.to_owned()
    } else {
        format!("{message}\n{}", lines(steps, style))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_own_tool_name_and_words() {
        let mut tools: Vec<&str> = Command::ALL.iter().map(|c| c.tool()).collect();
        tools.sort_unstable();
        tools.dedup();
        assert_eq!(tools.len(), Command::ALL.len());
        for c in Command::ALL {
            assert_eq!(Command::from_tool(c.tool()), Some(c));
            assert_eq!(c.words().replace(' ', "_"), c.tool());
        }
        assert_eq!(Command::from_tool("round new"), None);
    }

    struct Keys;
    impl Style for Keys {
        fn program(&self) -> &str {
            "k -C 'my camp'"
        }
        fn positional(&self, command: Command, name: &str) -> bool {
            Plain.positional(command, name)
        }
        fn key(&self, call: &Call) -> Option<String> {
            match call.command {
                Command::Validate => Some("v".into()),
                Command::Accept => Some("a".into()),
                _ => None,
            }
        }
        fn keys_note(&self, keys: &[String]) -> String {
            format!("keys: {}", keys.join(" + "))
        }
    }

    #[test]
    fn steps_render_as_command_lines_with_their_notes_and_keys() {
        let steps = vec![
            NextStep::run(Command::Validate).then(Command::Accept),
            NextStep::rollback().why("the kernel is slower"),
            NextStep::run(Command::MemoryUpdate)
                .arg("version", "v2")
                .fill("set", "FIELD=VALUE"),
            NextStep::run(Command::Rollback).arg("reason", "slower on s64: it's spilling"),
            NextStep::run(Command::Validate).before("fix the kernel"),
        ];
        assert_eq!(
            lines(&steps, &Keys),
            "next: k -C 'my camp' validate, then k -C 'my camp' accept   (keys: v + a)\n      \
             or: k -C 'my camp' rollback --reason TEXT   (the kernel is slower)\n      \
             or: k -C 'my camp' memory update v2 --set FIELD=VALUE\n      \
             or: k -C 'my camp' rollback --reason \"slower on s64: it's spilling\"\n      \
             or: fix the kernel, then k -C 'my camp' validate   (keys: v)"
        );
        assert_eq!(with_lines("done.", &[], &Plain), "done.");
        assert_eq!(
            with_lines("stop.", &[NextStep::by_hand("wait")], &Plain),
            "stop.\nnext: wait"
        );
    }

    #[test]
    fn a_step_builds_its_calls_in_order() {
        let step = NextStep::new_round()
            .then(Command::Validate)
            .arg("full", true)
            .before("edit kernel/")
            .why("a run records nothing");
        assert_eq!(step.calls.len(), 2);
        assert_eq!(step.calls[0].fill, vec![("hypothesis", "TEXT")]);
        assert_eq!(step.calls[1].arguments, vec![("full", Value::Bool(true))]);
        assert!(step.calls.iter().all(Call::is_generic));
        let example = NextStep::run(Command::Rollback).arg("reason", "slower on s64");
        assert!(!example.calls[0].is_generic());
        assert_eq!(NextStep::by_hand("wait").calls, vec![]);
    }
}
