//! What `Study::load` checks of a spec before it reads any run: ids, names, references between
//! stages, commands and their placeholders, shares of the GPUs, counts, derived metrics, and
//! control characters where a value goes into a command or one line of a page.

use super::{
    Adopt, Flag, Id, MAX_PERCENT_DECIMALS, MAX_REPEATS, PLACEHOLDERS, Run, RunKey, SETUP_NAMES, Stage, Study, Variant,
    VariantRef, command, id_problem,
};
use crate::diag::Diagnostic;
use crate::metric::expr as metric_expr;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

impl Study {
    pub(super) fn validate(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.check_ids(&mut out);
        if let Some(date) = &self.spec.date
            && chrono::NaiveDate::parse_from_str(date.get_ref(), "%Y-%m-%d").is_err()
        {
            out.push(self.diag_at(date, format!("`date`: `{}` is not a date of the form YYYY-MM-DD", date.get_ref())));
        }
        out.extend(self.check_derived_metrics());
        out.extend(self.check_curves());
        self.check_metric_names(&mut out);
        self.check_shares(&mut out);
        self.check_profile_refs(&mut out);
        self.check_commands(&mut out);
        self.check_counts(&mut out);
        self.check_hardware(&mut out);
        out.extend(self.validate_accuracy());
        let model_flags = self.model_flags();
        for (index, stage) in self.spec.stages.iter().enumerate() {
            self.check_stage(index, stage, &model_flags, &mut out);
        }
        out
    }

    /// Ids each used once; a profile id that reads as a repeated measurement's file.
    fn check_ids(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        unique(self, spec.engines.iter().map(|e| &e.id), "engine", out);
        unique(self, spec.profiles.iter().map(|p| &p.id), "profile", out);
        for id in spec.profiles.iter().map(|p| &p.id) {
            // `<profile>.r<k>.txt` is a profile's k-th repeated measurement.
            if let Some((_, k)) = id.get_ref().rsplit_once(".r")
                && !k.is_empty()
                && k.bytes().all(|b| b.is_ascii_digit())
            {
                out.push(self.diag_at(
                    id,
                    format!(
                        "`profile`: `{}` ends like a repeated measurement's name (`.r{k}`); choose another id",
                        id.get_ref()
                    ),
                ));
            }
        }
        unique(self, spec.stages.iter().map(|s| &s.id), "stage", out);
    }

    /// The objective and secondary metrics: known, and the objective has a direction.
    fn check_metric_names(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        let named =
            std::iter::once(("objective", &spec.objective)).chain(spec.secondary.iter().map(|m| ("secondary", m)));
        for (key, metric) in named {
            match self.derived_metric(metric.get_ref()).or_else(|| crate::metric::Metric::lookup(metric.get_ref())) {
                None => out.push(
                    self.diag_at(metric, format!("`{key}`: `{}` is not a canonical metric name", metric.get_ref())),
                ),
                Some(m) if key == "objective" && m.direction.is_none() => out.push(self.diag_at(
                    metric,
                    format!("`objective`: `{}` describes the run, it is neither better higher nor lower", m.key),
                )),
                Some(_) => {}
            }
        }
    }

    /// The noise threshold and the share of requests that must complete.
    fn check_shares(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        if !(spec.noise_threshold >= 0.0 && spec.noise_threshold < 100.0) {
            out.push(Diagnostic::new(&self.file, 0, 0, "`noise_threshold` must be a percentage from 0 to 100"));
        }
        for (key, cost) in [("start_cost", &spec.start_cost), ("run_cost", &spec.run_cost)] {
            if let Some(c) =
                cost.as_ref().filter(|c| !(c.get_ref().is_finite() && *c.get_ref() > 0.0 && *c.get_ref() < 1e9))
            {
                out.push(self.diag_at(c, format!("`{key}`: {} is not a number of seconds above 0", c.get_ref())));
            }
        }
        let min = *spec.min_completed.get_ref();
        if !(0.0..=1.0).contains(&min) {
            out.push(self.diag_at(
                &spec.min_completed,
                format!("`min_completed`: {min} is not a share of requests from 0 to 1"),
            ));
        }
    }

    /// The target and compared profiles exist, and so does the baseline.
    fn check_profile_refs(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        let profile_ref = |id: &Id, key: &str, out: &mut Vec<Diagnostic>| {
            if self.profile(id.get_ref()).is_none() {
                out.push(self.diag_at(id, format!("`{key}`: no profile `{}`", id.get_ref())));
            }
        };
        profile_ref(&spec.target_profile, "target_profile", out);
        for id in spec.compare_profiles.iter().flatten() {
            profile_ref(id, "compare_profiles", out);
        }
        if self.variant(spec.baseline.get_ref()).is_none() {
            out.push(self.diag_at(
                &spec.baseline,
                format!("`baseline`: no variant `{}` (write `stage/variant`)", spec.baseline.get_ref()),
            ));
        }
    }

    /// The engines' and the benchmark's commands, failure patterns and profile arguments.
    fn check_commands(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        if let Some(cmd) = &spec.benchmark.command {
            self.check_template(cmd, "benchmark.command", out);
        }
        for engine in &spec.engines {
            self.check_template(&engine.command, "engine.command", out);
            if engine.command.get_ref().trim().is_empty() {
                out.push(self.diag_at(&engine.command, "`engine.command` is empty"));
            }
            for (key, value) in [("start_timeout", engine.start_timeout), ("stop_grace", engine.stop_grace)] {
                if !(value.is_finite() && (0.0..=1e6).contains(&value)) {
                    out.push(self.diag_at(
                        &engine.id,
                        format!(
                            "engine `{}`: `{key}` must be a number of seconds from 0 to 1000000",
                            engine.id.get_ref()
                        ),
                    ));
                }
            }
        }
        if let Some(cmd) = &spec.benchmark.command
            && cmd.get_ref().trim().is_empty()
        {
            out.push(self.diag_at(cmd, "`benchmark.command` is empty"));
        }
        for p in &spec.failure_patterns {
            if let Err(e) = regex::Regex::new(p.regex.get_ref()) {
                out.push(self.diag_at(&p.regex, format!("`failure_patterns.regex`: {e}")));
            }
        }
        for profile in &spec.profiles {
            for word in &profile.args {
                for part in word.split('{').skip(1) {
                    let name = part.split('}').next().unwrap_or("");
                    if !PLACEHOLDERS.contains(&name) {
                        out.push(self.diag_at(
                            &profile.id,
                            format!(
                                "profile `{}`: `args` has an unknown placeholder `{{{name}}}`",
                                profile.id.get_ref()
                            ),
                        ));
                    }
                }
            }
        }
    }

    /// Repeat counts and the decimals of percentages within their bounds.
    fn check_counts(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        let repeats = spec
            .repeats
            .iter()
            .chain(spec.profiles.iter().filter_map(|p| p.repeats.as_ref()))
            .chain(spec.stages.iter().filter_map(|s| s.repeats.as_ref()));
        for r in repeats {
            if !(1..=MAX_REPEATS).contains(r.get_ref()) {
                out.push(self.diag_at(
                    r,
                    format!("`repeats`: {} is not a count of measurements from 1 to {MAX_REPEATS}", r.get_ref()),
                ));
            }
        }
        let percent_decimals = &spec.display.percent_decimals;
        if *percent_decimals.get_ref() > MAX_PERCENT_DECIMALS {
            out.push(self.diag_at(
                percent_decimals,
                format!("`display.percent_decimals`: at most {MAX_PERCENT_DECIMALS} decimals"),
            ));
        }
    }

    /// The GPUs the hardware has: `hardware_gpus`, else what `[local]` declares.
    pub fn hardware_gpus(&self) -> Option<u32> {
        let local = self.spec.local.as_ref();
        self.spec
            .hardware_gpus
            .as_ref()
            .map(|g| *g.get_ref())
            .or_else(|| local.and_then(|l| l.devices.as_ref().map(|d| d.len() as u32).or(l.gpus)))
    }

    /// No configuration takes more GPUs than the hardware has. A configuration's GPUs are
    /// always one declared `gpus` (its variant's, one it builds on, its engine's, or the
    /// study's), so each declared one is checked where it is written.
    fn check_hardware(&self, out: &mut Vec<Diagnostic>) {
        let spec = &self.spec;
        let Some(has) = self.hardware_gpus() else { return };
        let from = match &spec.hardware_gpus {
            Some(_) => format!("`hardware_gpus = {has}`"),
            None => format!("`[local]` declares {has}"),
        };
        if let Some(g) = &spec.hardware_gpus
            && *g.get_ref() == 0
        {
            out.push(self.diag_at(g, "`hardware_gpus` must be at least 1"));
            return;
        }
        let fix = "give the hardware's real count in `hardware_gpus` (and its `hardware` text), or leave the configuration out: the page would otherwise recommend a command its own hardware cannot start";
        if let Some(g) = spec.gpus.as_ref().filter(|g| *g.get_ref() > has) {
            let message = format!(
                "`gpus`: a configuration takes {} GPUs by default, more than the hardware has ({from}); {fix}",
                g.get_ref()
            );
            out.push(self.diag_at(g, message));
        }
        for e in spec.engines.iter().filter(|e| e.gpus.is_some_and(|g| g > has)) {
            let message = format!(
                "engine `{}` takes {} GPUs a start, more than the hardware has ({from}); {fix}",
                e.id.get_ref(),
                e.gpus.unwrap_or_default()
            );
            out.push(self.diag_at(&e.id, message));
        }
        for stage in &spec.stages {
            for v in &stage.variants {
                let Some(g) = v.gpus.as_ref().filter(|g| *g.get_ref() > has) else { continue };
                let message = format!(
                    "`gpus`: `{}/{}` takes {} GPUs, more than the hardware has ({from}); {fix}",
                    stage.id.get_ref(),
                    v.id.get_ref(),
                    g.get_ref()
                );
                out.push(self.diag_at(g, message));
            }
        }
    }

    /// One stage: its variants, what it builds on, what it adopts.
    fn check_stage(&self, index: usize, stage: &Stage, model_flags: &BTreeSet<String>, out: &mut Vec<Diagnostic>) {
        unique(self, stage.variants.iter().map(|v| &v.id), "variant", out);
        if stage.variants.is_empty() {
            out.push(self.diag_at(&stage.id, format!("stage `{}` has no variant", stage.id.get_ref())));
        }
        if let Some(base) = &stage.base {
            self.check_base(base, index, "base", out);
        }
        if let Some(on) = &stage.measured_on {
            match &stage.base {
                Some(_) => out.push(self.diag_at(
                    on,
                    format!(
                        "stage `{}`: `measured_on` and `base` both say where the stage starts; keep `base` to build the rest of the search on it, or `measured_on` to carry the decision over onto the previous stage's configuration",
                        stage.id.get_ref()
                    ),
                )),
                None => self.check_base(on, index, "measured_on", out),
            }
        }
        if let Some(Adopt { variant: Some(v), .. }) = &stage.adopt
            && !stage.variants.iter().any(|x| x.id.get_ref() == v.get_ref())
        {
            out.push(self.diag_at(
                v,
                format!("`adopt.variant`: stage `{}` has no variant `{}`", stage.id.get_ref(), v.get_ref()),
            ));
        }
        for variant in &stage.variants {
            self.check_variant(index, stage, variant, model_flags, out);
        }
    }

    /// One variant: its base, its engine, its flags.
    fn check_variant(
        &self,
        index: usize,
        stage: &Stage,
        variant: &Variant,
        model_flags: &BTreeSet<String>,
        out: &mut Vec<Diagnostic>,
    ) {
        if let Some(base) = &variant.base {
            match self.same_stage_base(stage, variant) {
                Some(message) => out.push(self.diag_at(base, message)),
                None => self.check_base(base, index, "base", out),
            }
        }
        match &variant.engine {
            Some(e) if self.engine(e.get_ref()).is_none() => {
                out.push(self.diag_at(e, format!("`engine`: no engine `{}`", e.get_ref())));
            }
            None if index == 0 && stage.base.is_none() && stage.measured_on.is_none() && variant.base.is_none() => {
                out.push(self.diag_at(
                    &variant.id,
                    format!("variant `{}` builds on nothing and needs an `engine`", variant.id.get_ref()),
                ));
            }
            _ => {}
        }
        for flag in variant.flags.iter().chain(&variant.unset) {
            match Flag::parse(flag.get_ref(), &BTreeMap::new()) {
                None => out.push(
                    self.diag_at(flag, format!("`{}` is not a flag (flags start with `-`)", flag.get_ref())),
                ),
                Some(f) if model_flags.contains(&f.key) => out.push(self.diag_at(
                    flag,
                    format!(
                        "`{}` gives the model, which the engine's command already gives (`{{model}}`): the command would name two models. Write the checkpoint as the variant's `model = \"...\"`",
                        f.key
                    ),
                )),
                Some(_) => {}
            }
        }
    }

    /// The objective and secondary metrics that are derived and that none of the study's runs
    /// has a value for (a name its expression reads that no block prints, a division by zero):
    /// every figure the page would rank or show by them is missing. Nothing when there are no
    /// runs yet.
    pub fn unmeasurable_metrics(&self) -> Vec<Diagnostic> {
        let spec = &self.spec;
        let runs: Vec<(&RunKey, &Run)> = self
            .runs
            .iter()
            .chain(self.repeats.iter().flat_map(|(k, list)| list.iter().map(move |r| (k, r))))
            .collect();
        if runs.is_empty() {
            return Vec::new();
        }
        let named =
            std::iter::once(("objective", &spec.objective)).chain(spec.secondary.iter().map(|m| ("secondary", m)));
        let mut out = Vec::new();
        for (key, metric) in named {
            let id = metric.get_ref();
            let Some(d) = spec.metrics.iter().find(|d| d.id.get_ref() == id) else { continue };
            if runs.iter().any(|(_, r)| r.block.metrics.contains_key(id)) {
                continue;
            }
            let expr = metric_expr::Expr::parse(d.expr.get_ref()).ok();
            let names = expr.as_ref().map(|e| e.names()).unwrap_or_default();
            let given = |name: &str| {
                runs.iter().any(|(k, r)| r.block.metrics.contains_key(name) || self.setup_value(k, name).is_some())
            };
            let missing: Vec<String> = names.into_iter().filter(|n| !given(n)).map(|n| format!("`{n}`")).collect();
            let why = if missing.is_empty() {
                "its `expr` gives no value for any of them (a division by zero?)".to_string()
            } else {
                format!("its `expr` reads {}, which none of them gives", missing.join(", "))
            };
            let n = self.runs.len();
            let runs = if n == 1 { "run".to_string() } else { format!("{n} runs") };
            out.push(self.diag_at(
                metric,
                format!("`{key}`: the derived metric `{id}` has no value in the study's {runs}: {why}"),
            ));
        }
        out
    }

    /// Each derived metric: a free key, an expression that parses and reads only known names,
    /// a sensible precision; and GPU counts above zero.
    fn check_derived_metrics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut defined: Vec<&str> = Vec::new();
        for d in &self.spec.metrics {
            let id = d.id.get_ref();
            if crate::metric::Metric::lookup(id).is_some() || SETUP_NAMES.contains(&id.as_str()) {
                out.push(self.diag_at(
                    &d.id,
                    format!("`metric.id`: `{id}` is already a metric or a setup value; choose another key"),
                ));
            } else if defined.contains(&id.as_str()) {
                out.push(self.diag_at(&d.id, format!("duplicate metric id `{id}`")));
            } else if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || !id.starts_with(|c: char| c.is_ascii_alphabetic())
            {
                out.push(self.diag_at(
                    &d.id,
                    format!("`metric.id`: `{id}` is not a key (letters, digits and `_`, starting with a letter)"),
                ));
            }
            if d.decimals > 6 {
                out.push(self.diag_at(&d.id, format!("metric `{id}`: `decimals` is at most 6")));
            }
            match metric_expr::Expr::parse(d.expr.get_ref()) {
                Err(e) => out.push(Diagnostic::at(
                    &self.file,
                    &self.source,
                    d.expr.span().start + 1 + e.offset,
                    format!("metric `{id}`: `expr`: {}", e.message),
                )),
                Ok(expr) => {
                    for name in expr.names() {
                        let known = crate::metric::Metric::lookup(name).is_some()
                            || SETUP_NAMES.contains(&name)
                            || defined.contains(&name);
                        if !known {
                            out.push(self.diag_at(
                                &d.expr,
                                format!(
                                    "metric `{id}`: `expr` reads `{name}`, which is neither a canonical metric, a metric defined above it, nor one of {}",
                                    SETUP_NAMES.join(", ")
                                ),
                            ));
                        }
                    }
                }
            }
            defined.push(id);
        }
        let variants = || self.spec.stages.iter().flat_map(|s| &s.variants);
        let counts = [
            ("gpus", self.spec.gpus.iter().chain(variants().filter_map(|v| v.gpus.as_ref())).collect::<Vec<_>>()),
            ("replicas", self.spec.replicas.iter().chain(variants().filter_map(|v| v.replicas.as_ref())).collect()),
        ];
        for (key, values) in counts {
            for g in values.into_iter().filter(|g| *g.get_ref() == 0) {
                out.push(self.diag_at(g, format!("`{key}` must be at least 1")));
            }
        }
        out
    }

    /// The flags that give an engine its model: the word before `{model}` in an engine's command
    /// (`--model-path {model}`) or the name of `--model={model}`.
    fn model_flags(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for engine in &self.spec.engines {
            let words = command::split(engine.command.get_ref()).unwrap_or_default();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            for (i, word) in words.iter().enumerate() {
                if !word.contains("{model}") {
                    continue;
                }
                if let Some((name, _)) = word.split_once('=').filter(|(n, _)| n.starts_with('-')) {
                    out.insert(engine.aliases.get(name).cloned().unwrap_or_else(|| name.to_string()));
                } else if let Some(prev) = i.checked_sub(1).map(|p| words[p]).filter(|p| p.starts_with('-')) {
                    out.insert(engine.aliases.get(prev).cloned().unwrap_or_else(|| prev.to_string()));
                }
            }
        }
        out
    }

    /// Why a variant's `base` that names its own stage cannot work: itself, a cycle, or a
    /// variant that is measured in the same stage (a variant builds on an earlier stage).
    fn same_stage_base(&self, stage: &Stage, variant: &Variant) -> Option<String> {
        let stage_id = stage.id.get_ref();
        let in_stage = |v: &Variant| {
            let base = VariantRef::parse(v.base.as_ref()?.get_ref());
            let (s, id) = base.as_ref().map_or((v.base.as_ref()?.get_ref().as_str(), ""), |b| (b.stage(), b.variant()));
            (s == stage_id).then(|| stage.variants.iter().find(|x| x.id.get_ref() == id))
        };
        let first = in_stage(variant)?;
        let own = VariantRef::new(stage_id, variant.id.get_ref()).to_string();
        let Some(mut next) = first else {
            return Some(format!(
                "`base`: `{}` is the variant's own stage; a variant builds on an earlier stage",
                variant.base.as_ref().map_or("", |b| b.get_ref())
            ));
        };
        if std::ptr::eq(next, variant) {
            return Some(format!("`base`: `{own}` names the variant itself"));
        }
        let mut path = vec![own.clone()];
        loop {
            let name = VariantRef::new(stage_id, next.id.get_ref()).to_string();
            let seen = path.contains(&name);
            path.push(name);
            if seen || std::ptr::eq(next, variant) {
                return Some(format!("`base`: `{}` is a cycle", path.join("` → `")));
            }
            match in_stage(next) {
                Some(Some(v)) => next = v,
                _ => {
                    return Some(format!(
                        "`base`: `{}` is measured in the same stage; a variant builds on an earlier stage",
                        path[1]
                    ));
                }
            }
        }
    }

    /// A base reference must name an earlier stage (`index` bounds it) or a variant of one.
    fn check_base(&self, base: &Id, index: usize, key: &str, out: &mut Vec<Diagnostic>) {
        let name = base.get_ref();
        let stage_id = name.split('/').next().unwrap_or(name);
        match self.stage_index(stage_id) {
            Some(i) if i < index => {
                if name.contains('/') && self.variant(name).is_none() {
                    out.push(self.diag_at(base, format!("`{key}`: no variant `{name}`")));
                }
            }
            Some(_) => out.push(self.diag_at(base, format!("`{key}`: `{name}` is not an earlier stage"))),
            None => out.push(self.diag_at(base, format!("`{key}`: no stage `{stage_id}`"))),
        }
    }

    fn check_template(&self, template: &toml::Spanned<String>, key: &str, out: &mut Vec<Diagnostic>) {
        for part in template.get_ref().split('{').skip(1) {
            let name = part.split('}').next().unwrap_or("");
            if !PLACEHOLDERS.contains(&name) && !name.starts_with('"') {
                out.push(self.diag_at(template, format!("`{key}`: unknown placeholder `{{{name}}}`")));
            }
        }
    }
}

/// Keys whose values are prose (localized Markdown, an error as printed, a regular expression):
/// they may span lines. Every other string of a study goes into commands, file names or single
/// lines of a page.
const PROSE_KEYS: &[&str] = &[
    "title",
    "hardware",
    "goal",
    "description",
    "notes",
    "warnings",
    "reason",
    "explanation",
    "message",
    "columns",
    "note",
    "name",
];

/// Control characters (a newline, a tab, an escape, ...) in a value that is not prose: a newline
/// in a model name or a flag would end the command's line on the page, and can close the code
/// block around it.
pub(super) fn control_characters(file: &Path, source: &str) -> Vec<Diagnostic> {
    use toml::de::{DeTable, DeValue};
    fn walk(value: &toml::Spanned<DeValue<'_>>, key: &str, prose: bool, out: &mut Vec<(usize, String, char)>) {
        match value.get_ref() {
            DeValue::String(text) if !prose => {
                if let Some(c) = text.chars().find(|c| c.is_control()) {
                    out.push((value.span().start, key.to_string(), c));
                }
            }
            DeValue::Array(items) => items.iter().for_each(|v| walk(v, key, prose, out)),
            DeValue::Table(table) => table_walk(table, prose, out),
            _ => {}
        }
    }
    fn table_walk(table: &DeTable<'_>, prose: bool, out: &mut Vec<(usize, String, char)>) {
        for (k, v) in table {
            let key = k.get_ref();
            if let Some(c) = key.chars().find(|c| c.is_control()) {
                out.push((k.span().start, key.to_string(), c));
            }
            // A table under a prose key is a localized text (`name = { en = "..." }`); an engine's
            // `name` is a plain string and is checked like the rest.
            let is_prose = prose
                || (PROSE_KEYS.contains(&key.as_ref())
                    && (key != "name" || !matches!(v.get_ref(), DeValue::String(_))));
            walk(v, key, is_prose, out);
        }
    }
    let Ok(doc) = DeTable::parse(source) else { return Vec::new() };
    let mut found = Vec::new();
    table_walk(doc.get_ref(), false, &mut found);
    found
        .into_iter()
        .map(|(offset, key, c)| {
            Diagnostic::at(
                file,
                source,
                offset,
                format!(
                    "`{}`: control character U+{:04X} in a value that goes into a command or a single line of the page",
                    key.escape_debug(),
                    c as u32
                ),
            )
        })
        .collect()
}

fn unique<'a>(study: &Study, ids: impl Iterator<Item = &'a Id>, what: &str, out: &mut Vec<Diagnostic>) {
    let mut seen = BTreeSet::new();
    for id in ids {
        let name = id.get_ref();
        if let Some(why) = id_problem(name) {
            out.push(study.diag_at(id, format!("{what} id `{name}`: {why}")));
        }
        if !seen.insert(id.get_ref().as_str()) {
            out.push(study.diag_at(id, format!("duplicate {what} id `{}`", id.get_ref())));
        }
    }
}
