fn main() {
    std::process::exit(engram_cli::main());
}
