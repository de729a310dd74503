//! `perflab check [STUDY...]`

use crate::analysis;
use crate::study::Study;
use std::path::Path;
use std::process::ExitCode;

pub fn run(names: &[String], results: &Path) -> anyhow::Result<ExitCode> {
    let dirs = super::study_dirs(names, results)?;
    if dirs.is_empty() {
        anyhow::bail!("no study found in '{}'", results.display());
    }
    let mut problems = 0;
    for dir in &dirs {
        let found = match Study::load(dir) {
            Err(d) => d.0,
            Ok(study) => {
                let found = analysis::check(&study);
                // Engines `perflab run` could not benchmark: their port cannot be known.
                for w in crate::study::command::address_warnings(&study) {
                    println!("{w}");
                }
                if found.is_empty() {
                    // Data a reader should not trust: listed, but not a failure.
                    let a = analysis::analyze(&study);
                    for w in analysis::warning_diagnostics(&study, &a) {
                        println!("{w}");
                    }
                    // Runs measured with another engine version or command than the study says.
                    for w in analysis::history::diagnostics(&study, &a.age) {
                        println!("{w}");
                    }
                }
                found
            }
        };
        for d in &found {
            println!("{d}");
        }
        problems += found.len();
        if found.is_empty() {
            eprintln!("{}: ok", dir.display());
        }
    }
    Ok(if problems == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
