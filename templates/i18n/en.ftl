# English catalog: every sentence and label of a study page.
# Messages follow the order a reader meets them on a page; the shared pieces come last.

## Site: the header of every page and the index of guides (layout.html.tera, index.html.tera)
language-name = English
site-skip = Skip to the content
site-title = Serving optimization guides
site-intro = Each guide searches, stage by stage, for the fastest way to serve a model on a given machine. Every figure is computed from the raw benchmark results the guide shows.
site-languages = Languages
site-filter = Find a guide by model, hardware or engine:
site-studies = Guides
site-headline = { $metric }: { $gain } on { $profile }
# A page's description under its title in a search result or a link preview: its answer, then its goal
site-description = { $metric }: { $gain } on { $profile }.
site-description-command = { $metric }: { $gain } on { $profile } with the recommended command, { $all } with the settings measured but left out of it as well.
site-engines = Engines: { $engines }
# Index cards: an engine without a result, and the dates of the card's results, said once
site-engine-no-result = { $engine } { $version } (no result)
site-dates = measured { $first } to { $last }
site-date = measured on { $date }
site-dates-unknown = run dates not recorded
site-contents = On this page
site-copy = Copy
site-copied = Copied

## Conclusion: the goal, the recommended command and the before/after table
heading-conclusion = Conclusion
label-goal = Goal
# The page's answer above the command: "Total TPS on Balanced: 5481.90 tok/s → 17525.76 tok/s (▲ +219.70%)."
conclusion-result = { $metric }: { $baseline } → { $optimized } ({ $change }) on { $profile }.
conclusion-result-command = { $metric }: { $baseline } → { $command } ({ $change }) on { $profile } with the recommended command; with the settings measured but left out of it as well, { $optimized } ({ $all }).
# A page without its answer: what has no result yet, said before anything else
conclusion-unanswered = { $what ->
    [baseline] The baseline has no result on { $profile } yet
    [command] The configuration the stages chose has no result on { $profile } yet
   *[both] Neither the baseline nor the configuration the stages chose has a result on { $profile } yet
}, so this page gives no answer and recommends no command. `perflab plan` lists what is pending and what failed.
conclusion-unanswered-stages = Stages with nothing measured yet: { $stages }.
conclusion-intro = Recommended configuration for serving { $model } on { $hardware }:
conclusion-excluded = Measured but left out of this command: { $stage }. { $reason }
heading-comparison = Before and after
comparison-intro = Baseline and optimized configuration side by side, one row per benchmark profile. The change column compares { $metric }; a loss beyond the noise threshold is marked as a regression.
table-profile = Benchmark profile
table-target = { $profile } (optimization target)
table-target-command = { $profile } (optimization target, recommended command)
table-baseline = Baseline ({ $baseline }, default settings)
table-baseline-tuned = Baseline ({ $baseline })
table-optimized = Optimized
table-change = { $metric } change
change-regression = { $change } (regression)
change-lost = { $change } (only { $completed } of { $expected ->
        [one] { $expected } request
       *[other] { $expected } requests
    } completed)
change-incomplete = { $change } (cut-off result)
comparison-excluded = The optimized runs include the settings left out of the command above.
# Site layout: what the before/after table's TPOT is when the tool printed latency ÷ tokens
comparison-tpot-note = Mean TPOT here is the figure the benchmark tool printed: mean request latency divided by output tokens, so queueing and the first token are included.

## Load curves under a service-level objective, with their charts
# Load curves under a service-level objective
curve-heading = Load within the SLO: { $profile }
curve-answer = The optimized configuration serves up to { $load } { $unit } within { $slo }: { $ratio }× the baseline's { $base }.
curve-answer-at-least = At the top of the range searched, { $load } { $unit }, the optimized configuration still met { $slo }: at least { $ratio }× the baseline's { $base }.
curve-answer-both-at-least = Both configurations met { $slo } up to the top of the range searched, { $load } { $unit }; a wider range would tell them apart.
curve-answer-no-base = The optimized configuration serves up to { $load } { $unit } within { $slo }; the baseline met it at none of the loads measured.
curve-answer-none = Neither configuration met { $slo } at any load measured.
curve-unit-concurrency = requests at once
curve-unit-rate = requests a second
# Load curves searched once an engine start (repeats): each search's boundary
curve-searches = { $config } searched its curve { $count } times, each time in an engine start of its own, and found these boundaries: { $loads }. Its figures above average those searches; the table and the charts show the newest one.
curve-stop = { $config }: { $points ->
        [one] one measurement
       *[other] { $points } measurements
    }; { $why }
curve-why-resolution = the boundary is exact: { $at } met the SLO in { $met } of { $at_runs } measurements, and { $above } missed it in { $missed } of { $above_runs }.
curve-why-upper-bound = every load up to the upper bound, { $max }, met the SLO, so this configuration may carry more.
curve-why-below-lower-bound = even the lowest load, { $min }, broke the SLO.
curve-why-budget = the point budget ran out, so the boundary lies between { $boundary } and { $above }.
curve-why-budget-open = the point budget ran out above { $boundary }, before any load broke the SLO.
curve-why-plateau = throughput stopped growing at { $boundary }, so larger loads were not measured.
curve-why-list-done = every listed load was measured.
curve-why-unfinished = the search has not finished; `perflab run` goes on from these points.
curve-why-step = { $boundary } met the SLO and { $above } missed it, and the search measures no closer than its step, so the boundary lies between { $boundary } and { $last }.
curve-why-band = the answer is a band, not one load: { $low } met the SLO, { $high } missed it in every measurement, and the loads between missed it at least as often as they met it ({ $mixed }).
curve-mixed-load = { $load }: met in { $met } of { $runs }
curve-why-failed = the measurement at { $load } failed { $count } times ({ $class }), so the search stopped there; the curve is incomplete, and this configuration counts as failed.
curve-failures = { $config }: { $count ->
        [one] one measurement
       *[other] { $count } measurements
    } at { $loads } measured nothing ({ $classes }); the search took each of those loads again in a new engine start, so no boundary rests on a failure.
curve-failed-point = ✗ failed: { $class }
curve-met-of = met in { $met } of { $runs } measurements
curve-violations = { $config } does not degrade steadily: { $loads } met the SLO above a load that broke it.
curve-kept-up = { $config } at { $loads }: fewer than 80% of the offered requests were in flight, so the point measured less load than it names.
curve-col-concurrency = Requests at once
curve-col-rate = Requests a second
curve-met = ✓ within the SLO
curve-how-judged = A load is within the SLO when the measurement's aggregate figures meet { $slo }. Goodput counts something else: the requests that each stayed within every latency limit on their own, so a load within the SLO may still leave some requests outside the limits.
curve-broken = ✗ outside the SLO
curve-goodput = goodput { $value } ({ $good } of { $total } requests within the limits)
curve-buffered = ⚠ { $count ->
        [one] one stream
       *[other] { $count } streams
    } in bursts: latencies measure buffering
slo-limit = { $stat } { $latency } { $value }
slo-and = { $list } and { $last }
slo-success = a success rate of at least { $share }%
slo-success-all = no failed request
slo-stat-mean = mean
slo-stat-median = median
slo-stat-p90 = p90
slo-stat-p95 = p95
slo-stat-p99 = p99
chart-curve = { $metric } against load: { $profile }
chart-slo-line = SLO: { $limit }
chart-boundary = boundary: { $load }
chart-boundary-at-least = at least { $load } (the search's limit)
chart-pareto = Throughput per GPU against speed per user at each configuration's SLO boundary: { $profile }
chart-per-gpu = Output tok/s per GPU
chart-per-user = Output tok/s per user
chart-frontier = Pareto frontier
chart-others = Other configurations
chart-recommended = recommended: { $config }

## Raw data: the exports below the conclusion
label-data = Raw data
export-csv = every run (CSV)
export-json = analysis (JSON)
export-not-written = This page was printed without its charts and data files; `perflab build` writes them beside it, and so does `perflab report --out DIR`.

## How far the figures can be trusted: repeats, engine versions and notes
evidence-single-runs = No configuration on this page was measured more than once, so its figures carry no confidence intervals, and how much a repeated run would differ is unknown.
evidence-single-runs-spread = Each configuration was measured once, except one that ran { $count } times; those runs lie { $spread } apart, which shows how far two runs of one setup can differ. Single runs give no confidence intervals. The runs: { $values }.
evidence-repeats = Each figure is the mean of { $most } runs; a range after a gain is its { $confidence }% confidence interval, and gains are rounded to what that interval supports.
evidence-repeats-range = Each figure is the mean of { $fewest } to { $most } runs of its configuration (a figure from a single run has no range); a range after a gain is its { $confidence }% confidence interval, and gains are rounded to what that interval supports.
# What the stages decided on an interval cost, in all (`--until-confident` spends it where the variance is).
evidence-decision-cost = The stages decided on an interval rest on { $starts ->
        [one] one engine start
       *[other] { $starts } engine starts
    } and { $runs ->
        [one] one benchmark run
       *[other] { $runs } benchmark runs
    } of their two contenders, { $minutes } minutes of measuring in all.
# The same, where no start recorded its time (results placed by hand).
evidence-decision-cost-untimed = The stages decided on an interval rest on { $starts ->
        [one] one engine start
       *[other] { $starts } engine starts
    } and { $runs ->
        [one] one benchmark run
       *[other] { $runs } benchmark runs
    } of their two contenders.
age-measured-with = Measured with { $engines }.
# One engine version among the results: "SGLang v0.5.9 (2026-11-29)".
age-engine = { $engine } { $version } ({ $dates })
age-dates = { $first } to { $last }
age-date-unknown = run dates not recorded
age-study-names = { $measured }; the study now names version { $version }
age-mixed = These results mix engine versions. The runs below were measured with another engine version or command than the rest, so the comparisons that involve them do not hold until they are measured again (`perflab run --rerun-stale`):
age-outdated = The study has changed its engines since these results were measured. The runs below have not been measured again with what it names now (`perflab run --rerun-stale`):
age-run = { $run }: { $engine } { $version }, { $date }; { $reasons }
stale-version = the study names version { $version } now
stale-engine = it builds on { $engine } now
stale-command = its command has changed: { $changes }
stale-command-other = its command has changed
stale-benchmark = the benchmark command has changed
stale-dataset = the dataset file has different contents now
flags-added = added { $flags }
flags-removed = removed { $flags }
heading-notes = Notes

## Data warnings
heading-data-warnings = Data to read with care
data-warnings-intro = These measurements are shown as recorded, but should not be taken at face value:
warning-baseline-failed = The baseline, { $baseline }, could not be measured: { $class }. The search went on from { $instead }, the best configuration of the first stage that ran, and every gain on this page is measured against it.
warning-unequal-gpus = The stage “{ $stage }” ranks configurations that run on different numbers of GPUs ({ $configurations }) by their total { $metric }, not per GPU: one can come out ahead only because it has more GPUs, and per GPU the order may differ.
warning-unequal-gpus-item = { $config } on { $gpus ->
        [one] { $gpus } GPU
       *[other] { $gpus } GPUs
    }
warning-baseline-no-result = it left no result
warning-lost-requests = { $run }: only { $completed } of { $expected ->
        [one] { $expected } request
       *[other] { $expected } requests
    } completed, so its throughput is not comparable and it cannot win a stage.
warning-incomplete = { $run }: the benchmark block is cut off; its numbers are not used.
warning-at-loads = { $warning } This holds at { $loads } { $unit }.
warning-noisy = The same configuration was measured { $count } times, and its results lie { $spread } apart, more than the { $threshold } noise threshold.
warning-implausible-peak = { $count ->
        [one] One run reports
       *[other] { $count } runs report
    } a peak output throughput higher than a run can deliver (at most { $stream_limit } per concurrent request, and never more than its whole output). The benchmark tool's “Peak output token throughput” line is an artifact and is not used; the table at the end of the page lists the runs.
warning-implausible-peak-run = { $peak } reported, at most { $ceiling } possible
warning-tpot-includes-waiting = { $count ->
        [one] In one run, the “TPOT” the tool reports is
       *[other] In { $count } runs, the “TPOT” the tool reports is
    } the mean request latency divided by the output tokens. It therefore includes queueing and the wait for the first token, and is not the gap between tokens; the table at the end of the page gives each run's division.
warning-tpot-includes-waiting-run = { $tpot } = { $latency } ÷ { $tokens } tokens
warning-zero-latency = { $run }: { $metric } is 0 although the run produced tokens.
warning-buffered-streams = { $run }: { $buffered } of { $completed } streams delivered their tokens in bursts rather than one by one, so the run's TTFT and ITL measure a server or proxy holding chunks back (Nagle's algorithm without TCP_NODELAY, gzip, a buffering reverse proxy), not the engine.
warning-request-count = { $run }: the block counts { $counted ->
        [one] { $counted } request
       *[other] { $counted } requests
    } where the profile sends { $expected }.
warning-left-out = { $run }: the measurement in `{ $file }` completed { $completed } of { $expected ->
        [one] { $expected } request
       *[other] { $expected } requests
    } or was cut off, so it is left out of the run's mean and interval.
warning-few-requests = { $run }: its { $metric } comes from { $requests ->
        [one] one request
       *[other] { $requests } requests
    }; below { $needed } it is the slowest request or close to it, and it varies from run to run far more than a mean does.
# Data warnings: a run measured fewer times than the study asks for
warning-short-sample = { $run }: its mean is taken from { $have ->
        [one] one measurement
       *[other] { $have } measurements
    } of the { $wanted } the study asks for, as the others could not be taken. Its comparisons with runs measured more often rest on this smaller sample, and a single measurement gives no interval.

## What changed since earlier results (page.md.tera, diff.md.tera)
heading-changes = What changed
changes-intro = Compared with { $since } ({ $versions }).
changes-since-previous = the results these measurements replaced
changes-since-revision = the study at revision { $revision }
changes-stage = Stage
changes-best-before = Best before
changes-best-now = Best now
changes-adopted-now = In force now
changes-changed = Changed
changes-yes = yes
changes-no = no
changes-baseline = Baseline, { $metric }
changes-optimized = Optimized, { $metric }
changes-figure = { $before } → { $after } ({ $change })
changes-figure-noise = { $before } → { $after } ({ $change }, within the noise threshold)
changes-figure-unclear = { $before } → { $after } ({ $change }: the runs cannot tell this from noise)
changes-command-same = The recommended command has not changed.
changes-command = The recommended command has changed: { $changes }.
changes-command-engine = The recommended engine has changed from { $before } to { $after }.
changes-command-launch = The recommended command has changed beyond its flags (the engine's command or its environment).
changes-command-before = Before:
changes-command-after = Now:
# The answer across three or more engine releases of a study's history
heading-releases = Across engine releases
releases-intro = This study was measured on { $count } releases of its engines. The chart and the table give { $metric } of the baseline and of the optimized configuration on each; below them, what each release changed from the one before.
releases-col-release = Release
releases-col-date = Measured
releases-col-baseline = Baseline
releases-col-optimized = Optimized
releases-col-gain = Gain
releases-changed = What { $release } changed
chart-releases = { $metric } across engine releases
# perflab diff --releases: the whole history of releases, for a terminal
releases-history-intro = This study's history holds { $count } releases of its engines. The table gives { $metric } of the baseline and of the optimized configuration on each, and the configuration each stage left in force; below it, what each release changed from the one before.
releases-history-shown = Shown here: { $releases }.
releases-history-ran = The optimized configuration on { $release } ran:
releases-ran-changed = The engine command of the optimized run changed from the release before: { $changes }.

## Experimental setup: model, hardware, engines, benchmark method and profiles
heading-setup = Experimental setup
setup-model = Model
setup-hardware = Hardware
setup-date = Date
setup-tool = Tool: { $tool }
setup-runner = Run through: { $runner }
heading-engines = Engine versions
heading-benchmark = Benchmark method
label-command-template = Command template
heading-profiles = Benchmark profiles
# Benchmark profiles as runnable commands: the port they connect to
profiles-port = The commands connect to the engine at { $host }:{ $port }. The study does not fix the engine's port: put in the one your engine listens on.
profiles-load = In a load curve's command, { $placeholder } stands for the load: put in the concurrency or the request rate of the point to measure.
# What the runs recorded of their machine and engine, beside the author's description
heading-recorded = Recorded with the runs
recorded-intro = What perflab read on the machine at each engine start, beside the description above. Where runs disagree, each value names the runs that ran on it.
recorded-gpu-model = GPU
recorded-gpu-count = GPUs per start
recorded-gpu-memory = GPU memory
recorded-gpu-driver = GPU driver
recorded-gpu-runtime = GPU runtime
recorded-cpu-model = CPU
recorded-cpu-cores = CPU cores
recorded-kernel = Kernel
recorded-container = Container
recorded-engine-version = { $of } as it reports itself
recorded-package = Python package { $of }
recorded-model-revision = Model revision
recorded-perflab = perflab
recorded-value-runs = { $value } on { $runs }
# The container image the engine ran in, and its digest
recorded-image = Container image
recorded-image-digest = Image digest

## Experiment results: each stage's variants, ranking, summary and decision
heading-results = Experiment results
variant-profile = Profile: { $profile }
variant-changes = Differs in: { $changes }
variant-change-none = The stage's starting configuration, measured unchanged.
variant-change-engine = engine { $engine }
variant-change-model = checkpoint { $model }
variant-change-unset = without { $flag }
variant-failed = Did not run: { $reason }.
# A failure shared from an identical configuration
variant-failure-shared = Identical to { $source }, which failed: it was not started again, and its error is shown below.
variant-link = Upstream discussion: { $link }
variant-error = Error message
variant-missing = Not measured yet.
variant-reused = Identical to { $source }; that run's result is reused.
variant-command = Serving command
variant-result = Benchmark result
raw-measurement = { $title }, measurement { $k } of { $n } (`{ $file }`)
# What to run to measure a result again, and what it ran on (a collapsed block under the result)
reproduce-figure = Reproduce this figure: the commands and the machine it was measured on
ranking = Ranking: { $ranking }
ranking-item = { $engine } ({ $value })
ranking-lost = { $engine } ({ $value }, only { $completed } of { $expected ->
        [one] { $expected } request
       *[other] { $expected } requests
    } completed)
ranking-not-supported = { $engine } (not supported)
ranking-failed = { $engine } (failed: { $reason })
ranking-not-measured = { $engine } (not measured)
label-summary = Summary
summary = { $best } does best at { $best_value } and { $worst } worst at { $worst_value }, a gap of { $gap } ({ $percent }). { $secondary }
summary-secondary = { $trend ->
        [lower] { $metric } goes from { $worst } down to { $best }, a reduction of { $diff } ({ $percent }).
        [higher] { $metric } goes from { $worst } up to { $best }, an increase of { $diff } ({ $kind ->
            [latency] { $percent } slower
           *[other] { $percent } more
        }).
       *[same] { $metric } is the same for both ({ $best }).
    }
summary-both-at-least = { $best } and { $worst } both met the SLO at the top of the range searched ({ $best_value }), so this search cannot rank them. { $secondary }
summary-range = Of the variants,
summary-runner-up = Against the runner-up, { $variant } at { $value }: { $gain }.
summary-over-base = Against the stage's starting configuration, { $variant } at { $value }: { $gain }.
summary-base-again = Measured again here unchanged, as { $variant }, the stage's starting configuration gave { $value }: { $change } against the { $earlier } it gave before. The stage's gains are taken against the earlier figure; two runs of one configuration differ by this much.
label-decision = Decision
adoption-adopted = { $variant } is adopted: { $gain } over the stage's starting configuration, { $base }.
adoption-within-noise = { $variant } beats { $base } by { $gain }, inside the { $threshold } noise threshold, so nothing is adopted and { $base } stays.
adoption-not-better = No variant beats { $base }, so nothing is adopted and { $base } stays.
adoption-base-is-best = Nothing changes, since the best variant, { $variant }, is already the stage's starting configuration.
adoption-overridden = { $variant } is adopted by the authors' decision ({ $gain }). { $reason }
adoption-overridden-none = Nothing is adopted, by the authors' decision; { $base } stays. { $reason }
adoption-no-result = No variant produced a usable result; { $base } stays.
adoption-no-result-base = { $base }, which this stage builds on, has no usable result to compare with, so no gain can be claimed; the search goes on from { $after }, the best configuration of this stage that ran.
adoption-no-result-zero-base = { $base }, which this stage builds on, measures zero, so no gain can be computed; nothing is adopted and { $base } stays.
adoption-cannot-tell = { $variant } measured { $gain } against { $base }, but that interval holds zero: the difference may be noise, so nothing is adopted yet and { $base } stays until more runs decide (`perflab run --until-confident`).
adoption-cannot-tell-threshold = { $variant } measured { $gain } against { $base }; the gain is within the { $threshold } noise threshold, but its interval reaches beyond it, so nothing is adopted yet and { $base } stays until more runs decide (`perflab run --until-confident`).
adoption-within-noise-on = { $variant } beats { $base } by { $gain }, inside the { $threshold } noise threshold, so nothing is adopted and the search stays on { $after }.
adoption-not-better-on = No variant beats { $base }, so nothing is adopted and the search stays on { $after }.
adoption-overridden-none-on = Nothing is adopted, by the authors' decision; the search stays on { $after }. { $reason }
stage-excluded = Left out of the recommended command: { $reason }
stage-per-gpu = These configurations run on different numbers of GPUs ({ $configurations }), so the stage compares them per GPU: each one's { $metric } divided by its GPUs, which is what a fixed number of GPUs gets from each layout. The stage's summary and decision are per GPU.
metric-per-gpu = { $metric } per GPU
per-gpu = { $figure } per GPU
# The accuracy gate of a stage that requires accuracy (one block, kept together).
accuracy-intro = Accuracy on { $evaluation } ({ $questions } questions), each variant against the configuration it builds on, with 95% intervals:
accuracy-variant = Variant
accuracy-right = Answered right
accuracy-difference = Difference (points)
accuracy-wrong = Answered wrong
accuracy-verdict = Verdict
accuracy-points-interval = { $points } ({ $low } to { $high })
accuracy-wrong-more = { $count } more
accuracy-within = within the tolerance
accuracy-below = below the tolerance
accuracy-unclear = too few questions to tell
accuracy-not-measured = not measured
accuracy-is-base = the starting configuration
accuracy-refused = { $variant }: { $gain } { $metric }, but { $points } points lower on { $evaluation }: not adopted.
accuracy-refused-floor = { $variant } stays under the accuracy floor on { $evaluation }: not adopted.
accuracy-cannot-tell = { $variant }: the questions of { $evaluation } are too few to tell whether it keeps the accuracy required; { $choice }
accuracy-unmeasured = { $variant }: no accuracy was recorded for it or for the configuration it builds on; { $choice }
accuracy-choice-refuse = the study refuses such a variant, so it is not adopted.
accuracy-choice-adopt = the study accepts such a variant, so its speed decides.

## Summary of optimization options
heading-options = Summary of optimization options
options-intro = One row per stage. “Against baseline” compares the stage's best variant with the baseline; “Step gain” compares what the stage adopted with the configuration it started from, and shows a dash when the stage adopted nothing.
options-stage = Stage
options-best = Best variant
options-vs-baseline = Against baseline
options-step = Step gain
options-baseline = Baseline
options-total = Total (optimized against baseline)
options-not-adopted = { $gain } (not adopted)
options-lost = { $variant } (success rate { $rate }: { $completed } of { $expected } requests; not adopted)
# Summary of options: a stage a later one builds without
options-left-out = { $step }, measured but not in the total: “{ $stage }” builds on the configuration before this stage

## Other benchmark scenarios and accuracy checks
heading-scenarios = Other benchmark scenarios
scenarios-intro = The raw results of the baseline and the optimized configuration on every profile, the optimization target first.
# Other benchmark scenarios: one line a scenario above its raw results
scenario-line = { $metric }: { $baseline } → { $optimized } ({ $change })
scenario-baseline-command = Baseline serving command
scenario-optimized-command = Optimized serving command
scenario-baseline-result = Baseline benchmark result
scenario-optimized-result = Optimized benchmark result
heading-accuracy = Accuracy checks

## The table of the runs behind the data warnings, at the end of the page
# Site layout: the table of the runs behind the data warnings
heading-warning-runs = Runs behind the data warnings
warning-runs-intro = Every run that a data warning above refers to, with the figures that raised it.
table-warning = Warning
table-run = Run
table-figures = Figures
warning-kind-noisy = Results apart
warning-kind-implausible-peak = Peak throughput not used
warning-kind-tpot = “TPOT” includes waiting

## Charts of the stages and of the before/after comparison
chart-stage = { $stage }: { $metric } of each variant
chart-comparison = Baseline and optimized { $metric } on every profile
chart-progression = { $metric } after each adopted stage
# Charts: the axis with its unit, and a bar's change against the bar it is compared with
chart-axis = { $metric } ({ $unit })
chart-change = { $value } ({ $change })
chart-adopted = { $value } (adopted)
chart-base = { $value } (base)
chart-failed = did not run: { $reason }
chart-lost = { $value }, only { $completed } of { $expected ->
        [one] { $expected } request
       *[other] { $expected } requests
    }
chart-incomplete = { $value }, cut off
chart-baseline = Baseline
chart-optimized = Optimized

## Drop-in Markdown: the title of a warning box in mkdocs-material
admonition-warning = Warning

## Shared pieces: number format, units and punctuation ("Total TPS: 13760.98 tok/s")
number-decimal-separator = .
number-group-separator = {""}
# $sign is "+", "−" or nothing; $value is already formatted.
percent = { $sign }{ $value }%
ratio-faster = { $value }× faster
ratio-slower = { $value }× slower
value-missing = n/a
# A value that is a lower bound (a load search that met the SLO up to its limit), and a gain from one
value-at-least = ≥ { $value }
value-at-limit = ≥ { $value } (the search's limit)
gain-at-least = at least { $gain }
gain-both-at-least = not known: both met the SLO at the top of the range
value-none = -
unit-ms = { $value } ms
unit-tok-s = { $value } tok/s
unit-req-s = { $value } req/s
unit-s = { $value } s
unit-requests = { $value ->
        [one] { $value } request
       *[other] { $value } requests
    }
unit-tokens = { $value ->
        [one] { $value } token
       *[other] { $value } tokens
    }
figure-interval = { $figure } ({ $confidence }% CI { $low }–{ $high })
list-separator = {", "}
label-separator = {": "}
# What joins the clauses of one list of changes ("added `--a`; `--b 1` → `--b 2`")
clause-separator = {"; "}
# What joins the sentences of one paragraph, and the label before them ("Fastest against slowest: A reaches")
sentence-separator = {" "}
# A run: "Stage › Variant (Profile)"; where the profile's name has brackets of its own, "Stage › Variant › Profile", so that none nest
run-title = { $stage } › { $variant } ({ $profile })
run-title-nested = { $stage } › { $variant } › { $profile }

## Shared pieces: metric names
metric-total-tps = Total TPS
metric-output-tps = Output TPS
metric-request-throughput = Request throughput
metric-slo-load = Load within the SLO
metric-slo-goodput = Goodput within the SLO
metric-mean-tpot = Mean TPOT
metric-mean-ttft = Mean TTFT
metric-mean-itl = Mean ITL
metric-mean-e2el = Mean end-to-end latency

## Shared pieces: why a run failed
failure-oom = out of memory
failure-unsupported = the engine rejects this configuration
failure-start-failure = the server does not start
failure-start-timeout = the server did not become ready in time
failure-crash = the engine crashed during the run
failure-benchmark-failure = the benchmark command failed
failure-port-in-use = another server was already listening on the engine's port
failure-requests-failed = too few requests completed for the run to count
failure-time-limit = the cluster stopped the job at its time limit
failure-node-failure = the cluster node running the job failed
failure-cancelled = the job was cancelled on the cluster
failure-job-out-of-memory = the cluster stopped the job for using more memory than it asked for
failure-slo-not-met = no load it was measured at met the SLO
