/// A site build allocates and frees many small strings on every core (template values, views,
/// chart text): with glibc's allocator that was a fifth of its CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
