//! The experiment's setup: model, hardware, benchmark and profiles; and how a command is shown.

use super::Ctx;
use super::age::{AgeView, ChangesView};
use crate::render::i18n::I18nError;
use crate::render::markdown;
use crate::study::{Profile, Rate};

/// The setup's parts of a page.
pub(super) struct Setup {
    pub setup: Vec<(String, String)>,
    pub age: AgeView,
    pub changes: Option<ChangesView>,
    pub benchmark: Vec<String>,
    /// (name, TOML, the benchmark command a reader can paste).
    pub profiles: Vec<(String, String, Option<String>)>,
}

impl Ctx<'_> {
    /// The benchmark command of a profile against the optimized configuration, as a reader
    /// would paste it: the model, the host and the engine's port filled in; `None` when the
    /// engine's port is one perflab picks at each start.
    fn bench_command(&self, profile: &Profile) -> Option<String> {
        use crate::study::command::{HOST, Port, engine_argv, engine_port, join, shown_bench_argv};
        let config = crate::study::Config::new(&self.analysis.optimized.engine);
        let argv = shown_bench_argv(self.study, &config, profile).ok()?;
        let engine = self.study.engine(&config.engine);
        let port = engine_argv(self.study, &config)
            .ok()
            .and_then(|words| engine_port(&words, engine.and_then(|e| e.ready_url.as_deref())).ok());
        // A port perflab picks at each start is not one a reader can paste: no command then.
        let Some(Port::Fixed(port)) = port else { return None };
        let filled: Vec<String> =
            argv.iter().map(|w| w.replace("{host}", HOST).replace("{port}", &port.to_string())).collect();
        Some(join(&filled))
    }

    pub(super) fn setup(&self) -> Result<Setup, I18nError> {
        let (x, c, a, spec) = (self, self.c, self.analysis, &self.study.spec);
        let mut setup = vec![
            (c.msg("setup-model")?, markdown::code(&spec.model)),
            (c.msg("setup-hardware")?, x.text(&spec.hardware)),
        ];
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
        let profiles = spec.profiles.iter().map(|p| (x.text(&p.name), profile_toml(p), x.bench_command(p))).collect();
        Ok(Setup { setup, age, changes, benchmark, profiles })
    }
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
