//! The greedy search: run the pending variants of the first unsettled stage (several at once
//! when the backend has room), let the analysis pick its winner, plan again, until nothing is
//! pending. Each engine start is a new attempt folder (`runs/<stage>/<variant>/attempts/<n>/`)
//! with a manifest a profile; results are written durably; a killed runner's engines are
//! stopped on the next start, and its cluster jobs adopted.

use super::attempt::{Summary, port_of, runs_dir};
use super::backend::{Backend, Event, Interrupt};
use super::confidence::{
    Budget, Confidence, SPENT, Spent, confidence_report, contenders, next_start_size, plan_designs, start_cost,
    unclear_stage,
};
use super::dispatch::{StageStarts, dispatch};
use super::machine::Recorder;
use super::plan::{Job, plan};
use super::recover::{Lock, recover};
use crate::study::command::{self, Port};
use crate::study::{Study, VariantRef};
use anyhow::{Context, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only this stage.
    pub stage: Option<String>,
    /// Only this variant (`stage/variant`, or a variant id of --stage).
    pub variant: Option<String>,
    /// Measure these `stage/variant` again even when done.
    pub rerun: BTreeSet<VariantRef>,
    /// Measure stale runs again.
    pub rerun_stale: bool,
    /// Print the commands instead of running them.
    pub dry_run: bool,
    /// At most this many engine starts at once (`--jobs`); else the backend's capacity.
    pub jobs: Option<usize>,
    /// `--until-confident`: measure the best variant and the base of a stage that cannot tell
    /// them apart again, within this budget.
    pub until_confident: Option<Budget>,
    /// `--any-engine-version`: measure an engine that reports another version than the study
    /// declares (its runs carry the engine's version, stale against the study's).
    pub any_engine_version: bool,
}

/// Every declared share of GPUs fits the machine's, before anything starts.
fn check_shares(study: &Study, devices: usize) -> anyhow::Result<()> {
    if devices == 0 {
        return Ok(());
    }
    let too_many = |gpus: Option<u32>| gpus.is_some_and(|g| g as usize > devices);
    if let Some(engine) = study.spec.engines.iter().find(|e| too_many(e.gpus)) {
        let gpus = engine.gpus.unwrap_or(0);
        let why = format!("engine `{}` takes {gpus} GPUs; `[local]` declares {devices}", engine.id.get_ref());
        bail!("{}", study.diag_at(&engine.id, why));
    }
    let mut variants = study.spec.stages.iter().flat_map(|s| s.variants.iter().map(move |v| (s, v)));
    let own = |v: &crate::study::Variant| v.gpus.as_ref().map(|g| *g.get_ref());
    if let Some((stage, v)) = variants.find(|(_, v)| too_many(own(v))) {
        let (s, id, gpus) = (stage.id.get_ref(), v.id.get_ref(), own(v).unwrap_or(0));
        bail!("{}", study.diag_at(&v.id, format!("`{s}/{id}` takes {gpus} GPUs; `[local]` declares {devices}")));
    }
    Ok(())
}

/// Whether `--stage` and `--variant` select this variant.
fn selected(stage: &str, variant: &str, options: &RunOptions) -> bool {
    let stage_ok = options.stage.as_ref().is_none_or(|s| s == stage);
    let variant_ok = options.variant.as_ref().is_none_or(|v| v == variant || VariantRef::new(stage, variant) == *v);
    stage_ok && variant_ok
}

/// Runs a study until nothing is pending (or `interrupt` is set). Progress lines go to `log`.
pub fn run(
    dir: &Path,
    options: &RunOptions,
    backend: &dyn Backend,
    interrupt: &Interrupt,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<Summary> {
    let budget = options.until_confident;
    let load = || {
        let mut study = Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
        if let Some(budget) = budget {
            plan_designs(&mut study, budget);
        }
        Ok::<Study, anyhow::Error>(study)
    };
    let study = load()?;
    if options.dry_run {
        dry_run(&study, options, log)?;
        return Ok(Summary::default());
    }
    check_selection(&study, options)?;
    let _lock = Lock::take(&runs_dir(&study))?;
    recover(dir, backend.follows_jobs(), &mut |e| log(e))?;
    super::plan::record_hand_placed(&study)?;
    check_shares(&study, backend.devices().len())?;
    let mut state = Rounds::new(&study, options)?;
    let recorder = std::sync::Arc::new(Recorder::new(!backend.follows_jobs(), options.any_engine_version));
    loop {
        let study = load()?;
        state.note_stalled(&study);
        let plan = super::plan::plan_with(&study, &state.rerun, options.rerun_stale, &state.more)?;
        state.summary.naive_starts =
            plan.runs.iter().filter(|r| !matches!(r.status, super::Status::Waiting { .. })).count();
        state.summary.standing_failures = plan.standing_failures();
        state.say_not_retried(&plan, log);
        let first = plan.jobs.iter().find(|j| state.runnable(j));
        if state.more_wanted(&study, first, log) {
            continue;
        }
        let Some(first) = first else {
            say_waiting(&plan, options, log);
            break;
        };
        // Every engine's address must be known before the first start, not hours into the study.
        if state.summary.engine_starts == 0 {
            for engine in &study.spec.engines {
                port_of(&study, engine.id.get_ref(), &command::split(engine.command.get_ref())?)?;
            }
        }
        let jobs = state.stage_jobs(&study, &plan, &first.stage);
        let total = plan.count(|s| matches!(s, super::Status::Pending | super::Status::Waiting { .. }));
        let header = state.header(&study, &plan, &first.stage);
        let starts = StageStarts { jobs: &jobs, total, header: &header, recorder: &recorder };
        let done = dispatch(&study, &starts, backend, options.jobs, interrupt, log)?;
        state.after_stage(&study, &jobs, &done)?;
        if interrupt.requested() {
            state.summary.interrupted = true;
            break;
        }
    }
    let mut summary = state.summary;
    if let Some(mut c) = state.confidence {
        let study = load()?;
        let finished = !summary.interrupted && summary.not_retried.is_empty() && summary.cluster_ended.is_empty();
        if finished {
            let _ = std::fs::remove_file(runs_dir(&study).join(SPENT));
        }
        confidence_report(&study, &mut c);
        summary.confidence = Some(c);
    }
    Ok(summary)
}

/// `perflab run --dry-run`: the commands each pending start would run.
fn dry_run(study: &Study, options: &RunOptions, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
    let plan = plan(study, &options.rerun, options.rerun_stale)?;
    for job in plan.jobs.iter().filter(|j| selected(&j.stage, &j.variant, options)) {
        let env: Vec<String> = job.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        log(Event::Step(&format!("{} on {}:", job.reference(), job.profiles.join(", "))));
        log(Event::Step(&format!(
            "  engine: {}{}",
            if env.is_empty() { String::new() } else { format!("{} ", env.join(" ")) },
            job.argv.join(" ")
        )));
        let engine = study.engine(&job.config.engine).context("engine")?;
        // The benchmark connects where the engine listens: a fixed port is shown as such.
        let port = match command::engine_port(&job.argv, engine.ready_url.as_deref()) {
            Ok(Port::Fixed(p)) => p.to_string(),
            Ok(Port::Pick) => "{port}".to_string(),
            Err(why) => {
                log(Event::Step(&format!("  warning: engine `{}`: {why}", job.config.engine)));
                "{port}".to_string()
            }
        };
        for p in &job.profiles {
            let profile = study.profile(p).context("profile")?;
            let argv = command::bench_argv(study, &job.config, profile)?;
            let argv: Vec<String> = argv.iter().map(|w| w.replace("{port}", &port)).collect();
            log(Event::Step(&format!("  benchmark: {}", argv.join(" "))));
        }
    }
    let waiting = plan.count(|s| matches!(s, super::Status::Waiting { .. }));
    if waiting > 0 {
        let (runs, verb) = if waiting == 1 { ("run", "waits") } else { ("runs", "wait") };
        log(Event::Step(&format!("{waiting} more {runs} {verb} for earlier stages' winners")));
    }
    Ok(())
}

/// Says why a selected stage or variant did not run.
fn say_waiting(plan: &super::Plan, options: &RunOptions, log: &mut dyn FnMut(Event)) {
    if options.stage.is_none() && options.variant.is_none() {
        return;
    }
    let waiting = plan.runs.iter().find_map(|r| match &r.status {
        super::Status::Waiting { on } if selected(&r.stage, &r.variant, options) => Some((r, on)),
        _ => None,
    });
    if let Some((r, on)) = waiting {
        log(Event::Step(&format!(
            "{}/{} waits for the winner of stage `{on}`: run that stage first",
            r.stage, r.variant
        )));
    }
}

/// What a run keeps from one stage's starts to the next.
struct Rounds<'o> {
    options: &'o RunOptions,
    summary: Summary,
    started: Instant,
    rerun: BTreeSet<VariantRef>,
    /// `--until-confident`: measurements wanted beyond the study's, by `stage/variant`.
    more: BTreeMap<String, u32>,
    confidence: Option<Confidence>,
    /// What earlier runs that did not finish spent of the budget.
    earlier: Spent,
    /// A configuration whose start in this run added no measurement (a repeat that failed, a
    /// result that does not show up on reload) is not started again in this run: every loop
    /// ends. `started_with` holds each one's measurements when it was last started.
    started_with: BTreeMap<String, usize>,
    stalled: BTreeSet<String>,
    /// Rounds of `--until-confident` so far: every other one starts its two contenders in the
    /// other order (A B, B A, A B, ...), so that a steady drift of the machine cancels.
    rounds: usize,
}

impl<'o> Rounds<'o> {
    fn new(study: &Study, options: &'o RunOptions) -> anyhow::Result<Rounds<'o>> {
        let mut confidence = options.until_confident.map(|_| Confidence::default());
        let earlier = if confidence.is_some() { Spent::read(&runs_dir(study))? } else { Spent::default() };
        if let Some(c) = confidence.as_mut() {
            c.added_runs = earlier.runs;
        }
        Ok(Rounds {
            options,
            summary: Summary::default(),
            started: Instant::now(),
            rerun: options.rerun.clone(),
            more: earlier.look.clone(),
            confidence,
            earlier,
            started_with: BTreeMap::new(),
            stalled: BTreeSet::new(),
            rounds: 0,
        })
    }

    fn spent_time(&self) -> Duration {
        self.started.elapsed() + Duration::from_secs_f64(self.earlier.seconds.max(0.0))
    }

    fn note_stalled(&mut self, study: &Study) {
        for (config, before) in &self.started_with {
            if measurements(study, config) <= *before {
                self.stalled.insert(config.clone());
            }
        }
    }

    fn runnable(&self, j: &Job) -> bool {
        selected(&j.stage, &j.variant, self.options) && !self.stalled.contains(j.reference().as_str())
    }

    fn say_not_retried(&mut self, plan: &super::Plan, log: &mut dyn FnMut(Event)) {
        for job in plan.jobs.iter().filter(|j| selected(&j.stage, &j.variant, self.options)) {
            let config = job.reference().to_string();
            let ended = self.summary.cluster_ended.iter().any(|(c, _)| *c == config);
            if self.stalled.contains(&config) && !ended && !self.summary.not_retried.contains(&config) {
                log(Event::Step(&format!(
                    "{config}: its last start in this run added no measurement, so it is not started again in this run; `perflab run` tries it again"
                )));
                self.summary.not_retried.push(config);
            }
        }
    }

    /// `--until-confident`: a stage is settled once it has nothing pending; before the next
    /// stage starts, one that cannot tell gets more measurements of its two contenders. True
    /// when it asked for more (the plan is made again).
    fn more_wanted(&mut self, study: &Study, first: Option<&Job>, log: &mut dyn FnMut(Event)) -> bool {
        let Some(budget) = self.options.until_confident else { return false };
        let before = first.map_or(study.spec.stages.len(), |j| {
            if j.after_search { study.spec.stages.len() } else { study.stage_index(&j.stage).unwrap_or(0) }
        });
        let spent_time = self.spent_time();
        let Some(spent) = self.confidence.as_mut() else { return false };
        let left = match budget {
            Budget::Runs(n) => n.saturating_sub(spent.added_runs),
            Budget::Time(t) => usize::from(spent_time < t) * usize::MAX,
        };
        let unclear = unclear_stage(study, before);
        if left == 0 {
            spent.budget_spent |= !self.more.is_empty() || unclear.is_some();
            self.more.clear();
            return false;
        }
        let Some(k) = unclear else { return false };
        let mut round = contenders(study, k);
        // A look adds one engine start to each side, in turn, so that drift cancels.
        // Its runs are where the variance is: a new start of one run, or more runs a start.
        let per = next_start_size(study, k);
        if left < start_cost(study, per) * round.len() {
            spent.budget_spent = true;
            self.more.clear();
            round.clear();
        }
        let mut added = false;
        for (source, have) in round.iter() {
            let target = (*have + per) as u32;
            if self.more.get(source).is_none_or(|m| *m < target) {
                self.more.insert(source.clone(), target);
                added = true;
            }
        }
        if added {
            self.rounds += 1;
            log(Event::Step(&format!(
                "until confident: {} more for {}",
                runs_count(per),
                round.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(" and ")
            )));
        }
        added
    }

    /// The starts of `stage` this round runs, in the order of the round.
    fn stage_jobs<'p>(&mut self, study: &Study, plan: &'p super::Plan, stage: &str) -> Vec<&'p Job> {
        let mut jobs: Vec<&Job> = plan.jobs.iter().filter(|j| j.stage == stage && self.runnable(j)).collect();
        if self.rounds % 2 == 1 && jobs.iter().all(|j| self.more.contains_key(j.reference().as_str())) {
            jobs.reverse();
        }
        for job in &jobs {
            let config = job.reference().to_string();
            self.started_with.insert(config.clone(), measurements(study, &config));
        }
        jobs
    }

    /// The line that introduces each start: where it is in the study, what is left.
    fn header<'a>(&self, study: &'a Study, plan: &'a super::Plan, stage: &str) -> impl Fn(&Job, usize) -> String + 'a {
        let number = study.stage_index(stage).map_or(0, |i| i + 1);
        let (planned, started) = (Instant::now(), self.started);
        move |job: &Job, to_go: usize| {
            let left = plan
                .estimate_seconds
                .map_or(String::new(), |s| format!(", about {} left", clock(s - planned.elapsed().as_secs_f64())));
            let step = if job.after_search {
                "[optimized configuration]".to_string()
            } else {
                format!("[stage {number}/{}]", study.spec.stages.len())
            };
            format!(
                "{step} {} on {} ({} to go, {} elapsed{left})",
                job.reference(),
                job.profiles.join(", "),
                runs_count(to_go),
                clock(started.elapsed().as_secs_f64())
            )
        }
    }

    /// Takes in what a stage's starts did.
    fn after_stage(&mut self, study: &Study, jobs: &[&Job], done: &Summary) -> anyhow::Result<()> {
        self.summary.add(done);
        // A job the cluster ended is not submitted again in this run: one it keeps ending would
        // otherwise be resubmitted for ever.
        self.stalled.extend(done.cluster_ended.iter().map(|(config, _)| config.clone()));
        let asked_more = jobs.iter().any(|j| self.more.contains_key(j.reference().as_str()));
        let spent_time = self.spent_time();
        if let Some(c) = self.confidence.as_mut() {
            if asked_more {
                c.added_runs += done.benchmark_runs + done.failed;
            }
            Spent { runs: c.added_runs, seconds: spent_time.as_secs_f64(), look: self.more.clone() }
                .write(&runs_dir(study))?;
        }
        for job in jobs {
            self.rerun.remove(&job.reference());
        }
        Ok(())
    }
}

/// The successful measurements configuration `stage/variant` has on disk, over its profiles and
/// attempts (a measurement taken again replaces the standing one but still counts here).
fn measurements(study: &Study, config: &str) -> usize {
    // A load curve's point that failed counts too: its search asks for it again in a new start,
    // and gives up on a load that failed twice, so the loop ends.
    let counts = |k: &crate::study::RunKey, a: &crate::study::Attempt| match a.succeeded() {
        true => 1 + a.repeats.len(),
        false => usize::from(k.load.is_some() && a.failure().is_some()),
    };
    study
        .attempts
        .iter()
        .filter(|(k, _)| k.config() == config)
        .flat_map(|(k, list)| list.iter().map(move |a| counts(k, a)))
        .sum()
}

/// `--stage` and `--variant` must name what the study has: a typo would otherwise run nothing
/// and say nothing.
fn check_selection(study: &Study, options: &RunOptions) -> anyhow::Result<()> {
    let stages: Vec<&str> = study.spec.stages.iter().map(|s| s.id.get_ref().as_str()).collect();
    if let Some(stage) = &options.stage
        && !stages.contains(&stage.as_str())
    {
        bail!("`--stage {stage}`: the study has no such stage (its stages: {})", stages.join(", "));
    }
    if let Some(variant) = &options.variant {
        let known = study.spec.stages.iter().any(|s| {
            s.variants.iter().any(|v| {
                let id = v.id.get_ref();
                *variant == format!("{}/{id}", s.id.get_ref())
                    || (options.stage.as_deref() == Some(s.id.get_ref().as_str()) && variant == id)
            })
        });
        if !known {
            bail!(
                "`--variant {variant}`: the study has no such variant (give `stage/variant`, or a variant id with `--stage`)"
            );
        }
    }
    Ok(())
}

/// The line that says an engine is still loading: which configuration (when several are in
/// flight), for how long, out of how long, and the last line of its log (cut to fit a terminal
/// line).
pub fn waiting_line(config: &str, elapsed: Duration, timeout: Duration, last_line: &str) -> String {
    let head = format!(
        "  {}waiting for the engine to serve: {} of {}",
        if config.is_empty() { String::new() } else { format!("{config}: ") },
        clock(elapsed.as_secs_f64().floor()),
        clock(timeout.as_secs_f64())
    );
    if last_line.is_empty() {
        return format!("{head}; its log is empty");
    }
    let mut shown: String = last_line.chars().filter(|c| !c.is_control()).take(100).collect();
    if last_line.chars().count() > 100 {
        shown.push('…');
    }
    format!("{head}; its log: {shown}")
}

/// `1 run`, `3 runs`.
pub fn runs_count(n: usize) -> String {
    if n == 1 { "1 run".to_string() } else { format!("{n} runs") }
}

/// `1:05:03`, `4:10`.
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
