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
    run_in(dir, tools, args, &[])
}

/// [`run_with`] with `env` added to perflab's environment.
fn run_in(dir: &Path, tools: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .arg("run")
        .arg(dir)
        .args(args)
        .env("PATH", path)
        .envs(env.iter().copied())
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

/// A folder with a `docker` that answers `image inspect --format '{{json .RepoDigests}}'` as the
/// real one does (a JSON list, see `exec::host::repo_digest`), and whose `run` starts the
/// simulated engine that follows its image, as the image's entry point would.
fn fake_docker(digest: &str) -> tempfile::TempDir {
    let tools = tempfile::tempdir().unwrap();
    let docker = tools.path().join("docker");
    let engine = env!("CARGO_BIN_EXE_perflab-engine");
    let body = format!(
        r#"#!/bin/sh
[ "$1" = image ] && {{ echo '["example/sim@{digest}"]'; exit 0; }}
shift
while [ "$1" = --rm ] || [ "$1" = --network ]; do [ "$1" = --network ] && shift; shift; done
shift 2
exec {engine} "$@"
"#
    );
    std::fs::write(&docker, body).unwrap();
    std::fs::set_permissions(&docker, std::fs::Permissions::from_mode(0o755)).unwrap();
    tools
}

/// Every file of a study's runs that holds `text`.
fn files_holding(dir: &Path, text: &str) -> Vec<String> {
    walkdir::WalkDir::new(dir.join("runs"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(text)))
        .map(|e| e.path().display().to_string())
        .collect()
}

#[test]
fn an_engine_in_a_container_records_its_image_and_digest_and_a_hashed_host() {
    let digest = "sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a";
    let tools = fake_docker(digest);
    let command = "docker run --rm --network host example/sim:1.0 perflab-engine --port {port} \
        --sim-startup-seconds 0.05 --sim-decode-ms 1";
    let (_tmp, dir) = common::tiny(command, "[record]\nhost = \"hash\"\n");
    let salt = [("PERFLAB_HOST_SALT", "a site's secret")];
    for args in [&[][..], &["--rerun"]] {
        let (code, err) = run_in(&dir, tools.path(), args, &salt);
        assert_eq!(code, 0, "{err}");
    }
    let machines: Vec<_> = manifests(&dir).into_iter().map(|m| m.machine.expect("recorded")).collect();
    assert_eq!(machines.len(), 2);
    let m = &machines[0];
    let image = m.image.as_ref().unwrap();
    assert_eq!((image.value.as_str(), image.source.as_str()), ("example/sim:1.0", "the engine's command (docker)"));
    let found = m.image_digest.as_ref().unwrap();
    assert_eq!(found.value, digest);
    assert_eq!(found.source, "docker image inspect --format '{{json .RepoDigests}}'");
    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("- **Container image:** `example/sim:1.0`"), "{page}");
    assert!(page.contains(&format!("- **Image digest:** `{digest}`")), "{page}");

    // The host is a hash, the same for both runs, and its name is in no file of the runs.
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_string();
    let host = m.host.as_ref().unwrap();
    assert!(host.value.len() == 16 && host.value != name, "{host:?}");
    assert!(host.source.ends_with("hashed (BLAKE3 keyed by the variable PERFLAB_HOST_SALT)"), "{host:?}");
    assert_eq!(machines[1].host, m.host);
    assert_eq!(files_holding(&dir, &format!("\"{name}\"")), Vec::<String>::new());

    // perflab's commit is in the manifests and `--version`, and on no page or export.
    let (code, version, _) = common::perflab(&["--version"]);
    assert_eq!((code, version.trim()), (0, format!("perflab {}", env!("PERFLAB_VERSION")).as_str()));
    let commit = env!("PERFLAB_COMMIT");
    assert_eq!(m.perflab_commit.as_ref().map(|c| c.value.as_str()), Some(commit).filter(|c| !c.is_empty()));
    if !commit.is_empty() {
        assert!(version.contains(&format!("(commit {commit})")), "{version}");
        let at = dir.to_str().unwrap();
        for args in [&["report", at][..], &["analyze", at], &["reproduce", at, "engine/only/p"]] {
            let (code, out, err) = common::perflab(args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(!out.contains(&commit[..12]), "{args:?}: {out}");
            assert!(!out.contains(&host.value), "{args:?}: {out}");
        }
        let study = perflab::study::Study::load(&dir).unwrap();
        let csv = perflab::render::exports::csv(&study, &perflab::analysis::analyze(&study)).unwrap();
        assert!(!String::from_utf8(csv).unwrap().contains(&commit[..12]));
    }

    // Left out, the host is not recorded at all.
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("\"hash\"", "\"omit\"")).unwrap();
    let (code, err) = run_in(&dir, tools.path(), &["--rerun"], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifests(&dir).iter().filter(|m| m.machine.as_ref().unwrap().host.is_none()).count(), 1);
}

#[test]
fn a_misspelt_record_key_or_value_is_refused_where_it_is_written() {
    let (_tmp, dir) = common::tiny("perflab-engine --port {port}", "[record]\nhost = \"hsah\"\n");
    let spec = dir.join("study.toml");
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    assert_ne!(code, 0);
    let want = format!("{}:7:8: unknown variant `hsah`, expected one of `name`, `hash`, `omit`", spec.display());
    assert!(out.contains(&want), "{out}{err}");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("host = \"hsah\"", "hots = \"hash\""))
        .unwrap();
    let (code, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(out.contains(&format!("{}:7:1: unknown field `hots`, expected `host`", spec.display())), "{out}{err}");
}
