//! What a run ran on, gathered before its engine starts, and the check of the engine's declared
//! version ([`Recorder`]): the vendor's GPU tool ([`super::gpus`]), `/proc`, the engine's own
//! answer. Each tool runs with a deadline and a cap on what it may print; a tool that is
//! missing, fails or hangs leaves its facts "not recorded", never an error. The one error is a
//! version the engine reports that is not the study's.

use super::backend::{Launch, Report, VersionCheck};
use super::host::{Images, Salt, host, host_as, name_as, salt_for};
use super::plan::Job;
use super::process::program;
use super::tool::{OUTPUT_LIMIT, TOOL_TIMEOUT, WRAPPERS, bounded, find};
use crate::study::machine::HostRecord;
use crate::study::{Fact, Machine, Study};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long an engine's `--version` may take. A Python engine is not asked this way (its
/// package metadata answers); a program that ignores the flag and starts serving instead is
/// stopped at this deadline.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(20);
/// The Python packages recorded of an engine's interpreter, besides the engine's own.
const PACKAGES: &[&str] =
    &["flashinfer-python", "sglang", "tensorrt-llm", "torch", "transformers", "triton", "vllm", "xformers"];

/// The commit of the repository that holds `dir`, `+changes` when the study's files (its runs
/// aside) differ from it.
pub fn study_commit(dir: &Path, search: &OsStr) -> Option<Fact> {
    let git = find("git", search)?;
    let at = dir.to_str()?;
    let env = BTreeMap::new();
    let head = bounded(&git, &["-C", at, "rev-parse", "HEAD"], &env, TOOL_TIMEOUT)?;
    let head = head.trim();
    let status = ["-C", at, "status", "--porcelain", "--", ".", ":!runs"];
    let changed = bounded(&git, &status, &env, TOOL_TIMEOUT).is_some_and(|s| !s.trim().is_empty());
    let value = if changed { format!("{head}+changes") } else { head.to_string() };
    Some(Fact::new(value, "git rev-parse HEAD"))
}

/// The revision of the model a start serves: the snapshot folder of a Hugging Face cache
/// (`.../models--org--name/snapshots/<commit>/`), else the commit of a model folder that is a
/// git repository. A model named on a hub and not on this machine has none recorded.
pub fn model_revision(model: &str, search: &OsStr) -> Option<Fact> {
    let path = Path::new(model);
    let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
    let snapshot = parts.windows(2).find(|w| w[0] == "snapshots").map(|w| w[1]);
    if let Some(rev) = snapshot.filter(|r| r.len() >= 7 && r.chars().all(|c| c.is_ascii_hexdigit())) {
        return Some(Fact::new(rev, "the model's path (a Hugging Face cache snapshot)"));
    }
    if !path.join(".git").exists() {
        return None;
    }
    let git = find("git", search)?;
    let head = bounded(&git, &["-C", model, "rev-parse", "HEAD"], &BTreeMap::new(), TOOL_TIMEOUT)?;
    Some(Fact::new(head.trim(), "git rev-parse HEAD in the model's folder"))
}

/// What an engine's program says of itself before it starts: its version and, for a Python
/// program, its interpreter's packages.
#[derive(Debug, Clone, Default)]
pub struct EngineFacts {
    pub version: Option<Fact>,
    pub packages: BTreeMap<String, Fact>,
}

/// The facts of the engine an argument vector starts. A Python program (`vllm`, or `python -m
/// sglang.launch_server`) is asked through its interpreter's package metadata, which is what
/// its `--version` prints, in a tenth of a second instead of the half minute importing it takes;
/// any other program through `PROGRAM --version`. A bare interpreter says no engine version.
pub fn engine_facts(argv: &[String], env: &BTreeMap<String, String>, search: &OsStr, timeout: Duration) -> EngineFacts {
    let mut facts = EngineFacts::default();
    let Some(first) = argv.first() else { return facts };
    let resolved = program(first);
    let Some(path) = find(resolved.to_str().unwrap_or(first), search) else { return facts };
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
    let (python, package) = if name(&path).starts_with("python") {
        let module = argv.iter().position(|a| a == "-m").and_then(|i| argv.get(i + 1));
        (Some(path.clone()), module.and_then(|m| m.split('.').next()).map(str::to_string))
    } else {
        (shebang_python(&path, search), Some(name(&path)))
    };
    if let Some(python) = python {
        facts.packages = packages(&python, package.as_deref(), env, timeout);
        let own = package.as_deref().and_then(|p| facts.packages.get(p));
        facts.version = own.cloned();
        return facts;
    }
    // A shell, a launcher or a container runtime would say its own version, not the engine's.
    if WRAPPERS.contains(&name(&path).as_str()) {
        return facts;
    }
    let out = bounded(&path, &["--version"], env, timeout);
    facts.version = out.as_deref().and_then(version_in).map(|v| Fact::new(v, format!("{first} --version")));
    facts
}

/// The Python interpreter a script's `#!` line names, when it names one.
fn shebang_python(script: &Path, search: &OsStr) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).and_then(|mut f| f.read(&mut head)).ok()?;
    let line = std::str::from_utf8(&head[..n]).ok()?.lines().next()?.strip_prefix("#!")?;
    let mut words = line.split_whitespace();
    let mut interpreter = words.next()?;
    if interpreter.ends_with("/env") {
        interpreter = words.next()?;
    }
    let named = Path::new(interpreter).file_name()?.to_str()?;
    named.starts_with("python").then(|| find(interpreter, search)).flatten()
}

/// The versions of [`PACKAGES`] and of `own` in `python`'s environment, by name.
fn packages(
    python: &Path,
    own: Option<&str>,
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> BTreeMap<String, Fact> {
    let mut names: Vec<&str> = PACKAGES.to_vec();
    names.extend(own.filter(|o| !PACKAGES.contains(o)));
    let script = format!(
        "import importlib.metadata as m\nfor n in {names:?}:\n    try: print(n, m.version(n))\n    except Exception: pass\n"
    );
    let Some(out) = bounded(python, &["-c", &script], env, timeout) else { return BTreeMap::new() };
    let source = format!("importlib.metadata of {}", python.display());
    out.lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(n, v)| names.contains(n) && version_in(v).is_some())
        .map(|(n, v)| (n.to_string(), Fact::new(v.trim(), source.clone())))
        .collect()
}

/// The first version in a program's answer: `vllm 0.32.0+cpu` gives `0.32.0+cpu`; a bare number
/// (`engine 2`) when no dotted one is there.
pub fn version_in(text: &str) -> Option<String> {
    let words = || text.split_whitespace().map(|w| w.trim_start_matches(['(', 'v']).trim_end_matches([',', ';', ')']));
    let bare = |w: &&str| w.starts_with(|c: char| c.is_ascii_digit()) && w.chars().all(|c| c.is_ascii_alphanumeric());
    words()
        .find(|w| {
            // Numbers joined by dots, the last one perhaps with a pre-release (`2rc1`).
            let release = w.split(['+', '-']).next().unwrap_or("");
            let parts: Vec<&str> = release.split('.').collect();
            let number = |p: &&str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
            let last = parts.last().is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()));
            parts.len() > 1 && parts[..parts.len() - 1].iter().all(number) && last
        })
        .or_else(|| words().find(bare))
        .map(str::to_string)
}

/// Where a study declares its engine's `version`: the file and the line of the key in the
/// engine's table (the engine's id when it cannot be told).
fn declared_at(study: &Study, engine: &crate::study::Engine) -> String {
    let start = engine.id.span().start.min(study.source.len());
    let after = &study.source[start..];
    let end = after.find("\n[").map_or(after.len(), |e| e + 1);
    let offset = after[..end]
        .match_indices("version")
        .map(|(i, _)| start + i)
        .find(|&i| study.source[..i].rsplit('\n').next().is_some_and(|l| l.trim().is_empty()))
        .unwrap_or(start);
    let line = study.source[..offset].matches('\n').count() + 1;
    format!("{}:{line}", study.file.display())
}

/// An engine's program and environment: what its facts are asked with.
type EngineKey = (String, BTreeMap<String, String>);

/// Gathers the machine once a runner and each engine's facts once a program and environment,
/// and checks each start's engine version before it starts.
#[derive(Debug, Default)]
pub struct Recorder {
    /// The starts run on this machine (not on a cluster's nodes, which record their own host
    /// and accelerators: see [`node_machine`]).
    pub here: bool,
    /// Measure an engine that reports another version than the study's.
    pub any_version: bool,
    host: OnceLock<Machine>,
    images: Images,
    salt: OnceLock<Option<Salt>>,
    gpus: Mutex<BTreeMap<Option<String>, Machine>>,
    engines: Mutex<BTreeMap<EngineKey, EngineFacts>>,
}

impl Recorder {
    pub fn new(here: bool, any_version: bool) -> Recorder {
        Recorder { here, any_version, ..Recorder::default() }
    }

    /// What a start records of its machine and engine, and the check of its declared version;
    /// why it is not measured when its engine's program reports another version.
    pub fn prepare(
        &self,
        study: &Study,
        job: &Job,
        devices: Option<&str>,
    ) -> Result<(Machine, Option<VersionCheck>), String> {
        let search = std::env::var_os("PATH").unwrap_or_default();
        // The engine's program is asked with the engine's environment, not a variant's: its
        // version is the engine's, and a variant's variables are for its starts alone.
        let declared = study.engine(&job.config.engine);
        let env = declared.map(|e| e.env.clone()).unwrap_or_default();
        let key = (job.argv.first().cloned().unwrap_or_default(), env.clone());
        let engine = {
            let mut known = self.engines.lock().unwrap_or_else(|e| e.into_inner());
            known.entry(key).or_insert_with(|| engine_facts(&job.argv, &env, &search, VERSION_TIMEOUT)).clone()
        };
        let mut machine = Machine::default();
        if self.here {
            machine = self.host.get_or_init(host).clone();
            let mut gpus = self.gpus.lock().unwrap_or_else(|e| e.into_inner());
            let found = gpus
                .entry(devices.map(str::to_string))
                .or_insert_with(|| super::gpus::gpus(&search, devices, TOOL_TIMEOUT));
            machine.fill(found.clone());
            let how = study.spec.record.host;
            let salt = self.salt.get_or_init(|| salt_for(how));
            machine.host = host_as(machine.host.take(), how, salt.as_ref());
        }
        // The engine's image, where its command names one, is the image it ran in.
        if let (Some(image), digest) = self.images.of(&job.argv, &env, &search) {
            (machine.image, machine.image_digest) = (Some(image), digest);
        }
        // A cluster's nodes share the study's folder with the runner: its commit is the same.
        machine.study_commit = study_commit(&study.dir, &search);
        machine.engine_version = engine.version.clone();
        machine.packages = engine.packages;
        machine.model_revision = model_revision(&study.model_of(&job.config), &search);
        let check = declared.map(|e| VersionCheck {
            engine: job.config.engine.clone(),
            declared: e.version.clone(),
            at: declared_at(study, e),
            any: self.any_version,
        });
        if let (Some(check), Some(reported)) = (&check, &engine.version)
            && let Some(why) = check.refusal(reported)
        {
            return Err(why);
        }
        Ok((machine, check))
    }
}

/// What a cluster's node records of itself before it runs a start: its name and its facts, the
/// host and the accelerators it gave the job (see [`super::gpus::given_devices`]). The name
/// and the host are written as the study's `[record] host` says (named, hashed or left out)
/// before either reaches a source, and each source says which node it was read on.
pub fn node_machine(node: Option<&str>, how: HostRecord, devices: Option<&str>) -> (Option<String>, Machine) {
    let salt = salt_for(how);
    let node = node.and_then(|n| name_as(n, how, salt.as_ref()));
    let search = std::env::var_os("PATH").unwrap_or_default();
    let mut machine = host();
    machine.host = host_as(machine.host.take(), how, salt.as_ref());
    machine.fill(super::gpus::gpus(&search, devices, TOOL_TIMEOUT));
    let on = node.as_ref().map_or("on the job's node".to_string(), |n| format!("on node {n}"));
    for fact in machine.facts_mut() {
        fact.source = format!("{} {on}", fact.source);
    }
    (node, machine)
}

/// What a serving engine says its version is: vLLM's `GET /version` (`{"version": "0.32.0"}`),
/// else SGLang's `GET /get_server_info` (its `version`).
pub fn served_version(port: u16) -> Option<Fact> {
    let host = crate::study::command::HOST;
    for path in ["/version", "/get_server_info"] {
        let Some(answer) = super::port::get(&format!("http://{host}:{port}{path}"), OUTPUT_LIMIT) else { continue };
        let text = String::from_utf8_lossy(&answer);
        // The JSON object of the body, whether it came whole or in chunks (one, for so little).
        let body = text.split_once("\r\n\r\n").map_or(text.as_ref(), |(_, b)| b);
        let object = body.find('{').zip(body.rfind('}')).and_then(|(a, b)| body.get(a..=b)).unwrap_or("");
        let value: Option<serde_json::Value> = serde_json::from_str(object).ok();
        if let Some(v) = value.as_ref().and_then(|v| v.get("version")).and_then(|v| v.as_str())
            && version_in(v).is_some()
        {
            return Some(Fact::new(v, format!("GET {path}")));
        }
    }
    None
}

/// Asks a start's engine its version once it serves (the hook of a backend that runs engines):
/// recorded in the report, and a version that is not the study's refuses the start before its
/// first benchmark.
pub fn check_served(launch: &Launch, port: u16, report: &mut Report) {
    let Some(reported) = served_version(port) else { return };
    if let Some(why) = launch.version.as_ref().and_then(|c| c.refusal(&reported)) {
        report.refused = Some(why);
    }
    report.engine_version = Some(reported);
}

/// Puts what a start recorded into a run's manifest: the machine (with what a cluster's node
/// recorded of itself), the engine's version as it said it while serving, and the version the
/// run carries.
pub fn stamp(m: &mut crate::study::Manifest, launch: &Launch, report: Option<&Report>) {
    let mut machine = launch.machine.clone().unwrap_or_default();
    if let Some(served) = report.and_then(|r| r.engine_version.clone()) {
        machine.engine_version = Some(served);
    }
    if let Some(node) = report.and_then(|r| r.machine.clone()) {
        machine.fill(node);
    }
    if let Some(check) = &launch.version {
        m.engine_version = check.carried(machine.engine_version.as_ref());
    }
    m.machine = launch.machine.is_some().then_some(machine);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tool::tests::tool;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_python_program_is_asked_through_its_interpreter_and_another_by_its_version_flag() {
        let tmp = tempfile::tempdir().unwrap();
        // An interpreter that knows two packages, and a program of it, as a venv's `bin/` holds.
        tool(
            tmp.path(),
            "python3",
            "case \"$2\" in *importlib.metadata*) echo 'torch 2.13.0'; echo 'vllm 0.32.0+cpu';; esac",
        );
        let python = tmp.path().join("python3");
        std::fs::write(tmp.path().join("vllm"), format!("#!{}\nimport sys\n", python.display())).unwrap();
        std::fs::set_permissions(tmp.path().join("vllm"), std::fs::Permissions::from_mode(0o755)).unwrap();
        tool(tmp.path(), "engine", "[ \"$1\" = --version ] && echo \"engine version v$ENGINE_V (build 7)\"");
        let search = tmp.path().as_os_str();
        let none = BTreeMap::new();
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let vllm = engine_facts(&argv(&["vllm", "serve", "m"]), &none, search, TOOL_TIMEOUT);
        assert_eq!(vllm.version.as_ref().unwrap().value, "0.32.0+cpu");
        assert!(vllm.version.unwrap().source.starts_with("importlib.metadata of "));
        assert_eq!(vllm.packages["torch"].value, "2.13.0");
        // `python -m vllm.entrypoints...`: the module's package.
        let module =
            engine_facts(&argv(&["python3", "-m", "vllm.entrypoints.api_server"]), &none, search, TOOL_TIMEOUT);
        assert_eq!(module.version.unwrap().value, "0.32.0+cpu");
        // A bare interpreter running a script says no engine version (its own is Python's).
        assert!(engine_facts(&argv(&["python3", "serve.py"]), &none, search, TOOL_TIMEOUT).version.is_none());
        let env = BTreeMap::from([("ENGINE_V".to_string(), "1.4.2".to_string())]);
        let other = engine_facts(&argv(&["engine", "--port", "1"]), &env, search, TOOL_TIMEOUT);
        assert_eq!(other.version.unwrap(), Fact::new("1.4.2", "engine --version"));
        assert!(engine_facts(&argv(&["missing-engine"]), &none, search, TOOL_TIMEOUT).version.is_none());
        // A shell that runs the engine's script says its own version, which is not asked.
        tool(tmp.path(), "bash", "echo 'GNU bash, version 5.2.21(1)-release'");
        assert!(engine_facts(&argv(&["bash", "serve.sh"]), &none, search, TOOL_TIMEOUT).version.is_none());
    }

    #[test]
    fn a_node_s_facts_say_which_node_they_were_read_on() {
        let (node, m) = node_machine(Some("gpu07"), HostRecord::Name, None);
        assert_eq!(node.as_deref(), Some("gpu07"));
        assert!(m.kernel.as_ref().is_some_and(|k| k.source == "/proc/sys/kernel/osrelease on node gpu07"), "{m:?}");
        let mut m = m;
        assert!(m.facts_mut().all(|f| f.source.ends_with(" on node gpu07")), "{m:?}");
        let unnamed = node_machine(None, HostRecord::Name, None).1.kernel.unwrap().source;
        assert_eq!(unnamed, "/proc/sys/kernel/osrelease on the job's node");
        // A study that leaves its hosts out: neither the node's name nor the host's is written,
        // in a value or in a source.
        let (node, mut m) = node_machine(Some("gpu07"), HostRecord::Omit, None);
        assert_eq!((node, m.host.clone()), (None, None));
        assert!(m.facts_mut().all(|f| !f.source.contains("gpu07") && f.source.ends_with(" on the job's node")));
    }

    #[test]
    fn a_model_s_revision_is_its_cache_snapshot_and_else_not_recorded() {
        let search = std::env::var_os("PATH").unwrap_or_default();
        let rev = "0123456789abcdef0123456789abcdef01234567";
        let cached = format!("/cache/hub/models--org--m/snapshots/{rev}");
        assert_eq!(model_revision(&cached, &search).unwrap().value, rev);
        assert_eq!(model_revision("org/model-on-a-hub", &search), None);
        assert_eq!(model_revision("/cache/snapshots/not-a-commit", &search), None);
    }

    #[test]
    fn versions_are_read_from_what_programs_print() {
        assert_eq!(version_in("perflab-engine 1.2.3").as_deref(), Some("1.2.3"));
        assert_eq!(version_in("0.32.0+cpu").as_deref(), Some("0.32.0+cpu"));
        assert_eq!(version_in("sglang v0.5.2rc1").as_deref(), Some("0.5.2rc1"));
        assert_eq!(version_in("tool (v2.0.1, built 2026)").as_deref(), Some("2.0.1"));
        assert_eq!(version_in("no version here; see --sim-version").as_deref(), None);
    }
}
