//! `kcamp memory create|update|show|list|mask|unmask`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::{CmdOutput, Ctx};
use kcamp_core::campaign::Campaign;
use kcamp_core::fsutil::LockGuard;
use kcamp_core::memory::{Listing, MemoryStore, Record, SetOp, Version};
use kcamp_core::{Error, Result};

#[derive(Debug, Subcommand)]
// Arguments built only for the command run, as for `cli::Command`.
#[command(defer = true)]
pub enum MemoryCommand {
    /// Create a record with default fields (refuses to overwrite).
    Create(VersionArg),
    /// Change fields of a record; the result must satisfy the schema or nothing is written.
    /// Every --set is applied (in order) before every --append (in order).
    Update(UpdateArgs),
    /// Print one record (masked ones too).
    Show(VersionArg),
    /// List the records that are not masked (--all: masked ones too).
    List(ListArgs),
    /// Mark a record as masked: it is skipped when records are read.
    Mask(VersionArg),
    /// Clear the mask of a record.
    Unmask(VersionArg),
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct VersionArg {
    /// Record version: v3 or 3 (v0 is round 1, the BASELINE).
    #[arg(value_name = "vN", value_parser = parse_version, required_unless_present = "flag")]
    #[serde(default, deserialize_with = "version_of_text")]
    #[schemars(with = "String", required)]
    version: Option<Version>,
    /// The same, as a flag (`--version v3`).
    #[arg(
        id = "flag",
        long = "version",
        value_name = "vN",
        value_parser = parse_version,
        conflicts_with = "version"
    )]
    #[serde(skip)]
    flag: Option<Version>,
}

impl VersionArg {
    /// The version given, positionally or with `--version`.
    pub fn get(&self) -> Result<Version> {
        self.version.or(self.flag).ok_or_else(|| {
            kcamp_core::Error::input(
                "give a record version: `kcamp memory show v3` (v0 is round 1)",
            )
        })
    }
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct UpdateArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub version: VersionArg,
    #[serde(default)]
    /// FIELD=VALUE with a dotted path (performance.tflops=12.5). VALUE is a number, bool or
    /// null when it reads as one, JSON when it starts with [ or {, else a string.
    /// (Parsed by the command, not by the argument parser, so that a refusal is one short
    /// message, in JSON with --json, rather than an echo of the whole argument.)
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    #[serde(default)]
    /// FIELD=JSON: append one element to an array field (pitfalls_and_fixes='{...}').
    #[arg(long = "append", value_name = "FIELD=JSON")]
    pub append: Vec<String>,
}

#[derive(Debug, Args, serde::Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    #[serde(default)]
    /// Include masked records.
    #[arg(long)]
    pub all: bool,
}

/// A record version given as JSON text (`"v3"`), read as on the command line.
fn version_of_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Version>, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    parse_version(&text)
        .map(Some)
        .map_err(|e| serde::de::Error::custom(format!("argument 'version': {e}")))
}

fn parse_version(s: &str) -> Result<Version> {
    s.parse()
}

pub fn memory(ctx: &Ctx, command: &MemoryCommand) -> Result<CmdOutput> {
    let store = MemoryStore::new(&ctx.campaign)?;
    match command {
        MemoryCommand::Create(a) => {
            let version = a.get()?;
            let _lock = lock(ctx, "kcamp memory create")?;
            let campaign = Campaign::open(&ctx.campaign)?;
            // A record belongs to a round: one for a round that was never opened would be
            // read as that round's by the dashboard and the report once it is.
            let rounds = campaign.round_numbers()?;
            if !rounds.contains(&version.round()) {
                let has = match (rounds.first(), rounds.last()) {
                    (Some(a), Some(b)) if a == b => {
                        format!("the campaign has round {a}; `kcamp round new` opens the next")
                    }
                    (Some(a), Some(b)) => format!(
                        "the campaign has rounds {a} to {b}; `kcamp round new` opens the next"
                    ),
                    _ => "the campaign has no rounds yet; `kcamp baseline` records round 1"
                        .to_owned(),
                };
                return Err(Error::State(format!(
                    "{version} is the record of round {}, which does not exist ({has})",
                    version.round()
                )));
            }
            committed(&campaign, store.create(version)?, "created")
        }
        MemoryCommand::Update(a) => {
            let ops: Vec<SetOp> = a
                .set
                .iter()
                .map(|s| SetOp::parse_set(s))
                .chain(a.append.iter().map(|s| SetOp::parse_append(s)))
                .collect::<Result<_>>()?;
            if ops.is_empty() {
                return Err(kcamp_core::Error::input(
                    "memory update: give at least one --set or --append",
                ));
            }
            // A change the schema refuses changes nothing, not even the lock file: checked
            // first, and again under the lock.
            store.check_update(a.version.get()?, &ops)?;
            let _lock = lock(ctx, "kcamp memory update")?;
            committed(
                &Campaign::open(&ctx.campaign)?,
                store.update(a.version.get()?, &ops)?,
                "updated",
            )
        }
        MemoryCommand::Show(a) => {
            let record = store.show(a.get()?)?;
            let human = serde_json::to_string_pretty(&record.value)
                .map_err(|e| kcamp_core::Error::Internal(format!("printing a record: {e}")))?;
            Ok(CmdOutput::ok(record.value, human))
        }
        MemoryCommand::List(a) => {
            let listing = if a.all {
                store.list_all()?
            } else {
                store.list()?
            };
            Ok(listing_output(&listing))
        }
        MemoryCommand::Mask(a) => {
            let _lock = lock(ctx, "kcamp memory mask")?;
            committed(
                &Campaign::open(&ctx.campaign)?,
                store.mask(a.get()?)?,
                "masked",
            )
        }
        MemoryCommand::Unmask(a) => {
            let _lock = lock(ctx, "kcamp memory unmask")?;
            committed(
                &Campaign::open(&ctx.campaign)?,
                store.unmask(a.get()?)?,
                "unmasked",
            )
        }
    }
}

/// Writers take the campaign lock so a record never changes under a running decision, and
/// clear the temp files a killed writer left (a record writer runs no other recovery, so
/// that a record can be fixed in a campaign that needs one).
fn lock(ctx: &Ctx, what: &str) -> Result<LockGuard> {
    let guard = kcamp_core::campaign::lock_campaign(&ctx.campaign, what)?;
    let memory = ctx.campaign.join(kcamp_core::files::MEMORY_DIR);
    kcamp_core::campaign::check_writable(&[ctx.campaign.clone(), memory])?;
    kcamp_core::campaign::remove_stray_temp_files(&Campaign::open_base(&ctx.campaign)?)?;
    Ok(guard)
}

/// [`written`], committed where the campaign commits its steps (the tree stays clean).
fn committed(campaign: &Campaign, record: Record, verb: &str) -> Result<CmdOutput> {
    let round = record.version.round();
    kcamp_core::campaign::git::commit_step(
        campaign,
        Some(round),
        &kcamp_core::campaign::git::subject(round, &format!("memory {} {verb}", record.version)),
    )?;
    written(record, verb)
}

fn written(record: Record, verb: &str) -> Result<CmdOutput> {
    let human = format!("{verb} {} ({})", record.version, record.path.display());
    Ok(CmdOutput::ok(record.value, human))
}

fn listing_output(listing: &Listing) -> CmdOutput {
    let mut human = String::new();
    if listing.records.is_empty() {
        human.push_str("no records\n");
    }
    for r in &listing.records {
        let field = |path: &str| r.get(path).filter(|v| !v.is_null());
        let text = |path: &str| {
            field(path)
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .unwrap_or_else(|| "-".to_owned())
        };
        let number = |path: &str| field(path).and_then(Value::as_f64);
        let _ = writeln!(
            human,
            "{:<5} round {:<3} {:<12} latency {:>9}  {:>13}  {:>10}  {}{}",
            r.version.to_string(),
            r.version.round(),
            text("correctness.status"),
            number("performance.latency_us").map_or_else(
                || "-".to_owned(),
                |us| kcamp_core::units::millis(us / 1000.0)
            ),
            number("performance.tflops").map_or_else(
                || "-".to_owned(),
                |t| kcamp_core::units::flop_rate(t * 1e12)
            ),
            number("performance.bandwidth_gbps")
                .map_or_else(|| "-".to_owned(), |g| kcamp_core::units::byte_rate(g * 1e9)),
            text("optimization.action_category"),
            if r.masked() { " [masked]" } else { "" },
        );
    }
    for b in &listing.broken {
        let _ = writeln!(human, "unreadable: {}", b.error);
    }
    let records: Vec<Value> = listing.records.iter().map(|r| r.value.clone()).collect();
    CmdOutput::ok(json!({"records": records, "broken": listing.broken}), human)
}
