//! Seeded random hostile studies through the whole publishing path: texts that ask mdBook and
//! mkdocs to read a file into the page, script and template syntax, names the site keeps for
//! itself, and a site whose records were damaged between builds. Each case runs `check`,
//! `build`, `mdbook build` and `mkdocs build` over the result: nothing outside the site is
//! written, the file named never reaches a built page, a reserved name is refused by both
//! `check` and `build`, and a site rebuilt over damaged records is byte for byte the site of a
//! build into an empty folder.

use crate::common;

use common::{copy_dir, root, site_build, tree};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// A small seeded generator (xorshift64*), so that each case is the same on every machine.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a, T: ?Sized>(&mut self, from: &[&'a T]) -> &'a T {
        from[(self.next() % from.len() as u64) as usize]
    }
}

const SECRET: &str = "SECRET-4e1d77-NOT-FOR-PAGES";
/// Begins every hostile text, so that a test can see the text reached the page.
const MARKER: &str = "hostile-text-here";

/// Pieces of hostile text; `{path}` is the secret file's path, `{name}` its name.
const PIECES: &[&str] = &[
    "{{#include {path}}}",
    "{{ #include {path} }}",
    "{{#rustdoc_include {path}}}",
    "{{#playground {path}}}",
    "{{#include ../../../../{name}}}",
    "--8<-- \"{name}\"",
    "--8<-- \"{path}\"",
    ";--8<-- \"{name}\"",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[link](javascript:alert(1))",
    "{% include \"{path}\" %}",
    "{{ config }}",
    "<!-- {path} -->",
    "```\n{{#include {path}}}\n```",
    "\n\n    {{#include {path}}}\n",
    "`{{#include {path}}}`",
    "plain words",
];

/// Ids the site keeps for files of its own: refused wherever a study enters.
const RESERVED: &[&str] = &["index", "SUMMARY", "book", "404", "search", "data"];

/// A hostile text of three to six pieces.
fn text(draw: &mut Draw, secret: &Path) -> String {
    let n = 3 + draw.next() % 4;
    let name = secret.file_name().unwrap().to_string_lossy();
    (0..n)
        .map(|_| draw.pick(PIECES).replace("{path}", &secret.display().to_string()).replace("{name}", &name))
        .fold(MARKER.to_string(), |text, piece| format!("{text} {piece}"))
}

/// Damages a site's records (the file list and the inputs of each study) one way of several.
fn damage(draw: &mut Draw, site: &Path) -> String {
    let record = if draw.next().is_multiple_of(2) { ".perflab-inputs" } else { ".perflab-files" };
    let path = site.join(record);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let at = (draw.next() % lines.len().max(1) as u64) as usize;
    let (how, damaged) = match draw.next() % 4 {
        0 => (
            "a line left out",
            lines.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, l)| *l).collect::<Vec<_>>().join("\n"),
        ),
        1 => ("cut short", text.chars().take(text.chars().count() / 2).collect()),
        2 => (
            "a line garbled",
            lines
                .iter()
                .enumerate()
                .map(|(i, l)| if i == at { "\u{1}garbage ../../x" } else { l })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => ("emptied", String::new()),
    };
    std::fs::write(&path, damaged).unwrap();
    format!("{record} {how}")
}

/// Every file under `dir` but the site `site` itself (and its build lock beside it).
fn outside(dir: &Path, site: &Path) -> BTreeMap<String, Vec<u8>> {
    let skip = site.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
    tree(dir).into_iter().filter(|(p, _)| !p.starts_with(&skip) && !p.contains("perflab-lock")).collect()
}

/// The names of the files that differ between two trees (a name in one only, or other bytes).
fn differ(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names.into_iter().filter(|n| a.get(*n) != b.get(*n)).cloned().collect()
}

fn build(results: &Path, out: &Path) -> (i32, String) {
    let done = site_build(results, out).output().unwrap();
    (done.status.code().unwrap_or(-1), String::from_utf8_lossy(&done.stderr).into_owned())
}

/// Every file under `dir` that holds the secret, or a script the study wrote as a live tag.
fn leaks(dir: &Path) -> Vec<String> {
    common::holding(dir, &[SECRET, "<script>alert", "<img src=x onerror"])
}

/// The English drop-in pages built as a book and as an mkdocs site that may read snippets from
/// `near`, the folder the secret lies in: neither holds it.
fn drop_ins_leak_nothing(site: &Path, id: &str, near: &Path, case: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path();
    let book = site.join("md/en");
    let done = Command::new("mdbook").arg("build").arg("--dest-dir").arg(tmp.join("book")).current_dir(&book).output();
    let done = done.expect("mdbook is not installed (.ci/run installs it)");
    assert!(done.status.success(), "{case}: mdbook build: {}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(leaks(&tmp.join("book")), Vec::<String>::new(), "{case}");
    let page = std::fs::read_to_string(tmp.join(format!("book/{id}.html"))).unwrap();
    assert!(page.contains(MARKER), "{case}: the note is on the page");

    let docs = tmp.join("mkdocs/docs");
    copy_dir(&book, &docs);
    for own in ["SUMMARY.md", "book.toml"] {
        let _ = std::fs::remove_file(docs.join(own));
    }
    std::fs::write(docs.join("index.md"), format!("# Guides\n\n- [{id}]({id}.md)\n")).unwrap();
    let config = std::fs::read_to_string(root().join("tests/fixtures/mkdocs/mkdocs.yml")).unwrap();
    let snippets = format!("  - pymdownx.snippets:\n      base_path: [\"{}\"]\n", near.display());
    std::fs::write(tmp.join("mkdocs/mkdocs.yml"), format!("{}{snippets}", config.replace("LANGUAGE", "en"))).unwrap();
    let done = Command::new(common::mkdocs())
        .args(["build", "--site-dir", "built"])
        .current_dir(tmp.join("mkdocs"))
        .env("NO_MKDOCS_2_WARNING", "1")
        .output()
        .unwrap();
    assert!(done.status.success(), "{case}: mkdocs build: {}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(leaks(&tmp.join("mkdocs/built")), Vec::<String>::new(), "{case}");
}

#[test]
#[ignore = "needs mdBook and mkdocs (.ci/run installs both): run with --include-ignored"]
fn mkdocs_and_mdbook_over_random_hostile_studies_and_damaged_records() {
    let (mut reserved_cases, mut damaged) = (0, 0);
    for seed in 1..=5u64 {
        let mut draw = Draw(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let tmp = tempfile::tempdir().unwrap();
        let secret = tmp.path().join("secret.txt");
        std::fs::write(&secret, SECRET).unwrap();
        let reserved = seed == 3;
        let id = if reserved { draw.pick(RESERVED).to_string() } else { format!("guide-{seed}") };
        let results = tmp.path().join("results");
        let dir = results.join(&id);
        copy_dir(&root().join("results/glm-4.5-air-h100"), &dir);
        let spec = dir.join("study.toml");
        let (note, tr) = (text(&mut draw, &secret), text(&mut draw, &secret));
        let hostile = format!("[[notes]]\nen = '''{note}'''\ntr = '''{tr}'''\n\n[[notes]]");
        let study = std::fs::read_to_string(&spec).unwrap().replacen("[[notes]]", &hostile, 1);
        std::fs::write(&spec, study).unwrap();
        let case = format!("seed {seed}, study `{id}`, note {note:?}");

        let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
        let site = tmp.path().join("out/site");
        let before = outside(tmp.path(), &site);
        let (built, said) = build(&results, &site);
        assert_eq!(
            differ(&outside(tmp.path(), &site), &before),
            Vec::<String>::new(),
            "{case}: written outside the site"
        );
        if reserved {
            assert_ne!(code, 0, "{case}: check took a reserved id\n{out}{err}");
            assert!(format!("{out}{err}").contains(&format!("`{id}`")), "{case}: {out}{err}");
            assert_ne!(built, 0, "{case}: build took a reserved id: {said}");
            assert!(!site.join(format!("en/{id}.html")).exists() || id == "index", "{case}");
            reserved_cases += 1;
            continue;
        }
        assert_eq!(code, 0, "{case}: {out}{err}");
        assert_eq!(built, 0, "{case}: {said}");
        assert_eq!(leaks(&site), Vec::<String>::new(), "{case}");
        drop_ins_leak_nothing(&site, &id, tmp.path(), &case);

        // Damaged records, then builds again: the site of a build into an empty folder.
        for _ in 0..2 {
            let how = damage(&mut draw, &site);
            damaged += 1;
            let (code, said) = build(&results, &site);
            assert_eq!(code, 0, "{case}, {how}: {said}");
            assert_eq!(
                differ(&outside(tmp.path(), &site), &before),
                Vec::<String>::new(),
                "{case}, {how}: written outside the site"
            );
            let elsewhere = tempfile::tempdir().unwrap();
            let fresh = elsewhere.path().join("site");
            assert_eq!(build(&results, &fresh).0, 0, "{case}");
            assert_eq!(
                differ(&tree(&site), &tree(&fresh)),
                Vec::<String>::new(),
                "{case}, {how}: not a fresh build's site"
            );
        }
    }
    assert_eq!((reserved_cases, damaged), (1, 8));
}
