//! One request to an OpenAI-compatible server, timed token by token.

use super::dataset::{Item, Prompt};
use super::http::{Body, Http};
use super::tokenizer::TokenCount;
use crate::parse::requests::{self, RequestRecord};
use std::time::{Duration, Instant};

/// What one request gave. Times are seconds from the start of the benchmark.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The order the request was sent in, from 0.
    pub index: u64,
    pub success: bool,
    pub error: Option<String>,
    /// When the request was due (its arrival time, or when a concurrency slot let it go).
    pub scheduled: f64,
    /// When it was sent.
    pub start: f64,
    pub end: f64,
    /// Seconds to the first token.
    pub ttft: f64,
    /// Seconds between tokens (or chunks).
    pub itls: Vec<f64>,
    pub input_tokens: u64,
    /// How `input_tokens` was counted: the server's usage when it gave one.
    pub input_counted: TokenCount,
    pub output_tokens: u64,
    /// How `output_tokens` was counted: the server's usage, else one a streamed chunk.
    pub output_counted: TokenCount,
    /// When each streamed chunk with text arrived, seconds from the start of the benchmark
    /// (the moment its bytes were read, before they were parsed).
    pub token_times: Vec<f64>,
    /// Why the server's `usage` was not believed, when it was not (the tokens were then
    /// counted by perflab).
    pub usage_doubt: Option<String>,
}

impl Outcome {
    /// Output tokens a chunk stands for: one, unless the server's usage counts more tokens than
    /// it sent chunks (a server that sends several tokens a chunk).
    pub fn tokens_per_chunk(&self) -> f64 {
        if self.token_times.is_empty() {
            0.0
        } else {
            (self.output_tokens as f64 / self.token_times.len() as f64).max(1.0)
        }
    }

    /// Its stream arrived in bursts ([`requests::bursty`]).
    pub fn buffered(&self) -> bool {
        let gaps: Vec<f64> = self.itls.iter().map(|s| s * 1000.0).collect();
        requests::bursty(&gaps)
    }

    /// The request as a record of the requests file, latencies in milliseconds. Latencies are
    /// kept for a request that succeeded; a failed one keeps its TTFT if a token came.
    pub fn record(&self) -> RequestRecord {
        let ms = |s: f64| s * 1000.0;
        let ok = self.success;
        let (ttft, e2el) = (ms(self.ttft), ms(self.end - self.start));
        RequestRecord {
            index: self.index,
            ok,
            error: self.error.clone(),
            input_tokens: Some(self.input_tokens),
            output_tokens: ok.then_some(self.output_tokens),
            scheduled_s: self.scheduled,
            sent_s: self.start,
            ttft_ms: (ok || !self.token_times.is_empty()).then_some(ttft),
            tpot_ms: if ok { requests::tpot_ms(self.end - self.start, self.ttft, self.output_tokens) } else { None },
            e2el_ms: ok.then_some(e2el),
            itl_ms: self.itls.iter().map(|x| ms(*x)).collect(),
            buffered: self.buffered(),
        }
    }
}

/// The request body for an item.
pub fn body(model: &str, item: &Item, chat: bool, stream: bool, ignore_eos: bool) -> String {
    let mut v = serde_json::json!({
        "model": model,
        "max_tokens": item.output_tokens,
        "stream": stream,
    });
    if stream {
        v["stream_options"] = serde_json::json!({"include_usage": true});
    }
    if ignore_eos {
        v["ignore_eos"] = serde_json::json!(true);
        v["min_tokens"] = serde_json::json!(item.output_tokens);
    }
    let text = |p: &Prompt| match p {
        Prompt::Text(t) => serde_json::json!(t),
        Prompt::Tokens(t) => serde_json::json!(t.iter().map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")),
    };
    if chat {
        v["messages"] = serde_json::json!([{"role": "user", "content": text(&item.prompt)}]);
    } else {
        v["prompt"] = match &item.prompt {
            Prompt::Tokens(t) => serde_json::json!(t),
            p => text(p),
        };
    }
    v.to_string()
}

/// A count in the server's `usage`: a number, or what the server sent instead (as written).
#[derive(Debug, Clone, PartialEq)]
enum Count {
    Number(u64),
    Odd(String),
}

impl Count {
    /// The count of a JSON value; `null` (or no value) is none.
    fn of(v: Option<&serde_json::Value>) -> Option<Count> {
        match v? {
            serde_json::Value::Null => None,
            v => Some(v.as_u64().map_or_else(|| Count::Odd(v.to_string()), Count::Number)),
        }
    }
}

/// The server's `usage` of a response: (prompt tokens, completion tokens).
#[derive(Debug, Clone, Default, PartialEq)]
struct Usage {
    prompt: Option<Count>,
    completion: Option<Count>,
}

impl Usage {
    fn of(v: &serde_json::Value) -> Usage {
        let get = |k: &str| Count::of(v.pointer(&format!("/usage/{k}")));
        Usage { prompt: get("prompt_tokens"), completion: get("completion_tokens") }
    }

    fn or(self, earlier: Usage) -> Usage {
        Usage { prompt: self.prompt.or(earlier.prompt), completion: self.completion.or(earlier.completion) }
    }

    /// Why these counts cannot be the request's, if they cannot: a count that is not a whole
    /// number, no prompt tokens for a prompt that has some, more than twice the output tokens
    /// asked for, or none for output that streamed tokens.
    fn doubt(&self, asked: &Asked, chunks: u64) -> Option<String> {
        for (name, count) in [("prompt_tokens", &self.prompt), ("completion_tokens", &self.completion)] {
            if let Some(Count::Odd(text)) = count {
                return Some(format!("{name} is {text}, not a count"));
            }
        }
        if self.prompt == Some(Count::Number(0)) && asked.input_tokens > 0 {
            return Some("prompt_tokens is 0 for a prompt that is not empty".to_string());
        }
        match self.completion {
            Some(Count::Number(c)) if asked.max_tokens > 0 && c > asked.max_tokens.saturating_mul(2) => {
                Some(format!("completion_tokens is {c} where max_tokens is {}", asked.max_tokens))
            }
            Some(Count::Number(0)) if chunks > 0 => {
                Some(format!("completion_tokens is 0 for {chunks} streamed tokens"))
            }
            _ => None,
        }
    }

    /// Records the request's token counts in the outcome: the server's when they can be
    /// believed, else the prompt's as the dataset counted it and one token a streamed chunk (the
    /// outcome then says why). Output without a stream has nothing else to count it by.
    fn apply(self, out: &mut Outcome, asked: &Asked, chunks: u64, streamed: bool) -> Result<(), String> {
        if let Some(why) = self.doubt(asked, chunks) {
            if !streamed {
                return Err(format!(
                    "the server's usage cannot be believed ({why}), and without a stream nothing else counts the output"
                ));
            }
            out.usage_doubt = Some(why);
            out.output_tokens = chunks;
            out.output_counted = TokenCount::Ids;
            return Ok(());
        }
        if let Some(Count::Number(p)) = self.prompt {
            out.input_tokens = p;
            out.input_counted = TokenCount::Server;
        }
        match self.completion {
            Some(Count::Number(c)) => {
                out.output_tokens = c;
                out.output_counted = TokenCount::Server;
            }
            _ => {
                out.output_tokens = chunks;
                out.output_counted = TokenCount::Ids;
            }
        }
        Ok(())
    }
}

/// What a request asked for, which the server's counts are judged by.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    /// The prompt's length as the dataset counted it, and how.
    pub input_tokens: u64,
    pub input_counted: TokenCount,
    /// `max_tokens`.
    pub max_tokens: u64,
}

impl Asked {
    pub fn of(item: &Item) -> Asked {
        Asked { input_tokens: item.input_tokens, input_counted: item.counted, max_tokens: item.output_tokens }
    }
}

/// The parts of a streamed chunk the client reads; everything else is skipped unparsed.
#[derive(serde::Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<UsageCounts>,
    #[serde(default, borrow)]
    error: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
}

#[derive(serde::Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct UsageCounts {
    prompt_tokens: Option<serde_json::Value>,
    completion_tokens: Option<serde_json::Value>,
}

/// One streamed event: whether it carried text, and its usage, as the stream reader reads it.
/// Most events are a token and nothing else: [`glance`] reads those without parsing them; the
/// others (usage, an error, an event it cannot vouch for) are parsed.
#[cfg(test)]
fn event(data: &str) -> Result<(bool, Usage), String> {
    match glance(data.as_bytes()) {
        Some(text) => Ok((text, Usage::default())),
        None => parse_event(data),
    }
}

/// Whether an event that holds neither usage nor an error carries a token: whether its `text`
/// is a string (empty too: a token that decodes to a partial character), or its `content` or
/// `reasoning_content` a string that is not empty (a request asks for one choice). `None` when the event must be parsed: it names `usage` (not null) or `error`, it is
/// not one object, or a text key is not followed by a string or null. One pass over the event,
/// stopping at its quotes only.
fn glance(d: &[u8]) -> Option<bool> {
    if d.first() != Some(&b'{') || d.last() != Some(&b'}') {
        return None;
    }
    let mut text = false;
    let mut from = 0;
    while let Some(q) = d[from..].iter().position(|b| *b == b'"') {
        let at = from + q;
        from = at + 1;
        let rest = &d[at..];
        if rest.starts_with(b"\"error\"") {
            return None;
        }
        let usage = rest.starts_with(b"\"usage\"");
        let key =
            [&b"\"text\""[..], b"\"content\"", b"\"reasoning_content\""].into_iter().find(|k| rest.starts_with(k));
        let Some(len) = key.map(<[u8]>::len).or(usage.then_some(7)) else { continue };
        // A key is followed by its colon; the same word as a string value is not.
        let Some(value) = rest[len..].trim_ascii_start().strip_prefix(b":").map(<[u8]>::trim_ascii_start) else {
            continue;
        };
        match value.first() {
            Some(b'n') if value.starts_with(b"null") => {}
            _ if usage => return None,
            // A completion's `text` is a token even when it decodes to nothing (a partial
            // character), as vLLM's client counts it; a chat delta counts when it holds text.
            Some(b'"') => text |= key == Some(&b"\"text\""[..]) || value.get(1) != Some(&b'"'),
            _ => return None,
        }
    }
    Some(text)
}

/// An event read in full.
fn parse_event(data: &str) -> Result<(bool, Usage), String> {
    let chunk: Chunk = serde_json::from_str(data)
        .map_err(|e| format!("malformed chunk ({e}): {}", data.chars().take(80).collect::<String>()))?;
    if let Some(err) = chunk.error {
        return Err(format!("server error in stream: {}", err.get()));
    }
    let usage = chunk.usage.map_or(Usage::default(), |u| Usage {
        prompt: Count::of(u.prompt_tokens.as_ref()),
        completion: Count::of(u.completion_tokens.as_ref()),
    });
    let text = chunk.choices.first().is_some_and(|c| {
        let delta = c.delta.as_ref();
        c.text.is_some()
            || [delta.and_then(|d| d.content.as_ref()), delta.and_then(|d| d.reasoning_content.as_ref())]
                .into_iter()
                .flatten()
                .any(|t| !t.is_empty())
    });
    Ok((text, usage))
}

/// Sends one request and times it. Never panics: every failure is an outcome with a reason.
pub async fn send(
    client: &Http,
    path: &str,
    body: String,
    stream: bool,
    asked: Asked,
    origin: Instant,
    timeout: Duration,
) -> Outcome {
    let start = origin.elapsed().as_secs_f64();
    let (input_tokens, input_counted) = (asked.input_tokens, asked.input_counted);
    let mut out =
        Outcome { start, input_tokens, input_counted, output_counted: TokenCount::Server, ..Outcome::default() };
    let result = tokio::time::timeout(timeout, exchange(client, path, body, (stream, asked), origin, &mut out)).await;
    out.end = origin.elapsed().as_secs_f64();
    match result {
        Ok(Ok(())) => out.success = true,
        Ok(Err(e)) => out.error = Some(e),
        Err(_) => out.error = Some(format!("timed out after {:.0} s", timeout.as_secs_f64())),
    }
    out
}

async fn exchange(
    client: &Http,
    path: &str,
    body: String,
    (stream, asked): (bool, Asked),
    origin: Instant,
    out: &mut Outcome,
) -> Result<(), String> {
    let response =
        client.request("POST", path, Some(body.as_bytes())).await.map_err(|e| format!("connection failed: {e}"))?;
    let status = response.status;
    let mut body = response.body;
    if !(200..300).contains(&status) {
        return Err(refusal(status, &mut body).await);
    }
    if stream {
        read_stream(&mut body, &asked, origin, out).await
    } else {
        read_whole(&mut body, &asked, origin, out).await
    }
}

/// An error response's status and reason.
async fn refusal(status: u16, body: &mut Body) -> String {
    // The reason is in the first bytes; an endless error body must not fill the memory.
    let bytes = read_limited(body, ERROR_BODY_LIMIT).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.get("message").or_else(|| v.pointer("/error/message")).and_then(|m| m.as_str()).map(str::to_string)
        })
        .unwrap_or_else(|| text.chars().take(120).collect());
    format!("HTTP {status}: {message}")
}

/// Reads a response that does not stream: its only token time is when it was read.
async fn read_whole(body: &mut Body, asked: &Asked, origin: Instant, out: &mut Outcome) -> Result<(), String> {
    let bytes = read_limited(body, BODY_LIMIT).await?;
    if bytes.len() >= BODY_LIMIT {
        return Err(format!("a response larger than {} MiB", BODY_LIMIT >> 20));
    }
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| format!("malformed response: {e}"))?;
    let now = origin.elapsed().as_secs_f64();
    out.ttft = now - out.start;
    Usage::of(&v).apply(out, asked, 0, false)?;
    out.token_times = vec![now];
    Ok(())
}

/// Reads a stream of server-sent events up to `[DONE]`, timing every token.
async fn read_stream(body: &mut Body, asked: &Asked, origin: Instant, out: &mut Outcome) -> Result<(), String> {
    let mut events = EventReader::default();
    let mut last = 0.0;
    let mut chunks = 0u64;
    let mut usage = Usage::default();
    let mut done = false;
    while let Some((read_at, data)) =
        body.next().await.map_err(|e| format!("stream interrupted after {chunks} tokens: {e}"))?
    {
        // The moment the bytes arrived: every token they carry arrived then.
        let now = read_at.saturating_duration_since(origin).as_secs_f64();
        events.read(data, |payload| {
            // Nothing after the end of the stream counts.
            if done {
                return Ok(());
            }
            if payload == b"[DONE]" {
                done = true;
                return Ok(());
            }
            let (token, u) = match glance(payload) {
                Some(text) => (text, Usage::default()),
                None => parse_event(&String::from_utf8_lossy(payload))?,
            };
            usage = u.or(std::mem::take(&mut usage));
            if token {
                if chunks == 0 {
                    out.ttft = now - out.start;
                } else {
                    out.itls.push(now - last);
                }
                out.token_times.push(now);
                last = now;
                chunks += 1;
            }
            Ok(())
        })?;
    }
    if !done {
        return Err(format!("stream ended without [DONE] after {chunks} tokens"));
    }
    if chunks == 0 {
        return Err("no token received".to_string());
    }
    usage.apply(out, asked, chunks, true)
}

/// The most of an error response that is read: its reason is at the start.
const ERROR_BODY_LIMIT: usize = 64 << 10;
/// The most of a whole (not streamed) response that is read.
const BODY_LIMIT: usize = 16 << 20;
/// The longest server-sent event (a token event is a few hundred bytes).
const EVENT_LIMIT: usize = 1 << 20;

/// The body's bytes, at most `limit` of them (the rest is not read).
pub async fn read_limited(body: &mut Body, limit: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        let Some((_, data)) = body.next().await.map_err(|e| format!("response interrupted: {e}"))? else { break };
        let room = limit - bytes.len();
        bytes.extend_from_slice(&data[..data.len().min(room)]);
    }
    Ok(bytes)
}

/// Reads a server-sent event stream as its bytes arrive. A line ends at LF, CR or CRLF (the
/// three endings the format allows; a CRLF split between two reads is one ending), and a blank
/// line ends an event: its `data:` lines are then handed on, one at a time, without the
/// spaces around them. An event still unfinished when the stream ends does not count.
#[derive(Debug, Default)]
struct EventReader {
    /// The line being read.
    line: Vec<u8>,
    /// The `data:` payloads of the event being read, one after the other, and where each ends.
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Bytes of the event being read so far.
    size: usize,
    /// The last byte read was a CR that ended a line: an LF right after it ends nothing.
    after_cr: bool,
}

impl EventReader {
    /// Reads the next bytes of the stream; `event` gets the `data:` payloads of each event
    /// they complete. An error of `event` stops the reading.
    fn read(&mut self, bytes: &[u8], mut event: impl FnMut(&[u8]) -> Result<(), String>) -> Result<(), String> {
        let mut rest = bytes;
        if std::mem::take(&mut self.after_cr) && rest.first() == Some(&b'\n') {
            rest = &rest[1..];
        }
        while let Some(i) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.line.extend_from_slice(&rest[..i]);
            let mut next = i + 1;
            if rest[i] == b'\r' {
                match rest.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            rest = &rest[next..];
            self.end_line(&mut event)?;
        }
        self.line.extend_from_slice(rest);
        self.check_size(self.line.len())
    }

    /// A line has ended: a blank one hands the event on, a `data:` one is kept for it.
    fn end_line(&mut self, event: &mut impl FnMut(&[u8]) -> Result<(), String>) -> Result<(), String> {
        if self.line.is_empty() {
            let mut from = 0;
            for end in self.ends.drain(..) {
                event(&self.data[from..end])?;
                from = end;
            }
            self.data.clear();
            self.size = 0;
            return Ok(());
        }
        self.size += self.line.len() + 1;
        if let Some(payload) = self.line.strip_prefix(b"data:") {
            self.data.extend_from_slice(payload.trim_ascii());
            self.ends.push(self.data.len());
        }
        self.line.clear();
        self.check_size(0)
    }

    /// An event, `unfinished` bytes of an unended line included, stays within [`EVENT_LIMIT`].
    fn check_size(&self, unfinished: usize) -> Result<(), String> {
        if self.size + unfinished > EVENT_LIMIT {
            return Err(format!("an event longer than {} KiB without its blank line", EVENT_LIMIT >> 10));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_count_text_and_read_usage() {
        let none = Usage::default();
        assert_eq!(event(r#"{"choices":[{"text":" a"}]}"#), Ok((true, none.clone())));
        assert_eq!(event(r#"{"choices":[{"delta":{"content":"b"}}]}"#), Ok((true, none)));
        assert_eq!(
            event(r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#),
            Ok((false, Usage { prompt: Some(Count::Number(5)), completion: Some(Count::Number(7)) }))
        );
        assert!(event(r#"{"choices": ["#).unwrap_err().starts_with("malformed chunk"));
        assert_eq!(
            event(r#"{"choices":[{"delta":{"content":"\u00e7ok"}}]}"#),
            Ok((true, Usage::default())),
            "escaped text"
        );
        assert!(event(r#"{"error":{"message":"boom"}}"#).unwrap_err().contains("boom"));
    }

    /// The payloads `EventReader` hands on when `stream` arrives in the pieces `cuts` makes.
    fn payloads(stream: &[u8], cuts: &[usize]) -> Result<Vec<String>, String> {
        let mut reader = EventReader::default();
        let mut got = Vec::new();
        let mut from = 0;
        for to in cuts.iter().copied().chain([stream.len()]) {
            reader.read(&stream[from..to], |p| {
                got.push(String::from_utf8_lossy(p).into_owned());
                Ok(())
            })?;
            from = to;
        }
        Ok(got)
    }

    #[test]
    fn events_end_at_a_blank_line_whatever_the_line_endings_and_wherever_the_reads_split() {
        let want = ["a", "b", "[DONE]"];
        for ending in ["\n", "\r", "\r\n"] {
            let stream = format!("data: a{e}{e}: comment{e}data:b {e}{e}data: [DONE]{e}{e}data: late", e = ending);
            let bytes = stream.as_bytes();
            // In one read, and split in two at every place.
            assert_eq!(payloads(bytes, &[]).unwrap(), want, "{ending:?}");
            for cut in 0..bytes.len() {
                assert_eq!(payloads(bytes, &[cut]).unwrap(), want, "{ending:?} cut at {cut}");
            }
        }
        // Endings mixed in one stream; a CR followed by CRLF is a blank line too.
        assert_eq!(payloads(b"data: a\r\r\ndata: b\n\r\ndata: c\r\n\n", &[]).unwrap(), ["a", "b", "c"]);
        // A CRLF split between reads is one ending, not a blank line.
        assert_eq!(payloads(b"data: a\r\ndata: b\r\n\r\n", &[8]).unwrap(), ["a", "b"]);
        let endless = vec![b'x'; EVENT_LIMIT + 1];
        assert!(payloads(&endless, &[]).unwrap_err().contains("without its blank line"));
        let many_lines = b"data: 0123456789\n".repeat(EVENT_LIMIT / 10);
        assert!(payloads(&many_lines, &[]).unwrap_err().contains("without its blank line"));
    }

    #[test]
    fn a_glance_agrees_with_a_full_reading() {
        let events = [
            r#"{"id":"c","object":"text_completion","choices":[{"index":0,"text":" a","logprobs":null,"finish_reason":null}],"usage":null}"#,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{"content":null,"reasoning_content":"thinking"}}]}"#,
            r#"{"choices":[{"delta":{"content": "\"usage\": {\"error\"}"}}]}"#,
            r#"{"choices":[{"text":""}]}"#,
            r#"{"choices":[{"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":9}}"#,
            r#"{"choices":[],"usage": {"prompt_tokens":3,"completion_tokens":9}}"#,
            r#"{"object":"error","error":{"message":"boom"}}"#,
            r#"{"choices":[{"text":7}]}"#,
            r#"{"choices": ["#,
        ];
        for e in events {
            assert_eq!(event(e), parse_event(e), "{e}");
        }
        assert_eq!(glance(events[0].as_bytes()), Some(true), "a token is not parsed");
        assert_eq!(glance(events[1].as_bytes()), Some(false), "a chat delta without text is no token");
        assert_eq!(glance(events[4].as_bytes()), Some(true), "a completion token that decodes to nothing");
        assert_eq!(glance(events[5].as_bytes()), None, "usage is parsed");
        assert_eq!(glance(events[7].as_bytes()), None, "an error is parsed");
    }
}
