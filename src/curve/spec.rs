//! What a study writes for a load curve, as it writes it: a profile's `load` (a list of loads, or
//! a search for the largest one that meets the SLO) and the service-level objectives (`[slo]`,
//! `[profile.slo]`). The study checks them at their place in `study.toml`
//! (`crate::study::curve`).

use super::search::{Axis, DEFAULT_CONFIRM, Loads};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// `load = { ... }` of a profile, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// `concurrency` (default) or `rate` (requests a second).
    #[serde(default = "concurrency")]
    pub axis: Axis,
    /// The loads to measure, increasing.
    #[serde(default)]
    pub values: Option<Spanned<Vec<u64>>>,
    /// The search's bounds: the largest load in [min, max] that meets the SLO.
    #[serde(default)]
    pub min: Option<Spanned<u64>>,
    /// The search's upper bound, in the axis's unit like `min`; `None` for a list. A search
    /// needs both.
    #[serde(default)]
    pub max: Option<Spanned<u64>>,
    /// The most points the search measures (default 10).
    #[serde(default)]
    pub points: Option<Spanned<u32>>,
    /// The search ends when a passing and a failing load are this close (default 1).
    #[serde(default)]
    pub step: Option<Spanned<u64>>,
    /// Stop doubling once throughput grows less than 5% a step while the SLO holds: for a
    /// search after the most throughput, not the most load (default false).
    #[serde(default)]
    pub stop_on_plateau: bool,
    /// How many measurements the boundary and the load above it each get before the search
    /// ends on them (default 3; 1 takes each point once).
    #[serde(default)]
    pub confirm: Option<Spanned<u32>>,
}

fn concurrency() -> Axis {
    Axis::Concurrency
}

/// The point budget of a search that does not say.
pub const DEFAULT_POINTS: u32 = 10;
/// The most points a curve may measure.
pub const MAX_POINTS: u32 = 64;
/// The most measurements `confirm` may ask of a load.
pub const MAX_CONFIRM: u32 = 9;

/// `[slo]` or `[profile.slo]`: `p99_ttft_ms = 500`, `mean_tpot_ms = 50`, `min_success_rate = 0.99`.
pub type SloSpec = BTreeMap<String, Spanned<f64>>;

impl LoadSpec {
    /// The loads as the search reads them (after [`check_profile`] found them valid).
    pub fn loads(&self) -> Loads {
        match &self.values {
            Some(v) => Loads::List(v.get_ref().clone()),
            None => Loads::Search {
                min: self.min.as_ref().map_or(1, |m| *m.get_ref()),
                max: self.max.as_ref().map_or(1, |m| *m.get_ref()),
                points: self.points.as_ref().map_or(DEFAULT_POINTS, |p| *p.get_ref()),
                step: self.step.as_ref().map_or(1, |s| *s.get_ref()),
                plateau: self.stop_on_plateau,
                confirm: self.confirm.as_ref().map_or(DEFAULT_CONFIRM, |c| *c.get_ref()),
            },
        }
    }
}
