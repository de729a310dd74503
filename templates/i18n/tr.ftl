# Türkçe katalog: bir çalışma sayfasındaki bütün cümle ve etiketler.
# İletiler, okurun sayfada onlarla karşılaştığı sırayı izler; ortak parçalar en sondadır.

## Site: her sayfanın üst kısmı ve rehber dizini (layout.html.tera, index.html.tera)
language-name = Türkçe
site-skip = İçeriğe geç
site-title = Model sunumu optimizasyon rehberleri
site-intro = Her rehber, bir modeli belirli bir donanımda en hızlı sunmanın yolunu aşama aşama arar. Rehberdeki her sayı, rehberin gösterdiği ham benchmark sonuçlarından hesaplanır.
site-languages = Diller
site-filter = Rehberi modele, donanıma ya da motora göre bulun:
site-studies = Rehberler
site-headline = { $metric }: { $gain } ({ $profile })
# Arama sonucunda ve bağlantı önizlemesinde başlığın altındaki açıklama: önce sonuç, sonra hedef
site-description = { $metric }: { $gain }, hedef profil “{ $profile }”.
site-description-command = { $metric }: önerilen komutla { $gain }, ölçülüp komuta alınmayan ayarlar da eklendiğinde { $all }; hedef profil “{ $profile }”.
site-engines = Motorlar: { $engines }
# Index cards: an engine without a result, and the dates of the card's results, said once
site-engine-no-result = { $engine } { $version } (sonuç yok)
site-dates = ölçüm tarihleri: { $first } – { $last }
site-date = ölçüm tarihi: { $date }
site-dates-unknown = ölçüm tarihleri kaydedilmemiş
site-contents = Bu sayfada
site-copy = Kopyala
site-copied = Kopyalandı

## Sonuç: hedef, önerilen komut ve önce/sonra tablosu
heading-conclusion = Sonuç
label-goal = Optimizasyon hedefi
# The page's answer above the command
conclusion-result = { $metric }: { $baseline } → { $optimized } ({ $change }), hedef profil “{ $profile }”.
conclusion-result-command = { $metric }: önerilen komutla { $baseline } → { $command } ({ $change }), hedef profil “{ $profile }”. Ölçülüp komuta alınmayan ayarlar da eklendiğinde: { $optimized } ({ $all }).
conclusion-unanswered = { $what ->
    [baseline] Temel yapılandırmanın { $profile } üzerinde henüz bir sonucu yok
    [command] Aşamaların seçtiği yapılandırmanın { $profile } üzerinde henüz bir sonucu yok
   *[both] { $profile } üzerinde ne temel yapılandırmanın ne de aşamaların seçtiği yapılandırmanın henüz bir sonucu var
}; bu yüzden sayfa bir yanıt vermiyor ve bir komut önermiyor. Neyin beklediğini ve neyin başarısız olduğunu `perflab plan` listeler.
conclusion-unanswered-stages = Henüz hiçbir ölçümü olmayan aşamalar: { $stages }.
conclusion-intro = { $model } modelini { $hardware } üzerinde sunmak için önerilen yapılandırma:
conclusion-excluded = { $stage } aşaması ölçüldü, ancak bu komuta alınmadı. { $reason }
heading-comparison = Optimizasyon öncesi ve sonrası
comparison-intro = Temel ve optimize edilmiş yapılandırmanın sonuçları yan yana; her benchmark profili bir satırda. Değişim sütunu { $metric } değerini karşılaştırır; gürültü eşiğini aşan kayıplar gerileme olarak işaretlenir.
table-profile = Benchmark profili
table-target = { $profile } (optimizasyon hedefi)
table-target-command = { $profile } (optimizasyon hedefi, önerilen komut)
table-baseline = Temel yapılandırma ({ $baseline }, varsayılan ayarlar)
table-baseline-tuned = Temel yapılandırma ({ $baseline })
table-optimized = Optimize edilmiş
table-change = { $metric } değişimi
change-regression = { $change } (gerileme)
change-lost = { $change } ({ $expected } isteğin yalnızca { $completed } tanesi tamamlandı)
change-incomplete = { $change } (yarıda kesilmiş sonuç)
comparison-excluded = Optimize edilmiş koşular, yukarıdaki komuta alınmayan ayarları da içerir.
# Site layout: what the before/after table's TPOT is when the tool printed latency ÷ tokens
comparison-tpot-note = Buradaki ortalama TPOT, benchmark aracının verdiği değerdir: ortalama istek gecikmesinin çıkış token sayısına bölümü. Kuyrukta bekleme ve ilk token'ın süresi de buna dahildir.

## Hizmet düzeyi hedefi altında yük eğrileri ve grafikleri
# Hizmet düzeyi hedefi altında yük eğrileri
curve-heading = SLO içinde kalan yük: { $profile }
curve-answer = Optimize edilmiş yapılandırma, { $slo } koşuluyla { $unit } { $load } isteğe kadar hizmet veriyor; bu, temel yapılandırmanın { $base } değerinin { $ratio } katı.
curve-answer-at-least = Optimize edilmiş yapılandırma, aranan aralığın üst ucu olan { $unit } { $load } istekte bile { $slo } koşulunu sağladı; bu, temel yapılandırmanın { $base } değerinin en az { $ratio } katı.
curve-answer-both-at-least = İki yapılandırma da aranan aralığın üst ucuna, { $unit } { $load } isteğe kadar { $slo } koşulunu sağladı; aralarındaki farkı görmek için aralığı genişletin.
curve-answer-no-base = Optimize edilmiş yapılandırma, { $slo } koşuluyla { $unit } { $load } isteğe kadar hizmet veriyor; temel yapılandırma ölçülen yüklerin hiçbirinde bu hedefi tutturamadı.
curve-answer-none = Ölçülen yüklerin hiçbirinde iki yapılandırma da { $slo } hedefini tutturamadı.
curve-unit-concurrency = aynı anda
curve-unit-rate = saniyede
# Load curves searched once an engine start (repeats): each search's boundary
curve-searches = { $config } eğrisini { $count } kez aradı; her arama motorun ayrı bir başlatılmasında yapıldı ve şu sınırları buldu: { $loads }. Yukarıdaki değerler bu aramaların ortalamasıdır; tablo ve grafikler en son aramayı gösterir.
curve-stop = { $config }: { $points } ölçüm; { $why }
curve-why-resolution = sınır kesin: { $at } yükü SLO'yu { $at_runs } ölçümün { $met } tanesinde tuttu, { $above } yükü ise { $above_runs } ölçümün { $missed } tanesinde aştı.
curve-why-upper-bound = üst sınır olan { $max } dahil her yükte SLO tutuldu; bu yapılandırma daha fazlasını da taşıyabilir.
curve-why-below-lower-bound = en düşük yük olan { $min } bile SLO'yu aştı.
curve-why-budget = nokta bütçesi tükendi; sınır { $boundary } ile { $above } arasında.
curve-why-budget-open = nokta bütçesi { $boundary } yükünün üstünde, hiçbir yük SLO'yu aşmadan tükendi.
curve-why-plateau = işlem hacmi { $boundary } yükünde artmayı bıraktı; daha büyük yükler ölçülmedi.
curve-why-list-done = listedeki her yük ölçüldü.
curve-why-unfinished = arama henüz bitmedi; `perflab run` bu noktalardan devam eder.
curve-why-step = { $boundary } yükü SLO'yu tuttu, { $above } yükü aştı; arama kendi adımından daha ince ölçmediği için sınır { $boundary } ile { $last } arasında.
curve-why-band = yanıt tek bir yük değil, bir aralık: { $low } yükü SLO'yu tuttu, { $high } yükü her ölçümde aştı; aradaki yüklerde SLO'nun aşıldığı ölçümler tutulduğu ölçümlerden az değildi ({ $mixed }).
curve-mixed-load = { $load }: { $runs } ölçümün { $met } tanesinde tuttu
curve-why-failed = { $load } yükündeki ölçüm { $count } kez başarısız oldu ({ $class }) ve arama orada durdu; eğri eksik kaldığı için bu yapılandırma başarısız sayılır.
curve-failures = { $config }: { $loads } yükündeki { $count } ölçüm sonuç vermedi ({ $classes }); arama bu yükleri motoru yeniden başlatarak bir kez daha ölçtü, yani hiçbir sınır başarısız bir ölçüme dayanmıyor.
curve-failed-point = ✗ başarısız: { $class }
curve-met-of = { $runs } ölçümün { $met } tanesinde tuttu
curve-violations = { $config } düzenli biçimde kötüleşmiyor: { $loads } yükü, SLO'yu aşan bir yükün üstünde olduğu hâlde hedefi tuttu.
curve-kept-up = { $config }, { $loads } yükünde: sunulan isteklerin %80'inden azı aynı anda işlendi; bu nokta adının söylediğinden daha az yük ölçtü.
curve-col-concurrency = Eş zamanlı istek
curve-col-rate = Saniyedeki istek
curve-met = ✓ SLO içinde
curve-how-judged = Bir yük, ölçümün toplu değerleri { $slo } koşulunu sağladığında SLO içinde sayılır. Goodput ise başka bir şeyi sayar: her gecikme sınırının içinde tek başına kalan istekleri. Bu yüzden SLO içindeki bir yükte bile sınırların dışında kalan istekler olabilir.
curve-broken = ✗ SLO dışında
curve-goodput = goodput { $value } ({ $total } isteğin { $good } tanesi sınırlar içinde)
curve-buffered = ⚠ { $count } akış toplu geldi: gecikmeler arabelleğe almayı ölçüyor
slo-limit = { $stat } { $latency } { $value }
slo-and = { $list } ve { $last }
slo-success = en az %{ $share } başarı oranı
slo-success-all = isteklerin tamamının başarılı olması
slo-stat-mean = ortalama
slo-stat-median = medyan
slo-stat-p90 = p90
slo-stat-p95 = p95
slo-stat-p99 = p99
chart-curve = Yüke göre { $metric }: { $profile }
chart-slo-line = SLO: { $limit }
chart-boundary = sınır: { $load }
chart-boundary-at-least = en az { $load } (aramanın üst sınırı)
chart-pareto = Her yapılandırmanın SLO sınırında GPU başına işlem hacmi ve kullanıcı başına hız: { $profile }
chart-per-gpu = GPU başına çıkış token/sn
chart-per-user = Kullanıcı başına çıkış token/sn
chart-frontier = Pareto sınırı
chart-others = Diğer yapılandırmalar
chart-recommended = önerilen: { $config }

## Ham veri: sonucun altındaki dışa aktarımlar
label-data = Ham veri
export-csv = tüm koşular (CSV)
export-json = analiz (JSON)
export-not-written = Bu sayfa grafikleri ve veri dosyaları olmadan yazdırıldı; onları sayfanın yanına `perflab build` yazar, `perflab report --out DIR` da yazar.

## Değerlere ne kadar güvenilebileceği: tekrarlar, motor sürümleri ve notlar
evidence-single-runs = Bu sayfadaki yapılandırmaların hiçbiri birden fazla kez ölçülmedi; bu yüzden değerlerin güven aralığı yok ve bir koşu tekrarlansa sonucun ne kadar değişeceği bilinmiyor.
evidence-single-runs-spread = Biri dışında bütün yapılandırmalar tek kez ölçüldü; o biri { $count } kez çalıştırıldı ve koşularının sonuçları arasında { $spread } fark var. Bu fark, aynı kurulumun iki koşusunun ne kadar ayrışabileceğini gösterir. Tek koşudan güven aralığı çıkarılamaz. Koşular: { $values }.
evidence-repeats = Her değer { $most } koşunun ortalamasıdır; bir kazancın ardındaki aralık onun %{ $confidence } güven aralığıdır ve kazançlar bu aralığın desteklediği basamağa yuvarlanır.
evidence-repeats-range = Her değer, kendi yapılandırmasının { $fewest } ile { $most } arası koşusunun ortalamasıdır (tek koşudan gelen bir değerin aralığı yoktur); bir kazancın ardındaki aralık onun %{ $confidence } güven aralığıdır ve kazançlar bu aralığın desteklediği basamağa yuvarlanır.
# Aralıkla karar verilen aşamaların toplam maliyeti (`--until-confident` bunu varyansın olduğu yere harcar).
evidence-decision-cost = Bir güven aralığıyla karar verilen aşamalar, iki adayının toplam { $starts } motor başlatmasına ve { $runs } benchmark koşusuna dayanır; ölçüm toplam { $minutes } dakika sürdü.
# Aynısı, hiçbir başlatmanın süresi kaydedilmediğinde (elle konmuş sonuçlar).
evidence-decision-cost-untimed = Bir güven aralığıyla karar verilen aşamalar, iki adayının toplam { $starts } motor başlatmasına ve { $runs } benchmark koşusuna dayanır.
age-measured-with = Ölçümde kullanılan motorlar: { $engines }.
# Sonuçlardaki bir motor sürümü: "SGLang v0.5.9 (2026-11-29)".
age-engine = { $engine } { $version } ({ $dates })
age-dates = { $first } – { $last }
age-date-unknown = ölçüm tarihi kaydedilmemiş
age-study-names = { $measured }; çalışma artık { $version } sürümünü belirtiyor
age-mixed = Bu sonuçlarda farklı motor sürümleri bir arada. Aşağıdaki koşular diğerlerinden farklı bir motor sürümüyle ya da komutla ölçüldü; yeniden ölçülene kadar (`perflab run --rerun-stale`) bu koşuları içeren karşılaştırmalar geçerli değildir:
age-outdated = Bu sonuçlar ölçüldükten sonra çalışmadaki motorlar değişti. Aşağıdaki koşular, çalışmanın şimdi belirttiği motorlarla henüz yeniden ölçülmedi (`perflab run --rerun-stale`):
age-run = { $run }: { $engine } { $version }, { $date }; { $reasons }
stale-version = çalışma artık { $version } sürümünü belirtiyor
stale-engine = artık { $engine } üzerine kurulu
stale-command = komutu değişti: { $changes }
stale-command-other = komutu değişti
stale-benchmark = benchmark komutu değişti
stale-dataset = veri kümesi dosyasının içeriği değişti
flags-added = eklenen: { $flags }
flags-removed = kaldırılan: { $flags }
heading-notes = Notlar

## Veri uyarıları
heading-data-warnings = Dikkatle okunması gereken ölçümler
data-warnings-intro = Aşağıdaki ölçümler kayıtta olduğu gibi gösteriliyor, ancak sayılarına doğrudan güvenilmemeli:
warning-baseline-failed = Temel yapılandırma ({ $baseline }) ölçülemedi: { $class }. Arama, ilk aşamada çalışan en iyi yapılandırma olan { $instead } ile sürdü; bu sayfadaki bütün kazançlar ona göre hesaplandı.
warning-unequal-gpus = “{ $stage }” aşaması, farklı sayıda GPU ile çalışan yapılandırmaları ({ $configurations }) GPU başına değil, toplam { $metric } değerine göre sıralıyor. Bir yapılandırma yalnızca daha çok GPU kullandığı için öne geçebilir; GPU başına bakıldığında sıra değişebilir.
warning-unequal-gpus-item = { $config }: { $gpus } GPU
warning-baseline-no-result = sonuç bırakmadı
warning-lost-requests = { $run }: { $expected } isteğin yalnızca { $completed } tanesi tamamlandı; bu yüzden işlem hacmi karşılaştırılamaz ve koşu aşamayı kazanamaz.
warning-incomplete = { $run }: benchmark bloğu yarıda kesilmiş; sayıları kullanılmıyor.
warning-at-loads = { $warning } Bu durum { $unit } { $loads } istekle ölçülen noktalarda görülür.
warning-noisy = Aynı yapılandırma { $count } kez ölçüldü ve sonuçları arasında { $spread } fark çıktı; bu fark { SUFFIX($threshold, case: "lik") } gürültü eşiğinden büyük.
warning-implausible-peak = { $count ->
        [one] Bir koşunun
       *[other] { $count } koşunun
    } bildirdiği en yüksek çıkış işlem hacmi, gerçekte ulaşılabilecek değerin üstünde: bu değer eş zamanlı istek başına en çok { $stream_limit } olabilir ve koşunun ürettiği token'ların toplamını aşamaz. Benchmark aracının “Peak output token throughput” satırı bu yüzden yapay bir değer veriyor ve sayfada kullanılmıyor; ilgili koşular sayfanın sonundaki tabloda.
warning-implausible-peak-run = bildirilen { $peak }, olabilecek en fazla { $ceiling }
warning-tpot-includes-waiting = { $count ->
        [one] Bir koşunun
       *[other] { $count } koşunun
    } çıktısındaki “TPOT”, ortalama istek gecikmesinin çıkış token sayısına bölümüdür. Bu yüzden kuyrukta geçen süreyi ve ilk token'ın beklenmesini de içerir; token'lar arasındaki süre değildir. Her koşunun hesabı sayfanın sonundaki tabloda.
warning-tpot-includes-waiting-run = { $tpot } = { $latency } ÷ { $tokens } token
warning-zero-latency = { $run }: koşu token üretmiş olmasına rağmen { $metric } 0 görünüyor.
warning-buffered-streams = { $run }: { $completed } akıştan { $buffered } tanesi token'larını tek tek değil, toplu hâlde iletti; bu yüzden koşunun TTFT ve ITL değerleri motoru değil, parçaları bekleten bir sunucuyu ya da vekil sunucuyu ölçüyor (TCP_NODELAY olmadan Nagle algoritması, gzip, arabelleğe alan bir ters vekil).
warning-request-count = { $run }: blok { $counted } istek sayıyor, oysa profil { $expected } istek gönderir.
warning-left-out = { $run }: `{ $file }` dosyasındaki ölçümde { $expected } isteğin yalnızca { $completed } tanesi tamamlandı ya da blok yarıda kesildi; bu ölçüm koşunun ortalamasına ve aralığına katılmıyor.
warning-few-requests = { $run }: { $metric } değeri yalnızca { $requests } istekten hesaplandı; { $needed } isteğin altında bu değer en yavaş isteğe eşit ya da ona çok yakındır ve koşudan koşuya bir ortalamadan çok daha fazla oynar.
# Data warnings: a run measured fewer times than the study asks for
warning-short-sample = { $run }: çalışmanın istediği { $wanted } ölçümden yalnızca { $have } tanesi alınabildi ve ortalama bunlardan hesaplandı. Daha çok ölçülen koşularla karşılaştırmalar bu küçük örnekleme dayanıyor; tek bir ölçümle aralık verilemez.

## Önceki sonuçlardan bu yana değişenler (page.md.tera, diff.md.tera)
heading-changes = Neler değişti
changes-intro = Karşılaştırma, { $since } ile yapıldı ({ $versions }).
changes-since-previous = bu ölçümlerin yerini aldığı sonuçlar
changes-since-revision = çalışmanın { $revision } revizyonundaki hâli
changes-stage = Aşama
changes-best-before = Önceki en iyi
changes-best-now = Şimdiki en iyi
changes-adopted-now = Şu an geçerli
changes-changed = Değişti mi
changes-yes = evet
changes-no = hayır
changes-baseline = Temel, { $metric }
changes-optimized = Optimize edilmiş, { $metric }
changes-figure = { $before } → { $after } ({ $change })
changes-figure-noise = { $before } → { $after } ({ $change }, gürültü eşiğinin içinde)
changes-figure-unclear = { $before } → { $after } ({ $change }; koşular bunu gürültüden ayıramıyor)
changes-command-same = Önerilen komut değişmedi.
changes-command = Önerilen komut değişti: { $changes }.
changes-command-engine = Önerilen motor değişti: { $before } yerine artık { $after }.
changes-command-launch = Önerilen komut, parametrelerinin dışında da değişti (motorun komutu ya da ortam değişkenleri).
changes-command-before = Önce:
changes-command-after = Şimdi:
# The answer across three or more engine releases of a study's history
heading-releases = Motor sürümleri boyunca
releases-intro = Bu çalışma, motorlarının { $count } sürümünde ölçüldü. Grafik ve tablo, her sürümde temel yapılandırmanın ve optimize edilmiş yapılandırmanın { $metric } değerini verir; altlarında her sürümün bir öncekine göre neyi değiştirdiği yer alır.
releases-col-release = Sürüm
releases-col-date = Ölçüldüğü tarih
releases-col-baseline = Temel
releases-col-optimized = Optimize edilmiş
releases-col-gain = Kazanç
releases-changed = { $release } sürümünün getirdikleri
chart-releases = Motor sürümleri boyunca { $metric }
# perflab diff --releases: the whole history of releases, for a terminal
releases-history-intro = Bu çalışmanın geçmişinde motorlarının { $count } sürümü var. Tablo, her sürümde temel yapılandırmanın ve optimize edilmiş yapılandırmanın { $metric } değerini ve her aşamanın sonunda geçerli olan yapılandırmayı verir; altında her sürümün bir öncekine göre neyi değiştirdiği yer alır.
releases-history-shown = Burada gösterilenler: { $releases }.
releases-history-ran = { $release } sürümünde optimize edilmiş yapılandırmanın çalıştırdığı komut:
releases-ran-changed = Optimize edilmiş çalıştırmanın motor komutu bir önceki sürüme göre değişti: { $changes }.

## Deney düzeneği: model, donanım, motorlar, benchmark yöntemi ve profiller
heading-setup = Deney kurulumu
setup-model = Model
setup-hardware = Donanım
setup-date = Tarih
setup-tool = Araç: { $tool }
setup-runner = Benchmark'ı yürüten araç: { $runner }
heading-engines = Motor sürümleri
heading-benchmark = Benchmark yöntemi
label-command-template = Komut şablonu
heading-profiles = Benchmark profilleri
# Benchmark profiles as runnable commands: the port they connect to
profiles-port = Komutlar motora { $host }:{ $port } adresinden bağlanır. Çalışma motorun bağlantı noktasını sabitlemiyor; bunun yerine motorunuzun dinlediği bağlantı noktasını yazın.
profiles-load = Yük eğrisi komutlarında { $placeholder }, ölçülecek noktanın yükünün yerini tutar: oraya o noktanın eş zamanlılığını ya da istek hızını yazın.
# What the runs recorded of their machine and engine, beside the author's description
heading-recorded = Çalıştırmalarla kaydedilenler
recorded-intro = perflab'ın her motor başlatmasında makineden okudukları, yukarıdaki açıklamanın yanında. Çalıştırmalar farklı değerler kaydettiğinde her değer, o değerle çalışan çalıştırmaları belirtir.
recorded-gpu-model = GPU
recorded-gpu-count = Başlatma başına GPU
recorded-gpu-memory = GPU belleği
recorded-gpu-driver = GPU sürücüsü
recorded-gpu-runtime = GPU çalışma ortamı
recorded-cpu-model = CPU
recorded-cpu-cores = CPU çekirdekleri
recorded-kernel = Linux çekirdeği
recorded-container = Konteyner
recorded-engine-version = { $of }, kendi bildirdiği sürüm
recorded-package = Python paketi { $of }
recorded-model-revision = Model revizyonu
recorded-perflab = perflab
recorded-value-runs = { $value }: { $runs }
# The container image the engine ran in, and its digest
recorded-image = Konteyner imajı
recorded-image-digest = İmaj özeti

## Deney sonuçları: her aşamanın varyantları, sıralaması, özeti ve kararı
heading-results = Deney sonuçları
variant-profile = “{ $profile }” profiliyle ölçüldü.
variant-changes = Arka uç parametreleri: { $changes }
variant-change-none = Aşamanın başlangıç yapılandırması, hiçbir ayarı değiştirilmeden ölçüldü.
variant-change-engine = { $engine } motoru
variant-change-model = { $model } checkpoint'i
variant-change-unset = { $flag } kaldırıldı
variant-failed = Çalıştırılamadı: { $reason }.
# A failure shared from an identical configuration
variant-failure-shared = { $source } ile aynı yapılandırma; orada başarısız olduğu için yeniden başlatılmadı, hata aşağıda gösteriliyor.
variant-link = İlgili tartışma: { $link }
variant-error = Hata iletisi
variant-missing = Henüz ölçülmedi.
variant-reused = { $source } ile aynı yapılandırma olduğu için yeniden ölçülmedi; sonuç o koşudan alındı.
variant-command = Model sunum komutu
variant-result = Benchmark sonucu
raw-measurement = { $title }, ölçüm { $k }/{ $n } (`{ $file }`)
# What to run to measure a result again, and what it ran on (a collapsed block under the result)
reproduce-figure = Bu sonucu yeniden ölçmek için: komutlar ve ölçüldüğü makine
ranking = Sıralama: { $ranking }
ranking-item = { $engine } ({ $value })
ranking-lost = { $engine } ({ $value }; { $expected } isteğin yalnızca { $completed } tanesi tamamlandı)
ranking-not-supported = { $engine } (desteklenmiyor)
ranking-failed = { $engine } (başarısız: { $reason })
ranking-not-measured = { $engine } (ölçülmedi)
label-summary = Özet
# summary-secondary içinde $best ve $worst biçimlenmiş değerlerdir ("540,79 ms"); SUFFIX,
# ekleri okunuşlarına göre seçer ("636,24 ms'den 540,79 ms'ye").
summary = en iyi sonucu “{ $best }” ({ $best_value }), en zayıf sonucu “{ $worst }” ({ $worst_value }) aldı; aradaki fark { $gap } ({ $percent }). { $secondary }
summary-secondary = { $trend ->
        [lower] { $metric } { SUFFIX($worst, case: "ablative") } { SUFFIX($best, case: "dative") } iniyor; azalma { $diff } ({ $percent }).
        [higher] { $metric } { SUFFIX($worst, case: "ablative") } { SUFFIX($best, case: "dative") } çıkıyor; artış { $diff } ({ $kind ->
            [latency] { $percent } daha yavaş
           *[other] { $percent } daha fazla
        }).
       *[same] { $metric } iki varyantta da { $best }.
    }
summary-both-at-least = “{ $best }” ile “{ $worst }” aranan aralığın üst ucunda ({ $best_value }) bile SLO'yu karşıladı; bu arama ikisini sıralayamıyor. { $secondary }
summary-range = Bu aşamada
summary-runner-up = İkinci sıradaki “{ $variant }” varyantına ({ $value }) göre fark: { $gain }.
summary-over-base = Aşamanın başlangıç yapılandırmasına (“{ $variant }”, { $value }) göre fark: { $gain }.
summary-base-again = “{ $variant }” aşamanın başlangıç yapılandırmasını hiç değiştirmeden çalıştırır ve burada { $value } ölçtü; bu, aynı yapılandırmanın daha önce ölçülen { $earlier } değerine göre { $change } fark demektir. Aşamanın kazançları önceki değere göre hesaplanır; aynı yapılandırmanın iki koşusu arasında bu kadar fark olabiliyor.
label-decision = Karar
adoption-adopted = “{ $variant }” benimsendi; aşamanın başladığı “{ $base }” yapılandırmasına göre kazanç { $gain }.
adoption-within-noise = “{ $variant }”, “{ $base }” karşısında { $gain } önde; ancak bu fark { SUFFIX($threshold, case: "lik") } gürültü eşiğinin içinde kaldığı için benimsenmedi ve “{ $base }” korunuyor.
adoption-not-better = Hiçbir varyant “{ $base }” karşısında öne geçemediği için değişiklik benimsenmedi; “{ $base }” korunuyor.
adoption-base-is-best = Değişiklik yok, çünkü en iyi varyant olan “{ $variant }” zaten aşamanın başladığı yapılandırma.
adoption-overridden = “{ $variant }” yazarların kararıyla benimsendi ({ $gain }). { $reason }
adoption-overridden-none = Yazarların kararıyla hiçbir varyant benimsenmedi; “{ $base }” korunuyor. { $reason }
adoption-no-result = Hiçbir varyant kullanılabilir bir sonuç vermedi; “{ $base }” korunuyor.
adoption-no-result-base = Bu aşamanın üzerine kurulduğu “{ $base }” için karşılaştırılabilir bir sonuç olmadığından kazanç hesaplanamıyor; arama, bu aşamada çalışan en iyi yapılandırma olan “{ $after }” ile sürüyor.
adoption-no-result-zero-base = Bu aşamanın üzerine kurulduğu “{ $base }” sıfır ölçüldüğü için kazanç hesaplanamıyor; hiçbir varyant benimsenmedi ve “{ $base }” korunuyor.
adoption-cannot-tell = “{ $variant }”, “{ $base }” karşısında { $gain } ölçüldü, ancak bu aralık sıfırı da kapsıyor: fark gürültü olabilir. Bu yüzden henüz hiçbir şey benimsenmedi; daha fazla koşu karar verene kadar “{ $base }” korunuyor (`perflab run --until-confident`).
adoption-cannot-tell-threshold = “{ $variant }”, “{ $base }” karşısında { $gain } ölçüldü; kazanç { SUFFIX($threshold, case: "lik") } gürültü eşiğinin içinde, ancak aralığı eşiğin ötesine uzanıyor. Bu yüzden henüz hiçbir şey benimsenmedi; daha fazla koşu karar verene kadar “{ $base }” korunuyor (`perflab run --until-confident`).
adoption-within-noise-on = “{ $variant }”, “{ $base }” karşısında { $gain } önde; ancak bu fark { SUFFIX($threshold, case: "lik") } gürültü eşiğinin içinde kaldığı için benimsenmedi ve arama “{ $after }” üzerinden sürüyor.
adoption-not-better-on = Hiçbir varyant “{ $base }” karşısında öne geçemediği için değişiklik benimsenmedi; arama “{ $after }” üzerinden sürüyor.
adoption-overridden-none-on = Yazarların kararıyla hiçbir varyant benimsenmedi; arama “{ $after }” üzerinden sürüyor. { $reason }
stage-excluded = Önerilen komuta alınmadı. { $reason }
stage-per-gpu = Bu aşamadaki yapılandırmalar farklı sayıda GPU üzerinde çalışıyor ({ $configurations }). Bu yüzden aşama onları GPU başına karşılaştırır: her yapılandırmanın { $metric } değeri GPU sayısına bölünür. Sabit sayıda GPU'ya sahip bir ekip her düzenden tam olarak bunu elde eder. Aşamanın özeti ve kararı GPU başına değerlere dayanır.
metric-per-gpu = GPU başına { $metric }
per-gpu = GPU başına { $figure }
# The accuracy gate of a stage that requires accuracy (one block, kept together).
accuracy-intro = { $evaluation } üzerinde doğruluk ({ $questions } soru); her varyant üzerine kurulduğu yapılandırmayla %95 aralıklarıyla karşılaştırılır:
accuracy-variant = Varyant
accuracy-right = Doğru yanıt
accuracy-difference = Fark (puan)
accuracy-wrong = Yanlış yanıtlanan
accuracy-verdict = Karar
accuracy-points-interval = { $points } ({ $low } ile { $high } arası)
accuracy-wrong-more = { $count } tane daha
accuracy-within = tolerans içinde
accuracy-below = toleransın altında
accuracy-unclear = soru sayısı karar vermeye yetmiyor
accuracy-not-measured = ölçülmedi
accuracy-is-base = başlangıç yapılandırması
accuracy-refused = { $variant }: { $metric } { $gain }, ancak { $evaluation } üzerinde { $points } puan daha düşük: benimsenmedi.
accuracy-refused-floor = { $variant }, { $evaluation } üzerinde doğruluk alt sınırının altında kalıyor: benimsenmedi.
accuracy-cannot-tell = { $variant }: { $evaluation } içindeki soru sayısı, istenen doğruluk düzeyinin korunup korunmadığını söylemeye yetmiyor; { $choice }
accuracy-unmeasured = { $variant }: ne bu varyant ne de üzerine kurulduğu yapılandırma için doğruluk kaydedildi; { $choice }
accuracy-choice-refuse = çalışma böyle bir varyantı reddeder, bu yüzden benimsenmedi.
accuracy-choice-adopt = çalışma böyle bir varyantı kabul eder, bu yüzden hızı karar verir.

## Optimizasyon seçeneklerinin özeti
heading-options = Optimizasyon seçeneklerinin özeti
options-intro = Her satırda bir aşama yer alır. “Temel yapılandırmaya göre” sütunu aşamanın en iyi varyantını temel yapılandırmayla karşılaştırır; “Adım kazancı” ise aşamada benimsenen ayarı aşamanın başladığı yapılandırmayla kıyaslar. Aşama hiçbir ayarı benimsemediyse bu sütunda bir çizgi görünür.
options-stage = Aşama
options-best = En iyi varyant
options-vs-baseline = Temel yapılandırmaya göre
options-step = Adım kazancı
options-baseline = Temel yapılandırma
options-total = Toplam (optimize edilmiş, temel yapılandırmaya göre)
options-not-adopted = { $gain } (benimsenmedi)
options-lost = { $variant } (başarı oranı { $rate }: { $expected } isteğin { $completed } tanesi; benimsenmedi)
# Summary of options: a stage a later one builds without
options-left-out = { $step }; ölçüldü ama toplama katılmadı, çünkü “{ $stage }” bu aşamadan önceki yapılandırmanın üzerine kurulu

## Diğer benchmark senaryoları ve doğruluk denetimleri
heading-scenarios = Diğer benchmark senaryoları
scenarios-intro = Bu bölümde temel ve optimize edilmiş yapılandırmanın her profildeki ham benchmark çıktıları yer alıyor; optimizasyon hedefi en başta.
# Other benchmark scenarios: one line a scenario above its raw results
scenario-line = { $metric }: { $baseline } → { $optimized } ({ $change })
scenario-baseline-command = Temel model sunum komutu
scenario-optimized-command = Optimize edilmiş model sunum komutu
scenario-baseline-result = Temel benchmark sonucu
scenario-optimized-result = Optimize edilmiş benchmark sonucu
heading-accuracy = Doğruluk denetimleri

## Sayfanın sonunda, veri uyarılarının dayandığı koşuların tablosu
# Site layout: the table of the runs behind the data warnings
heading-warning-runs = Veri uyarılarının dayandığı koşular
warning-runs-intro = Yukarıdaki veri uyarılarının andığı her koşu ve uyarıya yol açan değerleri.
table-warning = Uyarı
table-run = Koşu
table-figures = Değerler
warning-kind-noisy = Sonuçlar birbirinden uzak
warning-kind-implausible-peak = Kullanılmayan tepe işlem hacmi
warning-kind-tpot = Beklemeyi içeren “TPOT”

## Aşamaların ve önce/sonra karşılaştırmasının grafikleri
chart-stage = { $stage }: her varyantın { $metric } sonucu
chart-comparison = Profillere göre temel ve optimize edilmiş yapılandırmanın { $metric } değeri
chart-progression = Benimsenen her aşamadan sonra { $metric }
# Charts: the axis with its unit, and a bar's change against the bar it is compared with
chart-axis = { $metric } ({ $unit })
chart-change = { $value } ({ $change })
chart-adopted = { $value } (benimsendi)
chart-base = { $value } (başlangıç)
chart-failed = çalışmadı: { $reason }
chart-lost = { $value }; { $expected } isteğin yalnızca { $completed } tanesi
chart-incomplete = { $value }, yarıda kesildi
chart-baseline = Temel
chart-optimized = Optimize edilmiş

## Hazır Markdown sayfaları: mkdocs-material uyarı kutusunun başlığı
admonition-warning = Uyarı

## Ortak parçalar: sayı biçimi, birimler ve noktalama
number-decimal-separator = ,
number-group-separator = .
percent = { $sign }%{ $value }
ratio-faster = { $value } kat daha hızlı
ratio-slower = { $value } kat daha yavaş
value-missing = yok
value-at-least = ≥ { $value }
value-at-limit = ≥ { $value } (aramanın üst sınırı)
gain-at-least = en az { $gain }
gain-both-at-least = bilinmiyor: ikisi de aralığın üst ucunda SLO'yu karşıladı
value-none = -
unit-ms = { $value } ms
unit-tok-s = { $value } token/sn
unit-req-s = { $value } istek/sn
unit-s = { $value } sn
unit-requests = { $value } istek
unit-tokens = { $value } token
figure-interval = { $figure } (%{ $confidence } güven aralığı { $low }–{ $high })
list-separator = {", "}
label-separator = {": "}
# Bir değişiklik listesinin parçalarını ayıran işaret ("eklenen: `--a`; `--b 1` → `--b 2`")
clause-separator = {"; "}
sentence-separator = {" "}
run-title = { $stage } › { $variant } ({ $profile })
run-title-nested = { $stage } › { $variant } › { $profile }

## Ortak parçalar: metrik adları
metric-total-tps = Toplam TPS
metric-output-tps = Çıkış TPS
metric-request-throughput = İstek işlem hacmi
metric-slo-load = SLO'yu karşılayan en yüksek yük
metric-slo-goodput = SLO içindeki goodput
metric-mean-tpot = Ortalama TPOT
metric-mean-ttft = Ortalama TTFT
metric-mean-itl = Ortalama ITL
metric-mean-e2el = Ortalama uçtan uca gecikme

## Ortak parçalar: bir koşunun neden başarısız olduğu
failure-oom = bellek yetersizliği
failure-unsupported = motor bu yapılandırmayı kabul etmiyor
failure-start-failure = sunucu başlamıyor
failure-start-timeout = sunucu zamanında hazır olmadı
failure-crash = motor koşu sırasında çöktü
failure-benchmark-failure = benchmark komutu hata verdi
failure-port-in-use = motorun portunu başka bir sunucu zaten dinliyordu
failure-requests-failed = koşunun sayılması için yeterli istek tamamlanmadı
failure-time-limit = küme, işi süre sınırına ulaşınca durdurdu
failure-node-failure = işi çalıştıran küme düğümü arızalandı
failure-cancelled = iş kümede iptal edildi
failure-job-out-of-memory = küme, istediğinden fazla bellek kullanan işi durdurdu
failure-slo-not-met = ölçüldüğü yüklerin hiçbirinde SLO tutmadı
