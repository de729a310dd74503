//! Repeated measurements on tiny synthetic studies: how a run's measurements are found (in one
//! engine start, across attempts that repeat), the intervals and the adoption rule they feed,
//! what a page says about them, and a configuration measured by two stages kept apart.

use crate::common;

use perflab::analysis::{Adoption, Analysis, analyze};
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

const HEAD: &str = concat!(
    r#"
model = "m"
baseline = "s1/a"
target_profile = "p"
noise_threshold = 2

"#,
    synthetic_setup!(),
    r#"
[[stage.variant]]
id = "a"
label = "A"
engine = "e"

[[stage.variant]]
id = "b"
label = "B"
engine = "e"
flags = ["--fast"]
"#
);

fn block(tps: f64) -> String {
    common::vllm_block(tps, 10.0, "")
}

/// A study whose variants `a` and `b` hold these measurements each, in one folder:
/// `p.txt`, `p.r2.txt`, ... (`extra` is TOML after the first stage).
fn study(a: &[f64], b: &[f64], extra: &str) -> (tempfile::TempDir, Study) {
    let blocks = |values: &[f64]| values.iter().map(|v| block(*v)).collect::<Vec<_>>();
    common::two_variant_study("synthetic", &format!("{HEAD}\n{extra}"), &blocks(a), &blocks(b))
}

fn adoption(a: &Analysis) -> Adoption {
    a.stage("s1").unwrap().adoption.clone()
}

fn kind(a: &Adoption) -> String {
    serde_json::to_value(a).unwrap()["kind"].as_str().unwrap().to_string()
}

fn page(study: &Study, analysis: &Analysis, locale: &str) -> String {
    Renderer::new(None).unwrap().page(study, analysis, locale, Flavor::Commonmark, &Links::markdown(&study.id)).unwrap()
}

#[test]
fn a_clear_gain_is_adopted_with_its_interval_and_rounded_to_it() {
    let (_tmp, s) = study(&[1000.0, 1010.0, 990.0], &[1100.0, 1112.0, 1088.0], "");
    assert_eq!(s.sample(&perflab::study::RunKey::parse("s1/b/p")).len(), 3);
    let a = analyze(&s);
    let adopted = adoption(&a);
    assert_eq!(kind(&adopted), "adopted");
    let Adoption::Adopted { value, gain_percent, interval: Some(i), .. } = adopted else { panic!("{adopted:?}") };
    assert_eq!(value, 1100.0, "the mean of the three runs");
    assert!((gain_percent - 10.0).abs() < 1e-9);
    assert!(i.low > 2.0 && i.high < 18.0 && i.low < 10.0 && i.high > 10.0, "{i:?}");
    assert_eq!(a.evidence.most_repeats, 3);
    let md = page(&s, &a, "en");
    // Half the interval is a few percent: no decimals are supported.
    assert!(md.contains("B is adopted: +10% (95% CI "), "{md}");
    assert!(md.contains("Each figure is the mean of 3 runs"), "{md}");
    assert!(!md.contains("single run"), "{md}");
    // What the decision cost: results placed by hand are a start each, and recorded no time.
    let cost = &a.evidence.decisions[0];
    assert_eq!((cost.stage.as_str(), cost.starts, cost.runs, cost.seconds), ("s1", 6, 6, 0.0));
    assert!(
        md.contains(
            "The stages decided on an interval rest on 6 engine starts and 6 benchmark runs of their two contenders."
        ),
        "{md}"
    );
    for (locale, said) in [
        ("tr", "toplam 6 motor başlatmasına ve 6 benchmark koşusuna dayanır."),
        ("zh", "共计 6 次引擎启动、6 次基准测试运行。"),
        ("ja", "6回のエンジン起動と6回のベンチマーク実行に基づいています。"),
    ] {
        let text = page(&s, &a, locale);
        assert!(text.contains(said), "{locale}: {text}");
    }
    let tr = page(&s, &a, "tr");
    assert!(tr.contains("+%10 (%95 güven aralığı %"), "{tr}");
}

#[test]
fn a_gain_within_scattered_runs_cannot_be_told() {
    // The same +10% mean, with runs all over the place.
    let (_tmp, s) = study(&[1000.0, 1010.0, 990.0], &[800.0, 1400.0, 1100.0], "");
    let a = analyze(&s);
    let adopted = adoption(&a);
    assert!(adopted.unclear(), "{adopted:?}");
    assert_eq!(a.stage("s1").unwrap().after, "s1/a", "the base stays");
    let md = page(&s, &a, "en");
    assert!(md.contains("B measured +10% (95% CI "), "{md}");
    assert!(md.contains("A stays until more runs decide"), "{md}");
}

#[test]
fn an_outlier_keeps_a_gain_from_being_adopted() {
    let (_tmp, s) = study(&[1000.0, 1005.0, 995.0, 1000.0], &[1050.0, 1055.0, 1045.0, 1400.0], "");
    assert_eq!(kind(&adoption(&analyze(&s))), "cannot-tell");
}

#[test]
fn equal_values_give_a_zero_width_interval_and_the_threshold_decides() {
    let (_tmp, s) = study(&[1000.0, 1000.0], &[1100.0, 1100.0], "");
    let a = adoption(&analyze(&s));
    assert_eq!(kind(&a), "adopted");
    let i = a.interval().unwrap();
    assert_eq!((i.low, i.high), (10.0, 10.0));
    let (_tmp, s) = study(&[1000.0, 1000.0], &[1010.0, 1010.0], "");
    assert_eq!(kind(&adoption(&analyze(&s))), "within-noise");
}

#[test]
fn one_run_a_side_decides_by_the_threshold_alone_and_says_so() {
    let (_tmp, s) = study(&[1000.0], &[1100.0, 1300.0], "");
    let a = analyze(&s);
    let adopted = adoption(&a);
    assert_eq!(kind(&adopted), "adopted");
    assert!(adopted.interval().is_none(), "no interval with a single run on one side");
    assert_eq!((a.evidence.fewest_repeats, a.evidence.most_repeats), (1, 2));
    let md = page(&s, &a, "en");
    assert!(md.contains("Each figure is the mean of 1 to 2 runs"), "{md}");
    let (_tmp, s) = study(&[1000.0], &[1100.0], "");
    let a = analyze(&s);
    assert!(a.evidence.single_runs());
    assert!(page(&s, &a, "en").contains("No configuration on this page was measured more than once"));
}

#[test]
fn a_configuration_measured_in_two_stages_stays_two_runs() {
    // Stage s2 measures B's configuration again: its own run, its stage's evidence.
    let extra = r#"
[[stage]]
id = "s2"
title = { en = "Second" }

[[stage.variant]]
id = "again"
label = "B again"
"#;
    let (tmp, _) = study(&[1000.0], &[1100.0], extra);
    let dir = tmp.path().join("synthetic");
    std::fs::create_dir_all(dir.join("runs/s2/again")).unwrap();
    std::fs::write(dir.join("runs/s2/again/p.txt"), block(1050.0)).unwrap();
    let s = Study::load(&dir).unwrap();
    let a = analyze(&s);
    assert_eq!(s.sample(&perflab::study::RunKey::parse("s1/b/p")).len(), 1, "not pooled");
    assert_eq!(a.stage("s1").unwrap().variants[1].measure.as_ref().unwrap().value, Some(1100.0));
    let spread = &a.evidence.spread[0];
    assert_eq!(spread.runs, ["s1/b/p", "s2/again/p"]);
    assert_eq!(spread.values, [1100.0, 1050.0]);
    let md = page(&s, &a, "en");
    assert!(md.contains("except one that ran 2 times; those runs lie 4.55% apart"), "{md}");
}

#[test]
fn attempts_that_repeat_join_the_sample_and_others_replace_it() {
    let (tmp, _) = study(&[1000.0], &[1100.0], "");
    let dir = tmp.path().join("synthetic");
    let manifest = |repeat: bool| {
        let mut m = perflab::study::Manifest::start(
            "e",
            "1",
            vec!["serve".into(), "m".into()],
            Default::default(),
            vec![],
            "t",
        );
        m.state = perflab::study::RunState::Done;
        m.repeat = repeat;
        m
    };
    let attempt = |n: u32, value: f64, repeat: bool| {
        let folder = dir.join(format!("runs/s1/a/attempts/{n}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("p.txt"), block(value)).unwrap();
        manifest(repeat).write(&folder.join("p.manifest.json")).unwrap();
    };
    attempt(1, 1200.0, false);
    attempt(2, 1210.0, true);
    attempt(3, 1190.0, true);
    let s = Study::load(&dir).unwrap();
    let values = s.values(&perflab::study::RunKey::parse("s1/a/p"), "total_token_throughput");
    assert_eq!(values, [1190.0, 1210.0, 1200.0], "attempt 1 started the series; attempt 0 is not in it");
    let superseded = |s: &Study| -> Vec<u32> {
        perflab::analysis::history::superseded(s).iter().filter(|p| p.run == "s1/a/p").map(|p| p.attempt).collect()
    };
    assert_eq!(superseded(&s), [0], "the attempts of the sample are not superseded");
    // A measurement that does not repeat starts anew.
    attempt(4, 900.0, false);
    let s = Study::load(&dir).unwrap();
    assert_eq!(s.values(&perflab::study::RunKey::parse("s1/a/p"), "total_token_throughput"), [900.0]);
    assert_eq!(superseded(&s), [0, 1, 2, 3]);
}

#[test]
fn repeats_and_their_files_are_checked() {
    let (_tmp, s) = study(&[1000.0], &[1100.0], "");
    assert_eq!(s.repeats_wanted("s1", "p"), 1);
    let bad = |extra: &str, files: &[&str]| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("synthetic");
        std::fs::create_dir_all(dir.join("runs/s1/a")).unwrap();
        std::fs::write(
            dir.join("study.toml"),
            HEAD.replace("noise_threshold = 2", &format!("noise_threshold = 2\n{extra}")),
        )
        .unwrap();
        for f in files {
            std::fs::write(dir.join("runs/s1/a").join(f), block(1.0)).unwrap();
        }
        Study::load(&dir).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(bad("repeats = 0", &[]).contains("`repeats`: 0 is not a count of measurements from 1 to 1000"));
    assert!(bad("", &["p.r2.txt"]).contains("a repeated measurement without the first one"));
    assert!(bad("", &["p.txt", "p.r1.txt"]).contains("`.r1` is not a repeat number"));
}
