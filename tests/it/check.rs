//! `perflab check`: passes on the bundled studies; on broken copies it names file, line, column
//! and key, exits 1, and changes nothing.

use crate::common;

use common::{copy_dir, perflab, root};
use std::path::{Path, PathBuf};

/// A copy of a bundled study in a temporary folder.
fn broken_copy(id: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(id);
    copy_dir(&root().join("results").join(id), &dir);
    (tmp, dir)
}

/// Replaces the first `from` in `file` with `to`; returns the 1-based line and column of it.
fn edit(file: &Path, from: &str, to: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text.find(from).unwrap_or_else(|| panic!("`{from}` not in {}", file.display()));
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

fn check(dir: &Path) -> (i32, String) {
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    (code, out)
}

#[test]
fn bundled_studies_pass() {
    let (code, out, err) = perflab(&["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("glm-5.2-fp8-h200: ok") && err.contains("deepseek-v3.2-h200: ok"), "{err}");
}

#[test]
fn unknown_key_names_line_column_and_key() {
    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    let spec = dir.join("study.toml");
    let (line, col) = edit(&spec, "noise_threshold = 2.0", "noise_treshold = 2.0");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let want = format!("{}:{line}:{col}: unknown field `noise_treshold`", spec.display());
    assert!(out.starts_with(&want), "{out}");
}

#[test]
fn dangling_references_and_duplicate_ids() {
    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    let spec = dir.join("study.toml");
    let (l1, c1) = edit(&spec, "engine = \"sglang\"", "engine = \"sglnag\"");
    let (l2, c2) = edit(&spec, "id = \"8k\"", "id = \"default\"");
    let (l3, c3) = edit(&spec, "target_profile = \"balanced\"", "target_profile = \"balancd\"");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let s = spec.display();
    for want in [
        format!("{s}:{l1}:{}: `engine`: no engine `sglnag`", c1 + 9),
        format!("{s}:{l2}:{}: duplicate variant id `default`", c2 + 5),
        format!("{s}:{l3}:{}: `target_profile`: no profile `balancd`", c3 + 17),
    ] {
        assert!(out.contains(&want), "missing `{want}` in:\n{out}");
    }
}

#[test]
fn dangling_base_in_a_branching_study() {
    let (_t, dir) = broken_copy("deepseek-v3.2-h200");
    let spec = dir.join("study.toml");
    let (line, col) = edit(&spec, "base = \"parallelism/trtllm-tp-ep\"", "base = \"parallelism/trtllm-tp\"");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let want = format!("{}:{line}:{}: `base`: no variant `parallelism/trtllm-tp`", spec.display(), col + 7);
    assert!(out.contains(&want), "{out}");
}

#[test]
fn a_base_that_names_the_variant_itself_or_a_cycle_is_rejected() {
    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    let spec = dir.join("study.toml");
    let (line, col) = edit(&spec, "id = \"tp\"\n", "id = \"tp\"\nbase = \"parallelism/tp\"\n");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let s = spec.display();
    let want = format!("{s}:{}:{}: `base`: `parallelism/tp` names the variant itself", line + 1, col + 7);
    assert!(out.contains(&want), "missing `{want}` in:\n{out}");

    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    let spec = dir.join("study.toml");
    let (l1, c1) = edit(&spec, "id = \"tp\"\n", "id = \"tp\"\nbase = \"parallelism/tp-dpattn\"\n");
    let (l2, c2) = edit(&spec, "id = \"tp-dpattn\"\n", "id = \"tp-dpattn\"\nbase = \"parallelism/tp\"\n");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let s = spec.display();
    for want in [
        format!(
            "{s}:{}:{}: `base`: `parallelism/tp` → `parallelism/tp-dpattn` → `parallelism/tp` is a cycle",
            l1 + 1,
            c1 + 7
        ),
        format!(
            "{s}:{}:{}: `base`: `parallelism/tp-dpattn` → `parallelism/tp` → `parallelism/tp-dpattn` is a cycle",
            l2 + 1,
            c2 + 7
        ),
    ] {
        assert!(out.contains(&want), "missing `{want}` in:\n{out}");
    }
}

#[test]
fn missing_and_broken_run_files() {
    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    std::fs::remove_file(dir.join("runs/parallelism/tp-dpattn/balanced.txt")).unwrap();
    std::fs::remove_file(dir.join("runs/engine/vllm/short.txt")).unwrap();
    let broken = dir.join("runs/memory-fraction/0.8/balanced.txt");
    let (line, _) = edit(&broken, "10572.77", "10572,77x");
    let stray = dir.join("runs/no-such-stage/x/balanced.txt");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, "x").unwrap();
    let before = std::fs::read_to_string(dir.join("study.toml")).unwrap();

    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    let b = broken.display();
    assert!(
        out.contains(&format!("{b}:{line}:42: `Total Token throughput (tok/s)` should be a number, found `10572,77x`")),
        "{out}"
    );
    assert!(out.contains(&format!("{}:0:0: no stage `no-such-stage`", stray.display())), "{out}");
    assert_eq!(std::fs::read_to_string(dir.join("study.toml")).unwrap(), before, "check writes nothing");

    // With the run files fixed, the analysis-level problems show.
    std::fs::remove_file(&stray).unwrap();
    edit(&broken, "10572,77x", "10572.77");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    assert!(out.contains("variant `parallelism/tp-dpattn` has no run for profile `balanced`"), "{out}");
    assert!(out.contains("the baseline (`engine/vllm`) has no run for compared profile `short`"), "{out}");
}

#[test]
fn missing_study_is_a_clear_error() {
    let (code, _, err) = perflab(&["check", "no-such-study"]);
    assert_eq!(code, 2);
    assert!(err.contains("no study 'no-such-study'"), "{err}");
}

/// Run where there is no results folder, check names the two ways to point it at studies.
#[test]
fn no_results_folder_names_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("results");
    let (code, _, err) = perflab(&["check", "--results", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot list studies in"), "{err}");
    assert!(err.contains("name a study folder") && err.contains("--results DIR"), "{err}");
}

#[test]
fn unset_of_a_flag_of_the_engine_command_is_refused() {
    // `unset` removes what variants set; a word of the engine's own command stays in the
    // command the engine gets, so the page must not say it was removed.
    let (_t, dir) = broken_copy("glm-5.2-fp8-h200");
    let spec = dir.join("study.toml");
    let sglang = "command = \"python3 -m sglang.launch_server --model-path {model}\"";
    edit(&spec, sglang, "command = \"python3 -m sglang.launch_server --model-path {model} --trust-remote-code\"");
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "the command alone is fine: {out}");
    let (line, col) = edit(
        &spec,
        "flags = [\"--mem-fraction-static=0.8\"]",
        "flags = [\"--mem-fraction-static=0.8\"]\nunset = [\"--trust-remote-code\"]",
    );
    let (code, out) = check(&dir);
    assert_eq!(code, 1, "{out}");
    let want = format!(
        "{}:{}:{}: variant `0.8`: `unset` cannot remove `--trust-remote-code`, which engine `sglang`'s own command gives",
        spec.display(),
        line + 1,
        col + "unset = [".len()
    );
    assert!(out.contains(&want), "want `{want}` in:\n{out}");
    // A flag a variant set is still removed by `unset` as before.
    edit(&spec, "unset = [\"--trust-remote-code\"]", "unset = [\"--mem-fraction-static\"]");
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
}

/// A text in a language the site publishes no page in (`de`, with catalogs for en, tr, zh and
/// ja) is a warning at its key; `check` still passes.
#[test]
fn a_text_in_a_language_without_a_catalog_is_a_warning_at_its_key() {
    let (_tmp, dir) = broken_copy("qwen3-14b-h100");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let title = text.find("[title]\n").expect("a [title] table");
    let line = text[..title].matches('\n').count() + 2;
    std::fs::write(&spec, text.replacen("[title]\n", "[title]\nde = \"Qwen3-14B abstimmen\"\n", 1)).unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
    let expected = format!(
        "study.toml:{line}:1: warning: `title` has a `de` text, but the site publishes no `de` page (its languages: en, ja, tr, zh)"
    );
    assert!(out.contains(&expected), "{expected}\n{out}");
}

/// A damaged run manifest is named at the line and column where its JSON went wrong, once.
#[test]
fn a_damaged_manifest_is_named_at_its_position_once() {
    let (_tmp, dir) = broken_copy("qwen3-14b-h100");
    let attempt = dir.join("runs/engine/vllm/attempts/1");
    std::fs::create_dir_all(&attempt).unwrap();
    std::fs::write(attempt.join("short.manifest.json"), "{\n  \"state\": \"done\",\n  \"profile\": [1,,\n}\n").unwrap();
    let (code, out) = check(&dir);
    assert_ne!(code, 0, "{out}");
    let line = out.lines().find(|l| l.contains("short.manifest.json")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("short.manifest.json:3:17: not a run manifest (expected value): it was cut off"), "{line}");
    assert!(!line.contains("at line"), "the position is said once: {line}");
}

#[test]
fn a_configuration_that_takes_more_gpus_than_the_hardware_has_is_refused() {
    let (_t, dir) = broken_copy("glm-4.5-air-h100");
    let spec = dir.join("study.toml");
    // Four GPUs, as the hardware says: the study passes as it is.
    edit(&spec, "gpus = 4\n", "gpus = 4\nhardware_gpus = 4\n");
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
    // One layout asks for eight.
    let text = std::fs::read_to_string(&spec).unwrap();
    let tp2 = text.find("id = \"tp2\"").unwrap();
    let at = tp2 + text[tp2..].find("gpus = 2").unwrap();
    std::fs::write(&spec, format!("{}gpus = 8{}", &text[..at], &text[at + "gpus = 2".len()..])).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let (code, out) = check(&dir);
    assert_eq!(code, 1, "{out}");
    let want = format!(
        "{}:{line}:8: `gpus`: `parallelism/tp2` takes 8 GPUs, more than the hardware has (`hardware_gpus = 4`)",
        spec.display()
    );
    assert!(out.contains(&want), "missing `{want}` in:\n{out}");
    // Without `hardware_gpus`, the machine `[local]` declares is the hardware.
    let (_t, dir) = broken_copy("glm-4.5-air-h100");
    let spec = dir.join("study.toml");
    let (line, _) = edit(&spec, "gpus = 4\n", "gpus = 4\n[local]\ngpus = 2\n");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replacen("[local]\ngpus = 2\n", "", 1)).unwrap();
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("{text}\n[local]\ngpus = 2\n")).unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 1, "{out}");
    let want = format!(
        "{}:{line}:8: `gpus`: a configuration takes 4 GPUs by default, more than the hardware has (`[local]` declares 2)",
        spec.display()
    );
    assert!(out.contains(&want), "missing `{want}` in:\n{out}");
}

#[test]
fn a_stage_of_unequal_gpu_counts_is_compared_per_gpu_unless_the_study_asks_for_totals() {
    use perflab::analysis::analyze;
    use perflab::study::Study;
    let warning = "ranks configurations on different numbers of GPUs";
    let per_gpu_objective = analyze(&Study::load(&root().join("results/glm-4.5-air-h100")).unwrap());
    let as_written = per_gpu_objective.stage("parallelism").unwrap();
    assert!(as_written.per_gpu.is_none(), "a derived per-GPU objective is already per GPU");
    // Ranked by total throughput, its parallelism stage compares two GPUs with four: it weighs
    // them per GPU, and decides as the study written per GPU does.
    let (_t, dir) = broken_copy("glm-4.5-air-h100");
    edit(&dir.join("study.toml"), "objective = \"tps_per_gpu\"", "objective = \"total_token_throughput\"");
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains(warning), "{out}");
    let a = analyze(&Study::load(&dir).unwrap());
    let stage = a.stage("parallelism").unwrap();
    assert_eq!(stage.per_gpu.as_ref().map(|p| p.variants.clone()), Some(vec![4, 2, 2, 4]));
    assert_eq!(stage.per_gpu.as_ref().map(|p| p.base), Some(4));
    assert_eq!(stage.adoption.adopted(), as_written.adoption.adopted());
    let step = |a: &perflab::analysis::Analysis| a.options.iter().find(|o| o.stage == "parallelism").unwrap().step;
    assert!((step(&a).unwrap() - step(&per_gpu_objective).unwrap()).abs() < 1e-9);
    assert!(a.options.iter().find(|o| o.stage == "parallelism").unwrap().per_gpu);
    // In total, TP4 + EP4 (four GPUs) is far ahead of TP2 (two): the comparison per GPU is
    // what keeps TP2 within 0.3% of it.
    let cmp = stage.comparison.as_ref().unwrap();
    assert_eq!((cmp.best.as_str(), format!("{:.2}", cmp.objective.value)), ("tp4-ep4", "3102.81".to_string()));
    let (code, page, err) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("so the stage compares them per GPU"), "{page}");
    assert!(page.contains("TP2 on 2 GPUs") && page.contains("TP4 + EP4 on 4 GPUs"), "{page}");
    assert!(page.contains("TP4 + EP4 does best at 3102.81 tok/s per GPU"), "{page}");
    assert!(page.contains("TP4 + EP4 is adopted: +3.5% per GPU"), "{page}");
    assert!(!page.contains("ranks configurations that run on different numbers of GPUs"), "{page}");
    // Asked for totals, the stage ranks by them and is warned about.
    edit(&dir.join("study.toml"), "id = \"parallelism\"", "id = \"parallelism\"\ncompare = \"total\"");
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "a warning, not an error: {out}");
    assert!(
        out.contains(&format!(
            "warning: stage `parallelism` {warning} by their total, not per GPU (parallelism/tp4-ep4: 4, parallelism/tp2: 2"
        )),
        "{out}"
    );
    let (code, page, err) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(page.matches("ranks configurations that run on different numbers of GPUs").count(), 1, "{page}");
    assert!(!page.contains("so the stage compares them per GPU"), "{page}");
    // A value the key does not take is refused where it is written.
    edit(&dir.join("study.toml"), "compare = \"total\"", "compare = \"per gpu\"");
    let (code, out, err) = perflab(&["check", dir.to_str().unwrap()]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("study.toml:139:11: unknown variant `per gpu`, expected `per-gpu` or `total`"), "{out}{err}");
}
