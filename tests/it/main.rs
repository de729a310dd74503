//! The integration tests, one binary: a module a file of this folder, the shared setup in
//! `common` (its macros first). A new test file `NAME.rs` here is registered with `mod NAME;`
//! below; it reaches the shared setup with `use crate::common;`.

#[macro_use]
mod common;

mod accuracy;
mod architecture;
mod bench;
mod browser;
mod carried_steps;
mod catalogs;
mod check;
mod ci;
mod corpus;
mod curve_failures;
mod curves;
mod dropin;
mod engine;
mod faults;
mod figures;
mod format;
mod headline;
mod help;
mod hostile;
mod hostile_site;
mod import;
mod import_per_gpu;
mod invalid;
mod measurements;
mod no_panic;
mod page_figures;
mod pages;
mod parallel;
mod parse;
mod parse_stream;
mod profile_commands;
mod provenance;
mod readme;
mod recovery;
mod releases;
mod repeats;
mod reproduce;
mod reworded;
mod rules;
mod run;
mod safety;
mod samples;
mod scenario_lines;
mod scheduler;
mod seeds;
mod sequential;
mod shapes;
mod short_warnings;
mod site;
mod site_reuse;
mod site_swap;
mod slurm;
mod summaries;
mod summary_png;
mod translations;
mod upgrade;
mod vllm_cpu;
mod warning_boxes;
