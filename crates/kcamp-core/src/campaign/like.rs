//! Like for like: a measurement is judged against the incumbent's numbers from the same run
//! when the measurer paired them, else against the incumbent's recorded rows, and then only
//! when both fingerprints agree on everything that changes the numbers. Used by `validate`
//! (against the incumbent) and `report` (against the BASELINE).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::layout::Campaign;
use super::measure::Measured;
use crate::artifacts::fingerprint::{
    Difference, Fingerprint, HarnessIdentity, describe_differences,
};
use crate::files::{BENCHMARK_CSV, SAMPLES_CSV};
use crate::gate::{
    GateInput, GateReport, PairedUnit, Reason, ReasonKind, ShapeClass, Verdict, judge,
};
use crate::schema::{BenchTable, Samples, ShapeKey};
use crate::types::Check;
use crate::{Error, Result};

/// How the note on a paired measurement starts: it says how the numbers were taken, not why
/// the verdict is what it is (a refusal leaves it out).
pub(crate) const PAIRED_NOTE: &str = "paired: ";

/// How the incumbent's side of a verdict was measured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pairing {
    /// Round `round`'s snapshot re-measured in the same run, samples alternating A B B A.
    Interleaved { round: u32 },
    /// Round `round`'s snapshot re-measured by the harness in the same sitting, one run
    /// after the other: recorded by kcamp before harness runs were interleaved.
    SameRun { round: u32 },
    /// Judged against recorded rows.
    Unpaired { reason: String },
}

/// One side's fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundFingerprint {
    pub round: u32,
    pub fingerprint: Fingerprint,
}

/// What `gate.json` records about the two sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LikeForLike {
    pub pairing: Pairing,
    pub candidate: Fingerprint,
    /// The incumbent's side: this run's when paired, else each round whose rows were used.
    pub incumbent: Vec<RoundFingerprint>,
    /// Unpaired only: what differs between the sides; non-empty means NEEDS_REMEASURE.
    pub differences: Vec<Difference>,
}

impl LikeForLike {
    pub fn comparable(&self) -> bool {
        self.differences.is_empty()
    }
}

/// A verdict and what it rests on.
pub(crate) struct Judged {
    pub report: GateReport,
    pub like: LikeForLike,
    /// Shapes judged against an older round than the reference one, each naming its
    /// shape.
    pub reference_notes: Vec<Reason>,
}

/// What the measurement is judged against.
pub(crate) struct Against<'a> {
    /// The round whose snapshot a paired measurement re-measured, and whose rows come first.
    pub round: u32,
    /// Rounds whose rows may stand in for shapes `round` did not measure, newest first.
    pub older: &'a [u32],
    pub keys: &'a BTreeSet<ShapeKey>,
    pub frozen: &'a str,
    /// The command that re-measures like for like, for a NEEDS_REMEASURE reason.
    pub remeasure: String,
}

/// Judge `measured` like for like; a fingerprint mismatch turns the verdict into
/// NEEDS_REMEASURE naming both sides, what differs and the command that re-measures.
pub(crate) fn judge_like_for_like(
    c: &Campaign,
    measured: &Measured,
    against: &Against<'_>,
) -> Result<Judged> {
    let config = &c.manifest.gate;
    let metric = &c.manifest.primary_metric;
    let (reference, samples, notes, rounds, pairing) = match &measured.paired {
        Some(side) => (
            side.table.clone(),
            side.samples.clone(),
            Vec::new(),
            Vec::new(),
            Pairing::Interleaved {
                round: against.round,
            },
        ),
        None => {
            let (table, samples, notes, rounds) = reference_rows(c, against)?;
            let reason = measured
                .unpaired_because
                .clone()
                .unwrap_or_else(|| "gate.paired is false in manifest.yaml".to_owned());
            (table, samples, notes, rounds, Pairing::Unpaired { reason })
        }
    };
    let interleaved = matches!(pairing, Pairing::Interleaved { .. });
    let mut report = judge(&GateInput {
        incumbent: &reference,
        candidate: &measured.table,
        incumbent_samples: samples.as_ref(),
        candidate_samples: measured.samples.as_ref(),
        metric,
        config,
        paired: interleaved,
        // One A B B A of the built-in runner's repeats; a harness's unit is its pair.
        repeats_per_block: match measured.fingerprint.harness {
            HarnessIdentity::Builtin => 2,
            _ => 1,
        },
    })?;
    let recorded = |n: u32| -> Result<Fingerprint> {
        // A round without fingerprint.json or result.json was an import of older kcamp.
        Ok(Fingerprint::read(&c.artifacts_dir(n))?
            .unwrap_or_else(|| Fingerprint::external(HarnessIdentity::Imported)))
    };
    let mut like = LikeForLike {
        pairing: pairing.clone(),
        candidate: measured.fingerprint.clone(),
        incumbent: Vec::new(),
        differences: Vec::new(),
    };
    let mut lead = Vec::new();
    match &pairing {
        // This run's pairing is never `SameRun`: that kind is only read from older records.
        Pairing::Interleaved { round } | Pairing::SameRun { round } => {
            // The incumbent's side ran in this run, compiled with its own snapshot's
            // runtime checks where the measurer recorded them.
            let mut side = measured.fingerprint.clone();
            if let Some(checks) = measured.paired.as_ref().and_then(|p| p.checks) {
                side.runtime_checks = Some(checks);
            }
            like.incumbent.push(RoundFingerprint {
                round: *round,
                fingerprint: side.clone(),
            });
            lead.push(Reason::new(
ReasonKind::Method,
if !report.paired {
                // Interleaved, yet no shape had two paired ratios to judge (a candidate
                // that failed everywhere): the note must not claim what the table does not.
                format!(
                    "{PAIRED_NOTE}round {round}'s kernel snapshot was re-measured in this run, its samples alternating with the candidate's, but no shape passed on both sides in two repeats or more, so none was judged on paired ratios."
                )
            } else {
                let unit = match report.aggregate.unit {
                    Some(PairedUnit::Block) => "A B B A blocks (each side's best sample in a block)",
                    _ if matches!(measured.fingerprint.harness, HarnessIdentity::Builtin) => {
                        "pairs (one repeat each: fewer than 5 A B B A blocks per shape)"
                    }
                    _ => "pairs (one pair of invocations each)",
                };
                format!(
                    "{PAIRED_NOTE}round {round}'s kernel snapshot was re-measured in this run, its samples alternating with the candidate's (A B B A); Δ and bands come from the ratios of its {unit}, the independent units of the test, their median, so a single stray unit can move the mean columns but not Δ; the incumbent column is this run's (round {round}'s own numbers stay in its round)."
                )
            }));
            if side.runtime_checks != measured.fingerprint.runtime_checks {
                let mode = |f: &Fingerprint| f.runtime_checks.map_or("unknown", |c| c.as_str());
                lead.push(Reason::new(
ReasonKind::Method,
format!(
                    "runtime checks: the candidate was compiled with `{}`, round {round}'s snapshot with its own `{}` (each kernel's settings travel with it), so the checks mode is part of the change judged here.",
                    mode(&measured.fingerprint),
                    mode(&side)
                )));
            }
            let then = recorded(*round)?;
            let differ = then.differences(&side);
            if !differ.is_empty() {
                lead.push(Reason::new(
ReasonKind::Method,
format!(
                    "round {round} itself was measured as {}; its side of this verdict was measured as {} ({}).",
                    then.summary(),
                    side.summary(),
                    describe_differences(&differ)
                )));
            }
        }
        Pairing::Unpaired { reason } => {
            for n in rounds {
                let f = recorded(n)?;
                let differ = f.differences(&measured.fingerprint);
                for d in differ {
                    if !like.differences.contains(&d) {
                        like.differences.push(d);
                    }
                }
                like.incumbent.push(RoundFingerprint {
                    round: n,
                    fingerprint: f,
                });
            }
            if like.comparable() {
                lead.push(Reason::new(
ReasonKind::Method,
format!(
                    "unpaired ({reason}): judged against the recorded numbers of round {}; drift between the two runs is not in the band.",
                    against.round
                )));
            } else {
                let inc = &like.incumbent[0];
                // The checks mode is the kernel's setting, not the run's: measuring again
                // as the command says would only repeat the difference.
                let remeasure = match like
                    .differences
                    .iter()
                    .find(|d| d.field == "runtime checks")
                {
                    Some(d) => format!(
                        "set the kernel's runtime checks back to `{}` (`checks` or `trusted` in kernel/kernel.yaml, else in the manifest's `kernel:` section), then {}",
                        d.incumbent, against.remeasure
                    ),
                    None => against.remeasure.clone(),
                };
                lead.push(not_like_for_like(
                    &mut report,
                    (&format!("round {}", inc.round), &inc.fingerprint),
                    ("the candidate", &measured.fingerprint),
                    &like.differences,
                    &format!("Re-measure like for like: {remeasure}."),
                ));
            }
        }
    }
    if report.aggregate.unstable {
        // The gate is pure; what the machine was doing is this run's context.
        let load = match &measured.fingerprint.load {
            Some(l) => format!(
                "the load average (1, 5, 15 min) was {} when the measurement started and {} when it ended",
                l.start, l.end
            ),
            None => "the load average was not recorded".to_owned(),
        };
        let at = report
            .reasons
            .iter()
            .position(|r| r.kind == ReasonKind::Aggregate)
            .map_or(report.reasons.len(), |i| i + 1);
        report.reasons.insert(
            at,
            Reason::new(
                ReasonKind::Aggregate,
                format!(
                    "unstable aggregate: {load}; work beside the measurement that comes and goes makes its units disagree. NEEDS_REMEASURE: validate again when the machine is quieter."
                ),
            ),
        );
    }
    lead.append(&mut report.reasons);
    report.reasons = lead.into();
    Ok(Judged {
        report,
        like,
        reference_notes: notes,
    })
}

/// The like-for-like rule, wherever two measurements are judged (a round against its
/// incumbent, `kcamp gate` on two CSVs): sides whose fingerprints differ are not compared.
/// The verdict becomes NEEDS_REMEASURE, unless a shape failed (wrong on any hardware: only
/// speed needs like for like), and the returned reason, which leads the others, names both
/// sides, what differs and what to do (`advice`).
pub fn not_like_for_like(
    report: &mut GateReport,
    (base, base_fp): (&str, &Fingerprint),
    (candidate, candidate_fp): (&str, &Fingerprint),
    differences: &[Difference],
    advice: &str,
) -> Reason {
    if !report.shapes.iter().any(|s| s.class == ShapeClass::Failed) {
        report.verdict = Verdict::NeedsRemeasure;
    }
    Reason::new(
        ReasonKind::Comparison,
        format!(
            "not like for like: {base} was measured as {}, {candidate} as {}; they differ in {}. {advice}",
            base_fp.summary(),
            candidate_fp.summary(),
            describe_differences(differences),
        ),
    )
}

/// Reference rows for the measured shapes: `against.round`'s row where it measured the
/// shape, else the newest of `against.older` that did (an incumbent accepted on a quick
/// validation has only the representative shapes). Also the rounds whose rows were used.
#[allow(clippy::type_complexity)]
fn reference_rows(
    c: &Campaign,
    against: &Against<'_>,
) -> Result<(BenchTable, Option<Samples>, Vec<Reason>, Vec<u32>)> {
    let mut rows = Vec::new();
    let mut samples = Samples::default();
    let mut any_samples = true;
    let mut notes = Vec::new();
    let mut used = Vec::new();
    let mut schema = None;
    let mut remaining: BTreeSet<ShapeKey> = against.keys.clone();
    let lineage = std::iter::once(against.round).chain(against.older.iter().copied());
    for n in lineage {
        if remaining.is_empty() {
            break;
        }
        let adir = c.artifacts_dir(n);
        let table = BenchTable::read_frozen(&adir.join(BENCHMARK_CSV), against.frozen)?;
        let round_samples = if adir.join(SAMPLES_CSV).is_file() {
            Some(Samples::read_for(&adir.join(SAMPLES_CSV), &table)?)
        } else {
            None
        };
        let mut took = false;
        for row in &table.rows {
            let key = row.shape_key();
            if remaining.remove(&key) {
                took = true;
                if n != against.round {
                    notes.push(
                        Reason::new(
                            ReasonKind::Method,
                            format!(
                                "shape '{}' judged against round {n}, the newest accepted round that measured it",
                                row.label
                            ),
                        )
                        .with_shapes([row.label.clone()]),
                    );
                }
                match &round_samples {
                    Some(s) => samples
                        .rows
                        .extend(s.rows.iter().filter(|r| r.label == row.label).cloned()),
                    None => any_samples = false,
                }
                rows.push(row.clone());
            }
        }
        if took {
            used.push(n);
        }
        schema.get_or_insert(table.schema);
    }
    if let Some(missing) = remaining.iter().next() {
        return Err(Error::State(format!(
            "no accepted round measured shape '{}'",
            missing.label
        )));
    }
    let schema = schema.ok_or_else(|| Error::State("the lineage holds no measurement".into()))?;
    Ok((
        BenchTable { schema, rows },
        any_samples.then_some(samples),
        notes,
        used,
    ))
}

/// Shapes checked untimed that do not PASS, as `label (CHECK)`: their reasons are in the
/// validation's failures.
pub(crate) fn failed_checks(measured: &Measured) -> Vec<String> {
    measured
        .checked
        .iter()
        .filter(|s| s.check != Check::Pass)
        .map(|s| format!("{} ({})", s.label, s.check.as_str()))
        .collect()
}

/// The command that re-measures the candidate like the incumbent's recorded side.
pub(crate) fn remeasure_command(
    c: &Campaign,
    verb: &str,
    incumbent: Option<&Fingerprint>,
    candidate_imported: bool,
) -> String {
    let paired_off = !c.manifest.gate.paired;
    match incumbent {
        _ if candidate_imported => match incumbent {
            Some(f) => format!(
                "`{verb} --csv FILE` with a CSV measured like the incumbent ({})",
                f.summary()
            ),
            None => format!("`{verb} --csv FILE` with a CSV measured like the incumbent"),
        },
        Some(f) if f.harness == HarnessIdentity::Builtin => {
            let mut cmd = match &f.adapter {
                Some(a) => format!(
                    "`{verb} --adapter '{}' --backend {}`",
                    a.name.replace('\'', ""),
                    a.backend
                ),
                None => format!("`{verb}`"),
            };
            if paired_off {
                cmd.push_str(", or remove `gate.paired: false` from manifest.yaml so that the incumbent is re-measured beside the candidate");
            }
            cmd
        }
        _ => format!(
            "`{verb}` with the campaign's harness (a harness command that takes {{kernel_dir}} re-measures the incumbent beside the candidate)"
        ),
    }
}
