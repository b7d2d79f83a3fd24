//! The files a run and a decision leave behind, one owner per format: every writer and
//! every reader goes through these types (no file is read back as untyped JSON).
//!
//! - [`result`]: `artifacts/result.json` and the `RESULT_JSON` line;
//! - [`fingerprint`]: `artifacts/fingerprint.json`, how a measurement was made;
//! - [`paired`]: `artifacts/paired.csv` and `paired_samples.csv`, the other side of a
//!   paired measurement;
//! - [`harness`]: `artifacts/harness.json`, how a harness command was run;
//! - [`progress`]: `live/progress.json`, the live state of a run for the dashboard;
//! - the campaign's own formats (`decision.json`, `gate.json`, `journal.jsonl`) live in
//!   [`crate::campaign`], the iteration records in [`crate::memory`].

pub mod fingerprint;
pub mod harness;
pub mod paired;
pub mod progress;
pub mod result;

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// Reads a JSON document of type `T`; `Ok(None)` when the file does not exist. A file that
/// exists but does not parse is an error naming the file, its line and `what` it should be.
pub fn read_json_opt<T: DeserializeOwned>(path: &Path, what: &str) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Error::in_file(
            path,
            Some(e.line() as u64),
            None,
            format!("malformed {what}: {e}"),
        )
    })
}
