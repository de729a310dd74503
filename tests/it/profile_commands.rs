//! A page shows each benchmark profile as the command of the study's benchmark tool, with the
//! study's values in place: no placeholder left, the model the recommended configuration
//! serves, the host and port (a port the study does not fix is shown as one the page names), and the
//! dataset's download where the study gives its source.

use crate::common;

use common::root;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;
use regex::Regex;

/// The code blocks of the "Benchmark profiles" section: (language, code).
fn profile_blocks(page: &str) -> (String, Vec<(String, String)>) {
    let start = page.find("### Benchmark profiles").expect("a profiles section");
    let section = &page[start..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let block = Regex::new(r"(?s)```(\w+)\n(.*?)\n```").unwrap();
    let blocks = block.captures_iter(section).map(|c| (c[1].to_string(), c[2].to_string())).collect();
    (section.to_string(), blocks)
}

#[test]
fn every_profile_is_a_command_a_reader_can_paste() {
    let renderer = Renderer::new(None).unwrap();
    let placeholder = Regex::new(r"\{[a-z_]+\}").unwrap();
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let analysis = analyze(&study);
        let page = renderer.page(&study, &analysis, "en", Flavor::Commonmark, &Links::markdown(&study.id)).unwrap();
        let (section, blocks) = profile_blocks(&page);
        assert_eq!(blocks.len(), study.spec.profiles.len(), "{}: one command a profile", study.id);
        // The tool the study names, word for word, starts every command.
        let tool = shell_words::split(&study.spec.benchmark.tool).unwrap();
        for ((lang, code), profile) in blocks.iter().zip(&study.spec.profiles) {
            assert_eq!(lang, "bash", "{}: {code}", study.id);
            assert!(!placeholder.is_match(code), "{}: a placeholder is left in {code}", study.id);
            let lines: Vec<&str> = code.lines().collect();
            let words = shell_words::split(lines.last().unwrap()).unwrap();
            // The benchmark's own environment comes first, as `perflab run` gives it.
            let env: Vec<String> = study.spec.benchmark.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            assert_eq!(words[..env.len()], env[..], "{}: {code}", study.id);
            let words = &words[env.len()..];
            assert_eq!(words[..tool.len()], tool[..], "{}: {code}", study.id);
            assert!(words.contains(&analysis.recommended.model), "{}: {code}", study.id);
            assert!(words.iter().any(|w| w.contains("127.0.0.1:")), "{}: {code}", study.id);
            if let (Some(url), Some(path)) = (&profile.dataset_url, &profile.dataset_path) {
                assert_eq!(shell_words::split(lines[0]).unwrap(), ["curl", "-L", "-o", path, url], "{}", study.id);
                assert!(words.contains(path), "{}: the command reads the file it downloaded", study.id);
            }
        }
        let config = perflab::study::Config::new(&analysis.recommended.engine);
        let argv = perflab::study::command::engine_argv(&study, &config).unwrap();
        let ready = study.engine(&config.engine).unwrap().ready_url.clone();
        let fixed = perflab::study::command::engine_port(&argv, ready.as_deref());
        let picked = !matches!(fixed, Ok(perflab::study::command::Port::Fixed(_)));
        let said = section.contains("127.0.0.1:8000. The study does not fix the engine's port");
        assert_eq!(picked, said, "{}: a port the study does not fix is shown as 8000, and the page says so", study.id);
    }
}

/// A bundled study's English page.
fn english_page(id: &str) -> String {
    let study = Study::load(&root().join("results").join(id)).unwrap();
    let renderer = Renderer::new(None).unwrap();
    renderer.page(&study, &analyze(&study), "en", Flavor::Commonmark, &Links::markdown(&study.id)).unwrap()
}

#[test]
fn the_glm_4_5_air_profile_downloads_sharegpt_and_runs_vllm_bench() {
    let page = english_page("glm-4.5-air-h100");
    let (section, blocks) = profile_blocks(&page);
    let code = &blocks[0].1;
    assert!(code.starts_with("curl -L -o ShareGPT_V3_unfiltered_cleaned_split.json https://huggingface.co/"), "{code}");
    assert!(
        code.contains("\nvllm bench serve --model zai-org/GLM-4.5-Air --base-url http://127.0.0.1:8000 "),
        "{code}"
    );
    assert!(!section.contains("toml"), "{section}");
    assert!(!page.contains("{total_requests}"), "the template is not shown when every profile is filled in");
}

/// GLM-5.2 was measured with guidellm (through GPUStack): its profiles are guidellm commands with
/// each profile's data, seed and constant rate, and ShareGPT read from the file downloaded first.
#[test]
fn the_glm_5_2_profiles_are_guidellm_commands() {
    let page = english_page("glm-5.2-fp8-h200");
    let (_, blocks) = profile_blocks(&page);
    let long = shell_words::split(&blocks[2].1).unwrap();
    // guidellm's cap on requests in flight, which every block of the page shows.
    let expected = "GUIDELLM__MAX_CONCURRENCY=512 guidellm benchmark --target http://127.0.0.1:8000 --model zai-org/GLM-5.2-FP8 \
        --processor zai-org/GLM-5.2-FP8 --max-requests 100 --data prompt_tokens=32000,output_tokens=100 \
        --random-seed 42 --profile constant --rate 1";
    assert_eq!(long, shell_words::split(expected).unwrap());
    let sharegpt: Vec<&str> = blocks[4].1.lines().collect();
    assert!(sharegpt[0].starts_with("curl -L -o ShareGPT_V3_unfiltered_cleaned_split.json "), "{}", blocks[4].1);
    let words = shell_words::split(sharegpt[1]).unwrap();
    let data = words.iter().position(|w| w == "--data").unwrap();
    assert_eq!(words[data + 1], "ShareGPT_V3_unfiltered_cleaned_split.json");
    assert!(!words.contains(&"perflab".to_string()));
}
