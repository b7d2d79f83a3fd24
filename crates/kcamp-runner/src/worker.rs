//! The worker side of the protocol (`kcamp __worker`): one `CaseSpec` JSON per stdin line;
//! for each, `{"progress": ProgressEvent}` lines as they come and a final
//! `{"outcome": CaseOutcome}`, each flushed at once. Exits on EOF.

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use kcamp_core::case::{CaseExecutor, CaseOutcome, CaseSpec, EnvironmentFault, ProgressEvent};
use kcamp_core::error::IoContext;
use kcamp_core::manifest::AdapterSelector;
use kcamp_core::types::Check;
use kcamp_core::{Error, Result};

/// One line the worker writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerMessage {
    /// The adapter is open: what the worker does from here on is the kernel's. Sent once,
    /// before the first case's own events; a worker that dies before it is the machine's
    /// failure, not the kernel's.
    Opened,
    Progress(ProgressEvent),
    Outcome(Box<CaseOutcome>),
}

/// Serve cases from `input` until EOF. The executor is made once, lazily on the first
/// case, from that case's adapter selector, and reused; if it cannot be made, every case
/// is answered `ERROR` with the reason (the parent keeps going either way).
pub fn serve(
    input: impl BufRead,
    mut output: impl Write,
    make_executor: &mut dyn FnMut(&AdapterSelector) -> Result<Box<dyn CaseExecutor>>,
) -> Result<()> {
    type Opened = std::result::Result<Box<dyn CaseExecutor>, (String, EnvironmentFault)>;
    let mut executor: Option<Opened> = None;
    for (number, line) in input.lines().enumerate() {
        let line = line.ctx(|| "reading a case from stdin".to_owned())?;
        if line.trim().is_empty() {
            continue;
        }
        let spec: CaseSpec = serde_json::from_str(&line).map_err(|e| {
            Error::input(format!("worker stdin line {}: not a case: {e}", number + 1))
        })?;
        let ready = executor.get_or_insert_with(|| {
            let made = make_executor(&spec.adapter).map_err(|e| {
                // A selection that matches none of the adapters found is the user's input.
                let fault = if matches!(e.cause(), Error::Input(_)) {
                    EnvironmentFault::Selection
                } else {
                    EnvironmentFault::Machine
                };
                (format!("cannot open the GPU: {e}"), fault)
            });
            if made.is_ok() {
                let _ = write_message(&mut output, &WorkerMessage::Opened);
            }
            made
        });
        let outcome = match ready {
            Ok(exec) => {
                // A write error here means the parent is gone; the outcome write below
                // reports it.
                let mut progress = |event| {
                    let _ = write_message(&mut output, &WorkerMessage::Progress(event));
                };
                exec.execute(&spec, &mut progress)
            }
            Err((reason, fault)) => {
                let mut o = CaseOutcome::without_measurement(&spec, Check::Error, reason.clone());
                o.environment = Some(*fault);
                o
            }
        };
        write_message(&mut output, &WorkerMessage::Outcome(Box::new(outcome)))?;
    }
    Ok(())
}

fn write_message(output: &mut impl Write, message: &WorkerMessage) -> Result<()> {
    let mut line = serde_json::to_string(message)
        .map_err(|e| Error::Internal(format!("serializing a worker message: {e}")))?;
    line.push('\n');
    output
        .write_all(line.as_bytes())
        .and_then(|()| output.flush())
        .ctx(|| "writing to the parent (stdout)".to_owned())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use kcamp_core::manifest::{KernelSpec, TimingConfig, WorkgroupExprs};
    use kcamp_core::types::{Dtype, OpName, ShapeSpec};

    fn spec(label: &str) -> CaseSpec {
        CaseSpec {
            op: OpName::Axpy,
            dtype: Dtype::F32,
            shape: ShapeSpec {
                label: label.into(),
                dims: BTreeMap::from([("N".to_owned(), 1024)]),
            },
            kernel_path: PathBuf::from("kernel/axpy.wgsl"),
            kernel_source: "// wgsl".into(),
            kernel: KernelSpec {
                file: "axpy.wgsl".into(),
                entry_points: BTreeMap::new(),
                workgroups: WorkgroupExprs {
                    x: "ceil(N/64)".into(),
                    y: "1".into(),
                    z: "1".into(),
                },
                bindings: BTreeMap::new(),
                trusted: false,
                checks: None,
                aligned: None,
            },
            adapter: AdapterSelector::default(),
            timing: TimingConfig::default(),
            seed: 7,
            paired: None,
            check_only: false,
            driver_statistics: false,
        }
    }

    /// Passes every case after one progress event; counts how often it was made.
    struct Echo;

    impl CaseExecutor for Echo {
        fn execute(
            &mut self,
            spec: &CaseSpec,
            progress: &mut dyn FnMut(ProgressEvent),
        ) -> CaseOutcome {
            progress(ProgressEvent::Sample {
                label: spec.shape.label.clone(),
                pass: "forward".into(),
                repeat: 1,
                repeats: 1,
                ms: 0.25,
            });
            let mut o = CaseOutcome::without_measurement(spec, Check::Pass, "");
            o.reason = None;
            o
        }
    }

    fn input(labels: &[&str]) -> String {
        labels
            .iter()
            .map(|l| serde_json::to_string(&spec(l)).unwrap() + "\n")
            .collect()
    }

    fn messages(out: &[u8]) -> Vec<WorkerMessage> {
        String::from_utf8(out.to_vec())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn answers_each_case_with_progress_then_outcome_and_opens_once() {
        let mut opened = 0;
        let mut make = |_: &AdapterSelector| -> Result<Box<dyn CaseExecutor>> {
            opened += 1;
            Ok(Box::new(Echo))
        };
        let mut out = Vec::new();
        serve(input(&["a", "b"]).as_bytes(), &mut out, &mut make).unwrap();
        assert_eq!(opened, 1);
        let msgs = messages(&out);
        assert_eq!(msgs.len(), 5);
        assert_eq!(msgs[0], WorkerMessage::Opened);
        assert!(
            matches!(&msgs[1], WorkerMessage::Progress(ProgressEvent::Sample { label, .. }) if label == "a")
        );
        assert!(
            matches!(&msgs[2], WorkerMessage::Outcome(o) if o.label == "a" && o.check == Check::Pass && o.environment.is_none())
        );
        assert!(
            matches!(&msgs[4], WorkerMessage::Outcome(o) if o.label == "b" && o.dims == vec![1024])
        );
        let first = String::from_utf8(out).unwrap();
        assert!(
            first.starts_with("\"opened\"\n{\"progress\":{\"event\":\"sample\""),
            "{first}"
        );
    }

    #[test]
    fn an_executor_that_cannot_open_answers_error_for_every_case() {
        let mut make = |_: &AdapterSelector| -> Result<Box<dyn CaseExecutor>> {
            Err(Error::input(
                "no adapter matches 'no-such-adapter-kcamp-test'",
            ))
        };
        let mut out = Vec::new();
        serve(input(&["a", "b"]).as_bytes(), &mut out, &mut make).unwrap();
        let msgs = messages(&out);
        assert_eq!(msgs.len(), 2);
        for m in msgs {
            let WorkerMessage::Outcome(o) = m else {
                panic!("expected an outcome")
            };
            assert_eq!(o.check, Check::Error);
            assert_eq!(o.environment, Some(EnvironmentFault::Selection));
            assert!(o.reason.unwrap().contains("no-such-adapter-kcamp-test"));
            assert_eq!(o.seed, 7);
        }
    }

    #[test]
    fn no_adapter_at_all_is_the_machines_fault_not_the_kernels() {
        let mut make = |_: &AdapterSelector| -> Result<Box<dyn CaseExecutor>> {
            Err(Error::Gpu("adapters found: none".into()))
        };
        let mut out = Vec::new();
        serve(input(&["a"]).as_bytes(), &mut out, &mut make).unwrap();
        let msgs = messages(&out);
        assert!(
            matches!(&msgs[..], [WorkerMessage::Outcome(o)] if o.environment == Some(EnvironmentFault::Machine)),
            "{msgs:?}"
        );
    }

    #[test]
    fn a_malformed_case_line_is_an_error_naming_the_line() {
        let mut make =
            |_: &AdapterSelector| -> Result<Box<dyn CaseExecutor>> { Ok(Box::new(Echo)) };
        let text = input(&["a"]) + "{not json\n";
        let err = serve(text.as_bytes(), Vec::new(), &mut make).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}
