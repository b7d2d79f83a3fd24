//! Link the `kcamp` executable at a fixed address (not position-independent) on Linux.
//!
//! Every command is a short-lived process, and a position-independent executable of this
//! size (wgpu, naga, ratatui, plotters) spends its start-up applying tens of thousands of
//! relative relocations, writing into memory it would otherwise only read: a cost every
//! command pays before it does anything (docs/performance.md, "kcamp itself"). The
//! libraries it loads stay position-independent; only the executable's own address is no
//! longer randomized.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
