//! How soon `perflab run` notices that an engine answers: a listener on loopback starts to
//! answer `GET /health` with 200 after a seeded delay (0 to 40 ms after the first check), and
//! the engine start's readiness loop (`ready` between the pauses of `Backoff`) checks it until
//! it does. The same is done with the fixed 50 ms pause perflab used before, alternately, trial
//! by trial. Prints the distribution of the delay between the moment the listener answers and
//! the moment the check sees it, and the checks a start made.
//!
//!   cargo bench --bench readiness [-- TRIALS]      # default 200 a way

use perflab::exec::port::{Backoff, ready};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// How the loop pauses between two checks.
#[derive(Clone, Copy)]
enum Poll {
    Backoff,
    Fixed50,
}

/// One engine start: (delay from answering to being noticed, checks made).
fn trial(poll: Poll, delay: Duration) -> (Duration, usize) {
    // A port is reserved by binding it; the listener is dropped and bound again when it is
    // time to answer, so that the checks before meet a refused connection, as they do while an
    // engine loads.
    let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(0);
    let url = format!("http://127.0.0.1:{port}/health");
    let start = Instant::now();
    let server = std::thread::spawn(move || {
        std::thread::sleep(delay);
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the port is still free");
        let answering = Instant::now();
        if let Ok((mut stream, _)) = listener.accept() {
            let mut request = [0u8; 512];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
        answering
    });
    let (mut checks, mut backoff) = (0, Backoff::default());
    loop {
        checks += 1;
        if ready(&url) {
            break;
        }
        std::thread::sleep(match poll {
            Poll::Backoff => backoff.pause(),
            Poll::Fixed50 => Duration::from_millis(50),
        });
    }
    let noticed = Instant::now();
    let answering = server.join().unwrap_or(start);
    (noticed.saturating_duration_since(answering), checks)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let trials: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(200);
    // xorshift, seeded: the same delays every run.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let ways = [(Poll::Fixed50, "a fixed 50 ms pause (before)"), (Poll::Backoff, "1 ms, doubling up to 5 ms (now)")];
    let mut seen: Vec<(Vec<f64>, usize)> = vec![(Vec::new(), 0); ways.len()];
    for _ in 0..trials {
        let delay = Duration::from_micros(next() % 40_000);
        for (i, (poll, _)) in ways.iter().enumerate() {
            let (late, checks) = trial(*poll, delay);
            seen[i].0.push(late.as_secs_f64() * 1000.0);
            seen[i].1 += checks;
        }
    }
    println!("| noticed after the engine answers, {trials} starts a way | median | p90 | p99 | max | checks a start |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for ((_, name), (mut late, checks)) in ways.iter().zip(seen) {
        late.sort_by(f64::total_cmp);
        let ms = |p: f64| format!("{:.2} ms", percentile(&late, p));
        println!(
            "| {name} | {} | {} | {} | {} | {:.1} |",
            ms(0.5),
            ms(0.9),
            ms(0.99),
            ms(1.0),
            checks as f64 / trials as f64
        );
    }
}
