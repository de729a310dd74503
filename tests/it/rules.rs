//! The rules of the analysis on tiny synthetic studies, a few lines of TOML each: every adoption
//! outcome, ties, a lower-is-better objective, configuration identity, every warning kind, and
//! plurals and number grouping on the page.

use crate::common;

use perflab::analysis::{Adoption, Analysis, NoResultReason, Warning, analyze};
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

/// The top of every synthetic study: one engine, one profile of 100 requests, a first stage
/// holding only the baseline. `{objective}` and `{threshold}` are filled in.
const HEAD: &str = concat!(
    r#"
model = "m"
baseline = "s1/base"
target_profile = "p"
objective = "{objective}"
noise_threshold = {threshold}

"#,
    synthetic_setup!(),
    r#"
[[stage.variant]]
id = "base"
label = "Base"
engine = "e"
"#
);

/// A vLLM block of a run with `tps` total tokens a second and `duration` seconds.
fn block(tps: f64, duration: f64) -> String {
    common::vllm_block(tps, duration, "")
}

/// A block with extra lines before the closing line.
fn block_with(tps: f64, duration: f64, extra: &str) -> String {
    common::vllm_block(tps, duration, extra)
}

/// A study in a temporary folder: `stages` is TOML after the first stage, `runs` are
/// (`stage/variant`, file text) on profile `p`.
fn study(objective: &str, threshold: f64, stages: &str, runs: &[(&str, String)]) -> (tempfile::TempDir, Study) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("synthetic");
    let head = HEAD.replace("{objective}", objective).replace("{threshold}", &threshold.to_string());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("study.toml"), format!("{head}\n{stages}")).unwrap();
    for (run, text) in runs {
        let folder = dir.join("runs").join(run);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("p.txt"), text).unwrap();
    }
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, study)
}

/// A second stage whose variants are `(id, flags)`, plus `extra` TOML in the stage.
fn stage2(variants: &[(&str, &str)], extra: &str) -> String {
    let mut out = format!("[[stage]]\nid = \"s2\"\ntitle = {{ en = \"Second\" }}\n{extra}\n");
    for (id, flags) in variants {
        out.push_str(&format!("\n[[stage.variant]]\nid = \"{id}\"\nlabel = \"{id}\"\nflags = [{flags}]\n"));
    }
    out
}

fn adoption(a: &Analysis, stage: &str) -> Adoption {
    a.stage(stage).unwrap().adoption.clone()
}

fn page(study: &Study, analysis: &Analysis, locale: &str) -> String {
    Renderer::new(None).unwrap().page(study, analysis, locale, Flavor::Commonmark, &Links::markdown(&study.id)).unwrap()
}

#[test]
fn a_gain_beyond_the_threshold_is_adopted() {
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(200.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 25.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    let a = analyze(&s);
    assert_eq!(
        adoption(&a, "s2"),
        Adoption::Adopted { variant: "a".into(), value: 200.0, base_value: 100.0, gain_percent: 100.0, interval: None }
    );
    assert_eq!(adoption(&a, "s1"), Adoption::BaseIsBest { variant: "base".into() });
    assert_eq!(a.optimized.source, "s2/a");
    assert_eq!(a.total_gain, Some(100.0));
    assert_eq!(a.options[1].step, Some(100.0));
    let text = page(&s, &a, "en");
    assert!(text.contains("a is adopted: +100.00% over the stage's starting configuration, First › Base."), "{text}");
}

#[test]
fn a_gain_exactly_at_the_threshold_is_within_the_noise() {
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(125.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 25.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    let a = analyze(&s);
    assert_eq!(
        adoption(&a, "s2"),
        Adoption::WithinNoise {
            variant: "a".into(),
            value: 125.0,
            base_value: 100.0,
            gain_percent: 25.0,
            interval: None
        }
    );
    assert_eq!(a.optimized.source, "s1/base");
    assert_eq!(a.options[1].step, None);
    assert!(
        page(&s, &a, "en")
            .contains("a beats First › Base by +25.00%, inside the 25.00% noise threshold, so nothing is adopted")
    );
}

#[test]
fn a_worse_best_is_not_better() {
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(90.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    match adoption(&analyze(&s), "s2") {
        Adoption::NotBetter { variant, gain_percent, .. } => {
            assert_eq!(variant, "a");
            assert!((gain_percent + 10.0).abs() < 1e-9, "{gain_percent}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_base_configuration_measured_again_and_best_changes_nothing() {
    // `same` has no flags: it is the base's configuration, measured again (and faster).
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/same", block(101.0, 10.0)), ("s2/a", block(99.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("same", ""), ("a", "\"--a=1\"")], ""), &runs);
    assert_eq!(adoption(&analyze(&s), "s2"), Adoption::BaseIsBest { variant: "same".into() });
}

#[test]
fn the_study_can_override_the_numbers() {
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(101.0, 10.0)), ("s2/b", block(150.0, 10.0))];
    let adopt = "adopt = { variant = \"a\", reason = { en = \"b is unstable\" } }";
    let (_t, s) =
        study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\""), ("b", "\"--b=1\"")], adopt), &runs);
    let a = analyze(&s);
    match adoption(&a, "s2") {
        Adoption::Overridden { variant: Some(v), gain_percent: Some(g) } => {
            assert_eq!(v, "a");
            assert!((g - 1.0).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(a.optimized.source, "s2/a");
    let none = "adopt = { reason = { en = \"kept\" } }";
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\""), ("b", "\"--b=1\"")], none), &runs);
    assert_eq!(adoption(&analyze(&s), "s2"), Adoption::Overridden { variant: None, gain_percent: None });
}

#[test]
fn no_variant_that_ranks_is_no_result() {
    let runs = [("s1/base", block(100.0, 10.0))];
    let failed = stage2(&[], "")
        + "\n[[stage.variant]]\nid = \"a\"\nlabel = \"A\"\nflags = [\"--a=1\"]\nfailure = { class = \"oom\" }\n";
    let (_t, s) = study("total_token_throughput", 2.0, &failed, &runs);
    let a = analyze(&s);
    assert_eq!(adoption(&a, "s2"), Adoption::NoResult { reason: NoResultReason::NoVariantRanks });
    assert!(page(&s, &a, "en").contains("No variant produced a usable result; First › Base stays."));
}

#[test]
fn a_base_without_a_value_adopts_nothing_and_says_why() {
    // The baseline failed: the second stage has nothing to compare with.
    let failed_base = HEAD.replace("engine = \"e\"\n", "engine = \"e\"\nfailure = { class = \"crash\" }\n");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("synthetic");
    std::fs::create_dir_all(dir.join("runs/s2/a")).unwrap();
    let head = failed_base.replace("{objective}", "total_token_throughput").replace("{threshold}", "2");
    std::fs::write(dir.join("study.toml"), format!("{head}\n{}", stage2(&[("a", "\"--a=1\"")], ""))).unwrap();
    std::fs::write(dir.join("runs/s2/a/p.txt"), block(200.0, 10.0)).unwrap();
    let s = Study::load(&dir).unwrap();
    let a = analyze(&s);
    assert_eq!(adoption(&a, "s2"), Adoption::NoResult { reason: NoResultReason::BaseWithoutValue });
    // The search never builds on what did not run: it goes on from the best that did.
    assert_eq!(a.optimized.source, "s2/a", "the search goes on from the variant that ran");
    let text = page(&s, &a, "en");
    assert!(
        text.contains("First › Base, which this stage builds on, has no usable result to compare with, so no gain can be claimed; the search goes on from a, the best"),
        "{text}"
    );
    assert!(
        page(&s, &a, "tr")
            .contains("› Base” için karşılaştırılabilir bir sonuç olmadığından kazanç hesaplanamıyor; arama, bu aşamada çalışan en iyi yapılandırma olan “a” ile sürüyor")
    );
}

#[test]
fn a_zero_base_adopts_nothing_and_says_why() {
    let runs = [("s1/base", block(0.0, 10.0)), ("s2/a", block(200.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    let a = analyze(&s);
    assert_eq!(adoption(&a, "s2"), Adoption::NoResult { reason: NoResultReason::ZeroBase });
    assert_eq!(a.optimized.source, "s1/base");
    assert!(page(&s, &a, "en").contains("measures zero, so no gain can be computed"));
}

#[test]
fn a_lower_is_better_objective_end_to_end() {
    // `duration`: shorter wins. The old suffix rule would have maximised it.
    let runs = [("s1/base", block(100.0, 100.0)), ("s2/slow", block(100.0, 150.0)), ("s2/fast", block(100.0, 50.0))];
    let (_t, s) = study("duration", 2.0, &stage2(&[("slow", "\"--slow=1\""), ("fast", "\"--fast=1\"")], ""), &runs);
    let a = analyze(&s);
    assert!(a.lower_is_better);
    assert_eq!(
        adoption(&a, "s2"),
        Adoption::Adopted {
            variant: "fast".into(),
            value: 50.0,
            base_value: 100.0,
            gain_percent: 50.0,
            interval: None
        }
    );
    let c = a.stage("s2").unwrap().comparison.as_ref().unwrap();
    assert_eq!((c.best.as_str(), c.worst.as_str()), ("fast", "slow"));
    assert_eq!(a.total_gain, Some(50.0));
    let text = page(&s, &a, "en");
    assert!(text.contains("fast does best at 50.00 s and slow worst at 150.00 s, a gap of 100.00 s"), "{text}");
    assert!(text.contains("fast is adopted: +50.00% over the stage's starting configuration, First › Base."), "{text}");
    let json = String::from_utf8(perflab::render::exports::json(&a).unwrap()).unwrap();
    assert!(json.contains("\"objective\": \"duration\""), "{json}");
}

#[test]
fn ties_go_to_the_first_variant_everywhere() {
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(200.0, 10.0)), ("s2/b", block(200.0, 10.0))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\""), ("b", "\"--b=1\"")], ""), &runs);
    let a = analyze(&s);
    assert_eq!(adoption(&a, "s2").adopted(), Some("a"));
    let c = a.stage("s2").unwrap().comparison.as_ref().unwrap();
    assert_eq!(
        (c.best.as_str(), c.worst.as_str()),
        ("a", "b"),
        "the best of equals is the first; the slowest, the last of them, so that two variants are compared"
    );
    assert_eq!(a.options[1].best.as_deref(), Some("a"));
    // The chart marks the same winner the decision names.
    let catalog = Renderer::new(None).unwrap();
    let charts = perflab::render::view::charts(&s, &a, catalog.catalog("en").unwrap()).unwrap();
    let svg = &charts.iter().find(|(n, _)| n == "stage-s2.svg").unwrap().1;
    assert_eq!(svg.matches("(adopted)</text>").count(), 1, "one bar marked adopted, the one the decision names");
    let desc = &svg[svg.find("<desc>").unwrap() + 6..svg.find("</desc>").unwrap()];
    let adopted: Vec<&str> =
        desc.split("; ").filter(|p| p.ends_with("(adopted)")).map(|p| p.split(':').next().unwrap()).collect();
    assert_eq!(adopted, ["a"], "{desc}");
}

#[test]
fn identity_is_the_parsed_flags() {
    // `b` is `a` spelled differently: it reuses `a`'s run. `d` is not `c`: it needs its own run.
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/a", block(150.0, 10.0)), ("s2/c", block(120.0, 10.0))];
    let variants = [
        ("a", "\"--x=1\", \"--y=2\""),
        ("b", "\"--y 2\", \"--x 1\""),
        ("c", "\"--m=1 --n=2\""),
        ("d", "\"--m=1\", \"--n=2\""),
    ];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&variants, ""), &runs);
    let a = analyze(&s);
    let st = a.stage("s2").unwrap();
    let variant = |id: &str| st.variants.iter().find(|v| v.id == id).unwrap();
    assert_eq!(variant("b").reused_from.as_deref(), Some("s2/a"));
    assert_eq!(variant("d").reused_from, None);
    assert!(variant("d").measure.is_none(), "d is not measured by c's run");
    let problems = perflab::analysis::check(&s);
    assert!(problems.iter().any(|p| p.message.contains("`s2/d` has no run")), "{problems:?}");
}

fn kinds(a: &Analysis) -> Vec<String> {
    a.warnings.iter().map(|w| serde_json::to_value(w).unwrap()["kind"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_warning_kind() {
    let lost = block(100.0, 10.0).replace("Successful requests:                     100", "Successful requests: 90");
    let cut = block(100.0, 10.0).replace("==================================================\n", "");
    let peak =
        block_with(100.0, 10.0, "Peak output token throughput (tok/s):    5000.00\nPeak concurrent requests: 4\n");
    let zero = block_with(100.0, 10.0, "Mean ITL (ms):                           0.00\n");
    let count = block_with(100.0, 10.0, "Failed requests:                         5\n");
    let runs = [
        ("s1/base", block(100.0, 10.0)),
        ("s2/lost", lost),
        ("s2/cut", cut),
        ("s2/peak", peak),
        ("s2/zero", zero),
        ("s2/count", count),
        // The base's configuration measured again, 50% apart.
        ("s2/again", block(50.0, 10.0)),
    ];
    let variants = [
        ("lost", "\"--l=1\""),
        ("cut", "\"--c=1\""),
        ("peak", "\"--p=1\""),
        ("zero", "\"--z=1\""),
        ("count", "\"--n=1\""),
        ("again", ""),
    ];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&variants, ""), &runs);
    let a = analyze(&s);
    let mut found = kinds(&a);
    found.sort();
    found.dedup();
    assert_eq!(
        found,
        ["implausible-peak", "incomplete", "lost-requests", "noisy", "request-count", "zero-latency"],
        "{:?}",
        a.warnings
    );
    // The peak (5000 tok/s) is more than the 1000 tokens the run produced, but below what
    // 4 streams could carry: the output bound decides.
    let Some(Warning::ImplausiblePeak { runs }) =
        a.warnings.iter().find(|w| matches!(w, Warning::ImplausiblePeak { .. }))
    else {
        panic!()
    };
    assert_eq!((runs.len(), runs[0].run.to_string(), runs[0].ceiling), (1, "s2/peak/p".to_string(), 1000.0));
    // It is said once for the study, not beside the run.
    let text = page(&s, &a, "en");
    assert_eq!(text.matches("Peak output token throughput").count(), 2, "the line in the raw block and the warning");
}

#[test]
fn a_plausible_peak_of_a_busy_run_is_not_flagged() {
    // SGLang on the GPUStack pages: 36,196.65 tok/s at 246 concurrent requests, 281,412 tokens.
    let busy = "============ Serving Benchmark Result ============\n\
                Successful requests:                     100\n\
                Benchmark duration (s):                  148.88\n\
                Total generated tokens:                  281412\n\
                Total Token throughput (tok/s):          4201.01\n\
                Peak output token throughput (tok/s):    36196.65\n\
                Peak concurrent requests:                246.00\n\
                Median ITL (ms):                         68.70\n\
                ==================================================\n";
    // vLLM on the same pages: 1,410,355.61 tok/s with 59 requests and a median ITL of 0.00.
    let absurd = busy.replace("36196.65", "1410355.61").replace("246.00", "59.00").replace("68.70", "0.00");
    let runs = [("s1/base", busy.to_string()), ("s2/a", absurd)];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    let a = analyze(&s);
    let flagged: Vec<String> =
        a.warnings.iter().filter(|w| w.study_wide()).flat_map(|w| w.runs()).map(|r| r.to_string()).collect();
    assert_eq!(flagged, ["s2/a/p"]);
}

#[test]
fn counts_follow_plural_rules_and_grouping_in_both_languages() {
    let peak = |n: u32| block_with(100.0, 10.0, &format!("Peak output token throughput (tok/s): {}\n", 5000 + n));
    let one = [("s1/base", block(100.0, 10.0)), ("s2/a", peak(1))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\"")], ""), &one);
    let a = analyze(&s);
    assert!(page(&s, &a, "en").contains("**⚠** One run reports a peak output throughput higher than a run can"));
    assert!(
        page(&s, &a, "tr").contains(
            "**⚠** Bir koşunun bildirdiği en yüksek çıkış işlem hacmi, gerçekte ulaşılabilecek değerin üstünde"
        )
    );
    let two = [("s1/base", peak(0)), ("s2/a", peak(1))];
    let (_t, s) = study("total_token_throughput", 2.0, &stage2(&[("a", "\"--a=1\"")], ""), &two);
    let a = analyze(&s);
    assert!(page(&s, &a, "en").contains("**⚠** 2 runs report a peak output throughput higher than a run can"));
    assert!(page(&s, &a, "tr").contains("**⚠** 2 koşunun bildirdiği en yüksek çıkış işlem hacmi"));

    use perflab::render::Arg;
    let r = Renderer::new(None).unwrap();
    let (en, tr) = (r.catalog("en").unwrap(), r.catalog("tr").unwrap());
    let lost = |c: &perflab::render::Catalog, expected: u64| {
        c.fmt_args(
            "warning-lost-requests",
            &[("run", Arg::Text("r")), ("completed", Arg::count(0)), ("expected", Arg::count(expected))],
        )
        .unwrap()
    };
    assert!(lost(en, 1).starts_with("r: only 0 of 1 request completed"), "{}", lost(en, 1));
    assert!(lost(en, 2).starts_with("r: only 0 of 2 requests completed"));
    assert!(lost(tr, 1000).starts_with("r: 1.000 isteğin yalnızca 0 tanesi"), "{}", lost(tr, 1000));
    assert_eq!(en.fmt_args("unit-requests", &[("value", Arg::count(1))]).unwrap(), "1 request");
    assert_eq!(en.fmt_args("unit-requests", &[("value", Arg::count(2))]).unwrap(), "2 requests");
    assert_eq!(tr.fmt_args("unit-requests", &[("value", Arg::count(12000))]).unwrap(), "12.000 istek");
    // With decimals shown, 1.00 is plural in English, as CLDR says.
    let shown = en.fmt_args("unit-requests", &[("value", Arg::Number { value: 1.0, decimals: 2 })]).unwrap();
    assert_eq!(shown, "1.00 requests");
}

#[test]
fn a_concurrency_metric_is_shown_as_requests_not_a_rate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("synthetic");
    let head = HEAD
        .replace("{objective}", "total_token_throughput")
        .replace("{threshold}", "2")
        .replace("noise_threshold = 2", "noise_threshold = 2\nsecondary = \"max_concurrent_requests\"");
    std::fs::create_dir_all(dir.join("runs/s1/base")).unwrap();
    std::fs::write(dir.join("study.toml"), head).unwrap();
    std::fs::write(dir.join("runs/s1/base/p.txt"), block_with(100.0, 10.0, "Peak concurrent requests: 64\n")).unwrap();
    let s = Study::load(&dir).unwrap();
    let a = analyze(&s);
    let text = page(&s, &a, "en");
    assert!(text.contains("max_concurrent_requests: 64 requests"), "{text}");
    assert!(!text.contains("64.00 req/s"));
}

/// Three stages: `s2` adopts `--a=1`; `s3` is measured on the first stage's configuration, not on
/// `s2`'s, so its gain is against that configuration, and what it adopts is carried onto `s2`'s.
fn measured_on_study(carried_run: bool) -> (tempfile::TempDir, Study) {
    let mut stages = stage2(&[("a", "\"--a=1\"")], "");
    stages.push_str(
        "\n[[stage]]\nid = \"s3\"\ntitle = { en = \"Third\" }\nmeasured_on = \"s1/base\"\n\
         \n[[stage.variant]]\nid = \"b\"\nlabel = \"b\"\nflags = [\"--b=2\"]\n\
         \n[[stage]]\nid = \"s4\"\ntitle = { en = \"Fourth\" }\n\
         \n[[stage.variant]]\nid = \"same\"\nlabel = \"same\"\n\
         \n[[stage.variant]]\nid = \"c\"\nlabel = \"c\"\nflags = [\"--c=3\"]\n",
    );
    let mut runs = vec![
        ("s1/base", block(100.0, 10.0)),
        ("s2/a", block(200.0, 10.0)),
        ("s3/b", block(110.0, 10.0)),
        ("s4/c", block(300.0, 10.0)),
    ];
    if carried_run {
        runs.push(("s4/same", block(220.0, 10.0)));
    }
    study("total_token_throughput", 2.0, &stages, &runs)
}

#[test]
fn a_stage_measured_on_an_earlier_configuration_is_compared_with_it_and_carried_over() {
    let (_t, s) = measured_on_study(true);
    let a = analyze(&s);
    // Compared with the first stage's configuration (100), not with s2's winner (200).
    assert_eq!(
        adoption(&a, "s3"),
        Adoption::Adopted { variant: "b".into(), value: 110.0, base_value: 100.0, gain_percent: 10.0, interval: None }
    );
    // The search goes on from s2's configuration with `--b=2` added: s4's variant that changes
    // nothing measures it, and s4 is compared with that run.
    let s4 = a.stage("s4").unwrap();
    assert_eq!(s4.base_value, Some(220.0));
    match adoption(&a, "s4") {
        Adoption::Adopted { variant, base_value, gain_percent, .. } => {
            assert_eq!((variant.as_str(), base_value), ("c", 220.0));
            assert!((gain_percent - 36.3636).abs() < 1e-3, "{gain_percent}");
        }
        other => panic!("{other:?}"),
    }
    // The carried configuration is, from then on, the configuration of the variant that measured it.
    assert_eq!(s4.base, "s4/same");
    assert_eq!(a.optimized.flags, ["--a=1", "--b=2", "--c=3"]);
    assert_eq!(a.total_gain, Some(200.0));
}

#[test]
fn a_carried_over_configuration_nobody_measured_leaves_the_next_stage_without_a_base_value() {
    let (_t, s) = measured_on_study(false);
    let a = analyze(&s);
    assert!(matches!(adoption(&a, "s4"), Adoption::NoResult { .. }), "{:?}", adoption(&a, "s4"));
    // Nothing is claimed against the unmeasured configuration, and the search goes on from the
    // stage's best configuration that ran rather than from one that never did.
    assert_eq!(a.optimized.flags, ["--a=1", "--b=2", "--c=3"]);
}

#[test]
fn measured_on_and_base_together_are_an_error_at_the_key() {
    let mut stages = stage2(&[("a", "\"--a=1\"")], "base = \"s1\"\nmeasured_on = \"s1/base\"");
    stages.push('\n');
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("synthetic");
    std::fs::create_dir_all(dir.join("runs/s1/base")).unwrap();
    let head = HEAD.replace("{objective}", "total_token_throughput").replace("{threshold}", "2");
    std::fs::write(dir.join("study.toml"), format!("{head}\n{stages}")).unwrap();
    let Err(err) = Study::load(&dir) else { panic!("loaded") };
    let err = err.to_string();
    assert!(err.contains("study.toml:") && err.contains("`measured_on` and `base`"), "{err}");
}

#[test]
fn replicas_divide_a_per_replica_metric() {
    let stages = stage2(&[("two", "\"--dp=2\"")], "")
        + "replicas = 2\n"
        + "\n[[metric]]\nid = \"per_replica\"\nname = { en = \"TPS per replica\" }\n\
           expr = \"total_token_throughput / replicas\"\nunit = \"tok/s\"\nbetter = \"higher\"\n";
    let runs = [("s1/base", block(100.0, 10.0)), ("s2/two", block(180.0, 10.0))];
    let (_t, s) = study("per_replica", 2.0, &stages, &runs);
    let a = analyze(&s);
    // 180 / 2 = 90 per replica against 100: not better.
    assert!(matches!(adoption(&a, "s2"), Adoption::NotBetter { .. }), "{:?}", adoption(&a, "s2"));
}

/// vLLM's 2023 summary, which prints no count of completed requests.
fn legacy_block(requests_per_second: f64) -> String {
    format!(
        "Namespace(backend='vllm', request_rate=inf, num_prompts=100)\nTotal time: 12.34 s\nThroughput: {requests_per_second:.2} requests/s\nAverage latency: 1.23 s\n"
    )
}

#[test]
fn a_result_without_a_completed_count_ranks() {
    // A format that prints no count is taken at its word; it is not "0 completed".
    let runs = [("s1/base", legacy_block(8.1)), ("s2/a", legacy_block(16.2))];
    let (_t, s) = study("request_throughput", 25.0, &stage2(&[("a", "\"--a=1\"")], ""), &runs);
    let a = analyze(&s);
    assert_eq!(a.optimized.source, "s2/a");
    assert_eq!(a.total_gain, Some(100.0));
    assert!(!a.warnings.iter().any(|w| matches!(w, Warning::LostRequests { .. })), "{:?}", a.warnings);
    let text = page(&s, &a, "en");
    assert!(!text.contains("requests completed"), "{text}");
}
