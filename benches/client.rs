//! Can `perflab bench` keep up? It drives a trivial server on loopback (the simulated engine
//! with 1 ms steps, no prefill cost, room for every stream) with 1,000 and 2,000 concurrent
//! streams and reports the streams it held open and the tokens a second it read.
//! Run with `cargo bench --bench client`.

#[path = "../tests/it/common/mod.rs"]
mod common;

use perflab::bench::{BenchOptions, run};
use std::time::Instant;

fn main() {
    let engine = common::Engine::start(&[
        "--sim-decode-ms",
        "1",
        "--sim-prefill-ms-per-1k",
        "0",
        "--sim-batch-penalty",
        "0",
        "--max-num-seqs",
        "100000",
        // 16 GiB of KV cache at 1 KiB a token: room for every stream's 216 tokens.
        "--sim-kv-kib-per-token",
        "1",
    ]);
    let url = engine.url();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    for (streams, prompts, output) in [(1000usize, 3000usize, 200u64), (2000, 4000, 200)] {
        let args = BenchOptions {
            base_url: url.clone(),
            model: Some("sim-model".into()),
            random_input_len: 16,
            random_output_len: output,
            num_prompts: prompts,
            max_concurrency: Some(streams),
            ..BenchOptions::default()
        };
        let started = Instant::now();
        let result = runtime.block_on(run(&args, std::future::pending(), |_| {})).expect("benchmark");
        let v = &result.report.values;
        println!(
            "{streams:>5} concurrent streams: {:>6.0} streams open at peak, {:>9.0} tok/s read ({:>9.0} at peak), {} failed, {:.1} s",
            v["max_concurrent_requests"],
            v["output_throughput"],
            v["max_output_tokens_per_s"],
            v["failed"],
            started.elapsed().as_secs_f64()
        );
    }
    drop(engine);
}
