//! The experiment's setup: model, hardware, benchmark and profiles; and how a command is shown.

use super::Ctx;
use super::age::{AgeView, ChangesView};
use crate::analysis::machine::Subject;
use crate::render::i18n::I18nError;
use crate::render::markdown;
use crate::study::{Profile, Rate};

/// The setup's parts of a page.
pub(super) struct Setup {
    pub setup: Vec<(String, String)>,
    pub age: AgeView,
    pub changes: Option<ChangesView>,
    pub benchmark: Vec<String>,
    pub profiles: Vec<ProfileView>,
    /// What the profiles' commands connect to, when the study does not fix the engine's port.
    /// What the profiles' commands leave to the reader: the engine's port, a curve point's load.
    pub profiles_note: Option<String>,
    /// What the runs recorded of their machine and engine: a fact's name and its value(s).
    pub recorded: Vec<(String, String)>,
}

/// A benchmark profile as a page shows it.
#[derive(Debug, serde::Serialize)]
pub struct ProfileView {
    pub name: String,
    /// The benchmark command of the tool the study names, as a reader would paste it (after the
    /// dataset's download, where the study gives its source); perflab's TOML of the profile when
    /// no command can be built.
    pub code: String,
    pub lang: &'static str,
}

/// The port a shown benchmark command connects to when the study does not fix the engine's
/// port (perflab picks one at each start, or the command does not say): the page says so.
pub(super) const SHOWN_PORT: u16 = 8000;

impl Ctx<'_> {
    /// The benchmark command of a profile against the recommended configuration, as a reader
    /// would paste it: the model, the host and the engine's port filled in (a port the study
    /// does not fix is shown as [`SHOWN_PORT`], and `assumed` says so); a dataset with a source
    /// is downloaded first.
    fn bench_command(&self, profile: &Profile, assumed: &mut bool) -> Option<String> {
        use crate::study::command::{HOST, Port, engine_argv, engine_port, join, quote, shown_bench_argv};
        // Against the configuration the page recommends, with the checkpoint it serves.
        let shown = &self.analysis.recommended;
        let config =
            crate::study::Config { model: Some(shown.model.clone()), ..crate::study::Config::new(&shown.engine) };
        let argv = shown_bench_argv(self.study, &config, profile).ok()?;
        let engine = self.study.engine(&config.engine);
        let port = engine_argv(self.study, &config)
            .ok()
            .and_then(|words| engine_port(&words, engine.and_then(|e| e.ready_url.as_deref())).ok());
        let port = match port {
            Some(Port::Fixed(port)) => port,
            _ => {
                *assumed |= argv.iter().any(|w| w.contains("{port}"));
                SHOWN_PORT
            }
        };
        let filled: Vec<String> =
            argv.iter().map(|w| w.replace("{host}", HOST).replace("{port}", &port.to_string())).collect();
        let download = match (&profile.dataset_url, &profile.dataset_path) {
            (Some(url), Some(path)) => format!("curl -L -o {} {}\n", quote(path), quote(url)),
            (Some(url), None) => format!("curl -LO {}\n", quote(url)),
            _ => String::new(),
        };
        // The benchmark's own environment (a client's setting, such as its concurrency cap), as
        // `perflab run` gives it.
        let env: String = self.study.spec.benchmark.env.iter().map(|(k, v)| format!("{k}={} ", quote(v))).collect();
        Some(format!("{download}{env}{}", join(&filled)))
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
        let mut assumed = false;
        let profiles = spec
            .profiles
            .iter()
            .map(|p| match x.bench_command(p, &mut assumed) {
                Some(code) => ProfileView { name: x.text(&p.name), code, lang: "bash" },
                None => ProfileView { name: x.text(&p.name), code: profile_toml(p), lang: "toml" },
            })
            .collect();
        let port = SHOWN_PORT.to_string();
        let mut notes = Vec::new();
        if assumed {
            notes.push(c.fmt("profiles-port", &[("host", crate::study::command::HOST), ("port", &port)])?);
        }
        if spec.profiles.iter().any(|p| p.load.is_some()) {
            notes.push(c.fmt("profiles-load", &[("placeholder", &markdown::code(crate::study::command::LOAD))])?);
        }
        let profiles_note = (!notes.is_empty()).then(|| c.sentences(&notes));
        let recorded = x.recorded()?;
        Ok(Setup { setup, age, changes, benchmark, profiles, profiles_note, recorded })
    }

    /// Each fact the runs recorded, as a line: its name and its value, or where the runs
    /// disagree each value with the runs that ran on it.
    fn recorded(&self) -> Result<Vec<(String, String)>, I18nError> {
        let c = self.c;
        let mut lines = Vec::new();
        for fact in &self.analysis.recorded {
            let subject = &fact.subject;
            let of = subject.of().map(|o| match subject {
                Subject::EngineVersion(id) => self.study.engine(id).map_or(id.clone(), |e| markdown::plain(&e.name)),
                _ => markdown::code(o),
            });
            let name = c.fmt(recorded_key(subject), &[("of", of.as_deref().unwrap_or(""))])?;
            let value = match fact.values.as_slice() {
                [one] => markdown::code(&one.value),
                many => {
                    let each = many.iter().map(|o| {
                        let runs: Vec<String> = o.runs.iter().map(|k| self.run_title(k)).collect();
                        let (value, runs) = (markdown::code(&o.value), c.list(&runs));
                        c.fmt("recorded-value-runs", &[("value", &value), ("runs", &runs)])
                    });
                    c.sentences(&each.collect::<Result<Vec<_>, _>>()?)
                }
            };
            lines.push((name, value));
        }
        Ok(lines)
    }
}

/// The catalog's name of a recorded fact.
fn recorded_key(subject: &Subject) -> &'static str {
    match subject {
        Subject::GpuModel => "recorded-gpu-model",
        Subject::GpuCount => "recorded-gpu-count",
        Subject::GpuMemory => "recorded-gpu-memory",
        Subject::GpuDriver => "recorded-gpu-driver",
        Subject::GpuRuntime => "recorded-gpu-runtime",
        Subject::CpuModel => "recorded-cpu-model",
        Subject::CpuCores => "recorded-cpu-cores",
        Subject::Kernel => "recorded-kernel",
        Subject::Container => "recorded-container",
        Subject::EngineVersion(_) => "recorded-engine-version",
        Subject::Package(_) => "recorded-package",
        Subject::ModelRevision => "recorded-model-revision",
        Subject::Perflab => "recorded-perflab",
        Subject::Image => "recorded-image",
        Subject::ImageDigest => "recorded-image-digest",
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
