//! The generated site: committed and up to date, deterministic, escaped, self-contained, with
//! exports; and the mdBook builds.

use crate::common;

use common::{copy_dir, perflab, root};
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::Study;
use std::collections::BTreeSet;
use std::path::Path;

fn build(results: &Path) -> Site {
    let mut studies = Vec::new();
    for dir in perflab::study::discover(results).unwrap() {
        studies.push(Study::load(&dir).unwrap());
    }
    Site::build(&studies, &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap()
}

fn text(site: &Site, path: &str) -> String {
    String::from_utf8(site.files.get(path).unwrap_or_else(|| panic!("no {path}")).clone()).unwrap()
}

#[test]
fn committed_site_is_up_to_date() {
    let site = build(&root().join("results"));
    let committed: BTreeSet<String> = walkdir::WalkDir::new(root().join("site"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(root().join("site")).unwrap().to_string_lossy().into_owned())
        // What a `perflab build` here made each study's pages from: for that build's next one,
        // not committed (it names this very program).
        .filter(|rel| rel != perflab::site::RECORD)
        .collect();
    let generated: BTreeSet<String> = site.files.keys().cloned().collect();
    assert_eq!(committed, generated, "site/ has other files than `perflab build` writes: run it and commit");
    for (path, bytes) in &site.files {
        let on_disk = std::fs::read(root().join("site").join(path)).unwrap();
        assert!(on_disk == *bytes, "site/{path} is out of date: run `perflab build` and commit");
    }
}

#[test]
fn a_rebuild_removes_what_it_no_longer_writes_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    copy_dir(&root().join("results"), &results);
    let out = tmp.path().join("site");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    build(&results).write(&out).unwrap();
    assert!(out.join("en/glm-5.2-fp8-h200.html").is_file());
    std::fs::remove_dir_all(results.join("glm-5.2-fp8-h200")).unwrap();
    build(&results).write(&out).unwrap();
    assert!(!out.join("en/glm-5.2-fp8-h200.html").exists(), "the removed study's page is gone");
    assert!(!out.join("md/data/glm-5.2-fp8-h200.csv").exists());
    assert!(out.join("en/deepseek-v3.2-h200.html").is_file());
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine", "files it did not write stay");
}

#[test]
fn builds_are_byte_identical() {
    let a = build(&root().join("results"));
    let b = build(&root().join("results"));
    assert_eq!(a.files, b.files);
}

#[test]
fn pages_link_languages_studies_and_exports() {
    let site = build(&root().join("results"));
    let page = text(&site, "en/glm-5.2-fp8-h200.html");
    assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(page.contains(r#"<a href="../tr/glm-5.2-fp8-h200.html" hreflang="tr" lang="tr">Türkçe</a>"#));
    // The header leads to the index of guides instead of listing every one of them.
    assert!(page.contains(r#"<a class="home" href="index.html">Serving optimization guides</a>"#));
    assert!(!page.contains(r#"<a href="deepseek-v3.2-h200.html">"#));
    assert!(page.contains(r#"href="../md/data/glm-5.2-fp8-h200.csv""#));
    assert!(page.contains(r#"<span class="gain">▲ +219.70%</span>"#));
    assert!(page.contains(r#"<span class="loss">▼ −52.90%</span> (regression)"#));
    assert_eq!(page.matches("<figure class=\"chart\"><svg").count(), 2 + 7, "comparison, progression and one a stage");
    assert!(page.contains("<details>\n<summary>Benchmark result</summary>"));
    // Nothing is fetched from elsewhere: no stylesheets, no remote images, and no script but the
    // site's own file.
    let own_script = r#"<script src="../perflab.js"></script>"#;
    assert_eq!(page.matches("<script").count(), 1);
    assert!(page.contains(own_script) && site.files.contains_key("perflab.js"));
    for banned in ["<link", "src=\"http", "@import", "url("] {
        assert!(!page.contains(banned), "page contains {banned}");
    }
    let index = text(&site, "tr/index.html");
    assert!(index.contains(
        r#"<a href="glm-5.2-fp8-h200.html"><strong>8×H200 üzerinde GLM-5.2 işlem hacmi optimizasyonu</strong></a>"#
    ));
    assert!(index.contains(r#"Toplam TPS: <span class="gain">▲ +%219,70</span> (Balanced: 8K giriş / 1K çıkış)"#));
    // The index's filter matches title, model, hardware and engines.
    assert!(index.contains(r#"<li data-search="8×h200 üzerinde deepseek-v3.2 işlem hacmi optimizasyonu deepseek-ai&#x2F;deepseek-v3.2 8 × nvidia h200 sxm tek düğüm vllm sglang tensorrt-llm">"#));
    // A latency study's card says what its page says: how many times faster.
    let en = text(&site, "en/index.html");
    assert!(en.contains(r#"Mean latency per request: <span class="gain">▲ 1.9× faster</span>"#), "{en}");
    let root_page = text(&site, "index.html");
    assert!(root_page.contains(r#"<a href="tr/index.html" hreflang="tr" lang="tr"><strong>Türkçe</strong></a>"#));
    // The Chinese pages are marked as written in simplified characters, wherever a language is
    // named: the page, its links to it, the root's chooser and its book.
    let zh = text(&site, "zh/glm-5.2-fp8-h200.html");
    assert!(zh.starts_with("<!DOCTYPE html>\n<html lang=\"zh-Hans\">"));
    assert!(page.contains(r#"hreflang="zh-Hans" lang="zh-Hans">"#));
    assert!(root_page.contains(r#"<a href="zh/index.html" hreflang="zh-Hans" lang="zh-Hans">"#));
    assert!(text(&site, "md/zh/book.toml").contains("language = \"zh-Hans\"\n"));
    assert!(!zh.contains("lang=\"zh\""));
    assert!(zh.contains(r#"html:lang(zh) body { font-family: system-ui, -apple-system, "PingFang SC""#));
    let summary = text(&site, "md/SUMMARY.md");
    let turkish = summary.split("# Türkçe\n").nth(1).unwrap();
    assert!(
        turkish.contains("- [8×H200 üzerinde GLM-5.2 işlem hacmi optimizasyonu](tr/glm-5.2-fp8-h200.md)\n"),
        "{summary}"
    );
}

#[test]
fn study_text_is_escaped_and_its_markdown_rendered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("glm-5.2-fp8-h200");
    copy_dir(&root().join("results/glm-5.2-fp8-h200"), &dir);
    let spec = dir.join("study.toml");
    let toml = std::fs::read_to_string(&spec).unwrap().replacen(
        "en = \"The search is greedy:",
        "en = \"<script>alert(1)</script> **bold** The search is greedy:",
        1,
    );
    std::fs::write(&spec, toml).unwrap();
    let site = build(tmp.path());
    let page = text(&site, "en/glm-5.2-fp8-h200.html");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong>"), "escaped and rendered");
    assert!(!page.contains("<script>"));
}

#[test]
fn csv_has_one_row_a_run() {
    let site = build(&root().join("results"));
    let csv = text(&site, "md/data/glm-5.2-fp8-h200.csv");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(
        &headers.iter().take(9).collect::<Vec<_>>(),
        &["study", "stage", "variant", "profile", "engine", "flags", "env", "status", "run"]
    );
    assert!(headers.iter().any(|h| h == "total_token_throughput"));
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    // 20 variants on the target profile, and the baseline and the optimized runs of 4 other profiles.
    assert_eq!(rows.len(), 28);
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let row = rows.iter().find(|r| &r[1] == "chunked-prefill" && &r[2] == "16k").unwrap();
    assert_eq!(&row[col("status")], "failed:oom");
    assert_eq!(&row[col("total_token_throughput")], "");
    let row = rows.iter().find(|r| &r[1] == "chunked-prefill" && &r[2] == "default").unwrap();
    assert_eq!(&row[col("run")], "memory-fraction/0.85/balanced", "a reused run says where its numbers come from");
    assert_eq!(&row[col("total_token_throughput")], "13760.98");
    let json: serde_json::Value = serde_json::from_slice(&site.files["md/data/glm-5.2-fp8-h200.json"]).unwrap();
    assert_eq!(json["study"], "glm-5.2-fp8-h200");
}

#[test]
fn build_command_writes_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (code, _, err) = perflab(&["build", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("en/index.html").is_file());
    // A study's exports beside each language's page are one file with the site's data folder's.
    use std::os::unix::fs::MetadataExt;
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        for ext in ["csv", "json"] {
            let data = std::fs::metadata(out.join(format!("md/data/{id}.{ext}"))).unwrap();
            for locale in ["en", "tr", "zh", "ja"] {
                let copy = std::fs::metadata(out.join(format!("md/{locale}/{id}/{id}.{ext}"))).unwrap();
                assert_eq!((copy.dev(), copy.ino()), (data.dev(), data.ino()), "{locale}/{id}.{ext}");
            }
        }
    }
}

/// Told where it will be served, a build gives each study page its address and a link
/// preview's image, both absolute and both in the site; without, and for an address that is not
/// one, it writes none (and a refused address writes nothing at all).
#[test]
fn a_site_told_its_address_gives_each_page_a_link_preview() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let base = "https://guides.example.org/perf";
    let (code, _, err) = perflab(&["build", "--out", out.to_str().unwrap(), "--site-url", base]);
    assert_eq!(code, 0, "{err}");
    let tag = regex::Regex::new(r#"<meta property="og:(\w+)" content="([^"]*)">"#).unwrap();
    let studies = perflab::study::discover(&root().join("results")).unwrap();
    for dir in &studies {
        let study = Study::load(dir).unwrap();
        for locale in ["en", "tr", "zh", "ja"] {
            let page = std::fs::read_to_string(out.join(format!("{locale}/{}.html", study.id))).unwrap();
            let og: std::collections::BTreeMap<String, String> =
                tag.captures_iter(&page).map(|c| (c[1].to_string(), c[2].to_string())).collect();
            let address = format!("{base}/{locale}/{}.html", study.id);
            assert_eq!(og["url"], address, "{page}");
            assert!(page.contains(&format!("<link rel=\"canonical\" href=\"{address}\">")));
            let image = og["image"].strip_prefix(&format!("{base}/")).expect("the image is in the site");
            assert!(out.join(image).is_file(), "{image}");
            assert!(image.ends_with(&format!("{locale}/{}/summary.png", study.id)), "{image}");
            assert!(og.contains_key("title") && og.contains_key("description"), "{og:?}");
        }
    }
    // Without an address: no preview tags (the committed site is built so).
    let plain = std::fs::read_to_string(root().join("site/en/glm-5.2-fp8-h200.html")).unwrap();
    assert!(!plain.contains("og:") && !plain.contains("canonical"));
    assert!(plain.contains("<meta name=\"description\" content=\""));
    for bad in ["javascript:alert(1)", "https://a/\"><script>", "https:///x", "https://a/?q=1", "ftp://a/"] {
        let elsewhere = tmp.path().join("refused");
        let (code, _, err) = perflab(&["build", "--out", elsewhere.to_str().unwrap(), "--site-url", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--site-url"), "{err}");
        assert!(!elsewhere.exists(), "{bad}: nothing written");
    }
}

#[test]
#[ignore = "needs mdBook (.ci/run installs it): run with --include-ignored"]
fn mdbook_renders_the_book() {
    let tmp = tempfile::tempdir().unwrap();
    let book = tmp.path().join("book");
    let status = std::process::Command::new("mdbook")
        .args(["build", "-d", book.to_str().unwrap()])
        .current_dir(root())
        .status()
        .expect("mdbook is not installed (cargo install mdbook)");
    assert!(status.success());
    let page = std::fs::read_to_string(book.join("tr/glm-5.2-fp8-h200.html")).unwrap();
    assert!(page.contains("Deney sonuçları"));
    // The book is English; its Turkish pages say they are not.
    assert!(page.contains("<div lang=\"tr\">"), "{page}");
    assert!(book.join("en/glm-5.2-fp8-h200/stage-engine.svg").is_file(), "charts are in the book");
}

/// Every export read with Python's `csv` module, as a reader of the data would: each flags and
/// env cell, decoded as the README says (a JSON array of strings), is exactly what the run was
/// given, and no cell starts a spreadsheet formula unless it is a number.
#[test]
#[ignore = "needs python3 (.ci/run checks for it): run with --include-ignored"]
fn python_csv_flags_are_the_runs_flags_and_no_cell_is_a_formula() {
    let script = r#"
import csv, json, sys
out = []
for path in sys.argv[1:]:
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            risky = []
            for k, v in row.items():
                if v[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    try:
                        float(v)
                    except ValueError:
                        risky.append(k + "=" + v)
            out.append({"study": row["study"], "stage": row["stage"], "variant": row["variant"],
                        "status": row["status"], "flags": json.loads(row["flags"]),
                        "env": json.loads(row["env"]), "risky": risky})
print(json.dumps(out))
"#;
    let site = root().join("site/md/data");
    let mut files: Vec<String> = std::fs::read_dir(&site)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    assert_eq!(files.len(), 6, "{files:?}");
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(&files)
        .output()
        .expect("python3 is not installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut checked = 0;
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let analysis = perflab::analysis::analyze(&study);
        for stage in &analysis.stages {
            for v in &stage.variants {
                let mine: Vec<&serde_json::Value> = rows
                    .iter()
                    .filter(|r| r["study"] == study.id.as_str() && r["stage"] == stage.id.as_str())
                    .filter(|r| r["variant"] == v.id.as_str() && r["status"] != "superseded")
                    .collect();
                assert!(!mine.is_empty(), "{} {} {}: no row", study.id, stage.id, v.id);
                let env: Vec<String> = v.command.env.iter().map(|(k, x)| format!("{k}={x}")).collect();
                for r in mine {
                    assert_eq!(r["flags"], serde_json::json!(v.command.flags), "{}: {r}", study.id);
                    assert_eq!(r["env"], serde_json::json!(env), "{}: {r}", study.id);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
    assert!(
        rows.iter()
            .any(|r| r["flags"].as_array().is_some_and(|f| f.iter().any(|x| x.as_str().unwrap().starts_with("--"))))
    );
    let risky: Vec<&serde_json::Value> = rows.iter().filter(|r| !r["risky"].as_array().unwrap().is_empty()).collect();
    assert!(risky.is_empty(), "{risky:?}");
}
