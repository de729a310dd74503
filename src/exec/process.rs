//! The processes of an engine start on this machine: the programs perflab runs from beside
//! itself, process groups and their signals, what `/proc` tells of a process, the record kept
//! for recovery, and a log's last lines.

use super::backend::Interrupt;
use rustix::process::{Pid, Signal};
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A program named `perflab` or `perflab-engine` is taken from beside the running binary when
/// it is there, so that a study runs with the same build.
pub(super) fn program(name: &str) -> PathBuf {
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

/// The folder [`program`] looks in for `name` before PATH: the running binary's, when `name` is
/// one of perflab's own programs.
pub(super) fn own_folder(name: &str) -> Option<PathBuf> {
    let own = name == "perflab" || name == "perflab-engine";
    own.then(|| std::env::current_exe().ok()?.parent().map(Path::to_path_buf)).flatten()
}

/// Sends `signal` to a process group; `None` only asks whether the group still exists.
pub fn signal_group(pgid: u32, signal: Option<Signal>) -> bool {
    let Some(pgid) = pid(pgid) else { return false };
    match signal {
        Some(signal) => rustix::process::kill_process_group(pgid, signal).is_ok(),
        None => rustix::process::test_kill_process_group(pgid).is_ok(),
    }
}

/// A process (or group) id the kernel could have given; none for 0 and what does not fit.
fn pid(id: u32) -> Option<Pid> {
    Pid::from_raw(i32::try_from(id).ok()?)
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
    if !signal_group(pgid, None) {
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
pub(super) fn reap_group(pgid: u32) {
    let Some(pgid) = pid(pgid) else { return };
    while let Ok(Some(_)) = rustix::process::waitpgid(pgid, rustix::process::WaitOptions::NOHANG) {}
}

/// Waits until every process of group `pgid` has ended (and `child`, its leader, is collected),
/// up to `deadline`, or an urgent interrupt; the processes still running.
pub(super) fn wait_group(
    pgid: u32,
    child: &mut Option<&mut Child>,
    deadline: Instant,
    interrupt: Option<&Interrupt>,
) -> usize {
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
    signal_group(pgid, Some(Signal::TERM));
    stopped.killed = wait_group(pgid, &mut child, Instant::now() + grace, interrupt);
    signal_group(pgid, Some(Signal::KILL));
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
                let me = rustix::process::getuid().as_raw();
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
pub(super) struct ProcStat(String);

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
pub(super) fn exiting(pid: u32) -> bool {
    ProcStat::read(pid).is_some_and(|s| s.exiting())
}

/// Whether a process with this id runs (it exists and is not a zombie).
pub(super) fn alive(pid: u32) -> bool {
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
pub(super) fn die_with_parent(command: &mut Command) {
    // The child asks whether its parent is still this process, not whether it was handed to
    // PID 1: a runner that is PID 1 itself (a container's first process) is a live parent.
    let runner = pid(std::process::id());
    // SAFETY: the hook runs in the child between fork and exec, where only async-signal-safe
    // calls may be made: prctl(2) and getppid(2) are, and rustix makes them as plain system
    // calls, allocating nothing and taking no lock.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            if rustix::process::getppid() != runner {
                return Err(std::io::Error::other("the job's runner has ended"));
            }
            Ok(())
        });
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
}
