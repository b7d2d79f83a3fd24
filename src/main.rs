//! `kcamp`: the command line over kcamp's crates. It wires the campaign engine
//! (kcamp-core) to the measurers (kcamp-runner, whose workers run kcamp-gpu), renders
//! reports (kcamp-report) and opens the dashboard (kcamp-tui).

mod cli;

fn main() {
    std::process::exit(cli::run());
}
