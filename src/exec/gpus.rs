//! The accelerators a start was given, from their vendor's tool: `nvidia-smi` (NVIDIA),
//! `rocm-smi` (AMD) and `npu-smi` (Huawei Ascend), asked in that order; the first that describes
//! any device answers. A tool that is missing, fails, hangs or answers in a shape it is not read
//! in leaves them "not recorded" (see [`super::tool::bounded`]), never an error.

use super::tool::{bounded, find};
use crate::study::{Fact, Machine};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The variables that give an engine its share of the accelerators, in the order a cluster's
/// node reads them when its start names none: CUDA's, ROCm's (HIP, then the runtime's), Ascend's.
pub const DEVICE_VARIABLES: &[&str] =
    &["CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"];

/// The accelerators, limited to `devices` (`0,1`) when given.
pub fn gpus(search: &OsStr, devices: Option<&str>, timeout: Duration) -> Machine {
    let ask = |name: &str, read: &dyn Fn(&Path) -> Machine| {
        find(name, search).map(|smi| read(&smi)).filter(|m| *m != Machine::default())
    };
    ask("nvidia-smi", &|smi| nvidia(smi, devices, timeout))
        .or_else(|| ask("rocm-smi", &|smi| rocm(smi, devices, timeout)))
        .or_else(|| ask("npu-smi", &|smi| ascend(smi, devices, timeout, &cann_roots())))
        .unwrap_or_default()
}

/// The devices a cluster's node gave its job: the start's own list when it has one, else the
/// first of [`DEVICE_VARIABLES`] that is set, else Slurm's `SLURM_JOB_GPUS`; `None` when
/// nothing says (all of the node's are then described).
pub fn given_devices(start: Option<&str>, var: impl Fn(&str) -> Option<String>) -> Option<String> {
    let set = |v: Option<String>| v.filter(|d| !d.trim().is_empty());
    set(start.map(str::to_string))
        .or_else(|| DEVICE_VARIABLES.iter().find_map(|name| set(var(name))))
        .or_else(|| set(var("SLURM_JOB_GPUS")))
}

/// One accelerator as its tool describes it.
#[derive(Debug, Default)]
struct Device {
    model: Option<String>,
    memory: Option<String>,
    driver: Option<String>,
}

/// What a tool's answer says of each fact, for its source.
#[derive(Clone, Copy)]
enum Field {
    Model,
    Memory,
    Driver,
}

/// The facts of `devices`, each distinct value joined with ` + ` (a fact one of them lacks is
/// not recorded), with the source `source` gives each.
fn record(devices: &[Device], source: impl Fn(Field) -> String) -> Machine {
    let mut m = Machine::default();
    if devices.is_empty() {
        return m;
    }
    let joined = |value: fn(&Device) -> Option<&String>| {
        let mut seen: Vec<&str> = Vec::new();
        for d in devices {
            let v = value(d)?.as_str();
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        Some(seen.join(" + "))
    };
    let fact = |v: Option<String>, field| v.map(|v| Fact::new(v, source(field)));
    m.gpu_model = fact(joined(|d| d.model.as_ref()), Field::Model);
    m.gpu_count = Some(Fact::new(devices.len().to_string(), source(Field::Model)));
    m.gpu_memory = fact(joined(|d| d.memory.as_ref()), Field::Memory);
    m.gpu_driver = fact(joined(|d| d.driver.as_ref()), Field::Driver);
    m
}

/// A value a tool printed, unless it says there is none (`[N/A]`, `N/A`, empty).
fn said(value: &str) -> Option<String> {
    let v = value.trim();
    (!v.is_empty() && !v.starts_with('[') && v != "N/A").then(|| v.to_string())
}

/// `nvidia-smi`'s CSV query, one line a GPU (`--id=0,1` limits it), and the CUDA version of its
/// summary's header.
fn nvidia(smi: &Path, devices: Option<&str>, timeout: Duration) -> Machine {
    const QUERY: &str = "--query-gpu=name,memory.total,driver_version";
    let id = devices.map(|d| format!("--id={d}"));
    let mut args = vec![QUERY, "--format=csv,noheader"];
    args.extend(id.as_deref());
    let no_env = BTreeMap::new();
    let mut m = Machine::default();
    if let Some(out) = bounded(smi, &args, &no_env, timeout) {
        let rows: Vec<Vec<&str>> =
            out.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(',').map(str::trim).collect()).collect();
        if rows.iter().all(|r| r.len() == 3) {
            let found: Vec<Device> =
                rows.iter().map(|r| Device { model: said(r[0]), memory: said(r[1]), driver: said(r[2]) }).collect();
            let limited = id.as_ref().map_or(String::new(), |i| format!(" {i}"));
            m = record(&found, |field| {
                let name = match field {
                    Field::Model => "name",
                    Field::Memory => "memory.total",
                    Field::Driver => "driver_version",
                };
                format!("nvidia-smi --query-gpu={name} --format=csv,noheader{limited}")
            });
        }
    }
    // The runtime is in the summary's header: `... Driver Version: 550.54.15  CUDA Version: 12.4 |`.
    if let Some(out) = bounded(smi, &[], &no_env, timeout)
        && let Some(cuda) = out.split("CUDA Version:").nth(1).and_then(|r| r.split_whitespace().next())
        && cuda.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        m.gpu_runtime = Some(Fact::new(format!("CUDA {cuda}"), "nvidia-smi (its header's CUDA Version)"));
    }
    m
}

/// The device indexes of a list (`0,1`), when every one is an index: `rocm-smi -d` and
/// `npu-smi`'s table know no other kind of id.
fn indexes(devices: &str) -> Option<Vec<u32>> {
    devices.split(',').map(|d| d.trim().parse().ok()).collect()
}

/// `rocm-smi`'s JSON (`-d 0 1` limits it): each card's `Card Series` and `VRAM Total Memory (B)`
/// (given in MiB), the system's `Driver version`; the ROCm release from the installation's
/// `.info/version`.
fn rocm(smi: &Path, devices: Option<&str>, timeout: Duration) -> Machine {
    let wanted = match devices.map(indexes) {
        Some(None) => return Machine::default(),
        Some(Some(list)) => Some(list),
        None => None,
    };
    let mut args: Vec<String> = Vec::new();
    if let Some(list) = &wanted {
        args.push("-d".to_string());
        args.extend(list.iter().map(u32::to_string));
    }
    let query = ["--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--json"];
    args.extend(query.iter().map(|a| a.to_string()));
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(out) = bounded(smi, &words, &BTreeMap::new(), timeout) else { return Machine::default() };
    // The JSON object, after any warning the tool prints first.
    let object = out.find('{').zip(out.rfind('}')).and_then(|(a, b)| out.get(a..=b)).unwrap_or("");
    let Ok(serde_json::Value::Object(answer)) = serde_json::from_str(object) else { return Machine::default() };
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).and_then(said);
    // Its keys' case has changed between releases (`Card series`, `Card Series`).
    let key = |card: &serde_json::Value, name: &str| {
        let fields = card.as_object()?;
        text(fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v))
    };
    let driver = answer.get("system").and_then(|s| key(s, "Driver version"));
    let mut cards: Vec<(u32, &serde_json::Value)> =
        answer.iter().filter_map(|(k, v)| Some((k.strip_prefix("card")?.parse().ok()?, v))).collect();
    cards.sort_by_key(|(i, _)| *i);
    if wanted.as_ref().is_some_and(|w| w.len() != cards.len()) {
        return Machine::default();
    }
    let mib = |bytes: String| bytes.parse::<u64>().ok().map(|b| format!("{} MiB", b / (1024 * 1024)));
    let found: Vec<Device> = cards
        .iter()
        .map(|(_, card)| Device {
            model: key(card, "Card Series"),
            memory: key(card, "VRAM Total Memory (B)").and_then(mib),
            driver: driver.clone(),
        })
        .collect();
    let command = format!("rocm-smi {}", words.join(" "));
    let mut m = record(&found, |field| match field {
        Field::Model => format!("{command} (Card Series)"),
        Field::Memory => format!("{command} (VRAM Total Memory (B), in MiB)"),
        Field::Driver => format!("{command} (Driver version)"),
    });
    if m.gpu_count.is_some() {
        m.gpu_runtime = rocm_release(smi);
    }
    m
}

/// The ROCm release installed with `smi` (`/opt/rocm/bin/rocm-smi` beside `/opt/rocm/.info/version`),
/// else the one at `/opt/rocm`.
fn rocm_release(smi: &Path) -> Option<Fact> {
    let root = |p: &Path| p.parent()?.parent().map(Path::to_path_buf);
    let roots = [root(smi), smi.canonicalize().ok().as_deref().and_then(root), Some(PathBuf::from("/opt/rocm"))];
    roots.into_iter().flatten().find_map(|r| {
        let file = r.join(".info/version");
        let text = std::fs::read_to_string(&file).ok()?;
        let version = text.split_whitespace().next().filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))?;
        Some(Fact::new(format!("ROCm {version}"), file.display().to_string()))
    })
}

/// Where Ascend's CANN toolkit may be: the folders its `set_env.sh` names, then the default ones.
fn cann_roots() -> Vec<PathBuf> {
    let named = ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"].into_iter().filter_map(std::env::var_os);
    let defaults = ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann"];
    named.map(PathBuf::from).chain(defaults.into_iter().map(PathBuf::from)).collect()
}

/// `npu-smi info`'s table: its header's `Version` (the driver's), and two lines a chip, the first
/// with the NPU's id and name, the second with the chip (and on boards of two chips, its
/// device id) and its memory; CANN's release from its toolkit's `ascend_toolkit_install.info`
/// in one of `cann`'s folders.
fn ascend(smi: &Path, devices: Option<&str>, timeout: Duration, cann: &[PathBuf]) -> Machine {
    let wanted = match devices.map(indexes) {
        Some(None) => return Machine::default(),
        other => other.flatten(),
    };
    let Some(out) = bounded(smi, &["info"], &BTreeMap::new(), timeout) else { return Machine::default() };
    let driver = out.lines().find_map(|l| l.split("Version:").nth(1)?.split_whitespace().next().map(str::to_string));
    let chips = npu_chips(&out);
    let kept: Vec<&(u32, Device)> =
        chips.iter().filter(|(id, _)| wanted.as_ref().is_none_or(|w| w.contains(id))).collect();
    if wanted.as_ref().is_some_and(|w| w.len() != kept.len()) {
        return Machine::default();
    }
    let found: Vec<Device> = kept
        .into_iter()
        .map(|(_, d)| Device { model: d.model.clone(), memory: d.memory.clone(), driver: driver.clone() })
        .collect();
    let limited = devices.map_or(String::new(), |d| format!(", devices {d}"));
    let mut m = record(&found, |field| {
        let column = match field {
            Field::Model => "Name",
            Field::Memory => "HBM-Usage(MB), else Memory-Usage(MB)",
            Field::Driver => "Version",
        };
        format!("npu-smi info ({column}{limited})")
    });
    if m.gpu_count.is_some() {
        let info = format!("{}-linux/ascend_toolkit_install.info", std::env::consts::ARCH);
        m.gpu_runtime = cann.iter().find_map(|root| {
            let file = root.join(&info);
            let text = std::fs::read_to_string(&file).ok()?;
            let version = text.lines().find_map(|l| l.trim().strip_prefix("version="))?.trim();
            (!version.is_empty()).then(|| Fact::new(format!("CANN {version}"), file.display().to_string()))
        });
    }
    m
}

/// The chips of `npu-smi info`'s table, each with its device id: the chip's own (`Phy-ID`) on
/// boards that list one, else its NPU's.
fn npu_chips(table: &str) -> Vec<(u32, Device)> {
    let cells = |l: &str| -> Vec<String> {
        let l = l.trim();
        if !l.starts_with('|') {
            return Vec::new();
        }
        l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let rows: Vec<Vec<String>> = table.lines().map(cells).collect();
    let mut chips = Vec::new();
    for pair in rows.windows(2) {
        let (first, second) = (&pair[0], &pair[1]);
        let head: Vec<&str> = first.first().map_or(Vec::new(), |c| c.split_whitespace().collect());
        let Some(npu) = head.first().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let name = head.get(1).filter(|n| head.len() == 2 && n.parse::<u32>().is_err());
        // The chip's line has its PCI bus (`0000:C1:00.0`) where the first has its health.
        let bus = second.get(1).is_some_and(|b| b.contains(':') && b.contains('.'));
        let (Some(name), true, Some(usage)) = (name, bus, second.get(2)) else { continue };
        let ids: Vec<u32> = second[0].split_whitespace().filter_map(|w| w.parse().ok()).collect();
        let id = if ids.len() == 2 { ids[1] } else { npu };
        // `AICore(%)  Memory-Usage(MB)  HBM-Usage(MB)`: `0   0 / 0   3379 / 65536`.
        let spaced = usage.replace('/', " / ");
        let words: Vec<&str> = spaced.split_whitespace().collect();
        let totals: Vec<u64> = words
            .iter()
            .enumerate()
            .filter(|(_, w)| **w == "/")
            .filter_map(|(i, _)| words.get(i + 1)?.parse().ok())
            .collect();
        let total = totals.get(1).filter(|t| **t > 0).or(totals.first()).filter(|t| **t > 0);
        let memory = total.map(|t| format!("{t} MB"));
        chips.push((id, Device { model: Some(name.to_string()), memory, driver: None }));
    }
    chips
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tool::TOOL_TIMEOUT;
    use crate::exec::tool::tests::tool;
    use std::time::Instant;

    /// `nvidia-smi` as the real one answers: the CSV query one line a GPU (limited by `--id`),
    /// and the summary whose header names the driver and CUDA.
    const FAKE_SMI: &str = r#"case "$1" in
--query-gpu=name,memory.total,driver_version)
  [ "$3" = "--id=1" ] && { echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"; exit 0; }
  echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"
  echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15" ;;
"")
  echo "+-----------------------------------------------------------------------------------------+"
  echo "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |"
  echo "|-----------------------------------------+------------------------+----------------------+" ;;
*) exit 6 ;;
esac"#;

    #[test]
    fn the_vendor_tool_gives_the_gpus_with_their_sources() {
        let tmp = tempfile::tempdir().unwrap();
        tool(tmp.path(), "nvidia-smi", FAKE_SMI);
        let m = gpus(tmp.path().as_os_str(), None, TOOL_TIMEOUT);
        assert_eq!(m.gpu_model.as_ref().unwrap().value, "NVIDIA H100 80GB HBM3");
        assert_eq!(m.gpu_model.unwrap().source, "nvidia-smi --query-gpu=name --format=csv,noheader");
        assert_eq!(m.gpu_count.unwrap().value, "2");
        assert_eq!(m.gpu_memory.unwrap().value, "81559 MiB");
        assert_eq!(m.gpu_driver.unwrap().value, "550.54.15");
        assert_eq!(m.gpu_runtime.unwrap().value, "CUDA 12.4");
        // The devices a start was given are the ones counted.
        let one = gpus(tmp.path().as_os_str(), Some("1"), TOOL_TIMEOUT).gpu_count.unwrap();
        assert_eq!(one, Fact::new("1", "nvidia-smi --query-gpu=name --format=csv,noheader --id=1"));
    }

    #[test]
    fn a_missing_or_failing_tool_records_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(gpus(tmp.path().as_os_str(), None, TOOL_TIMEOUT), Machine::default());
        tool(
            tmp.path(),
            "nvidia-smi",
            "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'; exit 9",
        );
        assert_eq!(gpus(tmp.path().as_os_str(), None, TOOL_TIMEOUT), Machine::default());
        // An answer of another shape (a field the driver does not know) is not read as one.
        tool(tmp.path(), "nvidia-smi", "echo 'Field \"name\" is not a valid field to query.'");
        assert_eq!(gpus(tmp.path().as_os_str(), None, TOOL_TIMEOUT), Machine::default());
    }

    #[test]
    fn a_hanging_tool_is_killed_at_its_deadline() {
        let tmp = tempfile::tempdir().unwrap();
        // Each vendor's prints, then hangs with a child of its own that holds the output open.
        for name in ["nvidia-smi", "rocm-smi", "npu-smi"] {
            tool(tmp.path(), name, "echo 'NVIDIA H100, 1 MiB, 1.0'; sleep 60 & sleep 60");
        }
        let began = Instant::now();
        let m = gpus(tmp.path().as_os_str(), None, Duration::from_millis(300));
        assert_eq!(m, Machine::default());
        assert!(began.elapsed() < Duration::from_secs(5), "took {:?}", began.elapsed());
    }

    /// `rocm-smi` as the real one answers its JSON query: an object a card (`-d` limits them) and
    /// one for the system. The cards' fields are those a user of rocm-smi 6.x pasted for this
    /// query (marimo-team/marimo#9237, a Radeon RX 7900 XT); the system's `Driver version` is as
    /// rocm_smi.py prints it (`printSysLog`, its CSV form pasted in
    /// easybuilders/easybuild-framework#3978).
    const FAKE_ROCM_SMI: &str = r#"card() {
  printf '  "card%s": {\n    "VRAM Total Memory (B)": "21458059264",\n    "VRAM Total Used Memory (B)": "27856896",\n' "$1"
  printf '    "Card Series": "Radeon RX 7900 XT",\n    "Card Model": "0x744c",\n    "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",\n'
  printf '    "Card SKU": "D70401XT",\n    "Subsystem ID": "0x471e",\n    "Device Rev": "0xcc",\n    "Node ID": "%s",\n' "$(($1 + 1))"
  printf '    "GUID": "26967",\n    "GFX Version": "gfx1100"\n  },\n'
}
query="--showproductname --showmeminfo vram --showdriverversion --json"
case "$*" in
"$query") echo "{"; card 0; card 1 ;;
"-d 1 $query") echo "{"; card 1 ;;
*) exit 2 ;;
esac
printf '  "system": {\n    "Driver version": "6.10.5"\n  }\n}\n'"#;

    #[test]
    fn rocm_smi_gives_amd_gpus_and_the_rocm_release() {
        let tmp = tempfile::tempdir().unwrap();
        // An installation's layout: `bin/rocm-smi` and `.info/version`.
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(bin.join("../.info")).unwrap();
        std::fs::write(tmp.path().join(".info/version"), "6.3.3-74\n").unwrap();
        tool(&bin, "rocm-smi", FAKE_ROCM_SMI);
        let m = gpus(bin.as_os_str(), None, TOOL_TIMEOUT);
        let query = "rocm-smi --showproductname --showmeminfo vram --showdriverversion --json";
        assert_eq!(m.gpu_model.unwrap(), Fact::new("Radeon RX 7900 XT", format!("{query} (Card Series)")));
        assert_eq!(m.gpu_count.unwrap().value, "2");
        // 21458059264 bytes.
        assert_eq!(m.gpu_memory.unwrap().value, "20464 MiB");
        assert_eq!(m.gpu_driver.unwrap(), Fact::new("6.10.5", format!("{query} (Driver version)")));
        let runtime = m.gpu_runtime.unwrap();
        assert_eq!(runtime.value, "ROCm 6.3.3-74");
        assert_eq!(runtime.source, tmp.path().join(".info/version").display().to_string());
        let one = gpus(bin.as_os_str(), Some("1"), TOOL_TIMEOUT).gpu_count.unwrap();
        assert_eq!(one, Fact::new("1", format!("rocm-smi -d 1 {} (Card Series)", &query[9..])));
        // A device it does not have, or an id it cannot be asked by, records nothing.
        assert_eq!(gpus(bin.as_os_str(), Some("3"), TOOL_TIMEOUT), Machine::default());
        assert_eq!(gpus(bin.as_os_str(), Some("GPU-4b2"), TOOL_TIMEOUT), Machine::default());
        // Nor does an answer that is not its JSON.
        tool(&bin, "rocm-smi", "echo 'ERROR:root:ROCm SMI returned 8 (the expected value is 0)'");
        assert_eq!(gpus(bin.as_os_str(), None, TOOL_TIMEOUT), Machine::default());
    }

    /// `npu-smi info` of an Atlas 800I A2 (two 910B4), as a user pasted it
    /// (1Panel-dev/1Panel#9472, npu-smi 24.1.1), with the table of processes below it as
    /// vllm-project/vllm-ascend#12980 shows it.
    const FAKE_NPU_SMI_910B: &str = r#"[ "$1" = info ] || exit 2
cat <<'EOF'
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.1                   Version: 24.1.1                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B4               | OK            | 88.2        30                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          26838/ 32768         |
+===========================+===============+====================================================+
| 1     910B4               | OK            | 87.0        30                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          29356/ 32768         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------------------------+
| NPU     Chip              | Process id    | Process name       | Process memory(MB)    | Process id in container |
+===========================+===============+======================================================================+
| 0       0                 | 632268        | python3.1          | 197                   | NA                      |
+===========================+===============+======================================================================+
| No running processes found in NPU 1                                                                              |
+===========================+===============+======================================================================+
EOF"#;

    /// `npu-smi info` of an Atlas A3 (two chips a board, each with its device id), as
    /// vllm-project/vllm-ascend#2534 shows it (the first two boards).
    const FAKE_NPU_SMI_A3: &str = r#"[ "$1" = info ] || exit 2
cat <<'EOF'
+------------------------------------------------------------------------------------------------+
| npu-smi 25.2.1                   Version: 25.2.1                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     Ascend910           | OK            | 178.5       36                0    / 0             |
| 0     0                   | 0000:9D:00.0  | 0           0    / 0          3416 / 65536         |
+------------------------------------------------------------------------------------------------+
| 0     Ascend910           | OK            | -           36                0    / 0             |
| 1     1                   | 0000:9F:00.0  | 0           0    / 0          3195 / 65536         |
+===========================+===============+====================================================+
| 1     Ascend910           | OK            | 186.3       36                0    / 0             |
| 0     2                   | 0000:99:00.0  | 0           0    / 0          3415 / 65536         |
+------------------------------------------------------------------------------------------------+
| 1     Ascend910           | OK            | -           35                0    / 0             |
| 1     3                   | 0000:9B:00.0  | 0           0    / 0          3187 / 65536         |
+===========================+===============+====================================================+
EOF"#;

    #[test]
    fn npu_smi_gives_ascend_npus_and_the_cann_release() {
        let tmp = tempfile::tempdir().unwrap();
        tool(tmp.path(), "npu-smi", FAKE_NPU_SMI_910B);
        let toolkit = tmp.path().join("toolkit");
        let info = toolkit.join(format!("{}-linux", std::env::consts::ARCH));
        std::fs::create_dir_all(&info).unwrap();
        let install = "package_name=Ascend-cann-toolkit\nversion=8.0.RC3\ninnerversion=V100R001C19SPC001B255\n";
        std::fs::write(info.join("ascend_toolkit_install.info"), install).unwrap();
        let smi = tmp.path().join("npu-smi");
        let m = ascend(&smi, None, TOOL_TIMEOUT, std::slice::from_ref(&toolkit));
        assert_eq!(m.gpu_model.unwrap(), Fact::new("910B4", "npu-smi info (Name)"));
        assert_eq!(m.gpu_count.unwrap().value, "2", "the table of processes is not one of NPUs");
        assert_eq!(m.gpu_memory.unwrap().value, "32768 MB");
        assert_eq!(m.gpu_driver.unwrap(), Fact::new("24.1.1", "npu-smi info (Version)"));
        assert_eq!(m.gpu_runtime.unwrap().value, "CANN 8.0.RC3");
        let one = ascend(&smi, Some("1"), TOOL_TIMEOUT, &[]);
        assert_eq!(one.gpu_count.unwrap(), Fact::new("1", "npu-smi info (Name, devices 1)"));
        assert_eq!(one.gpu_runtime, None, "no toolkit, no CANN recorded");
        assert_eq!(ascend(&smi, Some("2"), TOOL_TIMEOUT, &[]), Machine::default());

        // Two chips a board: a chip's device id is its own.
        tool(tmp.path(), "npu-smi", FAKE_NPU_SMI_A3);
        let m = ascend(&smi, None, TOOL_TIMEOUT, &[]);
        assert_eq!((m.gpu_count.unwrap().value, m.gpu_model.unwrap().value), ("4".into(), "Ascend910".into()));
        assert_eq!(ascend(&smi, Some("1,2"), TOOL_TIMEOUT, &[]).gpu_count.unwrap().value, "2");
        // Found on `PATH` when no other vendor's tool is there.
        assert_eq!(gpus(tmp.path().as_os_str(), Some("3"), TOOL_TIMEOUT).gpu_memory.unwrap().value, "65536 MB");
    }

    #[test]
    fn a_node_s_devices_are_its_start_s_else_the_cluster_s_variables() {
        let vars = |set: &'static [(&'static str, &'static str)]| {
            move |name: &str| set.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(given_devices(Some("2,3"), vars(&[("CUDA_VISIBLE_DEVICES", "0")])).as_deref(), Some("2,3"));
        let amd = vars(&[("SLURM_JOB_GPUS", "4,5"), ("ROCR_VISIBLE_DEVICES", "0,1")]);
        assert_eq!(given_devices(None, amd).as_deref(), Some("0,1"));
        assert_eq!(given_devices(None, vars(&[("SLURM_JOB_GPUS", "4")])).as_deref(), Some("4"));
        assert_eq!(given_devices(None, vars(&[("CUDA_VISIBLE_DEVICES", "")])), None);
    }
}
