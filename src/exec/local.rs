//! Running engine starts as local processes. This is the only place that starts engines: a
//! backend for a cluster scheduler implements [`Backend`] and runs this one on its nodes
//! (see [`super::slurm`]).

use super::plan::Job;
use crate::study::FailureClass;
use crate::study::command::{HOST, Port};
use crate::study::outcome::{FAILURE_WINDOW, classify};
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a backend needs to run one engine start. A cluster backend hands it to its node as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Launch {
    pub job: Job,
    /// The attempt's folder: the engine's log, the results and manifests go there.
    pub dir: PathBuf,
    /// Where the engine listens: the one source of the port for readiness and benchmarks.
    pub port: Port,
    /// With `{port}` to fill.
    pub ready_url: String,
    pub start_timeout: Duration,
    pub stop_grace: Duration,
    /// (profile, benchmark command with `{port}`, file its standard output goes to).
    pub benchmarks: Vec<(String, Vec<String>, PathBuf)>,
    /// The engine's log.
    pub log: PathBuf,
    /// Where the engine's identity is kept while it runs, for recovery.
    pub record: PathBuf,
    /// Study patterns first, then the built-in ones.
    #[serde(with = "patterns")]
    pub patterns: Vec<(FailureClass, regex::Regex)>,
    /// The engine's share of the machine's GPUs: the variable that tells it (such as
    /// `CUDA_VISIBLE_DEVICES`) and its value, `0,1`.
    #[serde(default)]
    pub devices: Option<(String, String)>,
    /// Load curves measured after the fixed benchmarks, one point at a time.
    #[serde(default)]
    pub curves: Vec<CurveBench>,
}

/// A profile's load curve for one engine start: each point's benchmark is chosen from the
/// points measured before it (a search), and judged as soon as it ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CurveBench {
    pub profile: String,
    /// The benchmark command with `{port}` and `{load}` to fill.
    pub argv: Vec<String>,
    pub loads: crate::metric::load::Loads,
    pub slo: crate::metric::load::Slo,
    /// The requests each point sends (its success rate is of these).
    pub expected: u64,
    /// Points measured by earlier starts that the search goes on from.
    pub known: Vec<crate::metric::load::Probe>,
    /// The search the points belong to (see [`crate::study::Manifest::search`]).
    #[serde(default)]
    pub search: Option<u32>,
}

impl CurveBench {
    /// Where the per-request records of the `k`-th measurement (from 1) of the point at `load`
    /// in this start go while it runs.
    pub fn requests_output(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        crate::durable::temporary(&crate::study::curve::requests_file(&self.result(dir, load, k)))
    }

    /// Where the output of the `k`-th measurement of the point at `load` goes while it runs.
    pub fn output(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        crate::durable::temporary(&self.result(dir, load, k))
    }

    fn result(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        dir.join(crate::study::result_file(&crate::study::curve::point_id(&self.profile, load), k))
    }
}

/// Failure patterns as (class, regular expression text) pairs.
mod patterns {
    use crate::study::FailureClass;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(list: &[(FailureClass, regex::Regex)], s: S) -> Result<S::Ok, S::Error> {
        let texts: Vec<(FailureClass, &str)> = list.iter().map(|(c, r)| (*c, r.as_str())).collect();
        texts.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(FailureClass, regex::Regex)>, D::Error> {
        let texts = Vec::<(FailureClass, String)>::deserialize(d)?;
        texts
            .into_iter()
            .map(|(c, t)| regex::Regex::new(&t).map(|r| (c, r)).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// How one benchmark went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    pub profile: String,
    pub command: Vec<String>,
    pub exit_status: Option<i32>,
    pub seconds: f64,
    pub failure: Option<(FailureClass, String)>,
    /// The warnings `perflab bench` printed (a server's usage it did not believe).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// How an engine start went (a cluster's node hands it back as JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// The cluster job that ran it.
    #[serde(default)]
    pub job_id: Option<String>,
    /// The cluster node it ran on.
    #[serde(default)]
    pub node: Option<String>,
    pub pid: Option<u32>,
    /// The port the engine was given and benchmarked on.
    pub port: Option<u16>,
    pub started_at: String,
    pub ready_at: Option<String>,
    pub stopped_at: Option<String>,
    pub start_seconds: Option<f64>,
    /// Set when the engine did not become ready: every benchmark of the start fails with it.
    pub start_failure: Option<(FailureClass, String)>,
    /// The profile whose benchmark the engine died in: the later ones did not run.
    pub died_during: Option<String>,
    pub engine_exit: Option<i32>,
    pub benchmarks: Vec<BenchResult>,
    pub interrupted: bool,
    pub log_tail: Vec<String>,
    /// Set when the start could not even be attempted for a reason that is not the
    /// configuration's (a scheduler refusing every submission): nothing is recorded and the run
    /// stops with this message.
    #[serde(default)]
    pub refused: Option<String>,
    /// The cluster may still be running the job (its controller stopped answering): its record
    /// is kept, so that the next run follows the job instead of submitting another.
    #[serde(default)]
    pub job_still_queued: bool,
    /// The cluster ended the job for a reason of its own (cancelled from outside, a node that
    /// failed): how, as a sentence. What was not measured stays pending, not failed.
    #[serde(default)]
    pub cluster_end: Option<String>,
}

/// A request to stop, set from signal handlers: the first asks for an orderly stop (the engine
/// gets its grace period), a second one for an immediate stop (SIGKILL at once).
#[derive(Debug, Default)]
pub struct Interrupt {
    stop: AtomicBool,
    now: AtomicBool,
}

impl Interrupt {
    /// One more request to stop.
    pub fn request(&self) {
        if self.stop.swap(true, Ordering::SeqCst) {
            self.now.store(true, Ordering::SeqCst);
        }
    }

    pub fn requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Stop without waiting for anything.
    pub fn urgent(&self) -> bool {
        self.now.load(Ordering::SeqCst)
    }

    /// An interrupt that SIGINT (Ctrl-C), SIGTERM (a scheduler cancelling a job) and SIGHUP (a
    /// dropped SSH session) request, each signal once more.
    pub fn on_signals() -> std::io::Result<std::sync::Arc<Interrupt>> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let interrupt = std::sync::Arc::new(Interrupt::default());
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let requests = interrupt.clone();
        std::thread::spawn(move || {
            for _ in signals.forever() {
                requests.request();
            }
        });
        Ok(interrupt)
    }
}

/// What a backend tells while it works.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A step: `starting the engine`, `benchmark on mixed`.
    Step(&'a str),
    /// Still waiting for the engine to serve (told about once a second). `config` names the
    /// configuration when several are in flight, else it is empty.
    Waiting { config: &'a str, elapsed: Duration, timeout: Duration, last_line: &'a str },
}

/// Runs engine starts; the runner calls `execute` from several threads at once.
pub trait Backend: Sync {
    /// Starts the engine, waits until it serves, runs each benchmark (its standard output into
    /// the given file), stops the engine. `interrupt` asks it to stop.
    fn execute(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Report;

    /// How many engine starts it takes at once when `--jobs` does not say: `None` for as many
    /// as the stage has.
    fn capacity(&self) -> Option<usize>;

    /// The machine's devices, shared out among the engines in flight (local backend only).
    fn devices(&self) -> &[String] {
        &[]
    }

    /// Whether it runs engine starts as jobs of a scheduler that outlive a killed runner: their
    /// attempts are then left for [`Backend::adoptable`] instead of being marked interrupted.
    fn follows_jobs(&self) -> bool {
        false
    }

    /// The attempt folder of a job a killed runner left for this configuration, to follow
    /// instead of starting it again.
    fn adoptable(&self, _variant_dir: &Path, _job: &Job) -> Option<PathBuf> {
        None
    }

    /// The runner has recorded the attempt in `dir`.
    fn finished(&self, _dir: &Path) {}
}

/// Engine and benchmarks as processes on this machine. The engine runs in a process group of
/// its own (and the benchmarks in the same group), stopped with SIGTERM, then SIGKILL.
#[derive(Debug, Default)]
pub struct LocalBackend {
    /// The GPUs engines may be given (`[local]`); empty when the study declares none.
    pub devices: Vec<String>,
    /// Runs inside a cluster job: the engine and benchmarks die with the process that started
    /// them (a cluster kills that one), and a stop gives the engine at most [`JOB_GRACE`].
    pub in_job: bool,
}

/// The grace an engine gets when its cluster job is cancelled or times out: the scheduler kills
/// what is left of the job `KillWait` seconds later (30 by default, 5 on small clusters).
pub const JOB_GRACE: Duration = Duration::from_secs(3);

pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A program named `perflab` or `perflab-engine` is taken from beside the running binary when
/// it is there, so that a study runs with the same build.
fn program(name: &str) -> PathBuf {
    if (name == "perflab" || name == "perflab-engine")
        && let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        // Beside the running binary, or one folder up for test and bench binaries.
        if let Some(found) = [Some(dir), dir.parent()].into_iter().flatten().map(|d| d.join(name)).find(|p| p.is_file())
        {
            return found;
        }
    }
    PathBuf::from(name)
}

/// Ports handed to the engines this process has in flight: a port one slot picked is never
/// another's, even before its engine binds it.
static LEASED: std::sync::Mutex<std::collections::BTreeSet<u16>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// A port picked for one engine start, given back when dropped.
#[derive(Debug)]
struct PortLease(u16);

impl Drop for PortLease {
    fn drop(&mut self) {
        LEASED.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.0);
    }
}

/// The ports the kernel gives outgoing connections (`ip_local_port_range`): a benchmark's
/// connections come from there, so a port picked there could be taken before a slow engine
/// binds it.
fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut words = text.split_whitespace().map(|w| w.parse::<u16>().ok());
            Some((words.next()??, words.next()??))
        })
        .filter(|(low, high)| low <= high)
        .unwrap_or((32768, 60999))
}

/// The ports an engine may be given, in the order they are tried: the unprivileged ones outside
/// the ephemeral range, from a place that `seed` sets (so that runs on one machine start apart),
/// wrapping round. All unprivileged ports when the ephemeral range leaves none.
fn port_candidates(ephemeral: (u16, u16), seed: u32) -> Vec<u16> {
    let (low, high) = ephemeral;
    let mut ports: Vec<u16> = (1024..=u16::MAX).filter(|p| *p < low || *p > high).collect();
    if ports.is_empty() {
        ports = (1024..=u16::MAX).collect();
    }
    let start = seed as usize % ports.len();
    ports.rotate_left(start);
    ports
}

/// Whether no socket is bound to `port`, on any address.
fn port_free(port: u16) -> bool {
    std::net::TcpListener::bind(("0.0.0.0", port)).is_ok() && std::net::TcpListener::bind((HOST, port)).is_ok()
}

/// A free port outside the ephemeral range that no other engine of this process holds, held
/// until the lease is dropped.
fn pick_port(free: impl Fn(u16) -> bool) -> Option<PortLease> {
    let mut leased = LEASED.lock().unwrap_or_else(|e| e.into_inner());
    // Each pick starts past the one before, so that a port just given back rests a while.
    static PICKS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seed = std::process::id().wrapping_mul(7919).wrapping_add(PICKS.fetch_add(1, Ordering::Relaxed));
    let port = port_candidates(ephemeral_range(), seed).into_iter().find(|p| !leased.contains(p) && free(*p))?;
    leased.insert(port);
    Some(PortLease(port))
}

/// Whether something already accepts connections on `port`.
fn port_taken(port: u16) -> bool {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
}

fn fill_port(argv: &[String], port: u16) -> Vec<String> {
    argv.iter().map(|a| a.replace("{port}", &port.to_string())).collect()
}

/// The pauses between readiness checks: 1 ms, doubling up to [`Backoff::CAP`]. A check is a
/// connection on loopback (refused at once while nothing listens), so an engine that answers is
/// noticed within a few milliseconds without a busy loop.
#[derive(Debug, Default)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    pub const FIRST: Duration = Duration::from_millis(1);
    pub const CAP: Duration = Duration::from_millis(5);

    /// The next pause.
    pub fn pause(&mut self) -> Duration {
        self.next = (self.next * 2).clamp(Self::FIRST, Self::CAP);
        self.next
    }
}

/// Whether an engine still serves after a benchmark: it has not exited, and its readiness URL
/// answers 200 within a few tries over about three seconds. One check that an engine busy with
/// the last requests answers late is not a death.
fn still_serving(url: &str, engine: &mut Child) -> bool {
    for pause in [0, 250, 750, 2000] {
        std::thread::sleep(Duration::from_millis(pause));
        if engine.try_wait().ok().flatten().is_some() {
            return false;
        }
        if ready(url) {
            return true;
        }
    }
    false
}

/// True when `GET url` answers 200 (plain HTTP on this machine).
pub fn ready(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else { return false };
    let (authority, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(a, p)| (a, format!("/{p}")));
    use std::net::ToSocketAddrs;
    let Some(addr) = authority.to_socket_addrs().ok().and_then(|mut a| a.next()) else { return false };
    let Ok(mut stream) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && (head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200"))
}

/// Sends `signal` to a process group.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    // SAFETY: kill(2) with a negative pid addresses a process group; no memory is shared.
    unsafe { libc::kill(-(pgid as i32), signal) == 0 }
}

/// How long a process group gets to be gone after SIGKILL: a process that held GPU memory can
/// take seconds to be torn down.
pub const KILL_WAIT: Duration = Duration::from_secs(10);

/// How a process group was stopped: what it took to make it go.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    /// Processes of the group that were still running after its leader had ended (workers of an
    /// engine the OOM killer took, for example).
    pub outlived: usize,
    /// Processes still running after the grace, ended with SIGKILL.
    pub killed: usize,
    /// Processes still running [`KILL_WAIT`] after SIGKILL.
    pub left: usize,
}

impl Stopped {
    /// What a progress line says about it, if anything is worth saying: workers that outlived
    /// their leader, or processes that would not go.
    pub fn describe(&self, pgid: u32) -> Option<String> {
        let processes = |n: usize| if n == 1 { "1 process".to_string() } else { format!("{n} processes") };
        if self.left > 0 {
            let verb = if self.left == 1 { "runs" } else { "run" };
            return Some(format!(
                "{} of process group {pgid} still {verb} {} s after SIGKILL; the next start on its GPUs may find their memory taken",
                processes(self.left),
                KILL_WAIT.as_secs()
            ));
        }
        if self.outlived > 0 {
            let how = if self.killed > 0 { ", with SIGKILL" } else { "" };
            return Some(format!(
                "the engine's main process had ended, but {} of its group (process group {pgid}) still ran; all of them are gone now{how}",
                processes(self.outlived)
            ));
        }
        None
    }
}

/// The processes of group `pgid` that have not ended (a zombie holds no memory and is left
/// out), with their start times (clock ticks after boot), from `/proc`.
pub fn group_members(pgid: u32) -> Vec<(u32, u64)> {
    // Nothing to look for when no process of the group is left, zombies included.
    if !signal_group(pgid, 0) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut members = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Some(stat) = ProcStat::read(pid) else { continue };
        if stat.group() == Some(pgid) && !stat.zombie() {
            members.push((pid, stat.start_ticks().unwrap_or(0)));
        }
    }
    members
}

/// Collects the ended children of this process in group `pgid`: a runner that is PID 1 (a
/// container's) inherits an engine's orphaned workers, and nobody else would.
fn reap_group(pgid: u32) {
    let mut status = 0;
    // SAFETY: waitpid(2) with WNOHANG writes only the status we pass and never blocks.
    while unsafe { libc::waitpid(-(pgid as i32), &mut status, libc::WNOHANG) } > 0 {}
}

/// Waits until every process of group `pgid` has ended (and `child`, its leader, is collected),
/// up to `deadline`, or an urgent interrupt; the processes still running.
fn wait_group(pgid: u32, child: &mut Option<&mut Child>, deadline: Instant, interrupt: Option<&Interrupt>) -> usize {
    loop {
        // The leader is collected through its `Child` first, so that its exit status is kept.
        let leader_done = child.as_deref_mut().is_none_or(|c| c.try_wait().ok().flatten().is_some());
        if leader_done {
            reap_group(pgid);
        }
        let running = group_members(pgid).len();
        if (leader_done && running == 0) || Instant::now() >= deadline || interrupt.is_some_and(Interrupt::urgent) {
            return running;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops a process group: SIGTERM, up to `grace` for all of it to end (cut short by an urgent
/// interrupt), then SIGKILL and up to [`KILL_WAIT`] for it to be gone. Every process of the
/// group counts, not only its leader: workers that outlive an engine keep their GPU memory.
pub fn stop_group(pgid: u32, child: Option<&mut Child>, grace: Duration, interrupt: Option<&Interrupt>) -> Stopped {
    let mut child = child;
    // A leader on its way out counts as ended: its sockets close before its exit can be
    // collected, so a client may see a crash while the process is still being torn down.
    let leader_ended = exiting(pgid)
        || match child.as_deref_mut() {
            Some(c) => c.try_wait().ok().flatten().is_some(),
            None => !group_members(pgid).iter().any(|(pid, _)| *pid == pgid),
        };
    let mut stopped = Stopped::default();
    if leader_ended {
        stopped.outlived = group_members(pgid).iter().filter(|(pid, _)| *pid != pgid).count();
    }
    signal_group(pgid, libc::SIGTERM);
    stopped.killed = wait_group(pgid, &mut child, Instant::now() + grace, interrupt);
    signal_group(pgid, libc::SIGKILL);
    stopped.left = wait_group(pgid, &mut child, Instant::now() + KILL_WAIT, None);
    stopped
}

/// Whether the socket listening on `port` belongs to a process of group `pgid`, from
/// `/proc/net/tcp{,6}` and the processes' open files. `None` when that cannot be told: nothing
/// readable, or a listener of another user (a container's port proxy, whose files cannot be
/// read); the answer on the port is then taken as the engine's.
pub fn listener_in_group(port: u16, pgid: u32) -> Option<bool> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else { continue };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // local_address is HEX_IP:HEX_PORT, state 0A is LISTEN, the inode is field 9.
            let local_port =
                f.get(1).and_then(|a| a.rsplit_once(':')).and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port) && f.get(3) == Some(&"0A") {
                // SAFETY: getuid(2) has no preconditions and touches no memory of ours.
                let me = unsafe { libc::getuid() };
                if f.get(7).and_then(|u| u.parse::<u32>().ok()) != Some(me) {
                    return None;
                }
                inodes.extend(f.get(9).map(|i| format!("socket:[{i}]")));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if ProcStat::read(pid).and_then(|s| s.group()) != Some(pgid) {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path())
                && inodes.iter().any(|i| target.as_os_str() == i.as_str())
            {
                return Some(true);
            }
        }
    }
    Some(false)
}

/// Which process a recorded process id was: the boot it ran in, its start time (clock ticks
/// after boot, from `/proc/<pid>/stat`) and its command line. A process id reused after a
/// restart or a reboot names a process with another start time or boot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessIdentity {
    pub pid: u32,
    pub boot_id: String,
    pub start_ticks: u64,
    /// The command it was started with (for messages: a program may rewrite its own).
    pub command: String,
}

impl ProcessIdentity {
    /// The identity of a running process started with `command`.
    pub fn of(pid: u32, command: &str) -> Option<ProcessIdentity> {
        let start_ticks = ProcStat::read(pid)?.start_ticks()?;
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?.trim().to_string();
        Some(ProcessIdentity { pid, boot_id, start_ticks, command: command.to_string() })
    }

    /// Whether the process with this id is still the one recorded, and runs (a zombie has ended).
    pub fn is_current(&self) -> bool {
        alive(self.pid)
            && ProcessIdentity::of(self.pid, &self.command)
                .is_some_and(|now| (now.boot_id, now.start_ticks) == (self.boot_id.clone(), self.start_ticks))
    }
}

/// `runs/.engine.json`: the engine a runner started and has not stopped yet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineRecord {
    #[serde(flatten)]
    pub process: ProcessIdentity,
    pub started_at: String,
}

/// What is left of an engine a killed runner recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leftover {
    /// The recorded process still runs.
    Engine,
    /// The recorded process has ended, but these processes of its group, started after it,
    /// still run (workers of an engine the OOM killer took).
    Workers(Vec<u32>),
    /// Nothing of it runs.
    Nothing,
    /// Its process id names another program now (or the machine was restarted).
    Other,
}

impl EngineRecord {
    /// What of the recorded engine still runs. A process group id is not given to a new process
    /// while any member of the group lives, so members of the recorded group that started after
    /// the engine are its own, as long as no other process has the engine's id.
    pub fn leftover(&self) -> Leftover {
        let p = &self.process;
        if p.is_current() {
            return Leftover::Engine;
        }
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        let leader_alive = alive(p.pid);
        if boot.trim() != p.boot_id || leader_alive {
            return if leader_alive { Leftover::Other } else { Leftover::Nothing };
        }
        let workers: Vec<u32> =
            group_members(p.pid).into_iter().filter(|(_, ticks)| *ticks >= p.start_ticks).map(|(pid, _)| pid).collect();
        if workers.is_empty() { Leftover::Nothing } else { Leftover::Workers(workers) }
    }
}

/// The process id a damaged engine record still shows (`"pid": 123`), when one can be read.
pub fn damaged_record_pid(text: &str) -> Option<u32> {
    if let Some(pid) = serde_json::from_str::<serde_json::Value>(text).ok().and_then(|v| v.get("pid")?.as_u64()) {
        return u32::try_from(pid).ok();
    }
    let after = text.split_once("\"pid\"")?.1.trim_start().strip_prefix(':')?.trim_start();
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What `/proc/<pid>/stat` says of a process: the fields after its command name, which is in
/// parentheses and may hold spaces and parentheses of its own.
struct ProcStat(String);

impl ProcStat {
    fn read(pid: u32) -> Option<ProcStat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some(ProcStat(text.rsplit_once(')')?.1.to_string()))
    }

    /// The `n`-th field after the command name: 0 is the state, 2 the process group, 6 the
    /// kernel's flags, 19 the start time in clock ticks after boot.
    fn field<T: std::str::FromStr>(&self, n: usize) -> Option<T> {
        self.0.split_whitespace().nth(n)?.parse().ok()
    }

    fn state(&self) -> Option<char> {
        self.0.trim_start().chars().next()
    }

    /// Ended, its exit not yet collected.
    fn zombie(&self) -> bool {
        self.state() == Some('Z')
    }

    fn group(&self) -> Option<u32> {
        self.field(2)
    }

    fn start_ticks(&self) -> Option<u64> {
        self.field(19)
    }

    /// Begun to end: a zombie, or a process the kernel is tearing down (`PF_EXITING` in its
    /// flags, set before its files are closed).
    fn exiting(&self) -> bool {
        const PF_EXITING: u64 = 0x4;
        matches!(self.state(), Some('Z' | 'X')) || self.field::<u64>(6).is_some_and(|f| f & PF_EXITING != 0)
    }
}

/// Whether a process with this id has begun to end ([`ProcStat::exiting`]).
fn exiting(pid: u32) -> bool {
    ProcStat::read(pid).is_some_and(|s| s.exiting())
}

/// Whether a process with this id runs (it exists and is not a zombie).
fn alive(pid: u32) -> bool {
    ProcStat::read(pid).is_some_and(|s| !s.zombie())
}

/// Whether a process with this id runs, or any process of a group with this id.
pub fn process_or_group_runs(pid: u32) -> bool {
    alive(pid) || !group_members(pid).is_empty()
}

/// The last `n` lines of a file.
pub fn tail(path: &Path, n: usize) -> Vec<String> {
    let Ok(mut f) = std::fs::File::open(path) else { return Vec::new() };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(256 * 1024)));
    let mut bytes = Vec::new();
    let _ = f.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].iter().map(|l| l.to_string()).collect()
}

/// How long an engine that is not ready yet gets between SIGTERM and SIGKILL.
pub const LOADING_GRACE: Duration = Duration::from_secs(3);

/// In a cluster job: the child gets SIGKILL when the process that started it dies, so that a job
/// the scheduler kills leaves no engine behind (the engine's process group escapes the
/// scheduler's own clean-up).
fn die_with_parent(command: &mut Command) {
    // The child asks whether its parent is still this process, not whether it was handed to
    // PID 1: a runner that is PID 1 itself (a container's first process) is a live parent.
    let runner = std::process::id() as libc::pid_t;
    // SAFETY: prctl(2) and getppid(2) are async-signal-safe and touch no memory of ours.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() != runner {
                return Err(std::io::Error::other("the job's runner has ended"));
            }
            Ok(())
        });
    }
}

impl Backend for LocalBackend {
    fn capacity(&self) -> Option<usize> {
        // Serial unless the machine's GPUs are declared: then as many as fit.
        if self.devices.is_empty() { Some(1) } else { None }
    }

    fn devices(&self) -> &[String] {
        &self.devices
    }

    fn execute(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Report {
        let mut report = Report { started_at: now(), ..Report::default() };
        // A picked port stays this start's until the engine is stopped.
        let (port, _lease) = match engine_port(launch) {
            Ok(picked) => picked,
            Err(failure) => return fail_all(report, launch, failure),
        };
        report.port = Some(port);
        let argv = fill_port(&launch.job.argv, port);
        let mut engine = match self.spawn(launch, &argv) {
            Ok(engine) => engine,
            Err(failure) => return fail_all(report, launch, failure),
        };
        let pgid = engine.id();
        report.pid = Some(pgid);
        if let Some(process) = ProcessIdentity::of(pgid, &argv.join(" ")) {
            let record = EngineRecord { process, started_at: report.started_at.clone() };
            if let Ok(bytes) = serde_json::to_vec_pretty(&record) {
                let _ = crate::durable::write(&launch.record, &bytes);
            }
        }
        let ready_url = launch.ready_url.replace("{port}", &port.to_string());
        progress(Event::Step("starting the engine"));
        report = wait_ready(launch, &mut engine, port, &ready_url, interrupt, progress, report);
        if report.ready_at.is_some() && !report.interrupted {
            let mut served = Served { pgid, child: &mut engine, ready_url: &ready_url };
            self.benchmarks(launch, &mut served, port, interrupt, progress, &mut report);
        }
        progress(Event::Step("stopping the engine"));
        // An engine that never served may ignore SIGTERM while it loads (vLLM does): it gets a
        // short grace, and so does one inside a cluster job that is being cancelled (Slurm kills
        // the job soon); the full one is for a serving engine to finish cleanly.
        let grace = if report.ready_at.is_none() {
            launch.stop_grace.min(LOADING_GRACE)
        } else if self.in_job && report.interrupted {
            launch.stop_grace.min(JOB_GRACE)
        } else {
            launch.stop_grace
        };
        let stopped = stop_group(pgid, Some(&mut engine), grace, Some(interrupt));
        if let Some(line) = stopped.describe(pgid) {
            progress(Event::Step(&line));
        }
        report.stopped_at = Some(now());
        if report.engine_exit.is_none() {
            report.engine_exit = engine.try_wait().ok().flatten().and_then(|s| s.code());
        }
        let _ = std::fs::remove_file(&launch.record);
        report.log_tail = tail(&launch.log, 20);
        report
    }
}

impl LocalBackend {
    /// Starts the engine's process group, its output into the start's log.
    fn spawn(&self, launch: &Launch, argv: &[String]) -> Result<std::process::Child, (FailureClass, String)> {
        if argv.is_empty() {
            return Err((FailureClass::StartFailure, "the engine's command is empty".to_string()));
        }
        let log = std::fs::File::create(&launch.log)
            .map_err(|e| (FailureClass::StartFailure, format!("cannot write {}: {e}", launch.log.display())))?;
        let mut command = Command::new(program(&argv[0]));
        command
            .args(&argv[1..])
            .envs(&launch.job.env)
            .envs(launch.devices.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().map(Stdio::from).unwrap_or(Stdio::null()))
            .stderr(Stdio::from(log))
            .process_group(0);
        if self.in_job {
            die_with_parent(&mut command);
        }
        command.spawn().map_err(|e| (FailureClass::StartFailure, format!("cannot start `{}`: {e}", argv[0])))
    }

    /// The start's benchmarks, then its load curves, until the engine dies or the run is stopped.
    fn benchmarks(
        &self,
        launch: &Launch,
        served: &mut Served<'_>,
        port: u16,
        interrupt: &Interrupt,
        progress: &mut dyn FnMut(Event),
        report: &mut Report,
    ) {
        for (profile, bench_argv, out) in &launch.benchmarks {
            progress(Event::Step(&format!("benchmark on {profile}")));
            let argv = fill_port(bench_argv, port);
            let again = Served { pgid: served.pgid, child: &mut *served.child, ready_url: served.ready_url };
            let (result, died) = run_benchmark(&argv, out, again, interrupt, launch, self.in_job);
            report.interrupted |= interrupt.requested();
            report.benchmarks.push(BenchResult { profile: profile.clone(), ..result });
            if died {
                report.died_during = Some(profile.clone());
            }
            if died || report.interrupted {
                return;
            }
        }
        for curve in &launch.curves {
            if report.died_during.is_some() || report.interrupted {
                break;
            }
            run_curve(curve, served, port, interrupt, launch, self.in_job, report, progress);
        }
    }
}

/// Every benchmark of the start fails the way the start did.
fn fail_all(mut report: Report, launch: &Launch, failure: (FailureClass, String)) -> Report {
    report.benchmarks = launch
        .benchmarks
        .iter()
        .map(|(p, argv, _)| BenchResult {
            profile: p.clone(),
            command: argv.clone(),
            exit_status: None,
            seconds: 0.0,
            failure: Some(failure.clone()),
            warnings: Vec::new(),
        })
        .collect();
    report.start_failure = Some(failure);
    report
}

/// The port the engine listens on: its fixed one when nothing else answers there, or one
/// picked and held until the engine stops.
fn engine_port(launch: &Launch) -> Result<(u16, Option<PortLease>), (FailureClass, String)> {
    match launch.port {
        Port::Fixed(port) if port_taken(port) => Err((
            FailureClass::PortInUse,
            format!("port {port} already accepted connections before the engine started: another server listens there"),
        )),
        Port::Fixed(port) => Ok((port, None)),
        Port::Pick => match pick_port(port_free) {
            Some(lease) => Ok((lease.0, Some(lease))),
            None => {
                let (low, high) = ephemeral_range();
                Err((FailureClass::StartFailure, format!("no free port outside the ephemeral range {low}-{high}")))
            }
        },
    }
}

/// Waits until the engine answers at `ready_url`, dies, takes too long or the run is stopped.
fn wait_ready(
    launch: &Launch,
    engine: &mut std::process::Child,
    port: u16,
    ready_url: &str,
    interrupt: &Interrupt,
    progress: &mut dyn FnMut(Event),
    mut report: Report,
) -> Report {
    let pgid = engine.id();
    let started = Instant::now();
    let mut told = Instant::now();
    // Set when the port answered but the listener was not the engine's.
    let mut foreign = false;
    let mut poll = Backoff::default();
    loop {
        if interrupt.requested() {
            report.interrupted = true;
            return report;
        }
        if let Ok(Some(status)) = engine.try_wait() {
            report.engine_exit = status.code();
            let log = tail(&launch.log, FAILURE_WINDOW);
            let (class, line) = classify(&log, &launch.patterns, FailureClass::StartFailure);
            let failure = if foreign {
                let message = format!("another process took port {port} while the engine loaded: {line}");
                (FailureClass::PortInUse, message)
            } else {
                (class, line)
            };
            return fail_all(report, launch, failure);
        }
        if started.elapsed() > launch.start_timeout {
            let message = format!("not ready after {:.0} s ({ready_url})", launch.start_timeout.as_secs_f64());
            return fail_all(report, launch, (FailureClass::StartTimeout, message));
        }
        // Ready only while the engine perflab started runs: an answer from a process that
        // took the port while the engine died is not the engine's.
        if ready(ready_url) && matches!(engine.try_wait(), Ok(None)) {
            if listener_in_group(port, pgid) == Some(false) {
                foreign = true;
            } else {
                report.ready_at = Some(now());
                report.start_seconds = Some(started.elapsed().as_secs_f64());
                return report;
            }
        }
        if told.elapsed() >= Duration::from_secs(1) {
            told = Instant::now();
            let last = tail(&launch.log, 1);
            let last_line = last.first().map_or("", |l| l.trim());
            progress(Event::Waiting {
                config: "",
                elapsed: started.elapsed(),
                timeout: launch.start_timeout,
                last_line,
            });
        }
        std::thread::sleep(poll.pause());
    }
}

/// Measures a load curve point after point while the engine serves: the search picks each
/// load from the points before it, and stops on its own rule, when the engine dies or on Ctrl-C.
#[allow(clippy::too_many_arguments)]
fn run_curve(
    curve: &CurveBench,
    served: &mut Served<'_>,
    port: u16,
    interrupt: &Interrupt,
    launch: &Launch,
    in_job: bool,
    report: &mut Report,
    progress: &mut dyn FnMut(Event),
) {
    use crate::metric::load::{Next, next};
    let mut points = curve.known.clone();
    // Measurements of each load in this start: a confirmation measures a load again.
    let mut taken: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    while let Next::Measure(load) = next(&curve.loads, &points) {
        let id = crate::study::curve::point_id(&curve.profile, load);
        let k = *taken.entry(load).and_modify(|k| *k += 1).or_insert(1);
        let again = if k > 1 { format!(" (measurement {k})") } else { String::new() };
        progress(Event::Step(&format!("benchmark on {} at load {load}{again}", curve.profile)));
        let words = crate::study::command::fill_load(&curve.argv, load);
        let out = curve.output(&launch.dir, load, k);
        let argv = crate::study::command::with_requests_file(
            fill_port(&words, port),
            &curve.requests_output(&launch.dir, load, k),
        );
        let again = Served { pgid: served.pgid, child: &mut *served.child, ready_url: served.ready_url };
        let (result, died) = run_benchmark(&argv, &out, again, interrupt, launch, in_job);
        let ended = result.failure.is_none() && result.exit_status.is_some();
        report.benchmarks.push(BenchResult { profile: id.clone(), ..result });
        report.interrupted |= interrupt.requested();
        if died {
            report.died_during = Some(id);
        }
        if died || report.interrupted {
            break;
        }
        let block = ended
            .then(|| std::fs::read_to_string(&out).ok())
            .flatten()
            .and_then(|text| crate::parse::parse_str(&text).ok())
            .and_then(|mut blocks| (!blocks.is_empty()).then(|| blocks.remove(0)));
        let verdict = crate::study::curve::judge_block(&curve.slo, curve.expected, block.as_ref());
        points.push(crate::study::curve::probe_of(load, &verdict, block.as_ref()));
    }
}

/// Removes a file when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The engine a benchmark runs against: its process group, its process and where it answers
/// whether it serves.
struct Served<'a> {
    pgid: u32,
    child: &'a mut Child,
    ready_url: &'a str,
}

/// The failure of an engine that died during a benchmark (`how`: "exited (…)"), from its log:
/// out of memory when the log says so, else a crash, with the line that says why.
fn died_during_benchmark(launch: &Launch, how: &str) -> (FailureClass, String) {
    let log = tail(&launch.log, FAILURE_WINDOW);
    let (class, line) = classify(&log, &launch.patterns, FailureClass::Crash);
    let class = if class == FailureClass::Oom { class } else { FailureClass::Crash };
    (class, format!("the engine {how} during the benchmark: {line}"))
}

/// Runs one benchmark; the flag is true when the engine died during it.
fn run_benchmark(
    argv: &[String],
    out: &Path,
    served: Served<'_>,
    interrupt: &Interrupt,
    launch: &Launch,
    in_job: bool,
) -> (BenchResult, bool) {
    let Served { pgid, child: engine, ready_url } = served;
    let mut result = BenchResult {
        profile: String::new(),
        command: argv.to_vec(),
        exit_status: None,
        seconds: 0.0,
        failure: None,
        warnings: Vec::new(),
    };
    let started = Instant::now();
    // Its standard error (progress bars, error summaries) goes to a file beside the output, so
    // that no pipe can fill up and stall it.
    let err_path = out.with_extension("stderr.tmp");
    let _cleanup = RemoveOnDrop(err_path.clone());
    let mut child = match spawn_benchmark(argv, out, &err_path, pgid, in_job) {
        Ok(c) => c,
        Err(message) => {
            result.failure = Some((FailureClass::BenchmarkFailure, message));
            return (result, false);
        }
    };
    loop {
        if interrupt.requested() {
            let _ = child.kill();
            let _ = child.wait();
            return (result, false);
        }
        if let Ok(Some(status)) = engine.try_wait() {
            let _ = child.kill();
            let _ = child.wait();
            result.failure = Some(died_during_benchmark(launch, &format!("exited ({status})")));
            result.seconds = started.elapsed().as_secs_f64();
            return (result, true);
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                result.exit_status = status.code();
                result.seconds = started.elapsed().as_secs_f64();
                let ended = Ended { status, argv, err_path: &err_path, ready_url, launch };
                return ended.judge(result, engine);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => {
                result.failure = Some((FailureClass::BenchmarkFailure, format!("cannot wait for the benchmark: {e}")));
                return (result, false);
            }
        }
    }
}

/// Starts a benchmark in the engine's process group, its output into `out` and its standard
/// error into `err_path`.
fn spawn_benchmark(argv: &[String], out: &Path, err_path: &Path, pgid: u32, in_job: bool) -> Result<Child, String> {
    let file = std::fs::File::create(out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let err_file = std::fs::File::create(err_path).map(Stdio::from).unwrap_or(Stdio::null());
    let mut command = Command::new(program(&argv[0]));
    command.args(&argv[1..]).stdin(Stdio::null()).stdout(Stdio::from(file)).stderr(err_file).process_group(pgid as i32);
    if in_job {
        die_with_parent(&mut command);
    }
    command.spawn().map_err(|e| format!("cannot start `{}`: {e}", argv[0]))
}

/// A benchmark that ended on its own.
struct Ended<'a> {
    status: std::process::ExitStatus,
    argv: &'a [String],
    err_path: &'a Path,
    ready_url: &'a str,
    launch: &'a Launch,
}

impl Ended<'_> {
    /// What its end says: its warnings, whether the engine died during it, its own failure.
    fn judge(&self, mut result: BenchResult, engine: &mut Child) -> (BenchResult, bool) {
        let (argv, status, ready_url) = (self.argv, self.status, self.ready_url);
        // `perflab bench` says on standard error what it did not believe, in one line.
        if crate::study::command::is_perflab_bench(argv) {
            let lines = tail(self.err_path, 20).into_iter();
            result.warnings = lines.filter(|l| l.starts_with("warning: ")).collect();
        }
        // A real engine can die faster than the benchmark's loop looks (its requests then fail
        // at once and the benchmark ends): one that no longer serves, or that has exited, died
        // during the benchmark, whatever the benchmark made of it.
        if !still_serving(ready_url, engine) {
            let exited = engine.try_wait().ok().flatten();
            let how = exited.map_or(format!("stopped answering {ready_url}"), |s| format!("exited ({s})"));
            result.failure = Some(died_during_benchmark(self.launch, &how));
            return (result, true);
        }
        if !status.success() {
            // The error line, or else the last line it printed.
            let lines = tail(self.err_path, 20);
            let line = lines
                .iter()
                .find(|l| l.to_ascii_lowercase().contains("error"))
                .or_else(|| lines.iter().rev().find(|l| !l.trim().is_empty()))
                .cloned()
                .unwrap_or_default();
            let message = format!("the benchmark exited with {status}: {}", line.trim());
            result.failure = Some((FailureClass::BenchmarkFailure, message));
        }
        (result, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_that_ended_is_exiting_and_one_that_sleeps_is_not() {
        let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        assert!(!exiting(sleeper.id()));
        let mut done = std::process::Command::new("true").spawn().unwrap();
        let pid = done.id();
        // Not collected yet: a zombie once it has ended.
        let mut waited = 0;
        while !std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap().contains(") Z") && waited < 1000 {
            std::thread::sleep(Duration::from_millis(10));
            waited += 1;
        }
        assert!(exiting(pid));
        done.wait().unwrap();
        assert!(!exiting(pid), "a collected process is gone, not exiting");
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
    }

    #[test]
    fn readiness_checks_start_at_a_millisecond_and_stay_under_ten() {
        let mut poll = Backoff::default();
        let pauses: Vec<u128> = (0..6).map(|_| poll.pause().as_millis()).collect();
        assert_eq!(pauses, [1, 2, 4, 5, 5, 5]);
        // A check after the engine answers comes within one pause and one check's time.
        assert!(Backoff::CAP < Duration::from_millis(10));
    }

    #[test]
    fn ports_are_picked_outside_the_ephemeral_range_and_never_twice_while_held() {
        let ports = port_candidates((32768, 60999), 5);
        assert!(ports.iter().all(|p| *p >= 1024 && !(32768..=60999).contains(p)));
        assert_eq!(ports.len(), (32768 - 1024) + (65535 - 60999));
        assert_eq!(port_candidates((32768, 60999), 0)[5], ports[0], "the seed only sets where to begin");
        // A range that leaves nothing: every unprivileged port.
        assert_eq!(port_candidates((1024, 65535), 0).len(), 65535 - 1024 + 1);

        // A held port looks free (its engine has not bound it yet): it is still not picked again,
        // until its lease is dropped.
        let first = pick_port(|_| true).unwrap();
        let held = first.0;
        assert!(pick_port(|p| p == held).is_none());
        drop(first);
        assert_eq!(pick_port(|p| p == held).map(|l| l.0), Some(held), "a dropped lease gives the port back");
        // A port that is not free is passed over.
        let third = pick_port(|p| p % 2 == 0).unwrap();
        assert_eq!(third.0 % 2, 0);
        assert!(pick_port(|_| false).is_none());
    }
}
