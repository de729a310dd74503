//! Where `perflab run` runs a study's engines: the GPUs of this machine (`[local]`) or a Slurm
//! cluster (`[cluster]`), as the study file declares them.

use serde::Deserialize;

/// `[local]`: the devices of the machine `perflab run` uses with the local backend.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawLocalMachine")]
pub struct LocalMachine {
    /// How many GPUs (devices 0 to gpus − 1).
    pub gpus: Option<u32>,
    /// The device ids to use instead, e.g. `["0", "1", "4", "5"]`.
    pub devices: Option<Vec<String>>,
}

/// `[local]` as written, before its values are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLocalMachine {
    #[serde(default)]
    gpus: Option<u32>,
    #[serde(default)]
    devices: Option<Vec<String>>,
}

/// The most devices one machine is taken to have.
const MAX_DEVICES: usize = 1024;

impl TryFrom<RawLocalMachine> for LocalMachine {
    type Error = String;

    /// Each device is one entry of `CUDA_VISIBLE_DEVICES`: an index or a GPU/MIG id, once.
    fn try_from(raw: RawLocalMachine) -> Result<LocalMachine, String> {
        if let Some(n) = raw.gpus
            && !(1..=MAX_DEVICES as u32).contains(&n)
        {
            return Err(format!("`gpus`: {n} is not a number of GPUs from 1 to {MAX_DEVICES}"));
        }
        if let Some(list) = &raw.devices {
            if list.is_empty() || list.len() > MAX_DEVICES {
                return Err(format!("`devices`: give from 1 to {MAX_DEVICES} device ids"));
            }
            for (i, d) in list.iter().enumerate() {
                if d.is_empty() || !d.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':') {
                    return Err(format!(
                        "`devices`: `{d}` is not one device id (an index like `0`, or a GPU or MIG id; no commas or spaces)"
                    ));
                }
                if list[..i].contains(d) {
                    return Err(format!("`devices`: `{d}` is listed twice"));
                }
            }
        }
        Ok(LocalMachine { gpus: raw.gpus, devices: raw.devices })
    }
}

/// `[cluster]`: how `perflab run --backend slurm` submits its jobs (a config file given with
/// `--config` overrides each key it sets).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// `sbatch --partition`.
    #[serde(default)]
    pub partition: Option<String>,
    /// `sbatch --account`.
    #[serde(default)]
    pub account: Option<String>,
    /// GPUs a node has: a job asks for its configuration's share (`gpus`), or for all of them.
    #[serde(default)]
    pub gpus_per_node: Option<u32>,
    /// `sbatch --time`: `MM`, `HH:MM:SS`, `D-HH`.
    #[serde(default)]
    pub time_limit: Option<String>,
    /// More `sbatch` arguments, one word each: `["--qos=high", "--exclusive"]`.
    #[serde(default)]
    pub sbatch_args: Vec<String>,
    /// A folder on the file system every node shares: the study must be inside it.
    #[serde(default)]
    pub shared_dir: Option<String>,
    /// The `perflab` binary as the nodes see it (default: the running one, which must then be on
    /// the shared file system).
    #[serde(default)]
    pub perflab: Option<String>,
    /// At most this many jobs queued or running at once.
    #[serde(default)]
    pub max_jobs: Option<usize>,
}
