//! The GPUs of a configuration, and a page that compares its configurations per GPU: a page
//! whose layouts use different numbers of GPUs (TP1 against TP4) and which ranks them by
//! throughput per GPU gets a per-GPU objective and each variant's `gpus`, so that the study
//! decides as the page does.

use super::build::Cfg;
use super::{Choice, Draft};

/// The flags that give a parallel size, each in the spellings the engines accept.
const TENSOR: &[&str] = &["-tp", "--tp", "--tp-size", "--tp_size", "--tensor-parallel-size"];
const PIPELINE: &[&str] = &["-pp", "--pp", "--pp-size", "--pp_size", "--pipeline-parallel-size"];
const DATA: &[&str] = &["-dp", "--dp", "--dp-size", "--dp_size", "--data-parallel-size"];
const EXPERT: &[&str] = &["-ep", "--ep", "--ep-size", "--ep_size", "--expert-parallel-size"];

/// SGLang's data-parallel attention: its data-parallel ranks share the tensor-parallel GPUs.
const DP_ATTENTION: &str = "--enable-dp-attention";

/// How many GPUs one engine of a configuration takes, and what was assumed to say so when
/// its flags leave it open.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    pub gpus: u32,
    pub assumed: Option<String>,
}

/// The GPUs of `cfg`: tensor × pipeline × data-parallel size, read from its flags, or from
/// its label (`TP4`, `DP2`, `2 GPUs`) when its command gives no parallel size at all. An
/// expert-parallel size shares those GPUs, and so do SGLang's data-parallel attention ranks;
/// either is said, as is a count taken from the label.
pub fn count(cfg: &Cfg, label: &str) -> Count {
    let size = |keys: &[&str]| -> Option<(u32, String)> {
        let f = cfg.flags.iter().find(|f| keys.contains(&f.key.as_str()))?;
        let n = f.value.as_deref()?.trim().parse::<u32>().ok()?;
        Some((n.max(1), f.text.clone()))
    };
    let (tp, pp, dp, ep) = (size(TENSOR), size(PIPELINE), size(DATA), size(EXPERT));
    if tp.is_none() && pp.is_none() && dp.is_none() && ep.is_none() {
        if let Some(n) = from_label(label) {
            let assumed = format!("its command gives no parallel size: {n} GPU(s), as its label `{label}` reads");
            return Count { gpus: n, assumed: Some(assumed) };
        }
        return Count { gpus: 1, assumed: None };
    }
    let n = |s: &Option<(u32, String)>| s.as_ref().map_or(1, |s| s.0);
    let attention = cfg.flags.iter().any(|f| f.key == DP_ATTENTION);
    let mut gpus = n(&tp) * n(&pp);
    let mut said = Vec::new();
    match &dp {
        Some((_, text)) if attention => {
            said.push(format!("`{text}` with `{DP_ATTENTION}` shares the tensor-parallel GPUs"));
        }
        Some(_) => gpus *= n(&dp),
        None => {}
    }
    if let Some((e, text)) = &ep {
        if *e > gpus {
            said.push(format!("`{text}` needs more GPUs than the other sizes give: taken as {e}"));
            gpus = *e;
        } else {
            said.push(format!("`{text}` shares the GPUs of the other sizes"));
        }
    }
    let assumed = (!said.is_empty()).then(|| format!("{gpus} GPU(s): {}", said.join("; ")));
    Count { gpus, assumed }
}

/// A GPU count a label states: `TP4` (times `PP2`, `DP2` where it says them), `2 GPUs`.
fn from_label(label: &str) -> Option<u32> {
    let upper = label.to_uppercase();
    let stated = regex::Regex::new(r"(\d+)\s*(?:X\s*)?GPUS?\b").expect("a valid pattern");
    if let Some(c) = stated.captures(&upper) {
        return c[1].parse().ok().filter(|n| *n > 0);
    }
    let sizes = regex::Regex::new(r"\b(TP|PP|DP)\s*(\d+)").expect("a valid pattern");
    let product: Option<u32> = sizes.captures_iter(&upper).map(|c| c[2].parse::<u32>().ok()).product();
    product.filter(|n| *n > 1)
}

/// Where a page says that it compares per GPU, and how: a gain marked `/GPU` (`(+12.3%/GPU)`),
/// a table column, or a sentence about throughput per GPU, in that order of preference. The
/// page's 1-based line and the mark; what code blocks hold is not read.
pub fn per_gpu_mark(text: &str) -> Option<(usize, String)> {
    let marks = [
        r"[+-]?\d+(?:\.\d+)?\s*%\s*/\s*GPU\b",
        r"^\s*\|.*\|[^|\n]*\bper[- ]GPU\b[^|\n]*\|",
        r"\b(?:throughput|TPS|tok(?:en)?s?/s)\s+(?:per|/)\s*GPU\b|\bper[- ]GPU\s+(?:throughput|TPS|gains?|improvements?)\b|\bcompar\w*\b[^.\n]{0,40}?\bper[- ]GPU\b",
    ];
    let mut fenced = false;
    let prose: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let fence = l.trim_start().starts_with("```");
            fenced ^= fence;
            !fence && !fenced
        })
        .collect();
    marks.iter().find_map(|m| {
        let re = regex::Regex::new(&format!("(?i){m}")).expect("a valid pattern");
        prose.iter().find_map(|(k, l)| {
            let found = re.find(l)?.as_str();
            let cell = found.rsplit('|').find(|c| !c.trim().is_empty()).unwrap_or(found);
            Some((k + 1, cell.trim().to_string()))
        })
    })
}

/// On a page that compares per GPU, each variant's GPUs and a choice for every count that
/// was assumed; nothing on other pages, nor on one that scales its figures to the same GPU
/// count (replicas) or ranks by latency.
pub fn assign(d: &mut Draft, mark: Option<(usize, String)>) {
    let Some((line, mark)) = mark.filter(|_| !d.scaled && d.latency.is_none()) else { return };
    let mut counts = Vec::new();
    for s in &mut d.stages {
        for v in &mut s.variants {
            let c = count(&v.cfg, &v.label);
            v.gpus = Some(c.gpus);
            counts.push(c.gpus);
            if let Some(why) = c.assumed {
                d.choices.push(Choice::new(format!("stage.{}.variant.{}", s.id, v.id), v.line, why));
            }
        }
    }
    counts.sort_unstable();
    counts.dedup();
    let sizes: Vec<String> = counts.iter().map(u32::to_string).collect();
    d.per_gpu = true;
    d.choices.push(Choice::new(
        "objective",
        line,
        format!(
            "the page compares per GPU (`{mark}`): ranked by total token throughput per GPU, each variant's `gpus` ({}) from its parallel sizes",
            sizes.join(", ")
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(command: &str) -> Cfg {
        let s = super::super::build::split(command);
        Cfg { engine: s.engine.unwrap(), model: s.model.unwrap_or_default(), flags: s.flags, env: s.env }
    }

    #[test]
    fn the_gpus_are_the_product_of_the_parallel_sizes() {
        let gpus = |c: &str| count(&cfg(c), "").gpus;
        assert_eq!(gpus("vllm serve m"), 1);
        assert_eq!(gpus("vllm serve m -tp 2"), 2);
        assert_eq!(gpus("vllm serve m --tensor-parallel-size 4 --pipeline-parallel-size 2"), 8);
        assert_eq!(gpus("vllm serve m -tp 1 -dp 8 --enable-expert-parallel"), 8);
        assert_eq!(gpus("python3 -m sglang.launch_server --model-path m --tp-size 2 --dp-size 2"), 4);
        assert_eq!(gpus("trtllm-serve m --tp_size 8 --ep_size 8 --pp_size 1"), 8);
    }

    #[test]
    fn what_shares_gpus_is_said() {
        let c = count(
            &cfg("python3 -m sglang.launch_server --model-path m --tp-size 8 --dp-size 8 --enable-dp-attention"),
            "",
        );
        assert_eq!(c.gpus, 8);
        assert!(c.assumed.unwrap().contains("shares the tensor-parallel GPUs"));
        let c = count(&cfg("python3 -m sglang.launch_server --model-path m --tp-size 4 --ep-size 4"), "");
        assert_eq!(c.gpus, 4);
        assert!(c.assumed.unwrap().contains("`--ep-size 4` shares"));
        let c = count(&cfg("python3 -m sglang.launch_server --model-path m --ep-size 4"), "");
        assert_eq!(c.gpus, 4);
        assert!(c.assumed.unwrap().contains("taken as 4"));
    }

    #[test]
    fn a_label_gives_the_gpus_only_when_the_command_gives_no_size() {
        let c = count(&cfg("vllm serve m"), "TP4");
        assert_eq!(c.gpus, 4);
        assert!(c.assumed.unwrap().contains("label `TP4`"));
        assert_eq!(count(&cfg("vllm serve m"), "Two replicas on 2 GPUs").gpus, 2);
        assert_eq!(count(&cfg("vllm serve m -tp 2"), "TP4").gpus, 2);
        assert_eq!(count(&cfg("vllm serve m"), "baseline").assumed, None);
    }

    #[test]
    fn a_page_says_per_gpu_by_a_mark_a_column_or_a_sentence() {
        let at = |t: &str| per_gpu_mark(t).map(|(line, _)| line);
        assert_eq!(at("# T\n\n| a | Total TPS: 10.00 (+12.3%/GPU) |\n"), Some(3));
        assert_eq!(at("| Case | Throughput per GPU |\n|---|---|\n"), Some(1));
        assert_eq!(at("# Throughput per GPU\n\n| a | +3.0%/GPU |\n"), Some(3), "a gain's mark first");
        assert_eq!(at("We compare the layouts per GPU, since they differ in size.\n"), Some(1));
        assert_eq!(at("The winner has the highest throughput per GPU.\n"), Some(1));
        assert_eq!(at("Each H100 has 80 GB per GPU.\n"), None);
        assert_eq!(at("```\nMean TPOT per GPU (ms): 1\n```\n"), None);
        assert_eq!(at("Total TPS: 3019.19x2 (+56.9%)\n"), None);
    }
}
