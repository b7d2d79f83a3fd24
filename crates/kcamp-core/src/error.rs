//! Typed library errors. Every message names the file, line, field or column at fault.

use std::path::PathBuf;

use crate::next::{Command, NextStep};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Process exit codes (docs/reliability.md, "Exit codes").
pub mod exit {
    pub const OK: i32 = 0;
    /// The gate said REJECT or NEEDS_REMEASURE, or a measurement (`baseline`, `run`) has a
    /// shape that does not PASS.
    pub const GATE_REJECTED: i32 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: i32 = 2;
    /// Internal failure (I/O, GPU device lost, bug).
    pub const INTERNAL: i32 = 3;
}

/// Messages quote user input (cells, labels, parser messages that echo a value); however
/// large the input, a message stays readable: at most this many characters, control
/// characters escaped.
pub const MAX_MESSAGE_CHARS: usize = 2000;

fn bounded(message: &str) -> std::borrow::Cow<'_, str> {
    crate::text::bounded(message, MAX_MESSAGE_CHARS)
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Malformed user input: CSV, YAML, JSON, arguments. Nothing was written.
    #[error("{}", bounded(.0))]
    Input(String),
    /// Input read from a file, with the position of the fault.
    #[error("{path}{}: {}", location(*line, column.as_deref()), bounded(.message))]
    InFile {
        path: PathBuf,
        line: Option<u64>,
        column: Option<String>,
        message: String,
    },
    /// The campaign is in a state that does not allow the command (no open round, ...).
    #[error("{}", bounded(.0))]
    State(String),
    /// Another process holds the campaign lock. The next step waits for it: `kcamp status`
    /// names the holder while it runs.
    #[error("campaign is locked by {holder} (lock file {path})")]
    Locked { path: PathBuf, holder: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// GPU / wgpu failure that is not the kernel's fault.
    #[error("gpu: {}", bounded(.0))]
    Gpu(String),
    /// The run was stopped on request (Esc in the dashboard, Ctrl-C, SIGTERM, a closed
    /// terminal) before it finished: nothing was recorded.
    #[error("{}", bounded(.0))]
    Cancelled(String),
    #[error("{}", bounded(.0))]
    Internal(String),
    /// An error and the steps that move past it (see [`Error::with_next`]).
    #[error("{error}")]
    Next {
        error: Box<Error>,
        next: Vec<NextStep>,
    },
}

fn location(line: Option<u64>, column: Option<&str>) -> String {
    let column = column.map(|c| crate::text::quote(c, crate::text::QUOTE_CHARS));
    match (line, column.as_deref()) {
        (Some(l), Some(c)) => format!(":{l} (column '{c}')"),
        (Some(l), None) => format!(":{l}"),
        (None, Some(c)) => format!(" (column '{c}')"),
        (None, None) => String::new(),
    }
}

impl Error {
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }

    pub fn in_file(
        path: impl Into<PathBuf>,
        line: Option<u64>,
        column: Option<&str>,
        msg: impl Into<String>,
    ) -> Self {
        Error::InFile {
            path: path.into(),
            line,
            column: column.map(str::to_owned),
            message: msg.into(),
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// A refusal by the campaign's state, with the steps past it.
    pub fn state(msg: impl Into<String>, next: Vec<NextStep>) -> Self {
        Error::State(msg.into()).with_next(next)
    }

    /// This error with `next` as the steps that move past it (after any it has).
    pub fn with_next(self, mut next: Vec<NextStep>) -> Self {
        match self {
            Error::Next {
                error,
                next: mut had,
            } => {
                had.append(&mut next);
                Error::Next { error, next: had }
            }
            error if next.is_empty() => error,
            error => Error::Next {
                error: Box::new(error),
                next,
            },
        }
    }

    /// The steps that move past this error, most likely first (none: nothing to suggest).
    pub fn next_steps(&self) -> Vec<NextStep> {
        match self {
            Error::Next { next, .. } => next.clone(),
            Error::Locked { holder, .. } => vec![NextStep::run(Command::Status).why(format!(
                "wait until {holder} finishes, then run the command again; status names the holder while it runs"
            ))],
            _ => Vec::new(),
        }
    }

    /// The message followed by its steps, as a person reads them.
    pub fn full_text(&self) -> String {
        crate::next::with_lines(&self.to_string(), &self.next_steps(), &crate::next::Plain)
    }

    /// The error itself, without its steps.
    pub fn cause(&self) -> &Error {
        match self {
            Error::Next { error, .. } => error.cause(),
            other => other,
        }
    }

    /// The exit code this error maps to.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Next { error, .. } => error.exit_code(),
            // A cancelled command recorded nothing and can simply be run again: like a
            // refused one, not like a failure of kcamp itself.
            Error::Input(_)
            | Error::InFile { .. }
            | Error::State(_)
            | Error::Locked { .. }
            | Error::Cancelled(_) => exit::BAD_INPUT,
            Error::Io { .. } | Error::Gpu(_) | Error::Internal(_) => exit::INTERNAL,
        }
    }

    /// Stable machine-readable kind for JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Next { error, .. } => error.kind(),
            Error::Input(_) | Error::InFile { .. } => "bad_input",
            Error::State(_) => "bad_state",
            Error::Locked { .. } => "locked",
            Error::Io { .. } => "io",
            Error::Gpu(_) => "gpu",
            Error::Cancelled(_) => "cancelled",
            Error::Internal(_) => "internal",
        }
    }
}

/// Attach a path to an `std::io::Error`.
pub trait IoContext<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> IoContext<T> for std::result::Result<T, std::io::Error> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::io(what(), e))
    }
}
