//! When a warm-up is done: by time and by stability, not by a count. A GPU that idles at a
//! few hundred MHz needs a fraction of a second of work before its clocks settle, so a
//! warm-up of a few dispatches times a cold device (docs/performance.md, "Timing on a
//! GPU"), and within-run stddev cannot reveal a run that was timed while the clocks were
//! still rising.
//! So each timed step dispatches until a minimum wall time has passed and the last samples
//! agree within a tolerance, and gives up settling at a cap (recorded as not settled).

use std::time::Duration;

use kcamp_core::manifest::TimingConfig;

/// The warm-up stops trying to settle at this multiple of its minimum (kept in the manifest's
/// `TimingConfig`, so that the reports describe the same rule).
const CAP_FACTOR: f64 = TimingConfig::WARMUP_CAP_FACTOR;
/// Samples that must agree within the tolerance.
const SETTLE_SAMPLES: usize = TimingConfig::WARMUP_SETTLE_SAMPLES;
/// Warm-up samples aim at this fraction of the minimum time each, so several fit in it.
const SAMPLES_PER_MINIMUM: f64 = 10.0;

/// How long one timed step warms up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WarmupPlan {
    pub min: Duration,
    pub cap: Duration,
    pub min_dispatches: u64,
    pub tolerance: f64,
}

impl WarmupPlan {
    pub(crate) fn new(timing: &TimingConfig, software: bool) -> WarmupPlan {
        let min_ms = timing.warmup_min_ms(software);
        WarmupPlan {
            min: Duration::from_secs_f64(min_ms / 1e3),
            cap: Duration::from_secs_f64(min_ms * CAP_FACTOR / 1e3),
            min_dispatches: u64::from(timing.warmup.max(1)),
            tolerance: timing.warmup_tolerance,
        }
    }

    /// The duration one warm-up sample aims at, in ms.
    pub(crate) fn sample_ms(&self) -> f64 {
        (self.min.as_secs_f64() * 1e3 / SAMPLES_PER_MINIMUM).max(0.05)
    }
}

/// The warm-up samples of one kernel: time per dispatch of each sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Settle {
    pub per_dispatch_ms: Vec<f64>,
    pub dispatches: u64,
}

impl Settle {
    pub(crate) fn push(&mut self, total_ms: f64, dispatches: u64) {
        self.dispatches += dispatches;
        self.per_dispatch_ms
            .push(total_ms / dispatches.max(1) as f64);
    }

    /// The last [`SETTLE_SAMPLES`] samples agree within `tolerance` (max/min − 1).
    pub(crate) fn settled(&self, tolerance: f64) -> bool {
        let n = self.per_dispatch_ms.len();
        if n < SETTLE_SAMPLES {
            return false;
        }
        let last = &self.per_dispatch_ms[n - SETTLE_SAMPLES..];
        let lo = last.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = last.iter().copied().fold(0.0, f64::max);
        lo > 0.0 && hi / lo - 1.0 <= tolerance
    }

    /// The last samples, for the record.
    pub(crate) fn last(&self) -> Vec<f64> {
        let n = self.per_dispatch_ms.len();
        self.per_dispatch_ms[n.saturating_sub(SETTLE_SAMPLES)..].to_vec()
    }
}

/// What to do after a round of warm-up samples of every kernel, `elapsed` since it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Continue,
    Settled,
    /// The cap passed without the samples agreeing.
    GaveUp,
}

pub(crate) fn next(plan: &WarmupPlan, kernels: &[Settle], elapsed: Duration) -> Next {
    let enough = kernels.iter().all(|k| k.dispatches >= plan.min_dispatches);
    if !enough {
        return Next::Continue;
    }
    if elapsed >= plan.min && kernels.iter().all(|k| k.settled(plan.tolerance)) {
        Next::Settled
    } else if elapsed >= plan.cap {
        Next::GaveUp
    } else {
        Next::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> WarmupPlan {
        WarmupPlan::new(&TimingConfig::default(), false)
    }

    fn settle(samples: &[f64]) -> Settle {
        let mut s = Settle::default();
        for ms in samples {
            s.push(*ms * 10.0, 10);
        }
        s
    }

    #[test]
    fn defaults_are_by_time_on_a_gpu_and_shorter_on_a_cpu() {
        let p = plan();
        assert_eq!(p.min, Duration::from_millis(200));
        assert_eq!(p.cap, Duration::from_secs(2));
        assert_eq!(p.min_dispatches, 3);
        let soft = WarmupPlan::new(&TimingConfig::default(), true);
        assert_eq!(soft.min, Duration::from_millis(20));
        assert!((p.sample_ms() - 20.0).abs() < 1e-9);
    }

    #[test]
    fn a_clock_that_is_still_rising_is_not_settled_however_many_dispatches() {
        // Per-dispatch time falling 10% a sample: the GPU is still clocking up.
        let rising = settle(&[3.0, 2.7, 2.43, 2.19, 1.97]);
        assert!(!rising.settled(0.02));
        let ms = |m| Duration::from_millis(m);
        assert_eq!(
            next(&plan(), std::slice::from_ref(&rising), ms(500)),
            Next::Continue
        );
        assert_eq!(next(&plan(), &[rising], ms(2000)), Next::GaveUp);
    }

    #[test]
    fn agreeing_samples_settle_only_after_the_minimum_time() {
        let steady = settle(&[2.0, 1.0, 1.01, 0.995, 1.005]);
        assert!(steady.settled(0.02));
        let last = steady.last();
        assert_eq!(last.len(), 3);
        assert!((last[1] - 0.995).abs() < 1e-12, "{last:?}");
        let ms = |m| Duration::from_millis(m);
        assert_eq!(
            next(&plan(), std::slice::from_ref(&steady), ms(50)),
            Next::Continue
        );
        assert_eq!(
            next(&plan(), std::slice::from_ref(&steady), ms(200)),
            Next::Settled
        );
        // Paired: both kernels must have settled.
        let rising = settle(&[3.0, 2.7, 2.43]);
        assert_eq!(next(&plan(), &[steady, rising], ms(300)), Next::Continue);
    }

    #[test]
    fn the_dispatch_count_is_a_floor() {
        let mut p = plan();
        p.min_dispatches = 300;
        let steady = settle(&[1.0, 1.0, 1.0]);
        assert_eq!(steady.dispatches, 30);
        assert_eq!(
            next(&p, &[steady], Duration::from_secs(5)),
            Next::Continue,
            "not even the cap ends a warm-up below its dispatch floor"
        );
    }
}
