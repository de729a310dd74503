//! Site build time against the number of studies: the bundled studies, then 50, 100 and 200
//! synthetic ones (copies of the bundled studies under other ids). Each iteration loads the
//! studies, builds the site in memory and writes it into an empty folder, as `perflab build`
//! does. Run with `cargo bench --bench build`.

#[path = "../tests/it/common/mod.rs"]
mod common;

use common::copy_dir;
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::{Study, discover};
use std::path::{Path, PathBuf};

/// A results folder with `n` studies: the bundled ones, copied round-robin under new ids.
fn results(n: usize) -> tempfile::TempDir {
    let bundled = discover(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..n {
        let from = &bundled[i % bundled.len()];
        let name = from.file_name().unwrap().to_string_lossy();
        copy_dir(from, &tmp.path().join(format!("{name}-{i:03}")));
    }
    tmp
}

fn build(results: &Path, out: &Path) -> usize {
    let renderer = Renderer::new(None).unwrap();
    let studies: Vec<Study> = discover(results).unwrap().iter().map(|d| Study::load(d).unwrap()).collect();
    Site::build(&studies, &renderer, Flavor::Commonmark).unwrap().write(out).unwrap()
}

fn site(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for n in [2usize, 50, 100, 200] {
        let dir = results(n);
        group.bench_with_input(BenchmarkId::new("studies", n), &n, |b, _| {
            b.iter_batched(
                || tempfile::tempdir().unwrap(),
                |out| build(dir.path(), out.path()),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, site);
criterion_main!(benches);
