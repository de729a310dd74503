//! `perflab build`: the whole site from the studies under `results/`.

use crate::render::Flavor;
use std::path::Path;
use std::process::ExitCode;

pub fn run(results: &Path, out: &Path, templates: &Path, flavor: Flavor) -> anyhow::Result<ExitCode> {
    let renderer = super::renderer(templates)?;
    let mut studies = Vec::new();
    for dir in super::study_dirs(&[], results)? {
        studies.push(super::load_study(&dir.display().to_string(), results)?);
    }
    let site = crate::site::Site::build(&studies, &renderer, flavor)?;
    let written = site.write(out)?;
    eprintln!("{} studies, {written} files in {}", studies.len(), out.display());
    Ok(ExitCode::SUCCESS)
}
