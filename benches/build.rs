//! Site build time against the number of studies: the bundled studies, then 50, 100 and 200
//! synthetic ones (copies of the bundled studies under other ids, their numbers scaled apart).
//! Each round loads the studies, builds the site in memory and writes it over the previous
//! build's site, two ways, one after the other: as `perflab build` writes it (a new folder, one
//! `syncfs`, one swap) and as it did before (each file on its own: temporary file, `fsync`,
//! rename, `fsync` of its folder). Then the whole `perflab build` command on 200 studies, over
//! the site its previous round wrote: with no study changed (every study's files taken from
//! it), with one study changed, and with every study rendered (`--render-all`), on this disk,
//! and the last on tmpfs (`/dev/shm`) too; and on this disk into an empty folder. With `PERFLAB_BASELINE` naming another `perflab` binary (a build
//! of another commit), that one too, the two alternating round by round, each over its own
//! previous site. Prints medians of wall time and CPU time (user + system), and the load
//! average before and after.
//!
//!   cargo bench --bench build [-- ROUNDS] [command]   # default 5; `command`: its table only
//!   PERFLAB_BASELINE=path/to/perflab cargo bench --bench build -- 3 command

#[path = "../tests/it/common/mod.rs"]
mod common;

use common::copy_dir;
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::{Study, discover};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A results folder with `n` studies: the bundled ones, copied round-robin under new ids. Each
/// copy's measured numbers are scaled by a factor of its own (every decimal of its run files,
/// with the decimals it had), so that no two studies show the same figures or charts, as in a
/// real site: the ratios, and so the decisions, stay those of the bundled study.
fn results(n: usize, into: &Path) -> PathBuf {
    let bundled = discover(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results")).unwrap();
    let dir = into.join(format!("results-{n}"));
    for i in 0..n {
        let from = &bundled[i % bundled.len()];
        let name = from.file_name().unwrap().to_string_lossy();
        let to = dir.join(format!("{name}-{i:03}"));
        copy_dir(from, &to);
        let factor = 1.0 + (i + 1) as f64 * 1e-3;
        for entry in walkdir::WalkDir::new(to.join("runs")).into_iter().filter_map(Result::ok) {
            if entry.path().extension().is_some_and(|e| e == "txt") {
                scale(entry.path(), factor);
            }
        }
    }
    dir
}

/// Multiplies every decimal of the file `path` by `factor`, each kept with the decimals it had.
fn scale(path: &Path, factor: f64) {
    let decimal = regex::Regex::new(r"\b\d+\.(\d+)\b").unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let scaled = decimal.replace_all(&text, |c: &regex::Captures| {
        let value: f64 = c[0].parse().unwrap();
        format!("{:.*}", c[1].len(), value * factor)
    });
    std::fs::write(path, scaled.as_bytes()).unwrap();
}

fn site(results: &Path) -> Site {
    let renderer = Renderer::new(None).unwrap();
    let studies: Vec<Study> = discover(results).unwrap().iter().map(|d| Study::load(d).unwrap()).collect();
    Site::build(&studies, &renderer, Flavor::Commonmark).unwrap()
}

/// How the site was written before: every file durable on its own.
fn write_each(site: &Site, out: &Path) {
    for (rel, bytes) in &site.files {
        let path = out.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        perflab::durable::write(&path, bytes).unwrap();
    }
}

/// This process's CPU time so far, with its children's that have ended.
fn cpu() -> Duration {
    let mut total = Duration::ZERO;
    for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
        // SAFETY: getrusage fills the struct it is given and keeps no pointer to it.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        for t in [u.ru_utime, u.ru_stime] {
            total += Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
        }
    }
    total
}

/// (wall, CPU) of `f`.
fn timed(f: impl FnOnce()) -> (f64, f64) {
    let (wall, cpu0) = (Instant::now(), cpu());
    f();
    (wall.elapsed().as_secs_f64(), (cpu() - cpu0).as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Medians of (wall, CPU) over rounds.
fn medians(runs: Vec<(f64, f64)>) -> String {
    let (walls, cpus): (Vec<f64>, Vec<f64>) = runs.into_iter().unzip();
    format!("{:.2} s | {:.2} s", median(walls), median(cpus))
}

/// The load average over the last minute.
fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().next().unwrap_or("?").to_string()
}

fn main() {
    let rounds: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(5);
    let tmp = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    println!("load average before: {}", load());
    if std::env::args().any(|a| a == "command") {
        commands(&results(200, tmp.path()), tmp.path(), rounds);
        return;
    }
    ways(tmp.path(), rounds);
    commands(&tmp.path().join("results-200"), tmp.path(), rounds);
}

/// The site written the two ways, for 6 to 200 studies.
fn ways(tmp: &Path, rounds: usize) {
    println!("| studies | files | one sync, one swap: wall | CPU | an fsync a file: wall | CPU |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for n in [6usize, 50, 100, 200] {
        let dir = results(n, tmp);
        let (swapped, each) = (tmp.join(format!("swap-{n}")), tmp.join(format!("each-{n}")));
        let files = site(&dir).write(&swapped).unwrap();
        write_each(&site(&dir), &each);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(timed(|| {
                site(&dir).write(&swapped).unwrap();
            }));
            // The old way rewrote every file that changed; here each is written as if all had.
            std::fs::remove_dir_all(&each).unwrap();
            b.push(timed(|| write_each(&site(&dir), &each)));
        }
        println!("| {n} | {files} | {} | {} |", medians(a), medians(b));
    }
}

/// Scales every measured number of one run file of the first study in `results` a little: that
/// study changes, the others do not.
fn change_one(results: &Path) {
    let first = &discover(results).unwrap()[0];
    let run = walkdir::WalkDir::new(first.join("runs"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.path().extension().is_some_and(|x| x == "txt"))
        .unwrap();
    scale(run.path(), 1.001);
}

/// The whole `perflab build` of the 200 studies in `results`, this build's and the baseline's
/// (if any), alternating, each with a copy of the studies of its own: over its previous site
/// with no study changed, then with one changed, then every study rendered (`--render-all`,
/// which the baseline need not know: it is left out for it); on tmpfs, every study rendered;
/// and into an empty folder.
fn commands(results: &Path, tmp: &Path, rounds: usize) {
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    let baseline = std::env::var_os("PERFLAB_BASELINE").map(PathBuf::from);
    let mut binaries = vec![("this build", PathBuf::from(env!("CARGO_BIN_EXE_perflab")), true)];
    binaries.extend(baseline.map(|b| ("baseline", b, false)));
    let studies: Vec<PathBuf> = (0..binaries.len())
        .map(|k| {
            let own = tmp.join(format!("studies-{k}"));
            copy_dir(results, &own);
            own
        })
        .collect();
    let command = |k: usize, out: &Path, all: bool| {
        let (_, binary, knows) = &binaries[k];
        let status = std::process::Command::new(binary)
            .args(["build", "--results"])
            .arg(&studies[k])
            .arg("--out")
            .arg(out)
            .args(if all && *knows { &["--render-all"][..] } else { &[] })
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    const COLUMNS: usize = 5;
    let mut times = vec![vec![Vec::new(); COLUMNS]; binaries.len()];
    for k in 0..binaries.len() {
        // The first build of each writes the site the timed ones are written over.
        command(k, &tmp.join(format!("site-{k}")), false);
    }
    for _ in 0..rounds {
        for (k, times) in times.iter_mut().enumerate() {
            let site = tmp.join(format!("site-{k}"));
            times[0].push(timed(|| command(k, &site, false)));
            change_one(&studies[k]);
            times[1].push(timed(|| command(k, &site, false)));
            times[2].push(timed(|| command(k, &site, true)));
            if let Some(shm) = &shm {
                times[3].push(timed(|| command(k, &shm.path().join(format!("site-{k}")), true)));
            }
            // A first build: nothing to compare with or link, every file written.
            let first = tmp.join(format!("first-{k}"));
            let _ = std::fs::remove_dir_all(&first);
            times[4].push(timed(|| command(k, &first, false)));
        }
    }
    println!();
    println!(
        "| `perflab build`, 200 studies | over the previous site, none changed: wall | CPU | one changed: wall | CPU \
         | every study rendered: wall | CPU | on tmpfs, every study rendered: wall | CPU | into an empty folder: wall | CPU |"
    );
    println!("| --- |{}", " --- | --- |".repeat(COLUMNS));
    for ((name, _, _), times) in binaries.iter().zip(times) {
        let cells: Vec<String> =
            times.into_iter().map(|t| if t.is_empty() { "- | -".to_string() } else { medians(t) }).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!("\n(medians of {rounds} rounds, alternating; load average after: {})", load());
}
