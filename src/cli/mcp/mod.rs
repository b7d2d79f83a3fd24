//! `kcamp mcp`: the campaign's loop as a Model Context Protocol server on stdio (rmcp), so
//! that an agent drives it as a person does from the terminal (docs/agents.md).
//!
//! Each tool is a kcamp command ([`tools`]): its arguments become the command's own
//! command line, which the CLI's parser and dispatcher run with `--json`, so a tool returns
//! the command's JSON document and a refusal is an error result holding the command's
//! `{"error": …}` document. Steps run on blocking threads, one writing step at a time, each
//! under the campaign lock as from the terminal (a dashboard open on the campaign follows
//! them through `live/progress.json`); the same progress events go to the client as
//! progress notifications, and a cancellation (or the server being stopped) sets the flag a
//! Ctrl-C sets: the workers are ended and nothing is recorded.

mod progress;
mod resources;
mod transport;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::{Mutex, watch};

use kcamp_core::case::ProgressEvent;
use kcamp_core::error::exit;
use kcamp_core::gate::GateConfig;
use kcamp_core::{Error, Result};

use super::cancel::StepHooks;
use super::tools::{self, Kind, ToolDef};
use super::{Cli, Ctx};

/// What the server tells a client about itself when it connects: the rules of the loop.
const INSTRUCTIONS: &str = "kcamp runs one GPU-kernel optimization campaign (the directory this server was started for). \
The loop: `status` and `analyze` -> `round_new` with ONE hypothesis -> change the working kernel (resources kcamp://kernel/...; edit the files on disk) -> `validate` -> `accept` when the gate allows it, else `rollback` with a reason -> again; `report` when done. \
Rules: one hypothesis and one change per round; the gate decides (it rejects a round that fails or regresses any shape beyond its noise band, whatever the mean); `accept` with `force` overrides it only with a `reason`, and is recorded as forced; a kernel becomes the incumbent only once its output is also right on held-out shapes you are not shown; `rollback` restores the working kernel exactly. \
Before choosing a hypothesis read `rolled_back` in `status` (directions tried and why they failed): `round_new` and `validate` name a rolled-back round in `tried_before` when the kernel equals its snapshot. \
Every tool returns the JSON document of the kcamp command it names (`kcamp validate --json` for `validate`); a refusal is an error result holding {\"error\": {\"kind\", \"message\", \"next\"}} (`next` only where a step fixes it: not for arguments that do not fit a tool's schema, whose message names the argument). `next` lists what to do next as tool calls: {\"tool\", \"arguments\"} naming only arguments that tool takes, with `fill` (arguments left to you, e.g. a hypothesis), `then` (calls after it), `before` (what to do first) and `why`; `tool` is null for a command no tool runs (named in `command`). \
Long steps (validate, accept, report, baseline, run) send progress notifications; cancelling one stops it as Ctrl-C does: its workers end and nothing is recorded.";

/// `kcamp mcp`: serve the campaign of `ctx` until the client closes stdin or a signal
/// stops the server; a step in progress then is stopped as a Ctrl-C stops it and waited
/// for. Returns the exit code.
pub fn serve(campaign: &Path) -> i32 {
    match serve_inner(campaign) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("kcamp mcp: error: {e}");
            e.exit_code()
        }
    }
}

fn serve_inner(campaign: &Path) -> Result<()> {
    if !campaign.join(kcamp_core::files::MANIFEST_FILE).is_file() {
        return Err(kcamp_core::manifest::not_a_campaign(campaign));
    }
    // The first SIGINT, SIGTERM or SIGHUP stops the server after its step (stopped as a
    // Ctrl-C stops it); a second one ends it at once, as for every command.
    let signalled = super::cancel::on_signals()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the MCP server's runtime", e))?;
    let result = runtime.block_on(run(campaign.to_path_buf(), signalled));
    // Standard input may still be read by a blocking thread that nothing can interrupt:
    // the runtime is left to the process's exit.
    runtime.shutdown_background();
    result
}

async fn run(campaign: PathBuf, signalled: Arc<AtomicBool>) -> Result<()> {
    let (stop, stopped) = watch::channel(false);
    let server = Server {
        campaign,
        steps: Arc::new(Mutex::new(())),
        inflight: Arc::default(),
        stopped,
    };
    let steps = Arc::clone(&server.steps);
    // The end of standard input sets the flag a SIGTERM sets: the client that closes it
    // cancels the step in progress exactly as a signal does.
    let running = server
        .serve(transport::stdio(Arc::clone(&signalled)))
        .await
        .map_err(|e| Error::input(format!("the MCP client did not initialize: {e}")))?;
    let signal = async {
        while !signalled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::select! {
        _ = running.waiting() => {}
        () = signal => {}
    }
    // Steps still running are stopped as a Ctrl-C stops them, and waited for: their
    // workers end and the campaign is left as a cancelled command leaves it.
    let _ = stop.send(true);
    let _idle = steps.lock().await;
    Ok(())
}

#[derive(Clone)]
struct Server {
    campaign: PathBuf,
    /// Held by the step that writes, for all of its run (its blocking thread holds it):
    /// one writing step at a time, and the server ends only once none runs.
    steps: Arc<Mutex<()>>,
    /// The writing steps that run, so that a read that follows a cancellation waits until
    /// the cancelled step has cleaned up: a client never sees a cancelled step half undone.
    inflight: Arc<std::sync::Mutex<Vec<Inflight>>>,
    /// Set when the server stops: running steps are cancelled.
    stopped: watch::Receiver<bool>,
}

/// A writing step in progress: whether its call was cancelled, and when it has ended.
struct Inflight {
    cancelled: Box<dyn Fn() -> bool + Send + Sync>,
    ended: watch::Receiver<bool>,
}

impl Server {
    /// The campaign's gate thresholds, which the tools' descriptions state (the defaults
    /// while its manifest cannot be read: its own tools say why).
    fn gate(&self) -> GateConfig {
        kcamp_core::manifest::Manifest::load(&self.campaign)
            .map(|m| m.gate)
            .unwrap_or_default()
    }

    /// Registers a writing step; the sender says when it has ended.
    fn register(&self, context: &RequestContext<RoleServer>) -> watch::Sender<bool> {
        let (ended, ended_rx) = watch::channel(false);
        let ct = context.ct.clone();
        let stopped = self.stopped.clone();
        let mut inflight = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        inflight.retain(|s| !*s.ended.borrow());
        inflight.push(Inflight {
            cancelled: Box::new(move || ct.is_cancelled() || *stopped.borrow()),
            ended: ended_rx,
        });
        ended
    }

    /// Waits until every cancelled writing step has ended. The client's cancellation is
    /// applied before its next request is read, so a read sent after it sees the campaign
    /// as the cancelled command leaves it.
    async fn settle_cancelled(&self) {
        let waiting: Vec<watch::Receiver<bool>> = {
            let inflight = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
            inflight
                .iter()
                .filter(|s| (s.cancelled)())
                .map(|s| s.ended.clone())
                .collect()
        };
        for mut ended in waiting {
            let _ = ended.wait_for(|e| *e).await;
        }
    }
}

/// What a step produced: the command's JSON document, its exit code, whether it is an
/// error document.
struct StepOutput {
    doc: String,
    exit: i32,
    error: bool,
}

impl Server {
    async fn call(
        &self,
        tool: &'static ToolDef,
        args: serde_json::Map<String, Value>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let started = Instant::now();
        let command = match tool.request(args, &self.campaign) {
            Ok(command) => command,
            Err(message) => {
                let err = Error::input(message);
                return result(
                    StepOutput {
                        doc: super::error_document(&err, &Value::Null),
                        exit: err.exit_code(),
                        error: true,
                    },
                    started,
                );
            }
        };
        let (guard, ended) = match tool.kind {
            Kind::Read => {
                self.settle_cancelled().await;
                (None, None)
            }
            Kind::Write | Kind::Measure => {
                let ended = self.register(&context);
                (
                    Some(Arc::clone(&self.steps).lock_owned().await),
                    Some(ended),
                )
            }
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let (events, mut received) = tokio::sync::mpsc::unbounded_channel::<ProgressEvent>();
        let hooks = StepHooks {
            cancel: Arc::clone(&cancel),
            progress: Arc::new(move |e: &ProgressEvent| {
                let _ = events.send(e.clone());
            }),
        };
        let campaign = self.campaign.clone();
        let mut job = tokio::task::spawn_blocking(move || {
            let out = run_step(command, campaign, hooks);
            drop(guard);
            out
        });
        let token = context.meta.get_progress_token();
        let mut tracker = progress::Tracker::default();
        let mut stopped = self.stopped.clone();
        let mut cancelled = false;
        let joined = loop {
            tokio::select! {
                joined = &mut job => break joined,
                Some(event) = received.recv() => {
                    if let (Some(token), Some(p)) = (&token, tracker.observe(&event)) {
                        let mut param = ProgressNotificationParam::new(token.clone(), p.progress)
                            .with_total(p.total);
                        param.message = Some(p.message);
                        // A client that went away is noticed by the service, not here.
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                () = context.ct.cancelled(), if !cancelled => {
                    cancel.store(true, Ordering::SeqCst);
                    cancelled = true;
                }
                () = until_stopped(&mut stopped), if !cancelled => {
                    cancel.store(true, Ordering::SeqCst);
                    cancelled = true;
                }
            }
        };
        if let Some(ended) = ended {
            let _ = ended.send(true);
        }
        let out = joined.unwrap_or_else(|e| {
            let err = Error::Internal(format!("the step ended abnormally: {e}"));
            StepOutput {
                doc: super::error_document(&err, &Value::Null),
                exit: err.exit_code(),
                error: true,
            }
        });
        result(out, started)
    }
}

/// Returns once the server stops (the guard `wait_for` returns is not held across an
/// await of the caller).
async fn until_stopped(stopped: &mut watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await;
}

/// Run one step the way `kcamp COMMAND --json` runs it, in this thread.
fn run_step(command: super::Command, campaign: PathBuf, hooks: StepHooks) -> StepOutput {
    let cli = Cli {
        json: true,
        campaign: Some(campaign.clone()),
        command: Some(command),
    };
    let ctx = Ctx {
        json: true,
        campaign,
        step: Some(hooks),
    };
    match super::dispatch(cli, &ctx) {
        Ok(out) => {
            let (doc, exit) = out.json(&tools::next_calls(&out.next));
            let error = exit == exit::INTERNAL;
            StepOutput { doc, exit, error }
        }
        Err(err) => StepOutput {
            doc: super::error_document(&err, &tools::next_calls(&err.next_steps())),
            exit: err.exit_code(),
            error: true,
        },
    }
}

/// A step's document as a tool result: the JSON as text and as structured content, an
/// error result for an error document; `_meta` says the command's exit code and how long
/// the step took.
fn result(out: StepOutput, started: Instant) -> CallToolResult {
    let structured = serde_json::from_str::<Value>(&out.doc).ok();
    let text = structured
        .as_ref()
        .and_then(|v| serde_json::to_string_pretty(v).ok())
        .unwrap_or(out.doc);
    let mut r = if out.error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    r.structured_content = structured;
    let mut meta = serde_json::Map::new();
    meta.insert("kcamp/exit_code".into(), json!(out.exit));
    meta.insert(
        "kcamp/elapsed_ms".into(),
        json!((started.elapsed().as_secs_f64() * 1e3).round()),
    );
    r.with_meta(Some(MetaObject(meta)))
}

fn tool_of(def: &ToolDef, gate: &GateConfig) -> Tool {
    let annotations = ToolAnnotations::with_title(def.title)
        .read_only(def.kind == Kind::Read)
        .destructive(matches!(def.name(), "rollback" | "accept"))
        .open_world(false);
    Tool::new(
        def.name(),
        def.description(gate),
        Arc::new(def.input_schema().clone()),
    )
    .with_title(def.title)
    .with_annotations(annotations)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("kcamp", env!("CARGO_PKG_VERSION"))
                .with_title("kcamp: GPU-kernel optimization campaigns"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        let gate = self.gate();
        Ok(ListToolsResult::with_all_items(
            tools::TOOLS.iter().map(|t| tool_of(t, &gate)).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::find(name).map(|t| tool_of(t, &self.gate()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        let Some(tool) = tools::find(&request.name) else {
            let names: Vec<&str> = tools::TOOLS.iter().map(|t| t.name()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "no tool '{}' (the tools: {})",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        Ok(self
            .call(tool, request.arguments.unwrap_or_default(), context)
            .await
            .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, McpError> {
        let campaign = self.campaign.clone();
        let entries = tokio::task::spawn_blocking(move || resources::list(&campaign))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(
            entries
                .into_iter()
                .map(|e| {
                    Resource::new(e.uri, e.name)
                        .with_description(e.description)
                        .with_mime_type(e.mime)
                })
                .collect(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates()
                .into_iter()
                .map(|(uri, name, description, mime)| {
                    ResourceTemplate::new(uri, name)
                        .with_description(description)
                        .with_mime_type(mime)
                })
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, McpError> {
        let campaign = self.campaign.clone();
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&campaign, &uri))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        match read {
            Ok((text, mime)) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, request.uri).with_mime_type(mime),
            ])
            .into()),
            Err(message) => Err(McpError::resource_not_found(
                message,
                Some(json!({"uri": request.uri})),
            )),
        }
    }
}
