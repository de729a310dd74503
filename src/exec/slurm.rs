//! Engine starts as Slurm jobs: one job a configuration, submitted with `sbatch`, followed with
//! `squeue` and `scontrol show job`, cancelled with `scancel` (no accounting database needed).
//!
//! The job runs the hidden `perflab job-run ATTEMPT` on its node, which reads the [`Launch`]
//! the runner left in the attempt's folder (`.launch.json`), runs it with the local backend (the
//! same code that runs engines on one machine) and writes its [`Report`] beside it
//! (`.report.json`), with what the node recorded of its own host and accelerators. The runner
//! then records the attempt exactly as for a local start. The attempt's folder must be on a
//! file system the nodes share.
//!
//! `.job.json` says which job an attempt is waiting for: a runner killed with `kill -9` leaves
//! it, and the next one follows the job (queued, running or ended) instead of submitting it
//! again. A job that outruns its time limit or its memory fails its runs with a class of its
//! own; one the cluster ends for a reason of its own (`scancel` from outside, a node failure,
//! preemption) leaves them pending, with the end in the attempt's manifests.

use super::backend::{self, Backend, Event, Interrupt, Launch, Report};
use super::gpus;
use super::local::LocalBackend;
use super::machine::node_machine;
use super::plan::Job;
use super::process;
use crate::study::command::quote;
use crate::study::outcome::{JobEnd, Observed, SlurmState, job_end};
use crate::study::{Cluster, MANIFEST_SUFFIX, Manifest, RunState};
use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The job an attempt waits for, in the attempt's folder until the attempt is recorded.
pub const JOB_RECORD: &str = ".job.json";
/// The launch the job's node runs.
const LAUNCH: &str = ".launch.json";
/// What the node reports.
const REPORT: &str = ".report.json";
/// The job's standard output and error.
const OUTPUT: &str = ".slurm.out";
/// The batch script.
const SCRIPT: &str = ".job.sh";
/// The engine record on the node (the runner's own records stay in `runs/`).
const NODE_ENGINE_RECORD: &str = ".engine.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobRecord {
    pub id: String,
    pub submitted_at: String,
}

impl JobRecord {
    pub fn read(path: &Path) -> Option<JobRecord> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    }
}

/// The cluster's settings: the study's `[cluster]`, each key a config file sets replacing it.
pub fn merge(study: Option<&Cluster>, file: Option<&Cluster>) -> Cluster {
    let base = study.cloned().unwrap_or_default();
    let Some(over) = file else { return base };
    let over = over.clone();
    Cluster {
        partition: over.partition.or(base.partition),
        account: over.account.or(base.account),
        gpus_per_node: over.gpus_per_node.or(base.gpus_per_node),
        time_limit: over.time_limit.or(base.time_limit),
        sbatch_args: if over.sbatch_args.is_empty() { base.sbatch_args } else { over.sbatch_args },
        shared_dir: over.shared_dir.or(base.shared_dir),
        perflab: over.perflab.or(base.perflab),
        max_jobs: over.max_jobs.or(base.max_jobs),
    }
}

/// Where a job stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    /// Queued or running: the state as `squeue` prints it (`PENDING`, `RUNNING`, ...) and why
    /// it waits (`Resources`, `JobHeldUser`, ...), when it does.
    Active { state: SlurmState, reason: Option<String> },
    /// Ended: `JobState` of `scontrol show job` (`COMPLETED`, `TIMEOUT`, ...), the node, the reason.
    Ended { state: SlurmState, node: Option<String>, reason: Option<String> },
    /// The cluster does not know the job (purged, or another cluster's).
    Unknown,
    /// The controller did not answer (`slurmctld` down or overloaded): nothing is known of the
    /// job, which may well be running.
    Unreachable(String),
}

/// `Key=value` of a one-line `scontrol show job -o` answer.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')).filter(|v| !v.is_empty())
}

/// Reads a `squeue -o '%T %r'` line: the state and the reason it waits, if any.
pub fn parse_squeue(line: &str) -> Option<JobState> {
    let mut words = line.split_whitespace();
    let state = SlurmState::parse(words.next()?);
    let reason = words.collect::<Vec<_>>().join(" ");
    let reason = Some(reason).filter(|r| !r.is_empty() && r != "None");
    Some(JobState::Active { state, reason })
}

/// Reads `scontrol show job -o` output.
pub fn parse_scontrol(line: &str) -> JobState {
    let Some(state) = field(line, "JobState") else { return JobState::Unknown };
    let node = field(line, "NodeList").filter(|n| *n != "(null)").map(str::to_string);
    let reason = field(line, "Reason").filter(|r| *r != "None").map(str::to_string);
    JobState::Ended { state: SlurmState::parse(state), node, reason }
}

/// Engine starts as Slurm jobs.
#[derive(Debug, Clone)]
pub struct SlurmBackend {
    pub cluster: Cluster,
    /// The `perflab` binary the job runs.
    pub perflab: PathBuf,
    /// How often a job's state is asked for.
    pub poll: Duration,
    /// Names the jobs: `perflab:<study>:<stage>/<variant>`.
    pub study: String,
}

/// Runs a Slurm client command; its standard output, or its error as a sentence.
fn slurm(program: &str, args: &[String]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `{program}` (is the Slurm client installed here?): {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{program} {}` failed ({}): {}", args.join(" "), out.status, err.trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl SlurmBackend {
    /// The backend for the study in `dir`; refuses a study outside the cluster's `shared_dir`
    /// and a machine without the Slurm client.
    pub fn new(cluster: Cluster, dir: &Path) -> anyhow::Result<SlurmBackend> {
        let dir = dir.canonicalize().with_context(|| format!("cannot find '{}'", dir.display()))?;
        if let Some(shared) = &cluster.shared_dir {
            let shared_path = Path::new(shared).canonicalize().with_context(|| {
                format!("`[cluster] shared_dir`: cannot find '{shared}' (the file system the nodes share)")
            })?;
            if !dir.starts_with(&shared_path) {
                bail!(
                    "the study '{}' is not inside `[cluster] shared_dir` '{shared}': the nodes could not write its results",
                    dir.display()
                );
            }
        }
        slurm("sbatch", &["--version".to_string()]).map_err(|e| anyhow::anyhow!("{e}"))?;
        let perflab = match &cluster.perflab {
            Some(p) => PathBuf::from(p),
            None => std::env::current_exe().context("cannot tell where the perflab binary is")?,
        };
        let study = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(SlurmBackend { cluster, perflab, poll: Duration::from_millis(250), study })
    }

    /// The `sbatch` arguments of a job for `launch`.
    pub fn sbatch_args(&self, launch: &Launch) -> Vec<String> {
        let dir = launch.dir.display().to_string();
        let mut args = vec![
            "--parsable".to_string(),
            format!("--job-name=perflab:{}:{}/{}", self.study, launch.job.stage, launch.job.variant),
            format!("--chdir={dir}"),
            // `%` starts one of Slurm's file name patterns (`%j`): a literal one is doubled.
            format!("--output={}/{OUTPUT}", dir.replace('%', "%%")),
            "--nodes=1".to_string(),
            "--ntasks=1".to_string(),
        ];
        let c = &self.cluster;
        args.extend(c.partition.as_ref().map(|p| format!("--partition={p}")));
        args.extend(c.account.as_ref().map(|a| format!("--account={a}")));
        args.extend(c.time_limit.as_ref().map(|t| format!("--time={t}")));
        if let Some(per_node) = c.gpus_per_node {
            args.push(format!("--gpus-per-node={}", launch.job.gpus.unwrap_or(per_node)));
        }
        args.extend(c.sbatch_args.iter().cloned());
        args.push(launch.dir.join(SCRIPT).display().to_string());
        args
    }

    /// Writes the launch and the script, submits, records the job; its id.
    fn submit(&self, launch: &Launch) -> Result<String, String> {
        let mut on_node = launch.clone();
        on_node.record = launch.dir.join(NODE_ENGINE_RECORD);
        // The cluster gives the job its GPUs (and sets CUDA_VISIBLE_DEVICES itself).
        on_node.devices = None;
        let write = |name: &str, bytes: &[u8]| {
            let path = launch.dir.join(name);
            crate::durable::write(&path, bytes).map_err(|e| format!("cannot write '{}': {e}", path.display()))
        };
        let json = serde_json::to_vec_pretty(&on_node).map_err(|e| e.to_string())?;
        write(LAUNCH, &json)?;
        let script = format!(
            "#!/bin/sh\n# perflab: one engine start of {}/{}\nexec {} job-run {}\n",
            launch.job.stage,
            launch.job.variant,
            quote(&self.perflab.display().to_string()),
            quote(&launch.dir.display().to_string())
        );
        write(SCRIPT, script.as_bytes())?;
        let out = slurm("sbatch", &self.sbatch_args(launch))?;
        // `--parsable` prints `id` or `id;cluster`.
        let id = out.trim().split(';').next().unwrap_or_default().to_string();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit() || c == '_') {
            return Err(format!("sbatch printed no job id: `{}`", out.trim()));
        }
        let record = JobRecord { id: id.clone(), submitted_at: backend::now() };
        write(JOB_RECORD, &serde_json::to_vec_pretty(&record).map_err(|e| e.to_string())?)?;
        Ok(id)
    }

    /// Where job `id` stands.
    pub fn state(&self, id: &str) -> JobState {
        let args = ["-h", "-j", id, "-o", "%T %r"].map(String::from);
        if let Some(active) = slurm("squeue", &args).ok().and_then(|out| parse_squeue(out.trim())) {
            return active;
        }
        match slurm("scontrol", &["show".into(), "job".into(), "-o".into(), id.into()]) {
            Ok(out) => match parse_scontrol(out.trim()) {
                JobState::Ended { state, reason, .. } if state.active() => JobState::Active { state, reason },
                ended => ended,
            },
            Err(e) if e.contains("Invalid job id") => JobState::Unknown,
            Err(e) => JobState::Unreachable(e),
        }
    }

    fn cancel(&self, id: &str, signal: Option<&str>) {
        let mut args: Vec<String> = signal.map(|s| vec![format!("--signal={s}")]).unwrap_or_default();
        args.push(id.to_string());
        let _ = slurm("scancel", &args);
    }

    /// The newest attempt of a variant that waits for a job a killed runner submitted for the
    /// same configuration: the runner follows it instead of starting a new one. A job for another
    /// configuration (the study changed since) is cancelled and its attempt marked interrupted.
    fn adopt(&self, variant_dir: &Path, job: &Job) -> Option<PathBuf> {
        let attempts = variant_dir.join(crate::study::ATTEMPTS_DIR);
        let newest = std::fs::read_dir(&attempts)
            .ok()?
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .max()?;
        let dir = attempts.join(newest.to_string());
        let record = JobRecord::read(&dir.join(JOB_RECORD))?;
        let launch: Option<Launch> =
            std::fs::read_to_string(dir.join(LAUNCH)).ok().and_then(|t| serde_json::from_str(&t).ok());
        let same =
            launch.is_some_and(|l| (&l.job.argv, &l.job.env, &l.job.profiles) == (&job.argv, &job.env, &job.profiles));
        if same {
            return Some(dir);
        }
        self.cancel(&record.id, None);
        mark_interrupted(&dir);
        let _ = std::fs::remove_file(dir.join(JOB_RECORD));
        None
    }
}

/// The report the job's node wrote, once it is there.
fn node_report(dir: &Path) -> Option<Report> {
    serde_json::from_str(&std::fs::read_to_string(dir.join(REPORT)).ok()?).ok()
}

/// Marks the attempt's running manifests interrupted.
fn mark_interrupted(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.to_string_lossy().ends_with(MANIFEST_SUFFIX)
            && let Ok(mut m) = Manifest::read(&path)
            && m.state == RunState::Running
        {
            m.state = RunState::Interrupted;
            let _ = m.write(&path);
        }
    }
}

impl Backend for SlurmBackend {
    fn capacity(&self) -> Option<usize> {
        self.cluster.max_jobs
    }

    fn follows_jobs(&self) -> bool {
        true
    }

    fn adoptable(&self, variant_dir: &Path, job: &Job) -> Option<PathBuf> {
        self.adopt(variant_dir, job)
    }

    /// The attempt is recorded: it no longer waits for its job.
    fn finished(&self, dir: &Path) {
        let _ = std::fs::remove_file(dir.join(JOB_RECORD));
    }

    fn execute(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Report {
        let started_at = backend::now();
        let id = match self.job_of(launch, interrupt, progress) {
            Ok(id) => id,
            Err(NoJob::Stopped) => return Report { started_at, interrupted: true, ..Report::default() },
            Err(NoJob::Refused(message)) => {
                let refused = Some(format!("the cluster refused the job: {message}"));
                return Report { started_at, refused, ..Report::default() };
            }
        };
        let followed = self.follow(&id, launch, interrupt, progress);
        if followed.state == SlurmState::Unreachable {
            // Neither a result nor a failure: the job record stays, and `perflab run` follows the
            // job again once the controller answers.
            progress(Event::Step(&format!(
                "Slurm job {id}: stopped waiting while the controller does not answer; `perflab run --backend slurm` follows the job again"
            )));
            return Report {
                started_at: backend::now(),
                job_id: Some(id),
                interrupted: true,
                job_still_queued: true,
                ..Report::default()
            };
        }
        ended(launch, &id, followed, started_at, progress)
    }
}

/// Why a start got no cluster job: the run was stopped first, or the cluster refused it.
enum NoJob {
    Stopped,
    Refused(String),
}

/// How a followed job ended: its state, its node, why, and whether this run cancelled it.
struct Followed {
    state: SlurmState,
    node: Option<String>,
    reason: Option<String>,
    cancelled_here: bool,
}

impl SlurmBackend {
    /// The job that runs the start: one an earlier run submitted, followed, or a new one.
    fn job_of(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Result<String, NoJob> {
        if let Some(record) = JobRecord::read(&launch.dir.join(JOB_RECORD)) {
            progress(Event::Step(&format!("following Slurm job {} of an earlier run", record.id)));
            return Ok(record.id);
        }
        if interrupt.requested() {
            return Err(NoJob::Stopped);
        }
        match self.submit(launch) {
            Ok(id) => {
                progress(Event::Step(&format!("submitted Slurm job {id}")));
                Ok(id)
            }
            Err(message) => Err(NoJob::Refused(message)),
        }
    }

    /// Follows a job until it ends (or the controller stops answering after a stop request),
    /// cancelling it on Ctrl-C and killing it on a second.
    fn follow(&self, id: &str, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Followed {
        let mut cancelled_here = false;
        let mut killed = false;
        let mut told = String::new();
        let mut outage = 0u32;
        let end = |state: SlurmState, node, reason, cancelled_here| Followed { state, node, reason, cancelled_here };
        loop {
            if interrupt.requested() && !cancelled_here {
                progress(Event::Step(&format!("cancelling Slurm job {id}")));
                self.cancel(id, None);
                cancelled_here = true;
            }
            if interrupt.urgent() && !killed {
                self.cancel(id, Some("KILL"));
                killed = true;
            }
            match self.state(id) {
                // The job's script has ended and the node reported a start that ran to its end
                // without a signal: the cluster has nothing left to say about it (its clean-up
                // takes seconds more).
                JobState::Active { state: SlurmState::Completing, .. }
                    if node_report(&launch.dir).is_some_and(|r| !r.interrupted) =>
                {
                    return end(SlurmState::Completed, None, None, cancelled_here);
                }
                JobState::Active { state, reason } => {
                    // A job held back says why (`Resources`, `JobHeldUser`), each time that changes.
                    let now = match reason {
                        Some(why) => format!("{} ({why})", state.name().to_lowercase()),
                        None => state.name().to_lowercase(),
                    };
                    if now != told {
                        progress(Event::Step(&format!("Slurm job {id}: {now}")));
                        told = now;
                    }
                }
                JobState::Ended { state, node, reason } => return end(state, node, reason, cancelled_here),
                JobState::Unknown => return end(SlurmState::Unknown, None, None, cancelled_here),
                JobState::Unreachable(why) => {
                    // Says nothing about the job: wait for the controller (backing off to 30 s
                    // between asks); a stop request leaves the job for the next run to follow.
                    if interrupt.requested() {
                        return end(SlurmState::Unreachable, None, Some(why), cancelled_here);
                    }
                    if told != SlurmState::Unreachable.name() {
                        progress(Event::Step(&format!(
                            "Slurm job {id}: the controller does not answer ({why}); waiting for it"
                        )));
                        told = SlurmState::Unreachable.name().to_string();
                    }
                    outage += 1;
                    std::thread::sleep((self.poll * 2u32.saturating_pow(outage.min(8))).min(Duration::from_secs(30)));
                    continue;
                }
            }
            outage = 0;
            std::thread::sleep(self.poll);
        }
    }
}

/// The report of a job that ended: the node's own, with what the job's end says about it.
fn ended(launch: &Launch, id: &str, job: Followed, started_at: String, progress: &mut dyn FnMut(Event)) -> Report {
    let Followed { state, node, reason, cancelled_here } = job;
    let from_node = node_report(&launch.dir);
    let had_report = from_node.as_ref().is_some_and(|r| !r.interrupted);
    let mut report = from_node.unwrap_or_else(|| Report { started_at, ..Report::default() });
    report.job_id = Some(id.to_string());
    report.node = report.node.take().or(super::host::node_as(node, launch.host));
    let reason = reason.map_or(String::new(), |r| format!(", {r}"));
    let message = format!("Slurm job {id} ended {state}{reason}");
    // A job the cluster no longer knows (purged) whose node reported a whole start ran.
    let end = if state == SlurmState::Unknown && had_report { JobEnd::Ran } else { job_end(&state, cancelled_here) };
    match end {
        JobEnd::Failed(class) => {
            progress(Event::Step(&message));
            report.interrupted = false;
            for b in &mut report.benchmarks {
                if b.failure.is_none() && b.exit_status.is_none() {
                    b.failure = Some((class, message.clone()));
                }
            }
            report.start_failure.get_or_insert((class, message));
        }
        JobEnd::Cluster => {
            // What the node measured before the end stands; the rest stays pending.
            report.interrupted = true;
            report.cluster_end = Some(message);
        }
        JobEnd::Ran if cancelled_here => report.interrupted = true,
        JobEnd::Ran if !had_report && !report.interrupted => {
            let output = process::tail(&launch.dir.join(OUTPUT), 5);
            let last = output.iter().rev().find(|l| !l.trim().is_empty()).map_or("", |l| l.trim());
            report.start_failure = Some(Observed::NoReport { ended: &message, last }.failure());
        }
        JobEnd::Ran => {}
    }
    report
}

/// `perflab job-run DIR` on a node: runs the launch in `DIR` with the local backend and writes
/// its report there. SIGTERM (the scheduler cancelling the job, or its time limit) stops the
/// engine within [`super::local::JOB_GRACE`].
pub fn run_job(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(LAUNCH);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let launch: Launch =
        serde_json::from_str(&text).with_context(|| format!("'{}' is not a perflab launch", path.display()))?;
    let interrupt = Interrupt::on_signals()?;
    // The node's own facts, read before its engine starts (the runner's machine is not this one).
    let devices = gpus::given_devices(launch.devices.as_ref().map(|(_, d)| d.as_str()), |v| std::env::var(v).ok());
    let name = std::env::var("SLURMD_NODENAME").ok();
    let (node, machine) = node_machine(name.as_deref(), launch.host, devices.as_deref());
    let backend = LocalBackend { devices: Vec::new(), in_job: true };
    let mut report = backend.execute(&launch, &interrupt, &mut |event| {
        if let Event::Step(text) = event {
            println!("{text}");
        }
    });
    report.job_id = std::env::var("SLURM_JOB_ID").ok();
    report.node = node;
    report.machine = Some(machine);
    let bytes = serde_json::to_vec_pretty(&report)?;
    let out = dir.join(REPORT);
    crate::durable::write(&out, &bytes).with_context(|| format!("cannot write '{}'", out.display()))?;
    Ok(())
}
