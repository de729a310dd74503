//! Helpers shared by the integration tests.
#![allow(dead_code)]

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
