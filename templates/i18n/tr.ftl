# Türkçe katalog: bir çalışma sayfasındaki bütün cümle ve etiketler.
# İleti kimlikleri, sayfanın onları kullanan bölümüne göre gruplanmıştır.

## Sayı biçimi
number-decimal-separator = ,
number-group-separator = .
percent = { $sign }%{ $value }
ratio-faster = { $value } kat daha hızlı
ratio-slower = { $value } kat daha yavaş
value-missing = yok
value-none = -
unit-ms = { $value } ms
unit-tok-s = { $value } token/sn
unit-req-s = { $value } istek/sn
unit-s = { $value } sn
unit-requests = { $value } istek
unit-tokens = { $value } token

## Metrik adları
metric-total-tps = Toplam TPS
metric-output-tps = Çıkış TPS
metric-request-throughput = İstek hızı
metric-mean-tpot = Ortalama TPOT
metric-mean-ttft = Ortalama TTFT
metric-mean-itl = Ortalama ITL
metric-mean-e2el = Ortalama uçtan uca gecikme

## Başlıklar (page.md.tera)
heading-conclusion = Sonuç
heading-comparison = Öncesi ve sonrası
heading-notes = Notlar
heading-data-warnings = Dikkatle okunması gereken veriler
heading-setup = Deney düzeneği
heading-engines = Motor sürümleri
heading-benchmark = Ölçüm yöntemi
heading-profiles = Benchmark profilleri
heading-results = Deney sonuçları
heading-options = Optimizasyon seçeneklerinin özeti
heading-scenarios = Diğer benchmark senaryoları
heading-accuracy = Doğruluk denetimleri
label-summary = Özet
label-decision = Karar
label-goal = Hedef
label-command-template = Komut şablonu
comparison-intro = Temel ve optimize yapılandırmanın her benchmark profilindeki sonuçları. Değişim sütunu { $metric } değerlerini karşılaştırır; gürültü eşiğini aşan kayıplar gerileme olarak işaretlenir.
options-intro = Her aşama bir satır. "Temele göre" sütunu aşamanın en iyi varyantını temel yapılandırmayla karşılaştırır; "Adım kazancı" ise aşamada benimsenen ayarı üzerine kurulduğu yapılandırmayla karşılaştırır ve hiçbir şey benimsenmediyse boş kalır.
scenarios-intro = Optimize yapılandırmanın diğer iş yüklerinde nasıl davrandığı; iki yapılandırmanın ham sonuçlarıyla birlikte.
data-warnings-intro = Aşağıdaki ölçümler kaydedildiği gibi gösterilir, ancak olduğu gibi kabul edilmemelidir:

## Sonuç
conclusion-intro = { $model } modelini { $hardware } üzerinde sunmak için önerilen yapılandırma:
conclusion-excluded = Ölçüldü ama bu komuta alınmadı: { $stage }. { $reason }
table-profile = Benchmark profili
table-target = { $profile } (optimizasyon hedefi)
table-baseline = Temel yapılandırma ({ $baseline }, varsayılan ayarlar)
table-optimized = Optimize edilmiş
table-change = { $metric } değişimi
change-regression = { $change } (gerileme)

change-lost = { $change } ({ $expected } isteğin yalnızca { $completed } tanesi tamamlandı)
change-incomplete = { $change } (yarıda kesilmiş sonuç)
comparison-excluded = Optimize koşular, yukarıdaki komuta alınmayan ayarları da içerir.

## Düzenek
setup-model = Model
setup-hardware = Donanım
setup-date = Tarih
setup-tool = Araç: { $tool }
setup-runner = Yürüten: { $runner }

## Varyantlar
variant-profile = Profil: { $profile }
variant-failed = Çalıştırılamadı: { $reason }.
variant-link = İlgili tartışma: { $link }
variant-error = Hata iletisi
variant-missing = Henüz ölçülmedi.
variant-reused = Yapılandırma { $source } ile aynı; o koşunun sonucu kullanılıyor.
variant-command = Sunum komutu
variant-result = Benchmark sonucu
failure-oom = bellek yetersiz
failure-unsupported = motor bu yapılandırmayı kabul etmiyor
failure-start-failure = sunucu açılmıyor
failure-start-timeout = sunucu zamanında hazır olmadı
failure-crash = motor koşu sırasında çöktü
failure-benchmark-failure = benchmark komutu başarısız oldu
failure-port-in-use = motorun portunu zaten başka bir sunucu dinliyordu
failure-requests-failed = sonucun sayılması için yeterli istek tamamlanmadı
failure-time-limit = küme, işi süre sınırına ulaşınca durdurdu
failure-node-failure = işin çalıştığı küme düğümü arızalandı
failure-cancelled = iş kümede iptal edildi
failure-job-out-of-memory = iş, istediğinden fazla bellek kullandığı için küme tarafından durduruldu

## Aşama özeti: en hızlı ve en yavaş varyant
summary = { $metric } — { $best }: { $best_value }; { $worst }: { $worst_value }. { $best }, { $gap } ({ $percent }) farkla { $direction ->
        [lower] daha düşük.
       *[higher] önde.
    } { $secondary }
summary-secondary = { $trend ->
        [lower] { $metric } { $worst } değerinden { $best } değerine iniyor: { $diff } ({ $percent }) azalma.
        [higher] { $metric } { $worst } değerinden { $best } değerine çıkıyor: { $diff } artış ({ $kind ->
            [latency] { $percent } daha yavaş
           *[other] { $percent } daha fazla
        }).
       *[same] { $metric } iki varyantta da aynı ({ $best }).
    }
ranking = Sıralama: { $ranking }
ranking-item = { $engine } ({ $value })
ranking-lost = { $engine } ({ $value }, { $expected } isteğin yalnızca { $completed } tanesi tamamlandı)
ranking-not-supported = { $engine } (desteklenmiyor)
ranking-failed = { $engine } (başarısız: { $reason })
ranking-not-measured = { $engine } (ölçülmedi)

## Benimseme
adoption-adopted = Benimsendi: { $variant }, { $base } yapılandırmasına göre { $gain }.
adoption-within-noise = Benimsenmedi: { $variant }, { $base } yapılandırmasını { $gain } geçiyor; bu fark { $threshold } gürültü eşiğinin içinde kaldığı için { $base } korunuyor.
adoption-not-better = Benimsenmedi: hiçbir varyant { $base } yapılandırmasını geçemedi; o korunuyor.
adoption-base-is-best = Değişiklik yok: en iyi varyant olan { $variant }, bu aşamanın üzerine kurulduğu yapılandırmanın kendisi.
adoption-overridden = Yazarların kararıyla benimsendi: { $variant } ({ $gain }). { $reason }
adoption-overridden-none = Yazarların kararıyla benimsenmedi; { $base } korunuyor. { $reason }
adoption-no-result = Hiçbir varyant kullanılabilir sonuç vermedi; { $base } korunuyor.
adoption-no-result-base = Benimsenmedi: bu aşamanın üzerine kurulduğu { $base } için karşılaştırılabilecek bir sonuç yok; { $base } korunuyor.
adoption-no-result-zero-base = Benimsenmedi: bu aşamanın üzerine kurulduğu { $base } sıfır ölçülmüş; kazanç hesaplanamıyor ve { $base } korunuyor.
stage-excluded = Önerilen komuta alınmadı: { $reason }

## Seçeneklerin özeti
options-stage = Aşama
options-best = En iyi varyant
options-vs-baseline = Temele göre
options-step = Adım kazancı
options-baseline = Temel yapılandırma
options-total = Toplam (optimize, temele göre)

## Diğer senaryolar
scenario-baseline-command = Temel sunum komutu
scenario-optimized-command = Optimize sunum komutu
scenario-baseline-result = Temel benchmark sonucu
scenario-optimized-result = Optimize benchmark sonucu

## Veri uyarıları
warning-lost-requests = { $run }: { $expected } isteğin yalnızca { $completed } tanesi tamamlandı; bu yüzden işlem hacmi karşılaştırılamaz ve aşamayı kazanamaz.
warning-incomplete = { $run }: benchmark bloğu yarıda kesilmiş; sayıları kullanılmıyor.
warning-noisy = Aynı yapılandırma { $count } kez ölçüldü ve sonuçlar arasında { $spread } fark çıktı; bu, { $threshold } gürültü eşiğinden fazla: { $values }.
warning-implausible-peak = { $count ->
        [one] Bir koşu
       *[other] { $count } koşu
    }, akıtabileceğinden yüksek bir en yüksek çıkış hızı bildiriyor (istek başına { $stream_limit } hızla eş zamanlılığı kadar, ürettiği tüm token'lardan da fazla olmamak üzere); bu "Peak output token throughput" satırı ölçüm aracının bir yan etkisidir ve kullanılmaz: { $runs }.
warning-implausible-peak-run = { $run }: { $peak } (en fazla { $ceiling })
warning-tpot-includes-waiting = { $count ->
        [one] Bir koşunun
       *[other] { $count } koşunun
    } yazdırdığı "TPOT", ortalama istek gecikmesinin istek başına çıkış token sayısına bölümüdür; isteklerin kuyrukta beklediği süreyi ve ilk token'a kadar geçen süreyi de içerir, ilk token'dan sonraki token'lar arasındaki süre değildir: { $runs }.
warning-tpot-includes-waiting-run = { $run }: { $tpot } = { $latency } ÷ { $tokens } token
warning-zero-latency = { $run }: koşu token üretmesine rağmen { $metric } 0 görünüyor.
warning-request-count = { $run }: blokta { $counted } istek sayılıyor, profil ise { $expected } istek gönderiyor.

## Grafikler ve dışa aktarımlar
label-data = Ham veri
export-csv = tüm koşular (CSV)
export-json = analiz (JSON)
chart-stage = { $stage }: varyantların { $metric } değerleri
chart-comparison = Her profilde temel ve optimize { $metric }
chart-progression = Benimsenen her aşamadan sonra { $metric }
chart-failed = çalışmadı: { $reason }
chart-lost = { $value }, { $expected } isteğin yalnızca { $completed } tanesi
chart-incomplete = { $value }, yarıda kesildi
chart-baseline = Temel
chart-optimized = Optimize

## Site (layout.html.tera, index.html.tera)
language-name = Türkçe
site-title = Model sunumu optimizasyon rehberleri
site-intro = Her rehber, bir modeli belirli bir donanımda en hızlı sunmanın yolunu aşama aşama arar. Rehberdeki her sayı, orada gösterilen ham benchmark sonuçlarından hesaplanır.
site-languages = Diller
site-studies = Rehberler
site-headline = { $profile } profilinde { $metric }: { $gain }
site-engines = Motorlar: { $engines }
site-skip = İçeriğe geç

## Sonuçların yaşı ve değişenler (page.md.tera, diff.md.tera)
age-measured-with = Ölçümde kullanılanlar: { $engines }.
# Sonuçlardaki bir motor sürümü: "SGLang v0.5.9 (2026-11-29)".
age-engine = { $engine } { $version } ({ $dates })
age-dates = { $first } ile { $last } arası
age-date-unknown = tarih kaydedilmemiş
age-study-names = { $measured }; çalışma artık { $version } sürümünü belirtiyor
age-mixed = Bu sonuçlarda farklı motor sürümleri bir arada. Aşağıdaki koşular diğerlerinden farklı bir motor sürümüyle ya da komutla ölçüldü; yeniden ölçülene kadar (`perflab run --rerun-stale`) bu koşuları içeren karşılaştırmalar geçerli değildir:
age-outdated = Bu sonuçlar ölçüldükten sonra çalışmanın motorları değişti. Aşağıdaki koşular, çalışmanın şimdi belirttiği yapılandırmayla henüz yeniden ölçülmedi (`perflab run --rerun-stale`):
age-run = { $run }: { $engine } { $version }, { $date }; { $reasons }
stale-version = çalışma artık { $version } sürümünü belirtiyor
stale-engine = artık { $engine } üzerine kurulu
stale-command = komutu değişti: { $changes }
stale-command-other = komutu değişti
stale-benchmark = kıyaslama komutu değişti
flags-added = eklenen: { $flags }
flags-removed = kaldırılan: { $flags }
heading-changes = Neler değişti
changes-since-previous = bu ölçümlerin yerini aldığı sonuçlar
changes-since-revision = çalışmanın { $revision } revizyonundaki hâli
changes-intro = Karşılaştırılan: { $since } ({ $versions }).
changes-stage = Aşama
changes-best-before = Önceki en iyi
changes-best-now = Şimdiki en iyi
changes-adopted-now = Şu an geçerli
changes-changed = Değişti mi
changes-yes = evet
changes-no = hayır
changes-baseline = Temel, { $metric }
changes-optimized = Optimize, { $metric }
changes-figure = { $before } → { $after } ({ $change })
changes-figure-noise = { $before } → { $after } ({ $change }, gürültü eşiğinin içinde)
changes-command-same = Önerilen komut değişmedi.
changes-command = Önerilen komut değişti: { $changes }.
changes-command-engine = Önerilen motor { $before } yerine artık { $after }.
changes-command-launch = Önerilen komut, bayrakları dışında değişti (motorun komutu ya da ortam değişkenleri).
changes-command-before = Önce:
changes-command-after = Şimdi:

# Issue 16: repeated measurements and confidence intervals
figure-interval = { $figure } (%{ $confidence } güven aralığı { $low }–{ $high })
adoption-cannot-tell = Karar verilemedi: { $variant }, { $base } yapılandırmasına göre { $gain } ölçüldü, ama bu aralık sıfırı da kapsıyor; fark gürültü olabilir. Daha fazla ölçüm karar verene kadar { $base } korunuyor (`perflab run --until-confident`).
adoption-cannot-tell-threshold = Karar verilemedi: { $variant }, { $base } yapılandırmasına göre { $gain } ölçüldü; kazanç { $threshold } gürültü eşiğinin içinde, ama aralığı eşiğin ötesine uzanıyor. Daha fazla ölçüm karar verene kadar { $base } korunuyor (`perflab run --until-confident`).
evidence-single-runs = Bu sayfadaki her değer tek bir ölçümden geliyor: hiçbir yapılandırma birden fazla kez ölçülmediği için sayfa güven aralığı veremiyor, ikinci bir ölçümün nereye düşeceğini de söyleyemiyor.
evidence-single-runs-spread = Bu sayfadaki her değer tek bir ölçümden geliyor, bu yüzden sayfa güven aralığı veremiyor. Bir yapılandırma { $count } ayrı ölçümle ölçüldü; aynı kurulumun ölçümlerinin birbirinden ne kadar uzak düşebileceğini gösteriyorlar: { $values }; aralarındaki fark { $spread }.
evidence-repeats = Her değer { $most } ölçümün ortalamasıdır; bir kazancın ardındaki aralık onun %{ $confidence } güven aralığıdır ve kazançlar bu aralığın desteklediği basamağa yuvarlanır.
evidence-repeats-range = Her değer, yapılandırmasının { $fewest } ile { $most } arasında ölçümünün ortalamasıdır (tek ölçümden gelen bir değerin aralığı yoktur); bir kazancın ardındaki aralık onun %{ $confidence } güven aralığıdır ve kazançlar bu aralığın desteklediği basamağa yuvarlanır.
changes-figure-unclear = { $before } → { $after } ({ $change }: ölçümler bunu gürültüden ayıramıyor)

# Issue 14: layout, charts, warnings and summaries
summary-range = En hızlı ile en yavaş varyantın karşılaştırması:
summary-runner-up = İkinci sıradaki { $variant } ({ $value }) karşısında: { $gain }.
summary-over-base = Bu aşamanın üzerine kurulduğu { $variant } ({ $value }) karşısında: { $gain }.
chart-adopted = { $value } (benimsendi)
chart-base = { $value } (temel)
site-contents = Bu sayfada
site-copy = Kopyala
site-copied = Kopyalandı
variant-changes = Değişiklikler: { $changes }
variant-change-none = Hiçbir şeyi değiştirmez: aşamanın üzerine kurulduğu yapılandırma olduğu gibi ölçülür.
variant-change-engine = motor olarak { $engine }
variant-change-model = { $model } model dosyası
variant-change-unset = { $flag } olmadan
