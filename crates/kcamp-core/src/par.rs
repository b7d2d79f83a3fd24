//! Two halves of one job on two CPUs: the gate's reading, judging and writing of large
//! tables.
//!
//! A thread spawned for a few milliseconds of work is not reliably run beside its parent: on
//! a 2-vCPU virtual machine the scheduler usually queues it behind the parent on the parent's
//! CPU, where it waits until the parent blocks, while the other CPU idles. The "parallel"
//! phase then takes as long as both halves in turn, or longer
//! (`scripts/gate-perf/two-threads.rs` and README.md there). So the parent yields its CPU
//! once, and the new thread moves itself off that CPU and then gives its affinity back: it is
//! not pinned, and the scheduler may move it again as load changes.

/// Runs `left` on this thread and `right` on a new one started on another CPU, and returns
/// both results; a panic in `right` goes on in the caller.
pub fn join<A, B>(left: impl FnOnce() -> A, right: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    let parent = current_cpu();
    std::thread::scope(|scope| {
        let right = scope.spawn(move || {
            if let Some(cpu) = parent {
                leave_cpu(cpu);
            }
            right()
        });
        // The new thread is often queued behind this one on this CPU: give it the CPU
        // once, so that it can move itself away, instead of waiting for this half to end.
        std::thread::yield_now();
        let left = left();
        let right = right
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (left, right)
    })
}

/// The CPU this thread runs on now, where the platform says.
#[cfg(target_os = "linux")]
fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments and only reads the caller's CPU number.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).ok()
}

#[cfg(not(target_os = "linux"))]
fn current_cpu() -> Option<usize> {
    None
}

/// Move this thread to any CPU it may run on other than `cpu`, then allow it every CPU it
/// was allowed before. Returns the CPU it moved to (read while `cpu` was still excluded),
/// or None where nothing happened: `cpu` is the only one allowed, or a call failed.
#[cfg(target_os = "linux")]
fn leave_cpu(cpu: usize) -> Option<usize> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: cpu_set_t is plain bits (all zero is the empty set); the calls read and write
    // exactly `size` bytes of the sets passed, for this thread (pid 0).
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return None;
        }
        if cpu >= libc::CPU_SETSIZE as usize || !libc::CPU_ISSET(cpu, &allowed) {
            return None;
        }
        let mut elsewhere = allowed;
        libc::CPU_CLR(cpu, &mut elsewhere);
        if libc::CPU_COUNT(&elsewhere) == 0 {
            return None;
        }
        // Moving happens as the narrower set is applied; widening it again moves nothing.
        if libc::sched_setaffinity(0, size, &elsewhere) != 0 {
            return None;
        }
        let landed = current_cpu();
        libc::sched_setaffinity(0, size, &allowed);
        landed
    }
}

#[cfg(not(target_os = "linux"))]
fn leave_cpu(_cpu: usize) -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_halves_run_and_come_back_in_order() {
        let data: Vec<u64> = (1..=1000).collect();
        let (a, b) = join(
            || data[..500].iter().sum::<u64>(),
            || data[500..].iter().sum::<u64>(),
        );
        assert_eq!((a, b), (125_250, 375_250));
    }

    #[test]
    fn a_panic_on_the_new_thread_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("right half") }));
        let panic = caught.expect_err("the right half's panic");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"right half"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn leaving_a_cpu_moves_the_thread_where_another_is_allowed() {
        let Some(here) = current_cpu() else {
            return;
        };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: as in leave_cpu.
        let allowed = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            libc::CPU_COUNT(&set)
        };
        // On its own thread: the test harness's threads keep their affinity.
        let landed = std::thread::spawn(move || leave_cpu(here)).join().unwrap();
        if allowed >= 2 {
            let landed = landed.unwrap_or_else(|| panic!("{allowed} CPUs allowed, no move"));
            assert_ne!(landed, here, "{allowed} CPUs allowed");
        } else {
            assert_eq!(landed, None, "the only CPU allowed");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_new_thread_keeps_every_cpu_it_was_allowed() {
        let allowed = || {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: as in leave_cpu.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
                libc::CPU_COUNT(&set)
            }
        };
        let (parent, child) = join(allowed, allowed);
        assert_eq!(parent, child, "the move must not leave the thread pinned");
    }
}
