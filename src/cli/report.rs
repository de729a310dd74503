//! `perflab report STUDY --locale LANG [--out DIR]`

use perflab::render::Flavor;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    name: &str,
    locale: &str,
    flavor: Flavor,
    results: &Path,
    templates: &Path,
    out: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let renderer = super::renderer(templates)?;
    let study = super::load_study(name, results)?;
    let analysis = perflab::analysis::analyze(&study);
    match out {
        Some(out) => {
            let page = perflab::site::write_page(&study, &analysis, &renderer, flavor, locale, out)?;
            println!("wrote {} and its charts and data in {}", page.display(), out.join(&study.id).display());
        }
        // Printed alone, the page has no files beside it, so it links none.
        None => {
            let links = perflab::render::Links::printed(&study.id);
            let page = renderer.page(&study, &analysis, locale, flavor, &links)?;
            std::io::stdout().lock().write_all(page.as_bytes())?;
        }
    }
    // A page that cannot give its answer needs a look, as the page itself says first.
    if analysis.unanswered().is_some() {
        eprintln!(
            "the page has no answer yet: its baseline or its optimized configuration has no result on `{}`; `perflab plan {name}` lists what is pending and what failed",
            analysis.target_profile
        );
        return Ok(super::Exit::Attention.into());
    }
    Ok(ExitCode::SUCCESS)
}
