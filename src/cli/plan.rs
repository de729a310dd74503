//! `perflab plan STUDY`

use crate::exec::{Status, plan, runner::clock};
use crate::study::Study;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

pub fn run(name: &str, results: &Path) -> anyhow::Result<ExitCode> {
    let dirs = super::study_dirs(&[name.to_string()], results)?;
    let study = Study::load(&dirs[0]).map_err(|d| anyhow::anyhow!("{d}"))?;
    let plan = plan(&study, &BTreeSet::new(), false)?;
    let width = plan.runs.iter().map(|r| r.stage.len() + r.variant.len() + 1).max().unwrap_or(0);
    for r in &plan.runs {
        let (word, detail) = match &r.status {
            Status::Done { date } => ("done", date.clone().unwrap_or_else(|| "recorded by hand".to_string())),
            Status::Stale { reason } => ("stale", reason.clone()),
            Status::Failed { class } => ("failed", class.to_string()),
            Status::Reused { from } => ("reused", format!("the run of {from}")),
            Status::Pending => ("pending", String::new()),
            Status::Waiting { on } => ("waiting", format!("on the winner of `{on}`")),
        };
        let name = format!("{}/{}", r.stage, r.variant);
        println!("{name:<width$}  {:<18} {word:<8} {detail}", r.profile);
    }
    let count = |f: fn(&Status) -> bool| plan.count(f);
    let left = plan
        .estimate_seconds
        .map_or("no recorded durations to estimate from".to_string(), |s| format!("about {} left", clock(s)));
    println!(
        "{} done, {} reused, {} failed, {} stale, {} pending, {} waiting; {left}",
        count(|s| matches!(s, Status::Done { .. })),
        count(|s| matches!(s, Status::Reused { .. })),
        count(|s| matches!(s, Status::Failed { .. })),
        count(|s| matches!(s, Status::Stale { .. })),
        count(|s| matches!(s, Status::Pending)),
        count(|s| matches!(s, Status::Waiting { .. })),
    );
    Ok(ExitCode::SUCCESS)
}
