//! Configurations that run on different numbers of GPUs: when a stage weighs them per GPU,
//! and the GPU counts it weighs them by (the counts come from the search's replay, in
//! [`super::chain`]).

use crate::study::Study;

/// The GPUs of a stage's configurations, which differ, so that the stage weighs each one's
/// objective per GPU: what a reader with a fixed number of GPUs gets from each layout. It is
/// the default for an objective that grows with GPUs ([`grows_with_gpus`]); a stage with
/// `compare = "total"` weighs the totals instead, and the page warns.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PerGpu {
    /// The GPUs of the configuration the stage builds on.
    pub base: u32,
    /// The GPUs of each variant, in the stage's order.
    pub variants: Vec<u32>,
}

/// Whether the study's objective grows with the GPUs a configuration runs on: a throughput, a
/// request rate or a load carried, better higher. A derived objective is the study's own
/// measure (it may already divide by `gpus`), and a latency does not grow with GPUs.
pub fn grows_with_gpus(study: &Study) -> bool {
    use crate::metric::{Direction, Unit};
    let objective = study.spec.objective.get_ref();
    let metric = study.metric(objective);
    let grows = matches!(metric.unit, Unit::TokensPerSecond | Unit::RequestsPerSecond | Unit::Requests)
        && metric.direction == Some(Direction::HigherIsBetter);
    grows && study.derived_metric(objective).is_none()
}
