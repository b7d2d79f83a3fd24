//! The server's stdio transport: one JSON-RPC message a line, as rmcp's own, except where
//! the protocol asks for an answer that rmcp does not give. A line that is not JSON gets a
//! parse error (−32700); a `tools/call` without a tool name, or with arguments that are not
//! an object, gets invalid params (−32602) rather than "method not found"; another message
//! of the wrong shape gets invalid request (−32600). The end of standard input stops the
//! server as SIGTERM does: a step in progress is cancelled, not finished and recorded.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::io::{StdioReader, StdioWriter};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// JSON-RPC's error codes (jsonrpc.org/specification, "Error object").
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

pub struct Lines<R, W> {
    reader: BufReader<R>,
    /// The line being read: kept across a cancelled `receive` (rmcp polls it in a
    /// `select!`), so a partial line is resumed, never lost.
    line: Vec<u8>,
    writer: Arc<Mutex<Option<W>>>,
    /// Set at the end of input: the flag a SIGTERM sets.
    stop: Arc<AtomicBool>,
}

pub fn stdio(stop: Arc<AtomicBool>) -> Lines<StdioReader, StdioWriter> {
    let (reader, writer) = rmcp::transport::io::stdio_pipes();
    Lines::new(reader, writer, stop)
}

impl<R, W> Lines<R, W> {
    pub fn new(reader: R, writer: W, stop: Arc<AtomicBool>) -> Self
    where
        R: tokio::io::AsyncRead,
    {
        Lines {
            reader: BufReader::new(reader),
            line: Vec::new(),
            writer: Arc::new(Mutex::new(Some(writer))),
            stop,
        }
    }
}

/// What one line of input is.
#[derive(Debug)]
enum Line {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to deliver or answer (an empty line, a notification of unknown shape).
    Skip,
    /// An error response to send back.
    Answer(Value),
}

fn error_response(id: Option<&Value>, code: i64, message: String) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.cloned().unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    })
}

/// Why a `tools/call` request's params do not fit the method, if they do not.
fn tools_call_params_error(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(params)) = params else {
        return Some("tools/call: params must be an object with the tool's `name`".into());
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "tools/call: `name` must be a string naming a tool, got {other}"
            ));
        }
        None => return Some("tools/call: `name` (the tool to call) is missing".into()),
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(other) => Some(format!(
            "tools/call: `arguments` must be an object of named arguments, got {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "another value",
            }
        )),
    }
}

fn classify(raw: &[u8]) -> Line {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Line::Skip;
    }
    let value: Value = match serde_json::from_slice(raw) {
        Ok(v) => v,
        Err(e) => {
            return Line::Answer(error_response(
                None,
                PARSE_ERROR,
                format!("Parse error: the line is not JSON ({e})"),
            ));
        }
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    let method = value.get("method").and_then(Value::as_str);
    if let (Some(id), Some("tools/call")) = (id, method)
        && let Some(why) = tools_call_params_error(value.get("params"))
    {
        return Line::Answer(error_response(Some(id), INVALID_PARAMS, why));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(message) => Line::Message(Box::new(message)),
        // A notification is never answered, whatever its shape.
        Err(_) if method.is_some() && value.get("id").is_none() => Line::Skip,
        Err(e) => Line::Answer(error_response(
            id,
            INVALID_REQUEST,
            format!("Invalid request: not a JSON-RPC 2.0 message of MCP ({e})"),
        )),
    }
}

async fn write_line<W: AsyncWriteExt + Unpin>(
    writer: &Mutex<Option<W>>,
    mut line: Vec<u8>,
) -> io::Result<()> {
    line.push(b'\n');
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(io::Error::new(
            io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    w.write_all(&line).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            write_line(&writer, line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.reader.read_until(b'\n', &mut self.line).await {
                Ok(0) | Err(_) => {
                    self.stop.store(true, Ordering::SeqCst);
                    return None;
                }
                Ok(_) => {}
            }
            let raw = std::mem::take(&mut self.line);
            match classify(&raw) {
                Line::Message(m) => return Some(*m),
                Line::Skip => {}
                Line::Answer(reply) => {
                    // Written by a task of its own: a `receive` dropped by the service's
                    // `select!` must not lose or tear the answer.
                    let writer = Arc::clone(&self.writer);
                    let line = reply.to_string().into_bytes();
                    tokio::spawn(async move {
                        let _ = write_line(&writer, line).await;
                    });
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(mut w) = self.writer.lock().await.take() {
            w.flush().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Line::Answer(v) => v,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_line_that_is_not_json_gets_a_parse_error() {
        let a = answer("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n");
        assert_eq!(a["error"]["code"], PARSE_ERROR);
        assert_eq!(a["id"], Value::Null);
    }

    #[test]
    fn a_tools_call_without_a_name_or_with_array_arguments_gets_invalid_params() {
        let a = answer(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#);
        assert_eq!(a["error"]["code"], INVALID_PARAMS);
        assert_eq!(a["id"], 7);
        assert!(a["error"]["message"].as_str().unwrap().contains("`name`"));
        let a = answer(
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"status","arguments":[1]}}"#,
        );
        assert_eq!(a["error"]["code"], INVALID_PARAMS);
        assert_eq!(a["id"], "x");
        assert!(a["error"]["message"].as_str().unwrap().contains("an array"));
    }

    #[test]
    fn well_formed_messages_pass_and_blank_lines_are_skipped() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status"}}"#;
        assert!(matches!(classify(ok.as_bytes()), Line::Message(_)));
        assert!(matches!(classify(b"  \r\n"), Line::Skip));
        let note = r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":3}"#;
        assert!(!matches!(classify(note.as_bytes()), Line::Answer(_)));
        let a = answer(r#"[1, 2]"#);
        assert_eq!(a["error"]["code"], INVALID_REQUEST);
    }
}
