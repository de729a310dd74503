//! The charts' bars and points, localized.

use super::{COMPARISON_CHART, Ctx, PROGRESSION_CHART, stage_chart};
use crate::analysis::{Analysis, Outcome};
use crate::render::i18n::{Arg, Catalog, I18nError};
use crate::study::Study;

/// The charts of a study's page, localized: (file name, SVG).
pub fn charts(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<Vec<(String, String)>, I18nError> {
    use crate::render::charts::{Bar, BarKind};
    let x = Ctx { study, analysis, c };
    let a = analysis;
    let axis = x.metric_name(&a.objective)?;
    let ticks = |v: f64| c.number(v, 0);
    let mut out = Vec::new();
    for (sa, ss) in a.stages.iter().zip(&study.spec.stages) {
        // The stage's best as the adoption sees it.
        let best = a.options.iter().find(|o| o.stage == sa.id).and_then(|o| o.best.clone());
        let mut bars = Vec::new();
        for v in &sa.variants {
            let value = v.measure.as_ref().and_then(|m| m.value);
            let shown = x.value(&a.objective, value)?;
            let (kind, note) = match &v.outcome {
                Outcome::Failed { class } => {
                    (BarKind::Failed, c.fmt("chart-failed", &[("reason", &x.failure_class(*class)?)])?)
                }
                Outcome::Missing => (BarKind::Failed, c.msg("variant-missing")?),
                Outcome::LostRequests { completed, expected } => (
                    BarKind::Doubtful,
                    c.fmt_args(
                        "chart-lost",
                        &[
                            ("value", (&shown).into()),
                            ("completed", Arg::count(*completed)),
                            ("expected", Arg::count(*expected)),
                        ],
                    )?,
                ),
                Outcome::Incomplete => (BarKind::Doubtful, c.fmt("chart-incomplete", &[("value", &shown)])?),
                Outcome::Ran if best.as_deref() == Some(v.id.as_str()) => {
                    (BarKind::Winner, c.fmt("chart-best", &[("value", &shown)])?)
                }
                Outcome::Ran => (BarKind::Plain, shown),
            };
            let value = if kind == BarKind::Failed { None } else { value };
            bars.push(Bar { label: v.label.clone(), value, kind, note });
        }
        let title = c.fmt("chart-stage", &[("stage", ss.title.get(&c.locale)), ("metric", &axis)])?;
        out.push((stage_chart(&sa.id), crate::render::charts::bars(&title, &axis, &bars, &ticks)));
    }
    let format = |v: f64| c.number(v, a.objective.decimals);
    let groups: Vec<(String, Option<f64>, Option<f64>)> = a
        .scenarios
        .iter()
        .map(|s| {
            let name = study.profile(&s.profile).map_or(s.profile.clone(), |p| p.name.get(&c.locale).to_string());
            (name, s.baseline.as_ref().and_then(|m| m.value), s.optimized.as_ref().and_then(|m| m.value))
        })
        .collect();
    let legend = (c.msg("chart-baseline")?, c.msg("chart-optimized")?);
    let title = c.fmt("chart-comparison", &[("metric", &axis)])?;
    out.push((
        COMPARISON_CHART.to_string(),
        crate::render::charts::pairs(&title, &axis, (&legend.0, &legend.1), &groups, &format, &ticks),
    ));
    let mut points = Vec::new();
    if let Some(v) = a.baseline_measure.as_ref().and_then(|m| m.value) {
        points.push((c.msg("chart-baseline")?, v));
    }
    for (sa, ss) in a.stages.iter().zip(&study.spec.stages) {
        let value = sa
            .adoption
            .adopted()
            .and_then(|id| sa.variants.iter().find(|v| v.id == id))
            .and_then(|v| v.measure.as_ref())
            .and_then(|m| m.value);
        if let Some(v) = value {
            points.push((ss.title.get(&c.locale).to_string(), v));
        }
    }
    let title = c.fmt("chart-progression", &[("metric", &axis)])?;
    out.push((
        PROGRESSION_CHART.to_string(),
        crate::render::charts::progression(&title, &axis, &points, &format, &ticks),
    ));
    Ok(out)
}
