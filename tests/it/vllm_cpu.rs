//! A real vLLM (its CPU build, with the model examples/vllm-cpu makes) under `perflab run`: a
//! two-variant study starts the engine, benchmarks it, stops it, and records the variant whose
//! KV cache is too small as out of memory, with vLLM's own message, although vLLM prints it about
//! 90 lines above the end of its log, below a warning that quotes another exception.
//!
//! Needs `examples/vllm-cpu/setup.sh` (which `.ci/run` runs): the virtual environment is taken
//! from PERFLAB_VLLM_VENV, else `~/.cache/perflab/vllm-cpu`.

use crate::common;

use perflab::study::{FailureClass, Manifest, RunState, Study};
use std::path::{Path, PathBuf};
use std::process::Command;

fn venv() -> PathBuf {
    std::env::var_os("PERFLAB_VLLM_VENV").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").expect("HOME is set");
        Path::new(&home).join(".cache/perflab/vllm-cpu")
    })
}

fn study(model: &Path) -> String {
    format!(
        r#"model = "{model}"
baseline = "engine/vllm"
target_profile = "chat"
title = {{ en = "vLLM on CPU", tr = "CPU'da vLLM" }}
hardware = {{ en = "2 CPU cores", tr = "2 CPU çekirdeği" }}

[benchmark]
tool = "perflab bench"

[slo]
p99_ttft_ms = 5000
min_success_rate = 1.0

[[engine]]
id = "vllm"
name = "vLLM"
version = "0.32.0"
command = "vllm serve {{model}} --host {{host}} --port {{port}} --max-model-len 2048 --dtype bfloat16 --enforce-eager"
start_timeout = 300
stop_grace = 30
env = {{ HF_HUB_OFFLINE = "1" }}

[[profile]]
id = "chat"
name = {{ en = "Chat" }}
dataset = "random"
input_tokens = 32
output_tokens = 16
total_requests = 16
max_concurrency = 4
args = ["--tokenizer", "{{model}}"]

[[profile]]
id = "curve"
name = {{ en = "Chat load curve", tr = "Sohbet yük eğrisi" }}
dataset = "random"
input_tokens = 32
output_tokens = 16
total_requests = 16
load = {{ values = [1, 2, 4, 8] }}
args = ["--tokenizer", "{{model}}"]

[[stage]]
id = "engine"
title = {{ en = "Engine" }}

[[stage.variant]]
id = "vllm"
label = "vLLM"
engine = "vllm"
flags = ["--max-num-seqs 4"]
env = {{ VLLM_CPU_KVCACHE_SPACE = "1" }}

[[stage.variant]]
id = "tiny-kv-cache"
label = "1 MB of KV cache"
engine = "vllm"
flags = ["--kv-cache-memory-bytes 1000000"]
"#,
        model = model.display()
    )
}

#[test]
#[ignore = "needs vLLM's CPU build: run examples/vllm-cpu/setup.sh (.ci/run does), then --include-ignored"]
fn vllm_cpu_study_runs_end_to_end_and_classifies_a_failure() {
    let venv = venv();
    let model = venv.parent().unwrap().join("vllm-cpu-model");
    assert!(venv.join("bin/vllm").is_file(), "no vLLM in {}: run examples/vllm-cpu/setup.sh", venv.display());
    assert!(model.join("tokenizer.json").is_file(), "no model in {}", model.display());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("vllm-cpu");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("study.toml"), study(&model)).unwrap();

    let path = format!("{}:{}", venv.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["run", dir.to_str().unwrap()])
        .env("PATH", path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");

    // The working variant: started, benchmarked with tokens counted by the server, stopped.
    let ok = Manifest::read(&dir.join("runs/engine/vllm/attempts/1/chat.manifest.json")).unwrap();
    assert_eq!(ok.state, RunState::Done, "{err}");
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let run = &study.runs[&perflab::study::RunKey::parse("engine/vllm/chat")];
    assert_eq!(run.block.metric("completed"), Some(16.0), "{}", run.text);
    assert_eq!(run.block.metric("total_input_tokens"), Some(16.0 * 32.0), "{}", run.text);
    assert_eq!(run.block.raw.get("Input tokens counted by"), Some("server usage"));
    assert!(run.block.metric("output_throughput").unwrap() > 0.0);
    let pid = ok.engine_pid.unwrap();
    assert!(!common::running(pid), "the engine is stopped");

    // The failing variant: vLLM's error, 60 or more lines above the end of its log.
    let failed = Manifest::read(&dir.join("runs/engine/tiny-kv-cache/attempts/1/chat.manifest.json")).unwrap();
    assert_eq!(failed.state, RunState::Failed);
    let failure = failed.failure.unwrap();
    assert_eq!(failure.class, FailureClass::Oom, "{}", failure.message);
    // With 1 MB vLLM finds no room for a single cache block (or, with a little more, too little
    // for one request of the model's length): either way its own ValueError is the message.
    assert!(
        failure.message.contains("No available memory for the cache blocks")
            || failure.message.contains("larger than the available KV cache memory"),
        "{}",
        failure.message
    );

    // The load curve: every listed load measured in the same engine start, each its own raw
    // run, judged against the SLO; the boundary is the largest load with none failing below it.
    let points = study.points("engine", "vllm", "curve");
    assert_eq!(points.iter().map(|p| p.load).collect::<Vec<_>>(), vec![1, 2, 4, 8], "{err}");
    for p in &points {
        assert!(dir.join(format!("runs/engine/vllm/attempts/1/curve@{}.txt", p.load)).is_file());
        let block = p.block.as_ref().expect("a result");
        assert_eq!(block.metric("completed"), Some(16.0));
        assert_eq!(p.verdict.met, block.metric("p99_ttft_ms").unwrap() <= 5000.0, "{:?}", p.verdict);
    }
    let expected = points.iter().take_while(|p| p.verdict.met).map(|p| p.load).last();
    let (code, json, _) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let analysis: serde_json::Value = serde_json::from_str(&json).unwrap();
    let curve = &analysis["curves"][0]["baseline"];
    assert_eq!(curve["boundary"].as_u64(), expected, "{curve}");
    assert_eq!(curve["stop"], "list-done");

    // Its page renders in both languages, naming the failure.
    for locale in ["en", "tr"] {
        let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains("--max-num-seqs 4"), "{page}");
        assert!(!page.contains("{port}"), "{page}");
        assert!(page.contains("curve-curve.svg"), "{page}");
    }
}

/// The example's committed runs, measured on a real vLLM, are what its page is built from.
#[test]
fn the_example_page_is_built_from_its_real_runs_in_both_languages() {
    use perflab::analysis::{Adoption, analyze};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vllm-cpu");
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    // Every result was measured by perflab run, with its manifest.
    assert_eq!(study.runs.len(), 5);
    assert!(study.runs.keys().all(|k| study.manifests.contains_key(k)), "a manifest for every run");
    assert!(study.runs.values().all(|r| r.block.raw.get("Input tokens counted by") == Some("server usage")));
    let a = analyze(&study);
    let value = |run: &str| {
        let key = perflab::study::RunKey::parse(run);
        study.runs[&key].block.metric("total_token_throughput").unwrap()
    };
    let adopted: Vec<_> = a.stages.iter().map(|s| (s.id.as_str(), s.adoption.clone())).collect();
    assert!(matches!(&adopted[0], ("batch-size", Adoption::Adopted { variant, .. }) if variant == "8"), "{adopted:?}");
    assert!(
        matches!(&adopted[1], ("dtype", Adoption::Adopted { variant, .. }) if variant == "bfloat16"),
        "{adopted:?}"
    );
    let total = a.total_gain.unwrap();
    let expected = (value("dtype/bfloat16/chat") / value("batch-size/2/chat") - 1.0) * 100.0;
    assert!((total - expected).abs() < 1e-9, "{total} vs {expected}");
    for locale in ["en", "tr"] {
        let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains("--dtype bfloat16"), "{page}");
        assert_eq!(
            page.matches("--dtype").count(),
            page.matches("--dtype bfloat16").count() + page.matches("--dtype float32").count()
        );
        assert!(!page.contains("--dtype float32 --dtype") && !page.contains("{host}"), "{page}");
    }
}
