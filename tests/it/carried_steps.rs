//! A stage whose adopted variant builds on a configuration from before the stage ahead of it
//! (GLM-4.5-Air's layouts on the BF16 weights, after the FP8 checkpoint was adopted): the
//! skipped stage's step is shown as measured but left out of the total, the later step is taken
//! against the configuration it builds on, and the steps then chain to the total.

use crate::common;

use common::root;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

#[test]
fn the_steps_chain_to_the_total_without_what_the_command_does_not_serve() {
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let a = analyze(&study);
        let chained: f64 = a
            .options
            .iter()
            .filter(|o| o.left_out_by.is_none())
            .filter_map(|o| o.carried_step.or(o.step))
            .map(|p| 1.0 + p / 100.0)
            .product();
        let total = 1.0 + a.total_gain.unwrap() / 100.0;
        let left_out: Vec<&str> =
            a.options.iter().filter(|o| o.left_out_by.is_some()).map(|o| o.stage.as_str()).collect();
        if study.id == "glm-4.5-air-h100" {
            assert_eq!(left_out, ["quantization"]);
            assert!((chained - total).abs() < 1e-9, "steps give {chained}, total {total}");
            let fp8 = a.options.iter().find(|o| o.stage == "quantization").unwrap().step.unwrap();
            assert!(((chained * (1.0 + fp8 / 100.0)) - total).abs() > 0.1, "with the FP8 step they would not");
            assert!(!a.recommended.model.contains("FP8"), "the command serves BF16");
            let parallelism = a.options.iter().find(|o| o.stage == "parallelism").unwrap();
            let sglang = a.stage("engine").unwrap().variants.iter().find(|v| v.id == "sglang").unwrap();
            let base = sglang.measure.as_ref().unwrap().value.unwrap();
            let expected = (parallelism.value.unwrap() / base - 1.0) * 100.0;
            assert!((parallelism.carried_step.unwrap() - expected).abs() < 1e-9);
        } else {
            assert!(left_out.is_empty(), "{}: {left_out:?}", study.id);
            // A variant on a configuration its stage did not build on (DeepSeek's SGLang layouts
            // on the SGLang default, after vLLM was kept) skips no stage and keeps its step.
            assert!(a.options.iter().all(|o| o.carried_step.is_none()), "{}", study.id);
        }
    }
}

#[test]
fn the_page_says_the_fp8_step_is_not_in_the_total_and_the_chart_skips_it() {
    let study = Study::load(&root().join("results/glm-4.5-air-h100")).unwrap();
    let a = analyze(&study);
    let renderer = Renderer::new(None).unwrap();
    let page = renderer.page(&study, &a, "en", Flavor::Commonmark, &Links::markdown(&study.id)).unwrap();
    let row = page.lines().find(|l| l.starts_with("| Quantization in SGLang |")).unwrap();
    assert!(row.contains("+27.7%</span>, measured but not in the total: “Parallelism in SGLang”"), "{row}");
    let row = page.lines().find(|l| l.starts_with("| Parallelism in SGLang |")).unwrap();
    assert!(row.ends_with("| <span class=\"gain\">▲ +32.1%</span> |"), "{row}");
    let charts = perflab::render::view::charts(&study, &a, renderer.catalog("en").unwrap()).unwrap();
    let progression = &charts.iter().find(|(n, _)| n == "progression.svg").unwrap().1;
    assert!(progression.contains("Inference engine") && progression.contains("Parallelism in SGLang"));
    assert!(!progression.contains("Quantization in SGLang"), "{progression}");
}
