//! Running a machine's tool (`nvidia-smi`, `rocm-smi`, `git`, a container runtime, an engine's
//! `--version`) the way every fact of a run is read: found on a `PATH`, given a deadline and a
//! cap on what it may print. A tool that is missing, fails or hangs gives nothing, never an
//! error. [`super::machine`], [`super::gpus`] and [`super::host`] ask their tools through it.

use super::process::signal_group;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a machine's tool (`nvidia-smi`, `git`) may take.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of a tool's output that is read.
pub const OUTPUT_LIMIT: u64 = 64 * 1024;
/// Programs that start an engine rather than being one: their `--version` is their own. The
/// engine in a container image (`docker run IMAGE vllm serve`) could be asked its version in
/// the image, but only by starting a container, which a fact is not worth: its endpoint says
/// it once it serves, and the image itself is recorded (`host::image_facts`).
pub const WRAPPERS: &[&str] = &[
    "apptainer",
    "bash",
    "dash",
    "docker",
    "env",
    "mpirun",
    "nice",
    "nohup",
    "numactl",
    "podman",
    "sh",
    "singularity",
    "sleep",
    "srun",
    "stdbuf",
    "taskset",
    "time",
    "timeout",
    "zsh",
];

/// Runs `program args` with `env` added, and gives its standard output when it exits with 0
/// within `timeout`. A program that is missing or fails gives `None`; one still running at the
/// deadline is killed with its process group and gives `None`.
pub fn bounded(program: &Path, args: &[&str], env: &BTreeMap<String, String>, timeout: Duration) -> Option<String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(program)
        .args(args)
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(OUTPUT_LIMIT).read_to_end(&mut out);
        // The rest is read and dropped, so that a talkative tool is not stopped by a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        let _ = tx.send(out);
    });
    let began = Instant::now();
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if began.elapsed() >= timeout {
            signal_group(child.id(), Some(rustix::process::Signal::KILL));
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = rx.recv_timeout(Duration::from_secs(1)).ok()?;
    status.success().then(|| String::from_utf8_lossy(&out).into_owned())
}

/// Where `name` is: itself when it names a path, else the first executable file of that name
/// in the folders of `search` (a `PATH`).
pub fn find(name: &str, search: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(search).map(|dir| dir.join(name)).find(|p| executable(p))
}

#[cfg(test)]
pub(super) mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// A folder holding an executable script `name` with `body`.
    pub(in crate::exec) fn tool(dir: &Path, name: &str, body: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
