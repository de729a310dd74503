//! Study edits a hostile contributor could make, each fed through `perflab check` and then
//! `perflab build`. Each gets one of two answers: `check` rejects it at file:line:col, or the
//! build succeeds and the text appears escaped on the page. Whatever the study says, no page has
//! an inline script, an event-handler attribute or a `javascript:`/`data:` address, every HTML
//! page carries a Content-Security-Policy, and no CSV cell starts a formula.

use crate::common;

use common::{copy_dir, perflab, root};
use std::path::{Path, PathBuf};

/// A copy of the DeepSeek study under `name` in a temporary results folder, edited by
/// replacing `from` with `to` in its spec.
fn edited(name: &str, from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results").join(name);
    copy_dir(&root().join("results/deepseek-v3.2-h200"), &dir);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    assert!(text.contains(from), "the attack's anchor is not in the study: {from}");
    std::fs::write(&spec, text.replacen(from, to, 1)).unwrap();
    (tmp, dir)
}

fn check(dir: &Path) -> (i32, String) {
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    (code, format!("{out}{err}"))
}

/// Builds the results folder holding `dir` into `<tmp>/site`; returns every file written.
fn build(dir: &Path) -> Vec<(String, String)> {
    let results = dir.parent().unwrap();
    let out = results.parent().unwrap().join("site");
    let (code, stdout, err) =
        perflab(&["build", "--results", results.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "the build succeeds: {stdout}{err}");
    walkdir::WalkDir::new(&out)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&out).unwrap().to_string_lossy().into_owned();
            (rel, String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        })
        .collect()
}

/// The HTML a Markdown page becomes where it is published as it is (GitHub, mdBook): raw HTML
/// passed through.
fn published(markdown: &str) -> String {
    let mut out = String::new();
    let parser = pulldown_cmark::Parser::new_ext(markdown, perflab::render::markdown::options());
    pulldown_cmark::html::push_html(&mut out, parser);
    out
}

/// What no page may hold, asserted on one HTML text.
fn assert_harmless(name: &str, html: &str) {
    // The one script a page may load is the site's own file, by a fixed element.
    let own = regex::Regex::new(r#"<script src="(\.\./)?perflab\.js"></script>"#).unwrap();
    let lower = own.replace_all(html, "").to_ascii_lowercase();
    assert!(!lower.contains("<script"), "{name}: a script element other than the site's own");
    let tag = regex::Regex::new(r"<[a-zA-Z][^>]*>").unwrap();
    let handler = regex::Regex::new(r#"(?i)[\s"'/]on[a-z]+\s*="#).unwrap();
    let address =
        regex::Regex::new(r#"(?i)(href|src|action|formaction|xlink:href)\s*=\s*["']?\s*(javascript|data|vbscript):"#)
            .unwrap();
    for t in tag.find_iter(html) {
        assert!(!handler.is_match(t.as_str()), "{name}: an event-handler attribute in {}", t.as_str());
        assert!(!address.is_match(t.as_str()), "{name}: a refused address in {}", t.as_str());
    }
}

/// Every invariant over a built site.
fn assert_site_harmless(files: &[(String, String)]) {
    let mut pages = 0;
    for (name, text) in files {
        if name.ends_with(".html") {
            pages += 1;
            assert_harmless(name, text);
            assert!(
                text.contains(
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self';"
                ),
                "{name}: no Content-Security-Policy"
            );
        } else if name.ends_with(".md") {
            assert_harmless(name, &published(text));
        } else if name.ends_with(".svg") {
            assert_harmless(name, text);
        } else if name.ends_with(".csv") {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
            for record in reader.records() {
                for cell in record.unwrap().iter() {
                    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err();
                    assert!(!formula, "{name}: the cell `{cell}` starts a formula");
                }
            }
        }
    }
    assert!(pages >= 4, "the site has its pages");
}

fn page<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    &files.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name}")).1
}

/// The line and column `check` names for the first problem containing `message`.
fn rejected(dir: &Path, message: &str) -> String {
    let (code, out) = check(dir);
    assert_eq!(code, 1, "check rejects it: {out}");
    let line = out.lines().find(|l| l.contains(message)).unwrap_or_else(|| panic!("no `{message}` in:\n{out}"));
    let spec = dir.join("study.toml");
    assert!(line.starts_with(&format!("{}:", spec.display())), "{line}");
    // The build refuses it too.
    let out = dir.parent().unwrap().parent().unwrap().join("site");
    let results = dir.parent().unwrap().to_str().unwrap();
    let (code, _, err) = perflab(&["build", "--results", results, "--out", out.to_str().unwrap()]);
    assert_ne!(code, 0, "the build refuses it: {err}");
    assert!(err.contains(message), "{err}");
    // The other studies would be built; of this one, nothing is written.
    let study = dir.file_name().unwrap().to_string_lossy().into_owned();
    let written: Vec<_> = walkdir::WalkDir::new(&out)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            name == study.as_str() || name.starts_with(&format!("{study}."))
        })
        .map(|e| e.path().display().to_string())
        .collect();
    assert!(written.is_empty(), "nothing of the study is written: {written:?}");
    line.to_string()
}

#[test]
fn a_newline_in_the_model_is_rejected_where_it_is() {
    let (_t, dir) =
        edited("s", "model = \"deepseek-ai/DeepSeek-V3.2\"", "model = \"m\\n```\\n<script>alert(1)</script>\\n```\"");
    let line = rejected(&dir, "`model`: control character U+000A");
    assert!(line.contains("study.toml:4:9:"), "{line}");
}

#[test]
fn newlines_in_flags_env_and_launch_commands_are_rejected() {
    for (from, to, message) in [
        ("flags = [\"-dcp 8\"]", "flags = [\"-dcp 8\\n```\\n<script>x</script>\"]", "`flags`: control character"),
        (
            "label = \"vLLM: DCP\"",
            "label = \"vLLM: DCP\"\nenv = { X = \"a\\u001b[31m\" }",
            "`X`: control character U+001B",
        ),
        (
            "command = \"vllm serve {model}",
            "command = \"vllm serve\\r\\n{model}",
            "`command`: control character U+000D",
        ),
    ] {
        let (_t, dir) = edited("s", from, to);
        rejected(&dir, message);
    }
}

#[test]
fn study_folder_names_follow_the_id_rule() {
    for (name, message) in [
        ("\"><img src=x onerror=alert(1)>", "is not a study id"),
        ("my study", "is not a study id"),
        ("index", "is taken by the site's index page"),
        ("SUMMARY", "is taken by the book's table of contents (`SUMMARY.md`)"),
        ("Print", "is taken by mdBook's page of the whole book"),
        ("book", "is taken by the book's settings"),
        (&"x".repeat(120), "ids are at most 100 characters long"),
    ] {
        let (_t, dir) = edited(name, "model = ", "model = ");
        let (code, out) = check(&dir);
        assert_eq!(code, 1, "{name}: {out}");
        assert!(out.contains(message), "{name}: {out}");
        assert!(out.contains(&format!("{}:0:0:", dir.join("study.toml").display())), "{out}");
    }
}

#[test]
fn a_stage_title_cannot_make_a_chart_into_a_link() {
    let (_t, dir) = edited(
        "s",
        "title = { en = \"Inference engine, default settings\"",
        "title = { en = \"x](javascript:alert(1)) ![y\"",
    );
    assert_eq!(check(&dir).0, 0);
    let files = build(&dir);
    assert_site_harmless(&files);
}

#[test]
fn refused_links_become_text_and_allowed_ones_stay() {
    let notes = r#"[[notes]]
en = "See [the report](javascript:alert(1)), [this](data:text/html;base64,PHNjcmlwdD4=), <javascript:alert(2)>, [docs](https://docs.vllm.ai/) and [ref][r].\n\n[r]: javascript:alert(3)"

[[notes]]"#;
    let (_t, dir) = edited("s", "[[notes]]", notes);
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
    let files = build(&dir);
    assert_site_harmless(&files);
    let html = page(&files, "en/s.html");
    assert!(
        html.contains("See the report, this, javascript:alert(2), <a href=\"https://docs.vllm.ai/\">docs</a>"),
        "{html}"
    );
    assert!(html.contains("docs</a> and ref."), "a reference to a refused address is its text");
}

#[test]
fn a_failure_link_with_a_script_address_is_text() {
    let (_t, dir) = edited(
        "s",
        "link = \"https://github.com/vllm-project/vllm/issues/27544\"",
        "link = \"javascript:alert(document.cookie)\"",
    );
    assert_eq!(check(&dir).0, 0);
    let files = build(&dir);
    assert_site_harmless(&files);
    assert!(page(&files, "md/en/s.md").contains("Upstream discussion: `javascript:alert(document.cookie)`"));
    assert!(page(&files, "en/s.html").contains("Upstream discussion: <code>javascript:alert(document.cookie)</code>"));
}

#[test]
fn raw_html_after_an_unmatched_backtick_is_text() {
    let (_t, dir) = edited(
        "s",
        "[[notes]]",
        "[[notes]]\nen = \"a ` b <img src=x onerror=alert(1)> <script>alert(2)</script>\"\n\n[[notes]]",
    );
    assert_eq!(check(&dir).0, 0);
    let files = build(&dir);
    assert_site_harmless(&files);
    assert!(
        page(&files, "en/s.html")
            .contains("a ` b &lt;img src=x onerror=alert(1)&gt; &lt;script&gt;alert(2)&lt;/script&gt;"),
        "shown as text"
    );
}

#[test]
fn labels_names_and_titles_are_text() {
    let (_t, dir) =
        edited("s", "label = \"vLLM: DCP\"", "label = \"<b onmouseover=alert(1)>DCP</b> [x](javascript:alert(1)) `\"");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replacen("name = \"vLLM\"", "name = \"vLLM<script>alert(1)</script>\"", 1)
        .replacen("[title]\nen = \"", "[title]\nen = \"<svg onload=alert(1)> [t](data:text/html,x) ", 1)
        .replacen("[goal]\nen = \"", "[goal]\nen = \"\\\"><script>alert(1)</script> ", 1);
    std::fs::write(&spec, text).unwrap();
    assert_eq!(check(&dir).0, 0, "{}", check(&dir).1);
    let files = build(&dir);
    assert_site_harmless(&files);
    let html = page(&files, "en/s.html");
    assert!(html.contains("&lt;b onmouseover=alert(1)&gt;DCP&lt;/b&gt; [x](javascript:alert(1)) `"), "label as text");
    assert!(html.contains("vLLM&lt;script&gt;alert(1)&lt;/script&gt;"), "engine name as text");
    // The goal is in the page's description (after its answer), inside its attribute.
    let description = regex::Regex::new(r#"<meta name="description" content="([^"]*)">"#).unwrap();
    let said = &description.captures(html).expect("a description")[1];
    assert!(said.contains(" &quot;&gt;&lt;script&gt;alert(1)&lt;&#x2F;script&gt; High throughput"), "{said}");
    assert!(page(&files, "en/index.html").contains("&lt;svg onload=alert(1)&gt;"), "title as text in the index");
    let h1 = &html[html.find("<h1").unwrap()..];
    assert!(
        h1[h1.find('>').unwrap() + 1..].starts_with("&lt;svg onload=alert(1)&gt; t "),
        "a refused link in the title is its text"
    );
}

#[test]
fn a_model_or_tool_with_backticks_stays_in_its_code_span() {
    let (_t, dir) = edited("s", "model = \"deepseek-ai/DeepSeek-V3.2\"", "model = \"m`<img src=x onerror=alert(1)>`\"");
    assert_eq!(check(&dir).0, 0);
    let files = build(&dir);
    assert_site_harmless(&files);
    assert!(page(&files, "en/s.html").contains("<code>m`&lt;img src=x onerror=alert(1)&gt;`</code>"));
}

#[test]
fn a_formula_in_an_env_value_or_a_flag_is_neutralised_in_the_csv() {
    let (_t, dir) = edited(
        "s",
        "label = \"vLLM: DCP\"",
        "label = \"vLLM: DCP\"\nenv = { \"=HYPERLINK(\\\"http://evil\\\")\" = \"@SUM(A1)\" }",
    );
    assert_eq!(check(&dir).0, 0, "{}", check(&dir).1);
    let files = build(&dir);
    assert_site_harmless(&files);
    let csv = page(&files, "md/data/s.csv");
    // The cells are JSON arrays (they start with `[`), and decode to the values as given.
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let env: Vec<Vec<String>> = rows.iter().map(|r| serde_json::from_str(&r[col("env")]).unwrap()).collect();
    assert!(env.iter().any(|e| e == &["=HYPERLINK(\"http://evil\")=@SUM(A1)"]), "{csv}");
    let flags: Vec<Vec<String>> = rows.iter().map(|r| serde_json::from_str(&r[col("flags")]).unwrap()).collect();
    assert!(flags.iter().flatten().any(|f| f == "-tp 8"), "flags start with `-` and stay as given: {csv}");
}

#[test]
fn the_bundled_site_is_harmless() {
    let files: Vec<(String, String)> = walkdir::WalkDir::new(root().join("site"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root().join("site")).unwrap().to_string_lossy().into_owned();
            (rel, String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        })
        .collect();
    assert_site_harmless(&files);
}

#[test]
fn a_recorded_engine_version_or_date_is_text() {
    let (_t, dir) = edited("s", "version = \"v0.13.0\"", "version = \"v0.14.0\"");
    let record = dir.join("runs/recorded.json");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("\"engine_version\": \"v0.13.0\"") && text.contains("\"date\": null"));
    let text = text
        .replace(
            "\"engine_version\": \"v0.13.0\"",
            "\"engine_version\": \"<script>alert(1)</script>`[x](javascript:y)\"",
        )
        .replacen("\"date\": null", "\"date\": \"<img src=x onerror=alert(1)>\"", 1);
    std::fs::write(&record, text).unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning: the page shows results the study no longer describes"), "{out}");
    let files = build(&dir);
    assert_site_harmless(&files);
    let html = page(&files, "en/s.html");
    assert!(html.contains("vLLM &lt;script&gt;alert(1)&lt;/script&gt;"), "the recorded version as text");
    assert!(!html.contains("onerror"), "a date that is not a date is not shown");
    assert!(page(&files, "en/index.html").contains("&lt;script&gt;alert(1)"), "as text in the index too");
}
