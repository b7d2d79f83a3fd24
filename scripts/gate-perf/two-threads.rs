//! Whether two threads of a few milliseconds' work run side by side on this machine: the
//! same work once on one thread, then on a parent and a freshly spawned thread, plain
//! (`plain`) or with the parent yielding once and the new thread moving itself off the
//! parent's CPU, as `kcamp_core::par::join` does (`moved`). Prints the times and the CPUs the
//! two started their work on (README.md here, "Two CPUs, actually used").
//!
//!     rustc -O -o /tmp/two-threads scripts/gate-perf/two-threads.rs
//!     for m in plain moved plain moved; do /tmp/two-threads 3000000 $m; done
use std::time::Instant;

unsafe extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
    fn sched_getaffinity(pid: i32, size: usize, mask: *mut u64) -> i32;
    fn sched_getcpu() -> i32;
    fn sched_yield() -> i32;
}

/// Move this thread off `cpu`, then allow it every CPU it was allowed before.
fn leave(cpu: usize) {
    let mut allowed = [0u64; 16];
    // SAFETY: the masks are 128 bytes, as passed.
    unsafe {
        if sched_getaffinity(0, 128, allowed.as_mut_ptr()) != 0 {
            return;
        }
        let mut elsewhere = allowed;
        elsewhere[cpu / 64] &= !(1 << (cpu % 64));
        if elsewhere.iter().any(|w| *w != 0) && sched_setaffinity(0, 128, elsewhere.as_ptr()) == 0 {
            sched_setaffinity(0, 128, allowed.as_ptr());
        }
    }
}

fn work(n: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    x
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|a| a.parse().ok()).expect("iterations");
    let moved = args.next().as_deref() == Some("moved");
    let t = Instant::now();
    let a = work(n);
    let one = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    // SAFETY: sched_getcpu and sched_yield take no arguments.
    let parent = unsafe { sched_getcpu() } as usize;
    let (b, cpus) = std::thread::scope(|s| {
        let h = s.spawn(move || {
            if moved {
                leave(parent);
            }
            // Where it starts its work.
            let cpu = unsafe { sched_getcpu() };
            (work(n), cpu)
        });
        if moved {
            unsafe { sched_yield() };
        }
        let here = unsafe { sched_getcpu() };
        let c = work(n);
        let (r, cpu) = h.join().unwrap();
        (r ^ c, (here, cpu))
    });
    let two = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}: one thread {one:.2} ms, both threads {two:.2} ms, CPUs {cpus:?} ({})",
        if moved { "moved" } else { "plain" },
        (a ^ b) & 1
    );
}
