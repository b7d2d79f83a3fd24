//! The held-out check: before a kernel becomes the incumbent (`accept`, the final report),
//! its output is checked on shapes the campaign never listed (`held_out` in the manifest,
//! [`crate::held_out`]), with fresh inputs, through the same reference and tolerance as
//! every other check. The shapes are chosen when the check starts; until the decision is
//! made they exist only in a staging directory, and the record (`held_out.json`) is moved
//! into place by the decision's finishing step, so that nothing names them before the
//! check and a kill leaves either no record or a whole one.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::layout::{Campaign, tree_hash};
use super::measure::{
    MeasureRequest, Measurer, abandon, fresh_seed, read_checked, refuse_builtin_if_imported,
};
use crate::artifacts::result::{RunResult, ShapeRecord};
use crate::case::ProgressEvent;
use crate::files::{FINAL_ACCEPTANCE_JSON, HELD_OUT_JSON, REPORT_DIR, RESULT_JSON};
use crate::fsutil::{create_dir_all, remove_dir_if_exists, rename, write_json_atomic};
use crate::gate::{Reason, ReasonKind};
use crate::held_out::{HeldOut, derive};
use crate::next::{Command, NextStep};
use crate::types::{Check, ShapeSpec, Validation};
use crate::{Error, Result};

/// Where a check measures and stages its record, in the round's (or the report's)
/// directory; a dot directory ending in `.tmp`, which no commit takes.
const STAGING_DIR: &str = ".held-out.tmp";

/// How a held-out check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldOutStatus {
    /// Every held-out shape PASS.
    Pass,
    /// Some held-out shape did not PASS: the kernel does not become the incumbent.
    Fail,
    /// `held_out: none` in the manifest.
    Skipped,
    /// Nothing could run them (imported measurements, a harness that checks nothing
    /// untimed); `why` says which.
    NotChecked,
}

impl HeldOutStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HeldOutStatus::Pass => "PASS",
            HeldOutStatus::Fail => "FAIL",
            HeldOutStatus::Skipped => "skipped",
            HeldOutStatus::NotChecked => "not checked",
        }
    }
}

/// `held_out.json`: one held-out check, written once its decision is made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOutCheck {
    pub status: HeldOutStatus,
    /// Where the shapes came from: `auto`, `manifest` or `none`.
    pub source: String,
    /// Why no shape was checked (skipped, not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The seed `auto` derived the shapes from (fresh for every check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derivation_seed: Option<u64>,
    /// The seed of the inputs (fresh for every check, whatever the manifest's `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_seed: Option<u64>,
    /// The measurer that checked them: `builtin`, `command:<cmd>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// The kernel snapshot checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_hash: Option<String>,
    pub time: DateTime<Utc>,
    /// The op's dimension names, in the order of each shape's `dims`.
    pub dim_names: Vec<String>,
    /// Each held-out shape with its check (label, dims, Check, reason, seed).
    pub shapes: Vec<ShapeRecord>,
}

impl HeldOutCheck {
    fn unchecked(c: &Campaign, status: HeldOutStatus, why: String) -> HeldOutCheck {
        HeldOutCheck {
            status,
            source: c.manifest.held_out.as_str().to_owned(),
            why: Some(why),
            derivation_seed: None,
            input_seed: None,
            origin: None,
            kernel_hash: None,
            time: Utc::now(),
            dim_names: dim_names(c),
            shapes: Vec::new(),
        }
    }

    /// `held-out-2 (B=2 M=21 N=19 K=29)`.
    pub fn describe(&self, s: &ShapeRecord) -> String {
        let dims: Vec<String> = self
            .dim_names
            .iter()
            .zip(&s.dims)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!("{} ({})", s.label, dims.join(" "))
    }

    /// The shapes that did not PASS.
    pub fn failed(&self) -> impl Iterator<Item = &ShapeRecord> {
        self.shapes.iter().filter(|s| s.check != Check::Pass)
    }

    /// Why a failed check refuses the kernel, naming the shapes, their dimensions and the
    /// errors (one line).
    pub fn refusal(&self, what: &str) -> String {
        let failed: Vec<&ShapeRecord> = self.failed().collect();
        let mut named = String::new();
        if let Some(first) = failed.first() {
            named.push_str(&format!(
                "{} {}",
                self.describe(first),
                first.check.as_str()
            ));
            if let Some(r) = &first.reason {
                named.push_str(&format!(
                    " ({})",
                    crate::text::quote(&r.replace('\n', " "), 160)
                ));
            }
        }
        let others: Vec<String> = failed
            .iter()
            .skip(1)
            .map(|s| format!("{} {}", self.describe(s), s.check.as_str()))
            .collect();
        if !others.is_empty() {
            named.push_str(&format!("; also {}", others.join(", ")));
        }
        format!(
            "the held-out check failed: {what} is wrong on {} (shapes the campaign does not list), so it does not become the incumbent, not even with --force: {named}",
            crate::text::count_of(failed.len(), self.shapes.len(), "held-out shape"),
        )
    }

    /// The reason a gate report records for it (a failure, or a coverage note).
    pub fn reason(&self, what: &str) -> Reason {
        match self.status {
            HeldOutStatus::Fail => Reason::new(ReasonKind::Failure, self.refusal(what))
                .with_shapes(self.failed().map(|s| s.label.clone())),
            HeldOutStatus::Pass => {
                let shapes: Vec<String> = self.shapes.iter().map(|s| self.describe(s)).collect();
                Reason::new(
                    ReasonKind::Coverage,
                    format!(
                        "held-out check: {} the campaign does not list ({}), with fresh inputs (seed {}): all PASS.",
                        crate::text::count(self.shapes.len(), "shape"),
                        shapes.join(", "),
                        self.input_seed.unwrap_or_default()
                    ),
                )
            }
            HeldOutStatus::Skipped | HeldOutStatus::NotChecked => Reason::new(
                ReasonKind::Coverage,
                format!(
                    "held-out shapes not checked: {}.",
                    self.why.as_deref().unwrap_or("no reason recorded")
                ),
            ),
        }
    }
}

fn dim_names(c: &Campaign) -> Vec<String> {
    c.manifest
        .dim_names()
        .iter()
        .map(|n| (*n).to_owned())
        .collect()
}

/// A seed nothing in the campaign predicts: the clock, mixed with the OS's randomness.
fn unpredictable_seed() -> u64 {
    fresh_seed() ^ rand::random::<u64>()
}

/// The staging directory of a round's check.
pub(super) fn round_staging(c: &Campaign, round: u32) -> PathBuf {
    c.round_dir(round).join(STAGING_DIR)
}

/// The staging directory of the final report's check.
pub(super) fn report_staging(c: &Campaign) -> PathBuf {
    c.dir.join(REPORT_DIR).join(STAGING_DIR)
}

/// Checks `kernel_dir` (a snapshot whose tree hash is `kernel_hash`) on the held-out shapes
/// with `measurer` (None: nothing can run them), measuring into `staging`, where the record
/// is left for [`commit_staged`]. Errors only when no check could be made (the measurer
/// failed or was cancelled); shapes that fail are the record's.
pub(super) fn check(
    c: &Campaign,
    round: u32,
    staging: &Path,
    kernel_dir: &Path,
    kernel_hash: &str,
    measurer: Option<&dyn Measurer>,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<HeldOutCheck> {
    remove_dir_if_exists(staging)?;
    let record = match unchecked_because(c, measurer) {
        Some((status, why)) => HeldOutCheck::unchecked(c, status, why),
        None => {
            let measurer = measurer.ok_or_else(|| Error::Internal("no measurer".into()))?;
            measure(
                c,
                round,
                staging,
                kernel_dir,
                kernel_hash,
                measurer,
                on_event,
            )?
        }
    };
    create_dir_all(staging)?;
    write_json_atomic(&staging.join(HELD_OUT_JSON), &record)?;
    Ok(record)
}

/// Why the held-out shapes cannot be checked, if they cannot.
fn unchecked_because(
    c: &Campaign,
    measurer: Option<&dyn Measurer>,
) -> Option<(HeldOutStatus, String)> {
    if c.manifest.held_out == HeldOut::None {
        return Some((
            HeldOutStatus::Skipped,
            "`held_out: none` in manifest.yaml".into(),
        ));
    }
    let imported = || Some((HeldOutStatus::NotChecked, "imported measurements".into()));
    let measurer = match measurer {
        Some(m) => m,
        None => return imported(),
    };
    if measurer.is_builtin() && refuse_builtin_if_imported(c).is_err() {
        return imported();
    }
    if !measurer.checks_untimed_shapes() {
        return Some((
            HeldOutStatus::NotChecked,
            format!(
                "the harness (`{}`) checks only the shapes it times",
                measurer.origin(Validation::Full)
            ),
        ));
    }
    None
}

fn measure(
    c: &Campaign,
    round: u32,
    staging: &Path,
    kernel_dir: &Path,
    kernel_hash: &str,
    measurer: &dyn Measurer,
    on_event: &mut dyn FnMut(ProgressEvent),
) -> Result<HeldOutCheck> {
    let (shapes, derivation_seed): (Vec<ShapeSpec>, Option<u64>) = match &c.manifest.held_out {
        HeldOut::Shapes(shapes) => (shapes.clone(), None),
        _ => {
            let seed = unpredictable_seed();
            let aligned_to = c.manifest.kernel.aligned.as_ref().map(|a| a.to);
            (
                derive(c.manifest.op, &c.manifest.target_shapes, aligned_to, seed),
                Some(seed),
            )
        }
    };
    // The manifest's `seed` pins the validations' inputs, never these: inputs known in
    // advance could be special-cased as well as shapes.
    let input_seed = unpredictable_seed();
    let request = MeasureRequest {
        campaign: c,
        validation: Validation::Full,
        round: Some(round),
        shapes: Vec::new(),
        kernel_dir: kernel_dir.to_path_buf(),
        out_dir: staging.to_path_buf(),
        paired_kernel_dir: None,
        check_shapes: shapes.clone(),
        seed: input_seed,
    };
    let measured = create_dir_all(staging)
        .and_then(|()| {
            super::guard::guarded(&c.dir, &[staging], || measurer.measure(&request, on_event))
        })
        .and_then(|()| {
            Ok(match RunResult::read(&staging.join(RESULT_JSON))? {
                Some(r) => r.checked_shapes,
                None => read_checked(staging)?,
            })
        })
        .and_then(|checked| {
            // A kernel changed while it was being checked is not the one checked.
            if tree_hash(kernel_dir)? != kernel_hash {
                return Err(Error::state(
                    format!(
                        "{} changed during the held-out check.",
                        kernel_dir.display()
                    ),
                    vec![NextStep::run(Command::Validate)],
                ));
            }
            Ok(checked)
        });
    let checked = match measured {
        Ok(checked) => checked,
        Err(e) => {
            return Err(abandon(
                c,
                e,
                "held-out check",
                round,
                Validation::Full,
                &[staging],
            ));
        }
    };
    super::fail_point("held_out:after_check");
    let records: Vec<ShapeRecord> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            checked
                .iter()
                .find(|r| r.label == s.label)
                .cloned()
                .unwrap_or_else(|| ShapeRecord {
                    label: s.label.clone(),
                    dims: c.manifest.shape_dims(s),
                    check: Check::Error,
                    reason: Some("the measurer reported no check of this shape".into()),
                    seed: input_seed.wrapping_add(i as u64),
                    latency_us: None,
                    rel_err: None,
                    timing_method: None,
                    warmup: Vec::new(),
                    aligned_entries: Vec::new(),
                })
        })
        .collect();
    let status = if records.iter().all(|r| r.check == Check::Pass) {
        HeldOutStatus::Pass
    } else {
        HeldOutStatus::Fail
    };
    Ok(HeldOutCheck {
        status,
        source: c.manifest.held_out.as_str().to_owned(),
        why: None,
        derivation_seed,
        input_seed: Some(input_seed),
        origin: Some(measurer.origin(Validation::Full)),
        kernel_hash: Some(kernel_hash.to_owned()),
        time: Utc::now(),
        dim_names: dim_names(c),
        shapes: records,
    })
}

/// Moves the record staged in `staging` to `dest` (when it is there and `dest` is not)
/// and removes the staging directory. Idempotent: the decision's finishing step and
/// recovery both run it.
fn commit_staged(staging: &Path, dest: &Path) -> Result<()> {
    let staged = staging.join(HELD_OUT_JSON);
    if staged.is_file() && !dest.exists() {
        rename(&staged, dest)?;
    }
    remove_dir_if_exists(staging)
}

/// After a round's decision file: its held-out record goes into place.
pub(super) fn commit_round(c: &Campaign, round: u32) -> Result<()> {
    commit_staged(
        &round_staging(c, round),
        &c.round_dir(round).join(HELD_OUT_JSON),
    )
}

/// After the final acceptance: the report's held-out record goes into place.
pub(super) fn commit_report(c: &Campaign) -> Result<()> {
    let dest = c.dir.join(REPORT_DIR).join(HELD_OUT_JSON);
    // The previous report's record describes another check.
    if report_staging(c).join(HELD_OUT_JSON).is_file() {
        crate::fsutil::remove_file_if_exists(&dest)?;
    }
    commit_staged(&report_staging(c), &dest)
}

/// After a kill: a staged check of an undecided round is dropped (the round stays open and
/// its next acceptance checks afresh); that of a decided round is put in place. The report's
/// is put in place when the final acceptance was written after it, else dropped.
pub(super) fn recover(c: &Campaign) -> Result<Vec<String>> {
    let mut actions = Vec::new();
    for n in c.round_numbers()? {
        let staging = round_staging(c, n);
        if !staging.exists() {
            continue;
        }
        if c.decision(n)?.is_some() {
            commit_round(c, n)?;
            actions.push(format!("recorded round {n}'s held-out check"));
        } else {
            remove_dir_if_exists(&staging)?;
            actions.push(format!(
                "dropped an interrupted held-out check of round {n}: the round is still open"
            ));
        }
    }
    let staging = report_staging(c);
    if staging.exists() {
        let staged: Option<HeldOutCheck> =
            crate::artifacts::read_json_opt(&staging.join(HELD_OUT_JSON), "held-out check")
                .ok()
                .flatten();
        let acceptance: Option<super::GateRecord> = crate::artifacts::read_json_opt(
            &c.dir.join(FINAL_ACCEPTANCE_JSON),
            "the final acceptance",
        )
        .ok()
        .flatten();
        match (staged, acceptance) {
            (Some(s), Some(a)) if a.time >= s.time => {
                commit_report(c)?;
                actions.push("recorded the final report's held-out check".to_owned());
            }
            _ => {
                remove_dir_if_exists(&staging)?;
                actions
                    .push("dropped an interrupted held-out check of the final report".to_owned());
            }
        }
    }
    Ok(actions)
}

/// The held-out check recorded in a round's directory, if it has one.
pub fn read_held_out(round_dir: &Path) -> Result<Option<HeldOutCheck>> {
    crate::artifacts::read_json_opt(&round_dir.join(HELD_OUT_JSON), "held-out check")
}

impl HeldOutCheck {
    /// One line for a round's history: `PASS (3 shapes)`, `FAIL: held-out-2 (B=2 M=21 N=19
    /// K=29) FAIL`, `skipped`, `not checked`.
    pub fn summary(&self) -> String {
        match self.status {
            HeldOutStatus::Pass => {
                format!("PASS ({})", crate::text::count(self.shapes.len(), "shape"))
            }
            HeldOutStatus::Fail => format!(
                "FAIL: {}",
                self.failed()
                    .map(|s| format!("{} {}", self.describe(s), s.check.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => other.as_str().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::init::temp_campaign as campaign;

    fn record(status: HeldOutStatus, checks: &[Check]) -> HeldOutCheck {
        HeldOutCheck {
            status,
            source: "auto".into(),
            why: None,
            derivation_seed: Some(1),
            input_seed: Some(2),
            origin: Some("builtin".into()),
            kernel_hash: None,
            time: Utc::now(),
            dim_names: vec!["B".into(), "M".into(), "N".into(), "K".into()],
            shapes: checks
                .iter()
                .enumerate()
                .map(|(i, check)| ShapeRecord {
                    label: format!("held-out-{}", i + 1),
                    dims: vec![1 + i as u64, 21, 19, 29],
                    check: *check,
                    reason: (*check != Check::Pass).then(|| "forward (c_snr) 0.0 dB".to_owned()),
                    seed: 5,
                    latency_us: None,
                    rel_err: None,
                    timing_method: None,
                    warmup: Vec::new(),
                    aligned_entries: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_refusal_names_the_shape_its_dimensions_and_the_error() {
        let r = record(
            HeldOutStatus::Fail,
            &[Check::Pass, Check::Fail, Check::Error],
        );
        let text = r.refusal("round 3's kernel");
        assert!(
            text.starts_with("the held-out check failed: round 3's kernel is wrong on 2 of the 3 held-out shapes (shapes the campaign does not list)"),
            "{text}"
        );
        assert!(
            text.contains("held-out-2 (B=2 M=21 N=19 K=29) FAIL (forward (c_snr) 0.0 dB); also held-out-3 (B=3 M=21 N=19 K=29) ERROR"),
            "{text}"
        );
        assert!(
            text.contains("held-out-3 (B=3 M=21 N=19 K=29) ERROR"),
            "{text}"
        );
        assert!(!text.contains('\n'));
        let reason = r.reason("round 3's kernel");
        assert_eq!(reason.kind, ReasonKind::Failure);
        let pass = record(HeldOutStatus::Pass, &[Check::Pass]).reason("x");
        assert_eq!(pass.kind, ReasonKind::Coverage);
        assert!(
            pass.text.contains("held-out-1 (B=1 M=21 N=19 K=29)"),
            "{}",
            pass.text
        );
    }

    #[test]
    fn a_staged_check_goes_in_place_once_decided_and_is_dropped_otherwise() {
        let (_tmp, c) = campaign();
        for n in [1, 2] {
            let staging = round_staging(&c, n);
            std::fs::create_dir_all(&staging).unwrap();
            let staged = record(HeldOutStatus::Pass, &[Check::Pass]);
            write_json_atomic(&staging.join(HELD_OUT_JSON), &staged).unwrap();
        }
        let decision = super::super::Decision {
            round: 2,
            decision: crate::types::DecisionKind::RolledBack,
            parent: Some(1),
            verdict: None,
            validation: None,
            aggregate: None,
            aggregate_delta: None,
            reason: Some("held-out".into()),
            cause: None,
            forced: false,
            time: Utc::now(),
            git_commit: None,
            gate: None,
            kernel_hash: None,
            kernel_files: None,
            kernel_key: None,
        };
        write_json_atomic(&c.round_dir(2).join(crate::files::DECISION_FILE), &decision).unwrap();
        let actions = recover(&c).unwrap();
        assert_eq!(actions.len(), 2, "{actions:?}");
        // Round 1 is undecided: its check is dropped, nothing recorded, the round open.
        assert!(!round_staging(&c, 1).exists());
        assert!(read_held_out(&c.round_dir(1)).unwrap().is_none());
        // Round 2 was decided: the record is in place.
        assert!(!round_staging(&c, 2).exists());
        assert_eq!(
            read_held_out(&c.round_dir(2)).unwrap().unwrap().status,
            HeldOutStatus::Pass
        );
        assert!(recover(&c).unwrap().is_empty());
    }
}
