//! What the runs a page stands on recorded of their machine and engine (see
//! [`crate::study::Machine`]), fact by fact: the one value they share, or each value with the
//! runs that ran on it when they disagree. The page's setup, `analyze` and the CSV show these.

use crate::study::{Fact, Machine, Manifest, RunKey, Study};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a recorded fact is about. The host's name and the study's commit stay in the manifests:
/// a page does not publish them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Subject {
    /// The accelerators' model.
    GpuModel,
    /// How many a start was given.
    GpuCount,
    /// Memory of one.
    GpuMemory,
    /// Their driver's version.
    GpuDriver,
    /// Their runtime (`CUDA 12.4`).
    GpuRuntime,
    /// The CPU's model.
    CpuModel,
    /// The CPU cores the machine has.
    CpuCores,
    /// The kernel's release.
    Kernel,
    /// The container the runner ran in.
    Container,
    /// The engine's own version, by the study's engine id.
    EngineVersion(String),
    /// A Python package of an engine's interpreter, by its name.
    Package(String),
    /// The model's revision.
    ModelRevision,
    /// perflab's own version.
    Perflab,
    /// The container image the engine ran in.
    Image,
    /// Its digest.
    ImageDigest,
}

impl Subject {
    /// The name a CSV column and a catalog key take (`gpu-model`, `engine-version`, `package`).
    pub fn key(&self) -> &'static str {
        match self {
            Subject::GpuModel => "gpu-model",
            Subject::GpuCount => "gpu-count",
            Subject::GpuMemory => "gpu-memory",
            Subject::GpuDriver => "gpu-driver",
            Subject::GpuRuntime => "gpu-runtime",
            Subject::CpuModel => "cpu-model",
            Subject::CpuCores => "cpu-cores",
            Subject::Kernel => "kernel",
            Subject::Container => "container",
            Subject::EngineVersion(_) => "engine-version",
            Subject::Package(_) => "package",
            Subject::ModelRevision => "model-revision",
            Subject::Perflab => "perflab",
            Subject::Image => "image",
            Subject::ImageDigest => "image-digest",
        }
    }

    /// The engine or the package the fact is of.
    pub fn of(&self) -> Option<&str> {
        match self {
            Subject::EngineVersion(s) | Subject::Package(s) => Some(s),
            _ => None,
        }
    }
}

/// One value of a fact and the runs that recorded it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observed {
    /// The value as recorded.
    pub value: String,
    /// Where the first of its runs read it.
    pub source: String,
    /// The runs that recorded it, by name.
    pub runs: Vec<RunKey>,
}

/// A recorded fact across a page's runs: one value when they agree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedFact {
    /// What it is about.
    pub subject: Subject,
    /// Each value the runs recorded, with its runs.
    pub values: Vec<Observed>,
}

impl RecordedFact {
    /// Whether the runs recorded more than one value.
    pub fn disagrees(&self) -> bool {
        self.values.len() > 1
    }
}

/// The facts of one run's record, each with its subject.
pub fn facts_of(engine: &str, m: &Machine) -> Vec<(Subject, Fact)> {
    let plain = [
        (Subject::GpuModel, &m.gpu_model),
        (Subject::GpuCount, &m.gpu_count),
        (Subject::GpuMemory, &m.gpu_memory),
        (Subject::GpuDriver, &m.gpu_driver),
        (Subject::GpuRuntime, &m.gpu_runtime),
        (Subject::CpuModel, &m.cpu_model),
        (Subject::CpuCores, &m.cpu_cores),
        (Subject::Kernel, &m.kernel),
        (Subject::Container, &m.container),
        (Subject::EngineVersion(engine.to_string()), &m.engine_version),
        (Subject::ModelRevision, &m.model_revision),
        (Subject::Perflab, &m.perflab),
        (Subject::Image, &m.image),
        (Subject::ImageDigest, &m.image_digest),
    ];
    let mut facts: Vec<(Subject, Fact)> =
        plain.into_iter().filter_map(|(s, f)| f.as_ref().map(|f| (s, f.clone()))).collect();
    facts.extend(m.packages.iter().map(|(name, f)| (Subject::Package(name.clone()), f.clone())));
    facts
}

/// The facts the runs that stand recorded, in [`Subject`]'s order; each value's runs sorted by
/// name, the values by their first run. Runs without a record (placed by hand, or recorded
/// before perflab kept it) add nothing.
pub fn recorded(study: &Study) -> Vec<RecordedFact> {
    recorded_in(&study.manifests)
}

fn recorded_in(manifests: &BTreeMap<RunKey, Manifest>) -> Vec<RecordedFact> {
    let mut by: BTreeMap<Subject, Vec<Observed>> = BTreeMap::new();
    for (key, m) in manifests {
        let Some(machine) = &m.machine else { continue };
        for (subject, fact) in facts_of(&m.engine, machine) {
            let values = by.entry(subject).or_default();
            match values.iter_mut().find(|o| o.value == fact.value) {
                Some(o) => o.runs.push(key.clone()),
                None => values.push(Observed { value: fact.value, source: fact.source, runs: vec![key.clone()] }),
            }
        }
    }
    by.into_iter().map(|(subject, values)| RecordedFact { subject, values }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_disagree_are_named_with_their_value() {
        let gpu = |driver: &str| Machine {
            gpu_driver: Some(Fact::new(driver, "nvidia-smi")),
            packages: BTreeMap::from([("torch".to_string(), Fact::new("2.13.0", "importlib.metadata"))]),
            ..Machine::default()
        };
        let mut manifests = BTreeMap::new();
        for (run, driver) in [("s/a/p", "550.54.15"), ("s/b/p", "535.1"), ("s/c/p", "550.54.15")] {
            let mut m = Manifest::start("e", "1", Vec::new(), BTreeMap::new(), Vec::new(), "");
            m.machine = Some(gpu(driver));
            manifests.insert(RunKey::parse(run), m);
        }
        let facts = recorded_in(&manifests);
        let driver = facts.iter().find(|f| f.subject == Subject::GpuDriver).unwrap();
        assert!(driver.disagrees());
        assert_eq!(driver.values[0].value, "550.54.15");
        assert_eq!(driver.values[0].runs, vec![RunKey::parse("s/a/p"), RunKey::parse("s/c/p")]);
        assert_eq!(driver.values[1].runs, vec![RunKey::parse("s/b/p")]);
        let torch = facts.iter().find(|f| f.subject == Subject::Package("torch".into())).unwrap();
        assert!(!torch.disagrees());
        assert!(facts.iter().all(|f| f.subject != Subject::GpuModel), "a fact no run recorded is not there");
    }
}
