//! The accuracy evaluation of an engine start: asked once its benchmarks are done, in the same
//! start, with perflab's own client (`bench::eval`), and recorded in the attempt's folder
//! (`accuracy.json`) for the analysis to read.

use super::backend::Event;
use super::plan::Job;
use crate::bench::eval::{self, Ask, Question, Scores};
use crate::study::Study;
use crate::study::evaluation::ACCURACY_FILE;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What one start evaluates: the study's evaluation and its questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalJob {
    /// The study's evaluation id.
    pub evaluation: String,
    /// The data file as the study names it.
    pub data: String,
    pub ask: Ask,
    /// The questions asked, in the file's order.
    pub questions: Vec<Question>,
}

/// The evaluation a job's start runs: when its stage requires accuracy, it measures the target
/// profile, and its configuration has no record of this evaluation yet.
pub(super) fn job_for(study: &Study, job: &Job) -> anyhow::Result<Option<EvalJob>> {
    let Some(evaluation) = study.evaluation_for(&job.stage, &job.variant) else { return Ok(None) };
    if !job.profiles.contains(study.spec.target_profile.get_ref()) {
        return Ok(None);
    }
    let id = evaluation.id.get_ref();
    let wanted = evaluation.questions.as_ref().map(|n| *n.get_ref() as usize);
    let recorded = study.scores(&job.stage, &job.variant);
    if recorded.is_some_and(|s| &s.evaluation == id && wanted.is_none_or(|n| s.questions as usize == n)) {
        return Ok(None);
    }
    let mut questions = eval::read_questions(evaluation.data.get_ref(), &study.dir).map_err(anyhow::Error::msg)?;
    questions.truncate(wanted.unwrap_or(questions.len()));
    let ask = Ask { model: study.model_of(&job.config), max_tokens: evaluation.max_tokens, seed: evaluation.seed };
    Ok(Some(EvalJob { evaluation: id.clone(), data: evaluation.data.get_ref().clone(), ask, questions }))
}

/// Asks the questions of the engine on `port` and records the scores in `dir`; a failure is told
/// as a step (the configuration then has no accuracy, which the page says).
pub(super) fn run(job: &EvalJob, port: u16, dir: &Path, progress: &mut dyn FnMut(Event)) {
    progress(Event::Step(&format!("accuracy evaluation ({} questions)", job.questions.len())));
    match evaluate(job, port).and_then(|scores| {
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
    let (items, failed_requests) = runtime.block_on(eval::evaluate(&base, &job.ask, &job.questions))?;
    let correct = items.iter().filter(|s| s.correct).count() as u32;
    Ok(Scores {
        evaluation: job.evaluation.clone(),
        data: job.data.clone(),
        ask: job.ask.clone(),
        questions: items.len() as u32,
        correct,
        items,
        failed_requests,
    })
}
