//! `perflab bench`: its flags (those of `vllm bench serve`), the progress bar and what it prints.

use super::Exit;
use clap::{Args, ValueEnum};
use perflab::bench::{self, BenchOptions, DatasetName, Progress};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DatasetArg {
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
    pub dataset_name: DatasetArg,
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

impl From<DatasetArg> for DatasetName {
    fn from(d: DatasetArg) -> Self {
        match d {
            DatasetArg::Random => DatasetName::Random,
            DatasetArg::Sharegpt => DatasetName::Sharegpt,
            DatasetArg::Jsonl => DatasetName::Jsonl,
        }
    }
}

impl From<BenchArgs> for BenchOptions {
    fn from(a: BenchArgs) -> Self {
        BenchOptions {
            base_url: a.base_url,
            endpoint: a.endpoint,
            model: a.model,
            dataset_name: a.dataset_name.into(),
            dataset_path: a.dataset_path,
            tokenizer: a.tokenizer,
            random_input_len: a.random_input_len,
            random_output_len: a.random_output_len,
            sharegpt_output_len: a.sharegpt_output_len,
            seed: a.seed,
            num_prompts: a.num_prompts,
            request_rate: a.request_rate,
            max_concurrency: a.max_concurrency,
            num_warmups: a.num_warmups,
            percentile_metrics: a.percentile_metrics,
            metric_percentiles: a.metric_percentiles,
            goodput: a.goodput,
            ignore_eos: a.ignore_eos,
            stream: a.stream,
            timeout: a.timeout,
            save_result: a.save_result,
            requests_file: a.requests_file,
        }
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let quiet = args.quiet;
    let options = BenchOptions::from(args.clone());
    let bar = indicatif::ProgressBar::hidden();
    let show = |event: Progress| match event {
        Progress::Measuring(requests) if !quiet => {
            bar.set_length(requests);
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        Progress::Measuring(_) => {}
        Progress::Finished => bar.inc(1),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let run = runtime.block_on(bench::run(&options, interrupted, show));
    bar.finish_and_clear();
    let run = run?;
    publish(&options, &run)?;
    if !run.report.complete {
        return Ok(ExitCode::from(Exit::Interrupted));
    }
    if run.report.values.get("completed").is_none_or(|c| *c == 0.0) && !run.outcomes.is_empty() {
        eprintln!("error: no request succeeded; the result above measures nothing");
        return Ok(ExitCode::from(Exit::Attention));
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the block (standard output), the errors (standard error), and writes the files. A
/// standard error that cannot be written (a full disk) loses those lines, nothing else.
fn publish(options: &BenchOptions, run: &bench::Run) -> anyhow::Result<()> {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(bench::notes(run).as_bytes());
    std::io::stdout().lock().write_all(run.report.block().as_bytes())?;
    bench::save(options, run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        bench: BenchArgs,
    }

    #[test]
    fn the_flags_defaults_are_the_librarys() {
        let parsed = Cli::parse_from(["bench"]).bench;
        assert!(!parsed.quiet);
        assert_eq!(BenchOptions::from(parsed), BenchOptions::default());
    }
}
