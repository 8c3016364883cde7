fn main() {
    std::process::exit(engram_host::cli::main());
}
