//! Per-request records of a benchmark (what `perflab bench --requests-file` writes, one JSON
//! object a line), read back so that goodput under any service-level objective can be computed
//! after the run; also read from vLLM's `--save-result --save-detailed` JSON.
//!
//! [`goodput`] follows `vllm bench serve --goodput`: a request is good when it succeeded and
//! every given limit holds (the value at or below the limit); the time per output token of a
//! request with fewer than two output tokens counts as 0; request goodput is the good requests
//! divided by the benchmark's duration.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One measured request. Times are seconds from the start of the benchmark; latencies are in
/// milliseconds. The field order is the order written.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RequestRecord {
    /// The order the request was sent in, from 0 (warm-up requests are not recorded).
    pub index: u64,
    pub ok: bool,
    pub error: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// When the request was due: its Poisson arrival time, or the moment a concurrency slot
    /// let it go (the later of the two when both apply).
    pub scheduled_s: f64,
    /// When it was sent.
    pub sent_s: f64,
    pub ttft_ms: Option<f64>,
    /// (E2E latency − TTFT) ÷ (output tokens − 1); `None` below 2 output tokens.
    pub tpot_ms: Option<f64>,
    pub e2el_ms: Option<f64>,
    /// The gaps between streamed chunks.
    pub itl_ms: Vec<f64>,
    /// Its tokens arrived in bursts, not one by one (see `perflab bench`'s warning): its TTFT
    /// and ITL measure the buffering.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub buffered: bool,
}

/// Chunks closer than this (milliseconds) arrived together: 50 µs, far below any decode step.
pub const BURST_GAP_MS: f64 = 0.05;

/// Whether a stream with these gaps between its chunks (milliseconds) arrived in bursts: of at
/// least four chunks, three in four or more came less than [`BURST_GAP_MS`] after the one
/// before (most in the same read). An engine emits a token a decode step (milliseconds) apart;
/// a server or proxy that holds chunks back (Nagle's algorithm without `TCP_NODELAY`, gzip, a
/// buffering reverse proxy), or a client that cannot keep up, delivers them together, so such
/// a request's TTFT and ITL measure the buffering, not the engine.
pub fn bursty(itl_ms: &[f64]) -> bool {
    let together = itl_ms.iter().filter(|g| **g < BURST_GAP_MS).count();
    itl_ms.len() >= 3 && together * 4 >= itl_ms.len() * 3
}

/// Service-level objectives, in milliseconds; `None` sets no limit.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub e2el_ms: Option<f64>,
}

impl Limits {
    /// Reads vLLM's `--goodput` items: `ttft:500`, `tpot:50`, `e2el:10000` (milliseconds, each
    /// metric at most once, a limit above 0).
    pub fn parse(items: &[String]) -> Result<Limits, String> {
        let mut limits = Limits::default();
        for item in items {
            let (key, value) = item.split_once(':').ok_or(format!("`{item}`: write metric:milliseconds"))?;
            let value: f64 = value.parse().map_err(|_| format!("`{item}`: `{value}` is not a number"))?;
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("`{item}`: the limit is a number of milliseconds above 0"));
            }
            let slot = match key {
                "ttft" => &mut limits.ttft_ms,
                "tpot" => &mut limits.tpot_ms,
                "e2el" => &mut limits.e2el_ms,
                _ => return Err(format!("`{item}`: the metric is ttft, tpot or e2el")),
            };
            if slot.replace(value).is_some() {
                return Err(format!("`{item}`: `{key}` is limited twice"));
            }
        }
        Ok(limits)
    }

    /// Whether a request meets every limit. A successful request without a measured TTFT or
    /// E2E latency fails a limit on it; one with fewer than 2 output tokens has a TPOT of 0.
    pub fn met_by(&self, r: &RequestRecord) -> bool {
        let within = |limit: Option<f64>, value: Option<f64>| limit.is_none_or(|l| value.is_some_and(|v| v <= l));
        r.ok && within(self.ttft_ms, r.ttft_ms)
            && within(self.tpot_ms, Some(r.tpot_ms.unwrap_or(0.0)))
            && within(self.e2el_ms, r.e2el_ms)
    }
}

/// Requests that met the limits, out of all recorded, and their rate over the duration.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Goodput {
    pub good: u64,
    pub total: u64,
    /// Good requests a second; 0 when the duration is not positive.
    pub request_goodput: f64,
}

/// Goodput of `records` under `limits` over a benchmark of `duration_s` seconds.
pub fn goodput(records: &[RequestRecord], limits: &Limits, duration_s: f64) -> Goodput {
    let good = records.iter().filter(|r| limits.met_by(r)).count() as u64;
    let request_goodput = if duration_s > 0.0 { good as f64 / duration_s } else { 0.0 };
    Goodput { good, total: records.len() as u64, request_goodput }
}

/// TPOT in milliseconds from the E2E latency and TTFT in seconds, in vLLM's order of operations:
/// `None` below 2 output tokens.
pub fn tpot_ms(e2el_s: f64, ttft_s: f64, output_tokens: u64) -> Option<f64> {
    (output_tokens > 1).then(|| (e2el_s - ttft_s) / (output_tokens - 1) as f64 * 1000.0)
}

/// Reads a requests file (JSON lines; blank lines are skipped). An error names the file and
/// the line.
pub fn read_requests(path: &Path) -> Result<Vec<RequestRecord>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .map_err(|e| format!("{}:{}:{}: not a request record: {e}", path.display(), i + 1, e.column()))
        })
        .collect()
}

/// Writes a requests file: one object a line, fields in their declared order, written to a
/// temporary file beside `path` and renamed over it.
pub fn write_requests(path: &Path, records: &[RequestRecord]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(records.len() * 160);
    for r in records {
        serde_json::to_writer(&mut bytes, r)?;
        bytes.push(b'\n');
    }
    crate::durable::write(path, &bytes)
}

/// The records in vLLM's result JSON written with `--save-result --save-detailed`, in the order
/// vLLM lists them. A request succeeded when its `errors` entry is empty; its output tokens are
/// vLLM's `output_lens`; `scheduled_s` is its start less its `queue_times` entry, both from the
/// first start.
pub fn from_vllm_result(text: &str) -> Result<Vec<RequestRecord>, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
    let list = |key: &str| {
        v.get(key).and_then(|l| l.as_array()).ok_or(format!("no `{key}` list (was it saved with --save-detailed?)"))
    };
    let (ttfts, latencies, starts, errors) =
        (list("ttfts")?, list("latencies")?, list("start_times")?, list("errors")?);
    let (input_lens, output_lens, itls) = (list("input_lens")?, list("output_lens")?, list("itls")?);
    let n = ttfts.len();
    let lists = [latencies, starts, errors, input_lens, output_lens, itls];
    if lists.iter().any(|l| l.len() != n) {
        return Err(format!("the per-request lists differ in length (`ttfts` has {n})"));
    }
    let queue = v.get("queue_times").and_then(|q| q.as_array()).filter(|q| q.len() == n);
    let number = |l: &serde_json::Value, key: &str, i: usize| l.as_f64().ok_or(format!("`{key}[{i}]` is not a number"));
    let first = starts.iter().filter_map(|s| s.as_f64()).fold(f64::INFINITY, f64::min);
    (0..n)
        .map(|i| {
            let error = errors[i].as_str().filter(|e| !e.is_empty()).map(str::to_string);
            let ok = error.is_none();
            let sent_s = number(&starts[i], "start_times", i)? - first;
            let waited = queue.and_then(|q| q[i].as_f64()).unwrap_or(0.0);
            let output = output_lens[i].as_u64();
            let (ttft, e2el) = (number(&ttfts[i], "ttfts", i)?, number(&latencies[i], "latencies", i)?);
            let itl_ms: Vec<f64> = itls[i]
                .as_array()
                .ok_or(format!("`itls[{i}]` is not a list"))?
                .iter()
                .map(|x| number(x, "itls", i).map(|s| s * 1000.0))
                .collect::<Result<_, _>>()?;
            Ok(RequestRecord {
                index: i as u64,
                ok,
                error,
                input_tokens: input_lens[i].as_u64(),
                output_tokens: output,
                scheduled_s: sent_s - waited,
                sent_s,
                ttft_ms: ok.then_some(ttft * 1000.0),
                tpot_ms: if ok { tpot_ms(e2el, ttft, output.unwrap_or(0)) } else { None },
                e2el_ms: ok.then_some(e2el * 1000.0),
                buffered: ok && bursty(&itl_ms),
                itl_ms,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: u64, ttft: f64, e2el: f64, output: u64) -> RequestRecord {
        RequestRecord {
            index,
            ok: true,
            error: None,
            input_tokens: Some(8),
            output_tokens: Some(output),
            scheduled_s: 0.0,
            sent_s: 0.0,
            ttft_ms: Some(ttft),
            tpot_ms: (output > 1).then(|| (e2el - ttft) / (output - 1) as f64),
            e2el_ms: Some(e2el),
            itl_ms: vec![],
            buffered: false,
        }
    }

    #[test]
    fn a_stream_whose_chunks_came_together_is_bursty() {
        assert!(bursty(&[0.0, 0.0, 0.01, 40.0]));
        assert!(!bursty(&[2.0, 2.1, 1.9, 2.0]));
        // Too few chunks to tell, and one burst among steady gaps.
        assert!(!bursty(&[0.0, 0.0]));
        assert!(!bursty(&[0.0, 2.0, 2.0, 2.0]));
    }

    #[test]
    fn a_request_is_good_when_it_succeeded_and_every_limit_holds() {
        let limits = Limits { ttft_ms: Some(100.0), tpot_ms: Some(10.0), e2el_ms: None };
        let records = [
            record(0, 100.0, 190.0, 10), // at both limits: good
            record(1, 100.1, 190.0, 10), // TTFT over
            record(2, 50.0, 250.0, 10),  // TPOT 22.2 over
            record(3, 50.0, 5000.0, 1),  // one token: TPOT counts as 0
            RequestRecord { ok: false, error: Some("HTTP 500".into()), ..record(4, 1.0, 2.0, 10) },
        ];
        let g = goodput(&records, &limits, 2.0);
        assert_eq!(g, Goodput { good: 2, total: 5, request_goodput: 1.0 });
        assert_eq!(goodput(&records, &Limits::default(), 0.0).request_goodput, 0.0);
        assert_eq!(goodput(&records, &Limits::default(), 1.0).good, 4, "no limits: every success is good");
        let unmeasured = RequestRecord { ttft_ms: None, ..record(5, 0.0, 1.0, 2) };
        assert!(!limits.met_by(&unmeasured), "a limit on a value that was not measured fails");
    }

    #[test]
    fn limits_read_vllms_items() {
        let items = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let l = Limits::parse(&items(&["ttft:500", "e2el:1e4"])).unwrap();
        assert_eq!(l, Limits { ttft_ms: Some(500.0), tpot_ms: None, e2el_ms: Some(10000.0) });
        for (bad, says) in [
            (&["ttft"][..], "metric:milliseconds"),
            (&["ttft:x"], "not a number"),
            (&["ttft:0"], "above 0"),
            (&["itl:5"], "ttft, tpot or e2el"),
            (&["tpot:5", "tpot:6"], "twice"),
        ] {
            let e = Limits::parse(&items(bad)).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }

    #[test]
    fn records_round_trip_through_a_file_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("requests.jsonl");
        let mut r = record(0, 12.5, 40.0, 4);
        r.itl_ms = vec![9.0, 9.5, 9.0];
        let failed = RequestRecord {
            ok: false,
            error: Some("HTTP 500: \"boom\"".into()),
            output_tokens: None,
            ttft_ms: None,
            tpot_ms: None,
            e2el_ms: None,
            ..record(1, 0.0, 0.0, 0)
        };
        write_requests(&path, &[r.clone(), failed.clone()]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"index":0,"ok":true,"error":null,"input_tokens":8,"output_tokens":4,"scheduled_s":0.0,"sent_s":0.0,"ttft_ms":12.5,"tpot_ms":9.166666666666666,"e2el_ms":40.0,"itl_ms":[9.0,9.5,9.0]}"#
        );
        assert_eq!(read_requests(&path).unwrap(), vec![r, failed]);
        assert!(!dir.path().join("requests.jsonl.tmp").exists());

        std::fs::write(&path, format!("{}\n\n{{\"index\": 1}}\n", text.lines().next().unwrap())).unwrap();
        let e = read_requests(&path).unwrap_err();
        assert!(e.starts_with(&format!("{}:3:", path.display())) && e.contains("missing field"), "{e}");
        assert!(read_requests(&dir.path().join("none")).unwrap_err().contains("cannot read"));
    }

    #[test]
    fn vllm_detailed_results_become_records() {
        let text = r#"{"ttfts":[0.1,0.0,0.2],"latencies":[1.0,0.0,0.2],"start_times":[5.0,5.5,6.0],
            "queue_times":[0.0,0.25,0.0],"errors":["","timeout",""],"input_lens":[4,4,4],
            "output_lens":[10,0,1],"itls":[[0.1,0.1],[],[]]}"#;
        let r = from_vllm_result(text).unwrap();
        assert_eq!(r.len(), 3);
        assert!(r[0].ok && !r[1].ok && r[2].ok);
        assert_eq!(r[1].error.as_deref(), Some("timeout"));
        assert!((r[0].tpot_ms.unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(r[2].tpot_ms, None);
        assert_eq!((r[1].sent_s, r[1].scheduled_s), (0.5, 0.25));
        assert_eq!(r[0].itl_ms.len(), 2);
        assert!(from_vllm_result(r#"{"ttfts":[]}"#).unwrap_err().contains("--save-detailed"));
        assert!(from_vllm_result("{").is_err());
    }
}
