//! What an import gathers while it reads a page: the model, the engines and their flag names,
//! the profiles, and the choices it made for the study's author to confirm.

use super::bases::{baseline_ref, chain, compared, leave_out, name_variant_slots, target, variant_slot};
use super::build::{self, Cfg, EngineDraft, ProfileDraft, StageDraft, VariantDraft};
use super::{Choice, Draft, ImportError, default_template, other_cases, page};
use std::collections::BTreeMap;

pub(super) struct Context {
    pub(super) model: String,
    /// Per engine, the short flag names the page also writes long.
    pub(super) aliases: BTreeMap<String, BTreeMap<String, String>>,
    pub(super) engines: Vec<EngineDraft>,
    pub(super) choices: Vec<Choice>,
    pub(super) profiles: Vec<ProfileDraft>,
    pub(super) recommended_engine: Option<String>,
}

impl Context {
    /// A command as a configuration; its engine is registered the first time it is seen.
    pub(super) fn cfg(
        &mut self,
        v: &page::VariantSource,
        engine_hint: Option<String>,
        key: &str,
    ) -> Result<Cfg, ImportError> {
        let Some((line, command)) = v.command.clone() else {
            return Err(ImportError::new(
                v.line,
                "this variant has benchmark results but no serving command or backend parameters",
            ));
        };
        let split = build::split(&command);
        if !split.dropped.is_empty() {
            self.choices.push(Choice::new(
                key,
                line,
                format!("`{}` left out: perflab gives each engine start its own port", split.dropped.join(" ")),
            ));
        }
        self.loader_environment(&split.env, key, line);
        let engine = match (v.parameters_only, split.engine.clone(), engine_hint) {
            (false, Some(e), _) => e,
            (true, _, Some(e)) => e,
            (_, _, Some(e)) => e,
            _ => return Err(ImportError::new(line, format!("cannot tell which engine runs `{command}`"))),
        };
        if !self.engines.iter().any(|e| e.id == engine) {
            let template = if v.parameters_only || split.engine.is_none() {
                default_template(&engine)
            } else {
                split.template.clone()
            };
            self.engines.push(EngineDraft {
                id: engine.clone(),
                name: String::new(),
                version: String::new(),
                command: template,
                aliases: self.aliases.get(&engine).cloned().unwrap_or_default(),
            });
        }
        let mut flags = split.flags;
        if let Some(aliases) = self.aliases.get(&engine) {
            for f in &mut flags {
                if let Some(long) = aliases.get(&f.key) {
                    f.key = long.clone();
                }
            }
        }
        let model = match split.model {
            Some(m) if m != self.model && self.model.to_lowercase().ends_with(&format!("/{}", m.to_lowercase())) => {
                self.choices.push(Choice::new(
                    key,
                    line,
                    format!("`{m}` taken for the study's model `{}`", self.model),
                ));
                self.model.clone()
            }
            Some(m) => m,
            None => self.model.clone(),
        };
        Ok(Cfg { engine, model, flags, env: split.env })
    }

    /// A variable that changes which code the engine runs (a library loaded first, another
    /// library or module path) is kept in `env`, and said once where the page sets it.
    fn loader_environment(&mut self, env: &BTreeMap<String, String>, key: &str, line: usize) {
        for (name, value) in env.iter().filter(|(name, _)| build::changes_code(name)) {
            let message = format!(
                "`{name}={value}` changes which code the engine runs: kept in `env`; make sure it names what this machine should load"
            );
            if !self.choices.iter().any(|c| c.message == message) {
                self.choices.push(Choice::new(key, line, message));
            }
        }
    }

    pub(super) fn stages(&mut self, page: &page::Page) -> Result<Vec<StageDraft>, ImportError> {
        let mut out: Vec<StageDraft> = Vec::new();
        let profile_ids: Vec<String> = self.profiles.iter().map(|p| build::slug(&p.name)).collect();
        let is_profile = |l: &str| {
            let s = build::slug(l);
            l.to_lowercase().contains("input") || l.contains("BS=") || profile_ids.contains(&s)
        };
        for (k, s) in page.stages.iter().enumerate() {
            let taken: Vec<String> = out.iter().map(|d| d.id.clone()).collect();
            let id = build::unique(&build::stage_slug(&s.title), &taken);
            let mut variants: Vec<VariantDraft> = Vec::new();
            for source in s.variants.iter().flat_map(|v| build::expand(v, &is_profile)) {
                let hint = match k {
                    0 => source.label.as_deref().and_then(build::engine_named).map(str::to_string),
                    _ => source
                        .engine
                        .clone()
                        .or_else(|| self.recommended_engine.clone())
                        .or_else(|| out.last().and_then(|d| d.variants.first()).map(|v| v.cfg.engine.clone())),
                };
                if source.command.is_none() && source.blocks.is_empty() {
                    continue;
                }
                let key = variant_slot(&id, variants.len());
                let mut cfg = self.cfg(&source, hint, &key)?;
                self.environment_only(&source, &mut cfg, out.first(), &key);
                variants.push(self.variant(&id, &source, cfg, &variants)?);
            }
            if variants.is_empty() {
                self.choices.push(Choice::new(
                    "stage",
                    s.line,
                    format!("section `{}` has no serving command: left out", s.title),
                ));
                continue;
            }
            out.push(StageDraft {
                id,
                line: s.line,
                title: s.title.clone(),
                variants,
                page_adopted: None,
                adopt: None,
                exclude: None,
                notes: s.notes.clone(),
                warnings: s.warnings.clone(),
            });
        }
        Ok(out)
    }

    /// A command that only sets the environment (`export VLLM_ATTENTION_BACKEND=FLASHMLA`)
    /// sets it on its engine's configuration of the first stage.
    pub(super) fn environment_only(
        &mut self,
        v: &page::VariantSource,
        cfg: &mut Cfg,
        first: Option<&StageDraft>,
        key: &str,
    ) {
        let Some((line, command)) = &v.command else { return };
        let split = build::split(command);
        if v.parameters_only || split.engine.is_some() || !cfg.flags.is_empty() || cfg.env.is_empty() {
            return;
        }
        let Some(own) = first.and_then(|f| f.variants.iter().find(|x| x.cfg.engine == cfg.engine)) else { return };
        cfg.flags = own.cfg.flags.clone();
        cfg.model = own.cfg.model.clone();
        self.choices.push(Choice::new(
            key,
            *line,
            format!("`{command}` sets only the environment: taken on {}'s first configuration", own.label),
        ));
    }

    pub(super) fn variant(
        &mut self,
        stage: &str,
        v: &page::VariantSource,
        cfg: Cfg,
        siblings: &[VariantDraft],
    ) -> Result<VariantDraft, ImportError> {
        let label = v.label.clone().unwrap_or_default();
        let mut blocks = Vec::new();
        for w in &v.blocks {
            let Some(profile) = build::profile_of(w, v.profile.as_deref(), &mut self.profiles, &mut self.choices)
            else {
                return Err(ImportError::new(w.line, "this block fits no profile of the setup"));
            };
            if blocks.iter().any(|(p, _): &(String, page::Written)| *p == profile) {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    w.line,
                    format!("a second block on `{profile}` in one variant: left out"),
                ));
                continue;
            }
            if !w.text.contains("Serving Benchmark Result") {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    w.line,
                    "this block has no `Serving Benchmark Result` line: read from its first figure, as written",
                ));
            }
            blocks.push((profile, w.clone()));
        }
        let failure = blocks.is_empty().then(|| {
            let said = v.said.join(" ");
            let (class, told) = build::failure_class(&said);
            if !told {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    v.line,
                    format!("no block and no reason for `{label}`: recorded as `{class}`"),
                ));
            }
            (class.to_string(), said)
        });
        let taken: Vec<String> = siblings.iter().map(|s| s.id.clone()).collect();
        Ok(VariantDraft {
            id: build::unique(&build::slug(&label), &taken),
            label,
            line: v.line,
            cfg,
            base: None,
            flags: Vec::new(),
            unset: Vec::new(),
            env: BTreeMap::new(),
            model: None,
            notes: if failure.is_none() { v.said.clone() } else { Vec::new() },
            blocks,
            failure,
            replicas: 1,
            gpus: None,
        })
    }

    /// Bases, flags, labels, the page's adoptions, the other cases and the setup.
    pub(super) fn finish(&mut self, page: &page::Page, d: &mut Draft) -> Result<(), ImportError> {
        let recommended = self.command_cfg(page.recommended.as_ref())?;
        let optimized = page.other.iter().find(|o| !o.baseline && !o.parameters_only).and_then(|o| o.command.as_ref());
        let measured = self.command_cfg(optimized)?;
        chain(d, measured.as_ref().or(recommended.as_ref()), &mut self.choices);
        if let (Some(m), Some(r)) = (&measured, &recommended)
            && !m.same(r)
        {
            leave_out(d, r, &mut self.choices);
        }
        d.baseline = baseline_ref(page, d, &mut self.choices);
        other_cases(page, d, self)?;
        d.target = target(d);
        self.setup(page, d);
        d.profiles = std::mem::take(&mut self.profiles);
        d.compare = compared(d, &mut self.choices);
        d.engines = std::mem::take(&mut self.engines);
        d.choices = std::mem::take(&mut self.choices);
        let mut choices = std::mem::take(&mut d.choices);
        name_variant_slots(d, &mut choices);
        d.choices = choices;
        Ok(())
    }

    /// A command of the conclusion or the other cases as a configuration.
    pub(super) fn command_cfg(&mut self, command: Option<&(usize, String)>) -> Result<Option<Cfg>, ImportError> {
        let Some((line, c)) = command else { return Ok(None) };
        let v = page::VariantSource { line: *line, command: Some((*line, c.clone())), ..Default::default() };
        self.cfg(&v, self.recommended_engine.clone(), "baseline").map(Some)
    }

    pub(super) fn setup(&mut self, page: &page::Page, d: &mut Draft) {
        for e in &mut self.engines {
            let (name, version) = page
                .engines
                .iter()
                .find(|(n, _)| build::engine_named(n) == Some(e.id.as_str()))
                .cloned()
                .unwrap_or_else(|| (e.id.clone(), String::new()));
            e.name = name;
            e.version = version;
            if e.version.is_empty() {
                e.version = "unknown".into();
                self.choices.push(Choice::new(
                    format!("engine.{}", e.id),
                    0,
                    "the setup gives no version for this engine",
                ));
            }
        }
        let script: Vec<String> =
            page.benchmark_script.iter().filter(|l| !l.trim_start().starts_with('#')).cloned().collect();
        let (line, _) = page::join_command(&script);
        let guidellm = page.benchmark_tool.as_deref() == Some("guidellm") || line.contains("guidellm");
        d.benchmark = if guidellm {
            ("guidellm".into(), "guidellm benchmark --target http://{host}:{port} --model {model} --processor {model} --max-requests {total_requests}".into())
        } else {
            ("vllm bench serve".into(), "vllm bench serve --model {model} --base-url http://{host}:{port} --backend openai-chat --endpoint /v1/chat/completions --dataset-name {dataset} --num-prompts {total_requests}".into())
        };
        let path = script.iter().find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words
                .iter()
                .position(|w| *w == "--dataset-path" || *w == "--data")
                .and_then(|k| words.get(k + 1))
                .map(|w| w.to_string())
        });
        let wget = page
            .benchmark_script
            .iter()
            .find_map(|l| l.trim().strip_prefix("wget ").and_then(|u| u.rsplit('/').next()).map(str::to_string));
        for p in &mut self.profiles {
            if p.src.dataset == "sharegpt" {
                p.dataset_path = path.clone().or(wget.clone()).filter(|p| !p.contains('{'));
            }
            if p.src.total_requests.is_none() {
                self.choices.push(Choice::new(
                    format!("profile.{}", p.id),
                    0,
                    "no block gives this profile's request count: 1000 assumed",
                ));
            }
        }
        d.notes = page.notes.clone();
    }
}
