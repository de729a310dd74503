# 日本語カタログ：研究ページのすべての文とラベル。
# 用語はtemplates/i18n/glossary-cjk.tomlに従う（tests/catalogs.rsで検査）。
# 表記：全角文字と半角英数字のあいだにスペースを入れない。句読点は「、」「。」、括弧は全角（）。
# コマンド、フラグ、単位（ms、tok/s）は原文のまま。日本語には複数形がないので、数はすべて同じ形で書く。
# メッセージは読者がページ上で目にする順に並べ、共通部品は最後に置く。

## サイト：各ページのヘッダーとガイド一覧（layout.html.tera、index.html.tera）
language-name = 日本語
site-skip = 本文へスキップ
site-title = 推論サービング最適化ガイド
site-intro = 各ガイドは、特定のマシンでモデルを最も速くサービングする方法をステージごとに探します。ページ上の数値はすべて、ガイドに掲載した生のベンチマーク結果から計算しています。
site-languages = 言語
site-filter = モデル、ハードウェア、エンジンでガイドを探す：
site-studies = ガイド
site-headline = { $profile }で{ $metric }が{ $gain }
# 検索結果やリンクのプレビューでタイトルの下に出るページの説明：先に答え、次に目的。
site-description = { $profile }での{ $metric }：{ $gain }。
site-description-command = { $profile }での{ $metric }：推奨コマンドで{ $gain }、計測したもののコマンドに含めなかった設定も加えると{ $all }。
site-engines = エンジン：{ $engines }
# Index cards: an engine without a result, and the dates of the card's results, said once
site-engine-no-result = { $engine } { $version }（結果なし）
site-dates = 測定日：{ $first }～{ $last }
site-date = 測定日：{ $date }
site-dates-unknown = 測定日の記録なし
site-contents = このページの内容
site-copy = コピー
site-copied = コピーしました

## 結論：目標、推奨コマンド、最適化前後の比較表
heading-conclusion = 結論
label-goal = 目的
# The page's answer above the command
conclusion-result = { $profile }での{ $metric }：{ $baseline } → { $optimized }（{ $change }）。
conclusion-result-command = { $profile }での{ $metric }、推奨コマンドの場合：{ $baseline } → { $command }（{ $change }）。計測したもののコマンドに含めなかった設定も加えると：{ $optimized }（{ $all }）。
conclusion-unanswered = { $what ->
    [baseline] ベースラインには { $profile } での結果がまだありません
    [command] 各ステージが選んだ構成には { $profile } での結果がまだありません
   *[both] ベースラインにも各ステージが選んだ構成にも { $profile } での結果がまだありません
}。そのため、このページは結論を示さず、コマンドも推奨しません。未測定の項目と失敗した項目は `perflab plan` で確認できます。
conclusion-unanswered-stages = まだ何も測定されていないステージ：{ $stages }。
conclusion-intro = { $hardware }で{ $model }をサービングする推奨構成：
conclusion-excluded = 測定はしたものの、このコマンドには含めていません：{ $stage }。{ $reason }
heading-comparison = 最適化前後の比較
comparison-intro = ベースラインと最適化後の構成を、すべてのベンチマークプロファイルで比べたものです。「変化」の列は{ $metric }の比較で、ノイズしきい値を超える悪化は性能低下（リグレッション）として示します。
table-profile = ベンチマークプロファイル
table-target = { $profile }（最適化の対象）
table-target-command = { $profile }（最適化の対象、推奨コマンド）
table-baseline = ベースライン（{ $baseline }、デフォルト設定）
table-baseline-tuned = ベースライン（{ $baseline }）
table-optimized = 最適化後
table-change = { $metric }の変化
change-regression = { $change }（リグレッション）
change-lost = { $change }（{ $expected }件中{ $completed }件のみ完了）
change-incomplete = { $change }（途中で切れた結果）
comparison-excluded = 最適化後の測定には、上のコマンドから外した設定も含まれています。
# Site layout: what the before/after table's TPOT is when the tool printed latency ÷ tokens
comparison-tpot-note = ここでの平均TPOTはベンチマークツールが出力した値で、平均リクエストレイテンシを出力トークン数で割ったものです。キューでの待ち時間と最初のトークンまでの時間を含みます。

## サービスレベル目標の下での負荷曲線とそのグラフ
# サービスレベル目標の下での負荷曲線
curve-heading = SLO を満たす負荷：{ $profile }
curve-answer = 最適化後の構成は、{ $slo }を満たす条件で{ $unit }最大 { $load } リクエストを処理でき、ベースライン（{ $base }）の { $ratio } 倍です。
curve-answer-at-least = 探索範囲の上限（{ $unit } { $load } リクエスト）でも、最適化後の構成は{ $slo }を満たしました。ベースライン（{ $base }）の { $ratio } 倍以上です。
curve-answer-both-at-least = どちらの構成も、探索範囲の上限（{ $unit } { $load } リクエスト）まで{ $slo }を満たしました。差を確かめるには範囲を広げてください。
curve-answer-no-base = 最適化後の構成は、{ $slo }を満たす条件で{ $unit }最大 { $load } リクエストを処理できます。ベースラインは測定したどの負荷でも目標を満たしませんでした。
curve-answer-none = どちらの構成も、測定したどの負荷でも{ $slo }を満たしませんでした。
curve-unit-concurrency = 同時
curve-unit-rate = 毎秒
# Load curves searched once an engine start (repeats): each search's boundary
curve-searches = { $config } は負荷曲線を { $count } 回、毎回エンジンを起動し直して探索し、次の境界を得ました：{ $loads }。上の数値はこれらの探索の平均です。表とグラフには最新の探索を示します。
curve-stop = { $config }：{ $points } 回測定。{ $why }
curve-why-resolution = 境界は正確です。負荷 { $at } は { $at_runs } 回中 { $met } 回 SLO を満たし、負荷 { $above } は { $above_runs } 回中 { $missed } 回 SLO を超えました。
curve-why-upper-bound = 上限 { $max } までのすべての負荷で SLO を満たしたため、この構成はさらに多くを処理できる可能性があります。
curve-why-below-lower-bound = 最小の負荷 { $min } でも SLO を超えました。
curve-why-budget = 測定点の上限に達したため、境界は { $boundary } と { $above } の間にあります。
curve-why-budget-open = どの負荷も SLO を超える前に、{ $boundary } より上で測定点の上限に達しました。
curve-why-plateau = スループットが { $boundary } で伸びなくなったため、それより大きな負荷は測定していません。
curve-why-list-done = 一覧のすべての負荷を測定しました。
curve-why-unfinished = 探索はまだ終わっていません。`perflab run` はこれらの点から続けます。
curve-why-step = 負荷 { $boundary } は SLO を満たし、負荷 { $above } は超えました。探索は刻み幅より細かくは測らないため、境界は { $boundary } から { $last } の間にあります。
curve-why-band = 答えは一つの負荷ではなく幅を持ちます。負荷 { $low } は SLO を満たし、負荷 { $high } はすべての測定で超えましたが、その間の負荷は SLO を超えた回数が満たした回数以上でした（{ $mixed }）。
curve-mixed-load = { $load }：{ $runs } 回中 { $met } 回満たす
curve-why-failed = 負荷 { $load } の測定が { $count } 回失敗したため（{ $class }）、探索はそこで止まりました。曲線が欠けているため、この構成は失敗として扱います。
curve-failures = { $config }：負荷 { $loads } で { $count } 回の測定が結果を残せませんでした（{ $classes }）。探索はこれらの負荷をエンジンを起動し直して測り直したため、どの境界も失敗した測定には依存しません。
curve-failed-point = ✗ 失敗：{ $class }
curve-met-of = { $runs } 回中 { $met } 回満たす
curve-violations = { $config } の曲線は単調ではありません：負荷 { $loads } は SLO を超えた負荷より大きいのに SLO を満たしました。
curve-kept-up = { $config } の負荷 { $loads }：同時に処理中のリクエストが指定負荷の 80% に届かず、この点は名目より小さな負荷を測っています。
curve-col-concurrency = 同時リクエスト数
curve-col-rate = 毎秒リクエスト数
curve-met = ✓ SLO を満たす
curve-how-judged = 負荷が SLO を満たすかどうかは、その測定の集計値が{ $slo }を満たすかで判定します。goodput はそれとは別に、すべてのレイテンシ制限を個々に満たしたリクエストの数を数えます。そのため、SLO を満たす負荷でも、制限を超えるリクエストが一部に出ることがあります。
curve-broken = ✗ SLO を超える
curve-goodput = グッドプット { $value }（{ $total } 件中 { $good } 件が上限内）
curve-buffered = ⚠ { $count } 本のストリームがまとめて到着：レイテンシはバッファリングを測っています
slo-limit = { $stat } { $latency } { $value }
slo-and = { $list }、{ $last }
slo-success = 成功率 { $share }% 以上
slo-success-all = 全リクエストの成功
slo-stat-mean = 平均
slo-stat-median = 中央値
slo-stat-p90 = p90
slo-stat-p95 = p95
slo-stat-p99 = p99
chart-curve = 負荷に対する{ $metric }：{ $profile }
chart-slo-line = SLO：{ $limit }
chart-boundary = 境界：{ $load }
chart-boundary-at-least = { $load } 以上（探索の上限）
chart-pareto = 各構成の SLO 境界における GPU あたりのスループットとユーザーあたりの速度：{ $profile }
chart-per-gpu = GPU あたり出力 token/s
chart-per-user = ユーザーあたり出力 token/s
chart-frontier = パレートフロンティア
chart-others = その他の構成
chart-recommended = 推奨：{ $config }

## 生データ：結論の下に置くエクスポート
label-data = 生データ
export-csv = 全実行（CSV）
export-json = 分析結果（JSON）
export-not-written = このページはグラフとデータファイルなしで出力されたもので、それらは `perflab build` または `perflab report --out DIR` がページの隣に書き出します。

## 数値の確からしさ：繰り返し測定、エンジンのバージョン、注記
evidence-single-runs = このページの数値はすべて1回の実行によるものです。2回以上測定した構成がないため、信頼区間も、もう一度実行したときにどれだけ結果がずれるかも示せません。
evidence-single-runs-spread = どの構成も1回ずつの測定ですが、1つだけ{ $count }回実行しており、その結果には{ $spread }の開きがあります。同じ構成でも実行ごとにこれだけ差が出ることがわかります。単発の実行からは信頼区間を出せません。該当する実行：{ $values }。
evidence-repeats = 各数値は{ $most }回の実行の平均です。改善率のあとの範囲はその{ $confidence }%信頼区間で、改善率は区間が裏づける桁まで丸めています。
evidence-repeats-range = 各数値は、その構成の{ $fewest }～{ $most }回の実行の平均です（1回だけの数値には範囲がありません）。改善率のあとの範囲はその{ $confidence }%信頼区間で、改善率は区間が裏づける桁まで丸めています。
# 信頼区間で決めたステージの測定コストの合計（`--until-confident` は分散のあるところに予算を使います）。
evidence-decision-cost = 信頼区間で決めたステージは、2つの候補を合わせて{ $starts }回のエンジン起動と{ $runs }回のベンチマーク実行に基づいており、測定には合計{ $minutes }分かかりました。
# 同上。ただし、どの起動も所要時間を記録していない場合（手で置いた結果）。
evidence-decision-cost-untimed = 信頼区間で決めたステージは、2つの候補を合わせて{ $starts }回のエンジン起動と{ $runs }回のベンチマーク実行に基づいています。
age-measured-with = 測定に使ったエンジン：{ $engines }。
# 結果に含まれるエンジンの1バージョン：「SGLang v0.5.9（2026-11-29）」。
age-engine = { $engine } { $version }（{ $dates }）
age-dates = { $first }～{ $last }
age-date-unknown = 日付の記録なし
age-study-names = { $measured }。研究では現在バージョン{ $version }を指定
age-mixed = これらの結果にはエンジンのバージョンが混在しています。以下の実行はほかと異なるエンジンのバージョンまたはコマンドで測定されたため、それらを含む比較は再測定するまで成り立ちません（`perflab run --rerun-stale`）：
age-outdated = これらの結果を測定したあと、研究のエンジン指定が変わりました。以下の実行は、現在の指定ではまだ再測定されていません（`perflab run --rerun-stale`）：
age-run = { $run }：{ $engine } { $version }、{ $date }。{ $reasons }
stale-version = 研究では現在バージョン{ $version }を指定
stale-engine = 現在は{ $engine }を土台にしている
stale-command = コマンドが変わった：{ $changes }
stale-command-other = コマンドが変わった
stale-benchmark = ベンチマークコマンドが変わった
stale-dataset = データセットファイルの内容が変わった
flags-added = { $flags }を追加
flags-removed = { $flags }を削除
heading-notes = 補足

## データに関する注意
heading-data-warnings = 読む際に注意が必要なデータ
data-warnings-intro = 以下の測定値は記録どおりに示していますが、額面どおりには受け取れません。
warning-baseline-failed = ベースライン { $baseline } は測定できませんでした（{ $class }）。探索は最初のステージで動作した最良の構成 { $instead } から続け、このページの改善幅はすべてこの構成を基準にしています。
warning-unequal-gpus = 「{ $stage }」ステージでは、使う GPU の数が異なる構成（{ $configurations }）を、GPU あたりではなく合計の{ $metric }で順位付けしています。GPU が多いというだけで上位に来ることがあり、GPU あたりで比べると順位が入れ替わる可能性があります。
warning-unequal-gpus-item = { $config }（GPU { $gpus } 基）
warning-baseline-no-result = 結果が残っていない
warning-lost-requests = { $run }：{ $expected }件のリクエストのうち完了したのは{ $completed }件だけなので、スループットは比較できず、ステージの勝者にもなりません。
warning-incomplete = { $run }：ベンチマークの出力が途中で切れているため、その数値は使いません。
warning-at-loads = { $warning }この状況は{ $unit } { $loads } リクエストの負荷点で見られます。
warning-noisy = 同じ構成を{ $count }回測定したところ、結果に{ $spread }の開きがあり、{ $threshold }のノイズしきい値を超えています。
warning-implausible-peak = { $count }件の実行が、実際に出しえた量を上回るピーク出力スループットを報告しています（同時リクエストあたり最大{ $stream_limit }で、生成した全トークンを超えない）。この値はベンチマークツールの集計誤りなので使いません。該当する実行はページ末尾の表にあります。
warning-implausible-peak-run = 報告値{ $peak }（上限{ $ceiling }）
warning-tpot-includes-waiting = { $count }件の実行が出力している「TPOT」は、平均リクエストレイテンシを出力トークン数で割った値です。キューでの待ち時間と最初のトークンまでの時間を含み、トークン間隔ではありません。各実行の計算はページ末尾の表にあります。
warning-tpot-includes-waiting-run = { $tpot } = { $latency } ÷ { $tokens }トークン
warning-zero-latency = { $run }：トークンを生成しているのに{ $metric }が0です。
warning-buffered-streams = { $run }：{ $completed } 本のストリームのうち { $buffered } 本がトークンを一つずつではなくまとめて届けたため、この実行の TTFT と ITL はエンジンではなく、チャンクを溜めるサーバーやプロキシ（TCP_NODELAY なしの Nagle アルゴリズム、gzip、バッファリングするリバースプロキシ）を測っています。
warning-request-count = { $run }：プロファイルが送るリクエストは{ $expected }件ですが、出力では{ $counted }件と数えられています。
warning-left-out = { $run }：`{ $file }`の測定は{ $expected }件のリクエストのうち{ $completed }件しか完了しなかったか、出力が途中で切れているため、この実行の平均と区間には含めません。
warning-few-requests = { $run }：この{ $metric }は{ $requests }件のリクエストから求めた値です。{ $needed }件に満たないと最も遅いリクエストとほぼ同じ値になり、実行ごとのばらつきも平均よりはるかに大きくなります。
# Data warnings: a run measured fewer times than the study asks for
warning-short-sample = { $run }：研究が求める{ $wanted }回の測定のうち取れたのは{ $have }回だけで、平均はその測定から求めています。測定回数の多い実行との比較はこの小さな標本に基づくもので、測定が1回だけでは区間を示せません。

## 以前の結果からの変更点（page.md.tera、diff.md.tera）
heading-changes = 変更点
changes-intro = { $since }との比較（{ $versions }）。
changes-since-previous = 今回の測定で置き換えた結果
changes-since-revision = リビジョン{ $revision }時点の研究
changes-stage = ステージ
changes-best-before = 以前の最良
changes-best-now = 現在の最良
changes-adopted-now = 現在の採用
changes-changed = 変更
changes-yes = あり
changes-no = なし
changes-baseline = ベースライン、{ $metric }
changes-optimized = 最適化後、{ $metric }
changes-figure = { $before } → { $after }（{ $change }）
changes-figure-noise = { $before } → { $after }（{ $change }、ノイズしきい値の範囲内）
changes-figure-unclear = { $before } → { $after }（{ $change }：ノイズと区別できない）
changes-command-same = 推奨コマンドに変更はありません。
changes-command = 推奨コマンドが変わりました：{ $changes }。
changes-command-engine = 推奨エンジンが{ $before }から{ $after }に変わりました。
changes-command-launch = 推奨コマンドがフラグ以外の部分（エンジンのコマンドまたは環境変数）で変わりました。
changes-command-before = 以前：
changes-command-after = 現在：
# The answer across three or more engine releases of a study's history
heading-releases = エンジンのリリースごとの推移
releases-intro = この調査はエンジンの { $count } つのリリースで測定されました。グラフと表は、各リリースでのベースライン構成と最適化後の構成の{ $metric }を示します。その下に、各リリースが前のリリースから何を変えたかを示します。
releases-col-release = リリース
releases-col-date = 測定日
releases-col-baseline = ベースライン
releases-col-optimized = 最適化後
releases-col-gain = 向上
releases-changed = { $release } での変化
chart-releases = エンジンのリリースごとの{ $metric }
# perflab diff --releases: the whole history of releases, for a terminal
releases-history-intro = この調査の履歴には、エンジンの { $count } つのリリースが含まれます。下の表は、各リリースでのベースライン構成と最適化後の構成の{ $metric }と、各ステージで採用された構成を示します。その下に、各リリースが前のリリースから何を変えたかを示します。
releases-history-shown = ここに示すリリース：{ $releases }。
releases-history-ran = { $release } で最適化後の構成が実行したコマンド：
releases-ran-changed = 最適化後の構成を実行したエンジンのコマンドが前のリリースから変わりました：{ $changes }。

## 実験環境：モデル、ハードウェア、エンジン、ベンチマーク手法、プロファイル
heading-setup = 実験環境
setup-model = モデル
setup-hardware = ハードウェア
setup-date = 日付
setup-tool = ツール：{ $tool }
setup-runner = 実行方法：{ $runner }
heading-engines = エンジンのバージョン
heading-benchmark = ベンチマーク手法
label-command-template = コマンドのテンプレート
heading-profiles = ベンチマークプロファイル
# Benchmark profiles as runnable commands: the port they connect to
profiles-port = 以下のコマンドは { $host }:{ $port } のエンジンに接続します。この検証ではエンジンのポートを固定していません。エンジンが実際に待ち受けているポートに書き換えてください。
profiles-load = 負荷曲線のコマンドでは { $placeholder } が負荷を表します。測定したい点の同時実行数またはリクエストレートを入れてください。
# What the runs recorded of their machine and engine, beside the author's description
heading-recorded = 実行時に記録された環境
recorded-intro = perflab がエンジンを起動するたびにマシンから読み取った情報で、上記の作者による記述と並べて示します。実行ごとに値が異なる場合は、各値のあとにその値で動いた実行を挙げます。
recorded-gpu-model = GPU
recorded-gpu-count = 起動あたりの GPU 数
recorded-gpu-memory = GPU メモリ
recorded-gpu-driver = GPU ドライバー
recorded-gpu-runtime = GPU ランタイム
recorded-cpu-model = CPU
recorded-cpu-cores = CPU コア数
recorded-kernel = カーネル
recorded-container = コンテナー
recorded-engine-version = { $of }（自己申告のバージョン）
recorded-package = Python パッケージ { $of }
recorded-model-revision = モデルのリビジョン
recorded-perflab = perflab
recorded-value-runs = { $value }：{ $runs }
# The container image the engine ran in, and its digest
recorded-image = コンテナーイメージ
recorded-image-digest = イメージのダイジェスト

## 実験結果：各ステージのバリアント、順位、まとめ、判断
heading-results = 実験結果
variant-profile = プロファイル：{ $profile }
variant-changes = 変更点：{ $changes }
variant-change-none = 変更なし：このステージの土台となる構成を、そのまま測定したもの。
variant-change-engine = エンジン{ $engine }
variant-change-model = チェックポイント{ $model }
variant-change-unset = { $flag }なし
variant-failed = 実行できませんでした：{ $reason }。
# A failure shared from an identical configuration
variant-failure-shared = { $source }と同じ構成で、そちらが失敗したため再起動していません。エラーは下に示します。
variant-link = 上流での議論：{ $link }
variant-error = エラーメッセージ
variant-missing = まだ測定していません。
variant-reused = { $source }と同じ構成のため、その測定結果をここで再利用しています。
variant-command = 起動コマンド
variant-result = ベンチマーク結果
raw-measurement = { $title }、測定 { $k }/{ $n }（`{ $file }`）
# What to run to measure a result again, and what it ran on (a collapsed block under the result)
reproduce-figure = この結果を再現する：コマンドと測定したマシン
ranking = 順位：{ $ranking }
ranking-item = { $engine }（{ $value }）
ranking-lost = { $engine }（{ $value }、{ $expected }件中{ $completed }件のみ完了）
ranking-not-supported = { $engine }（非対応）
ranking-failed = { $engine }（失敗：{ $reason }）
ranking-not-measured = { $engine }（未測定）
label-summary = 要約
summary = { $best }は{ $best_value }で、{ $worst }の{ $worst_value }より{ $gap }{ $direction ->
        [lower] 低い
       *[higher] 高い
    }値です（{ $percent }）。{ $secondary }
summary-secondary = { $trend ->
        [lower] { $metric }は{ $worst }から{ $best }に下がり、{ $diff }（{ $percent }）減っています。
        [higher] { $metric }は{ $worst }から{ $best }に上がり、{ $diff }増えています（{ $kind ->
            [latency] { $percent }遅い
           *[other] { $percent }増
        }）。
       *[same] { $metric }はどちらも同じです（{ $best }）。
    }
summary-both-at-least = { $best }と{ $worst }はどちらも探索範囲の上限（{ $best_value }）で SLO を満たしたため、この探索では順位を付けられません。{ $secondary }
summary-range = 最速と最遅の比較：
summary-runner-up = 2位の{ $variant }（{ $value }）との比較：{ $gain }。
summary-over-base = このステージの土台である{ $variant }（{ $value }）との比較：{ $gain }。
summary-base-again = { $variant }はこのステージの土台となる構成をそのまま動かしたもので、ここでは{ $value }でした。同じ構成を以前に測った{ $earlier }と比べると{ $change }です。このステージの向上率は以前の値を基準にしており、同じ構成でも 2 回の実行でこれだけ差が出ます。
label-decision = 判断
adoption-adopted = { $variant }を採用します。このステージの出発点である{ $base }に対して{ $gain }です。
adoption-within-noise = { $variant }は{ $base }を{ $gain }上回りましたが、{ $threshold }のノイズしきい値の範囲内のため採用せず、{ $base }のままとします。
adoption-not-better = { $base }を上回るバリアントがないため採用せず、{ $base }のままとします。
adoption-base-is-best = 変更はありません。最良のバリアント{ $variant }は、このステージが土台にしている構成そのものです。
adoption-overridden = 著者の判断で{ $variant }を採用します（{ $gain }）。{ $reason }
adoption-overridden-none = 著者の判断で何も採用せず、{ $base }のままとします。{ $reason }
adoption-no-result = 使える結果を出したバリアントがないため、{ $base }のままとします。
adoption-no-result-base = このステージの土台である{ $base }に比較できる結果がないため、改善幅は示せません。探索はこのステージで動作した最良の構成である{ $after }から続けます。
adoption-no-result-zero-base = このステージの土台である{ $base }の測定値がゼロのため改善率を計算できません。採用せず、{ $base }のままとします。
adoption-cannot-tell = { $variant }は{ $base }に対して{ $gain }でしたが、その区間はゼロを含みます。差はノイズかもしれないため、まだ採用せず、実行を重ねて判断できるまで{ $base }のままとします（`perflab run --until-confident`）。
adoption-cannot-tell-threshold = { $variant }は{ $base }に対して{ $gain }でした。改善は{ $threshold }のノイズしきい値の範囲内ですが、区間はしきい値を超えているため、まだ採用せず、実行を重ねて判断できるまで{ $base }のままとします（`perflab run --until-confident`）。
adoption-within-noise-on = { $variant }は{ $base }を{ $gain }上回りましたが、{ $threshold }のノイズしきい値の範囲内のため採用せず、探索は{ $after }のまま続けます。
adoption-not-better-on = { $base }を上回るバリアントがないため採用せず、探索は{ $after }のまま続けます。
adoption-overridden-none-on = 著者の判断で何も採用せず、探索は{ $after }のまま続けます。{ $reason }
stage-excluded = 推奨コマンドには含めていません：{ $reason }
stage-per-gpu = このステージの構成は、使う GPU の数がそれぞれ異なります：{ $configurations }。そのため GPU 1 基あたりで比較します。各構成の{ $metric }を GPU の数で割った値で、GPU の数が決まっているときに各構成から実際に得られるものです。このステージのまとめと判断は GPU 1 基あたりの値に基づきます。
metric-per-gpu = GPU 1 基あたりの{ $metric }
per-gpu = { $figure }（GPU 1 基あたり）
# The accuracy gate of a stage that requires accuracy (one block, kept together).
accuracy-intro = { $evaluation }での精度（{ $questions } 問）。各バリアントを、その土台となる構成と 95% 区間付きで比較します：
accuracy-variant = バリアント
accuracy-right = 正答率
accuracy-difference = 差（ポイント）
accuracy-wrong = 誤答した問題
accuracy-verdict = 判定
accuracy-points-interval = { $points }（{ $low }〜{ $high }）
accuracy-wrong-more = ほか { $count } 問
accuracy-within = 許容範囲内
accuracy-below = 許容範囲を下回る
accuracy-unclear = 問題数が少なく判定できない
accuracy-not-measured = 未測定
accuracy-is-base = 開始時の構成
accuracy-refused = { $variant }：{ $metric }は{ $gain }ですが、{ $evaluation }では { $points } ポイント低いため採用しません。
accuracy-refused-floor = { $variant }は{ $evaluation }で精度の下限を下回るため採用しません。
accuracy-cannot-tell = { $variant }：{ $evaluation }の問題数では、求める精度を保っているか判定できません。{ $choice }
accuracy-unmeasured = { $variant }：このバリアントにも土台の構成にも精度の記録がありません。{ $choice }
accuracy-choice-refuse = この調査はそのようなバリアントを採用しない方針のため、採用しません。
accuracy-choice-adopt = この調査はそのようなバリアントを受け入れる方針のため、速度で決めます。

## 最適化オプションのまとめ
heading-options = 最適化オプションのまとめ
options-intro = 1行が1つのステージです。「ベースライン比」はステージの最良バリアントをベースラインと比べ、「ステップの改善」はそのステージで採用した構成を、土台にした構成と比べます。何も採用しなかったステージでは空欄です。
options-stage = ステージ
options-best = 最良のバリアント
options-vs-baseline = ベースライン比
options-step = ステップの改善
options-baseline = ベースライン
options-total = 合計（最適化後とベースラインの比較）
options-not-adopted = { $gain }（不採用）
options-lost = { $variant }（成功率{ $rate }：{ $expected }件中{ $completed }件完了、採用せず）
# Summary of options: a stage a later one builds without
options-left-out = { $step }（測定済みだが合計には含めない。「{ $stage }」はこのステージより前の構成を土台にしている）

## その他のベンチマークシナリオと精度チェック
heading-scenarios = その他のベンチマークシナリオ
scenarios-intro = ベースライン構成と最適化後の構成の、各プロファイルでの生のベンチマーク結果です。最適化の対象を先頭に示します。
# Other benchmark scenarios: one line a scenario above its raw results
scenario-line = { $metric }：{ $baseline } → { $optimized }（{ $change }）
scenario-baseline-command = ベースラインの起動コマンド
scenario-optimized-command = 最適化後の起動コマンド
scenario-baseline-result = ベースラインのベンチマーク結果
scenario-optimized-result = 最適化後のベンチマーク結果
heading-accuracy = 精度の確認

## ページ末尾：データに関する注意の根拠となった実行の表
# Site layout: the table of the runs behind the data warnings
heading-warning-runs = データに関する注意の根拠となった実行
warning-runs-intro = 上のデータに関する注意で挙げた実行と、注意のきっかけになった値です。
table-warning = 注意
table-run = 実行
table-figures = 値
warning-kind-noisy = 結果のばらつき
warning-kind-implausible-peak = 使わないピークスループット
warning-kind-tpot = 待ち時間を含む「TPOT」

## 各ステージのグラフと最適化前後の比較グラフ
chart-stage = { $stage }：各バリアントの{ $metric }
chart-comparison = プロファイルごとのベースラインと最適化後の{ $metric }
chart-progression = 採用したステージごとの{ $metric }
# Charts: the axis with its unit, and a bar's change against the bar it is compared with
chart-axis = { $metric }（{ $unit }）
chart-change = { $value }（{ $change }）
chart-adopted = { $value }（採用）
chart-base = { $value }（土台）
chart-failed = 未実行：{ $reason }
chart-lost = { $value }、{ $expected }件中{ $completed }件のみ完了
chart-incomplete = { $value }、途中で切れた結果
chart-baseline = ベースライン
chart-optimized = 最適化後

## そのまま組み込める Markdown：mkdocs-material の警告ボックスの見出し
admonition-warning = 注意

## 共通部品：数値の書式、単位、句読点
# 技術的な数値は3桁ごとのカンマ区切りで書き、「万」には換算しない（ベンチマークツールの出力と桁をそのまま照合できるように）。
number-decimal-separator = .
number-group-separator = ,
# $signは "+"、"−" または空。$valueは書式化済み。
percent = { $sign }{ $value }%
ratio-faster = { $value }倍高速
ratio-slower = 所要時間{ $value }倍
value-missing = なし
value-at-least = ≥ { $value }
value-at-limit = ≥ { $value }（探索の上限）
gain-at-least = { $gain } 以上
gain-both-at-least = 不明：どちらも範囲の上限で SLO を満たしました
value-none = -
unit-ms = { $value } ms
unit-tok-s = { $value } tok/s
unit-req-s = { $value } req/s
unit-s = { $value }秒
unit-requests = { $value }件のリクエスト
unit-tokens = { $value }トークン
figure-interval = { $figure }（{ $confidence }%信頼区間{ $low }～{ $high }）
list-separator = 、
label-separator = ：
# 変更点を並べるときの区切り（「`--a`を追加；`--b 1` → `--b 2`」）
clause-separator = ；
# 文と文のあいだは空けない（全角の「。」「：」のあとにそのまま続ける）。
sentence-separator = {""}
# 1回の実行：「ステージ › バリアント（プロファイル）」。プロファイル名に括弧があるときは「ステージ › バリアント › プロファイル」とし、括弧を入れ子にしない。
run-title = { $stage } › { $variant }（{ $profile }）
run-title-nested = { $stage } › { $variant } › { $profile }

## 共通部品：メトリクス名
metric-total-tps = 合計トークンスループット
metric-output-tps = 出力トークンスループット
metric-request-throughput = リクエストスループット
metric-slo-load = SLO を満たす最大負荷
metric-slo-goodput = SLO 内のグッドプット
metric-mean-tpot = 平均TPOT
metric-mean-ttft = 平均TTFT
metric-mean-itl = 平均ITL
metric-mean-e2el = 平均エンドツーエンドレイテンシ

## 共通部品：実行が失敗した理由
failure-oom = メモリ不足（OOM）
failure-unsupported = エンジンがこの構成を受け付けない
failure-start-failure = サーバーが起動しない
failure-start-timeout = サーバーが時間内に準備完了にならなかった
failure-crash = 実行中にエンジンがクラッシュした
failure-benchmark-failure = ベンチマークコマンドが失敗した
failure-port-in-use = エンジンのポートで別のサーバーがすでに待ち受けていた
failure-requests-failed = 完了したリクエストが少なすぎ、測定として数えられない
failure-time-limit = クラスタが制限時間でジョブを停止した
failure-node-failure = ジョブを実行していたクラスタのノードが故障した
failure-cancelled = クラスタ上でジョブがキャンセルされた
failure-job-out-of-memory = 要求量を超えるメモリを使ったため、クラスタがジョブを停止した
failure-slo-not-met = 測定したどの負荷でも SLO を満たさなかった
