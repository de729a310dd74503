//! The accelerators a start was given, from their vendor's tool (`nvidia-smi`). A tool that is
//! missing, fails or hangs leaves them "not recorded" (see [`super::machine::bounded`]).

use super::machine::{bounded, find};
use crate::study::{Fact, Machine};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::time::Duration;

/// The accelerators, from `nvidia-smi`'s queries, limited to `devices` (`0,1`) when given.
pub fn gpus(search: &OsStr, devices: Option<&str>, timeout: Duration) -> Machine {
    let mut m = Machine::default();
    let Some(smi) = find("nvidia-smi", search) else { return m };
    const QUERY: &str = "--query-gpu=name,memory.total,driver_version";
    let id = devices.map(|d| format!("--id={d}"));
    let mut args = vec![QUERY, "--format=csv,noheader"];
    args.extend(id.as_deref());
    let no_env = BTreeMap::new();
    if let Some(out) = bounded(&smi, &args, &no_env, timeout) {
        let rows: Vec<Vec<&str>> =
            out.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(',').map(str::trim).collect()).collect();
        let column = |i: usize| {
            let mut seen: Vec<&str> = Vec::new();
            for row in &rows {
                match row.get(i) {
                    Some(v) if !v.is_empty() && !v.starts_with('[') => {
                        if !seen.contains(v) {
                            seen.push(v)
                        }
                    }
                    _ => return None,
                }
            }
            (!seen.is_empty()).then(|| seen.join(" + "))
        };
        let source = |field: &str| format!("nvidia-smi --query-gpu={field} --format=csv,noheader");
        if rows.iter().all(|r| r.len() == 3) && !rows.is_empty() {
            m.gpu_model = column(0).map(|v| Fact::new(v, source("name")));
            m.gpu_count = Some(Fact::new(rows.len().to_string(), source("name")));
            m.gpu_memory = column(1).map(|v| Fact::new(v, source("memory.total")));
            m.gpu_driver = column(2).map(|v| Fact::new(v, source("driver_version")));
        }
    }
    // The runtime is in the summary's header: `... Driver Version: 550.54.15  CUDA Version: 12.4 |`.
    if let Some(out) = bounded(&smi, &[], &no_env, timeout)
        && let Some(cuda) = out.split("CUDA Version:").nth(1).and_then(|r| r.split_whitespace().next())
        && cuda.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        m.gpu_runtime = Some(Fact::new(format!("CUDA {cuda}"), "nvidia-smi (its header's CUDA Version)"));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::machine::TOOL_TIMEOUT;
    use crate::exec::machine::tests::tool;
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
        assert_eq!(gpus(tmp.path().as_os_str(), Some("1"), TOOL_TIMEOUT).gpu_count.unwrap().value, "1");
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
        // It prints, then hangs with a child of its own that holds the output open.
        tool(tmp.path(), "nvidia-smi", "echo 'NVIDIA H100, 1 MiB, 1.0'; sleep 60 & sleep 60");
        let began = Instant::now();
        let m = gpus(tmp.path().as_os_str(), None, Duration::from_millis(300));
        assert_eq!(m, Machine::default());
        assert!(began.elapsed() < Duration::from_secs(5), "took {:?}", began.elapsed());
    }
}
