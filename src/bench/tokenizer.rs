//! The model's tokenizer (`--tokenizer`): prompts of an exact length in tokens, and prompt
//! lengths counted as the server counts them. Without one, lengths are estimates and the report
//! says how they were counted.

#[cfg(feature = "tokenizer")]
use anyhow::Context;
use anyhow::bail;
use std::path::Path;

/// How the token counts of a report were obtained, from the most to the least exact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum TokenCount {
    /// The server's `usage` of each response.
    Server,
    /// The model's tokenizer on the client side.
    Tokenizer,
    /// Token ids sent as the prompt: exact for the prompt, no tokenizer needed.
    Ids,
    /// Whitespace-separated words: an estimate.
    #[default]
    Words,
}

impl TokenCount {
    /// The word printed in the block and the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenCount::Server => "server usage",
            TokenCount::Tokenizer => "tokenizer",
            TokenCount::Ids => "token ids",
            TokenCount::Words => "words (no tokenizer)",
        }
    }
}

/// The tokenizer library, or, in a build without the `tokenizer` feature, a type with no value:
/// [`Tokenizer::load`] then says why, and no `Tokenizer` can exist.
#[cfg(feature = "tokenizer")]
type Inner = tokenizers::Tokenizer;
#[cfg(not(feature = "tokenizer"))]
enum Inner {}

#[cfg(not(feature = "tokenizer"))]
impl Inner {
    fn encode(&self, _: &str, _: bool) -> Result<Vec<u32>, std::convert::Infallible> {
        match *self {}
    }

    fn decode(&self, _: &[u32], _: bool) -> Result<String, std::convert::Infallible> {
        match *self {}
    }
}

/// A loaded `tokenizer.json`.
pub struct Tokenizer {
    inner: Inner,
    /// Ids that decode to ordinary text: every id but the special tokens.
    ordinary: Vec<u32>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer").field("vocabulary", &self.ordinary.len()).finish()
    }
}

impl Tokenizer {
    /// Loads `path`: a `tokenizer.json`, or a model folder that holds one.
    pub fn load(path: &Path) -> anyhow::Result<Tokenizer> {
        let file = if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() };
        if !file.is_file() {
            bail!("--tokenizer '{}': no tokenizer.json there", path.display());
        }
        let (inner, mut ordinary) = vocabulary(&file)?;
        ordinary.sort_unstable();
        if ordinary.is_empty() {
            bail!("--tokenizer '{}': the vocabulary is empty", file.display());
        }
        Ok(Tokenizer { inner, ordinary })
    }

    /// Ordinary (not special) ids, ascending.
    pub fn ordinary_ids(&self) -> &[u32] {
        &self.ordinary
    }

    /// Tokens of `text`, without the special tokens a model adds around a prompt.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        #[cfg(feature = "tokenizer")]
        return self.inner.encode(text, false).map(|e| e.get_ids().to_vec()).unwrap_or_default();
        #[cfg(not(feature = "tokenizer"))]
        self.inner.encode(text, false).unwrap_or_default()
    }

    pub fn count(&self, text: &str) -> u64 {
        self.encode(text).len() as u64
    }

    pub fn decode(&self, ids: &[u32]) -> String {
        self.inner.decode(ids, false).unwrap_or_default()
    }

    /// Text of exactly `len` tokens (when encoded again), drawn from the vocabulary with `next`,
    /// as vLLM's random dataset makes its prompts: random ids are decoded, encoded again (a
    /// decoded sequence can merge into fewer or split into more tokens) and cut or extended until
    /// the round trip holds. Returns the ids and their text.
    pub fn exact_prompt(&self, len: usize, mut next: impl FnMut() -> u64) -> (Vec<u32>, String) {
        let vocab = self.ordinary.len() as u64;
        let mut ids: Vec<u32> = (0..len).map(|_| self.ordinary[(next() % vocab) as usize]).collect();
        for _ in 0..16 {
            let text = self.decode(&ids);
            let again = self.encode(&text);
            if again.len() == len {
                return (again, text);
            }
            ids = again;
            ids.truncate(len);
            while ids.len() < len {
                ids.push(self.ordinary[(next() % vocab) as usize]);
            }
        }
        // The ids themselves are always an exact prompt for a completions endpoint.
        let text = self.decode(&ids);
        (ids, text)
    }
}

/// The tokenizer in `file` and its ordinary ids (every id but the special tokens), unsorted.
#[cfg(feature = "tokenizer")]
fn vocabulary(file: &Path) -> anyhow::Result<(Inner, Vec<u32>)> {
    let inner = tokenizers::Tokenizer::from_file(file)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("--tokenizer '{}': not a tokenizer.json file", file.display()))?;
    let special: std::collections::BTreeSet<u32> = inner.get_added_vocabulary().get_vocab().values().copied().collect();
    let ordinary = inner.get_vocab(false).into_values().filter(|id| !special.contains(id)).collect();
    Ok((inner, ordinary))
}

#[cfg(not(feature = "tokenizer"))]
fn vocabulary(file: &Path) -> anyhow::Result<(Inner, Vec<u32>)> {
    bail!("--tokenizer '{}': this perflab was built without the `tokenizer` feature", file.display())
}
