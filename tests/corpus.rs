//! The studies transcribed from the published pages in `../shared/corpus` reproduce every figure
//! their pages print, in the pages' own rounding. Where a page contradicts its own data, the
//! figure the data gives is asserted and the contradiction is listed at the study's test.

use perflab::analysis::{Analysis, Measure, analyze};
use perflab::study::Study;
use std::path::PathBuf;

fn load(id: &str) -> (Study, Analysis) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results").join(id);
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(&study);
    (study, analysis)
}

/// `x` as the page prints it, with `decimals` decimals.
fn shown(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".to_string(), |x| format!("{x:.decimals$}"))
}

fn values(m: &Option<Measure>) -> (Option<f64>, Option<f64>) {
    m.as_ref().map_or((None, None), |m| (m.value, m.secondary))
}

/// Qwen3-30B-A3B on Ascend 910B (`qwen3-30b-a3b-910b.md`): a non-CUDA engine (MindIE) and a
/// quantization stage that switches checkpoint.
///
/// Where the page contradicts itself:
/// - its setup names "a single Ascend 910B NPU", yet the vLLM baseline runs with `-tp 2`;
/// - its quantization stage serves `vllm-ascend/Qwen3-8B-W8A8`, a checkpoint of the 8B model;
/// - the long-prompt baseline's Mean TPOT is 277.5 in its table and 277.51 in its block (asserted: 277.51);
/// - MindIE's serving scripts name `Qwen3-30B-A3B`, its recommended command `Qwen/Qwen3-30B-A3B`
///   (the study's model is the latter);
/// - its ranking line spells the winner "MineIE";
/// - it measured the concurrency-4 ShareGPT case for both configurations but left it out of its
///   table (the study shows it: +385.3%).
#[test]
fn qwen3_30b_a3b_910b() {
    let (study, a) = load("qwen3-30b-a3b-910b");
    assert_eq!(*study.spec.display.percent_decimals.get_ref(), 1, "the page prints one decimal");
    // Before and after: (profile, baseline TPS, baseline TPOT, optimized TPS, optimized TPOT, change).
    let rows = [
        ("sharegpt", "1227.19", "318.03", "4712.47", "964.45", "284.0"),
        ("short", "5340.68", "312.49", "15040.15", "1249.72", "181.6"),
        ("medium", "7843.85", "344.86", "15591.71", "194.54", "98.8"),
        ("long", "5881.36", "277.51", "13362.49", "130.97", "127.2"),
        ("very-long", "3704.57", "503.84", "10830.52", "242.08", "192.4"),
    ];
    for (profile, b_tps, b_tpot, o_tps, o_tpot, change) in rows {
        let s = a.scenarios.iter().find(|s| s.profile == profile).unwrap();
        let (bt, bp) = values(&s.baseline);
        let (ot, op) = values(&s.optimized);
        assert_eq!(
            [shown(bt, 2), shown(bp, 2), shown(ot, 2), shown(op, 2), shown(s.change, 1)],
            [b_tps, b_tpot, o_tps, o_tpot, change],
            "{profile}"
        );
        assert!(!s.regression);
    }
    // Summary of options: the engine's step, and "-" for the two stages that adopted nothing.
    let steps: Vec<String> = a.options.iter().map(|o| shown(o.step, 1)).collect();
    assert_eq!(steps, ["284.0", "-", "-"]);
    assert_eq!(shown(a.total_gain, 1), "284.0");
    // Ranking: MindIE (4712.47 tok/s) > vLLM (1227.19 tok/s).
    let ranking = a.stage("engine").unwrap().ranking.as_ref().unwrap();
    let ranked: Vec<(String, String)> = ranking.iter().map(|r| (r.engine.clone(), shown(r.value, 2))).collect();
    assert_eq!(ranked, [("mindie".into(), "4712.47".into()), ("vllm".into(), "1227.19".into())]);
    // Prefix caching crashed; the W8A8 checkpoint (4539.88 tok/s) is not better.
    assert!(a.stage("prefix-cache").unwrap().variants[0].failure_message.is_some());
    let w8a8 = &a.stage("quantization").unwrap().variants[0];
    assert_eq!(shown(w8a8.measure.as_ref().and_then(|m| m.value), 2), "4539.88");
    assert_eq!(w8a8.command.launch, "mindie serve vllm-ascend/Qwen3-8B-W8A8");
    // The recommended command, as the page gives it.
    assert_eq!(
        format!("{} {}", a.recommended.launch, a.recommended.flags.join(" ")).trim(),
        "mindie serve Qwen/Qwen3-30B-A3B"
    );
    assert_eq!(a.baseline.launch, "vllm serve Qwen/Qwen3-30B-A3B");
    assert_eq!(a.baseline.flags, ["-tp 2"]);
}

/// Qwen3-14B on one H100 (`qwen3-14b-h100.md`): a quantization stage whose variant switches to
/// the FP8 checkpoint, which the recommended command then serves.
///
/// Where the page contradicts itself:
/// - its ranking line gives SGLang 8424.86 tok/s, its SGLang block 8403.97 (asserted: 8403.97);
/// - its engine step (+27.7%) and quantization step (+23.8%) are computed from that 8424.86;
///   its blocks give +27.4% and +24.1% (asserted), and the total, +58.1%, is the same either way;
/// - its setup names the model `Qwen3-14B`, its commands `Qwen/Qwen3-14B`.
#[test]
fn qwen3_14b_h100() {
    let (_, a) = load("qwen3-14b-h100");
    let rows = [
        ("sharegpt", "6595.66", "226.03", "10426.27", "251.67", "58.1"),
        ("short", "5796.73", "525.31", "16884.75", "927.88", "191.3"),
        ("medium", "10597.19", "206.51", "14764.26", "143.22", "39.3"),
        ("long", "9218.03", "132.45", "12257.62", "84.93", "33.0"),
        ("very-long", "8298.56", "277.44", "10014.29", "215.93", "20.7"),
    ];
    for (profile, b_tps, b_tpot, o_tps, o_tpot, change) in rows {
        let s = a.scenarios.iter().find(|s| s.profile == profile).unwrap();
        let (bt, bp) = values(&s.baseline);
        let (ot, op) = values(&s.optimized);
        assert_eq!(
            [shown(bt, 2), shown(bp, 2), shown(ot, 2), shown(op, 2), shown(s.change, 1)],
            [b_tps, b_tpot, o_tps, o_tpot, change],
            "{profile}"
        );
    }
    let steps: Vec<String> = a.options.iter().map(|o| shown(o.step, 1)).collect();
    assert_eq!(steps, ["27.4", "24.1", "-"], "the page prints 27.7 and 23.8 from a figure its block does not hold");
    assert_eq!(shown(a.total_gain, 1), "58.1");
    let ranking = a.stage("engine").unwrap().ranking.as_ref().unwrap();
    let ranked: Vec<(String, String)> = ranking.iter().map(|r| (r.engine.clone(), shown(r.value, 2))).collect();
    assert_eq!(
        ranked,
        [("sglang".into(), "8403.97".into()), ("trtllm".into(), "8315.15".into()), ("vllm".into(), "6595.66".into())]
    );
    // The attention backends: fa3 is within the noise, flashinfer and triton are slower.
    let backends: Vec<String> = a
        .stage("attention-backend")
        .unwrap()
        .variants
        .iter()
        .map(|v| shown(v.measure.as_ref().and_then(|m| m.value), 2))
        .collect();
    assert_eq!(backends, ["10434.44", "9123.34", "10055.13"]);
    assert!(matches!(a.stage("attention-backend").unwrap().adoption, perflab::analysis::Adoption::WithinNoise { .. }));
    // The recommended command serves the checkpoint, named once.
    assert_eq!(a.recommended.launch, "python3 -m sglang.launch_server --model-path Qwen/Qwen3-14B-FP8");
    assert!(a.recommended.flags.is_empty());
}
