//! One job on two CPUs: the gate's reading, judging and writing of large tables. [`join`]
//! runs two halves side by side; [`Pieces`] cuts a job into pieces the two halves take from
//! either end, so that neither waits for the other.
//!
//! A thread spawned for a few milliseconds of work is not reliably run beside its parent: on
//! a 2-vCPU virtual machine the scheduler usually queues it behind the parent on the parent's
//! CPU, where it waits until the parent blocks, while the other CPU idles. The "parallel"
//! phase then takes as long as both halves in turn, or longer
//! (`scripts/gate-perf/two-threads.rs` and README.md there). So the parent yields its CPU
//! once, and the new thread moves itself off that CPU and then gives its affinity back: it is
//! not pinned, and the scheduler may move it again as load changes.
//!
//! A command that joins several times ([`with_helper`]) starts that thread once, at its
//! beginning, and hands it each right half: a thread started, moved and ended per join cost
//! 0.07–0.13 ms of the gate's critical path, three times (medians, phase-timing build).

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

/// Runs `left` on this thread and `right` on another CPU, and returns both results; a panic
/// in either goes on in the caller, after both halves have ended. `right` goes to this
/// thread's helper when [`with_helper`] started one and it is free, else to a new thread.
pub fn join<A, B>(left: impl FnOnce() -> A, right: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    HELPER.with(|slot| {
        let slot = slot.borrow();
        // A join inside `left` finds the helper busy and starts a thread of its own instead
        // of waiting on the one it is already using.
        match slot.as_ref().filter(|helper| !helper.busy.replace(true)) {
            Some(helper) => {
                // Free again however the join ends: after a panic in either half the helper
                // is idle and takes the next one.
                struct Free<'a>(&'a Cell<bool>);
                impl Drop for Free<'_> {
                    fn drop(&mut self) {
                        self.0.set(false);
                    }
                }
                let _free = Free(&helper.busy);
                helper.join(left, right)
            }
            None => join_on_new_thread(left, right),
        }
    })
}

/// Runs `f` with a helper thread started for this thread's [`join`]s, on another CPU, and
/// ends the helper before returning. Inside another `with_helper` it only runs `f`.
pub fn with_helper<R>(f: impl FnOnce() -> R) -> R {
    if HELPER.with(|h| h.borrow().is_some()) {
        return f();
    }
    let Some(helper) = Helper::start() else {
        return f();
    };
    HELPER.with(|h| *h.borrow_mut() = Some(helper));
    // Ended however `f` ends: a helper left behind would outlive its caller's scope.
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            if let Some(helper) = HELPER.with(|h| h.borrow_mut().take()) {
                helper.end();
            }
        }
    }
    let _end = End;
    f()
}

thread_local! {
    static HELPER: RefCell<Option<Helper>> = const { RefCell::new(None) };
}

/// A right half, its lifetime erased: see [`Helper::join`].
type Job = Box<dyn FnOnce() + Send + 'static>;

/// One thread on another CPU that runs right halves handed to it, one at a time.
struct Helper {
    /// Running a right half now.
    busy: Cell<bool>,
    jobs: Sender<Job>,
    done: Receiver<()>,
    thread: std::thread::JoinHandle<()>,
}

/// How long a side waits actively before it sleeps: the gate's phases are a tenth of a
/// millisecond apart, and a virtual CPU that went idle takes tens of microseconds to wake.
/// It waits with the CPU's pause hint, not by yielding (`sched_yield`, a system call each
/// time): in two sets of 150 shuffled `ab.py` rounds the gate's medians were 7.93 and
/// 8.95 ms yielding, 7.69 and 8.53 ms pausing.
const SPIN: Duration = Duration::from_micros(200);

impl Helper {
    fn start() -> Option<Helper> {
        let parent = current_cpu();
        let (jobs, inbox) = channel::<Job>();
        let (finished, done) = channel();
        let thread = std::thread::Builder::new()
            .name("kcamp-helper".into())
            .spawn(move || {
                if let Some(cpu) = parent {
                    leave_cpu(cpu);
                }
                while let Some(job) = wait_for(&inbox) {
                    job();
                    if finished.send(()).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        // As in join_on_new_thread: let the new thread move itself away now.
        std::thread::yield_now();
        Some(Helper {
            busy: Cell::new(false),
            jobs,
            done,
            thread,
        })
    }

    fn join<A, B>(&self, left: impl FnOnce() -> A, right: impl FnOnce() -> B + Send) -> (A, B)
    where
        B: Send,
    {
        let mut right_result: Option<std::thread::Result<B>> = None;
        let slot = &mut right_result;
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            *slot = Some(catch_unwind(AssertUnwindSafe(right)));
        });
        // SAFETY: the job borrows `right_result` and whatever `right` borrows, all of which
        // outlive this call. This call does not return or unwind before the job has ended or
        // been dropped: `left`'s panic is caught and held until then; if the helper took
        // the job it runs it to the end (its panics are caught inside the job) and reports
        // on `done` only after; a job the helper could not take comes back in the send
        // error and is run here; if the helper ended while holding it, the job was dropped
        // on that thread before `done` disconnected.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
        let sent = self.jobs.send(job);
        let left = catch_unwind(AssertUnwindSafe(left));
        match sent {
            Ok(()) => {
                // Disconnected only if the helper thread ended, with the job dropped.
                let _ = wait_for(&self.done);
            }
            Err(unsent) => (unsent.0)(),
        }
        let left = left.unwrap_or_else(|panic| resume_unwind(panic));
        let right = match right_result {
            Some(Ok(right)) => right,
            Some(Err(panic)) => resume_unwind(panic),
            None => panic!("the helper thread ended before the right half ran"),
        };
        (left, right)
    }

    /// Ends the helper thread and waits for it.
    fn end(self) {
        let Helper {
            jobs, done, thread, ..
        } = self;
        drop(jobs);
        drop(done);
        let _ = thread.join();
    }
}

/// The next message on `inbox`, waited for actively for `SPIN` (200 µs; a check every 64 pause
/// hints, about a microsecond) and then asleep; None once its sender is gone. For messages
/// between the two sides of a [`join`]: a thread that sleeps at once can take most of a
/// millisecond to wake on this project's virtual machine (seen in the gate's table, whose
/// two sides exchange their column widths).
pub fn wait_for<T>(inbox: &Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        match inbox.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if start.elapsed() < SPIN => {
                for _ in 0..64 {
                    std::hint::spin_loop();
                }
            }
            Err(TryRecvError::Empty) => return inbox.recv().ok(),
        }
    }
}

/// [`join`] without a helper: `right` on a thread started for it.
fn join_on_new_thread<A, B>(left: impl FnOnce() -> A, right: impl FnOnce() -> B + Send) -> (A, B)
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

/// Rows per piece of the gate's large jobs (its judging, its table and its JSON array): small
/// enough that the two threads end close together, large enough that taking one is rare (20
/// pieces for 10,000 shapes).
pub const PIECE: usize = 500;

/// A job of `rows` rows cut into pieces of `size` rows (the last may be shorter) that two
/// threads take as each is free, one from the front and one from the back, until they meet:
/// each thread's rows stay together, the front's in order from the first and the back's from
/// the last. Fixed halves leave one thread waiting whenever the other runs slower (on this
/// project's 2-vCPU machine a thread's CPU is at times half again as slow as the other's).
pub struct Pieces {
    rows: usize,
    size: usize,
    /// The first piece not taken from the front, and one past the last not taken from the
    /// back.
    left: std::sync::Mutex<(usize, usize)>,
}

impl Pieces {
    /// `size` is at least 1.
    pub fn new(rows: usize, size: usize) -> Pieces {
        let size = size.max(1);
        Pieces {
            rows,
            size,
            left: std::sync::Mutex::new((0, rows.div_ceil(size))),
        }
    }

    /// How many pieces there are.
    pub fn count(&self) -> usize {
        self.rows.div_ceil(self.size)
    }

    /// The rows of piece `piece`.
    pub fn rows_of(&self, piece: usize) -> std::ops::Range<usize> {
        (piece * self.size).min(self.rows)..((piece + 1) * self.size).min(self.rows)
    }

    /// The first piece left, if any.
    pub fn front(&self) -> Option<usize> {
        let mut left = self.left.lock().ok()?;
        let (front, back) = &mut *left;
        (*front < *back).then(|| {
            *front += 1;
            *front - 1
        })
    }

    /// The last piece left, if any.
    pub fn back(&self) -> Option<usize> {
        let mut left = self.left.lock().ok()?;
        let (front, back) = &mut *left;
        (*front < *back).then(|| {
            *back -= 1;
            *back
        })
    }
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

    /// The id of the thread it runs on.
    fn here() -> std::thread::ThreadId {
        std::thread::current().id()
    }

    #[test]
    fn a_helper_takes_every_right_half_on_one_other_thread() {
        let caller = here();
        let ids = with_helper(|| {
            (0..5)
                .map(|i| {
                    let (left, (right, id)) = join(|| (i, here()), || (i * 10, here()));
                    assert_eq!((left.0, right), (i, i * 10));
                    assert_eq!(left.1, caller, "the left half runs on the caller");
                    id
                })
                .collect::<Vec<_>>()
        });
        assert_ne!(ids[0], caller);
        assert!(ids.iter().all(|id| *id == ids[0]), "one helper: {ids:?}");
        // Without a helper, every join starts a thread of its own.
        let (_, a) = join(|| (), here);
        let (_, b) = join(|| (), here);
        assert_ne!(a, b);
    }

    #[test]
    fn a_panic_in_a_right_half_reaches_the_caller_and_the_helper_goes_on() {
        with_helper(|| {
            let caught = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("right") }));
            let panic = caught.expect_err("the right half's panic");
            assert_eq!(panic.downcast_ref::<&str>(), Some(&"right"));
            let (_, first) = join(|| (), here);
            let (_, second) = join(|| (), here);
            assert_eq!(first, second, "the same helper after the panic");
        });
    }

    #[test]
    fn a_panic_in_a_left_half_waits_for_the_right_half_to_end() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let ended = AtomicBool::new(false);
        with_helper(|| {
            let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
                join(
                    || -> u32 { panic!("left") },
                    || {
                        std::thread::sleep(Duration::from_millis(30));
                        ended.store(true, Ordering::SeqCst);
                    },
                )
            }));
            assert!(caught.is_err());
            assert!(
                ended.load(Ordering::SeqCst),
                "the caller went on while the right half still ran"
            );
        });
    }

    #[test]
    fn joins_inside_either_half_of_a_helped_join_still_run_both_halves() {
        let ((a, b), (c, d)) = with_helper(|| join(|| join(|| 1, || 2), || join(|| 3, || 4)));
        assert_eq!((a, b, c, d), (1, 2, 3, 4));
    }

    #[test]
    fn the_helper_has_ended_when_with_helper_returns_or_unwinds() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        /// Set when the thread that holds it ends.
        struct OnExit(Arc<AtomicBool>);
        impl Drop for OnExit {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        thread_local! {
            static GUARD: RefCell<Option<OnExit>> = const { RefCell::new(None) };
        }
        let arm = |flag: &Arc<AtomicBool>| {
            let flag = Arc::clone(flag);
            move || GUARD.with(|g| *g.borrow_mut() = Some(OnExit(flag)))
        };
        let returned = Arc::new(AtomicBool::new(false));
        with_helper(|| join(|| (), arm(&returned)));
        assert!(returned.load(Ordering::SeqCst));

        let unwound = Arc::new(AtomicBool::new(false));
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
            with_helper(|| {
                join(|| (), arm(&unwound));
                panic!("after the join")
            })
        }));
        assert!(caught.is_err());
        assert!(unwound.load(Ordering::SeqCst));
        // And the thread has no helper left behind: a new one starts.
        assert!(HELPER.with(|h| h.borrow().is_none()));
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

    /// Taken from either end in any order, the pieces cover every row once: the front's in
    /// order from the first row, the back's from the last, meeting where the takings met.
    #[test]
    fn pieces_cover_every_row_once_from_either_end() {
        for (rows, size) in [
            (0, 5),
            (1, 5),
            (4, 5),
            (5, 5),
            (6, 5),
            (100, 5),
            (107, 5),
            (9, 1),
        ] {
            for turns in [0b0u32, 0b1, 0b1010_1010, 0b1111_0000, u32::MAX, 0x1234_5678] {
                let pieces = Pieces::new(rows, size);
                let (mut front, mut back) = (Vec::new(), Vec::new());
                for turn in 0.. {
                    let taken = if turns >> (turn % 32) & 1 == 1 {
                        pieces.front().map(|p| front.push(p))
                    } else {
                        pieces.back().map(|p| back.push(p))
                    };
                    if taken.is_none() {
                        break;
                    }
                }
                // Whichever side found nothing left, the other finds nothing either.
                assert!(pieces.front().is_none() && pieces.back().is_none());
                let order: Vec<usize> = front.into_iter().chain(back.into_iter().rev()).collect();
                assert_eq!(order, (0..pieces.count()).collect::<Vec<_>>());
                let rows_in_order: Vec<usize> =
                    order.into_iter().flat_map(|p| pieces.rows_of(p)).collect();
                assert_eq!(
                    rows_in_order,
                    (0..rows).collect::<Vec<_>>(),
                    "{rows} rows of {size}"
                );
            }
        }
    }
}
