//! "Other benchmark scenarios": each scenario's figures in one visible line, baseline →
//! optimized with the change the before/after table gives, its raw results still in closed boxes.

use crate::common;

use common::root;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

#[test]
fn every_scenario_has_its_line_in_view_above_its_closed_boxes() {
    let renderer = Renderer::new(None).unwrap();
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let analysis = analyze(&study);
        for locale in ["en", "tr"] {
            let page =
                renderer.page(&study, &analysis, locale, Flavor::Commonmark, &Links::markdown(&study.id)).unwrap();
            let heading = renderer.catalog(locale).unwrap().msg("heading-scenarios").unwrap();
            let start = page.find(&format!("## {heading}\n")).unwrap();
            let section = &page[start..];
            let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
            let parts: Vec<&str> = section.split("\n### ").skip(1).collect();
            assert_eq!(parts.len(), analysis.scenarios.len(), "{} {locale}", study.id);
            let table = &page[..start];
            for (part, scenario) in parts.iter().zip(&analysis.scenarios) {
                let line = part.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap();
                assert!(line.contains(" → ") && !line.starts_with('<'), "{} {locale}: {line}", study.id);
                // The line's figures are the before/after table's.
                let figures = line.split_once(": ").map_or(line, |(_, f)| f);
                let (before, after) = figures.split_once(" → ").unwrap();
                assert!(table.contains(before), "{} {locale}: {before} is not in the table", study.id);
                let after = after.split(" (").next().unwrap();
                assert!(table.contains(after), "{} {locale}: {after} is not in the table", study.id);
                assert!(
                    part.find(line).unwrap() < part.find("<details>").unwrap(),
                    "{}: the line comes first",
                    study.id
                );
                let boxes = part.matches("<details>").count();
                let opened = part.matches("<details open").count();
                assert!(
                    boxes >= 2 && opened == 0,
                    "{} {locale} {}: raw blocks stay closed",
                    study.id,
                    scenario.profile
                );
            }
        }
    }
}
