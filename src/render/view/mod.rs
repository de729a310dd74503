//! The page as its template sees it: every sentence localized, every number formatted.
//! Built from the [`Analysis`] and the study's texts; no figure is computed here.
//!
//! One module a page section: `conclusion` (the recommendation and the before/after table),
//! `setup` (the experiment and the benchmark), [`age`] (which versions measured the results,
//! and what changed since the previous measurement), `stages` (the variants of each stage),
//! `summary` (each stage's summary, decision and ranking, and the table of options),
//! `warnings`, `results` (other scenarios, accuracy, raw results), `gains` (how a
//! gain is shown), `chart_data` (the charts' bars and points) and `headline` (the page's answer
//! in one line, for the index and the page's description).

mod accuracy;
pub mod age;
mod chart_data;
mod conclusion;
pub mod curves;
mod evidence;
mod gains;
pub(in crate::render) use gains::unmarked;
mod headline;
pub use headline::{description, headline};
mod picture;
pub mod releases;
pub use picture::summary_chart;
mod results;
mod setup;
mod stages;
mod summary;
mod warnings;

use crate::study::command::shell;
pub use chart_data::charts;

use super::i18n::{Arg, Catalog, I18nError};
use super::markdown;
use crate::analysis::Analysis;
use crate::analysis::warnings::{Place, WarningGroup};
use crate::metric::Metric;
use crate::study::{FailureClass, RunKey, Study, Text, VariantRef};
use serde::Serialize;

/// Output flavours of the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavor {
    /// CommonMark with GFM tables and `<details>`: reads well on GitHub and in mdBook.
    Commonmark,
    /// mkdocs-material: collapsible admonitions (`??? info "..."`).
    Mkdocs,
}

/// Where a page's charts and exports are, relative to the page.
#[derive(Debug, Clone, Serialize)]
pub struct Links {
    /// Prefix of chart files, e.g. `glm/` for `glm/stage-engine.svg`.
    pub charts: String,
    /// Prefix of the exports, e.g. `glm/` for `glm/glm.csv`.
    pub data: String,
    /// Whether the page opens with the summary PNG (a drop-in page does; the site's HTML page
    /// opens with its answer and has the same chart as SVG further down).
    pub summary_image: bool,
    /// Whether the charts and exports are where the links say. A page printed on its own
    /// ([`Links::printed`]) has none beside it: it shows no image and no export, and says what
    /// writes them instead.
    pub files: bool,
}

impl Links {
    /// The links of a Markdown page at `<locale>/<study>.md`: its charts and exports are in the
    /// folder `<locale>/<study>/` beside it, so that the page and that folder can be copied into
    /// another site as they are.
    pub fn markdown(study: &str) -> Links {
        Links { charts: format!("{study}/"), data: format!("{study}/"), summary_image: true, files: true }
    }

    /// The links of a Markdown page printed without its charts and exports (`perflab report`
    /// without `--out`): none, so that the page points at no file that is not there.
    pub fn printed(study: &str) -> Links {
        Links { files: false, ..Links::markdown(study) }
    }
}

#[derive(Debug, Serialize)]
pub struct Image {
    pub alt: String,
    pub src: String,
    /// The chart's file name in the charts' folder, from which `src` is made.
    #[serde(skip)]
    file: String,
}

impl Image {
    /// A chart in the charts' folder of `links`.
    pub(super) fn chart(alt: String, links: &Links, file: String) -> Image {
        let mut image = Image { src: String::new(), alt, file };
        image.link(links);
        image
    }

    /// Points the image at its chart in the charts' folder of `links`.
    fn link(&mut self, links: &Links) {
        self.src = self.src_at(links);
    }

    /// The image's address in the charts' folder of `links`.
    fn src_at(&self, links: &Links) -> String {
        markdown::url_path(&format!("{}{}", links.charts, self.file))
    }
}

/// The links of a study's exports, CSV then JSON.
fn export_links(links: &Links, study: &str) -> [String; 2] {
    ["csv", "json"].map(|ext| markdown::url_path(&format!("{}{study}.{ext}", links.data)))
}

impl PageView {
    /// The same page in another flavour, linking its charts and exports as `links` say: what
    /// [`build`] gives for them, without building the page again.
    pub fn relink(&mut self, study: &str, flavor: Flavor, links: &Links) {
        self.flavor = flavor;
        let charts = self
            .stages
            .iter_mut()
            .map(|s| &mut s.chart)
            .chain(self.curves.iter_mut().flat_map(|c| &mut c.charts))
            .chain(self.releases.iter_mut().map(|r| &mut r.chart));
        for image in [&mut self.comparison_chart, &mut self.progression_chart].into_iter().chain(charts) {
            image.link(links);
        }
        self.summary_image = summary_image(&self.comparison_chart, links);
        for ((_, link), new) in self.exports.iter_mut().zip(export_links(links, study)) {
            *link = new;
        }
        self.files = links.files;
    }

    /// What each address of this page's charts, summary image and exports (linked as `from`
    /// says, as [`build`] was given) becomes where they are linked as `to` says: the same page
    /// elsewhere, without rendering it again. None where two of them share an address under
    /// `from` but not under `to`, which leaves no one answer.
    pub fn relinks(&self, study: &str, from: &Links, to: &Links) -> Option<Relinks> {
        let charts = self
            .stages
            .iter()
            .map(|s| &s.chart)
            .chain(self.curves.iter().flat_map(|c| &c.charts))
            .chain(self.releases.iter().map(|r| &r.chart));
        let images = [&self.comparison_chart, &self.progression_chart].into_iter().chain(charts);
        let mut pairs: Vec<(String, Option<String>)> =
            images.map(|image| (image.src_at(from), Some(image.src_at(to)))).collect();
        if let Some(summary) = summary_image(&self.comparison_chart, from) {
            pairs.push((summary.src, summary_image(&self.comparison_chart, to).map(|i| i.src)));
        }
        pairs.extend(export_links(from, study).into_iter().zip(export_links(to, study).map(Some)));
        let mut map = std::collections::HashMap::with_capacity(pairs.len());
        for (old, new) in pairs {
            if map.insert(old, new.clone()).is_some_and(|before| before != new) {
                return None;
            }
        }
        Some(Relinks(map))
    }
}

/// Where a page's charts, summary image and exports are under other links
/// ([`PageView::relinks`]): each address as the page has it, and what it becomes (None: the
/// other links leave it out).
#[derive(Debug, Default)]
pub struct Relinks(std::collections::HashMap<String, Option<String>>);

impl Relinks {
    /// Where `url` points on the page linked the other way: elsewhere where it is one of the
    /// page's charts or exports (nowhere where the other links leave it out), where it did
    /// otherwise.
    pub fn target(&self, url: &str) -> crate::render::html::Target {
        use crate::render::html::Target;
        match self.0.get(url).map(Option::as_deref) {
            None => Target::Same,
            Some(Some(to)) => Target::At(to.to_string()),
            Some(None) => Target::Left,
        }
    }
}

/// The summary PNG a page opens with where `links` want it, under the comparison chart's name.
fn summary_image(comparison: &Image, links: &Links) -> Option<Image> {
    (links.summary_image && links.files)
        .then(|| Image::chart(comparison.alt.clone(), links, crate::render::png::SUMMARY_PNG.to_string()))
}

/// File names of a study's charts.
pub fn stage_chart(stage: &str) -> String {
    format!("stage-{stage}.svg")
}
pub const COMPARISON_CHART: &str = "comparison.svg";

/// The file of a chart's narrow layout, beside its wide one: `stage-x.svg` → `stage-x.narrow.svg`.
pub fn narrow_chart(name: &str) -> String {
    match name.strip_suffix(".svg") {
        Some(stem) => format!("{stem}.narrow.svg"),
        None => format!("{name}.narrow"),
    }
}
pub const PROGRESSION_CHART: &str = "progression.svg";
/// A curve profile's charts: throughput and the limited latency against load, and the Pareto
/// chart of every configuration's boundary.
pub fn curve_chart(profile: &str, which: CurveChart) -> String {
    match which {
        CurveChart::Throughput => format!("curve-{profile}.svg"),
        CurveChart::Latency => format!("curve-{profile}-latency.svg"),
        CurveChart::Pareto => format!("pareto-{profile}.svg"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveChart {
    Throughput,
    Latency,
    Pareto,
}

#[derive(Debug, Serialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Debug, Serialize)]
pub struct Collapsible {
    pub title: String,
    /// Text shown in a code block.
    pub code: String,
    /// The code block's language.
    pub lang: String,
}

#[derive(Debug, Serialize)]
pub struct VariantView {
    pub id: String,
    pub label: String,
    /// Profile, command, failure or reuse lines, as Markdown list items.
    pub facts: Vec<String>,
    pub command: Collapsible,
    pub error: Option<Collapsible>,
    /// Every measurement's block (one for a single run).
    pub result: Vec<Collapsible>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct StageView {
    pub id: String,
    pub number: usize,
    pub title: String,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub variants: Vec<VariantView>,
    pub summary: Option<String>,
    pub ranking: Option<String>,
    pub chart: Image,
    pub adoption: String,
    pub excluded: Option<String>,
    /// The accuracy of its variants, when the stage requires it.
    pub accuracy: Option<accuracy::GateView>,
}

#[derive(Debug, Serialize)]
pub struct ScenarioView {
    pub title: String,
    /// Baseline → optimized with the change, in view above the closed raw results.
    pub line: String,
    pub baseline: Vec<Collapsible>,
    pub optimized: Vec<Collapsible>,
    pub commands: Vec<Collapsible>,
}

#[derive(Debug, Serialize)]
pub struct AccuracyView {
    pub title: String,
    pub description: Option<String>,
    pub table: Table,
    pub note: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct PageView {
    pub locale: String,
    pub flavor: Flavor,
    pub title: String,
    pub goal: Option<String>,
    /// Why the page has no answer yet (what has no result), said first; then it shows no
    /// result line and no command.
    pub unanswered: Option<String>,
    pub recommended_intro: String,
    /// The target profile before and after, in one line.
    pub result: Option<String>,
    pub recommended: String,
    pub excluded: Vec<String>,
    pub comparison: Table,
    /// What the comparison's TPOT is, when a run it shows printed latency ÷ tokens as TPOT.
    pub comparison_note: Option<String>,
    /// The metric the comparison's change column is in.
    pub comparison_metric: String,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    /// Data warnings about the study as a whole, or about runs shown in several places.
    pub data_warnings: Vec<String>,
    /// Data warnings about runs shown only among the other scenarios.
    pub scenario_warnings: Vec<String>,
    pub setup: Vec<(String, String)>,
    pub engines: Vec<String>,
    pub benchmark: Vec<String>,
    pub benchmark_command: Option<String>,
    pub profiles: Vec<setup::ProfileView>,
    /// The host and port the profiles' commands connect to, when the study does not fix them.
    pub profiles_note: Option<String>,
    /// What the runs recorded of their machine and engine (see [`setup::Setup::recorded`]).
    pub recorded: Vec<(String, String)>,
    pub stages: Vec<StageView>,
    /// The profile every variant of every stage is measured on, said once above them.
    pub stages_profile: String,
    pub options: Table,
    pub scenarios: Vec<ScenarioView>,
    pub accuracy: Vec<AccuracyView>,
    pub comparison_chart: Image,
    /// The summary PNG at the top of a drop-in page.
    pub summary_image: Option<Image>,
    pub progression_chart: Image,
    /// (label, link) of the CSV and JSON exports.
    pub exports: Vec<(String, String)>,
    /// Whether the charts and exports are beside the page ([`Links::files`]): where they are
    /// not, the page shows no image and no export, and says what writes them.
    pub files: bool,
    /// Which engine versions measured the results shown, and when.
    pub age: age::AgeView,
    /// What changed since the previous measurement, when there is one.
    pub changes: Option<age::ChangesView>,
    /// How many runs stand behind the figures (single runs, or means of repeats).
    pub evidence: String,
    /// The load curves of the profiles that have one.
    pub curves: Vec<curves::CurveView>,
    /// The answer across the engine releases of the study's history, when it holds three.
    pub releases: Option<releases::ReleasesView>,
    /// Every run a data warning about many runs names, with its figures: a table at the end.
    pub warning_runs: Option<Table>,
}

/// A table cell: no line breaks, no column separators.
pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

pub(super) struct Ctx<'a> {
    pub(super) study: &'a Study,
    pub(super) analysis: &'a Analysis,
    pub(super) c: &'a Catalog,
    /// The page's data warnings, grouped and placed.
    pub(super) groups: Vec<WarningGroup>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(study: &'a Study, analysis: &'a Analysis, c: &'a Catalog) -> Ctx<'a> {
        Ctx { study, analysis, c, groups: analysis.warning_groups() }
    }
}

impl Ctx<'_> {
    fn text(&self, t: &Text) -> String {
        self.in_english_if(t.falls_back(&self.c.locale), markdown::prose(t.get(&self.c.locale)))
    }

    /// Study text shown in English on a page in another language (it has no translation; see
    /// `perflab translations`), marked `lang="en"` so that a browser, a screen reader or a
    /// translation tool reads it as English.
    fn in_english_if(&self, falls_back: bool, markdown: String) -> String {
        if !falls_back || self.c.locale == crate::render::i18n::SOURCE_LOCALE {
            markdown
        } else if markdown.contains("\n\n") {
            format!("<div lang=\"en\">\n\n{markdown}\n\n</div>")
        } else {
            format!("<span lang=\"en\">{markdown}</span>")
        }
    }

    fn texts(&self, ts: &[Text]) -> Vec<String> {
        ts.iter().map(|t| self.text(t)).collect()
    }

    /// The measure of variant `variant` of stage `stage`, where it has one.
    pub(super) fn measure_of(&self, stage: &str, variant: &str) -> Option<&crate::analysis::Measure> {
        let sa = self.analysis.stages.iter().find(|s| s.id == stage)?;
        sa.variants.iter().find(|v| v.id == variant)?.measure.as_ref()
    }

    /// A measure's objective as [`Ctx::value`] shows it, "≥ 64 (the search's limit)" where it is
    /// a lower bound: for a table's cell, where nothing else says so.
    pub(super) fn objective_value(&self, m: Option<&crate::analysis::Measure>) -> Result<String, I18nError> {
        self.objective_as(m, "value-at-limit")
    }

    /// A measure's objective, "≥ 64" where it is a lower bound: for a sentence or a picture
    /// whose gain then says "at least".
    pub(super) fn objective_short(&self, m: Option<&crate::analysis::Measure>) -> Result<String, I18nError> {
        self.objective_as(m, "value-at-least")
    }

    fn objective_as(&self, m: Option<&crate::analysis::Measure>, bound: &str) -> Result<String, I18nError> {
        let value = self.value(&self.analysis.objective, m.and_then(|m| m.value))?;
        match m {
            Some(m) if m.at_least && m.value.is_some() => self.c.fmt(bound, &[("value", &value)]),
            _ => Ok(value),
        }
    }

    /// A gain whose far side is a lower bound (and whose near side is not) is one too:
    /// `at least ▲ +300.00%`; between two bounds no gain is known.
    pub(super) fn gain_from(
        &self,
        gain: String,
        base: Option<&crate::analysis::Measure>,
        best: Option<&crate::analysis::Measure>,
    ) -> Result<String, I18nError> {
        let bound = |m: Option<&crate::analysis::Measure>| m.is_some_and(|m| m.at_least);
        match (bound(best), bound(base)) {
            (true, true) => self.c.msg("gain-both-at-least"),
            (true, false) => self.c.fmt("gain-at-least", &[("gain", &gain)]),
            _ => Ok(gain),
        }
    }

    /// A value of `metric` in its unit and precision, e.g. `13760.98 tok/s`, `266.89 ms`.
    pub(super) fn value(&self, metric: &Metric, x: Option<f64>) -> Result<String, I18nError> {
        let Some(x) = x else {
            return self.c.msg("value-missing");
        };
        let number = Arg::Number { value: x, decimals: metric.decimals };
        match metric.unit.message() {
            Some(key) => self.c.fmt_args(key, &[("value", number)]),
            None => Ok(self.c.number(x, metric.decimals)),
        }
    }

    /// The display name of a metric.
    pub(super) fn metric_name(&self, metric: &Metric) -> Result<String, I18nError> {
        if let Some(label) = &metric.label {
            return Ok(markdown::plain(label.get(&self.c.locale)));
        }
        match metric.name_message {
            Some(key) => self.c.msg(key),
            // A latency statistic without a name of its own (`median_tpot_ms`): named as an SLO's
            // limit on it is ("median TPOT"); a statistic no limit takes (`std`) as it is spelt.
            None => match crate::curve::Limit::parse(&metric.key, 0.0) {
                Some(limit) => self.limit_name(&limit),
                None => match crate::parse::names::latency_stat_parts(&metric.key) {
                    Some((stat, latency)) => Ok(format!("{stat} {}", latency.to_uppercase())),
                    None => Ok(metric.key.clone()),
                },
            },
        }
    }

    pub(super) fn stage_title(&self, id: &str) -> String {
        self.study.stage(id).map_or(id.to_string(), |s| self.text(&s.title))
    }

    /// Whether `v` is the stage's own variant that measured its base unchanged: the chart's
    /// base bar, whose label names the base wherever the stage's page refers to it.
    pub(super) fn is_stage_base(sa: &crate::analysis::StageAnalysis, v: &crate::analysis::VariantAnalysis) -> bool {
        v.reused_from.as_deref() == Some(sa.base.as_str()) || sa.base.variant() == Some(&VariantRef::new(&sa.id, &v.id))
    }

    /// The label of `reference` on the page of stage `sa`: the base goes by its own variant's
    /// label where the stage has one, as its chart bar does.
    pub(super) fn label_in(&self, sa: &crate::analysis::StageAnalysis, reference: &str) -> String {
        match sa.variants.iter().find(|v| sa.base == reference && Self::is_stage_base(sa, v)) {
            Some(v) => self.label(&VariantRef::new(&sa.id, &v.id)),
            // A configuration of an earlier stage is named with that stage: a label alone ("0.85")
            // reads as one of this stage's settings.
            None => match reference.split_once('/') {
                Some((stage, _)) if stage != sa.id => self.stage_and_label(reference),
                _ => self.label(reference),
            },
        }
    }

    /// `stage/variant` → the variant's label.
    pub(super) fn label(&self, reference: &str) -> String {
        self.study.variant(reference).map_or(reference.to_string(), |(_, v)| {
            self.in_english_if(v.label.falls_back(&self.c.locale), markdown::plain(v.label.get(&self.c.locale)))
        })
    }

    /// `stage/variant` → "Stage › Variant".
    pub(super) fn stage_and_label(&self, reference: &str) -> String {
        format!("{} › {}", self.stage_title(reference.split('/').next().unwrap_or("")), self.label(reference))
    }

    /// A table's heading for the baseline's column: "default settings" only where the baseline
    /// is an engine with its defaults (a variant of a stage that chooses the engine); a baseline
    /// that sets what its stage tunes (`--max-num-seqs 16`) is named by its label alone.
    pub(super) fn baseline_header(&self, label: &str) -> Result<String, I18nError> {
        let source = &self.analysis.baseline.source;
        let engine_stage = self.study.variant(source).is_some_and(|(s, _)| {
            let engines: std::collections::BTreeSet<_> = s.variants.iter().filter_map(|v| v.engine.as_ref()).collect();
            s.variants.len() > 1 && engines.len() == s.variants.len()
        });
        let key = if engine_stage { "table-baseline" } else { "table-baseline-tuned" };
        self.c.fmt(key, &[("baseline", label)])
    }

    pub(super) fn profile_name(&self, id: &str) -> String {
        self.study.profile(id).map_or(id.to_string(), |p| self.text(&p.name))
    }

    /// `stage/variant/profile` → "Stage › Variant (Profile)", or "Stage › Variant › Profile"
    /// where the profile's name holds brackets of its own ("Long context (32K input / 100
    /// output)", "长上下文（输入 32K / 输出 100）"), so that none nest; the catalog's `run-title`
    /// brackets it as the language does (full-width in Chinese and Japanese).
    pub(super) fn run_title(&self, k: &RunKey) -> String {
        let (stage, variant) = (self.stage_title(&k.stage), self.label(&k.config()));
        let profile = self.profile_name(&k.profile);
        let nested = profile.contains(['(', '（']);
        let key = if nested { "run-title-nested" } else { "run-title" };
        // A catalog written before these keys existed keeps the English brackets.
        self.c.fmt(key, &[("stage", &stage), ("variant", &variant), ("profile", &profile)]).unwrap_or_else(|_| {
            if nested {
                format!("{stage} › {variant} › {profile}")
            } else {
                format!("{stage} › {variant} ({profile})")
            }
        })
    }

    pub(super) fn failure_class(&self, class: FailureClass) -> Result<String, I18nError> {
        self.c.msg(match class {
            FailureClass::Oom => "failure-oom",
            FailureClass::Unsupported => "failure-unsupported",
            FailureClass::StartFailure => "failure-start-failure",
            FailureClass::StartTimeout => "failure-start-timeout",
            FailureClass::Crash => "failure-crash",
            FailureClass::BenchmarkFailure => "failure-benchmark-failure",
            FailureClass::PortInUse => "failure-port-in-use",
            FailureClass::RequestsFailed => "failure-requests-failed",
            FailureClass::TimeLimit => "failure-time-limit",
            FailureClass::NodeFailure => "failure-node-failure",
            FailureClass::Cancelled => "failure-cancelled",
            FailureClass::JobOutOfMemory => "failure-job-out-of-memory",
            FailureClass::SloNotMet => "failure-slo-not-met",
        })
    }

    pub(super) fn collapsible(&self, key: &str, code: String, lang: &str) -> Result<Collapsible, I18nError> {
        Ok(Collapsible { title: self.c.msg(key)?, code, lang: lang.to_string() })
    }
}

/// Builds the page of `study` in the catalog's language.
pub fn build(
    study: &Study,
    analysis: &Analysis,
    c: &Catalog,
    flavor: Flavor,
    links: &Links,
) -> Result<PageView, I18nError> {
    let x = Ctx::new(study, analysis, c);
    let spec = &study.spec;
    let a = analysis;
    let conclusion = x.conclusion()?;
    let setup = x.setup()?;
    let stages = x.stages(links)?;
    let options = x.options()?;
    let scenarios = x.scenarios()?;
    let accuracy = x.accuracy();
    let comparison_chart = Image::chart(
        c.fmt("chart-comparison", &[("metric", &x.metric_name(&a.objective)?)])?,
        links,
        COMPARISON_CHART.to_string(),
    );
    let summary_image = summary_image(&comparison_chart, links);
    let progression_chart = Image::chart(
        c.fmt("chart-progression", &[("metric", &x.metric_name(&a.objective)?)])?,
        links,
        PROGRESSION_CHART.to_string(),
    );
    let [csv, json] = export_links(links, &study.id);
    let exports = vec![(c.msg("export-csv")?, csv), (c.msg("export-json")?, json)];
    Ok(PageView {
        curves: x.curves(links)?,
        releases: x.releases(links)?,
        evidence: x.evidence()?,
        warning_runs: x.warning_runs()?,
        comparison_chart,
        summary_image,
        progression_chart,
        exports,
        files: links.files,
        locale: c.locale.clone(),
        flavor,
        title: x.text(&spec.title),
        goal: spec.goal.as_ref().map(|g| x.text(g)),
        unanswered: conclusion.unanswered,
        recommended_intro: conclusion.recommended_intro,
        result: conclusion.result,
        recommended: shell(&a.recommended),
        excluded: conclusion.excluded,
        comparison: conclusion.comparison,
        comparison_note: conclusion.comparison_note,
        comparison_metric: x.metric_name(&a.objective)?,
        notes: x.texts(&spec.notes),
        warnings: x.texts(&spec.warnings),
        data_warnings: conclusion.data_warnings,
        scenario_warnings: x.warning_boxes(&Place::Scenarios)?,
        setup: setup.setup,
        engines: setup.age.engines.clone(),
        age: setup.age,
        changes: setup.changes,
        benchmark: setup.benchmark,
        // The template with its placeholders only where a profile could not be shown filled in.
        benchmark_command: spec
            .benchmark
            .command
            .as_ref()
            .filter(|_| setup.profiles.iter().any(|p| p.lang != "bash"))
            .map(|c| c.get_ref().clone()),
        profiles: setup.profiles,
        profiles_note: setup.profiles_note,
        recorded: setup.recorded,
        stages,
        stages_profile: c.fmt("variant-profile", &[("profile", &x.profile_name(&a.target_profile))])?,
        options,
        scenarios,
        accuracy,
    })
}

/// What changed in a study, localized (for `perflab diff`).
pub fn changes(
    study: &Study,
    analysis: &Analysis,
    c: &Catalog,
    diff: &crate::analysis::Diff,
) -> Result<age::ChangesView, I18nError> {
    Ctx::new(study, analysis, c).changes(diff)
}

/// A study's title in one language, as Markdown text.
pub fn title(study: &Study, c: &Catalog) -> String {
    markdown::prose(study.spec.title.get(&c.locale))
}

/// An index card's engines and dates: every engine the study names, once, with the versions
/// that measured its runs (or the study's version and "no result" where none was measured),
/// then the dates of those runs said once for the whole card.
pub fn card_engines(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<(String, String), I18nError> {
    let mut engines = Vec::new();
    let mut dates: Vec<&String> = Vec::new();
    let mut undated = false;
    for e in &study.spec.engines {
        let measured =
            analysis.age.engines.iter().find(|a| a.engine == *e.id.get_ref()).map_or(&[][..], |a| &a.versions[..]);
        if measured.is_empty() {
            let version = shown_version(&e.version);
            engines.push(c.fmt("site-engine-no-result", &[("engine", &e.name), ("version", &version)])?);
        }
        for v in measured {
            engines.push(format!("{} {}", e.name, shown_version(&v.version)));
            dates.extend(v.first.iter().chain(&v.last));
            undated |= v.first.is_none();
        }
    }
    let (first, last) = (dates.iter().min(), dates.iter().max());
    let when = match (first, last) {
        _ if undated && dates.is_empty() => c.msg("site-dates-unknown")?,
        (Some(f), Some(l)) if f != l => c.fmt("site-dates", &[("first", f), ("last", l)])?,
        (Some(f), _) => c.fmt("site-date", &[("date", f)])?,
        _ => String::new(),
    };
    Ok((c.fmt("site-engines", &[("engines", &c.list(&engines))])?, when))
}

/// An engine version as the index cards write it: with a "v" before one that starts with a digit.
fn shown_version(version: &str) -> String {
    if version.starts_with(|c: char| c.is_ascii_digit()) { format!("v{version}") } else { version.to_string() }
}
