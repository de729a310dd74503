//! The README's "Try the whole loop" commands, run in order as they are written, on a copy of the
//! examples with no runs: what a new user types in the first hour (the SLO example's search
//! included: under a minute on the simulated engine).

use crate::common;

use common::root;
use std::path::Path;
use std::process::Command;

/// The shell lines of the README's section `heading`, comments left out, in order.
fn commands(readme: &str, heading: &str) -> Vec<String> {
    let start = readme.find(heading).unwrap_or_else(|| panic!("no {heading:?} in the README"));
    let section = &readme[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut out = Vec::new();
    let mut in_block = false;
    for line in section.lines() {
        match line.trim() {
            "```sh" => in_block = true,
            "```" => in_block = false,
            l if in_block && !l.is_empty() => {
                out.push(l.split(" #").next().unwrap_or(l).trim_end().to_string());
            }
            _ => {}
        }
    }
    out
}

/// Runs one README line in `dir` with the binaries this test was built with in place of
/// `target/release/`: exit code, standard output and error.
fn sh(dir: &Path, line: &str) -> (i32, String, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_perflab")).parent().unwrap();
    let line = line.replace("target/release/", &format!("{}/", bin.display()));
    let out = Command::new("sh").arg("-c").arg(&line).current_dir(dir).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_readmes_first_hour_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = commands(&readme, "### Try the whole loop");
    assert!(lines.len() >= 5, "{lines:?}");
    let tmp = tempfile::tempdir().unwrap();
    for example in ["sim-study", "sim-slo"] {
        let to = tmp.path().join("examples").join(example);
        common::copy_dir(&root().join("examples").join(example), &to);
        let _ = std::fs::remove_dir_all(to.join("runs"));
    }
    let mut ran = Vec::new();
    for line in &lines {
        // The binaries are the ones `cargo nextest run` (or `cargo test`) built for this test.
        if line == "cargo build --release" {
            continue;
        }
        let (code, out, err) = sh(tmp.path(), line);
        assert_eq!(code, 0, "{line}: {out}{err}");
        ran.push((line.clone(), out, err));
    }
    let said = |what: &str| ran.iter().find(|(l, _, _)| l.contains(what)).unwrap_or_else(|| panic!("{what}: {ran:?}"));
    // plan lists what is to be measured; run measures every configuration it can (the example
    // fails two on purpose) and leaves nothing pending; report prints a page with a command.
    assert!(said("plan examples/sim-study").1.contains("pending"), "{:?}", said("plan"));
    let (_, _, err) = said("run examples/sim-study");
    assert!(err.contains("engine starts") && !err.contains("(0 served)"), "{err}");
    // The SLO example's page answers with a load and names its baseline by what it sets.
    let (_, slo, _) = said("report examples/sim-slo");
    assert!(slo.contains("Load within the SLO: ") && slo.contains("Baseline (batch 16)"), "{slo}");
    // Its answer reads as each language says it, every request succeeding said as such.
    for (locale, says, not) in [
        ("tr", "isteklerin tamamının başarılı olması koşuluyla aynı anda", "sınırları içinde aynı anda"),
        ("zh", "请求全部成功的条件下，优化后的配置最多可同时服务", "成功率至少 100%"),
        ("ja", "全リクエストの成功を満たす条件で同時最大", "成功率 100% 以上"),
    ] {
        let (code, page, err) =
            sh(tmp.path(), &format!("target/release/perflab report examples/sim-slo --locale {locale}"));
        assert_eq!(code, 0, "{err}");
        assert!(page.contains(says) && !page.contains(not), "{locale}: {page}");
    }
    assert!(slo.contains("and no failed request") && !slo.contains("at least 100%"), "{slo}");
    // Its profile's command measures any point of the curve: the load is a placeholder it names.
    assert!(slo.contains("--max-concurrency '{load}'") && slo.contains("`{load}` stands for the load"), "{slo}");
    let (_, page, _) = said("report examples/sim-study");
    assert!(page.starts_with("# ") && page.contains("```bash"), "{page}");
    let (code, out, err) = sh(tmp.path(), "target/release/perflab plan examples/sim-study");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" 0 pending, 0 waiting"), "after the run, nothing is left to measure: {out}");
}
