//! The Markdown pages are a drop-in for the tools teams publish with: a page and its folder
//! copied into a mkdocs-material site build with `mkdocs build --strict`, each language's
//! folder is an mdBook of its own, and in both every link of the built pages resolves.
//!
//! The tool tests are ignored by a plain `cargo test` and named after the tool they need
//! (`mkdocs_…`, `mdbook_…`), so that `.ci/run` can skip them by name when it cannot install it.

use crate::common;

use common::root;
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::Study;
use pulldown_cmark::{Event, Parser, Tag};
use regex::Regex;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn build(flavor: Flavor) -> Site {
    let mut studies = Vec::new();
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        studies.push(Study::load(&dir).unwrap());
    }
    Site::build(&studies, &Renderer::new(None).unwrap(), flavor).unwrap()
}

fn text(site: &Site, path: &str) -> String {
    String::from_utf8(site.files.get(path).unwrap_or_else(|| panic!("no {path}")).clone()).unwrap()
}

/// The Markdown pages of the site: (locale, study id).
fn pages(site: &Site) -> Vec<(String, String)> {
    let page = Regex::new(r"^md/([a-z-]+)/([^/]+)\.md$").unwrap();
    let found: Vec<(String, String)> = site
        .files
        .keys()
        .filter_map(|f| page.captures(f))
        .filter(|c| &c[2] != "SUMMARY")
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect();
    assert!(found.len() >= 12, "{found:?}");
    found
}

/// Every link and image destination of a Markdown text.
fn destinations(markdown: &str) -> Vec<String> {
    Parser::new_ext(markdown, perflab::render::markdown::options())
        .filter_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .collect()
}

/// A percent-encoded path as a file name.
fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(Ok(b)) = path.get(i + 1..i + 3).map(|hex| u8::from_str_radix(hex, 16))
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn every_link_of_a_page_stays_in_its_folder_and_resolves() {
    for flavor in [Flavor::Commonmark, Flavor::Mkdocs] {
        let site = build(flavor);
        for (locale, id) in pages(&site) {
            let md = text(&site, &format!("md/{locale}/{id}.md"));
            let links = destinations(&md);
            for want in [format!("{id}/{id}.csv"), format!("{id}/{id}.json"), format!("{id}/comparison.svg")] {
                assert!(links.contains(&want), "{locale}/{id}: no link to {want}: {links:?}");
            }
            for dest in links.iter().filter(|d| !d.starts_with("https://") && !d.starts_with('#')) {
                let path = decode(dest);
                assert!(
                    path.starts_with(&format!("{id}/")) && !path.split('/').any(|p| p == ".." || p.is_empty()),
                    "{flavor:?} {locale}/{id}: {dest} leaves the page's folder"
                );
                assert!(site.files.contains_key(&format!("md/{locale}/{path}")), "{locale}/{id}: {dest} is missing");
            }
        }
    }
}

#[test]
fn gains_and_losses_are_marked_in_the_text() {
    let site = build(Flavor::Commonmark);
    let tr = text(&site, "md/tr/glm-5.2-fp8-h200.md");
    assert!(tr.contains(r#"<span class="gain">▲ +%219,70</span>"#), "{tr}");
    assert!(tr.contains(r#"<span class="loss">▼ −%52,90</span>"#), "{tr}");
    for locale in ["en", "tr", "zh", "ja"] {
        let css = text(&site, &format!("md/{locale}/perflab.css"));
        assert!(css.contains(".gain") && css.contains(".loss"));
    }
    assert_eq!(site.files["md/perflab.css"], site.files["md/tr/perflab.css"]);
}

#[test]
fn a_page_gives_its_answer_before_its_summary_picture() {
    // In a book at 1280 × 900 the 1200 × 792 picture would fill the first screen; the gain and
    // the command come first, in every flavour and language.
    for flavor in [Flavor::Commonmark, Flavor::Mkdocs] {
        let site = build(flavor);
        for (locale, id) in pages(&site) {
            let md = text(&site, &format!("md/{locale}/{id}.md"));
            let command = md.find("```bash\n").unwrap_or_else(|| panic!("{locale}/{id}: no command"));
            let picture = md.find("summary.png)").unwrap_or_else(|| panic!("{locale}/{id}: no picture"));
            assert!(command < picture, "{locale}/{id}: the picture comes before the command");
            assert!(md[..command].contains("<span class=\"gain\">"), "{locale}/{id}: no gain before the command");
        }
    }
}

/// The before/after table puts its change column second, beside the profile: a 390 px phone
/// shows the profile and the answer without scrolling sideways, in every flavour and language.
#[test]
fn the_comparison_table_puts_the_change_beside_the_profile() {
    let renderer = Renderer::new(None).unwrap();
    for flavor in [Flavor::Commonmark, Flavor::Mkdocs] {
        let site = build(flavor);
        for (locale, id) in pages(&site) {
            let c = renderer.catalog(&locale).unwrap();
            let md = text(&site, &format!("md/{locale}/{id}.md"));
            let heading = format!("### {}", c.msg("heading-comparison").unwrap());
            let at = md.find(&heading).unwrap_or_else(|| panic!("{locale}/{id}: no comparison"));
            let header = md[at..].lines().find(|l| l.starts_with("| ")).unwrap();
            let cells: Vec<&str> = header.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 4, "{locale}/{id}: {header}");
            assert_eq!(cells[0], c.msg("table-profile").unwrap(), "{locale}/{id}");
            let change = c.fmt("table-change", &[("metric", "\u{1}")]).unwrap();
            let (before, after) = change.split_once('\u{1}').unwrap();
            assert!(cells[1].starts_with(before) && cells[1].ends_with(after), "{locale}/{id}: {header}");
            assert_eq!(cells[3], c.msg("table-optimized").unwrap(), "{locale}/{id}: {header}");
        }
    }
}

#[test]
fn each_language_is_marked_with_its_own() {
    let site = build(Flavor::Commonmark);
    for (locale, id) in pages(&site) {
        let md = text(&site, &format!("md/{locale}/{id}.md"));
        // The bilingual book is English; a page in another language says which.
        let tag = perflab::render::i18n::language_tag(&locale);
        assert_eq!(md.starts_with(&format!("<div lang=\"{tag}\">\n\n# ")), locale != "en", "{locale}/{id}");
        let book = text(&site, &format!("md/{locale}/book.toml"));
        let book: toml::Value = toml::from_str(&book).unwrap();
        assert_eq!(book["book"]["language"].as_str(), Some(tag));
        assert_eq!(book["book"]["src"].as_str(), Some("."));
    }
    // The mkdocs flavour is written for one site a language, whose theme sets the language.
    let mkdocs = build(Flavor::Mkdocs);
    assert!(text(&mkdocs, "md/tr/glm-5.2-fp8-h200.md").starts_with("# "));
}

#[test]
fn the_mkdocs_flavour_has_localized_warnings_and_heading_ids_that_keep_turkish_words() {
    let site = build(Flavor::Mkdocs);
    let tr = text(&site, "md/tr/glm-5.2-fp8-h200.md");
    assert!(tr.contains("!!! warning \"Uyarı\"\n"), "{tr}");
    assert!(!tr.contains("!!! warning\n"));
    assert!(tr.contains("\n### 1. Çıkarım motoru seçimi { #cikarim-motoru-secimi }\n"), "{tr}");
    assert!(tr.contains("\n## Deney kurulumu { #deney-kurulumu }\n"));
    let en = text(&site, "md/en/glm-5.2-fp8-h200.md");
    assert!(en.contains("!!! warning \"Warning\"\n"));
    // Every heading has an id, and no two the same.
    for md in [&tr, &en] {
        let mut ids = BTreeSet::new();
        let mut in_code = false;
        for line in md.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with('#') {
                let id = line.rsplit_once("{ #").map(|(_, id)| id.trim_end_matches(" }").to_string());
                let id = id.unwrap_or_else(|| panic!("heading without an id: {line}"));
                assert!(id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{id}");
                assert!(ids.insert(id.clone()), "repeated id {id}");
            }
        }
    }
}

/// Every relative `href` and `src` of the HTML files under `dir` names a file there.
fn assert_links_resolve(dir: &Path) {
    let attr = Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::fs::read_to_string(entry.path()).unwrap();
        for c in attr.captures_iter(&html) {
            let link = c[1].replace("&amp;", "&");
            // A link within the page leads to an element of it.
            if let Some(fragment) = link.strip_prefix('#').filter(|f| !f.is_empty()) {
                let id = decode(fragment);
                assert!(html.contains(&format!("id=\"{id}\"")), "{}: no element #{id}", entry.path().display());
            }
            let link = link.split(['#', '?']).next().unwrap_or("");
            if link.is_empty() || link.contains(':') || link.starts_with("//") {
                continue;
            }
            let base = entry.path().parent().unwrap();
            let mut target = match link.strip_prefix('/') {
                Some(absolute) => dir.join(decode(absolute)),
                None => base.join(decode(link)),
            };
            if link.ends_with('/') || target.is_dir() {
                target = target.join("index.html");
            }
            assert!(target.exists(), "{}: {} does not resolve", entry.path().display(), &c[1]);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} links checked in {}", dir.display());
}

#[test]
#[ignore = "needs mkdocs (.ci/run installs it with .ci/mkdocs-venv.sh): run with --include-ignored"]
fn mkdocs_builds_pages_copied_into_a_site_strictly() {
    let mkdocs = common::mkdocs();
    let site = build(Flavor::Mkdocs);
    for locale in ["en", "tr", "zh", "ja"] {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        // As a user copies them: each page with its folder, and the style sheet.
        for (path, bytes) in &site.files {
            if let Some(rel) = path.strip_prefix(&format!("md/{locale}/"))
                && rel != "SUMMARY.md"
                && rel != "book.toml"
            {
                let to = docs.join(rel);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, bytes).unwrap();
            }
        }
        let index: String =
            pages(&site).iter().filter(|(l, _)| l == locale).map(|(_, id)| format!("- [{id}]({id}.md)\n")).collect();
        std::fs::write(docs.join("index.md"), format!("# Guides\n\n{index}")).unwrap();
        let config = std::fs::read_to_string(root().join("tests/fixtures/mkdocs/mkdocs.yml")).unwrap();
        std::fs::write(tmp.path().join("mkdocs.yml"), config.replace("LANGUAGE", locale)).unwrap();
        let out = Command::new(&mkdocs)
            .args(["build", "--strict", "--site-dir", "built"])
            .current_dir(tmp.path())
            .env("NO_MKDOCS_2_WARNING", "1")
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "mkdocs build --strict failed for {locale}:\n{log}");
        let built = tmp.path().join("built");
        let page = std::fs::read_to_string(built.join("glm-5.2-fp8-h200/index.html")).unwrap();
        assert!(page.contains(&format!("<html lang=\"{locale}\"")));
        assert!(page.contains("class=\"admonition warning\""), "warnings are admonitions");
        assert!(page.contains("<details class=\"info\""), "commands and results collapse");
        if locale == "tr" {
            assert!(page.contains("id=\"cikarim-motoru-secimi\""));
            assert!(page.contains("<p class=\"admonition-title\">Uyarı</p>"));
        }
        if locale == "zh" || locale == "ja" {
            // The English page's ids: readable, and the same address in every language.
            assert!(page.contains("id=\"conclusion\"") && page.contains("id=\"experiment-results\""), "{locale}");
            assert!(page.contains("<p class=\"admonition-title\">注意</p>"), "{locale}");
        }
        assert!(built.join("glm-5.2-fp8-h200/glm-5.2-fp8-h200.csv").is_file());
        assert_links_resolve(&built);
    }
}

#[test]
#[ignore = "needs mdBook (.ci/run installs it): run with --include-ignored"]
fn mdbook_builds_each_language_as_a_book() {
    let site = build(Flavor::Commonmark);
    let tmp = tempfile::tempdir().unwrap();
    site.write(tmp.path()).unwrap();
    for locale in ["en", "tr", "zh", "ja"] {
        let dir = tmp.path().join("md").join(locale);
        let out = Command::new("mdbook")
            .arg("build")
            .current_dir(&dir)
            .output()
            .expect("mdbook is not installed (cargo install mdbook)");
        assert!(out.status.success(), "mdbook build failed for {locale}: {}", String::from_utf8_lossy(&out.stderr));
        let book = dir.join("book");
        let page = std::fs::read_to_string(book.join("glm-5.2-fp8-h200.html")).unwrap();
        let tag = perflab::render::i18n::language_tag(locale);
        assert!(page.contains(&format!("<html lang=\"{tag}\"")), "{locale}");
        assert!(book.join("glm-5.2-fp8-h200/glm-5.2-fp8-h200.csv").is_file());
        assert!(book.join("perflab.css").is_file());
        assert_links_resolve(&book);
    }
}

/// A study whose note asks mdBook and mkdocs to read a file into the page (`{{#include}}`, in
/// text and in a code block, and a `--8<--` snippet), and the file it names, whose contents
/// must not reach any built page.
fn hostile(tmp: &Path) -> (Study, String) {
    let secret = "SECRET-7f3a9c-NOT-FOR-PAGES";
    let file = tmp.join("secret.txt");
    std::fs::write(&file, secret).unwrap();
    let dir = tmp.join("results/hostile");
    common::copy_dir(&root().join("results/glm-5.2-fp8-h200"), &dir);
    let spec = dir.join("study.toml");
    let path = file.display();
    let note = format!(
        "[[notes]]\nen = \"\"\"Read {{{{#include {path}}}}} here.\n\n--8<-- \"secret.txt\"\n\n```\n{{{{#include {path}}}}}\n```\n\"\"\"\n\n[[notes]]"
    );
    let text = std::fs::read_to_string(&spec).unwrap().replacen("[[notes]]", &note, 1);
    std::fs::write(&spec, text).unwrap();
    (Study::load(&dir).unwrap(), secret.to_string())
}

#[test]
#[ignore = "needs mdBook (.ci/run installs it): run with --include-ignored"]
fn mdbook_reads_no_file_a_study_names_into_the_book() {
    let tmp = tempfile::tempdir().unwrap();
    let (study, secret) = hostile(tmp.path());
    let site = Site::build(&[study], &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap();
    let out = tmp.path().join("site");
    site.write(&out).unwrap();
    let dir = out.join("md/en");
    let done = Command::new("mdbook").arg("build").current_dir(&dir).output().expect("mdbook is not installed");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let page = std::fs::read_to_string(dir.join("book/hostile.html")).unwrap();
    assert!(page.contains("{{#include"), "the directive is shown as text");
    assert_eq!(common::holding(&dir.join("book"), &[&secret]), Vec::<String>::new());
}

#[test]
#[ignore = "needs mkdocs (.ci/run installs it with .ci/mkdocs-venv.sh): run with --include-ignored"]
fn mkdocs_reads_no_file_a_study_names_into_the_site() {
    let mkdocs = common::mkdocs();
    let tmp = tempfile::tempdir().unwrap();
    let (study, secret) = hostile(tmp.path());
    let site = Site::build(&[study], &Renderer::new(None).unwrap(), Flavor::Mkdocs).unwrap();
    let docs = tmp.path().join("docs");
    for (path, bytes) in &site.files {
        if let Some(rel) = path.strip_prefix("md/en/")
            && rel != "SUMMARY.md"
            && rel != "book.toml"
        {
            let to = docs.join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, bytes).unwrap();
        }
    }
    std::fs::write(docs.join("index.md"), "# Guides\n\n- [hostile](hostile.md)\n").unwrap();
    // GPUStack's extensions, and snippets that may read the folder the secret lies in.
    let config = std::fs::read_to_string(root().join("tests/fixtures/mkdocs/mkdocs.yml")).unwrap();
    let snippets = format!("  - pymdownx.snippets:\n      base_path: [\"{}\"]\n", tmp.path().display());
    std::fs::write(tmp.path().join("mkdocs.yml"), format!("{}{snippets}", config.replace("LANGUAGE", "en"))).unwrap();
    let done = Command::new(&mkdocs)
        .args(["build", "--site-dir", "built"])
        .current_dir(tmp.path())
        .env("NO_MKDOCS_2_WARNING", "1")
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let page = std::fs::read_to_string(tmp.path().join("built/hostile/index.html")).unwrap();
    assert!(page.contains("--8&lt;--") || page.contains("--8<--"), "the snippet is shown as text");
    assert_eq!(common::holding(&tmp.path().join("built"), &[&secret]), Vec::<String>::new());
}
