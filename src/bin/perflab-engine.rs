//! `perflab-engine`: the simulated inference engine (see `perflab::sim`).

use clap::{Args, Parser};

/// A simulated LLM inference engine: an OpenAI-compatible server whose speed, memory limits and
/// failures follow engine-like flags. For tests and demos of perflab; no GPU involved.
#[derive(Debug, Parser)]
#[command(name = "perflab-engine")]
struct Cli {
    /// Print the version this engine reports (`--sim-version`, else the environment's
    /// `PERFLAB_SIM_VERSION`) and exit: none unless one is given.
    #[arg(long)]
    version: bool,
    #[command(flatten)]
    engine: EngineArgs,
}

/// Engine-like flags (vLLM and SGLang spellings), then the simulation's own knobs (`--sim-*`).
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// The model name the server answers to.
    #[arg(long, visible_alias = "model-path", default_value = "sim-model")]
    model: String,
    /// Tensor parallelism: GPUs a replica spans; each step is faster, memory is larger.
    #[arg(long, visible_alias = "tensor-parallel-size", short_alias = 't', default_value_t = 1)]
    tp_size: u32,
    /// Data parallelism: independent replicas sharing the GPUs.
    #[arg(long, visible_alias = "data-parallel-size", default_value_t = 1)]
    dp_size: u32,
    /// Sequences a replica runs at once.
    #[arg(long, visible_alias = "max-running-requests", default_value_t = 256)]
    max_num_seqs: usize,
    /// Share of GPU memory the engine may use.
    #[arg(long, visible_alias = "mem-fraction-static", default_value_t = 0.8)]
    gpu_memory_utilization: f64,
    /// `auto`, `bf16`, `fp8`, `fp8_e4m3`: FP8 halves the bytes a cached token takes.
    #[arg(long, default_value = "auto")]
    kv_cache_dtype: String,
    /// Prompt tokens prefilled a step; larger chunks need more activation memory.
    #[arg(long, default_value_t = 8192)]
    chunked_prefill_size: u64,
    /// One of flashinfer, triton, fa3.
    #[arg(long, default_value = "flashinfer")]
    attention_backend: String,
    /// Longest prompt plus output a request may have; longer requests are rejected.
    #[arg(long, visible_alias = "context-length", default_value_t = 32768)]
    max_model_len: u64,
    /// Seconds the engine takes to load before it serves.
    #[arg(long, default_value_t = 2.0)]
    sim_startup_seconds: f64,
    /// Milliseconds a decode step takes with one sequence on one GPU.
    #[arg(long, default_value_t = 20.0)]
    sim_decode_ms: f64,
    /// How much longer a step gets when the batch is full (0.5: 50% longer).
    #[arg(long, default_value_t = 0.5)]
    sim_batch_penalty: f64,
    /// Milliseconds to prefill 1000 prompt tokens on one GPU.
    #[arg(long, default_value_t = 20.0)]
    sim_prefill_ms_per_1k: f64,
    /// Memory of one GPU, GiB.
    #[arg(long, default_value_t = 80.0)]
    sim_gpu_memory_gb: f64,
    /// Model weights, GiB, spread over the tensor-parallel GPUs.
    #[arg(long, default_value_t = 40.0)]
    sim_weights_gb: f64,
    /// KV cache of one token in 16-bit, KiB.
    #[arg(long, default_value_t = 160.0)]
    sim_kv_kib_per_token: f64,
    /// Activation memory a prefill token needs, KiB.
    #[arg(long, default_value_t = 1024.0)]
    sim_activation_kib_per_token: f64,
    /// Milliseconds a step spends in communication for each GPU beyond the first.
    #[arg(long, default_value_t = 1.0)]
    sim_tp_overhead_ms: f64,
    /// How much longer a step is with an FP8 KV cache (dequantization), e.g. 0.15.
    #[arg(long, default_value_t = 0.15)]
    sim_fp8_kv_overhead: f64,
    /// The share of arithmetic questions answered right (0 to 1).
    #[arg(long, default_value_t = 0.9)]
    sim_accuracy: f64,
    /// How much lower that share is with an FP8 KV cache, e.g. 0.03 (3 points).
    #[arg(long, default_value_t = 0.0)]
    sim_fp8_kv_accuracy_drop: f64,
    /// Abort the process after this many completed requests, as a crashing engine does.
    #[arg(long)]
    sim_crash_after: Option<u64>,
    /// After this many completed requests the engine's core dies but its API server lives on,
    /// answering 500 and failing `/health`, as vLLM's server does until it exits.
    #[arg(long)]
    sim_core_dies_after: Option<u64>,
    /// Answer this many `/health` checks that come after the first request with 503, as an
    /// engine busy finishing a benchmark's last requests may be too slow to answer one.
    #[arg(long, default_value_t = 0)]
    sim_health_blips: u64,
    /// Count this many times the tokens it streamed as `completion_tokens` in a stream's usage,
    /// as a server that miscounts does.
    #[arg(long, default_value_t = 1)]
    sim_usage_factor: u64,
    /// Answer every Nth request with HTTP 500.
    #[arg(long)]
    sim_fail_every: Option<u64>,
    /// Send a malformed chunk in every Nth stream.
    #[arg(long)]
    sim_malformed_every: Option<u64>,
    /// Drop the connection in the middle of every Nth stream.
    #[arg(long)]
    sim_drop_every: Option<u64>,
    /// Listen only once loaded, as vLLM does after loading weights (by default the port is
    /// bound at once and `/health` answers 503 while loading).
    #[arg(long)]
    sim_bind_late: bool,
    /// Leave Nagle's algorithm on for accepted connections, as a server or proxy that buffers
    /// its chunks does: a stream's tokens then wait for the client's acknowledgements and
    /// arrive in bursts.
    #[arg(long)]
    sim_nagle: bool,
    /// Die halfway through loading with an error, as an engine whose workers fail does.
    #[arg(long)]
    sim_die_while_loading: bool,
    /// Ignore SIGTERM, as an engine hung in its shutdown does (only SIGKILL ends it).
    #[arg(long)]
    sim_ignore_sigterm: bool,
    /// Start a worker process in the engine's process group that ignores SIGTERM and outlives
    /// the engine, as a GPU engine's workers can when the OOM killer takes the main process:
    /// only SIGKILL ends it (or, at the latest, [`WORKER_LIFETIME`]). Its process id is in the
    /// log (`INFO worker <pid> started`).
    #[arg(long)]
    sim_worker: bool,
    /// Token ids of the model's vocabulary: a prompt of ids at or above it is refused with HTTP
    /// 400, as a real engine refuses them.
    #[arg(long, default_value_t = 32000)]
    sim_vocab_size: u64,
    /// Lines of traceback and shutdown noise printed after a start-up error, as real engines
    /// print them (vLLM: 60–95), so that the error is far above the log's end.
    #[arg(long, default_value_t = 0)]
    sim_log_after_error: usize,
    /// Run-to-run variation of the engine's speed, as a share (0.05: up to ±5%): part of it is
    /// drawn at each engine start, the rest at each benchmark (a burst of requests after the
    /// engine was idle for [`BENCHMARK_GAP_MS`] ms), from `--sim-seed`.
    #[arg(long, default_value_t = 0.0)]
    sim_noise: f64,
    /// The share of `--sim-noise` drawn at each benchmark, from 0 (all of it at the engine's
    /// start) to 1 (all of it at each benchmark); the rest is drawn at each engine start.
    #[arg(long, default_value_t = 0.5)]
    sim_noise_per_run: f64,
    /// Milliseconds without a request in flight after which the next request starts a new
    /// benchmark, with a new draw of `--sim-noise`.
    #[arg(long, default_value_t = perflab::sim::BENCHMARK_GAP_MS)]
    sim_benchmark_gap_ms: u64,
    /// The seed of `--sim-noise`'s draws.
    #[arg(long, default_value_t = 0)]
    sim_seed: u64,
    /// A file counting the engine starts that drew from `--sim-seed` (created when missing):
    /// each start reads it and counts itself, so that each start draws anew and the same
    /// seed replays the same sequence. Without it every start draws as the first.
    #[arg(long)]
    sim_noise_counter: Option<std::path::PathBuf>,
    /// The version the engine reports at `--version` and `GET /version`, as a real engine
    /// reports its build (default: the environment's `PERFLAB_SIM_VERSION`, else none).
    #[arg(long)]
    sim_version: Option<String>,
}

impl From<EngineArgs> for perflab::sim::EngineOptions {
    fn from(a: EngineArgs) -> Self {
        perflab::sim::EngineOptions {
            host: a.host,
            port: a.port,
            model: a.model,
            tp_size: a.tp_size,
            dp_size: a.dp_size,
            max_num_seqs: a.max_num_seqs,
            gpu_memory_utilization: a.gpu_memory_utilization,
            kv_cache_dtype: a.kv_cache_dtype,
            chunked_prefill_size: a.chunked_prefill_size,
            attention_backend: a.attention_backend,
            max_model_len: a.max_model_len,
            sim_startup_seconds: a.sim_startup_seconds,
            sim_decode_ms: a.sim_decode_ms,
            sim_batch_penalty: a.sim_batch_penalty,
            sim_prefill_ms_per_1k: a.sim_prefill_ms_per_1k,
            sim_gpu_memory_gb: a.sim_gpu_memory_gb,
            sim_weights_gb: a.sim_weights_gb,
            sim_kv_kib_per_token: a.sim_kv_kib_per_token,
            sim_activation_kib_per_token: a.sim_activation_kib_per_token,
            sim_tp_overhead_ms: a.sim_tp_overhead_ms,
            sim_fp8_kv_overhead: a.sim_fp8_kv_overhead,
            sim_accuracy: a.sim_accuracy,
            sim_fp8_kv_accuracy_drop: a.sim_fp8_kv_accuracy_drop,
            sim_crash_after: a.sim_crash_after,
            sim_core_dies_after: a.sim_core_dies_after,
            sim_health_blips: a.sim_health_blips,
            sim_usage_factor: a.sim_usage_factor,
            sim_fail_every: a.sim_fail_every,
            sim_malformed_every: a.sim_malformed_every,
            sim_drop_every: a.sim_drop_every,
            sim_bind_late: a.sim_bind_late,
            sim_nagle: a.sim_nagle,
            sim_die_while_loading: a.sim_die_while_loading,
            sim_ignore_sigterm: a.sim_ignore_sigterm,
            sim_worker: a.sim_worker,
            sim_vocab_size: a.sim_vocab_size,
            sim_log_after_error: a.sim_log_after_error,
            sim_noise: a.sim_noise,
            sim_noise_per_run: a.sim_noise_per_run,
            sim_benchmark_gap_ms: a.sim_benchmark_gap_ms,
            sim_seed: a.sim_seed,
            sim_noise_counter: a.sim_noise_counter,
            sim_version: a.sim_version.or_else(|| std::env::var("PERFLAB_SIM_VERSION").ok()),
        }
    }
}

fn main() -> std::process::ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == perflab::sim::WORKER_ARG) {
        perflab::sim::worker();
    }
    let cli = Cli::parse();
    if cli.version {
        let options: perflab::sim::EngineOptions = cli.engine.into();
        match options.sim_version {
            Some(v) => println!("perflab-engine {v}"),
            None => println!("perflab-engine: a simulated engine, with no version unless --sim-version gives one"),
        }
        return std::process::ExitCode::SUCCESS;
    }
    if cli.engine.sim_worker
        && let Err(e) = perflab::sim::spawn_worker()
    {
        eprintln!("error: cannot start the worker: {e}");
        return std::process::ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(perflab::sim::serve(cli.engine.into())) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab::sim::EngineOptions;

    fn options(list: &[&str]) -> EngineOptions {
        Cli::parse_from(std::iter::once("perflab-engine").chain(list.iter().copied())).engine.into()
    }

    #[test]
    fn the_flags_defaults_are_the_librarys() {
        assert_eq!(options(&[]), EngineOptions::default());
    }

    #[test]
    fn sglang_spellings_set_the_same_options() {
        let vllm = options(&["--gpu-memory-utilization", "0.9", "--max-model-len", "4096", "--tp-size", "2"]);
        let sglang =
            options(&["--mem-fraction-static", "0.9", "--context-length", "4096", "--tensor-parallel-size", "2"]);
        assert_eq!(vllm, sglang);
        assert_ne!(vllm, EngineOptions::default());
    }
}
