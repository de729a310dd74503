//! Rendered pages: snapshots of the mkdocs flavour, catalog coverage, a
//! pseudo-locale added without code, a missing message as a clear error, escaped study text.

use crate::common;

use common::{copy_dir, perflab, root};
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer, i18n};
use perflab::study::Study;
use std::collections::BTreeSet;
use std::path::Path;

fn page(id: &str, locale: &str, flavor: Flavor) -> String {
    let study = Study::load(&root().join("results").join(id)).unwrap();
    let renderer = Renderer::new(None).unwrap();
    renderer.page(&study, &analyze(&study), locale, flavor, &perflab::render::Links::markdown(id)).unwrap()
}

/// The mkdocs flavour of a page, which the committed site does not hold (its Markdown pages,
/// `site/md`, are the Commonmark flavour and `site::committed_site_is_up_to_date`
/// pins them byte for byte).
#[test]
fn snapshots() {
    // The snapshots keep the names and the folder they had when this file was a test binary of
    // its own: tests/snapshots/pages__<study>.<locale>.mkdocs.snap.
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    let _bound = settings.bind_to_scope();
    insta::assert_snapshot!("pages__glm-5.2-fp8-h200.en.mkdocs", page("glm-5.2-fp8-h200", "en", Flavor::Mkdocs));
    insta::assert_snapshot!("pages__glm-5.2-fp8-h200.zh.mkdocs", page("glm-5.2-fp8-h200", "zh", Flavor::Mkdocs));
}

#[test]
fn pages_are_byte_identical_across_runs() {
    assert_eq!(
        page("deepseek-v3.2-h200", "tr", Flavor::Commonmark),
        page("deepseek-v3.2-h200", "tr", Flavor::Commonmark)
    );
}

#[test]
fn figures_are_formatted_per_locale() {
    let en = page("glm-5.2-fp8-h200", "en", Flavor::Commonmark);
    let tr = page("glm-5.2-fp8-h200", "tr", Flavor::Commonmark);
    assert!(en.contains(r#"| <span class="gain">▲ +219.70%</span> |"#), "English percentages");
    assert!(tr.contains(r#"| <span class="gain">▲ +%219,70</span> |"#), "Turkish percentages");
    assert!(en.contains(r#"<span class="loss">▼ −52.90%</span> (regression)"#));
    assert!(tr.contains(r#"<span class="loss">▼ −%52,90</span> (gerileme)"#));
    assert!(tr.contains("13.760,98 token/sn"));
    // Chinese and Japanese: digits grouped by three with a comma, never in 万; no plural forms.
    for locale in ["zh", "ja"] {
        let page = page("glm-5.2-fp8-h200", locale, Flavor::Commonmark);
        assert!(page.contains(r#"| <span class="gain">▲ +219.70%</span> |"#), "{locale}");
        assert!(page.contains(r#"<span class="loss">▼ −52.90%</span>"#), "{locale}");
        assert!(page.contains("13,760.98 tok/s"), "{locale}");
        assert!(!page.contains('万'), "{locale}");
        assert!(page.contains("Total Token throughput (tok/s):          13760.98\n"), "{locale}");
    }
    // Raw blocks stay verbatim whatever the locale.
    assert!(tr.contains("Total Token throughput (tok/s):          13760.98\n"));
}

#[test]
fn mkdocs_flavor_uses_admonitions() {
    let md = page("glm-5.2-fp8-h200", "en", Flavor::Mkdocs);
    assert!(md.contains("??? info \"Benchmark result\"\n\n    ```text\n    ============ Serving Benchmark Result"));
    assert!(!md.contains("<details>"));
    let cm = page("glm-5.2-fp8-h200", "en", Flavor::Commonmark);
    assert!(cm.contains("<details>\n<summary>Benchmark result</summary>\n\n```text\n"));
}

/// Message ids the code and the templates ask for.
fn used_keys() -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let quoted = regex::Regex::new(r#""([a-z0-9][a-z0-9-]*)""#).unwrap();
    let template = regex::Regex::new(r#"t\(key="([a-z0-9-]+)""#).unwrap();
    for entry in
        walkdir::WalkDir::new(root().join("src")).into_iter().chain(walkdir::WalkDir::new(root().join("templates")))
    {
        let entry = entry.unwrap();
        let path = entry.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "rs" && ext != "tera" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let re = if ext == "rs" { &quoted } else { &template };
        used.extend(re.captures_iter(&text).map(|c| c[1].to_string()));
    }
    used
}

#[test]
fn every_catalog_has_every_english_key_and_none_is_unused() {
    let catalogs = i18n::load_all(None).unwrap();
    let en: BTreeSet<String> = catalogs["en"].keys().iter().cloned().collect();
    for (locale, c) in &catalogs {
        let keys: BTreeSet<String> = c.keys().iter().cloned().collect();
        let missing: Vec<_> = en.difference(&keys).collect();
        let extra: Vec<_> = keys.difference(&en).collect();
        assert!(missing.is_empty(), "catalog `{locale}` lacks {missing:?}");
        assert!(extra.is_empty(), "catalog `{locale}` has keys English lacks: {extra:?}");
    }
    let used = used_keys();
    let unused: Vec<_> = en.iter().filter(|k| !used.contains(*k)).collect();
    assert!(unused.is_empty(), "keys no code or template uses: {unused:?}");
    let fixture = std::fs::read_to_string(root().join("tests/fixtures/i18n/en-XA.ftl")).unwrap();
    let xa = i18n::Catalog::parse("en-XA", &fixture, Path::new("en-XA.ftl")).unwrap();
    let xa: BTreeSet<String> = xa.keys().iter().cloned().collect();
    assert_eq!(xa, en, "the pseudo-locale fixture follows the English catalog");
}

fn copy_templates(to: &Path) {
    copy_dir(&root().join("templates"), to);
}

/// A catalog whose name is not a language tag (`...ftl` names the locale `..`) is refused with
/// its path before anything is written: the build would otherwise write beside the site.
#[test]
fn a_catalog_not_named_after_a_language_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let templates = tmp.path().join("templates");
    copy_templates(&templates);
    std::fs::copy(root().join("templates/i18n/en.ftl"), templates.join("i18n/...ftl")).unwrap();
    let results = tmp.path().join("results");
    copy_dir(&root().join("results/deepseek-v3.2-h200"), &results.join("deepseek-v3.2-h200"));
    let out = tmp.path().join("site");
    let done = common::site_build(&results, &out).arg("--templates").arg(&templates).output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_ne!(done.status.code(), Some(0), "{err}");
    assert!(err.contains("...ftl") && err.contains("is not a language tag"), "{err}");
    let mut left: Vec<String> =
        std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["results", "templates"], "nothing written beside the site");
    assert!(!out.exists());
    // A FIFO in its place is refused too, instead of hanging the build.
    std::fs::remove_file(templates.join("i18n/...ftl")).unwrap();
    let fifo = templates.join("i18n/de.ftl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let done = common::site_build(&results, &out).arg("--templates").arg(&templates).output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_ne!(done.status.code(), Some(0), "{err}");
    assert!(err.contains("de.ftl") && err.contains("not a regular file"), "{err}");
}

#[test]
fn a_new_language_is_a_new_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    copy_templates(tmp.path());
    std::fs::copy(root().join("tests/fixtures/i18n/en-XA.ftl"), tmp.path().join("i18n/en-XA.ftl")).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, out, err) = perflab(&["report", "deepseek-v3.2-h200", "--locale", "en-XA", "--templates", dir]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("## ⟦Cõnclüsîõn⟧"), "{out}");
    assert!(out.contains("**⟦Rànkîng: ⟦vLLM (⟦5713.95 tõk/s⟧)⟧ > "), "generated sentences come from the new catalog");
    assert!(!out.contains("## Conclusion"));
}

#[test]
fn a_missing_message_names_key_and_locale() {
    let tmp = tempfile::tempdir().unwrap();
    copy_templates(tmp.path());
    let tr = tmp.path().join("i18n/tr.ftl");
    let text = std::fs::read_to_string(&tr).unwrap();
    let text: String = text.lines().filter(|l| !l.starts_with("heading-notes =")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&tr, text).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, _, err) = perflab(&["report", "glm-5.2-fp8-h200", "--locale", "tr", "--templates", dir]);
    assert_eq!(code, 2);
    assert!(err.contains("catalog `tr` has no message `heading-notes`"), "{err}");
    let (code, _, err) = perflab(&["report", "glm-5.2-fp8-h200", "--locale", "xx"]);
    assert_eq!(code, 2);
    assert!(err.contains("no catalog for locale `xx`"), "{err}");
}

#[test]
fn html_in_study_text_is_shown_as_text() {
    use perflab::render::markdown::prose;
    assert_eq!(prose("a <script>alert(1)</script> b"), "a &lt;script&gt;alert(1)&lt;/script&gt; b");
    assert_eq!(prose("keep `<T>` in code"), "keep `<T>` in code");
    // An unmatched backtick does not switch escaping off.
    assert_eq!(prose("a ` b <img src=x onerror=alert(1)>"), "a ` b &lt;img src=x onerror=alert(1)&gt;");
}

/// What [`each_page_with_two_links`] calls for each page.
type PageCheck<'a> = dyn FnMut(&Renderer, &Study, &perflab::analysis::Analysis, &str, &Links, &Links) + 'a;

/// Calls `check(study, analysis, locale, markdown, elsewhere)` for every bundled study in every
/// language, with the links of a drop-in page and of a page in another folder.
fn each_page_with_two_links(check: &mut PageCheck<'_>) {
    let renderer = Renderer::new(None).unwrap();
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let analysis = analyze(&study);
        let markdown = Links::markdown(&study.id);
        let elsewhere = Links { charts: "../a b/".into(), data: "../data/".into(), summary_image: false, files: true };
        for locale in renderer.locales() {
            check(&renderer, &study, &analysis, &locale, &markdown, &elsewhere);
        }
    }
}

/// The site's HTML page is made from the drop-in Markdown page with its charts' and exports'
/// addresses replaced: it must be the HTML of the page rendered with the HTML page's links.
#[test]
fn a_page_relinked_is_the_page_rendered_with_the_other_links() {
    use perflab::render::html;
    each_page_with_two_links(&mut |renderer, study, analysis, locale, markdown, elsewhere| {
        let (text, relinks) = renderer.page_relinked(study, analysis, locale, markdown, elsewhere).unwrap();
        assert_eq!(text, renderer.page(study, analysis, locale, Flavor::Commonmark, markdown).unwrap());
        let relinks = relinks.expect("every address has one answer");
        let relink = |url: &str| relinks.target(url);
        // Charts stay images here, so that their addresses show in the HTML.
        let relinked = html::render_page_relinked(&text, None, &relink, &|_| None);
        let other = renderer.page(study, analysis, locale, Flavor::Commonmark, elsewhere).unwrap();
        let rendered = html::render_page(&other, &|_| None);
        assert_eq!(relinked.body, rendered.body, "{} in {locale}", study.id);
        assert!(relinked.body.contains("../a%20b/") && !relinked.body.contains("summary.png"));
    });
}

#[test]
fn a_page_built_once_for_several_links_is_the_page_built_for_each() {
    each_page_with_two_links(&mut |renderer, study, analysis, locale, markdown, elsewhere| {
        let wanted = [(Flavor::Commonmark, markdown), (Flavor::Commonmark, elsewhere), (Flavor::Mkdocs, markdown)];
        let once = renderer.pages(study, analysis, locale, &wanted).unwrap();
        let each: Vec<String> =
            wanted.iter().map(|(f, l)| renderer.page(study, analysis, locale, *f, l).unwrap()).collect();
        assert_eq!(once, each, "{} in {locale}", study.id);
    });
}

/// The addresses of the links and images of a Markdown page that name a file (neither a web
/// address nor an anchor), percent-decoded.
fn relative_links(page: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag};
    let decode = |url: &str| {
        let bytes = url.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match (bytes[i], url.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())) {
                (b'%', Some(byte)) => (out.push(byte), i += 3),
                (byte, _) => (out.push(byte), i += 1),
            };
        }
        String::from_utf8(out).unwrap()
    };
    Parser::new_ext(page, pulldown_cmark::Options::all())
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .filter(|url| !url.contains("://") && !url.starts_with('#') && !url.starts_with("mailto:"))
        .map(|url| decode(&url))
        .collect()
}

/// `perflab report --out DIR` writes the page with every chart and export it links beside it,
/// in every language; printed, the page links no file at all (nothing is beside it) and says
/// what writes them instead.
#[test]
fn report_out_writes_every_file_its_page_links_and_a_printed_page_links_none() {
    let tmp = tempfile::tempdir().unwrap();
    let id = "glm-5.2-fp8-h200";
    for locale in ["en", "tr", "zh", "ja"] {
        let out = tmp.path().join(locale);
        let (code, said, err) = perflab(&["report", id, "--locale", locale, "--out", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(said.contains(&format!("{id}.md")), "{said}");
        let page = std::fs::read_to_string(out.join(format!("{id}.md"))).unwrap();
        let links = relative_links(&page);
        assert!(links.iter().any(|l| l.ends_with("summary.png")) && links.iter().any(|l| l.ends_with(".csv")));
        for link in links {
            assert!(out.join(&link).is_file(), "{locale}: the page links '{link}', which --out did not write");
        }
        let (code, printed, err) = perflab(&["report", id, "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(relative_links(&printed), Vec::<String>::new(), "{locale}");
        assert!(printed.contains("`perflab build`"), "{locale}: {printed}");
    }
    for study in ["deepseek-v3.2-h200", "qwen3-14b-h100", "qwen3-8b-h100-latency"] {
        let (_, printed, err) = perflab(&["report", study]);
        assert_eq!(relative_links(&printed), Vec::<String>::new(), "{study}: {err}");
    }
}

/// In the options table, a stage that adopted nothing shows its best variant against the
/// baseline as a plain figure marked "not adopted", not as a gain or a loss of the
/// configuration; a variant that measures the stage's base again keeps its marks.
#[test]
fn a_variant_a_stage_did_not_adopt_is_no_gain_or_loss_in_the_options_table() {
    let read = |study: &str| std::fs::read_to_string(common::root().join(format!("site/md/en/{study}.md"))).unwrap();
    let row = |page: &str, start: &str| page.lines().find(|l| l.starts_with(start)).unwrap_or_default().to_string();
    let deepseek = read("deepseek-v3.2-h200");
    let mtp = row(&deepseek, "| Multi-token prediction (MTP) |");
    assert!(mtp.contains("| −2.99% (not adopted) |") && !mtp.contains("class="), "{mtp}");
    let kv = row(&deepseek, "| KV cache data type |");
    assert!(kv.contains("| +48.66% (not adopted) |") && !kv.contains("class="), "{kv}");
    let adopted = row(&deepseek, "| Tool-call settings |");
    assert!(adopted.contains("<span class=\"gain\">▲ +46.60%</span>") && !adopted.contains("not adopted"), "{adopted}");
    let latency = read("qwen3-8b-h100-latency");
    let repeated = row(&latency, "| The optimized configuration on every batch size |");
    assert!(repeated.contains("class=\"gain\"") && !repeated.contains("not adopted"), "{repeated}");
}
