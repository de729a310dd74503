//! Benchmark output → typed, normalised blocks.
//!
//! [`parse_str`] reads one file's text: a log holding `Serving Benchmark Result` blocks (vLLM,
//! SGLang, TensorRT-LLM, GPUStack pages, vLLM's 2023 format) or a JSON result (vLLM
//! `--save-result`/`--append-result`, SGLang JSON lines, guidellm `benchmarks.json`).
//! Every block keeps the text of every line under its printed label (`raw`), and the numbers it
//! recognises under canonical names (`metrics`, see [`names`]). [`stream::read`] reads a log of
//! any length the same way, one line at a time, in the memory of its largest block.

mod decimal;
mod json;
pub mod names;
pub mod requests;
pub mod stream;
mod text;

use serde::Serialize;
use serde::ser::SerializeMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a block came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    Vllm,
    /// vLLM's 2023 `benchmark_serving.py` (`Total time:`, `Throughput:`, `Average latency:`).
    VllmLegacy,
    Sglang,
    Trtllm,
    Gpustack,
    VllmJson,
    SglangJsonl,
    GuidellmJson,
}

impl Format {
    /// Whether results of this format are read from JSON.
    pub fn is_json(self) -> bool {
        matches!(self, Format::VllmJson | Format::SglangJsonl | Format::GuidellmJson)
    }

    /// The name printed by `perflab parse`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Vllm => "vllm",
            Format::VllmLegacy => "vllm-legacy",
            Format::Sglang => "sglang",
            Format::Trtllm => "trtllm",
            Format::Gpustack => "gpustack",
            Format::VllmJson => "vllm-json",
            Format::SglangJsonl => "sglang-jsonl",
            Format::GuidellmJson => "guidellm-json",
        }
    }
}

/// Every printed label with its value text, in the order printed. The texts lie end to end in
/// one string: a block's labels and values cost one allocation, not two each.
#[derive(Clone, Default)]
pub struct Raw {
    text: String,
    /// Where each entry's label starts, where its value starts (the label's end) and ends.
    spans: Vec<[usize; 3]>,
    /// Whether the labels are known to differ from one another, since the last push.
    distinct: bool,
    /// How much of `text` is known to hold nothing that JSON escapes ([`json_plain`]).
    plain_to: usize,
}

impl Raw {
    /// Room for `entries` labels and values of `bytes` bytes in all.
    pub fn with_capacity(entries: usize, bytes: usize) -> Raw {
        Raw { text: String::with_capacity(bytes), spans: Vec::with_capacity(entries), distinct: false, plain_to: 0 }
    }

    /// The texts of every label and value, end to end (and those renamed after them).
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The end of [`Raw::text`] not known to hold nothing that JSON escapes.
    pub(super) fn unchecked(&self) -> &str {
        &self.text[self.plain_to..]
    }

    /// [`Raw::push`] of a label known to hold nothing that JSON escapes when `label_plain`
    /// says so: then only the value is looked at.
    pub(super) fn push_known(&mut self, label: &str, value: &str, label_plain: bool) {
        let start = self.text.len();
        self.push(label, value);
        if label_plain && self.plain_to == start && json_plain(value.as_bytes()) {
            self.plain_to = self.text.len();
        }
    }

    /// Adds a label; call [`Raw::rename_repeats`] once all are in.
    pub fn push(&mut self, label: &str, value: &str) {
        let start = self.text.len();
        self.text.push_str(label);
        self.text.push_str(value);
        self.spans.push([start, start + label.len(), self.text.len()]);
        self.distinct = false;
    }

    /// Says that no two labels are the same (the parser knows it of most blocks as it reads
    /// them), so that [`Raw::rename_repeats`] need not look.
    pub(super) fn labels_differ(&mut self) {
        self.distinct = true;
    }

    /// Renames a repeated label `label (2)`, `label (3)`, ... so that none is lost as a map key.
    pub fn rename_repeats(&mut self) {
        if self.distinct {
            return;
        }
        // Labels whose hashes all differ all differ.
        let mut hashes: Vec<u64> = self.iter().map(|(k, _)| LabelHash::of(k)).collect();
        hashes.sort_unstable();
        if hashes.windows(2).all(|w| w[0] != w[1]) {
            self.distinct = true;
            return;
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..self.spans.len() {
            let [start, mid, end] = self.spans[i];
            let n = seen.entry(self.text[start..mid].to_string()).or_insert(0);
            *n += 1;
            if *n > 1 {
                let renamed = format!("{} ({n})", &self.text[start..mid]);
                let value = self.text[mid..end].to_string();
                let at = self.text.len();
                self.text.push_str(&renamed);
                self.text.push_str(&value);
                self.spans[i] = [at, at + renamed.len(), self.text.len()];
            }
        }
        self.distinct = true;
    }

    /// Every label with its value text, in the order printed.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spans.iter().map(|&[start, mid, end]| (&self.text[start..mid], &self.text[mid..end]))
    }

    /// How many labels there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there is no label.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The value text printed for `label`.
    pub fn get(&self, label: &str) -> Option<&str> {
        self.iter().find(|(k, _)| *k == label).map(|(_, v)| v)
    }
}

impl PartialEq for Raw {
    fn eq(&self, other: &Raw) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Raw {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_map(s, self.len(), self.iter())
    }
}

/// Entries as a map, in their order.
fn serialize_map<S: serde::Serializer, K: Serialize, V: Serialize>(
    s: S,
    len: usize,
    entries: impl Iterator<Item = (K, V)>,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(len))?;
    for (k, v) in entries {
        map.serialize_entry(&k, &v)?;
    }
    map.end()
}

/// Whether JSON escapes nothing of `bytes` (control characters, `"` and `\\`).
pub(super) fn json_plain(bytes: &[u8]) -> bool {
    // Eight bytes at a time: a lane below 0x20, or equal to `"` or `\\`, sets its high bit.
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |v: u64, n: u8| v.wrapping_sub(ONES * u64::from(n)) & !v & HIGH;
    let clean =
        |v: u64| below(v, 0x20) | below(v ^ (ONES * u64::from(b'"')), 1) | below(v ^ (ONES * u64::from(b'\\')), 1) == 0;
    let chunks = bytes.chunks_exact(8);
    // The last bytes, padded with a letter, are one more lane of eight.
    let mut tail = [b'a'; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    chunks.map(|c| c.try_into().map_or(0, u64::from_ne_bytes)).all(clean) && clean(u64::from_ne_bytes(tail))
}

/// A hash for the parser's maps and checks of labels, eight bytes at a time: labels are short,
/// and a keyed hash would cost more than the lookup saves.
#[derive(Default, Clone, Copy)]
struct LabelHash(u64);

impl std::hash::Hasher for LabelHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Labels differ in their first sixteen bytes, their last eight or their length: those
        // are mixed, each word apart, so that no multiplication waits for another.
        let n = bytes.len();
        let word = |at: usize| bytes.get(at..at + 8).and_then(|w| w.try_into().ok()).map_or(0, u64::from_le_bytes);
        let (a, b, c) = if n >= 8 {
            (word(0), word(8.min(n - 8)), word(n - 8))
        } else {
            let mut short = [0; 8];
            short[..n].copy_from_slice(bytes);
            (u64::from_le_bytes(short), 0, 0)
        };
        let h = (self.0 ^ a).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
            ^ c.wrapping_mul(0x1656_67b1_9e37_79f9)
            ^ (n as u64);
        let h = (h ^ (h >> 32)).wrapping_mul(0x85eb_ca77_c2b2_ae63);
        self.0 = h ^ (h >> 29);
    }

    fn write_u8(&mut self, i: u8) {
        // The end of a `str` key.
        self.0 ^= u64::from(i);
    }
}

impl LabelHash {
    fn of(s: &str) -> u64 {
        let mut h = LabelHash::default();
        std::hash::Hasher::write(&mut h, s.as_bytes());
        h.0
    }
}

/// A metric's name, and its first eight bytes as a number: names whose numbers differ are in the
/// order of their numbers, so that most are sorted without a comparison of their texts.
#[derive(Clone)]
struct Name {
    head: u64,
    text: Arc<String>,
}

impl Name {
    fn new(text: String) -> Name {
        let mut eight = [0; 8];
        let n = text.len().min(8);
        eight[..n].copy_from_slice(&text.as_bytes()[..n]);
        Name { head: u64::from_be_bytes(eight), text: Arc::new(text) }
    }
}

/// How the metrics of the last blocks were put in order: the blocks of a log print one of a few
/// sets of labels, each in the same order every time, so that their names need not be compared
/// again.
#[derive(Default)]
struct Order {
    /// Up to [`Order::KEPT`] orders, the one to replace next after them.
    known: Vec<Shape>,
    replace: usize,
    /// Room for the entries of a block while they are moved into its metrics.
    slots: Vec<Option<(Arc<String>, f64)>>,
}

/// The names of a block's metrics as they were given (held, so that no other name takes their
/// place in memory), and for each entry of the result the place of its value among them.
struct Shape {
    given: Vec<Arc<String>>,
    take: Vec<usize>,
    /// Whether a name holds something that JSON escapes.
    escapes: bool,
}

impl Order {
    const KEPT: usize = 32;

    /// [`Metrics::from_unsorted`], each order worked out once.
    fn sort(&mut self, entries: Vec<(Name, f64)>) -> Metrics {
        let same = |shape: &&Shape| {
            shape.given.len() == entries.len()
                && shape.given.iter().zip(&entries).all(|(a, (b, _))| Arc::ptr_eq(a, &b.text))
        };
        if let Some(shape) = self.known.iter().find(same) {
            return Metrics::taken(entries, &shape.take, shape.escapes, &mut self.slots);
        }
        let mut places: Vec<usize> = (0..entries.len()).collect();
        // Stable: of a name given twice, the later place comes last, and is the one kept.
        places.sort_by(|&a, &b| {
            let (a, b) = (&entries[a].0, &entries[b].0);
            a.head.cmp(&b.head).then_with(|| a.text.cmp(&b.text))
        });
        let mut take = Vec::with_capacity(places.len());
        for (i, &p) in places.iter().enumerate() {
            if places.get(i + 1).is_none_or(|&q| entries[q].0.text != entries[p].0.text) {
                take.push(p);
            }
        }
        let escapes = entries.iter().any(|(n, _)| !json_plain(n.text.as_bytes()));
        let given = entries.iter().map(|(n, _)| n.text.clone()).collect();
        let metrics = Metrics::taken(entries, &take, escapes, &mut self.slots);
        let shape = Shape { given, take, escapes };
        if self.known.len() < Order::KEPT {
            self.known.push(shape);
        } else {
            self.known[self.replace] = shape;
            self.replace = (self.replace + 1) % Order::KEPT;
        }
        metrics
    }
}

/// Canonical metric names and their values, in the order of the names, as a map. The names are
/// shared: the parser makes each once a log, not once a block.
#[derive(Clone, Default, PartialEq)]
pub struct Metrics {
    entries: Vec<(Arc<String>, f64)>,
    /// Whether a name holds something that JSON escapes ([`json_plain`]): mostly none does, and
    /// a block's names are looked at once for each of the orders [`Order`] keeps.
    escapes: bool,
}

/// A metric of [`Metrics`] as an iterator gives it.
type Entry<'a> = (&'a String, &'a f64);
/// The iterator over [`Metrics`].
type Entries<'a> = std::iter::Map<std::slice::Iter<'a, (Arc<String>, f64)>, fn(&'a (Arc<String>, f64)) -> Entry<'a>>;

impl Metrics {
    /// The entries of `entries` in the order of their names; of a name given twice, the last value:
    /// what [`Order::sort`] gives, worked out from scratch.
    #[cfg(test)]
    fn from_unsorted(mut entries: Vec<(Name, f64)>) -> Metrics {
        // A stable sort keeps the values of a repeated name in the order given.
        entries.sort_by(|a, b| a.0.head.cmp(&b.0.head).then_with(|| a.0.text.cmp(&b.0.text)));
        entries.dedup_by(|later, earlier| {
            let same = later.0.text == earlier.0.text;
            if same {
                earlier.1 = later.1;
            }
            same
        });
        let escapes = entries.iter().any(|(name, _)| !json_plain(name.text.as_bytes()));
        Metrics { entries: entries.into_iter().map(|(name, x)| (name.text, x)).collect(), escapes }
    }

    /// The entries of `entries` at the places `take` gives, in that order, moved (a name is
    /// shared between threads: each copy or drop of one is an atomic operation); `escapes` says
    /// whether a name holds something that JSON escapes. `slots` is room to move them through.
    fn taken(
        entries: Vec<(Name, f64)>,
        take: &[usize],
        escapes: bool,
        slots: &mut Vec<Option<(Arc<String>, f64)>>,
    ) -> Metrics {
        slots.extend(entries.into_iter().map(|(n, x)| Some((n.text, x))));
        let mut entries = Vec::with_capacity(take.len());
        entries.extend(take.iter().filter_map(|&i| slots.get_mut(i).and_then(Option::take)));
        slots.clear();
        Metrics { entries, escapes }
    }

    /// Whether a name holds something that JSON escapes.
    pub(super) fn escapes(&self) -> bool {
        self.escapes
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    /// The value of metric `name`.
    pub fn get(&self, name: &str) -> Option<&f64> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets metric `name` to `x`; returns the value it had.
    pub fn insert(&mut self, name: String, x: f64) -> Option<f64> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, x)),
            Err(i) => {
                self.escapes |= !json_plain(name.as_bytes());
                self.entries.insert(i, (Arc::new(name), x));
                None
            }
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| &**k)
    }

    pub fn iter(&self) -> Entries<'_> {
        self.entries.iter().map(|(k, x)| (&**k, x))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> IntoIterator for &'a Metrics {
    type Item = Entry<'a>;
    type IntoIter = Entries<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Metrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_map(s, self.len(), self.iter())
    }
}

/// One benchmark result found in a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    /// 1-based line where the block starts (its header line, or its first line when the header
    /// was lost; for JSON, the line where the object starts).
    pub line: usize,
    pub format: Format,
    /// False when the block was cut off before its closing line (or, for JSON, when the tool
    /// marked the run as not finished). An incomplete block's numbers are not to be trusted.
    pub complete: bool,
    /// Canonical metric name → value in canonical units. Non-numbers (`inf`, `not set`) are left out.
    pub metrics: Metrics,
    /// Every label → the value text as printed.
    pub raw: Raw,
    /// Oddities of the text that do not stop it from being read, e.g. a missing header line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remarks: Vec<String>,
}

impl Block {
    fn new(line: usize, format: Format) -> Block {
        Block { line, format, complete: false, metrics: Metrics::default(), raw: Raw::default(), remarks: Vec::new() }
    }

    /// The value of a canonical metric.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).copied()
    }
}

/// Why a text could not be read. Lines and columns count from 1; line 0 means the whole file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl ParseError {
    fn new(line: usize, col: usize, message: impl Into<String>) -> ParseError {
        ParseError { line, col, message: message.into() }
    }
}

/// Everything found in one text: the results, and the blocks spoiled by a bad value (each an
/// error at the value's position). A spoiled block does not spoil the others.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub blocks: Vec<Block>,
    pub errors: Vec<ParseError>,
}

/// Reads every benchmark result in `text`, keeping the good ones when some are spoiled.
pub fn parse_text(text: &str) -> Parsed {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let found = if text.trim_start().starts_with('{') { json::parse(text) } else { text::parse(text) };
    let mut parsed = Parsed::default();
    for result in found {
        match result {
            Ok(mut b) => {
                settle(&mut b);
                parsed.blocks.push(b);
            }
            Err(e) => parsed.errors.push(e),
        }
    }
    parsed
}

/// What every block read goes through last: repeated labels renamed, negatives of JSON remarked
/// (a text block remarks them line by line).
fn settle(b: &mut Block) {
    b.raw.rename_repeats();
    if b.format.is_json() {
        remark_negatives(b);
    }
}

/// Reads every benchmark result in `text`, strictly: a spoiled block, or an input holding no
/// result, is an error. This is how a stored run file is read.
pub fn parse_str(text: &str) -> Result<Vec<Block>, ParseError> {
    let parsed = parse_text(text);
    if let Some(e) = parsed.errors.into_iter().next() {
        return Err(e);
    }
    if parsed.blocks.is_empty() {
        return Err(no_result());
    }
    Ok(parsed.blocks)
}

/// The error of an input that holds no result.
pub fn no_result() -> ParseError {
    ParseError::new(0, 0, "no benchmark result found (no `Serving Benchmark Result` block and no result JSON)")
}

/// Bytes as text: sequences that are not UTF-8 (progress bars, a cut multi-byte character) are
/// replaced by U+FFFD. Also returns the 1-based lines where that happened.
pub fn decode(bytes: &[u8]) -> (String, Vec<usize>) {
    let mut text = String::with_capacity(bytes.len());
    let mut lines = Vec::new();
    let mut line = 1;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        line += valid.matches('\n').count();
        text.push_str(valid);
        if !chunk.invalid().is_empty() {
            text.push(char::REPLACEMENT_CHARACTER);
            if lines.last() != Some(&line) {
                lines.push(line);
            }
        }
    }
    (text, lines)
}

/// No canonical metric is negative: a negative count, latency or throughput is remarked.
fn remark_negatives(b: &mut Block) {
    for (name, x) in &b.metrics {
        if *x < 0.0 {
            b.remarks.push(format!("`{name}` is negative ({x})"));
        }
    }
}

/// Values that tools print in place of a number; they are kept in `raw` and left out of metrics.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    matches!(
        v.as_str(),
        "inf" | "+inf" | "-inf" | "infinity" | "nan" | "not set" | "n/a" | "na" | "none" | "trace" | "" | "-"
    )
}

/// A number as tools print it: the first word of the value (`1.0 (Poisson process)` → 1.0).
fn number(value: &str) -> Option<f64> {
    // Most values are a short decimal alone, or one followed by a blank and a unit.
    let blank = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    let bytes = value.as_bytes();
    if let Some((x, end)) = decimal::read_start(bytes)
        && bytes.get(end).is_none_or(blank)
    {
        return Some(x);
    }
    let word = if value.is_ascii() {
        // `split_whitespace` for ASCII text, without its Unicode tables.
        let start = value.bytes().position(|b| !blank(&b))?;
        let rest = &value[start..];
        &rest[..rest.bytes().position(|b| blank(&b)).unwrap_or(rest.len())]
    } else {
        value.split_whitespace().next()?
    };
    if let Some(x) = decimal::read(word) {
        return Some(x);
    }
    let x: f64 = word.parse().ok()?;
    x.is_finite().then_some(x)
}

/// A seeded xorshift for tests: `next(n)` is below `n`, and the same on every run.
#[cfg(test)]
fn seeded(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut s = seed;
    move |n| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    }
}

#[cfg(test)]
mod tests;
