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

    // The container image, its digest and perflab's own commit.
    /// The container image the engine ran in: the one its command names (`docker run IMAGE`,
    /// `apptainer exec IMAGE.sif`, `srun --container-image=IMAGE`), as written, else the one the
    /// runner itself ran in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Fact>,
    /// The image's digest (`sha256:...`): written in its reference, or as its runtime says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_digest: Option<Fact>,
    /// The id of the container the runner ran in, from its cgroup or its mounts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<Fact>,
    /// The commit perflab was built from, `+changes` when its sources differed from it. Kept in
    /// the manifests: a page, an export or `analyze` never shows it, so that the same runs give
    /// the same pages whichever build renders them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perflab_commit: Option<Fact>,
}

/// `[record]`: what a run's manifest may say of the machine it ran on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The host's name (and a Slurm node's): written, hashed or left out.
    #[serde(default)]
    pub host: HostRecord,
}

/// How a manifest names the host a run ran on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostRecord {
    /// The name as the machine says it.
    #[default]
    Name,
    /// A keyed hash of the name: runs on one host share it, and the name cannot be read back
    /// without the salt, which stays off the study's files.
    Hash,
    /// Nothing: the host is not recorded.
    Omit,
}

impl Machine {
    /// Each recorded fact a reader may be shown, with its name, in the order a reader looks for
    /// them: the host's name, the study's commit, the container's id and perflab's commit stay
    /// in the manifest.
    pub fn facts(&self) -> Vec<(&'static str, &Fact)> {
        let named = [
            ("gpu-model", &self.gpu_model),
            ("gpu-count", &self.gpu_count),
            ("gpu-memory", &self.gpu_memory),
            ("gpu-driver", &self.gpu_driver),
            ("gpu-runtime", &self.gpu_runtime),
            ("cpu-model", &self.cpu_model),
            ("cpu-cores", &self.cpu_cores),
            ("kernel", &self.kernel),
            ("container", &self.container),
            ("engine-version", &self.engine_version),
            ("model-revision", &self.model_revision),
            ("perflab", &self.perflab),
            ("image", &self.image),
            ("image-digest", &self.image_digest),
        ];
        named.into_iter().filter_map(|(name, fact)| fact.as_ref().map(|f| (name, f))).collect()
    }

    // A cluster's node records its own host and accelerators, joined with the runner's facts.

    /// Every field that holds one fact (recorded or not), and the packages. Each field is named,
    /// so that a field added to the machine cannot be left out here.
    fn parts(&mut self) -> ([&mut Option<Fact>; 18], &mut BTreeMap<String, Fact>) {
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
            image,
            image_digest,
            container_id,
            perflab_commit,
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
            image,
            image_digest,
            container_id,
            perflab_commit,
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

    #[test]
    fn what_stays_in_the_manifest_is_not_among_the_facts_a_reader_is_shown() {
        let fact = |v: &str| Some(Fact::new(v, "test"));
        let m = Machine {
            host: fact("gpu-node-07"),
            study_commit: fact("0123abc"),
            container_id: fact("3f4e2a"),
            perflab_commit: fact("4567def"),
            kernel: fact("6.8.0"),
            image: fact("vllm/vllm-openai:v0.8.5"),
            image_digest: fact("sha256:d366"),
            ..Machine::default()
        };
        let names: Vec<&str> = m.facts().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["kernel", "image", "image-digest"]);
    }

    #[test]
    fn the_host_is_named_unless_a_study_says_otherwise() {
        let read = |text: &str| toml::from_str::<Record>(text).map(|r| r.host).map_err(|e| e.message().to_string());
        assert_eq!(read(""), Ok(HostRecord::Name));
        assert_eq!(read("host = \"hash\""), Ok(HostRecord::Hash));
        assert_eq!(read("host = \"omit\""), Ok(HostRecord::Omit));
        assert!(read("host = \"Hash\"").unwrap_err().contains("unknown variant `Hash`"));
    }
}
