//! Parser throughput on block text: the bundled studies' runs, concatenated into a large log.
//! Run with `cargo bench --bench parse`; criterion prints MiB/s.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;

fn corpus() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut one = String::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "txt") {
            one.push_str(&std::fs::read_to_string(entry.path()).unwrap());
            one.push('\n');
        }
    }
    // About 8 MB of blocks, like a long sweep log.
    one.repeat((8 << 20) / one.len() + 1)
}

fn parse(c: &mut Criterion) {
    let text = corpus();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group
        .bench_function("serving-benchmark-blocks", |b| b.iter(|| perflab::parse_str(black_box(&text)).unwrap().len()));
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
