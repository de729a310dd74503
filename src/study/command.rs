//! What command a configuration is, run or shown: the engine's and the benchmark's argument
//! vectors, the environment, the port, and the serving command a page publishes. Templates are
//! split into words first and placeholders filled word by word, so no value ever passes through a
//! shell.

use crate::study::{Config, Flag, Profile, Rate, Study};
use anyhow::{Context, bail};
use serde::Serialize;
use std::collections::BTreeMap;

/// The host engines listen on and benchmarks connect to.
pub const HOST: &str = "127.0.0.1";

/// Splits a command template into words as a POSIX shell would: whitespace separates, '...'
/// and "..." group, a backslash escapes.
pub fn split(template: &str) -> anyhow::Result<Vec<String>> {
    shell_words::split(template).with_context(|| format!("cannot read `{template}` as a command"))
}

/// One word as a POSIX shell reads it back unchanged: as it is when it holds only letters,
/// digits and `-_./:=,+@%`; quoted otherwise (spaces, quotes, braces a shell would expand, `$`,
/// `*`, `~`, non-ASCII text, ...).
pub fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    let quoted = shell_words::quote(word);
    // shell-words leaves a word without a character special to it as it is; a brace or a
    // non-ASCII letter still gets quotes here.
    if quoted == word { format!("'{word}'") } else { quoted.into_owned() }
}

/// Joins words into a command line that [`split`] (and a shell) reads back word for word.
pub fn join(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

/// Fills `{name}` placeholders of one word. A placeholder without a value is an error.
pub fn fill(word: &str, values: &BTreeMap<&str, String>) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut rest = word;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else { break };
        let name = &rest[start + 1..start + len];
        out.push_str(&rest[..start]);
        match values.get(name) {
            Some(v) => out.push_str(v),
            None if name == "port" => out.push_str("{port}"),
            None => bail!("placeholder `{{{name}}}` has no value here"),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Where an engine start listens: one answer used for the readiness probe, the benchmark and
/// the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Port {
    /// The command has `{port}`: perflab picks a free port for each start.
    Pick,
    /// The command (`--port 8000`, `--port=8000`) or else the `ready_url` fixes it.
    Fixed(u16),
}

/// The port of an engine whose command (placeholders other than `{port}` filled) is `argv`, or
/// why it cannot be known.
pub fn engine_port(argv: &[String], ready_url: Option<&str>) -> Result<Port, String> {
    if argv.iter().any(|w| w.contains("{port}")) {
        return Ok(Port::Pick);
    }
    let literal = argv.iter().enumerate().find_map(|(i, w)| match w.strip_prefix("--port") {
        Some("") => argv.get(i + 1).and_then(|v| v.parse::<u16>().ok()),
        Some(rest) => rest.strip_prefix('=').and_then(|v| v.parse::<u16>().ok()),
        None => None,
    });
    if let Some(port) = literal {
        return Ok(Port::Fixed(port));
    }
    let from_url = ready_url.and_then(|url| {
        let rest = url.split_once("://")?.1;
        let authority = rest.split('/').next()?;
        authority.rsplit_once(':')?.1.parse::<u16>().ok()
    });
    from_url.map(Port::Fixed).ok_or_else(|| {
        "perflab cannot tell which port it listens on: put `--port {port}` in its command (perflab picks a free port), or fix the port there (`--port 8000`) or in `ready_url`".to_string()
    })
}

/// Warnings about engines whose port cannot be known: `perflab run` refuses them.
pub fn address_warnings(study: &Study) -> Vec<crate::diag::Diagnostic> {
    let mut out = Vec::new();
    for engine in &study.spec.engines {
        let Ok(words) = split(engine.command.get_ref()) else { continue };
        if let Err(why) = engine_port(&words, engine.ready_url.as_deref()) {
            out.push(study.diag_at(&engine.command, format!("warning: engine `{}`: {why}", engine.id.get_ref())));
        }
    }
    out
}

/// The engine's command for a configuration; `{port}` stays a placeholder until launch.
pub fn engine_argv(study: &Study, config: &Config) -> anyhow::Result<Vec<String>> {
    let engine = study.engine(&config.engine).with_context(|| format!("no engine `{}`", config.engine))?;
    let model = study.model_of(config);
    let values = BTreeMap::from([("model", model.clone()), ("host", HOST.to_string())]);
    let words = split(engine.command.get_ref())?
        .iter()
        .map(|w| fill(w, &values))
        .collect::<anyhow::Result<Vec<_>>>()
        .with_context(|| format!("engine `{}` command", config.engine))?;
    // The checkpoint fills `{model}` in flags too; a flag of the command takes the
    // configuration's value in place.
    let mut filled = config.clone();
    for f in &mut filled.flags {
        if let Some(parsed) = crate::study::Flag::parse(&crate::study::fill_model(&f.text, &model), &engine.aliases) {
            *f = parsed;
        }
    }
    Ok(filled.apply_to(&words, &engine.aliases))
}

/// Whether `flag` (after the engine's aliases) is a word of engine `engine`'s own command
/// template. `unset` removes flags that variants set; it cannot take a word out of the command,
/// so such an `unset` is refused rather than shown as done.
pub fn in_template(study: &Study, engine: &str, flag: &str) -> bool {
    let Some(engine) = study.engine(engine) else { return false };
    let Some(key) = Flag::parse(flag, &engine.aliases).map(|f| f.key) else { return false };
    let words = split(engine.command.get_ref()).unwrap_or_default();
    words.iter().any(|w| Flag::parse(w, &engine.aliases).is_some_and(|t| t.key == key))
}

/// The environment of an engine start: the engine's, then the configuration's.
pub fn engine_env(study: &Study, config: &Config) -> BTreeMap<String, String> {
    let mut env = study.engine(&config.engine).map(|e| e.env.clone()).unwrap_or_default();
    env.extend(config.env.clone());
    env
}

/// The benchmark's command for a profile: the study's template, or `perflab bench`.
pub fn bench_argv(study: &Study, config: &Config, profile: &Profile) -> anyhow::Result<Vec<String>> {
    bench_words(study, config, profile, Some(&study.dir), None)
}

/// The benchmark's command of one point of a load curve, `load` filled in (`{port}` left).
pub fn point_bench_argv(study: &Study, config: &Config, profile: &Profile, load: u64) -> anyhow::Result<Vec<String>> {
    let axis = profile.load.as_ref().map_or(crate::curve::Axis::Concurrency, |l| l.get_ref().axis);
    Ok(fill_load(&curve_bench_argv(study, config, profile, axis)?, load))
}

/// A curve's benchmark command with one point's load in place of [`LOAD`].
pub fn fill_load(argv: &[String], load: u64) -> Vec<String> {
    argv.iter().map(|w| w.replace(LOAD, &load.to_string())).collect()
}

/// A curve point's benchmark command as it runs: `perflab bench` also writes each request's
/// latencies to `requests` (for goodput); another benchmark's command is left as it is. The
/// flag is added when the point runs, not recorded in its command, so that a point measures
/// the same thing whether or not its records were kept.
pub fn with_requests_file(mut argv: Vec<String>, requests: &std::path::Path) -> Vec<String> {
    if is_perflab_bench(&argv) {
        argv.push("--requests-file".into());
        argv.push(requests.display().to_string());
    }
    argv
}

/// Whether a benchmark command runs `perflab bench` (which says what it did not believe on
/// standard error, and can write each request's latencies).
pub fn is_perflab_bench(argv: &[String]) -> bool {
    argv.len() > 1 && argv[0] == "perflab" && argv[1] == "bench"
}

/// The placeholder a load curve's benchmark command has where each point's load goes.
pub const LOAD: &str = "{load}";

/// The benchmark's command for a load curve's points: [`bench_argv`] with [`LOAD`] where the
/// axis's value (`max_concurrency` or `request_rate`, and `{load}` in a template) goes.
pub fn curve_bench_argv(
    study: &Study,
    config: &Config,
    profile: &Profile,
    axis: crate::curve::Axis,
) -> anyhow::Result<Vec<String>> {
    bench_words(study, config, profile, Some(&study.dir), Some(axis.key()))
}

/// The benchmark's command for a profile as a page shows it: a dataset path as the study
/// writes it (relative to the study's folder), the rest as [`bench_argv`] gives it; a load
/// curve's command with [`LOAD`] where a point's load goes, so that any point can be measured
/// again from it.
pub fn shown_bench_argv(study: &Study, config: &Config, profile: &Profile) -> anyhow::Result<Vec<String>> {
    let load = profile.load.as_ref().map(|l| l.get_ref().axis.key());
    bench_words(study, config, profile, None, load)
}

/// A profile's benchmark command: `benchmark.command` with the profile's values filled in, or
/// `perflab bench` with them as flags; then the profile's own `args`. `dir` makes a dataset
/// path absolute; `load` leaves [`LOAD`] where a curve point's load goes.
fn bench_words(
    study: &Study,
    config: &Config,
    profile: &Profile,
    dir: Option<&std::path::Path>,
    load: Option<&'static str>,
) -> anyhow::Result<Vec<String>> {
    let values = bench_values(study, config, profile, dir, load);
    let extra = profile
        .args
        .iter()
        .map(|w| fill(w, &values))
        .collect::<anyhow::Result<Vec<_>>>()
        .with_context(|| format!("`args` of profile `{}`", profile.id.get_ref()))?;
    let mut argv = match &study.spec.benchmark.command {
        Some(template) => split(template.get_ref())?
            .iter()
            .map(|w| fill(w, &values))
            .collect::<anyhow::Result<Vec<_>>>()
            .with_context(|| format!("`benchmark.command` for profile `{}`", profile.id.get_ref()))?,
        None => perflab_bench_words(profile, &values)?,
    };
    argv.extend(extra);
    Ok(argv)
}

/// The values a benchmark command's placeholders take for a profile.
fn bench_values(
    study: &Study,
    config: &Config,
    profile: &Profile,
    dir: Option<&std::path::Path>,
    load: Option<&'static str>,
) -> BTreeMap<&'static str, String> {
    let rate = match &profile.request_rate {
        Some(Rate::PerSecond(r)) => Some(r.to_string()),
        Some(Rate::Unlimited) => Some("inf".to_string()),
        None => None,
    };
    let mut values = BTreeMap::from([
        ("model", study.model_of(config)),
        ("host", HOST.to_string()),
        ("dataset", profile.dataset.clone()),
        ("total_requests", profile.total_requests.to_string()),
    ]);
    let optional = [
        (
            "dataset_path",
            profile.dataset_path.as_ref().map(|p| dir.map_or(p.clone(), |d| d.join(p).display().to_string())),
        ),
        ("input_tokens", profile.input_tokens.map(|v| v.to_string())),
        ("output_tokens", profile.output_tokens.map(|v| v.to_string())),
        ("seed", profile.seed.map(|v| v.to_string())),
        ("request_rate", rate),
        ("max_concurrency", profile.max_concurrency.map(|v| v.to_string())),
    ];
    for (k, v) in optional {
        if let Some(v) = v {
            values.insert(k, v);
        }
    }
    if let Some(key) = load {
        values.insert(key, LOAD.to_string());
        values.insert("load", LOAD.to_string());
    }
    values
}

/// `perflab bench` with a profile's values as its flags.
fn perflab_bench_words(profile: &Profile, values: &BTreeMap<&'static str, String>) -> anyhow::Result<Vec<String>> {
    let mut argv: Vec<String> = ["perflab", "bench", "--quiet", "--base-url", &format!("http://{HOST}:{{port}}")]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let dataset = match profile.dataset.to_ascii_lowercase().as_str() {
        "random" => "random",
        "sharegpt" => "sharegpt",
        "jsonl" => "jsonl",
        other => bail!("profile `{}`: perflab bench has no dataset `{other}`", profile.id.get_ref()),
    };
    let mut push = |k: &str, v: &str| {
        argv.push(k.to_string());
        argv.push(v.to_string());
    };
    push("--model", &values["model"]);
    push("--dataset-name", dataset);
    push("--num-prompts", &values["total_requests"]);
    for (flag, key) in [
        ("--dataset-path", "dataset_path"),
        ("--random-input-len", "input_tokens"),
        ("--random-output-len", "output_tokens"),
        ("--seed", "seed"),
        ("--request-rate", "request_rate"),
        ("--max-concurrency", "max_concurrency"),
    ] {
        if let Some(v) = values.get(key) {
            push(flag, v);
        }
    }
    if dataset == "sharegpt"
        && let Some(out) = profile.output_tokens
    {
        push("--sharegpt-output-len", &out.to_string());
    }
    Ok(argv)
}

/// A configuration as a command.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Command {
    /// `stage/variant` it comes from.
    pub source: String,
    pub engine: String,
    /// The engine's launch command with the model filled in.
    pub launch: String,
    /// The model (or checkpoint) it serves: what `{model}` in a flag stands for.
    pub model: String,
    /// Flags as written, in order.
    pub flags: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// The command of a configuration.
pub fn shown(study: &Study, source: &str, config: &Config) -> Command {
    let engine = study.engine(&config.engine);
    let model = study.model_of(config);
    let published = engine.map_or(String::new(), |e| e.published_command(&model));
    let aliases = engine.map(|e| e.aliases.clone()).unwrap_or_default();
    // The configuration's flags with the checkpoint filled in. A flag the launch command
    // already has takes the configuration's value there; the others are listed after it. Each
    // flag appears once.
    let flags: Vec<Flag> = config
        .flags
        .iter()
        .map(|f| Flag::parse(&crate::study::fill_model(&f.text, &model), &aliases).unwrap_or_else(|| f.clone()))
        .collect();
    let words = split(&published).unwrap_or_default();
    let (inline, rest): (Vec<&Flag>, Vec<&Flag>) =
        flags.iter().partition(|f| words.iter().any(|w| Flag::parse(w, &aliases).is_some_and(|t| t.key == f.key)));
    let launch = if inline.is_empty() {
        published
    } else {
        let only = Config { flags: inline.into_iter().cloned().collect(), ..Config::new(&config.engine) };
        join(&only.apply_to(&words, &aliases))
    };
    let mut env = engine.map(|e| e.env.clone()).unwrap_or_default();
    env.extend(config.env.clone());
    Command {
        source: source.to_string(),
        engine: config.engine.clone(),
        launch,
        model,
        flags: rest.iter().map(|f| f.text.clone()).collect(),
        env,
    }
}

/// A serving command as a shell snippet: `export` lines, then one flag a line, every word
/// quoted where a shell would read it otherwise.
pub fn shell(cmd: &Command) -> String {
    let mut out = String::new();
    for (k, v) in &cmd.env {
        out.push_str(&format!("export {k}={}\n", quote(v)));
    }
    out.push_str(&cmd.launch);
    for flag in &cmd.flags {
        let words = Flag::parse(flag, &BTreeMap::new()).map_or_else(|| vec![flag.clone()], |f| f.argv());
        out.push_str(&format!(" \\\n    {}", join(&words)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_then_fill_word_by_word() {
        assert_eq!(split("a 'b c' \"d\"  e").unwrap(), ["a", "b c", "d", "e"]);
        assert!(split("a 'b").is_err());
        let values = BTreeMap::from([("model", "m; rm -rf /".to_string())]);
        assert_eq!(fill("--model={model}", &values).unwrap(), "--model=m; rm -rf /");
        assert_eq!(fill("{port}", &values).unwrap(), "{port}");
        assert!(fill("{seed}", &values).is_err());
    }

    #[test]
    fn the_port_comes_from_the_command_then_the_ready_url() {
        let words = |s: &str| split(s).unwrap();
        assert_eq!(engine_port(&words("e --port {port}"), None), Ok(Port::Pick));
        assert_eq!(engine_port(&words("e --port 8000 --host 0.0.0.0"), None), Ok(Port::Fixed(8000)));
        assert_eq!(engine_port(&words("e --port=18555"), Some("http://127.0.0.1:9/x")), Ok(Port::Fixed(18555)));
        assert_eq!(engine_port(&words("e"), Some("http://127.0.0.1:18555/health")), Ok(Port::Fixed(18555)));
        assert!(engine_port(&words("vllm serve m"), None).is_err());
        assert!(engine_port(&words("vllm serve m"), Some("http://{host}:{port}/health")).is_err());
    }

    /// What bash makes of a snippet whose command is `printf '%s\n'`: the words it passes.
    fn bash_words(snippet: &str) -> Vec<String> {
        let out = std::process::Command::new("bash").arg("-c").arg(snippet).output().expect("bash runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn a_shown_command_reaches_the_shell_word_for_word() {
        let json = r#"--speculative-config={"method":"mtp","num_speculative_tokens":1}"#;
        let cmd = Command {
            source: "s/v".into(),
            engine: "e".into(),
            launch: "printf '%s\\n' \"$X\"".into(),
            model: "m".into(),
            flags: vec![
                json.into(),
                "--override-generation-config {\"a\": 1, \"b\": [2,3]}".into(),
                "--chat-template it's \"x\"".into(),
                "--served-model-name=a,b".into(),
                "--pattern=*.{a,b}".into(),
                "--tensor-parallel-size 2".into(),
                "--enforce-eager".into(),
            ],
            env: BTreeMap::from([("X".into(), "it's {a,b} $HOME".into())]),
        };
        let shown = shell(&cmd);
        assert!(shown.contains("\\\n    --tensor-parallel-size 2 \\\n"), "{shown}");
        assert!(shown.contains("\\\n    --served-model-name=a,b \\\n"), "{shown}");
        assert_eq!(
            bash_words(&shown),
            [
                "it's {a,b} $HOME",
                json,
                "--override-generation-config",
                r#"{"a": 1, "b": [2,3]}"#,
                "--chat-template",
                r#"it's "x""#,
                "--served-model-name=a,b",
                "--pattern=*.{a,b}",
                "--tensor-parallel-size",
                "2",
                "--enforce-eager",
            ]
        );
    }

    #[test]
    fn joined_words_split_back_and_paste_into_bash() {
        let words: Vec<String> =
            ["vllm", "serve", "a b", "it's \"both\"", "", "{x,y}", "~/m", "$PATH", "--x={\"k\":[1,2]}", "é"]
                .map(String::from)
                .to_vec();
        let line = join(&words);
        assert_eq!(split(&line).unwrap(), words);
        let mut printed = words.clone();
        printed.remove(0);
        printed.remove(0);
        assert_eq!(bash_words(&format!("printf '%s\\n' {}", join(&printed))), printed);
    }
}
