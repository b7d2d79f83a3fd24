//! Iteration records `memory/v<N>.json` (docs/campaign-dir.md, "Iteration records").
//!
//! A record is kept as a JSON value (not a Rust struct) so that `--set a.b=VALUE` can reach
//! any field; the embedded JSON Schema is the single definition of what a record may hold,
//! and every write is validated against it first. An invalid change writes nothing.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::IoContext;
use crate::isa::IsaMetric;
use crate::next::{Command, NextStep};
use crate::types::Check;
use crate::{Error, Result};

/// The JSON Schema every record is validated against.
pub const SCHEMA_JSON: &str = include_str!("../../../assets/v_iteration.schema.json");

/// A record's version: `v0` belongs to round 1 (BASELINE), `v<k>` to round k+1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32);

impl Version {
    /// The record of a round (rounds are numbered from 1).
    pub fn for_round(round: u32) -> Result<Version> {
        round
            .checked_sub(1)
            .map(Version)
            .ok_or_else(|| Error::input("rounds are numbered from 1; round 0 has no record"))
    }

    /// The round this record belongs to.
    pub fn round(self) -> u32 {
        self.0 + 1
    }

    pub fn file_name(self) -> String {
        format!("{self}.json")
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

impl FromStr for Version {
    type Err = Error;

    /// Accepts `v3`, `V3` or `3`.
    fn from_str(s: &str) -> Result<Version> {
        let digits = s.strip_prefix(['v', 'V']).unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::input(format!(
                "record version '{s}' is not of the form v<N> or <N>"
            )));
        }
        digits
            .parse()
            .map(Version)
            .map_err(|_| Error::input(format!("record version '{s}' is out of range")))
    }
}

/// One change to a record: `--set a.b=VALUE` or `--append a.b=JSON`.
#[derive(Debug, Clone, PartialEq)]
pub enum SetOp {
    /// Replace the value at a dotted path (missing object keys are created).
    Set { path: Vec<String>, value: Value },
    /// Push one element onto the array at a dotted path.
    Append { path: Vec<String>, value: Value },
}

impl SetOp {
    /// Parse `a.b=VALUE`. VALUE is a JSON number, bool or null when it reads as one; text
    /// starting with `[` or `{` must be JSON; a quoted JSON string is unquoted; anything
    /// else is taken as a plain string.
    pub fn parse_set(arg: &str) -> Result<SetOp> {
        let (path, raw) = split_assignment(arg, "--set")?;
        Ok(SetOp::Set {
            path,
            value: parse_value(raw, arg)?,
        })
    }

    /// Parse `a.b=JSON` for an append; the element follows the same rules as `--set`.
    pub fn parse_append(arg: &str) -> Result<SetOp> {
        let (path, raw) = split_assignment(arg, "--append")?;
        Ok(SetOp::Append {
            path,
            value: parse_value(raw, arg)?,
        })
    }

    fn path(&self) -> &[String] {
        match self {
            SetOp::Set { path, .. } | SetOp::Append { path, .. } => path,
        }
    }
}

/// Most segments of a `--set`/`--append` field path; the schema's deepest field has 3.
pub const MAX_PATH_SEGMENTS: usize = 16;
/// Deepest nesting of a record (objects and arrays). JSON readers stop at 128 levels; a
/// record kcamp writes stays far below, so every reader can read it back.
pub const MAX_RECORD_DEPTH: usize = 32;

fn split_assignment<'a>(arg: &'a str, flag: &str) -> Result<(Vec<String>, &'a str)> {
    let shown = || crate::text::quote(arg, crate::text::QUOTE_CHARS);
    let Some((path, raw)) = arg.split_once('=') else {
        return Err(Error::input(format!(
            "{flag} '{}': expected FIELD=VALUE (e.g. performance.tflops=12.5)",
            shown()
        )));
    };
    let count = path.split('.').count();
    if count > MAX_PATH_SEGMENTS {
        return Err(Error::input(format!(
            "{flag} '{}': the field path has {count} segments; records nest at most {MAX_PATH_SEGMENTS} deep",
            shown()
        )));
    }
    let segments: Vec<String> = path.trim().split('.').map(str::to_owned).collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(Error::input(format!(
            "{flag} '{}': field path has an empty segment",
            shown()
        )));
    }
    Ok((segments, raw))
}

/// Nesting depth of a JSON value (a scalar is 0), without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
    }
    deepest
}

fn parse_value(raw: &str, arg: &str) -> Result<Value> {
    let trimmed = raw.trim();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        return serde_json::from_str(trimmed).map_err(|e| {
            Error::input(format!(
                "'{}': the value is not valid JSON: {e}",
                crate::text::quote(arg, crate::text::QUOTE_CHARS)
            ))
        });
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Null | Value::String(_))) => Ok(v),
        _ => Ok(Value::String(raw.to_owned())),
    }
}

/// One record as read from (or written to) disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub version: Version,
    pub path: PathBuf,
    pub value: Value,
}

impl Record {
    pub fn masked(&self) -> bool {
        self.value
            .get("masked")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The value at a dotted path, if present.
    pub fn get(&self, dotted: &str) -> Option<&Value> {
        dotted.split('.').try_fold(&self.value, |v, key| match v {
            Value::Object(m) => m.get(key),
            Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        })
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A record file that could not be read or does not satisfy the schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BrokenRecord {
    pub path: PathBuf,
    pub error: String,
}

/// The records of a campaign, with the files that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Listing {
    /// Sorted by version number.
    pub records: Vec<Record>,
    pub broken: Vec<BrokenRecord>,
}

/// What a run measured, in plain numbers, for [`MemoryStore::fill_from_run`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFill {
    /// Geometric mean latency over PASS shapes, microseconds.
    pub latency_us: Option<f64>,
    pub latency_us_by_shape: BTreeMap<String, f64>,
    pub tflops: Option<f64>,
    pub bandwidth_gbps: Option<f64>,
    pub tflops_peak_utilization_pct: Option<f64>,
    pub bandwidth_peak_utilization_pct: Option<f64>,
    /// Worst relative error over all shapes.
    pub rel_err: Option<f64>,
    pub status: Option<Check>,
    /// Gate outcome as text (PASS, ACCEPT, REJECT, ...).
    pub gate_result: Option<String>,
    pub failure_reason: Option<String>,
    /// Static shader metrics against their targets; `None` leaves the field alone.
    pub isa_metric_progress: Option<Vec<IsaMetric>>,
    /// `comparison_with_previous`: against the incumbent the round was judged against, over
    /// the shapes both measured (None: no comparison, e.g. for BASELINE).
    pub comparison: Option<Comparison>,
}

/// A round against the incumbent it was judged against, over the same shapes: a quick
/// round's geomean is never set against a full one. Changes in percent (latency: positive
/// = slower).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comparison {
    pub previous_version: String,
    pub previous_round: u32,
    /// Shapes that PASS in both measurements; every change is over these.
    pub shapes: Vec<String>,
    pub latency_us_change_pct: Option<f64>,
    pub tflops_change_pct: Option<f64>,
    pub bandwidth_gbps_change_pct: Option<f64>,
}

/// The `memory/` directory of one campaign.
pub struct MemoryStore {
    dir: PathBuf,
    validator: jsonschema::Validator,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl MemoryStore {
    /// The store of the campaign at `campaign_dir` (records under `memory/`).
    pub fn new(campaign_dir: &Path) -> Result<MemoryStore> {
        let schema: Value = serde_json::from_str(SCHEMA_JSON)
            .map_err(|e| Error::Internal(format!("embedded v_iteration.schema.json: {e}")))?;
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|e| Error::Internal(format!("embedded v_iteration.schema.json: {e}")))?;
        Ok(MemoryStore {
            dir: campaign_dir.join(crate::files::MEMORY_DIR),
            validator,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path_of(&self, version: Version) -> PathBuf {
        self.dir.join(version.file_name())
    }

    /// A record with every field at its default and the current time.
    pub fn default_record(version: Version) -> Value {
        json!({
            "version": version.to_string(),
            "masked": false,
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "performance": {
                "latency_us": null,
                "latency_us_by_shape": {},
                "tflops": null,
                "bandwidth_gbps": null,
                "tflops_peak_utilization_pct": null,
                "bandwidth_peak_utilization_pct": null,
                "comparison_with_previous": null
            },
            "optimization": {
                "action_category": null,
                "action_description": null,
                "expected_impact": null,
                "risks_and_rollback": null
            },
            "profile_evidence": {},
            "correctness": {"rel_err": null, "status": null},
            "isa_metric_progress": [],
            "search_log": [],
            "pitfalls_and_fixes": [],
            "references": [],
            "quality_gate": {"result": null, "failure_reason": null},
            "open_directions": [],
            "git_commit_hash": null
        })
    }

    /// Create a record with defaults; refuses to overwrite an existing one.
    pub fn create(&self, version: Version) -> Result<Record> {
        let path = self.path_of(version);
        if path.exists() {
            return Err(Error::state(
                format!(
                    "record {version} already exists ({}): a record is created once and then updated",
                    path.display()
                ),
                vec![
                    NextStep::run(Command::MemoryUpdate)
                        .arg("version", version.to_string())
                        .fill("set", "FIELD=VALUE")
                        .why("or --append FIELD=JSON"),
                ],
            ));
        }
        self.write(version, Self::default_record(version))
    }

    /// Apply `ops` in order and write the result if it satisfies the schema.
    pub fn update(&self, version: Version, ops: &[SetOp]) -> Result<Record> {
        let record = self.updated(version, ops)?;
        self.write(version, record.value)
    }

    /// What [`update`](MemoryStore::update) would refuse, without writing anything.
    pub fn check_update(&self, version: Version, ops: &[SetOp]) -> Result<()> {
        let record = self.updated(version, ops)?;
        self.writable(version, &record.path, &record.value)
    }

    fn updated(&self, version: Version, ops: &[SetOp]) -> Result<Record> {
        let mut record = self.show(version)?;
        for op in ops {
            apply(&mut record.value, op).map_err(|msg| {
                Error::in_file(
                    &record.path,
                    None,
                    None,
                    format!(
                        "field {}: {msg}",
                        crate::text::quote(&pointer(op.path()), crate::text::QUOTE_CHARS)
                    ),
                )
            })?;
        }
        Ok(record)
    }

    /// Read one record, masked or not.
    pub fn show(&self, version: Version) -> Result<Record> {
        let path = self.path_of(version);
        if !path.exists() {
            return Err(Error::State(format!(
                "record {version} does not exist ({}); `kcamp memory list --all` lists the records (v0 is round 1)",
                path.display()
            )));
        }
        self.read(version, &path)
    }

    /// Non-masked records, sorted by version, and the files that could not be read.
    pub fn list(&self) -> Result<Listing> {
        let mut listing = self.list_all()?;
        listing.records.retain(|r| !r.masked());
        Ok(listing)
    }

    /// Every record, masked ones included.
    pub fn list_all(&self) -> Result<Listing> {
        let mut listing = Listing::default();
        if !self.dir.exists() {
            return Ok(listing);
        }
        let entries =
            std::fs::read_dir(&self.dir).ctx(|| format!("listing {}", self.dir.display()))?;
        for entry in entries {
            let entry = entry.ctx(|| format!("listing {}", self.dir.display()))?;
            let name = entry.file_name();
            // Other files (notes, editor backups) are not records.
            let Some(version) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|stem| {
                    stem.parse::<Version>()
                        .ok()
                        .filter(|v| v.to_string() == stem)
                })
            else {
                continue;
            };
            match self.read(version, &entry.path()) {
                Ok(record) => listing.records.push(record),
                Err(e) => listing.broken.push(BrokenRecord {
                    path: entry.path(),
                    error: e.to_string(),
                }),
            }
        }
        listing.records.sort_by_key(|r| r.version);
        listing.broken.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    /// The highest-numbered non-masked record.
    pub fn latest(&self) -> Result<Option<Record>> {
        Ok(self.list()?.records.pop())
    }

    pub fn mask(&self, version: Version) -> Result<Record> {
        self.set_masked(version, true)
    }

    pub fn unmask(&self, version: Version) -> Result<Record> {
        self.set_masked(version, false)
    }

    fn set_masked(&self, version: Version, masked: bool) -> Result<Record> {
        self.update(
            version,
            &[SetOp::Set {
                path: vec!["masked".into()],
                value: Value::Bool(masked),
            }],
        )
    }

    /// Fill `performance`, `correctness`, `quality_gate` (and `isa_metric_progress` when
    /// given) from a run, creating the record if needed. `comparison_with_previous` is
    /// `run.comparison`.
    pub fn fill_from_run(&self, version: Version, run: &RunFill) -> Result<Record> {
        let path = self.path_of(version);
        let mut value = if path.exists() {
            self.read(version, &path)?.value
        } else {
            Self::default_record(version)
        };
        let comparison = serde_json::to_value(&run.comparison)
            .map_err(|e| Error::Internal(format!("serializing a comparison: {e}")))?;
        let by_shape: Map<String, Value> = run
            .latency_us_by_shape
            .iter()
            .map(|(label, us)| (label.clone(), json!(us)))
            .collect();
        value["performance"] = json!({
            "latency_us": run.latency_us,
            "latency_us_by_shape": by_shape,
            "tflops": run.tflops,
            "bandwidth_gbps": run.bandwidth_gbps,
            "tflops_peak_utilization_pct": run.tflops_peak_utilization_pct,
            "bandwidth_peak_utilization_pct": run.bandwidth_peak_utilization_pct,
            "comparison_with_previous": comparison,
        });
        value["correctness"] = json!({
            "rel_err": run.rel_err,
            "status": run.status.map(Check::as_str),
        });
        value["quality_gate"] = json!({
            "result": run.gate_result,
            "failure_reason": run.failure_reason,
        });
        if let Some(metrics) = &run.isa_metric_progress {
            value["isa_metric_progress"] = serde_json::to_value(metrics)
                .map_err(|e| Error::Internal(format!("serializing ISA metrics: {e}")))?;
        }
        self.write(version, value)
    }

    /// Whether `bytes` read as record `version`: JSON held to the schema (a copy from
    /// elsewhere, before it replaces a damaged record).
    pub fn reads_as(&self, version: Version, bytes: &[u8]) -> bool {
        std::str::from_utf8(bytes)
            .is_ok_and(|text| self.parse(version, &self.path_of(version), text).is_ok())
    }

    fn read(&self, version: Version, path: &Path) -> Result<Record> {
        let text = crate::fsutil::read_input_text(path, crate::fsutil::MAX_INPUT_BYTES)?;
        self.parse(version, path, &text)
    }

    fn parse(&self, version: Version, path: &Path, text: &str) -> Result<Record> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            Error::in_file(
                path,
                Some(e.line() as u64),
                None,
                format!("not valid JSON: {e}"),
            )
        })?;
        self.check(path, &value, "does not satisfy v_iteration.schema.json")?;
        if value["version"] != Value::String(version.to_string()) {
            return Err(Error::in_file(
                path,
                None,
                None,
                format!(
                    "field /version: {} does not match the file name ({version})",
                    value["version"]
                ),
            ));
        }
        Ok(Record {
            version,
            path: path.to_owned(),
            value,
        })
    }

    fn write(&self, version: Version, value: Value) -> Result<Record> {
        let path = self.path_of(version);
        self.writable(version, &path, &value)?;
        crate::fsutil::write_json_atomic(&path, &value)?;
        Ok(Record {
            version,
            path,
            value,
        })
    }

    /// What is written must read back: never a record that breaks `show`, `status` or
    /// `log` with no way to repair it.
    fn writable(&self, version: Version, path: &Path, value: &Value) -> Result<()> {
        let path = path.to_path_buf();
        let nested = depth(value);
        if nested > MAX_RECORD_DEPTH {
            return Err(Error::in_file(
                &path,
                None,
                None,
                format!(
                    "not written: the change nests the record {nested} levels deep; at most {MAX_RECORD_DEPTH}"
                ),
            ));
        }
        if value["version"] != Value::String(version.to_string()) {
            return Err(Error::in_file(
                &path,
                None,
                None,
                format!(
                    "not written: field /version must stay \"{version}\" (the record's file name), got {}",
                    crate::text::quote(&value["version"].to_string(), crate::text::QUOTE_CHARS)
                ),
            ));
        }
        self.check(
            &path,
            value,
            "not written: the change would break v_iteration.schema.json",
        )
    }

    /// Schema errors, each naming the field by its JSON pointer.
    fn check(&self, path: &Path, value: &Value, what: &str) -> Result<()> {
        let problems: Vec<String> = self
            .validator
            .iter_errors(value)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_owned() } else { at };
                crate::text::quote(&format!("field {at}: {e}"), 300)
            })
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        Err(Error::in_file(
            path,
            None,
            None,
            format!(
                "{what}: {}{}",
                problems
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; "),
                if problems.len() > 5 {
                    format!("; and {} more", problems.len() - 5)
                } else {
                    String::new()
                }
            ),
        ))
    }
}

fn pointer(path: &[String]) -> String {
    format!("/{}", path.join("/"))
}

/// Apply one change in place; the error says what is wrong at that path.
fn apply(root: &mut Value, op: &SetOp) -> std::result::Result<(), String> {
    let (path, value) = match op {
        SetOp::Set { path, value } | SetOp::Append { path, value } => (path, value),
    };
    let Some((last, parents)) = path.split_last() else {
        return Err("empty field path".into());
    };
    let mut node = root;
    for key in parents {
        node = child(node, key, true)?;
    }
    match op {
        SetOp::Set { .. } => {
            match node {
                Value::Array(items) => {
                    let slot = array_slot(items, last)?;
                    *slot = value.clone();
                }
                other => {
                    if other.is_null() {
                        *other = Value::Object(Map::new());
                    }
                    let Value::Object(map) = other else {
                        return Err(format!("cannot set '{last}' inside a {}", kind(other)));
                    };
                    map.insert(last.clone(), value.clone());
                }
            }
            Ok(())
        }
        SetOp::Append { .. } => match child(node, last, false)? {
            Value::Array(items) => {
                items.push(value.clone());
                Ok(())
            }
            other => Err(format!("cannot append to a {}", kind(other))),
        },
    }
}

/// Step into `key`; missing object keys are created (as objects) only when `create`.
fn child<'a>(
    node: &'a mut Value,
    key: &str,
    create: bool,
) -> std::result::Result<&'a mut Value, String> {
    if node.is_null() && create {
        *node = Value::Object(Map::new());
    }
    let node_kind = kind(node);
    match node {
        Value::Object(map) => {
            if create {
                Ok(map
                    .entry(key.to_owned())
                    .or_insert_with(|| Value::Object(Map::new())))
            } else {
                map.get_mut(key)
                    .ok_or_else(|| format!("there is no field '{key}'"))
            }
        }
        Value::Array(items) => array_slot(items, key),
        _ => Err(format!("cannot step into '{key}' of a {node_kind}")),
    }
}

fn array_slot<'a>(items: &'a mut [Value], key: &str) -> std::result::Result<&'a mut Value, String> {
    let len = items.len();
    let index: usize = key
        .parse()
        .map_err(|_| format!("'{key}' is not an index into an array"))?;
    items
        .get_mut(index)
        .ok_or_else(|| format!("index {index} is out of range (the array has {len} elements)"))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, MemoryStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path()).unwrap();
        (dir, store)
    }

    #[test]
    fn version_parsing_and_rounds() {
        assert_eq!("v3".parse::<Version>().unwrap(), Version(3));
        assert_eq!("3".parse::<Version>().unwrap(), Version(3));
        assert!("v".parse::<Version>().is_err());
        assert!("v-1".parse::<Version>().is_err());
        assert!("x3".parse::<Version>().is_err());
        assert_eq!(Version::for_round(1).unwrap(), Version(0));
        assert_eq!(Version(4).round(), 5);
        assert!(Version::for_round(0).is_err());
    }

    #[test]
    fn value_parsing_rules() {
        let value = |arg: &str| match SetOp::parse_set(arg).unwrap() {
            SetOp::Set { value, .. } => value,
            SetOp::Append { .. } => unreachable!(),
        };
        assert_eq!(value("a=1.5"), json!(1.5));
        assert_eq!(value("a=true"), json!(true));
        assert_eq!(value("a=null"), json!(null));
        assert_eq!(value("a=hello world"), json!("hello world"));
        assert_eq!(value("a=\"7\""), json!("7"));
        assert_eq!(value("a=[1,2]"), json!([1, 2]));
        assert_eq!(value("a=x=y"), json!("x=y"));
        assert!(SetOp::parse_set("a={broken").is_err());
        assert!(SetOp::parse_set("novalue").is_err());
        assert!(SetOp::parse_set("a..b=1").is_err());
    }

    #[test]
    fn default_record_satisfies_schema_and_create_refuses_overwrite() {
        let (_d, s) = store();
        let r = s.create(Version(0)).unwrap();
        assert!(!r.masked());
        assert!(r.path.ends_with("memory/v0.json"));
        let err = s.create(Version(0)).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
    }

    #[test]
    fn invalid_update_names_field_and_writes_nothing() {
        let (_d, s) = store();
        let r = s.create(Version(2)).unwrap();
        let before = std::fs::read(&r.path).unwrap();
        let op = SetOp::parse_set("performance.tflops=fast").unwrap();
        let err = s.update(Version(2), &[op]).unwrap_err().to_string();
        assert!(err.contains("/performance/tflops"), "{err}");
        assert!(err.contains("v2.json"), "{err}");
        let unknown = SetOp::parse_set("colour=blue").unwrap();
        let err = s.update(Version(2), &[unknown]).unwrap_err().to_string();
        assert!(err.contains("colour"), "{err}");
        assert_eq!(std::fs::read(&r.path).unwrap(), before);
    }

    #[test]
    fn timestamp_must_be_rfc3339_and_version_must_match_file() {
        let (_d, s) = store();
        let r = s.create(Version(0)).unwrap();
        chrono::DateTime::parse_from_rfc3339(r.get("timestamp").unwrap().as_str().unwrap())
            .unwrap();
        let err = s
            .update(
                Version(0),
                &[SetOp::parse_set("timestamp=yesterday").unwrap()],
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("/timestamp"), "{err}");
        let mut copied = r.value.clone();
        copied["version"] = json!("v1");
        std::fs::write(s.path_of(Version(7)), copied.to_string()).unwrap();
        let err = s.show(Version(7)).unwrap_err().to_string();
        assert!(err.contains("v7.json") && err.contains("/version"), "{err}");
    }

    #[test]
    fn update_sets_nested_and_appends() {
        let (_d, s) = store();
        s.create(Version(1)).unwrap();
        let ops = [
            SetOp::parse_set("performance.latency_us_by_shape.m256=12.5").unwrap(),
            SetOp::parse_set("optimization.action_category=tiling").unwrap(),
            SetOp::parse_append("open_directions=try vec4 loads").unwrap(),
            SetOp::parse_append(
                r#"references={"source_type":"doc","path_or_url":"x","description":"y"}"#,
            )
            .unwrap(),
        ];
        let r = s.update(Version(1), &ops).unwrap();
        assert_eq!(
            r.get("performance.latency_us_by_shape.m256"),
            Some(&json!(12.5))
        );
        assert_eq!(r.get("open_directions.0"), Some(&json!("try vec4 loads")));
        assert_eq!(r.get("references.0.description"), Some(&json!("y")));
        let on_disk = s.show(Version(1)).unwrap();
        assert_eq!(on_disk.value, r.value);
        let err = s
            .update(Version(1), &[SetOp::parse_append("masked=1").unwrap()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("/masked") && err.contains("append"), "{err}");
    }

    #[test]
    fn list_skips_masked_and_reports_broken_files() {
        let (_d, s) = store();
        for v in [0, 2, 10, 1] {
            s.create(Version(v)).unwrap();
        }
        s.mask(Version(10)).unwrap();
        let versions: Vec<u32> = s
            .list()
            .unwrap()
            .records
            .iter()
            .map(|r| r.version.0)
            .collect();
        assert_eq!(versions, vec![0, 1, 2]);
        assert_eq!(s.list_all().unwrap().records.len(), 4);
        assert_eq!(s.latest().unwrap().unwrap().version, Version(2));
        s.unmask(Version(10)).unwrap();
        assert_eq!(s.latest().unwrap().unwrap().version, Version(10));

        std::fs::write(
            s.path_of(Version(5)),
            "{\n  \"version\": \"v5\",\n  oops\n}",
        )
        .unwrap();
        std::fs::write(s.dir().join("notes.txt"), "not a record").unwrap();
        std::fs::copy(s.path_of(Version(1)), s.dir().join("v01.json")).unwrap();
        let listing = s.list().unwrap();
        assert_eq!(listing.records.len(), 4);
        assert_eq!(listing.broken.len(), 1);
        assert!(
            listing.broken[0].error.contains("v5.json:3"),
            "{:?}",
            listing.broken
        );
        assert!(s.show(Version(5)).is_err());
    }

    #[test]
    fn fill_from_run_creates_and_compares_with_previous() {
        let (_d, s) = store();
        let base = RunFill {
            latency_us: Some(200.0),
            latency_us_by_shape: [("s".to_owned(), 200.0)].into(),
            tflops: Some(1.0),
            rel_err: Some(1e-6),
            status: Some(Check::Pass),
            gate_result: Some("PASS".into()),
            ..RunFill::default()
        };
        let r0 = s.fill_from_run(Version(0), &base).unwrap();
        assert_eq!(r0.get("correctness.status"), Some(&json!("PASS")));
        assert_eq!(
            r0.get("performance.comparison_with_previous"),
            Some(&json!(null))
        );
        let next = RunFill {
            latency_us: Some(100.0),
            tflops: Some(2.0),
            isa_metric_progress: Some(vec![IsaMetric {
                metric: "barriers_per_loop_iteration".into(),
                target: "<= 2".into(),
                current: Some(2.0),
                met: Some(true),
            }]),
            comparison: Some(Comparison {
                previous_version: "v0".into(),
                previous_round: 1,
                shapes: vec!["s".into()],
                tflops_change_pct: Some(100.0),
                latency_us_change_pct: Some(-50.0),
                bandwidth_gbps_change_pct: None,
            }),
            ..base
        };
        let r1 = s.fill_from_run(Version(1), &next).unwrap();
        let cmp = r1.get("performance.comparison_with_previous").unwrap();
        assert_eq!(cmp["previous_version"], json!("v0"));
        assert_eq!(cmp["shapes"], json!(["s"]));
        assert_eq!(cmp["tflops_change_pct"], json!(100.0));
        assert_eq!(cmp["latency_us_change_pct"], json!(-50.0));
        assert_eq!(r1.get("isa_metric_progress.0.met"), Some(&json!(true)));
    }
}
