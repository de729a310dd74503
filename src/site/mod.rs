//! The site: every page of every study in every language, as Markdown (for mdBook) and HTML,
//! with charts and exports. `perflab build` writes each file into a new folder as soon as it is
//! made ([`build_into`]), and that folder replaces the old one whole, so that a failed or stopped
//! build leaves the previous site as it was; [`Site::build`] keeps the files in memory instead.
//!
//! ```text
//! site/index.html                       languages
//! site/<locale>/index.html              the studies
//! site/<locale>/<study>.html            a study's page
//! site/md/SUMMARY.md                    the mdBook (all languages), book.toml points here
//! site/md/perflab.css                   the marks of gains and losses, for mdBook and mkdocs
//! site/md/<locale>/SUMMARY.md           one language's book, with its book.toml and perflab.css
//! site/md/<locale>/<study>.md           a study's page as Markdown
//! site/md/<locale>/<study>/*.svg        its charts
//! site/md/<locale>/<study>/summary.png  its summary chart, which the Markdown page opens with
//! site/md/<locale>/<study>/<study>.csv  its exports beside it (and .json): a page and its
//!                                       folder copied into another site keep every link
//! site/md/data/<study>.csv / .json      exports: every run, the analysis (the HTML pages')
//! ```
//!
//! Pages in another language than the book's (`book.toml`, English) are wrapped in
//! `<div lang="…">` in the CommonMark flavour, so that the bilingual book marks them as such.

use crate::analysis::{Analysis, analyze};
use crate::render::html;
use crate::render::i18n::{self, SOURCE_LOCALE};
use crate::render::markdown::{self, url_path};
use crate::render::view::{self, Links, Relinks};
use crate::render::{Flavor, Renderer};
use crate::study::Study;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

mod folder;
mod reuse;
mod url;

use folder::{Folder, InMemory, Sink, kept_files};
pub use reuse::RECORD;
pub use url::SiteUrl;

/// The list of files a build wrote, kept in the site folder so the next build can remove the
/// ones it no longer writes.
pub const FILE_LIST: &str = ".perflab-files";
/// The largest list of files (or record of inputs) a build reads from the previous site, far
/// more than a site of thousands of studies lists; anything larger, or not a plain file (a
/// FIFO would hang the build), is no list.
const MAX_LIST_BYTES: u64 = 64 << 20;

/// The site's script, at its root: the only script its Content-Security-Policy allows.
pub const SCRIPT: &str = "perflab.js";

/// Files of a site by path relative to its folder.
#[derive(Debug, Default)]
pub struct Site {
    pub files: BTreeMap<String, Vec<u8>>,
    /// Files of the previous build kept as they are: the pages of studies this build could not load.
    pub kept: BTreeSet<String>,
}

/// Whether `rel` (a path in a site folder) is one of the files of study `id`: its pages, charts
/// and exports.
fn belongs_to(rel: &str, id: &str) -> bool {
    study_of(rel) == Some(id)
}

/// The study whose file `rel` (a path in a site folder) is: one of its pages, charts or exports.
/// None for most files of the whole site (style sheets, books, the script); a language's
/// `index.html` and `SUMMARY.md` have the shape of a study's page and name no study there is.
fn study_of(rel: &str) -> Option<&str> {
    let mut parts = rel.split('/');
    let parts: [Option<&str>; 5] = std::array::from_fn(|_| parts.next());
    match parts {
        [Some(_), Some(file), None, ..] => file.strip_suffix(".html"),
        [Some("md"), Some("data"), Some(file), None, _] => file.strip_suffix(".csv").or(file.strip_suffix(".json")),
        [Some("md"), Some(_), Some(file), None, _] => file.strip_suffix(".md"),
        [Some("md"), Some(locale), Some(dir), Some(_), None] if locale != "data" => Some(dir),
        _ => None,
    }
}

/// The studies whose pages the site in `out` holds, from its list of files.
pub fn published_studies(out: &Path) -> BTreeSet<String> {
    let list = crate::durable::read_text(&out.join(FILE_LIST), MAX_LIST_BYTES).unwrap_or_default();
    list.lines().filter_map(|l| l.strip_prefix("md/data/")?.strip_suffix(".json")).map(str::to_string).collect()
}

#[derive(Serialize)]
struct Language {
    locale: String,
    /// What `lang` and `hreflang` say: [`i18n::language_tag`].
    tag: String,
    name: String,
    title: String,
    href: String,
    current: bool,
}

#[derive(Serialize)]
struct IndexItem {
    title: String,
    href: String,
    model: String,
    hardware: String,
    /// Every engine of the study with the versions that measured its results (versions are
    /// not relabelled by a later bump in the study).
    engines: String,
    /// When those results were measured, said once.
    dates: String,
    headline: String,
    /// What the index's filter matches, in lower case: title, model, hardware and engines.
    search: String,
}

impl Site {
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    /// Builds the whole site from loaded studies.
    pub fn build(studies: &[Study], renderer: &Renderer, flavor: Flavor) -> anyhow::Result<Site> {
        Site::build_at(studies, renderer, flavor, None)
    }

    /// [`Site::build`] for a site that will be served at `url`: each study page names its
    /// address and the summary image a link preview shows.
    pub fn build_at(
        studies: &[Study],
        renderer: &Renderer,
        flavor: Flavor,
        url: Option<&SiteUrl>,
    ) -> anyhow::Result<Site> {
        let files = InMemory::default();
        make(studies, renderer, flavor, url, &files)?;
        let files = files.0.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut site = Site { files, ..Site::default() };
        let list: String = site.files.keys().map(|f| format!("{f}\n")).collect();
        site.add(FILE_LIST.to_string(), list.into_bytes());
        Ok(site)
    }

    /// Keeps the files the previous build in `out` wrote for the studies `ids` (studies this
    /// build could not load): they are neither removed nor rewritten, and stay in the list.
    pub fn keep(&mut self, out: &Path, ids: &[String]) {
        self.kept.extend(kept_files(out, ids, &|rel| self.files.contains_key(rel)));
        let list: BTreeSet<&String> = self.files.keys().filter(|f| *f != FILE_LIST).chain(&self.kept).collect();
        let list: String = list.into_iter().map(|f| format!("{f}\n")).collect();
        self.add(FILE_LIST.to_string(), list.into_bytes());
    }

    /// Writes the site into `out` as one change, as `perflab build` does: every file goes into a
    /// new folder beside it, with what the previous site holds that this build neither writes nor
    /// removes (files perflab did not write, the pages it keeps), the file system is flushed
    /// once, and the new folder takes the old one's place in one rename. A reader, or the disk after a
    /// crash, sees the old site or the new one, never a mix. Returns how many files the site
    /// has. Files the previous build wrote (listed in `.perflab-files`) that this one does not
    /// write or keep are left out of the new folder; nothing else of `out` is lost.
    pub fn write(&self, out: &Path) -> anyhow::Result<usize> {
        let folder = Folder::open(out)?;
        // Files are compared, linked and written on every core: each has a path of its own.
        let files: Vec<(&String, &Vec<u8>)> = self.files.iter().filter(|(rel, _)| *rel != FILE_LIST).collect();
        let done: anyhow::Result<()> =
            crate::parallel::map(files.len(), |i| folder.write(files[i].0.clone(), files[i].1)).into_iter().collect();
        folder.finish(done, &self.kept)
    }
}

/// Builds the site of `studies` into `out` as [`Site::write`] writes one, each file written into
/// the new folder as soon as it is made rather than the whole site held in memory first; the
/// pages of the studies `broken` (which did not load) are kept as the previous build wrote them
/// ([`Site::keep`]); with [`Reuse::Unchanged`], the studies whose files the previous build made
/// from the same inputs keep them ([`reuse`]).
pub fn build_into(
    studies: &[Study],
    renderer: &Renderer,
    flavor: Flavor,
    url: Option<&SiteUrl>,
    out: &Path,
    broken: &[String],
    reuse: Reuse,
) -> anyhow::Result<Built> {
    let mut folder = Folder::open(out)?;
    folder.record_keys(studies, renderer, flavor, url, reuse);
    let made = make(studies, renderer, flavor, url, &folder);
    let written = folder.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let kept = kept_files(&folder.out, broken, &|rel| written.contains_key(rel));
    let reused = folder.reused.len();
    Ok(Built { files: folder.finish(made, &kept)?, reused })
}

/// Whether a build takes the files of unchanged studies from the previous site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// Each study whose inputs are those its files in the site were made from keeps them.
    Unchanged,
    /// Every study is rendered (`perflab build --render-all`).
    RenderAll,
}

/// What [`build_into`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Built {
    /// The files the site has.
    pub files: usize,
    /// The studies whose files are those of the previous site, not rendered again.
    pub reused: usize,
}

/// Makes every file of the site of `studies` but the list of files, each handed to `to`.
fn make(
    studies: &[Study],
    renderer: &Renderer,
    flavor: Flavor,
    url: Option<&SiteUrl>,
    to: &dyn Sink,
) -> anyhow::Result<()> {
    let analyses: Vec<Analysis> = crate::parallel::map(studies.len(), |i| analyze(&studies[i]));
    let locales = renderer.locales();
    let mut summary_all = String::from("# Summary\n");
    let work = Work {
        studies,
        analyses: &analyses,
        locales: &locales,
        renderer,
        flavor,
        drawn: Drawn::default(),
        source_ids: studies.iter().map(|_| OnceLock::new()).collect(),
        url,
    };
    let exports = crate::parallel::map(studies.len(), |i| -> anyhow::Result<_> {
        let (study, analysis) = (&studies[i], &analyses[i]);
        if to.reused(&study.id) {
            return Ok(None);
        }
        let (csv, json) = (crate::render::exports::csv(study, analysis)?, crate::render::exports::json(analysis)?);
        to.put(format!("md/data/{}.csv", study.id), csv.clone())?;
        to.put(format!("md/data/{}.json", study.id), json.clone())?;
        Ok(Some((csv, json)))
    });
    let exports: Vec<Option<(Vec<u8>, Vec<u8>)>> = exports.into_iter().collect::<anyhow::Result<_>>()?;
    to.put("md/perflab.css".to_string(), renderer.markdown_css().as_bytes().to_vec())?;
    for locale in &locales {
        let catalog = renderer.catalog(locale)?;
        to.put(format!("md/{locale}/book.toml"), book_toml(&catalog.msg("site-title")?, locale).into_bytes())?;
        to.put(format!("md/{locale}/perflab.css"), renderer.markdown_css().as_bytes().to_vec())?;
        let mut summary = String::from("# Summary\n\n");
        summary_all.push_str(&format!("\n# {}\n\n", catalog.msg("language-name")?));
        // A study's charts and pages in this language, rendered and handed on on every core.
        let done = crate::parallel::map(studies.len(), |i| -> anyhow::Result<()> {
            let id = &studies[i].id;
            let Some(exports) = &exports[i] else { return Ok(()) };
            let (page, html) = render_study(&work, i, locale)?;
            put_drop_in(to, &format!("md/{locale}/"), id, page, exports)?;
            to.put(format!("{locale}/{id}.html"), html.into_bytes())
        });
        let mut index = Vec::new();
        for ((study, analysis), done) in studies.iter().zip(&analyses).zip(done) {
            done?;
            let id = &study.id;
            let title = study.spec.title.get(locale).to_string();
            let link = url_path(&format!("{id}.md"));
            summary.push_str(&format!("- [{}]({link})\n", markdown::plain(&title)));
            summary_all.push_str(&format!(
                "- [{}]({})\n",
                markdown::plain(&title),
                url_path(&format!("{locale}/{id}.md"))
            ));
            index.push(index_item(study, analysis, catalog, locale, title)?);
        }
        to.put(format!("md/{locale}/SUMMARY.md"), summary.into_bytes())?;
        let mut ctx = page_context(locale, &locales, renderer, "index", "index.html")?;
        ctx.insert("title", &catalog.msg("site-title")?);
        ctx.insert("studies", &index);
        to.put(format!("{locale}/index.html"), renderer.html(locale, "index.html.tera", ctx)?.into_bytes())?;
    }
    to.put("md/SUMMARY.md".to_string(), summary_all.into_bytes())?;
    // The site's one script (copy buttons on commands); every page works without it.
    to.put(SCRIPT.to_string(), renderer.script().as_bytes().to_vec())?;
    to.put("index.html".to_string(), root_page(renderer, &locales)?.into_bytes())
}

/// What a study's pages in one language are made of: its charts (file name, SVG), its Markdown
/// A study's card on a language's index.
fn index_item(
    study: &Study,
    analysis: &Analysis,
    catalog: &crate::render::i18n::Catalog,
    locale: &str,
    title: String,
) -> anyhow::Result<IndexItem> {
    let engines: Vec<String> = study.spec.engines.iter().map(|e| e.name.clone()).collect();
    let full_hardware = study.spec.hardware.get(locale);
    let search = search_words(&[&title, &study.spec.model, full_hardware, &engines.join(" ")]);
    let (engines, dates) = view::card_engines(study, analysis, catalog)?;
    Ok(IndexItem {
        title,
        href: href(&format!("{}.html", study.id)),
        model: study.spec.model.clone(),
        hardware: card_hardware(full_hardware),
        engines,
        dates,
        headline: view::headline(study, analysis, catalog)?,
        search,
    })
}

/// The entry page, in the source language, which leads to every language's index.
fn root_page(renderer: &Renderer, locales: &[String]) -> anyhow::Result<String> {
    let source = crate::render::i18n::SOURCE_LOCALE;
    let root_locale = if locales.iter().any(|l| l == source) { source.to_string() } else { locales[0].clone() };
    let mut ctx = tera::Context::new();
    let languages: Vec<Language> = locales
        .iter()
        .map(|l| {
            let c = renderer.catalog(l)?;
            Ok(Language {
                locale: l.clone(),
                tag: i18n::language_tag(l).to_string(),
                name: c.msg("language-name")?,
                title: c.msg("site-title")?,
                href: href(&format!("{l}/index.html")),
                current: false,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    ctx.insert("lang", i18n::language_tag(&root_locale));
    // Every language's title, the source language's first: the page that chooses a language
    // is headed in each of them.
    let headed: Vec<&Language> = languages
        .iter()
        .filter(|l| l.locale == root_locale)
        .chain(languages.iter().filter(|l| l.locale != root_locale))
        .collect();
    ctx.insert("title", &headed.iter().map(|l| l.title.as_str()).collect::<Vec<_>>().join(" · "));
    ctx.insert("headings", &headed);
    ctx.insert("home", "index.html");
    ctx.insert("assets", "");
    ctx.insert("current", "root");
    ctx.insert("languages", &languages);
    Ok(renderer.html(&root_locale, "root.html.tera", ctx)?)
}

/// page.
struct DropIn {
    charts: Vec<(String, String)>,
    /// The summary chart the Markdown page opens with.
    png: Vec<u8>,
    md: String,
}

/// Hands on a study's drop-in Markdown page as `<dir><id>.md`, with the folder `<dir><id>/`
/// beside it holding its charts, its summary chart and its exports (CSV, JSON), as
/// [`Links::markdown`] links them: the page and its folder can be copied elsewhere as they are.
fn put_drop_in(
    to: &dyn Sink,
    dir: &str,
    id: &str,
    page: DropIn,
    (csv, json): &(Vec<u8>, Vec<u8>),
) -> anyhow::Result<()> {
    for (name, svg) in page.charts {
        to.put(format!("{dir}{id}/{name}"), svg.into_bytes())?;
    }
    to.put(format!("{dir}{id}/{}", crate::render::png::SUMMARY_PNG), page.png)?;
    to.copy(format!("{dir}{id}/{id}.csv"), &format!("md/data/{id}.csv"), csv)?;
    to.copy(format!("{dir}{id}/{id}.json"), &format!("md/data/{id}.json"), json)?;
    to.put(format!("{dir}{id}.md"), page.md.into_bytes())
}

/// Writes the page of `study` in `locale` into the folder `out` as `perflab report --out`
/// does: `<out>/<id>.md`, the page `perflab report` prints, and `<out>/<id>/` with its charts,
/// summary chart and exports, the files the site's drop-in page in that language has beside
/// it, from the study's `analysis`. Files of `out` that are not the page's are left alone.
/// Returns the page's path.
pub fn write_page(
    study: &Study,
    analysis: &Analysis,
    renderer: &Renderer,
    flavor: Flavor,
    locale: &str,
    out: &Path,
) -> anyhow::Result<std::path::PathBuf> {
    let exports = (crate::render::exports::csv(study, analysis)?, crate::render::exports::json(analysis)?);
    let (catalog, links) = (renderer.catalog(locale)?, Links::markdown(&study.id));
    let charts = view::charts(study, analysis, catalog)?;
    let png = crate::render::png::summary(&view::summary_chart(study, analysis, catalog)?)?;
    let md = renderer.page(study, analysis, locale, flavor, &links)?;
    put_drop_in(&folder::Plain(out.to_path_buf()), "", &study.id, DropIn { charts, png, md }, &exports)?;
    Ok(out.join(format!("{}.md", study.id)))
}

/// Summary charts this build has drawn, by everything they show: studies whose charts say the
/// same (title, profiles, figures, language) share one drawing, the slowest part of a page.
type Drawn = std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>;

/// The summary chart as PNG bytes, drawn unless `drawn` has it already.
fn summary_png(chart: &crate::render::png::Summary, drawn: &Drawn) -> anyhow::Result<Vec<u8>> {
    let key = format!("{chart:?}");
    let lock = || drawn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(png) = lock().get(&key) {
        return Ok(png.clone());
    }
    let png = crate::render::png::summary(chart)?;
    lock().insert(key, png.clone());
    Ok(png)
}

/// What every piece of a build's work shares.
struct Work<'a> {
    studies: &'a [Study],
    analyses: &'a [Analysis],
    locales: &'a [String],
    renderer: &'a Renderer,
    flavor: Flavor,
    drawn: Drawn,
    /// Each study's heading ids in the source language ([`html::heading_ids`]), read once and
    /// borrowed by the languages whose headings do not make ids of their own.
    source_ids: Vec<OnceLock<Vec<(u8, String)>>>,
    /// Where the site will be served, when the build was told.
    url: Option<&'a SiteUrl>,
}

/// The links of a study's HTML page in `locale` to its charts and exports.
fn html_links(locale: &str, id: &str) -> Links {
    Links {
        charts: format!("../md/{locale}/{id}/"),
        data: "../md/data/".to_string(),
        summary_image: false,
        files: true,
    }
}

/// The heading ids study `i`'s HTML page in `locale` borrows from the source language, where
/// it borrows them ([`Renderer::borrows_heading_ids`]).
fn source_ids<'w>(
    work: &'w Work<'_>,
    i: usize,
    locale: &str,
    body_md: &str,
) -> anyhow::Result<Option<&'w [(u8, String)]>> {
    if !work.renderer.borrows_heading_ids(locale, body_md) {
        return Ok(None);
    }
    let cell = &work.source_ids[i];
    if cell.get().is_none() {
        let (study, analysis) = (&work.studies[i], &work.analyses[i]);
        let links = html_links(SOURCE_LOCALE, &study.id);
        let text = work.renderer.page(study, analysis, SOURCE_LOCALE, Flavor::Commonmark, &links)?;
        let _ = cell.set(html::heading_ids(&text));
    }
    Ok(cell.get().map(Vec::as_slice))
}

/// Study `i`'s charts and pages in `locale`: the drop-in Markdown page with its charts, and
/// the HTML page.
fn render_study(work: &Work<'_>, i: usize, locale: &str) -> anyhow::Result<(DropIn, String)> {
    let (study, analysis, renderer, flavor) = (&work.studies[i], &work.analyses[i], work.renderer, work.flavor);
    let (id, catalog) = (&study.id, renderer.catalog(locale)?);
    let charts = view::charts(study, analysis, catalog)?;
    let png = summary_png(&view::summary_chart(study, analysis, catalog)?, &work.drawn)?;
    let links = html_links(locale, id);
    let md_links = Links::markdown(id);
    // The HTML page's Markdown: the drop-in page itself with its charts and exports linked from
    // the HTML page's folder, where it is CommonMark; otherwise the template is rendered again.
    let (mut md, body_md, relinks) = match flavor {
        Flavor::Commonmark => match renderer.page_relinked(study, analysis, locale, &md_links, &links)? {
            (md, Some(relinks)) => (md, None, relinks),
            (md, None) => {
                (md, Some(renderer.page(study, analysis, locale, Flavor::Commonmark, &links)?), Relinks::default())
            }
        },
        Flavor::Mkdocs => {
            let [md, body]: [String; 2] = renderer
                .pages(study, analysis, locale, &[(flavor, &md_links), (Flavor::Commonmark, &links)])?
                .try_into()
                .map_err(|_| anyhow::anyhow!("a page of '{id}' in {locale} was not rendered"))?;
            (md, Some(body), Relinks::default())
        }
    };
    let body_md = body_md.as_deref().unwrap_or(&md);
    if locale == SOURCE_LOCALE {
        // The source page just rendered is the one the other languages borrow ids from.
        let _ = work.source_ids[i].set(html::heading_ids(body_md));
    }
    // A chart goes inline in both its layouts; the style sheet shows one.
    let charts_dir = format!("md/{locale}/{id}/");
    // The study's own charts; any other image stays an image.
    let file = |rel: &str| {
        let name = rel.strip_prefix(&charts_dir)?;
        charts.iter().find(|(n, _)| n == name).map(|(_, svg)| svg.as_str())
    };
    let relink = |url: &str| relinks.target(url);
    let page = html::render_page_relinked(body_md, source_ids(work, i, locale, body_md)?, &relink, &|src| {
        let rel = src.strip_prefix("../")?;
        let (wide, narrow) = (file(rel)?, file(&view::narrow_chart(rel)).unwrap_or_default());
        Some([wide, narrow].concat())
    });
    if flavor == Flavor::Commonmark && locale != SOURCE_LOCALE {
        md = format!("<div lang=\"{}\">\n\n{md}\n</div>\n", html::escape(i18n::language_tag(locale)));
    }
    let mut ctx = page_context(locale, work.locales, renderer, id, &format!("{id}.html"))?;
    ctx.insert("title", study.spec.title.get(locale));
    // What a search result or a link preview shows under the title: the page's answer (the
    // recommended command's gain on the target profile), then the study's goal.
    if let Some(description) = view::description(study, analysis, catalog)? {
        ctx.insert("description", &description);
    }
    if let Some(url) = work.url {
        ctx.insert("canonical", &url.join(&format!("{locale}/{id}.html")));
        ctx.insert("preview_image", &url.join(&format!("{charts_dir}{}", crate::render::png::SUMMARY_PNG)));
    }
    ctx.insert("body", &page.body);
    ctx.insert("toc", &page.toc);
    let html = renderer.html(locale, "page.html.tera", ctx)?;
    Ok((DropIn { charts, png, md }, html))
}

/// What the index's filter matches for a guide: the words of `texts` in lower case, split at
/// anything but letters, digits and `.-_/×` (so `8×H200`, `Qwen/Qwen3-8B` and `v0.5.9` stay whole).
fn search_words(texts: &[&str]) -> String {
    let joined = texts.join(" ").to_lowercase();
    let spaced: String =
        joined.chars().map(|c| if c.is_alphanumeric() || ".-_/×".contains(c) { c } else { ' ' }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The hardware as every index card writes it, "8 × NVIDIA H200 SXM": the count first, from
/// the study's text whichever way it puts it ("NVIDIA H200 ×8" too); what the text adds in
/// parentheses ("(one node)") is left to the page.
fn card_hardware(text: &str) -> String {
    let cut = text.find(['(', '（']).unwrap_or(text.len());
    let text = text[..cut].trim();
    let count = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n > 0);
    if let Some((n, name)) = text.split_once('×').and_then(|(n, name)| Some((count(n)?, name)))
        && !name.trim().is_empty()
    {
        return format!("{n} × {}", name.trim());
    }
    if let Some((name, n)) = text.rsplit_once('×').and_then(|(name, n)| Some((name, count(n)?)))
        && !name.trim().is_empty()
    {
        return format!("{n} × {}", name.trim());
    }
    text.to_string()
}

/// One language's mdBook (`site/md/<locale>/book.toml`): its pages are the folder itself, its
/// `language` the locale, so that mdBook marks every page with it.
fn book_toml(title: &str, locale: &str) -> String {
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    format!(
        "# One language's book: `mdbook build` here writes it to book/.\n\
         [book]\ntitle = {}\nlanguage = {}\nsrc = \".\"\n\n\
         [build]\ncreate-missing = false\n\n\
         [output.html]\nadditional-css = [\"perflab.css\"]\n",
        quote(title),
        quote(i18n::language_tag(locale))
    )
}

/// A link for an HTML attribute (the templates print it as it is): percent-encoded, then
/// HTML-escaped.
fn href(path: &str) -> String {
    html::escape(&url_path(path))
}

/// The navigation of a page in `locale`: the index of guides (the header does not list them, so
/// that it keeps its height however many guides there are), and the same page in other languages.
fn page_context(
    locale: &str,
    locales: &[String],
    renderer: &Renderer,
    current: &str,
    file: &str,
) -> anyhow::Result<tera::Context> {
    let languages: Vec<Language> = locales
        .iter()
        .map(|l| {
            Ok(Language {
                locale: l.clone(),
                tag: i18n::language_tag(l).to_string(),
                name: renderer.catalog(l)?.msg("language-name")?,
                title: String::new(),
                href: href(&format!("../{l}/{file}")),
                current: l == locale,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let mut ctx = tera::Context::new();
    ctx.insert("lang", i18n::language_tag(locale));
    ctx.insert("home", "index.html");
    ctx.insert("assets", "../");
    ctx.insert("current", current);
    ctx.insert("languages", &languages);
    Ok(ctx)
}

#[cfg(test)]
mod tests;
