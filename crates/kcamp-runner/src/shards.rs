//! A run's cases spread over shards (docs/scale.md): the identical adapters of this machine
//! (`adapter: {all: true}`), or Slurm jobs (`executor.slurm.shards`). Each shard runs its
//! shapes through [`run_cases`] in a thread of its own, one worker at a time, every case
//! paired (A B B A) inside its own worker: a shape is never split across adapters. Shape
//! `i` goes to shard `i % n`; the outcomes come back in the order of the cases.

use std::ffi::OsString;
use std::sync::mpsc::channel;

use kcamp_core::case::{CaseOutcome, CaseSpec, ProgressEvent};
use kcamp_core::executor::shard_of_index;
use kcamp_core::types::{AdapterDescription, Check};
use kcamp_core::{Error, Result};

use crate::isolation::{CANCELLED_REASON, RunOptions, run_cases};

/// One shard: how its workers start, and which adapter they open.
#[derive(Debug, Clone)]
pub struct ShardPlan {
    pub opts: RunOptions,
    /// Put in every case's adapter selector: the adapter's position among the matching ones.
    pub adapter_index: Option<u32>,
}

/// A shard's event, with the index of its case among all the run's cases.
#[derive(Debug, Clone)]
pub struct ShardEvent {
    pub shard: usize,
    /// Translated to the run's numbering (a shard counts its own cases from 0).
    pub event: ProgressEvent,
}

/// The indices of the cases shard `shard` of `shards` runs.
pub fn cases_of(shard: usize, shards: usize, cases: usize) -> Vec<usize> {
    (0..cases)
        .filter(|i| shard_of_index(*i, shards) == shard)
        .collect()
}

/// Runs every shard's cases at once and returns one outcome per case (a case a cancel left
/// unrun is `ERROR "cancelled"`), with the shard of each.
pub fn run_sharded(
    specs: &[CaseSpec],
    plans: &[ShardPlan],
    on_event: &mut dyn FnMut(ShardEvent),
) -> (Vec<CaseOutcome>, Vec<usize>) {
    let n = plans.len().max(1);
    let (tx, rx) = channel::<ShardEvent>();
    let mut results: Vec<(usize, Vec<usize>, Vec<CaseOutcome>)> = Vec::new();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (shard, plan) in plans.iter().enumerate() {
            let indices = cases_of(shard, n, specs.len());
            let mine: Vec<CaseSpec> = indices
                .iter()
                .map(|&i| {
                    let mut s = specs[i].clone();
                    if let Some(a) = plan.adapter_index {
                        s.adapter.index = Some(a);
                        s.adapter.all = false;
                    }
                    s
                })
                .collect();
            let tx = tx.clone();
            // Workers die with the thread that started them: each shard starts and
            // supervises its own, here.
            handles.push(scope.spawn(move || {
                let global = indices.clone();
                let outcomes = run_cases(&mine, &plan.opts, &mut |event| {
                    let event = match event {
                        ProgressEvent::ShapeStarted { index, label, .. } => {
                            ProgressEvent::ShapeStarted {
                                index: global.get(index).copied().unwrap_or(index),
                                total: specs.len(),
                                label,
                            }
                        }
                        ProgressEvent::ShapeFinished {
                            index,
                            label,
                            check,
                            primary,
                        } => ProgressEvent::ShapeFinished {
                            index: global.get(index).copied().unwrap_or(index),
                            label,
                            check,
                            primary,
                        },
                        other => other,
                    };
                    let _ = tx.send(ShardEvent { shard, event });
                });
                (shard, indices, outcomes)
            }));
        }
        drop(tx);
        for e in rx {
            on_event(e);
        }
        for h in handles {
            if let Ok(r) = h.join() {
                results.push(r);
            }
        }
    });
    let mut outcomes: Vec<Option<CaseOutcome>> = vec![None; specs.len()];
    let mut shard_of = vec![0; specs.len()];
    for (shard, indices, got) in results {
        for (&i, o) in indices.iter().zip(got) {
            outcomes[i] = Some(o);
        }
        for &i in &indices {
            shard_of[i] = shard;
        }
    }
    let outcomes = outcomes
        .into_iter()
        .zip(specs)
        .map(|(o, spec)| {
            o.unwrap_or_else(|| {
                CaseOutcome::without_measurement(spec, Check::Error, CANCELLED_REASON)
            })
        })
        .collect();
    (outcomes, shard_of)
}

/// The adapters `adapter: {all: true}` shards over: those `kcamp adapters` lists for the
/// selector, which must be identical (name, backend, driver and its version, device ids);
/// otherwise an error that names how they differ.
pub fn identical_adapters(found: &[AdapterDescription], wanted: &str) -> Result<usize> {
    let Some(first) = found.first() else {
        return Err(Error::input(format!(
            "adapter: {{all: true}} found no adapter matching {wanted} (`kcamp adapters` lists them)"
        )));
    };
    let key = |a: &AdapterDescription| {
        (
            a.name.clone(),
            a.backend.clone(),
            a.driver.clone(),
            a.driver_info.clone(),
            a.vendor,
            a.device,
        )
    };
    if let Some(other) = found.iter().find(|a| key(a) != key(first)) {
        let show = |a: &AdapterDescription| {
            format!(
                "{} ({} backend, driver {} {}, ids {:#06x}:{:#06x})",
                a.name, a.backend, a.driver, a.driver_info, a.vendor, a.device
            )
        };
        return Err(Error::input(format!(
            "adapter: {{all: true}} shards a validation over identical adapters only, so that every shape is measured the same way, and {wanted} matches adapters that differ: {} and {}. Pin one kind with adapter.name and/or adapter.backend in manifest.yaml",
            show(first),
            show(other)
        )));
    }
    Ok(found.len())
}

/// The worker command of a shard that runs under Slurm: `srun … -- <worker>`.
pub fn wrapped(prefix: Vec<OsString>, worker: &[OsString]) -> Vec<OsString> {
    prefix.into_iter().chain(worker.iter().cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(backend: &str, driver: &str) -> AdapterDescription {
        AdapterDescription {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            backend: backend.into(),
            driver: driver.into(),
            driver_info: "Mesa 22.3.6".into(),
            vendor: 0x10005,
            software: true,
            ..Default::default()
        }
    }

    #[test]
    fn cases_are_dealt_round_robin() {
        assert_eq!(cases_of(0, 2, 5), [0, 2, 4]);
        assert_eq!(cases_of(1, 2, 5), [1, 3]);
        assert_eq!(cases_of(0, 1, 3), [0, 1, 2]);
    }

    #[test]
    fn only_identical_adapters_are_sharded_over() {
        let vk = adapter("vulkan", "llvmpipe");
        assert_eq!(
            identical_adapters(&[vk.clone(), vk.clone()], "*").unwrap(),
            2
        );
        let err = identical_adapters(&[vk.clone(), adapter("gl", "")], "name * and backend *")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("vulkan backend") && err.contains("gl backend"),
            "{err}"
        );
        assert!(err.contains("Pin one kind"), "{err}");
        assert!(identical_adapters(&[], "*").is_err());
    }
}
