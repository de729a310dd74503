//! How the page's configurations become a chain of stages: each variant's base and its flags
//! against it, the page's own adoptions, and the variants' ids.

use super::build::{self, Cfg, StageDraft, VariantDraft};
use super::{Choice, Draft, page};
use std::collections::BTreeMap;

/// Where each stage's variant comes from: its closest earlier configuration, with flags against
/// it; which variant each stage adopted on the page; and the variants that build on another
/// configuration than their stage's base.
pub(super) fn chain(d: &mut Draft, recommended: Option<&Cfg>, choices: &mut Vec<Choice>) {
    let bases = closest_bases(d);
    diff_against_bases(d, &bases);
    page_adoptions(d, &bases, recommended);
    set_bases(d, &bases, choices);
}

/// For each stage, for each of its variants: (stage, variant) of its closest earlier
/// configuration (none in the first stage).
type Bases = Vec<Vec<Option<(usize, usize)>>>;

/// Each variant's closest earlier configuration (of equal ones, the latest stage's).
fn closest_bases(d: &Draft) -> Bases {
    let mut bases: Bases = Vec::new();
    for (k, s) in d.stages.iter().enumerate() {
        let row = s.variants.iter().map(|v| {
            let earlier = d.stages[..k]
                .iter()
                .enumerate()
                .flat_map(|(i, e)| e.variants.iter().enumerate().map(move |(j, c)| (i, j, c)));
            let best = earlier
                .filter_map(|(i, j, c)| build::closeness(&c.cfg, &v.cfg).map(|score| (score, i, j)))
                .max_by_key(|(score, i, _)| (*score, *i));
            if k == 0 { None } else { best.map(|(_, i, j)| (i, j)) }
        });
        bases.push(row.collect());
    }
    bases
}

/// Flags against the base, and a label for each variant the page does not name.
fn diff_against_bases(d: &mut Draft, bases: &Bases) {
    for (k, row) in bases.iter().enumerate() {
        for (j, base) in row.iter().enumerate() {
            let base_cfg = match *base {
                Some((i, b)) => d.stages[i].variants[b].cfg.clone(),
                None => Cfg {
                    engine: d.stages[k].variants[j].cfg.engine.clone(),
                    model: d.model.clone(),
                    flags: Vec::new(),
                    env: BTreeMap::new(),
                },
            };
            let v = &mut d.stages[k].variants[j];
            (v.flags, v.unset, v.env, v.model) = build::diff(&base_cfg, &v.cfg);
            if v.label.is_empty() {
                v.label = describe(v);
                v.id = build::slug(&v.label);
            }
        }
        dedupe_ids(&mut d.stages[k]);
    }
}

/// The optimized configuration: the variant closest to the configuration the page measures
/// as optimized (of equal ones, the latest). After the first stage, the page adopted the
/// variants that configuration builds on, closest base by closest base, and nothing in the
/// stages that chain skips. In the first stage: the variant the next stages build on.
fn page_adoptions(d: &mut Draft, bases: &Bases, measured: Option<&Cfg>) {
    let closest = measured.and_then(|rec| {
        let all =
            d.stages.iter().enumerate().flat_map(|(k, s)| s.variants.iter().enumerate().map(move |(j, v)| (k, j, v)));
        all.filter(|(_, _, v)| v.failure.is_none())
            .filter_map(|(k, j, v)| build::closeness(&v.cfg, rec).map(|c| (c, k, j)))
            .max_by_key(|(c, k, _)| (*c, *k))
    });
    let mut on_chain = vec![None; d.stages.len()];
    let mut at = closest.map(|(_, k, j)| (k, j));
    while let Some((k, j)) = at {
        on_chain[k] = Some(j);
        at = bases[k][j];
    }
    for (k, chained) in on_chain.into_iter().enumerate() {
        let later = bases.iter().skip(k + 1).flatten().flatten().find(|(stage, _)| *stage >= k);
        d.stages[k].page_adopted = match (closest, later) {
            (Some(_), _) if k > 0 => chained,
            (Some((_, 0, j)), _) => Some(j),
            (_, Some((stage, j))) if *stage == k => Some(*j),
            _ => None,
        };
    }
}

/// The stages whose adopted flags the recommended command leaves out, while the page measures
/// its optimized configuration with them: kept out of the command.
pub(super) fn leave_out(d: &mut Draft, recommended: &Cfg, choices: &mut Vec<Choice>) {
    for s in d.stages.iter_mut().skip(1) {
        let Some(v) = s.page_adopted.map(|j| &s.variants[j]) else { continue };
        let mut missing: Vec<String> = v
            .cfg
            .flags
            .iter()
            .filter(|f| v.flags.contains(&f.text) && !recommended.has(f))
            .map(|f| f.text.clone())
            .collect();
        let env = v.env.iter().filter(|(k, x)| recommended.env.get(*k) != Some(*x));
        missing.extend(env.map(|(k, x)| format!("{k}={x}")));
        if missing.is_empty() {
            continue;
        }
        let what = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" ");
        choices.push(Choice::new(
            format!("stage.{}", s.id),
            0,
            format!("the optimized runs use {what}, which the recommended command leaves out: kept out of it (`exclude_from_command`)"),
        ));
        s.exclude = Some("The page measures its optimized configuration with this stage's setting but leaves it out of the recommended command.".into());
    }
}

/// A variant whose closest configuration is not what its stage builds on gets a `base`.
fn set_bases(d: &mut Draft, bases: &Bases, choices: &mut Vec<Choice>) {
    let mut current: Option<(usize, usize)> = None;
    for (k, row) in bases.iter().enumerate() {
        for (j, &base) in row.iter().enumerate() {
            if k > 0 && base != current {
                let key = variant_slot(&d.stages[k].id, j);
                let line = d.stages[k].variants[j].line;
                let Some((i, b)) = base else {
                    let message = "this variant's engine runs in no earlier stage: it builds on the stage's base";
                    choices.push(Choice::new(key, line, message));
                    continue;
                };
                let r = format!("{}/{}", d.stages[i].id, d.stages[i].variants[b].id);
                let message = format!(
                    "builds on `{r}` (its `base`), the earlier configuration its command is closest to, not on the stage's base"
                );
                choices.push(Choice::new(key, line, message));
                d.stages[k].variants[j].base = Some(r);
            }
        }
        if let Some(a) = d.stages[k].page_adopted {
            current = Some((k, a));
        }
    }
}

/// Where a choice about the `j`th variant of a stage lands until the variants have their ids:
/// [`name_variant_slots`] makes it `stage.<id>.variant.<variant id>`.
pub(super) fn variant_slot(stage: &str, j: usize) -> String {
    format!("stage.{stage}.variant#{j}")
}

/// Each choice about a variant keyed by the variant's id, now that it has one.
pub(super) fn name_variant_slots(d: &Draft, choices: &mut [Choice]) {
    for c in choices.iter_mut() {
        let Some((stage, j)) = c.key.strip_prefix("stage.").and_then(|k| k.split_once(".variant#")) else { continue };
        let s = d.stages.iter().find(|s| s.id == stage);
        let v = s.zip(j.parse::<usize>().ok()).and_then(|(s, j)| s.variants.get(j));
        c.key = match v {
            Some(v) => format!("stage.{stage}.variant.{}", v.id),
            None => format!("stage.{stage}"),
        };
    }
}

fn dedupe_ids(s: &mut StageDraft) {
    let mut taken: Vec<String> = Vec::new();
    for v in &mut s.variants {
        v.id = build::unique(&v.id, &taken);
        taken.push(v.id.clone());
    }
}

/// A label for a variant the page does not name: what it changes.
fn describe(v: &VariantDraft) -> String {
    let mut parts: Vec<String> = v.flags.clone();
    parts.extend(v.unset.iter().map(|u| format!("no {u}")));
    parts.extend(v.env.iter().map(|(k, x)| format!("{k}={x}")));
    if let Some(m) = &v.model {
        parts.push(m.rsplit('/').next().unwrap_or(m).to_string());
    }
    if parts.is_empty() { "default".into() } else { parts.join(" ") }
}

/// The baseline: the first stage's variant of the engine the before/after table names.
pub(super) fn baseline_ref(page: &page::Page, d: &Draft, choices: &mut Vec<Choice>) -> String {
    let first = &d.stages[0];
    let named = page.before_after.as_ref().and_then(|t| t.header.get(1)).and_then(|h| build::engine_named(h));
    let found = first.variants.iter().find(|v| Some(v.cfg.engine.as_str()) == named && v.failure.is_none());
    let v = found.unwrap_or_else(|| {
        choices.push(Choice::new(
            "baseline",
            0,
            "the before/after table names no engine of the first stage: its first variant is the baseline",
        ));
        &first.variants[0]
    });
    format!("{}/{}", first.id, v.id)
}

/// The profiles with a run of both the baseline's and the optimized configuration, when some
/// profile lacks one.
pub(super) fn compared(d: &Draft, choices: &mut Vec<Choice>) -> Option<Vec<String>> {
    let find = |r: &str| {
        let (s, v) = r.split_once('/')?;
        d.stages.iter().find(|x| x.id == s)?.variants.iter().find(|x| x.id == v).map(|x| x.cfg.clone())
    };
    let base = find(&d.baseline)?;
    let last = d
        .stages
        .iter()
        .rev()
        .find_map(|s| s.page_adopted.map(|a| s.variants[a].cfg.clone()))
        .unwrap_or_else(|| base.clone());
    let measured = |cfg: &Cfg, profile: &str| {
        d.stages.iter().flat_map(|s| &s.variants).any(|v| v.cfg.same(cfg) && v.blocks.iter().any(|(p, _)| p == profile))
    };
    let both: Vec<String> =
        d.profiles.iter().map(|p| p.id.clone()).filter(|p| measured(&base, p) && measured(&last, p)).collect();
    if both.len() == d.profiles.len() || both.is_empty() {
        return None;
    }
    choices.push(Choice::new(
        "compare_profiles",
        0,
        "the other cases measure some profiles on one side only: the comparison leaves them out",
    ));
    Some(both)
}

/// The profile most of the stages' blocks are on.
pub(super) fn target(d: &Draft) -> String {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &d.stages {
        for v in &s.variants {
            for (p, _) in &v.blocks {
                *count.entry(p.as_str()).or_default() += 1;
            }
        }
    }
    count.into_iter().max_by_key(|(_, n)| *n).map(|(p, _)| p.to_string()).unwrap_or_default()
}
