//! `perflab-engine`: the simulated inference engine (see `perflab::sim`).

use clap::Parser;

/// A simulated LLM inference engine: an OpenAI-compatible server whose speed, memory limits and
/// failures follow engine-like flags. For tests and demos of perflab; no GPU involved.
#[derive(Debug, Parser)]
#[command(name = "perflab-engine", version)]
struct Cli {
    #[command(flatten)]
    engine: perflab::sim::EngineArgs,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if cli.engine.sim_worker
        && let Err(e) = perflab::sim::spawn_worker()
    {
        eprintln!("error: cannot start the worker: {e}");
        return std::process::ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(perflab::sim::serve(cli.engine)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
