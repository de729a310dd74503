//! `perflab build`: every page of every study in every language, into the site folder.

use crate::render::Flavor;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    results: &Path,
    out: &Path,
    templates: &Path,
    flavor: Flavor,
) -> anyhow::Result<ExitCode> {
    let renderer = super::renderer(templates)?;
    let names: Vec<String> = super::study_dirs(&[], results)?
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let mut site = crate::site::Site::default();
    for name in &names {
        let study = super::load_study(name, results)?;
        let analysis = crate::analysis::analyze(&study);
        for locale in renderer.locales() {
            let page = renderer.page(&study, &analysis, &locale, flavor)?;
            site.add(format!("{locale}/{}.md", study.id), page.into_bytes());
        }
    }
    let written = site.write(out)?;
    eprintln!("wrote {written} files to {}", out.display());
    Ok(ExitCode::SUCCESS)
}
