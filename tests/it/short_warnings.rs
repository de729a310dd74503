//! Data warnings on every page of the committed site: in the Conclusion a short paragraph each,
//! none repeating another or the evidence paragraph above them; the runs they name, with their
//! figures, in one table at the end of the page.

use crate::common;

use common::root;

const LOCALES: [&str; 4] = ["en", "tr", "zh", "ja"];

fn study_pages() -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for locale in LOCALES {
        for e in std::fs::read_dir(root().join("site/md").join(locale)).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".md") && name != "SUMMARY.md" {
                pages.push((format!("{locale}/{name}"), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    pages.sort();
    pages
}

/// The Conclusion: from the page's first second-level heading to the next.
fn conclusion(page: &str) -> &str {
    let start = page.find("\n## ").unwrap() + 1;
    let end = page[start + 3..].find("\n## ").map_or(page.len(), |e| start + 3 + e);
    &page[start..end]
}

/// A warning paragraph as a reader sees it: no quote marker, warning sign or tags.
fn plain(line: &str) -> String {
    let text = line.trim_start_matches('>').trim().trim_start_matches("**⚠**").trim();
    regex::Regex::new(r"<[^>]+>").unwrap().replace_all(text, "").into_owned()
}

#[test]
fn conclusion_warnings_are_short_and_said_once() {
    let pages = study_pages();
    assert_eq!(pages.len(), 24);
    let mut boxes = 0;
    for (name, page) in &pages {
        let warnings: Vec<String> =
            conclusion(page).lines().filter(|l| l.starts_with("> ") && l.len() > 4).map(plain).collect();
        for w in &warnings {
            assert!(w.chars().count() <= 400, "{name}: a warning of {} characters: {w}", w.chars().count());
        }
        let mut distinct = warnings.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), warnings.len(), "{name}: a warning said twice: {warnings:?}");
        boxes += warnings.len();
    }
    assert!(boxes >= 24, "the bundled studies have warnings: {boxes}");
}

#[test]
fn the_runs_behind_the_warnings_are_one_table_at_the_end() {
    let pages = study_pages();
    let glm = |locale: &str| &pages.iter().find(|p| p.0 == format!("{locale}/glm-5.2-fp8-h200.md")).unwrap().1;
    for (locale, spread, heading) in [
        ("en", "16.11%", "## Runs behind the data warnings"),
        ("tr", "%16,11", "## Veri uyarılarının dayandığı koşular"),
    ] {
        let page = glm(locale);
        // The spread of the configuration measured twice is said once in the Conclusion, by the
        // evidence paragraph.
        assert_eq!(conclusion(page).matches(spread).count(), 1, "{locale}: {}", conclusion(page));
        // The table is the page's last section: 2 runs measured twice, 1 implausible peak,
        // 20 TPOTs that hold the wait.
        let at = page.rfind("\n## ").unwrap();
        assert!(page[at..].starts_with(&format!("\n{heading}\n")), "{locale}");
        let rows = page[at..].lines().filter(|l| l.starts_with("| ")).count();
        assert_eq!(rows, 2 + 2 + 1 + 20, "{locale}: heading, rule and a row a run");
    }
    // The before/after table says what its TPOT is where the tool printed latency ÷ tokens.
    let en = glm("en");
    let table_end = en.find("| ShareGPT |").unwrap();
    let after = &en[table_end..];
    let next = after.find('\n').unwrap() + 1;
    assert!(
        after[next..].trim_start().starts_with("Mean TPOT here is the figure the benchmark tool printed"),
        "{after}"
    );
    // The division checks out by hand: the mean output tokens of a ShareGPT request are not whole.
    assert!(glm("en").contains("| 149.24 ms = 40.33 s ÷ 270.25 tokens |"));
}
