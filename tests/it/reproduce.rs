//! `perflab reproduce`: the commands it prints for a run and for a load curve's point, run as
//! printed against the simulated engine, measure the published figure again within the study's
//! noise.

use crate::common;

use common::{free_port, get_ok, perflab, serial, tiny, wait_for};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A one-variant study of three measurements a run, a plain profile `p` and a curve `c`.
fn study() -> (tempfile::TempDir, std::path::PathBuf) {
    let extra = "repeats = 3\nnoise_threshold = 10.0\n[slo]\np99_ttft_ms = 5000\n";
    let (tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.05 --sim-decode-ms 4", extra);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace(
        "input_tokens = 8\noutput_tokens = 4\ntotal_requests = 4\n",
        "input_tokens = 32\noutput_tokens = 48\ntotal_requests = 16\nseed = 7\n",
    );
    let curve = "\n[[profile]]\nid = \"c\"\nname = { en = \"c\" }\ndataset = \"random\"\ninput_tokens = 32\noutput_tokens = 48\ntotal_requests = 16\nseed = 7\nload = { values = [2] }\n";
    let text = text.replacen("\n[[stage]]", &format!("{curve}\n[[stage]]"), 1);
    std::fs::write(&spec, text).unwrap();
    (tmp, dir)
}

/// The value after `# name: ` on a line of the printed recipe, or the line after `# name:` (a
/// command).
fn line<'a>(recipe: &'a str, name: &str) -> &'a str {
    let lines: Vec<&str> = recipe.lines().collect();
    let prefix = format!("# {name}");
    let named = |l: &&str| l.strip_prefix(prefix.as_str()).is_some_and(|rest| rest.starts_with([':', ',']));
    let at = lines.iter().position(named).unwrap_or_else(|| panic!("no {name} in {recipe}"));
    match lines[at][prefix.len()..].strip_prefix(": ") {
        Some(value) if name != "benchmark" => value,
        _ => lines[at + 1],
    }
}

/// Runs a printed command in a shell with perflab's programs first on `PATH`.
fn shell(command: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_perflab")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = Command::new("sh");
    c.arg("-c").arg(command).env("PATH", path);
    c
}

/// The figure the recipe names and what its benchmark command measures now, against an engine
/// started by its engine command.
fn measured_again(recipe: &str, port: u16) -> (f64, f64) {
    let figure = line(recipe, "figure");
    let (metric, rest) = figure.split_once(" = ").expect("a figure");
    let published: f64 = rest.split_whitespace().next().unwrap().parse().unwrap();
    let mut engine =
        shell(&format!("exec {}", line(recipe, "engine"))).stderr(Stdio::null()).stdout(Stdio::null()).spawn().unwrap();
    assert!(wait_for(Duration::from_secs(10), || get_ok(port, "/health")), "the printed engine command serves");
    let out = shell(line(recipe, "benchmark")).output().unwrap();
    let _ = engine.kill();
    let _ = engine.wait();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let block = perflab::parse_str(&text).unwrap().remove(0);
    (published, block.metric(metric).unwrap_or_else(|| panic!("no {metric} in {text}")))
}

#[test]
fn the_printed_commands_measure_a_run_and_a_curve_point_again_within_the_studys_noise() {
    let _serial = serial();
    let (_tmp, dir) = study();
    let (code, _, err) = perflab(&["run", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let port = free_port();
    for run in ["engine/only/p", "engine/only/c@2"] {
        let (code, recipe, err) = perflab(&["reproduce", dir.to_str().unwrap(), run, "--port", &port.to_string()]);
        assert_eq!(code, 0, "{err}");
        assert!(recipe.starts_with(&format!("# {run}: attempt ")) && recipe.contains(", measured 20"), "{recipe}");
        assert!(line(&recipe, "benchmark").contains("--seed 7"), "{recipe}");
        assert!(recipe.contains("# benchmark, once the engine serves: dataset random (seed 7"), "{recipe}");
        assert!(line(&recipe, "machine").starts_with("cpu-model = "), "{recipe}");
        let (published, again) = measured_again(&recipe, port);
        let off = (again - published).abs() / published * 100.0;
        assert!(off <= 10.0, "{run}: published {published}, measured again {again} ({off:.1}% off)\n{recipe}");
    }
    // The point measured in three starts names its interval.
    let (_, recipe, _) = perflab(&["reproduce", dir.to_str().unwrap(), "engine/only/c@2"]);
    assert!(line(&recipe, "figure").contains("(95% interval "), "{recipe}");

    // A run the study does not have is an error that says how runs are named.
    let (code, _, err) = perflab(&["reproduce", dir.to_str().unwrap(), "engine/only/nope"]);
    assert_ne!(code, 0);
    assert!(err.contains("no profile `nope`"), "{err}");
    let (code, _, err) = perflab(&["reproduce", dir.to_str().unwrap(), "engine/other/p"]);
    assert_ne!(code, 0);
    assert!(err.contains("`engine/other/p` has no measurement"), "{err}");
}

#[test]
fn the_page_puts_the_recipe_under_each_figure_perflab_measured_in_every_locale() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.05 --sim-decode-ms 1", "");
    let (code, _, err) = perflab(&["run", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, page, err) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let at = page.find("<summary>Reproduce this figure").unwrap_or_else(|| panic!("{page}"));
    let block = &page[at..page[at..].find("</details>").map_or(page.len(), |e| at + e)];
    assert!(block.contains("# engine:\nperflab-engine --port 8000 --sim-startup-seconds 0.05"), "{block}");
    assert!(block.contains("\nperflab bench --quiet --base-url http://127.0.0.1:8000"), "{block}");
    assert!(block.contains("# figure: "), "{block}");
    for (locale, title) in [("tr", "Bu sonucu yeniden ölçmek için"), ("zh", "复现此结果"), ("ja", "この結果を再現する")]
    {
        let (code, page, err) = perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains(&format!("<summary>{title}")), "{locale}: {page}");
    }
}
