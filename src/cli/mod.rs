//! The command line: one file a subcommand, each a thin layer over the library.
// The doc comments below are the commands' help text, where `<stage>` is meant literally.
#![allow(rustdoc::invalid_html_tags)]

mod analyze;
mod bench;
mod build;
mod check;
mod diff;
mod import;
mod parse;
mod plan;
mod report;
mod reproduce;
mod run;
mod translations;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Turns LLM-serving tuning experiments into published, localized optimization guides.
///
/// A study lives in results/<study-id>/: a study.toml that describes the model, hardware,
/// engines, benchmark profiles and the ordered stages of the search, and runs/ holding the raw
/// benchmark output of every variant.
#[derive(Debug, Parser)]
#[command(name = "perflab", version = env!("PERFLAB_VERSION"), propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read benchmark output (text logs or JSON) and print every result found as JSON.
    ///
    /// Exit code: 0 when every result is complete, 1 when one was cut off, 2 when a file
    /// could not be read or holds no result.
    #[command(display_order = 1)]
    Parse {
        /// Files to read; `-` reads standard input.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Validate studies: the spec, every reference, every run file present and parseable.
    ///
    /// Prints each problem as `file:line:col: message`; exit code 1 when there is one.
    #[command(display_order = 2)]
    Check {
        /// Study folders or ids under --results (default: every study there).
        #[arg(value_name = "STUDY")]
        studies: Vec<String>,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
    /// List, per language, every study text with no translation: the page in that language shows
    /// it in English (and marks it `lang="en"`).
    ///
    /// Prints each as `file:line:col: message`; exit code 1 when there is one.
    #[command(display_order = 7)]
    Translations {
        /// Study folders or ids under --results (default: every study there).
        #[arg(value_name = "STUDY")]
        studies: Vec<String>,
        /// Languages to list (default: every catalog's but English).
        #[arg(long = "lang", value_name = "LANG")]
        langs: Vec<String>,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
        /// Folder whose i18n/*.ftl catalogs add languages to the built-in ones.
        #[arg(long, default_value = "templates", value_name = "DIR")]
        templates: PathBuf,
    },
    /// Print a study's page in one language as Markdown.
    ///
    /// Printed, the page shows no chart and links no file: it says that `perflab build` writes
    /// them. With --out DIR, the page is written as DIR/<study>.md instead, and its charts,
    /// summary image and exports (CSV, JSON) into DIR/<study>/, where the page links them.
    /// Exit code 1 when the page has no answer yet.
    #[command(display_order = 8)]
    Report {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// Language of the page: any catalog in templates/i18n (en, tr, ...).
        #[arg(long, default_value = "en", value_name = "LANG")]
        locale: String,
        /// Markdown flavour.
        #[arg(long, value_enum, default_value = "commonmark")]
        flavor: FlavorArg,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
        /// Folder whose templates and i18n/*.ftl catalogs replace or add to the built-in ones.
        #[arg(long, default_value = "templates", value_name = "DIR")]
        templates: PathBuf,
        /// Write the page into DIR as <study>.md, with its charts and exports in DIR/<study>/,
        /// instead of printing it; other files of DIR are left as they are.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write every page of every study in every language into the site folder.
    ///
    /// A study that does not load keeps the pages it had; it is listed and the exit code is 1.
    /// Another results folder's site is not replaced: give each results folder its own --out.
    /// A study whose files, templates and catalogs are those the previous build made its pages
    /// from, with the same perflab, keeps its files as they are (checked against their recorded
    /// hashes in .perflab-inputs) instead of being rendered again.
    #[command(display_order = 10)]
    Build {
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
        /// Folder to write the site into.
        #[arg(long, default_value = "site", value_name = "DIR")]
        out: PathBuf,
        /// Folder whose templates and i18n/*.ftl catalogs replace or add to the built-in ones.
        #[arg(long, default_value = "templates", value_name = "DIR")]
        templates: PathBuf,
        /// Markdown flavour.
        #[arg(long, value_enum, default_value = "commonmark")]
        flavor: FlavorArg,
        /// Where the site will be served (https://…/): each study page then names its address
        /// and the summary image a link preview shows (Open Graph wants both absolute).
        #[arg(long, value_name = "URL")]
        site_url: Option<perflab::site::SiteUrl>,
        /// Render every study again, also those whose pages the site holds as this build would
        /// make them.
        #[arg(long)]
        render_all: bool,
    },
    /// Benchmark an OpenAI-compatible server and print the `Serving Benchmark Result` block.
    ///
    /// Ctrl-C stops it and prints what was measured so far, without the closing line (so that
    /// `perflab parse` reads it as incomplete); the exit code is then 130.
    #[command(display_order = 6)]
    Bench(Box<bench::BenchArgs>),
    /// List the runs a study needs: done, stale, failed, reused, pending, waiting.
    ///
    /// A run is stale when its engine, the engine's version, its command or the benchmark
    /// command changed since it was measured; the reason is shown. The first time it sees results
    /// placed by hand, it records in runs/recorded.json the engine version and command the study
    /// names, so that a later version bump makes them stale instead of relabelling them.
    #[command(display_order = 4)]
    Plan {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
    /// Run a study's pending runs: start each engine, wait until it serves, benchmark it, stop it,
    /// stage after stage on the previous stage's winner.
    ///
    /// Each engine start is a new attempt under runs/<stage>/<variant>/attempts/<n>/; a failed
    /// configuration is recorded and the search goes on. Ctrl-C, SIGTERM or SIGHUP stops the
    /// engine and leaves the study ready to continue (exit code 130); a second Ctrl-C kills the
    /// engine at once.
    #[command(display_order = 5)]
    Run {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// Only this stage.
        #[arg(long)]
        stage: Option<String>,
        /// Only this variant: `stage/variant`, or a variant of --stage.
        #[arg(long)]
        variant: Option<String>,
        /// Measure the selected runs again even when they are done.
        #[arg(long)]
        rerun: bool,
        /// Measure stale runs again (see `perflab plan`), stage by stage: when a stage's winner
        /// changes, the runs built on it become stale and are measured on the new winner. Earlier
        /// results stay on disk.
        #[arg(long)]
        rerun_stale: bool,
        /// Measure an engine that reports another version than the study's `version` (it is
        /// refused otherwise): its runs carry the engine's own version and are stale against the
        /// study's.
        #[arg(long)]
        any_engine_version: bool,
        /// Print the engine and benchmark commands instead of running them.
        #[arg(long)]
        dry_run: bool,
        /// At most N engine starts at once: a stage's variants run side by side. Default: one
        /// locally, as many as fit the GPUs `[local]` declares, every pending one on a cluster.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        jobs: Option<u32>,
        /// Where engines run: this machine, or one Slurm job a configuration (`[cluster]`).
        #[arg(long, value_enum)]
        backend: Option<run::BackendKind>,
        /// A file with `backend`, `[local]` and `[cluster]` settings that replace the study's.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Before each next stage, measure a stage whose runs cannot tell its best variant from
        /// its base again (one more engine start of each, in turn, every look), until they can,
        /// the group-sequential design's last look is taken or the budget is spent; then say
        /// what that cost against measuring every variant as often. The budget sets the
        /// design's most starts, and each look's interval is wide enough that looking often
        /// does not raise the 5% error rate.
        #[arg(long, requires = "budget")]
        until_confident: bool,
        /// What --until-confident may add: a number of benchmark runs (`20`) or a time for
        /// the whole run (`90m`, `2h`).
        #[arg(long, value_name = "RUNS|TIME")]
        budget: Option<perflab::exec::Budget>,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
    /// Runs one engine start inside a cluster job (what `perflab run --backend slurm` submits).
    #[command(hide = true)]
    JobRun {
        /// The attempt's folder, with the launch the runner left there.
        dir: PathBuf,
    },
    /// Show what changed since the previous measurement: per stage whether the winner changed,
    /// per profile the baseline and optimized figures before → after, the recommended command.
    ///
    /// By default it compares the results that stand with those the newest re-measurements
    /// (another engine version or command) replaced; `--since REV` compares with the study as
    /// it was in git revision REV (e.g. what was last published); `--releases` shows every
    /// engine release the study's history holds, oldest first. Exit code 1 when there is
    /// nothing to compare with (a single release), 2 for a version the history does not hold.
    #[command(display_order = 9)]
    Diff {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// Compare with the study (spec and runs) at this git revision.
        #[arg(long, value_name = "REV")]
        since: Option<String>,
        /// Show the answer across every engine release of the study's history instead: each
        /// release's baseline and optimized figures, each stage's winner, what each release
        /// changed from the one before. `--releases=1.1..` (or `=1.0..1.1`, `=..1.1`, `=1.1`)
        /// shows the releases measured with those versions, oldest first.
        #[arg(long, value_name = "RANGE", num_args = 0..=1, require_equals = true, default_missing_value = "..", conflicts_with = "since")]
        releases: Option<String>,
        /// Print JSON instead of Markdown.
        #[arg(long)]
        json: bool,
        /// Language of the Markdown.
        #[arg(long, default_value = "en", value_name = "LANG")]
        locale: String,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
        /// Folder whose templates and i18n/*.ftl catalogs replace or add to the built-in ones.
        #[arg(long, default_value = "templates", value_name = "DIR")]
        templates: PathBuf,
    },
    /// Print a study's analysis as JSON: winners, gains, the recommended command, warnings.
    ///
    /// The fields are described in the README.
    #[command(display_order = 3)]
    Analyze {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
    /// Print what to run to measure one figure again: the engine command, the benchmark command
    /// with its seed and dataset, the machine it ran on, and the figure with its interval.
    #[command(display_order = 4)]
    Reproduce {
        /// A study folder, or an id under --results.
        #[arg(value_name = "STUDY")]
        study: String,
        /// The run: `stage/variant/profile`, or a load curve's point `stage/variant/profile@load`.
        #[arg(value_name = "RUN")]
        run: String,
        /// The port the printed commands use for the engine (a study that fixes none).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
    /// Make a study of a published guide (GPUStack performance-lab Markdown): results/ID/study.toml
    /// and runs/ with every benchmark block as written.
    ///
    /// What the page leaves open is printed and left in study.toml as `# import:` comments,
    /// which `perflab check` warns about until they are removed. An existing study is never
    /// replaced without --force. Given a folder, every `.md` page in it is imported (its id is
    /// the file's name) and a page that fails does not stop the others. Exit code 1 when a page
    /// of a folder was not imported and others were; 2 when nothing was (the id, the page or
    /// its file is wrong, or the study it would replace is kept).
    #[command(display_order = 11)]
    Import {
        /// A page, or a folder of pages.
        #[arg(value_name = "PAGE")]
        page: PathBuf,
        /// The study's id (default: the page's file name without `.md`); not with a folder.
        #[arg(long)]
        id: Option<String>,
        /// Replace a study that is already there (not while `perflab run` measures it).
        #[arg(long)]
        force: bool,
        /// Folder holding the studies.
        #[arg(long, default_value = "results", value_name = "DIR")]
        results: PathBuf,
    },
}

/// How a command ends. Its exit code follows one rule for every command; `README.md`
/// ("Exit codes") says it to users.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: everything asked was done, and nothing in it needs a look.
    Done,
    /// 1: the command finished, and what it found needs attention: a result cut off or
    /// spoiled, a problem `check` found, a study not built or a page not imported (the others
    /// were), a translation missing, runs left pending, nothing earlier to compare with.
    Attention,
    /// 2: the command could not do what was asked: the command line, a study, a page or a
    /// file is wrong, or cannot be read or written. Nothing already there was lost.
    Failed,
    /// 130: stopped by Ctrl-C (as a shell reports SIGINT); `perflab run` goes on from there.
    Interrupted,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        match exit {
            Exit::Done => ExitCode::SUCCESS,
            Exit::Attention => ExitCode::from(1),
            Exit::Failed => ExitCode::from(2),
            Exit::Interrupted => ExitCode::from(130),
        }
    }
}

/// Runs the command line; errors are printed once, here, with their causes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Parse { files } => parse::run(&files),
        Command::Check { studies, results } => check::run(&studies, &results),
        Command::Translations { studies, langs, results, templates } => {
            translations::run(&studies, &results, &templates, &langs)
        }
        Command::Analyze { study, results } => analyze::run(&study, &results),
        Command::Reproduce { study, run, port, results } => reproduce::run(&study, &run, port, &results),
        Command::Import { page, id, force, results } => import::run(&page, id.as_deref(), force, &results),
        Command::Bench(args) => bench::run(&args),
        Command::Plan { study, results } => plan::run(&study, &results),
        Command::Run {
            study,
            stage,
            variant,
            rerun,
            rerun_stale,
            any_engine_version,
            dry_run,
            jobs,
            backend,
            config,
            until_confident,
            budget,
            results,
        } => {
            let until_confident = budget.filter(|_| until_confident);
            let how = run::How { jobs: jobs.map(|j| j as usize), backend, config, until_confident, any_engine_version };
            let what = run::What { stage, variant, rerun, rerun_stale, dry_run };
            run::run(&study, &results, what, how)
        }
        Command::JobRun { dir } => perflab::exec::slurm::run_job(&dir).map(|()| ExitCode::SUCCESS),
        Command::Report { study, locale, flavor, results, templates, out } => {
            report::run(&study, &locale, flavor.into(), &results, &templates, out.as_deref())
        }
        Command::Build { results, out, templates, flavor, site_url, render_all } => {
            let reuse = if render_all { perflab::site::Reuse::RenderAll } else { perflab::site::Reuse::Unchanged };
            build::run(&results, &out, &templates, flavor.into(), site_url.as_ref(), reuse)
        }
        Command::Diff { study, since, releases, json, locale, results, templates } => {
            let what = match releases {
                Some(range) => diff::What::Releases(perflab::analysis::releases::Span::parse(&range)),
                None => diff::What::Since(since),
            };
            diff::run(&study, what, json, &locale, &results, &templates)
        }
    };
    match result {
        Ok(code) => code,
        // A reader that stopped early (`perflab parse x | head`) is not an error.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            Exit::Failed.into()
        }
    }
}

/// The renderer with the templates folder when it exists (the built-in templates otherwise).
pub(crate) fn renderer(templates: &std::path::Path) -> anyhow::Result<perflab::render::Renderer> {
    let dir = templates.is_dir().then_some(templates);
    Ok(perflab::render::Renderer::new(dir)?)
}

/// Loads one study named on the command line; its problems become the error.
pub(crate) fn load_study(name: &str, results: &std::path::Path) -> anyhow::Result<perflab::study::Study> {
    let dirs = study_dirs(&[name.to_string()], results)?;
    let dir = &dirs[0];
    let study = perflab::study::Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
    let problems = perflab::analysis::check(&study);
    if !problems.is_empty() {
        anyhow::bail!("{}", perflab::diag::Diagnostics(problems));
    }
    Ok(study)
}

/// The study folders named on the command line (a path, or an id under `results`), or all.
pub(crate) fn study_dirs(names: &[String], results: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    use anyhow::Context;
    if names.is_empty() {
        return perflab::study::discover(results).with_context(|| {
            format!(
                "cannot list studies in '{}': name a study folder, or give the folder that holds the studies with --results DIR",
                results.display()
            )
        });
    }
    names
        .iter()
        .map(|name| {
            let mut path = PathBuf::from(name);
            // `.` or `..` (a study named from inside its folder): the folder's own name is its id.
            if path.file_name().is_none()
                && let Ok(full) = path.canonicalize()
            {
                path = full;
            }
            if path.join(perflab::study::SPEC_FILE).is_file() {
                return Ok(path);
            }
            let under = results.join(name);
            if under.join(perflab::study::SPEC_FILE).is_file() {
                return Ok(under);
            }
            anyhow::bail!(
                "no study '{name}': neither '{}' nor '{}' holds a {}",
                path.display(),
                under.display(),
                perflab::study::SPEC_FILE
            )
        })
        .collect()
}

/// `--flavor`: the command line's names of [`perflab::render::Flavor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FlavorArg {
    /// CommonMark with GFM tables and `<details>`: reads well on GitHub and in mdBook.
    Commonmark,
    /// mkdocs-material: collapsible admonitions (`??? info "..."`).
    Mkdocs,
}

impl From<FlavorArg> for perflab::render::Flavor {
    fn from(flavor: FlavorArg) -> Self {
        match flavor {
            FlavorArg::Commonmark => perflab::render::Flavor::Commonmark,
            FlavorArg::Mkdocs => perflab::render::Flavor::Mkdocs,
        }
    }
}
