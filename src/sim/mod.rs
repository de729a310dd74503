//! A simulated inference engine for tests and demos: an OpenAI-compatible server whose speed
//! and failures follow its flags the way a GPU engine's do, so that a study run against it has
//! real winners, out-of-memory starts, unsupported configurations and crashes.
//!
//! The model: continuous batching in fixed steps. Each step prefills up to
//! `--chunked-prefill-size` prompt tokens and decodes one token for every running sequence; a
//! step takes `--sim-decode-ms` (longer as the batch fills) plus the prefill cost, both divided
//! by a tensor-parallel speed-up. A sequence is admitted while the batch has room
//! (`--max-num-seqs`) and the KV cache has room for its tokens; the KV cache is what the memory
//! fraction leaves after weights and activations, twice as many tokens in FP8.

pub mod answer;
mod server;

pub use server::serve;

/// Attention backends the simulated engine supports.
pub const BACKENDS: &[&str] = &["flashinfer", "triton", "fa3"];

/// Engine-like settings (named as vLLM names its flags), then the simulation's own knobs
/// (`sim_*`); `perflab-engine`'s flags set them.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineOptions {
    /// Address to listen on.
    pub host: String,
    pub port: u16,
    /// The model name the server answers to.
    pub model: String,
    /// Tensor parallelism: GPUs a replica spans; each step is faster, memory is larger.
    pub tp_size: u32,
    /// Data parallelism: independent replicas sharing the GPUs.
    pub dp_size: u32,
    /// Sequences a replica runs at once.
    pub max_num_seqs: usize,
    /// Share of GPU memory the engine may use.
    pub gpu_memory_utilization: f64,
    /// `auto`, `bf16`, `fp8`, `fp8_e4m3`: FP8 halves the bytes a cached token takes.
    pub kv_cache_dtype: String,
    /// Prompt tokens prefilled a step; larger chunks need more activation memory.
    pub chunked_prefill_size: u64,
    /// One of flashinfer, triton, fa3.
    pub attention_backend: String,
    /// Longest prompt plus output a request may have; longer requests are rejected.
    pub max_model_len: u64,
    /// Seconds the engine takes to load before it serves.
    pub sim_startup_seconds: f64,
    /// Milliseconds a decode step takes with one sequence on one GPU.
    pub sim_decode_ms: f64,
    /// How much longer a step gets when the batch is full (0.5: 50% longer).
    pub sim_batch_penalty: f64,
    /// Milliseconds to prefill 1000 prompt tokens on one GPU.
    pub sim_prefill_ms_per_1k: f64,
    /// Memory of one GPU, GiB.
    pub sim_gpu_memory_gb: f64,
    /// Model weights, GiB, spread over the tensor-parallel GPUs.
    pub sim_weights_gb: f64,
    /// KV cache of one token in 16-bit, KiB.
    pub sim_kv_kib_per_token: f64,
    /// Activation memory a prefill token needs, KiB.
    pub sim_activation_kib_per_token: f64,
    /// Milliseconds a step spends in communication for each GPU beyond the first.
    pub sim_tp_overhead_ms: f64,
    /// How much longer a step is with an FP8 KV cache (dequantization), e.g. 0.15.
    pub sim_fp8_kv_overhead: f64,
    /// The share of arithmetic questions answered right (see [`answer`]).
    pub sim_accuracy: f64,
    /// How much lower that share is with an FP8 KV cache, e.g. 0.03 (3 points).
    pub sim_fp8_kv_accuracy_drop: f64,
    /// Abort the process after this many completed requests, as a crashing engine does.
    pub sim_crash_after: Option<u64>,
    /// After this many completed requests the engine's core dies but its API server lives on,
    /// answering 500 and failing `/health`, as vLLM's server does until it exits.
    pub sim_core_dies_after: Option<u64>,
    /// Answer this many `/health` checks that come after the first request with 503, as an
    /// engine busy finishing a benchmark's last requests may be too slow to answer one.
    pub sim_health_blips: u64,
    /// Count this many times the tokens it streamed as `completion_tokens` in a stream's usage,
    /// as a server that miscounts does.
    pub sim_usage_factor: u64,
    /// Answer every Nth request with HTTP 500.
    pub sim_fail_every: Option<u64>,
    /// Send a malformed chunk in every Nth stream.
    pub sim_malformed_every: Option<u64>,
    /// Drop the connection in the middle of every Nth stream.
    pub sim_drop_every: Option<u64>,
    /// Listen only once loaded, as vLLM does after loading weights (by default the port is
    /// bound at once and `/health` answers 503 while loading).
    pub sim_bind_late: bool,
    /// Leave Nagle's algorithm on (no `TCP_NODELAY`), as a server or proxy that buffers its
    /// chunks does: tokens wait for the client's delayed acknowledgements and come in bursts.
    pub sim_nagle: bool,
    /// Die halfway through loading with an error, as an engine whose workers fail does.
    pub sim_die_while_loading: bool,
    /// Ignore SIGTERM, as an engine hung in its shutdown does (only SIGKILL ends it).
    pub sim_ignore_sigterm: bool,
    /// Start a worker process in the engine's process group that ignores SIGTERM and outlives
    /// the engine, as a GPU engine's workers can when the OOM killer takes the main process:
    /// only SIGKILL ends it (or, at the latest, [`WORKER_LIFETIME`]). Its process id is in the
    /// log (`INFO worker <pid> started`).
    pub sim_worker: bool,
    /// Token ids of the model's vocabulary: a prompt of ids at or above it is refused with HTTP
    /// 400, as a real engine refuses them.
    pub sim_vocab_size: u64,
    /// Lines of traceback and shutdown noise printed after a start-up error, as real engines
    /// print them (vLLM: 60–95), so that the error is far above the log's end.
    pub sim_log_after_error: usize,
    /// Run-to-run variation of the engine's speed, as a share (0.05: up to ±5%): the share
    /// `sim_noise_per_run` of it is drawn at each benchmark (a burst of requests after the
    /// engine was idle for [`BENCHMARK_GAP_MS`] ms), the rest at each engine start, from
    /// `sim_seed`.
    pub sim_noise: f64,
    /// The share of `sim_noise` drawn at each benchmark (0 to 1; 0.5 by default).
    pub sim_noise_per_run: f64,
    /// Milliseconds without a request in flight after which the next request starts a new
    /// benchmark ([`BENCHMARK_GAP_MS`] by default).
    pub sim_benchmark_gap_ms: u64,
    /// The seed of `sim_noise`'s draws.
    pub sim_seed: u64,
    /// A file counting the engine starts that drew from `sim_seed` (created when missing):
    /// each start reads it and counts itself, so that each start draws anew and the same
    /// seed replays the same sequence. Without it every start draws as the first.
    pub sim_noise_counter: Option<std::path::PathBuf>,
    /// The version the engine reports (`--version`, `GET /version`); none by default.
    pub sim_version: Option<String>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            host: "127.0.0.1".into(),
            port: 8000,
            model: "sim-model".into(),
            tp_size: 1,
            dp_size: 1,
            max_num_seqs: 256,
            gpu_memory_utilization: 0.8,
            kv_cache_dtype: "auto".into(),
            chunked_prefill_size: 8192,
            attention_backend: "flashinfer".into(),
            max_model_len: 32768,
            sim_startup_seconds: 2.0,
            sim_decode_ms: 20.0,
            sim_batch_penalty: 0.5,
            sim_prefill_ms_per_1k: 20.0,
            sim_gpu_memory_gb: 80.0,
            sim_weights_gb: 40.0,
            sim_kv_kib_per_token: 160.0,
            sim_activation_kib_per_token: 1024.0,
            sim_tp_overhead_ms: 1.0,
            sim_fp8_kv_overhead: 0.15,
            sim_accuracy: 0.9,
            sim_fp8_kv_accuracy_drop: 0.0,
            sim_crash_after: None,
            sim_core_dies_after: None,
            sim_health_blips: 0,
            sim_usage_factor: 1,
            sim_fail_every: None,
            sim_malformed_every: None,
            sim_drop_every: None,
            sim_bind_late: false,
            sim_nagle: false,
            sim_die_while_loading: false,
            sim_ignore_sigterm: false,
            sim_worker: false,
            sim_vocab_size: 32000,
            sim_log_after_error: 0,
            sim_noise: 0.0,
            sim_noise_per_run: 0.5,
            sim_benchmark_gap_ms: BENCHMARK_GAP_MS,
            sim_seed: 0,
            sim_noise_counter: None,
            sim_version: None,
        }
    }
}

/// The longest a `--sim-worker` lives: a test that fails leaves none for long.
pub const WORKER_LIFETIME: std::time::Duration = std::time::Duration::from_secs(120);

/// The argument that makes `perflab-engine` the worker [`spawn_worker`] starts.
pub const WORKER_ARG: &str = "--sim-worker-process";

/// Starts the `--sim-worker` process: this program again, with [`WORKER_ARG`], in the engine's
/// process group, its standard error in the engine's log. Returns once the worker has logged its
/// start, so that a log read after the engine served (or died) names it, however late the
/// machine scheduled the child. The worker is not waited for: it outlives the engine by design.
pub fn spawn_worker() -> std::io::Result<()> {
    use std::io::Read;
    let mut worker = std::process::Command::new(std::env::current_exe()?)
        .arg(WORKER_ARG)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    // The read ends at the worker's byte, or at once if the worker died before it wrote one.
    if let Some(mut says) = worker.stdout.take() {
        let _ = says.read_exact(&mut [0u8]);
    }
    Ok(())
}

/// The worker's whole life: SIGTERM does not end it, it says that it started, and it sleeps
/// for [`WORKER_LIFETIME`] unless SIGKILL ends it first.
pub fn worker() -> ! {
    use std::io::Write;
    let ignored = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, ignored);
    eprintln!("INFO worker {} started", std::process::id());
    let mut out = std::io::stdout();
    let _ = out.write_all(&[1]).and_then(|()| out.flush());
    std::thread::sleep(WORKER_LIFETIME);
    std::process::exit(0)
}

/// Milliseconds without a request in flight after which the next request starts a new
/// benchmark for `--sim-noise`.
pub const BENCHMARK_GAP_MS: u64 = 50;

/// A number in [−1, 1) drawn from `seed` for the `index`-th event of `stream`: SplitMix64,
/// the same for the same arguments on every machine.
pub fn draw(seed: u64, stream: u64, index: u64) -> f64 {
    let mut z = seed
        .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_add(index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// The speed factor of a benchmark: `1 + noise · (start + bench) / 2`, the draws in [−1, 1).
pub fn speed_factor(noise: f64, start: f64, bench: f64) -> f64 {
    mixed_speed_factor(noise, 0.5, start, bench)
}

/// The speed factor of a benchmark whose noise lies `per_run` in the benchmark's draw and the
/// rest in the start's: `1 + noise · ((1 − per_run) · start + per_run · bench)`. The draws are
/// uniform in [−1, 1), so the standard deviation between starts is `noise · (1 − per_run) / √3`
/// and within a start `noise · per_run / √3`.
pub fn mixed_speed_factor(noise: f64, per_run: f64, start: f64, bench: f64) -> f64 {
    1.0 + noise * ((1.0 - per_run) * start + per_run * bench)
}

/// Why the engine refuses to start, with the message a real engine prints.
#[derive(Debug, Clone, PartialEq)]
pub enum StartError {
    OutOfMemory(String),
    Unsupported(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::OutOfMemory(m) | StartError::Unsupported(m) => f.write_str(m),
        }
    }
}

/// What the flags give one replica.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    /// Tokens (prompt plus output) the KV cache of a replica holds.
    pub kv_tokens: u64,
    /// Sequences a replica runs at once.
    pub max_seqs: usize,
    /// Speed-up of a step from tensor parallelism.
    pub speedup: f64,
    /// Milliseconds of communication a step.
    pub overhead_ms: f64,
    /// Factor on a step's time (FP8 KV cache dequantization).
    pub step_factor: f64,
}

impl EngineOptions {
    /// The capacity of a replica, or why the engine cannot start with these flags.
    pub fn capacity(&self) -> Result<Capacity, StartError> {
        for (name, value) in [
            ("--sim-startup-seconds", self.sim_startup_seconds),
            ("--sim-decode-ms", self.sim_decode_ms),
            ("--sim-batch-penalty", self.sim_batch_penalty),
            ("--sim-prefill-ms-per-1k", self.sim_prefill_ms_per_1k),
            ("--sim-gpu-memory-gb", self.sim_gpu_memory_gb),
            ("--sim-weights-gb", self.sim_weights_gb),
            ("--sim-kv-kib-per-token", self.sim_kv_kib_per_token),
            ("--sim-activation-kib-per-token", self.sim_activation_kib_per_token),
            ("--sim-tp-overhead-ms", self.sim_tp_overhead_ms),
            ("--sim-fp8-kv-overhead", self.sim_fp8_kv_overhead),
        ] {
            if !(value.is_finite() && (0.0..=1e6).contains(&value)) {
                return Err(StartError::Unsupported(format!(
                    "ValueError: {name} must be a number from 0 to 1000000, got {value}"
                )));
            }
        }
        if !(self.sim_noise.is_finite() && (0.0..0.9).contains(&self.sim_noise)) {
            return Err(StartError::Unsupported(format!(
                "ValueError: --sim-noise must be a share from 0 to 0.9, got {}",
                self.sim_noise
            )));
        }
        let shares = [
            ("--sim-noise-per-run", self.sim_noise_per_run),
            ("--sim-accuracy", self.sim_accuracy),
            ("--sim-fp8-kv-accuracy-drop", self.sim_fp8_kv_accuracy_drop),
        ];
        for (name, value) in shares {
            if !(value.is_finite() && (0.0..=1.0).contains(&value)) {
                return Err(StartError::Unsupported(format!(
                    "ValueError: {name} must be a share from 0 to 1, got {value}"
                )));
            }
        }
        if !BACKENDS.contains(&self.attention_backend.as_str()) {
            return Err(StartError::Unsupported(format!(
                "ValueError: Selected backend AttentionBackendEnum.{} is not valid for this configuration. Reason: ['not supported by the simulated engine']",
                self.attention_backend.to_uppercase()
            )));
        }
        let fp8 = match self.kv_cache_dtype.as_str() {
            "auto" | "bf16" | "bfloat16" => false,
            "fp8" | "fp8_e4m3" | "fp8_e5m2" => true,
            other => {
                return Err(StartError::Unsupported(format!("ValueError: Unsupported kv_cache_dtype: '{other}'")));
            }
        };
        if !(self.gpu_memory_utilization > 0.0 && self.gpu_memory_utilization <= 1.0) {
            return Err(StartError::Unsupported(format!(
                "ValueError: gpu_memory_utilization must be in (0, 1], got {}",
                self.gpu_memory_utilization
            )));
        }
        let tp = f64::from(self.tp_size.max(1));
        let dp = f64::from(self.dp_size.max(1));
        let gib = 1024.0 * 1024.0;
        // Per replica: its share of the GPUs' memory, minus the weights, minus the activations.
        let usable = self.sim_gpu_memory_gb * tp * self.gpu_memory_utilization / dp;
        let activations = self.chunked_prefill_size as f64 * self.sim_activation_kib_per_token / gib;
        let kv = usable - self.sim_weights_gb - activations;
        if kv <= 0.0 {
            return Err(StartError::OutOfMemory(format!(
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {:.2} GiB for the KV cache; the weights ({:.2} GiB) and activations ({:.2} GiB) already take {:.2} GiB more than the {:.2} GiB a replica may use.",
                -kv + 1.0,
                self.sim_weights_gb,
                activations,
                -kv,
                usable
            )));
        }
        let per_token = self.sim_kv_kib_per_token / if fp8 { 2.0 } else { 1.0 };
        Ok(Capacity {
            kv_tokens: (kv * gib / per_token) as u64,
            max_seqs: self.max_num_seqs.max(1),
            speedup: tp.powf(0.8),
            overhead_ms: self.sim_tp_overhead_ms * (tp - 1.0),
            step_factor: if fp8 { 1.0 + self.sim_fp8_kv_overhead } else { 1.0 },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(set: impl FnOnce(&mut EngineOptions)) -> EngineOptions {
        let mut options = EngineOptions::default();
        set(&mut options);
        options
    }

    #[test]
    fn memory_fraction_and_fp8_grow_the_kv_cache() {
        let base = args(|_| {}).capacity().unwrap();
        let more = args(|o| o.gpu_memory_utilization = 0.9).capacity().unwrap();
        let fp8 = args(|o| o.kv_cache_dtype = "fp8_e4m3".into()).capacity().unwrap();
        assert!(more.kv_tokens > base.kv_tokens);
        assert!(fp8.kv_tokens > base.kv_tokens * 19 / 10);
    }

    #[test]
    fn noise_draws_are_seeded_and_bounded() {
        assert_eq!(draw(7, 1, 3), draw(7, 1, 3));
        assert_ne!(draw(7, 1, 3), draw(7, 1, 4));
        assert_ne!(draw(7, 1, 3), draw(8, 1, 3));
        let all: Vec<f64> = (0..10_000).map(|i| draw(1, 0, i)).collect();
        assert!(all.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = all.iter().sum::<f64>() / all.len() as f64;
        assert!(mean.abs() < 0.05, "{mean}");
        assert_eq!(speed_factor(0.05, 1.0, 1.0), 1.05);
        assert_eq!(speed_factor(0.0, 0.3, -0.9), 1.0);
        assert!(args(|o| o.sim_noise = 2.0).capacity().is_err());
        assert!(args(|o| o.sim_noise_per_run = 1.5).capacity().is_err());
        assert!(args(|o| o.sim_noise_per_run = f64::NAN).capacity().is_err());
        assert_eq!(mixed_speed_factor(0.05, 0.0, 1.0, -1.0), 1.05, "all of it at the start");
        assert_eq!(mixed_speed_factor(0.05, 1.0, 1.0, -1.0), 0.95, "all of it at the benchmark");
        assert_eq!(mixed_speed_factor(0.05, 0.5, 0.3, -0.7), speed_factor(0.05, 0.3, -0.7));
    }

    #[test]
    fn failures_read_like_real_engines() {
        let oom = args(|o| o.gpu_memory_utilization = 0.5).capacity().unwrap_err();
        assert!(matches!(oom, StartError::OutOfMemory(ref m) if m.contains("CUDA out of memory")), "{oom}");
        let oom = args(|o| o.chunked_prefill_size = 40000).capacity().unwrap_err();
        assert!(matches!(oom, StartError::OutOfMemory(_)));
        let bad = args(|o| o.attention_backend = "cutlass_mla".into()).capacity().unwrap_err();
        assert!(bad.to_string().contains("Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid"));
    }
}
