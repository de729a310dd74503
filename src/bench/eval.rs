//! A small accuracy evaluation over the OpenAI-compatible API: questions with a numeric answer,
//! asked with greedy decoding and a fixed seed, each answer scored by exact match of the last
//! number it holds. What `perflab run` measures beside a configuration's speed when a stage
//! requires accuracy (see `study::evaluation`).

use super::client::read_limited;
use super::http::Http;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// The bundled set's name, as a study's `data` names it.
pub const BUNDLED: &str = "perflab:arithmetic";

/// The bundled set: 1000 generated arithmetic questions (`assets/eval/make_arithmetic.py` makes
/// them; perflab's own, under its licence).
const BUNDLED_TEXT: &str = include_str!("../../assets/eval/arithmetic.jsonl");

/// The most of an answer kept in the record, in characters.
const KEPT_ANSWER: usize = 200;

/// The longest answer body read, in bytes.
const ANSWER_LIMIT: usize = 1 << 20;

/// Questions asked at once.
const AT_ONCE: usize = 8;

/// One question of a data file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Unique within the file; the record and the page name a question by it.
    pub id: String,
    /// The question as asked.
    pub question: String,
    /// The right answer: a number, as text (`"85"`, `"-3.5"`).
    pub answer: String,
}

/// Reads a data file's questions (JSON lines, one question a line; blank lines skipped); each
/// problem names the file and the line. `BUNDLED` reads the bundled set.
pub fn read_questions(path: &str, base: &std::path::Path) -> Result<Vec<Question>, String> {
    if path == BUNDLED {
        return parse_questions(path, BUNDLED_TEXT);
    }
    let file = base.join(path);
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    parse_questions(&file.display().to_string(), &text)
}

/// The questions of a data file's text; `name` is how errors name the file.
pub fn parse_questions(name: &str, text: &str) -> Result<Vec<Question>, String> {
    let mut out: Vec<Question> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("{name}:{}", i + 1);
        let q: Question = serde_json::from_str(line).map_err(|e| {
            let why = e.to_string();
            let why = why.split(" at line").next().unwrap_or(&why);
            format!("{at}: not a question (`{{\"id\": …, \"question\": …, \"answer\": …}}`): {why}")
        })?;
        if normalize(&q.answer).is_none() {
            return Err(format!("{at}: key `answer`: `{}` is not a number", q.answer));
        }
        if q.id.is_empty() || !seen.insert(q.id.clone()) {
            return Err(format!("{at}: key `id`: `{}` is empty or used by an earlier line", q.id));
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(format!("{name}: holds no question"));
    }
    Ok(out)
}

/// The last number in a text, written the one way numbers are compared (`1,072` and `1072.0`
/// are `1072`); `None` when it holds none.
pub fn extract_number(text: &str) -> Option<String> {
    static NUMBER: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"-?\d[\d,]*(\.\d+)?").expect("a valid pattern"));
    NUMBER.find_iter(text).last().and_then(|m| normalize(m.as_str()))
}

/// A number in one spelling: no thousands commas, no `+`, no trailing zeros after the point.
fn normalize(number: &str) -> Option<String> {
    let plain: String = number.trim().trim_start_matches('+').chars().filter(|c| *c != ',').collect();
    let (negative, digits) = match plain.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, plain.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole = whole.trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let fraction = fraction.trim_end_matches('0');
    let body = if fraction.is_empty() { whole.to_string() } else { format!("{whole}.{fraction}") };
    Some(if negative && body != "0" { format!("-{body}") } else { body })
}

/// How a question is put to the engine: one worked example, then the question.
pub fn prompt(question: &str) -> String {
    format!("Answer with a number.\nQuestion: What is 3 + 4?\nAnswer: 7\nQuestion: {question}\nAnswer:")
}

/// What an evaluation asks of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// The model name the engine answers to.
    pub model: String,
    /// Tokens an answer may have.
    pub max_tokens: u64,
    /// The sampling seed sent with every question (decoding is greedy: temperature 0).
    pub seed: u64,
}

/// One question's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    pub id: String,
    /// The right answer, normalized.
    pub expected: String,
    /// The number read from the answer; `None` when it held none or the request failed.
    pub extracted: Option<String>,
    pub correct: bool,
    /// The start of the engine's answer (at most 200 characters), or why there is none.
    pub answer: String,
}

/// The record of one evaluation of one configuration (`accuracy.json` in its attempt).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// The study's evaluation id.
    pub evaluation: String,
    /// The data file as the study names it.
    pub data: String,
    /// What was asked.
    pub ask: Ask,
    /// Questions asked (a count).
    pub questions: u32,
    /// Questions answered right (a count).
    pub correct: u32,
    /// Each question, in the file's order.
    pub items: Vec<Scored>,
    /// Requests that got no answer (the engine failed them): a count.
    #[serde(default)]
    pub failed_requests: u32,
}

impl Scores {
    /// The share answered right, in percent.
    pub fn percent(&self) -> f64 {
        if self.questions == 0 { 0.0 } else { 100.0 * f64::from(self.correct) / f64::from(self.questions) }
    }

    /// The ids of the questions answered wrong, in order.
    pub fn wrong(&self) -> Vec<&str> {
        self.items.iter().filter(|s| !s.correct).map(|s| s.id.as_str()).collect()
    }
}

/// Asks every question of `questions` of the server at `base` (`http://host:port`), a few at
/// once, and scores the answers. A request the engine fails counts as a wrong answer.
pub async fn evaluate(base: &str, ask: &Ask, questions: &[Question]) -> Result<(Vec<Scored>, u32), String> {
    let http = Http::new(base)?;
    let gate = Arc::new(Semaphore::new(AT_ONCE));
    let mut tasks = JoinSet::new();
    for (i, q) in questions.iter().enumerate() {
        let (http, gate, ask, q) = (http.clone(), gate.clone(), ask.clone(), q.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            (i, q.clone(), one(&http, &ask, &q.question).await)
        });
    }
    let mut answers = Vec::with_capacity(questions.len());
    while let Some(done) = tasks.join_next().await {
        answers.push(done.map_err(|e| format!("a question's task failed: {e}"))?);
    }
    answers.sort_by_key(|(i, _, _)| *i);
    let failed = answers.iter().filter(|(_, _, a)| a.is_err()).count() as u32;
    if failed as usize == questions.len() {
        let why = answers.into_iter().find_map(|(_, _, a)| a.err()).unwrap_or_default();
        return Err(format!("the engine answered no question: {why}"));
    }
    Ok((answers.into_iter().map(|(_, q, a)| score(&q, a)).collect(), failed))
}

/// A question's answer scored.
fn score(q: &Question, answer: Result<String, String>) -> Scored {
    let expected = normalize(&q.answer).unwrap_or_default();
    let (extracted, text) = match answer {
        Ok(text) => (extract_number(&text), text),
        Err(why) => (None, format!("no answer: {why}")),
    };
    let correct = extracted.as_deref() == Some(expected.as_str());
    Scored { id: q.id.clone(), expected, extracted, correct, answer: text.chars().take(KEPT_ANSWER).collect() }
}

/// One question asked: the answer's text.
async fn one(http: &Http, ask: &Ask, question: &str) -> Result<String, String> {
    let body = serde_json::json!({
        "model": ask.model,
        "prompt": prompt(question),
        "max_tokens": ask.max_tokens,
        "temperature": 0,
        "seed": ask.seed,
        "stream": false,
    })
    .to_string();
    let mut response = http.request("POST", "/v1/completions", Some(body.as_bytes())).await?;
    let bytes = read_limited(&mut response.body, ANSWER_LIMIT).await?;
    if response.status != 200 {
        let text = String::from_utf8_lossy(&bytes);
        return Err(format!("HTTP {}: {}", response.status, text.chars().take(KEPT_ANSWER).collect::<String>()));
    }
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| format!("the answer is not JSON: {e}"))?;
    v.pointer("/choices/0/text")
        .and_then(|t| t.as_str())
        .map(str::to_string)
        .ok_or_else(|| "the answer has no `choices[0].text`".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_number_of_an_answer_is_its_answer() {
        assert_eq!(extract_number(" 85").as_deref(), Some("85"));
        assert_eq!(extract_number("3 + 4 is 7, so the answer is 1,072.").as_deref(), Some("1072"));
        assert_eq!(extract_number("The answer is -15.50").as_deref(), Some("-15.5"));
        assert_eq!(extract_number("about 12.0 apples").as_deref(), Some("12"));
        assert_eq!(extract_number("no idea"), None);
        assert_eq!(normalize("007"), Some("7".into()));
        assert_eq!(normalize("-0"), Some("0".into()));
        assert_eq!(normalize("1e5"), None);
    }

    #[test]
    fn a_bad_data_file_is_named_with_its_line() {
        let e = parse_questions("q.jsonl", "{\"id\": \"1\", \"question\": \"?\", \"answer\": \"2\"}\n\n{\"id\": 2}\n")
            .unwrap_err();
        assert!(e.starts_with("q.jsonl:3: not a question"), "{e}");
        let e = parse_questions("q.jsonl", "{\"id\": \"1\", \"question\": \"?\", \"answer\": \"two\"}").unwrap_err();
        assert_eq!(e, "q.jsonl:1: key `answer`: `two` is not a number");
        let twice = "{\"id\": \"1\", \"question\": \"?\", \"answer\": \"2\"}\n".repeat(2);
        assert!(parse_questions("q.jsonl", &twice).unwrap_err().starts_with("q.jsonl:2: key `id`"));
        assert_eq!(parse_questions("q.jsonl", "\n").unwrap_err(), "q.jsonl: holds no question");
    }

    #[test]
    fn the_bundled_set_reads() {
        let set = read_questions(BUNDLED, std::path::Path::new(".")).unwrap();
        assert_eq!(set.len(), 1000);
        assert_eq!(set[0].question, "What is 785 + 287?");
    }
}
