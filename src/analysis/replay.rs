//! The search replayed stage by stage for the page: each stage's variants, its comparison and
//! its row of the options table, the scenarios the baseline and the optimized configuration are
//! compared on, and an engine stage's ranking.

use super::*;

/// The search replayed, with the metrics its figures are in.
pub(super) struct Replayed<'a> {
    pub(super) study: &'a Study,
    pub(super) chain: &'a Chain,
    pub(super) objective: Metric,
    pub(super) secondary: Metric,
}

impl Replayed<'_> {
    fn secondary_of(&self, p: &Point) -> Option<f64> {
        p.run.as_ref().and_then(|k| chain::metric(self.study, k, &self.secondary.key))
    }

    /// What happened to each variant of a stage.
    pub(super) fn variants(&self, stage: &crate::study::Stage, outcome: &StageOutcome) -> Vec<VariantAnalysis> {
        let study = self.study;
        stage
            .variants
            .iter()
            .zip(&outcome.variants)
            .map(|(vs, vo)| VariantAnalysis {
                id: vo.id.clone(),
                label: vs.label.english().to_string(),
                command: command::shown(study, &vo.point.source, &vo.point.config),
                base: vo.base.clone(),
                outcome: Outcome::of(vo),
                measure: vo.point.run.as_ref().and_then(|k| measure(study, k)),
                failure_message: vo.failure.as_ref().and_then(|f| f.1.clone()),
                failure_from: vo.failure_from.clone(),
                reused_from: vo.reused.then(|| vo.point.run.as_ref().map(RunKey::config)).flatten(),
            })
            .collect()
    }

    /// The stage's fastest and slowest variant that rank, with the runner-up and the base.
    pub(super) fn comparison(&self, outcome: &StageOutcome) -> Option<Comparison> {
        let objective = &self.objective;
        // The best (as the adoption sees it) and the worst among the variants that rank and the
        // accuracy gate does not refuse, per GPU when the stage weighs them so.
        let ranked = || (0..outcome.variants.len()).map(|i| outcome.weighed(i).filter(|_| outcome.ranks(i)));
        let worst = adoption::worst(objective, ranked());
        // All equal: the slowest is the last of them, so that the comparison is of two variants.
        let worst = match (outcome.best, worst) {
            (Some(b), Some(w)) if b == w => {
                ranked().enumerate().filter(|(i, v)| v.is_some() && *i != b).map(|(i, _)| i).next_back().or(worst)
            }
            _ => worst,
        };
        let (b, w) = outcome.best.zip(worst).filter(|_| ranked().flatten().count() >= 2)?;
        let (best, worst) = (&outcome.variants[b], &outcome.variants[w]);
        let best_value = outcome.weighed(b).unwrap_or_default();
        let versus = |source: Source, v: f64| Versus { source, value: v, gain: objective.improvement(best_value, v) };
        // The second best that ranks, better values first (the first of equal values).
        let runner_up = outcome
            .variants
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != b && outcome.ranks(*i))
            .filter_map(|(i, _)| outcome.weighed(i).map(|x| (i, x)))
            .reduce(|a, c| if objective.improvement(c.1, a.1).is_some_and(|g| g > 0.0) { c } else { a })
            .filter(|(i, _)| *i != w && outcome.variants[*i].point.run != outcome.base.run)
            .map(|(i, x)| versus(Source::Variant(VariantRef::new(&outcome.id, &outcome.variants[i].id)), x));
        // Left out when the base's run is the best's or the worst's: the decision or the
        // comparison with the slowest already says it.
        let over_base = outcome
            .weighed_base()
            .filter(|_| outcome.base.run.is_some() && ![&best.point.run, &worst.point.run].contains(&&outcome.base.run))
            .map(|x| versus(outcome.base.source.clone(), x));
        // The base's configuration measured again by a variant of the stage, in a run of its own.
        let base_again = outcome.weighed_base().filter(|_| outcome.base.run.is_some()).and_then(|earlier| {
            let (i, v) = outcome.variants.iter().enumerate().find(|(_, v)| {
                v.ranks()
                    && v.point.config.identity() == outcome.base.config.identity()
                    && v.point.run.is_some()
                    && v.point.run != outcome.base.run
            })?;
            let again = outcome.weighed(i)?;
            let source = Source::Variant(VariantRef::new(&outcome.id, &v.id));
            Some(Remeasured { source, value: again, earlier, change: objective.improvement(again, earlier) })
        });
        Some(Comparison {
            base_again,
            best: best.id.clone(),
            worst: worst.id.clone(),
            objective: Delta::new(best_value, outcome.weighed(w).unwrap_or_default()),
            secondary: self
                .secondary_of(&best.point)
                .zip(self.secondary_of(&worst.point))
                .map(|(a, b)| Delta::new(a, b)),
            runner_up,
            over_base,
        })
    }

    /// A stage's row in the summary of options.
    pub(super) fn option_row(&self, outcome: &StageOutcome) -> OptionRow {
        let best = outcome.best.map(|i| &outcome.variants[i]);
        // No variant ranks: the first one that was measured but lost requests still has its row.
        let lost_one = || {
            outcome.variants.iter().find_map(|v| match Outcome::of(v) {
                Outcome::LostRequests { completed, expected } if v.point.value.is_some() => {
                    Some((v, (completed, expected)))
                }
                _ => None,
            })
        };
        let (shown, lost) = match best {
            Some(b) => (Some(b), None),
            None => lost_one().map_or((None, None), |(v, counts)| (Some(v), Some(counts))),
        };
        let measured = shown.and_then(|b| b.point.run.as_ref()).and_then(|k| measure(self.study, k));
        OptionRow {
            stage: outcome.id.clone(),
            best: shown.map(|b| b.id.clone()),
            value: shown.and_then(|b| b.point.value),
            at_least: measured.as_ref().is_some_and(|m| m.at_least),
            secondary: shown.and_then(|b| self.secondary_of(&b.point)),
            lost,
            also: measured.map_or_else(|| vec![None; self.study.spec.secondary.len() - 1], |m| m.also),
            vs_baseline: best
                .and_then(|b| b.point.value)
                .zip(self.chain.baseline.value)
                .and_then(|(x, y)| self.objective.improvement(x, y)),
            step: outcome.adoption.step(),
            per_gpu: outcome.per_gpu.is_some(),
            step_interval: outcome.adoption.step().and(outcome.adoption.interval()),
            left_out_by: None,
            carried_step: None,
        }
    }

    fn run_on(&self, p: &Point, profile: &str) -> Option<RunKey> {
        self.chain.registry.find(self.study, p, profile).map(|(k, _)| k)
    }

    /// The interval of the optimized configuration's gain over the baseline on `profile`.
    pub(super) fn gain_interval(&self, profile: &str) -> Option<stats::Interval> {
        let sample = |p: &Point| self.run_on(p, profile).and_then(|k| Measure::sample(self.study, &k));
        sample(self.chain.last())
            .zip(sample(&self.chain.baseline))
            .and_then(|(o, b)| stats::gain(&self.objective, &o, &b))
    }

    /// The baseline against the optimized configuration on every compared profile.
    /// `recommended`: the recommended command's configuration, when stages are left out of it.
    pub(super) fn scenarios(&self, recommended: Option<&Config>) -> Vec<Scenario> {
        let (study, chain) = (self.study, self.chain);
        let target = study.spec.target_profile.get_ref();
        let measure_on = |p: &Point, profile: &str| self.run_on(p, profile).and_then(|k| measure(study, &k));
        study
            .compare_profiles()
            .into_iter()
            .map(|profile| {
                let id = profile.id.get_ref().clone();
                let baseline = measure_on(&chain.baseline, &id);
                let optimized = measure_on(chain.last(), &id);
                let pair =
                    |f: fn(&Measure) -> Option<f64>| baseline.as_ref().and_then(f).zip(optimized.as_ref().and_then(f));
                let change = pair(|m| m.value).and_then(|(b, o)| self.objective.improvement(o, b));
                let command =
                    recommended.and_then(|c| chain.registry.by_identity(c, &id)).and_then(|k| measure(study, &k));
                let recommended_change = command
                    .as_ref()
                    .and_then(|m| m.value)
                    .zip(baseline.as_ref().and_then(|m| m.value))
                    .and_then(|(c, b)| self.objective.improvement(c, b));
                Scenario {
                    recommended: command,
                    recommended_change,
                    change_interval: change.and(self.gain_interval(&id)),
                    target: id == *target,
                    secondary: pair(|m| m.secondary).map(|(b, o)| Delta::new(o, b)),
                    regression: change.is_some_and(|c| c < -study.spec.noise_threshold),
                    change,
                    profile: id,
                    baseline,
                    optimized,
                }
            })
            .collect()
    }
}

/// The ranking line of a stage whose variants each bring up an engine from nothing.
pub(super) fn engine_ranking(
    study: &Study,
    stage: &crate::study::Stage,
    outcome: &StageOutcome,
    objective: &Metric,
) -> Option<Vec<Rank>> {
    let engines: Vec<&str> =
        stage.variants.iter().filter_map(|v| v.engine.as_ref().map(|e| e.get_ref().as_str())).collect();
    let distinct: std::collections::BTreeSet<&str> = engines.iter().copied().collect();
    if engines.len() != stage.variants.len() || distinct.len() != engines.len() || engines.len() < 2 {
        return None;
    }
    let mut ranks: Vec<Rank> = outcome
        .variants
        .iter()
        .map(|vo| Rank {
            engine: vo.point.config.engine.clone(),
            variant: Some(vo.id.clone()),
            value: if vo.failed() { None } else { vo.point.value },
            outcome: Outcome::of(vo),
        })
        .collect();
    for engine in &study.spec.engines {
        if !distinct.contains(engine.id.get_ref().as_str()) {
            ranks.push(Rank {
                engine: engine.id.get_ref().clone(),
                variant: None,
                value: None,
                outcome: Outcome::Missing,
            });
        }
    }
    ranks.sort_by(|a, b| match (a.value, b.value) {
        (Some(x), Some(y)) if objective.lower_is_better() => x.total_cmp(&y),
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    Some(ranks)
}
