//! The simulated engine's HTTP server and its continuous-batching loop.

use super::{Capacity, EngineOptions, StartError};
use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// A request handed to a replica: how many tokens to prefill and to produce.
struct Job {
    input: u64,
    output: u64,
    events: mpsc::UnboundedSender<bool>,
    /// When the request reached the engine: a step begun for it on an idle engine begins here.
    arrived: std::time::Instant,
}

struct Seq {
    job: Job,
    prefill_left: u64,
    produced: u64,
}

struct State {
    args: EngineOptions,
    ready: AtomicBool,
    replicas: Vec<mpsc::UnboundedSender<Job>>,
    next: AtomicUsize,
    requests: AtomicU64,
    streams: AtomicU64,
    /// The core died (`--sim-core-dies-after`): the server answers, the engine does not.
    dead: AtomicBool,
    /// `/health` checks still to answer 503 once requests came (`--sim-health-blips`).
    blips: AtomicU64,
    /// `--sim-noise`: this start's draw and the current benchmark's speed.
    noise: std::sync::Mutex<Noise>,
}

/// The state of `--sim-noise`'s draws.
struct Noise {
    /// Which start this is, from `--sim-noise-counter`.
    start: u64,
    /// The start's draw.
    start_draw: f64,
    /// Benchmarks seen (bursts after an idle gap).
    benchmarks: u64,
    /// The current speed factor.
    factor: f64,
    /// When the engine last had nothing to do; `None` while busy.
    idle_since: Option<std::time::Instant>,
}

impl Noise {
    fn new(args: &EngineOptions, start: u64) -> Noise {
        let start_draw = crate::sim::draw(args.sim_seed, 0, start);
        Noise { start, start_draw, benchmarks: 0, factor: 1.0, idle_since: Some(std::time::Instant::now()) }
    }

    /// A request arrives: after an idle gap it starts a new benchmark, with a new draw.
    fn busy(&mut self, args: &EngineOptions) {
        let gap = Duration::from_millis(args.sim_benchmark_gap_ms);
        if self.idle_since.take().is_some_and(|t| t.elapsed() >= gap) || self.benchmarks == 0 {
            let bench = crate::sim::draw(args.sim_seed, 1 + self.start, self.benchmarks);
            self.benchmarks += 1;
            self.factor =
                crate::sim::mixed_speed_factor(args.sim_noise, args.sim_noise_per_run, self.start_draw, bench);
        }
    }
}

/// Reads and counts this engine start in `--sim-noise-counter`: the number of starts before it.
fn count_start(path: Option<&std::path::Path>) -> u64 {
    let Some(path) = path else { return 0 };
    let before = std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse::<u64>().ok()).unwrap_or(0);
    if let Err(e) = std::fs::write(path, format!("{}\n", before + 1)) {
        eprintln!("WARNING cannot write --sim-noise-counter '{}': {e}", path.display());
    }
    before
}

/// Runs the engine until the process ends. Prints what an engine prints while it loads; exits
/// with an error (after the load, for out of memory) when its flags cannot work.
pub async fn serve(args: EngineOptions) -> anyhow::Result<()> {
    eprintln!("INFO simulated engine: model={} tp={} dp={}", args.model, args.tp_size, args.dp_size);
    if args.sim_ignore_sigterm {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::spawn(async move {
            while term.recv().await.is_some() {
                eprintln!("INFO SIGTERM received; shutdown hangs (simulated)");
            }
        });
    }
    let capacity = match args.capacity() {
        Ok(c) => Ok(c),
        Err(e @ StartError::Unsupported(_)) => {
            eprintln!("{e}");
            trailing_noise(args.sim_log_after_error);
            anyhow::bail!("engine failed to start: {e}");
        }
        Err(e) => Err(e),
    };
    let mut replicas = Vec::new();
    let mut loops = Vec::new();
    for _ in 0..args.dp_size.max(1) {
        let (tx, rx) = mpsc::unbounded_channel();
        replicas.push(tx);
        loops.push(rx);
    }
    let state = Arc::new(State {
        args: args.clone(),
        ready: AtomicBool::new(false),
        replicas,
        next: AtomicUsize::new(0),
        requests: AtomicU64::new(0),
        streams: AtomicU64::new(0),
        dead: AtomicBool::new(false),
        blips: AtomicU64::new(args.sim_health_blips),
        noise: std::sync::Mutex::new(Noise::new(&args, count_start(args.sim_noise_counter.as_deref()))),
    });
    let accept = if args.sim_bind_late { None } else { Some(listen(&state).await?) };
    // Loading, told in quarters as engines report loading weights.
    let quarter = Duration::from_secs_f64(args.sim_startup_seconds.max(0.0) / 4.0);
    for done in 1..=4 {
        tokio::time::sleep(quarter).await;
        if args.sim_die_while_loading && done == 2 {
            eprintln!("RuntimeError: NCCL error: unhandled system error (simulated worker failure)");
            std::process::exit(1);
        }
        eprintln!("INFO Loading weights: {}%", done * 25);
    }
    match capacity {
        Ok(cap) => {
            eprintln!("INFO KV cache: {} tokens a replica, {} sequences at most", cap.kv_tokens, cap.max_seqs);
            let completed = Arc::new(AtomicU64::new(0));
            for rx in loops {
                let (cap, state, completed) = (cap.clone(), state.clone(), completed.clone());
                std::thread::spawn(move || replica(cap, state, rx, completed));
            }
        }
        Err(e) => {
            eprintln!("{e}");
            trailing_noise(args.sim_log_after_error);
            anyhow::bail!("engine failed to start: {e}");
        }
    }
    let accept = match accept {
        Some(a) => a,
        None => listen(&state).await?,
    };
    state.ready.store(true, Ordering::SeqCst);
    eprintln!("INFO Application startup complete.");
    accept.await?;
    Ok(())
}

/// What a Python engine prints after its error: the traceback's frames, the worker's shutdown
/// and the resource tracker's warnings (`lines` of them).
fn trailing_noise(lines: usize) {
    for i in 0..lines {
        match i % 4 {
            0 => eprintln!("  File \"/usr/lib/python3/site-packages/engine/worker.py\", line {}, in run", 100 + i),
            1 => eprintln!("    self.model_runner.profile_run()"),
            2 => eprintln!("INFO worker {} shutting down", i / 4),
            _ => eprintln!(
                "/usr/lib/python3.11/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown"
            ),
        }
    }
    eprintln!("warnings.warn('resource_tracker: There appear to be %d '");
}

/// The listen backlog: room for every connection of a client that opens tens of thousands at
/// once, so that the engine's queue is not what limits a test of the client (the kernel caps it
/// at `net.core.somaxconn`, 4096 by default).
const BACKLOG: u32 = 65_535;

/// Binds the port and serves connections on it.
async fn listen(state: &Arc<State>) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let args = &state.args;
    let bound = async {
        let address = tokio::net::lookup_host((args.host.as_str(), args.port))
            .await?
            .next()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no address"))?;
        let socket =
            if address.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
        socket.set_reuseaddr(true)?;
        socket.bind(address)?;
        socket.listen(BACKLOG)
    };
    let listener = match bound.await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "OSError: [Errno 98] error while attempting to bind on address ({}, {}): {e}",
                args.host, args.port
            );
            return Err(e.into());
        }
    };
    eprintln!("INFO listening on http://{}:{} (loading for {:.1}s)", args.host, args.port, args.sim_startup_seconds);
    let state = state.clone();
    Ok(tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            // Each chunk goes out as it is written, as uvicorn (under vLLM and SGLang) sends it:
            // with Nagle's algorithm a chunk written while the one before is unacknowledged waits
            // for the client's delayed acknowledgement (about 40 ms on Linux).
            let _ = stream.set_nodelay(!state.args.sim_nagle);
            let state = state.clone();
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let service = hyper::service::service_fn(move |req| handle(req, state.clone()));
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    }))
}

/// How far behind its schedule the engine loop may fall and still catch up: a host that stalls
/// the process for a moment (a busy disk, another process's burst) delays tokens but not the
/// end of the benchmark, as a GPU's own timeline would not be delayed; a process stopped for
/// longer starts a new schedule rather than emit a long burst.
const CATCH_UP_LIMIT: Duration = Duration::from_secs(1);

/// A replica's sequences: those waiting to be admitted, those running, and the KV cache the
/// running ones hold.
#[derive(Default)]
struct Batch {
    waiting: VecDeque<Job>,
    running: Vec<Seq>,
    kv_used: u64,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.running.is_empty() && self.waiting.is_empty()
    }

    /// Admits, in arrival order, every waiting sequence that the batch and the KV cache have
    /// room for (a large prompt does not hold back smaller ones behind it).
    fn admit(&mut self, cap: &Capacity) {
        let mut i = 0;
        while i < self.waiting.len() && self.running.len() < cap.max_seqs {
            let need = self.waiting[i].input + self.waiting[i].output;
            if self.kv_used + need <= cap.kv_tokens || self.running.is_empty() {
                if let Some(job) = self.waiting.remove(i) {
                    self.kv_used += need;
                    self.running.push(Seq { prefill_left: job.input.max(1), produced: 0, job });
                }
            } else {
                i += 1;
            }
        }
    }

    /// Prefills up to `budget` prompt tokens, first come first; returns the tokens prefilled.
    fn prefill(&mut self, mut budget: u64) -> u64 {
        let mut prefilled = 0;
        for s in self.running.iter_mut().filter(|s| s.prefill_left > 0) {
            let take = s.prefill_left.min(budget);
            s.prefill_left -= take;
            budget -= take;
            prefilled += take;
            if budget == 0 {
                break;
            }
        }
        prefilled
    }

    /// Milliseconds the step takes that prefilled `prefilled` tokens, at speed `speed`.
    fn step_ms(&self, cap: &Capacity, args: &EngineOptions, prefilled: u64, speed: f64) -> f64 {
        let decoding = self.running.iter().any(|s| s.prefill_left == 0);
        let occupancy = self.running.len() as f64 / cap.max_seqs as f64;
        let decode = if decoding { args.sim_decode_ms * (1.0 + args.sim_batch_penalty * occupancy) } else { 0.0 };
        let work = (decode + prefilled as f64 * args.sim_prefill_ms_per_1k / 1000.0) / cap.speedup;
        (work + cap.overhead_ms) * cap.step_factor / speed
    }

    /// Sends every decoding sequence its next token and lets go of those finished or no longer
    /// listened to; returns how many finished.
    fn decode(&mut self) -> u64 {
        let mut finished = 0;
        let kv_used = &mut self.kv_used;
        self.running.retain_mut(|s| {
            if s.prefill_left > 0 {
                return true;
            }
            s.produced += 1;
            let last = s.produced >= s.job.output;
            let delivered = s.job.events.send(last).is_ok();
            if last || !delivered {
                *kv_used -= s.job.input + s.job.output;
                finished += u64::from(last);
                return false;
            }
            true
        });
        finished
    }
}

/// Fails the engine as `--sim-crash-after` and `--sim-core-dies-after` ask once `total` requests
/// completed: the first ends the process, the second marks the core dead and returns true.
fn fail_after(state: &State, total: u64) -> bool {
    let args = &state.args;
    if let Some(limit) = args.sim_crash_after
        && total >= limit
    {
        eprintln!("RuntimeError: CUDA error: an illegal memory access was encountered");
        eprintln!("ERROR engine core died unexpectedly; shutting down");
        std::process::exit(1);
    }
    if let Some(limit) = args.sim_core_dies_after
        && total >= limit
    {
        eprintln!(
            "ERROR EngineCore encountered a fatal error: RuntimeError: CUDA error: an illegal memory access was encountered"
        );
        eprintln!("ERROR EngineDeadError: EngineCore encountered an issue. See stack trace for the root cause.");
        state.dead.store(true, Ordering::SeqCst);
        return true;
    }
    false
}

/// One replica's engine loop, on a thread of its own: the operating system's timer wakes it
/// within tens of microseconds of a step's end, where the async runtime's timer rounds every
/// sleep up to the next millisecond, which would add up to a millisecond to each token.
fn replica(cap: Capacity, state: Arc<State>, mut rx: mpsc::UnboundedReceiver<Job>, completed: Arc<AtomicU64>) {
    use std::time::Instant;
    let args = &state.args;
    let mut batch = Batch::default();
    // The engine keeps a schedule: each step ends a step's length after the previous one was due,
    // not after the timer woke it, so late wake-ups do not add up over a benchmark and throughput
    // follows the configured step times (and noise) alone. A step on an idle engine begins when
    // its request arrived, not when this loop saw it.
    let mut due = Instant::now();
    loop {
        if batch.is_empty() {
            if let Ok(mut noise) = state.noise.lock() {
                noise.idle_since.get_or_insert_with(Instant::now);
            }
            match rx.blocking_recv() {
                Some(job) => {
                    due = job.arrived;
                    batch.waiting.push_back(job);
                }
                None => return,
            }
            if let Ok(mut noise) = state.noise.lock() {
                noise.busy(args);
            }
        }
        while let Ok(job) = rx.try_recv() {
            batch.waiting.push_back(job);
        }
        batch.admit(&cap);
        let prefilled = batch.prefill(args.chunked_prefill_size.max(1));
        let speed = state.noise.lock().map_or(1.0, |n| n.factor);
        let step_ms = batch.step_ms(&cap, args, prefilled, speed);
        let now = Instant::now();
        // Far behind (the process was stopped): start a new schedule rather than catch up.
        if now.saturating_duration_since(due) > CATCH_UP_LIMIT {
            due = now;
        }
        due += Duration::from_secs_f64(step_ms.max(0.05) / 1000.0);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        let finished = batch.decode();
        let total = completed.fetch_add(finished, Ordering::SeqCst) + finished;
        if fail_after(&state, total) {
            // Every sequence in flight ends with the core: its stream is cut.
            return;
        }
    }
}

/// A response body: a whole text, or tokens as server-sent events.
enum SimBody {
    Full(Option<Bytes>),
    Stream(Box<TokenStream>),
}

struct TokenStream {
    events: mpsc::UnboundedReceiver<bool>,
    chat: bool,
    model: String,
    id: u64,
    sent: u64,
    input: u64,
    usage: bool,
    /// `--sim-usage-factor`.
    usage_factor: u64,
    malformed: bool,
    drop: bool,
    done: bool,
}

impl TokenStream {
    fn chunk(&self, last: bool) -> String {
        let finish = if last { "\"length\"" } else { "null" };
        let body = if self.chat {
            format!(
                r#"{{"id":"chatcmpl-{}","object":"chat.completion.chunk","created":0,"model":"{}","choices":[{{"index":0,"delta":{{"content":" tok"}},"finish_reason":{finish}}}]}}"#,
                self.id, self.model
            )
        } else {
            format!(
                r#"{{"id":"cmpl-{}","object":"text_completion","created":0,"model":"{}","choices":[{{"index":0,"text":" tok","finish_reason":{finish}}}]}}"#,
                self.id, self.model
            )
        };
        let mut out = format!("data: {body}\n\n");
        if last {
            if self.usage {
                out.push_str(&format!(
                    "data: {{\"id\":\"cmpl-{}\",\"choices\":[],\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}}}}}\n\n",
                    self.id,
                    self.input,
                    self.sent * self.usage_factor,
                    self.input + self.sent * self.usage_factor
                ));
            }
            out.push_str("data: [DONE]\n\n");
        }
        out
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match &mut *self {
            SimBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            SimBody::Stream(s) => {
                if s.done {
                    return Poll::Ready(None);
                }
                match s.events.poll_recv(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(None) => {
                        s.done = true;
                        Poll::Ready(Some(Err(std::io::Error::other("engine stopped"))))
                    }
                    Poll::Ready(Some(last)) => {
                        s.sent += 1;
                        if s.drop && s.sent == 2 {
                            s.done = true;
                            return Poll::Ready(Some(Err(std::io::Error::other("connection dropped"))));
                        }
                        if s.malformed && s.sent == 2 {
                            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                                b"data: {\"choices\": [\n\n",
                            )))));
                        }
                        s.done = last;
                        Poll::Ready(Some(Ok(Frame::data(Bytes::from(s.chunk(last))))))
                    }
                }
            }
        }
    }
}

fn json(status: StatusCode, body: String) -> Response<SimBody> {
    let mut r = Response::new(SimBody::Full(Some(Bytes::from(body))));
    *r.status_mut() = status;
    r.headers_mut().insert("content-type", hyper::header::HeaderValue::from_static("application/json"));
    r
}

fn error(status: StatusCode, message: &str) -> Response<SimBody> {
    let body = serde_json::json!({"object": "error", "message": message, "code": status.as_u16()});
    json(status, body.to_string())
}

/// Tokens of a prompt: a list of token ids, or words of text.
fn count_tokens(v: &serde_json::Value) -> u64 {
    match v {
        serde_json::Value::String(s) => s.split_whitespace().count() as u64,
        serde_json::Value::Array(a) if a.iter().all(|x| x.is_number()) => a.len() as u64,
        serde_json::Value::Array(a) => a.iter().map(count_tokens).sum(),
        // A message's `content`, or one part of a list of parts (`{"type": "text", "text": ...}`).
        serde_json::Value::Object(o) => o.get("content").or_else(|| o.get("text")).map_or(0, count_tokens),
        _ => 0,
    }
}

/// The first token id of a prompt of ids that the vocabulary does not have.
fn out_of_vocabulary(prompt: &serde_json::Value, vocab: u64) -> Option<u64> {
    match prompt {
        serde_json::Value::Array(a) => a.iter().find_map(|x| match x {
            serde_json::Value::Number(n) => n.as_u64().filter(|id| *id >= vocab),
            nested => out_of_vocabulary(nested, vocab),
        }),
        _ => None,
    }
}

/// `/tokenize`, as vLLM answers it: the count of a prompt's (or messages') tokens.
fn tokenize(state: &State, bytes: &[u8]) -> Response<SimBody> {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return error(StatusCode::BAD_REQUEST, "body is not JSON");
    };
    let Some(prompt) = body.get("prompt").or_else(|| body.get("messages")) else {
        return error(StatusCode::BAD_REQUEST, "`prompt` or `messages` is required");
    };
    let count = count_tokens(prompt);
    let reply = serde_json::json!({
        "count": count,
        "max_model_len": state.args.max_model_len,
        "tokens": (0..count).map(|i| 1 + i % (state.args.sim_vocab_size.max(2) - 1)).collect::<Vec<_>>(),
        "token_strs": null,
    });
    json(StatusCode::OK, reply.to_string())
}

async fn handle(req: Request<Incoming>, state: Arc<State>) -> Result<Response<SimBody>, Infallible> {
    use http_body_util::BodyExt;
    let ready = state.ready.load(Ordering::SeqCst);
    let path = req.uri().path().to_string();
    let dead = state.dead.load(Ordering::SeqCst);
    let response = match (req.method(), path.as_str()) {
        (_, _) if dead => error(StatusCode::INTERNAL_SERVER_ERROR, "EngineDeadError: EngineCore encountered an issue"),
        (&Method::GET, "/health")
            if ready
                && state.requests.load(Ordering::SeqCst) > 0
                && state.blips.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() =>
        {
            error(StatusCode::SERVICE_UNAVAILABLE, "busy")
        }
        (&Method::GET, "/health") if ready => json(StatusCode::OK, String::new()),
        (&Method::GET, "/health") => error(StatusCode::SERVICE_UNAVAILABLE, "loading"),
        (&Method::GET, "/version") => match &state.args.sim_version {
            Some(v) => json(StatusCode::OK, serde_json::json!({ "version": v }).to_string()),
            None => error(StatusCode::NOT_FOUND, "this simulated engine reports no version"),
        },
        (&Method::GET, "/v1/models") => json(
            StatusCode::OK,
            serde_json::json!({"object": "list", "data": [{"id": state.args.model, "object": "model", "owned_by": "perflab"}]})
                .to_string(),
        ),
        (&Method::POST, "/v1/completions" | "/v1/chat/completions") if !ready => {
            error(StatusCode::SERVICE_UNAVAILABLE, "the engine is loading")
        }
        (&Method::POST, "/v1/completions" | "/v1/chat/completions") => {
            let chat = path.ends_with("chat/completions");
            let bytes = match req.into_body().collect().await {
                Ok(b) => b.to_bytes(),
                Err(_) => return Ok(error(StatusCode::BAD_REQUEST, "unreadable body")),
            };
            completion(&state, chat, &bytes).await
        }
        (&Method::POST, "/tokenize") => match req.into_body().collect().await {
            Ok(b) => tokenize(&state, &b.to_bytes()),
            Err(_) => error(StatusCode::BAD_REQUEST, "unreadable body"),
        },
        _ => error(StatusCode::NOT_FOUND, "not found"),
    };
    Ok(response)
}

async fn completion(state: &State, chat: bool, bytes: &[u8]) -> Response<SimBody> {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return error(StatusCode::BAD_REQUEST, "body is not JSON");
    };
    let n = state.requests.fetch_add(1, Ordering::SeqCst) + 1;
    let args = &state.args;
    if args.sim_fail_every.is_some_and(|k| k > 0 && n.is_multiple_of(k)) {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "simulated internal error");
    }
    let prompt = if chat { body.get("messages") } else { body.get("prompt") };
    if let Some(id) = prompt.and_then(|p| out_of_vocabulary(p, args.sim_vocab_size)) {
        return error(StatusCode::BAD_REQUEST, &format!("Token id {id} is out of vocabulary"));
    }
    let input = prompt.map_or(0, count_tokens);
    let output = output_tokens(&body, prompt);
    if input + output > args.max_model_len {
        return error(
            StatusCode::BAD_REQUEST,
            &format!(
                "This model's maximum context length is {} tokens. However, you requested {} tokens ({input} in the messages, {output} in the completion).",
                args.max_model_len,
                input + output
            ),
        );
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let replica = state.next.fetch_add(1, Ordering::SeqCst) % state.replicas.len();
    if state.replicas[replica].send(Job { input, output, events: tx, arrived: std::time::Instant::now() }).is_err() {
        return error(StatusCode::SERVICE_UNAVAILABLE, "engine stopped");
    }
    let stream = body.get("stream").and_then(|v| v.as_bool()).unwrap_or(false);
    if stream {
        let k = state.streams.fetch_add(1, Ordering::SeqCst) + 1;
        let every = |e: Option<u64>| e.is_some_and(|e| e > 0 && k.is_multiple_of(e));
        let usage = body.pointer("/stream_options/include_usage").and_then(|v| v.as_bool()).unwrap_or(false);
        let mut r = Response::new(SimBody::Stream(Box::new(TokenStream {
            events: rx,
            chat,
            model: args.model.clone(),
            id: n,
            sent: 0,
            input,
            usage,
            usage_factor: args.sim_usage_factor,
            malformed: every(args.sim_malformed_every),
            drop: every(args.sim_drop_every),
            done: false,
        })));
        r.headers_mut().insert("content-type", hyper::header::HeaderValue::from_static("text/event-stream"));
        return r;
    }
    let answer = if chat { None } else { prompt.and_then(|p| p.as_str()).and_then(|p| super::answer::answer(args, p)) };
    whole(rx, chat, &args.model, n, input, answer).await
}

/// The tokens a request gets: what it asks for with `ignore_eos` or a `min_tokens` that high,
/// else a natural stopping point that depends on the prompt only.
fn output_tokens(body: &serde_json::Value, prompt: Option<&serde_json::Value>) -> u64 {
    let max_tokens =
        body.get("max_tokens").or_else(|| body.get("max_completion_tokens")).and_then(|v| v.as_u64()).unwrap_or(16);
    let ignore_eos = body.get("ignore_eos").and_then(|v| v.as_bool()).unwrap_or(false);
    let min_tokens = body.get("min_tokens").and_then(|v| v.as_u64()).unwrap_or(0);
    if ignore_eos || min_tokens >= max_tokens {
        max_tokens
    } else {
        let text = prompt.map(|p| p.to_string()).unwrap_or_default();
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        (min_tokens.max(1) + hash % max_tokens.max(1)).min(max_tokens.max(1))
    }
    .max(1)
}

/// The answer to a request that does not stream: every token once the replica made the last.
async fn whole(
    mut rx: mpsc::UnboundedReceiver<bool>,
    chat: bool,
    model: &str,
    n: u64,
    input: u64,
    answer: Option<String>,
) -> Response<SimBody> {
    let mut produced = 0u64;
    while let Some(last) = rx.recv().await {
        produced += 1;
        if last {
            break;
        }
    }
    let text = answer.unwrap_or_else(|| " tok".repeat(produced as usize));
    let choice = if chat {
        serde_json::json!({"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"})
    } else {
        serde_json::json!({"index": 0, "text": text, "finish_reason": "length"})
    };
    let usage =
        serde_json::json!({"prompt_tokens": input, "completion_tokens": produced, "total_tokens": input + produced});
    json(
        StatusCode::OK,
        serde_json::json!({"id": format!("cmpl-{n}"), "model": model, "choices": [choice], "usage": usage}).to_string(),
    )
}
