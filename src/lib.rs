//! perflab: from LLM-serving tuning experiments to published, localized optimization guides.
//!
//! The modules follow the pipeline: [`study`] (a study's spec and its stored runs) →
//! [`parse`] (benchmark output → numbers) → [`analysis`] (configurations, winners, gains,
//! warnings) → [`render`] and [`site`] (pages, charts, the site), with [`exec`] (running a study)
//! and [`bench`] (the benchmark client) beside them. The command line is the `perflab` binary's
//! own (`src/cli/`), not part of the library.

pub mod analysis;
pub mod bench;
pub mod curve;
pub mod diag;
pub mod durable;
pub mod exec;
pub mod import;
pub mod metric;
pub mod parallel;
pub mod parse;
pub mod render;
#[cfg(feature = "sim")]
pub mod sim;
pub mod site;
pub mod study;
pub mod text;

pub use metric::{Direction, Metric, Unit};
pub use parse::{Block, Format, ParseError, Parsed, parse_str, parse_text};
