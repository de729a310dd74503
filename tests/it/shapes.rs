//! Shapes of the series' pages that a study first could not express, on small synthetic
//! studies: a first-stage flag left out of the published command, and a study named from
//! inside its own folder.

use crate::common;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Links, Renderer};
use perflab::study::Study;

/// A study whose first stage runs every engine with `--max-model-len 32768` and leaves it out
/// of the published command, then adopts `--async` in a second stage.
fn first_stage_excluded() -> (tempfile::TempDir, Study) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("excluded");
    let spec = concat!(
        "model = \"m\"\nbaseline = \"s1/base\"\ntarget_profile = \"p\"\n",
        synthetic_setup!(),
        r#"exclude_from_command = { reason = { en = "Set the context length from your own prompts.", tr = "Bağlam uzunluğunu kendi istemlerinize göre ayarlayın." } }

[[stage.variant]]
id = "base"
label = "Base"
engine = "e"
flags = ["--max-model-len 32768"]

[[stage]]
id = "s2"
title = { en = "Second" }

[[stage.variant]]
id = "async"
label = "async"
flags = ["--async"]
"#
    );
    std::fs::create_dir_all(dir.join("runs/s1/base")).unwrap();
    std::fs::create_dir_all(dir.join("runs/s2/async")).unwrap();
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    std::fs::write(dir.join("runs/s1/base/p.txt"), common::vllm_block(100.0, 10.0, "")).unwrap();
    std::fs::write(dir.join("runs/s2/async/p.txt"), common::vllm_block(150.0, 10.0, "")).unwrap();
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, study)
}

#[test]
fn a_flag_the_first_stage_sets_can_stay_out_of_the_published_command() {
    let (_tmp, study) = first_stage_excluded();
    assert!(perflab::analysis::check(&study).is_empty());
    let a = analyze(&study);
    assert_eq!(a.optimized.flags, ["--max-model-len 32768", "--async"], "what was measured");
    assert_eq!(a.recommended.launch, "serve m");
    assert_eq!(a.recommended.flags, ["--async"], "what is published");
    let renderer = Renderer::new(None).unwrap();
    for (locale, reason) in [
        ("en", "Set the context length from your own prompts."),
        ("tr", "Bağlam uzunluğunu kendi istemlerinize göre ayarlayın."),
    ] {
        let page = renderer.page(&study, &a, locale, Flavor::Commonmark, &Links::markdown(&study.id)).unwrap();
        assert!(page.contains(reason), "{locale}: the reason is under the command:\n{page}");
        // The first code block of the page is the recommended command.
        let command = page.split("```").nth(1).unwrap();
        assert!(command.contains("--async") && !command.contains("--max-model-len"), "{locale}: {command}");
    }
}

#[test]
fn a_study_is_checked_from_inside_its_folder() {
    let (_tmp, study) = first_stage_excluded();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["check", "."])
        .current_dir(&study.dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}{}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("excluded: ok"), "{err}");
}
