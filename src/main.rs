fn main() {
    std::process::exit(kcamp::cli::run());
}
