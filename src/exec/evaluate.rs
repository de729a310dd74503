//! The accuracy evaluation of an engine start: asked once its benchmarks are done, in the same
//! start, with perflab's own client (`bench::eval`) or an external evaluator's command whose
//! output is read back (`bench::lm_eval`), and recorded in the attempt's folder
//! (`accuracy.json`) for the analysis to read.

use super::backend::{EvalJob, Event};
use super::plan::Job;
use crate::bench::eval::{self, Ask, Scores};
use crate::bench::lm_eval;
use crate::study::Study;
use crate::study::evaluation::{ACCURACY_FILE, EXTERNAL_LOG, EXTERNAL_OUTPUT};
use std::path::{Path, PathBuf};

/// The evaluation a job's start runs: when its stage (or a later one) requires accuracy and it
/// measures the target profile, unless that start only adds measurements to the
/// configuration's earlier ones (repeats) and the configuration has a record of this
/// evaluation already. A start that measures the target anew (after an engine upgrade, a
/// changed command, `--rerun`) evaluates anew: the scores stand beside the figures of the
/// same engine build.
pub(super) fn job_for(study: &Study, job: &Job) -> anyhow::Result<Option<EvalJob>> {
    let Some(evaluation) = study.evaluation_for(&job.stage, &job.variant) else { return Ok(None) };
    let target = study.spec.target_profile.get_ref();
    if !job.profiles.contains(target) {
        return Ok(None);
    }
    let id = evaluation.id.get_ref();
    let wanted = evaluation.questions.as_ref().map(|n| *n.get_ref() as usize);
    let recorded = study.scores(&job.stage, &job.variant);
    let same = recorded.is_some_and(|s| &s.evaluation == id && wanted.is_none_or(|n| s.questions as usize == n));
    if same && job.adds_to.contains(target) {
        return Ok(None);
    }
    let model = study.model_of(&job.config);
    let ask = Ask { model: model.clone(), max_tokens: evaluation.max_tokens, seed: evaluation.seed };
    let (data, questions, command) = match (&evaluation.data, &evaluation.command) {
        (Some(data), _) => {
            let mut questions = eval::read_questions(data.get_ref(), &study.dir).map_err(anyhow::Error::msg)?;
            questions.truncate(wanted.unwrap_or(questions.len()));
            (data.get_ref().clone(), questions, None)
        }
        (None, Some(command)) => {
            let fill = |w: String| w.replace("{host}", crate::study::command::HOST).replace("{model}", &model);
            let words = crate::study::command::split(command.get_ref())?.into_iter().map(fill).collect();
            (command.get_ref().clone(), Vec::new(), Some((words, study.dir.clone())))
        }
        (None, None) => return Ok(None),
    };
    Ok(Some(EvalJob { evaluation: id.clone(), data, ask, questions, command, timeout_s: evaluation.timeout.max(1) }))
}

/// Asks the questions of the engine on `port` (or runs the evaluator's command) and records the
/// scores in `dir`; a failure is told as a step (the configuration then has no accuracy, which
/// the page says).
pub(super) fn run(job: &EvalJob, port: u16, dir: &Path, progress: &mut dyn FnMut(Event)) {
    let what = match &job.command {
        Some(_) => "an external evaluator".to_string(),
        None => format!("{} questions", job.questions.len()),
    };
    progress(Event::Step(&format!("accuracy evaluation ({what})")));
    let scores = match &job.command {
        Some((words, cwd)) => external(job, words, cwd, port, dir),
        None => evaluate(job, port),
    };
    match scores.and_then(|scores| {
        let bytes = serde_json::to_vec_pretty(&scores).map_err(|e| e.to_string())?;
        crate::durable::write(&dir.join(ACCURACY_FILE), &bytes).map_err(|e| format!("cannot record it: {e}"))?;
        Ok(scores)
    }) {
        Ok(s) => progress(Event::Step(&format!("accuracy: {} of {} right", s.correct, s.questions))),
        Err(why) => progress(Event::Step(&format!("accuracy evaluation failed: {why}"))),
    }
}

fn evaluate(job: &EvalJob, port: u16) -> Result<Scores, String> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("no runtime: {e}"))?;
    let base = format!("http://{}:{port}", crate::study::command::HOST);
    let limit = std::time::Duration::from_secs(job.timeout_s);
    let asked =
        runtime.block_on(async { tokio::time::timeout(limit, eval::evaluate(&base, &job.ask, &job.questions)).await });
    let (items, failed_requests) =
        asked.map_err(|_| format!("the engine did not answer every question within {} s", job.timeout_s))??;
    Ok(scores(job, items, None, failed_requests))
}

fn scores(job: &EvalJob, items: Vec<eval::Scored>, counted: Option<(u32, u32)>, failed_requests: u32) -> Scores {
    let (correct, questions) =
        counted.unwrap_or((items.iter().filter(|s| s.correct).count() as u32, items.len() as u32));
    Scores {
        evaluation: job.evaluation.clone(),
        data: job.data.clone(),
        ask: job.ask.clone(),
        questions,
        correct,
        items,
        failed_requests,
    }
}

/// Runs an external evaluator against the engine and reads what it wrote: its first task's
/// `exact_match`, and each question's score from its samples when it logged them.
fn external(job: &EvalJob, words: &[String], cwd: &Path, port: u16, dir: &Path) -> Result<Scores, String> {
    let output = dir.join(EXTERNAL_OUTPUT);
    let fill = |w: &String| w.replace("{port}", &port.to_string()).replace("{output}", &output.to_string_lossy());
    let argv: Vec<String> = words.iter().map(fill).collect();
    let (program, args) = argv.split_first().ok_or("the evaluator's command is empty")?;
    let log = std::fs::File::create(dir.join(EXTERNAL_LOG)).map_err(|e| format!("cannot write its log: {e}"))?;
    let mut command = std::process::Command::new(program);
    command.args(args).current_dir(cwd).stdin(std::process::Stdio::null());
    command.stdout(log.try_clone().map_err(|e| e.to_string())?).stderr(log);
    // In a process group of its own, so that all it started is stopped with it at the deadline.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().map_err(|e| format!("cannot start `{program}`: {e}"))?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(job.timeout_s);
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if std::time::Instant::now() >= deadline => {
                super::process::signal_group(child.id(), Some(rustix::process::Signal::KILL));
                let _ = child.wait();
                return Err(format!(
                    "`{program}` did not finish within {} s and was stopped (its output: evaluation.log)",
                    job.timeout_s
                ));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    };
    if !status.success() {
        return Err(format!("`{program}` ended with {status} (its output: evaluation.log)"));
    }
    let files: Vec<PathBuf> = walkdir::WalkDir::new(&output)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| e.into_path())
        .filter(|p| p.is_file())
        .collect();
    let named = |prefix: &str| {
        files.iter().find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix))).cloned()
    };
    let results = named("results_").ok_or("it wrote no `results_*.json` under {output}")?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read: {e}", p.display()));
    let task = lm_eval::read_results(&results.display().to_string(), &read(&results)?)?.remove(0);
    let items = match named(&format!("samples_{}_", task.task)) {
        Some(p) => lm_eval::read_samples(&p.display().to_string(), &read(&p)?)?,
        None => Vec::new(),
    };
    let counted = items.is_empty().then(|| ((task.exact_match * f64::from(task.samples)).round() as u32, task.samples));
    Ok(scores(job, items, counted, 0))
}
