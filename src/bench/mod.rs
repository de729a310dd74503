//! `perflab bench`: a benchmark client for OpenAI-compatible servers (vLLM, SGLang,
//! TensorRT-LLM, llama.cpp, the simulated engine) whose report is the `Serving Benchmark Result`
//! block in vLLM's current layout and can be written as vLLM-compatible result JSON.

pub mod client;
pub mod dataset;
pub mod eval;
pub mod http;
pub mod lm_eval;
pub mod report;
pub mod tokenizer;

use crate::parse::requests::{self, Limits};
use anyhow::{Context, bail};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// Where the prompts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetName {
    /// Random prompts of `random_input_len` tokens (from the tokenizer's vocabulary when given).
    Random,
    /// A ShareGPT JSON file (`dataset_path`).
    Sharegpt,
    /// A JSON-lines file of prompts (`dataset_path`).
    Jsonl,
}

/// The benchmark's settings; the names follow `vllm bench serve`'s flags, and so do the
/// defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// Server address.
    pub base_url: String,
    /// `/v1/completions` or `/v1/chat/completions`.
    pub endpoint: String,
    /// Model name to request (`None`: the first model the server lists).
    pub model: Option<String>,
    pub dataset_name: DatasetName,
    pub dataset_path: Option<PathBuf>,
    /// The model's tokenizer: a tokenizer.json, or a model folder holding one.
    pub tokenizer: Option<PathBuf>,
    pub random_input_len: u64,
    /// Output tokens a request asks for (random and JSON-lines prompts without their own).
    pub random_output_len: u64,
    /// Output tokens of every ShareGPT request, instead of its reply's length.
    pub sharegpt_output_len: Option<u64>,
    pub seed: u64,
    /// Requests to send.
    pub num_prompts: usize,
    /// Requests a second, Poisson arrivals from `seed`; `inf` sends all at once.
    pub request_rate: String,
    /// Requests in flight at most.
    pub max_concurrency: Option<usize>,
    /// Requests sent and discarded before measuring.
    pub num_warmups: usize,
    /// Metrics with a latency section: ttft, tpot, itl, e2el.
    pub percentile_metrics: Vec<String>,
    /// Percentiles to report.
    pub metric_percentiles: Vec<f64>,
    /// Service-level objectives for goodput, in ms: `ttft:500`, `tpot:50`, `e2el:10000`.
    pub goodput: Vec<String>,
    /// Ask for exactly `random_output_len` tokens (ignore_eos and min_tokens).
    pub ignore_eos: bool,
    /// Stream tokens (server-sent events).
    pub stream: bool,
    /// Seconds a request may take.
    pub timeout: f64,
    /// Write vLLM-compatible result JSON here.
    pub save_result: Option<PathBuf>,
    /// Write every measured request here, one JSON object a line.
    pub requests_file: Option<PathBuf>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            base_url: "http://127.0.0.1:8000".into(),
            endpoint: "/v1/completions".into(),
            model: None,
            dataset_name: DatasetName::Random,
            dataset_path: None,
            tokenizer: None,
            random_input_len: 1024,
            random_output_len: 128,
            sharegpt_output_len: None,
            seed: 0,
            num_prompts: 1000,
            request_rate: "inf".into(),
            max_concurrency: None,
            num_warmups: 0,
            percentile_metrics: ["ttft", "tpot", "itl", "e2el"].map(String::from).to_vec(),
            metric_percentiles: vec![99.0],
            goodput: Vec::new(),
            ignore_eos: true,
            stream: true,
            timeout: 600.0,
            save_result: None,
            requests_file: None,
        }
    }
}

/// What a run tells its caller as it goes, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The warm-up is over; this many requests are to be measured.
    Measuring(u64),
    /// One more measured request finished.
    Finished,
}

fn parse_slo(items: &[String]) -> anyhow::Result<Option<Limits>> {
    if items.is_empty() {
        return Ok(None);
    }
    Limits::parse(items).map(Some).map_err(|e| anyhow::anyhow!("--goodput {e}"))
}

/// A finished benchmark: the report, the outcomes and what was asked.
pub struct Run {
    pub report: report::Report,
    pub outcomes: Vec<client::Outcome>,
    pub model: String,
}

async fn first_model(client: &http::Http, base: &str) -> anyhow::Result<String> {
    let url = format!("{base}/v1/models");
    let mut response =
        client.request("GET", "/v1/models", None).await.map_err(|e| anyhow::anyhow!("cannot reach {url}: {e}"))?;
    let bytes = client::read_limited(&mut response.body, 16 << 20)
        .await
        .map_err(|e| anyhow::anyhow!("cannot read {url}: {e}"))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).with_context(|| format!("{url} did not answer JSON"))?;
    v.pointer("/data/0/id")
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .with_context(|| format!("{url} lists no model; pass --model"))
}

/// The request rate (`None`: all at once) and the goodput limits, once every option is checked.
fn checked(args: &BenchOptions) -> anyhow::Result<(Option<f64>, Option<Limits>)> {
    let rate = match args.request_rate.as_str() {
        "inf" => None,
        r => Some(
            r.parse::<f64>()
                .ok()
                .filter(|x| *x > 0.0)
                .with_context(|| format!("--request-rate `{r}`: a positive number or inf"))?,
        ),
    };
    let slo = parse_slo(&args.goodput)?;
    if let Some(p) = args.metric_percentiles.iter().find(|p| !(0.0..=100.0).contains(*p)) {
        bail!("--metric-percentiles: {p} is not a percentile from 0 to 100");
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!("--timeout: {} is not a positive number of seconds", args.timeout);
    }
    for m in &args.percentile_metrics {
        if !["ttft", "tpot", "itl", "e2el"].contains(&m.as_str()) {
            bail!("--percentile-metrics: `{m}` is not one of ttft, tpot, itl, e2el");
        }
    }
    Ok((rate, slo))
}

/// The warm-up's prompts, then the measured ones.
fn prompts(args: &BenchOptions, chat: bool) -> anyhow::Result<Vec<dataset::Item>> {
    let total = args.num_prompts + args.num_warmups;
    let tokenizer = args.tokenizer.as_deref().map(tokenizer::Tokenizer::load).transpose()?;
    let tok = tokenizer.as_ref();
    Ok(match args.dataset_name {
        DatasetName::Random => {
            dataset::random(total, args.random_input_len, args.random_output_len, args.seed, chat, tok)
        }
        DatasetName::Sharegpt => {
            let path = args.dataset_path.as_ref().context("--dataset-name sharegpt needs --dataset-path")?;
            dataset::sharegpt(path, total, args.seed, args.sharegpt_output_len, tok)?
        }
        DatasetName::Jsonl => {
            let path = args.dataset_path.as_ref().context("--dataset-name jsonl needs --dataset-path")?;
            dataset::jsonl(path, total, args.random_output_len, tok)?
        }
    })
}

/// What sending a request needs: the connection pool, the endpoint and how to ask.
struct Sender<'a> {
    http: http::Http,
    path: String,
    model: String,
    chat: bool,
    args: &'a BenchOptions,
    timeout: Duration,
    limit: usize,
}

impl Sender<'_> {
    /// Sends `item` on a task of `tasks`; `origin` is the time its outcome is measured from.
    fn spawn<T: Send + 'static>(
        &self,
        tasks: &mut JoinSet<T>,
        item: &dataset::Item,
        origin: Instant,
        then: impl FnOnce(client::Outcome) -> T + Send + 'static,
    ) {
        let (http, path, input) = (self.http.clone(), self.path.clone(), client::Asked::of(item));
        let body = client::body(&self.model, item, self.chat, self.args.stream, self.args.ignore_eos);
        let (stream, timeout) = (self.args.stream, self.timeout);
        tasks.spawn(async move { then(client::send(&http, &path, body, stream, input, origin, timeout).await) });
    }

    /// Sends the warm-up's requests, as many at once as the measured ones, and waits for them.
    async fn warm_up(&self, warmup: &[dataset::Item]) {
        let origin = Instant::now();
        let mut warm = JoinSet::new();
        for item in warmup {
            self.spawn(&mut warm, item, origin, drop);
            if warm.len() >= self.limit {
                warm.join_next().await;
            }
        }
        while warm.join_next().await.is_some() {}
    }

    /// Sends the measured requests at `rate` until all are answered or `interrupted` resolves;
    /// returns the outcomes, whether the run completed and the time it took.
    async fn measure(
        &self,
        measured: &[dataset::Item],
        rate: Option<f64>,
        interrupted: impl std::future::Future<Output = ()>,
        mut progress: impl FnMut(Progress),
    ) -> anyhow::Result<(Vec<client::Outcome>, bool, f64)> {
        progress(Progress::Measuring(measured.len() as u64));
        let semaphore = Arc::new(Semaphore::new(self.limit.min(Semaphore::MAX_PERMITS)));
        let mut rng = dataset::Rng::new(self.args.seed);
        let origin = Instant::now();
        let mut tasks = JoinSet::new();
        let mut outcomes = Vec::with_capacity(measured.len());
        let mut next_at = 0.0;
        tokio::pin!(interrupted);
        let mut complete = true;
        'send: for (index, item) in (0u64..).zip(measured) {
            if let Some(r) = rate {
                next_at += rng.exponential(r);
                let due = tokio::time::Instant::from_std(origin + Duration::from_secs_f64(next_at));
                tokio::select! {
                    _ = tokio::time::sleep_until(due) => {}
                    _ = &mut interrupted => { complete = false; break 'send; }
                }
            }
            let permit = tokio::select! {
                p = semaphore.clone().acquire_owned() => p?,
                _ = &mut interrupted => { complete = false; break 'send; }
            };
            // Due at its arrival time, or when a slot let it go if that came later.
            let scheduled = if rate.is_some() && self.args.max_concurrency.is_none() {
                next_at
            } else {
                origin.elapsed().as_secs_f64().max(next_at)
            };
            self.spawn(&mut tasks, item, origin, move |mut outcome| {
                drop(permit);
                outcome.index = index;
                outcome.scheduled = scheduled;
                outcome
            });
            while let Some(done) = tasks.try_join_next() {
                outcomes.push(done?);
                progress(Progress::Finished);
            }
        }
        while complete && !tasks.is_empty() {
            tokio::select! {
                done = tasks.join_next() => if let Some(done) = done { outcomes.push(done?); progress(Progress::Finished); },
                _ = &mut interrupted => { complete = false; }
            }
        }
        tasks.abort_all();
        Ok((outcomes, complete, origin.elapsed().as_secs_f64()))
    }
}

/// Runs the benchmark. `interrupted` resolving stops it: what was measured so far is reported,
/// marked incomplete.
pub async fn run(
    args: &BenchOptions,
    interrupted: impl std::future::Future<Output = ()>,
    progress: impl FnMut(Progress),
) -> anyhow::Result<Run> {
    let (rate, slo) = checked(args)?;
    let chat = args.endpoint.contains("chat");
    let base = args.base_url.trim_end_matches('/').to_string();
    let http = http::Http::new(&base).map_err(|e| anyhow::anyhow!("--base-url: {e}"))?;
    let model = match &args.model {
        Some(m) => m.clone(),
        None => first_model(&http, &base).await?,
    };
    let items = prompts(args, chat)?;
    let (warmup, measured) = items.split_at(args.num_warmups);
    let sender = Sender {
        http,
        path: args.endpoint.clone(),
        model,
        chat,
        args,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        limit: args.max_concurrency.unwrap_or(usize::MAX >> 4).max(1),
    };
    sender.warm_up(warmup).await;
    let (mut outcomes, complete, duration) = sender.measure(measured, rate, interrupted, progress).await?;
    let settings = report::Settings {
        max_concurrency: args.max_concurrency,
        request_rate: rate,
        percentiles: args.metric_percentiles.clone(),
        metrics: args.percentile_metrics.clone(),
        slo,
    };
    outcomes.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok(Run { report: report::build(&outcomes, duration, settings, complete), outcomes, model: sender.model })
}

/// What standard error says about a run: the most frequent errors, usage that was not
/// believed, an interruption.
pub fn notes(run: &Run) -> String {
    use std::fmt::Write;
    let report = &run.report;
    let mut text = String::new();
    if !report.errors.is_empty() {
        let failed: usize = report.errors.iter().map(|e| e.1).sum();
        let _ = writeln!(text, "{failed} requests failed; the most frequent errors:");
        let mut errors = report.errors.clone();
        errors.sort_by_key(|e| std::cmp::Reverse(e.1));
        for (message, count) in errors.iter().take(5) {
            let _ = writeln!(text, "  {count} × {message}");
        }
    }
    let doubted: Vec<&str> = run.outcomes.iter().filter_map(|o| o.usage_doubt.as_deref()).collect();
    if let Some(first) = doubted.first() {
        let _ = writeln!(
            text,
            "warning: the server's usage was not believed for {} of {} requests (first: {first}); their tokens were counted from the stream",
            doubted.len(),
            run.outcomes.len()
        );
    }
    let buffered = run.outcomes.iter().filter(|o| o.success && o.buffered()).count();
    if buffered > 0 {
        let _ = writeln!(
            text,
            "warning: {buffered} of {} streams arrived in bursts (most of their tokens less than 0.05 ms apart), so their TTFT and ITL measure buffering, not the engine; a server or proxy that holds chunks back does this (Nagle's algorithm without TCP_NODELAY, gzip, a reverse proxy's buffering), as does a client that cannot keep up",
            run.outcomes.len()
        );
    }
    if !report.complete {
        text += "interrupted: the result below covers the requests finished so far and is incomplete\n";
    }
    text
}

/// Writes the result JSON and the requests file the options ask for.
pub fn save(args: &BenchOptions, run: &Run) -> anyhow::Result<()> {
    let report = &run.report;
    if let Some(path) = &args.save_result {
        let backend = if args.endpoint.contains("chat") { "openai-chat" } else { "openai" };
        let json = report.json(&run.model, backend, args.num_prompts, &run.outcomes);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("cannot write '{}'", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    if let Some(path) = &args.requests_file {
        let mut records: Vec<requests::RequestRecord> = run.outcomes.iter().map(client::Outcome::record).collect();
        records.sort_by_key(|r| r.index);
        requests::write_requests(path, &records).with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(())
}
