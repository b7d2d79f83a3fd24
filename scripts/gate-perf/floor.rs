//! The least a gate process can do on the two files, as a yardstick for `kcamp gate`: read
//! both CSVs on two threads, parse every number (no checks, no pairing, no statistics), and
//! print one formatted line per shape. What is left between this and `kcamp gate` is what
//! kcamp adds (validation of every cell, the verdicts, the report); what is left between this
//! and the Python gate is the most any gate could gain on this machine.
//!
//!     rustc -O -o /tmp/floor scripts/gate-perf/floor.rs
//!     /tmp/floor BASE.csv CAND.csv [--parse-only]
use std::fmt::Write as _;
use std::io::Write as _;

struct Table {
    values: Vec<f64>,
    dims: Vec<u64>,
    width: usize,
}

fn parse(path: &str) -> Table {
    let text = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let (header, body) = text.split_once('\n').expect("a header line");
    let fields = header.split(',').count();
    let check = header
        .split(',')
        .position(|f| f == "Check")
        .expect("a Check column");
    let mut t = Table {
        values: Vec::new(),
        dims: Vec::new(),
        width: fields - check - 1,
    };
    for line in body.lines().filter(|l| !l.is_empty()) {
        for (i, f) in line.split(',').enumerate() {
            if i > 0 && i < check {
                t.dims.push(f.parse().expect("a dimension"));
            } else if i > check {
                t.values.push(f.parse().expect("a number"));
            }
        }
    }
    t
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (inc, cand) = std::thread::scope(|s| {
        let cand = s.spawn(|| parse(&args[2]));
        (parse(&args[1]), cand.join().expect("the reader"))
    });
    if args.get(3).is_some_and(|a| a == "--parse-only") {
        std::process::exit(i32::from(inc.values.len() != cand.values.len()));
    }
    let (rows, n_dims) = (
        inc.values.len() / inc.width,
        inc.dims.len() / (inc.values.len() / inc.width),
    );
    let mut out = String::with_capacity(rows * 100);
    for i in 0..rows {
        let (a, b) = (inc.values[i * inc.width], cand.values[i * cand.width]);
        let d = &inc.dims[i * n_dims..(i + 1) * n_dims];
        let _ = writeln!(
            out,
            "shape{i:<6} {:>5}x{:<5} PASS {a:>12.3} {b:>12.3} {:>+8.2}% ±2.00% improved",
            d[1],
            d[2],
            (b / a - 1.0) * 100.0
        );
    }
    // A reader that leaves early is fine: this only measures.
    let _ = std::io::stdout().write_all(out.as_bytes());
}
