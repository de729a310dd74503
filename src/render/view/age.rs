//! The parts of a page about the age of its results: which engine versions measured them and
//! when, the warning when they mix versions or no longer match the study, and what changed
//! since the previous measurement. `perflab diff` prints the last part on its own.

use super::{Ctx, Table, cell};
use crate::analysis::diff::{Change, Diff};
use crate::analysis::history::{EngineAge, VersionAge};
use crate::metric::Metric;
use crate::render::i18n::I18nError;
use crate::render::markdown::{code, plain};
use crate::study::command::{Command, shell};
use crate::study::{FlagChanges, Stale};
use serde::Serialize;

/// The age of a page's results, localized.
#[derive(Debug, Clone, Serialize)]
pub struct AgeView {
    /// "Measured with Sim-A 1.1 (2026-11-30), ...".
    pub line: String,
    /// The prominent warning when the results mix versions or no longer match the study.
    pub warning: Option<String>,
    /// Under the warning: each run concerned, with its version, date and why.
    pub runs: Vec<String>,
    /// The setup's list of engines: each with the versions that measured what the page shows.
    pub engines: Vec<String>,
}

/// What changed, localized.
#[derive(Debug, Serialize)]
pub struct ChangesView {
    pub intro: String,
    pub stages: Table,
    pub profiles: Table,
    /// How the recommended command changed, in words.
    pub command: String,
    /// The recommended command before and now, when it changed.
    pub command_before: Option<String>,
    pub command_after: Option<String>,
    pub label_before: String,
    pub label_after: String,
    /// Across releases: how the engine command the optimized run started changed.
    pub ran: Option<String>,
}

impl Ctx<'_> {
    fn engine_name(&self, id: &str) -> String {
        self.study.engine(id).map_or_else(|| plain(id), |e| plain(&e.name))
    }

    /// "Measured with Sim-A 1.1 (2026-11-30), ..." as Markdown, or as plain text (`markdown`
    /// false) for a template that escapes it.
    pub(super) fn measured_with(&self, markdown: bool) -> Result<String, I18nError> {
        let mut all = Vec::new();
        for e in &self.analysis.age.engines {
            all.extend(self.versions(e, markdown)?);
        }
        if all.is_empty() {
            return Ok(String::new());
        }
        self.c.fmt("age-measured-with", &[("engines", &self.c.list(&all))])
    }

    fn dates(&self, v: &VersionAge) -> Result<String, I18nError> {
        match (&v.first, &v.last) {
            (Some(f), Some(l)) if f != l => self.c.fmt("age-dates", &[("first", f), ("last", l)]),
            (Some(f), _) => Ok(f.clone()),
            _ => self.c.msg("age-date-unknown"),
        }
    }

    fn versions(&self, e: &EngineAge, markdown: bool) -> Result<Vec<String>, I18nError> {
        let escape = |t: &str| if markdown { plain(t) } else { t.to_string() };
        let name = self.study.engine(&e.engine).map_or(e.engine.as_str(), |x| x.name.as_str());
        e.versions
            .iter()
            .map(|v| {
                let (name, version, dates) = (escape(name), escape(&v.version), self.dates(v)?);
                self.c.fmt("age-engine", &[("engine", &name), ("version", &version), ("dates", &dates)])
            })
            .collect()
    }

    fn stale_reason(&self, s: &Stale) -> Result<String, I18nError> {
        match s {
            Stale::Version { now, .. } => self.c.fmt("stale-version", &[("version", &plain(now))]),
            Stale::Engine { now, .. } => self.c.fmt("stale-engine", &[("engine", &self.engine_name(now))]),
            Stale::Command { changes, .. } if changes.is_empty() => self.c.msg("stale-command-other"),
            Stale::Command { changes, .. } => self.c.fmt("stale-command", &[("changes", &self.flag_changes(changes)?)]),
            Stale::Benchmark { .. } => self.c.msg("stale-benchmark"),
            Stale::Dataset { .. } => self.c.msg("stale-dataset"),
        }
    }

    /// "added `--a`, removed `--b`, `--c 1` → `--c 2`".
    pub(super) fn flag_changes(&self, f: &FlagChanges) -> Result<String, I18nError> {
        let list = |flags: &[String]| self.c.list(&flags.iter().map(|f| code(f)).collect::<Vec<_>>());
        let mut parts = Vec::new();
        if !f.added.is_empty() {
            parts.push(self.c.fmt("flags-added", &[("flags", &list(&f.added))])?);
        }
        if !f.removed.is_empty() {
            parts.push(self.c.fmt("flags-removed", &[("flags", &list(&f.removed))])?);
        }
        for (a, b) in &f.changed {
            parts.push(format!("{} → {}", code(a), code(b)));
        }
        Ok(self.c.clauses(&parts))
    }

    /// The page's versions and dates, and its warning.
    pub(super) fn age(&self) -> Result<AgeView, I18nError> {
        let age = &self.analysis.age;
        let line = self.measured_with(true)?;
        let stale: Vec<_> = age.stale().collect();
        let warning = match (age.mixed, stale.is_empty()) {
            (true, _) => Some(self.c.msg("age-mixed")?),
            (false, false) => Some(self.c.msg("age-outdated")?),
            (false, true) => None,
        };
        let mut runs = Vec::new();
        for m in &stale {
            let current = self.study.engine(&m.engine).map_or(String::new(), |e| e.version.clone());
            let version = plain(m.engine_version.as_deref().unwrap_or(&current));
            let date = match &m.date {
                Some(d) => d.clone(),
                None => self.c.msg("age-date-unknown")?,
            };
            let reasons = m.stale.iter().map(|s| self.stale_reason(s)).collect::<Result<Vec<_>, _>>()?.join("; ");
            runs.push(self.c.fmt(
                "age-run",
                &[
                    ("run", &self.run_title(&m.run)),
                    ("engine", &self.engine_name(&m.engine)),
                    ("version", &version),
                    ("date", &date),
                    ("reasons", &reasons),
                ],
            )?);
        }
        let mut engines = Vec::new();
        for e in &self.study.spec.engines {
            let name = plain(&e.name);
            let current = plain(&e.version);
            match age.engines.iter().find(|a| a.engine == *e.id.get_ref()) {
                None => engines.push(format!("{name} {current}")),
                Some(a) => {
                    let mut text = self.c.list(&self.versions(a, true)?);
                    if a.versions.iter().any(|v| v.version != e.version) {
                        text = self.c.fmt("age-study-names", &[("measured", &text), ("version", &current)])?;
                    }
                    engines.push(text);
                }
            }
        }
        Ok(AgeView { line, warning, runs, engines })
    }

    /// `before → after (±x%)`, the change coloured by whether the objective improved, and
    /// marked when it is within the noise threshold.
    fn change(&self, metric: &Metric, ch: Option<&Change>) -> Result<String, I18nError> {
        let Some(ch) = ch else { return self.c.msg("value-missing") };
        let unclear = ch.improvement.is_some_and(|g| g.abs() > self.analysis.noise_threshold)
            && ch.interval.is_some_and(|i| i.contains_zero());
        let key = match (ch.beyond_noise, unclear) {
            (true, _) => "changes-figure",
            (false, true) => "changes-figure-unclear",
            (false, false) => "changes-figure-noise",
        };
        // The interval of the change as shown (not of the improvement, for a metric that is
        // better lower).
        let interval =
            ch.interval.map(|i| if self.analysis.lower_is_better { (-i.high, -i.low) } else { (i.low, i.high) });
        let percent = match ch.percent {
            None => self.c.msg("value-missing")?,
            Some(p) => self.figures().change(self.c, p, ch.improvement, interval)?,
        };
        self.c.fmt(
            key,
            &[
                ("before", &self.value(metric, Some(ch.before))?),
                ("after", &self.value(metric, Some(ch.after))?),
                ("change", &percent),
            ],
        )
    }

    pub(super) fn changes(&self, d: &Diff) -> Result<ChangesView, I18nError> {
        let c = self.c;
        let since = match &d.since {
            Some(rev) => c.fmt("changes-since-revision", &[("revision", &code(rev))])?,
            None => c.msg("changes-since-previous")?,
        };
        let versions: Vec<String> = d
            .versions
            .iter()
            .map(|v| {
                let side = |list: &[String]| list.iter().map(|x| plain(x)).collect::<Vec<_>>().join(" + ");
                let name = self.engine_name(&v.engine);
                if v.before == v.after {
                    format!("{name} {}", side(&v.after))
                } else {
                    format!("{name} {} → {}", side(&v.before), side(&v.after))
                }
            })
            .collect();
        let intro = c.fmt("changes-intro", &[("since", &since), ("versions", &c.list(&versions))])?;
        let stages = self.changed_stages(d)?;
        let profiles = self.changed_profiles(d)?;
        let r = &d.recommended;
        let mut command = Vec::new();
        if r.before.engine != r.after.engine {
            command.push(c.fmt(
                "changes-command-engine",
                &[("before", &self.engine_name(&r.before.engine)), ("after", &self.engine_name(&r.after.engine))],
            )?);
        }
        if !r.flags.is_empty() {
            command.push(c.fmt("changes-command", &[("changes", &self.flag_changes(&r.flags)?)])?);
        }
        let same = command.is_empty() && r.before.launch == r.after.launch && r.before.env == r.after.env;
        if command.is_empty() {
            command.push(c.msg(if same { "changes-command-same" } else { "changes-command-launch" })?);
        }
        let shown = |cmd: &Command| (!same).then(|| shell(cmd));
        Ok(ChangesView {
            intro,
            stages,
            profiles,
            command: command.join(" "),
            command_before: shown(&r.before),
            command_after: shown(&r.after),
            label_before: c.msg("changes-command-before")?,
            label_after: c.msg("changes-command-after")?,
            ran: None,
        })
    }

    /// The configuration in force after `stage` (`stage/variant`), as a table names it: its
    /// label, after the earlier stage's title when the stage adopted nothing and keeps an
    /// earlier stage's configuration.
    pub(super) fn in_force(&self, stage: &str, adopted: &str) -> String {
        match adopted.split_once('/') {
            Some((from, _)) if from != stage => format!("{} › {}", self.stage_title(from), self.label(adopted)),
            _ => self.label(adopted),
        }
    }

    /// Per stage: its best variant before and now, what it adopts now, and whether that changed.
    fn changed_stages(&self, d: &Diff) -> Result<Table, I18nError> {
        let c = self.c;
        let mut rows = Vec::new();
        for s in &d.stages {
            let best = |v: &Option<String>| match v {
                Some(v) => Ok(self.label(&format!("{}/{v}", s.stage))),
                None => c.msg("value-none"),
            };
            let changed = if s.changed { format!("**{}**", c.msg("changes-yes")?) } else { c.msg("changes-no")? };
            rows.push(vec![
                cell(&self.stage_title(&s.stage)),
                cell(&best(&s.best_before)?),
                cell(&best(&s.best_after)?),
                cell(&self.in_force(&s.stage, &s.adopted_after)),
                changed,
            ]);
        }
        Ok(Table {
            headers: vec![
                c.msg("changes-stage")?,
                c.msg("changes-best-before")?,
                c.msg("changes-best-now")?,
                c.msg("changes-adopted-now")?,
                c.msg("changes-changed")?,
            ],
            rows,
        })
    }

    /// Per profile: the baseline's and the optimized configuration's figure, before → after.
    fn changed_profiles(&self, d: &Diff) -> Result<Table, I18nError> {
        let c = self.c;
        let mut rows = Vec::new();
        for p in &d.profiles {
            let mut name = self.profile_name(&p.profile);
            if p.target {
                name = c.fmt("table-target", &[("profile", &name)])?;
            }
            rows.push(vec![
                cell(&name),
                cell(&self.change(&d.objective, p.baseline.as_ref())?),
                cell(&self.change(&d.objective, p.optimized.as_ref())?),
            ]);
        }
        let metric = self.metric_name(&d.objective)?;
        Ok(Table {
            headers: vec![
                c.msg("table-profile")?,
                c.fmt("changes-baseline", &[("metric", &metric)])?,
                c.fmt("changes-optimized", &[("metric", &metric)])?,
            ],
            rows,
        })
    }
}
