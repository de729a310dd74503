//! `perflab build` over its own site: a study whose inputs are those its files were made from
//! keeps them as they are, and every other study is rendered again; either way the site is the
//! one a build that renders everything makes.

use crate::common;

use common::{copy_dir, root, tree};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// `perflab build` of `results` into `out` (with `extra`): its standard error.
fn build(results: &Path, out: &Path, extra: &[&str]) -> String {
    let output = common::site_build(results, out).args(extra).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{err}");
    err
}

/// How many studies a build says it took from the previous site.
fn reused(err: &str) -> usize {
    let Some((_, after)) = err.split_once(" studies (") else { return 0 };
    let n = after.split_whitespace().next().unwrap();
    assert!(after.contains("as the previous build made them, not rendered again"), "{err}");
    n.parse().unwrap()
}

/// The bundled studies in a folder of their own.
fn results(tmp: &Path) -> PathBuf {
    let results = tmp.join("results");
    copy_dir(&root().join("results"), &results);
    results
}

/// The site the same studies give when every page is rendered, into an empty folder.
fn rendered(results: &Path, tmp: &Path, extra: &[&str]) -> std::collections::BTreeMap<String, Vec<u8>> {
    let out = tmp.join("rendered");
    let _ = std::fs::remove_dir_all(&out);
    let err = build(results, &out, &[extra, &["--render-all"]].concat());
    assert_eq!(reused(&err), 0);
    tree(&out)
}

#[test]
fn unchanged_studies_keep_their_files_and_a_changed_one_is_rendered_again() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results(tmp.path());
    let site = tmp.path().join("site");
    assert_eq!(reused(&build(&results, &site, &[])), 0, "nothing to take from");
    let page = site.join("en/qwen3-14b-h100.html");
    let (before, inode) = (std::fs::read(&page).unwrap(), std::fs::metadata(&page).unwrap().ino());
    assert_eq!(reused(&build(&results, &site, &[])), 6);
    assert_eq!(std::fs::metadata(&page).unwrap().ino(), inode, "the same file, not a copy");
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));

    // One measured number of one study changes: that study alone is rendered again.
    let run = results.join("qwen3-14b-h100/runs/engine/vllm/sharegpt.txt");
    let text = std::fs::read_to_string(&run).unwrap();
    let changed = text.replace(
        "Output token throughput (tok/s):         3173.92",
        "Output token throughput (tok/s):         3273.92",
    );
    assert_ne!(text, changed);
    std::fs::write(&run, changed).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 5);
    assert_ne!(std::fs::read(&page).unwrap(), before, "the page shows the new number");
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));

    // One word of one study's specification changes (a title in one language, to one of as many
    // bytes): that study alone is rendered again.
    let spec = results.join("glm-4.5-air-h100/study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let changed = text.replace("スループット最適化", "スループット効率化");
    assert_eq!((text.len(), text != changed), (changed.len(), true));
    std::fs::write(&spec, changed).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 5);
    let title = std::fs::read_to_string(site.join("ja/glm-4.5-air-h100.html")).unwrap();
    assert!(title.contains("スループット効率化"), "the page has the new title");
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));
    // `--render-all` renders every study, and gives the same site.
    assert_eq!(reused(&build(&results, &site, &["--render-all"])), 0);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));
}

#[test]
fn a_file_changed_removed_or_linked_in_the_site_has_its_study_rendered_again() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results(tmp.path());
    let site = tmp.path().join("site");
    build(&results, &site, &[]);
    let mut page = std::fs::read(site.join("en/glm-5.2-fp8-h200.html")).unwrap();
    page.extend_from_slice(b"<!-- edited -->");
    std::fs::write(site.join("en/glm-5.2-fp8-h200.html"), page).unwrap();
    std::fs::remove_file(site.join("md/tr/deepseek-v3.2-h200/summary.png")).unwrap();
    // A link to a file outside the site, with the very bytes the page has: not taken.
    let outside = tmp.path().join("outside.md");
    std::fs::copy(site.join("md/ja/qwen3-14b-h100.md"), &outside).unwrap();
    std::fs::remove_file(site.join("md/ja/qwen3-14b-h100.md")).unwrap();
    std::os::unix::fs::symlink(&outside, site.join("md/ja/qwen3-14b-h100.md")).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 3);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));
    assert_eq!(std::fs::metadata(&outside).unwrap().nlink(), 1, "the file outside has no name in the site");
    // A record cut short, or one of another site, takes nothing.
    let record = site.join(perflab::site::RECORD);
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.trim_end_matches("end\n")).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 0);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));
}

#[test]
fn other_templates_another_flavour_or_address_render_every_study_again() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results(tmp.path());
    let site = tmp.path().join("site");
    build(&results, &site, &[]);
    // A catalog of the templates folder with another site title: every study page names it.
    let templates = tmp.path().join("templates");
    copy_dir(&root().join("templates"), &templates);
    let catalog = templates.join("i18n/en.ftl");
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(&catalog, text.replace("site-title = Serving optimization guides", "site-title = Our guides"))
        .unwrap();
    let own = ["--templates", templates.to_str().unwrap()];
    assert_eq!(reused(&build(&results, &site, &own)), 0);
    let page = std::fs::read_to_string(site.join("en/glm-5.2-fp8-h200.html")).unwrap();
    assert!(page.contains(r#"<a class="home" href="index.html">Our guides</a>"#));
    assert_eq!(reused(&build(&results, &site, &own)), 6);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &own));

    let address = ["--site-url", "https://guides.example/"];
    assert_eq!(reused(&build(&results, &site, &address)), 0);
    assert!(
        std::fs::read_to_string(site.join("en/glm-5.2-fp8-h200.html")).unwrap().contains("https://guides.example/")
    );
    assert_eq!(reused(&build(&results, &site, &address)), 6);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &address));

    let mkdocs = ["--flavor", "mkdocs"];
    assert_eq!(reused(&build(&results, &site, &mkdocs)), 0);
    assert_eq!(reused(&build(&results, &site, &mkdocs)), 6);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &mkdocs));
}

/// A dataset file is read when the study is analysed, not when it is loaded: other contents
/// in it render the study again, and its page says that its runs are stale.
#[test]
fn other_contents_in_a_dataset_file_render_its_study_again() {
    let (tmp, dir) = common::example(Some(1));
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let (results, site) = (dir.parent().unwrap(), tmp.path().join("site"));
    let id = dir.file_name().unwrap().to_str().unwrap();
    let page = site.join(format!("en/{id}.html"));
    build(results, &site, &[]);
    assert_eq!(reused(&build(results, &site, &[])), 1);
    assert!(!std::fs::read_to_string(&page).unwrap().contains("the dataset file has different contents now"));
    let dataset = dir.join("prompts.jsonl");
    let text = std::fs::read_to_string(&dataset).unwrap();
    let fewer: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&dataset, fewer.join("\n") + "\n").unwrap();
    assert_eq!(reused(&build(results, &site, &[])), 0);
    assert!(std::fs::read_to_string(&page).unwrap().contains("the dataset file has different contents now"));
}

/// A record that lost the line of one file, or gained one: that study is rendered again, the
/// others are taken, and the site is the one a build that renders everything makes.
#[test]
fn a_record_that_lost_or_gained_a_file_line_renders_that_study_again() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results(tmp.path());
    let site = tmp.path().join("site");
    build(&results, &site, &[]);
    let whole = rendered(&results, tmp.path(), &[]);
    let record = site.join(".perflab-inputs");
    let text = std::fs::read_to_string(&record).unwrap();
    let lost: String =
        text.lines().filter(|l| !l.ends_with(" en/qwen3-14b-h100.html")).map(|l| format!("{l}\n")).collect();
    assert_ne!(lost, text);
    std::fs::write(&record, lost).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 5);
    assert!(site.join("en/qwen3-14b-h100.html").is_file());
    assert_eq!(tree(&site), whole);
    let line = text.lines().find(|l| l.ends_with(" en/qwen3-14b-h100.html")).unwrap();
    let hash = line.split(' ').next().unwrap();
    let extra = format!("{line}\n{hash} md/en/qwen3-14b-h100/extra.png");
    let gained = std::fs::read_to_string(&record).unwrap().replace(line, &extra);
    std::fs::write(&record, gained).unwrap();
    assert_eq!(reused(&build(&results, &site, &[])), 5);
    assert_eq!(tree(&site), whole);
}

/// A record that is a FIFO is no record: the build renders every study instead of waiting for
/// a writer that never comes.
#[test]
fn a_record_that_is_a_fifo_is_no_record() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results(tmp.path());
    let site = tmp.path().join("site");
    build(&results, &site, &[]);
    let record = site.join(".perflab-inputs");
    std::fs::remove_file(&record).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&record).status().unwrap().success());
    assert_eq!(reused(&build(&results, &site, &[])), 0);
    assert_eq!(tree(&site), rendered(&results, tmp.path(), &[]));
}
