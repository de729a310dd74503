//! Pages from analyses: tera templates (`templates/`, built in and overridable file by file),
//! Fluent catalogs ([`i18n`]) and the page view ([`view`]).

pub mod charts;
pub mod exports;
pub mod html;
pub mod i18n;
pub mod markdown;
pub mod png;
pub mod reproduce;
pub mod suffix;
pub mod view;

pub use i18n::{Arg, Catalog, I18nError};
pub use view::{Flavor, Links, PageView, Relinks};

use crate::analysis::Analysis;
use crate::study::Study;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use tera::{Tera, Value};

/// Templates built into the binary; a file of the same name in the templates folder replaces one.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("macros.md.tera", include_str!("../../templates/macros.md.tera")),
    ("page.md.tera", include_str!("../../templates/page.md.tera")),
    ("diff.md.tera", include_str!("../../templates/diff.md.tera")),
    ("releases.md.tera", include_str!("../../templates/releases.md.tera")),
    ("layout.html.tera", include_str!("../../templates/layout.html.tera")),
    ("page.html.tera", include_str!("../../templates/page.html.tera")),
    ("index.html.tera", include_str!("../../templates/index.html.tera")),
    ("root.html.tera", include_str!("../../templates/root.html.tera")),
    ("site.css", include_str!("../../templates/site.css")),
    ("markdown.css", include_str!("../../templates/markdown.css")),
    ("perflab.js", include_str!("../../templates/perflab.js")),
];

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    I18n(#[from] I18nError),
    #[error("template error: {0}")]
    Template(String),
    #[error("cannot read template '{path}': {source}")]
    Io { path: String, source: std::io::Error },
}

/// Tera's error with its causes on one line (a missing catalog key is a cause).
fn template_error(e: tera::Error) -> RenderError {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    RenderError::Template(text)
}

/// Renders pages in every language it has a catalog for.
pub struct Renderer {
    catalogs: BTreeMap<String, Arc<Catalog>>,
    tera: HashMap<String, Tera>,
    css: String,
    markdown_css: String,
    script: String,
    /// The hash of every template and catalog this renderer was made from.
    sources: blake3::Hash,
}

impl Renderer {
    /// Loads the built-in templates and catalogs, then those in `templates` (if given), which add
    /// languages or replace built-in files.
    pub fn new(templates: Option<&Path>) -> Result<Renderer, RenderError> {
        let catalogs: BTreeMap<String, Arc<Catalog>> =
            i18n::load_all(templates)?.into_iter().map(|(l, c)| (l, Arc::new(c))).collect();
        let mut sources: Vec<(String, String)> =
            TEMPLATES.iter().map(|(n, s)| (n.to_string(), s.to_string())).collect();
        if let Some(dir) = templates {
            for (name, text) in &mut sources {
                let path = dir.join(&*name);
                if path.is_file() {
                    *text = std::fs::read_to_string(&path)
                        .map_err(|source| RenderError::Io { path: path.display().to_string(), source })?;
                }
            }
        }
        let mut hash = blake3::Hasher::new();
        for (name, text) in &sources {
            hash.update(format!("{name} {}\n", text.len()).as_bytes()).update(text.as_bytes());
        }
        for (locale, catalog) in &catalogs {
            hash.update(format!("{locale}\n").as_bytes()).update(catalog.source_hash().as_bytes());
        }
        let file = |name: &str| sources.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone()).unwrap_or_default();
        let (css, markdown_css, script) = (file("site.css"), file("markdown.css"), file("perflab.js"));
        sources.retain(|(n, _)| n.ends_with(".tera"));
        // The templates are parsed once; each language gets a copy with its own `t()`.
        let mut parsed = Tera::default();
        parsed.autoescape_on(vec![".html.tera"]);
        parsed.add_raw_templates(sources.iter().map(|(n, s)| (n.as_str(), s.as_str()))).map_err(template_error)?;
        let mut tera = HashMap::new();
        for (locale, catalog) in &catalogs {
            let mut t = parsed.clone();
            register(&mut t, catalog.clone());
            tera.insert(locale.clone(), t);
        }
        Ok(Renderer { catalogs, tera, css, markdown_css, script, sources: hash.finalize() })
    }

    /// The hash of every template and catalog the pages are rendered from: two renderers with
    /// the same one render the same pages.
    pub fn sources_hash(&self) -> blake3::Hash {
        self.sources
    }

    /// The style sheet of the Markdown pages' marks, for mkdocs' `extra_css` and mdBook's
    /// `additional-css` (`templates/markdown.css`).
    pub fn markdown_css(&self) -> &str {
        &self.markdown_css
    }

    /// The site's script (`perflab.js`): copy buttons on code blocks.
    pub fn script(&self) -> &str {
        &self.script
    }

    /// Renders an HTML template (`page.html.tera`, `index.html.tera`, `root.html.tera`) in one
    /// language; the site's CSS is added to the context as `css`.
    pub fn html(&self, locale: &str, template: &str, mut context: tera::Context) -> Result<String, RenderError> {
        let tera = self.tera.get(locale).ok_or_else(|| I18nError::NoLocale(locale.to_string()))?;
        context.insert("css", &self.css);
        tera.render(template, &context).map_err(template_error)
    }

    /// The languages with a catalog, sorted.
    pub fn locales(&self) -> Vec<String> {
        self.catalogs.keys().cloned().collect()
    }

    pub fn catalog(&self, locale: &str) -> Result<&Catalog, I18nError> {
        self.catalogs.get(locale).map(|c| c.as_ref()).ok_or_else(|| I18nError::NoLocale(locale.to_string()))
    }

    /// The Markdown page of a study in one language.
    pub fn page(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        flavor: Flavor,
        links: &Links,
    ) -> Result<String, RenderError> {
        let text = self.page_text(study, analysis, locale, flavor, links)?;
        self.with_ids(study, analysis, locale, text, flavor, links)
    }

    /// The Markdown page of a study in one language in each of the flavours and links `wanted`:
    /// the page is built once, then pointed at each one's charts and exports.
    pub fn pages(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        wanted: &[(Flavor, &Links)],
    ) -> Result<Vec<String>, RenderError> {
        let Some((flavor, links)) = wanted.first() else { return Ok(Vec::new()) };
        let mut view = view::build(study, analysis, self.catalog(locale)?, *flavor, links)?;
        let mut pages = Vec::with_capacity(wanted.len());
        for (flavor, links) in wanted {
            view.relink(&study.id, *flavor, links);
            let text = self.render_view(locale, &view)?;
            pages.push(self.with_ids(study, analysis, locale, text, *flavor, links)?);
        }
        Ok(pages)
    }

    /// The CommonMark page of a study in one language, its charts and exports linked as `links`
    /// say, with what their addresses become under `other` ([`PageView::relinks`]): the same page
    /// linked another way is this text with those addresses replaced, not a second rendering.
    pub fn page_relinked(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        links: &Links,
        other: &Links,
    ) -> Result<(String, Option<Relinks>), RenderError> {
        let view = view::build(study, analysis, self.catalog(locale)?, Flavor::Commonmark, links)?;
        let relinks = view.relinks(&study.id, links, other);
        Ok((self.render_view(locale, &view)?, relinks))
    }

    /// `text` (the page in `locale`) with the heading ids its flavour needs written in.
    fn with_ids(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        text: String,
        flavor: Flavor,
        links: &Links,
    ) -> Result<String, RenderError> {
        if flavor != Flavor::Mkdocs {
            return Ok(text);
        }
        // mkdocs makes its own ids from headings and drops letters such as "ı" from them, and
        // every Chinese or Japanese one.
        match self.source_page(study, analysis, locale, &text, flavor, links)? {
            Some(source) => Ok(markdown::with_heading_ids_from(&text, &source)),
            None => Ok(markdown::with_heading_ids(&text)),
        }
    }

    /// Whether `text`, the page in `locale`, takes its heading ids from the same page in the
    /// source language: its headings make none of their own ([`markdown::needs_source_ids`]),
    /// and there is a source page to take them from.
    pub fn borrows_heading_ids(&self, locale: &str, text: &str) -> bool {
        let source = i18n::SOURCE_LOCALE;
        locale != source && self.catalogs.contains_key(source) && markdown::needs_source_ids(text)
    }

    /// The page in the source language, without heading ids, where `text` (the page in
    /// `locale`) borrows its heading ids ([`Renderer::borrows_heading_ids`]).
    fn source_page(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        text: &str,
        flavor: Flavor,
        links: &Links,
    ) -> Result<Option<String>, RenderError> {
        if !self.borrows_heading_ids(locale, text) {
            return Ok(None);
        }
        self.page_text(study, analysis, i18n::SOURCE_LOCALE, flavor, links).map(Some)
    }

    /// The Markdown page as the template writes it.
    fn page_text(
        &self,
        study: &Study,
        analysis: &Analysis,
        locale: &str,
        flavor: Flavor,
        links: &Links,
    ) -> Result<String, RenderError> {
        let view = view::build(study, analysis, self.catalog(locale)?, flavor, links)?;
        self.render_view(locale, &view)
    }

    /// The Markdown page of `view` in `locale`.
    fn render_view(&self, locale: &str, view: &PageView) -> Result<String, RenderError> {
        let tera = self.tera.get(locale).ok_or_else(|| I18nError::NoLocale(locale.to_string()))?;
        let mut context = tera::Context::new();
        context.insert("page", view);
        let page = tidy(&tera.render("page.md.tera", &context).map_err(template_error)?);
        Ok(markdown::inert(&page, view.flavor))
    }

    /// `perflab diff` in one language: the page's "what changed" section on its own.
    pub fn diff(
        &self,
        study: &Study,
        analysis: &Analysis,
        diff: &crate::analysis::Diff,
        locale: &str,
    ) -> Result<String, RenderError> {
        let catalog = self.catalog(locale)?;
        let view = view::changes(study, analysis, catalog, diff)?;
        let mut context = tera::Context::new();
        context.insert("title", &view::title(study, catalog));
        context.insert("changes", &view);
        let text = self.tera[locale].render("diff.md.tera", &context).map_err(template_error)?;
        Ok(tidy(&view::unmarked(&text)))
    }

    /// `perflab diff --releases` in one language: the releases `shown` of the history `all`.
    pub fn releases(
        &self,
        study: &Study,
        analysis: &Analysis,
        all: &crate::analysis::releases::Releases,
        shown: &crate::analysis::releases::Releases,
        locale: &str,
    ) -> Result<String, RenderError> {
        let catalog = self.catalog(locale)?;
        let view = view::releases::history(study, analysis, catalog, all, shown)?;
        let mut context = tera::Context::new();
        context.insert("title", &view::title(study, catalog));
        context.insert("history", &view);
        let text = self.tera[locale].render("releases.md.tera", &context).map_err(template_error)?;
        Ok(tidy(&view::unmarked(&text)))
    }
}

/// All tera functions and filters, in one place: `t` (a catalog message), `fence` (a code block
/// whose fence is longer than any backtick run inside) and `indent` (four spaces a line).
fn register(tera: &mut Tera, catalog: Arc<Catalog>) {
    tera.register_function("t", move |args: &HashMap<String, Value>| {
        let key = args.get("key").and_then(Value::as_str).ok_or_else(|| tera::Error::msg("t() needs key=\"...\""))?;
        let owned: Vec<(&str, Result<f64, String>)> = args
            .iter()
            .filter(|(k, _)| k.as_str() != "key")
            .map(|(k, v)| {
                (k.as_str(), v.as_f64().ok_or_else(|| v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            })
            .collect();
        // Numbers stay numbers, so that the catalog's plural rules and number format apply.
        let pairs: Vec<(&str, Arg)> = owned
            .iter()
            .map(|(k, v)| match v {
                Ok(x) => (*k, Arg::Number { value: *x, decimals: if x.fract() == 0.0 { 0 } else { 2 } }),
                Err(text) => (*k, Arg::Text(text)),
            })
            .collect();
        catalog.fmt_args(key, &pairs).map(Value::String).map_err(|e| tera::Error::msg(e.to_string()))
    });
    tera.register_filter("fence", |value: &Value, args: &HashMap<String, Value>| {
        let code = value.as_str().unwrap_or_default();
        let lang = args.get("lang").and_then(Value::as_str).unwrap_or("");
        Ok(Value::String(markdown::fence(code, lang)))
    });
    tera.register_filter("indent", |value: &Value, _: &HashMap<String, Value>| {
        let text = value.as_str().unwrap_or_default();
        let lines: Vec<String> =
            text.lines().map(|l| if l.is_empty() { String::new() } else { format!("    {l}") }).collect();
        Ok(Value::String(lines.join("\n")))
    });
}

/// One blank line at most between blocks outside code, no trailing spaces outside code, one
/// final newline. Code blocks (raw results) are left as they are.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The length of the open code block's fence.
    let mut fence: Option<usize> = None;
    let mut blank = 0;
    for line in text.lines() {
        let t = line.trim_start();
        let ticks = t.bytes().take_while(|&b| b == b'`').count();
        if fence.is_some() {
            out.push_str(line);
            out.push('\n');
            if ticks >= 3 && fence == Some(ticks) && t.trim_end().len() == ticks {
                fence = None;
            }
            continue;
        }
        if ticks >= 3 {
            fence = Some(ticks);
        }
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn tidy_keeps_code_verbatim() {
        let text = "a\n\n\n\nb  \n```text\nx  \n\n\ny\n```\n\n\nc\n\n";
        assert_eq!(tidy(text), "a\n\nb\n```text\nx  \n\n\ny\n```\n\nc\n");
    }
}
