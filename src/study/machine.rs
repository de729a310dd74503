//! What a run really ran on, as its manifest records it: each fact with the place it was read
//! from (a vendor tool's query, a file of `/proc`, the engine's own answer). A fact that could
//! not be read is absent: "not recorded", never guessed. `exec::machine` gathers them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One recorded fact and where it came from (`nvidia-smi --query-gpu=name`, `/proc/cpuinfo`,
/// `GET /version`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    pub value: String,
    pub source: String,
}

impl Fact {
    pub fn new(value: impl Into<String>, source: impl Into<String>) -> Fact {
        Fact { value: value.into(), source: source.into() }
    }
}

/// The machine and the software of one engine start. Every field is optional: a machine with no
/// GPU tool, a host outside a container, an engine that does not say its version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The accelerators' model (`NVIDIA H100 80GB HBM3`), the distinct ones joined with ` + `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_model: Option<Fact>,
    /// How many the engine could see (the devices it was given, else the machine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_count: Option<Fact>,
    /// Memory of one, as the tool says it (`81559 MiB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_memory: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_driver: Option<Fact>,
    /// The accelerator runtime (`CUDA 12.4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_runtime: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_cores: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Fact>,
    /// The container the runner ran in, when it could tell (`docker`, `podman`, `kubernetes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Fact>,
    /// The engine's own version: its HTTP version endpoint while it served, else what its
    /// program or its interpreter's package metadata says before the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_version: Option<Fact>,
    /// The versions of the engine interpreter's packages (`torch`, `vllm`, ...), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub packages: BTreeMap<String, Fact>,
    /// The model's revision: a Hugging Face cache snapshot's folder, or the commit of a model
    /// folder that is a git repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_revision: Option<Fact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perflab: Option<Fact>,
    /// The commit of the repository that holds the study, `+changes` when its files differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study_commit: Option<Fact>,
}

impl Machine {
    /// Each recorded fact with its name, in the order a reader looks for them.
    pub fn facts(&self) -> Vec<(&'static str, &Fact)> {
        let named = [
            ("gpu-model", &self.gpu_model),
            ("gpu-count", &self.gpu_count),
            ("gpu-memory", &self.gpu_memory),
            ("gpu-driver", &self.gpu_driver),
            ("gpu-runtime", &self.gpu_runtime),
            ("cpu-model", &self.cpu_model),
            ("cpu-cores", &self.cpu_cores),
            ("host", &self.host),
            ("kernel", &self.kernel),
            ("container", &self.container),
            ("engine-version", &self.engine_version),
            ("model-revision", &self.model_revision),
            ("perflab", &self.perflab),
            ("study-commit", &self.study_commit),
        ];
        named.into_iter().filter_map(|(name, fact)| fact.as_ref().map(|f| (name, f))).collect()
    }

    // A cluster's node records its own host and accelerators, joined with the runner's facts.

    /// Every field that holds one fact (recorded or not), and the packages. Each field is named,
    /// so that a field added to the machine cannot be left out here.
    fn parts(&mut self) -> ([&mut Option<Fact>; 14], &mut BTreeMap<String, Fact>) {
        let Machine {
            gpu_model,
            gpu_count,
            gpu_memory,
            gpu_driver,
            gpu_runtime,
            cpu_model,
            cpu_cores,
            host,
            kernel,
            container,
            engine_version,
            packages,
            model_revision,
            perflab,
            study_commit,
        } = self;
        let one = [
            gpu_model,
            gpu_count,
            gpu_memory,
            gpu_driver,
            gpu_runtime,
            cpu_model,
            cpu_cores,
            host,
            kernel,
            container,
            engine_version,
            model_revision,
            perflab,
            study_commit,
        ];
        (one, packages)
    }

    /// Each recorded fact, the packages' too, to change (where it says it was read).
    pub fn facts_mut(&mut self) -> impl Iterator<Item = &mut Fact> {
        let (one, packages) = self.parts();
        one.into_iter().flatten().chain(packages.values_mut())
    }

    /// Fills the facts this machine lacks from `other`'s.
    pub fn fill(&mut self, mut other: Machine) {
        let (into, into_packages) = self.parts();
        let (from, packages) = other.parts();
        for (to, fact) in into.into_iter().zip(from) {
            if to.is_none() {
                *to = fact.take();
            }
        }
        for (name, fact) in std::mem::take(packages) {
            into_packages.entry(name).or_insert(fact);
        }
    }
}

/// Whether an engine's own version is the one a study declares: the same text, with or without
/// a leading `v`, or the declared release with a local build label (`0.32.0+cpu` is a build of
/// `0.32.0`).
pub fn version_matches(declared: &str, reported: &str) -> bool {
    let strip = |v: &str| v.trim().trim_start_matches('v').to_string();
    let (declared, reported) = (strip(declared), strip(reported));
    declared == reported || reported.strip_prefix(&declared).is_some_and(|rest| rest.starts_with('+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_is_filled_with_the_facts_it_lacks_and_its_sources_can_be_changed() {
        let fact = |v: &str| Some(Fact::new(v, "here"));
        let mut runner = Machine { engine_version: fact("1"), kernel: fact("runner's"), ..Machine::default() };
        runner.packages.insert("torch".into(), Fact::new("2", "here"));
        let mut node = Machine { kernel: fact("node's"), gpu_model: fact("H100"), ..Machine::default() };
        node.packages.insert("vllm".into(), Fact::new("0.32.0", "here"));
        for f in node.facts_mut() {
            f.source.push_str(" on node n1");
        }
        runner.fill(node);
        assert_eq!(runner.kernel.unwrap().value, "runner's", "a fact it has is kept");
        assert_eq!(runner.gpu_model.unwrap(), Fact::new("H100", "here on node n1"));
        assert_eq!(runner.engine_version.unwrap().value, "1");
        assert_eq!(runner.packages.keys().collect::<Vec<_>>(), ["torch", "vllm"]);
    }

    #[test]
    fn a_local_build_label_matches_its_release_and_nothing_else_does() {
        assert!(version_matches("0.32.0", "0.32.0+cpu"));
        assert!(version_matches("0.32.0", "v0.32.0"));
        assert!(version_matches("1.0", "1.0"));
        assert!(!version_matches("0.32.0", "0.32.01"));
        assert!(!version_matches("0.32", "0.32.0"));
        assert!(!version_matches("0.31.0", "0.32.0+cpu"));
    }
}
