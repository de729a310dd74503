//! `perflab run STUDY`

use crate::exec::{LocalBackend, RunOptions};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub fn run(
    name: &str,
    results: &Path,
    stage: Option<String>,
    variant: Option<String>,
    rerun: bool,
    rerun_stale: bool,
    dry_run: bool,
) -> anyhow::Result<ExitCode> {
    let dirs = super::study_dirs(&[name.to_string()], results)?;
    let dir = &dirs[0];
    let interrupt = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, interrupt.clone())?;
    }
    let mut rerun_set = BTreeSet::new();
    if rerun {
        let study = crate::study::Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
        for s in &study.spec.stages {
            for v in &s.variants {
                let reference = format!("{}/{}", s.id.get_ref(), v.id.get_ref());
                let stage_ok = stage.as_ref().is_none_or(|x| x == s.id.get_ref());
                let variant_ok = variant.as_ref().is_none_or(|x| *x == reference || x == v.id.get_ref());
                if stage_ok && variant_ok {
                    rerun_set.insert(reference);
                }
            }
        }
    }
    let options = RunOptions { stage, variant, rerun: rerun_set, rerun_stale, dry_run };
    let started = std::time::Instant::now();
    let summary = crate::exec::run(dir, &options, &mut LocalBackend, &interrupt, &mut |line| eprintln!("{line}"))?;
    if dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "{} engine starts and {} benchmark runs ({} failed) in {}, where one start a (variant, profile) would take {}",
        summary.engine_starts,
        summary.benchmark_runs,
        summary.failed,
        crate::exec::runner::clock(started.elapsed().as_secs_f64()),
        summary.naive_starts
    );
    if summary.interrupted {
        eprintln!("interrupted: `perflab run` continues where this run stopped");
        return Ok(ExitCode::from(130));
    }
    eprintln!("`perflab build` renders the results");
    Ok(ExitCode::SUCCESS)
}
