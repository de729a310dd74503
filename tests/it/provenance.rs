//! What a run records of the machine and the engine it ran on, and the check of the engine's
//! declared version, on the simulated engine with a fake `nvidia-smi` on `PATH`.

use crate::common;

use common::{manifests, tiny};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// The simulated engine of a one-run study declared as version 1, its engine's environment
/// `env` (a TOML inline table's inside) and `flags` after its command.
fn study(env: &str, flags: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let command = format!("perflab-engine --port {{port}} --sim-startup-seconds 0.05 --sim-decode-ms 1 {flags}");
    let (tmp, dir) = tiny(&command, "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let text = text.replace("start_timeout = 2\n", &format!("start_timeout = 2\nenv = {{ {env} }}\n"));
    std::fs::write(&spec, text).unwrap();
    (tmp, dir)
}

/// `perflab run DIR ARGS` with `tools` first on `PATH`: exit code and standard error.
fn run_with(dir: &Path, tools: &Path, args: &[&str]) -> (i32, String) {
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .arg("run")
        .arg(dir)
        .args(args)
        .env("PATH", path)
        .current_dir(common::root())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A folder with an `nvidia-smi` that answers as the real one does (the Slurm test puts it on
/// its jobs' `PATH` too).
pub(crate) fn fake_smi() -> tempfile::TempDir {
    let tools = tempfile::tempdir().unwrap();
    let smi = tools.path().join("nvidia-smi");
    let body = r#"#!/bin/sh
case "$1" in
--query-gpu=name,memory.total,driver_version) echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15" ;;
"") echo "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |" ;;
*) exit 6 ;;
esac
"#;
    std::fs::write(&smi, body).unwrap();
    std::fs::set_permissions(&smi, std::fs::Permissions::from_mode(0o755)).unwrap();
    tools
}

fn no_results(dir: &Path) {
    let found: Vec<_> = walkdir::WalkDir::new(dir.join("runs"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path().display().to_string())
        .collect();
    assert!(found.is_empty(), "recorded: {found:?}");
}

#[test]
fn a_run_records_the_machine_and_the_engine_s_own_version_with_their_sources() {
    let tools = fake_smi();
    let (_tmp, dir) = study(r#"PERFLAB_SIM_VERSION = "1""#, "");
    let (code, err) = run_with(&dir, tools.path(), &[]);
    assert_eq!(code, 0, "{err}");
    let m = &manifests(&dir)[0];
    let machine = m.machine.as_ref().expect("the machine is recorded");
    let gpu = machine.gpu_model.as_ref().unwrap();
    assert_eq!(
        (gpu.value.as_str(), gpu.source.as_str()),
        ("NVIDIA H100 80GB HBM3", "nvidia-smi --query-gpu=name --format=csv,noheader")
    );
    assert_eq!(machine.gpu_driver.as_ref().unwrap().value, "550.54.15");
    assert_eq!(machine.gpu_runtime.as_ref().unwrap().value, "CUDA 12.4");
    assert_eq!(machine.kernel.as_ref().unwrap().source, "/proc/sys/kernel/osrelease");
    // While it served, the engine said its version at its endpoint.
    let version = machine.engine_version.as_ref().unwrap();
    assert_eq!((version.value.as_str(), version.source.as_str()), ("1", "GET /version"));
    assert_eq!(m.engine_version, "1");

    // Without the tool, the GPU is not recorded and the run is not the worse for it.
    let empty = tempfile::tempdir().unwrap();
    let (code, err) = run_with(&dir, empty.path(), &["--rerun"]);
    assert_eq!(code, 0, "{err}");
    let newest = manifests(&dir).into_iter().filter_map(|m| m.machine).find(|m| m.gpu_model.is_none());
    assert!(newest.is_some_and(|m| m.cpu_cores.is_some()), "a second attempt without nvidia-smi");
}

#[test]
fn an_engine_that_reports_another_version_is_refused_before_it_measures() {
    let tools = tempfile::tempdir().unwrap();
    // Its program says 2 before the start (`perflab-engine --version`).
    let (_tmp, dir) = study(r#"PERFLAB_SIM_VERSION = "2""#, "");
    let (code, err) = run_with(&dir, tools.path(), &[]);
    assert_ne!(code, 0, "{err}");
    let spec = dir.join("study.toml").display().to_string();
    assert!(err.contains(&format!("the study declares version 1 ({spec}:13)")), "{err}");
    assert!(err.contains("the engine reports 2 (perflab-engine --version)"), "{err}");
    assert!(err.contains("--any-engine-version"), "{err}");
    no_results(&dir);

    // Measured anyway, the run carries the engine's version and is stale against the study's.
    let (code, err) = run_with(&dir, tools.path(), &["--any-engine-version"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifests(&dir)[0].engine_version, "2");
    let (_, out, _) = common::perflab(&["plan", dir.to_str().unwrap()]);
    assert!(out.contains("stale"), "{out}");
}

#[test]
fn a_version_the_engine_says_only_while_it_serves_is_checked_before_the_first_benchmark() {
    let tools = tempfile::tempdir().unwrap();
    // The program says no version before the start; its endpoint says 3.
    let (_tmp, dir) = study("", "--sim-version 3");
    let (code, err) = run_with(&dir, tools.path(), &[]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("the engine reports 3 (GET /version)"), "{err}");
    no_results(&dir);
}

/// A folder with an `nvidia-smi` whose driver is `driver`.
fn smi_with_driver(driver: &str) -> tempfile::TempDir {
    let tools = fake_smi();
    let smi = tools.path().join("nvidia-smi");
    let text = std::fs::read_to_string(&smi).unwrap().replace("550.54.15", driver);
    std::fs::write(&smi, text).unwrap();
    tools
}

#[test]
fn the_page_analyze_and_the_csv_show_what_the_runs_recorded_and_which_ran_on_what() {
    let (_tmp, dir) = study(r#"PERFLAB_SIM_VERSION = "1""#, "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("{text}\n[[stage.variant]]\nid = \"more-seqs\"\nlabel = \"more seqs\"\nengine = \"sim\"\nflags = [\"--max-num-seqs 8\"]\n")).unwrap();
    // The base on one driver, the variant on another.
    let (code, err) = run_with(&dir, smi_with_driver("550.54.15").path(), &["--variant", "engine/only"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = run_with(&dir, smi_with_driver("535.183.01").path(), &[]);
    assert_eq!(code, 0, "{err}");

    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("### Recorded with the runs"), "{page}");
    assert!(page.contains("- **GPU:** `NVIDIA H100 80GB HBM3`"), "{page}");
    assert!(page.contains("- **Sim as it reports itself:** `1`"), "{page}");
    assert!(
        page.contains("`550.54.15` on Engine › only (p)") && page.contains("`535.183.01` on Engine › more seqs (p)"),
        "{page}"
    );
    for locale in ["tr", "zh", "ja"] {
        let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains("`535.183.01`") && page.contains("`NVIDIA H100 80GB HBM3`"), "{locale}: {page}");
    }

    let (code, json, _) = common::perflab(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let analysis: serde_json::Value = serde_json::from_str(&json).unwrap();
    let driver = analysis["recorded"].as_array().unwrap().iter().find(|f| f["subject"] == "gpu-driver").unwrap();
    assert_eq!(driver["values"].as_array().unwrap().len(), 2, "{driver}");
    assert_eq!(driver["values"][0]["source"], "nvidia-smi --query-gpu=driver_version --format=csv,noheader");

    let study = perflab::study::Study::load(&dir).unwrap();
    let csv = perflab::render::exports::csv(&study, &perflab::analysis::analyze(&study)).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.lines().next().unwrap().contains(",recorded,"), "{csv}");
    assert!(csv.contains(r#"""gpu-driver"":""535.183.01"""#), "{csv}");
}
