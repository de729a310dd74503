//! The benchmark's HTTP/1.1 client: one request at a time on a connection, the connection kept
//! open and reused, and a response body handed on where it lies in the connection's buffer, so
//! that a streamed token costs one socket read and no copy, allocation or second task.

use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest response head read (status line and headers).
const HEAD_LIMIT: usize = 64 << 10;
/// The longest line of chunked framing (a chunk's size and extensions, a trailer).
const LINE_LIMIT: usize = 8 << 10;
/// A connection's buffer: room for the events of many tokens in one read.
const BUFFER: usize = 8 << 10;

/// A client of one server, its idle connections kept for the next request.
#[derive(Clone)]
pub struct Http {
    inner: Arc<Inner>,
}

struct Inner {
    /// `host:port`, to connect to and for the `host` header.
    authority: String,
    /// The base URL's path (without its last `/`), put before every request's path.
    prefix: String,
    idle: Mutex<Vec<Conn>>,
}

impl Http {
    /// A client of the server at `base` (`http://host[:port][/prefix]`).
    pub fn new(base: &str) -> Result<Http, String> {
        let rest = base.strip_prefix("http://").ok_or_else(|| {
            if base.starts_with("https://") {
                format!("'{base}': https is not supported (perflab bench speaks plain HTTP)")
            } else {
                format!("'{base}' is not an http:// URL")
            }
        })?;
        let (authority, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() || authority.contains(['@', '?', '#', ' ']) {
            return Err(format!("'{base}' is not a URL with a host"));
        }
        let has_port = authority.rsplit_once(':').is_some_and(|(_, p)| !p.contains(']'));
        let authority = if has_port { authority.to_string() } else { format!("{authority}:80") };
        let prefix = prefix.trim_end_matches('/').to_string();
        Ok(Http { inner: Arc::new(Inner { authority, prefix, idle: Mutex::new(Vec::new()) }) })
    }

    /// Sends a request (`body` is JSON; none for a GET) and reads the response's head. A kept
    /// connection that the server closed before answering is replaced by a new one.
    pub async fn request(&self, method: &str, path: &str, body: Option<&[u8]>) -> Result<Response, String> {
        let message = self.message(method, path, body);
        let kept = self.inner.idle.lock().ok().and_then(|mut idle| idle.pop());
        if let Some(conn) = kept {
            match self.exchange(conn, &message).await {
                Ok(response) => return Ok(response),
                Err(Failure::Unanswered(_)) => {}
                Err(Failure::Broken(e)) => return Err(e),
            }
        }
        let stream = TcpStream::connect(&self.inner.authority).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let conn = Conn { stream, buf: vec![0; BUFFER], at: 0, len: 0, read_at: Instant::now() };
        self.exchange(conn, &message).await.map_err(|(Failure::Unanswered(e) | Failure::Broken(e))| e)
    }

    fn message(&self, method: &str, path: &str, body: Option<&[u8]>) -> Vec<u8> {
        let Inner { authority, prefix, .. } = &*self.inner;
        let mut message = format!("{method} {prefix}{path} HTTP/1.1\r\nhost: {authority}\r\n");
        if let Some(body) = body {
            message += &format!("content-type: application/json\r\ncontent-length: {}\r\n", body.len());
        }
        message += "\r\n";
        let mut message = message.into_bytes();
        message.extend_from_slice(body.unwrap_or_default());
        message
    }

    async fn exchange(&self, mut conn: Conn, message: &[u8]) -> Result<Response, Failure> {
        conn.stream.write_all(message).await.map_err(|e| Failure::Unanswered(e.to_string()))?;
        let head = conn.head().await?;
        let framing = if head.status < 200 || head.status == 204 || head.status == 304 {
            Framing::Length(0)
        } else {
            head.framing
        };
        let pool = head.keep_alive.then(|| self.inner.clone());
        Ok(Response { status: head.status, body: Body { conn: Some(conn), framing, pool } })
    }
}

/// Why a request got no response: `Unanswered` when the server read nothing of it or said
/// nothing back (a kept connection it had closed), `Broken` when its answer was not HTTP.
enum Failure {
    Unanswered(String),
    Broken(String),
}

/// A response: its status, and its body to read.
pub struct Response {
    pub status: u16,
    pub body: Body,
}

/// How a body ends.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Framing {
    /// After this many more bytes.
    Length(u64),
    /// Chunked transfer coding, in the part of it named.
    Chunked(Chunk),
    /// When the server closes the connection.
    Close,
    /// It has ended.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Chunk {
    /// A chunk's size line is next.
    Size,
    /// This many bytes of the chunk's data are still to come.
    Data(u64),
    /// The line end after a chunk's data is next.
    DataEnd,
    /// The trailer lines after the last chunk, up to a blank one.
    Trailer,
}

struct Head {
    status: u16,
    framing: Framing,
    keep_alive: bool,
}

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    /// The unread bytes are `buf[at..len]`.
    at: usize,
    len: usize,
    /// When the last socket read returned.
    read_at: Instant,
}

impl Conn {
    fn pending(&self) -> &[u8] {
        &self.buf[self.at..self.len]
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
        if self.at == self.len {
            (self.at, self.len) = (0, 0);
        }
    }

    /// Reads what the server has sent (one socket read); 0 when it closed the connection.
    async fn fill(&mut self) -> std::io::Result<usize> {
        if self.len == self.buf.len() {
            if self.at > 0 {
                self.buf.copy_within(self.at..self.len, 0);
                (self.at, self.len) = (0, self.len - self.at);
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        let n = self.stream.read(&mut self.buf[self.len..]).await?;
        self.len += n;
        self.read_at = Instant::now();
        Ok(n)
    }

    /// Reads the response's head; interim (1xx) responses are skipped.
    async fn head(&mut self) -> Result<Head, Failure> {
        loop {
            if let Some(end) = blank_line(self.pending()) {
                let head = parse_head(&self.pending()[..end]).map_err(Failure::Broken)?;
                self.consume(end);
                if (100..200).contains(&head.status) && head.status != 101 {
                    continue;
                }
                return Ok(head);
            }
            if self.pending().len() > HEAD_LIMIT {
                return Err(Failure::Broken(format!("a response head longer than {} KiB", HEAD_LIMIT >> 10)));
            }
            let answered = self.len > 0;
            match self.fill().await {
                Ok(0) if answered => {
                    return Err(Failure::Broken("the connection closed within the response head".into()));
                }
                Ok(0) => return Err(Failure::Unanswered("the server closed the connection without answering".into())),
                Ok(_) => {}
                Err(e) if answered => return Err(Failure::Broken(e.to_string())),
                Err(e) => return Err(Failure::Unanswered(e.to_string())),
            }
        }
    }

    /// The next line of chunked framing (without its line end), consumed.
    async fn line(&mut self) -> Result<Vec<u8>, String> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', self.pending()) {
                let line = self.pending()[..i].strip_suffix(b"\r").unwrap_or(&self.pending()[..i]).to_vec();
                self.consume(i + 1);
                return Ok(line);
            }
            if self.pending().len() > LINE_LIMIT {
                return Err(format!("a chunk size line longer than {} KiB", LINE_LIMIT >> 10));
            }
            self.more().await?;
        }
    }

    /// Reads more, where the body is not over: a closed connection is an error.
    async fn more(&mut self) -> Result<(), String> {
        match self.fill().await {
            Ok(0) => Err("the connection closed before the response ended".to_string()),
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Where the head of `bytes` ends: after its first blank line (CRLF or LF line ends).
fn blank_line(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', bytes).find_map(|i| match &bytes[i + 1..] {
        [b'\n', ..] => Some(i + 2),
        [b'\r', b'\n', ..] => Some(i + 3),
        _ => None,
    })
}

fn parse_head(head: &[u8]) -> Result<Head, String> {
    let text = std::str::from_utf8(head).map_err(|_| "a response head that is not text".to_string())?;
    let mut lines = text.lines();
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.split_ascii_whitespace();
    let version = parts.next().filter(|v| v.starts_with("HTTP/1."));
    let status = parts.next().and_then(|s| s.parse::<u16>().ok()).filter(|s| (100..1000).contains(s));
    let (Some(version), Some(status)) = (version, status) else {
        return Err(format!("not an HTTP/1 response: '{}'", status_line.chars().take(80).collect::<String>()));
    };
    let mut keep_alive = version != "HTTP/1.0";
    let mut framing = Framing::Close;
    let mut length = None;
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("a response header without a colon: '{}'", line.chars().take(80).collect::<String>()));
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("transfer-encoding") {
            let last = value.rsplit(',').next().unwrap_or_default().trim();
            framing = if last.eq_ignore_ascii_case("chunked") { Framing::Chunked(Chunk::Size) } else { Framing::Close };
        } else if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse::<u64>().map_err(|_| format!("a response content-length of '{value}'"))?);
        } else if name.eq_ignore_ascii_case("connection") {
            let has = |word: &str| value.split(',').any(|v| v.trim().eq_ignore_ascii_case(word));
            keep_alive = if has("close") { false } else { keep_alive || has("keep-alive") };
        }
    }
    // Chunked coding wins over a length; a body that ends with the connection leaves none to keep.
    match (framing, length) {
        (Framing::Close, Some(n)) => framing = Framing::Length(n),
        (Framing::Close, None) => keep_alive = false,
        _ => {}
    }
    Ok(Head { status, framing, keep_alive })
}

/// A response body, read a piece at a time.
pub struct Body {
    conn: Option<Conn>,
    framing: Framing,
    /// Where the connection goes back once the body is read, if it can be kept.
    pool: Option<Arc<Inner>>,
}

impl Body {
    /// The next bytes of the body, and when they were read from the socket; `None` at its end.
    pub async fn next(&mut self) -> Result<Option<(Instant, &[u8])>, String> {
        let Some(conn) = self.conn.as_mut() else { return Ok(None) };
        let (from, to) = loop {
            let want = match self.framing {
                Framing::Done => return Ok(None),
                Framing::Length(0) => {
                    self.finish();
                    return Ok(None);
                }
                Framing::Chunked(Chunk::Trailer) => {
                    while !conn.line().await?.is_empty() {}
                    self.finish();
                    return Ok(None);
                }
                Framing::Chunked(Chunk::Size) => {
                    let line = conn.line().await?;
                    self.framing = Framing::Chunked(match chunk_size(&line)? {
                        0 => Chunk::Trailer,
                        n => Chunk::Data(n),
                    });
                    continue;
                }
                Framing::Chunked(Chunk::DataEnd) => {
                    if !conn.line().await?.is_empty() {
                        return Err("a chunk longer than its size".to_string());
                    }
                    self.framing = Framing::Chunked(Chunk::Size);
                    continue;
                }
                Framing::Length(left) | Framing::Chunked(Chunk::Data(left)) => left,
                Framing::Close => u64::MAX,
            };
            if conn.pending().is_empty() {
                let n = conn.fill().await.map_err(|e| e.to_string())?;
                if n == 0 && self.framing == Framing::Close {
                    self.framing = Framing::Done;
                    return Ok(None);
                }
                if n == 0 {
                    return Err("the connection closed before the response ended".to_string());
                }
            }
            let n = conn.pending().len().min(usize::try_from(want).unwrap_or(usize::MAX));
            let from = conn.at;
            conn.consume(n);
            self.framing = match self.framing {
                Framing::Length(left) => Framing::Length(left - n as u64),
                Framing::Chunked(_) if want == n as u64 => Framing::Chunked(Chunk::DataEnd),
                Framing::Chunked(_) => Framing::Chunked(Chunk::Data(want - n as u64)),
                other => other,
            };
            break (from, from + n);
        };
        Ok(self.conn.as_ref().map(|conn| (conn.read_at, &conn.buf[from..to])))
    }

    /// The body has ended: its connection is kept for another request, unless the server
    /// closes it or sent more than the response.
    fn finish(&mut self) {
        self.framing = Framing::Done;
        let conn = self.conn.take();
        if let (Some(conn), Some(pool)) = (conn, self.pool.take())
            && conn.pending().is_empty()
            && let Ok(mut idle) = pool.idle.lock()
        {
            idle.push(conn);
        }
    }
}

/// A chunk's size, from its size line (hexadecimal digits, then perhaps extensions).
fn chunk_size(line: &[u8]) -> Result<u64, String> {
    let digits = line.split(|b| *b == b';').next().unwrap_or_default().trim_ascii();
    std::str::from_utf8(digits)
        .ok()
        .filter(|d| !d.is_empty() && d.len() <= 15)
        .and_then(|d| u64::from_str_radix(d, 16).ok())
        .ok_or_else(|| {
            format!("a chunk size of '{}'", String::from_utf8_lossy(line).chars().take(40).collect::<String>())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_say_how_the_body_ends_and_whether_the_connection_stays() {
        let head = |text: &str| parse_head(text.as_bytes()).map(|h| (h.status, h.framing, h.keep_alive));
        assert_eq!(head("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n"), Ok((200, Framing::Length(5), true)));
        assert_eq!(
            head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
            Ok((200, Framing::Chunked(Chunk::Size), true))
        );
        assert_eq!(
            head("HTTP/1.1 200 OK\nconnection: close\ncontent-length: 1\n"),
            Ok((200, Framing::Length(1), false))
        );
        assert_eq!(head("HTTP/1.1 200 OK\r\n"), Ok((200, Framing::Close, false)));
        assert_eq!(head("HTTP/1.0 200 OK\r\ncontent-length: 1\r\n"), Ok((200, Framing::Length(1), false)));
        assert!(head("SSH-2.0-OpenSSH\r\n").unwrap_err().contains("not an HTTP/1 response"));
        assert!(head("HTTP/1.1 200 OK\r\ncontent-length: lots\r\n").unwrap_err().contains("'lots'"));
        assert_eq!(blank_line(b"HTTP/1.1 200 OK\r\na: b\r\n\r\nbody"), Some(25));
        assert_eq!(blank_line(b"HTTP/1.1 200 OK\na: b\n\nbody"), Some(22));
        assert_eq!(blank_line(b"HTTP/1.1 200 OK\r\na: b\r\n"), None);
        assert_eq!(chunk_size(b"1a;name=value"), Ok(26));
        assert!(chunk_size(b"zz").is_err());
    }

    /// A server that answers each request on a connection with the next of `answers`, written a
    /// byte at a time (so that the client's reads split it everywhere), and counts connections.
    fn server(answers: Vec<&'static str>) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = stream.set_nodelay(true);
                for answer in &answers {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                        head.push(byte[0]);
                    }
                    for b in answer.as_bytes() {
                        let _ = stream.write_all(&[*b]);
                    }
                }
            }
        });
        (base, connections)
    }

    async fn body_of(http: &Http) -> Result<(u16, String), String> {
        let mut response = http.request("GET", "/", None).await?;
        let mut text = Vec::new();
        while let Some((_, bytes)) = response.body.next().await? {
            text.extend_from_slice(bytes);
        }
        Ok((response.status, String::from_utf8_lossy(&text).into_owned()))
    }

    #[tokio::test]
    async fn bodies_are_read_whatever_their_framing_and_the_connection_is_kept() {
        let chunked = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\ntrailer: t\r\n\r\n";
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\ncontent-length: 4\n\nnone";
        let closed = "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nto the end";
        let (base, connections) = server(vec![chunked, interim, chunked, closed]);
        let http = Http::new(&base).unwrap();
        assert_eq!(body_of(&http).await, Ok((200, "hello world".into())));
        assert_eq!(body_of(&http).await, Ok((404, "none".into())));
        assert_eq!(body_of(&http).await, Ok((200, "hello world".into())));
        assert_eq!(body_of(&http).await, Ok((200, "to the end".into())));
        assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1, "one connection for all four");
        // The server closed it: the next request opens another.
        assert_eq!(body_of(&http).await, Ok((200, "hello world".into())));
        assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_body_cut_short_is_an_error() {
        for answer in [
            "HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nshort",
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel",
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        ] {
            let (base, _) = server(vec![answer]);
            assert!(body_of(&Http::new(&base).unwrap()).await.is_err(), "{answer}");
        }
    }

    #[test]
    fn base_urls_give_an_authority_and_a_prefix() {
        let parts = |base: &str| Http::new(base).map(|h| (h.inner.authority.clone(), h.inner.prefix.clone()));
        assert_eq!(parts("http://127.0.0.1:8000"), Ok(("127.0.0.1:8000".into(), String::new())));
        assert_eq!(parts("http://host/api/"), Ok(("host:80".into(), "/api".into())));
        assert_eq!(parts("http://[::1]:9/"), Ok(("[::1]:9".into(), String::new())));
        assert_eq!(parts("http://[::1]"), Ok(("[::1]:80".into(), String::new())));
        assert!(parts("https://host").unwrap_err().contains("https is not supported"));
        assert!(parts("host:8000").is_err());
    }
}
