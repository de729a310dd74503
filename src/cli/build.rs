//! `perflab build`: the whole site from the studies under `results/`.

use super::Exit;
use perflab::render::Flavor;
use std::path::Path;
use std::process::ExitCode;

/// Gives the rest of this process ordinary 4 KB pages, never transparent huge pages. The
/// allocator asks the kernel for huge pages on its memory (`madvise`), and a build takes and
/// frees memory on both cores all the time: each first touch of a 2 MB page had the kernel zero
/// all of it, 10 to 15% of the build's CPU time (`perf`: `clear_page_erms`), under 1% with small
/// pages. Only the build asks this, because the setting passes to child processes, and the
/// engines that `perflab run` starts must run as they would without perflab.
fn small_pages() {
    // Where the kernel refuses, the build runs as before, only slower.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

pub fn run(
    results: &Path,
    out: &Path,
    templates: &Path,
    flavor: Flavor,
    url: Option<&perflab::site::SiteUrl>,
    reuse: perflab::site::Reuse,
) -> anyhow::Result<ExitCode> {
    small_pages();
    let renderer = super::renderer(templates)?;
    let mut studies = Vec::new();
    // A study that does not load does not stop the others: its pages stay as last published.
    let mut broken: Vec<(String, anyhow::Error)> = Vec::new();
    let dirs = super::study_dirs(&[], results)?;
    let loaded = perflab::parallel::map(dirs.len(), |i| super::load_study(&dirs[i].display().to_string(), results));
    for (dir, study) in dirs.iter().zip(loaded) {
        match study {
            Ok(study) => studies.push(study),
            Err(e) => {
                let id =
                    dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
                broken.push((id, e));
            }
        }
    }
    // The site folder of another results folder is not this build's to replace.
    let published = perflab::site::published_studies(out);
    let ours = studies.iter().map(|s| s.id.clone()).chain(broken.iter().map(|(id, _)| id.clone()));
    let ours: std::collections::BTreeSet<String> = ours.collect();
    if !published.is_empty() && published.is_disjoint(&ours) {
        let listed: Vec<String> = published.iter().map(|s| format!("`{s}`")).collect();
        anyhow::bail!(
            "'{}' holds the site of other studies ({}), none of them in '{}'; this build would delete their pages. \
             Build these studies into a folder of their own: `perflab build --results {} --out {}`",
            out.display(),
            listed.join(", "),
            results.display(),
            results.display(),
            results.join("site").display()
        );
    }
    let broken_ids: Vec<String> = broken.iter().map(|(id, _)| id.clone()).collect();
    let built = perflab::site::build_into(&studies, &renderer, flavor, url, out, &broken_ids, reuse)?;
    let unchanged = match built.reused {
        0 => String::new(),
        n => format!(" ({n} as the previous build made them, not rendered again)"),
    };
    eprintln!("{} studies{unchanged}, {} files in {}", studies.len(), built.files, out.display());
    if broken.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for (id, e) in &broken {
        eprintln!("{e}");
        eprintln!(
            "could not build `{id}`: its previously published pages in '{}' are kept as they were",
            out.display()
        );
    }
    eprintln!("{} of {} studies not built: {}", broken.len(), broken.len() + studies.len(), broken_ids.join(", "));
    Ok(ExitCode::from(Exit::Attention))
}
