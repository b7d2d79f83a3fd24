//! Reading CSVs the way the campaign commands do, every cell kept and converted
//! (`BenchTable::read`), and nothing else: how the reader's cost changes on that path, apart
//! from the gate's. Build it as an example of kcamp-core, then count or time it:
//!
//!     mkdir -p crates/kcamp-core/examples && cp scripts/gate-perf/read-all.rs crates/kcamp-core/examples/
//!     cargo build --release -p kcamp-core --example read-all && rm -r crates/kcamp-core/examples
//!     valgrind --tool=callgrind target/release/examples/read-all A.csv B.csv
fn main() {
    let mut rows = 0;
    for path in std::env::args().skip(1) {
        match kcamp_core::schema::BenchTable::read(std::path::Path::new(&path)) {
            Ok(table) => rows += table.rows.len(),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
    println!("{rows} rows");
}
