//! Reading an input as it comes, one line at a time, and writing what `perflab parse` prints
//! block by block: memory holds the block being read and the one waiting for its successor,
//! never the whole input. A JSON document is read whole (it is one result, or one guidellm file).

use super::{Block, ParseError, decimal, decode, json, json_plain as plain, settle, text};
use std::io::{BufRead, Write};

/// Lines listed one by one in a remark about bytes that are not UTF-8; more are counted.
pub const LISTED_LINES: usize = 10;

/// `3, 7, 9` or `1, 2, …, 10 and 5 more`: the first lines of `shown`, out of `total`.
/// What is said of bytes that are not UTF-8, replaced on the lines `shown` (of `total`).
pub fn replaced_remark(shown: &[usize], total: usize) -> String {
    format!("bytes that are not UTF-8 replaced by U+FFFD on line {}", line_list(shown, total))
}

pub fn line_list(shown: &[usize], total: usize) -> String {
    let shown: Vec<String> = shown.iter().take(LISTED_LINES).map(usize::to_string).collect();
    match total.saturating_sub(LISTED_LINES) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// What reading one input found besides its blocks.
#[derive(Debug, Default)]
pub struct Summary {
    /// The good blocks read.
    pub blocks: usize,
    /// Whether one of them was cut off.
    pub incomplete: bool,
    /// The blocks spoiled by a bad value.
    pub errors: Vec<ParseError>,
    /// The first lines ([`LISTED_LINES`] at most) where bytes that are not UTF-8 were replaced.
    pub replaced: Vec<usize>,
    /// How many lines had bytes replaced.
    pub replaced_lines: usize,
}

/// Why reading stopped: the input could not be read, or a block could not be handed on.
#[derive(Debug)]
pub enum Failure {
    Read(std::io::Error),
    Write(std::io::Error),
}

/// Hands each good block on to `emit` as soon as the next one starts (or the input ends): a
/// block is told about the replaced bytes among its lines, up to the next block.
struct Blocks<'a> {
    emit: &'a mut dyn FnMut(Block) -> std::io::Result<()>,
    summary: Summary,
    /// Lines with replaced bytes not yet told to a block.
    recent: Vec<usize>,
    pending: Option<Block>,
}

impl Blocks<'_> {
    fn replaced(&mut self, line: usize) {
        if self.summary.replaced.last() == Some(&line) || self.recent.last() == Some(&line) {
            return;
        }
        if self.summary.replaced.len() < LISTED_LINES {
            self.summary.replaced.push(line);
        }
        self.summary.replaced_lines += 1;
        self.recent.push(line);
    }

    fn found(&mut self, result: Result<Block, ParseError>) -> Result<(), Failure> {
        match result {
            Err(e) => self.summary.errors.push(e),
            Ok(mut b) => {
                settle(&mut b);
                self.summary.blocks += 1;
                self.summary.incomplete |= !b.complete;
                let line = b.line;
                if let Some(p) = self.pending.replace(b) {
                    self.hand_on(p, line)?;
                }
            }
        }
        Ok(())
    }

    /// Emits `b`, whose lines end before line `end`.
    fn hand_on(&mut self, mut b: Block, end: usize) -> Result<(), Failure> {
        let inside: Vec<usize> = self.recent.iter().copied().filter(|l| (b.line..end).contains(l)).collect();
        self.recent.retain(|l| *l >= end);
        if !inside.is_empty() {
            b.remarks.push(replaced_remark(&inside, inside.len()));
        }
        (self.emit)(b).map_err(Failure::Write)
    }

    fn finish(mut self) -> Result<Summary, Failure> {
        if let Some(p) = self.pending.take() {
            self.hand_on(p, usize::MAX)?;
        }
        Ok(self.summary)
    }
}

/// Reads every benchmark result of `reader`, handing the good ones to `emit` in order; returns
/// what else was found. The blocks are those [`super::parse_text`] finds in the decoded input.
pub fn read(mut reader: impl BufRead, emit: &mut dyn FnMut(Block) -> std::io::Result<()>) -> Result<Summary, Failure> {
    let mut out = Blocks { emit, summary: Summary::default(), recent: Vec::new(), pending: None };
    // The input is JSON when its first character that is not blank is `{`: the lines up to it
    // are held until that is known.
    let mut head: Vec<u8> = Vec::new();
    loop {
        let n = reader.read_until(b'\n', &mut head).map_err(Failure::Read)?;
        let (text, _) = decode(&head);
        let start = text.strip_prefix('\u{feff}').unwrap_or(&text).trim_start();
        if start.starts_with('{') {
            reader.read_to_end(&mut head).map_err(Failure::Read)?;
            return whole_json(&head, out);
        }
        if n == 0 || !start.is_empty() {
            break;
        }
    }
    let mut lines = text::Lines::default();
    let mut done = Vec::new();
    let mut ln = 0;
    let mut feed = |raw: Line, out: &mut Blocks| -> Result<(), Failure> {
        ln += 1;
        let decoded = match raw {
            Line::Text(text) => std::borrow::Cow::Borrowed(&text[..without_ending(text.as_bytes())]),
            Line::Bytes(raw) => {
                let raw = &raw[..without_ending(raw)];
                match std::str::from_utf8(raw) {
                    Ok(text) => std::borrow::Cow::Borrowed(text),
                    Err(_) => {
                        out.replaced(ln);
                        String::from_utf8_lossy(raw)
                    }
                }
            }
        };
        let line = if ln == 1 { decoded.strip_prefix('\u{feff}').unwrap_or(&decoded) } else { &decoded };
        lines.line(line, &mut done);
        // Most lines end no block: no drain to set up and tear down.
        if !done.is_empty() {
            for result in done.drain(..) {
                out.found(result)?;
            }
        }
        Ok(())
    };
    for raw in head.split_inclusive(|b| *b == b'\n') {
        feed(Line::Bytes(raw), &mut out)?;
    }
    each_line(&mut reader, |raw| feed(raw, &mut out))?;
    lines.finish(&mut done);
    for result in done {
        out.found(result)?;
    }
    out.finish()
}

/// A line of the input with its `\n`: known to be UTF-8, or not yet checked.
enum Line<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

/// The length of `line` without its `\n` or `\r\n`.
fn without_ending(line: &[u8]) -> usize {
    match line {
        [.., b'\r', b'\n'] => line.len() - 2,
        [.., b'\n'] => line.len() - 1,
        _ => line.len(),
    }
}

/// Hands `feed` every line of `reader` with its `\n`, as `read_until` would, but in place in the
/// reader's buffer, checked as UTF-8 a buffer at a time: only a line cut by the end of the
/// buffer is copied, to be completed.
fn each_line(reader: &mut impl BufRead, mut feed: impl FnMut(Line) -> Result<(), Failure>) -> Result<(), Failure> {
    let mut cut: Vec<u8> = Vec::new();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        if chunk.is_empty() {
            break;
        }
        let mut rest = chunk;
        if !cut.is_empty() {
            let Some(end) = memchr::memchr(b'\n', rest) else {
                cut.extend_from_slice(rest);
                let n = chunk.len();
                reader.consume(n);
                continue;
            };
            cut.extend_from_slice(&rest[..=end]);
            feed(Line::Bytes(&cut))?;
            cut.clear();
            rest = &rest[end + 1..];
        }
        let whole = memchr::memrchr(b'\n', rest).map_or(0, |end| end + 1);
        let (complete, tail) = rest.split_at(whole);
        let mut start = 0;
        match std::str::from_utf8(complete) {
            Ok(text) => {
                for end in memchr::memchr_iter(b'\n', complete) {
                    feed(Line::Text(&text[start..=end]))?;
                    start = end + 1;
                }
            }
            Err(_) => {
                for end in memchr::memchr_iter(b'\n', complete) {
                    feed(Line::Bytes(&complete[start..=end]))?;
                    start = end + 1;
                }
            }
        }
        cut.extend_from_slice(tail);
        let n = chunk.len();
        reader.consume(n);
    }
    if cut.is_empty() { Ok(()) } else { feed(Line::Bytes(&cut)) }
}

fn whole_json(bytes: &[u8], mut out: Blocks) -> Result<Summary, Failure> {
    let (text, replaced) = decode(bytes);
    for line in replaced {
        out.replaced(line);
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    for result in json::parse(text) {
        out.found(result)?;
    }
    out.finish()
}

/// Writes blocks as the JSON array `perflab parse` prints, one element at a time, formatted as
/// `serde_json::to_writer_pretty` formats the whole array. An element is put together in memory
/// and written at once.
#[derive(Debug, Default)]
pub struct JsonList {
    written: usize,
    element: Vec<u8>,
}

impl JsonList {
    /// Writes one element: `file`'s block `b`.
    pub fn push(&mut self, w: &mut impl Write, file: &str, b: &Block) -> std::io::Result<()> {
        let o = &mut self.element;
        o.clear();
        // Room for the whole element, so that no write below grows it.
        o.reserve(256 + file.len() + b.raw.text().len() + 16 * b.raw.len() + 48 * b.metrics.len());
        o.extend_from_slice(if self.written == 0 { b"[\n  {\n" } else { b",\n  {\n" });
        self.written += 1;
        key(o, "file")?;
        string(o, file)?;
        o.extend_from_slice(b",\n");
        key(o, "line")?;
        writeln!(o, "{},", b.line)?;
        key(o, "format")?;
        string(o, b.format.name())?;
        o.extend_from_slice(b",\n");
        key(o, "complete")?;
        o.extend_from_slice(if b.complete { b"true,\n" } else { b"false,\n" });
        key(o, "metrics")?;
        metrics(o, &b.metrics)?;
        o.extend_from_slice(b",\n");
        key(o, "raw")?;
        raw(o, &b.raw)?;
        if !b.remarks.is_empty() {
            o.extend_from_slice(b",\n");
            key(o, "remarks")?;
            o.extend_from_slice(b"[\n");
            for (i, r) in b.remarks.iter().enumerate() {
                o.extend_from_slice(if i == 0 { b"      " } else { b",\n      " });
                string(o, r)?;
            }
            o.extend_from_slice(b"\n    ]");
        }
        o.extend_from_slice(b"\n  }");
        w.write_all(o)
    }

    /// Closes the array (`[]` when nothing was written).
    pub fn end(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(if self.written == 0 { b"[]" } else { b"\n]" })
    }
}

/// A key of the block object (indented one level inside the array).
fn key(o: &mut Vec<u8>, k: &str) -> std::io::Result<()> {
    o.extend_from_slice(b"    ");
    string(o, k)?;
    o.extend_from_slice(b": ");
    Ok(())
}

/// `s` as a JSON string. Most texts hold nothing to escape and are copied as they are; the
/// others go through serde_json.
fn string(o: &mut Vec<u8>, s: &str) -> std::io::Result<()> {
    if plain(s.as_bytes()) {
        quoted(o, s);
        Ok(())
    } else {
        serde_json::to_writer(o, s).map_err(std::io::Error::from)
    }
}

/// `x` as serde_json writes a number.
fn number(o: &mut Vec<u8>, x: f64) -> std::io::Result<()> {
    if decimal::write(o, x) { Ok(()) } else { serde_json::to_writer(o, &x).map_err(std::io::Error::from) }
}

fn quoted(o: &mut Vec<u8>, s: &str) {
    o.push(b'"');
    o.extend_from_slice(s.as_bytes());
    o.push(b'"');
}

/// The opening of an object's entry, after the one before it if any.
fn entry(o: &mut Vec<u8>, first: bool) {
    o.extend_from_slice(if first { b"{\n      " } else { b",\n      " });
}

/// A block's metrics as a JSON object, in their order.
fn metrics(o: &mut Vec<u8>, m: &super::Metrics) -> std::io::Result<()> {
    if m.is_empty() {
        o.extend_from_slice(b"{}");
        return Ok(());
    }
    let plain_names = !m.escapes();
    for (i, (k, x)) in m.iter().enumerate() {
        entry(o, i == 0);
        if plain_names {
            quoted(o, k);
        } else {
            string(o, k)?;
        }
        o.extend_from_slice(b": ");
        number(o, *x)?;
    }
    o.extend_from_slice(b"\n    }");
    Ok(())
}

/// A block's labels and value texts as a JSON object, in their order.
fn raw(o: &mut Vec<u8>, r: &super::Raw) -> std::io::Result<()> {
    if r.is_empty() {
        o.extend_from_slice(b"{}");
        return Ok(());
    }
    // A block's labels and values lie end to end, most known to need no escape as they were read:
    // one look at the rest tells whether any does.
    let clean = plain(r.unchecked().as_bytes());
    for (i, (k, v)) in r.iter().enumerate() {
        entry(o, i == 0);
        if clean {
            o.push(b'"');
            o.extend_from_slice(k.as_bytes());
            o.extend_from_slice(b"\": \"");
            o.extend_from_slice(v.as_bytes());
            o.push(b'"');
        } else {
            string(o, k)?;
            o.extend_from_slice(b": ");
            string(o, v)?;
        }
    }
    o.extend_from_slice(b"\n    }");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_texts_are_those_serde_json_leaves_alone() {
        let mut texts: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
        texts.extend(["é", "日本", "\u{7f}", "\u{2028}"].map(str::to_string));
        for t in texts.clone() {
            // Each character alone, and at every place of the eight-byte lanes.
            for pad in 0..17 {
                texts.push(format!("{}{t}{}", "a".repeat(pad), "b".repeat(16 - pad)));
            }
        }
        for t in &texts {
            let escaped = serde_json::to_string(t).unwrap() != format!("\"{t}\"");
            assert_eq!(plain(t.as_bytes()), !escaped, "{t:?}");
        }
    }

    #[test]
    fn lines_cut_by_the_buffer_are_read_whole() {
        let text = "a\r\nb\n\n\u{e9}t\u{e9}\nno end".as_bytes();
        let mut bad = text.to_vec();
        bad.splice(4..4, [0xff, b'x']);
        for input in [text, &bad[..]] {
            let mut whole = Vec::new();
            for line in input.split_inclusive(|b| *b == b'\n') {
                whole.push(line.to_vec());
            }
            for capacity in 1..input.len() + 2 {
                let mut seen = Vec::new();
                let reader = std::io::BufReader::with_capacity(capacity, input);
                each_line(&mut { reader }, |line| {
                    seen.push(match line {
                        Line::Text(t) => t.as_bytes().to_vec(),
                        Line::Bytes(b) => b.to_vec(),
                    });
                    Ok(())
                })
                .unwrap();
                assert_eq!(seen, whole, "a buffer of {capacity} bytes");
            }
        }
    }
}
