//! `perflab bench`

use super::Exit;
use crate::bench::{self, BenchArgs};
use std::process::ExitCode;

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let run = runtime.block_on(bench::run(args, async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }))?;
    bench::publish(args, &run)?;
    if !run.report.complete {
        return Ok(ExitCode::from(Exit::Interrupted));
    }
    if run.report.values.get("completed").is_none_or(|c| *c == 0.0) && !run.outcomes.is_empty() {
        eprintln!("error: no request succeeded; the result above measures nothing");
        return Ok(ExitCode::from(Exit::Attention));
    }
    Ok(ExitCode::SUCCESS)
}
