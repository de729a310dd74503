//! `perflab import PAGE.md --id ID` and `perflab import DIR`

use super::Exit;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(page: &Path, id: Option<&str>, force: bool, results: &Path) -> anyhow::Result<ExitCode> {
    let pages = pages(page, id)?;
    let mut failed = 0;
    let mut imported_ids = Vec::new();
    for (file, id) in &pages {
        if let Some(why) = perflab::study::id_problem(id) {
            eprintln!("error: {}: `{id}` is not a study id: {why}", file.display());
            failed += 1;
            continue;
        }
        if let Some(taken) = perflab::study::reserved_study_id(id) {
            eprintln!("error: {}: `{id}` is taken by {taken}; choose another id with --id", file.display());
            failed += 1;
            continue;
        }
        let dir = results.join(id);
        match perflab::import::import_file(file, &dir, force) {
            Ok(imported) => {
                for c in &imported.choices {
                    let at =
                        if c.line > 0 { format!("{}:{}", file.display(), c.line) } else { file.display().to_string() };
                    eprintln!("{at}: chose: {}", c.message);
                }
                eprintln!("{}: imported into {} ({} runs)", file.display(), dir.display(), imported.runs.len());
                imported_ids.push(id.as_str());
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
            }
        }
    }
    next_steps(&imported_ids, results);
    Ok(exit(failed, imported_ids.len()).into())
}

/// 0 when every page was imported; 1 when some were and others not (a folder); 2 when none
/// was: the page, its id or its file is wrong, or the study it would replace is kept.
fn exit(failed: usize, imported: usize) -> Exit {
    match (failed, imported) {
        (0, _) => Exit::Done,
        (_, 0) => Exit::Failed,
        _ => Exit::Attention,
    }
}

/// What to run on the studies just written: `check`, which warns at each `# import:` choice
/// until it is removed, then `report` for each page.
fn next_steps(ids: &[&str], results: &Path) {
    if ids.is_empty() {
        return;
    }
    let results = results.to_string_lossy();
    let command = |words: &[&str]| shell_words::join(["perflab"].iter().chain(words).chain(&["--results", &results]));
    let check: Vec<&str> = std::iter::once("check").chain(ids.iter().copied()).collect();
    eprintln!(
        "next: {}   # warns at each `# import:` choice until you confirm it and remove the comment",
        command(&check)
    );
    for id in ids {
        eprintln!("then: {}", command(&["report", id]));
    }
}

/// The pages to import with their ids: the one page, or every `.md` of a folder but its README.
fn pages(page: &Path, id: Option<&str>) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if !page.is_dir() {
        return Ok(vec![(page.to_path_buf(), id.map_or_else(|| stem(page), str::to_string))]);
    }
    if id.is_some() {
        anyhow::bail!("--id names one study: give a page, not the folder '{}'", page.display());
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(page)
        .map_err(|e| anyhow::anyhow!("cannot list '{}': {e}", page.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !stem(p).eq_ignore_ascii_case("readme"))
        .collect();
    found.sort();
    if found.is_empty() {
        anyhow::bail!("'{}' holds no page: no `.md` file but a README", page.display());
    }
    Ok(found.into_iter().map(|p| (p.clone(), stem(&p))).collect())
}
