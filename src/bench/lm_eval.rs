//! lm-evaluation-harness's output read into perflab's scores: its results JSON (a task's
//! `exact_match` under a filter, and the questions it counted) and, where it logged them
//! (`--log_samples`), its samples, one question a line, which pair a configuration's answers
//! with another's.

use super::eval::Scored;
use serde::Deserialize;

/// One task's score as the results JSON gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScore {
    /// The task's name (`perflab_arith`, `gsm8k`).
    pub task: String,
    /// The filter the metric is under (`number`, `strict-match`).
    pub filter: String,
    /// The share of exact matches, from 0 to 1.
    pub exact_match: f64,
    /// Questions the task counted.
    pub samples: u32,
}

/// The `exact_match` of every task of a results JSON; `name` is how errors name the file.
pub fn read_results(name: &str, text: &str) -> Result<Vec<TaskScore>, String> {
    #[derive(Deserialize)]
    struct Results {
        results: std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
        #[serde(rename = "n-samples", default)]
        n_samples: std::collections::BTreeMap<String, Samples>,
    }
    #[derive(Deserialize)]
    struct Samples {
        effective: u32,
    }
    let r: Results = serde_json::from_str(text).map_err(|e| {
        format!("{name}:{}:{}: not lm-evaluation-harness results (`results`, `n-samples`): {e}", e.line(), e.column())
    })?;
    let mut out = Vec::new();
    for (task, metrics) in &r.results {
        for (key, value) in metrics {
            let Some(filter) = key.strip_prefix("exact_match,") else { continue };
            let Some(exact_match) = value.as_f64().filter(|x| (0.0..=1.0).contains(x)) else {
                return Err(format!("{name}: task `{task}`: key `{key}`: not a share from 0 to 1"));
            };
            let Some(samples) = r.n_samples.get(task).map(|s| s.effective) else {
                return Err(format!("{name}: task `{task}`: no `n-samples` count"));
            };
            out.push(TaskScore { task: task.clone(), filter: filter.to_string(), exact_match, samples });
        }
    }
    if out.is_empty() {
        return Err(format!("{name}: no task has an `exact_match` score"));
    }
    Ok(out)
}

/// The questions of a samples file (`samples_<task>_<date>.jsonl`), each scored as the harness
/// scored it; problems name the file and the line.
pub fn read_samples(name: &str, text: &str) -> Result<Vec<Scored>, String> {
    #[derive(Deserialize)]
    struct Sample {
        doc_id: u64,
        #[serde(default)]
        doc: serde_json::Value,
        target: serde_json::Value,
        #[serde(default)]
        resps: Vec<Vec<String>>,
        #[serde(default)]
        filtered_resps: Vec<serde_json::Value>,
        exact_match: f64,
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let s: Sample = serde_json::from_str(line)
            .map_err(|e| format!("{name}:{}: not a sample of lm-evaluation-harness: {e}", i + 1))?;
        let id = s.doc.get("id").and_then(|v| v.as_str()).map_or_else(|| s.doc_id.to_string(), str::to_string);
        let text_of = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        out.push(Scored {
            id,
            expected: text_of(&s.target),
            extracted: s.filtered_resps.first().map(text_of),
            correct: s.exact_match >= 1.0,
            answer: s.resps.first().and_then(|r| r.first()).map(|a| a.chars().take(200).collect()).unwrap_or_default(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lm-eval/");

    #[test]
    fn a_real_results_file_and_its_samples_are_read() {
        let text = std::fs::read_to_string(format!("{FIXTURES}results.json")).unwrap();
        let scores = read_results("results.json", &text).unwrap();
        let expected =
            TaskScore { task: "perflab_arith".into(), filter: "number".into(), exact_match: 0.75, samples: 20 };
        assert_eq!(scores, vec![expected]);
        let text = std::fs::read_to_string(format!("{FIXTURES}samples_perflab_arith.jsonl")).unwrap();
        let samples = read_samples("samples.jsonl", &text).unwrap();
        assert_eq!(samples.len(), 20);
        assert_eq!(samples.iter().filter(|s| s.correct).count(), 15);
        assert_eq!(samples[0].id, "a0001");
        assert_eq!((samples[0].expected.as_str(), samples[0].extracted.as_deref()), ("1072", Some("1072")));
        assert_eq!(samples[0].answer, " The answer is 1072.");
    }

    #[test]
    fn a_broken_results_file_names_the_problem() {
        assert!(read_results("r.json", "{}").unwrap_err().starts_with("r.json:1:2: not lm-evaluation-harness results"));
        let none = r#"{"results": {"t": {"acc,none": 0.5}}, "n-samples": {"t": {"original": 2, "effective": 2}}}"#;
        assert_eq!(read_results("r.json", none).unwrap_err(), "r.json: no task has an `exact_match` score");
        let bad = r#"{"results": {"t": {"exact_match,none": 2}}, "n-samples": {}}"#;
        assert!(read_results("r.json", bad).unwrap_err().contains("not a share from 0 to 1"));
        assert!(read_samples("s.jsonl", "{}\n").unwrap_err().starts_with("s.jsonl:1: not a sample"));
    }
}
