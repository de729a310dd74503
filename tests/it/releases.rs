//! A study kept across three releases of its engine (the bundled `examples/sim-trend`, made by
//! its `make.sh`): its page shows the answer across them in every locale, with a chart, a table
//! and what each release changed, and `analyze` carries the same.

use crate::common;

use common::{perflab, root};

fn example() -> String {
    root().join("examples/sim-trend").display().to_string()
}

#[test]
fn the_trend_example_s_page_shows_its_three_releases_in_every_locale() {
    let dir = example();
    let (code, page, err) = perflab(&["report", &dir]);
    assert_eq!(code, 0, "{err}");
    let section = &page[page.find("## Across engine releases").unwrap_or_else(|| panic!("{page}"))..];
    let section = &section[..section.find("## Experimental setup").unwrap()];
    assert!(section.contains("measured on 3 releases of its engines"), "{section}");
    assert!(section.contains("| Release | Measured | Baseline | Optimized | Gain |"), "{section}");
    for release in ["Sim 1.0", "Sim 1.1", "Sim 1.2"] {
        assert!(section.contains(&format!("| {release} | 20")), "{release}: {section}");
    }
    assert!(section.contains("### What Sim 1.1 changed") && section.contains("### What Sim 1.2 changed"), "{section}");
    assert!(!section.contains("### What Sim 1.0 changed"), "the first release changed nothing: {section}");
    for (locale, heading) in
        [("tr", "Motor sürümleri boyunca"), ("zh", "各引擎版本间的变化"), ("ja", "エンジンのリリースごとの推移")]
    {
        let (code, page, err) = perflab(&["report", &dir, "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains(&format!("## {heading}")) && page.contains("| Sim 1.2 |"), "{locale}: {page}");
    }

    // The chart lies beside a page written with --out, a line a side, a point a release.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("page");
    let (code, _, err) = perflab(&["report", &dir, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(out.join("sim-trend.md")).unwrap();
    assert!(page.contains("sim-trend/releases.svg"), "{page}");
    let svg = std::fs::read_to_string(out.join("sim-trend/releases.svg")).unwrap();
    assert!(svg.contains("<desc>Baseline: Sim 1.0 → ") && svg.contains("; Optimized: Sim 1.0 → "), "{svg}");

    // analyze: the releases oldest first, each figure the analysis of the study as it stood then.
    let (code, json, _) = perflab(&["analyze", &dir]);
    assert_eq!(code, 0);
    let analysis: serde_json::Value = serde_json::from_str(&json).unwrap();
    let releases = analysis["releases"]["releases"].as_array().unwrap();
    let versions: Vec<&str> = releases.iter().map(|r| r["versions"][0]["version"].as_str().unwrap()).collect();
    assert_eq!(versions, ["1.0", "1.1", "1.2"]);
    assert!(releases[0]["changes"].is_null() && releases[2]["changes"]["stages"].is_array());
    assert_eq!(releases[2]["optimized"], analysis["optimized_measure"]["value"], "the last release is the page's own");
    // Each upgrade made the engine faster: the figures follow.
    let optimized: Vec<f64> = releases.iter().map(|r| r["optimized"].as_f64().unwrap()).collect();
    assert!(optimized.windows(2).all(|w| w[1] > w[0]), "{optimized:?}");
}
