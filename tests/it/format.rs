//! The study-format extensions in their working form: a variant's checkpoint, `{model}` in a
//! flag, notes given as one text, a later stage kept out of the recommended command, and the
//! precision of percentages.

use crate::common;

use common::perflab;
use perflab::analysis::analyze;
use perflab::study::Study;
use std::path::Path;

/// A vLLM result block with the given throughput and TPOT.
fn block(tps: f64, tpot: f64) -> String {
    format!(
        "============ Serving Benchmark Result ============\n\
         Successful requests:                     10\n\
         Benchmark duration (s):                  10.00\n\
         Total Token throughput (tok/s):          {tps:.2}\n\
         ---------------Time to First Token----------------\n\
         Mean TTFT (ms):                          100.00\n\
         -----Time per Output Token (excl. 1st token)------\n\
         Mean TPOT (ms):                          {tpot:.2}\n\
         ==================================================\n"
    )
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Two engines' worth of stages: engine, a quantization stage that switches checkpoint and
/// names it in a flag, and a stage kept out of the recommended command.
fn study(extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("q");
    let spec = format!(
        r#"model = "org/M"
baseline = "engine/sglang"
target_profile = "p"
title = {{ en = "t" }}
hardware = {{ en = "h" }}
notes = {{ en = "One note, written as one table.", tr = "Tek tablo olarak yazılmış tek not." }}
{extra}
[benchmark]
tool = "vllm bench serve"

[[engine]]
id = "sglang"
name = "SGLang"
version = "1"
command = "python3 -m sglang.launch_server --model-path {{model}} --port 8000"

[[profile]]
id = "p"
name = {{ en = "p" }}
dataset = "random"
total_requests = 10

[[stage]]
id = "engine"
title = {{ en = "Engine" }}

[[stage.variant]]
id = "sglang"
label = "SGLang"
engine = "sglang"
flags = ["--tp-size 2"]

[[stage]]
id = "quantization"
title = {{ en = "Quantization" }}

[[stage.variant]]
id = "fp8"
label = "FP8"
model = "org/M-FP8"
flags = ["--served-model-name {{model}}"]

[[stage]]
id = "context"
title = {{ en = "Context" }}
exclude_from_command = {{ reason = {{ en = "Depends on your prompts." }} }}

[[stage.variant]]
id = "short"
label = "short"
flags = ["--context-length 8192"]
"#
    );
    write(&dir, "study.toml", &spec);
    write(&dir, "runs/engine/sglang/p.txt", &block(1000.0, 20.0));
    write(&dir, "runs/quantization/fp8/p.txt", &block(1300.0, 18.0));
    write(&dir, "runs/context/short/p.txt", &block(1400.0, 17.0));
    (tmp, dir)
}

#[test]
fn a_checkpoint_replaces_the_model_everywhere_and_once() {
    let (_tmp, dir) = study("");
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let study = Study::load(&dir).unwrap();
    let a = analyze(&study);
    assert_eq!(a.total_gain.map(|g| (g * 100.0).round() / 100.0), Some(40.0));
    let fp8 = &a.stage("quantization").unwrap().variants[0].command;
    assert_eq!(fp8.launch, "python3 -m sglang.launch_server --model-path org/M-FP8 --port 8000");
    assert_eq!(fp8.flags, vec!["--tp-size 2", "--served-model-name org/M-FP8"]);
    // The baseline keeps the study's model; the recommended command has the checkpoint, once,
    // and not the excluded stage's flag.
    assert_eq!(a.baseline.launch, "python3 -m sglang.launch_server --model-path org/M --port 8000");
    assert_eq!(a.recommended.flags, vec!["--tp-size 2", "--served-model-name org/M-FP8"]);
    assert_eq!(a.recommended.launch.matches("--model-path").count(), 1);
    assert!(a.recommended.launch.contains("org/M-FP8"));
    let (_, page, _) = perflab(&["report", dir.to_str().unwrap()]);
    assert!(!page.contains("{model}"), "no placeholder is printed literally");
    assert!(page.contains("One note, written as one table."));
    // What `perflab run` starts and benchmarks: the checkpoint, on the engine and in the client.
    let chain = perflab::analysis::resolve(&study);
    let config = &chain.variant(&perflab::study::VariantRef::new("quantization", "fp8")).unwrap().point.config;
    let argv = perflab::study::command::engine_argv(&study, config).unwrap();
    assert_eq!(argv.iter().filter(|w| *w == "org/M-FP8").count(), 2, "{argv:?}");
    assert_eq!(argv.iter().filter(|w| *w == "--model-path").count(), 1, "{argv:?}");
    let bench = "vllm bench serve --model {model} --num-prompts {total_requests}";
    let text = std::fs::read_to_string(dir.join("study.toml"))
        .unwrap()
        .replace("tool = \"vllm bench serve\"", &format!("tool = \"vllm bench serve\"\ncommand = \"{bench}\""));
    std::fs::write(dir.join("study.toml"), text).unwrap();
    let study = Study::load(&dir).unwrap();
    let argv = perflab::study::command::bench_argv(&study, config, study.profile("p").unwrap()).unwrap();
    assert_eq!(argv[..5], ["vllm", "bench", "serve", "--model", "org/M-FP8"]);
}

#[test]
fn the_checkpoint_is_part_of_the_configuration() {
    // The same flags on another checkpoint are another configuration: no run is reused for it.
    let (_tmp, dir) = study("");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("flags = [\"--served-model-name {model}\"]", "");
    std::fs::write(&spec, text).unwrap();
    std::fs::remove_file(dir.join("runs/quantization/fp8/p.txt")).unwrap();
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("variant `quantization/fp8` has no run for profile `p`"), "{out}");
}

#[test]
fn percentages_take_the_studys_precision() {
    let (_tmp, two) = study("");
    let (_, page, _) = perflab(&["report", two.to_str().unwrap()]);
    assert!(page.contains("+40.00%"), "{page}");
    let (_tmp, one) = study("display = { percent_decimals = 1 }");
    let (_, page, _) = perflab(&["report", one.to_str().unwrap()]);
    assert!(page.contains("+40.0%") && !page.contains("+40.00%"), "{page}");
    let (_, page, _) = perflab(&["report", one.to_str().unwrap(), "--locale", "tr"]);
    assert!(page.contains("+%40,0"), "{page}");
    assert!(page.contains("Tek tablo olarak yazılmış tek not."));
}

/// A per-GPU objective: the same throughput on twice the GPUs is half the figure, and the search
/// ranks, adopts and shows it like any metric.
#[test]
fn a_derived_per_gpu_metric_is_an_objective_like_any_other() {
    let extra = r#"objective = "tps_per_gpu"
secondary = "latency_s"
gpus = 2

[[metric]]
id = "tps_per_gpu"
name = { en = "Total TPS per GPU", tr = "GPU başına toplam TPS" }
expr = "total_token_throughput / gpus"
unit = "tok/s"
better = "higher"

[[metric]]
id = "latency_s"
name = { en = "Mean latency", tr = "Ortalama gecikme" }
expr = "(mean_ttft_ms + 9 * mean_tpot_ms) / 1000"
unit = "s"
better = "lower"
decimals = 3
"#;
    let (_tmp, dir) = study(extra);
    // The FP8 variant runs on one GPU: 1300 tok/s on one GPU against 1000 on two.
    let spec = dir.join("study.toml");
    let text =
        std::fs::read_to_string(&spec).unwrap().replace("model = \"org/M-FP8\"", "model = \"org/M-FP8\"\ngpus = 1");
    std::fs::write(&spec, text).unwrap();
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let study = Study::load(&dir).unwrap();
    let a = analyze(&study);
    assert_eq!(a.objective.key, "tps_per_gpu");
    assert_eq!(a.baseline_measure.as_ref().unwrap().value, Some(500.0));
    let fp8 = a.stage("quantization").unwrap();
    assert_eq!(fp8.variants[0].measure.as_ref().unwrap().value, Some(1300.0));
    assert_eq!(fp8.adoption.step().map(|g| g.round()), Some(160.0), "1300 per GPU against 500");
    // (100 + 9 × 20) / 1000 = 0.28 s for the baseline.
    assert_eq!(a.baseline_measure.as_ref().unwrap().secondary.map(|s| (s * 1000.0).round()), Some(280.0));
    let (_, page, _) = perflab(&["report", dir.to_str().unwrap()]);
    assert!(page.contains("Total TPS per GPU: 500.00 tok/s"), "{page}");
    assert!(page.contains("Mean latency: 0.280 s"), "{page}");
    let (_, page, _) = perflab(&["report", dir.to_str().unwrap(), "--locale", "tr"]);
    assert!(page.contains("GPU başına toplam TPS"));
}

#[test]
fn a_derived_metric_is_checked_where_it_is_written() {
    let cases = [
        ("expr = \"total_token_throughput / (gpus\"", "metric `m`: `expr`: expected `)`"),
        ("expr = \"total_tps / gpus\"", "metric `m`: `expr` reads `total_tps`, which is neither"),
        ("expr = \"system('x')\"", "metric `m`: `expr`: expected an operator"),
    ];
    for (expr, message) in cases {
        let extra = format!(
            "objective = \"m\"\n\n[[metric]]\nid = \"m\"\nname = {{ en = \"m\" }}\n{expr}\nunit = \"tok/s\"\nbetter = \"higher\"\n"
        );
        let (_tmp, dir) = study(&extra);
        let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
        assert_eq!(code, 1, "{expr}");
        let line = out.lines().find(|l| l.contains(message)).unwrap_or_else(|| panic!("no `{message}` in {out}"));
        assert!(line.contains("study.toml:12:"), "{line}");
    }
    // A derived metric without a direction cannot be the objective.
    let extra = "objective = \"m\"\n\n[[metric]]\nid = \"m\"\nname = { en = \"m\" }\nexpr = \"completed * 2\"\nunit = \"number\"\n";
    let (_tmp, dir) = study(extra);
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("`objective`: `m` describes the run"), "{out}");
}

/// A derived objective or secondary metric that none of the runs has a value for is an error at
/// the key that names it: the page would have nothing to rank or show.
#[test]
fn a_derived_metric_no_run_gives_is_an_error_at_the_key_that_names_it() {
    let metric = |id: &str, expr: &str| {
        format!(
            "\n[[metric]]\nid = \"{id}\"\nname = {{ en = \"{id}\" }}\nexpr = \"{expr}\"\nunit = \"number\"\nbetter = \"higher\"\n"
        )
    };
    // The blocks print no end-to-end latency; the secondary divides by zero in every run.
    let extra = format!(
        "objective = \"e2e\"\nsecondary = [\"mean_ttft_ms\", \"zero\"]\n{}{}",
        metric("e2e", "1000 / mean_e2el_ms"),
        metric("zero", "completed / (gpus - gpus)")
    );
    let (_tmp, dir) = study(&extra);
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    let spec = dir.join("study.toml");
    let objective = format!(
        "{}:7:13: `objective`: the derived metric `e2e` has no value in the study's 3 runs: its `expr` reads `mean_e2el_ms`, which none of them gives",
        spec.display()
    );
    assert!(out.lines().any(|l| l == objective), "{out}");
    let secondary = format!("{}:8:13: `secondary`: the derived metric `zero` has no value", spec.display());
    assert!(out.lines().any(|l| l.starts_with(&secondary) && l.contains("division by zero")), "{out}");
    // A derived metric that only some runs give is not an error.
    let (_tmp, dir) = study(&format!("objective = \"tps\"\n{}", metric("tps", "total_token_throughput / 1")));
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Two secondary metrics: the tables show both beside the objective, in the order given.
#[test]
fn a_list_of_secondary_metrics_is_shown_in_the_tables() {
    let (_tmp, dir) = study("secondary = [\"mean_ttft_ms\", \"mean_tpot_ms\"]");
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let a = analyze(&Study::load(&dir).unwrap());
    assert_eq!((a.secondary.key.as_str(), a.also.len()), ("mean_ttft_ms", 1));
    assert_eq!(a.also[0].key, "mean_tpot_ms");
    assert_eq!(a.optimized_measure.as_ref().unwrap().also, [Some(17.0)]);
    assert_eq!(a.options[1].also, [Some(18.0)]);
    let (_, page, _) = perflab(&["report", dir.to_str().unwrap()]);
    let header = page.lines().find(|l| l.contains("Mean TTFT") && l.contains("Mean TPOT") && l.starts_with('|'));
    assert!(header.is_some(), "{page}");
    assert!(page.contains("| 1300.00 tok/s | 100.00 ms | 18.00 ms |"), "{page}");

    // An empty list, or a name that is not a metric, is an error at the key.
    for (value, message) in [("[]", "found an empty list"), ("[\"mean_ttft_ms\", \"tpot\"]", "tpot")] {
        let (_tmp, dir) = study(&format!("secondary = {value}"));
        let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
        assert_eq!(code, 1, "{value}: {out}{err}");
        let text = format!("{out}{err}");
        assert!(text.contains("study.toml:7:") && text.contains(message), "{value}: {text}");
    }
}
