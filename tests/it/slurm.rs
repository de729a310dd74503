//! `perflab run --backend slurm` against a real Slurm cluster that each test starts with
//! `tests/slurm/cluster.sh` (slurmctld and two slurmd on 127.0.0.1, under a temporary folder)
//! and tears down when it ends: the example study gives what the local backend gives; Ctrl-C
//! cancels the study's jobs; after `kill -9` the next run follows the jobs instead of submitting
//! them again; a job past its time limit fails with its own class; a job cancelled from outside
//! or lost with its node leaves its runs pending; no engine is left behind, even one that
//! ignores SIGTERM; a job held pending says why.
//!
//! These tests need Slurm's daemons (`.ci/run` installs them): they are ignored by default and
//! every test name holds `slurm`, so `cargo test -- --include-ignored --skip slurm` leaves out
//! exactly them.

use crate::common;

use common::{example, finish, manifests, perflab, root, running, tiny, wait_for};
use perflab::analysis::{Adoption, analyze};
use perflab::study::{FailureClass, Manifest, RunState, Study};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A cluster of this test's own; torn down (daemons and job processes) when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
}

impl Cluster {
    fn up() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("bash")
            .arg(root().join("tests/slurm/cluster.sh"))
            .args(["up", dir.path().to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "cluster.sh up: {}", String::from_utf8_lossy(&out.stderr));
        let conf = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Cluster { dir, conf }
    }

    /// A Slurm client command against this cluster; its standard output.
    fn client(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new(program).args(args).env("SLURM_CONF", &self.conf).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `JobState` of a job.
    fn job_state(&self, id: &str) -> String {
        let line = self.client("scontrol", &["show", "job", "-o", id]);
        line.split_whitespace().find_map(|w| w.strip_prefix("JobState=")).unwrap_or("").to_string()
    }

    /// The jobs queued or running.
    fn queue(&self) -> String {
        self.client("squeue", &["-h", "-o", "%i %T"])
    }

    fn perflab(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_perflab"));
        c.args(args).env("SLURM_CONF", &self.conf).current_dir(root());
        c
    }

    fn run(&self, dir: &Path) -> (i32, String) {
        let out = self.perflab(&["run", dir.to_str().unwrap(), "--backend", "slurm"]).output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    fn spawn(&self, dir: &Path) -> Child {
        self.perflab(&["run", dir.to_str().unwrap(), "--backend", "slurm"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(root().join("tests/slurm/cluster.sh"))
            .args(["down", self.dir.path().to_str().unwrap()])
            .status();
    }
}

/// The job records (`.job.json`) under a study's runs: attempt folder → job id.
fn job_records(dir: &Path) -> BTreeMap<PathBuf, String> {
    walkdir::WalkDir::new(dir.join("runs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == ".job.json")
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            Some((e.path().parent()?.to_path_buf(), v["id"].as_str()?.to_string()))
        })
        .collect()
}

/// The engine processes the nodes recorded (`.engine.json` in an attempt) or reported.
fn node_engines(dir: &Path) -> Vec<u32> {
    let mut pids = Vec::new();
    if !dir.join("runs").is_dir() {
        return pids;
    }
    for e in walkdir::WalkDir::new(dir.join("runs")).into_iter().filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy();
        if (name == ".engine.json" && e.depth() > 1) || name == ".report.json" {
            let v: serde_json::Value =
                std::fs::read_to_string(e.path()).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
            pids.extend(v["pid"].as_u64().map(|p| p as u32));
        }
    }
    pids.extend(manifests(dir).iter().filter_map(|m| m.engine_pid));
    pids
}

fn no_engine_left(dir: &Path) {
    for pid in node_engines(dir) {
        assert!(wait_for(Duration::from_secs(10), || !running(pid)), "engine {pid} left running");
    }
}

/// What "the same results" means across backends: each run's state, each stage's adopted
/// variant, the recommended command.
fn outcome(dir: &Path) -> (Vec<String>, Vec<String>, String) {
    let (code, plan, err) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // `stage/variant/profile  status ...` without dates.
    let states = plan
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    let study = Study::load(dir).unwrap();
    let a = analyze(&study);
    let adopted = a
        .stages
        .iter()
        .map(|s| match &s.adoption {
            Adoption::Adopted { variant, .. } => format!("{}: {variant}", s.id),
            _ => format!("{}: kept its base", s.id),
        })
        .collect();
    let command = serde_json::to_string(&a.recommended).unwrap();
    (states, adopted, command)
}

/// The example without the variants and the stage whose outcome a loaded machine decides.
fn decisive_only(spec: &Path) {
    let mut text = std::fs::read_to_string(spec).unwrap();
    let close = [
        "[[stage.variant]]\nid = \"triton\"\nlabel = \"triton\"\nflags = [\"--attention-backend triton\"]\n\n",
        "[[stage.variant]]\nid = \"4k\"\nlabel = \"4096\"\nflags = [\"--chunked-prefill-size 4096\"]\n\n",
    ];
    for block in close {
        assert!(text.contains(block), "{block}");
        text = text.replace(block, "");
    }
    let (start, end) = (
        text.find("[[stage]]\nid = \"kv-cache-dtype\"").unwrap(),
        text.find("[[stage]]\nid = \"attention-backend\"").unwrap(),
    );
    text.replace_range(start..end, "");
    std::fs::write(spec, text).unwrap();
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_runs_the_example_study_with_the_local_backends_results() {
    let _serial = common::serial();
    let cluster = Cluster::up();
    let (_a, local) = example(None);
    let (_b, remote) = example(None);
    // The two runs are compared decision by decision, and each is measured on the simulated
    // engine's wall clock while other tests load the machine. Only a decision that no plausible
    // noise can turn is compared: the example's `triton` runs exactly as fast as its base, its
    // `4k` chunk within 1% of it, and its FP8 KV cache gains about 13% in one measurement, which
    // two variants sharing two cores at once have turned into a loss.
    for dir in [&local, &remote] {
        decisive_only(&dir.join("study.toml"));
    }
    let (code, _, err) = common::run(&local, &[]);
    assert_eq!(code, 0, "{err}");
    // The jobs find an `nvidia-smi` on the `PATH` they are submitted with.
    let tools = crate::provenance::fake_smi();
    let path = format!("{}:{}", tools.path().display(), std::env::var("PATH").unwrap_or_default());
    let out =
        cluster.perflab(&["run", remote.to_str().unwrap(), "--backend", "slurm"]).env("PATH", path).output().unwrap();
    let (code, err) = (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("8 engine starts (6 served) and 7 benchmark runs (2 failed)"), "{err}");
    assert!(err.contains("submitted Slurm job"), "{err}");
    // The stages of two or more variants had them in flight at once.
    assert!(err.contains("; in flight: "), "{err}");

    assert_eq!(outcome(&remote), outcome(&local));
    let remote_manifests = manifests(&remote);
    let mut jobs: Vec<String> = remote_manifests.iter().filter_map(|m| m.job_id.clone()).collect();
    assert_eq!(jobs.len(), remote_manifests.len(), "every manifest names its job");
    jobs.sort();
    jobs.dedup();
    assert_eq!(jobs.len(), 8, "one job an engine start");
    assert!(remote_manifests.iter().all(|m| matches!(m.node.as_deref(), Some("n1" | "n2"))));
    // Each run's machine is its node's, read there: the host and the GPU the job found.
    for m in &remote_manifests {
        let on = format!(" on node {}", m.node.as_deref().unwrap());
        let machine = m.machine.as_ref().expect("the node's machine is recorded");
        assert_eq!(machine.kernel.as_ref().unwrap().source, format!("/proc/sys/kernel/osrelease{on}"));
        assert!(machine.cpu_cores.as_ref().is_some_and(|c| c.source.ends_with(&on)), "{machine:?}");
        let gpu = machine.gpu_model.as_ref().unwrap();
        let query = format!("nvidia-smi --query-gpu=name --format=csv,noheader{on}");
        assert_eq!((gpu.value.as_str(), gpu.source.as_str()), ("NVIDIA H100 80GB HBM3", query.as_str()));
        assert_eq!(machine.gpu_runtime.as_ref().unwrap().source, format!("nvidia-smi (its header's CUDA Version){on}"));
    }
    assert!(job_records(&remote).is_empty(), "no attempt still waits for a job");
    assert!(cluster.queue().trim().is_empty(), "{}", cluster.queue());
    no_engine_left(&remote);
    common::no_temporary_files(&remote);
    // A second run has nothing to submit.
    let (code, err) = cluster.run(&remote);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 engine starts") && !err.contains("submitted"), "{err}");
}

/// The first stage of the example with engines that take 4 s to load: long enough to act on
/// jobs while they run.
fn slow_engine_stage() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = example(Some(1));
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("--sim-startup-seconds 0.3", "--sim-startup-seconds 4")).unwrap();
    (tmp, dir)
}

/// Waits until both jobs of the engine stage run; their ids.
fn both_running(cluster: &Cluster, dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    let up = wait_for(Duration::from_secs(60), || {
        ids = job_records(dir).into_values().collect();
        ids.len() == 2 && ids.iter().all(|id| cluster.job_state(id) == "RUNNING")
    });
    assert!(up, "two running jobs: {ids:?} {}", cluster.queue());
    ids
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_ctrl_c_cancels_the_studys_jobs_and_the_next_run_finishes() {
    let cluster = Cluster::up();
    let (_tmp, dir) = slow_engine_stage();
    let child = cluster.spawn(&dir);
    let ids = both_running(&cluster, &dir);
    // SAFETY: kill(2) on a child process of this test.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 130, "{err}");
    assert!(err.contains("cancelling Slurm job"), "{err}");
    for id in &ids {
        assert_eq!(cluster.job_state(id), "CANCELLED", "job {id}");
    }
    assert!(cluster.queue().trim().is_empty(), "{}", cluster.queue());
    for m in manifests(&dir) {
        assert_eq!(m.state, RunState::Interrupted, "{m:?}");
    }
    assert!(job_records(&dir).is_empty());
    no_engine_left(&dir);

    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(&dir).unwrap();
    assert!(study.run("engine", "sim-a", "mixed").is_some() && study.run("engine", "sim-b", "mixed").is_some());
    no_engine_left(&dir);
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_after_kill_9_the_next_run_follows_its_jobs_instead_of_submitting_them_again() {
    let cluster = Cluster::up();
    let (_tmp, dir) = slow_engine_stage();
    let mut child = cluster.spawn(&dir);
    let before = {
        both_running(&cluster, &dir);
        job_records(&dir)
    };
    child.kill().unwrap();
    child.wait().unwrap();
    // The jobs outlive the runner.
    for id in before.values() {
        assert_eq!(cluster.job_state(id), "RUNNING", "job {id}");
    }
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    for (attempt, id) in &before {
        let variant = attempt.parent().unwrap().parent().unwrap().file_name().unwrap().to_string_lossy();
        assert!(err.contains(&format!("engine/{variant}: following Slurm job {id} of an earlier run")), "{err}");
    }
    // Submitted anew: only the optimized configuration's other profile, which had not started.
    assert_eq!(err.matches("submitted Slurm job").count(), 1, "{err}");
    assert!(err.contains("engine/sim-b: submitted Slurm job"), "{err}");
    assert!(err.contains("3 engine starts"), "{err}");
    for (attempt, id) in &before {
        assert!(attempt.ends_with("attempts/1"), "{}", attempt.display());
        for entry in std::fs::read_dir(attempt).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with(".manifest.json") {
                let m = Manifest::read(&path).unwrap();
                assert_eq!(m.state, RunState::Done, "{m:?}");
                assert_eq!(m.job_id.as_deref(), Some(id.as_str()));
            }
        }
    }
    assert!(!dir.join("runs/engine/sim-a/attempts/2").exists(), "sim-a was not started again");
    assert_eq!(manifests(&dir).len(), 4, "sim-a on two profiles, sim-b on two");
    no_engine_left(&dir);
}

/// A one-variant study (with `extra` at its top) whose engine loads for ten minutes and ignores
/// SIGTERM, with a `stop_grace` of a minute: longer than Slurm's `KillWait`.
fn hung_engine(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 600 --sim-ignore-sigterm", extra);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2\nstop_grace = 2", "start_timeout = 600\nstop_grace = 60"))
        .unwrap();
    (tmp, dir)
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_job_past_its_time_limit_fails_as_time_limit_and_leaves_no_engine() {
    // Waiting only: no engine is measured, so it runs beside the other tests.
    let cluster = Cluster::up();
    let (_tmp, dir) = hung_engine("[cluster]\ntime_limit = \"1\"\n");
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 1, "nothing measured: {err}");
    let m = manifests(&dir).pop().unwrap();
    assert_eq!(m.state, RunState::Failed, "{m:?}");
    let failure = m.failure.clone().unwrap();
    assert_eq!(failure.class, FailureClass::TimeLimit, "{failure:?}");
    assert!(failure.message.contains("TIMEOUT"), "{failure:?}");
    assert!(err.contains("failed (time-limit)"), "{err}");
    assert!(m.job_id.is_some());
    no_engine_left(&dir);
    assert!(!node_engines(&dir).is_empty(), "the engine was recorded");
}

/// A manifest that the cluster's end of its job left pending: no failure, the end recorded.
fn left_pending(m: &Manifest, state: &str) {
    assert_eq!(m.state, RunState::Interrupted, "{m:?}");
    assert!(m.failure.is_none(), "no failure stands: {m:?}");
    assert!(m.cluster_end.as_deref().is_some_and(|e| e.contains(state)), "{m:?}");
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_job_cancelled_from_outside_leaves_its_run_pending_and_no_engine() {
    let cluster = Cluster::up();
    let (_tmp, dir) = hung_engine("");
    let child = cluster.spawn(&dir);
    let mut engine = None;
    let started = wait_for(Duration::from_secs(60), || {
        engine = node_engines(&dir).first().copied();
        engine.is_some_and(running)
    });
    assert!(started, "the engine started on a node: {}", cluster.queue());
    let id = job_records(&dir).into_values().next().unwrap();
    cluster.client("scancel", &[&id]);
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 1, "{err}");
    let m = manifests(&dir).pop().unwrap();
    left_pending(&m, "CANCELLED");
    assert!(!err.contains("failed (cancelled)"), "{err}");
    assert!(err.contains(&format!("Slurm job {id} ended CANCELLED")) && err.contains("stays pending"), "{err}");
    assert!(err.contains("`perflab run --backend slurm` continues"), "{err}");
    assert_eq!(err.matches("submitted Slurm job").count(), 1, "not submitted again in the same run: {err}");
    assert_eq!(m.job_id.as_deref(), Some(id.as_str()));
    let (code, plan, plan_err) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{plan_err}");
    assert!(plan.lines().any(|l| l.starts_with("engine/only") && l.contains("pending")), "{plan}");
    assert!(wait_for(Duration::from_secs(10), || !running(engine.unwrap())), "the engine outlived its job");
    no_engine_left(&dir);
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_node_failure_leaves_the_stage_undecided_and_the_next_run_measures_it() {
    let cluster = Cluster::up();
    let (_tmp, dir) = slow_engine_stage();
    // Not requeued on the other node: the job ends NODE_FAIL.
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("{text}\n[cluster]\nsbatch_args = [\"--no-requeue\"]\n")).unwrap();
    let child = cluster.spawn(&dir);
    both_running(&cluster, &dir);
    let records = job_records(&dir);
    let (_, id) = records.iter().find(|(a, _)| a.to_string_lossy().contains("/sim-b/")).unwrap();
    let line = cluster.client("scontrol", &["show", "job", "-o", id]);
    let node = line.split_whitespace().find_map(|w| w.strip_prefix("NodeList=")).unwrap().to_string();
    cluster.client("scontrol", &["update", &format!("nodename={node}"), "state=down", "reason=test"]);
    let (code, err) = finish(child, Duration::from_secs(120));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("Slurm job {id} ended NODE_FAIL")), "{err}");
    let sim_b: Vec<Manifest> = manifests(&dir).into_iter().filter(|m| m.job_id.as_ref() == Some(id)).collect();
    assert!(!sim_b.is_empty());
    for m in &sim_b {
        left_pending(m, "NODE_FAIL");
    }
    // The stage is not decided without sim-b: the optimized configuration did not start.
    assert_eq!(err.matches("submitted Slurm job").count(), 2, "{err}");
    assert!(!err.contains("[optimized configuration]"), "{err}");
    let study = Study::load(&dir).unwrap();
    assert!(study.run("engine", "sim-a", "mixed").is_some() && study.run("engine", "sim-b", "mixed").is_none());

    cluster.client("scontrol", &["update", &format!("nodename={node}"), "state=resume"]);
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(&dir).unwrap();
    assert!(study.run("engine", "sim-b", "mixed").is_some(), "{err}");
    no_engine_left(&dir);
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_job_held_pending_shows_why_while_it_waits() {
    let cluster = Cluster::up();
    // Both nodes (one CPU each) taken: the study's job waits for resources.
    let blockers: Vec<String> = (0..2)
        .map(|_| {
            cluster.client("sbatch", &["--parsable", "--output=/dev/null", "--wrap", "sleep 300"]).trim().to_string()
        })
        .collect();
    assert!(
        wait_for(Duration::from_secs(30), || cluster.queue().matches("RUNNING").count() == 2),
        "{}",
        cluster.queue()
    );
    // The engine loads for a few seconds, so that the job is seen running before it ends.
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 4 --sim-decode-ms 2", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2", "start_timeout = 60")).unwrap();
    let child = cluster.spawn(&dir);
    let mut id = String::new();
    let waiting = wait_for(Duration::from_secs(30), || {
        id = job_records(&dir).into_values().next().unwrap_or_default();
        !id.is_empty() && cluster.job_state(&id) == "PENDING"
    });
    assert!(waiting, "the job waits: {}", cluster.queue());
    // Long enough for a few polls.
    std::thread::sleep(Duration::from_secs(2));
    for b in &blockers {
        cluster.client("scancel", &[b]);
    }
    let (code, err) = finish(child, Duration::from_secs(120));
    assert_eq!(code, 0, "{err}");
    let shown = err.lines().any(|l| {
        l.split_once(&format!("Slurm job {id}: pending (")).is_some_and(|(_, why)| why.ends_with(')') && why.len() > 1)
    });
    assert!(shown, "the pending reason is shown: {err}");
    assert!(err.contains(&format!("Slurm job {id}: running")), "{err}");
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_refused_submission_records_nothing_and_a_relative_path_with_a_percent_sign_runs() {
    let cluster = Cluster::up();
    let (tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.05 --sim-decode-ms 2", "");
    // A folder whose name holds `%j`, named relative to the working folder, as the README does.
    let odd = tmp.path().join("pct%j");
    std::fs::create_dir(&odd).unwrap();
    let moved = odd.join("tiny");
    std::fs::rename(&dir, &moved).unwrap();
    let spec = moved.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    // The cluster has no generic resources: every submission asking for GPUs is refused.
    std::fs::write(&spec, format!("{text}\n[cluster]\ngpus_per_node = 8\n")).unwrap();
    let relative = |c: &mut Command| {
        c.current_dir(tmp.path());
    };
    let mut refused = cluster.perflab(&["run", "pct%j/tiny", "--backend", "slurm"]);
    relative(&mut refused);
    let out = refused.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("the cluster refused the job") && err.contains("nothing was recorded"), "{err}");
    assert!(manifests(&moved).is_empty(), "no failure stands: {:?}", manifests(&moved));

    std::fs::write(&spec, text).unwrap();
    let mut fixed = cluster.perflab(&["run", "pct%j/tiny", "--backend", "slurm"]);
    relative(&mut fixed);
    let out = fixed.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let m = manifests(&moved).pop().unwrap();
    assert_eq!(m.state, RunState::Done, "{m:?}: {err}");
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_controller_that_stops_answering_is_waited_for_not_recorded_as_a_failure() {
    let cluster = Cluster::up();
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 50 --sim-decode-ms 2", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2", "start_timeout = 300")).unwrap();
    let child = cluster.spawn(&dir);
    let running_job = wait_for(Duration::from_secs(60), || cluster.queue().contains("RUNNING"));
    assert!(running_job, "the job runs: {}", cluster.queue());
    // The controller goes away for longer than two client timeouts, then comes back.
    let pid_file = cluster.dir.path().join("run/slurmctld.pid");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    Command::new("kill").arg(pid.trim()).status().unwrap();
    std::thread::sleep(Duration::from_secs(45));
    Command::new("slurmctld").args(["-f", cluster.conf.to_str().unwrap()]).status().unwrap();
    let (code, err) = finish(child, Duration::from_secs(180));
    assert_eq!(code, 0, "{err}");
    // (Whether the runner saw the outage depends on the client's own retries; what must hold is
    // that the job's end is recorded, not an outage taken for a failure.)
    let m = manifests(&dir).pop().unwrap();
    assert_eq!(m.state, RunState::Done, "{m:?}: {err}");
}

#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_killed_cluster_run_is_not_resumed_locally() {
    let cluster = Cluster::up();
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 4 --sim-decode-ms 2", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2", "start_timeout = 60")).unwrap();
    let mut child = cluster.spawn(&dir);
    assert!(wait_for(Duration::from_secs(60), || !job_records(&dir).is_empty()), "a job was submitted");
    child.kill().unwrap();
    child.wait().unwrap();
    let local = cluster.perflab(&["run", dir.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&local.stderr);
    assert_ne!(local.status.code(), Some(0), "{err}");
    assert!(err.contains("may still be measuring this study") && err.contains("--backend slurm"), "{err}");
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("following Slurm job"), "{err}");
    let m = manifests(&dir).pop().unwrap();
    assert_eq!(m.state, RunState::Done, "{m:?}: {err}");
}

/// A runner killed after it moved a followed job's result into place but before it wrote the
/// result's manifest: the next run follows the job again and keeps that result, rather than
/// record a benchmark failure because the job's output file is no longer where the job left it.
#[test]
#[ignore = "needs Slurm: .ci/run installs it"]
fn slurm_a_result_moved_into_place_before_a_kill_is_kept_by_the_next_run() {
    let cluster = Cluster::up();
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1 --sim-decode-ms 2", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2", "start_timeout = 60")).unwrap();
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    let attempt = dir.join("runs/engine/only/attempts/1");
    let manifest = attempt.join("p.manifest.json");
    let m = Manifest::read(&manifest).unwrap();
    let id = m.job_id.clone().expect("the job's id");
    let result = std::fs::read_to_string(attempt.join("p.txt")).unwrap();
    // The state a kill leaves between the move and the manifest: the job still recorded, the
    // result in place, its manifest still the one written when the job was submitted.
    let record = serde_json::json!({ "id": id, "submitted_at": m.started_at });
    std::fs::write(attempt.join(perflab::exec::slurm::JOB_RECORD), record.to_string()).unwrap();
    let mut submitted = m.clone();
    (submitted.state, submitted.ended_at, submitted.failure) = (RunState::Running, None, None);
    submitted.write(&manifest).unwrap();
    let (code, err) = cluster.run(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("following Slurm job {id} of an earlier run")), "{err}");
    let m = Manifest::read(&manifest).unwrap();
    assert_eq!(m.state, RunState::Done, "{m:?}\n{err}");
    assert_eq!(std::fs::read_to_string(attempt.join("p.txt")).unwrap(), result, "the result is the job's own");
    assert!(!dir.join("runs/engine/only/attempts/2").exists(), "nothing was started again");
    let study = Study::load(&dir).unwrap();
    assert!(analyze(&study).stages[0].variants[0].measure.is_some());
}
