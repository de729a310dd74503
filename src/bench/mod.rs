//! `perflab bench`: a benchmark client for OpenAI-compatible servers (vLLM, SGLang,
//! TensorRT-LLM, llama.cpp, the simulated engine) that prints the `Serving Benchmark Result`
//! block in vLLM's current layout and can write vLLM-compatible result JSON.

pub mod client;
pub mod dataset;
pub mod http;
pub mod report;
pub mod tokenizer;

use crate::parse::requests::{self, Limits};
use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DatasetName {
    /// Random prompts of --random-input-len tokens (from --tokenizer's vocabulary when given).
    Random,
    /// A ShareGPT JSON file (--dataset-path).
    Sharegpt,
    /// A JSON-lines file of prompts (--dataset-path).
    Jsonl,
}

/// The benchmark's settings; the names follow `vllm bench serve`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Server address.
    #[arg(long, default_value = "http://127.0.0.1:8000")]
    pub base_url: String,
    /// `/v1/completions` or `/v1/chat/completions`.
    #[arg(long, default_value = "/v1/completions")]
    pub endpoint: String,
    /// Model name to request (default: the first model the server lists).
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long, value_enum, default_value = "random")]
    pub dataset_name: DatasetName,
    #[arg(long)]
    pub dataset_path: Option<PathBuf>,
    /// The model's tokenizer: a tokenizer.json, or a model folder holding one. Random prompts
    /// then have an exact length in tokens, and dataset prompts are counted in tokens. The
    /// server's `usage` counts, when it sends them, take precedence.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    #[arg(long, default_value_t = 1024)]
    pub random_input_len: u64,
    /// Output tokens a request asks for (random and JSON-lines prompts without their own).
    #[arg(long, default_value_t = 128)]
    pub random_output_len: u64,
    /// Output tokens of every ShareGPT request, instead of its reply's length.
    #[arg(long)]
    pub sharegpt_output_len: Option<u64>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Requests to send.
    #[arg(long, default_value_t = 1000)]
    pub num_prompts: usize,
    /// Requests a second, Poisson arrivals from --seed; `inf` sends all at once.
    #[arg(long, default_value = "inf")]
    pub request_rate: String,
    /// Requests in flight at most.
    #[arg(long)]
    pub max_concurrency: Option<usize>,
    /// Requests sent and discarded before measuring.
    #[arg(long, default_value_t = 0)]
    pub num_warmups: usize,
    /// Metrics with a latency section: ttft, tpot, itl, e2el.
    #[arg(long, value_delimiter = ',', default_value = "ttft,tpot,itl,e2el")]
    pub percentile_metrics: Vec<String>,
    /// Percentiles to print, e.g. 50,90,99,99.9.
    #[arg(long, value_delimiter = ',', default_value = "99")]
    pub metric_percentiles: Vec<f64>,
    /// Service-level objectives for goodput, in ms: ttft:500 tpot:50 e2el:10000.
    #[arg(long, num_args = 1..)]
    pub goodput: Vec<String>,
    /// Ask for exactly --random-output-len tokens (ignore_eos and min_tokens).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub ignore_eos: bool,
    /// Stream tokens (server-sent events).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub stream: bool,
    /// Seconds a request may take.
    #[arg(long, default_value_t = 600.0)]
    pub timeout: f64,
    /// Write vLLM-compatible result JSON here.
    #[arg(long)]
    pub save_result: Option<PathBuf>,
    /// Write every measured request here, one JSON object a line (its timings and token
    /// counts), so that goodput under any limits can be computed later.
    #[arg(long)]
    pub requests_file: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
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

/// Runs the benchmark. `interrupted` resolving stops it: what was measured so far is reported,
/// marked incomplete.
pub async fn run(args: &BenchArgs, interrupted: impl std::future::Future<Output = ()>) -> anyhow::Result<Run> {
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
    let chat = args.endpoint.contains("chat");
    let base = args.base_url.trim_end_matches('/').to_string();
    let http = http::Http::new(&base).map_err(|e| anyhow::anyhow!("--base-url: {e}"))?;
    let model = match &args.model {
        Some(m) => m.clone(),
        None => first_model(&http, &base).await?,
    };
    let total = args.num_prompts + args.num_warmups;
    let tokenizer = args.tokenizer.as_deref().map(tokenizer::Tokenizer::load).transpose()?;
    let tok = tokenizer.as_ref();
    let items = match args.dataset_name {
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
    };
    let path = args.endpoint.clone();
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let (warmup, measured) = items.split_at(args.num_warmups);
    let limit = args.max_concurrency.unwrap_or(usize::MAX >> 4).max(1);
    let request = |item: &dataset::Item| client::body(&model, item, chat, args.stream, args.ignore_eos);

    let stream = args.stream;
    let origin = Instant::now();
    let mut warm = JoinSet::new();
    for item in warmup {
        let (http, path, body, input) = (http.clone(), path.clone(), request(item), client::Asked::of(item));
        warm.spawn(async move { client::send(&http, &path, body, stream, input, origin, timeout).await });
        if warm.len() >= limit {
            warm.join_next().await;
        }
    }
    while warm.join_next().await.is_some() {}

    let progress = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::with_draw_target(Some(measured.len() as u64), indicatif::ProgressDrawTarget::stderr())
    };
    let semaphore = Arc::new(Semaphore::new(limit.min(Semaphore::MAX_PERMITS)));
    let mut rng = dataset::Rng::new(args.seed);
    let origin = Instant::now();
    let mut tasks = JoinSet::new();
    let mut outcomes = Vec::with_capacity(measured.len());
    let mut next_at = 0.0;
    tokio::pin!(interrupted);
    let mut complete = true;
    'send: for (index, item) in (0u64..).zip(measured) {
        if let Some(r) = rate {
            next_at += rng.exponential(r);
            let wait =
                tokio::time::sleep_until(tokio::time::Instant::from_std(origin + Duration::from_secs_f64(next_at)));
            tokio::select! {
                _ = wait => {}
                _ = &mut interrupted => { complete = false; break 'send; }
            }
        }
        let permit = tokio::select! {
            p = semaphore.clone().acquire_owned() => p?,
            _ = &mut interrupted => { complete = false; break 'send; }
        };
        // Due at its arrival time, or when a slot let it go if that came later.
        let scheduled = if rate.is_some() && args.max_concurrency.is_none() {
            next_at
        } else {
            origin.elapsed().as_secs_f64().max(next_at)
        };
        let (http, path, body, input) = (http.clone(), path.clone(), request(item), client::Asked::of(item));
        tasks.spawn(async move {
            let mut outcome = client::send(&http, &path, body, stream, input, origin, timeout).await;
            drop(permit);
            outcome.index = index;
            outcome.scheduled = scheduled;
            outcome
        });
        while let Some(done) = tasks.try_join_next() {
            outcomes.push(done?);
            progress.inc(1);
        }
    }
    while complete && !tasks.is_empty() {
        tokio::select! {
            done = tasks.join_next() => if let Some(done) = done { outcomes.push(done?); progress.inc(1); },
            _ = &mut interrupted => { complete = false; }
        }
    }
    tasks.abort_all();
    progress.finish_and_clear();
    let duration = origin.elapsed().as_secs_f64();
    let settings = report::Settings {
        max_concurrency: args.max_concurrency,
        request_rate: rate,
        percentiles: args.metric_percentiles.clone(),
        metrics: args.percentile_metrics.clone(),
        slo,
    };
    outcomes.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok(Run { report: report::build(&outcomes, duration, settings, complete), outcomes, model })
}

/// What standard error says about a run: the most frequent errors, usage that was not
/// believed, an interruption.
fn notes(run: &Run) -> String {
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
    if !report.complete {
        text += "interrupted: the result below covers the requests finished so far and is incomplete\n";
    }
    text
}

/// Prints the block (standard output), the errors (standard error), and writes the JSON. A
/// standard error that cannot be written (a full disk) loses those lines, nothing else.
pub fn publish(args: &BenchArgs, run: &Run) -> anyhow::Result<()> {
    use std::io::Write;
    let report = &run.report;
    let _ = std::io::stderr().lock().write_all(notes(run).as_bytes());
    std::io::stdout().lock().write_all(report.block().as_bytes())?;
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
