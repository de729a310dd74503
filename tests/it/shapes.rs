//! Shapes of the series' pages that a study first could not express, on small synthetic
//! studies: a first-stage flag left out of the published command, and a study named from
//! inside its own folder.

use crate::common;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

/// A study `name` in a temporary folder: its spec, and its runs as (`stage/variant`, text) on
/// profile `p`.
fn write(name: &str, spec: &str, runs: &[(&str, String)]) -> (tempfile::TempDir, Study) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    for (run, text) in runs {
        std::fs::create_dir_all(dir.join("runs").join(run)).unwrap();
        std::fs::write(dir.join("runs").join(run).join("p.txt"), text).unwrap();
    }
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, study)
}

/// A page of a study in one language.
fn page(study: &Study, locale: &str) -> String {
    let a = analyze(study);
    Renderer::new(None).unwrap().page(study, &a, locale, Flavor::Commonmark, &Links::markdown(&study.id)).unwrap()
}

/// A study whose first stage runs every engine with `--max-model-len 32768` and leaves it out
/// of the published command, then adopts `--async` in a second stage.
fn first_stage_excluded() -> (tempfile::TempDir, Study) {
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        r#"exclude_from_command = { reason = { en = "Set the context length from your own prompts.", tr = "Bağlam uzunluğunu kendi istemlerinize göre ayarlayın." } }

[[stage.variant]]
id = "base"
label = "Base"
engine = "e"
flags = ["--max-model-len 32768"]

[[stage]]
id = "s2"
title = { en = "Second" }

[[stage.variant]]
id = "async"
label = "async"
flags = ["--async"]
"#
    );
    write(
        "excluded",
        spec,
        &[("s1/base", common::vllm_block(100.0, 10.0, "")), ("s2/async", common::vllm_block(150.0, 10.0, ""))],
    )
}

#[test]
fn a_flag_the_first_stage_sets_can_stay_out_of_the_published_command() {
    let (_tmp, study) = first_stage_excluded();
    assert!(perflab::analysis::check(&study).is_empty());
    let a = analyze(&study);
    assert_eq!(a.optimized.flags, ["--max-model-len 32768", "--async"], "what was measured");
    assert_eq!(a.recommended.launch, "serve m");
    assert_eq!(a.recommended.flags, ["--async"], "what is published");
    for (locale, reason) in [
        ("en", "Set the context length from your own prompts."),
        ("tr", "Bağlam uzunluğunu kendi istemlerinize göre ayarlayın."),
    ] {
        let page = page(&study, locale);
        assert!(page.contains(reason), "{locale}: the reason is under the command:\n{page}");
        // The first code block of the page is the recommended command.
        let command = page.split("```").nth(1).unwrap();
        assert!(command.contains("--async") && !command.contains("--max-model-len"), "{locale}: {command}");
    }
}

#[test]
fn a_study_is_checked_from_inside_its_folder() {
    let (_tmp, study) = first_stage_excluded();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["check", "."])
        .current_dir(&study.dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}{}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("excluded: ok"), "{err}");
}

/// A study whose second stage holds two variants with the same throughput and different TPOT.
fn tie() -> (tempfile::TempDir, Study) {
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        "\n[[stage.variant]]\nid = \"base\"\nlabel = \"Base\"\nengine = \"e\"\n\n",
        "[[stage]]\nid = \"s2\"\ntitle = { en = \"Second\" }\n\n",
        "[[stage.variant]]\nid = \"k16\"\nlabel = \"16k\"\nflags = [\"--batch 16384\"]\n\n",
        "[[stage.variant]]\nid = \"k32\"\nlabel = \"32k\"\nflags = [\"--batch 32768\"]\n",
    );
    let tpot = |ms: &str| {
        common::vllm_block(150.0, 10.0, "").replace(
            "Mean TPOT (ms):                          10.00",
            &format!("Mean TPOT (ms):                          {ms}"),
        )
    };
    write(
        "tie",
        spec,
        &[("s1/base", common::vllm_block(100.0, 10.0, "")), ("s2/k16", tpot("12.00")), ("s2/k32", tpot("9.00"))],
    )
}

#[test]
fn a_tie_between_the_fastest_and_the_slowest_names_two_variants() {
    let (_tmp, study) = tie();
    let a = analyze(&study);
    let cmp = a.stage("s2").unwrap().comparison.as_ref().unwrap();
    assert_eq!((cmp.best.as_str(), cmp.worst.as_str()), ("k16", "k32"), "the first of equal values is the best");
    let secondary = cmp.secondary.unwrap();
    assert_eq!((secondary.value, secondary.reference), (12.0, 9.0), "each variant's own TPOT");
    // Turkish writes decimals with a comma.
    for (locale, slow, fast) in [("en", "12.00", "9.00"), ("tr", "12,00", "9,00")] {
        let page = page(&study, locale);
        let named = |l: &&str| l.contains("16k") && l.contains("32k") && l.contains(slow);
        let line = page.lines().find(named).unwrap_or_else(|| panic!("{locale}: {page}"));
        assert!(line.contains(fast), "{locale}: {line}");
    }
}

/// A latency study shown in speedups, with two secondary metrics: a second stage's variants
/// take 10 s and 31 s, at 150 and 100 tok/s.
fn speedups() -> (tempfile::TempDir, Study) {
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\nobjective = \"duration\"\n",
        "secondary = [\"mean_tpot_ms\", \"total_token_throughput\"]\ndisplay = { percent_decimals = 2, speedup = true }\n",
        synthetic_setup!(),
        "\n[[stage.variant]]\nid = \"base\"\nlabel = \"Base\"\nengine = \"e\"\n\n",
        "[[stage]]\nid = \"s2\"\ntitle = { en = \"Second\" }\n\n",
        "[[stage.variant]]\nid = \"quick\"\nlabel = \"quick\"\nflags = [\"--quick\"]\n\n",
        "[[stage.variant]]\nid = \"slow\"\nlabel = \"slow\"\nflags = [\"--slow\"]\n",
    );
    let runs = [
        ("s1/base", common::vllm_block(120.0, 40.0, "")),
        ("s2/quick", common::vllm_block(150.0, 10.0, "")),
        ("s2/slow", common::vllm_block(100.0, 31.0, "")),
    ];
    write("speedups", spec, &runs)
}

/// The stage summary of `s2` on the page in `locale`.
fn stage_summary(study: &Study, locale: &str) -> String {
    let page = page(study, locale);
    let line = page.lines().filter(|l| l.contains("quick") && l.contains("slow")).find(|l| l.contains("31"));
    line.unwrap_or_else(|| panic!("{locale}: {page}")).to_string()
}

#[test]
fn with_speedups_the_stage_summary_gives_the_ratio() {
    let (_tmp, study) = speedups();
    // 31 s against 10 s: 3.10 times faster, not "21 s lower (210%)".
    assert!(stage_summary(&study, "en").contains("3.10× faster"), "{}", stage_summary(&study, "en"));
    assert!(stage_summary(&study, "tr").contains("3,10"), "{}", stage_summary(&study, "tr"));
    assert!(!stage_summary(&study, "en").contains("210"), "{}", stage_summary(&study, "en"));
}

#[test]
fn every_secondary_metric_gets_its_sentence_in_the_stage_summary() {
    let (_tmp, study) = speedups();
    for (locale, quick, slow) in [("en", "150.00", "100.00"), ("tr", "150,00", "100,00")] {
        let line = stage_summary(&study, locale);
        assert!(line.contains(quick) && line.contains(slow), "{locale}: the second secondary metric is said: {line}");
    }
}

#[test]
fn the_conclusion_names_the_checkpoint_the_command_serves() {
    let spec = concat!(
        "model = \"org/M\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        "\n[[stage.variant]]\nid = \"base\"\nlabel = \"Base\"\nengine = \"e\"\n\n",
        "[[stage]]\nid = \"s2\"\ntitle = { en = \"Quantization\" }\n\n",
        "[[stage.variant]]\nid = \"fp8\"\nlabel = \"FP8\"\nmodel = \"org/M-FP8\"\n",
    );
    let runs = [("s1/base", common::vllm_block(100.0, 10.0, "")), ("s2/fp8", common::vllm_block(150.0, 10.0, ""))];
    let (_tmp, study) = write("checkpoint", spec, &runs);
    for locale in ["en", "tr"] {
        let page = page(&study, locale);
        let intro = page.lines().find(|l| l.contains("`org/M")).unwrap_or_else(|| panic!("{locale}: {page}"));
        assert!(intro.contains("`org/M-FP8`"), "{locale}: {intro}");
    }
}

#[test]
fn a_stage_measured_elsewhere_says_the_search_stays_where_it_was() {
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        "\n[[stage.variant]]\nid = \"base\"\nlabel = \"Base\"\nengine = \"e\"\n\n",
        "[[stage]]\nid = \"s2\"\ntitle = { en = \"Parallelism\" }\n\n",
        "[[stage.variant]]\nid = \"tp2\"\nlabel = \"TP2\"\nflags = [\"-tp 2\"]\n\n",
        "[[stage]]\nid = \"s3\"\ntitle = { en = \"Scheduling\" }\nmeasured_on = \"s1/base\"\n\n",
        "[[stage.variant]]\nid = \"async\"\nlabel = \"async\"\nflags = [\"--async\"]\n",
    );
    let runs = [
        ("s1/base", common::vllm_block(100.0, 10.0, "")),
        ("s2/tp2", common::vllm_block(200.0, 10.0, "")),
        ("s3/async", common::vllm_block(90.0, 10.0, "")),
    ];
    let (_tmp, study) = write("measured-on", spec, &runs);
    let a = analyze(&study);
    assert_eq!(a.stage("s3").unwrap().after, "s2/tp2", "the search goes on from TP2");
    for (locale, stays) in [("en", "the search stays on TP2"), ("tr", "arama “TP2” üzerinden sürüyor")] {
        let page = page(&study, locale);
        let decision = page.lines().find(|l| l.contains(stays)).unwrap_or_else(|| panic!("{locale}: {page}"));
        assert!(!decision.contains("Base stays") && !decision.contains("“Base” korunuyor"), "{locale}: {decision}");
    }
}

#[test]
fn a_stage_whose_only_variant_lost_requests_keeps_its_figures_and_success_rate() {
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        "\n[[stage.variant]]\nid = \"base\"\nlabel = \"Base\"\nengine = \"e\"\n\n",
        "[[stage]]\nid = \"s2\"\ntitle = { en = \"Speculative decoding\" }\n\n",
        "[[stage.variant]]\nid = \"mtp\"\nlabel = \"MTP\"\nflags = [\"--mtp\"]\n",
    );
    let lost = common::vllm_block(160.0, 10.0, "")
        .replace("Successful requests:                     100", "Successful requests:                     52");
    let (_tmp, study) = write("lost", spec, &[("s1/base", common::vllm_block(100.0, 10.0, "")), ("s2/mtp", lost)]);
    let a = analyze(&study);
    let row = a.options.iter().find(|o| o.stage == "s2").unwrap();
    assert_eq!((row.best.as_deref(), row.value, row.lost), (Some("mtp"), Some(160.0), Some((52, 100))));
    assert_eq!((row.step, row.vs_baseline), (None, None), "a run that lost requests claims no gain");
    for (locale, words) in
        [("en", "MTP (success rate 52.00%: 52 of 100 requests; not adopted)"), ("tr", "başarı oranı")]
    {
        let page = page(&study, locale);
        let line = page.lines().find(|l| l.contains(words)).unwrap_or_else(|| panic!("{locale}: {page}"));
        assert!(line.contains("160") && line.contains("52"), "{locale}: the row keeps the run's figures: {line}");
    }
}
