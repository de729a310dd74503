//! `perflab import` of a page that compares per GPU (`tests/fixtures/import-per-gpu/`, written
//! for this test): layouts on one, two and four GPUs, gains marked `/GPU`. The study ranks by
//! total token throughput per GPU, each variant says its GPUs, and every figure of the page's
//! tables comes back, with the page's winners.

use crate::common::{self, root};
use perflab::analysis::{Analysis, analyze};
use perflab::study::Study;
use regex::Regex;

const PAGE: &str = "tests/fixtures/import-per-gpu/tiny-moe-tp-per-gpu.md";

fn imported() -> (tempfile::TempDir, Study, Analysis, String) {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let page = root().join(PAGE);
    let (code, _, err) =
        common::perflab(&["import", page.to_str().unwrap(), "--id", "moe", "--results", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(&results.join("moe")).unwrap();
    assert!(perflab::analysis::check(&study).is_empty(), "{:?}", perflab::analysis::check(&study));
    let a = analyze(&study);
    (dir, study, a, err)
}

/// The figures of a cell or a line: each number with the `%` after it, if any.
fn figures(text: &str) -> Vec<(String, bool)> {
    let tags = Regex::new(r"<[^>]*>").unwrap();
    let text = tags.replace_all(text, " ").replace("TPOT(ms)", "TPOT");
    let number = Regex::new(r"([+-]?\d+\.\d+)(%)?").unwrap();
    number.captures_iter(&text).map(|c| (c[1].to_string(), c.get(2).is_some())).collect()
}

fn two(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:.2}"))
}

fn signed(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:+.2}"))
}

#[test]
fn a_per_gpu_page_ranks_per_gpu_and_gives_its_figures_and_winners_back() {
    let (_dir, study, a, err) = imported();
    let text = std::fs::read_to_string(root().join(PAGE)).unwrap();
    let spec = std::fs::read_to_string(study.dir.join("study.toml")).unwrap();
    // It says what it chose, at the page's first gain marked `/GPU`.
    let line = text.lines().position(|l| l.contains("%/GPU")).unwrap() + 1;
    assert!(
        err.contains(&format!("tiny-moe-tp-per-gpu.md:{line}: chose: the page compares per GPU (`+32.50%/GPU`)")),
        "{err}"
    );
    assert!(spec.contains("objective = \"tps_per_gpu\"") && spec.contains("expr = \"total_token_throughput / gpus\""));
    assert!(!spec.contains("adopt ="), "the numbers give the page's decisions, none is kept by hand: {spec}");
    // Each configuration's GPUs, from its parallel sizes.
    let gpus: Vec<(String, u32)> = study
        .spec
        .stages
        .iter()
        .flat_map(|s| &s.variants)
        .map(|v| (v.id.to_string(), v.gpus.as_ref().map_or(0, |g| *g.get_ref())))
        .collect();
    let want = [("vllm", 2), ("sglang", 2), ("tp1", 1), ("tp4", 4), ("tp2-dp2", 4)];
    for (id, n) in want {
        assert!(gpus.contains(&(id.to_string(), n)), "{id}: {gpus:?}");
    }
    assert_eq!(gpus.len(), 6, "{gpus:?}");
    // The page's winners: SGLang, then TP1 (not TP2+DP2 or TP4, which serve more in total),
    // then the chunked prefill size; the recommended command is the page's.
    let after: Vec<String> = a.stages.iter().map(|s| s.after.to_string()).collect();
    assert_eq!(after[..2], ["inference-engine/sglang".to_string(), "parallelism/tp1".to_string()], "{after:?}");
    assert!(after[2].starts_with("chunked-prefill-size/"), "{after:?}");
    let mut flags = a.recommended.flags.clone();
    flags.sort();
    assert_eq!(flags, ["--chunked-prefill-size 8192", "--tp-size 1"]);
    // The conclusion's table: total TPS and mean TPOT of the baseline and the optimized
    // configuration, and the gain per GPU.
    let target = a.scenarios.iter().find(|s| s.target).unwrap();
    let (base, opt) = (target.baseline.as_ref().unwrap(), target.optimized.as_ref().unwrap());
    let tpot =
        |stage: &str, variant: &str| study.run(stage, variant, "sharegpt").and_then(|r| r.block.metric("mean_tpot_ms"));
    let row = text.lines().find(|l| l.starts_with("| **ShareGPT**")).unwrap();
    let cells: Vec<&str> = row.split('|').collect();
    let ours = [two(base.secondary), two(tpot("inference-engine", "vllm"))];
    assert_eq!(figures(cells[2]).into_iter().map(|f| f.0).collect::<Vec<_>>(), ours);
    let last = a.stages.last().unwrap().after.to_string();
    let (stage, variant) = last.split_once('/').unwrap();
    let ours = [two(opt.secondary), signed(target.change), two(tpot(stage, variant))];
    assert_eq!(figures(cells[3]).into_iter().map(|f| f.0).collect::<Vec<_>>(), ours);
    // The summary of options: each stage's step per GPU, and the total.
    let summary = &text[text.find("### Summary of Optimization Options").unwrap()..];
    let rows: Vec<&str> = summary.lines().filter(|l| l.contains("%/GPU")).collect();
    let steps: Vec<String> = a.options.iter().map(|o| signed(o.step)).chain([signed(a.total_gain)]).collect();
    let printed: Vec<String> = rows.iter().flat_map(|r| figures(r)).map(|f| f.0).collect();
    assert_eq!(printed, steps);
    // Each stage's result line: a variant's or the base's throughput per GPU, or a gain.
    let mut per_gpu: Vec<String> = a.stages.iter().filter_map(|s| s.base_value).map(|v| two(Some(v))).collect();
    per_gpu.extend(
        a.stages.iter().flat_map(|s| &s.variants).filter_map(|v| v.measure.as_ref()?.value).map(|v| two(Some(v))),
    );
    let gains: Vec<String> = a.options.iter().map(|o| two(o.step)).collect();
    for l in text.lines().filter(|l| l.starts_with("Result:")) {
        for (n, percent) in figures(l) {
            let known = if percent { gains.contains(&n) } else { per_gpu.contains(&n) };
            assert!(known, "{l}: {n} is not one of {per_gpu:?} / {gains:?}");
        }
    }
    // And the page perflab writes prints them.
    let links = perflab::render::Links::markdown(&study.id);
    let renderer = perflab::render::Renderer::new(None).unwrap();
    let page = renderer.page(&study, &a, "en", perflab::render::Flavor::Commonmark, &links).unwrap();
    for figure in ["4000.00", "2650.00", "+32.50%", "+10.00%", "+13.64%", "+6.00%", "2500.00", "1900.00"] {
        assert!(page.contains(figure), "{figure} is not on perflab's page");
    }
}

/// The same page read without its `/GPU` marks, column and sentences is ranked by total
/// throughput: its parallelism stage would go to TP2+DP2, so the page's decision is kept by
/// hand. This is what the marks change.
#[test]
fn without_its_per_gpu_marks_the_page_ranks_by_total_throughput() {
    let text = std::fs::read_to_string(root().join(PAGE)).unwrap();
    let plain = text.replace("%/GPU", "%").replace(" per GPU", "").replace("a gain per GPU", "a gain");
    assert!(perflab::import::import(&text).unwrap().spec.contains("tps_per_gpu"));
    let imported = perflab::import::import(&plain).unwrap();
    assert!(!imported.spec.contains("tps_per_gpu") && !imported.spec.contains("gpus ="), "{}", imported.spec);
    assert!(imported.spec.contains("adopt = { variant = \"tp1\""), "{}", imported.spec);
    let section = plain.lines().position(|l| l.starts_with("### 2. Parallelism")).unwrap() + 1;
    let said = imported.choices.iter().find(|c| c.message.contains("decision differs")).unwrap();
    assert_eq!((said.key.as_str(), said.line), ("stage.parallelism", section), "said at the stage's section");
}

/// A gain per GPU the blocks do not give is named at its row, in the before/after table and in
/// the summary of options.
#[test]
fn a_gain_per_gpu_the_blocks_do_not_give_is_named_at_its_row() {
    let text = std::fs::read_to_string(root().join(PAGE)).unwrap();
    assert!(!perflab::import::import(&text).unwrap().choices.iter().any(|c| c.message.contains("%/GPU;")));
    let wrong = text.replace("(+32.50%/GPU)", "(+35.00%/GPU)");
    let row = wrong.lines().position(|l| l.contains("+35.00%/GPU")).unwrap() + 1;
    let imported = perflab::import::import(&wrong).unwrap();
    let said: Vec<usize> =
        imported.choices.iter().filter(|c| c.message.contains("prints +35.00%/GPU")).map(|c| c.line).collect();
    assert_eq!(said, [row], "the table's row; the summary's total prints +32.50%/GPU still");
    let wrong = text.replace("+13.64%/GPU", "+14.00%/GPU");
    let row = wrong.lines().position(|l| l.contains("+14.00%/GPU")).unwrap() + 1;
    let imported = perflab::import::import(&wrong).unwrap();
    let said = imported.choices.iter().find(|c| c.message.contains("summary of options prints +14.00%/GPU")).unwrap();
    assert_eq!(said.line, row);
}
