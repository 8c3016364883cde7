fn main() {
    std::process::exit(engram_bench::main());
}
