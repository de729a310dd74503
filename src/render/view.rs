//! The page as its template sees it: every sentence localized, every number formatted.
//! Built from the [`Analysis`] and the study's texts; no figure is computed here.

use super::i18n::{Arg, Catalog, I18nError};
use super::markdown;
use crate::analysis::{Adoption, Analysis, Command, Delta, Measure, NoResultReason, Outcome, Trend, Warning};
use crate::metric::Metric;
use crate::study::{FailureClass, Profile, Rate, RunKey, Study, Text};
use serde::Serialize;

/// Output flavours of the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
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
    /// Prefix of the exports, e.g. `../data/`.
    pub data: String,
}

impl Links {
    /// The links of a Markdown page at `<locale>/<study>.md` beside `data/`.
    pub fn markdown(study: &str) -> Links {
        Links { charts: format!("{study}/"), data: "../data/".to_string() }
    }
}

#[derive(Debug, Serialize)]
pub struct Image {
    pub alt: String,
    pub src: String,
}

/// File names of a study's charts.
pub fn stage_chart(stage: &str) -> String {
    format!("stage-{stage}.svg")
}
pub const COMPARISON_CHART: &str = "comparison.svg";
pub const PROGRESSION_CHART: &str = "progression.svg";

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
    pub result: Option<Collapsible>,
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
}

#[derive(Debug, Serialize)]
pub struct ScenarioView {
    pub title: String,
    pub baseline: Option<Collapsible>,
    pub optimized: Option<Collapsible>,
    pub commands: Vec<Collapsible>,
    pub warnings: Vec<String>,
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
    pub recommended_intro: String,
    pub recommended: String,
    pub excluded: Vec<String>,
    pub comparison: Table,
    /// The metric the comparison's change column is in.
    pub comparison_metric: String,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub data_warnings: Vec<String>,
    pub setup: Vec<(String, String)>,
    pub engines: Vec<String>,
    pub benchmark: Vec<String>,
    pub benchmark_command: Option<String>,
    pub profiles: Vec<(String, String)>,
    pub stages: Vec<StageView>,
    pub options: Table,
    pub scenarios: Vec<ScenarioView>,
    pub accuracy: Vec<AccuracyView>,
    pub comparison_chart: Image,
    pub progression_chart: Image,
    /// (label, link) of the CSV and JSON exports.
    pub exports: Vec<(String, String)>,
    /// Which engine versions measured the results shown, and when.
    pub age: super::age::AgeView,
    /// What changed since the previous measurement, when there is one.
    pub changes: Option<super::age::ChangesView>,
    /// How many runs stand behind the figures (single runs, or means of repeats).
    pub evidence: String,
}

/// A failure's link: an autolink when [`markdown::link_allowed`] allows it, otherwise text.
fn link_markdown(link: &str) -> String {
    let autolink_safe = !link.chars().any(|c| c.is_whitespace() || c.is_control() || "<>".contains(c));
    if markdown::link_allowed(link) && autolink_safe && link.contains(':') {
        format!("<{link}>")
    } else {
        markdown::code(link)
    }
}

/// A table cell: no line breaks, no column separators.
pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

pub(super) struct Ctx<'a> {
    pub(super) study: &'a Study,
    pub(super) analysis: &'a Analysis,
    pub(super) c: &'a Catalog,
}

impl Ctx<'_> {
    fn text(&self, t: &Text) -> String {
        markdown::prose(t.get(&self.c.locale))
    }

    fn texts(&self, ts: &[Text]) -> Vec<String> {
        ts.iter().map(|t| self.text(t)).collect()
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

    /// A percentage with the study's `display.percent_decimals`; `signed` puts `+` before a
    /// positive one.
    fn percent(&self, p: f64, signed: bool) -> Result<String, I18nError> {
        self.c.percent(p, signed, *self.study.spec.display.percent_decimals.get_ref())
    }

    /// The display name of a metric.
    pub(super) fn metric_name(&self, metric: &Metric) -> Result<String, I18nError> {
        if let Some(label) = &metric.label {
            return Ok(markdown::plain(label.get(&self.c.locale)));
        }
        match metric.name_message {
            Some(key) => self.c.msg(key),
            None => Ok(metric.key.clone()),
        }
    }

    pub(super) fn stage_title(&self, id: &str) -> String {
        self.study.stage(id).map_or(id.to_string(), |s| self.text(&s.title))
    }

    /// `stage/variant` → the variant's label.
    pub(super) fn label(&self, reference: &str) -> String {
        self.study.variant(reference).map_or(reference.to_string(), |(_, v)| markdown::plain(&v.label))
    }

    pub(super) fn profile_name(&self, id: &str) -> String {
        self.study.profile(id).map_or(id.to_string(), |p| self.text(&p.name))
    }

    /// `stage/variant/profile` → "Stage › Variant (Profile)".
    pub(super) fn run_title(&self, run: &str) -> String {
        let k = RunKey::parse(run);
        format!(
            "{} › {} ({})",
            self.stage_title(&k.stage),
            self.label(&format!("{}/{}", k.stage, k.variant)),
            self.profile_name(&k.profile)
        )
    }

    fn warning(&self, w: &Warning) -> Result<String, I18nError> {
        let c = self.c;
        match w {
            Warning::LostRequests { run, completed, expected } => c.fmt_args(
                "warning-lost-requests",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("completed", Arg::count(*completed)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
            Warning::Incomplete { run } => c.fmt("warning-incomplete", &[("run", &self.run_title(run))]),
            Warning::Noisy { runs, values, spread_percent } => {
                let list: Vec<String> = runs
                    .iter()
                    .zip(values)
                    .map(|(r, v)| {
                        format!("{}: {}", self.run_title(r), self.c.number(*v, self.analysis.objective.decimals))
                    })
                    .collect();
                c.fmt_args(
                    "warning-noisy",
                    &[
                        ("count", Arg::count(runs.len() as u64)),
                        ("spread", (&self.percent(*spread_percent, false)?).into()),
                        ("threshold", (&self.percent(self.analysis.noise_threshold, false)?).into()),
                        ("values", (&list.join("; ")).into()),
                    ],
                )
            }
            Warning::ImplausiblePeak { runs } => {
                let tps = Metric::of("output_throughput");
                let list = runs
                    .iter()
                    .map(|p| {
                        c.fmt(
                            "warning-implausible-peak-run",
                            &[
                                ("run", &self.run_title(&p.run)),
                                ("peak", &self.value(&tps, Some(p.peak))?),
                                ("ceiling", &self.value(&tps, Some(p.ceiling))?),
                            ],
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let limit = Arg::Number { value: crate::analysis::warnings::STREAM_RATE_LIMIT, decimals: 0 };
                let limit = c.fmt_args("unit-tok-s", &[("value", limit)])?;
                c.fmt_args(
                    "warning-implausible-peak",
                    &[
                        ("count", Arg::count(runs.len() as u64)),
                        ("stream_limit", (&limit).into()),
                        ("runs", (&list.join("; ")).into()),
                    ],
                )
            }
            Warning::TpotIncludesWaiting { runs } => {
                let (ms, seconds) = (Metric::of("mean_tpot_ms"), Metric::of("duration"));
                let list = runs
                    .iter()
                    .map(|w| {
                        c.fmt_args(
                            "warning-tpot-includes-waiting-run",
                            &[
                                ("run", (&self.run_title(&w.run)).into()),
                                ("tpot", (&self.value(&ms, Some(w.tpot_ms))?).into()),
                                ("latency", (&self.value(&seconds, Some(w.latency_ms / 1000.0))?).into()),
                                ("tokens", Arg::Number { value: w.tokens, decimals: 0 }),
                            ],
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                c.fmt_args(
                    "warning-tpot-includes-waiting",
                    &[("count", Arg::count(runs.len() as u64)), ("runs", (&list.join("; ")).into())],
                )
            }
            Warning::ZeroLatency { run, metric } => c.fmt(
                "warning-zero-latency",
                &[("run", &self.run_title(run)), ("metric", &self.metric_name(&Metric::of(metric))?)],
            ),
            Warning::RequestCount { run, counted, expected } => c.fmt_args(
                "warning-request-count",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("counted", Arg::count(*counted)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
        }
    }

    fn warnings_for(&self, run: &str) -> Result<Vec<String>, I18nError> {
        self.analysis.warnings_for(run).into_iter().map(|w| self.warning(w)).collect()
    }

    /// `Total TPS: 13760.98 tok/s` and `Mean TPOT: 266.89 ms` of a measure, joined by `sep`.
    fn measure_cell(&self, m: Option<&Measure>, sep: &str) -> Result<String, I18nError> {
        let Some(m) = m else {
            return self.c.msg("value-missing");
        };
        let a = self.analysis;
        Ok(format!(
            "{}: {}{sep}{}: {}",
            self.metric_name(&a.objective)?,
            self.value(&a.objective, m.value)?,
            self.metric_name(&a.secondary)?,
            self.value(&a.secondary, m.secondary)?
        ))
    }

    fn change_cell(&self, s: &crate::analysis::Scenario) -> Result<String, I18nError> {
        let Some(p) = s.change else {
            return self.c.msg("value-missing");
        };
        let mut text = match self.ratio(p) {
            Some(ratio) => ratio?,
            None => self.signed_with(p, s.change_interval)?,
        };
        if s.regression {
            text = self.c.fmt("change-regression", &[("change", &text)])?;
        }
        for m in [&s.baseline, &s.optimized].into_iter().flatten() {
            match m.status {
                crate::analysis::RunStatus::LostRequests { completed, expected } => {
                    text = self.c.fmt_args(
                        "change-lost",
                        &[
                            ("change", (&text).into()),
                            ("completed", Arg::count(completed)),
                            ("expected", Arg::count(expected)),
                        ],
                    )?;
                }
                crate::analysis::RunStatus::Incomplete => {
                    text = self.c.fmt("change-incomplete", &[("change", &text)])?
                }
                crate::analysis::RunStatus::Ok => {}
            }
        }
        Ok(text)
    }

    /// Whether gains of the objective are shown as speedups (`display.speedup`, a latency).
    fn speedups(&self) -> bool {
        self.study.spec.display.speedup && self.analysis.objective.lower_is_better()
    }

    /// A gain of the objective as the page shows it: in percent of the base's value, or as a
    /// speedup (base / new − 1, in percent) when the study shows speedups.
    pub(super) fn shown_gain(&self, p: f64) -> f64 {
        let remaining = 1.0 - p / 100.0;
        if self.speedups() && remaining > 0.0 { (1.0 / remaining - 1.0) * 100.0 } else { p }
    }

    /// The change of the objective as a ratio, "2.7× faster", when the study shows speedups.
    fn ratio(&self, p: f64) -> Option<Result<String, I18nError>> {
        let remaining = 1.0 - p / 100.0;
        if !self.speedups() || remaining <= 0.0 {
            return None;
        }
        let decimals = *self.study.spec.display.percent_decimals.get_ref();
        let (key, factor, class) = if remaining <= 1.0 {
            ("ratio-faster", 1.0 / remaining, "gain")
        } else {
            ("ratio-slower", remaining, "loss")
        };
        let text = self.c.fmt_args(key, &[("value", Arg::Number { value: factor, decimals })]);
        Some(text.map(|t| format!("<span class=\"{class}\">{t}</span>")))
    }

    /// A signed gain of the objective marked as a gain or a loss (green or red on the site).
    pub(super) fn signed(&self, p: f64) -> Result<String, I18nError> {
        let p = self.shown_gain(p);
        let text = self.percent(p, true)?;
        Ok(match Delta::new(p, 0.0).trend {
            Trend::Higher => format!("<span class=\"gain\">{text}</span>"),
            Trend::Lower => format!("<span class=\"loss\">{text}</span>"),
            Trend::Same => text,
        })
    }

    fn failure_class(&self, class: FailureClass) -> Result<String, I18nError> {
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
        })
    }

    fn collapsible(&self, key: &str, code: String, lang: &str) -> Result<Collapsible, I18nError> {
        Ok(Collapsible { title: self.c.msg(key)?, code, lang: lang.to_string() })
    }

    fn raw(&self, key: &str, m: Option<&Measure>) -> Result<Option<Collapsible>, I18nError> {
        let Some(m) = m else { return Ok(None) };
        let Some(run) = self.study.runs.get(&RunKey::parse(&m.run)) else {
            return Ok(None);
        };
        Ok(Some(self.collapsible(key, run.text.trim_end().to_string(), "text")?))
    }
}

/// A serving command as a shell snippet: `export` lines, then one flag a line.
pub fn shell(cmd: &Command) -> String {
    let mut out = String::new();
    for (k, v) in &cmd.env {
        let quoted = if v.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:".contains(c)) {
            v.clone()
        } else {
            format!("'{}'", v.replace('\'', "'\\''"))
        };
        out.push_str(&format!("export {k}={quoted}\n"));
    }
    out.push_str(&cmd.launch);
    for flag in &cmd.flags {
        let shown = match flag.split_once(char::is_whitespace) {
            Some((name, value)) if value.contains(['{', '"', ' ', '\'']) && !name.contains('=') => {
                format!("{name} '{}'", value.trim().replace('\'', "'\\''"))
            }
            _ => flag.clone(),
        };
        out.push_str(&format!(" \\\n    {shown}"));
    }
    out
}

fn profile_toml(p: &Profile) -> String {
    let mut lines = vec![format!("dataset = \"{}\"", p.dataset)];
    if let Some(path) = &p.dataset_path {
        lines.push(format!("dataset_path = \"{path}\""));
    }
    for (k, v) in [("input_tokens", p.input_tokens), ("output_tokens", p.output_tokens), ("seed", p.seed)] {
        if let Some(v) = v {
            lines.push(format!("{k} = {v}"));
        }
    }
    match &p.request_rate {
        Some(Rate::PerSecond(r)) => lines.push(format!("request_rate = {r}")),
        Some(Rate::Unlimited) => lines.push("request_rate = \"inf\"".to_string()),
        None => {}
    }
    lines.push(format!("total_requests = {}", p.total_requests));
    if let Some(c) = p.max_concurrency {
        lines.push(format!("max_concurrency = {c}"));
    }
    if !p.args.is_empty() {
        let words: Vec<String> = p.args.iter().map(|a| format!("{a:?}")).collect();
        lines.push(format!("args = [{}]", words.join(", ")));
    }
    lines.join("\n")
}

/// Builds the page of `study` in the catalog's language.
pub fn build(
    study: &Study,
    analysis: &Analysis,
    c: &Catalog,
    flavor: Flavor,
    links: &Links,
) -> Result<PageView, I18nError> {
    let x = Ctx { study, analysis, c };
    let spec = &study.spec;
    let a = analysis;

    // Conclusion.
    let recommended_intro =
        c.fmt("conclusion-intro", &[("model", &markdown::code(&spec.model)), ("hardware", &x.text(&spec.hardware))])?;
    let excluded = a
        .excluded_stages
        .iter()
        .filter_map(|id| study.stage(id))
        .map(|s| {
            let reason = s.exclude_from_command.as_ref().map(|r| x.text(&r.reason)).unwrap_or_default();
            c.fmt("conclusion-excluded", &[("stage", &x.text(&s.title)), ("reason", &reason)])
        })
        .collect::<Result<_, _>>()?;
    let baseline_label = x.label(&a.baseline.source);
    let mut rows = Vec::new();
    for s in &a.scenarios {
        let mut name = x.profile_name(&s.profile);
        if s.target {
            name = c.fmt("table-target", &[("profile", &name)])?;
        }
        rows.push(vec![
            cell(&name),
            cell(&x.measure_cell(s.baseline.as_ref(), "<br>")?),
            cell(&x.measure_cell(s.optimized.as_ref(), "<br>")?),
            cell(&x.change_cell(s)?),
        ]);
    }
    let comparison = Table {
        headers: vec![
            c.msg("table-profile")?,
            c.fmt("table-baseline", &[("baseline", &baseline_label)])?,
            c.msg("table-optimized")?,
            c.fmt("table-change", &[("metric", &x.metric_name(&a.objective)?)])?,
        ],
        rows,
    };
    let data_warnings: Vec<String> = a.warnings.iter().map(|w| x.warning(w)).collect::<Result<_, _>>()?;

    // Setup.
    let mut setup =
        vec![(c.msg("setup-model")?, markdown::code(&spec.model)), (c.msg("setup-hardware")?, x.text(&spec.hardware))];
    if let Some(date) = &spec.date {
        setup.push((c.msg("setup-date")?, date.get_ref().clone()));
    }
    let age = x.age()?;
    let changes = a.changes.as_ref().map(|d| x.changes(d)).transpose()?;
    let mut benchmark = vec![c.fmt("setup-tool", &[("tool", &markdown::code(&spec.benchmark.tool))])?];
    if let Some(runner) = &spec.benchmark.runner {
        benchmark.push(c.fmt("setup-runner", &[("runner", &markdown::plain(runner))])?);
    }
    if let Some(d) = &spec.benchmark.description {
        benchmark.push(x.text(d));
    }
    let profiles = spec.profiles.iter().map(|p| (x.text(&p.name), profile_toml(p))).collect();

    // Stages.
    let target_name = x.profile_name(&a.target_profile);
    let mut stages = Vec::new();
    for (i, (sa, ss)) in a.stages.iter().zip(&spec.stages).enumerate() {
        let mut variants = Vec::new();
        for (va, vs) in sa.variants.iter().zip(&ss.variants) {
            let mut facts = vec![c.fmt("variant-profile", &[("profile", &target_name)])?];
            let mut error = None;
            match &va.outcome {
                Outcome::Failed { class } => {
                    facts.push(c.fmt("variant-failed", &[("reason", &x.failure_class(*class)?)])?);
                    if let Some(f) = &vs.failure {
                        if let Some(e) = &f.explanation {
                            facts.push(x.text(e));
                        }
                        if let Some(link) = &f.link {
                            facts.push(c.fmt("variant-link", &[("link", &link_markdown(link))])?);
                        }
                    }
                    if let Some(m) = &va.failure_message {
                        error = Some(x.collapsible("variant-error", m.clone(), "text")?);
                    }
                }
                Outcome::Missing => facts.push(c.msg("variant-missing")?),
                _ => {}
            }
            if let Some(source) = &va.reused_from {
                facts.push(c.fmt(
                    "variant-reused",
                    &[(
                        "source",
                        &format!("{} › {}", x.stage_title(source.split('/').next().unwrap_or("")), x.label(source)),
                    )],
                )?);
            }
            let warnings = match &va.measure {
                Some(m) => x.warnings_for(&m.run)?,
                None => Vec::new(),
            };
            variants.push(VariantView {
                id: va.id.clone(),
                label: markdown::plain(&va.label),
                facts,
                command: x.collapsible("variant-command", shell(&va.command), "bash")?,
                error,
                result: x.raw("variant-result", va.measure.as_ref())?,
                notes: x.texts(&vs.notes),
                warnings: x.texts(&vs.warnings).into_iter().chain(warnings).collect(),
            });
        }
        let summary = match &sa.comparison {
            None => None,
            Some(cmp) => {
                let stage_ref = |v: &str| format!("{}/{v}", sa.id);
                let secondary = match cmp.secondary {
                    None => String::new(),
                    Some(d) => {
                        let trend = match d.trend {
                            Trend::Lower => "lower",
                            Trend::Higher => "higher",
                            Trend::Same => "same",
                        };
                        let kind = if a.secondary.unit.is_time() { "latency" } else { "other" };
                        c.fmt(
                            "summary-secondary",
                            &[
                                ("trend", trend),
                                ("kind", kind),
                                ("metric", &x.metric_name(&a.secondary)?),
                                ("best", &x.value(&a.secondary, Some(d.value))?),
                                ("worst", &x.value(&a.secondary, Some(d.reference))?),
                                ("diff", &x.value(&a.secondary, Some(d.diff.abs()))?),
                                (
                                    "percent",
                                    &d.percent.map_or(Ok(c.msg("value-missing")?), |p| x.percent(p.abs(), false))?,
                                ),
                            ],
                        )?
                    }
                };
                Some(
                    c.fmt(
                        "summary",
                        &[
                            ("best", &x.label(&stage_ref(&cmp.best))),
                            ("worst", &x.label(&stage_ref(&cmp.worst))),
                            ("metric", &x.metric_name(&a.objective)?),
                            ("best_value", &x.value(&a.objective, Some(cmp.objective.value))?),
                            ("worst_value", &x.value(&a.objective, Some(cmp.objective.reference))?),
                            ("gap", &x.value(&a.objective, Some(cmp.objective.diff.abs()))?),
                            (
                                "percent",
                                &cmp.objective
                                    .percent
                                    .map_or(Ok(c.msg("value-missing")?), |p| x.percent(x.shown_gain(p.abs()), false))?,
                            ),
                            ("direction", if a.lower_is_better { "lower" } else { "higher" }),
                            ("secondary", &secondary),
                        ],
                    )?,
                )
            }
        };
        let base = x.label(&sa.base);
        let gain = |g: Option<f64>| g.map_or(c.msg("value-missing"), |g| x.percent(x.shown_gain(g), true));
        let adoption = match &sa.adoption {
            Adoption::Adopted { variant, gain_percent, interval, .. } => c.fmt(
                "adoption-adopted",
                &[
                    ("variant", &x.label(&format!("{}/{variant}", sa.id))),
                    ("gain", &x.gain_with(*gain_percent, *interval)?),
                    ("base", &base),
                ],
            )?,
            Adoption::CannotTell { variant, .. } => {
                x.cannot_tell(&sa.adoption, &x.label(&format!("{}/{variant}", sa.id)), &base)?
            }
            Adoption::WithinNoise { variant, gain_percent, interval, .. } => c.fmt(
                "adoption-within-noise",
                &[
                    ("variant", &x.label(&format!("{}/{variant}", sa.id))),
                    ("gain", &x.gain_with(*gain_percent, *interval)?),
                    ("threshold", &x.percent(a.noise_threshold, false)?),
                    ("base", &base),
                ],
            )?,
            Adoption::NotBetter { .. } => c.fmt("adoption-not-better", &[("base", &base)])?,
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
                    None => c.fmt("adoption-overridden-none", &[("base", &base), ("reason", &reason)])?,
                }
            }
            Adoption::NoResult { reason } => c.fmt(
                match reason {
                    NoResultReason::NoVariantRanks => "adoption-no-result",
                    NoResultReason::BaseWithoutValue => "adoption-no-result-base",
                    NoResultReason::ZeroBase => "adoption-no-result-zero-base",
                },
                &[("base", &base)],
            )?,
        };
        let ranking = match &sa.ranking {
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
        };
        let excluded = ss
            .exclude_from_command
            .as_ref()
            .map(|r| c.fmt("stage-excluded", &[("reason", &x.text(&r.reason))]))
            .transpose()?;
        let chart = Image {
            alt: c.fmt(
                "chart-stage",
                &[("stage", &markdown::plain(ss.title.get(&c.locale))), ("metric", &x.metric_name(&a.objective)?)],
            )?,
            src: markdown::url_path(&format!("{}{}", links.charts, stage_chart(&sa.id))),
        };
        stages.push(StageView {
            chart,
            id: sa.id.clone(),
            number: i + 1,
            title: x.text(&ss.title),
            notes: x.texts(&ss.notes),
            warnings: x.texts(&ss.warnings),
            variants,
            summary,
            ranking,
            adoption,
            excluded,
        });
    }

    // Summary of options.
    let dash = c.msg("value-none")?;
    let mut option_rows = vec![vec![
        cell(&c.msg("options-baseline")?),
        cell(&baseline_label),
        cell(&x.value(&a.objective, a.baseline_measure.as_ref().and_then(|m| m.value))?),
        cell(&x.value(&a.secondary, a.baseline_measure.as_ref().and_then(|m| m.secondary))?),
        dash.clone(),
        dash.clone(),
    ]];
    for o in &a.options {
        option_rows.push(vec![
            cell(&x.stage_title(&o.stage)),
            cell(&o.best.as_ref().map_or(dash.clone(), |b| x.label(&format!("{}/{b}", o.stage)))),
            cell(&x.value(&a.objective, o.value)?),
            cell(&x.value(&a.secondary, o.secondary)?),
            o.vs_baseline.map_or(Ok(dash.clone()), |p| x.signed(p))?,
            o.step.map_or(Ok(dash.clone()), |p| x.signed_with(p, o.step_interval))?,
        ]);
    }
    option_rows.push(vec![
        cell(&c.msg("options-total")?),
        cell(&x.label(&a.optimized.source)),
        cell(&x.value(&a.objective, a.optimized_measure.as_ref().and_then(|m| m.value))?),
        cell(&x.value(&a.secondary, a.optimized_measure.as_ref().and_then(|m| m.secondary))?),
        a.total_gain.map_or(Ok(dash.clone()), |p| x.signed_with(p, a.total_gain_interval))?,
        a.total_gain.map_or(Ok(dash.clone()), |p| x.signed_with(p, a.total_gain_interval))?,
    ]);
    let options = Table {
        headers: vec![
            c.msg("options-stage")?,
            c.msg("options-best")?,
            x.metric_name(&a.objective)?,
            x.metric_name(&a.secondary)?,
            c.msg("options-vs-baseline")?,
            c.msg("options-step")?,
        ],
        rows: option_rows,
    };

    // Other scenarios.
    let mut scenarios = Vec::new();
    for s in &a.scenarios {
        let mut title = x.profile_name(&s.profile);
        if s.target {
            title = c.fmt("table-target", &[("profile", &title)])?;
        }
        let mut warnings = Vec::new();
        for m in [&s.baseline, &s.optimized].into_iter().flatten() {
            warnings.extend(x.warnings_for(&m.run)?);
        }
        scenarios.push(ScenarioView {
            title,
            commands: vec![
                x.collapsible("scenario-baseline-command", shell(&a.baseline), "bash")?,
                x.collapsible("scenario-optimized-command", shell(&a.optimized), "bash")?,
            ],
            baseline: x.raw("scenario-baseline-result", s.baseline.as_ref())?,
            optimized: x.raw("scenario-optimized-result", s.optimized.as_ref())?,
            warnings,
        });
    }

    let accuracy = spec
        .accuracy
        .iter()
        .map(|acc| AccuracyView {
            title: x.text(&acc.title),
            description: acc.description.as_ref().map(|d| x.text(d)),
            table: Table {
                headers: acc.columns.iter().map(|h| cell(&x.text(h))).collect(),
                rows: acc.rows.iter().map(|r| vec![cell(&markdown::plain(&r.label)), c.number(r.score, 3)]).collect(),
            },
            note: acc.note.as_ref().map(|n| x.text(n)),
        })
        .collect();

    let comparison_chart = Image {
        alt: c.fmt("chart-comparison", &[("metric", &x.metric_name(&a.objective)?)])?,
        src: markdown::url_path(&format!("{}{COMPARISON_CHART}", links.charts)),
    };
    let progression_chart = Image {
        alt: c.fmt("chart-progression", &[("metric", &x.metric_name(&a.objective)?)])?,
        src: markdown::url_path(&format!("{}{PROGRESSION_CHART}", links.charts)),
    };
    let exports = vec![
        (c.msg("export-csv")?, markdown::url_path(&format!("{}{}.csv", links.data, study.id))),
        (c.msg("export-json")?, markdown::url_path(&format!("{}{}.json", links.data, study.id))),
    ];
    Ok(PageView {
        evidence: x.evidence()?,
        comparison_chart,
        progression_chart,
        exports,
        locale: c.locale.clone(),
        flavor,
        title: x.text(&spec.title),
        goal: spec.goal.as_ref().map(|g| x.text(g)),
        recommended_intro,
        recommended: shell(&a.recommended),
        excluded,
        comparison,
        comparison_metric: x.metric_name(&a.objective)?,
        notes: x.texts(&spec.notes),
        warnings: x.texts(&spec.warnings),
        data_warnings,
        setup,
        engines: age.engines.clone(),
        age,
        changes,
        benchmark,
        benchmark_command: spec.benchmark.command.as_ref().map(|c| c.get_ref().clone()),
        profiles,
        stages,
        options,
        scenarios,
        accuracy,
    })
}

/// The charts of a study's page, localized: (file name, SVG).
pub fn charts(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<Vec<(String, String)>, I18nError> {
    use super::charts::{Bar, BarKind};
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
        out.push((stage_chart(&sa.id), super::charts::bars(&title, &axis, &bars, &ticks)));
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
        super::charts::pairs(&title, &axis, (&legend.0, &legend.1), &groups, &format, &ticks),
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
    out.push((PROGRESSION_CHART.to_string(), super::charts::progression(&title, &axis, &points, &format, &ticks)));
    Ok(out)
}

/// What changed in a study, localized (for `perflab diff`).
pub fn changes(
    study: &Study,
    analysis: &Analysis,
    c: &Catalog,
    diff: &crate::analysis::Diff,
) -> Result<super::age::ChangesView, I18nError> {
    Ctx { study, analysis, c }.changes(diff)
}

/// A study's title in one language, as Markdown text.
pub fn title(study: &Study, c: &Catalog) -> String {
    markdown::prose(study.spec.title.get(&c.locale))
}

/// The index line of a study: the engine versions and dates of its results, as plain text.
pub fn age_line(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<String, I18nError> {
    Ctx { study, analysis, c }.measured_with(false)
}

/// The index line of a study: its total gain on the target profile, as HTML.
pub fn headline(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<String, I18nError> {
    let x = Ctx { study, analysis, c };
    let gain =
        analysis.total_gain.map_or(c.msg("value-missing"), |g| x.signed_with(g, analysis.total_gain_interval))?;
    let profile = super::html::escape(study.profile(&analysis.target_profile).map_or("", |p| p.name.get(&c.locale)));
    c.fmt("site-headline", &[("gain", &gain), ("metric", &x.metric_name(&analysis.objective)?), ("profile", &profile)])
}
