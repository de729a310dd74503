//! Warning boxes on a page: at most one a kind, in the stage that shows its runs or once near
//! the top; a kind about many runs says so in one sentence and lists them, with their figures,
//! in the table at the end of the page. The GLM study is the case: reused runs must not repeat
//! the same box, and the one configuration measured twice must not be lost.

use crate::common;

use common::root;
use perflab::analysis::warnings::{Place, WarningKind};
use perflab::analysis::{Warning, analyze};
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::{RunKey, Study};

/// The page's warning boxes: each blockquote that starts with the warning sign, as one text.
fn boxes(page: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in page.lines() {
        match line.strip_prefix('>') {
            Some(rest) if open => {
                let last = out.last_mut().unwrap();
                last.push('\n');
                last.push_str(rest.trim_start());
            }
            Some(rest) if rest.trim_start().starts_with("**⚠**") => {
                out.push(rest.trim_start().to_string());
                open = true;
            }
            _ => open = false,
        }
    }
    out
}

/// "Stage › Variant (Profile)", as the page names a run ("Stage › Variant › Profile" where the
/// profile's name holds parentheses).
fn run_title(study: &Study, k: &RunKey) -> String {
    let stage = study.stage(&k.stage).unwrap();
    let (_, variant) = study.variant(&format!("{}/{}", k.stage, k.variant)).unwrap();
    let profile = study.profile(&k.profile).unwrap();
    let (stage, variant, profile) = (stage.title.get("en"), variant.label.get("en"), profile.name.get("en"));
    if profile.contains('(') {
        format!("{stage} › {variant} › {profile}")
    } else {
        format!("{stage} › {variant} ({profile})")
    }
}

/// Figures only a warning's own sentence shows, as the English page writes them.
fn figures(w: &Warning) -> Vec<String> {
    match w {
        Warning::Noisy { values, spread_percent, .. } => {
            values.iter().map(|v| format!("{v:.2}")).chain([format!("{spread_percent:.2}%")]).collect()
        }
        Warning::ImplausiblePeak { runs } => runs.iter().map(|p| format!("{:.2}", p.peak)).collect(),
        Warning::TpotIncludesWaiting { runs } => runs.iter().map(|p| format!("{:.2} ms", p.tpot_ms)).collect(),
        Warning::LostRequests { completed, expected, .. } => vec![format!("{completed} of {expected}")],
        _ => Vec::new(),
    }
}

#[test]
fn the_glm_page_shows_one_box_a_kind_listing_every_run() {
    let id = "glm-5.2-fp8-h200";
    let study = Study::load(&root().join("results").join(id)).unwrap();
    let analysis = analyze(&study);
    let page =
        Renderer::new(None).unwrap().page(&study, &analysis, "en", Flavor::Commonmark, &Links::markdown(id)).unwrap();
    let groups = analysis.warning_groups();
    let kinds: Vec<WarningKind> = analysis.warnings.iter().map(Warning::kind).collect();
    assert!(kinds.contains(&WarningKind::Noisy) && kinds.len() >= 3, "the study's warnings: {kinds:?}");
    assert_eq!(groups.len(), {
        let mut k = kinds.clone();
        k.sort();
        k.dedup();
        k.len()
    });

    let found = boxes(&page);
    let authored = study.spec.warnings.len()
        + study
            .spec
            .stages
            .iter()
            .map(|s| s.warnings.len() + s.variants.iter().map(|v| v.warnings.len()).sum::<usize>())
            .sum::<usize>();
    // The spread of the configuration measured twice is told once, by the evidence paragraph.
    let noisy = groups.iter().find(|g| g.kind == WarningKind::Noisy).unwrap();
    assert_eq!(noisy.place, Place::Study, "its runs are in two stages");
    let told = page.lines().find(|l| l.starts_with("Each configuration was measured once")).unwrap();
    assert!(told.contains("ran 2 times; those runs lie 16.11% apart"), "{told}");
    assert_eq!(found.len(), groups.len() - 1 + authored, "one box a kind besides the study's own warnings: {found:#?}");
    let table = &page[page.rfind("\n## Runs behind the data warnings\n").unwrap()..];
    for g in &groups {
        let runs: Vec<String> = g.warnings.iter().flat_map(|w| w.runs()).map(|r| run_title(&study, r)).collect();
        let figures: Vec<String> = g.warnings.iter().flat_map(figures).collect();
        let listed =
            matches!(g.kind, WarningKind::Noisy | WarningKind::ImplausiblePeak | WarningKind::TpotIncludesWaiting);
        if listed {
            // Every run and figure in the table at the end, one row a run.
            for f in figures.iter().filter(|f| !f.ends_with('%')) {
                assert!(table.contains(f.as_str()), "{:?}: the table holds {f}", g.kind);
            }
            for r in &runs {
                assert!(table.contains(&format!("| {r} |")), "{:?}: the table lists {r}", g.kind);
            }
            continue;
        }
        // The box of the kind: the one with its figures; it names every run the kind concerns.
        let holding: Vec<&String> = found.iter().filter(|b| figures.iter().all(|f| b.contains(f.as_str()))).collect();
        assert_eq!(holding.len(), 1, "{:?}: one box holds {figures:?}, not {}", g.kind, holding.len());
        for r in &runs {
            assert!(holding[0].contains(r.as_str()), "{:?} box lists {r}:\n{}", g.kind, holding[0]);
        }
    }
}

#[test]
fn a_kind_whose_runs_one_stage_shows_is_boxed_in_that_stage() {
    let id = "deepseek-v3.2-h200";
    let study = Study::load(&root().join("results").join(id)).unwrap();
    let analysis = analyze(&study);
    for g in analysis.warning_groups() {
        let places: Vec<Vec<Place>> = g.warnings.iter().flat_map(|w| w.runs()).map(|r| analysis.shown_in(r)).collect();
        match &g.place {
            Place::Stage(s) => assert!(places.iter().all(|p| p == &vec![Place::Stage(s.clone())]), "{g:?}"),
            Place::Scenarios => assert!(places.iter().all(|p| p == &vec![Place::Scenarios]), "{g:?}"),
            Place::Study => assert!(
                g.warnings.iter().any(Warning::study_wide)
                    || places.windows(2).any(|w| w[0] != w[1])
                    || places.iter().any(Vec::is_empty),
                "{g:?} is placed at the top though one place shows all its runs"
            ),
        }
    }
}
