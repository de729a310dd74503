//! Load curves under an SLO on the simulated engine: the search against an exhaustive scan,
//! resuming, and the study errors of `load` and `slo`.

use crate::common;
use std::path::{Path, PathBuf};

/// A one-stage study on the simulated engine with `engine` flags, whose profile `chat` has
/// `load` (a TOML inline table) and is judged by `slo` (TOML lines).
fn study(engine: &str, load: &str, slo: &str, requests: u64) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("curve");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = format!(
        r#"model = "sim/m"
baseline = "engine/sim"
target_profile = "chat"
objective = "slo_load"
gpus = 2
title = {{ en = "Curve" }}
hardware = {{ en = "one simulated GPU" }}

[benchmark]
tool = "perflab bench"

[slo]
{slo}

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {{port}} --model {{model}} --sim-startup-seconds 0.1 {engine}"
start_timeout = 20
stop_grace = 5

[[profile]]
id = "chat"
name = {{ en = "Chat" }}
dataset = "random"
input_tokens = 32
output_tokens = 16
seed = 1
total_requests = {requests}
load = {load}

[[stage]]
id = "engine"
title = {{ en = "Engine" }}

[[stage.variant]]
id = "sim"
label = "sim"
engine = "sim"
"#
    );
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    (tmp, dir)
}

/// The curve of the study's only configuration, from `perflab analyze`.
fn curve(dir: &Path) -> serde_json::Value {
    let (code, out, err) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    a["curves"][0]["baseline"].clone()
}

fn run_ok(dir: &Path) {
    let (code, _, err) = common::run(dir, &[]);
    assert_eq!(code, 0, "{err}");
}

/// A limited metric of each measured point, by load.
fn values(curve: &serde_json::Value, metric: &str) -> Vec<(u64, f64)> {
    curve["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let limited = p["limited"].as_array().unwrap();
            let v = limited.iter().find(|kv| kv[0] == metric).and_then(|kv| kv[1].as_f64()).unwrap();
            (p["load"].as_u64().unwrap(), v)
        })
        .collect()
}

/// On two engine settings, the search for the largest concurrency in [1, 16] within a mean
/// TTFT limit finds, in at most 14 measurements (10 points and the boundary's confirmations), the boundary that measuring every load from 1 to 16
/// finds, to one step. Past its batch size the engine queues requests, so TTFT climbs by tens
/// of milliseconds a request; the limit sits halfway across the curve's widest separation, so
/// that run-to-run noise cannot move the scan's own boundary.
#[test]
fn the_searched_boundary_is_the_exhaustive_scans_on_the_simulated_engine() {
    let _serial = common::serial();
    // The search itself is proven against a scan on random curves by the property test in
    // `curve::search`; here it meets the engine, so two settings are enough.
    let settings = [
        "--sim-decode-ms 3 --sim-batch-penalty 1 --max-num-seqs 4",
        "--sim-decode-ms 6 --sim-batch-penalty 1 --max-num-seqs 8",
    ];
    let all: Vec<String> = (1..=16).map(|i| i.to_string()).collect();
    for engine in settings {
        let (_tmp, dir) = study(engine, &format!("{{ values = [{}] }}", all.join(", ")), "mean_ttft_ms = 100000", 32);
        run_ok(&dir);
        let scan = values(&curve(&dir), "mean_ttft_ms");
        assert_eq!(scan.len(), 16, "{engine}");
        // Where the curve separates most: the largest gap between the highest TTFT up to a
        // load and the lowest above it (from load 3 on), with the limit halfway across it.
        let (k, limit) = (2..15)
            .map(|i| {
                let below = scan[..=i].iter().map(|p| p.1).fold(f64::MIN, f64::max);
                let above = scan[i + 1..].iter().map(|p| p.1).fold(f64::MAX, f64::min);
                (scan[i].0, (below + above) / 2.0, above - below)
            })
            .filter(|x| x.2 > 0.0)
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(k, limit, _)| (k, limit))
            .unwrap_or_else(|| panic!("{engine}: no load separates the curve: {scan:?}"));
        let exhaustive = scan.iter().take_while(|(_, t)| *t <= limit).map(|(l, _)| *l).last().unwrap_or(0);
        assert_eq!(exhaustive, k, "{engine}: {scan:?}");
        // A search whose own points contradict a monotone curve met the engine's noise (and
        // says so): it is measured again, twice at most.
        let mut tries = 0;
        let (c, points) = loop {
            let (_tmp2, searched) = study(
                engine,
                "{ axis = \"concurrency\", min = 1, max = 16, points = 14 }",
                &format!("mean_ttft_ms = {limit:.3}"),
                32,
            );
            run_ok(&searched);
            let c = curve(&searched);
            let points = values(&c, "mean_ttft_ms");
            let boundary = c["boundary"].as_u64().unwrap_or(0);
            tries += 1;
            let noisy = c["violations"].as_array().is_some_and(|v| !v.is_empty());
            if boundary.abs_diff(exhaustive) <= 1 || !noisy || tries == 3 {
                break (c, points);
            }
        };
        assert!(points.len() <= 14, "{engine}: {points:?}");
        assert!(points.iter().all(|(l, _)| (1..=16).contains(l)), "{engine}: {points:?}");
        let boundary = c["boundary"].as_u64().unwrap_or(0);
        assert!(
            boundary.abs_diff(exhaustive) <= 1,
            "{engine}: the search found {boundary}, the scan {exhaustive} (limit {limit:.3} ms)\nsearch {points:?}\nscan {scan:?}"
        );
        assert_eq!(c["stop"], "resolution", "{engine}: {c}");
    }
}

/// A search cut short by its point budget goes on from the points it kept when the budget
/// grows: no load is measured twice but the boundary and the load above it, each three times to
/// confirm them, and the boundary is the one a whole search finds.
#[test]
fn a_search_goes_on_from_the_points_an_earlier_start_measured() {
    let _serial = common::serial();
    let engine = "--sim-decode-ms 2 --sim-batch-penalty 8 --max-num-seqs 64";
    let (_tmp, dir) = study(engine, "{ min = 1, max = 32, points = 4 }", "mean_tpot_ms = 5.5", 32);
    run_ok(&dir);
    let first = curve(&dir);
    assert_eq!(first["stop"], "budget", "{first}");
    let (code, out, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("done") && out.contains("4 of at most 4 load points measured"), "{out}");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("points = 4", "points = 24");
    std::fs::write(&spec, text).unwrap();
    let (_, out, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert!(out.contains("pending") && out.contains("4 of at most 24 load points measured"), "{out}");
    run_ok(&dir);
    let second = curve(&dir);
    let loads: Vec<u64> = values(&second, "mean_tpot_ms").iter().map(|(l, _)| *l).collect();
    let mut unique = loads.clone();
    unique.dedup();
    let boundary = second["boundary"].as_u64().unwrap();
    for load in &unique {
        let times = loads.iter().filter(|l| *l == load).count();
        let confirmed = *load == boundary || Some(*load) == unique.iter().copied().find(|l| *l > boundary);
        // A confirmation that misses moves the search down, so a load near the edge may have
        // been measured more than once; the final pair has exactly `confirm` measurements.
        if confirmed {
            assert_eq!(times, 3, "{load}: {loads:?}");
        } else {
            assert!(times <= 3, "{load}: {loads:?}");
        }
    }
    assert!(loads.len() <= 24 && unique.len() > 4, "{loads:?}");
    // The first start measured 1, 2, 4, 8; the second went on from there.
    let attempts = |n: u32| {
        std::fs::read_dir(dir.join(format!("runs/engine/sim/attempts/{n}")))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".txt"))
            .count()
    };
    assert_eq!(attempts(1), 4);
    assert_eq!(attempts(1) + attempts(2), loads.len());
    assert_eq!(second["stop"], "resolution", "{second}");
    // Each point kept its requests: goodput under the SLO's per-request limits, of all 32.
    for p in second["points"].as_array().unwrap() {
        let g = &p["goodput"];
        assert_eq!(g["total"], 32, "{p}");
        let tpot = p["mean_tpot_ms"].as_f64().unwrap();
        if p["verdict"]["met"] == true && tpot < 4.0 {
            assert!(g["good"].as_u64().unwrap() > 0, "{p}");
        }
    }
    // Throughput per GPU divides by the GPUs the study declares (2), per user is 1000 ÷ TPOT.
    let (_, json, _) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    let a: serde_json::Value = serde_json::from_str(&json).unwrap();
    let pareto = &a["curves"][0]["pareto"][0];
    let edge = second["points"].as_array().unwrap().iter().find(|p| p["load"] == second["boundary"]).unwrap();
    let per_gpu = edge["output_throughput"].as_f64().unwrap() / 2.0;
    assert!((pareto["per_gpu"].as_f64().unwrap() - per_gpu).abs() < 1e-9, "{pareto}");
    let per_user = 1000.0 / edge["mean_tpot_ms"].as_f64().unwrap();
    assert!((pareto["per_user"].as_f64().unwrap() - per_user).abs() < 1e-9, "{pareto}");
    assert_eq!(pareto["on_frontier"], true);
    the_page_says_the_answer(&dir, &second, &loads);
}

/// Results placed by hand at a load are evidence in every search: failing ones at the searched
/// boundary, as many as the measurements that met it there (so that the load misses at least as
/// often as it meets, and no longer passes), make its load fail, and the boundary falls below it.
#[test]
fn a_failing_point_placed_by_hand_makes_its_load_fail() {
    let _serial = common::serial();
    let engine = "--sim-decode-ms 2 --sim-batch-penalty 8 --max-num-seqs 64";
    let (_tmp, dir) = study(engine, "{ min = 1, max = 32, points = 14 }", "mean_tpot_ms = 5.5", 32);
    run_ok(&dir);
    let c = curve(&dir);
    let boundary = c["boundary"].as_u64().unwrap();
    // A load's first measurement is `chat@N.txt`; a confirmation is `chat@N.rK.txt`.
    let missed = c["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["verdict"]["met"] == false && p["measurement"] == 1)
        .unwrap_or_else(|| panic!("{c}"));
    let load = missed["load"].as_u64().unwrap();
    let from = dir.join(format!("runs/engine/sim/attempts/1/chat@{load}.txt"));
    let met =
        c["points"].as_array().unwrap().iter().filter(|p| p["load"] == boundary && p["verdict"]["met"] == true).count();
    assert!(met > 0, "{c}");
    for k in 1..=met {
        let name = if k == 1 { format!("chat@{boundary}.txt") } else { format!("chat@{boundary}.r{k}.txt") };
        std::fs::copy(&from, dir.join("runs/engine/sim").join(name)).unwrap();
    }
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let c = curve(&dir);
    assert!(c["boundary"].as_u64().unwrap() < boundary, "{c}");
}

/// A curve whose load above the boundary went both ways is a band, not a load: `analyze` gives
/// it, the page says it, and the CSV carries its upper end beside `slo_load`. The points are
/// placed by hand (TPOT 10 ms meets the 20 ms limit, 30 ms misses it): 14 met three times out of
/// three, 15 once out of three (twice would outvote the miss), 16 never.
#[test]
fn a_boundary_whose_next_load_went_both_ways_is_a_band() {
    let (_tmp, dir) = study("", "{ min = 1, max = 32, points = 20 }", "mean_tpot_ms = 20", 100);
    let block = |tpot: f64| {
        format!(
            "============ Serving Benchmark Result ============\n\
             Successful requests:                     100\n\
             Benchmark duration (s):                  10.00\n\
             Total generated tokens:                  1000\n\
             Output token throughput (tok/s):         100.00\n\
             Mean TPOT (ms):                          {tpot:.2}\n\
             ==================================================\n"
        )
    };
    let runs = dir.join("runs/engine/sim");
    std::fs::create_dir_all(&runs).unwrap();
    let placed = [
        ("chat@1.txt", 10.0),
        ("chat@2.txt", 10.0),
        ("chat@4.txt", 10.0),
        ("chat@8.txt", 10.0),
        ("chat@12.txt", 10.0),
        ("chat@14.txt", 10.0),
        ("chat@14.r2.txt", 10.0),
        ("chat@14.r3.txt", 10.0),
        ("chat@15.txt", 30.0),
        ("chat@15.r2.txt", 10.0),
        ("chat@15.r3.txt", 30.0),
        ("chat@16.txt", 30.0),
    ];
    for (file, tpot) in placed {
        std::fs::write(runs.join(file), block(tpot)).unwrap();
    }
    let c = curve(&dir);
    assert_eq!((c["boundary"].as_u64(), c["stop"].as_str()), (Some(14), Some("resolution")), "{c}");
    assert_eq!((c["band"]["low"].as_u64(), c["band"]["high"].as_u64()), (Some(14), Some(16)), "{c}");
    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        page.contains("the answer is a band, not one load: 14 met the SLO, 16 missed it in every measurement, and the loads between missed it at least as often as they met it (15: met in 1 of 3)"),
        "{page}"
    );
    assert!(page.contains("met in 1 of 3 measurements"), "{page}");
    let out = dir.parent().unwrap().join("site");
    let (code, _, err) = common::perflab(&[
        "build",
        "--results",
        dir.parent().unwrap().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out.join("md/data/curve.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "slo_load_band_high").unwrap_or_else(|| panic!("{csv}"));
    let row = csv.lines().find(|l| l.contains(",engine,sim,chat,")).unwrap_or_else(|| panic!("{csv}"));
    assert_eq!(row.split(',').nth(column), Some("16"), "{row}");
}

/// A profile's own `max_concurrency` would be replaced by every point's load: `check` says so.
#[test]
fn a_curve_profile_that_fixes_its_own_load_is_refused() {
    let (_tmp, dir) = study("", "{ min = 1, max = 4 }", "mean_ttft_ms = 500", 32);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("total_requests = 32", "total_requests = 32\nmax_concurrency = 4");
    std::fs::write(&spec, text).unwrap();
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    let said = format!("{out}{err}");
    assert_ne!(code, 0, "{said}");
    assert!(said.contains("`max_concurrency = 4` would be replaced by each point's load"), "{said}");
    assert!(said.contains("study.toml:"), "{said}");
}

/// The page of a one-configuration curve study: the answer in English and Turkish, why the
/// search stopped (an exact boundary, or a band where the load above it went both ways, as the
/// engine's noise at the edge decides), every point in the table and the CSV, the charts, byte
/// for byte the same when built again.
fn the_page_says_the_answer(dir: &Path, curve: &serde_json::Value, loads: &[u64]) {
    let boundary = curve["boundary"].as_u64().unwrap();
    let (code, en, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(en.contains(&format!("serves up to {boundary} requests at once within mean TPOT 5.5 ms")), "{en}");
    if curve["band"].is_null() {
        // One miss of three is outvoted, so a boundary can be exact at 2 of 3.
        let exact = |met: u32| format!("the boundary is exact: {boundary} met the SLO in {met} of 3 measurements");
        assert!(en.contains(&exact(3)) || en.contains(&exact(2)), "{en}");
    } else {
        assert!(en.contains(&format!("the answer is a band, not one load: {boundary} met the SLO, ")), "{en}");
    }
    // Printed, the page shows no chart; written with --out, it links each one beside it.
    let page_dir = dir.parent().unwrap().join("page");
    let (code, _, err) = common::perflab(&["report", dir.to_str().unwrap(), "--out", page_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let id = dir.file_name().unwrap().to_str().unwrap();
    let page = std::fs::read_to_string(page_dir.join(format!("{id}.md"))).unwrap();
    for chart in ["curve-chat.svg", "curve-chat-latency.svg", "pareto-chat.svg"] {
        assert!(!en.contains(chart) && page.contains(chart), "{chart}: {page}");
        assert!(page_dir.join(id).join(chart).is_file(), "{chart}");
    }
    let (code, tr, _) = common::perflab(&["report", dir.to_str().unwrap(), "--locale", "tr"]);
    assert_eq!(code, 0);
    assert!(tr.contains(&format!("aynı anda {boundary} isteğe kadar hizmet veriyor")), "{tr}");
    let site = |name: &str| {
        let out = dir.parent().unwrap().join(name);
        let (code, _, err) = common::perflab(&[
            "build",
            "--results",
            dir.parent().unwrap().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let csv = std::fs::read_to_string(out.join("md/data/curve.csv")).unwrap();
        for load in loads {
            assert!(csv.contains(&format!(",engine,sim,chat@{load},")), "chat@{load}: {csv}");
        }
        let svg = out.join("md/en/curve/curve-chat-latency.svg");
        std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()))
    };
    let (first, again) = (site("site-a"), site("site-b"));
    assert_eq!(first, again);
    assert!(first.contains("SLO: mean TPOT 5.5 ms") && first.contains("role=\"img\""), "{first}");
}

/// A rate axis: each point's benchmark asks for its rate, and its achieved load is the request
/// throughput it reached.
#[test]
fn a_rate_axis_measures_each_rate_and_says_what_it_reached() {
    let engine = "--sim-decode-ms 2 --max-num-seqs 64";
    let (_tmp, dir) = study(engine, "{ axis = \"rate\", values = [20, 80] }", "p99_ttft_ms = 500", 40);
    run_ok(&dir);
    let c = curve(&dir);
    let points = c["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{c}");
    for p in points {
        let load = p["load"].as_u64().unwrap();
        let m =
            perflab::study::Manifest::read(&dir.join(format!("runs/engine/sim/attempts/1/chat@{load}.manifest.json")))
                .unwrap();
        let at = m.benchmark_command.iter().position(|w| w == "--request-rate").expect("a rate");
        assert_eq!(m.benchmark_command[at + 1], load.to_string());
        let achieved = p["achieved"].as_f64().unwrap();
        assert!(achieved > 0.0 && achieved < load as f64 * 1.5, "{p}");
    }
    let (code, page, _) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        page.contains("requests a second within p99 TTFT 500 ms") && page.contains("| Requests a second |"),
        "{page}"
    );
}

/// A curve where no load met the SLO is the configuration's failure on that profile, not a
/// missing run: check passes, the page says why.
#[test]
fn a_curve_that_never_meets_the_slo_is_a_failure_of_its_own() {
    let (_tmp, dir) = study("--sim-decode-ms 2", "{ min = 1, max = 16 }", "mean_tpot_ms = 0.001", 16);
    run_ok(&dir);
    let c = curve(&dir);
    assert_eq!((c["boundary"].is_null(), c["stop"].as_str()), (true, Some("below-lower-bound")), "{c}");
    assert_eq!(c["points"].as_array().unwrap().len(), 1, "{c}");
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("no load it was measured at met the SLO"), "{page}");
    assert!(page.contains("Neither configuration met mean TPOT 0.001 ms at any load measured."), "{page}");
    let (_, plan, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert!(plan.contains("done"), "{plan}");
}

/// What `check` says of a malformed `load` or `slo`, at the line and column of the key.
#[test]
fn malformed_loads_and_slos_are_refused_at_their_place() {
    let cases: [(&str, &str, &str); 11] = [
        ("{ min = 1, max = 32 }", "p99_latency_ms = 500", "`slo.p99_latency_ms`: not a limit perflab knows"),
        ("{ min = 1, max = 32 }", "p90_ttft_ms = 500", "no 90th percentile; add `--metric-percentiles 99,90`"),
        ("{ min = 8, max = 4 }", "mean_ttft_ms = 500", "load.max: 4 is below `min` (8)"),
        ("{ min = 0, max = 4 }", "mean_ttft_ms = 500", "load.min: the smallest load is at least 1"),
        ("{ min = 1, max = 4, points = 0 }", "mean_ttft_ms = 500", "load.points: the search measures 1 to 64 points"),
        ("{ values = [] }", "mean_ttft_ms = 500", "load.values: the list is empty"),
        ("{ values = [1, 4, 2] }", "mean_ttft_ms = 500", "load.values: loads must increase; 2 follows 4"),
        ("{ min = 1 }", "mean_ttft_ms = 500", "give either `values` (a list of loads) or both `min` and `max`"),
        ("{ min = 1, max = 64 }", "mean_ttft_ms = 500", "more than the 32 requests a point sends"),
        (
            "{ min = 1, max = 4, confirm = 0 }",
            "mean_ttft_ms = 500",
            "load.confirm: the boundary is measured 1 to 9 times",
        ),
        (
            "{ values = [1, 2], confirm = 2 }",
            "mean_ttft_ms = 500",
            "`confirm` and `stop_on_plateau` belong to a search",
        ),
    ];
    for (load, slo, expected) in cases {
        let (_tmp, dir) = study("", load, slo, 32);
        let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
        let err = format!("{out}{err}");
        assert_ne!(code, 0, "{load} {slo}");
        let line = err.lines().find(|l| l.contains(expected)).unwrap_or_else(|| panic!("{load} {slo}: {err}"));
        let at = line.split(": ").next().unwrap();
        let parts: Vec<&str> = at.rsplitn(3, ':').collect();
        assert!(parts.len() == 3 && parts[0].parse::<u32>().is_ok() && parts[1].parse::<u32>().unwrap() > 1, "{line}");
        assert!(at.ends_with(&format!(":{}", parts[0])) && at.contains("study.toml"), "{line}");
    }
    // An unknown key of `load` is a parse error at its place.
    let (_tmp, dir) = study("", "{ min = 1, max = 4, pionts = 3 }", "mean_ttft_ms = 500", 32);
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    let err = format!("{out}{err}");
    assert_ne!(code, 0);
    assert!(err.contains("study.toml:") && err.contains("pionts"), "{err}");
}

/// A one-stage study of two configurations on the simulated engine with ±5% noise (drawn at
/// each engine start and each benchmark): `b_flags` on B, `head` among the study's keys, a
/// search for the largest concurrency in [1, 16] within a mean TTFT of 120 ms.
fn two_configurations(b_flags: &str, head: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("searches");
    std::fs::create_dir_all(&dir).unwrap();
    let counter = dir.join("starts");
    let spec = format!(
        r#"model = "sim/m"
baseline = "engine/a"
target_profile = "chat"
objective = "output_throughput"
noise_threshold = 1
{head}
title = {{ en = "Searches" }}
hardware = {{ en = "one simulated GPU" }}

[benchmark]
tool = "perflab bench"

[slo]
mean_ttft_ms = 120

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {{port}} --model {{model}} --sim-startup-seconds 0.05 --sim-decode-ms 3 --sim-batch-penalty 1 --max-num-seqs 4 --sim-noise 0.05 --sim-seed 11 --sim-noise-counter {counter}"
start_timeout = 20
stop_grace = 5

[[profile]]
id = "chat"
name = {{ en = "Chat" }}
dataset = "random"
input_tokens = 32
output_tokens = 16
seed = 1
total_requests = 24
load = {{ min = 1, max = 16, points = 8 }}

[[stage]]
id = "engine"
title = {{ en = "Engine" }}

[[stage.variant]]
id = "a"
label = "A"
engine = "sim"

[[stage.variant]]
id = "b"
label = "B"
engine = "sim"
flags = [{b_flags}]
"#,
        counter = counter.display()
    );
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    (tmp, dir)
}

fn pending(dir: &Path) -> usize {
    let (code, out, err) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    out.lines().filter(|l| l.contains(" pending ")).count()
}

/// With `repeats`, each engine start searches the curve anew and each finished search is one
/// measurement of the curve's run: the figures are means over searches with a confidence
/// interval, the stage decides on it, raising `repeats` adds searches, and every search's
/// points have their CSV rows.
#[test]
fn with_repeats_each_engine_start_searches_the_curve_anew() {
    let _serial = common::serial();
    let (_tmp, dir) = two_configurations(r#""--sim-decode-ms=2""#, "repeats = 3");
    run_ok(&dir);
    assert_eq!(pending(&dir), 0);
    let study = perflab::study::Study::load(&dir).unwrap();
    let mut rows = 0;
    for v in ["a", "b"] {
        let searches = study.searches("engine", v, "chat");
        let ids: Vec<Option<u32>> = searches.iter().map(|s| s.id).collect();
        assert_eq!(ids, [Some(1), Some(2), Some(3)], "{v}: one search an engine start");
        assert_eq!(study.counted_searches("engine", v, "chat").len(), 3);
        let key = perflab::study::RunKey::parse(&format!("engine/{v}/chat"));
        assert_eq!(study.start_values(&key, "output_throughput").len(), 3, "{v}");
        assert!(study.sample(&key).iter().all(|r| r.block.metric("slo_load").is_some()));
        rows += searches.iter().map(|s| s.points.len()).sum::<usize>();
    }
    let (_, json, _) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    let a: serde_json::Value = serde_json::from_str(&json).unwrap();
    let adoption = &a["stages"][0]["adoption"];
    assert_eq!(adoption["kind"], "adopted", "B's decode step is a third shorter: {adoption}");
    assert!(adoption["interval"]["low"].as_f64().unwrap() > 0.0, "{adoption}");
    assert_eq!(a["baseline_measure"]["repeats"], 3);
    assert_eq!(a["curves"][0]["baseline"]["searches"].as_array().unwrap().len(), 3);
    let analysis = perflab::analysis::analyze(&study);
    let csv = String::from_utf8(perflab::render::exports::csv(&study, &analysis).unwrap()).unwrap();
    let point_rows = csv.lines().filter(|l| l.contains(",chat@")).count();
    assert_eq!(point_rows, rows, "a row for every point of every search:\n{csv}");
    let (_, page, _) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert!(page.contains("searched its curve 3 times"), "{page}");
    assert!(page.contains("95% CI"), "{page}");
    // One more search each, and nothing else.
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("repeats = 3", "repeats = 4")).unwrap();
    assert_eq!(pending(&dir), 2);
    let (_, out, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert!(out.contains("3 of 4 searches finished"), "{out}");
    run_ok(&dir);
    let study = perflab::study::Study::load(&dir).unwrap();
    assert_eq!(study.searches("engine", "a", "chat").len(), 4);
    assert_eq!(study.searches("engine", "b", "chat").len(), 4);
}

/// `--until-confident` on a curve objective: two identical configurations cannot be told
/// apart after two searches each, so it adds searches to both sides in turn within its budget
/// (counted in benchmark runs, a search costing up to its point budget).
#[test]
fn until_confident_adds_searches_of_a_curve() {
    let _serial = common::serial();
    let (_tmp, dir) = two_configurations(r#""--sim-vocab-size=32001""#, "repeats = 2\nrepeat_across_restarts = true");
    let (code, _, err) = common::run(&dir, &["--until-confident", "--budget", "32"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("until confident:"), "{err}");
    let study = perflab::study::Study::load(&dir).unwrap();
    let (a, b) = (study.searches("engine", "a", "chat").len(), study.searches("engine", "b", "chat").len());
    assert!(a > 2 && b > 2 && a.abs_diff(b) <= 1, "searches: A {a}, B {b}\n{err}");
    // A look costs two searches of up to 8 points: 32 runs pay for two looks.
    assert!(a + b <= 2 + 2 + 4, "searches: A {a}, B {b}\n{err}");
    assert!(study.designs.contains_key("engine"), "the design is recorded");
}

/// The Pareto chart divides by the GPUs a configuration takes: its own `gpus`, else those of
/// the configuration it builds on. Stage `two`'s variant declares none and builds on `one/b`
/// (`gpus = 2`), so its figures are divided by 2, not by the study's 1.
#[test]
fn a_configuration_takes_the_gpus_of_what_it_builds_on() {
    let _serial = common::serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gpus");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = r#"model = "sim/m"
baseline = "one/a"
target_profile = "chat"
objective = "output_throughput"
gpus = 1
title = { en = "GPUs" }
hardware = { en = "simulated GPUs" }

[benchmark]
tool = "perflab bench"

[slo]
mean_ttft_ms = 100000

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {port} --model {model} --sim-startup-seconds 0.05 --sim-decode-ms 4"
start_timeout = 20
stop_grace = 5

[[profile]]
id = "chat"
name = { en = "Chat" }
dataset = "random"
input_tokens = 8
output_tokens = 8
seed = 1
total_requests = 8
load = { values = [1, 2] }

[[stage]]
id = "one"
title = { en = "One" }

[[stage.variant]]
id = "a"
label = "A"
engine = "sim"

[[stage.variant]]
id = "b"
label = "B"
engine = "sim"
flags = ["--sim-decode-ms=2"]
gpus = 2

# What the next stage builds on is this test's point, not what a loaded machine measures.
[stage.adopt]
variant = "b"
reason = { en = "The two-GPU variant, which the next stage builds on." }

[[stage]]
id = "two"
title = { en = "Two" }

[[stage.variant]]
id = "keep"
label = "keep"

[[stage.variant]]
id = "c"
label = "C"
flags = ["--sim-vocab-size=32001"]
"#;
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    run_ok(&dir);
    let study = perflab::study::Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let analysis = perflab::analysis::analyze(&study);
    let cp = &analysis.curves[0];
    for (config, gpus) in [("one/a", 1), ("one/b", 2), ("two/c", 2)] {
        let curve = cp.configs.iter().find(|c| c.config == config).unwrap_or_else(|| panic!("{config}: {cp:?}"));
        assert_eq!(curve.gpus, gpus, "{config}");
        let edge = curve.boundary_point().unwrap();
        let p = cp.pareto.iter().find(|p| p.config == config).unwrap();
        assert!((p.at.per_gpu - edge.output_throughput.unwrap() / gpus as f64).abs() < 1e-9, "{config}: {p:?}");
    }
}

/// Points recorded before searches were numbered are one search, whole, when a later start
/// searches anew beside them (here: `repeats = 2` added to a curve measured once, its
/// manifests' `search` removed as an older perflab wrote them).
#[test]
fn points_from_before_searches_were_numbered_stay_one_search() {
    let _serial = common::serial();
    let engine = "--sim-decode-ms 3 --sim-batch-penalty 1 --max-num-seqs 4";
    let (_tmp, dir) = study(engine, "{ min = 1, max = 16, points = 8 }", "mean_ttft_ms = 120", 24);
    run_ok(&dir);
    let before = perflab::study::Study::load(&dir).unwrap().points("engine", "sim", "chat").len();
    for entry in walkdir::WalkDir::new(dir.join("runs")).into_iter().map(Result::unwrap) {
        if entry.file_name().to_string_lossy().ends_with(".manifest.json") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
            m.as_object_mut().unwrap().remove("search");
            std::fs::write(entry.path(), serde_json::to_string_pretty(&m).unwrap()).unwrap();
        }
    }
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("target_profile", "repeats = 2\ntarget_profile");
    std::fs::write(&spec, text).unwrap();
    run_ok(&dir);
    let study = perflab::study::Study::load(&dir).unwrap();
    let searches = study.searches("engine", "sim", "chat");
    assert_eq!(searches.len(), 2, "{searches:?}");
    assert_eq!(searches[0].id, None);
    assert_eq!(searches[0].points.len(), before, "the older search keeps every point");
    assert_eq!(study.counted_searches("engine", "sim", "chat").len(), 2);
}

/// A search that met the SLO at the top of its range found a lower bound, not a load: the
/// page, the tables, the site's index and the JSON say "≥ 8" and "at least", in every locale;
/// when both sides met it at the top, no gain is claimed at all.
#[test]
fn a_load_found_at_the_top_of_the_range_is_shown_as_a_bound() {
    // Past two requests at once the baseline queues a whole 160 ms response ahead of a new
    // one; with sixteen slots nothing waits up to eight.
    let (tmp, dir) = study("--sim-decode-ms 10 --max-num-seqs 2", "{ min = 1, max = 8 }", "mean_ttft_ms = 60", 8);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let wide =
        "\n[[stage.variant]]\nid = \"wide\"\nlabel = \"wide\"\nengine = \"sim\"\nflags = [\"--max-num-seqs=16\"]\n";
    std::fs::write(&spec, format!("{text}{wide}")).unwrap();
    run_ok(&dir);
    let (code, json, err) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let a: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(a["baseline_measure"].get("at_least").is_none(), "only a bound is marked: {json}");
    assert_eq!(a["optimized_measure"]["at_least"], true, "{json}");
    assert_eq!(a["optimized_measure"]["value"], 8.0, "{json}");
    let (code, en, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let result = en.lines().find(|l| l.starts_with("Load within the SLO: ")).unwrap_or_default();
    assert!(result.starts_with("Load within the SLO: ") && result.contains(" → ≥ 8 (at least "), "{en}");
    assert!(en.contains("| wide | ≥ 8 (the search's limit) |"), "the options table: {en}");
    assert!(en.contains("At the top of the range searched, 8 requests at once"), "{en}");
    assert!(en.contains("wide is adopted: at least +") && en.contains("wide does best at ≥ 8"), "{en}");
    for (locale, words) in [("tr", "en az"), ("zh", "至少"), ("ja", "以上")] {
        let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains("≥ 8") && page.contains(words), "{locale}: {page}");
    }
    let out = tmp.path().join("site");
    let (code, _, err) =
        common::perflab(&["build", "--results", tmp.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let index = std::fs::read_to_string(out.join("en/index.html")).unwrap();
    assert!(index.contains("at least <span class=\"gain\">▲ +"), "{index}");
    // The curve chart marks the bound as one: a dashed ring, an arrow, and its words; the
    // baseline's exact boundary keeps a plain ring.
    let id = dir.file_name().unwrap().to_str().unwrap();
    let chart = std::fs::read_to_string(out.join("md/en").join(id).join("curve-chat.svg")).unwrap();
    assert!(
        chart.contains("at least 8 (the search&#39;s limit)") || chart.contains("at least 8 (the search's limit)"),
        "{chart}"
    );
    assert!(chart.contains(r#"stroke-dasharray="3 2""#) && chart.contains("boundary: 2"), "{chart}");
    // The Pareto chart names every configuration beside its point.
    let pareto = std::fs::read_to_string(out.join("md/en").join(id).join("pareto-chat.svg")).unwrap();
    let labels = pareto.matches("</text>").count();
    assert!(pareto.contains(">sim<") || pareto.contains("recommended: sim"), "{pareto}");
    assert!(pareto.contains(">wide<") || pareto.contains("recommended: wide"), "{pareto}");
    assert!(labels > 0 && pareto.contains("at each configuration"), "{pareto}");

    // With the SLO loose enough for both, neither load is known, and neither is a gain.
    let (_tmp, dir) = study("--sim-decode-ms 10 --max-num-seqs 2", "{ min = 1, max = 8 }", "mean_ttft_ms = 60000", 8);
    let spec = dir.join("study.toml");
    std::fs::write(&spec, format!("{}{wide}", std::fs::read_to_string(&spec).unwrap())).unwrap();
    run_ok(&dir);
    let (_, en, _) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert!(en.contains("≥ 8 → ≥ 8 (not known: both met the SLO at the top of the range)"), "{en}");
    assert!(en.contains("Both configurations met mean TTFT 60000 ms up to the top of the range searched"), "{en}");
    assert!(
        en.contains("both met the SLO at the top of the range searched (≥ 8), so this search cannot rank them"),
        "{en}"
    );
    let options = en.lines().filter(|l| l.starts_with("| Total ") || l.starts_with("Load within the SLO: "));
    assert!(
        options.clone().count() >= 2 && options.clone().all(|l| !l.contains('%')),
        "no gain between two bounds: {en}"
    );
}
