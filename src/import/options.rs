//! A page that tunes each engine in a section of its own (`### Optimizing vLLM`, one `####` an
//! option: `Parallelism: DP+EP`, `MTP`) read as one stage an option across the engines, the way
//! its summary of options names them: every engine's `Parallelism` variants side by side.

use super::build::{ENGINES, engine_named};
use super::page::StageSource;

/// Words that say what is done to an option, not which option it is.
const VERBS: [&str; 6] = ["turn", "off", "on", "enable", "disable", "use"];

/// The stages regrouped one an option when every section after the first tunes one engine
/// and says nothing else (`Optimizing vLLM`, `Optimizing SGLang`: two engines at least);
/// `None` for a page laid out one stage an option already.
pub fn by_option(stages: &[StageSource]) -> Option<Vec<StageSource>> {
    let (first, rest) = stages.split_first()?;
    let engines: Vec<&str> = rest.iter().filter_map(|s| engine_named(&s.title)).collect();
    let mut distinct = engines.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut verbs: Vec<String> = rest.iter().map(|s| without_engine(&s.title).to_lowercase()).collect();
    verbs.dedup();
    if rest.len() < 2 || engines.len() != rest.len() || distinct.len() != rest.len() || verbs.len() != 1 {
        return None;
    }
    let mut out = vec![first.clone()];
    let mut keys: Vec<String> = Vec::new();
    for (s, engine) in rest.iter().zip(&engines) {
        let name = ENGINES.iter().find(|e| e.1 == *engine).map_or(*engine, |e| e.2);
        let mut placed = false;
        let mut last: Option<usize> = None;
        for v in &s.variants {
            let written = v.label.clone().unwrap_or_default();
            let (head, detail) = match written.split_once(':') {
                Some((h, d)) => (h.trim(), Some(d.trim())),
                None => (written.trim(), None),
            };
            let title = without_engine(head);
            let key = option_key(&title);
            let mut v = v.clone();
            v.label = Some(format!("{name}: {}", detail.unwrap_or(&title)));
            v.engine = Some(engine.to_string());
            // An option no earlier section has comes right after this section's previous one.
            let k = keys.iter().position(|k| *k == key).unwrap_or_else(|| {
                let at = last.map_or(keys.len(), |l| l + 1);
                keys.insert(at, key);
                out.insert(at + 1, StageSource { line: v.line, title, ..Default::default() });
                at
            });
            last = Some(k);
            out[k + 1].variants.push(v);
            // What the engine's section says before its options goes with its first option.
            if !placed {
                out[k + 1].notes.extend(s.notes.iter().cloned());
                out[k + 1].warnings.extend(s.warnings.iter().cloned());
                placed = true;
            }
        }
    }
    Some(out)
}

/// `Turn off DeepGEMM in vLLM` → `Turn off DeepGEMM`.
fn without_engine(head: &str) -> String {
    let mut words: Vec<&str> = head.split_whitespace().filter(|w| engine_named(w).is_none()).collect();
    if words.len() > 1 && words.last().is_some_and(|w| w.eq_ignore_ascii_case("in")) {
        words.pop();
    }
    words.join(" ")
}

/// The option a heading names, whatever is done to it: `Turn off DeepGEMM` and `DeepGEMM`
/// are one option.
fn option_key(title: &str) -> String {
    let words: Vec<String> =
        title.split_whitespace().map(str::to_lowercase).filter(|w| !VERBS.contains(&w.as_str())).collect();
    super::build::slug(&words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::page::VariantSource;

    fn stage(title: &str, labels: &[&str]) -> StageSource {
        let variants =
            labels.iter().map(|l| VariantSource { label: Some(l.to_string()), ..Default::default() }).collect();
        StageSource { line: 1, title: title.into(), variants, ..Default::default() }
    }

    #[test]
    fn engine_sections_become_one_stage_an_option() {
        let stages = [
            stage("Baseline of the Inference Engine", &["vLLM", "SGLang"]),
            stage("Optimizing vLLM", &["Parallelism: DP+EP", "Turn off DeepGEMM in vLLM"]),
            stage("Optimizing SGLang", &["Parallelism: TP+DP Attention", "KV Cache DType", "Turn off DeepGEMM"]),
        ];
        let mut stages = stages;
        stages[2].notes.push("SGLang runs with its defaults unless said.".into());
        let out = by_option(&stages).unwrap();
        assert_eq!(out[1].notes, ["SGLang runs with its defaults unless said."], "with the section's first option");
        assert!(out[2].notes.is_empty() && out[3].notes.is_empty());
        let titles: Vec<&str> = out.iter().map(|s| s.title.as_str()).collect();
        // SGLang's KV cache option stands between the two it tunes before and after it.
        assert_eq!(titles, ["Baseline of the Inference Engine", "Parallelism", "KV Cache DType", "Turn off DeepGEMM"]);
        let labels: Vec<&str> = out[1].variants.iter().map(|v| v.label.as_deref().unwrap()).collect();
        assert_eq!(labels, ["vLLM: DP+EP", "SGLang: TP+DP Attention"]);
        let labels: Vec<&str> = out[3].variants.iter().map(|v| v.label.as_deref().unwrap()).collect();
        assert_eq!(labels, ["vLLM: Turn off DeepGEMM", "SGLang: Turn off DeepGEMM"]);
    }

    #[test]
    fn a_page_laid_out_one_stage_an_option_is_left_as_it_is() {
        let stages = [
            stage("Choosing the Inference Engine", &["vLLM", "SGLang"]),
            stage("Quantization in SGLang", &["FP8"]),
            stage("Parallelism", &["TP2"]),
        ];
        assert!(by_option(&stages).is_none());
        let two = [
            stage("Engines", &["vLLM"]),
            stage("Quantization in SGLang", &["FP8"]),
            stage("Parallelism in vLLM", &["TP2"]),
        ];
        assert!(by_option(&two).is_none(), "sections that name an option are stages already");
        let one = [stage("Engines", &["vLLM"]), stage("Optimizing vLLM", &["MTP"])];
        assert!(by_option(&one).is_none(), "one engine section is a stage like any other");
    }
}
