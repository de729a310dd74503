//! `perflab translations [STUDY...]`

use super::Exit;
use perflab::render::i18n;
use perflab::study::Study;
use std::path::Path;
use std::process::ExitCode;

/// Lists, per language (`langs`, or every catalog's but English), each study text that has no
/// translation and so is shown in English; exit code 1 when there is one, 2 when a study did not
/// load (its texts are listed all the same).
pub fn run(names: &[String], results: &Path, templates: &Path, langs: &[String]) -> anyhow::Result<ExitCode> {
    let dirs = super::study_dirs(names, results)?;
    if dirs.is_empty() {
        anyhow::bail!("no study found in '{}'", results.display());
    }
    let catalogs = i18n::load_all(Some(templates))?;
    let locales: Vec<String> = if langs.is_empty() {
        catalogs.keys().filter(|l| *l != i18n::SOURCE_LOCALE).cloned().collect()
    } else {
        for l in langs {
            if !catalogs.contains_key(l) {
                return Err(i18n::I18nError::NoLocale(l.clone()).into());
            }
        }
        langs.to_vec()
    };
    // Each study's texts as written. A study that does not load is named (why is `perflab
    // check`'s to explain at length) and the others are still listed.
    let mut studies = Vec::new();
    let mut broken = 0;
    for dir in &dirs {
        match Study::load(dir) {
            Ok(s) => studies.push((s.file, s.source)),
            Err(d) => {
                broken += 1;
                eprintln!("{d}");
                let file = dir.join(perflab::study::SPEC_FILE);
                match std::fs::read_to_string(&file) {
                    Ok(source) => studies.push((file, source)),
                    Err(e) => eprintln!("{}: cannot read: {e}", file.display()),
                }
            }
        }
    }
    let mut missing = 0;
    for locale in &locales {
        let found: Vec<_> = studies
            .iter()
            .flat_map(|(file, source)| perflab::study::translations::untranslated(file, source, locale))
            .collect();
        for d in &found {
            println!("{d}");
        }
        match found.len() {
            0 => eprintln!("{locale}: every study text is translated"),
            n => eprintln!("{locale}: {n} study {} shown in English", if n == 1 { "text is" } else { "texts are" }),
        }
        missing += found.len();
    }
    if broken > 0 {
        eprintln!("{broken} of {} studies did not load: `perflab check` says why", dirs.len());
        return Ok(ExitCode::from(Exit::Failed));
    }
    Ok(if missing == 0 { ExitCode::SUCCESS } else { ExitCode::from(Exit::Attention) })
}
