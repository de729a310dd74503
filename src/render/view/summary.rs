//! Each stage's summary, decision and engine ranking, and the table of options.

use super::gains::How;
use super::{Ctx, Table, cell};
use crate::analysis::{Adoption, NoResultReason, Outcome, StageAnalysis, Trend};
use crate::render::i18n::{Arg, I18nError};
use crate::render::markdown;
use crate::study::{FailureClass, Stage};

impl Ctx<'_> {
    /// The stage's summary: its fastest variant against its slowest (said to be that), then
    /// against the runner-up and against the configuration the stage builds on.
    pub(super) fn summary(&self, sa: &StageAnalysis) -> Result<Option<String>, I18nError> {
        let (x, c, a) = (self, self.c, self.analysis);
        Ok(match &sa.comparison {
            None => None,
            Some(cmp) => {
                let stage_ref = |v: &str| format!("{}/{v}", sa.id);
                let mut sentences = Vec::new();
                if let Some(d) = cmp.secondary {
                    sentences.push(x.secondary_sentence(&a.secondary, d)?);
                }
                // The further secondary metrics, each its own sentence, from the two runs' values.
                let also = |id: &str| {
                    sa.variants.iter().find(|v| v.id == id).and_then(|v| v.measure.as_ref()).map(|m| m.also.clone())
                };
                if let (Some(best), Some(worst)) = (also(&cmp.best), also(&cmp.worst)) {
                    for (k, metric) in a.also.iter().enumerate() {
                        if let (Some(Some(b)), Some(Some(w))) = (best.get(k), worst.get(k)) {
                            sentences.push(x.secondary_sentence(metric, crate::analysis::Delta::new(*b, *w))?);
                        }
                    }
                }
                let secondary = c.sentences(&sentences);
                // A search that met the SLO at the top of its range gives a bound, and so does
                // every gap and gain measured from it.
                let best = x.measure_of(&sa.id, &cmp.best);
                // Per GPU when the stage weighs so.
                let bounded = |value: f64, m: Option<&crate::analysis::Measure>| {
                    let shown = x.per_gpu_if(sa.per_gpu.is_some(), x.value(&a.objective, Some(value))?)?;
                    match m {
                        Some(m) if m.at_least => c.fmt("value-at-least", &[("value", &shown)]),
                        _ => Ok(shown),
                    }
                };
                let versus = |key: &str, v: &crate::analysis::Versus| -> Result<String, I18nError> {
                    let other = v.source.variant().and_then(|r| x.measure_of(r.stage(), r.variant()));
                    let gain = v.gain.map_or(c.msg("value-missing"), |g| x.gain(g, None, How::TABLE))?;
                    c.fmt(
                        key,
                        &[
                            ("variant", &x.label_in(sa, &v.source)),
                            ("value", &bounded(v.value, other)?),
                            ("gain", &x.gain_from(gain, other, best)?),
                        ],
                    )
                };
                let mut also = Vec::new();
                if let Some(r) = &cmp.runner_up {
                    also.push(versus("summary-runner-up", r)?);
                }
                if let Some(b) = &cmp.over_base {
                    also.push(versus("summary-over-base", b)?);
                }
                if let Some(again) = &cmp.base_again {
                    let change = again.change.map_or(c.msg("value-missing"), |g| x.gain(g, None, How::SENTENCE))?;
                    also.push(c.fmt(
                        "summary-base-again",
                        &[
                            ("variant", &x.label_in(sa, &again.source)),
                            ("value", &bounded(again.value, None)?),
                            ("change", &change),
                            ("earlier", &bounded(again.earlier, None)?),
                        ],
                    )?);
                }
                let worst = x.measure_of(&sa.id, &cmp.worst);
                let is_bound = |m: Option<&crate::analysis::Measure>| m.is_some_and(|m| m.at_least);
                let gap_bound = is_bound(best) && !is_bound(worst);
                let range = c.fmt(
                    if is_bound(best) && is_bound(worst) { "summary-both-at-least" } else { "summary" },
                    &[
                        ("best", &x.label(&stage_ref(&cmp.best))),
                        ("worst", &x.label(&stage_ref(&cmp.worst))),
                        ("metric", &x.stage_metric(sa)?),
                        ("best_value", &bounded(cmp.objective.value, best)?),
                        ("worst_value", &bounded(cmp.objective.reference, worst)?),
                        ("gap", &bounded(cmp.objective.diff.abs(), gap_bound.then_some(best).flatten())?),
                        ("percent", &x.gain_from(x.range_figure(cmp)?, worst, best)?),
                        ("direction", if a.lower_is_better { "lower" } else { "higher" }),
                        ("secondary", &secondary),
                    ],
                )?;
                let mut text = vec![c.msg("summary-range")?, range.trim_end().to_string()];
                text.extend(also);
                Some(c.sentences(&text))
            }
        })
    }

    /// The objective's name as a stage weighs it: per GPU when it compares per GPU.
    fn stage_metric(&self, sa: &StageAnalysis) -> Result<String, I18nError> {
        let name = self.metric_name(&self.analysis.objective)?;
        match sa.per_gpu {
            Some(_) => self.c.fmt("metric-per-gpu", &[("metric", &name)]),
            None => Ok(name),
        }
    }

    /// A figure (a value, a gain) said per GPU when `per_gpu`.
    fn per_gpu_if(&self, per_gpu: bool, figure: String) -> Result<String, I18nError> {
        if per_gpu { self.c.fmt("per-gpu", &[("figure", &figure)]) } else { Ok(figure) }
    }

    /// Why a stage weighs per GPU: its configurations with their GPUs.
    pub(super) fn per_gpu_note(&self, sa: &StageAnalysis) -> Result<Option<String>, I18nError> {
        let (x, c) = (self, self.c);
        let Some(per_gpu) = &sa.per_gpu else { return Ok(None) };
        let item = |config: String, gpus: u32| {
            c.fmt_args(
                "warning-unequal-gpus-item",
                &[("config", (&config).into()), ("gpus", Arg::count(u64::from(gpus)))],
            )
        };
        let mut items = Vec::new();
        if sa.base.variant().is_none_or(|r| r.stage() != sa.id) && sa.base_value.is_some() {
            items.push(item(x.label_in(sa, &sa.base), per_gpu.base)?);
        }
        for (v, gpus) in sa.variants.iter().zip(&per_gpu.variants) {
            items.push(item(x.label(&format!("{}/{}", sa.id, v.id)), *gpus)?);
        }
        let metric = x.metric_name(&self.analysis.objective)?;
        Some(c.fmt("stage-per-gpu", &[("configurations", &c.list(&items)), ("metric", &metric)])).transpose()
    }

    /// The stage's decision: which variant is adopted, and why.
    pub(super) fn adoption(&self, sa: &StageAnalysis, ss: &Stage) -> Result<String, I18nError> {
        let (x, c, a) = (self, self.c, self.analysis);
        let base = x.label_in(sa, &sa.base);
        // A stage measured on another configuration (`measured_on`) leaves the search where it
        // was: what stays is the configuration after it, not the one it was compared with.
        let after = x.label(&sa.after);
        let on =
            |plain: &'static str, elsewhere: &'static str| if ss.measured_on.is_some() { elsewhere } else { plain };
        let gain = |g: Option<f64>| g.map_or(c.msg("value-missing"), |g| x.gain(g, None, How::SENTENCE));
        let base_measure = sa.base.variant().and_then(|r| x.measure_of(r.stage(), r.variant()));
        Ok(match &sa.adoption {
            Adoption::Adopted { variant, gain_percent, interval, .. } => c.fmt(
                "adoption-adopted",
                &[
                    ("variant", &x.label(&format!("{}/{variant}", sa.id))),
                    (
                        "gain",
                        &x.per_gpu_if(
                            sa.per_gpu.is_some(),
                            x.gain_from(
                                x.gain(*gain_percent, *interval, How::SENTENCE)?,
                                base_measure,
                                x.measure_of(&sa.id, variant),
                            )?,
                        )?,
                    ),
                    ("base", &base),
                ],
            )?,
            Adoption::CannotTell { variant, .. } => {
                x.cannot_tell(&sa.adoption, &x.label(&format!("{}/{variant}", sa.id)), &base)?
            }
            Adoption::WithinNoise { variant, gain_percent, interval, .. } => c.fmt(
                on("adoption-within-noise", "adoption-within-noise-on"),
                &[
                    ("variant", &x.label(&format!("{}/{variant}", sa.id))),
                    ("gain", &x.gain(*gain_percent, *interval, How::SENTENCE)?),
                    ("threshold", &x.percent(a.noise_threshold, false)?),
                    ("base", &base),
                    ("after", &after),
                ],
            )?,
            Adoption::NotBetter { .. } => {
                c.fmt(on("adoption-not-better", "adoption-not-better-on"), &[("base", &base), ("after", &after)])?
            }
            Adoption::BaseIsBest { variant } => {
                c.fmt("adoption-base-is-best", &[("variant", &x.label(&format!("{}/{variant}", sa.id)))])?
            }
            Adoption::Overridden { variant, gain_percent } => {
                let reason = ss.adopt.as_ref().map(|r| x.text(&r.reason)).unwrap_or_default();
                match variant {
                    Some(v) => c.fmt(
                        "adoption-overridden",
                        &[
                            ("variant", &x.label(&format!("{}/{v}", sa.id))),
                            ("gain", &gain(*gain_percent)?),
                            ("reason", &reason),
                        ],
                    )?,
                    None => c.fmt(
                        on("adoption-overridden-none", "adoption-overridden-none-on"),
                        &[("base", &base), ("after", &after), ("reason", &reason)],
                    )?,
                }
            }
            Adoption::NoResult { reason } => c.fmt(
                match reason {
                    NoResultReason::NoVariantRanks => "adoption-no-result",
                    NoResultReason::BaseWithoutValue => "adoption-no-result-base",
                    NoResultReason::ZeroBase => "adoption-no-result-zero-base",
                },
                // Where the search goes on from: the best configuration that ran, when the base
                // did not (`after`).
                &[("base", &base), ("after", &x.label(&sa.after))],
            )?,
        })
    }

    /// The engines of an engine stage in order of the objective.
    pub(super) fn ranking(&self, sa: &StageAnalysis) -> Result<Option<String>, I18nError> {
        let (x, c, a, study) = (self, self.c, self.analysis, self.study);
        Ok(match &sa.ranking {
            None => None,
            Some(ranks) => {
                let items = ranks
                    .iter()
                    .map(|r| {
                        let engine = study.engine(&r.engine).map_or(r.engine.clone(), |e| markdown::plain(&e.name));
                        match (&r.outcome, r.value) {
                            (Outcome::LostRequests { completed, expected }, Some(v)) => c.fmt_args(
                                "ranking-lost",
                                &[
                                    ("engine", (&engine).into()),
                                    ("value", (&x.value(&a.objective, Some(v))?).into()),
                                    ("completed", Arg::count(*completed)),
                                    ("expected", Arg::count(*expected)),
                                ],
                            ),
                            (_, Some(v)) => c.fmt(
                                "ranking-item",
                                &[("engine", &engine), ("value", &x.value(&a.objective, Some(v))?)],
                            ),
                            (Outcome::Failed { class: FailureClass::Unsupported }, None) => {
                                c.fmt("ranking-not-supported", &[("engine", &engine)])
                            }
                            (Outcome::Failed { class }, None) => {
                                c.fmt("ranking-failed", &[("engine", &engine), ("reason", &x.failure_class(*class)?)])
                            }
                            (_, None) => c.fmt("ranking-not-measured", &[("engine", &engine)]),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let sep = if a.lower_is_better { " < " } else { " > " };
                Some(c.fmt("ranking", &[("ranking", &items.join(sep))])?)
            }
        })
    }

    /// The table of options: each stage's adopted variant, its value and its gains.
    pub(super) fn options(&self) -> Result<Table, I18nError> {
        let (x, c, a) = (self, self.c, self.analysis);
        let baseline_label = x.label(&a.baseline.source);
        let dash = c.msg("value-none")?;
        let mut option_rows = vec![vec![
            cell(&c.msg("options-baseline")?),
            cell(&baseline_label),
            cell(&x.objective_value(a.baseline_measure.as_ref())?),
            cell(&x.value(&a.secondary, a.baseline_measure.as_ref().and_then(|m| m.secondary))?),
        ]];
        option_rows[0].extend(x.also_cells(a.baseline_measure.as_ref().map(|m| &m.also[..]))?);
        option_rows[0].extend([dash.clone(), dash.clone()]);
        let base_bound = a.baseline_measure.as_ref().is_some_and(|m| m.at_least);
        for o in &a.options {
            // A row whose value is a lower bound gives its gains as bounds too.
            let bound = |text: String| match o.at_least && !base_bound {
                true => c.fmt("gain-at-least", &[("gain", &text)]),
                false => Ok(text),
            };
            let mut value = x.value(&a.objective, o.value)?;
            if o.at_least && o.value.is_some() {
                value = c.fmt("value-at-limit", &[("value", &value)])?;
            }
            let mut row = vec![
                cell(&x.stage_title(&o.stage)),
                cell(&x.option_variant(o, &dash)?),
                cell(&value),
                cell(&x.value(&a.secondary, o.secondary)?),
            ];
            row.extend(x.also_cells(Some(&o.also))?);
            // A stage that adopted nothing: its best variant against the baseline is a fact, not
            // a gain or a loss of the configuration, so it is neither coloured nor marked.
            let not_adopted = x.not_adopted(o);
            let vs_baseline = |p: f64| match not_adopted && p.abs() > 0.0 {
                true => c.fmt("options-not-adopted", &[("gain", &bound(x.gain(p, None, How::SENTENCE)?)?)]),
                false => bound(x.gain(p, None, How::TABLE)?),
            };
            row.push(o.vs_baseline.map_or(Ok(dash.clone()), vs_baseline)?);
            let step = match (&o.left_out_by, o.carried_step) {
                (Some(later), _) => match o.step {
                    Some(p) => {
                        let step = x.gain(p, None, How::TABLE)?;
                        c.fmt("options-left-out", &[("step", &step), ("stage", &x.stage_title(later))])?
                    }
                    None => dash.clone(),
                },
                (None, Some(p)) => bound(x.gain(p, None, How::TABLE)?)?,
                (None, None) => o.step.map_or(Ok(dash.clone()), |p| {
                    x.per_gpu_if(o.per_gpu, bound(x.gain(p, o.step_interval, How::TABLE)?)?)
                })?,
            };
            row.push(step);
            option_rows.push(row);
        }
        let mut total = vec![
            cell(&c.msg("options-total")?),
            cell(&x.label(&a.optimized.source)),
            cell(&x.objective_value(a.optimized_measure.as_ref())?),
            cell(&x.value(&a.secondary, a.optimized_measure.as_ref().and_then(|m| m.secondary))?),
        ];
        total.extend(x.also_cells(a.optimized_measure.as_ref().map(|m| &m.also[..]))?);
        let total_gain = match a.total_gain {
            Some(p) => x.gain_from(
                x.gain(p, a.total_gain_interval, How::TABLE)?,
                a.baseline_measure.as_ref(),
                a.optimized_measure.as_ref(),
            )?,
            None => dash.clone(),
        };
        total.push(total_gain);
        // The total is not a step: its step cell stays as a row without a step has it.
        total.push(dash.clone());
        option_rows.push(total);
        let mut headers = vec![
            c.msg("options-stage")?,
            c.msg("options-best")?,
            x.metric_name(&a.objective)?,
            x.metric_name(&a.secondary)?,
        ];
        for metric in &a.also {
            headers.push(x.metric_name(metric)?);
        }
        headers.extend([c.msg("options-vs-baseline")?, c.msg("options-step")?]);
        Ok(Table { headers, rows: option_rows })
    }

    /// The variant of a row of the options: the stage's best, or the one that lost requests with
    /// its success rate.
    /// Whether an options row's best variant is a setting its stage measured and did not adopt:
    /// the stage kept its base, and the variant is not that base measured again (its own
    /// variant, or one that serves the same command, as a repeat does).
    fn not_adopted(&self, o: &crate::analysis::OptionRow) -> bool {
        let stages = &self.analysis.stages;
        let Some(sa) = stages.iter().find(|sa| sa.id == o.stage).filter(|sa| sa.after == sa.base) else {
            return false;
        };
        let Some(best) = o.best.as_ref().and_then(|b| sa.variants.iter().find(|v| v.id == *b)) else { return false };
        let base = sa.base.variant().and_then(|r| {
            let of = stages.iter().find(|s| s.id == r.stage())?;
            Some(&of.variants.iter().find(|v| v.id == r.variant())?.command)
        });
        let w = &best.command;
        !Self::is_stage_base(sa, best)
            && base.is_none_or(|c| (&c.engine, &c.model, &c.flags, &c.env) != (&w.engine, &w.model, &w.flags, &w.env))
    }

    fn option_variant(&self, o: &crate::analysis::OptionRow, dash: &str) -> Result<String, I18nError> {
        let Some(b) = &o.best else { return Ok(dash.to_string()) };
        let label = self.label(&format!("{}/{b}", o.stage));
        let Some((completed, expected)) = o.lost else { return Ok(label) };
        let rate = if expected > 0 { completed as f64 / expected as f64 * 100.0 } else { 0.0 };
        self.c.fmt_args(
            "options-lost",
            &[
                ("variant", (&label).into()),
                ("rate", (&self.percent(rate, false)?).into()),
                ("completed", Arg::count(completed)),
                ("expected", Arg::count(expected)),
            ],
        )
    }

    /// A secondary metric of the fastest variant against the slowest's, as a sentence.
    fn secondary_sentence(
        &self,
        metric: &crate::metric::Metric,
        d: crate::analysis::Delta,
    ) -> Result<String, I18nError> {
        let trend = match d.trend {
            Trend::Lower => "lower",
            Trend::Higher => "higher",
            Trend::Same => "same",
        };
        let kind = if metric.unit.is_time() { "latency" } else { "other" };
        let c = self.c;
        c.fmt(
            "summary-secondary",
            &[
                ("trend", trend),
                ("kind", kind),
                ("metric", &self.metric_name(metric)?),
                ("best", &self.value(metric, Some(d.value))?),
                ("worst", &self.value(metric, Some(d.reference))?),
                ("diff", &self.value(metric, Some(d.diff.abs()))?),
                ("percent", &d.percent.map_or(Ok(c.msg("value-missing")?), |p| self.percent(p.abs(), false))?),
            ],
        )
    }

    /// How much the fastest variant beats the slowest: a ratio (`3.10× faster`) where the study
    /// shows speedups, else a percentage.
    fn range_figure(&self, cmp: &crate::analysis::Comparison) -> Result<String, I18nError> {
        let gain = self.analysis.objective.improvement(cmp.objective.value, cmp.objective.reference);
        gain.map_or(self.c.msg("value-missing"), |g| self.gain(g, None, How::GAP))
    }

    /// The cells of the further secondary metrics (`values` in their order; none: every one missing).
    fn also_cells(&self, values: Option<&[Option<f64>]>) -> Result<Vec<String>, I18nError> {
        let a = self.analysis;
        a.also
            .iter()
            .enumerate()
            .map(|(i, metric)| Ok(cell(&self.value(metric, values.and_then(|v| v.get(i).copied().flatten()))?)))
            .collect()
    }
}
