//! The bundled studies are complete transcriptions of the two seed pages: for every variant the
//! effective flags and environment, and the Total TPS and Mean TPOT of its block, are those the
//! seed shows; failed variants are failed; the baseline and optimized runs of every profile too.

use perflab::analysis::{Chain, resolve};
use perflab::study::{Flag, Study};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn load(id: &str) -> Study {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results").join(id);
    Study::load(&dir).unwrap_or_else(|e| panic!("{e}"))
}

/// Splits a command line as the seed prints it into flags: a token starting with `-` opens a
/// flag, the tokens after it up to the next flag are its value.
fn seed_flags(study: &Study, engine: &str, line: &str) -> Vec<String> {
    let aliases = study.engine(engine).unwrap().aliases.clone();
    let mut flags: Vec<String> = Vec::new();
    for token in line.split_whitespace() {
        match flags.last_mut() {
            Some(last) if !token.starts_with('-') => {
                last.push(' ');
                last.push_str(token);
            }
            _ => flags.push(token.to_string()),
        }
    }
    let mut keys: Vec<String> = flags
        .iter()
        .map(|f| {
            let f = Flag::parse(f, &aliases).unwrap();
            format!("{}={}", f.key, f.value.unwrap_or_default())
        })
        .collect();
    keys.sort();
    keys
}

fn effective(chain: &Chain, reference: &str) -> (String, Vec<String>, BTreeMap<String, String>) {
    let v = chain
        .variant(&perflab::study::VariantRef::parse(reference).unwrap())
        .unwrap_or_else(|| panic!("no variant {reference}"));
    let mut keys: Vec<String> =
        v.point.config.flags.iter().map(|f| format!("{}={}", f.key, f.value.clone().unwrap_or_default())).collect();
    keys.sort();
    (v.point.config.engine.clone(), keys, v.point.config.env.clone())
}

/// (variant, engine, flags as the seed prints them, env, Some((Total TPS, Mean TPOT)) or None when failed)
type Row = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str)], Option<(f64, f64)>);

fn assert_rows(study: &Study, rows: &[Row]) {
    let chain = resolve(study);
    assert!(chain.problems.is_empty(), "{:?}", chain.problems);
    let listed: usize = study.spec.stages.iter().map(|s| s.variants.len()).sum();
    assert_eq!(listed, rows.len(), "every variant of the study is checked");
    for (reference, engine, flags, env, numbers) in rows {
        let (e, keys, got_env) = effective(&chain, reference);
        assert_eq!(e, *engine, "{reference}: engine");
        assert_eq!(keys, seed_flags(study, engine, flags), "{reference}: flags");
        let want_env: BTreeMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(got_env, want_env, "{reference}: env");
        let v = chain.variant(&perflab::study::VariantRef::parse(reference).unwrap()).unwrap();
        match numbers {
            None => assert!(v.failed(), "{reference} should be a failed variant"),
            Some((tps, tpot)) => {
                let run = v.point.run.as_ref().unwrap_or_else(|| panic!("{reference}: no run"));
                let block = &study.runs[run].block;
                assert_eq!(block.metric("total_token_throughput"), Some(*tps), "{reference}: Total TPS");
                assert_eq!(block.metric("mean_tpot_ms"), Some(*tpot), "{reference}: Mean TPOT");
            }
        }
    }
}

/// (profile, baseline TPS, baseline TPOT, optimized TPS, optimized TPOT)
fn assert_scenarios(study: &Study, rows: &[(&str, f64, f64, f64, f64)]) {
    let chain = resolve(study);
    for (profile, base_tps, base_tpot, opt_tps, opt_tpot) in rows {
        for (point, tps, tpot) in [(&chain.baseline, base_tps, base_tpot), (chain.last(), opt_tps, opt_tpot)] {
            let (key, _) = chain
                .registry
                .find(study, point, profile)
                .unwrap_or_else(|| panic!("{profile}: no run of {}", point.source));
            let block = &study.runs[&key].block;
            assert_eq!(block.metric("total_token_throughput"), Some(*tps), "{profile} {}", point.source);
            assert_eq!(block.metric("mean_tpot_ms"), Some(*tpot), "{profile} {}", point.source);
        }
    }
}

const GLM_BASE: &str = "--tp-size=8 --dp-size=8 --enable-dp-attention --mem-fraction-static=0.85";

#[test]
fn glm_seed_is_transcribed() {
    let study = load("glm-5.2-fp8-h200");
    let deepep = |n: &str| format!("{GLM_BASE} --moe-a2a-backend=deepep --max-running-requests={n}");
    let d64 = deepep("64");
    let d256 = deepep("256");
    let d512 = deepep("512");
    let normal = format!("{d256} --deepep-mode=normal");
    let fp8 = format!("{d256} --kv-cache-dtype=fp8_e4m3");
    let c8 = format!("{GLM_BASE} --chunked-prefill-size=8192");
    let c16 = format!("{GLM_BASE} --chunked-prefill-size=16384");
    let c32 = format!("{GLM_BASE} --chunked-prefill-size=32768");
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let rows: Vec<Row> = vec![
        ("engine/vllm", "vllm", "--tensor-parallel-size=8", &[], Some((5481.90, 636.24))),
        ("engine/sglang", "sglang", "--tp-size=8", &[], Some((6487.53, 540.79))),
        ("parallelism/tp", "sglang", "--tp-size=8", &[], Some((6487.53, 540.79))),
        ("parallelism/tp-dpattn", "sglang", "--tp-size=8 --enable-dp-attention", &[], Some((6371.59, 553.48))),
        (
            "parallelism/tp-dp-dpattn",
            "sglang",
            "--tp-size=8 --dp-size=8 --enable-dp-attention",
            &[],
            Some((7011.17, 497.48)),
        ),
        (
            "parallelism/tp-dp-dpattn-ep",
            "sglang",
            "--tp-size=8 --enable-dp-attention --dp-size=8 --ep-size=8",
            &[],
            Some((6532.56, 533.49)),
        ),
        (
            "memory-fraction/auto",
            "sglang",
            "--tp-size=8 --dp-size=8 --enable-dp-attention",
            &[],
            Some((5881.79, 594.26)),
        ),
        (
            "memory-fraction/0.8",
            "sglang",
            "--tp-size=8 --dp-size=8 --enable-dp-attention --mem-fraction-static=0.8",
            &[],
            Some((10572.77, 344.10)),
        ),
        ("memory-fraction/0.85", "sglang", GLM_BASE, &[], Some((13760.98, 266.89))),
        ("chunked-prefill/default", "sglang", GLM_BASE, &[], Some((13760.98, 266.89))),
        ("chunked-prefill/8k", "sglang", leak(c8), &[], Some((13758.60, 266.86))),
        ("chunked-prefill/16k", "sglang", leak(c16), &[], None),
        ("chunked-prefill/32k", "sglang", leak(c32), &[], None),
        ("deepep-max-running/max-running-64", "sglang", leak(d64), &[], Some((9959.18, 359.30))),
        ("deepep-max-running/max-running-256", "sglang", leak(d256.clone()), &[], Some((14451.05, 255.63))),
        ("deepep-max-running/max-running-512", "sglang", leak(d512), &[], Some((14251.08, 259.25))),
        ("deepep-mode/auto", "sglang", leak(d256.clone()), &[], Some((14451.05, 255.63))),
        ("deepep-mode/normal", "sglang", leak(normal), &[], Some((3413.56, 1058.70))),
        ("kv-cache-dtype/bf16", "sglang", leak(d256), &[], Some((14451.05, 255.63))),
        ("kv-cache-dtype/fp8_e4m3", "sglang", leak(fp8), &[], Some((17525.76, 217.89))),
    ];
    assert_rows(&study, &rows);
    assert_scenarios(
        &study,
        &[
            ("balanced", 5481.90, 636.24, 17525.76, 217.89),
            ("short", 13196.90, 316.73, 18276.60, 211.06),
            ("long", 10513.68, 1320.02, 26433.15, 537.26),
            ("generation-heavy", 2268.18, 42.11, 2267.33, 46.54),
            ("sharegpt", 6040.94, 149.24, 2845.48, 331.21),
        ],
    );
    assert_eq!(resolve(&study).last().source, "kv-cache-dtype/fp8_e4m3");
}

const V: &str = "-tp 8 --tokenizer-mode deepseek_v32 --reasoning-parser deepseek_v3";
const S: &str = "--chat-template ./tool_chat_template_deepseekv32.jinja --tp-size 8";
const S_TOOLS: &str = "--chat-template ./tool_chat_template_deepseekv32.jinja --tp-size 8 --enable-dp-attention --dp 8 --reasoning-parser deepseek-v3 --tool-call-parser deepseekv32";

#[test]
fn deepseek_seed_is_transcribed() {
    let study = load("deepseek-v3.2-h200");
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let ctx = format!("{S_TOOLS} --context-length=32768");
    let rows: Vec<Row> = vec![
        ("engine/vllm", "vllm", V, &[], Some((5713.95, 275.03))),
        ("engine/sglang", "sglang", S, &[], Some((3012.37, 1103.96))),
        ("engine/trtllm", "trtllm", "--tp_size 8", &[], Some((1732.48, 1391.76))),
        (
            "parallelism/vllm-dp-ep",
            "vllm",
            "--tokenizer-mode deepseek_v32 --reasoning-parser deepseek_v3 -tp 1 -dp 8 --enable-expert-parallel --max-model-len 81920",
            &[],
            Some((6343.10, 278.22)),
        ),
        (
            "parallelism/vllm-dcp",
            "vllm",
            "-tp 8 --tokenizer-mode deepseek_v32 --reasoning-parser deepseek_v3 -dcp 8",
            &[],
            None,
        ),
        (
            "parallelism/sglang-tp-dpattn",
            "sglang",
            leak(format!("{S} --enable-dp-attention")),
            &[],
            Some((4190.17, 608.90)),
        ),
        (
            "parallelism/sglang-tp-dp-dpattn",
            "sglang",
            leak(format!("{S} --dp-size 8 --enable-dp-attention")),
            &[],
            Some((7351.59, 287.86)),
        ),
        (
            "parallelism/sglang-tp-dp-dpattn-ep",
            "sglang",
            leak(format!("{S} --dp-size 8 --enable-dp-attention --ep-size 8")),
            &[],
            Some((7293.61, 319.46)),
        ),
        ("parallelism/trtllm-tp-ep", "trtllm", "--tp_size 8 --ep_size 8 --pp_size 1", &[], Some((2882.32, 561.24))),
        (
            "mtp/vllm-mtp",
            "vllm",
            leak(format!("{V} --speculative-config {{\"method\":\"mtp\",\"num_speculative_tokens\":1}}")),
            &[],
            Some((5542.96, 291.48)),
        ),
        (
            "mtp/sglang-eagle",
            "sglang",
            "--tp-size 8 --speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2",
            &[],
            Some((1481.77, 68.88)),
        ),
        ("deepgemm/vllm-no-deepgemm", "vllm", V, &[("VLLM_USE_DEEP_GEMM", "0")], Some((5556.92, 287.49))),
        ("deepgemm/sglang-no-deepgemm", "sglang", S, &[("SGLANG_ENABLE_JIT_DEEPGEMM", "0")], None),
        (
            "deepgemm/trtllm-no-deepgemm",
            "trtllm",
            "--tp_size 8 --ep_size 8 --pp_size 1",
            &[("TRTLLM_DG_ENABLED", "0")],
            Some((3052.33, 541.07)),
        ),
        (
            "tool-call/vllm-tool-call",
            "vllm",
            leak(format!("{V} --tool-call-parser deepseek_v32 --enable-auto-tool-choice")),
            &[],
            Some((5610.78, 280.78)),
        ),
        ("tool-call/sglang-tool-call", "sglang", S_TOOLS, &[], Some((8376.43, 250.64))),
        ("context-length/vllm-32k", "vllm", leak(format!("{V} --max-model-len 32768")), &[], Some((5538.11, 357.68))),
        ("context-length/sglang-32k", "sglang", leak(ctx.clone()), &[], Some((8750.49, 214.05))),
        (
            "kv-cache-dtype/sglang-fp8_e4m3",
            "sglang",
            leak(format!("{ctx} --kv-cache-dtype fp8_e4m3")),
            &[],
            Some((8494.23, 213.50)),
        ),
        ("attention-backend/vllm-cutlass-mla", "vllm", V, &[("VLLM_ATTENTION_BACKEND", "CUTLASS_MLA")], None),
        ("attention-backend/vllm-flashmla", "vllm", V, &[("VLLM_ATTENTION_BACKEND", "FLASHMLA")], None),
        ("attention-backend/vllm-triton-mla", "vllm", V, &[("VLLM_ATTENTION_BACKEND", "TRITON_MLA")], None),
        (
            "attention-backend/sglang-fa3",
            "sglang",
            leak(format!("{ctx} --attention-backend nsa --nsa-prefill-backend fa3 --nsa-decode-backend fa3")),
            &[],
            Some((8968.32, 203.05)),
        ),
        (
            "attention-backend/sglang-flashmla",
            "sglang",
            leak(format!(
                "{ctx} --attention-backend nsa --nsa-prefill-backend flashmla_sparse --nsa-decode-backend flashmla_kv"
            )),
            &[],
            Some((5362.16, 260.25)),
        ),
    ];
    assert_rows(&study, &rows);
    assert_scenarios(
        &study,
        &[
            ("sharegpt", 5713.95, 275.03, 8968.32, 203.05),
            ("short", 10071.49, 781.80, 18227.38, 776.55),
            ("medium", 10925.59, 354.59, 27712.54, 192.24),
            ("long", 9974.26, 226.74, 20545.67, 177.95),
            ("very-long", 9709.27, 472.52, 20045.18, 246.26),
            ("generation-heavy", 3112.52, 45.72, 3703.98, 39.45),
        ],
    );
    // The run whose header line was lost in the paste is still read, and says so.
    let run = study.run("parallelism", "vllm-dp-ep", "sharegpt").unwrap();
    assert_eq!(run.block.remarks, vec!["header line missing".to_string()]);
}

#[test]
fn raw_blocks_are_kept_verbatim() {
    let study = load("glm-5.2-fp8-h200");
    let run = study.run("memory-fraction", "0.85", "balanced").unwrap();
    assert!(run.text.starts_with(
        "============ Serving Benchmark Result ============\nSuccessful requests:                     1000\n"
    ));
    assert!(run.text.contains("Mean Latency(s):                          273.29\n"));
}
