//! The charts' bars and points, localized.

use super::gains::How;
use super::{COMPARISON_CHART, Ctx, PROGRESSION_CHART, narrow_chart, stage_chart};
use crate::analysis::{Analysis, Outcome, RunStatus};
use crate::render::i18n::{Arg, Catalog, I18nError};
use crate::study::Study;

/// The charts of a study's page, localized: (file name, SVG), each in its wide layout and,
/// under [`narrow_chart`]'s name, its narrow one.
pub fn charts(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<Vec<(String, String)>, I18nError> {
    let x = Ctx::new(study, analysis, c);
    let metric = x.metric_name(&analysis.objective)?;
    let axis = x.axis_title(&analysis.objective)?;
    let ticks = |v: f64| c.number(v, crate::render::charts::tick_decimals(v));
    let format = |v: f64| c.number(v, analysis.objective.decimals);
    let mut out = Vec::new();
    for (sa, ss) in analysis.stages.iter().zip(&study.spec.stages) {
        let bars = stage_bars(&x, sa, ss)?;
        let title = c.fmt("chart-stage", &[("stage", ss.title.get(&c.locale)), ("metric", &metric)])?;
        push(&mut out, stage_chart(&sa.id), crate::render::charts::bars(&title, &axis, &bars, &ticks), c);
    }
    let groups = comparison_groups(&x)?;
    let legend = (c.msg("chart-baseline")?, c.msg("chart-optimized")?);
    let title = c.fmt("chart-comparison", &[("metric", &metric)])?;
    push(
        &mut out,
        COMPARISON_CHART.to_string(),
        crate::render::charts::pairs(&title, &axis, (&legend.0, &legend.1), &groups, &ticks),
        c,
    );
    let (points, point_intervals) = progression_points(study, analysis, c)?;
    let title = c.fmt("chart-progression", &[("metric", &metric)])?;
    push(
        &mut out,
        PROGRESSION_CHART.to_string(),
        crate::render::charts::progression(&title, &axis, &points, &point_intervals, &format, &ticks),
        c,
    );
    for (name, chart) in x.curve_charts()? {
        push(&mut out, name, chart, c);
    }
    if let Some(chart) = x.releases_chart()? {
        push(&mut out, super::releases::RELEASES_CHART.to_string(), chart, c);
    }
    Ok(out)
}

/// The comparison chart's groups: per profile, the baseline's bar and the optimized one's, the
/// latter noted with its change (in red where it is a regression, worse beyond the noise).
fn comparison_groups(x: &Ctx<'_>) -> Result<Vec<crate::render::charts::Group>, I18nError> {
    use crate::render::charts::{Bar, BarKind, Group};
    let (study, a, c) = (x.study, x.analysis, x.c);
    let figures = x.figures();
    let mut groups = Vec::new();
    for s in &a.scenarios {
        let label = study.profile(&s.profile).map_or(s.profile.clone(), |p| p.name.get(&c.locale).to_string());
        let value = |m: &Option<crate::analysis::Measure>| m.as_ref().and_then(|m| m.value);
        let (base, optimized) = (value(&s.baseline), value(&s.optimized));
        let number = |v: Option<f64>| v.map(|v| c.number(v, a.objective.decimals)).unwrap_or_default();
        // A change measured on a run that lost requests or was cut off is not marked as a gain.
        let trusted = [&s.baseline, &s.optimized].into_iter().flatten().all(|m| m.status == RunStatus::Ok);
        let (note, loss) = match (s.change, optimized) {
            (Some(p), Some(_)) => {
                let change = figures.gain(c, p, s.change_interval, How::CHART.marked(trusted))?;
                (c.fmt("chart-change", &[("value", &number(optimized)), ("change", &change)])?, s.regression)
            }
            _ => (number(optimized), false),
        };
        let bar = |name: String, value: Option<f64>, kind, note: String, m: &Option<_>, loss| Bar {
            label: name,
            value,
            kind,
            note,
            interval: ends(m).filter(|_| value.is_some()),
            loss,
        };
        groups.push(Group {
            label,
            bars: vec![
                bar(c.msg("chart-baseline")?, base, BarKind::Plain, number(base), &s.baseline, false),
                bar(c.msg("chart-optimized")?, optimized, BarKind::Optimized, note, &s.optimized, loss),
            ],
        });
    }
    Ok(groups)
}

/// A measure's interval as the charts draw it.
fn ends(m: &Option<crate::analysis::Measure>) -> Option<(f64, f64)> {
    m.as_ref().and_then(|m| m.interval).map(|i| (i.low, i.high))
}

/// A stage chart's bars: the configuration it builds on when none of its variants is that one
/// (its own run reused), first; then each variant, marked by what became of it.
fn stage_bars(
    x: &Ctx<'_>,
    sa: &crate::analysis::StageAnalysis,
    ss: &crate::study::Stage,
) -> Result<Vec<crate::render::charts::Bar>, I18nError> {
    use crate::render::charts::{Bar, BarKind};
    let (a, c, study) = (x.analysis, x.c, x.study);
    let adopted = sa.adoption.adopted();
    let is_base = |v: &crate::analysis::VariantAnalysis| Ctx::is_stage_base(sa, v);
    let mut bars = Vec::new();
    if !sa.variants.iter().any(is_base)
        && let Some(value) = sa.base_value
    {
        let shown = x.value(&a.objective, Some(value))?;
        bars.push(Bar {
            label: study.variant(&sa.base).map_or(sa.base.to_string(), |(_, v)| v.label.get(&c.locale).to_string()),
            value: Some(value),
            kind: BarKind::Base,
            note: c.fmt("chart-base", &[("value", &shown)])?,
            interval: base_interval(a, &sa.base),
            loss: false,
        });
    }
    // The analysis lists a stage's variants in the study's order.
    for (v, vs) in sa.variants.iter().zip(&ss.variants) {
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
            Outcome::Ran if adopted == Some(v.id.as_str()) => {
                (BarKind::Adopted, c.fmt("chart-adopted", &[("value", &shown)])?)
            }
            Outcome::Ran if is_base(v) => (BarKind::Base, c.fmt("chart-base", &[("value", &shown)])?),
            Outcome::Ran => (BarKind::Plain, x.against_base(value, sa.base_value, &shown)?),
        };
        // A variant worse than the configuration the stage builds on.
        let loss = kind == BarKind::Plain && x.regressed(value, sa.base_value).is_some();
        let value = if kind == BarKind::Failed { None } else { value };
        let interval = v.measure.as_ref().and_then(|m| m.interval).filter(|_| value.is_some());
        bars.push(Bar {
            label: vs.label.get(&c.locale).to_string(),
            value,
            kind,
            note,
            interval: interval.map(|i| (i.low, i.high)),
            loss,
        });
    }
    Ok(bars)
}

impl Ctx<'_> {
    /// A chart's axis title: the metric's name and its unit.
    pub(super) fn axis_title(&self, metric: &crate::metric::Metric) -> Result<String, I18nError> {
        let name = self.metric_name(metric)?;
        let Some(key) = metric.unit.message() else { return Ok(name) };
        // The unit as the catalog writes it after a value, without the value.
        let unit = self.c.fmt(key, &[("value", "")])?;
        self.c.fmt("chart-axis", &[("metric", &name), ("unit", unit.trim())])
    }

    /// The gain of `value` over `base` when it is a loss beyond the noise threshold, as a
    /// scenario's regression is.
    fn regressed(&self, value: Option<f64>, base: Option<f64>) -> Option<f64> {
        let a = self.analysis;
        let gain = value.zip(base).and_then(|(v, b)| a.objective.improvement(v, b))?;
        (gain < -a.noise_threshold && self.figures().is_loss(gain)).then_some(gain)
    }

    /// A bar's note `shown`, with its change against `base` when it is a regression.
    fn against_base(&self, value: Option<f64>, base: Option<f64>, shown: &str) -> Result<String, I18nError> {
        match self.regressed(value, base) {
            Some(g) => {
                let change = self.gain(g, None, How::CHART)?;
                self.c.fmt("chart-change", &[("value", shown), ("change", &change)])
            }
            None => Ok(shown.to_string()),
        }
    }
}

/// The progression chart's points: the baseline, then what each stage adopted, with their
/// intervals.
type Points = (Vec<(String, f64)>, Vec<Option<(f64, f64)>>);
fn progression_points(study: &Study, a: &Analysis, c: &Catalog) -> Result<Points, I18nError> {
    let mut points = Vec::new();
    let mut intervals = Vec::new();
    if let Some(v) = a.baseline_measure.as_ref().and_then(|m| m.value) {
        points.push((c.msg("chart-baseline")?, v));
        intervals.push(ends(&a.baseline_measure));
    }
    for (sa, ss) in a.stages.iter().zip(&study.spec.stages) {
        // A stage a later one builds without is not a point on the way to the total.
        if a.options.iter().any(|o| o.stage == sa.id && o.left_out_by.is_some()) {
            continue;
        }
        let measure = sa
            .adoption
            .adopted()
            .and_then(|id| sa.variants.iter().find(|v| v.id == id))
            .and_then(|v| v.measure.as_ref());
        if let Some(m) = measure
            && let Some(v) = m.value
        {
            points.push((ss.title.get(&c.locale).to_string(), v));
            intervals.push(m.interval.map(|i| (i.low, i.high)));
        }
    }
    Ok((points, intervals))
}

/// The interval of the configuration `source` (`stage/variant`) measured.
fn base_interval(a: &crate::analysis::Analysis, source: &crate::study::Source) -> Option<(f64, f64)> {
    let source = source.variant()?;
    let v = a.stage(source.stage())?.variants.iter().find(|v| v.id == source.variant())?;
    v.measure.as_ref()?.interval.map(|i| (i.low, i.high))
}

/// A chart's two files: its wide layout under `name`, its narrow one under [`narrow_chart`],
/// in the fonts of the catalog's language.
fn push(out: &mut Vec<(String, String)>, name: String, chart: crate::render::charts::Chart, c: &Catalog) {
    let chart = chart.localized(&c.locale);
    out.push((narrow_chart(&name), chart.narrow));
    out.push((name, chart.wide));
}
