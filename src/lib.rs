//! perflab: from LLM-serving tuning experiments to published, localized optimization guides.
//!
//! The modules follow the pipeline: [`study`] (a study's spec and its stored runs) →
//! [`parse`] (benchmark output → numbers) → [`analysis`] (configurations, winners, gains,
//! warnings) → the command line in [`cli`].

pub mod analysis;
pub mod bench;
pub mod cli;
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
