//! The figures a reader compares across the site: the index cards (one hardware format, every
//! engine once with a "v" version, the dates said once, the page's own gain) and the charts
//! (a legend for paired bars, no label cut short, regressions marked with their change, an axis
//! with its unit).

use crate::common;

use common::root;
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::Study;

fn studies() -> Vec<Study> {
    perflab::study::discover(&root().join("results")).unwrap().iter().map(|d| Study::load(d).unwrap()).collect()
}

fn text(site: &Site, path: &str) -> String {
    String::from_utf8(site.files.get(path).unwrap_or_else(|| panic!("no {path}")).clone()).unwrap()
}

/// The cards of an index page: each `<li>` of the list of guides.
fn cards(index: &str) -> Vec<&str> {
    index.split("<li data-search=").skip(1).map(|c| &c[..c.find("</li>").unwrap()]).collect()
}

/// The text of the `n`th `<div class="facts">` of a card.
fn facts(card: &str, n: usize) -> &str {
    let rest = card.split("<div class=\"facts\">").nth(n + 1).unwrap();
    &rest[..rest.find("</div>").unwrap()]
}

#[test]
fn index_cards_write_hardware_engines_dates_and_gains_one_way() {
    let studies = studies();
    let site = Site::build(&studies, &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap();
    for locale in ["en", "tr", "zh", "ja"] {
        let index = text(&site, &format!("{locale}/index.html"));
        let cards = cards(&index);
        assert_eq!(cards.len(), studies.len(), "{locale}: {index}");
        let unknown = match locale {
            "en" => "run dates not recorded",
            "tr" => "ölçüm tarihleri kaydedilmemiş",
            "zh" => "未记录测量日期",
            _ => "測定日の記録なし",
        };
        for (study, card) in studies.iter().zip(&cards) {
            let what = format!("{locale}/{}: {card}", study.id);
            // Hardware: "8 × NVIDIA H200 SXM", the count first, nothing after the name.
            let hardware = facts(card, 0).rsplit(" · ").next().unwrap();
            let counted = hardware.split_once(" × ").is_some_and(|(n, _)| n.parse::<u32>().is_ok());
            assert!(counted || !hardware.contains('×'), "{what}");
            assert!(!hardware.contains(['(', '（']), "{what}");
            // Every engine of the study once, with a "v" before its version.
            let engines = facts(card, 1);
            for e in &study.spec.engines {
                assert_eq!(engines.matches(&format!("{} v", e.name)).count(), 1, "{} in {what}", e.name);
            }
            // The dates are said once for the card, not once an engine.
            assert!(engines.matches(unknown).count() <= 1, "{what}");
            assert!(!card.contains("(date not recorded)") && !card.contains("tarih kaydedilmemiş)"), "{what}");
            // The gain is the figure the page itself shows, with the page's decimals.
            let gain = &card[card.rfind("<span class=").unwrap()..];
            let gain = &gain[..gain.find("</span>").unwrap() + 7];
            let page = text(&site, &format!("{locale}/{}.html", study.id));
            assert!(page.contains(gain), "{what}: {gain} is not on the page");
            let decimals = *study.spec.display.percent_decimals.get_ref();
            let figure = gain.trim_end_matches("</span>").rsplit(['+', '−', ' ']).next().unwrap();
            let digits = figure.trim_matches(|c: char| !c.is_ascii_digit());
            let after = digits.rsplit([',', '.']).next().unwrap();
            if gain.contains('%') {
                assert_eq!(after.len(), decimals, "{what}: {gain}");
            }
        }
    }
    // A latency study's card says "faster", as its page does, and an engine that never
    // measured anything says so on its card.
    let en = text(&site, "en/index.html");
    assert!(en.contains("▲ 1.9× faster"), "{en}");
    assert!(en.contains("TensorRT-LLM v1.2.0rc1 (no result)"), "{en}");
    assert!(en.contains("zai-org&#x2F;GLM-5.2-FP8</code> · 8 × NVIDIA H200</div>"), "{en}");
    assert!(en.contains("zai-org&#x2F;GLM-4.5-Air</code> · 4 × NVIDIA H100 SXM</div>"), "{en}");
}

/// The texts an SVG draws.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text").skip(1).map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string()).collect()
}

#[test]
fn charts_have_legends_whole_labels_marked_regressions_and_units() {
    let renderer = Renderer::new(None).unwrap();
    for study in studies() {
        let analysis = perflab::analysis::analyze(&study);
        for locale in ["en", "tr", "zh", "ja"] {
            let c = renderer.catalog(locale).unwrap();
            let charts = perflab::render::view::charts(&study, &analysis, c).unwrap();
            let (baseline, optimized) = (c.msg("chart-baseline").unwrap(), c.msg("chart-optimized").unwrap());
            for (name, svg) in &charts {
                let texts = svg_texts(svg);
                let what = format!("{locale}/{}/{name}", study.id);
                // No label is cut short: long ones wrap.
                assert!(texts.iter().all(|t| !t.ends_with('…')), "{what}: {texts:?}");
                if name.starts_with("comparison") {
                    // The legend names the two bars of a profile once each; no row repeats them.
                    assert_eq!(texts.iter().filter(|t| **t == baseline).count(), 1, "{what}: {texts:?}");
                    assert_eq!(texts.iter().filter(|t| **t == optimized).count(), 1, "{what}: {texts:?}");
                    assert!(!texts.iter().any(|t| t.contains(&format!(" · {baseline}"))), "{what}");
                }
            }
            // Every profile whose optimized configuration is worse shows its change, marked.
            let comparison = &charts.iter().find(|(n, _)| n == "comparison.svg").unwrap().1;
            for s in analysis.scenarios.iter().filter(|s| s.regression) {
                let p = s.change.unwrap();
                let shown = c.percent(p, true, *study.spec.display.percent_decimals.get_ref()).unwrap();
                let marked = format!("▼ {shown}");
                let regressed = svg_texts(comparison).into_iter().filter(|t| t.contains(&marked)).count();
                assert!(regressed >= 1 || study.spec.display.speedup, "{locale}/{}: {marked}", study.id);
            }
            // The axis says its unit.
            let unit = match locale {
                "tr" if analysis.objective.unit == perflab::metric::Unit::TokensPerSecond => "(token/sn)",
                _ if analysis.objective.unit == perflab::metric::Unit::TokensPerSecond => "tok/s",
                _ => "",
            };
            assert!(comparison.contains(unit), "{locale}/{}", study.id);
        }
    }
    // GLM-5.2's ShareGPT regression, as the table gives it.
    let glm = studies().into_iter().find(|s| s.id == "glm-5.2-fp8-h200").unwrap();
    let charts =
        perflab::render::view::charts(&glm, &perflab::analysis::analyze(&glm), renderer.catalog("en").unwrap())
            .unwrap();
    let comparison = &charts.iter().find(|(n, _)| n == "comparison.svg").unwrap().1;
    assert!(comparison.contains("2845.48 (▼ −52.90%)</text>"), "{comparison}");
    assert!(comparison.contains(">Total TPS (tok/s)</text>"), "{comparison}");
}

#[test]
fn pages_say_each_thing_once() {
    let studies = studies();
    let site = Site::build(&studies, &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap();
    let md = text(&site, "md/en/glm-5.2-fp8-h200.md");
    // The profile every variant is measured on, once for all stages.
    assert_eq!(md.matches("Profile: Balanced: 8K input / 1K output").count(), 1, "{md}");
    // A failed variant gives its reason once: the study's explanation, or the class without one.
    assert!(!md.contains("Did not run: out of memory."), "{md}");
    assert!(md.contains("- The larger prefill chunk left too little room for the KV cache"), "{md}");
    let air = text(&site, "md/en/glm-4.5-air-h100.md");
    assert!(!air.contains("Did not run: the engine rejects this configuration."), "{air}");
    // The total row has no step of its own.
    let total = md.lines().find(|l| l.starts_with("| Total")).unwrap();
    assert!(total.ends_with("| - |") && total.matches("+219.70%").count() == 1, "{total}");
    // A chart's title is drawn in it; no caption under it repeats it.
    for (path, bytes) in &site.files {
        if path.ends_with(".html") {
            assert!(!String::from_utf8_lossy(bytes).contains("<figcaption>"), "{path}");
        }
    }
}
