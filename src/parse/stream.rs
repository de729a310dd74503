//! Reading an input as it comes, one line at a time, and writing what `perflab parse` prints
//! block by block: memory holds the block being read and the one waiting for its successor,
//! never the whole input. A JSON document is read whole (it is one result, or one guidellm file).

use super::{Block, ParseError, decode, json, settle, text};
use std::io::{BufRead, Write};

/// Lines listed one by one in a remark about bytes that are not UTF-8; more are counted.
pub const LISTED_LINES: usize = 10;

/// `3, 7, 9` or `1, 2, …, 10 and 5 more`: the first lines of `shown`, out of `total`.
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
            let list = line_list(&inside, inside.len());
            b.remarks.push(format!("bytes that are not UTF-8 replaced by U+FFFD on line {list}"));
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
    let mut feed = |raw: &[u8], out: &mut Blocks| -> Result<(), Failure> {
        ln += 1;
        let raw = match raw.strip_suffix(b"\n") {
            Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
            None => raw,
        };
        let decoded = match std::str::from_utf8(raw) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => {
                out.replaced(ln);
                String::from_utf8_lossy(raw)
            }
        };
        let line = if ln == 1 { decoded.strip_prefix('\u{feff}').unwrap_or(&decoded) } else { &decoded };
        lines.line(line, &mut done);
        for result in done.drain(..) {
            out.found(result)?;
        }
        Ok(())
    };
    for raw in head.split_inclusive(|b| *b == b'\n') {
        feed(raw, &mut out)?;
    }
    let mut buf = Vec::with_capacity(256);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(Failure::Read)? == 0 {
            break;
        }
        feed(&buf, &mut out)?;
    }
    lines.finish(&mut done);
    for result in done {
        out.found(result)?;
    }
    out.finish()
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
/// `serde_json::to_writer_pretty` formats the whole array.
#[derive(Debug, Default)]
pub struct JsonList {
    written: usize,
}

impl JsonList {
    /// Writes one element: `file`'s block `b`.
    pub fn push(&mut self, w: &mut impl Write, file: &str, b: &Block) -> std::io::Result<()> {
        w.write_all(if self.written == 0 { b"[\n  {\n" } else { b",\n  {\n" })?;
        self.written += 1;
        key(w, "file")?;
        string(w, file)?;
        w.write_all(b",\n")?;
        key(w, "line")?;
        writeln!(w, "{},", b.line)?;
        key(w, "format")?;
        string(w, b.format.name())?;
        w.write_all(b",\n")?;
        key(w, "complete")?;
        w.write_all(if b.complete { b"true,\n" } else { b"false,\n" })?;
        key(w, "metrics")?;
        object(w, b.metrics.iter().map(|(k, v)| (k.as_str(), Value::Number(*v))))?;
        w.write_all(b",\n")?;
        key(w, "raw")?;
        object(w, b.raw.0.iter().map(|(k, v)| (k.as_str(), Value::Text(v))))?;
        if !b.remarks.is_empty() {
            w.write_all(b",\n")?;
            key(w, "remarks")?;
            w.write_all(b"[\n")?;
            for (i, r) in b.remarks.iter().enumerate() {
                w.write_all(if i == 0 { b"      " } else { b",\n      " })?;
                string(w, r)?;
            }
            w.write_all(b"\n    ]")?;
        }
        w.write_all(b"\n  }")
    }

    /// Closes the array (`[]` when nothing was written).
    pub fn end(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(if self.written == 0 { b"[]" } else { b"\n]" })
    }
}

enum Value<'a> {
    Number(f64),
    Text(&'a str),
}

/// A key of the block object (indented one level inside the array).
fn key(w: &mut impl Write, k: &str) -> std::io::Result<()> {
    w.write_all(b"    ")?;
    string(w, k)?;
    w.write_all(b": ")
}

fn string(w: &mut impl Write, s: &str) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, s).map_err(std::io::Error::from)
}

fn object<'a>(w: &mut impl Write, entries: impl Iterator<Item = (&'a str, Value<'a>)>) -> std::io::Result<()> {
    let mut empty = true;
    for (k, v) in entries {
        w.write_all(if empty { b"{\n      " } else { b",\n      " })?;
        empty = false;
        string(w, k)?;
        w.write_all(b": ")?;
        match v {
            Value::Number(x) => serde_json::to_writer(&mut *w, &x).map_err(std::io::Error::from)?,
            Value::Text(t) => string(w, t)?,
        }
    }
    w.write_all(if empty { b"{}" } else { b"\n    }" })
}
