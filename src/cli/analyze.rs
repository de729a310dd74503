//! `perflab analyze STUDY`

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(name: &str, results: &Path) -> anyhow::Result<ExitCode> {
    let study = super::load_study(name, results)?;
    let analysis = perflab::analysis::analyze(&study);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &analysis)?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}
