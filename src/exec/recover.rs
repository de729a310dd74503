//! What a killed runner left behind, and the lock that keeps two runners off one study: the
//! engine records it kept (`.engine.json`, one a slot) are read on the next start and their
//! engines stopped, unless they are another's; a damaged record is named and set aside.

use super::backend::Event;
use super::process::{self, EngineRecord, Leftover};
use crate::study::{MANIFEST_SUFFIX, Manifest, RUNS_DIR, RunState};
use anyhow::{Context, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The runner's lock file in `runs/`, locked with `flock` while a runner works on the study.
pub(super) const LOCK: &str = ".perflab-run.lock";
/// The running engine's record in `runs/`: its identity, to stop it after a crash. An engine in
/// the n-th slot of a parallel run (n > 0) has `.engine-<n>.json`.
pub(super) const ENGINE_RECORD: &str = ".engine.json";

/// The engine record of a slot.
pub(super) fn engine_record(runs: &Path, slot: usize) -> PathBuf {
    if slot == 0 { runs.join(ENGINE_RECORD) } else { runs.join(format!(".engine-{slot}.json")) }
}

/// Stops an engine a killed runner left behind (only when its process id still names the same
/// process: same start time, same command line), drops half-written files, and marks runs that
/// were in progress as interrupted.
pub(super) fn recover(dir: &Path, cluster: bool, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
    let runs = dir.join(RUNS_DIR);
    let mut records: Vec<PathBuf> = match std::fs::read_dir(&runs) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(".engine") && n.ends_with(".json"))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    records.sort();
    for record in records {
        let Ok(text) = std::fs::read_to_string(&record) else { continue };
        match serde_json::from_str::<EngineRecord>(&text) {
            Ok(r) => stop_leftover(&r, log),
            Err(why) => damaged_record(&record, &text, &why, log)?,
        }
        std::fs::remove_file(&record).with_context(|| format!("cannot remove '{}'", record.display()))?;
    }
    if !runs.is_dir() {
        return Ok(());
    }
    // A cluster job a killed runner submitted may still be queued or running: its attempt is
    // left as it is for the cluster backend to adopt. Another backend cannot follow it.
    let mut jobs = BTreeSet::new();
    for entry in walkdir::WalkDir::new(&runs) {
        let entry = entry?;
        if entry.file_name() == super::slurm::JOB_RECORD
            && let Some(attempt) = entry.path().parent()
        {
            if cluster {
                jobs.insert(attempt.to_path_buf());
            } else {
                // Running it here as well would measure it twice (beside the job, on a machine
                // that may be the cluster's) and throw away what the job measures.
                let job = super::slurm::JobRecord::read(entry.path()).map(|r| r.id).unwrap_or_default();
                bail!(
                    "Slurm job {job} of an earlier run ('{}') may still be measuring this study: `perflab run --backend slurm` follows it; to run here instead, `scancel {job}` and remove '{}'",
                    attempt.display(),
                    entry.path().display()
                );
            }
        }
    }
    for entry in walkdir::WalkDir::new(&runs).into_iter().filter_entry(|e| !jobs.contains(e.path())) {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy();
        if name.ends_with(".tmp") {
            std::fs::remove_file(path).with_context(|| format!("cannot remove '{}'", path.display()))?;
        } else if name.ends_with(MANIFEST_SUFFIX)
            && let Ok(mut m) = Manifest::read(path)
            && m.state == RunState::Running
        {
            m.state = RunState::Interrupted;
            m.write(path)?;
        }
    }
    Ok(())
}

/// Stops what is left of an engine a killed runner recorded: the engine's process group, or the
/// workers of its group that outlived it, before anything else is started on its GPUs.
pub(super) fn stop_leftover(r: &EngineRecord, log: &mut dyn FnMut(Event)) {
    let pid = r.process.pid;
    let grace = Duration::from_secs(10);
    let stopped = match r.leftover() {
        Leftover::Engine => {
            let command = &r.process.command;
            log(Event::Step(&format!(
                "stopping the engine (process group {pid}, `{command}`) a previous run left behind"
            )));
            process::stop_group(pid, None, grace, None)
        }
        Leftover::Workers(workers) => {
            let ids: Vec<String> = workers.iter().map(u32::to_string).collect();
            let (which, verb) = if ids.len() == 1 { ("process", "runs") } else { ("processes", "run") };
            log(Event::Step(&format!(
                "the engine a previous run left behind (process {pid}) has ended, but {which} {} of its group still {verb}; stopping them",
                ids.join(", ")
            )));
            // Workers without their engine serve nobody: they get the short grace.
            process::stop_group(pid, None, process::LOADING_GRACE, None)
        }
        Leftover::Nothing => {
            log(Event::Step(&format!("the engine a previous run left behind (process {pid}) has ended")));
            return;
        }
        Leftover::Other => {
            log(Event::Step(&format!(
                "the engine a previous run left behind (process {pid}) has ended; process {pid} is another program now and is left alone"
            )));
            return;
        }
    };
    if let Some(line) = stopped.describe(pid) {
        log(Event::Step(&line));
    }
}

/// An engine record that cannot be read. When the process id it shows (if any) has ended with
/// its whole group, the record is dropped; otherwise nothing is started, since an engine that
/// may still hold the GPUs would make the next start fail for a reason not its own.
pub(super) fn damaged_record(
    path: &Path,
    text: &str,
    why: &serde_json::Error,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<()> {
    let at = path.display();
    match process::damaged_record_pid(text) {
        Some(pid) if !process::process_or_group_runs(pid) => {
            log(Event::Step(&format!("'{at}' is damaged ({why}); process {pid}, which it names, has ended")));
            Ok(())
        }
        Some(pid) => bail!(
            "'{at}' is damaged ({why}), so perflab cannot tell whether process {pid}, which it names, is the engine an earlier run started, and stops nothing: see what runs in its group (`pgrep -a -g {pid}`), stop it if it is that engine (`kill -- -{pid}`), then remove '{at}' and run again"
        ),
        None => bail!(
            "'{at}' is damaged ({why}) and names no process, so perflab cannot tell which engine an earlier run left running, and stops nothing: look for one (`ps -eo pid,pgid,args`), stop it, then remove '{at}' and run again"
        ),
    }
}

/// Holds the study's run lock (an exclusive `flock` the system drops when the process ends,
/// however it ends); released when dropped. `perflab run` holds it while it measures, and
/// `perflab import --force` while it replaces the study.
pub struct Lock(#[allow(dead_code)] std::fs::File);

impl Lock {
    /// Takes the lock of the study whose runs folder is `runs` (created when missing), or says
    /// which process holds it.
    pub fn take(runs: &Path) -> anyhow::Result<Lock> {
        std::fs::create_dir_all(runs).with_context(|| format!("cannot create '{}'", runs.display()))?;
        let path = runs.join(LOCK);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            bail!(
                "'{}' is a symbolic link; perflab never writes through one (remove it and run again)",
                path.display()
            );
        }
        match crate::durable::lock(&path).with_context(|| format!("cannot lock '{}'", path.display()))? {
            Ok(file) => Ok(Lock(file)),
            Err(crate::durable::Held(holder)) => {
                bail!("another perflab run (process {holder}) is running this study; its lock is '{}'", path.display())
            }
        }
    }
}
