//! The requests a benchmark sends: random token ids, a ShareGPT file, or a JSON-lines file.

use super::tokenizer::{TokenCount, Tokenizer};
use anyhow::{Context, bail};
use std::path::Path;

/// Token ids a random prompt draws from when there is no tokenizer: low enough for any model's
/// vocabulary (byte-level vocabularies start with their 256 byte tokens; special tokens sit at
/// the very start or end), so that no request is refused for an unknown id.
pub const FALLBACK_IDS: std::ops::Range<u32> = 256..4096;

/// SplitMix64: a small, fast generator whose sequence depends only on its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponential with the given rate: Poisson inter-arrival times.
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -(1.0 - self.unit()).ln() / rate
    }
}

/// What a request sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// Token ids, for `/v1/completions`: no tokenizer needed.
    Tokens(Vec<u32>),
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub prompt: Prompt,
    /// Prompt length in tokens, counted as `counted` says.
    pub input_tokens: u64,
    pub counted: TokenCount,
    /// Tokens the request asks for.
    pub output_tokens: u64,
}

/// A prompt's length: by the tokenizer when there is one, else in words.
fn length(text: &str, tokenizer: Option<&Tokenizer>) -> (u64, TokenCount) {
    match tokenizer {
        Some(t) => (t.count(text), TokenCount::Tokenizer),
        None => (text.split_whitespace().count() as u64, TokenCount::Words),
    }
}

/// `n` random prompts of `input` tokens asking for `output` tokens.
///
/// With a tokenizer, each prompt is `input` ids drawn from its vocabulary (special tokens
/// excepted) and adjusted until it encodes back to exactly `input` tokens; the completions
/// endpoint gets the ids, the chat endpoint their text. Without one, the ids come from
/// [`FALLBACK_IDS`] (the chat endpoint gets them as words, whose token count is an estimate).
pub fn random(n: usize, input: u64, output: u64, seed: u64, chat: bool, tokenizer: Option<&Tokenizer>) -> Vec<Item> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| match tokenizer {
            Some(t) => {
                let (ids, text) = t.exact_prompt(input as usize, || rng.next_u64());
                let input_tokens = ids.len() as u64;
                let prompt = if chat { Prompt::Text(text) } else { Prompt::Tokens(ids) };
                Item { prompt, input_tokens, counted: TokenCount::Tokenizer, output_tokens: output }
            }
            None => {
                let span = u64::from(FALLBACK_IDS.end - FALLBACK_IDS.start);
                let ids: Vec<u32> = (0..input).map(|_| FALLBACK_IDS.start + (rng.next_u64() % span) as u32).collect();
                if chat {
                    let text = ids.iter().map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
                    Item {
                        prompt: Prompt::Text(text),
                        input_tokens: input,
                        counted: TokenCount::Words,
                        output_tokens: output,
                    }
                } else {
                    Item {
                        prompt: Prompt::Tokens(ids),
                        input_tokens: input,
                        counted: TokenCount::Ids,
                        output_tokens: output,
                    }
                }
            }
        })
        .collect()
}

/// ShareGPT: a JSON array of `{"conversations": [{"from": "human", "value": ...}, {"from": "gpt", ...}]}`.
/// Each conversation's first turn is the prompt; the reply's length is the output length.
/// Conversations are shuffled with `seed` and the first `n` usable ones kept.
pub fn sharegpt(
    path: &Path,
    n: usize,
    seed: u64,
    output_override: Option<u64>,
    tokenizer: Option<&Tokenizer>,
) -> anyhow::Result<Vec<Item>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("'{}' is not a ShareGPT JSON file", path.display()))?;
    let Some(list) = doc.as_array() else {
        bail!("'{}': expected a JSON array of conversations", path.display());
    };
    let mut items: Vec<Item> = list
        .iter()
        .filter_map(|c| {
            let turns = c.get("conversations")?.as_array()?;
            let prompt = turns.first()?.get("value")?.as_str()?;
            let reply = turns.get(1)?.get("value")?.as_str()?;
            let (input, counted) = length(prompt, tokenizer);
            let output = output_override.unwrap_or_else(|| length(reply, tokenizer).0);
            (input > 0 && output > 0).then(|| Item {
                prompt: Prompt::Text(prompt.to_string()),
                input_tokens: input,
                counted,
                output_tokens: output,
            })
        })
        .collect();
    let mut rng = Rng::new(seed);
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
    if items.len() < n {
        bail!("'{}' has {} usable conversations; {n} were asked for", path.display(), items.len());
    }
    items.truncate(n);
    Ok(items)
}

/// JSON lines: `{"prompt": "...", "output_tokens": 128}` (or a bare string) a line; the first `n`
/// lines are used, cycling when the file has fewer.
pub fn jsonl(path: &Path, n: usize, default_output: u64, tokenizer: Option<&Tokenizer>) -> anyhow::Result<Vec<Item>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let mut items = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).with_context(|| format!("{}:{}: not a JSON value", path.display(), i + 1))?;
        let (prompt, output) = match &v {
            serde_json::Value::String(s) => (s.clone(), default_output),
            serde_json::Value::Object(o) => {
                let Some(p) = o.get("prompt").and_then(|p| p.as_str()) else {
                    bail!("{}:{}: key `prompt` (a string) is missing", path.display(), i + 1);
                };
                let out = ["output_tokens", "max_tokens", "output_len"].iter().find_map(|k| o.get(*k)?.as_u64());
                (p.to_string(), out.unwrap_or(default_output))
            }
            _ => bail!("{}:{}: expected an object with `prompt` or a string", path.display(), i + 1),
        };
        let (input_tokens, counted) = length(&prompt, tokenizer);
        items.push(Item { input_tokens, counted, prompt: Prompt::Text(prompt), output_tokens: output });
    }
    if items.is_empty() {
        bail!("'{}' holds no prompt", path.display());
    }
    Ok(items.iter().cycle().take(n).cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_prompts_depend_on_the_seed_only() {
        let a = random(3, 16, 8, 42, false, None);
        assert_eq!(a, random(3, 16, 8, 42, false, None));
        assert_ne!(a, random(3, 16, 8, 43, false, None));
        assert!(
            matches!(&a[0].prompt, Prompt::Tokens(t) if t.len() == 16 && t.iter().all(|i| FALLBACK_IDS.contains(i)))
        );
        assert!(matches!(&random(1, 5, 1, 1, true, None)[0].prompt, Prompt::Text(t) if t.split(' ').count() == 5));
    }

    #[test]
    fn poisson_gaps_average_one_over_the_rate() {
        let mut rng = Rng::new(7);
        let mean = (0..20000).map(|_| rng.exponential(4.0)).sum::<f64>() / 20000.0;
        assert!((mean - 0.25).abs() < 0.01, "{mean}");
    }
}
