//! An engine that fails while a load curve is searched: the failed point is measured again in a
//! new engine start, and a load that keeps failing stops the search with the failure shown in
//! `plan`, in `analyze` and on the page, never as a boundary.

use crate::common;
use std::path::{Path, PathBuf};

/// A one-stage study deciding on the load carried within mean TPOT 5 ms: `16` (16 sequences a
/// batch, boundary about 12) against `64` (64 a batch, every load up to 32 meets it), `64` started
/// with `crash` as well.
fn study(crash: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("crash");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = format!(
        r#"model = "sim/m"
baseline = "batch/16"
target_profile = "chat"
objective = "slo_load"
title = {{ en = "Crash" }}
hardware = {{ en = "one simulated GPU" }}

[benchmark]
tool = "perflab bench"

[slo]
mean_tpot_ms = 5

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {{port}} --model {{model}} --sim-startup-seconds 0.05 --sim-decode-ms 2 --sim-batch-penalty 2"
start_timeout = 20
stop_grace = 5

[[profile]]
id = "chat"
name = {{ en = "Chat" }}
dataset = "random"
input_tokens = 32
output_tokens = 16
seed = 1
total_requests = 32
load = {{ min = 1, max = 32, points = 14, confirm = 2 }}

[[stage]]
id = "batch"
title = {{ en = "Batch" }}

[[stage.variant]]
id = "16"
label = "16"
engine = "sim"
flags = ["--max-num-seqs 16"]

[[stage.variant]]
id = "64"
label = "64"
engine = "sim"
flags = ["--max-num-seqs 64", "{crash}"]
"#
    );
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    (tmp, dir)
}

fn analysis(dir: &Path) -> serde_json::Value {
    let (code, json, err) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&json).unwrap()
}

/// The curve of `variant` in the analysis.
fn curve<'a>(a: &'a serde_json::Value, variant: &str) -> &'a serde_json::Value {
    let configs = a["curves"][0]["configs"].as_array().unwrap();
    configs.iter().find(|c| c["config"] == format!("batch/{variant}")).unwrap_or_else(|| panic!("{a}"))
}

fn report(dir: &Path) -> String {
    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    page
}

/// The engine dies after 100 requests: during load 8 (after 32 + 32 + 32 at 1, 2 and 4). The
/// next start measures 8 again and the search goes on; the answer is the one without a crash,
/// and the page says what failed and that it was measured again.
#[test]
fn a_crash_during_a_point_is_measured_again_in_a_new_start() {
    let _serial = common::serial();
    let (_tmp, dir) = study("--sim-crash-after 100");
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("chat@8: failed (crash)"), "{err}");
    let a = analysis(&dir);
    let c = curve(&a, "64");
    // The answer without a crash: every load up to the range's top, 32, meets the SLO; on a
    // loaded machine 32 itself sits near the limit and may come out a band from 31 to 32.
    let answer = (c["boundary"].as_u64(), c["stop"].as_str());
    assert!(matches!(answer, (Some(32), Some("upper-bound")) | (Some(31), Some("resolution"))), "{c}");
    assert_eq!(c["failed"][0]["load"], 8, "{c}");
    let at8: Vec<&serde_json::Value> = c["points"].as_array().unwrap().iter().filter(|p| p["load"] == 8).collect();
    assert_eq!(at8.len(), 2, "{c}");
    assert_eq!((at8[0]["failure"].as_str(), at8[1]["verdict"]["met"].as_bool()), (Some("crash"), Some(true)), "{c}");
    let page = report(&dir);
    assert!(
        page.contains("64: one measurement at 8 measured nothing (the engine crashed during the run); the search took each of those loads again"),
        "{page}"
    );
    // The row of 8 shows the measurement that judged it.
    let row = page.lines().find(|l| l.starts_with("| 8 |")).unwrap_or_else(|| panic!("{page}"));
    assert!(!row.contains("✗"), "{row}");
    let (_, plan, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    let line = plan.lines().find(|l| l.contains("batch/64") || l.contains("64 ")).unwrap_or("");
    assert!(!line.contains("failed"), "{plan}");
}

/// The engine dies during every start's first point: load 1 fails twice, the search stops
/// there, `plan` says failed, and the stage is decided without that curve.
#[test]
fn a_load_that_keeps_failing_stops_the_search_and_is_no_boundary() {
    let _serial = common::serial();
    let (_tmp, dir) = study("--sim-crash-after 20");
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let (_, plan, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert!(plan.lines().any(|l| l.contains("64") && l.contains("failed") && l.contains("crash")), "{plan}");
    let a = analysis(&dir);
    let c = curve(&a, "64");
    assert_eq!(c["stop"], "failed", "{c}");
    assert_eq!(c["failed"][0]["failed"], 2, "{c}");
    let stage = &a["stages"][0];
    assert_eq!(stage["after"], "batch/16", "{stage}");
    assert_eq!(stage["variants"][1]["outcome"]["class"], "crash", "{stage}");
    let page = report(&dir);
    assert!(
        page.contains(
            "the measurement at 1 failed 2 times (the engine crashed during the run), so the search stopped there"
        ),
        "{page}"
    );
    let line = page.lines().find(|l| l.starts_with("64: ")).unwrap_or_else(|| panic!("{page}"));
    assert!(!line.contains("exact") && !line.contains("up to"), "{line}");
}

/// A benchmark that fails the second time it measures a load, while the engine keeps serving:
/// each confirmation of the boundary fails once in the start that also measured it well. The
/// failure stays on record as a point of its load (in the run's manifest, `analyze` and the
/// page), the run counts it, and a later `perflab run` sees the search as the live one did.
#[test]
fn a_confirmation_that_fails_beside_measurements_that_ended_is_kept() {
    let (_tmp, dir) = study("");
    let counts = dir.join("counts");
    std::fs::create_dir_all(&counts).unwrap();
    let wrapper = dir.join("second-fails.sh");
    std::fs::write(
        &wrapper,
        r#"load=$1; shift
n=$(cat "$COUNTS/$load" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$COUNTS/$load"
if [ "$n" = 2 ]; then echo "the benchmark lost its connection" >&2; exit 3; fi
exec "$@"
"#,
    )
    .unwrap();
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let command = format!(
        "command = \"sh {} {{max_concurrency}} {} bench --quiet --base-url http://127.0.0.1:{{port}} --model {{model}} --dataset-name random --num-prompts {{total_requests}} --random-input-len {{input_tokens}} --random-output-len {{output_tokens}} --seed {{seed}} --max-concurrency {{max_concurrency}}\"\nenv = {{ COUNTS = \"{}\" }}",
        wrapper.display(),
        env!("CARGO_BIN_EXE_perflab"),
        counts.display()
    );
    let text = text.replace("tool = \"perflab bench\"", &format!("tool = \"perflab bench\"\n{command}"));
    // The baseline alone: one curve, so that the counts are of its loads only.
    let text = text.split("[[stage.variant]]\nid = \"64\"").next().unwrap().to_string();
    std::fs::write(&spec, text).unwrap();

    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    // The counts are where `[benchmark] env` told the benchmark to keep them.
    assert!(err.contains("failed (benchmark-failure)") && counts.join("1").is_file(), "{err}");
    let a = analysis(&dir);
    let c = curve(&a, "16");
    let failed: Vec<&serde_json::Value> =
        c["points"].as_array().unwrap().iter().filter(|p| p["failure"] == "benchmark-failure").collect();
    assert!(!failed.is_empty(), "a confirmation's failure is a point of its load: {c}");
    for f in &failed {
        let at: Vec<&serde_json::Value> =
            c["points"].as_array().unwrap().iter().filter(|p| p["load"] == f["load"]).collect();
        // The load was measured in the same start before and after the failure.
        assert!(at.len() >= 3 && at.iter().filter(|p| p["failure"].is_null()).count() >= 2, "{c}");
    }
    assert!(c["failed"].as_array().unwrap().iter().any(|t| t["failed"] == 1), "{c}\n{err}");
    let kept: Vec<_> = common::manifests(&dir).into_iter().filter(|m| !m.failed_measurements.is_empty()).collect();
    assert_eq!(kept.len(), failed.len(), "one manifest a failed confirmation");
    assert!(
        kept.iter()
            .all(|m| m.state == perflab::study::RunState::Done && m.failed_measurements[0].message.contains("exit"))
    );
    let page = report(&dir);
    assert!(page.contains("measured nothing"), "{page}");
    // Measured again, nothing is missing: the records give the search the live one ended with.
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 engine starts"), "{err}");
    assert_eq!(curve(&analysis(&dir), "16"), c);
}
