//! `kcamp`: the command line over kcamp's crates. It wires the campaign engine
//! (kcamp-core) to the measurers (kcamp-runner, whose workers run kcamp-gpu), renders
//! reports (kcamp-report) and opens the dashboard (kcamp-tui).
//!
//! Two things of the Rust runtime's start on Unix that kcamp relies on: standard streams
//! that a parent closed are opened on /dev/null (so no file kcamp opens becomes its stdout),
//! and SIGPIPE is ignored (a reader that goes away, as in `kcamp gate a b | head`, is a
//! write error the command handles, not a kill). Children get SIGPIPE back: std restores
//! it when it spawns them.

mod cli;

fn main() {
    // The engine's git children end with kcamp (SIGTERM, so git removes its locks).
    kcamp_core::campaign::git::on_git_child(kcamp_runner::terminate_with_parent);
    // `exit` flushes stdout, as returning from `main` would.
    std::process::exit(cli::run())
}
