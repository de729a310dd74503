//! `perflab translations [STUDY...]`

use crate::render::i18n;
use crate::study::Study;
use std::path::Path;
use std::process::ExitCode;

/// Lists, per language (`langs`, or every catalog's but English), each study text that has no
/// translation and so is shown in English; exit code 1 when there is one.
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
    let mut studies = Vec::new();
    for dir in &dirs {
        // A study that does not load is `perflab check`'s to explain.
        studies.push(Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?);
    }
    let mut missing = 0;
    for locale in &locales {
        let found: Vec<_> =
            studies.iter().flat_map(|s| crate::study::translations::untranslated(&s.file, &s.source, locale)).collect();
        for d in &found {
            println!("{d}");
        }
        match found.len() {
            0 => eprintln!("{locale}: every study text is translated"),
            n => eprintln!("{locale}: {n} study {} shown in English", if n == 1 { "text is" } else { "texts are" }),
        }
        missing += found.len();
    }
    Ok(if missing == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
