//! `perflab check [STUDY...]`

use super::Exit;
use perflab::analysis;
use perflab::study::Study;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(names: &[String], results: &Path) -> anyhow::Result<ExitCode> {
    // Written through `?`: a reader that closes the pipe (`| head`) ends the command quietly.
    let mut out = std::io::stdout().lock();
    let dirs = super::study_dirs(names, results)?;
    if dirs.is_empty() {
        anyhow::bail!("no study found in '{}'", results.display());
    }
    // The languages a build publishes (its catalogs, from its default `templates` folder when
    // there is one): a study text in another is a warning.
    let published = perflab::render::i18n::locales(Some(Path::new("templates")));
    let mut problems = 0;
    for dir in &dirs {
        let found = match Study::load(dir) {
            Err(d) => d.0,
            Ok(study) => {
                let found = analysis::check(&study);
                // What `perflab import` chose and the study's author has not yet confirmed.
                for w in perflab::import::unresolved(&study.file, &study.source) {
                    writeln!(out, "{w}")?;
                }
                for w in perflab::study::translations::unpublished(&study.file, &study.source, &published) {
                    writeln!(out, "{w}")?;
                }
                // Engines `perflab run` could not benchmark: their port cannot be known.
                for w in perflab::study::command::address_warnings(&study) {
                    writeln!(out, "{w}")?;
                }
                // Stages that change numerics with no accuracy requirement.
                for w in study.accuracy_warnings() {
                    writeln!(out, "{w}")?;
                }
                if found.is_empty() {
                    // Data a reader should not trust: listed, but not a failure.
                    let a = analysis::analyze(&study);
                    for w in analysis::warning_diagnostics(&study, &a) {
                        writeln!(out, "{w}")?;
                    }
                    // Runs measured with another engine version or command than the study says.
                    for w in analysis::history::diagnostics(&study, &a.age) {
                        writeln!(out, "{w}")?;
                    }
                }
                found
            }
        };
        for d in &found {
            writeln!(out, "{d}")?;
        }
        problems += found.len();
        if found.is_empty() {
            eprintln!("{}: ok", dir.display());
        }
    }
    Ok(if problems == 0 { ExitCode::SUCCESS } else { ExitCode::from(Exit::Attention) })
}
