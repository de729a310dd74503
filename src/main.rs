fn main() -> std::process::ExitCode {
    perflab::cli::main()
}
