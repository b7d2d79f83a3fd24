//! Command-line interface: clap definitions and dispatch.
//!
//! Every command returns a [`CmdOutput`]: a JSON document (printed alone on stdout with
//! `--json`) and a human rendering. Errors print `{"error": {...}}` with `--json`.
//! Exit codes: 0 success, 1 gate REJECT/NEEDS_REMEASURE, 2 bad input or usage, 3 internal.

use std::io::{BufWriter, StdoutLock, Write as _};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clap::{Args, Parser, Subcommand};

use kcamp_core::error::exit;
use kcamp_core::next::{self, NextStep};
use kcamp_core::text::for_terminal;
use kcamp_core::{Error, Result};

pub mod analyze_cmd;
pub mod campaign_cmd;
mod cancel;
pub mod diff_cmd;
pub mod export;
pub mod gate_cmd;
pub mod gpu_cmd;
mod mcp;
pub mod memory_cmd;
pub mod run_cmd;
mod table;
pub mod tools;

/// What a command produced: its JSON document and the text for people. The document is
/// serialized only when `--json` asks for it, straight from its typed value (no
/// intermediate tree).
pub struct CmdOutput {
    doc: Box<dyn JsonDoc>,
    pub human: String,
    pub exit: i32,
    /// What to run next, printed last and added to the JSON document as `next`.
    next: Vec<NextStep>,
    /// Writes the JSON document to stdout as it is serialized (see
    /// [`CmdOutput::streamed`]).
    stream: Option<StreamWriter>,
}

/// Writes a command's JSON document, with its next steps (rendered) as `next`, to stdout.
type StreamWriter =
    Box<dyn Fn(&mut BufWriter<StdoutLock<'static>>, &serde_json::Value) -> serde_json::Result<()>>;

/// A document held by both the output's `doc` and its stream writer.
struct Shared<T>(Rc<T>);

impl<T: serde::Serialize> serde::Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A document with the `next` steps added beside its own fields.
#[derive(serde::Serialize)]
struct WithNext<'a> {
    #[serde(flatten)]
    doc: &'a serde_json::Value,
    next: &'a serde_json::Value,
}

/// How a run was timed, for a line people read: its methods, or that nothing was timed (a
/// run whose every shape failed has no method to name).
fn timing_methods(result: &kcamp_core::artifacts::result::RunResult) -> String {
    if result.timing_methods.is_empty() {
        return "none (no shape was timed)".to_owned();
    }
    result
        .timing_methods
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `compiled by the driver: forward: Register Count 128, ...` where the adapter reported
/// what it made of the kernel (Vulkan's pipeline-executable statistics), else nothing.
fn driver_line(result: &kcamp_core::artifacts::result::RunResult) -> String {
    match &result.driver_statistics {
        Some(d) => format!(
            "\ncompiled by the driver: {}: {}",
            d.entry_point,
            d.summary()
        ),
        None => String::new(),
    }
}

/// A document that can be written as JSON.
trait JsonDoc {
    fn to_json(&self) -> serde_json::Result<String>;
    fn to_value(&self) -> serde_json::Result<serde_json::Value>;
}

impl<T: serde::Serialize> JsonDoc for T {
    fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
    fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }
}

impl CmdOutput {
    pub fn ok(doc: impl serde::Serialize + 'static, human: impl Into<String>) -> CmdOutput {
        CmdOutput::with_exit(doc, human, exit::OK)
    }

    pub fn with_exit(
        doc: impl serde::Serialize + 'static,
        human: impl Into<String>,
        code: i32,
    ) -> CmdOutput {
        CmdOutput {
            doc: Box::new(doc),
            human: human.into(),
            exit: code,
            next: Vec::new(),
            stream: None,
        }
    }

    /// Like [`with_exit`](CmdOutput::with_exit), but with `--json` `write` writes the
    /// document (and the next steps it is given, as `next`) to stdout as it serializes it,
    /// in the document's own field order (a document with next steps is otherwise
    /// rebuilt as a `serde_json::Value`, whose keys are sorted). Only for documents whose
    /// serialization cannot fail (derived `Serialize`, string keys only: no key can be
    /// refused), since what is written cannot be taken back for an error document.
    pub fn streamed<T: serde::Serialize + 'static>(
        doc: Rc<T>,
        human: impl Into<String>,
        code: i32,
        write: fn(
            &T,
            &serde_json::Value,
            &mut BufWriter<StdoutLock<'static>>,
        ) -> serde_json::Result<()>,
    ) -> CmdOutput {
        let shared = Rc::clone(&doc);
        let mut out = CmdOutput::with_exit(Shared(doc), human, code);
        out.stream = Some(Box::new(move |stdout, next| write(&shared, next, stdout)));
        out
    }

    /// The next steps, most likely first.
    pub fn with_next(mut self, next: Vec<NextStep>) -> CmdOutput {
        self.next = next;
        self
    }

    /// Print a [`streamed`](CmdOutput::streamed) document and its final newline; returns the
    /// exit code (see [`stdout_failed`] for a write that fails).
    fn print_json_streamed(&self, write: &StreamWriter, next: &serde_json::Value) -> i32 {
        let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let written = write(&mut out, next)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        match written {
            Ok(()) => self.exit,
            Err(e) if e.get_ref().is_some_and(|e| e.is::<serde_json::Error>()) => {
                // Not an I/O error: a document that should not have been streamed.
                let err = Error::Internal(format!("serializing the output: {e}"));
                eprintln!("error: {err}");
                err.exit_code()
            }
            Err(e) => stdout_failed(&e, self.exit),
        }
    }

    /// The JSON document, with the next steps as `next` (as the front end renders them).
    /// One that cannot be serialized (a map with non-string keys: a bug) becomes an
    /// internal-error document with exit code 3 rather than a silent `{}`.
    fn json(&self, next: &serde_json::Value) -> (String, i32) {
        let doc = if self.next.is_empty() {
            self.doc.to_json()
        } else {
            // Documents with next steps are small (never a 10,000-shape gate report).
            self.doc.to_value().and_then(|value| match &value {
                serde_json::Value::Object(_) => {
                    serde_json::to_string_pretty(&WithNext { doc: &value, next })
                }
                _ => serde_json::to_string_pretty(&value),
            })
        };
        match doc {
            Ok(json) => (json, self.exit),
            Err(e) => {
                let err = Error::Internal(format!("serializing the output: {e}"));
                (
                    error_document(&err, &serde_json::Value::Null),
                    err.exit_code(),
                )
            }
        }
    }
}

/// `{"error": {"kind", "message"}}`, the JSON of a failed command; with `"next"` (its
/// steps, as the front end renders them) when it has any.
fn error_document(err: &Error, next: &serde_json::Value) -> String {
    let mut error = serde_json::json!({"kind": err.kind(), "message": err.to_string()});
    if next.as_array().is_some_and(|n| !n.is_empty()) {
        error["next"] = next.clone();
    }
    serde_json::to_string_pretty(&serde_json::json!({ "error": error })).unwrap_or_default()
}

/// How the command line writes a step: `kcamp -C DIR` where a campaign was named, each
/// argument as its command's clap definition takes it, and the dashboard's key beside it.
pub(crate) struct CliStyle {
    program: String,
}

impl CliStyle {
    pub(crate) fn new(ctx: &Ctx) -> CliStyle {
        CliStyle {
            program: campaign_cmd::prefix(ctx),
        }
    }

    /// The steps as the JSON document's `next`: each a command line.
    fn json(&self, steps: &[NextStep]) -> serde_json::Value {
        serde_json::Value::Array(
            steps
                .iter()
                .map(|s| serde_json::Value::String(next::step_line(s, self)))
                .collect(),
        )
    }
}

impl next::Style for CliStyle {
    fn program(&self) -> &str {
        &self.program
    }

    fn positional(&self, command: next::Command, name: &str) -> bool {
        command_def(command).is_some_and(|c| {
            c.get_arguments()
                .any(|a| a.get_id().as_str() == name && a.is_positional())
        })
    }

    fn key(&self, call: &next::Call) -> Option<String> {
        kcamp_tui::keys::key_for_call(call)
    }

    fn keys_note(&self, keys: &[String]) -> String {
        format!("dashboard: {}", keys.join(", then "))
    }
}

/// The clap definition of a command a step runs.
pub(crate) fn command_def(command: next::Command) -> Option<clap::Command> {
    use clap::CommandFactory;
    let mut def = Cli::command();
    // Subcommands are deferred: their arguments exist once built.
    def.build();
    for word in command.words().split(' ') {
        def = def.find_subcommand(word)?.clone();
    }
    Some(def)
}

#[derive(Debug, Parser)]
#[command(name = "kcamp", version, about = "GPU-kernel optimization campaigns: measure, gate, accept or roll back", long_about = None)]
pub struct Cli {
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Campaign directory (default: the current directory).
    #[arg(
        short = 'C',
        long = "campaign",
        global = true,
        env = "KCAMP_DIR",
        value_name = "DIR"
    )]
    pub campaign: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

// Adapter selection, shared by every command that runs kernels. Not a doc comment: clap
// would take it for the about line of every command that flattens these args (see
// `deferred_commands_keep_their_own_help`).
#[derive(Debug, Clone, Default, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct AdapterArgs {
    /// Adapter name substring (case-insensitive), e.g. "H200" or "llvmpipe".
    #[arg(long, value_name = "SUBSTR")]
    pub adapter: Option<String>,
    /// Backend: vulkan, metal, dx12 or gl.
    #[arg(long, value_name = "BACKEND")]
    #[schemars(extend("enum" = ["vulkan", "metal", "dx12", "gl"]))]
    pub backend: Option<String>,
}

#[derive(Debug, Subcommand)]
// Each command's arguments are built only when that command is run, so a short command does
// not pay for building every other command's. The help texts are unchanged: see
// `deferred_commands_keep_their_own_help`.
#[command(defer = true)]
pub enum Command {
    /// Create a campaign: manifest.yaml (op, dtype, target shapes) and a starting kernel in
    /// kernel/.
    Init(campaign_cmd::InitArgs),
    /// Full validation of the current kernel; freezes the schema; writes round 1.
    Baseline(campaign_cmd::BaselineArgs),
    /// Rounds: `round new --hypothesis TEXT`.
    #[command(subcommand)]
    Round(campaign_cmd::RoundCommand),
    /// Measure the working kernel (or import a CSV), write the round's CSV, run the gate.
    Validate(campaign_cmd::ValidateArgs),
    /// Accept the open round (the gate must allow it, or --force with --reason).
    Accept(campaign_cmd::AcceptArgs),
    /// Restore the incumbent's kernel and close the open round as rolled back.
    Rollback(campaign_cmd::RollbackArgs),
    /// The campaign's state: incumbent, open round, last verdict.
    Status,
    /// The lineage of rounds.
    Log(campaign_cmd::LogArgs),
    /// The unified diff of two kernels: rounds' snapshots (`r3`) or the working `kernel`
    /// (default: the incumbent against the working kernel).
    Diff(diff_cmd::DiffArgs),
    /// Final full validation of the incumbent, report.md and charts.
    Report(campaign_cmd::ReportArgs),
    /// Open the dashboard (default: a scratch copy of the bundled demo campaign).
    Tui(TuiArgs),
    /// Where the incumbent (or the working kernel) stands against the roofline: its static
    /// metrics, the shapes furthest from their roof, directions worth a round.
    Analyze(analyze_cmd::AnalyzeArgs),
    /// Run the benchmark of the campaign's working kernel without recording a round.
    Run(run_cmd::RunArgs),
    /// List the adapters wgpu sees, with the features that matter for kernels.
    Adapters(AdapterArgs),
    /// Measure the adapter's own FLOP and bandwidth ceilings.
    Peak(run_cmd::PeakArgs),
    /// Stand-alone utilization / roofline calculator.
    Util(run_cmd::UtilArgs),
    /// Judge two CSVs of one schema.
    Gate(gate_cmd::GateArgs),
    /// Iteration records (`memory/v<N>.json`).
    #[command(subcommand)]
    Memory(memory_cmd::MemoryCommand),
    /// Rebuild what cannot be read (a malformed journal line, decision or record, a decided
    /// round's changed snapshot) from the git history and the other records, or say why not.
    Repair(campaign_cmd::RepairArgs),
    /// Serve the campaign to an agent: a Model Context Protocol server on stdin/stdout
    /// whose tools are these commands (docs/agents.md).
    Mcp,
    /// Internal: benchmark worker process (reads cases on stdin).
    #[command(name = "__worker", hide = true)]
    Worker(run_cmd::WorkerArgs),
    /// Internal: run a command from its request, the arguments of its MCP tool as a JSON
    /// object (the dashboard sends its commands this way).
    #[command(name = "__call", hide = true)]
    Call(CallArgs),
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool: `validate`, `round_new`, ...
    pub tool: String,
    /// Its arguments, a JSON object.
    #[arg(default_value = "{}")]
    pub arguments: String,
}

impl Command {
    /// The `--format` a command was given, if it has one.
    fn format(&self) -> Option<export::Format> {
        match self {
            Command::Gate(a) => Some(a.format),
            Command::Report(a) => Some(a.format.into()),
            Command::Log(a) => Some(a.format),
            _ => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Campaign directory (default: -C, else the campaign in the current directory, else a
    /// scratch copy of the bundled demo campaign).
    pub dir: Option<PathBuf>,
}

/// Context every command gets.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub json: bool,
    pub campaign: PathBuf,
    /// A step run by the MCP server: stopped by its flag, followed through its progress
    /// events (None: the signals and the terminal).
    pub step: Option<cancel::StepHooks>,
}

/// Parse arguments, run the command, print, and return the process exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage_error(&e, std::env::args_os().skip(1)),
    };
    if matches!(cli.command, Some(Command::Mcp)) {
        // stdout is the protocol's: nothing else is printed there.
        return mcp::serve(cli.campaign.as_deref().unwrap_or(Path::new(".")));
    }
    let json = cli.json
        || matches!(
            cli.command.as_ref().and_then(Command::format),
            Some(export::Format::Json)
        );
    let ctx = Ctx {
        json,
        campaign: cli.campaign.clone().unwrap_or_else(|| PathBuf::from(".")),
        step: None,
    };
    // `--json --format markdown` asks for two outputs: neither is silently dropped.
    let conflict = cli
        .command
        .as_ref()
        .and_then(Command::format)
        .filter(|f| cli.json && matches!(f, export::Format::Markdown | export::Format::Csv));
    let done = match conflict {
        Some(format) => Err(Error::input(format!(
            "--json and --format {} ask for two different outputs: pass one of them",
            clap::ValueEnum::to_possible_value(&format)
                .map_or_else(String::new, |v| v.get_name().to_owned())
        ))),
        None => dispatch(cli, &ctx),
    };
    match done {
        Ok(out) => {
            let style = CliStyle::new(&ctx);
            let stream = out.stream.as_ref().filter(|_| json);
            if let Some(write) = stream {
                out.print_json_streamed(write, &style.json(&out.next))
            } else if json {
                let (doc, code) = out.json(&style.json(&out.next));
                print_lines(&[&doc], code)
            } else {
                let next = next::lines(&out.next, &style);
                let texts = [for_terminal(out.human.trim_end()), for_terminal(&next)];
                let texts: Vec<&str> = texts
                    .iter()
                    .map(|t| &**t)
                    .filter(|t| !t.is_empty())
                    .collect();
                print_lines(&texts, out.exit)
            }
        }
        Err(err) => {
            let style = CliStyle::new(&ctx);
            if json {
                let next = style.json(&err.next_steps());
                print_lines(&[&error_document(&err, &next)], err.exit_code());
            } else {
                let message = next::with_lines(&err.to_string(), &err.next_steps(), &style);
                eprintln!("error: {}", for_terminal(&message));
            }
            err.exit_code()
        }
    }
}

/// Arguments clap refused (or `--help`, `--version`): printed as clap prints them, except
/// that a usage error under `--json` (anywhere before a `--`) is the one JSON error document
/// every other error is, so a program that reads stdout gets JSON whatever went wrong.
fn usage_error(e: &clap::Error, args: impl Iterator<Item = std::ffi::OsString>) -> i32 {
    if !e.use_stderr() {
        // --help and --version: what was asked for, on stdout.
        let _ = e.print();
        return exit::OK;
    }
    let json = args.take_while(|a| a != "--").any(|a| a == "--json");
    if !json {
        let _ = e.print();
        return exit::BAD_INPUT;
    }
    let (doc, code) = usage_error_document(e);
    print_lines(&[&doc], code)
}

/// The JSON error document of arguments clap refused, and its exit code.
fn usage_error_document(e: &clap::Error) -> (String, i32) {
    let rendered = e.render().to_string();
    // clap's text starts with `error: ` and ends with its usage and help lines: the message
    // keeps them (they say how to call the command), without the prefix the JSON kind says.
    let message = rendered.trim().trim_start_matches("error: ");
    let help = format!("{} --help", usage_command(message));
    let err = Error::input(format!("{message}\nnext: {help}"));
    (
        error_document(&err, &serde_json::json!([help])),
        err.exit_code(),
    )
}

/// The command clap's usage line names (`Usage: kcamp round new [OPTIONS] …` gives
/// `kcamp round new`), whose `--help` says how to call it; `kcamp` where it names none.
fn usage_command(rendered: &str) -> String {
    let words = rendered
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("Usage: "))
        .map(|usage| {
            usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    match words.first() {
        Some(&"kcamp") => words.join(" "),
        _ => "kcamp".to_owned(),
    }
}

/// Print each text on its own line(s), through one buffer; returns `code`, or what
/// [`stdout_failed`] says when stdout cannot take them.
fn print_lines(texts: &[&str], code: i32) -> i32 {
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = texts
        .iter()
        .try_for_each(|t| {
            out.write_all(t.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => code,
        Err(e) => stdout_failed(&e, code),
    }
}

/// A write to stdout failed. A reader that went away (`kcamp gate a b | head`) wanted no
/// more: the command's own exit code stands, so `PIPESTATUS` still tells the verdict, and
/// nothing is said. Any other failure (a full disk behind a redirection) is an error: the
/// output is incomplete.
fn stdout_failed(e: &std::io::Error, code: i32) -> i32 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return code;
    }
    eprintln!("error: writing the output to stdout: {e}");
    exit::INTERNAL
}

fn dispatch(cli: Cli, ctx: &Ctx) -> Result<CmdOutput> {
    let Some(command) = cli.command else {
        return dashboard(default_tui_dir(&cli.campaign, Path::new("."))?);
    };
    match command {
        Command::Init(a) => campaign_cmd::init(ctx, &a),
        Command::Baseline(a) => campaign_cmd::baseline(ctx, &a),
        Command::Round(c) => campaign_cmd::round(ctx, &c),
        Command::Validate(a) => campaign_cmd::validate(ctx, &a),
        Command::Accept(a) => campaign_cmd::accept(ctx, &a),
        Command::Rollback(a) => campaign_cmd::rollback(ctx, &a),
        Command::Status => campaign_cmd::status(ctx),
        Command::Log(a) => campaign_cmd::log(ctx, &a),
        Command::Diff(a) => diff_cmd::diff(ctx, &a),
        Command::Analyze(a) => analyze_cmd::analyze(ctx, &a),
        Command::Report(a) => campaign_cmd::report(ctx, &a),
        Command::Tui(a) => {
            let dir = match a.dir {
                Some(d) => DashboardDir::Given(d),
                None => default_tui_dir(&cli.campaign, Path::new("."))?,
            };
            dashboard(dir)
        }
        Command::Run(a) => run_cmd::run(ctx, &a),
        Command::Adapters(a) => gpu_cmd::adapters(ctx, &a),
        Command::Peak(a) => run_cmd::peak(ctx, &a),
        Command::Util(a) => run_cmd::util(ctx, &a),
        Command::Gate(a) => gate_cmd::gate(ctx, &a),
        Command::Memory(c) => memory_cmd::memory(ctx, &c),
        Command::Repair(a) => campaign_cmd::repair(ctx, &a),
        Command::Worker(a) => run_cmd::worker(&a),
        Command::Call(a) => {
            let command = request_of(&a, &ctx.campaign)?;
            dispatch(
                Cli {
                    json: cli.json,
                    campaign: cli.campaign,
                    command: Some(command),
                },
                ctx,
            )
        }
        Command::Mcp => Err(Error::input(
            "`kcamp mcp` serves an MCP client on stdio; it is not a step of its own",
        )),
    }
}

/// The command a `__call` runs: its tool's request, read from the JSON arguments exactly as
/// the MCP server reads a tool call's.
fn request_of(call: &CallArgs, campaign: &Path) -> Result<Command> {
    let tool = tools::find(&call.tool).ok_or_else(|| {
        let names: Vec<&str> = tools::TOOLS.iter().map(|t| t.name()).collect();
        Error::input(format!(
            "no tool '{}' (the tools: {})",
            call.tool,
            names.join(", ")
        ))
    })?;
    let arguments = match serde_json::from_str(&call.arguments) {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => {
            return Err(Error::input(format!(
                "{}: the arguments must be a JSON object",
                call.tool
            )));
        }
        Err(e) => {
            return Err(Error::input(format!(
                "{}: the arguments are not JSON: {e}",
                call.tool
            )));
        }
    };
    tool.request(arguments, campaign).map_err(Error::input)
}

/// The campaign a dashboard opens.
#[derive(Debug, PartialEq)]
enum DashboardDir {
    /// Named (`kcamp tui DIR`, -C, KCAMP_DIR) or the current directory's.
    Given(PathBuf),
    /// The bundled demo: the dashboard opens a scratch copy of it, made once it is known
    /// that the dashboard can start.
    Demo(PathBuf),
}

/// The dashboard; its quit summary is the command's output.
fn dashboard(dir: DashboardDir) -> Result<CmdOutput> {
    let mut options = kcamp_tui::DashboardOptions::from_env()?;
    let (dir, scratch) = match dir {
        DashboardDir::Given(d) => (d, false),
        DashboardDir::Demo(demo) => {
            // Without a terminal the copy would only be made to be removed again.
            kcamp_tui::require_terminal()?;
            options.scratch = true;
            (scratch_demo(&demo)?, true)
        }
    };
    let summary = kcamp_tui::run_dashboard_with(&dir, options);
    // Said before the dashboard took the screen, and gone from it since: where the scratch
    // copy is, what was done in it, is said again at the end, whether the dashboard ran or
    // could not start (no terminal).
    let scratch_note = scratch.then(|| settle_scratch(&dir));
    let summary = match summary {
        Ok(summary) => summary,
        Err(e) => {
            if let Some(note) = scratch_note {
                eprintln!("kcamp: {note}");
            }
            return Err(e);
        }
    };
    let mut text = summary.text.clone();
    if let Some(note) = scratch_note {
        text.push('\n');
        text.push_str(&note);
    }
    Ok(CmdOutput::ok(summary, text))
}

/// A scratch copy of the demo after its dashboard: one that nothing was done in is the
/// bundled demo again, and goes, so that looking at the demo leaves nothing behind; one that
/// holds changes stays. Returns the line that says which.
fn settle_scratch(dir: &Path) -> String {
    let untouched = demo_campaign_dir().is_some_and(|demo| same_files(&demo, dir));
    let removed = untouched
        && dir
            .parent()
            .is_some_and(|parent| std::fs::remove_dir_all(parent).is_ok());
    if removed {
        format!(
            "scratch copy: {} removed (nothing in it changed)",
            dir.display()
        )
    } else {
        format!(
            "scratch copy: {} (kept: it holds what was done in it; reopen it with `kcamp tui {}`, remove it when done)",
            dir.display(),
            kcamp_core::text::shell_word(&dir.display().to_string())
        )
    }
}

/// Whether the trees `a` and `b` hold the same files with the same bytes (the content hash
/// that tells a working kernel from its snapshot). Anything unreadable counts as a
/// difference.
fn same_files(a: &std::path::Path, b: &std::path::Path) -> bool {
    use kcamp_core::campaign::tree_hash;
    matches!((tree_hash(a), tree_hash(b)), (Ok(x), Ok(y)) if x == y)
}

/// `kcamp` with no arguments: the campaign given with -C (or `KCAMP_DIR`), else the
/// campaign in the current directory (`cwd`), else the bundled demo campaign, which the
/// dashboard opens in a scratch copy (so its keys never change the repository's files).
fn default_tui_dir(explicit: &Option<PathBuf>, cwd: &std::path::Path) -> Result<DashboardDir> {
    if let Some(d) = explicit {
        return Ok(DashboardDir::Given(d.clone()));
    }
    if cwd.join(kcamp_core::files::MANIFEST_FILE).is_file() {
        return Ok(DashboardDir::Given(cwd.to_path_buf()));
    }
    let demo = demo_campaign_dir().ok_or_else(|| {
        Error::input(
            "no campaign given and the bundled demo campaign was not found (campaigns/demo-gemm)",
        )
    })?;
    Ok(DashboardDir::Demo(demo))
}

/// Copy the bundled demo into a fresh directory under the system's temp dir and say where.
fn scratch_demo(demo: &std::path::Path) -> Result<PathBuf> {
    let parent = tempfile::Builder::new()
        .prefix("kcamp-demo-")
        .tempdir()
        .map_err(|e| Error::io("creating a scratch directory for the demo", e))?
        .keep();
    let dir = parent.join("demo-gemm");
    kcamp_core::campaign::copy_tree(demo, &dir)?;
    // A lock file copied along would name a process of another session.
    let _ = std::fs::remove_file(dir.join(kcamp_core::files::LOCK_FILE));
    eprintln!(
        "kcamp: opening a scratch copy of the demo campaign in {} (the bundled {} stays untouched)",
        dir.display(),
        demo.display()
    );
    Ok(dir)
}

/// The bundled demo campaign (`campaigns/demo-gemm`): next to the executable's source tree
/// when run from a checkout, or in the current directory.
pub fn demo_campaign_dir() -> Option<PathBuf> {
    let candidates = [
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("campaigns/demo-gemm")),
        std::env::current_dir()
            .ok()
            .map(|d| d.join("campaigns/demo-gemm")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join(kcamp_core::files::MANIFEST_FILE).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command whose arguments are deferred gets them after its about line is set, so an
    /// about set by its arguments (a doc comment on a flattened `Args` struct) would replace
    /// the one its parent's help lists for it. Every command, nested ones too, must read the
    /// same in its parent's list as in its own help.
    #[test]
    fn deferred_commands_keep_their_own_help() {
        use clap::CommandFactory;
        fn about(cmd: &clap::Command) -> [Option<String>; 2] {
            [cmd.get_about(), cmd.get_long_about()].map(|a| a.map(ToString::to_string))
        }
        /// `parent` has been built itself (its children have not): each child is compared
        /// before and after its own deferred part runs, then its children the same way.
        fn check(parent: &clap::Command, path: &str, seen: &mut Vec<String>) {
            for child in parent.get_subcommands() {
                let path = format!("{path} {}", child.get_name());
                let mut built = child.clone();
                // Rendering a command's help builds it, and not its children.
                let help = built.render_help().to_string();
                assert_eq!(about(child), about(&built), "`{path} --help`:\n{help}");
                check(&built, &path, seen);
                seen.push(path);
            }
        }
        let mut top = Cli::command();
        let _ = top.render_help();
        let mut seen = Vec::new();
        check(&top, "kcamp", &mut seen);
        for path in [
            "kcamp validate",
            "kcamp gate",
            "kcamp round new",
            "kcamp memory create",
        ] {
            assert!(seen.iter().any(|p| p == path), "{path} not in {seen:?}");
        }
    }

    /// `--help` is for users: every argument of every command says what it is, and no
    /// command is described by the engine's internal phase names (`DEFINE_TARGET`,
    /// `ANALYZE:`).
    #[test]
    fn every_command_and_argument_is_described_for_a_user() {
        use clap::CommandFactory;
        fn check(cmd: &mut clap::Command, path: &str, missing: &mut Vec<String>) {
            cmd.build();
            let about = cmd.get_about().map(ToString::to_string).unwrap_or_default();
            let phase = |word: &str| {
                word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            };
            let first = about.split(':').next().unwrap_or_default();
            if about
                .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .any(|word| phase(word) && word.contains('_'))
                || (about.contains(':') && phase(first))
            {
                missing.push(format!("{path}: about names an internal phase: {about}"));
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || matches!(id, "help" | "version") {
                    continue;
                }
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    missing.push(format!("{path}: {id} has no help"));
                }
            }
            for child in cmd.get_subcommands_mut() {
                if child.is_hide_set() || child.get_name() == "help" {
                    continue;
                }
                let path = format!("{path} {}", child.get_name());
                check(child, &path, missing);
            }
        }
        let mut missing = Vec::new();
        check(&mut Cli::command(), "kcamp", &mut missing);
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }

    #[test]
    fn next_steps_name_the_campaign_its_arguments_as_clap_takes_them_and_the_dashboard_key() {
        use kcamp_core::next::Command;
        let ctx = Ctx {
            json: false,
            campaign: PathBuf::from("my camp"),
            step: None,
        };
        let style = CliStyle::new(&ctx);
        let steps = vec![
            NextStep::new_round(),
            NextStep::run(Command::Validate)
                .arg("full", true)
                .before("fix the kernel"),
            NextStep::run(Command::MemoryShow).arg("version", "v2"),
            NextStep::run(Command::Gate)
                .arg("base", "a.csv")
                .arg("candidate", "b.csv")
                .arg("format", "csv")
                .why("every shape's numbers"),
            NextStep::run(Command::Accept)
                .arg("force", true)
                .fill("reason", "TEXT"),
        ];
        assert_eq!(
            next::lines(&steps, &style),
            "next: kcamp -C 'my camp' round new --hypothesis TEXT   (dashboard: n)\n      \
             or: fix the kernel, then kcamp -C 'my camp' validate --full   (dashboard: V)\n      \
             or: kcamp -C 'my camp' memory show v2\n      \
             or: kcamp -C 'my camp' gate a.csv b.csv --format csv   (every shape's numbers)\n      \
             or: kcamp -C 'my camp' accept --force --reason TEXT"
        );
        let here = CliStyle::new(&Ctx {
            json: false,
            campaign: PathBuf::from("."),
            step: None,
        });
        assert_eq!(
            here.json(&steps[..1]),
            serde_json::json!(["kcamp round new --hypothesis TEXT   (dashboard: n)"])
        );
    }

    /// Every command a step can name is one of the CLI's, and the plain style (the
    /// engine's and the dashboard's command lines) writes in place exactly the arguments
    /// clap takes in place.
    #[test]
    fn every_step_command_is_a_cli_command_written_as_clap_reads_it() {
        use kcamp_core::next::Style as _;
        let cli = CliStyle::new(&Ctx {
            json: false,
            campaign: PathBuf::from("."),
            step: None,
        });
        for command in kcamp_core::next::Command::ALL {
            let def = command_def(command).unwrap_or_else(|| panic!("{command:?}"));
            for arg in def.get_arguments() {
                let id = arg.get_id().as_str();
                assert_eq!(
                    next::Plain.positional(command, id),
                    cli.positional(command, id),
                    "{command:?} {id}"
                );
            }
        }
    }

    /// The error document's `next` is every step of the error, in order.
    #[test]
    fn an_error_document_lists_every_next_step() {
        let err = Error::state(
            "round 2 is open.",
            vec![
                NextStep::run(kcamp_core::next::Command::Accept),
                NextStep::rollback(),
            ],
        );
        let style = CliStyle::new(&Ctx {
            json: true,
            campaign: PathBuf::from("."),
            step: None,
        });
        let doc: serde_json::Value =
            serde_json::from_str(&error_document(&err, &style.json(&err.next_steps()))).unwrap();
        assert_eq!(doc["error"]["message"], "round 2 is open.");
        assert_eq!(
            doc["error"]["next"],
            serde_json::json!([
                "kcamp accept   (dashboard: a)",
                "kcamp rollback --reason TEXT   (dashboard: r)"
            ])
        );
        let none: serde_json::Value = serde_json::from_str(&error_document(
            &Error::input("bad cell"),
            &serde_json::json!([]),
        ))
        .unwrap();
        assert!(none["error"].get("next").is_none(), "{none}");
    }

    #[test]
    fn the_dashboard_opens_the_campaign_it_is_started_in() {
        let tmp = tempfile::tempdir().unwrap();
        let campaign = tmp.path().join("mine");
        std::fs::create_dir(&campaign).unwrap();
        std::fs::write(
            campaign.join(kcamp_core::files::MANIFEST_FILE),
            "name: mine\n",
        )
        .unwrap();
        assert_eq!(
            default_tui_dir(&None, &campaign).unwrap(),
            DashboardDir::Given(campaign.clone())
        );
        // -C (or KCAMP_DIR) names one explicitly: it wins.
        let other = tmp.path().join("other");
        assert_eq!(
            default_tui_dir(&Some(other.clone()), &campaign).unwrap(),
            DashboardDir::Given(other)
        );
        // Anywhere else: the bundled demo, opened in a scratch copy, never in place.
        let demo = demo_campaign_dir().unwrap();
        assert_eq!(
            default_tui_dir(&None, tmp.path()).unwrap(),
            DashboardDir::Demo(demo.clone())
        );
        let scratch = scratch_demo(&demo).unwrap();
        assert!(scratch.join(kcamp_core::files::MANIFEST_FILE).is_file());
        assert_ne!(scratch, demo_campaign_dir().unwrap());
        let parent = scratch.parent().unwrap();
        assert!(
            parent
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("kcamp-demo-")),
            "{}",
            scratch.display()
        );
        // A fresh copy holds the demo's files: nothing done in it, nothing worth keeping.
        assert!(same_files(&demo, &scratch));
        // Anything done in it (a file changed, added or removed) keeps it.
        let journal = scratch.join(kcamp_core::files::JOURNAL_FILE);
        let before = std::fs::read(&journal).unwrap();
        std::fs::write(&journal, [&before[..], b"{}\n"].concat()).unwrap();
        assert!(!same_files(&demo, &scratch));
        std::fs::write(&journal, &before).unwrap();
        assert!(same_files(&demo, &scratch));
        std::fs::write(scratch.join("notes.txt"), "mine").unwrap();
        assert!(!same_files(&demo, &scratch));
        std::fs::remove_dir_all(parent).unwrap();
    }
}
