//! A step's progress events (the ones `live/progress.json` is written from) as MCP progress
//! notifications: a value that only grows, over the shapes of the step's runs, and a line
//! that says what is being done. Shapes are named by their labels only (a held-out shape's
//! label says nothing of its dimensions).

use std::time::{Duration, Instant};

use kcamp_core::case::ProgressEvent;

/// Timed samples are sent at most this often.
const MIN_INTERVAL: Duration = Duration::from_millis(200);

/// One notification to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub progress: f64,
    pub total: f64,
    pub message: String,
}

/// Follows the events of one step, which may make several runs (accept: the confirming
/// validation, then the held-out check): each run's shapes follow the previous run's.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Shapes of the runs before this one.
    offset: f64,
    /// Shapes of this run.
    shapes: f64,
    /// Shapes of this run finished.
    done: f64,
    /// A shape of this run is being run.
    in_shape: bool,
    /// Events seen inside the current shape.
    within: u32,
    /// The last value sent.
    last: Option<f64>,
    last_sent: Option<Instant>,
}

impl Tracker {
    /// The notification `event` calls for, if any: its value above the last one sent, and
    /// for timed samples only every [`MIN_INTERVAL`].
    pub fn observe(&mut self, event: &ProgressEvent) -> Option<Notice> {
        let (message, urgent) = match event {
            ProgressEvent::RunStarted { total_shapes } => {
                self.offset = self.last.map_or(0.0, f64::ceil);
                self.shapes = *total_shapes as f64;
                self.done = 0.0;
                self.in_shape = false;
                self.within = 0;
                (format!("started: {total_shapes} shape(s) to run"), true)
            }
            ProgressEvent::ShapeStarted {
                index,
                total,
                label,
            } => {
                self.done = *index as f64;
                self.in_shape = true;
                self.within = 0;
                (format!("[{}/{total}] {label}", index + 1), true)
            }
            ProgressEvent::Phase { label, phase } => {
                self.within += 1;
                // Few, and each says where a long step is: never dropped.
                (format!("{label}: {phase}"), true)
            }
            ProgressEvent::Sample {
                label,
                pass,
                repeat,
                repeats,
                ms,
            } => {
                self.within += 1;
                (
                    format!("{label}: {pass} sample {repeat}/{repeats}, {ms:.3} ms"),
                    false,
                )
            }
            ProgressEvent::ShapeFinished {
                index,
                label,
                check,
                ..
            } => {
                self.done = *index as f64 + 1.0;
                self.in_shape = false;
                self.within = 0;
                (format!("{label}: {}", check.as_str()), true)
            }
            ProgressEvent::WorkerRestarted { label, reason } => {
                (format!("{label}: worker restarted: {reason}"), true)
            }
            ProgressEvent::RunFinished { passed, total } => {
                self.done = *total as f64;
                self.in_shape = false;
                self.within = 0;
                (format!("finished: {passed}/{total} shape(s) PASS"), true)
            }
        };
        // Inside a shape the value creeps towards the next shape without reaching it.
        let within = if self.in_shape {
            0.01 + 0.98 * (1.0 - 1.0 / (f64::from(self.within) + 1.0))
        } else {
            0.0
        };
        let mut progress = self.offset + self.done + within;
        let due = urgent || self.last_sent.is_none_or(|t| t.elapsed() >= MIN_INTERVAL);
        if !due {
            return None;
        }
        if let Some(last) = self.last.filter(|last| progress <= *last) {
            // The end of a run says nothing its last shape did not; anything else (a phase
            // before the first shape) is said with a value that still grows.
            if matches!(event, ProgressEvent::RunFinished { .. }) {
                return None;
            }
            progress = last + 0.001;
        }
        self.last = Some(progress);
        self.last_sent = Some(Instant::now());
        Some(Notice {
            progress,
            total: self.offset + self.shapes,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcamp_core::types::Check;

    #[test]
    fn the_value_only_grows_over_the_runs_of_a_step() {
        let mut t = Tracker::default();
        let mut sent = Vec::new();
        let mut feed = |t: &mut Tracker, e: ProgressEvent| {
            if let Some(n) = t.observe(&e) {
                sent.push(n);
            }
        };
        for run in 0..2 {
            feed(&mut t, ProgressEvent::RunStarted { total_shapes: 2 });
            feed(
                &mut t,
                ProgressEvent::Phase {
                    label: format!("s{run}0"),
                    phase: "compiling the kernels in a worker of their own".into(),
                },
            );
            for index in 0..2 {
                let label = format!("s{run}{index}");
                feed(
                    &mut t,
                    ProgressEvent::ShapeStarted {
                        index,
                        total: 2,
                        label: label.clone(),
                    },
                );
                feed(
                    &mut t,
                    ProgressEvent::Phase {
                        label: label.clone(),
                        phase: "compiling the kernel".into(),
                    },
                );
                feed(
                    &mut t,
                    ProgressEvent::ShapeFinished {
                        index,
                        label,
                        check: Check::Pass,
                        primary: None,
                    },
                );
            }
            feed(
                &mut t,
                ProgressEvent::RunFinished {
                    passed: 2,
                    total: 2,
                },
            );
        }
        assert!(
            sent.windows(2).all(|w| w[1].progress > w[0].progress),
            "{sent:?}"
        );
        let last = sent.last().unwrap();
        assert_eq!((last.progress, last.total), (4.0, 4.0));
        assert!(sent.iter().any(|n| n.message == "[1/2] s00"), "{sent:?}");
        assert!(
            sent.iter()
                .any(|n| n.message == "s00: compiling the kernel")
        );
        assert!(sent.iter().any(|n| n.message == "s11: PASS"));
        assert!(
            sent.iter()
                .any(|n| n.message == "s10: compiling the kernels in a worker of their own")
        );
        assert!(sent.iter().all(|n| n.progress <= n.total), "{sent:?}");
    }
}
