//! Every measurement of a repeated run accounted for: one that fails the single-run checks is
//! left out of the mean with a warning, each has its CSV row and its raw block on the page, a
//! high percentile from too few requests is flagged, and charts draw every interval.

use crate::common;

use perflab::analysis::{Warning, analyze};
use perflab::render::charts::{Bar, BarKind, Group, bars, pairs, progression};
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

/// A study of one stage (variants `a` and `b`) whose profile sends `requests` requests, with
/// `secondary` shown beside the throughput and these blocks in each variant's folder.
fn study(requests: u64, secondary: &str, a: &[String], b: &[String]) -> (tempfile::TempDir, Study) {
    study_with(requests, secondary, "", a, b)
}

/// [`study`] with `head`, TOML keys of the study's own, after its secondary metric.
fn study_with(requests: u64, secondary: &str, head: &str, a: &[String], b: &[String]) -> (tempfile::TempDir, Study) {
    let spec = format!(
        r#"model = "m"
baseline = "s1/a"
target_profile = "p"
noise_threshold = 2
secondary = "{secondary}"
{head}

[title]
en = "Measured"

[hardware]
en = "one GPU"

[benchmark]
tool = "vllm bench serve"

[[engine]]
id = "e"
name = "Engine"
version = "1"
command = "serve {{model}}"

[[profile]]
id = "p"
name = {{ en = "Profile" }}
dataset = "random"
total_requests = {requests}

[[stage]]
id = "s1"
title = {{ en = "First" }}

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
    common::two_variant_study("measured", &spec, a, b)
}

/// A vLLM block: `completed` of the requests succeeded, `failed` did not.
fn block(completed: u64, failed: u64, tps: f64) -> String {
    format!(
        "============ Serving Benchmark Result ============\n\
         Successful requests:                     {completed}\n\
         Failed requests:                         {failed}\n\
         Benchmark duration (s):                  10.00\n\
         Total generated tokens:                  1000\n\
         Total Token throughput (tok/s):          {tps:.2}\n\
         Mean TPOT (ms):                          10.00\n\
         P99 TTFT (ms):                           250.00\n\
         ==================================================\n"
    )
}

fn page(study: &Study) -> String {
    let analysis = analyze(study);
    Renderer::new(None).unwrap().page(study, &analysis, "en", Flavor::Commonmark, &Links::markdown(&study.id)).unwrap()
}

#[test]
fn a_repeat_that_lost_requests_is_left_out_of_the_mean_and_said_so() {
    let a = [block(1000, 0, 5481.9), block(600, 400, 3000.0), block(1000, 0, 5500.1)];
    let b = [block(1000, 0, 5400.0), block(1000, 0, 5420.0)];
    let (_tmp, s) = study(1000, "mean_tpot_ms", &a, &b);
    let analysis = analyze(&s);
    let va = &analysis.stage("s1").unwrap().variants[0];
    let m = va.measure.as_ref().unwrap();
    assert_eq!(m.value, Some((5481.9 + 5500.1) / 2.0), "the measurement that lost requests is not in the mean");
    assert_eq!(m.repeats, 2, "two measurements count");
    let left: Vec<&Warning> = analysis.warnings.iter().filter(|w| matches!(w, Warning::LeftOut { .. })).collect();
    assert_eq!(left.len(), 1, "{:?}", analysis.warnings);
    assert!(
        matches!(left[0], Warning::LeftOut { run, file, completed: 600, expected: 1000 } if run == "s1/a/p" && file.ends_with("p.r2.txt")),
        "{left:?}"
    );
    let md = page(&s);
    assert!(md.contains("completed 600 of 1000 requests or was cut off, so it is left out"), "{md}");
    // Below `min_completed` the same: it never enters a mean.
    let a = [block(1000, 0, 5481.9), block(100, 900, 300.0)];
    let (_tmp, s) = study(1000, "mean_tpot_ms", &a, &b);
    let analysis = analyze(&s);
    assert_eq!(analysis.stage("s1").unwrap().variants[0].measure.as_ref().unwrap().value, Some(5481.9));
}

/// The plan's status of `s1/a/p` and the measurements its next engine start takes of it.
fn planned(s: &Study) -> (perflab::exec::Status, Option<u32>) {
    let plan = perflab::exec::plan(s, &Default::default(), false).unwrap();
    let run = plan.runs.iter().find(|r| r.variant == "a" && r.profile == "p").unwrap();
    let job = plan.jobs.iter().find(|j| j.variant == "a");
    (run.status.clone(), job.map(|j| j.repeats.get("p").copied().unwrap_or(1)))
}

#[test]
fn a_repeat_left_out_is_measured_again_up_to_as_many_as_the_study_wants() {
    use perflab::exec::Status;
    let ok = || block(1000, 0, 5481.9);
    let lost = || block(600, 400, 3000.0);
    let b = [ok(), ok(), ok()];
    let (_tmp, s) = study_with(1000, "mean_tpot_ms", "repeats = 3", &[ok(), ok(), ok()], &b);
    assert!(matches!(planned(&s).0, Status::Done { .. }), "{:?}", planned(&s));
    // One of three left out: one more measurement, not a whole new sample.
    let (_tmp, s) = study_with(1000, "mean_tpot_ms", "repeats = 3", &[ok(), lost(), ok()], &b);
    assert_eq!(planned(&s), (Status::Pending, Some(1)));
    let (_tmp, s) = study_with(1000, "mean_tpot_ms", "repeats = 3", &[ok(), lost(), ok(), lost()], &b);
    assert_eq!(planned(&s), (Status::Pending, Some(1)));
    // As many left out as the study wants: the run stands as measured, and says why.
    let (_tmp, s) = study_with(1000, "mean_tpot_ms", "repeats = 3", &[ok(), lost(), lost(), lost()], &b);
    assert!(matches!(planned(&s).0, Status::Done { .. }), "{:?}", planned(&s));
    assert_eq!(analyze(&s).warnings.iter().filter(|w| matches!(w, Warning::LeftOut { .. })).count(), 3);
    // A single run that lost requests is the run's outcome, not measured again.
    let (_tmp, s) = study(1000, "mean_tpot_ms", &[lost()], &[ok()]);
    assert!(matches!(planned(&s).0, Status::Done { .. }), "{:?}", planned(&s));
}

#[test]
fn every_measurement_has_its_csv_row_and_its_raw_block() {
    let a = [block(100, 0, 1000.0), block(100, 0, 1010.0), block(100, 0, 990.0)];
    let b = [block(100, 0, 1100.0)];
    let (_tmp, s) = study(100, "p99_ttft_ms", &a, &b);
    let analysis = analyze(&s);
    let csv = String::from_utf8(perflab::render::exports::csv(&s, &analysis).unwrap()).unwrap();
    let rows: Vec<&str> = csv.lines().filter(|l| l.contains(",s1/a/p,")).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    for tps in ["1000", "1010", "990"] {
        assert!(rows.iter().any(|r| r.split(',').any(|c| c == tps)), "{tps} in {rows:?}");
    }
    assert_eq!(csv.lines().filter(|l| l.contains(",s1/b/p,")).count(), 1, "a single run keeps one row");
    let md = page(&s);
    for k in 1..=3 {
        assert!(md.contains(&format!("Benchmark result, measurement {k} of 3")), "{md}");
    }
    for tps in ["1000.00", "1010.00", "990.00"] {
        assert!(md.contains(&format!("Total Token throughput (tok/s):          {tps}")), "{tps}");
    }
}

#[test]
fn a_p99_from_fewer_than_100_requests_is_flagged() {
    let few = |n| (0..2).map(|_| block(n, 0, 1000.0)).collect::<Vec<_>>();
    let (_tmp, s) = study(50, "p99_ttft_ms", &few(50), &few(50));
    let analysis = analyze(&s);
    let flagged: Vec<&Warning> =
        analysis.warnings.iter().filter(|w| matches!(w, Warning::FewRequests { .. })).collect();
    assert_eq!(flagged.len(), 2, "both runs: {:?}", analysis.warnings);
    assert!(matches!(flagged[0], Warning::FewRequests { metric, requests: 50, .. } if metric == "p99_ttft_ms"));
    let md = page(&s);
    assert!(md.contains("comes from 50 requests; below 100 it is the slowest request"), "{md}");
    // With 100 requests, or a metric that is a mean, nothing is flagged.
    let (_tmp, s) = study(100, "p99_ttft_ms", &few(100), &few(100));
    assert!(!analyze(&s).warnings.iter().any(|w| matches!(w, Warning::FewRequests { .. })));
    let (_tmp, s) = study(50, "mean_tpot_ms", &few(50), &few(50));
    assert!(!analyze(&s).warnings.iter().any(|w| matches!(w, Warning::FewRequests { .. })));
    assert_eq!(perflab::analysis::warnings::requests_for(99.9), 1000);
    assert_eq!(perflab::analysis::warnings::percentile("p99.9_itl_ms"), Some(99.9));
    assert_eq!(perflab::analysis::warnings::percentile("mean_ttft_ms"), None);
}

/// The error bars an SVG draws.
fn error_bars(svg: &str) -> usize {
    svg.matches(r#"<g class="error-bar""#).count()
}

#[test]
fn charts_draw_an_error_bar_for_every_interval() {
    let bar = |label: &str, value: Option<f64>, interval: Option<(f64, f64)>| Bar {
        label: label.into(),
        value,
        kind: BarKind::Plain,
        note: value.map_or("failed".into(), |v| format!("{v}")),
        interval,
        loss: false,
    };
    let list = [
        bar("a", Some(100.0), Some((95.0, 105.0))),
        bar("b", Some(120.0), None),
        bar("c", Some(130.0), Some((110.0, 150.0))),
        bar("d", None, None),
    ];
    let ticks = |v: f64| format!("{v:.0}");
    let chart = bars("t", "tok/s", &list, &ticks);
    for svg in [&chart.wide, &chart.narrow] {
        assert_eq!(error_bars(svg), 2, "{svg}");
    }
    let group = |label: &str, bars: Vec<Bar>| Group { label: label.into(), bars };
    let groups = [
        group("p", vec![bar("base", Some(100.0), Some((98.0, 102.0))), bar("opt", Some(110.0), Some((105.0, 115.0)))]),
        group("q", vec![bar("base", Some(90.0), Some((80.0, 99.0))), bar("opt", None, None)]),
    ];
    let chart = pairs("t", "tok/s", ("base", "opt"), &groups, &ticks);
    assert_eq!(error_bars(&chart.wide), 3);
    let points = [("base".to_string(), 100.0), ("s1".to_string(), 120.0)];
    let chart = progression("t", "tok/s", &points, &[None, Some((110.0, 130.0))], &ticks, &ticks);
    assert_eq!(error_bars(&chart.wide), 1);
    assert_eq!(error_bars(&chart.narrow), 1);

    // On a study's own charts: every measured variant and baseline with repeats.
    let a = [block(100, 0, 1000.0), block(100, 0, 1010.0), block(100, 0, 990.0)];
    let b = [block(100, 0, 1100.0), block(100, 0, 1105.0)];
    let (_tmp, s) = study(100, "mean_tpot_ms", &a, &b);
    let analysis = analyze(&s);
    let catalogs = Renderer::new(None).unwrap();
    let charts = perflab::render::view::charts(&s, &analysis, catalogs.catalog("en").unwrap()).unwrap();
    let stage = &charts.iter().find(|(n, _)| n == "stage-s1.svg").unwrap().1;
    assert_eq!(error_bars(stage), 2, "{stage}");
    // A single-run study draws none.
    let (_tmp, s) = study(100, "mean_tpot_ms", &a[..1], &b[..1]);
    let charts = perflab::render::view::charts(&s, &analyze(&s), catalogs.catalog("en").unwrap()).unwrap();
    assert!(charts.iter().all(|(_, svg)| error_bars(svg) == 0));
}
