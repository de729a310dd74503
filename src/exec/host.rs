//! The host a runner runs on (CPU, name, kernel, the container it is in and that container's
//! image) and the container image an engine's command runs the engine in, with its digest. The
//! host's files are read under a root folder and its environment is given, so that tests can
//! give fake ones; a runtime is asked through [`bounded`], so that a missing or hanging one
//! leaves the digest "not recorded".

use super::tool::{TOOL_TIMEOUT, bounded, find};
use crate::study::machine::HostRecord;
use crate::study::{Fact, Machine};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// A process's environment, by name.
pub type Env = BTreeMap<String, String>;

/// A container image, and its digest or id, each when known.
pub type ImageFacts = (Option<Fact>, Option<Fact>);

/// The host this runner runs on, from `/` and its own environment.
pub fn host() -> Machine {
    host_in(Path::new("/"), &std::env::vars().collect())
}

/// The host whose files are under `root` (`/` on a real one) and whose environment is `env`.
pub fn host_in(root: &Path, env: &Env) -> Machine {
    let read = |p: &str| {
        let text = std::fs::read_to_string(root.join(p.trim_start_matches('/'))).ok()?;
        Some(text.trim().to_string()).filter(|t| !t.is_empty())
    };
    let mut m = Machine::default();
    if let Some(cpuinfo) = read("/proc/cpuinfo") {
        let field = |line: &str| line.split_once(':').map(|(_, v)| v.trim().to_string());
        let model = cpuinfo.lines().find(|l| l.starts_with("model name")).and_then(field);
        m.cpu_model = model.map(|v| Fact::new(v, "/proc/cpuinfo (model name)"));
        let cores = cpuinfo.lines().filter(|l| l.starts_with("processor")).count();
        m.cpu_cores = (cores > 0).then(|| Fact::new(cores.to_string(), "/proc/cpuinfo (processor)"));
    }
    m.host = read("/proc/sys/kernel/hostname").map(|v| Fact::new(v, "/proc/sys/kernel/hostname"));
    m.kernel = read("/proc/sys/kernel/osrelease").map(|v| Fact::new(v, "/proc/sys/kernel/osrelease"));
    let containerenv = read("/run/.containerenv");
    let cgroup = read("/proc/self/cgroup");
    m.container = container(root, env, cgroup.as_deref());
    for (file, text) in [("/proc/self/cgroup", &cgroup), ("/proc/self/mountinfo", &read("/proc/self/mountinfo"))] {
        if m.container_id.is_none() {
            m.container_id = text.as_deref().and_then(container_id).map(|id| Fact::new(id, file));
        }
    }
    (m.image, m.image_digest) = own_image(containerenv.as_deref(), env);
    m.perflab = Some(Fact::new(env!("CARGO_PKG_VERSION"), "perflab --version"));
    m.perflab_commit = commit().map(|c| Fact::new(c, "perflab --version (git rev-parse HEAD when it was built)"));
    m
}

/// The commit perflab was built from (`build.rs`), when it was built from a git checkout.
pub fn commit() -> Option<&'static str> {
    Some(env!("PERFLAB_COMMIT")).filter(|c| !c.is_empty())
}

/// The container the runner is in, from the marks the usual runtimes leave.
fn container(root: &Path, env: &Env, cgroup: Option<&str>) -> Option<Fact> {
    let var = |name: &str| env.get(name).filter(|v| !v.is_empty());
    if let Some(kind) = var("container") {
        return Some(Fact::new(kind, "environment variable `container`"));
    }
    for (name, kind) in [
        ("APPTAINER_CONTAINER", "apptainer"),
        ("SINGULARITY_CONTAINER", "singularity"),
        ("KUBERNETES_SERVICE_HOST", "kubernetes"),
    ] {
        if var(name).is_some() {
            return Some(Fact::new(kind, format!("environment variable `{name}`")));
        }
    }
    for (file, kind) in [("/.dockerenv", "docker"), ("/run/.containerenv", "podman")] {
        if root.join(&file[1..]).exists() {
            return Some(Fact::new(kind, file));
        }
    }
    let cgroup = cgroup?;
    ["kubepods", "docker", "libpod", "containerd", "lxc"]
        .into_iter()
        .find(|k| cgroup.contains(k))
        .map(|k| Fact::new(k, "/proc/self/cgroup"))
}

/// A container's id in a line of `/proc/self/cgroup` (`0::/system.slice/docker-<id>.scope`,
/// `.../kubepods/burstable/pod<uid>/<id>`) or of `/proc/self/mountinfo` (the bind mount of
/// `/var/lib/docker/containers/<id>/hostname`): 64 hexadecimal digits on a line that names a
/// container runtime.
fn container_id(text: &str) -> Option<String> {
    const RUNTIMES: &[&str] = &["docker", "kubepods", "libpod", "containerd", "crio", "containers"];
    text.lines().filter(|l| RUNTIMES.iter().any(|r| l.contains(r))).find_map(|line| {
        let hex = |w: &&str| w.len() == 64 && w.chars().all(|c| c.is_ascii_hexdigit());
        line.split(['/', '-', '.', ':', ' ']).find(hex).map(str::to_string)
    })
}

/// The image the runner's own container was made from, and its id: podman's
/// `/run/.containerenv` (`image="..."`, `imageid="..."`), else Apptainer's or Singularity's
/// environment (the image file it runs), else the version variables of NVIDIA's images.
fn own_image(containerenv: Option<&str>, env: &Env) -> ImageFacts {
    if let Some(text) = containerenv {
        let value = |key: &str| {
            text.lines()
                .filter_map(|l| l.split_once('='))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().trim_matches('"').to_string())
                .filter(|v| !v.is_empty())
        };
        let image = value("image").map(|v| Fact::new(v, "/run/.containerenv (image)"));
        let id = value("imageid").map(|v| Fact::new(v, "/run/.containerenv (imageid)"));
        if image.is_some() || id.is_some() {
            return (image, id);
        }
    }
    // The file first (a path), then its name alone; Singularity's older names after Apptainer's.
    for name in ["APPTAINER_CONTAINER", "SINGULARITY_CONTAINER", "APPTAINER_NAME", "SINGULARITY_NAME"] {
        if let Some(v) = env.get(name).filter(|v| !v.is_empty()) {
            return (Some(Fact::new(v, format!("environment variable `{name}`"))), None);
        }
    }
    // NVIDIA's NGC images say their release (`24.05`) in a variable of their own.
    for (name, what) in
        [("NVIDIA_PYTORCH_VERSION", "NGC PyTorch"), ("NVIDIA_TRITON_SERVER_VERSION", "NGC Triton Inference Server")]
    {
        if let Some(v) = env.get(name).filter(|v| !v.is_empty()) {
            return (Some(Fact::new(format!("{what} {v}"), format!("environment variable `{name}`"))), None);
        }
    }
    (None, None)
}

/// A program that runs an engine in a container image its command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Runtime {
    Docker,
    Podman,
    Apptainer,
    Singularity,
    /// Slurm's `srun` with pyxis's `--container-image` (enroot).
    Pyxis,
}

impl Runtime {
    fn of(program: &str) -> Option<Runtime> {
        Some(match program {
            "docker" => Runtime::Docker,
            "podman" => Runtime::Podman,
            "apptainer" => Runtime::Apptainer,
            "singularity" => Runtime::Singularity,
            "srun" => Runtime::Pyxis,
            _ => return None,
        })
    }

    /// The program's name.
    pub fn program(self) -> &'static str {
        match self {
            Runtime::Docker => "docker",
            Runtime::Podman => "podman",
            Runtime::Apptainer => "apptainer",
            Runtime::Singularity => "singularity",
            Runtime::Pyxis => "srun",
        }
    }

    /// The options of its subcommand that take the next word as their value, besides those
    /// written `--name=value`. Any other option is taken for a switch.
    fn takes_value(self, option: &str) -> bool {
        let valued = match self {
            Runtime::Docker | Runtime::Podman => DOCKER_VALUED,
            Runtime::Apptainer | Runtime::Singularity => APPTAINER_VALUED,
            Runtime::Pyxis => "",
        };
        valued.split_whitespace().any(|o| o == option)
    }
}

/// `docker run`'s and `podman run`'s options that take a value (`docker run --help`,
/// `podman run --help`).
const DOCKER_VALUED: &str = "-a --attach --add-host --annotation --arch --blkio-weight --cap-add --cap-drop \
    --cgroup-parent --cgroupns --cidfile --cpu-period --cpu-quota --cpu-shares -c --cpus --cpuset-cpus \
    --cpuset-mems --device --device-cgroup-rule --device-read-bps --device-write-bps --dns --dns-option \
    --dns-search --domainname --entrypoint -e --env --env-file --expose --gpus --group-add --health-cmd \
    --health-interval --health-retries --health-start-period --health-timeout -h --hooks-dir --hostname --ip \
    --ip6 --ipc --isolation --kernel-memory -l --label --label-file --link --log-driver --log-opt \
    --mac-address -m --memory --memory-reservation --memory-swap --memory-swappiness --mount --name --net \
    --network --network-alias --oom-score-adj --os --pid --pids-limit --platform --pod -p --publish --pull \
    --restart --runtime --secret --security-opt --shm-size --stop-signal --stop-timeout --storage-opt \
    --sysctl --tmpfs --ulimit --umask -u --user --userns --uts -v --volume --volume-driver --volumes-from \
    -w --workdir";

/// `apptainer exec`'s, `run`'s and `instance start`'s options that take a value.
const APPTAINER_VALUED: &str = "-B --bind --mount --env --env-file -H --home -o --overlay --pwd -W --workdir \
    -S --scratch --security --network --network-args --app --apply-cgroups --cpus --memory --hostname --dns \
    --add-caps --drop-caps";

/// The container image an engine's command runs it in, as written, and the runtime that runs
/// it: `docker run [OPTIONS] IMAGE ...`, `podman run ...`, `apptainer exec [OPTIONS] IMAGE ...`
/// (also `run` and `instance start`), `srun --container-image=IMAGE ...`. The runtime is the
/// first word, or the first after wrappers (`env`, `numactl`, ...) and their arguments.
pub fn engine_image(argv: &[String]) -> Option<(Runtime, String)> {
    let name = |w: &str| Path::new(w).file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
    // A launcher's words (`numactl -N 0`, `env A=1`): a runtime after any other word is the
    // engine's argument, not what runs it.
    let launcher = |w: &String| {
        super::tool::WRAPPERS.contains(&name(w).as_str())
            || w.starts_with('-')
            || w.contains('=')
            || w.chars().all(|c| c.is_ascii_digit() || c == ',')
    };
    let end = argv.iter().position(|w| !launcher(w)).map_or(argv.len(), |i| i + 1);
    // `srun -n 1 docker run IMAGE ...`: the first runtime that names an image.
    (0..end).find_map(|at| {
        let runtime = Runtime::of(&name(&argv[at]))?;
        image_after(runtime, &argv[at + 1..]).map(|image| (runtime, image))
    })
}

/// The image `runtime`'s arguments `rest` name.
fn image_after(runtime: Runtime, rest: &[String]) -> Option<String> {
    let mut words = rest.iter().map(String::as_str).peekable();
    if runtime == Runtime::Pyxis {
        while let Some(w) = words.next() {
            if let Some(image) = w.strip_prefix("--container-image=") {
                return Some(image.to_string());
            }
            if w == "--container-image" {
                return words.next().map(str::to_string);
            }
        }
        return None;
    }
    // The subcommand: `run`, `container run`, `exec`, `instance start NAME`... an image follows.
    let sub: &[&str] = match runtime {
        Runtime::Docker | Runtime::Podman => &["run", "create"],
        _ => &["exec", "run", "shell", "instance"],
    };
    words.by_ref().find(|w| sub.contains(w))?;
    if matches!(runtime, Runtime::Apptainer | Runtime::Singularity) && words.peek() == Some(&"start") {
        words.next();
    }
    while let Some(w) = words.next() {
        if w == "--" {
            return words.next().map(str::to_string);
        }
        if w.starts_with('-') {
            if !w.contains('=') && runtime.takes_value(w) {
                words.next();
            }
            continue;
        }
        return Some(w.to_string());
    }
    None
}

/// The image an engine's command runs it in, and its digest: the one the reference carries
/// (`IMAGE@sha256:...`), else the one docker or podman says of the image as it is on this
/// machine (`image inspect`); an image file or a pyxis image has none recorded.
pub fn image_facts(argv: &[String], env: &Env, search: &OsStr, timeout: Duration) -> ImageFacts {
    let Some((runtime, image)) = engine_image(argv) else { return (None, None) };
    let source = format!("the engine's command ({})", runtime.program());
    let digest = match image.split_once('@') {
        Some((_, digest)) => Some(Fact::new(digest, format!("{source}, in the image's reference"))),
        None if matches!(runtime, Runtime::Docker | Runtime::Podman) => {
            let program = find(runtime.program(), search);
            let args = ["image", "inspect", "--format", "{{json .RepoDigests}}", image.as_str()];
            let out = program.and_then(|p| bounded(&p, &args, env, timeout));
            let said = format!("{} image inspect --format '{{{{json .RepoDigests}}}}'", runtime.program());
            out.and_then(|o| repo_digest(&image, &o)).map(|d| Fact::new(d, said))
        }
        None => None,
    };
    (Some(Fact::new(image, source)), digest)
}

/// The digest of `image` in `docker image inspect --format '{{json .RepoDigests}}'`'s answer: a
/// JSON list of `REPOSITORY@sha256:...` (`["busybox@sha256:d366a4665ab4..."]`, as in
/// <https://gist.github.com/killbus/875b180741951980798c8fdeff04c46d>; podman's is the same,
/// see podman-image-inspect(1)), or `null` for an image no registry gave (moby/moby#45556).
/// The entry of the image's own repository, else the first.
fn repo_digest(image: &str, answer: &str) -> Option<String> {
    let list: Vec<String> = serde_json::from_str::<Option<Vec<String>>>(answer.trim()).ok()??;
    // `docker.io/library/busybox:1.36` is `busybox` in the list; a registry's port is no tag.
    let repository = |r: &str| {
        let r = r.split('@').next().unwrap_or(r);
        let r = match r.rsplit_once(':') {
            Some((head, tag)) if !tag.contains('/') => head,
            _ => r,
        };
        r.trim_start_matches("docker.io/").trim_start_matches("library/").to_string()
    };
    let digest = |entry: &String| entry.split_once('@').map(|(_, d)| d.to_string());
    let wanted = repository(image);
    list.iter().find(|e| repository(e) == wanted).or(list.first()).and_then(digest)
}

/// The images of the engines' commands and their digests, asked once an image and environment.
#[derive(Debug, Default)]
pub struct Images(Mutex<BTreeMap<(String, Env), ImageFacts>>);

impl Images {
    pub fn of(&self, argv: &[String], env: &Env, search: &OsStr) -> ImageFacts {
        let Some((_, image)) = engine_image(argv) else { return (None, None) };
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        known.entry((image, env.clone())).or_insert_with(|| image_facts(argv, env, search, TOOL_TIMEOUT)).clone()
    }
}

/// The secret a host's name is hashed with: `PERFLAB_HOST_SALT` when set (a site sets one on
/// all its machines, so that a node's hash is the same whoever runs there), else perflab's own
/// file in the user's configuration folder (`~/.config/perflab/host-salt`), made of 32 random
/// bytes the first time, readable by its owner alone. Neither is a study's file: a published
/// study holds the hashes, never what would let a reader try names against them.
#[derive(Debug, Clone)]
pub struct Salt {
    key: [u8; 32],
    /// Where it came from, for the fact's source (a variable's name, never a path).
    from: &'static str,
}

/// The variable a site's salt is set in.
pub const SALT_VAR: &str = "PERFLAB_HOST_SALT";

impl Salt {
    /// The salt of this environment; `None` when there is no variable, no configuration folder
    /// and no way to make the file.
    pub fn find(env: &Env) -> Option<Salt> {
        let derive =
            |secret: &[u8], from| Salt { key: blake3::derive_key("perflab 2026 host name salt", secret), from };
        if let Some(secret) = env.get(SALT_VAR).filter(|s| !s.is_empty()) {
            return Some(derive(secret.as_bytes(), "the variable PERFLAB_HOST_SALT"));
        }
        let config = match env.get("XDG_CONFIG_HOME").filter(|d| Path::new(d).is_absolute()) {
            Some(dir) => PathBuf::from(dir),
            None => Path::new(env.get("HOME").filter(|h| Path::new(h).is_absolute())?).join(".config"),
        };
        let file = config.join("perflab").join("host-salt");
        let secret = std::fs::read(&file).ok().filter(|s| s.len() >= 16).or_else(|| made(&file))?;
        Some(derive(&secret, "perflab's host-salt file"))
    }

    /// `name`'s hash: the first 16 hexadecimal digits of its BLAKE3 keyed by the salt.
    pub fn hash(&self, name: &str) -> String {
        blake3::keyed_hash(&self.key, name.as_bytes()).to_hex()[..16].to_string()
    }
}

/// Makes the salt file at `file` (32 bytes of `/dev/urandom`, mode 0600) unless one is there,
/// and gives what it holds. The file appears whole or not at all: written beside it, then
/// linked to its name, which fails when another runner linked its own first.
fn made(file: &Path) -> Option<Vec<u8>> {
    use std::io::{Read, Write};
    let mut secret = vec![0u8; 32];
    std::fs::File::open("/dev/urandom").and_then(|mut r| r.read_exact(&mut secret)).ok()?;
    let dir = file.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    // A temporary file is made readable by its owner alone.
    let mut tmp = tempfile::NamedTempFile::new_in(dir).ok()?;
    tmp.write_all(&secret).and_then(|()| tmp.as_file().sync_all()).ok()?;
    match std::fs::hard_link(tmp.path(), file) {
        Ok(()) => Some(secret),
        Err(_) => std::fs::read(file).ok().filter(|s| s.len() >= 16),
    }
}

/// A host's name as a study's `[record] host` says to write it: itself, its salted hash
/// (nothing when no salt can be had, never the name), or nothing.
pub fn name_as(name: &str, how: HostRecord, salt: Option<&Salt>) -> Option<String> {
    match how {
        HostRecord::Name => Some(name.to_string()),
        HostRecord::Hash => salt.map(|s| s.hash(name)),
        HostRecord::Omit => None,
    }
}

/// The salt a host's name is hashed with in this process's environment, looked for only when
/// a study asks for a hash.
pub fn salt_for(how: HostRecord) -> Option<Salt> {
    (how == HostRecord::Hash).then(|| Salt::find(&std::env::vars().collect())).flatten()
}

/// A Slurm node's name as a study's `[record] host` says to write it (a node is a host).
pub fn node_as(node: Option<String>, how: HostRecord) -> Option<String> {
    node.and_then(|n| name_as(&n, how, salt_for(how).as_ref()))
}

/// The host fact as `how` says: the hash keeps the name's source and says how it was hashed.
pub fn host_as(fact: Option<Fact>, how: HostRecord, salt: Option<&Salt>) -> Option<Fact> {
    let fact = fact?;
    let value = name_as(&fact.value, how, salt)?;
    let source = match (how, salt) {
        (HostRecord::Hash, Some(s)) => format!("{}, hashed (BLAKE3 keyed by {})", fact.source, s.from),
        _ => fact.source,
    };
    Some(Fact::new(value, source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn write(root: &Path, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const ID: &str = "3f4e2a9c1b7d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";

    #[test]
    fn a_runner_in_podman_records_its_image_id_and_container() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC 9654\nprocessor\t: 1\n");
        write(r, "proc/sys/kernel/hostname", "gpu-node-07\n");
        write(r, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
        // As podman writes it (containers/podman, libpod/container_internal_linux.go).
        let containerenv = "engine=\"podman-4.9.3\"\nname=\"bench\"\nid=\"abc\"\n\
            image=\"docker.io/vllm/vllm-openai:v0.8.5\"\nimageid=\"9d1e4c\"\nrootless=1\n";
        write(r, "run/.containerenv", containerenv);
        let mount = format!("1204 1190 0:54 /containers/{ID}/hostname /etc/hostname rw - xfs /dev/x rw\n");
        write(r, "proc/self/mountinfo", &mount);
        write(r, "proc/self/cgroup", "0::/\n");
        let m = host_in(r, &Env::new());
        assert_eq!(m.cpu_model.unwrap(), Fact::new("AMD EPYC 9654", "/proc/cpuinfo (model name)"));
        assert_eq!(m.cpu_cores.unwrap().value, "2");
        assert_eq!(m.host.unwrap().value, "gpu-node-07");
        assert_eq!(m.container.unwrap(), Fact::new("podman", "/run/.containerenv"));
        assert_eq!(m.image.unwrap(), Fact::new("docker.io/vllm/vllm-openai:v0.8.5", "/run/.containerenv (image)"));
        assert_eq!(m.image_digest.unwrap(), Fact::new("9d1e4c", "/run/.containerenv (imageid)"));
        assert_eq!(m.container_id.unwrap(), Fact::new(ID, "/proc/self/mountinfo"));
        assert_eq!(m.perflab.unwrap().value, env!("CARGO_PKG_VERSION"));
        assert_eq!(m.perflab_commit.map(|c| c.value), commit().map(str::to_string));
    }

    #[test]
    fn apptainer_kubernetes_and_a_bare_host_are_told_apart() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let env = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Env>();
        let m = host_in(r, &env(&[("APPTAINER_CONTAINER", "/scratch/vllm.sif"), ("APPTAINER_NAME", "vllm.sif")]));
        assert_eq!(m.container.unwrap().value, "apptainer");
        assert_eq!(m.image.unwrap(), Fact::new("/scratch/vllm.sif", "environment variable `APPTAINER_CONTAINER`"));
        assert_eq!(m.image_digest, None);
        write(r, "proc/self/cgroup", &format!("0::/kubepods/burstable/pod1a2b/cri-containerd-{ID}.scope\n"));
        let m = host_in(r, &env(&[("KUBERNETES_SERVICE_HOST", "10.0.0.1"), ("NVIDIA_PYTORCH_VERSION", "24.05")]));
        assert_eq!(m.container.unwrap().value, "kubernetes");
        assert_eq!(m.container_id.unwrap(), Fact::new(ID, "/proc/self/cgroup"));
        assert_eq!(m.image.unwrap().value, "NGC PyTorch 24.05");
        let bare = host_in(&r.join("nothing"), &Env::new());
        assert_eq!((bare.container, bare.container_id, bare.image, bare.host), (None, None, None, None));
    }

    #[test]
    fn the_image_of_an_engine_s_command_is_found_past_the_runtime_s_options() {
        let image = |line: &str| engine_image(&argv(line)).map(|(r, i)| (r.program(), i));
        let docker = "docker run --rm --gpus all -p 8000:8000 --ipc=host -e HF_TOKEN -v /m:/root/.cache \
            vllm/vllm-openai:v0.8.5 --model m --port 8000";
        assert_eq!(image(docker), Some(("docker", "vllm/vllm-openai:v0.8.5".into())));
        let podman = "env A=1 numactl -N 0 podman container run -it --network host lmsysorg/sglang@sha256:ab12 python3";
        assert_eq!(image(podman), Some(("podman", "lmsysorg/sglang@sha256:ab12".into())));
        let sif = "apptainer exec --nv -B /data:/data --cleanenv vllm-0.8.5.sif vllm serve m";
        assert_eq!(image(sif), Some(("apptainer", "vllm-0.8.5.sif".into())));
        let instance = "singularity instance start --nv docker://vllm/vllm-openai:latest eng";
        assert_eq!(image(instance), Some(("singularity", "docker://vllm/vllm-openai:latest".into())));
        let pyxis = "srun --ntasks=1 --container-image=nvcr.io#nvidia/pytorch:24.05-py3 vllm serve m";
        assert_eq!(image(pyxis), Some(("srun", "nvcr.io#nvidia/pytorch:24.05-py3".into())));
        assert_eq!(image("srun -n 1 vllm serve m"), None);
        let nested = "srun -n 1 --gpus-per-task=1 docker run --gpus all vllm/vllm-openai:v0.8.5";
        assert_eq!(image(nested), Some(("docker", "vllm/vllm-openai:v0.8.5".into())));
        assert_eq!(image("vllm serve m --port 8000"), None);
        // A runtime named as an engine's argument is not the engine's runtime.
        assert_eq!(image("python3 serve.py docker run x"), None);
        assert_eq!(image("docker ps"), None);
    }

    /// `docker` as the real one answers `image inspect --format '{{json .RepoDigests}}'`: a JSON
    /// list on one line (see [`repo_digest`]).
    fn fake_docker(dir: &Path, answer: &str) {
        let path = dir.join("docker");
        let body = format!(
            "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"image inspect --format {{{{json .RepoDigests}}}}\" ] || exit 1\n{answer}\n"
        );
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_digest_is_the_reference_s_or_the_runtime_s_and_else_not_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let search = tmp.path().as_os_str();
        let (env, quick) = (Env::new(), Duration::from_millis(300));
        let line = argv("docker run --rm vllm/vllm-openai:v0.8.5 --model m");
        let digest = "sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a";
        // No docker on this machine: the image as written, no digest.
        let (image, none) = image_facts(&line, &env, search, quick);
        assert_eq!(image.unwrap(), Fact::new("vllm/vllm-openai:v0.8.5", "the engine's command (docker)"));
        assert_eq!(none, None);
        fake_docker(tmp.path(), &format!("echo '[\"other/repo@sha256:00\",\"vllm/vllm-openai@{digest}\"]'"));
        let (_, found) = image_facts(&line, &env, search, quick);
        let found = found.unwrap();
        assert_eq!(found.value, digest);
        assert_eq!(found.source, "docker image inspect --format '{{json .RepoDigests}}'");
        // A digest in the reference is the image's own; the runtime is not asked.
        let pinned = argv(&format!("docker run vllm/vllm-openai@{digest} --model m"));
        assert_eq!(image_facts(&pinned, &env, search, quick).1.unwrap().value, digest);
        // An image built here has no registry digest; a daemon that does not answer is bounded.
        fake_docker(tmp.path(), "echo null");
        assert_eq!(image_facts(&line, &env, search, quick).1, None);
        fake_docker(tmp.path(), "sleep 30");
        let began = std::time::Instant::now();
        assert_eq!(image_facts(&line, &env, search, quick).1, None);
        assert!(began.elapsed() < Duration::from_secs(5), "{:?}", began.elapsed());
    }

    #[test]
    fn a_repository_digest_is_matched_to_its_image_whatever_the_registry_s_spelling() {
        let list = r#"["busybox@sha256:aa","registry.local:5000/team/busybox@sha256:bb"]"#;
        assert_eq!(repo_digest("docker.io/library/busybox:1.36", list).as_deref(), Some("sha256:aa"));
        assert_eq!(repo_digest("registry.local:5000/team/busybox", list).as_deref(), Some("sha256:bb"));
        assert_eq!(repo_digest("renamed:latest", list).as_deref(), Some("sha256:aa"));
        assert_eq!(repo_digest("x", "[]"), None);
        assert_eq!(repo_digest("x", "Error: No such image: x"), None);
    }

    #[test]
    fn a_hashed_host_name_is_the_same_for_one_salt_and_never_the_name() {
        let env = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Env>();
        let site = Salt::find(&env(&[(SALT_VAR, "site secret")])).unwrap();
        let other = Salt::find(&env(&[(SALT_VAR, "another")])).unwrap();
        let name = Some(Fact::new("gpu-node-07", "/proc/sys/kernel/hostname"));
        let hashed = host_as(name.clone(), HostRecord::Hash, Some(&site)).unwrap();
        assert_eq!(hashed.value.len(), 16);
        assert!(hashed.value.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(hashed.source, "/proc/sys/kernel/hostname, hashed (BLAKE3 keyed by the variable PERFLAB_HOST_SALT)");
        assert_eq!(host_as(name.clone(), HostRecord::Hash, Some(&site)), Some(hashed.clone()));
        assert_ne!(host_as(name.clone(), HostRecord::Hash, Some(&other)).unwrap().value, hashed.value);
        assert_ne!(name_as("gpu-node-08", HostRecord::Hash, Some(&site)).unwrap(), hashed.value);
        assert_eq!(host_as(name.clone(), HostRecord::Name, None), name);
        assert_eq!(host_as(name.clone(), HostRecord::Omit, Some(&site)), None);
        // A Slurm node's name goes the same way.
        assert_eq!(node_as(Some("n1".into()), HostRecord::Name).as_deref(), Some("n1"));
        assert_eq!(node_as(Some("n1".into()), HostRecord::Omit), None);
        // Without a salt, a hash is not made, and the name is not written instead.
        assert_eq!(host_as(name, HostRecord::Hash, None), None);
        assert!(Salt::find(&Env::new()).is_none());

        // The user's salt file: made once, for its owner alone, and the same afterwards.
        let home = tempfile::tempdir().unwrap();
        let home_env = env(&[("HOME", home.path().to_str().unwrap())]);
        let first = Salt::find(&home_env).unwrap().hash("gpu-node-07");
        let file = home.path().join(".config/perflab/host-salt");
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(Salt::find(&home_env).unwrap().hash("gpu-node-07"), first);
        assert_ne!(first, site.hash("gpu-node-07"));
    }
}
