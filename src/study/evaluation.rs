//! Accuracy a stage or a variant requires: the evaluations a study names (`[[evaluation]]`),
//! the requirement a stage or a variant states (`accuracy = { … }`), the stages whose flags
//! change what the model computes, and the scores `perflab run` recorded for each configuration.

use super::{ATTEMPTS_DIR, Id, Study, Text};
use crate::bench::eval::{self, Scores};
use crate::diag::Diagnostic;
use serde::Deserialize;
use toml::Spanned;

/// The file an attempt's evaluation is recorded in.
pub const ACCURACY_FILE: &str = "accuracy.json";

/// The folder of an attempt an external evaluator writes into (`{output}`), and its log: the
/// evaluator's own files, which the runs' loader leaves alone.
pub const EXTERNAL_OUTPUT: &str = "evaluation";
pub const EXTERNAL_LOG: &str = "evaluation.log";

/// Whether a file under `runs/` is an external evaluator's (`<attempt>/evaluation/…` or its log).
pub fn evaluators_file(relative: &std::path::Path) -> bool {
    let mut parts = relative.components().map(|c| c.as_os_str().to_string_lossy());
    parts.nth(4).is_some_and(|p| p == EXTERNAL_OUTPUT || p == EXTERNAL_LOG)
}

/// The most questions an evaluation may ask.
pub const MAX_QUESTIONS: u32 = 100_000;

/// `[[evaluation]]`: a set of questions with numeric answers, asked of a configuration's engine
/// in the same start as its benchmarks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evaluation {
    /// Its key, as a requirement's `evaluation` names it.
    pub id: Id,
    /// What a page calls it: "the arithmetic set".
    pub name: Text,
    /// A JSON-lines file of `{"id", "question", "answer"}`, relative to the study's folder, or
    /// `perflab:arithmetic` for the bundled set. Not with `command`.
    #[serde(default)]
    pub data: Option<Spanned<String>>,
    /// An external evaluator run instead, in the study's folder, against the engine
    /// (lm-evaluation-harness's `lm_eval --model local-completions …`); placeholders `{host}`,
    /// `{port}`, `{model}` and `{output}` (the folder it must write its results JSON into, with
    /// `--log_samples` for its samples). Not with `data`.
    #[serde(default)]
    pub command: Option<Spanned<String>>,
    /// The first this many questions of the file are asked (default: all of them).
    #[serde(default)]
    pub questions: Option<Spanned<u32>>,
    /// How an answer is scored: `number` (exact match of the last number in the answer).
    #[serde(default)]
    pub scoring: Scoring,
    /// Tokens an answer may have (default 16).
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u64,
    /// The sampling seed sent with each question (default 0); decoding is greedy.
    #[serde(default)]
    pub seed: u64,
    /// Seconds the whole evaluation may take in a start (default 3600): an engine that stops
    /// answering, or an evaluator that hangs, is stopped then, and the configuration has no
    /// accuracy for it.
    #[serde(default = "default_eval_timeout")]
    pub timeout: u64,
}

fn default_max_tokens() -> u64 {
    16
}

/// Seconds an evaluation may take in a start when the study does not say; also the default of a
/// start's evaluation job recorded before it had a timeout.
pub(crate) fn default_eval_timeout() -> u64 {
    3600
}

/// How an answer is scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The last number of the answer equals the right one.
    #[default]
    Number,
}

/// `accuracy = { evaluation = "…", max_drop = 1.0 }` on a stage or a variant: how much accuracy
/// its variants may lose.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// The `[[evaluation]]` it is measured with.
    pub evaluation: Id,
    /// At most this many points (percentage points of questions answered right) below the
    /// configuration the variant builds on.
    #[serde(default)]
    pub max_drop: Option<Spanned<f64>>,
    /// At least this share of questions answered right, in percent.
    #[serde(default)]
    pub min_percent: Option<Spanned<f64>>,
    /// What the stage does when the questions are too few to tell whether a variant is within
    /// the tolerance: `refuse` (the default) or `adopt`.
    #[serde(default)]
    pub when_unclear: WhenUnclear,
}

/// The study's choice where the evaluation cannot tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WhenUnclear {
    #[default]
    Refuse,
    Adopt,
}

/// Flags that change what a model computes (its numerics), not only how fast: a stage whose
/// variants set one should require accuracy.
pub const NUMERIC_FLAGS: &[&str] = &[
    "--kv-cache-dtype",
    "--quantization",
    "-q",
    "--dtype",
    "--speculative-config",
    "--speculative-model",
    "--speculative-algorithm",
    "--num-speculative-tokens",
    "--attention-backend",
    "--kv-cache-quant-algo",
];

/// The flag of `flags` that changes numerics, if any.
pub fn numeric_flag<'a>(flags: impl IntoIterator<Item = &'a str>) -> Option<&'static str> {
    flags.into_iter().find_map(|f| {
        let name = f.split([' ', '=']).next().unwrap_or(f);
        NUMERIC_FLAGS.iter().find(|n| **n == name).copied()
    })
}

impl Study {
    /// The evaluation of `id`.
    pub fn evaluation(&self, id: &str) -> Option<&Evaluation> {
        self.spec.evaluations.iter().find(|e| e.id.get_ref() == id)
    }

    /// The requirement a variant is held to: its own, else its stage's.
    pub fn requirement(&self, stage: &str, variant: &str) -> Option<&Requirement> {
        let (stage, variant) = self.variant(&format!("{stage}/{variant}"))?;
        variant.accuracy.as_ref().or(stage.accuracy.as_ref())
    }

    /// The evaluation a run of `stage/variant` asks of its engine: its own requirement's, else
    /// the first of its stage's variants', else the next stage's that requires one (a
    /// configuration measured before a gated stage may be what that stage builds on).
    pub fn evaluation_for(&self, stage: &str, variant: &str) -> Option<&Evaluation> {
        let at = self.stage_index(stage)?;
        let own = self.requirement(stage, variant);
        let later = || {
            self.spec.stages[at..]
                .iter()
                .find_map(|s| s.accuracy.as_ref().or_else(|| s.variants.iter().find_map(|v| v.accuracy.as_ref())))
        };
        self.evaluation(own.or_else(later)?.evaluation.get_ref())
    }

    /// Problems with the evaluations and requirements, each at its key.
    pub(super) fn validate_accuracy(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (i, e) in self.spec.evaluations.iter().enumerate() {
            if self.spec.evaluations[..i].iter().any(|o| o.id.get_ref() == e.id.get_ref()) {
                out.push(self.diag_at(&e.id, format!("`evaluation` `{}` is defined twice", e.id.get_ref())));
            }
            if let Some(n) = &e.questions
                && !(1..=MAX_QUESTIONS).contains(n.get_ref())
            {
                out.push(self.diag_at(n, format!("`questions`: give from 1 to {MAX_QUESTIONS}")));
            }
            if !(1..=4096).contains(&e.max_tokens) {
                out.push(self.diag_at(&e.id, "`max_tokens`: give from 1 to 4096"));
            }
            let data = match (&e.data, &e.command) {
                (Some(data), None) => data,
                (None, Some(command)) => {
                    if let Err(why) = super::command::split(command.get_ref()) {
                        out.push(self.diag_at(command, format!("`command`: {why}")));
                    }
                    continue;
                }
                _ => {
                    out.push(self.diag_at(
                        &e.id,
                        "`evaluation`: give `data` (questions) or `command` (an external evaluator), one of them",
                    ));
                    continue;
                }
            };
            match eval::read_questions(data.get_ref(), &self.dir) {
                Err(why) => out.push(self.diag_at(data, format!("`data`: {why}"))),
                Ok(list) if e.questions.as_ref().is_some_and(|n| *n.get_ref() as usize > list.len()) => {
                    out.push(self.diag_at(
                        data,
                        format!("`questions`: the file holds {} questions, fewer than asked", list.len()),
                    ));
                }
                Ok(_) => {}
            }
        }
        for stage in &self.spec.stages {
            let own = stage.variants.iter().filter_map(|v| v.accuracy.as_ref());
            for r in stage.accuracy.iter().chain(own) {
                out.extend(self.requirement_problems(r));
            }
        }
        out
    }

    fn requirement_problems(&self, r: &Requirement) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        if self.evaluation(r.evaluation.get_ref()).is_none() {
            let message = format!("`evaluation`: no `[[evaluation]]` has the id `{}`", r.evaluation.get_ref());
            out.push(self.diag_at(&r.evaluation, message));
        }
        match (&r.max_drop, &r.min_percent) {
            (None, None) => out.push(self.diag_at(&r.evaluation, "`accuracy`: give `max_drop` or `min_percent`")),
            (Some(d), _) if !(0.0..=100.0).contains(d.get_ref()) => {
                out.push(self.diag_at(d, "`max_drop`: give points from 0 to 100"));
            }
            (_, Some(m)) if !(0.0..=100.0).contains(m.get_ref()) => {
                out.push(self.diag_at(m, "`min_percent`: give a percentage from 0 to 100"));
            }
            _ => {}
        }
        out
    }

    /// Stages whose variants change numerics but require no accuracy: (stage, the flag).
    pub fn unguarded_numerics(&self) -> Vec<(&super::Stage, &'static str)> {
        let mut out = Vec::new();
        for stage in &self.spec.stages {
            let flags = stage.variants.iter().filter(|v| v.accuracy.is_none() && stage.accuracy.is_none());
            let flag = numeric_flag(flags.flat_map(|v| v.flags.iter().map(|f| f.get_ref().as_str())));
            if let Some(flag) = flag {
                out.push((stage, flag));
            }
        }
        out
    }

    /// `perflab check`'s warnings: a stage that changes numerics with no accuracy requirement.
    pub fn accuracy_warnings(&self) -> Vec<Diagnostic> {
        self.unguarded_numerics()
            .into_iter()
            .map(|(stage, flag)| {
                let message = format!(
                    "warning: stage `{}`: its variants set `{flag}`, which changes what the model computes, but it requires no accuracy (`accuracy = {{ evaluation = \"…\", max_drop = 1.0 }}`): a faster variant would be adopted whatever it costs in correct answers",
                    stage.id.get_ref()
                );
                self.diag_at(&stage.id, message)
            })
            .collect()
    }

    /// Reads an attempt's `accuracy.json` (`runs/<stage>/<variant>/attempts/<n>/`): the newest
    /// attempt's scores stand for the variant.
    pub(super) fn load_scores(&mut self, root: &std::path::Path, path: &std::path::Path) -> Result<(), Diagnostic> {
        let parts: Vec<String> = path
            .strip_prefix(root)
            .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let [stage, variant, attempts, number, _] = parts.as_slice() else {
            return Err(Diagnostic::new(path, 0, 0, "an accuracy record outside an attempt's folder"));
        };
        let number = number.parse::<u32>().ok().filter(|_| attempts == ATTEMPTS_DIR);
        let Some(number) = number else {
            return Err(Diagnostic::new(path, 0, 0, "an accuracy record outside an attempt's folder"));
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| Diagnostic::new(path, 0, 0, format!("cannot read: {e}")))?;
        let scores: Scores = serde_json::from_str(&text)
            .map_err(|e| Diagnostic::new(path, e.line(), e.column(), format!("not an accuracy record: {e}")))?;
        let key = (stage.clone(), variant.clone());
        if self.scores.get(&key).is_none_or(|(n, _)| *n < number) {
            self.scores.insert(key, (number, scores));
        }
        Ok(())
    }

    /// The scores that stand for `stage/variant`.
    pub fn scores(&self, stage: &str, variant: &str) -> Option<&Scores> {
        self.scores.get(&(stage.to_string(), variant.to_string())).map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_that_change_numerics_are_found() {
        assert_eq!(numeric_flag(["--tp-size 2", "--kv-cache-dtype fp8"]), Some("--kv-cache-dtype"));
        assert_eq!(numeric_flag(["--quantization=fp8"]), Some("--quantization"));
        assert_eq!(numeric_flag(["--max-num-seqs 64"]), None);
    }
}
