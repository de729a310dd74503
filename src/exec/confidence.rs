//! `--until-confident`: how much may be measured beyond the study's own repeats (the
//! [`Budget`]), what earlier runs spent of it, which stage is still unclear and which two of its
//! variants are measured again (the policy; the decision itself is the analysis's).

use crate::study::Study;
use anyhow::Context;
use std::path::Path;
use std::time::Duration;

/// What `--until-confident` may spend on measurements the study does not ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// Benchmark runs (failed ones included).
    Runs(usize),
    /// Wall time of the whole `perflab run`: no measurement is added after it.
    Time(Duration),
}

impl std::str::FromStr for Budget {
    type Err = String;

    /// `20` (runs), `90s`, `30m`, `2h`, `1.5h`.
    fn from_str(text: &str) -> Result<Budget, String> {
        let text = text.trim();
        if let Ok(n) = text.parse::<usize>() {
            return Ok(Budget::Runs(n));
        }
        let unit = text.chars().last().unwrap_or(' ');
        let scale = match unit {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            _ => return Err(format!("`{text}` is not a budget: a number of runs (20) or a time (90s, 30m, 2h)")),
        };
        match text[..text.len() - 1].parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && x * scale < 1e9 => {
                Ok(Budget::Time(Duration::from_secs_f64(x * scale)))
            }
            _ => Err(format!("`{text}` is not a budget: a number of runs (20) or a time (90s, 30m, 2h)")),
        }
    }
}

/// What `--until-confident` spent in runs that did not finish (interrupted, stopped by an
/// error, left runs pending), in `runs/`: the next run's budget goes on from it. A run that
/// finishes removes it.
pub(super) const SPENT: &str = ".until-confident.json";

/// The contents of [`SPENT`].
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Spent {
    /// Benchmark runs added (failed ones included).
    pub(super) runs: usize,
    /// Wall time of those runs, seconds.
    pub(super) seconds: f64,
    /// The look in progress: the measurements each of its contenders (`stage/variant`) is to
    /// have. A run stopped between the two sides of a look leaves one side measured once more
    /// than the other; the next run measures the other side before it decides anything, so a
    /// stage is only ever judged at the end of a look.
    #[serde(default)]
    pub(super) look: std::collections::BTreeMap<String, u32>,
}

impl Spent {
    /// What the study's earlier runs spent; nothing when no record is there. A record that
    /// cannot be read is an error naming it: starting the budget again would overspend it.
    pub(super) fn read(runs: &Path) -> anyhow::Result<Spent> {
        let path = runs.join(SPENT);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "'{}' is not a record of what `--until-confident` spent: remove it to start the budget again",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Spent::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read '{}'", path.display())),
        }
    }

    pub(super) fn write(&self, runs: &Path) -> anyhow::Result<()> {
        let path = runs.join(SPENT);
        crate::durable::write(&path, &serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("cannot write '{}'", path.display()))
    }
}

/// What `--until-confident` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Confidence {
    /// Benchmark runs it added (failed ones included).
    pub added_runs: usize,
    /// Measurements on the target profile of every variant that was measured, as they stand.
    pub spent: usize,
    /// The same if every such variant had been measured as often as the most measured one.
    pub fixed: usize,
    /// That most measured variant's count.
    pub most: usize,
    /// Stages that still cannot tell their best variant from their base.
    pub undecided: Vec<String>,
    /// The budget ran out.
    pub budget_spent: bool,
}

/// The first stage before `before` whose runs cannot tell its best variant from its base: its
/// decision's interval reaches beyond the noise threshold, or (with a single engine start a
/// side) it has no interval yet.
pub(super) fn unclear_stage(study: &Study, before: usize) -> Option<usize> {
    let chain = crate::analysis::resolve(study);
    chain.stages.iter().take(before).position(|s| {
        let single = |p: &crate::analysis::Point| p.sample.is_some_and(|x| x.n < 2);
        let without_interval = matches!(
            s.adoption,
            crate::analysis::Adoption::Adopted { interval: None, .. }
                | crate::analysis::Adoption::WithinNoise { interval: None, .. }
                | crate::analysis::Adoption::NotBetter { interval: None, .. }
                | crate::analysis::Adoption::BaseIsBest { .. }
        );
        let Some(c) = challenger(study, s) else { return false };
        // The design's last look has been taken: the stage stays as it is.
        let starts = c.point.sample.zip(s.base.sample).map_or(0, |(a, b)| a.n.min(b.n));
        if study.designs.get(&s.id).is_some_and(|most| starts >= *most as usize) {
            return false;
        }
        s.adoption.unclear() || (without_interval && (single(&c.point) || single(&s.base)))
    })
}

/// The variant a stage's decision compares with its base: the one its adoption names, or
/// (when the base measured best) the best of the others.
pub(super) fn challenger<'a>(
    study: &Study,
    stage: &'a crate::analysis::StageOutcome,
) -> Option<&'a crate::analysis::VariantOutcome> {
    use crate::analysis::Adoption;
    match &stage.adoption {
        Adoption::Adopted { variant, .. }
        | Adoption::WithinNoise { variant, .. }
        | Adoption::NotBetter { variant, .. }
        | Adoption::CannotTell { variant, .. } => stage.variants.iter().find(|v| v.id == *variant),
        Adoption::BaseIsBest { .. } => {
            let base = stage.base.config.identity();
            let metric = study.metric(study.spec.objective.get_ref());
            let values =
                stage.variants.iter().map(|v| v.point.value.filter(|_| v.ranks() && v.point.config.identity() != base));
            crate::analysis::adoption::best(&metric, values).map(|i| &stage.variants[i])
        }
        _ => None,
    }
}

/// The most engine starts a side a time budget's design may plan beyond the study's own (a
/// design far longer than the run can take spends almost nothing at its early looks).
pub const MOST_TIME_BUDGET_STARTS: u32 = 64;

/// Measurements of one engine start that `--until-confident` adds to a run of `stage` before
/// anything says where the variance is: one with `repeat_across_restarts`, else the stage's
/// `repeats`.
pub(super) fn start_size(study: &Study, stage: &str) -> usize {
    let target = study.spec.target_profile.get_ref();
    if study.one_a_start(target) { 1 } else { study.repeats_wanted(stage, target) as usize }
}

/// Measurements of the next engine start of stage `k`'s two contenders: [`chosen_start_size`],
/// else (before it can choose) the stage's `repeats`.
pub(super) fn next_start_size(study: &Study, k: usize) -> usize {
    let chain = crate::analysis::resolve(study);
    chosen_start_size(study, &chain, k).unwrap_or_else(|| start_size(study, study.spec.stages[k].id.get_ref()))
}

/// The measurements of each engine start `--until-confident` adds to stage `k`'s contenders:
/// one with `repeat_across_restarts` (the study asks for one a start); else as many as the
/// policy picks ([`crate::analysis::allocation`]) from the two-level spread of the contenders'
/// first two starts and the study's costs, `None` until both have two. Once chosen, a stage's
/// starts keep their size, so that every look adds as much information as the one before (what
/// the design's levels assume), and the choice rests on nothing but the spread, never on the
/// difference the decision is about.
fn chosen_start_size(study: &Study, chain: &crate::analysis::Chain, k: usize) -> Option<usize> {
    use crate::analysis::allocation::{MOST_RUNS_A_START, Spread, runs_a_start, study_costs};
    let stage = study.spec.stages.get(k)?.id.get_ref();
    if study.one_a_start(study.spec.target_profile.get_ref()) {
        return Some(1);
    }
    let objective = study.spec.objective.get_ref();
    let groups: Vec<Vec<Vec<f64>>> = contender_keys(study, chain, k)
        .iter()
        .map(|key| {
            // The two first starts, by their attempt's number (the sample puts the standing one first).
            let mut groups = study.start_groups(key, objective);
            groups.sort_by_key(|(start, _)| *start);
            groups.into_iter().take(2).map(|(_, values)| values).collect()
        })
        .collect();
    if groups.len() < 2 || groups.iter().any(|g| g.len() < 2) {
        return None;
    }
    let sides: Vec<&[Vec<f64>]> = groups.iter().map(Vec::as_slice).collect();
    Some(runs_a_start(Spread::of(&sides), study_costs(study), start_size(study, stage), MOST_RUNS_A_START))
}

/// The benchmark runs one engine start of `--until-confident` of `per` measurements may cost
/// on the target profile: those, or a load curve's point budget (a start searches the curve
/// anew).
pub(super) fn start_cost(study: &Study, per: usize) -> usize {
    let target = study.spec.target_profile.get_ref();
    match study.curve(target) {
        Some((_, load)) => load.loads().most_points().max(1),
        None => per,
    }
}

/// The sequential design of each stage that has none recorded: the most engine starts a side,
/// the study's own and those the budget pays for (a look adds one to each of two sides). A
/// stage whose starts take several measurements gets its design once the policy has chosen
/// their size ([`chosen_start_size`]): the first added start a side is of the stage's
/// `repeats`, the others of that size. Until then its looks have no interval to judge (a side
/// has one start).
pub(super) fn plan_designs(study: &mut Study, budget: Budget) {
    let mut chain: Option<crate::analysis::Chain> = None;
    for k in 0..study.spec.stages.len() {
        let stage = study.spec.stages[k].id.get_ref().clone();
        if study.designs.contains_key(&stage) {
            continue;
        }
        let chain = chain.get_or_insert_with(|| crate::analysis::resolve(study));
        let Some(per) = chosen_start_size(study, chain, k) else { continue };
        let (first, before) = (study.first_starts(&stage), start_size(study, &stage));
        // The first added start a side is of the stage's `repeats` when the chosen size differs.
        let sized_before = usize::from(first < 2 && before != per);
        let added = match budget {
            Budget::Runs(n) => {
                sized_before + n.saturating_sub(2 * before * sized_before) / (2 * start_cost(study, per))
            }
            // Seconds: what a start of each size costs, its engine start and its benchmarks.
            Budget::Time(t) => {
                let costs = crate::analysis::allocation::study_costs(study);
                let (early, later) = (costs.of(1, before), costs.of(1, start_cost(study, per)));
                let left = t.as_secs_f64() - 2.0 * early * sized_before as f64;
                let starts = (left.max(0.0) / (2.0 * later)).min(f64::from(MOST_TIME_BUDGET_STARTS));
                sized_before + starts as usize
            }
        };
        study.designs.insert(stage, first + added as u32);
    }
}

/// The runs of stage `k`'s two contenders, the variant its adoption could not tell and its
/// base.
fn contender_keys(study: &Study, chain: &crate::analysis::Chain, k: usize) -> Vec<crate::study::RunKey> {
    let Some(stage) = chain.stages.get(k) else { return Vec::new() };
    let challenger = challenger(study, stage);
    let mut out: Vec<crate::study::RunKey> = Vec::new();
    for run in [challenger.and_then(|v| v.point.run.as_ref()), stage.base.run.as_ref()].into_iter().flatten() {
        if !out.iter().any(|r| r.config() == run.config()) {
            out.push(run.clone());
        }
    }
    out
}

/// [`contender_keys`] as `stage/variant`, with their measurements so far that pass the
/// single-run checks.
pub(super) fn contenders(study: &Study, k: usize) -> Vec<(String, usize)> {
    let chain = crate::analysis::resolve(study);
    contender_keys(study, &chain, k).iter().map(|run| (run.config().to_string(), study.whole_count(run))).collect()
}

/// Fills what `--until-confident` spent against measuring every variant as often, and the
/// stages that still cannot tell.
pub(super) fn confidence_report(study: &Study, c: &mut Confidence) {
    let chain = crate::analysis::resolve(study);
    let target = study.spec.target_profile.get_ref();
    let counts: Vec<usize> =
        study.runs.keys().filter(|k| k.load.is_none() && k.profile == *target).map(|k| study.sample(k).len()).collect();
    c.spent = counts.iter().sum();
    c.most = counts.iter().copied().max().unwrap_or(0);
    c.fixed = counts.len() * c.most;
    c.undecided = chain.stages.iter().filter(|s| s.adoption.unclear()).map(|s| s.id.clone()).collect();
}
