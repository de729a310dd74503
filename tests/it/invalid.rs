//! A corpus of broken study files: each edit of a bundled study gives one clear message at the
//! position of the offending key, and a non-zero exit.

use crate::common;

use common::{copy_dir, perflab, root};

/// (what to replace, with what, the message expected, the text whose position it points at)
const CASES: &[(&str, &str, &str, &str)] = &[
    // The second of two equal ids is the duplicate.
    (
        "id = \"vllm\"\nname = \"vLLM\"",
        "id = \"sglang\"\nname = \"vLLM\"",
        "duplicate engine id `sglang`",
        "\"sglang\"\nname = \"SGLang\"",
    ),
    (
        "model = \"zai-org/GLM-5.2-FP8\"",
        "model = \"zai-org/GLM-5.2-FP8\"\ndate = \"2025-13-40\"",
        "`date`: `2025-13-40` is not a date of the form YYYY-MM-DD",
        "\"2025-13-40\"",
    ),
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\nobjective = \"total_tps\"",
        "`objective`: `total_tps` is not a canonical metric name",
        "\"total_tps\"",
    ),
    (
        "command = \"vllm serve {model}\"",
        "command = \"vllm serve {modle}\"",
        "`engine.command`: unknown placeholder `{modle}`",
        "\"vllm serve {modle}\"",
    ),
    (
        "baseline = \"engine/vllm\"",
        "baseline = \"engine/vlm\"",
        "`baseline`: no variant `engine/vlm` (write `stage/variant`)",
        "\"engine/vlm\"",
    ),
    (
        "id = \"parallelism\"\ntitle",
        "id = \"parallelism\"\nbase = \"kv-cache-dtype\"\ntitle",
        "`base`: `kv-cache-dtype` is not an earlier stage",
        "\"kv-cache-dtype\"\ntitle",
    ),
    (
        "flags = [\"--enable-dp-attention\"]",
        "flags = [\"enable-dp-attention\"]",
        "`enable-dp-attention` is not a flag (flags start with `-`)",
        "\"enable-dp-attention\"]",
    ),
    (
        "request_rate = 1\ntotal_requests = 100",
        "request_rate = \"slow\"\ntotal_requests = 100",
        "`request_rate`: `slow` is neither a number nor \"inf\"",
        "\"slow\"",
    ),
    ("total_requests = 200", "total_requests = \"many\"", "invalid type: string \"many\", expected u64", "\"many\""),
    ("[title]\nen = ", "[title]\nfr = \"x\"\nxx = ", "localized text needs an `en` entry", "[title]\nfr"),
    // An empty translation would count as translated and give an empty heading.
    ("tr = \"8×H200 üzerinde", "tr = \"\"\nxx = \"8×H200 üzerinde", "`tr`: the text is empty", "[title]\nen"),
    // A terminal escape in prose would reach terminals and pages.
    (
        "en = \"Optimizing GLM-5.2 throughput on 8×H200\"",
        "en = \"Optimizing\\u001b]0;HACKED\\u0007 GLM-5.2\"",
        "`en`: control character U+001B in the text",
        "[title]\nen",
    ),
    // Each device is one entry of CUDA_VISIBLE_DEVICES, counted once.
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\nlocal = { devices = [\"0,1\", \"2\"] }",
        "`devices`: `0,1` is not one device id",
        "{ devices",
    ),
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\nlocal = { devices = [\"0\", \"0\"] }",
        "`devices`: `0` is listed twice",
        "{ devices",
    ),
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\nlocal = { gpus = 0 }",
        "`gpus`: 0 is not a number of GPUs",
        "{ gpus",
    ),
    // `<profile>.r2.txt` is the name of a profile's second measurement.
    ("id = \"short\"", "id = \"balanced.r2\"", "ends like a repeated measurement's name (`.r2`)", "\"balanced.r2\""),
    (
        "id = \"8k\"",
        "id = \"8k/x\"",
        "variant id `8k/x`: ids are letters, digits, `.`, `_` and `-`, not starting with `.`",
        "\"8k/x\"",
    ),
    // A newline in a value that goes into a command would close the code block around it.
    (
        "model = \"zai-org/GLM-5.2-FP8\"",
        "model = \"m\\n```\\n<script>alert(1)</script>\\n```\"",
        "`model`: control character U+000A",
        "\"m\\n",
    ),
    (
        "flags = [\"--mem-fraction-static=0.8\"]",
        "flags = [\"--mem-fraction-static=0.8\\n```\\n<script>x</script>\"]",
        "`flags`: control character U+000A",
        "\"--mem-fraction-static=0.8\\n",
    ),
    (
        "command = \"vllm serve {model}\"",
        "command = \"vllm serve {model}\"\nenv = { A = \"1\\r\\nB=2\" }",
        "`A`: control character U+000D",
        "\"1\\r",
    ),
    (
        "id = \"8k\"",
        "id = \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\"",
        "ids are at most 100 characters long; this one has 108",
        "\"kkkk",
    ),
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\nobjective = \"max_concurrent_requests\"",
        "`objective`: `max_concurrent_requests` describes the run, it is neither better higher nor lower",
        "\"max_concurrent_requests\"",
    ),
    (
        "[[stage.variant]]\nid = \"tp\"\nlabel = \"TP\"",
        "[[stage.variant]]\nid = \"tp\"\nlabel = \"TP\"\nfailure = { class = \"exploded\" }",
        "unknown variant `exploded`",
        "{ class = \"exploded\" }",
    ),
    (
        "[[accuracy]]",
        "[[failure_patterns]]\nclass = \"oom\"\nregex = \"((\"\n\n[[accuracy]]",
        "`failure_patterns.regex`: regex parse error",
        "\"((\"",
    ),
    // A checkpoint given as a flag would put a second `--model-path` into SGLang's command.
    (
        "flags = [\"--kv-cache-dtype=fp8_e4m3\"]",
        "flags = [\"--kv-cache-dtype=fp8_e4m3\", \"--model-path=zai-org/GLM-5.2-AWQ\"]",
        "`--model-path` gives the model, which the engine's command already gives",
        "\"--model-path=zai-org/GLM-5.2-AWQ\"",
    ),
    // A stage-level base that would throw away what the search adopted in between.
    (
        "id = \"memory-fraction\"\ntitle",
        "id = \"memory-fraction\"\nbase = \"engine\"\ntitle",
        "drops `--dp-size=8`, `--enable-dp-attention` that the search had adopted",
        "\"engine\"\ntitle = { en = \"Memory",
    ),
    (
        "noise_threshold = 2.0",
        "noise_threshold = 2.0\ndisplay = { percent_decimals = 9 }",
        "`display.percent_decimals`: at most 4 decimals",
        "9 }",
    ),
    // Notes are localized texts: a bare string says what is expected.
    (
        "id = \"engine\"\ntitle",
        "id = \"engine\"\nnotes = \"oops\"\ntitle",
        "expected a localized text (`{ en = \"...\" }`) or a list of them, found a string",
        "\"oops\"",
    ),
];

#[test]
fn every_broken_study_names_its_position_and_key() {
    for (from, to, message, at) in CASES {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("glm");
        copy_dir(&root().join("results/glm-5.2-fp8-h200"), &dir);
        let spec = dir.join("study.toml");
        let text = std::fs::read_to_string(&spec).unwrap();
        assert!(text.contains(from), "the case's text is not in the study: {from}");
        let broken = text.replacen(from, to, 1);
        std::fs::write(&spec, &broken).unwrap();
        let offset = broken.find(at).unwrap_or_else(|| panic!("`{at}` not in the edited study"));
        let line = broken[..offset].matches('\n').count() + 1;
        let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
        assert_eq!(code, 1, "{message}: {out}{err}");
        let first = out.lines().find(|l| l.contains(message)).unwrap_or_else(|| panic!("no `{message}` in:\n{out}"));
        let prefix = format!("{}:{line}:", spec.display());
        assert!(first.starts_with(&prefix), "`{first}` should point at line {line}");
        let before = std::fs::read_to_string(&spec).unwrap();
        assert_eq!(before, broken, "check changes nothing");
    }
}

#[test]
fn an_unlimited_request_rate_is_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("glm");
    copy_dir(&root().join("results/glm-5.2-fp8-h200"), &dir);
    let spec = dir.join("study.toml");
    // Measured with perflab bench (the study's guidellm template and its profiles' flags taken
    // out), whose command says an unlimited rate in its own words.
    let text = std::fs::read_to_string(&spec).unwrap().replace("request_rate = 1000", "request_rate = \"inf\"");
    let text: Vec<&str> =
        text.lines().filter(|l| !l.starts_with("command = \"guidellm") && !l.starts_with("args = ")).collect();
    std::fs::write(&spec, text.join("\n")).unwrap();
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    // The profile's command, as the page shows it, sends every request at once.
    assert_eq!(out.matches("--request-rate inf").count(), 3, "{out}");
    assert!(!out.contains("--request-rate 1000"), "{out}");
}
