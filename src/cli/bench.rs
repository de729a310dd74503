//! `perflab bench`

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
    Ok(if run.report.complete { ExitCode::SUCCESS } else { ExitCode::from(130) })
}
