//! From a study's stored runs to the numbers a page shows.

pub mod chain;

pub use chain::{Chain, Point, RunStatus, StageOutcome, VariantOutcome, resolve};

use crate::diag::Diagnostic;
use crate::study::Study;

/// Problems the analysis finds in a loaded study: runs that are missing for a variant, for
/// the baseline or for the optimized configuration on a compared profile.
pub fn check(study: &Study) -> Vec<Diagnostic> {
    let chain = resolve(study);
    let mut out = chain.problems.clone();
    let last = chain.last();
    for (what, point) in [
        ("baseline", &chain.baseline),
        ("optimized configuration", last),
    ] {
        for profile in study.compare_profiles() {
            let id = profile.id.get_ref();
            if point.source.is_empty() || chain.registry.find(study, point, id).is_some() {
                continue;
            }
            out.push(study.diag_at(
                &profile.id,
                format!(
                    "the {what} (`{}`) has no run for compared profile `{id}`",
                    point.source
                ),
            ));
        }
    }
    out.sort();
    out.dedup();
    out
}
