//! `perflab import`: the published pages in `tests/fixtures/import` (the series' English pages)
//! become studies that check clean and report, with the pages' figures; bad pages are refused
//! at their line and leave nothing behind.

use crate::common::{self, root};
use perflab::analysis::{Analysis, analyze};
use perflab::study::Study;
use regex::Regex;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/import")
}

fn pages() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("README.md"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Imports a page into `dir/<name>` through the library.
fn import(name: &str, dir: &Path) -> (Study, Analysis) {
    let page = fixtures().join(format!("{name}.md"));
    let study_dir = dir.join(name);
    perflab::import::import_file(&page, &study_dir, false).unwrap_or_else(|e| panic!("{e}"));
    let study = Study::load(&study_dir).unwrap_or_else(|e| panic!("{name}: {e}"));
    let problems = perflab::analysis::check(&study);
    assert!(problems.is_empty(), "{name}: {problems:?}");
    let a = analyze(&study);
    // And it reports: its page renders in English.
    let links = perflab::render::Links::markdown(&study.id);
    let page = perflab::render::Renderer::new(None).unwrap().page(
        &study,
        &a,
        "en",
        perflab::render::Flavor::Commonmark,
        &links,
    );
    assert!(page.is_ok_and(|p| p.contains(&study.spec.model)), "{name}: the page does not render");
    (study, a)
}

/// A figure of a page against perflab's.
#[derive(Debug)]
struct Figure {
    page: String,
    what: String,
    printed: String,
    ours: String,
}

fn shown(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".into(), |x| format!("{x:.decimals$}"))
}

fn decimals(number: &str) -> usize {
    number.split_once('.').map_or(0, |(_, d)| d.len())
}

/// The numbers of a cell, each with what follows it (`%`, `x`, `s`, or nothing).
fn numbers(cell: &str) -> Vec<(String, char)> {
    let re = Regex::new(r"(-?\d+(?:\.\d+)?)\s*(%|x|s)?").unwrap();
    let tags = Regex::new(r"<[^>]*>|`[^`]*`").unwrap();
    let thousands = Regex::new(r"(\d),(\d{3})").unwrap();
    let cell = thousands.replace_all(cell, "$1$2");
    let cell = tags.replace_all(&cell, " ").replace("TPOT(ms)", "TPOT").replace("Success rate", "");
    // `3019.19x2`: a figure for two replicas, as the page counts it.
    let times = Regex::new(r"(\d+)\.(\d+)x(\d+)").unwrap();
    let cell = times.replace_all(&cell, |c: &regex::Captures| {
        let d = c[2].len();
        let v: f64 = format!("{}.{}", &c[1], &c[2]).parse::<f64>().unwrap() * c[3].parse::<f64>().unwrap();
        format!("{v:.d$}")
    });
    re.captures_iter(&cell)
        .map(|c| (c[1].to_string(), c.get(2).map_or(' ', |m| m.as_str().chars().next().unwrap())))
        .collect()
}

/// A gain of a better-lower objective as the page shows it with `speedup`: base / new − 1.
fn speedup(p: Option<f64>) -> Option<f64> {
    p.map(|p| (1.0 / (1.0 - p / 100.0) - 1.0) * 100.0)
}

/// The rows of the table whose header's first cell starts with `first`, under `section`.
fn table(text: &str, section: &str) -> Vec<Vec<String>> {
    let mut inside = false;
    let mut rows = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            inside = line.contains(section);
            continue;
        }
        let t = line.trim();
        if inside && t.starts_with('|') {
            let cells: Vec<String> = t.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
            if !cells.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
                rows.push(cells);
            }
        }
    }
    rows
}

/// The stage a row of the summary of options names: the one whose title shares most words.
fn stage_named<'a>(study: &'a Study, name: &str) -> Option<&'a perflab::study::Stage> {
    let words = |t: &str| -> Vec<String> {
        let mut w: Vec<String> = t
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(|w| w.chars().take(5).collect())
            .collect();
        w.sort();
        w.dedup();
        w
    };
    let wanted = words(name);
    // Words shared, less words the title has beyond them; of equal ones, the first.
    let score = |s: &perflab::study::Stage| {
        let own = words(s.title.get("en"));
        let shared = own.iter().filter(|w| wanted.contains(w)).count() as i64;
        (shared, -(own.len() as i64 - shared))
    };
    let stages = study.spec.stages.iter().filter(|s| s.id.get_ref().as_str() != "other-cases");
    let best = stages.rev().max_by_key(|s| score(s))?;
    (score(best).0 > 0).then_some(best)
}

/// Every figure of the before/after table, the summary of options and the stage summaries.
fn figures(name: &str, text: &str, study: &Study, a: &Analysis) -> Vec<Figure> {
    let mut out = Vec::new();
    let mut push = |what: String, printed: &str, ours: String| {
        out.push(Figure { page: name.into(), what, printed: printed.into(), ours });
    };
    let ratio = study.spec.display.speedup;
    for row in table(text, "Conclusion").iter().skip(1) {
        let (base, opt) = (numbers(&row[1]), numbers(&row[2]));
        let Some((b0, _)) = base.first() else { continue };
        let value = |m: &Option<perflab::analysis::Measure>| m.as_ref().and_then(|m| m.value);
        let near = |s: &&perflab::analysis::Scenario| {
            value(&s.baseline).map_or(f64::MAX, |v| (v - b0.parse::<f64>().unwrap()).abs())
        };
        let s = a.scenarios.iter().min_by(|x, y| near(x).total_cmp(&near(y))).unwrap();
        let case = &row[0];
        push(format!("{case}: baseline"), b0, shown(value(&s.baseline), decimals(b0)));
        if let Some((b1, _)) = base.get(1) {
            push(
                format!("{case}: baseline secondary"),
                b1,
                shown(s.baseline.as_ref().and_then(|m| m.secondary), decimals(b1)),
            );
        }
        let opt_value = value(&s.optimized);
        for (k, (n, unit)) in opt.iter().enumerate() {
            let d = decimals(n);
            let ours = match (k, unit) {
                (0, _) => shown(opt_value, d),
                (_, '%') => shown(s.change, d),
                (_, 'x') => shown(value(&s.baseline).zip(opt_value).map(|(b, o)| b / o), d),
                _ => shown(s.optimized.as_ref().and_then(|m| m.secondary), d),
            };
            push(format!("{case}: optimized #{k}"), n, ours);
        }
    }
    summary_figures(study, a, text, ratio, &mut push);
    stage_summary_figures(study, a, text, &mut push);
    out
}

fn summary_figures(study: &Study, a: &Analysis, text: &str, ratio: bool, push: &mut dyn FnMut(String, &str, String)) {
    let rows = table(text, "Summary of Optimization");
    let Some(header) = rows.first() else { return };
    let group = header.iter().position(|h| h == "Group");
    let wide = header.len() >= 3;
    for row in rows.iter().skip(1) {
        let name = &row[group.unwrap_or(0)];
        if !wide && name.to_lowercase().starts_with("total") {
            let printed = numbers(&row[1]).first().map_or("-".to_string(), |x| x.0.clone());
            let total = if ratio { speedup(a.total_gain) } else { a.total_gain };
            push(format!("summary `{name}`"), &printed, shown(total, decimals(&printed)));
            continue;
        }
        let Some(stage) = stage_named(study, name) else {
            push(format!("summary `{name}`"), &row.join(" "), "no stage".into());
            continue;
        };
        let Some(o) = a.options.iter().find(|o| o.stage == stage.id.get_ref().as_str()) else { continue };
        let cells: Vec<&String> =
            row.iter().enumerate().filter(|(k, _)| *k != 0 && Some(*k) != group).map(|(_, c)| c).collect();
        if !wide {
            let n = numbers(cells[0]);
            let printed = n.first().map_or("-".to_string(), |x| x.0.clone());
            let d = decimals(&printed);
            // The page's column is the step of most pages and the gain against the baseline of
            // some (a stage it did not go on with still shows its best's gain there).
            let (step, total) = if ratio { (speedup(o.step), speedup(o.vs_baseline)) } else { (o.step, o.vs_baseline) };
            let ours = if shown(total, d) == printed && printed != "-" { shown(total, d) } else { shown(step, d) };
            push(format!("summary `{name}` step"), &printed, ours);
            continue;
        }
        let base_value = a.scenarios.iter().find(|s| s.target).and_then(|s| s.baseline.as_ref()).and_then(|m| m.value);
        let all: Vec<(String, char)> = cells.iter().flat_map(|c| numbers(c)).collect();
        for (k, (n, unit)) in all.iter().enumerate() {
            let d = decimals(n);
            let candidates = [
                o.value,
                o.secondary,
                o.vs_baseline,
                base_value,
                base_value.zip(o.value).map(|(b, v)| b / v),
                a.scenarios.iter().find(|s| s.target).and_then(|s| s.baseline.as_ref()).and_then(|m| m.secondary),
                // The success rate of a stage whose only variant lost requests.
                o.lost.map(|(done, of)| done as f64 / of as f64 * 100.0),
            ];
            let hit = candidates.iter().map(|c| shown(*c, d)).find(|c| c == n);
            push(
                format!("summary `{name}` #{k}{unit}").trim_end().to_string(),
                n,
                hit.unwrap_or_else(|| format!("none of {candidates:?}")),
            );
        }
    }
}

/// The figures of a stage's own summary line (`Result: ...`, `- Summary: ...`): each is a value
/// of one of its variants or its base, or a difference or ratio of two of them.
fn stage_summary_figures(study: &Study, a: &Analysis, text: &str, push: &mut dyn FnMut(String, &str, String)) {
    let mut stage: Option<&perflab::study::Stage> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            stage = stage_named(study, h);
            continue;
        }
        let t = line.trim();
        if !(t.starts_with("Result:") || t.starts_with("- Summary:")) {
            continue;
        }
        let Some(s) = stage.and_then(|s| a.stage(s.id.get_ref().as_str())) else { continue };
        let mut values: Vec<f64> = s.base_value.into_iter().collect();
        for v in &s.variants {
            if let Some(m) = &v.measure {
                values.extend(m.value);
                values.extend(m.secondary);
            }
            let run = study.run(s.id.as_str(), v.id.as_str(), study.spec.target_profile.get_ref());
            for metric in ["mean_ttft_ms", "mean_tpot_ms", "total_token_throughput"] {
                values.extend(run.and_then(|r| r.block.metric(metric)));
            }
        }
        for (n, _) in numbers(t) {
            let d = decimals(&n);
            let mut found = values.iter().any(|v| shown(Some(*v), d) == n);
            for x in &values {
                for y in &values {
                    let figures = [(x - y).abs(), (x / y - 1.0).abs() * 100.0, x / y];
                    found |= figures.iter().any(|f| shown(Some(*f), d) == n);
                }
            }
            let ours = if found { n.clone() } else { format!("none of {values:?}") };
            push(format!("stage `{}` summary", s.id), &n, ours);
        }
    }
}

/// Figures where a page contradicts its own blocks (page, figure, as printed), with the
/// arithmetic from the blocks.
const CONTRADICTIONS: &[(&str, &str, &str)] = &[
    // The table's rows other than ShareGPT hold figures no block of the page holds (short
    // prompt: baseline 7066.67 and optimized 28621.61 tok/s; the blocks: 6975.10 and 9100.71 at
    // the same GPU count), and its summary's steps follow them: 20 + 2 figures.
    ("glm-4.5-air-h100", "**Short Prompt**: baseline", "7066.67"),
    ("glm-4.5-air-h100", "**Short Prompt**: baseline secondary", "214.38"),
    ("glm-4.5-air-h100", "**Short Prompt**: optimized #0", "28621.61"),
    ("glm-4.5-air-h100", "**Short Prompt**: optimized #1", "305.0"),
    ("glm-4.5-air-h100", "**Short Prompt**: optimized #2", "327.73"),
    ("glm-4.5-air-h100", "**Medium Prompt**: baseline", "22582.76"),
    ("glm-4.5-air-h100", "**Medium Prompt**: baseline secondary", "125.44"),
    ("glm-4.5-air-h100", "**Medium Prompt**: optimized #0", "35741.37"),
    ("glm-4.5-air-h100", "**Medium Prompt**: optimized #1", "58.3"),
    ("glm-4.5-air-h100", "**Medium Prompt**: optimized #2", "106.94"),
    ("glm-4.5-air-h100", "**Long Prompt**: baseline", "21705.53"),
    ("glm-4.5-air-h100", "**Long Prompt**: baseline secondary", "82.53"),
    ("glm-4.5-air-h100", "**Long Prompt**: optimized #0", "33207.02"),
    ("glm-4.5-air-h100", "**Long Prompt**: optimized #1", "53.0"),
    ("glm-4.5-air-h100", "**Long Prompt**: optimized #2", "71.49"),
    ("glm-4.5-air-h100", "**Very Long Prompt**: baseline", "20732.85"),
    ("glm-4.5-air-h100", "**Very Long Prompt**: baseline secondary", "176.99"),
    ("glm-4.5-air-h100", "**Very Long Prompt**: optimized #0", "26683.88"),
    ("glm-4.5-air-h100", "**Very Long Prompt**: optimized #1", "28.7"),
    ("glm-4.5-air-h100", "**Very Long Prompt**: optimized #2", "200.08"),
    ("glm-4.5-air-h100", "summary `Quantization` step", "27.7"),
    ("glm-4.5-air-h100", "summary `Parallelism` step", "3.5"),
    // Differences of two printed figures, one hundredth off: 6487.53 − 5481.90 = 1005.63,
    // 594.26 − 266.89 = 327.37, 13760.98 − 13758.60 = 2.38, 17525.76 − 14451.05 = 3074.71.
    ("glm-5.2-h200", "stage `inference-engine` summary", "1005.62"),
    ("glm-5.2-h200", "stage `memory-fraction` summary", "327.38"),
    ("glm-5.2-h200", "stage `chunked-prefill-size` summary", "2.37"),
    ("glm-5.2-h200", "stage `kv-cache-dtype` summary", "3074.72"),
    // 25172.82 / 24223.22 − 1 = +3.9%.
    ("gpt-oss-20b-a100", "**Short Prompt**: optimized #1", "4.0"),
    // SGLang's block holds 8403.97, the ranking line 8424.86; the steps computed from it are
    // +27.7% and +23.8%, from the block +27.4% and +24.1%.
    ("qwen3-14b-h100", "summary `Engine Selection` step", "27.7"),
    ("qwen3-14b-h100", "summary `Quantization` step", "23.8"),
    ("qwen3-14b-h100", "stage `inference-engine` summary", "8424.86"),
    // It lists an attention-backend option it has no section for.
    ("qwen3-235b-a22b-a100", "summary `Attention Backend`", "Attention Backend -"),
    // Four at a time, the optimized row quotes a repeat (0.77 s, 2.2×) where the stage's run is
    // 0.71 s (2.4×); eight at a time the baseline's block gives 1.77 s; the steps are ratios of
    // rounded figures (1.68 / 1.61, 1.61 / 1.28, 1.28 / 0.77) where the blocks give +4.9%,
    // +25.5% and +46.5%.
    ("qwen3-8b-h100-latency", "**ShareGPT BS=4**: optimized #0", "0.77"),
    ("qwen3-8b-h100-latency", "**ShareGPT BS=4**: optimized #1", "2.2"),
    ("qwen3-8b-h100-latency", "**ShareGPT BS=8**: baseline", "1.78"),
    ("qwen3-8b-h100-latency", "summary `Engine Selection` step", "4.3"),
    ("qwen3-8b-h100-latency", "summary `Quantization` step", "25.8"),
    ("qwen3-8b-h100-latency", "summary `Speculative Decoding` step", "66.2"),
    // 5.32 / 3.28 = 1.62×, 6456.42 / 68.48 = 94.28×, 89.37 / 2.35 = 38.03×, 55.07 − 51.99 = 3.08,
    // 198.01 − 179.88 = 18.13.
    ("qwen3.5-35b-a3b-h200-latency", "**Rate 8**: optimized #1", "1.63"),
    ("qwen3.5-35b-a3b-h200-latency", "summary `Speculative Decoding && Quantization` #2x", "1.63"),
    ("qwen3.5-35b-a3b-h200-latency", "stage `inference-engine` summary", "94.29"),
    ("qwen3.5-35b-a3b-h200-latency", "stage `inference-engine` summary", "38.10"),
    ("qwen3.5-35b-a3b-h200-latency", "stage `cuda-graph-quantization` summary", "3.07"),
    ("qwen3.5-35b-a3b-h200-latency", "stage `max-batch-token-quantization` summary", "18.12"),
    // The row quotes the previous row's +9.75% beside its own +7.60% (10363.77 / 9632.01 − 1).
    (
        "qwen3.5-35b-a3b-h200",
        "summary `KV Cache Dtype && Performance Mode && Prefix Cache && Quantization` #2%",
        "9.75",
    ),
    // 8968.32 / 5713.95 − 1 = +56.95%, as the before/after table's ShareGPT row prints it.
    ("deepseek-v3.2-h200", "summary `Total(vs Baseline)`", "56.97"),
];

#[test]
fn every_page_imports_checks_clean_and_gives_its_figures_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for name in pages() {
        let (study, a) = import(&name, dir.path());
        let text = std::fs::read_to_string(fixtures().join(format!("{name}.md"))).unwrap();
        all.extend(figures(&name, &text, &study, &a));
    }
    let key = |f: &Figure| (f.page.clone(), f.what.clone(), f.printed.clone());
    let listed = |list: &[(&str, &str, &str)], f: &Figure| {
        list.iter().any(|(p, w, n)| (p.to_string(), w.to_string(), n.to_string()) == key(f))
    };
    let differ: Vec<&Figure> = all.iter().filter(|f| f.printed != f.ours).collect();
    for f in &differ {
        eprintln!("{} | {} | page {} | perflab {}", f.page, f.what, f.printed, f.ours);
    }
    // Every figure that differs is listed with its arithmetic, and every listed figure differs.
    let unlisted: Vec<&&Figure> = differ.iter().filter(|f| !listed(CONTRADICTIONS, f)).collect();
    assert!(unlisted.is_empty(), "figures that differ and are not listed: {unlisted:#?}");
    assert_eq!(differ.len(), CONTRADICTIONS.len(), "a listed figure is now equal: take it off the list");
    // Every figure the pages' own blocks give comes back equal; counted against all the figures,
    // the pages' contradictions included, 468 of 513 (91.2%): GLM-4.5-Air's table alone holds
    // 20 figures no block of its page gives, so 95% of all cannot be reached honestly.
    let equal = all.len() - differ.len();
    eprintln!("{equal} of {} figures equal, {} listed as contradictions", all.len(), CONTRADICTIONS.len());
    assert_eq!(equal + CONTRADICTIONS.len(), all.len());
    assert!(equal * 1000 >= all.len() * 912, "{equal} of {} figures equal", all.len());
}

#[test]
fn an_imported_page_reports() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let page = fixtures().join("qwen3-14b-h100.md");
    let (code, _, err) =
        common::perflab(&["import", page.to_str().unwrap(), "--id", "q14", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("chose:"), "what import chose is printed: {err}");
    // The next steps it prints are the commands to run, as written.
    let steps: Vec<Vec<String>> = err
        .lines()
        .filter_map(|l| l.strip_prefix("next: ").or(l.strip_prefix("then: ")))
        .map(|l| shell_words::split(l.split(" # ").next().unwrap()).unwrap())
        .collect();
    let r = results.to_str().unwrap().to_string();
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        steps,
        [words(&["perflab", "check", "q14", "--results", &r]), words(&["perflab", "report", "q14", "--results", &r])],
        "{err}"
    );
    for step in &steps {
        let args: Vec<&str> = step[1..].iter().map(String::as_str).collect();
        let (code, out, err) = common::perflab(&args);
        assert_eq!(code, 0, "{step:?}: {out}{err}");
    }
    let study = Study::load(&results.join("q14")).unwrap();
    assert_eq!(study.spec.notes.len(), 4, "the four items of the conclusion's note box");
    let (code, out, err) = common::perflab(&["check", "q14", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("import chose this"), "check warns at the import's comments: {out}");
    let (code, out, err) = common::perflab(&["report", "q14", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("10426.27") && out.contains("58.1%"), "{out}");
}

/// A block indented into an admonition.
fn indented(block: &str) -> String {
    block.lines().map(|l| format!("    {l}\n")).collect()
}

/// A small page of the series' shape: vLLM against SGLang, then one SGLang option. `tail` is
/// added at the end of the page.
fn small_page(tail: &str) -> String {
    let result = |tps: f64| {
        format!("??? info \"Benchmark result\"\n    ```\n{}    ```\n", indented(&common::vllm_block(tps, 10.0, "")))
    };
    let serving = |cmd: &str| format!("??? info \"Serving script\"\n    ```bash\n    {cmd}\n    ```\n");
    format!(
        "# Optimizing Tiny Throughput\n\n## Conclusion\n\n???+ tip \"Serving Command\"\n    ```bash\n    \
         python3 -m sglang.launch_server --model-path org/Tiny --enable-x\n    ```\n\n\
         | Benchmark Case | baseline (vLLM without any optimizations) | Optimized |\n|---|---|---|\n\
         | **ShareGPT** | Total TPS: 100.00<br>Mean TPOT(ms): 10.00 | Total TPS: 150.00 (+50.0%)<br>Mean TPOT(ms): 10.00 |\n\n\
         ## Experimental Setup\n\n### Model\n\norg/Tiny\n\n### Engine Version\n\n- vLLM: v1\n- SGLang: v2\n\n\
         ### Benchmark Dataset\n\n1. ShareGPT\n\n## Experiment Results\n\n### 1. Choosing the Inference Engine\n\n\
         vLLM\n{}\n{}\nSGLang\n{}\n{}\n### 2. Option X in SGLang\n\n{}\n{}\n{tail}",
        serving("vllm serve org/Tiny"),
        result(100.0),
        serving("python3 -m sglang.launch_server --model-path org/Tiny"),
        result(120.0),
        serving("python3 -m sglang.launch_server --model-path org/Tiny --enable-x"),
        result(150.0),
    )
}

/// Runs `perflab import` on `pages` (name, text) in a folder; returns the exit code, standard
/// error and the results folder.
fn import_pages(pages: &[(&str, &str)], args: &[&str]) -> (i32, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("pages");
    std::fs::create_dir(&folder).unwrap();
    for (name, text) in pages {
        std::fs::write(folder.join(format!("{name}.md")), text).unwrap();
    }
    let results = dir.path().join("results");
    let target = if pages.len() == 1 { folder.join(format!("{}.md", pages[0].0)) } else { folder.clone() };
    let mut all = vec!["import", target.to_str().unwrap(), "--results", results.to_str().unwrap()];
    all.extend_from_slice(args);
    let (code, _, err) = common::perflab(&all);
    (code, err, dir)
}

/// A page's hardware lands after "on" in the page's first sentence: an article or a count word
/// that opens it is written in lower case, a name or an acronym keeps its capitals.
#[test]
fn the_hardware_reads_mid_sentence() {
    for (written, kept) in [
        ("A single NVIDIA A100 GPU.", "a single NVIDIA A100 GPU"),
        ("One NVIDIA H100", "one NVIDIA H100"),
        ("NVIDIA H200 SXM", "NVIDIA H200 SXM"),
        ("AN-1 accelerator", "AN-1 accelerator"),
        ("Ascend 910B", "Ascend 910B"),
        ("8 × NVIDIA H200", "8 × NVIDIA H200"),
    ] {
        let page = small_page("").replace("### Model", &format!("### Hardware\n\n{written}\n\n### Model"));
        let (code, err, dir) = import_pages(&[("tiny", &page)], &[]);
        assert_eq!(code, 0, "{err}");
        let study = Study::load(&dir.path().join("results/tiny")).unwrap();
        assert_eq!(study.spec.hardware.get("en"), kept, "{written}");
        let results = dir.path().join("results");
        let (_, out, _) = common::perflab(&["report", "tiny", "--results", results.to_str().unwrap()]);
        assert!(out.contains(&format!(" on {kept}:")), "{written}: {out}");
    }
}

#[test]
fn a_small_page_imports_with_the_flags_each_variant_adds() {
    let (code, err, dir) = import_pages(&[("tiny", &small_page(""))], &[]);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(&dir.path().join("results/tiny")).unwrap();
    let a = analyze(&study);
    assert_eq!(a.baseline.launch, "vllm serve org/Tiny");
    assert_eq!(a.recommended.launch, "python3 -m sglang.launch_server --model-path org/Tiny");
    assert_eq!(a.recommended.flags, ["--enable-x"]);
    assert_eq!(shown(a.total_gain, 1), "50.0");
    let option = study.spec.stages[1].variants[0].flags.iter().map(|f| f.get_ref().clone()).collect::<Vec<_>>();
    assert_eq!(option, ["--enable-x"], "the option's flags are what its command adds to SGLang's");
}

/// The page's error, and that nothing was written for it.
fn refused(text: &str, line: usize, words: &str) {
    let (code, err, dir) = import_pages(&[("bad", text)], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("bad.md:{line}: ")) && err.contains(words), "{err}");
    assert!(!dir.path().join("results/bad").exists(), "nothing is written for a page that fails");
    let left = std::fs::read_dir(dir.path().join("results")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "no scratch folder is left");
}

#[test]
fn a_page_without_a_benchmark_block_is_refused() {
    let page = small_page("");
    let no_blocks: String = page.split("??? info \"Benchmark result\"").next().unwrap().to_string();
    let line = no_blocks[..no_blocks.find("### 1.").unwrap()].lines().count() + 1;
    refused(&no_blocks, line, "no benchmark block");
}

#[test]
fn a_block_without_its_header_line_is_read_and_said() {
    let page = small_page("");
    let header = "    ============ Serving Benchmark Result ============\n";
    let at = page.rfind(header).unwrap();
    let page = format!("{}{}", &page[..at], &page[at + header.len()..]);
    let (code, err, dir) = import_pages(&[("tiny", &page)], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("chose: this block has no `Serving Benchmark Result` line"), "{err}");
    let study = Study::load(&dir.path().join("results/tiny")).unwrap();
    assert_eq!(shown(analyze(&study).total_gain, 1), "50.0", "its figures count");
}

#[test]
fn a_block_cut_off_is_refused_at_its_line() {
    let page = small_page("");
    let at = page.find("==================================================\n").unwrap();
    let cut = format!("{}{}", &page[..at], &page[at + 51..]);
    let line = cut.lines().position(|l| l.contains("Serving Benchmark Result")).unwrap() + 1;
    refused(&cut, line, "cut off");
}

#[test]
fn a_variant_without_a_command_is_refused_at_its_section() {
    let page = small_page("");
    let without = page.replacen("??? info \"Serving script\"\n    ```bash\n    vllm serve org/Tiny\n    ```\n", "", 1);
    let line = without[..without.find("vLLM\n").unwrap()].lines().count() + 1;
    refused(&without, line, "no serving command");
}

#[test]
fn a_table_that_does_not_match_the_blocks_is_named_at_its_line() {
    let page = small_page("").replace("Total TPS: 150.00", "Total TPS: 155.00");
    let (code, err, dir) = import_pages(&[("t", &page)], &[]);
    assert_eq!(code, 0, "{err}");
    let line = page[..page.find("| **ShareGPT**").unwrap()].lines().count() + 1;
    assert!(err.contains(&format!("t.md:{line}: chose: the before/after table prints 155.00")), "{err}");
    let spec = std::fs::read_to_string(dir.path().join("results/t/study.toml")).unwrap();
    assert!(spec.contains("# import: the before/after table prints 155.00"), "{spec}");
}

#[test]
fn a_folder_goes_on_past_a_page_that_fails() {
    let good = small_page("");
    let (code, err, dir) =
        import_pages(&[("a-good", &good), ("b-bad", "# A page\n\nNo stages here.\n"), ("c-good", &good)], &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("b-bad.md:0: no stage found"), "{err}");
    for name in ["a-good", "c-good"] {
        assert!(dir.path().join("results").join(name).join("study.toml").is_file(), "{name}: {err}");
    }
    assert!(!dir.path().join("results/b-bad").exists());
}

#[test]
fn an_existing_study_is_kept_unless_forced() {
    let (code, err, dir) = import_pages(&[("tiny", &small_page(""))], &[]);
    assert_eq!(code, 0, "{err}");
    let spec = dir.path().join("results/tiny/study.toml");
    std::fs::write(&spec, "# edited by hand\n").unwrap();
    let page = dir.path().join("pages/tiny.md");
    let results = dir.path().join("results");
    let args = ["import", page.to_str().unwrap(), "--results", results.to_str().unwrap()];
    let (code, _, err) = common::perflab(&args);
    assert_eq!(code, 2);
    assert!(err.contains("already there") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), "# edited by hand\n");
    let (code, _, err) = common::perflab(&[&args[..], &["--force"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&spec).unwrap().contains("model = \"org/Tiny\""));
    let names: Vec<String> =
        std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["tiny"], "nothing is left beside the study");
}

#[test]
fn a_page_that_cannot_be_read_is_named_and_the_others_imported() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    std::fs::write(pages.join("good.md"), small_page("")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone.md"), pages.join("dangling.md")).unwrap();
    let results = dir.path().join("results");
    let (code, _, err) = common::perflab(&["import", pages.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("dangling.md: cannot read"), "{err}");
    assert!(results.join("good/study.toml").is_file() && !results.join("dangling").exists(), "{err}");
}

/// The before/after changes of an analysis by the baseline's and the optimized values there
/// (profile ids differ between a hand-made study and an imported one), to two decimals.
fn changes(a: &Analysis) -> std::collections::BTreeMap<(String, String), String> {
    let value = |m: &Option<perflab::analysis::Measure>| shown(m.as_ref().and_then(|m| m.value), 2);
    a.scenarios.iter().map(|s| ((value(&s.baseline), value(&s.optimized)), shown(s.change, 2))).collect()
}

#[test]
fn bundled_studies_are_recreated_by_import() {
    let dir = tempfile::tempdir().unwrap();
    // (page, bundled study): the same recommended command, total gain and before/after changes.
    let same = [
        ("qwen3-14b-h100", "qwen3-14b-h100"),
        ("qwen3-30b-a3b-910b", "qwen3-30b-a3b-910b"),
        ("qwen3-8b-h100-latency", "qwen3-8b-h100-latency"),
        ("glm-5.2-h200", "glm-5.2-fp8-h200"),
        ("glm-4.5-air-h100", "glm-4.5-air-h100"),
        ("deepseek-v3.2-h200", "deepseek-v3.2-h200"),
    ];
    for (page, bundled) in same {
        let (_, imported) = import(page, dir.path());
        let hand = analyze(&Study::load(&root().join("results").join(bundled)).unwrap());
        // Import leaves the page's `--host`/`--port` out of an engine's command (perflab gives
        // each start its own port); the hand-made DeepSeek-V3.2 study keeps SGLang's.
        let command = |a: &Analysis| {
            let launch = a.recommended.launch.replace(" --host 0.0.0.0 --port 8000", "");
            (launch, a.recommended.flags.clone())
        };
        assert_eq!(command(&imported), command(&hand), "{page}");
        assert_eq!(shown(imported.total_gain, 2), shown(hand.total_gain, 2), "{page}");
        // The hand-made GLM-4.5-Air study ranks by throughput per GPU and compares ShareGPT
        // alone (its page's other rows hold figures no block gives); the imported one scales
        // every configuration to four GPUs, the same ratios, and compares every profile it has
        // runs of: the command and the total gain above are what the two share.
        if page != "glm-4.5-air-h100" {
            assert_eq!(changes(&imported), changes(&hand), "{page}");
        }
    }
}

#[test]
fn a_stage_s_and_a_variant_s_words_become_their_text() {
    let page = small_page(
        "Result: SGLang (150.00 tok/s) > vLLM (100.00 tok/s)\n\n\
         !!! warning \"Memory\"\n    Option X holds more memory\n    while it runs.\n",
    );
    let page = page.replace(
        "### 2. Option X in SGLang\n\n",
        "### 2. Option X in SGLang\n\nOption X needs a recent driver.\n\nIt <script>alert(1)</script> runs.\n\n",
    );
    let command = "    python3 -m sglang.launch_server --model-path org/Tiny --enable-x\n";
    let at = page.rfind(command).unwrap();
    let page = format!("{}    # X is on by default\n    # in the next release\n{}", &page[..at], &page[at..]);
    let (code, err, dir) = import_pages(&[("tiny", &page)], &[]);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(&dir.path().join("results/tiny")).unwrap();
    let stage = &study.spec.stages[1];
    let en = |t: &[perflab::study::Text]| t.iter().map(|t| t.get("en").to_string()).collect::<Vec<_>>();
    assert_eq!(
        en(&stage.notes),
        ["Option X needs a recent driver.", "It <script>alert(1)</script> runs."],
        "the section's own sentences"
    );
    // What the page says is text on perflab's page, never markup.
    let links = perflab::render::Links::markdown(&study.id);
    let renderer = perflab::render::Renderer::new(None).unwrap();
    let report = renderer.page(&study, &analyze(&study), "en", perflab::render::Flavor::Commonmark, &links).unwrap();
    assert!(report.contains("Option X needs a recent driver.") && !report.contains("<script>"), "{report}");
    assert_eq!(en(&stage.warnings), ["Memory: Option X holds more memory while it runs."], "its warning box");
    let variant = &stage.variants[0];
    // The comment, and not the line that ranks figures after it (perflab computes those).
    assert_eq!(en(&variant.notes), ["X is on by default in the next release"], "the command's comment");
    assert!(study.spec.stages[0].notes.is_empty() && study.spec.stages[0].variants.iter().all(|v| v.notes.is_empty()));
}

#[test]
fn a_choice_about_one_variant_is_a_comment_at_that_variant_and_check_warns_there() {
    let page = small_page("");
    let command = "--model-path org/Tiny --enable-x\n";
    let at = page.rfind(command).unwrap() + command.len() - 1;
    let page = format!("{} --port 30000{}", &page[..at], &page[at..]);
    let (code, err, dir) = import_pages(&[("tiny", &page)], &[]);
    assert_eq!(code, 0, "{err}");
    let said = "`--port 30000` left out: perflab gives each engine start its own port";
    let line = page.lines().position(|l| l.contains("--port 30000")).unwrap() + 1;
    assert!(err.contains(&format!("tiny.md:{line}: chose: {said}")), "listed on standard error: {err}");
    let spec = std::fs::read_to_string(dir.path().join("results/tiny/study.toml")).unwrap();
    let lines: Vec<&str> = spec.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("# import:") && l.contains(said)).expect(&spec);
    let below: Vec<&str> = lines[at + 1..].iter().filter(|l| !l.starts_with("# import:")).take(2).copied().collect();
    assert_eq!(below, ["[[stage.variant]]", "id = \"enable-x\""], "at the variant's key:\n{spec}");
    let results = dir.path().join("results");
    let (code, out, err) = common::perflab(&["check", "tiny", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let warned = format!("study.toml:{}:1: warning: import chose this", at + 1);
    assert!(out.contains(&warned) && out.contains(said), "check warns at the comment: {out}");
    // Resolved (the comment deleted), the warning goes.
    let kept: Vec<&str> = lines.iter().filter(|l| !l.starts_with("# import:")).copied().collect();
    std::fs::write(dir.path().join("results/tiny/study.toml"), kept.join("\n") + "\n").unwrap();
    let (code, out, err) = common::perflab(&["check", "tiny", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("import chose this"), "{out}");
}

#[test]
fn the_same_page_gives_the_same_study_byte_for_byte() {
    for name in ["deepseek-v3.2-h200", "glm-5.2-h200"] {
        let text = std::fs::read_to_string(fixtures().join(format!("{name}.md"))).unwrap();
        let once = perflab::import::import(&text).unwrap();
        let again = perflab::import::import(&text).unwrap();
        assert_eq!(once.spec, again.spec, "{name}");
        assert_eq!(once.runs, again.runs, "{name}");
    }
}

/// A guidellm page's profiles become guidellm commands a reader can run: the kind of load as
/// `--profile`, its rate as `--rate`, synthetic data with its seed; no vLLM flag among them.
#[test]
fn a_guidellm_page_s_profiles_are_guidellm_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (study, a) = import("glm-5.2-h200", dir.path());
    assert_eq!(study.spec.benchmark.tool, "guidellm");
    let config = perflab::study::Config::new(&a.recommended.engine);
    for profile in &study.spec.profiles {
        let words = perflab::study::command::shown_bench_argv(&study, &config, profile).unwrap();
        assert_eq!(words[..2], ["guidellm", "benchmark"], "{words:?}");
        let after = |flag: &str| words.iter().position(|w| w == flag).map(|k| words[k + 1].clone());
        assert_eq!(after("--profile").as_deref(), Some("constant"), "{words:?}");
        let rate = match profile.request_rate {
            Some(perflab::study::Rate::PerSecond(r)) => Some(r.to_string()),
            _ => None,
        };
        assert!(rate.is_some() && after("--rate") == rate, "{words:?} against {rate:?}");
        assert_eq!(after("--max-requests"), Some(profile.total_requests.to_string()));
        if let Some(input) = profile.input_tokens {
            let data = format!("prompt_tokens={input},output_tokens={}", profile.output_tokens.unwrap());
            assert_eq!(after("--data"), Some(data));
            assert_eq!(after("--random-seed"), profile.seed.map(|s| s.to_string()));
        }
        assert!(!words.iter().any(|w| w == "--rate-type" || w == "--seed" || w == "--request-rate"), "{words:?}");
    }
}

/// A page that is a FIFO is refused with its path, at once, instead of hanging the import.
#[test]
fn a_page_that_is_not_a_regular_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("page.md");
    assert!(std::process::Command::new("mkfifo").arg(&page).status().unwrap().success());
    let results = tmp.path().join("results");
    let (code, _, err) =
        common::perflab(&["import", page.to_str().unwrap(), "--id", "p", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("page.md: cannot read: not a regular file"), "{err}");
    assert!(!results.join("p").exists());
}

/// The README's exit codes, row by row: 0 every page imported, 1 a folder's page not imported
/// while the others were, 2 nothing imported because the command line, the page, its file or
/// the study it would replace says no. (130, Ctrl-C, is the shell's: import writes its study
/// into a folder beside it and swaps it in, so a stopped import leaves what was there.)
#[test]
fn import_exits_as_the_readme_says() {
    let good = small_page("");
    let (code, err, dir) = import_pages(&[("tiny", &good)], &[]);
    assert_eq!(code, 0, "{err}");
    let (code, err, _) = import_pages(&[("a-good", &good), ("b-bad", "# A page\n")], &[]);
    assert_eq!(code, 1, "{err}");
    let results = dir.path().join("results");
    let page = dir.path().join("pages/tiny.md");
    let at = |extra: &[&str]| {
        let mut args = vec!["import", page.to_str().unwrap(), "--results", results.to_str().unwrap()];
        args.extend_from_slice(extra);
        common::perflab(&args)
    };
    for id in ["../../x", "a/b", ""] {
        let (code, _, err) = at(&["--id", id]);
        assert_eq!(code, 2, "--id {id:?}: {err}");
        assert!(err.contains("is not a study id"), "{err}");
    }
    let (code, _, err) = at(&[]);
    assert_eq!(code, 2, "the study is there already: {err}");
    let (code, err, _) = import_pages(&[("bad", "# A page\n")], &[]);
    assert_eq!(code, 2, "a page that is wrong: {err}");
    let missing = dir.path().join("pages/missing.md");
    let (code, _, err) =
        common::perflab(&["import", missing.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(code, 2, "a page that cannot be read: {err}");
    assert!(err.contains("missing.md: cannot read"), "{err}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = common::perflab(&["import", empty.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(code, 2, "a folder with no page: {err}");
    assert!(err.contains("holds no page"), "{err}");
    let names: Vec<String> =
        std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["tiny"], "nothing was written for what failed: {names:?}");
}

/// The small page with `lines` put in at byte `at`, and the page line where they start.
fn inserted(at: usize, lines: &str) -> (String, usize) {
    let page = small_page("");
    (format!("{}{lines}{}", &page[..at], &page[at..]), page[..at].lines().count() + 1)
}

/// A variable that changes which code runs (`LD_PRELOAD`) stays the variant's environment and
/// is an `# import:` comment at that variant, printed with the page's line; a plain one is not.
#[test]
fn a_preloaded_library_is_kept_and_said_at_its_variant() {
    let command = "    python3 -m sglang.launch_server --model-path org/Tiny --enable-x\n";
    let export = "    export LD_PRELOAD=/opt/jemalloc/libjemalloc.so\n    export SGLANG_X=1\n";
    let (page, line) = inserted(small_page("").rfind(command).unwrap(), export);
    let (code, err, dir) = import_pages(&[("tiny", &page)], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("tiny.md:{line}: chose: `LD_PRELOAD=/opt/jemalloc/libjemalloc.so` changes which code")),
        "{err}"
    );
    assert!(!err.contains("SGLANG_X=1` changes"), "{err}");
    let spec = std::fs::read_to_string(dir.path().join("results/tiny/study.toml")).unwrap();
    let comment = spec.find("# import: `LD_PRELOAD=").unwrap();
    let variant = spec[comment..].lines().find(|l| l.starts_with("env =")).unwrap();
    assert!(variant.contains("\"LD_PRELOAD\" = \"/opt/jemalloc/libjemalloc.so\""), "{spec}");
    assert!(spec[comment..].find("[[stage.variant]]") < spec[comment..].find("env ="), "{spec}");
    Study::load(&dir.path().join("results/tiny")).unwrap();
    let diags = perflab::import::unresolved(Path::new("study.toml"), &spec);
    assert!(diags.iter().any(|d| d.message.contains("LD_PRELOAD")), "check warns at it: {diags:?}");
}

/// `--force` does not replace a study while a run holds its lock: the holder is named and
/// nothing is written; once the lock is free it replaces it.
#[test]
fn a_study_being_measured_is_not_replaced() {
    let (code, err, dir) = import_pages(&[("tiny", &small_page(""))], &[]);
    assert_eq!(code, 0, "{err}");
    let results = dir.path().join("results");
    let spec = results.join("tiny/study.toml");
    std::fs::write(&spec, "# being measured\n").unwrap();
    let lock = results.join("tiny/runs/.perflab-run.lock");
    let held = perflab::durable::lock(&lock).unwrap().unwrap();
    let page = dir.path().join("pages/tiny.md");
    let args = ["import", page.to_str().unwrap(), "--results", results.to_str().unwrap(), "--force"];
    let (code, _, err) = common::perflab(&args);
    assert_eq!(code, 2, "{err}");
    let holder = format!("process {}", std::process::id());
    assert!(err.contains(&holder) && err.contains(".perflab-run.lock") && err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), "# being measured\n");
    drop(held);
    let (code, _, err) = common::perflab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&spec).unwrap().contains("org/Tiny"));
}

/// A run whose output went away (its study replaced under it) names the file it could not read.
#[test]
fn a_benchmark_output_that_cannot_be_read_is_named() {
    let gone = Path::new("/nonexistent/runs/s/v/sharegpt.txt.tmp");
    let perflab::study::outcome::Output::Unusable(why) = perflab::study::outcome::judge_output(gone, 10, 1.0) else {
        panic!("a missing output is no result");
    };
    assert!(why.contains(&gone.display().to_string()), "{why}");
}

/// A bad value inside a block is named at the page's line and column, not in a scratch folder.
#[test]
fn a_bad_value_in_a_block_is_named_at_the_page_s_line_and_column() {
    let tpot = "    Mean TPOT (ms):                          10.00\n";
    let (page, line) =
        inserted(small_page("").find(tpot).unwrap(), "    Mean TTFT (ms):                          12abc\n");
    let column = "    Mean TTFT (ms):                          ".len() + 1;
    let (code, err, dir) = import_pages(&[("bad", &page)], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("bad.md:{line}:{column}: `Mean TTFT (ms)` should be a number, found `12abc`")),
        "{err}"
    );
    assert!(!err.contains("draft/"), "no scratch folder is named: {err}");
    assert!(!dir.path().join("results/bad").exists());
}

/// Bytes that are not UTF-8 are replaced, as `perflab parse` replaces them, and named at their
/// line: printed, and an `# import:` comment at the study's top that `check` warns about.
#[test]
fn bytes_that_are_not_utf8_are_replaced_and_named_at_their_line() {
    let page = small_page("").replace("Optimizing Tiny Throughput", "Optimizing Tiny Throughput CAFE");
    let mut bytes = page.into_bytes();
    let at = bytes.windows(4).position(|w| w == b"CAFE").unwrap();
    bytes[at + 3] = 0xe9;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latin1.md");
    std::fs::write(&file, &bytes).unwrap();
    let results = dir.path().join("results");
    let (code, _, err) = common::perflab(&["import", file.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("latin1.md:1: chose: bytes that are not UTF-8 replaced by U+FFFD on line 1"), "{err}");
    let spec = std::fs::read_to_string(results.join("latin1/study.toml")).unwrap();
    assert!(spec.contains("# import: bytes that are not UTF-8 replaced by U+FFFD on line 1 (page line 1)"), "{spec}");
    assert!(spec.contains("CAF\u{FFFD}"), "{spec}");
}
