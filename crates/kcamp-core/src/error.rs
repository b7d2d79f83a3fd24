//! Typed library errors. Every message names the file, line, field or column at fault.

use std::path::PathBuf;

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
    #[error(
        "campaign is locked by {holder} (lock file {path})\nnext: kcamp status   (wait until {holder} finishes, then run the command again; status names the holder while it runs)"
    )]
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

    /// The exit code this error maps to.
    pub fn exit_code(&self) -> i32 {
        match self {
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
