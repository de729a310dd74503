//! Helpers shared by the integration tests.
#![allow(dead_code)]

use perflab::study::{Manifest, Study};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's folder.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every entry under `dir`: a file's bytes, a link's target (links are not followed).
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1).follow_links(false) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
        if entry.file_type().is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap();
            files.insert(rel, format!("-> {}", target.display()).into_bytes());
        } else if entry.file_type().is_file() {
            files.insert(rel, std::fs::read(entry.path()).unwrap());
        }
    }
    files
}

/// `perflab build --results RESULTS --out OUT`, run from the crate's folder, not started yet.
pub fn site_build(results: &Path, out: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_perflab"));
    command.current_dir(root()).arg("build").arg("--results").arg(results).arg("--out").arg(out);
    command
}

/// Runs the binary in the crate's folder: exit code, standard output, standard error.
pub fn perflab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perflab")).args(args).current_dir(root()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A simulated engine started for a test; stopped when dropped.
pub struct Engine {
    pub port: u16,
    pub child: std::process::Child,
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// True when `GET path` answers 200.
pub fn get_ok(port: u16, path: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(2)));
    if s.write_all(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}

impl Engine {
    /// Starts `perflab-engine` with `args` and waits until it serves.
    pub fn start(args: &[&str]) -> Engine {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_perflab-engine"))
            .args(["--port", &port.to_string(), "--sim-startup-seconds", "0.1"])
            .args(args)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let engine = Engine { port, child };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !get_ok(port, "/health") {
            assert!(std::time::Instant::now() < deadline, "the engine did not become ready");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        engine
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// Running studies on the simulated engine.
/// The simulated engine measures wall-clock time: these tests run one at a time so that they do
/// not slow each other's engines down.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A copy of the example study; `stages` keeps only the first stages.
pub fn example(stages: Option<usize>) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sim-study");
    copy_dir(&root().join("examples/sim-study"), &dir);
    let _ = std::fs::remove_dir_all(dir.join("runs"));
    if let Some(n) = stages {
        let spec = dir.join("study.toml");
        let text = std::fs::read_to_string(&spec).unwrap();
        let cut: Vec<&str> = text.split("\n[[stage]]\n").collect();
        std::fs::write(&spec, cut[..=n].join("\n[[stage]]\n")).unwrap();
    }
    (tmp, dir)
}

pub fn run(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    perflab(&args)
}

pub fn manifests(dir: &Path) -> Vec<Manifest> {
    walkdir::WalkDir::new(dir.join("runs"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".manifest.json"))
        .map(|e| Manifest::read(e.path()).unwrap())
        .collect()
}

/// Polls `condition` every 20 ms for up to `limit`; false when it never held.
pub fn wait_for(limit: std::time::Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    condition()
}

/// Waits for a spawned runner to end (bounded); its exit code and standard error.
pub fn finish(mut child: std::process::Child, limit: std::time::Duration) -> (i32, String) {
    let ended = wait_for(limit, || child.try_wait().unwrap().is_some());
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(ended, "perflab run did not end: {err}");
    (out.status.code().unwrap_or(-1), err)
}

/// Alive and not a zombie.
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

pub fn no_temporary_files(dir: &Path) {
    for e in walkdir::WalkDir::new(dir.join("runs")) {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name} left behind");
    }
}

/// A one-variant study whose engine command and benchmark command are given.
pub fn tiny(engine: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = format!(
        r#"model = "m"
baseline = "engine/only"
target_profile = "p"
title = {{ en = "t" }}
hardware = {{ en = "h" }}
{extra}
[benchmark]
tool = "perflab bench"

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "{engine}"
start_timeout = 2
stop_grace = 2

[[profile]]
id = "p"
name = {{ en = "p" }}
dataset = "random"
input_tokens = 8
output_tokens = 4
total_requests = 4

[[stage]]
id = "engine"
title = {{ en = "Engine" }}

[[stage.variant]]
id = "only"
label = "only"
engine = "sim"
"#
    );
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    (tmp, dir)
}

/// The setup of the tiny synthetic studies of the rules tests: title, hardware, one engine `e`,
/// one profile `p` of 100 requests, and the opening of a first stage `s1` (its variants follow).
#[allow(unused_macros)]
macro_rules! synthetic_setup {
    () => {
        r#"[title]
en = "Synthetic"

[hardware]
en = "one GPU"

[benchmark]
tool = "vllm bench serve"

[[engine]]
id = "e"
name = "Engine"
version = "1"
command = "serve {model}"

[[profile]]
id = "p"
name = { en = "Profile" }
dataset = "random"
total_requests = 100

[[stage]]
id = "s1"
title = { en = "First" }
"#
    };
}

/// A study of one stage `s1` whose variants `a` and `b` hold these result files of profile `p`,
/// in one folder (`p.txt`, `p.r2.txt`, ...), loaded from `spec` under a folder named `name`.
pub fn two_variant_study(name: &str, spec: &str, a: &[String], b: &[String]) -> (tempfile::TempDir, Study) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    for (variant, blocks) in [("a", a), ("b", b)] {
        let folder = dir.join("runs/s1").join(variant);
        std::fs::create_dir_all(&folder).unwrap();
        for (k, text) in blocks.iter().enumerate() {
            std::fs::write(folder.join(perflab::study::result_file("p", k as u32 + 1)), text).unwrap();
        }
    }
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, study)
}

/// A vLLM block of a run of 100 requests with `tps` total tokens a second and `duration`
/// seconds, with `extra` lines before the closing line.
pub fn vllm_block(tps: f64, duration: f64, extra: &str) -> String {
    format!(
        "============ Serving Benchmark Result ============\n\
         Successful requests:                     100\n\
         Benchmark duration (s):                  {duration:.2}\n\
         Total generated tokens:                  1000\n\
         Total Token throughput (tok/s):          {tps:.2}\n\
         Mean TPOT (ms):                          10.00\n\
         {extra}\
         ==================================================\n"
    )
}

/// The mkdocs of the virtual environment `.ci/run` makes (`PERFLAB_MKDOCS_VENV`, or
/// `~/.cache/perflab/mkdocs`).
pub fn mkdocs() -> PathBuf {
    let venv = std::env::var_os("PERFLAB_MKDOCS_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/perflab/mkdocs"));
    let bin = venv.join("bin/mkdocs");
    assert!(bin.is_file(), "mkdocs is not installed: bash .ci/mkdocs-venv.sh");
    bin
}

/// Every file under `dir` that holds one of `needles`.
pub fn holding(dir: &Path, needles: &[&str]) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            needles.iter().any(|n| bytes.windows(n.len()).any(|w| w == n.as_bytes()))
        })
        .map(|e| e.path().display().to_string())
        .collect()
}
