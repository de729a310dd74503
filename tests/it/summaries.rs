//! Stage summaries say what they compare: the fastest against the slowest (the seeds' figures),
//! then the winner against the runner-up and against the configuration the stage builds on, with
//! one gain a step; a change measured on a run that lost requests is never drawn as a gain.

use crate::common;

use common::root;
use perflab::analysis::{Adoption, analyze};
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

const STUDIES: [&str; 6] = [
    "glm-5.2-fp8-h200",
    "deepseek-v3.2-h200",
    "glm-4.5-air-h100",
    "qwen3-14b-h100",
    "qwen3-30b-a3b-910b",
    "qwen3-8b-h100-latency",
];

fn page(id: &str) -> String {
    let study = Study::load(&root().join("results").join(id)).unwrap();
    Renderer::new(None).unwrap().page(&study, &analyze(&study), "en", Flavor::Commonmark, &Links::markdown(id)).unwrap()
}

#[test]
fn the_glm_memory_stage_says_what_each_figure_compares() {
    let md = page("glm-5.2-fp8-h200");
    let stage = &md[md.find("### 3. Memory fraction").unwrap()..md.find("### 4.").unwrap()];
    let summary = stage.lines().find(|l| l.starts_with("**Summary:**")).unwrap();
    // The seeds' comparison, said to be one.
    assert!(
        summary.contains("Of the variants, 0.85 does best at 13760.98 tok/s and auto worst at 5881.79 tok/s"),
        "{summary}"
    );
    assert!(summary.contains("(133.96%)"), "{summary}");
    assert!(
        summary.contains("Against the runner-up, 0.8 at 10572.77 tok/s: <span class=\"gain\">▲ +30.15%</span>"),
        "{summary}"
    );
    // The base is the previous stage's winner, named with its stage.
    assert!(
        summary.contains("starting configuration, Parallelism › TP + DP + DP-Attention at 7011.17 tok/s"),
        "{summary}"
    );
    let decision = stage.lines().find(|l| l.starts_with("**Decision:**")).unwrap();
    // One gain for the step: the summary's against the base is the decision's.
    assert!(summary.contains("+96.27%") && decision.contains("+96.27%"), "{summary}\n{decision}");
    // `auto` runs that configuration again: both figures are said, and how far apart they are.
    assert!(
        summary.contains(
            "Measured again here unchanged, as auto, the stage's starting configuration gave 5881.79 tok/s: −16.11% against the 7011.17 tok/s it gave before."
        ),
        "{summary}"
    );
    let study = Study::load(&root().join("results/glm-5.2-fp8-h200")).unwrap();
    let a = analyze(&study);
    let again = a.stage("memory-fraction").unwrap().comparison.as_ref().unwrap().base_again.as_ref().unwrap();
    assert_eq!(
        (again.source.to_string(), format!("{:.2}", again.earlier)),
        ("memory-fraction/auto".into(), "7011.17".into())
    );
    // No other stage of the study measured its base again.
    assert_eq!(a.stages.iter().filter(|s| s.comparison.as_ref().is_some_and(|c| c.base_again.is_some())).count(), 1);
    // A later stage names its base, a winner of an earlier stage, with that stage.
    let deepep = &md[md.find("### 5.").unwrap()..md.find("### 6.").unwrap()];
    assert!(deepep.contains("over the stage's starting configuration, Memory fraction › 0.85."), "{deepep}");
}

#[test]
fn every_stage_has_one_gain_for_its_step() {
    for id in STUDIES {
        let study = Study::load(&root().join("results").join(id)).unwrap();
        let a = analyze(&study);
        for s in &a.stages {
            let Some(cmp) = &s.comparison else { continue };
            let step = match &s.adoption {
                Adoption::Adopted { gain_percent, .. }
                | Adoption::WithinNoise { gain_percent, .. }
                | Adoption::NotBetter { gain_percent, .. } => Some(*gain_percent),
                _ => None,
            };
            if let (Some(step), Some(base)) = (step, cmp.over_base.as_ref().and_then(|b| b.gain)) {
                assert!((step - base).abs() < 1e-9, "{id}/{}: the decision says {step}, the summary {base}", s.id);
            }
            if let Some(r) = &cmp.runner_up {
                assert_ne!(
                    r.source,
                    format!("{}/{}", s.id, cmp.worst),
                    "{id}/{}: the runner-up is not the slowest",
                    s.id
                );
                assert_ne!(r.source, format!("{}/{}", s.id, cmp.best));
            }
        }
    }
}

#[test]
fn a_change_on_a_run_that_lost_requests_is_not_drawn_as_a_gain() {
    let md = page("deepseek-v3.2-h200");
    let row = md.lines().find(|l| l.starts_with("| Short prompt (128 in / 4 out)")).unwrap();
    assert!(row.contains("+80.98% (only 984 of 1000 requests completed)"), "{row}");
    assert!(!row.contains("class=\"gain\""), "{row}");
    for id in STUDIES {
        for line in page(id).lines().filter(|l| l.contains("requests completed")) {
            assert!(!line.contains("class=\"gain\">") || line.starts_with("**Ranking"), "{id}: {line}");
        }
    }
}

#[test]
fn charts_draw_the_base_and_mark_only_what_was_adopted() {
    let r = Renderer::new(None).unwrap();
    let svg = |id: &str, name: &str| {
        let study = Study::load(&root().join("results").join(id)).unwrap();
        let charts = perflab::render::view::charts(&study, &analyze(&study), r.catalog("en").unwrap()).unwrap();
        charts.into_iter().find(|(n, _)| n == name).unwrap().1
    };
    // DeepSeek's MTP stage adopts nothing: no bar says adopted; the configuration it builds on is drawn.
    let mtp = svg("deepseek-v3.2-h200", "stage-mtp.svg");
    assert!(!mtp.contains("(adopted)") && !mtp.contains("(best)"), "{mtp}");
    assert!(
        mtp.contains("SGLang: TP + DP + DP Attention</text>") && mtp.contains("7351.59 tok/s (base)</text>"),
        "{mtp}"
    );
    // GLM's memory stage: its base has a bar of its own, 0.85 is adopted; the axis ends near the top bar.
    let memory = svg("glm-5.2-fp8-h200", "stage-memory-fraction.svg");
    assert!(
        memory.contains("7011.17 tok/s (base)</text>") && memory.contains("13760.98 tok/s (adopted)</text>"),
        "{memory}"
    );
    assert!(memory.contains(">15000</text>") && !memory.contains(">20000</text>"), "{memory}");
    assert!(
        memory.contains(r#"role="img""#)
            && memory.contains("<title>Memory fraction: Total TPS of each variant</title>")
    );
    let narrow = svg("glm-5.2-fp8-h200", "stage-memory-fraction.narrow.svg");
    assert!(narrow.contains(r#"width="360""#) && narrow.contains("13760.98 tok/s (adopted)</text>"), "{narrow}");
}

#[test]
fn variants_show_what_they_change_and_the_benchmark_commands_paste() {
    let glm = page("glm-5.2-fp8-h200");
    let variant = &glm[glm.find("#### 0.85\n").unwrap()..];
    let facts: Vec<&str> = variant.lines().skip(2).take_while(|l| l.starts_with("- ")).collect();
    assert!(facts.contains(&"- Differs in: `--mem-fraction-static=0.85`"), "{facts:?}");
    let deepseek = page("deepseek-v3.2-h200");
    let method =
        &deepseek[deepseek.find("### Benchmark profiles").unwrap()..deepseek.find("## Experiment results").unwrap()];
    let pasteable = "vllm bench serve --model deepseek-ai/DeepSeek-V3.2 --base-url http://127.0.0.1:8000 ";
    let profiles = Study::load(&root().join("results/deepseek-v3.2-h200")).unwrap().spec.profiles.len();
    assert_eq!(method.matches(pasteable).count(), profiles, "one command a profile:\n{method}");
    let commands: Vec<&str> = method.lines().filter(|l| l.starts_with("vllm bench serve")).collect();
    assert!(commands.iter().all(|c| !c.contains('{')), "no placeholder left: {commands:?}");
}
