fn main() {
    std::process::exit(engram_train::command::main());
}
