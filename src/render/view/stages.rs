//! The stages: each variant's facts, command and results, and the stage around them.

use super::{Ctx, Image, Links, StageView, VariantView, markdown, stage_chart};
use crate::analysis::warnings::Place;
use crate::analysis::{Outcome, VariantAnalysis};
use crate::render::i18n::I18nError;
use crate::study::Variant;
use crate::study::command::shell;

/// A failure's link: an autolink when [`markdown::link_allowed`] allows it, otherwise text.
fn link_markdown(link: &str) -> String {
    let autolink_safe = !link.chars().any(|c| c.is_whitespace() || c.is_control() || "<>".contains(c));
    if markdown::link_allowed(link) && autolink_safe && link.contains(':') {
        format!("<{link}>")
    } else {
        markdown::code(link)
    }
}

impl Ctx<'_> {
    /// What a variant changes in the configuration it builds on, as written in the study:
    /// its engine, checkpoint, flags (`{model}` in one filled in with what the variant serves),
    /// removed flags and environment.
    fn variant_changes(&self, va: &VariantAnalysis, vs: &Variant) -> Result<String, I18nError> {
        let c = self.c;
        let mut changes = Vec::new();
        if let Some(e) = &vs.engine {
            let name = self.study.engine(e.get_ref()).map_or(e.get_ref().clone(), |e| e.name.clone());
            changes.push(c.fmt("variant-change-engine", &[("engine", &markdown::plain(&name))])?);
        }
        if let Some(m) = &vs.model {
            changes.push(c.fmt("variant-change-model", &[("model", &markdown::code(m.get_ref()))])?);
        }
        changes
            .extend(vs.flags.iter().map(|f| markdown::code(&crate::study::fill_model(f.get_ref(), &va.command.model))));
        for f in &vs.unset {
            changes.push(c.fmt("variant-change-unset", &[("flag", &markdown::code(f.get_ref()))])?);
        }
        changes.extend(vs.env.iter().map(|(k, v)| markdown::code(&format!("{k}={v}"))));
        if changes.is_empty() {
            c.msg("variant-change-none")
        } else {
            c.fmt("variant-changes", &[("changes", &c.list(&changes))])
        }
    }

    pub(super) fn stages(&self, links: &Links) -> Result<Vec<StageView>, I18nError> {
        let (x, c, a, spec) = (self, self.c, self.analysis, &self.study.spec);
        let mut stages = Vec::new();
        for (i, (sa, ss)) in a.stages.iter().zip(&spec.stages).enumerate() {
            let variants = sa
                .variants
                .iter()
                .zip(&ss.variants)
                .map(|(va, vs)| x.variant(va, vs))
                .collect::<Result<Vec<_>, _>>()?;
            let summary = x.summary(sa)?;
            let adoption = x.adoption(sa, ss)?;
            let accuracy = x.stage_accuracy(sa, ss)?;
            let ranking = x.ranking(sa)?;
            let excluded = ss
                .exclude_from_command
                .as_ref()
                .map(|r| c.fmt("stage-excluded", &[("reason", &x.text(&r.reason))]))
                .transpose()?;
            let chart = Image::chart(
                c.fmt(
                    "chart-stage",
                    &[("stage", &markdown::plain(ss.title.get(&c.locale))), ("metric", &x.metric_name(&a.objective)?)],
                )?,
                links,
                stage_chart(&sa.id),
            );
            stages.push(StageView {
                chart,
                id: sa.id.clone(),
                number: i + 1,
                title: x.text(&ss.title),
                notes: x.per_gpu_note(sa)?.into_iter().chain(x.texts(&ss.notes)).collect(),
                warnings: x
                    .texts(&ss.warnings)
                    .into_iter()
                    .chain(x.warning_boxes(&Place::Stage(sa.id.clone()))?)
                    .collect(),
                variants,
                summary,
                ranking,
                adoption,
                excluded,
                accuracy,
            });
        }
        Ok(stages)
    }

    /// A variant's facts (its profile is said once for all stages), command and results.
    fn variant(&self, va: &VariantAnalysis, vs: &Variant) -> Result<VariantView, I18nError> {
        let (x, c) = (self, self.c);
        let mut facts = vec![x.variant_changes(va, vs)?];
        let mut error = None;
        match &va.outcome {
            Outcome::Failed { class } => {
                // The study's own explanation names the reason; the class is said only without one.
                match vs.failure.as_ref().and_then(|f| f.explanation.as_ref()) {
                    Some(e) => facts.push(x.text(e)),
                    None => facts.push(c.fmt("variant-failed", &[("reason", &x.failure_class(*class)?)])?),
                }
                if let Some(link) = vs.failure.as_ref().and_then(|f| f.link.as_ref()) {
                    facts.push(c.fmt("variant-link", &[("link", &link_markdown(link))])?);
                }
                if let Some(source) = &va.failure_from {
                    facts.push(c.fmt("variant-failure-shared", &[("source", &x.stage_and_label(source))])?);
                }
                if let Some(m) = &va.failure_message {
                    error = Some(x.collapsible("variant-error", m.clone(), "text")?);
                }
            }
            Outcome::Missing => facts.push(c.msg("variant-missing")?),
            _ => {}
        }
        if let Some(source) = &va.reused_from {
            facts.push(c.fmt("variant-reused", &[("source", &x.stage_and_label(source))])?);
        }
        Ok(VariantView {
            id: va.id.clone(),
            label: x.in_english_if(vs.label.falls_back(&c.locale), markdown::plain(vs.label.get(&c.locale))),
            facts,
            command: x.collapsible("variant-command", shell(&va.command), "bash")?,
            error,
            result: x.raw("variant-result", va.measure.as_ref())?,
            notes: x.texts(&vs.notes),
            warnings: x.texts(&vs.warnings),
        })
    }
}
