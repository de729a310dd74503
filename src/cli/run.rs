//! `perflab run STUDY`

use super::Exit;
use anyhow::Context;
use perflab::exec::{Backend, Event, Interrupt};
use perflab::exec::{LocalBackend, RunOptions, SlurmBackend};
use perflab::study::{Cluster, LocalMachine};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where engines run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendKind {
    /// Processes on this machine.
    Local,
    /// One Slurm job a configuration.
    Slurm,
}

/// What to measure: `--stage`, `--variant`, `--rerun`, `--rerun-stale`, `--dry-run`.
#[derive(Debug, Default)]
pub struct What {
    pub stage: Option<String>,
    pub variant: Option<String>,
    pub rerun: bool,
    pub rerun_stale: bool,
    pub dry_run: bool,
}

/// How to run: `--jobs`, `--backend`, `--config`.
#[derive(Debug, Default)]
pub struct How {
    pub jobs: Option<usize>,
    pub backend: Option<BackendKind>,
    pub config: Option<PathBuf>,
    /// `--until-confident --budget ...`.
    pub until_confident: Option<perflab::exec::Budget>,
    /// `--any-engine-version`.
    pub any_engine_version: bool,
}

/// A `--config` file: settings of the machine or cluster, kept out of the study.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    backend: Option<BackendKind>,
    #[serde(default)]
    local: Option<LocalMachine>,
    #[serde(default)]
    cluster: Option<Cluster>,
}

/// The devices `[local]` declares: `devices`, else `0` to `gpus − 1`.
fn devices(local: Option<&LocalMachine>) -> Vec<String> {
    match local {
        Some(LocalMachine { devices: Some(list), .. }) => list.clone(),
        Some(LocalMachine { gpus: Some(n), .. }) => (0..*n).map(|d| d.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// The backend `how` asks for, with the study's settings and the config file's over them.
fn backend(dir: &Path, how: &How) -> anyhow::Result<Box<dyn Backend>> {
    let file = match &how.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))?;
            toml::from_str::<ConfigFile>(&text).map_err(|e| {
                let (line, col) = e.span().map_or((0, 0), |s| perflab::diag::line_col(&text, s.start));
                anyhow::anyhow!("{}:{line}:{col}: {}", path.display(), e.message())
            })?
        }
        None => ConfigFile::default(),
    };
    let study = perflab::study::Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
    match how.backend.or(file.backend).unwrap_or(BackendKind::Local) {
        BackendKind::Local => {
            let devices = devices(file.local.as_ref().or(study.spec.local.as_ref()));
            Ok(Box::new(LocalBackend { devices, in_job: false }))
        }
        BackendKind::Slurm => {
            let cluster = perflab::exec::slurm::merge(study.spec.cluster.as_ref(), file.cluster.as_ref());
            Ok(Box::new(SlurmBackend::new(cluster, dir)?))
        }
    }
}

pub fn run(name: &str, results: &Path, what: What, how: How) -> anyhow::Result<ExitCode> {
    let What { stage, variant, rerun, rerun_stale, dry_run } = what;
    let dirs = super::study_dirs(&[name.to_string()], results)?;
    let backend = if dry_run { Box::new(LocalBackend::default()) } else { backend(&dirs[0], &how)? };
    // A cluster's nodes resolve a job's paths against the job's own folder: the study's path
    // must be absolute there.
    let absolute = if backend.follows_jobs() {
        dirs[0].canonicalize().with_context(|| format!("cannot find '{}'", dirs[0].display()))?
    } else {
        dirs[0].clone()
    };
    let dir = &absolute;
    // Ctrl-C, SIGTERM and SIGHUP (a dropped SSH session) stop the run in order: the engine gets
    // its grace period and every record is written. A second signal stops it at once.
    let interrupt = Interrupt::on_signals()?;
    let rerun_set = if rerun { rerun_selection(dir, stage.as_deref(), variant.as_deref())? } else { BTreeSet::new() };
    let options = RunOptions {
        stage,
        variant,
        rerun: rerun_set,
        rerun_stale,
        dry_run,
        jobs: how.jobs,
        until_confident: how.until_confident,
        any_engine_version: how.any_engine_version,
    };
    let started = std::time::Instant::now();
    let mut printer = Progress::new(std::io::stderr(), std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let summary = perflab::exec::run(dir, &options, backend.as_ref(), &interrupt, &mut |e| printer.event(e));
    printer.finish();
    let summary = summary?;
    if dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(report(&summary, started.elapsed(), dir).into())
}

/// The configurations `--rerun` measures again: those `--stage` and `--variant` select.
fn rerun_selection(
    dir: &Path,
    stage: Option<&str>,
    variant: Option<&str>,
) -> anyhow::Result<BTreeSet<perflab::study::VariantRef>> {
    let study = perflab::study::Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
    let mut selected = BTreeSet::new();
    for s in &study.spec.stages {
        for v in &s.variants {
            let reference = perflab::study::VariantRef::new(s.id.get_ref(), v.id.get_ref());
            let stage_ok = stage.is_none_or(|x| x == s.id.get_ref());
            let variant_ok = variant.is_none_or(|x| reference == x || x == v.id.get_ref());
            if stage_ok && variant_ok {
                selected.insert(reference);
            }
        }
    }
    Ok(selected)
}

/// The run's closing lines on standard error, and how it ends.
fn report(summary: &perflab::exec::Summary, took: std::time::Duration, dir: &Path) -> Exit {
    // Standard error may be gone (a dropped SSH session): writing to it must not end the run.
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "{} engine starts ({} served) and {} benchmark runs ({} failed) in {}, where one start a (variant, profile) would take {}",
        summary.engine_starts,
        summary.served_starts,
        summary.benchmark_runs,
        summary.failed,
        perflab::exec::runner::clock(took.as_secs_f64()),
        summary.naive_starts
    );
    if let Some(c) = &summary.confidence {
        let _ = writeln!(err, "{}", confidence_line(c));
    }
    if let Some(standing) = summary.standing_failures.sentence() {
        let _ = writeln!(err, "{standing}");
    }
    if summary.interrupted {
        let _ = writeln!(err, "interrupted: `perflab run` continues where this run stopped");
        return Exit::Interrupted;
    }
    if !summary.cluster_ended.is_empty() {
        let ends: Vec<String> = summary.cluster_ended.iter().map(|(c, end)| format!("{c} ({end})")).collect();
        let _ = writeln!(
            err,
            "the cluster ended these jobs for reasons of its own, so their unmeasured runs stay pending and the stage is not decided: {}; `perflab run --backend slurm` continues the study",
            ends.join(", ")
        );
        return Exit::Attention;
    }
    if !summary.not_retried.is_empty() {
        let _ = writeln!(
            err,
            "not started again in this run, since their last start added no measurement: {} (their runs stay pending)",
            summary.not_retried.join(", ")
        );
        return Exit::Attention;
    }
    if summary.benchmark_runs == 0 && summary.failed > 0 {
        let _ = writeln!(
            err,
            "nothing was measured: every start and benchmark this run tried failed; `perflab plan {}` lists the failures and their classes",
            dir.display()
        );
        return Exit::Attention;
    }
    let _ = writeln!(err, "{}", closing_hint(dir));
    Exit::Done
}

/// What `--until-confident` spent, against measuring every variant as often, and what it left
/// undecided.
pub fn confidence_line(c: &perflab::exec::Confidence) -> String {
    let runs = perflab::exec::runner::runs_count;
    let mut line = format!(
        "until confident: {} added; {} on the target profile in all, where measuring every variant {} {} would take {}",
        runs(c.added_runs),
        runs(c.spent),
        c.most,
        if c.most == 1 { "time" } else { "times" },
        runs(c.fixed)
    );
    match c.undecided.as_slice() {
        [] => line.push_str("; every stage can tell"),
        stages => {
            let why = if c.budget_spent { ", the budget is spent" } else { "" };
            line.push_str(&format!("; still cannot tell{why}: {}", stages.join(", ")));
        }
    }
    line
}

/// What renders the results: `perflab build` for a study in `./results`, else the commands that
/// work on the study where it is, into an output folder of its own (`perflab build` into `site/`
/// would replace the bundled studies' site).
fn closing_hint(dir: &Path) -> String {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let in_results = match (parent.canonicalize(), Path::new("results").canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if in_results {
        return "`perflab build` renders the results".to_string();
    }
    format!(
        "`perflab report {}` prints its page; `perflab build --results {} --out {}` builds the site of the studies in '{}'",
        dir.display(),
        parent.display(),
        parent.join("site").display(),
        parent.display()
    )
}

/// Prints the runner's events: steps as lines; the wait for an engine to serve as one line
/// updated in place on a terminal, elsewhere as a line each time the engine's log moves on.
/// Write errors are ignored: a run outlives its terminal.
pub struct Progress<W: Write> {
    out: W,
    terminal: bool,
    /// A status line is on the screen (terminal only).
    open: bool,
    /// The engine's last log line printed, by configuration (not on a terminal).
    last: std::collections::BTreeMap<String, String>,
}

impl<W: Write> Progress<W> {
    pub fn new(out: W, terminal: bool) -> Progress<W> {
        Progress { out, terminal, open: false, last: Default::default() }
    }

    pub fn event(&mut self, event: Event) {
        match event {
            Event::Step(text) => {
                self.clear();
                let _ = writeln!(self.out, "{text}");
                self.last.clear();
            }
            Event::Waiting { config, elapsed, timeout, last_line } => {
                let text = perflab::exec::runner::waiting_line(config, elapsed, timeout, last_line);
                if self.terminal {
                    let _ = write!(self.out, "\r\x1b[2K{text}");
                    let _ = self.out.flush();
                    self.open = true;
                } else if self.last.get(config).map(String::as_str) != Some(last_line) {
                    let _ = writeln!(self.out, "{text}");
                    self.last.insert(config.to_string(), last_line.to_string());
                }
            }
        }
    }

    fn clear(&mut self) {
        if self.open {
            let _ = write!(self.out, "\r\x1b[2K");
            self.open = false;
        }
    }

    pub fn finish(&mut self) {
        self.clear();
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn waiting(elapsed: u64, last_line: &str) -> Event<'_> {
        Event::Waiting {
            config: "",
            elapsed: Duration::from_secs(elapsed),
            timeout: Duration::from_secs(1800),
            last_line,
        }
    }

    #[test]
    fn waiting_is_one_line_updated_in_place_on_a_terminal() {
        let mut p = Progress::new(Vec::new(), true);
        p.event(Event::Step("e/v: starting the engine"));
        p.event(waiting(1, "INFO loading weights"));
        p.event(waiting(2, "INFO loading weights"));
        p.event(Event::Step("e/v: benchmark on p"));
        p.finish();
        let text = String::from_utf8(p.out).unwrap();
        assert_eq!(
            text,
            "e/v: starting the engine\n\
             \r\x1b[2K  waiting for the engine to serve: 0:01 of 30:00; its log: INFO loading weights\
             \r\x1b[2K  waiting for the engine to serve: 0:02 of 30:00; its log: INFO loading weights\
             \r\x1b[2Ke/v: benchmark on p\n"
        );
    }

    #[test]
    fn elsewhere_a_line_each_time_the_log_moves_on() {
        let mut p = Progress::new(Vec::new(), false);
        p.event(waiting(1, ""));
        p.event(waiting(2, ""));
        p.event(waiting(3, "INFO loading weights 1/4"));
        p.event(waiting(4, "INFO loading weights 1/4"));
        p.event(waiting(5, "INFO loading weights 2/4"));
        let text = String::from_utf8(p.out).unwrap();
        assert_eq!(
            text,
            "  waiting for the engine to serve: 0:01 of 30:00; its log is empty\n\
             \x20 waiting for the engine to serve: 0:03 of 30:00; its log: INFO loading weights 1/4\n\
             \x20 waiting for the engine to serve: 0:05 of 30:00; its log: INFO loading weights 2/4\n"
        );
    }
}
