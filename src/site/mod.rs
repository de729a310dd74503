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
use crate::render::i18n::SOURCE_LOCALE;
use crate::render::markdown::{self, url_path};
use crate::render::view::{self, Links, Relinks};
use crate::render::{Flavor, Renderer};
use crate::study::Study;
use anyhow::Context;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

mod reuse;
pub use reuse::RECORD;

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

/// The files the previous build in `out` wrote for the studies `ids` that this build does not
/// write (`written`) and that are still there: the pages a study that did not load keeps.
fn kept_files(out: &Path, ids: &[String], written: &dyn Fn(&str) -> bool) -> BTreeSet<String> {
    if ids.is_empty() {
        return BTreeSet::new();
    }
    let previous = crate::durable::read_text(&out.join(FILE_LIST), MAX_LIST_BYTES).unwrap_or_default();
    previous
        .lines()
        .filter(|rel| ids.iter().any(|id| belongs_to(rel, id)) && !written(rel) && out.join(rel).is_file())
        .map(str::to_string)
        .collect()
}

/// A new site being written beside the old one in `out`, which it replaces whole when it is
/// finished ([`Folder::finish`]).
struct Folder {
    out: std::path::PathBuf,
    fresh: std::path::PathBuf,
    /// The files the previous build listed.
    listed: BTreeSet<String>,
    /// Folders made so far in `fresh`, and whether each (relative) is a real folder of `out`.
    dirs: std::sync::Mutex<std::collections::HashMap<String, bool>>,
    /// The files written so far, each of a study's with the hash of its bytes ([`reuse`]).
    written: std::sync::Mutex<BTreeMap<String, Option<blake3::Hash>>>,
    /// What each study's files are made from, for the record of this build.
    keys: BTreeMap<String, reuse::Key>,
    /// The studies whose files are those of the old site ([`Folder::record_keys`]).
    reused: BTreeSet<String>,
    /// The build's lock on the site, held while the folder lives.
    _lock: std::fs::File,
}

impl Folder {
    fn open(out: &Path) -> anyhow::Result<Folder> {
        let out = match std::fs::symlink_metadata(out) {
            // A site folder that is a link: the folder it points to is replaced, not the link.
            Ok(m) if m.file_type().is_symlink() => {
                out.canonicalize().with_context(|| format!("cannot follow '{}'", out.display()))?
            }
            Ok(m) if !m.is_dir() => anyhow::bail!("'{}' is not a folder", out.display()),
            _ => out.to_path_buf(),
        };
        // One build at a time into a site: a second one would share the new folder's name and
        // remove or swap what the first is writing.
        let lock_path = crate::durable::beside(&out, "lock");
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        let lock = match crate::durable::lock(&lock_path)
            .with_context(|| format!("cannot lock '{}'", lock_path.display()))?
        {
            Ok(file) => file,
            Err(crate::durable::Held(holder)) => anyhow::bail!(
                "another perflab build (process {holder}) is writing '{}'; run this one when it has finished (its lock is '{}')",
                out.display(),
                lock_path.display()
            ),
        };
        let fresh = crate::durable::beside(&out, "new");
        crate::durable::remove_tree(&fresh).with_context(|| format!("cannot remove '{}'", fresh.display()))?;
        std::fs::create_dir_all(&fresh).with_context(|| format!("cannot create '{}'", fresh.display()))?;
        let previous = crate::durable::read_text(&out.join(FILE_LIST), MAX_LIST_BYTES).unwrap_or_default();
        let listed = previous.lines().map(str::to_string).collect();
        Ok(Folder {
            _lock: lock,
            out,
            fresh,
            listed,
            dirs: Default::default(),
            written: Default::default(),
            keys: BTreeMap::new(),
            reused: BTreeSet::new(),
        })
    }

    /// Writes `bytes` as the file `rel` of the new site; a file the previous site holds as it
    /// is gets a second name rather than a new copy ([`link_same`]).
    fn write(&self, rel: String, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.fresh.join(&rel);
        let parent = rel.rsplit_once('/').map(|(dir, _)| dir);
        let real = match parent {
            Some(dir) => self.folder(dir)?,
            None => true,
        };
        if !(real && link_same(&self.out.join(&rel), &path, bytes)) {
            std::fs::write(&path, bytes).with_context(|| format!("cannot write '{}'", path.display()))?;
        }
        self.wrote(rel, bytes);
        Ok(())
    }

    /// Notes that the new site has the file `rel` with `bytes`.
    fn wrote(&self, rel: String, bytes: &[u8]) {
        let hash = study_of(&rel).map(|_| blake3::hash(bytes));
        self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(rel, hash);
    }

    /// Makes the folder `dir` (relative) in the new site, once; returns whether it is a real
    /// folder of the old one all the way down ([`real_folder`]).
    fn folder(&self, dir: &str) -> anyhow::Result<bool> {
        if let Some(&real) = self.dirs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(dir) {
            return Ok(real);
        }
        let path = self.fresh.join(dir);
        std::fs::create_dir_all(&path).with_context(|| format!("cannot create '{}'", path.display()))?;
        let real = real_folder(&self.out, Path::new(dir));
        self.dirs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(dir.to_string(), real);
        Ok(real)
    }

    /// Finishes the new site after `made` (what writing its files came to): carries over what
    /// the old one holds that this build neither writes nor removes, with `kept`, writes the
    /// list of files, flushes the file system once and puts the new folder in the old one's
    /// place. After a failure, or after the swap (when it holds the old site), the folder
    /// beside is removed. Returns how many files the site has.
    fn finish(self, made: anyhow::Result<()>, kept: &BTreeSet<String>) -> anyhow::Result<usize> {
        let written = self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let swapped = made.and_then(|()| {
            let carried = |rel: &str| {
                rel != FILE_LIST
                    && rel != RECORD
                    && !written.contains_key(rel)
                    && (kept.contains(rel) || !self.listed.contains(rel))
            };
            crate::durable::copy_tree(&self.out, &self.fresh, &carried)?;
            let list: BTreeSet<&String> = written.keys().chain(kept).collect();
            let list: String = list.into_iter().map(|f| format!("{f}\n")).collect();
            let path = self.fresh.join(FILE_LIST);
            std::fs::write(&path, list).with_context(|| format!("cannot write '{}'", path.display()))?;
            if !self.keys.is_empty() {
                let path = self.fresh.join(RECORD);
                std::fs::write(&path, reuse::record(&self.keys, &written))
                    .with_context(|| format!("cannot write '{}'", path.display()))?;
            }
            crate::durable::sync_filesystem(&self.fresh)
                .with_context(|| format!("cannot flush '{}'", self.fresh.display()))?;
            crate::durable::swap(&self.fresh, &self.out)
                .with_context(|| format!("cannot replace '{}'", self.out.display()))
        });
        let _ = crate::durable::remove_tree(&self.fresh);
        swapped.map(|()| written.len() + 1 + usize::from(!self.keys.is_empty()))
    }
}

/// Where a build puts each file it makes (by path relative to the site folder): into memory
/// ([`Site::build`]) or straight into the new folder ([`build_into`]). Called from every core.
trait Sink: Sync {
    /// The file `rel` holds `bytes`.
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()>;
    /// The file `rel` holds `bytes`, as the file `of` this build put before it does.
    fn copy(&self, rel: String, of: &str, bytes: &[u8]) -> anyhow::Result<()>;
    /// Whether the study `id` has its files already, as the previous build made them
    /// ([`Folder::record_keys`]): then it is not rendered.
    fn reused(&self, _id: &str) -> bool {
        false
    }
}

/// The files of a site kept in memory.
#[derive(Default)]
struct InMemory(std::sync::Mutex<BTreeMap<String, Vec<u8>>>);

impl Sink for InMemory {
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(rel, bytes);
        Ok(())
    }

    fn copy(&self, rel: String, _: &str, bytes: &[u8]) -> anyhow::Result<()> {
        self.put(rel, bytes.to_vec())
    }
}

impl Sink for Folder {
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.write(rel, &bytes)
    }

    fn reused(&self, id: &str) -> bool {
        self.reused.contains(id)
    }

    /// A second name for the new site's file `of`: the copies of a study's exports are one file.
    fn copy(&self, rel: String, of: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.fresh.join(&rel);
        if let Some((dir, _)) = rel.rsplit_once('/') {
            self.folder(dir)?;
        }
        if std::fs::hard_link(self.fresh.join(of), &path).is_err() {
            return self.write(rel, bytes);
        }
        self.wrote(rel, bytes);
        Ok(())
    }
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
            let Some((csv, json)) = &exports[i] else { return Ok(()) };
            let Rendered { charts, png, md, html } = render_study(&work, i, locale)?;
            for (name, svg) in charts {
                to.put(format!("md/{locale}/{id}/{name}"), svg.into_bytes())?;
            }
            to.put(format!("md/{locale}/{id}/{}", crate::render::png::SUMMARY_PNG), png)?;
            to.copy(format!("md/{locale}/{id}/{id}.csv"), &format!("md/data/{id}.csv"), csv)?;
            to.copy(format!("md/{locale}/{id}/{id}.json"), &format!("md/data/{id}.json"), json)?;
            to.put(format!("md/{locale}/{id}.md"), md.into_bytes())?;
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

/// Whether `dir` (relative) is a folder of the site in `out` all the way down, not a link to
/// elsewhere at any step.
fn real_folder(out: &Path, dir: &Path) -> bool {
    dir.ancestors().all(|a| std::fs::symlink_metadata(out.join(a)).is_ok_and(|m| m.is_dir()))
}

/// Gives `path` the previous site's file `old` as a second name, where that is a plain file that
/// holds exactly `bytes`: the file system then allocates no new file and nothing is written (on
/// a disk whose previous build's files were just freed, allocating one is what costs most).
/// False where it is not, or cannot be read or linked; the caller then writes the file.
fn link_same(old: &Path, path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Some(mut file) = open_plain(old) else { return false };
    if !file.metadata().is_ok_and(|m| m.len() == bytes.len() as u64) {
        return false;
    }
    let mut chunk = vec![0u8; (64 << 10).min(bytes.len() + 1)];
    let mut at = 0;
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) if bytes.get(at..at + n) == Some(&chunk[..n]) => at += n,
            _ => return false,
        }
    }
    at == bytes.len() && link_file(&file, path)
}

/// The file `path` opened for reading, where it is a plain file (not a link, nor a folder).
fn open_plain(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(crate::durable::NOFOLLOW).open(path).ok()?;
    file.metadata().is_ok_and(|m| m.is_file()).then_some(file)
}

/// Gives the open `file` the second name `path`; false where it cannot. The file just read, by
/// its descriptor, not whatever its old name names by now.
fn link_file(file: &std::fs::File, path: &Path) -> bool {
    use rustix::fs::{AtFlags, CWD, linkat};
    let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
    linkat(CWD, from.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW).is_ok()
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
                name: c.msg("language-name")?,
                title: c.msg("site-title")?,
                href: href(&format!("{l}/index.html")),
                current: false,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    ctx.insert("lang", &root_locale);
    ctx.insert("title", &renderer.catalog(&root_locale)?.msg("site-title")?);
    ctx.insert("home", "index.html");
    ctx.insert("assets", "");
    ctx.insert("current", "root");
    ctx.insert("languages", &languages);
    Ok(renderer.html(&root_locale, "root.html.tera", ctx)?)
}

/// page and its HTML page.
struct Rendered {
    charts: Vec<(String, String)>,
    /// The summary chart the Markdown page opens with.
    png: Vec<u8>,
    md: String,
    html: String,
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

/// Where a site will be served (`perflab build --site-url`): an `http` or `https` address,
/// kept with a closing `/`. Open Graph wants absolute addresses, so a page names its own and
/// its summary image's only when the build knows this one. It takes what a browser takes as a
/// site's address, written plainly: the scheme in any case, a host name, an IPv4 address or a
/// bracketed IPv6 one, a port from 1 to 65535, and a path without `.` or `..` segments; no user
/// or password, query or fragment. Scheme and host are kept in lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteUrl(String);

impl std::str::FromStr for SiteUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<SiteUrl, String> {
        let refuse = |why: &str| Err(format!("`{text}` {why}"));
        let Some((scheme, rest)) = text.split_once("://") else {
            return refuse("is not an http:// or https:// address");
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return refuse("is not an http:// or https:// address");
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.contains('@') {
            return refuse("holds a user or password; a site's address names none");
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((inside, after)) if inside.parse::<std::net::Ipv6Addr>().is_ok() => (format!("[{inside}]"), after),
                _ => return refuse("holds no valid bracketed IPv6 address"),
            },
            None => {
                let (host, after) = authority.split_at(authority.find(':').unwrap_or(authority.len()));
                match host_problem(host) {
                    Some(why) => return refuse(&why),
                    None => (host.to_ascii_lowercase(), after),
                }
            }
        };
        let port = match port {
            "" => String::new(),
            p => match p.strip_prefix(':').map(|n| (n, n.parse::<u16>())) {
                Some((n, Ok(v))) if v > 0 && n.bytes().all(|b| b.is_ascii_digit()) => format!(":{v}"),
                _ => return refuse("has a port that is not a number from 1 to 65535"),
            },
        };
        for segment in path.split('/').skip(1) {
            if segment == "." || segment == ".." {
                return refuse("has a `.` or `..` in its path");
            }
            // An address a page prints as it is: no query, fragment, quote, space or markup.
            if let Some(c) = segment.chars().find(|c| !(c.is_ascii_alphanumeric() || "-._~%+".contains(*c))) {
                return refuse(&format!("holds `{c}`, which a site's address here may not"));
            }
            let bytes = segment.as_bytes();
            let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
            if (0..bytes.len()).any(|i| bytes[i] == b'%' && !(hex(i + 1) && hex(i + 2))) {
                return refuse("has a `%` that is not followed by two hexadecimal digits");
            }
        }
        let slash = if path.ends_with('/') { "" } else { "/" };
        Ok(SiteUrl(format!("{scheme}://{host}{port}{path}{slash}")))
    }
}

/// Why `host` is no host name or IPv4 address a site may be served at, or `None` when it is one:
/// dot-separated labels of letters, digits and `-` (not at a label's ends), 1 to 63 characters
/// each and 253 in all; four numbers from 0 to 255 when every label is a number.
fn host_problem(host: &str) -> Option<String> {
    if host.is_empty() {
        return Some("names no host".to_string());
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.iter().all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())) {
        return host.parse::<std::net::Ipv4Addr>().is_err().then(|| "has an IPv4 address out of range".to_string());
    }
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    (host.len() > 253 || !labels.iter().all(label_ok)).then(|| "names no valid host".to_string())
}

impl SiteUrl {
    /// The absolute address of `path` in the site.
    pub fn join(&self, path: &str) -> String {
        format!("{}{}", self.0, url_path(path))
    }
}

/// The links of a study's HTML page in `locale` to its charts and exports.
fn html_links(locale: &str, id: &str) -> Links {
    Links { charts: format!("../md/{locale}/{id}/"), data: "../md/data/".to_string(), summary_image: false }
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

/// Study `i`'s charts and pages in `locale`.
fn render_study(work: &Work<'_>, i: usize, locale: &str) -> anyhow::Result<Rendered> {
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
        md = format!("<div lang=\"{}\">\n\n{md}\n</div>\n", html::escape(locale));
    }
    let mut ctx = page_context(locale, work.locales, renderer, id, &format!("{id}.html"))?;
    ctx.insert("title", study.spec.title.get(locale));
    // What a search result or a link preview shows under the title: the study's goal.
    if let Some(goal) = &study.spec.goal {
        ctx.insert("description", goal.get(locale));
    }
    if let Some(url) = work.url {
        ctx.insert("canonical", &url.join(&format!("{locale}/{id}.html")));
        ctx.insert("preview_image", &url.join(&format!("{charts_dir}{}", crate::render::png::SUMMARY_PNG)));
    }
    ctx.insert("body", &page.body);
    ctx.insert("toc", &page.toc);
    let html = renderer.html(locale, "page.html.tera", ctx)?;
    Ok(Rendered { charts, png, md, html })
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
        quote(locale)
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
                name: renderer.catalog(l)?.msg("language-name")?,
                title: String::new(),
                href: href(&format!("../{l}/{file}")),
                current: l == locale,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let mut ctx = tera::Context::new();
    ctx.insert("lang", locale);
    ctx.insert("home", "index.html");
    ctx.insert("assets", "../");
    ctx.insert("current", current);
    ctx.insert("languages", &languages);
    Ok(ctx)
}

#[cfg(test)]
mod tests {
    use super::{SiteUrl, card_hardware, link_same};
    use std::os::unix::fs::MetadataExt;

    /// What a browser would take as a site's address, and what it would not.
    #[test]
    fn a_site_address_is_one_a_browser_takes() {
        let kept = [
            ("https://guides.example.org/perf", "https://guides.example.org/perf/"),
            ("HTTPS://Guides.Example.org/", "https://guides.example.org/"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
            ("http://[::1]:3000/docs/", "http://[::1]:3000/docs/"),
            ("https://a-b.example/x%20y/v1.2", "https://a-b.example/x%20y/v1.2/"),
            ("https://localhost", "https://localhost/"),
        ];
        for (text, url) in kept {
            assert_eq!(text.parse::<SiteUrl>().map(|u| u.0), Ok(url.to_string()), "{text}");
        }
        let refused = [
            ("https://user:pass@host/", "user or password"),
            ("https://host/a/../b", "`.` or `..`"),
            ("https://host/./b", "`.` or `..`"),
            ("https://host:99999999/", "port"),
            ("https://host:0/", "port"),
            ("https://host:/", "port"),
            ("https://-/", "no valid host"),
            ("https://a..b/", "no valid host"),
            ("https://host-.example/", "no valid host"),
            ("https://host/%", "`%`"),
            ("https://host/%zz", "`%`"),
            ("https://256.1.1.1/", "IPv4"),
            ("https://[::g]/", "IPv6"),
            ("https://[::1/", "IPv6"),
            ("https:///x", "no host"),
            ("https://host/?q=1", "`?`"),
            ("https://host/a\"b", "`\"`"),
            ("ftp://host/", "http:// or https://"),
            ("javascript:alert(1)", "http:// or https://"),
        ];
        for (text, why) in refused {
            let e = text.parse::<SiteUrl>().unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn a_file_the_old_site_holds_as_it_is_gets_a_second_name() {
        let tmp = tempfile::tempdir().unwrap();
        let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
        std::fs::write(&old, "page").unwrap();
        assert!(link_same(&old, &new, b"page"));
        let inode = |p: &std::path::Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(inode(&old), inode(&new));
        // Other bytes, other length, a link or nothing at all: the caller writes the file.
        assert!(!link_same(&old, &tmp.path().join("a"), b"pagf"));
        assert!(!link_same(&old, &tmp.path().join("b"), b"pages"));
        assert!(!link_same(&old, &tmp.path().join("c"), b""));
        std::os::unix::fs::symlink(&old, tmp.path().join("link")).unwrap();
        assert!(!link_same(&tmp.path().join("link"), &tmp.path().join("d"), b"page"));
        assert!(!link_same(&tmp.path().join("none"), &tmp.path().join("e"), b"page"));
        for name in ["a", "b", "c", "d", "e"] {
            assert!(!tmp.path().join(name).exists(), "{name}");
        }
    }

    #[test]
    fn hardware_is_written_count_first_on_every_card() {
        assert_eq!(card_hardware("8 × NVIDIA H200 SXM (one node)"), "8 × NVIDIA H200 SXM");
        assert_eq!(card_hardware("NVIDIA H100 SXM ×4 (one node)"), "4 × NVIDIA H100 SXM");
        assert_eq!(card_hardware("NVIDIA H200 ×8"), "8 × NVIDIA H200");
        assert_eq!(card_hardware("8 × NVIDIA H200 SXM（单节点）"), "8 × NVIDIA H200 SXM");
        assert_eq!(card_hardware("Huawei Ascend 910B NPU"), "Huawei Ascend 910B NPU");
        // A "×" that is not a count stays as written.
        assert_eq!(card_hardware("NVIDIA H200 × many"), "NVIDIA H200 × many");
        assert_eq!(card_hardware("×8"), "×8");
    }
}
