//! `perflab translations`: every study text without a translation, per language, at its line;
//! and the page in that language marks such text as English.

use crate::common;

use common::{copy_dir, perflab, root};
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::Study;

#[test]
fn the_bundled_studies_are_translated() {
    let (code, out, err) = perflab(&["translations"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    for locale in ["tr", "zh", "ja"] {
        assert!(err.contains(&format!("{locale}: every study text is translated")), "{err}");
    }
    for locale in ["zh", "ja"] {
        let (code, out, err) = perflab(&["translations", "--lang", locale]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(err.trim(), format!("{locale}: every study text is translated"));
    }
}

#[test]
fn untranslated_texts_are_listed_and_shown_as_english() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("glm-5.2-fp8-h200");
    copy_dir(&root().join("results/glm-5.2-fp8-h200"), &dir);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let text = text
        .replacen(
            "title = { en = \"Memory fraction\", tr = \"Bellek oranı\", ",
            "title = { en = \"Memory fraction\", ",
            1,
        )
        .replacen("label = { en = \"default\", tr = \"varsayılan\", ", "label = { en = \"default\", ", 1)
        .replacen("tr = \"Sayılar bu donanım", "xx = \"Sayılar bu donanım", 1);
    std::fs::write(&spec, &text).unwrap();
    let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;

    let (code, out, err) = perflab(&["translations", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("tr: 3 study texts are shown in English"), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let s = spec.display();
    let note = line_of("en = \"The numbers hold");
    assert!(lines[0].starts_with(&format!("{s}:{}:1: `notes[3]` has no `tr` text", note - 1)), "{out}");
    assert!(
        lines[1].starts_with(&format!("{s}:{}:9: `stage[memory-fraction].title`", line_of("title = { en = \"Memory"))),
        "{out}"
    );
    assert!(lines[2].contains("`stage[chunked-prefill].variant[default].label` has no `tr` text"), "{out}");
    assert!(lines[2].ends_with("\"default\""), "{out}");
    // Another language can be asked for by name; an unknown one is an error.
    let (code, _, err) = perflab(&["translations", "--lang", "en", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = perflab(&["translations", "--lang", "xx", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no catalog for locale `xx`"), "{err}");

    // The Turkish page shows those texts in English and says so; the English page is unchanged.
    let study = Study::load(&dir).unwrap();
    let site = Site::build(std::slice::from_ref(&study), &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap();
    let md = String::from_utf8(site.files["md/tr/glm-5.2-fp8-h200.md"].clone()).unwrap();
    assert!(md.contains("### 3. <span lang=\"en\">Memory fraction</span>\n"), "{md}");
    assert!(md.contains("#### <span lang=\"en\">default</span>\n"), "{md}");
    assert!(md.contains("3. <span lang=\"en\">The numbers hold for this hardware"), "{md}");
    let html = String::from_utf8(site.files["tr/glm-5.2-fp8-h200.html"].clone()).unwrap();
    assert!(html.contains("<span lang=\"en\">Memory fraction</span>"), "the page's own mark is kept");
    let en = String::from_utf8(site.files["md/en/glm-5.2-fp8-h200.md"].clone()).unwrap();
    assert!(!en.contains("lang=\"en\""));
}

#[test]
fn a_study_that_does_not_load_is_named_and_the_others_are_still_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("qwen3-14b-h100");
    copy_dir(&root().join("results/qwen3-14b-h100"), &good);
    let spec = good.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let cut = text.replacen("tr = ", "xx = ", 1);
    assert_ne!(cut, text);
    std::fs::write(&spec, cut).unwrap();
    // A study whose run file is out of place does not load; its texts are still read.
    let broken = tmp.path().join("glm-5.2-fp8-h200");
    copy_dir(&root().join("results/glm-5.2-fp8-h200"), &broken);
    std::fs::write(broken.join("runs/stray.txt"), "not a run").unwrap();
    let (code, out, err) = perflab(&["translations", "--lang", "tr", broken.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("stray.txt"), "{err}");
    assert!(err.contains("1 of 2 studies did not load"), "{err}");
    assert!(out.contains("qwen3-14b-h100/study.toml:") && out.contains("has no `tr` text"), "{out}");
}
