//! The `Serving Benchmark Result` block family, and vLLM's 2023 summary lines.

use super::{Block, Format, Name, Order, ParseError, is_placeholder, names, number};

/// Lines that vLLM prints before a block and that describe it.
const CONTEXT_LABELS: &[&str] = &["Traffic request rate", "Burstiness factor", "Maximum request concurrency"];

/// Labels that announce a SGLang, TensorRT-LLM or GPUStack block.
fn dialect_of(label: &str, section: &str) -> Option<Format> {
    match label {
        "Backend"
        | "Max request concurrency"
        | "Max reqeuest concurrency"
        | "Total throughput (tok/s)"
        | "Total generated tokens (retokenized)"
        | "Total input text tokens"
        | "Total input vision tokens"
        | "Accept length"
        | "Concurrency" => Some(Format::Sglang),
        "User throughput (tok/s)"
        | "Avg Decoded Tokens per Iter"
        | "Total requests"
        | "Total failed requests"
        | "Mean Request AR"
        | "Median Request AR" => Some(Format::Trtllm),
        _ => dialect_of_section(label, section),
    }
}

/// The part of [`dialect_of`] that depends on the section a label is printed under.
fn dialect_of_section(label: &str, section: &str) -> Option<Format> {
    match section {
        "Latency" if label.ends_with("Latency(s)") => Some(Format::Gpustack),
        "End-to-End Latency" | "Inter-Token Latency" => Some(Format::Sglang),
        _ => None,
    }
}

/// What a printed label says, worked out once for each label text: the labels of a log repeat in
/// every block, and matching one against every known label costs more than the rest of its line.
#[derive(Clone)]
struct Meaning {
    /// Its metric and scale ([`names::text_label`]) in a plain section, and under one that
    /// renames latencies.
    plain: Option<(Name, f64)>,
    renamed: Option<(Name, f64)>,
    /// The dialect it announces wherever it is printed.
    dialect: Option<Format>,
    /// Whether the label holds nothing that JSON escapes.
    json_plain: bool,
}

impl Meaning {
    fn of(label: &str) -> Meaning {
        Meaning {
            plain: names::text_label(label, true).map(|(name, scale)| (Name::new(name), scale)),
            renamed: names::text_label(label, false).map(|(name, scale)| (Name::new(name), scale)),
            dialect: dialect_of(label, ""),
            json_plain: super::json_plain(label.as_bytes()),
        }
    }
}

/// The meanings of the labels read so far, up to [`Labels::KEPT`] of them: memory stays bounded
/// whatever the log holds.
#[derive(Default)]
pub(super) struct Labels {
    index: std::collections::HashMap<Box<str>, usize, std::hash::BuildHasherDefault<super::LabelHash>>,
    meanings: Vec<Meaning>,
    /// For each meaning, the last block that printed its label ([`Labels::next_block`]).
    printed_in: Vec<u64>,
    /// For each meaning, its label, and the meaning looked up after it the last time (a log's
    /// blocks print their labels in the same order: the next is mostly found without a hash).
    texts: Vec<Box<str>>,
    after: Vec<usize>,
    /// The meaning looked up last in this block, if it is kept.
    previous: Option<usize>,
    blocks: u64,
    /// Dashed section titles, and whether they rename latencies.
    sections: std::collections::HashMap<Box<str>, bool, std::hash::BuildHasherDefault<super::LabelHash>>,
    /// The order of the metrics of the last block sorted.
    order: Order,
}

impl Labels {
    const KEPT: usize = 4096;

    /// A number for a new block, for [`Labels::meaning`] to tell repeated labels.
    fn next_block(&mut self) -> u64 {
        self.blocks += 1;
        self.previous = None;
        self.blocks
    }

    /// What `label` means, and whether it is known to be printed for the first time in `block`.
    fn meaning(&mut self, label: &str, block: u64) -> (bool, std::borrow::Cow<'_, Meaning>) {
        let predicted = self.previous.map(|p| self.after[p]).filter(|&n| *self.texts[n] == *label);
        let known = predicted.or_else(|| self.index.get(label).copied());
        let (first, i) = match known {
            Some(i) => {
                let first = self.printed_in[i] != block;
                self.printed_in[i] = block;
                (first, i)
            }
            None if self.meanings.len() >= Labels::KEPT => {
                self.previous = None;
                return (false, std::borrow::Cow::Owned(Meaning::of(label)));
            }
            None => {
                let i = self.meanings.len();
                self.index.insert(label.into(), i);
                self.meanings.push(Meaning::of(label));
                self.printed_in.push(block);
                self.texts.push(label.into());
                // Until it is followed, a label predicts itself: never wrong, as it is checked.
                self.after.push(i);
                (true, i)
            }
        };
        if let Some(p) = self.previous {
            self.after[p] = i;
        }
        self.previous = Some(i);
        (first, std::borrow::Cow::Borrowed(&self.meanings[i]))
    }

    /// [`names::section_renames_latencies`].
    fn renames_latencies(&mut self, section: &str) -> bool {
        if let Some(&renames) = self.sections.get(section) {
            return renames;
        }
        let renames = names::section_renames_latencies(section);
        if self.sections.len() < Labels::KEPT {
            self.sections.insert(section.into(), renames);
        }
        renames
    }
}

fn is_header(t: &str) -> bool {
    t.starts_with('=') && t.ends_with('=') && t.contains("Serving Benchmark Result")
}

fn is_rule(t: &str) -> bool {
    t.len() >= 10 && leading(t.as_bytes(), b'=') == t.len()
}

/// How many of the first bytes of `bytes` are `b`: runs of padding, dashes and rules are
/// counted eight bytes at a time.
fn leading(bytes: &[u8], b: u8) -> usize {
    let mut n = 0;
    while let Some(word) = bytes.get(n..n + 8) {
        let other = word.try_into().map_or(1, u64::from_le_bytes) ^ u64::from_le_bytes([b; 8]);
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|&&c| c == b).count()
}

/// How many of the last bytes of `bytes` are `b`, as [`leading`] counts the first.
fn trailing(bytes: &[u8], b: u8) -> usize {
    let mut n = 0;
    while let Some(word) = bytes.len().checked_sub(n + 8).and_then(|at| bytes.get(at..at + 8)) {
        // Big-endian: the last byte is the lowest.
        let other = word.try_into().map_or(1, u64::from_be_bytes) ^ u64::from_le_bytes([b; 8]);
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[..bytes.len() - n].iter().rev().take_while(|&&c| c == b).count()
}

/// `=====!FAILED REQUESTS!=====` and the like, printed by TensorRT-LLM inside a block.
fn marker(t: &str) -> Option<&str> {
    if t.len() > 6 && t.starts_with("===") && t.ends_with("===") {
        let inner = t.trim_matches('=').trim().trim_matches('!').trim();
        (!inner.is_empty()).then_some(inner)
    } else {
        None
    }
}

/// `-----Time to First Token-----` → `Time to First Token`.
fn section(t: &str) -> Option<&str> {
    if t.starts_with("---") && t.ends_with("---") {
        // The dashes are cut as bytes: they are ASCII, and so are the ends they leave.
        let bytes = t.as_bytes();
        let start = leading(bytes, b'-');
        if start == bytes.len() {
            return None;
        }
        let inner = trim(&t[start..bytes.len() - trailing(bytes, b'-')]);
        (!inner.is_empty()).then_some(inner)
    } else {
        None
    }
}

/// `label: value` with a label that starts with a letter.
fn label_value(line: &str) -> Option<(&str, &str)> {
    let colon = memchr::memchr(b':', line.as_bytes())?;
    let label = trim(&line[..colon]);
    if !label.as_bytes().first()?.is_ascii_alphabetic() {
        return None;
    }
    Some((label, trim(&line[colon + 1..])))
}

/// `str::trim`: ASCII blanks are cut byte by byte (the padding of every value), and the Unicode
/// trim is left for a text that then starts or ends with another character that may be blank.
fn trim(s: &str) -> &str {
    // Most labels and lines start and end with a character that is plain ASCII, not blank.
    let solid = |b: Option<&u8>| b.is_some_and(|&b| b > b' ' && b.is_ascii());
    if solid(s.as_bytes().first()) && solid(s.as_bytes().last()) {
        return s;
    }
    trim_end(trim_start(s))
}

/// Whether a byte is neither ASCII white space nor part of a character that may be blank.
fn plain(b: u8) -> bool {
    b.is_ascii() && b != 0x0B
}

fn trim_start(s: &str) -> &str {
    // Values are padded with runs of spaces: those are skipped eight bytes at a time, up to the
    // first byte of a word that is not a space.
    let t = s[leading(s.as_bytes(), b' ')..].trim_ascii_start();
    match t.as_bytes().first() {
        Some(&b) if !plain(b) => t.trim_start(),
        _ => t,
    }
}

/// `str::trim_end`, as [`trim`] is `str::trim`.
fn trim_end(s: &str) -> &str {
    let t = s.trim_ascii_end();
    match t.as_bytes().last() {
        Some(&b) if !plain(b) => t.trim_end(),
        _ => t,
    }
}

struct Builder {
    block: Block,
    /// The metrics read, in the order read: sorted once, when the block ends.
    metrics: Vec<(Name, f64)>,
    /// This block's number ([`Labels::next_block`]), and whether its labels are known to differ.
    number: u64,
    distinct: bool,
    section: String,
    /// False under a section whose latency labels mean something else.
    plain_section: bool,
    /// The label whose value was empty, for indented child lines (`  Position 0:`).
    parent: Option<String>,
    dialect: Option<Format>,
    /// The first value that should have been a number and is not: it spoils the block.
    error: Option<ParseError>,
}

impl Builder {
    fn new(line: usize, context: &mut Vec<(usize, String, String)>, labels: &mut Labels) -> Builder {
        let mut b = Builder {
            // Room for a typical block, grown if it is longer.
            block: Block { raw: super::Raw::with_capacity(32, 1024), ..Block::new(line, Format::Vllm) },
            metrics: Vec::with_capacity(32),
            number: labels.next_block(),
            distinct: true,
            section: String::new(),
            plain_section: true,
            parent: None,
            dialect: None,
            error: None,
        };
        for (ln, label, value) in context.drain(..) {
            b.field(labels, ln, &label, &value, || 1);
        }
        b
    }

    /// Records one `label: value` line. `col` tells where the value starts, for errors.
    fn field(&mut self, labels: &mut Labels, ln: usize, label: &str, value: &str, col: impl FnOnce() -> usize) {
        let (first, meaning) = labels.meaning(label, self.number);
        self.distinct &= first;
        if self.dialect.is_none() {
            self.dialect = meaning.dialect.or_else(|| dialect_of_section(label, &self.section));
        }
        let metric = if self.plain_section { &meaning.plain } else { &meaning.renamed };
        if let Some((name, scale)) = metric {
            match number(value) {
                Some(x) => {
                    if x < 0.0 {
                        self.block.remarks.push(format!("line {ln}: `{label}` is negative ({value})"));
                    }
                    self.metrics.push((name.clone(), x * scale));
                }
                None if is_placeholder(value) => {}
                None if self.error.is_none() => {
                    self.error =
                        Some(ParseError::new(ln, col(), format!("`{label}` should be a number, found `{value}`")));
                }
                None => {}
            }
        }
        self.block.raw.push_known(label, value, meaning.json_plain);
    }

    /// The block, or the error that spoiled it.
    fn finish(mut self, complete: bool, order: &mut Order) -> Result<Block, ParseError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.block.metrics = order.sort(self.metrics);
        if self.distinct {
            self.block.raw.labels_differ();
        }
        self.block.complete = complete;
        self.block.format = self.dialect.unwrap_or(Format::Vllm);
        if !complete {
            self.block.remarks.push("cut off before the closing line".to_string());
        }
        Ok(self.block)
    }
}

/// What a line means inside a block.
enum Step {
    Continue,
    Close,
    /// The line does not belong to the block: end it (cut off) and read the line again outside.
    Leave,
}

fn step(b: &mut Builder, labels: &mut Labels, ln: usize, line: &str) -> Step {
    let t = trim(line);
    if t.is_empty() {
        return Step::Continue;
    }
    // Rules, headers, markers and sections start with `=` or `-`; most lines with a letter.
    if !t.as_bytes()[0].is_ascii_alphabetic()
        && let Some(step) = rule_or_section(b, labels, t)
    {
        return step;
    }
    let Some((label, value)) = label_value(line) else {
        return Step::Leave;
    };
    match &b.parent {
        Some(parent) if line.starts_with(char::is_whitespace) => {
            let full = format!("{parent} / {label}");
            b.distinct = false;
            b.block.raw.push(&full, value);
        }
        _ => {
            // The value's column, for errors: it ends the line, after the trailing padding.
            b.field(labels, ln, label, value, || trim_end(line).len() - value.len() + 1);
            b.parent = value.is_empty().then(|| label.to_string());
        }
    }
    Step::Continue
}

/// What the trimmed line `t` means when it is a closing rule, a header, a marker or a section.
fn rule_or_section(b: &mut Builder, labels: &mut Labels, t: &str) -> Option<Step> {
    if is_rule(t) {
        return Some(Step::Close);
    }
    if is_header(t) {
        return Some(Step::Leave);
    }
    if let Some(m) = marker(t) {
        b.distinct = false;
        b.block.raw.push(m, "");
        return Some(Step::Continue);
    }
    let s = section(t)?;
    b.section.clear();
    b.section.push_str(s);
    b.plain_section = !labels.renames_latencies(s);
    b.parent = None;
    if b.dialect.is_none() {
        b.dialect = dialect_of("", s);
    }
    Some(Step::Continue)
}

/// vLLM's 2023 summary: `Total time: 12.3 s`, `Throughput: 8.1 requests/s`, `Average latency: 1.2 s`, ...
fn legacy_field(block: &mut Block, label: &str, value: &str) -> bool {
    let name = match label {
        "Total time" => "duration",
        "Throughput" if value.ends_with("requests/s") => "request_throughput",
        "Average latency" => "mean_e2el_ms",
        "Average latency per token" | "Average latency per output token" => "",
        _ => return false,
    };
    if let (false, Some(x)) = (name.is_empty(), number(value)) {
        let scale = if name.ends_with("_ms") { 1000.0 } else { 1.0 };
        block.metrics.insert(name.to_string(), x * scale);
    }
    block.raw.push(label, value);
    true
}

/// Every block of `text`; a block spoiled by a value that is not a number is an error instead,
/// and the others are kept.
pub(super) fn parse(text: &str) -> Vec<Result<Block, ParseError>> {
    let mut reader = Lines::default();
    let mut blocks = Vec::new();
    for line in text.lines() {
        reader.line(line, &mut blocks);
    }
    reader.finish(&mut blocks);
    blocks
}

/// The block reader, fed one line at a time: it holds the block being read and nothing else, so
/// that a log of any length is read in the memory of its largest block.
#[derive(Default)]
pub(super) struct Lines {
    /// The 1-based number of the last line read.
    ln: usize,
    context: Vec<(usize, String, String)>,
    labels: Labels,
    current: Option<Builder>,
    legacy: Option<Block>,
}

impl Lines {
    /// Reads the next line (without its line ending); the blocks it ends go to `done`.
    pub(super) fn line(&mut self, line: &str, done: &mut Vec<Result<Block, ParseError>>) {
        self.ln += 1;
        let ln = self.ln;
        if let Some(b) = self.current.as_mut() {
            match step(b, &mut self.labels, ln, line) {
                Step::Continue => return,
                Step::Close => {
                    if let Some(b) = self.current.take() {
                        done.push(b.finish(true, &mut self.labels.order));
                    }
                    return;
                }
                Step::Leave => {
                    if let Some(b) = self.current.take() {
                        done.push(b.finish(false, &mut self.labels.order));
                    }
                }
            }
        }
        let t = trim(line);
        if let Some(block) = self.legacy.as_mut() {
            let known = label_value(t).is_some_and(|(l, v)| l != "Total time" && legacy_field(block, l, v));
            if known {
                return;
            }
            if let Some(block) = self.legacy.take() {
                done.push(Ok(close_legacy(block)));
            }
        }
        if is_header(t) {
            self.current = Some(Builder::new(ln, &mut self.context, &mut self.labels));
            return;
        }
        let Some((label, value)) = label_value(t) else {
            return;
        };
        if label == "Successful requests" {
            // A block whose header line was lost in a paste.
            let mut b = Builder::new(ln, &mut self.context, &mut self.labels);
            b.block.remarks.push("header line missing".to_string());
            step(&mut b, &mut self.labels, ln, line);
            self.current = Some(b);
        } else if CONTEXT_LABELS.contains(&label) {
            self.context.retain(|(_, l, _)| l != label);
            self.context.push((ln, label.to_string(), value.to_string()));
        } else if label == "Total time" && value.ends_with(" s") {
            let mut block = Block::new(ln, Format::VllmLegacy);
            legacy_field(&mut block, label, value);
            self.legacy = Some(block);
        }
    }

    /// The end of the text: a block still open is cut off.
    pub(super) fn finish(mut self, done: &mut Vec<Result<Block, ParseError>>) {
        if let Some(b) = self.current {
            done.push(b.finish(false, &mut self.labels.order));
        }
        if let Some(block) = self.legacy {
            done.push(Ok(close_legacy(block)));
        }
    }
}

fn close_legacy(mut block: Block) -> Block {
    block.complete = block.metrics.contains_key("request_throughput");
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_past_those_kept_mean_what_they_say() {
        let mut text = String::from("============ Serving Benchmark Result ============\n");
        for i in 0..Labels::KEPT + 10 {
            text.push_str(&format!("Note {i}: {i}\n"));
        }
        text.push_str("Mean TTFT (ms): 12.5\nTotal requests: 3\n==================================================\n");
        let blocks = parse(&text);
        let b = blocks[0].as_ref().unwrap();
        assert_eq!(b.metric("mean_ttft_ms"), Some(12.5));
        assert_eq!(b.format, Format::Trtllm);
        assert_eq!(b.raw.len(), Labels::KEPT + 12);
    }

    #[test]
    fn a_metric_printed_twice_keeps_its_last_value() {
        let text = "Successful requests: 5\nMean TTFT (ms): 1\nMean TTFT (ms): 2\nP99 TTFT (ms): 3\n==========\n";
        let b = parse(text);
        let b = b[0].as_ref().unwrap();
        assert!(b.complete);
        assert_eq!(b.metric("mean_ttft_ms"), Some(2.0));
        assert_eq!(b.metric("completed"), Some(5.0));
        assert_eq!(b.metrics.len(), 3);
    }

    #[test]
    fn labels_repeated_in_a_block_are_renamed_and_those_of_earlier_blocks_are_not() {
        let text = "Maximum request concurrency: 4\n============ Serving Benchmark Result ============\n\
                    Successful requests: 5\nMaximum request concurrency: 8\n==========\n\
                    ============ Serving Benchmark Result ============\nSuccessful requests: 6\n\
                    Maximum request concurrency: 9\n==========\n";
        let mut parsed = parse(text).into_iter().map(Result::unwrap).collect::<Vec<_>>();
        for b in &mut parsed {
            b.raw.rename_repeats();
        }
        let labels = |b: &Block| b.raw.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        assert_eq!(
            labels(&parsed[0]),
            ["Maximum request concurrency=4", "Successful requests=5", "Maximum request concurrency (2)=8"]
        );
        assert_eq!(labels(&parsed[1]), ["Successful requests=6", "Maximum request concurrency=9"]);
        assert_eq!(parsed[0].metric("max_concurrency"), Some(8.0));
    }

    #[test]
    fn blocks_read_after_others_are_read_as_if_alone() {
        // Labels in seeded orders, some repeated, under sections that rename latencies or not:
        // what the caches of a log (label meanings, the label after each, metric orders) give
        // a block must be what it gives alone.
        let lines = [
            "Successful requests: 10",
            "Mean TTFT (ms): 12.5",
            "Median TTFT (ms): 7",
            "P99 ITL (ms): 3.25",
            "Total requests: 12",
            "Request throughput (req/s): 1.5",
            "Mean E2EL (ms): 100",
            "Backend: sglang",
            "Benchmark duration (s): 65.62",
            "---------------Probe Requests----------------",
            "-----------Time to First Token------------",
        ];
        let mut next = super::super::seeded(0x1234_5678_9abc_def1);
        let mut shapes: Vec<Vec<usize>> = Vec::new();
        let mut blocks = Vec::new();
        for _ in 0..400 {
            let shape = if next(3) > 0 && !shapes.is_empty() {
                shapes[next(shapes.len() as u64) as usize].clone()
            } else {
                (0..next(14)).map(|_| next(lines.len() as u64) as usize).collect()
            };
            let mut block = String::from("============ Serving Benchmark Result ============\n");
            for &i in &shape {
                block.push_str(lines[i]);
                block.push('\n');
            }
            block.push_str("==================================================\n");
            shapes.push(shape);
            blocks.push(block);
        }
        // Blocks alone start on line 1.
        let unplaced = |r: Result<Block, ParseError>| r.map(|b| Block { line: 0, ..b });
        let alone: Vec<_> = blocks.iter().flat_map(|b| parse(b)).map(unplaced).collect();
        let together: Vec<_> = parse(&blocks.concat()).into_iter().map(unplaced).collect();
        assert_eq!(together.len(), 400);
        assert_eq!(together, alone);
    }

    #[test]
    fn runs_are_counted_as_byte_by_byte() {
        for len in 0..40 {
            for at in 0..=len {
                // A run of `at` dashes then other bytes, and the same backwards.
                let mut bytes = vec![b'-'; len];
                bytes[at..].iter_mut().enumerate().for_each(|(i, b)| *b = if i % 3 == 0 { b'x' } else { b'-' });
                let first = bytes.iter().take_while(|&&b| b == b'-').count();
                let last = bytes.iter().rev().take_while(|&&b| b == b'-').count();
                assert_eq!((leading(&bytes, b'-'), trailing(&bytes, b'-')), (first, last), "{bytes:?}");
            }
        }
    }

    #[test]
    fn trims_agree_with_str_trim() {
        for s in [
            "",
            " ",
            "\u{b}x\u{b}",
            "\u{a0}x ",
            "         a b         ",
            "x\u{3000}",
            "\t\t\t\t\t\t\t\t\t 1 ",
            "                 \u{e9}",
            "           \u{a0}x",
            "        ",
            "       \t x",
            "          x\u{3000}  ",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
            assert_eq!(trim_end(s), s.trim_end(), "{s:?}");
        }
    }
}
