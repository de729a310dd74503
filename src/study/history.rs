//! A run's history: what measured each of its attempts (engine, version, command, date), the
//! record of the runs placed by hand (`runs/recorded.json`), the study as it stood before its
//! newest re-measurements, and whether a stored result still measures what the study says
//! ([`staleness`]).

use super::command;
use super::{Attempt, Config, Flag, FlagChanges, Manifest, RunKey, RunState, Study};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The file in `runs/` that keeps, for each run placed by hand (attempt 0 without a manifest),
/// the engine, version and command the study named when perflab first saw it: bumping the
/// version later does not relabel it.
pub const RECORDED_FILE: &str = "recorded.json";

/// What a run placed by hand was measured with, as first seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    pub engine: String,
    pub engine_version: String,
    /// The engine's argument vector, with the port as `{port}`.
    pub command: Vec<String>,
    /// `YYYY-MM-DD`: the study's `date` when it was recorded, if it had one.
    #[serde(default)]
    pub date: Option<String>,
}

/// What measured one attempt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provenance {
    pub attempt: u32,
    pub engine: String,
    pub engine_version: String,
    /// The engine's argument vector, with the port as `{port}`.
    pub command: Vec<String>,
    /// The benchmark's argument vector (`None` for a run placed by hand).
    pub benchmark_command: Option<Vec<String>>,
    /// `YYYY-MM-DD` of the measurement, when known.
    pub date: Option<String>,
    /// The fingerprint of the profile's dataset file when it was measured, when recorded.
    pub dataset_fingerprint: Option<String>,
    /// What the attempt ran on, when its manifest recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<super::Machine>,
}

impl Provenance {
    pub(crate) fn of_manifest(attempt: u32, m: &Manifest) -> Provenance {
        let when = m.ended_at.as_deref().or(m.engine_ready_at.as_deref()).unwrap_or(&m.started_at);
        Provenance {
            attempt,
            engine: m.engine.clone(),
            engine_version: m.engine_version.clone(),
            command: m.command.clone(),
            benchmark_command: Some(m.benchmark_command.clone()),
            date: when.get(..10).and_then(day),
            dataset_fingerprint: m.dataset_fingerprint.clone(),
            machine: m.machine.clone(),
        }
    }

    /// Engine, version and command: what makes two measurements (attempts of `perflab run` or
    /// results placed by hand) measure the same thing.
    pub fn same_setup(&self, other: &Provenance) -> bool {
        (&self.engine, &self.engine_version, &self.command) == (&other.engine, &other.engine_version, &other.command)
    }
}

/// A `YYYY-MM-DD` date, or `None` for any other text (a record is shown on pages as it is).
fn day(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (b.len() == 10 && b[4] == b'-' && b[7] == b'-' && digits(0..4) && digits(5..7) && digits(8..10))
        .then(|| text.to_string())
}

/// Reads `runs/recorded.json`: an empty record when it is missing.
pub fn read_recorded(path: &Path) -> Result<BTreeMap<RunKey, Recorded>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(format!("cannot read: {e}")),
    };
    let named: BTreeMap<String, Recorded> = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}: not a record of runs placed by hand: {e}", e.line(), e.column()))?;
    Ok(named.into_iter().map(|(name, r)| (RunKey::parse(&name), r)).collect())
}

/// Writes `runs/recorded.json` durably, runs sorted by name.
pub fn write_recorded(path: &Path, recorded: &BTreeMap<RunKey, Recorded>) -> std::io::Result<()> {
    let named: BTreeMap<String, &Recorded> = recorded.iter().map(|(k, r)| (k.name(), r)).collect();
    let mut bytes = serde_json::to_vec_pretty(&named).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    crate::durable::write(path, &bytes)
}

impl Study {
    /// What measured an attempt of a run: its manifest, or for a result placed by hand the
    /// record of `runs/recorded.json`. `None` when neither says.
    pub fn provenance_of(&self, key: &RunKey, attempt: &Attempt) -> Option<Provenance> {
        match (&attempt.manifest, attempt.number) {
            // A failed manifest beside a result placed by hand is of a later measurement.
            (Some(m), 0) if m.state != RunState::Done => self.recorded_provenance(key),
            (Some(m), n) => Some(Provenance::of_manifest(n, m)),
            (None, 0) => self.recorded_provenance(key),
            (None, _) => None,
        }
    }

    fn recorded_provenance(&self, key: &RunKey) -> Option<Provenance> {
        let r = self.recorded.get(key)?;
        Some(Provenance {
            attempt: 0,
            engine: r.engine.clone(),
            engine_version: r.engine_version.clone(),
            command: r.command.clone(),
            benchmark_command: None,
            date: r.date.as_deref().and_then(day),
            dataset_fingerprint: None,
            machine: None,
        })
    }

    /// What measured the result (or recorded the failure) that stands for a run.
    pub fn provenance(&self, key: &RunKey) -> Option<Provenance> {
        let attempts = self.attempts.get(key)?;
        self.provenance_of(key, Attempt::select(attempts)?)
    }

    /// Runs placed by hand (attempt 0 with a result and no manifest of its own) that
    /// `runs/recorded.json` does not name yet.
    pub fn unrecorded(&self) -> Vec<RunKey> {
        self.attempts
            .iter()
            .filter(|(key, list)| {
                list.first().is_some_and(|a| a.number == 0 && a.run.is_some() && a.manifest.is_none())
                    && !self.recorded.contains_key(*key)
            })
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// The study as it stood before its newest re-measurements: for each run whose standing
    /// attempt has earlier attempts with another engine, version or command, the attempt that
    /// stood among those; other runs as they are. `None` when no run has such an earlier
    /// attempt (nothing was re-measured with another setup).
    pub fn previous(&self) -> Option<Study> {
        let mut earlier_standing = Vec::new();
        for (key, list) in &self.attempts {
            let Some(now) = Attempt::select(list) else { continue };
            let Some(setup) = self.provenance_of(key, now) else { continue };
            let earlier: Vec<Attempt> = list
                .iter()
                .filter(|a| a.number < now.number)
                .filter(|a| self.provenance_of(key, a).is_some_and(|p| !p.same_setup(&setup)))
                .cloned()
                .collect();
            if let Some(then) = Attempt::select(&earlier) {
                earlier_standing.push((key.clone(), then.clone()));
            }
        }
        if earlier_standing.is_empty() {
            return None;
        }
        let mut before = self.clone();
        for (key, then) in earlier_standing {
            before.stand(&key, &then);
            if let Some(list) = before.attempts.get_mut(&key) {
                list.retain(|a| a.number <= then.number);
            }
        }
        Some(before)
    }
}

/// Why a run's result no longer measures what the study says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Stale {
    /// The engine's version changed in the study.
    Version { was: String, now: String },
    /// Another engine: an earlier stage's winner is another engine now.
    Engine { was: String, now: String },
    /// The effective command changed: an earlier stage adopted another variant, or the study
    /// changed a flag of the engine or of a variant on the way. `changes` is empty when only
    /// words other than flags changed (the program, the model).
    Command { was: Vec<String>, changes: FlagChanges },
    /// The benchmark's command changed.
    Benchmark { was: Vec<String> },
    /// The dataset file at the same path holds other contents than when the run was measured.
    Dataset { path: String },
}

impl Stale {
    /// A line for the terminal.
    pub fn describe(&self) -> String {
        match self {
            Stale::Version { was, now } => format!("engine version {was} → {now}"),
            Stale::Engine { was, now } => format!("engine {was} → {now}"),
            Stale::Command { was, changes } if changes.is_empty() => {
                format!("the command changed (was `{}`)", was.join(" "))
            }
            Stale::Command { changes, .. } => format!("the command changed: {}", changes.describe()),
            Stale::Benchmark { was } => format!("the benchmark command changed (was `{}`)", was.join(" ")),
            Stale::Dataset { path } => format!("the dataset '{path}' has other contents than when it was measured"),
        }
    }

    /// The reasons, one line.
    pub fn describe_all(reasons: &[Stale]) -> String {
        reasons.iter().map(Stale::describe).collect::<Vec<_>>().join("; ")
    }
}

/// Why the result that stands for `key` no longer measures `config` as the study says it now:
/// empty when it does, or when nothing recorded what measured it (a run placed by hand that
/// `runs/recorded.json` does not name).
pub fn staleness(study: &Study, key: &RunKey, config: &Config) -> anyhow::Result<Vec<Stale>> {
    match study.provenance(key) {
        Some(was) => staleness_of(study, key, &was, config),
        None => Ok(Vec::new()),
    }
}

/// Why a measurement of run `key` that `was` measured no longer measures what the study says
/// for `config` (empty when it still does).
pub fn staleness_of(study: &Study, key: &RunKey, was: &Provenance, config: &Config) -> anyhow::Result<Vec<Stale>> {
    let mut out = Vec::new();
    let Some(engine) = study.engine(&config.engine) else { return Ok(out) };
    if was.engine != config.engine {
        out.push(Stale::Engine { was: was.engine.clone(), now: config.engine.clone() });
    } else if was.engine_version != engine.version {
        out.push(Stale::Version { was: was.engine_version.clone(), now: engine.version.clone() });
    }
    let argv = command::engine_argv(study, config)?;
    if was.command != argv && was.engine == config.engine {
        let changes = FlagChanges::between(&Flag::from_argv(&was.command), &Flag::from_argv(&argv));
        out.push(Stale::Command { was: was.command.clone(), changes });
    }
    if let (Some(bench), Some(profile)) = (&was.benchmark_command, study.profile(&key.profile)) {
        // The dataset's path is absolute: the same file in a moved or cloned study is the same.
        let relative = |words: &[String]| -> Vec<String> {
            let Some(path) = &profile.dataset_path else { return words.to_vec() };
            let path = std::path::Path::new(path);
            words
                .iter()
                .map(|w| if std::path::Path::new(w).ends_with(path) { "{dataset_path}".to_string() } else { w.clone() })
                .collect()
        };
        // A curve's own run stands for its boundary point, whose benchmark is compared on its own.
        let now = match key.load {
            Some(load) => command::point_bench_argv(study, config, profile, load)?,
            None if study.curve(&key.profile).is_some() => bench.clone(),
            None => command::bench_argv(study, config, profile)?,
        };
        if relative(bench) != relative(&now) {
            out.push(Stale::Benchmark { was: bench.clone() });
        }
    }
    // Runs measured before fingerprints were kept have none: nothing to compare.
    if let (Some(was), Some(path)) =
        (&was.dataset_fingerprint, study.profile(&key.profile).and_then(|p| p.dataset_path.as_ref()))
        && study.dataset_fingerprint(&key.profile).is_some_and(|now| now != *was)
    {
        out.push(Stale::Dataset { path: path.clone() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_date_is_taken_from_a_record() {
        assert_eq!(day("2026-11-30").as_deref(), Some("2026-11-30"));
        assert_eq!(day("<script>a"), None);
        assert_eq!(day("2026-1-300"), None);
        assert_eq!(day(""), None);
    }

    #[test]
    fn a_record_names_its_runs_and_rejects_unknown_keys() {
        let tmp = std::env::temp_dir().join(format!("perflab-recorded-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let path = tmp.join(RECORDED_FILE);
        assert!(read_recorded(&path).unwrap().is_empty(), "a missing record is empty");
        let key = RunKey::parse("engine/a/p");
        let r = Recorded { engine: "e".into(), engine_version: "1".into(), command: vec!["e".into()], date: None };
        write_recorded(&path, &BTreeMap::from([(key.clone(), r.clone())])).unwrap();
        assert_eq!(read_recorded(&path).unwrap(), BTreeMap::from([(key, r)]));
        std::fs::write(&path, r#"{"engine/a/p": {"engine": "e", "engine_versoin": "1", "command": []}}"#).unwrap();
        let err = read_recorded(&path).unwrap_err();
        assert!(err.starts_with("1:") && err.contains("engine_versoin"), "{err}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
