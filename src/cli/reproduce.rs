//! `perflab reproduce STUDY RUN`: what to run to measure one figure again.

use perflab::analysis::reproduce::reproduce;
use perflab::study::RunKey;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(name: &str, run: &str, port: u16, results: &Path) -> anyhow::Result<ExitCode> {
    let study = super::load_study(name, results)?;
    let recipe = reproduce(&study, &RunKey::parse(run)).map_err(|e| anyhow::anyhow!("{}: {e}", study.id))?;
    std::io::stdout().lock().write_all(perflab::render::reproduce::script(&recipe, port).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
