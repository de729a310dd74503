//! `perflab plan STUDY`

use perflab::exec::{Status, plan, record_hand_placed, runner::clock};
use perflab::study::Stale;
use perflab::study::Study;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(name: &str, results: &Path) -> anyhow::Result<ExitCode> {
    // Written through `?`: a reader that closes the pipe (`| head`) ends the command quietly.
    let mut out = std::io::stdout().lock();
    let dirs = super::study_dirs(&[name.to_string()], results)?;
    let load = || Study::load(&dirs[0]).map_err(|d| anyhow::anyhow!("{d}"));
    let mut study = load()?;
    // Runs placed by hand keep the version the study names the first time perflab sees them.
    let recorded = record_hand_placed(&study)?;
    if recorded > 0 {
        eprintln!(
            "recorded the engine version and command of {} placed by hand in '{}'",
            perflab::exec::runner::runs_count(recorded),
            study.dir.join(perflab::study::RUNS_DIR).join(perflab::study::RECORDED_FILE).display()
        );
        study = load()?;
    }
    let plan = plan(&study, &BTreeSet::new(), false)?;
    // Each column as wide as its longest entry, so that the columns line up whatever the names.
    let names: Vec<String> =
        plan.runs.iter().map(|r| perflab::study::VariantRef::new(&r.stage, &r.variant).to_string()).collect();
    let wide = |f: &dyn Fn(usize) -> usize| (0..plan.runs.len()).map(f).max().unwrap_or(0);
    let (name_w, profile_w) = (wide(&|i| names[i].chars().count()), wide(&|i| plan.runs[i].profile.chars().count()));
    let status_w = wide(&|i| word(&plan.runs[i].status).chars().count());
    for (r, name) in plan.runs.iter().zip(&names) {
        let status = word(&r.status);
        let line = format!("{name:<name_w$}  {:<profile_w$}  {status:<status_w$}  {}", r.profile, detail(r));
        writeln!(out, "{}", line.trim_end())?;
    }
    let count = |f: fn(&Status) -> bool| plan.count(f);
    let stale = count(|s| matches!(s, Status::Stale { .. }));
    let left = match (plan.estimate_seconds, plan.rerun_stale_seconds) {
        (None, _) => "no recorded durations to estimate from".to_string(),
        (Some(s), Some(all)) if stale > 0 => format!(
            "about {} left; about {} with the stale runs measured again (`perflab run --rerun-stale`)",
            clock(s),
            clock(all)
        ),
        (Some(s), _) => format!("about {} left", clock(s)),
    };
    // A stage whose runs are stale may pick another winner once they are measured again; the
    // stages built on it are then measured again on the new winner.
    let target = study.spec.target_profile.get_ref();
    let first_stale = plan.runs.iter().find(|r| r.profile == *target && matches!(r.status, Status::Stale { .. }));
    if let Some(r) = first_stale {
        let index = study.stage_index(&r.stage).unwrap_or(0);
        let later: Vec<&str> = study.spec.stages[index + 1..].iter().map(|s| s.id.get_ref().as_str()).collect();
        if !later.is_empty() {
            writeln!(
                out,
                "stage `{}` has stale runs: if measuring them again changes its winner, the runs of the stages built on it ({}) become stale too and are measured again on the new winner",
                r.stage,
                later.join(", ")
            )?;
        }
    }
    writeln!(
        out,
        "{} done, {} reused, {} failed, {} stale, {} pending, {} waiting; {left}",
        count(|s| matches!(s, Status::Done { .. })),
        count(|s| matches!(s, Status::Reused { .. })),
        count(|s| matches!(s, Status::Failed { .. })),
        stale,
        count(|s| matches!(s, Status::Pending)),
        count(|s| matches!(s, Status::Waiting { .. })),
    )?;
    if let Some(standing) = plan.standing_failures().sentence() {
        writeln!(out, "{standing}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A run's status in one word.
fn word(status: &Status) -> &'static str {
    match status {
        Status::Done { .. } => "done",
        Status::Stale { .. } => "stale",
        Status::Failed { .. } => "failed",
        Status::Reused { .. } => "reused",
        Status::Pending => "pending",
        Status::Waiting { .. } => "waiting",
    }
}

/// What a run's line says after its status: when, why, from where, how far its curve got.
fn detail(r: &perflab::exec::PlannedRun) -> String {
    let detail = match &r.status {
        Status::Done { date } => date.clone().unwrap_or_else(|| "recorded by hand".to_string()),
        Status::Stale { reasons, failed: None } => Stale::describe_all(reasons),
        Status::Stale { reasons, failed: Some(class) } => format!("failed ({class}); {}", Stale::describe_all(reasons)),
        Status::Failed { class } => class.to_string(),
        Status::Reused { from } => format!("the run of {from}"),
        Status::Pending => String::new(),
        Status::Waiting { on } => format!("on the winner of `{on}`"),
    };
    let counted = !matches!(r.status, Status::Reused { .. } | Status::Waiting { .. });
    let detail = match r.points {
        Some((measured, most)) if counted => {
            let points = format!("{measured} of at most {most} load points measured");
            if detail.is_empty() { points } else { format!("{detail}; {points}") }
        }
        _ => detail,
    };
    match r.searches {
        Some((done, wanted)) if counted => format!("{detail}; {done} of {wanted} searches finished"),
        _ => detail,
    }
}
