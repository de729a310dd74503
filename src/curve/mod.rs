//! Load curves under service-level objectives, in one place: what a study writes for them
//! ([`spec`]), the name of a point's run ([`point`]), and the search ([`search`]): whether a
//! measured point meets the SLO, which load is measured next, where the boundary is and why the
//! search stopped, and the Pareto frontier. A leaf of the pipeline: it imports no module of
//! perflab above `parse`, so the study, the runner and the analysis decide the same way.

#![warn(missing_docs)]

pub mod point;
pub mod search;
pub mod spec;

pub use point::{POINT_SEPARATOR, point_id, split_point};
pub use search::*;
pub use spec::{DEFAULT_POINTS, LoadSpec, MAX_CONFIRM, MAX_POINTS, SloSpec};
