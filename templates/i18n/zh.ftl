# 简体中文目录：研究页面上的每一句话和每一个标签。
# 术语以 templates/i18n/glossary-cjk.toml 为准（tests/catalogs.rs 检查）。
# 写法：中文与英文、数字之间留一个半角空格；句中标点用全角（，。：；（）），
# 命令、参数与单位（ms、tok/s）保持原样。中文没有复数形式，数量一律用同一写法。
# 消息按读者在页面上看到的先后顺序排列，通用部分放在最后。

## 站点：每个页面的页头与指南索引（layout.html.tera、index.html.tera）
language-name = 简体中文
site-skip = 跳到正文
site-title = 推理服务优化指南
site-intro = 每篇指南针对一台给定的机器，逐个阶段寻找部署一个模型的最快方式。页面上的每个数字都由指南中列出的原始基准测试结果计算得出。
site-languages = 语言
site-filter = 按模型、硬件或推理引擎查找指南：
site-studies = 指南
site-headline = { $metric }：{ $gain }（{ $profile }）
# 搜索结果和链接预览中标题下方的页面说明：先给结论，再写目标。
site-description = 场景“{ $profile }”下的{ $metric }：{ $gain }。
site-description-command = 场景“{ $profile }”下的{ $metric }，推荐命令：{ $gain }；加上已测量但未写入该命令的设置：{ $all }。
site-engines = 引擎：{ $engines }
# Index cards: an engine without a result, and the dates of the card's results, said once
site-engine-no-result = { $engine } { $version }（无结果）
site-dates = 测量日期：{ $first } 至 { $last }
site-date = 测量日期：{ $date }
site-dates-unknown = 未记录测量日期
site-contents = 本页内容
site-copy = 复制
site-copied = 已复制

## 结论：目标、推荐命令与优化前后对比表
heading-conclusion = 结论
label-goal = 目标
# The page's answer above the command
conclusion-result = 场景“{ $profile }”下的{ $metric }：{ $baseline } → { $optimized }（{ $change }）。
conclusion-result-command = 场景“{ $profile }”下的{ $metric }，采用推荐命令：{ $baseline } → { $command }（{ $change }）；若再启用已测量但未写入该命令的设置：{ $optimized }（{ $all }）。
conclusion-unanswered = { $what ->
    [baseline] 基线在“{ $profile }”场景下还没有结果
    [command] 各阶段选出的配置在“{ $profile }”场景下还没有结果
   *[both] 基线和各阶段选出的配置在“{ $profile }”场景下都还没有结果
}，因此本页不给出结论，也不推荐命令。`perflab plan` 会列出待测和失败的项。
conclusion-unanswered-stages = 尚无任何测量的阶段：{ $stages }。
conclusion-intro = 在 { $hardware } 上部署 { $model } 的推荐配置：
conclusion-excluded = 已测量但未写入此命令：{ $stage }。{ $reason }
heading-comparison = 优化前后对比
comparison-intro = 下表列出基线配置与优化后配置在每个基准测试场景上的结果。“变化”一列比较的是{ $metric }；损失超过噪声阈值时标为性能回退。
table-profile = 基准测试场景
table-target = { $profile }（优化目标）
table-target-command = { $profile }（优化目标，推荐命令）
table-baseline = 基线（{ $baseline }，默认参数）
table-baseline-tuned = 基线（{ $baseline }）
table-optimized = 优化后
table-change = 变化（{ $metric }）
change-regression = { $change }（性能回退）
change-lost = { $change }（{ $expected } 个请求中仅完成 { $completed } 个）
change-incomplete = { $change }（结果被截断）
comparison-excluded = 优化后的测量包含上述命令中省略的设置。
# Site layout: what the before/after table's TPOT is when the tool printed latency ÷ tokens
comparison-tpot-note = 此处的平均 TPOT 是基准测试工具输出的数值，即平均请求延迟除以输出 token 数，因此包含排队时间和首 token 时间。

## 服务等级目标下的负载曲线及其图表
# 服务等级目标下的负载曲线
curve-heading = 满足 SLO 的负载：{ $profile }
curve-answer = 在满足{ $slo }的条件下，优化后的配置最多可{ $unit }服务 { $load } 个请求，是基线（{ $base }）的 { $ratio } 倍。
curve-answer-at-least = 在搜索范围的上限（{ $unit } { $load } 个请求）下，优化后的配置仍满足{ $slo }，至少是基线（{ $base }）的 { $ratio } 倍。
curve-answer-both-at-least = 两种配置直到搜索范围的上限（{ $unit } { $load } 个请求）都满足{ $slo }；扩大搜索范围才能分出高下。
curve-answer-no-base = 在满足{ $slo }的条件下，优化后的配置最多可{ $unit }服务 { $load } 个请求；基线在所有测量负载下都未达到该目标。
curve-answer-none = 两种配置在所有测量负载下都未达到{ $slo }。
curve-unit-concurrency = 同时
curve-unit-rate = 每秒
# Load curves searched once an engine start (repeats): each search's boundary
curve-searches = { $config } 共搜索了 { $count } 次负载曲线，每次都在新的一次引擎启动中进行，得到的边界依次为：{ $loads }。上文的数值是这几次搜索的平均值；表格和图表显示的是最近一次搜索。
curve-stop = { $config }：共 { $points } 次测量；{ $why }
curve-why-resolution = 边界是精确的：负载 { $at } 在 { $at_runs } 次测量中有 { $met } 次满足 SLO，负载 { $above } 在 { $above_runs } 次测量中有 { $missed } 次超出 SLO。
curve-why-upper-bound = 直到上限 { $max } 的每个负载都满足 SLO，该配置可能还能承载更多。
curve-why-below-lower-bound = 即使最低负载 { $min } 也超出了 SLO。
curve-why-budget = 测量点预算已用完，边界位于 { $boundary } 与 { $above } 之间。
curve-why-budget-open = 测量点预算在 { $boundary } 之上用完，此时还没有负载超出 SLO。
curve-why-plateau = 吞吐量在 { $boundary } 处不再增长，因此未测量更大的负载。
curve-why-list-done = 列表中的每个负载都已测量。
curve-why-unfinished = 搜索尚未结束；`perflab run` 会从这些点继续。
curve-why-step = 负载 { $boundary } 满足 SLO，负载 { $above } 超出 SLO；搜索不会测得比其步长更细，因此边界位于 { $boundary } 与 { $last } 之间。
curve-why-band = 结果是一个区间而不是单个负载：负载 { $low } 满足 SLO，负载 { $high } 每次测量都超出，介于两者之间的负载超出的次数不少于满足的次数（{ $mixed }）。
curve-mixed-load = { $load }：{ $runs } 次中 { $met } 次满足
curve-why-failed = 负载 { $load } 的测量失败了 { $count } 次（{ $class }），搜索就此停止；曲线不完整，该配置按失败处理。
curve-failures = { $config }：负载 { $loads } 处有 { $count } 次测量没有得出结果（{ $classes }）；搜索在新的引擎启动中重新测量了这些负载，因此没有任何边界依赖失败的测量。
curve-failed-point = ✗ 失败：{ $class }
curve-met-of = { $runs } 次测量中 { $met } 次满足
curve-violations = { $config } 的曲线并非单调：负载 { $loads } 高于某个超出 SLO 的负载，却满足了 SLO。
curve-kept-up = { $config } 在负载 { $loads } 下：同时在处理的请求不到所给负载的 80%，该点实际测得的负载低于其标称值。
curve-col-concurrency = 并发请求数
curve-col-rate = 每秒请求数
curve-met = ✓ 满足 SLO
curve-how-judged = 某个负载是否满足 SLO，取决于该次测量的汇总指标是否满足{ $slo }。goodput 统计的则是另一回事：各自满足全部延迟限制的请求数。因此，即使负载满足 SLO，也可能有部分请求超出限制。
curve-broken = ✗ 超出 SLO
curve-goodput = 有效吞吐量 { $value }（{ $total } 个请求中有 { $good } 个在限制内）
curve-buffered = ⚠ { $count } 个流成批到达：延迟反映的是缓冲
slo-limit = { $stat } { $latency } { $value }
slo-and = { $list }、{ $last }
slo-success = 成功率至少 { $share }%
slo-success-all = 请求全部成功
slo-stat-mean = 平均
slo-stat-median = 中位数
slo-stat-p90 = p90
slo-stat-p95 = p95
slo-stat-p99 = p99
chart-curve = { $metric }随负载的变化：{ $profile }
chart-slo-line = SLO：{ $limit }
chart-boundary = 边界：{ $load }
chart-boundary-at-least = 至少 { $load }（搜索上限）
chart-pareto = 各配置在 SLO 边界处的每 GPU 吞吐量与每用户速度：{ $profile }
chart-per-gpu = 每 GPU 输出 token/s
chart-per-user = 每用户输出 token/s
chart-frontier = 帕累托前沿
chart-others = 其他配置
chart-recommended = 推荐：{ $config }

## 原始数据：结论下方的导出文件
label-data = 原始数据
export-csv = 全部运行（CSV）
export-json = 分析结果（JSON）
export-not-written = 本页输出时未附带图表和数据文件；`perflab build` 会把它们写在页面旁边，`perflab report --out DIR` 也会。

## 数值的可信程度：重复测量、引擎版本与注释
evidence-single-runs = 本页每个数字都来自单次运行：没有任何配置被测量过一次以上，因此本页无法给出置信区间，也无法说明再测一次结果会偏离多少。
evidence-single-runs-spread = 每个配置只测量了一次，唯有一个配置运行了 { $count } 次，这几次结果相差 { $spread }，可见同一配置的两次运行可能相差多少。单次运行无法给出置信区间。这些运行：{ $values }。
evidence-repeats = 每个数字都是 { $most } 次运行的平均值；收益后面的范围是其 { $confidence }% 置信区间，收益按该区间所能支持的精度取整。
evidence-repeats-range = 每个数字都是该配置 { $fewest } 到 { $most } 次运行的平均值（只运行一次的数字不给范围）；收益后面的范围是其 { $confidence }% 置信区间，收益按该区间所能支持的精度取整。
# 依据置信区间作出决定的各阶段总共花费的测量（`--until-confident` 把预算花在方差所在之处）。
evidence-decision-cost = 依据置信区间作出决定的各阶段，其两个候选配置共计 { $starts } 次引擎启动、{ $runs } 次基准测试运行，测量总计 { $minutes } 分钟。
# 同上，但没有任何一次启动记录了用时（手工放入的结果）。
evidence-decision-cost-untimed = 依据置信区间作出决定的各阶段，其两个候选配置共计 { $starts } 次引擎启动、{ $runs } 次基准测试运行。
age-measured-with = 测量所用引擎：{ $engines }。
# 结果中的一个引擎版本：“SGLang v0.5.9（2026-11-29）”。
age-engine = { $engine } { $version }（{ $dates }）
age-dates = { $first } 至 { $last }
age-date-unknown = 未记录日期
age-study-names = { $measured }；研究现在指定的版本为 { $version }
age-mixed = 这些结果混用了不同的引擎版本。下列运行所用的引擎版本或命令与其余运行不同，涉及它们的比较在重新测量之前不能成立（`perflab run --rerun-stale`）：
age-outdated = 这些结果测量之后，研究更换了引擎。下列运行尚未按研究当前指定的引擎重新测量（`perflab run --rerun-stale`）：
age-run = { $run }：{ $engine } { $version }，{ $date }；{ $reasons }
stale-version = 研究现在指定的版本为 { $version }
stale-engine = 现在基于 { $engine }
stale-command = 命令已变更：{ $changes }
stale-command-other = 命令已变更
stale-benchmark = 基准测试命令已变更
stale-dataset = 数据集文件的内容已变更
flags-added = 新增 { $flags }
flags-removed = 移除 { $flags }
heading-notes = 说明

## 数据警告
heading-data-warnings = 需谨慎解读的数据
data-warnings-intro = 以下测量值按原样列出，但不宜直接采信：
warning-baseline-failed = 基线 { $baseline } 未能测得结果：{ $class }。搜索改从第一阶段中成功运行的最佳配置 { $instead } 继续，本页所有收益均相对于它计算。
warning-unequal-gpus = “{ $stage }”阶段中各配置使用的 GPU 数量不同（{ $configurations }），但排序依据的是总{ $metric }，而不是每块 GPU 的数值：某个配置领先，可能只是因为它用了更多 GPU；按每块 GPU 计算，排名可能不同。
warning-unequal-gpus-item = { $config }（{ $gpus } 块 GPU）
warning-baseline-no-result = 没有留下结果
warning-lost-requests = { $run }：{ $expected } 个请求中仅完成 { $completed } 个，其吞吐量不可比较，不能成为阶段胜者。
warning-incomplete = { $run }：基准测试输出被截断，其数值未被采用。
warning-at-loads = { $warning }该情况出现在{ $unit } { $loads } 个请求的负载点。
warning-noisy = 同一配置测量了 { $count } 次，结果相差 { $spread }，超过 { $threshold } 的噪声阈值。
warning-implausible-peak = 有 { $count } 次运行报告的峰值输出吞吐量超出了它实际可能达到的上限（每个并发请求最多 { $stream_limit }，且不超过它生成的全部 token）。该数值是基准测试工具的统计错误，不予采用；相关运行列在页面末尾的表格中。
warning-implausible-peak-run = 报告 { $peak }，上限 { $ceiling }
warning-tpot-includes-waiting = 有 { $count } 次运行输出的“TPOT”是平均请求延迟除以输出 token 数，其中包含排队时间和等待首 token 的时间，并非相邻 token 之间的间隔；每次运行的计算见页面末尾的表格。
warning-tpot-includes-waiting-run = { $tpot } = { $latency } ÷ { $tokens } 个 token
warning-zero-latency = { $run }：运行生成了 token，但{ $metric }为 0。
warning-buffered-streams = { $run }：{ $completed } 个流中有 { $buffered } 个不是逐个、而是成批送达 token，因此该运行的 TTFT 和 ITL 反映的是服务器或代理对数据块的缓冲（未设置 TCP_NODELAY 时的 Nagle 算法、gzip、带缓冲的反向代理），而不是引擎本身。
warning-request-count = { $run }：输出统计了 { $counted } 个请求，而该场景发送的是 { $expected } 个。
warning-left-out = { $run }：`{ $file }` 中的这次测量在 { $expected } 个请求中只完成了 { $completed } 个，或输出被截断，因此不计入该运行的均值和区间。
warning-few-requests = { $run }：其{ $metric }仅由 { $requests } 个请求得出；请求数低于 { $needed } 时，这个数值就是最慢的那个请求或与之相差无几，不同运行之间的波动远大于均值。
# Data warnings: a run measured fewer times than the study asks for
warning-short-sample = { $run }：研究要求测量 { $wanted } 次，但只取得了 { $have } 次，均值仅由这些测量得出。它与测量次数更多的运行之间的比较都基于这个较小的样本；只有一次测量时无法给出区间。

## 与先前结果相比的变化（page.md.tera、diff.md.tera）
heading-changes = 变化
changes-intro = 与{ $since }相比（{ $versions }）。
changes-since-previous = 被这些测量取代的结果
changes-since-revision = 修订版 { $revision } 时的研究
changes-stage = 阶段
changes-best-before = 此前最佳
changes-best-now = 当前最佳
changes-adopted-now = 当前采用
changes-changed = 有变化
changes-yes = 是
changes-no = 否
changes-baseline = 基线，{ $metric }
changes-optimized = 优化后，{ $metric }
changes-figure = { $before } → { $after }（{ $change }）
changes-figure-noise = { $before } → { $after }（{ $change }，在噪声阈值之内）
changes-figure-unclear = { $before } → { $after }（{ $change }：这些运行无法把它与噪声区分开）
changes-command-same = 推荐命令没有变化。
changes-command = 推荐命令有变化：{ $changes }。
changes-command-engine = 推荐的引擎由 { $before } 改为 { $after }。
changes-command-launch = 推荐命令在参数之外也有变化（引擎的启动命令或环境变量）。
changes-command-before = 之前：
changes-command-after = 现在：
# The answer across three or more engine releases of a study's history
heading-releases = 各引擎版本间的变化
releases-intro = 本研究在其引擎的 { $count } 个版本上进行了测量。图表与表格给出每个版本下基线配置与优化后配置的{ $metric }；其后列出每个版本相对上一版本的变化。
releases-col-release = 版本
releases-col-date = 测量日期
releases-col-baseline = 基线
releases-col-optimized = 优化后
releases-col-gain = 提升
releases-changed = { $release } 带来的变化
chart-releases = 各引擎版本的{ $metric }
# perflab diff --releases: the whole history of releases, for a terminal
releases-history-intro = 本研究的历史记录包含其引擎的 { $count } 个版本。下表给出每个版本下基线配置与优化后配置的{ $metric }，以及每个阶段最终采用的配置；表后列出每个版本相对上一版本的变化。
releases-history-shown = 此处列出：{ $releases }。
releases-history-ran = { $release } 上优化后配置实际运行的命令：
releases-ran-changed = 与上一版本相比，优化后配置运行时的引擎命令有变化：{ $changes }。

## 实验环境：模型、硬件、引擎、基准测试方法与配置
heading-setup = 实验环境
setup-model = 模型
setup-hardware = 硬件
setup-date = 日期
setup-tool = 工具：{ $tool }
setup-runner = 执行方式：{ $runner }
heading-engines = 引擎版本
heading-benchmark = 基准测试方法
label-command-template = 命令模板
heading-profiles = 基准测试场景
# Benchmark profiles as runnable commands: the port they connect to
profiles-port = 以下命令连接 { $host }:{ $port } 上的引擎。本研究没有固定引擎的端口，请改成引擎实际监听的端口。
profiles-load = 在负载曲线的命令中，{ $placeholder } 代表负载：请填入要测量的那个点的并发数或请求速率。
# What the runs recorded of their machine and engine, beside the author's description
heading-recorded = 运行时记录的环境
recorded-intro = perflab 在每次启动引擎时从机器上读取的信息，与上文作者的描述并列。各次运行记录的值不一致时，每个值后列出使用该值的运行。
recorded-gpu-model = GPU
recorded-gpu-count = 每次启动的 GPU 数
recorded-gpu-memory = GPU 显存
recorded-gpu-driver = GPU 驱动
recorded-gpu-runtime = GPU 运行时
recorded-cpu-model = CPU
recorded-cpu-cores = CPU 核数
recorded-kernel = 内核
recorded-container = 容器
recorded-engine-version = { $of }（自报版本）
recorded-package = Python 包 { $of }
recorded-model-revision = 模型修订版本
recorded-perflab = perflab
recorded-value-runs = { $value }：{ $runs }
# The container image the engine ran in, and its digest
recorded-image = 容器镜像
recorded-image-digest = 镜像摘要

## 实验结果：各阶段的变体、排名、小结与决定
heading-results = 实验结果
variant-profile = 场景：{ $profile }
variant-changes = 改动：{ $changes }
variant-change-none = 不做改动：即本阶段所基于的配置，按原样测量。
variant-change-engine = 引擎 { $engine }
variant-change-model = 模型权重 { $model }
variant-change-unset = 去掉 { $flag }
variant-failed = 未能运行：{ $reason }。
# A failure shared from an identical configuration
variant-failure-shared = 与 { $source } 的配置相同，而该配置已失败，因此没有再次启动；其错误信息见下方。
variant-link = 上游讨论：{ $link }
variant-error = 错误信息
variant-missing = 尚未测量。
variant-reused = 与 { $source } 的配置相同，此处直接复用其测量结果。
variant-command = 启动命令
variant-result = 基准测试结果
raw-measurement = { $title }，第 { $k } 次测量，共 { $n } 次（`{ $file }`）
# What to run to measure a result again, and what it ran on (a collapsed block under the result)
reproduce-figure = 复现此结果：所用命令及测量时的机器
ranking = 排名：{ $ranking }
ranking-item = { $engine }（{ $value }）
ranking-lost = { $engine }（{ $value }，{ $expected } 个请求中仅完成 { $completed } 个）
ranking-not-supported = { $engine }（不支持）
ranking-failed = { $engine }（失败：{ $reason }）
ranking-not-measured = { $engine }（未测量）
label-summary = 小结
summary = { $best } 达到 { $best_value }，比 { $worst } 的 { $worst_value } { $direction ->
        [lower] 低
       *[higher] 高
    } { $gap }（{ $percent }）。{ $secondary }
summary-secondary = { $trend ->
        [lower] { $metric } 从 { $worst } 降至 { $best }，减少 { $diff }（{ $percent }）。
        [higher] { $metric } 从 { $worst } 升至 { $best }，增加 { $diff }（{ $kind ->
            [latency] 慢 { $percent }
           *[other] 多 { $percent }
        }）。
       *[same] 两者的 { $metric } 相同（{ $best }）。
    }
summary-both-at-least = { $best } 和 { $worst } 在搜索范围的上限（{ $best_value }）下都满足 SLO，这次搜索无法排出先后。{ $secondary }
summary-range = 最快与最慢相比：
summary-runner-up = 与第二名 { $variant }（{ $value }）相比：{ $gain }。
summary-over-base = 与本阶段所基于的配置 { $variant }（{ $value }）相比：{ $gain }。
summary-base-again = { $variant } 原样运行本阶段所基于的配置，这里测得 { $value }，与该配置此前测得的 { $earlier } 相比为 { $change }。本阶段的提升均相对此前的数值计算；同一配置的两次运行相差就有这么大。
label-decision = 决定
adoption-adopted = 采用 { $variant }，相对本阶段的起始配置 { $base } 提升 { $gain }。
adoption-within-noise = { $variant } 比 { $base } 好 { $gain }，但仍在 { $threshold } 的噪声阈值之内，因此不采用，继续沿用 { $base }。
adoption-not-better = 没有变体优于 { $base }，因此不采用，继续沿用 { $base }。
adoption-base-is-best = 不做改动：最佳变体 { $variant } 正是本阶段所基于的配置。
adoption-overridden = 作者决定采用 { $variant }（{ $gain }）。{ $reason }
adoption-overridden-none = 作者决定不采用任何变体，继续沿用 { $base }。{ $reason }
adoption-no-result = 没有变体得到可用结果，继续沿用 { $base }。
adoption-no-result-base = 本阶段所基于的 { $base } 没有可供比较的结果，无法计算收益；搜索改从本阶段成功运行的最佳配置 { $after } 继续。
adoption-no-result-zero-base = 本阶段所基于的 { $base } 测得为零，无法计算收益；不采用，继续沿用 { $base }。
adoption-cannot-tell = { $variant } 相对 { $base } 测得 { $gain }，但该区间包含零：差异可能只是噪声，因此暂不采用，继续沿用 { $base }，等待更多运行来判定（`perflab run --until-confident`）。
adoption-cannot-tell-threshold = { $variant } 相对 { $base } 测得 { $gain }；收益在 { $threshold } 的噪声阈值之内，但其区间超出了阈值，因此暂不采用，继续沿用 { $base }，等待更多运行来判定（`perflab run --until-confident`）。
adoption-within-noise-on = { $variant } 比 { $base } 好 { $gain }，但仍在 { $threshold } 的噪声阈值之内，因此不采用，搜索继续基于 { $after } 进行。
adoption-not-better-on = 没有变体优于 { $base }，因此不采用，搜索继续基于 { $after } 进行。
adoption-overridden-none-on = 按作者的决定不采用任何变体，搜索继续基于 { $after } 进行。{ $reason }
stage-excluded = 未写入推荐命令：{ $reason }
stage-per-gpu = 本阶段各配置使用的 GPU 数量不同：{ $configurations }。因此本阶段按单卡比较，把每个配置的{ $metric }除以它使用的 GPU 数量，也就是 GPU 数量固定时每种方案实际能带来的结果。本阶段的小结和决策都按单卡数值给出。
metric-per-gpu = 单卡{ $metric }
per-gpu = { $figure }（按单卡计）
# The accuracy gate of a stage that requires accuracy (one block, kept together).
accuracy-intro = 在{ $evaluation }上的精度（{ $questions } 道题），每个变体都与其所基于的配置比较，并给出 95% 区间：
accuracy-variant = 变体
accuracy-right = 答对比例
accuracy-difference = 差值（百分点）
accuracy-wrong = 答错的题目
accuracy-verdict = 结论
accuracy-points-interval = { $points }（{ $low } 至 { $high }）
accuracy-wrong-more = 另有 { $count } 道
accuracy-within = 在容差范围内
accuracy-below = 低于容差
accuracy-unclear = 题目太少，无法判断
accuracy-not-measured = 未测量
accuracy-is-base = 起始配置
accuracy-refused = { $variant }：{ $metric } { $gain }，但在{ $evaluation }上低 { $points } 个百分点：不采用。
accuracy-refused-floor = { $variant } 在{ $evaluation }上低于精度下限：不采用。
accuracy-cannot-tell = { $variant }：{ $evaluation }的题目太少，无法判断它是否保持了所要求的精度；{ $choice }
accuracy-unmeasured = { $variant }：该变体或其所基于的配置没有精度记录；{ $choice }
accuracy-choice-refuse = 本研究拒绝此类变体，因此不采用。
accuracy-choice-adopt = 本研究接受此类变体，因此由速度决定。

## 优化选项汇总
heading-options = 优化选项汇总
options-intro = 每行对应一个阶段。“相对基线”把该阶段的最佳变体与基线比较；“本阶段收益”把该阶段采用的配置与它所基于的配置比较，该阶段未采用任何变体时留空。
options-stage = 阶段
options-best = 最佳变体
options-vs-baseline = 相对基线
options-step = 本阶段收益
options-baseline = 基线
options-total = 合计（优化后相对基线）
options-not-adopted = { $gain }（未采用）
options-lost = { $variant }（成功率 { $rate }：{ $expected } 个请求中完成 { $completed } 个；未采用）
# Summary of options: a stage a later one builds without
options-left-out = { $step }，已测量但不计入总提升：“{ $stage }”建立在本阶段之前的配置之上

## 其他基准测试场景与准确性检查
heading-scenarios = 其他基准测试场景
scenarios-intro = 基线配置与优化后配置在每个场景下的原始基准测试结果，优化目标排在最前。
# Other benchmark scenarios: one line a scenario above its raw results
scenario-line = { $metric }：{ $baseline } → { $optimized }（{ $change }）
scenario-baseline-command = 基线启动命令
scenario-optimized-command = 优化后启动命令
scenario-baseline-result = 基线基准测试结果
scenario-optimized-result = 优化后基准测试结果
heading-accuracy = 精度验证

## 页面末尾：数据警告所涉运行的表格
# Site layout: the table of the runs behind the data warnings
heading-warning-runs = 数据警告涉及的运行
warning-runs-intro = 上文数据警告提到的每次运行，以及引发警告的数值。
table-warning = 警告
table-run = 运行
table-figures = 数值
warning-kind-noisy = 结果差异超出噪声
warning-kind-implausible-peak = 未采用的峰值吞吐量
warning-kind-tpot = 含等待时间的“TPOT”

## 各阶段图表与优化前后对比图
chart-stage = { $stage }：各变体的{ $metric }
chart-comparison = 各场景下基线与优化后的{ $metric }
chart-progression = 每个被采用阶段之后的{ $metric }
# Charts: the axis with its unit, and a bar's change against the bar it is compared with
chart-axis = { $metric }（{ $unit }）
chart-change = { $value }（{ $change }）
chart-adopted = { $value }（已采用）
chart-base = { $value }（基准）
chart-failed = 未运行：{ $reason }
chart-lost = { $value }，{ $expected } 个请求中仅完成 { $completed } 个
chart-incomplete = { $value }，结果被截断
chart-baseline = 基线
chart-optimized = 优化后

## 可直接嵌入的 Markdown：mkdocs-material 警告框的标题
admonition-warning = 注意

## 通用部分：数字格式、单位与标点
# 技术数据按千位用逗号分组，不换算成“万”：表格和图表里的数值要能与基准测试工具的原始输出逐位对照。
number-decimal-separator = .
number-group-separator = ,
# $sign 为 "+"、"−" 或空；$value 已格式化。
percent = { $sign }{ $value }%
# 倍数一律相对原来的值：速度是原来的几倍，或耗时是原来的几倍（“快 1.1 倍”常被读成快了 110%）。
ratio-faster = 速度为原来的 { $value } 倍
ratio-slower = 耗时为原来的 { $value } 倍
value-missing = 无
value-at-least = ≥ { $value }
value-at-limit = ≥ { $value }（搜索上限）
gain-at-least = 至少 { $gain }
gain-both-at-least = 未知：两者在范围上限处都满足 SLO
value-none = -
unit-ms = { $value } ms
unit-tok-s = { $value } tok/s
unit-req-s = { $value } req/s
unit-s = { $value } 秒
unit-requests = { $value } 个请求
unit-tokens = { $value } 个 token
figure-interval = { $figure }（{ $confidence }% 置信区间 { $low }–{ $high }）
list-separator = 、
label-separator = ：
# 一串变更中各项之间的分隔符（“新增 `--a`；`--b 1` → `--b 2`”）
clause-separator = ；
# 句与句之间不留空格：全角的“。”“：”之后直接接下一句。
sentence-separator = {""}
# 一次运行：“阶段 › 变体（场景）”；场景名自带括号时写成“阶段 › 变体 › 场景”，避免括号套括号。
run-title = { $stage } › { $variant }（{ $profile }）
run-title-nested = { $stage } › { $variant } › { $profile }

## 通用部分：指标名称
metric-total-tps = 总 token 吞吐量
metric-output-tps = 输出 token 吞吐量
metric-request-throughput = 请求吞吐量
metric-slo-load = 满足 SLO 的最大负载
metric-slo-goodput = 满足 SLO 的有效吞吐量
metric-mean-tpot = 平均 TPOT
metric-mean-ttft = 平均 TTFT
metric-mean-itl = 平均 ITL
metric-mean-e2el = 平均端到端延迟

## 通用部分：运行失败的原因
failure-oom = 显存不足（OOM）
failure-unsupported = 引擎不支持此配置
failure-start-failure = 服务无法启动
failure-start-timeout = 服务未在限定时间内就绪
failure-crash = 引擎在运行中崩溃
failure-benchmark-failure = 基准测试命令执行失败
failure-port-in-use = 引擎端口已被另一个服务占用
failure-requests-failed = 完成的请求太少，本次测量不计入
failure-time-limit = 作业达到集群的时间上限，被终止
failure-node-failure = 运行作业的集群节点发生故障
failure-cancelled = 作业已在集群上被取消
failure-job-out-of-memory = 作业使用的内存超过申请量，被集群终止
failure-slo-not-met = 所测的任何负载都未满足 SLO
