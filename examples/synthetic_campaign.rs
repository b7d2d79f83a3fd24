//! Writes the dashboard's worst case to disk: `cargo run --release --example
//! synthetic_campaign -- DIR [SHAPES] [ROUNDS]` (default 1,000 shapes × 200 rounds), in the
//! real formats, for `kcamp tui DIR` and `scripts/idle-cost.sh`. The numbers are
//! synthetic: nothing was measured.

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: synthetic_campaign DIR [SHAPES] [ROUNDS]");
        std::process::exit(2);
    };
    let number = |what: &str, default: usize, arg: Option<String>| -> usize {
        match arg.map(|a| a.parse::<usize>()) {
            None => default,
            Some(Ok(n)) if n >= 2 || what == "shapes" && n >= 1 => n,
            Some(_) => {
                eprintln!("{what}: a whole number (rounds at least 2)");
                std::process::exit(2);
            }
        }
    };
    let shapes = number("shapes", 1000, args.next());
    let rounds = number("rounds", 200, args.next());
    if dir.join("manifest.yaml").exists() {
        eprintln!("{} already holds a campaign", dir.display());
        std::process::exit(2);
    }
    let state = kcamp_tui::fixtures::synthetic(shapes, rounds);
    if let Err(e) = kcamp_tui::fixtures::write_campaign(&state, &dir) {
        eprintln!("writing {}: {e}", dir.display());
        std::process::exit(3);
    }
    println!(
        "{}: {shapes} shapes × {rounds} rounds (synthetic values)",
        dir.display()
    );
}
