//! Every figure of the seeds' stage summaries, summary-of-options tables, ranking line and
//! before/after tables is reproduced by the analysis, within 0.01 where a seed rounded from
//! unrounded data. Where a seed contradicts its own data, the figure the data gives is asserted
//! (and noted beside it).

use perflab::analysis::{Adoption, Analysis, Trend, analyze};
use perflab::study::Study;
use std::path::PathBuf;

fn analysis(id: &str) -> Analysis {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results").join(id);
    analyze(&Study::load(&dir).unwrap_or_else(|e| panic!("{e}")))
}

fn near(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: no value"));
    assert!((got - want).abs() <= 0.01 + 1e-9, "{what}: got {got:.4}, seed shows {want}");
}

/// (stage, best, worst, best TPS, worst TPS, gap tok/s, gap %, TPOT best, TPOT worst, TPOT diff, TPOT %, trend)
type Summary = (&'static str, &'static str, &'static str, f64, f64, f64, f64, f64, f64, f64, f64, Trend);

fn assert_summaries(a: &Analysis, rows: &[Summary]) {
    for &(stage, best, worst, tb, tw, gap, gap_pct, sb, sw, sdiff, spct, trend) in rows {
        let c = a.stage(stage).unwrap().comparison.as_ref().unwrap_or_else(|| panic!("{stage}: no summary"));
        assert_eq!((c.best.as_str(), c.worst.as_str()), (best, worst), "{stage}");
        near(Some(c.objective.value), tb, stage);
        near(Some(c.objective.reference), tw, stage);
        near(Some(c.objective.diff), gap, stage);
        near(c.objective.percent, gap_pct, stage);
        let s = c.secondary.unwrap();
        near(Some(s.value), sb, stage);
        near(Some(s.reference), sw, stage);
        near(Some(s.diff.abs()), sdiff, stage);
        near(s.percent.map(f64::abs), spct, stage);
        assert_eq!(s.trend, trend, "{stage}");
    }
}

#[test]
fn glm_stage_summaries() {
    let a = analysis("glm-5.2-fp8-h200");
    assert_summaries(
        &a,
        &[
            // The seed prints 1005.62 (from unrounded data); the rounded blocks give 1005.63.
            ("engine", "sglang", "vllm", 6487.53, 5481.90, 1005.62, 18.34, 540.79, 636.24, 95.45, 15.00, Trend::Lower),
            (
                "parallelism",
                "tp-dp-dpattn",
                "tp-dpattn",
                7011.17,
                6371.59,
                639.58,
                10.04,
                497.48,
                553.48,
                56.00,
                10.12,
                Trend::Lower,
            ),
            // Seed: 327.38 ms; the blocks give 327.37.
            (
                "memory-fraction",
                "0.85",
                "auto",
                13760.98,
                5881.79,
                7879.19,
                133.96,
                266.89,
                594.26,
                327.38,
                55.09,
                Trend::Lower,
            ),
            // Seed: 2.37 tok/s; the blocks give 2.38. TPOT rises by 0.03 ms (0.01% slower).
            (
                "chunked-prefill",
                "default",
                "8k",
                13760.98,
                13758.60,
                2.37,
                0.02,
                266.89,
                266.86,
                0.03,
                0.01,
                Trend::Higher,
            ),
            (
                "deepep-max-running",
                "max-running-256",
                "max-running-64",
                14451.05,
                9959.18,
                4491.87,
                45.10,
                255.63,
                359.30,
                103.67,
                28.85,
                Trend::Lower,
            ),
            (
                "deepep-mode",
                "auto",
                "normal",
                14451.05,
                3413.56,
                11037.49,
                323.34,
                255.63,
                1058.70,
                803.07,
                75.85,
                Trend::Lower,
            ),
            // Seed: 3074.72; the blocks give 3074.71.
            (
                "kv-cache-dtype",
                "fp8_e4m3",
                "bf16",
                17525.76,
                14451.05,
                3074.72,
                21.28,
                217.89,
                255.63,
                37.74,
                14.76,
                Trend::Lower,
            ),
        ],
    );
}

#[test]
fn glm_summary_of_options_is_cumulative_against_the_baseline() {
    let a = analysis("glm-5.2-fp8-h200");
    let want = [
        ("engine", 6487.53, 540.79, 18.34),
        ("parallelism", 7011.17, 497.48, 27.90),
        ("memory-fraction", 13760.98, 266.89, 151.03),
        ("chunked-prefill", 13760.98, 266.89, 151.03),
        ("deepep-max-running", 14451.05, 255.63, 163.61),
        ("deepep-mode", 14451.05, 255.63, 163.61),
        ("kv-cache-dtype", 17525.76, 217.89, 219.70),
    ];
    assert_eq!(a.options.len(), want.len());
    for (row, (stage, tps, tpot, pct)) in a.options.iter().zip(want) {
        assert_eq!(row.stage, stage);
        near(row.value, tps, stage);
        near(row.secondary, tpot, stage);
        near(row.vs_baseline, pct, stage);
    }
    near(a.baseline_measure.as_ref().and_then(|m| m.value), 5481.90, "baseline");
    near(a.baseline_measure.as_ref().and_then(|m| m.secondary), 636.24, "baseline TPOT");
    // Stages whose best is what they built on adopt nothing: no step gain.
    assert_eq!(a.options[3].step, None);
    assert_eq!(a.options[5].step, None);
    // The steps multiply to the total exactly.
    let product: f64 = a.options.iter().filter_map(|o| o.step).map(|s| 1.0 + s / 100.0).product();
    near(Some((product - 1.0) * 100.0), a.total_gain.unwrap(), "steps vs total");
    near(a.total_gain, 219.70, "total");
}

#[test]
fn glm_before_and_after() {
    let a = analysis("glm-5.2-fp8-h200");
    let want = [
        ("balanced", 5481.90, 636.24, 17525.76, 217.89, 219.70, true),
        ("short", 13196.90, 316.73, 18276.60, 211.06, 38.49, false),
        ("long", 10513.68, 1320.02, 26433.15, 537.26, 151.42, false),
        ("generation-heavy", 2268.18, 42.11, 2267.33, 46.54, -0.04, false),
        ("sharegpt", 6040.94, 149.24, 2845.48, 331.21, -52.90, false),
    ];
    for (s, (profile, b, bs, o, os, pct, target)) in a.scenarios.iter().zip(want) {
        assert_eq!((s.profile.as_str(), s.target), (profile, target));
        near(s.baseline.as_ref().and_then(|m| m.value), b, profile);
        near(s.baseline.as_ref().and_then(|m| m.secondary), bs, profile);
        near(s.optimized.as_ref().and_then(|m| m.value), o, profile);
        near(s.optimized.as_ref().and_then(|m| m.secondary), os, profile);
        near(s.change, pct, profile);
    }
    // ShareGPT regresses beyond noise; generation-heavy moves by less than the noise threshold.
    assert!(a.scenarios[4].regression);
    assert!(!a.scenarios[3].regression);
    assert_eq!(
        a.recommended.flags,
        [
            "--tp-size=8",
            "--dp-size=8",
            "--enable-dp-attention",
            "--mem-fraction-static=0.85",
            "--moe-a2a-backend=deepep",
            "--max-running-requests=256",
            "--kv-cache-dtype=fp8_e4m3"
        ]
    );
}

#[test]
fn deepseek_figures() {
    let a = analysis("deepseek-v3.2-h200");
    // Ranking line: vLLM (5713.95) > SGLang (3012.37) > TensorRT-LLM (1732.48, lost requests).
    let ranking = a.stage("engine").unwrap().ranking.as_ref().unwrap();
    let got: Vec<(&str, Option<f64>)> = ranking.iter().map(|r| (r.engine.as_str(), r.value)).collect();
    assert_eq!(got, [("vllm", Some(5713.95)), ("sglang", Some(3012.37)), ("trtllm", Some(1732.48))]);
    // Step gains against the previously adopted configuration, "-" where nothing was adopted.
    let steps: Vec<(&str, Option<f64>)> = a.options.iter().map(|o| (o.stage.as_str(), o.step)).collect();
    let want = [
        ("engine", None),
        ("parallelism", Some(28.66)),
        ("mtp", None),
        ("deepgemm", None),
        ("tool-call", Some(13.94)),
        ("context-length", Some(4.47)),
        ("kv-cache-dtype", None),
        ("attention-backend", Some(2.49)),
    ];
    for ((stage, got), (ws, want)) in steps.into_iter().zip(want) {
        assert_eq!(stage, ws);
        match want {
            None => assert_eq!(got, None, "{stage}"),
            Some(w) => near(got, w, stage),
        }
    }
    // The seed's total says +56.97%; 8968.32 / 5713.95 is +56.95%, as its own before/after row says.
    near(a.total_gain, 56.95, "total");
    assert!(matches!(a.stage("attention-backend").unwrap().adoption, Adoption::Overridden { .. }));
    let want = [
        ("sharegpt", 5713.95, 275.03, 8968.32, 203.05, 56.95),
        ("short", 10071.49, 781.80, 18227.38, 776.55, 80.98),
        ("medium", 10925.59, 354.59, 27712.54, 192.24, 153.65),
        ("long", 9974.26, 226.74, 20545.67, 177.95, 105.99),
        ("very-long", 9709.27, 472.52, 20045.18, 246.26, 106.45),
        ("generation-heavy", 3112.52, 45.72, 3703.98, 39.45, 19.00),
    ];
    for (s, (profile, b, bs, o, os, pct)) in a.scenarios.iter().zip(want) {
        assert_eq!(s.profile, profile);
        near(s.baseline.as_ref().and_then(|m| m.value), b, profile);
        near(s.baseline.as_ref().and_then(|m| m.secondary), bs, profile);
        near(s.optimized.as_ref().and_then(|m| m.value), o, profile);
        near(s.optimized.as_ref().and_then(|m| m.secondary), os, profile);
        near(s.change, pct, profile);
    }
    // The recommended command leaves out the context length and the attention backend.
    assert_eq!(a.excluded_stages, ["context-length", "attention-backend"]);
    assert_eq!(
        a.recommended.flags,
        [
            "--chat-template ./tool_chat_template_deepseekv32.jinja",
            "--tp-size 8",
            "--dp-size 8",
            "--enable-dp-attention",
            "--reasoning-parser deepseek-v3",
            "--tool-call-parser deepseekv32"
        ]
    );
    assert_eq!(a.optimized.flags.len(), 10);
}

#[test]
fn glm_repeated_measurement_is_flagged_with_both_values() {
    use perflab::analysis::Warning;
    let a = analysis("glm-5.2-fp8-h200");
    let noisy: Vec<&Warning> = a.warnings.iter().filter(|w| matches!(w, Warning::Noisy { .. })).collect();
    assert_eq!(noisy.len(), 1);
    let Warning::Noisy { values, spread_percent, .. } = noisy[0] else { unreachable!() };
    assert_eq!(values, &[7011.17, 5881.79]);
    near(Some(*spread_percent), 16.11, "spread");
}

#[test]
fn gpustack_tpot_is_shown_to_include_waiting_time_with_its_arithmetic() {
    use perflab::analysis::Warning;
    let a = analysis("glm-5.2-fp8-h200");
    let found: Vec<_> = a
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::TpotIncludesWaiting { runs } => Some(runs),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "one warning for the study");
    let runs = found[0];
    assert_eq!(runs.len(), 20, "every GPUStack run of the study");
    let sglang = runs.iter().find(|w| w.run == "engine/sglang/balanced").unwrap();
    // Mean TPOT 540.79 ms is the mean latency 553.77 s over 1024 output tokens.
    near(Some(sglang.tpot_ms), 540.79, "TPOT");
    near(Some(sglang.latency_ms / 1000.0), 553.77, "latency");
    assert_eq!(sglang.tokens, 1024.0);
    // vLLM's client prints a TPOT without the waiting time: no such warning.
    let deepseek = analysis("deepseek-v3.2-h200");
    assert!(!deepseek.warnings.iter().any(|w| matches!(w, Warning::TpotIncludesWaiting { .. })));
}
