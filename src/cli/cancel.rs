//! Graceful cancellation of the commands that measure (docs/reliability.md, "Cancelling"):
//! SIGINT (Ctrl-C), SIGTERM (the dashboard's Esc and quit, `kill`) and SIGHUP (a closed
//! terminal) set one flag; the runner sees it within 50 ms, kills every worker it started
//! (their own process groups included), the command removes its staging directories, resets
//! `live/progress.json`, journals `cancelled` and exits with code 2
//! (`{"error": {"kind": "cancelled"}}`).
//!
//! A second signal while the first is being handled ends the process at once, so a command
//! that is stuck can still be stopped. Commands that do not measure keep the default
//! disposition (a Ctrl-C ends them immediately).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use kcamp_core::case::ProgressEvent;
use kcamp_core::error::exit;
use kcamp_core::{Error, Result};

use super::Ctx;

/// How a step run for someone other than a terminal (the MCP server) is stopped and
/// followed: its own cancel flag in place of the signal handlers (set, it stops the step as
/// a Ctrl-C does), and every progress event of its runs.
#[derive(Clone)]
pub struct StepHooks {
    pub cancel: Arc<AtomicBool>,
    pub progress: Arc<dyn Fn(&ProgressEvent) + Send + Sync>,
}

impl std::fmt::Debug for StepHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepHooks")
            .field("cancel", &self.cancel)
            .finish_non_exhaustive()
    }
}

/// The flag that stops a measuring step: its hooks' flag, else one SIGINT, SIGTERM and
/// SIGHUP set.
pub fn flag(ctx: &Ctx) -> Result<Arc<AtomicBool>> {
    match &ctx.step {
        Some(hooks) => Ok(Arc::clone(&hooks.cancel)),
        None => on_signals(),
    }
}

/// Install the handlers and return the flag they set.
pub fn on_signals() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        // Registered first, so it sees the flag as the previous signal left it: set means
        // this is the second signal.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            exit::BAD_INPUT,
            Arc::clone(&flag),
        )
        .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&flag)))
        .map_err(|e| Error::io(format!("installing the handler of signal {signal}"), e))?;
    }
    Ok(flag)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;

    #[test]
    fn a_signal_sets_the_flag_instead_of_ending_the_process() {
        let flag = on_signals().unwrap();
        assert!(!flag.load(Ordering::SeqCst));
        // SAFETY: raise(3) sends a signal to this process and touches no memory.
        unsafe {
            libc::raise(SIGHUP);
        }
        assert!(flag.load(Ordering::SeqCst));
    }
}
