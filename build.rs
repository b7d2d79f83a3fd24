//! Link the `kcamp` executable at a fixed address (not position-independent) on Linux.
//!
//! Every command is a short-lived process, and a position-independent executable of this
//! size (wgpu, naga, ratatui, plotters) spends its start-up applying some 35,000 relative
//! relocations, writing into pages it would otherwise only read: `kcamp --version` took
//! 300 page faults instead of 150 (`kcamp gate` on two 10,000-shape CSVs 2,310 instead of
//! 2,170). The libraries it loads stay position-independent; only the executable's own
//! address is no longer randomized.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
