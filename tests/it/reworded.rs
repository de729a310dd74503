//! Sentences and labels of the pages that read wrongly, stiffly or off the seeds' terms were
//! rewritten; none of them is left on any page of the committed site in its language (English,
//! Turkish, Chinese, Japanese; `site/<locale>/…` and `site/md/<locale>/…`), its charts included,
//! and the Turkish pages keep the seeds' names for what they rewrote.

use crate::common;

use common::root;

/// Fragments of the former wording, each specific enough that only that sentence matched it.
const GONE: &[(&str, &str)] = &[
    ("en", "The baseline and the optimized configuration on every benchmark profile."),
    ("en", "comes from a single run, so the page cannot give confidence intervals"),
    ("en", "which show how far runs of the same setup can land apart"),
    ("en", "noise threshold: Parallelism"),
    ("en", "above what it could have streamed"),
    ("en", "so it holds the time requests waited in the queue"),
    ("en", "Driven by:"),
    ("en", "Changes: engine"),
    ("en", "Changes nothing: the configuration this stage builds on"),
    ("en", "the configuration this stage builds on:"),
    ("en", "Each row is one stage."),
    ("en", "stays empty when the stage adopted nothing"),
    ("en", "How the optimized configuration fares on the other workloads"),
    ("en", "is the configuration this stage builds on."),
    ("en", "the traffic coding agents produce"),
    ("en", "keeps the best result so far and varies one more setting"),
    ("en", "Take this configuration as the starting point"),
    ("en", "usually cost well under one point of accuracy"),
    ("en", "before serving latency-sensitive traffic"),
    ("en", "it is slower than the unoptimized baseline"),
    ("en", "long contexts are the common case, which is what this study tuned for"),
    ("en", "(Long context (32K input / 100 output))"),
    ("en", "runs print a “TPOT”"),
    ("en", "Fastest against slowest"),
    ("en", "% over max-running 256"),
    ("en", " is adopted, +"),
    ("en", "Only the default chunk size and 8192 start."),
    ("en", "the chunk size brings no throughput"),
    ("en", "Out of memory at start"),
    ("en", "To see whether it costs quality"),
    ("en", "(date not recorded)"),
    ("en", "say how far a second run would land"),
    ("en", "divided by the GPUs a configuration occupies"),
    ("en", "built on the choice before it: a local optimum"),
    ("en", "The original page recommends FP8"),
    ("en", "This TensorRT-LLM release does not support the model."),
    ("en", "as the runs were made"),
    ("tr", "Temel yapılandırma ile optimize edilmiş yapılandırma, her benchmark profilinde."),
    ("tr", "bu yüzden sayfa güven aralığı veremiyor"),
    ("tr", "koşunun akıtabileceğinin üstünde"),
    ("tr", "satırı benchmark aracının ürettiği yapay bir değerdir"),
    ("tr", "koşunun yazdırdığı"),
    ("tr", "Çalıştıran:"),
    ("tr", "Değişenler:"),
    ("tr", "Hiçbir ayarı değiştirmiyor"),
    ("tr", "karşısındaki fark"),
    ("tr", "Her satır bir aşamadır."),
    ("tr", "bu hücre boş kalır"),
    ("tr", "Optimize edilmiş yapılandırmanın diğer iş yüklerindeki sonuçları"),
    ("tr", "bellek yetmedi"),
    ("tr", "(çıkış noktası)"),
    ("tr", "Kodlama ajanlarının ürettiği türden trafik"),
    ("tr", "her benchmark profilindeki sonuçları"),
    ("tr", "Her profilde temel ve optimize edilmiş yapılandırmanın"),
    ("tr", "ne kadar uzak düşebileceğini"),
    ("tr", "Yapılandırmaların her biri bir kez ölçüldü; yalnızca biri"),
    ("tr", "(tarih kaydedilmemiş)"),
    ("tr", "en iyi sonucu devralır"),
    ("tr", "bir puanın çok altında kaybettirir"),
    ("tr", "Gecikmeye duyarlı trafiği"),
    ("tr", "DP attention"),
    ("tr", "orada uzun bağlam olağan durumdur"),
    ("tr", "%2,00'lik gürültü eşiğinden büyük"),
    ("tr", "satırındaki değer, benchmark aracının"),
    ("tr", "(Uzun bağlam (32K giriş / 100 çıkış))"),
    ("tr", "guidellm çıktısının GPUStack'teki görünümüdür"),
    ("tr", "Profil: Balanced"),
    ("tr", "En hızlı ve en yavaş varyant karşılaştırıldığında"),
    ("tr", "karşısında kazanç"),
    ("tr", "o koşunun sonucu burada"),
    ("tr", "aynı bayraklar"),
    ("tr", "karşılaştırma noktası olsun diye"),
    ("tr", "#### 0,80"),
    ("tr", "8192 ile açılıyor"),
    ("tr", "Açılışta bellek yetmiyor"),
    ("tr", "zaten bu aşamanın üzerine kurulduğu yapılandırma"),
    ("tr", "#### otomatik"),
    ("tr", "“otomatik”"),
    ("tr", "Temele göre"),
    ("tr", "açgözlü kod çözme"),
    ("tr", "Fark 200 soruda tek bir sorudur"),
    ("tr", "ikinci bir koşunun nereye düşeceğini"),
    ("tr", "tek bir TP2'nin yaklaşık iki katı işlem hacmine ulaşır"),
    ("tr", "Özgün sayfa ise FP8"),
    ("tr", "aynı 1000 ShareGPT istemini"),
    ("tr", "Çıkarım motoru: her varyantın"),
    ("tr", "Bu TensorRT-LLM sürümü modeli desteklemiyor"),
    ("tr", "Koşular nasıl yapıldıysa"),
    ("tr", "`--tp-size` olmadan"),
    ("tr", "Çıkarım motorunun temel yapılandırması"),
    // A speedup said so that many read 快 1.1 倍 as 110% faster; a slowdown in an unidiomatic form.
    ("zh", "▲ 快 "),
    ("zh", "秒（快 "),
    ("ja", "倍低速"),
    // A space between Chinese or Japanese words and a name put in, after a full-width colon or
    // full stop, and half-width brackets around Chinese or Japanese.
    ("zh", "比较的是 "),
    ("zh", "单请求平均延迟 变化"),
    ("zh", "吞吐量 变化"),
    ("zh", "ShareGPT 上 总 token 吞吐量"),
    ("zh", "并发 4上的"),
    ("zh", "相比： "),
    ("zh", "）。 与"),
    ("zh", "**目标：** "),
    ("zh", "(ShareGPT，并发 4)"),
    ("zh", "(短提示词（"),
    ("zh", "(均衡："),
    ("ja", "示します。 最適化後"),
    ("ja", "比較： "),
    ("ja", "。 2位の"),
    ("ja", "**目的：** "),
    ("ja", "(ShareGPT、同時4)"),
    ("ja", "(短いプロンプト（入力128／出力4）)"),
    ("ja", "(バランス型："),
    ("zh", "各变体的 "),
    ("zh", "阶段之后的 "),
    ("zh", "基线与优化后的 "),
    ("ja", "負荷に対する "),
];

#[test]
fn flagged_sentences_are_gone_from_the_pages() {
    let mut read = 0;
    for entry in walkdir::WalkDir::new(root().join("site")) {
        let entry = entry.unwrap();
        let path = entry.path();
        let rel = path.strip_prefix(root().join("site")).unwrap().to_string_lossy().into_owned();
        let locale = rel.trim_start_matches("md/").split('/').next().unwrap_or("").to_string();
        let text = match path.extension().and_then(|e| e.to_str()) {
            Some("md" | "html" | "svg") => std::fs::read_to_string(path).unwrap(),
            _ => continue,
        };
        read += 1;
        for (lang, gone) in GONE {
            assert!(!(*lang == locale && text.contains(gone)), "{rel} still says {gone:?}");
        }
        if locale == "tr" && rel.ends_with(".md") {
            // The engine stage's heading, as the seed names it.
            assert!(!text.contains("### 1. Çıkarım motoru\n"), "{rel}");
        }
    }
    assert!(read > 200, "{read}");
}

/// Each check above fails on the wording it replaced: a page holding one of the old sentences.
#[test]
fn the_old_wording_would_be_found() {
    let old = "**Karar:** “SGLang” benimsendi; üzerine kurulduğu “vLLM” karşısında kazanç +%18,34.";
    assert!(GONE.iter().any(|(lang, gone)| *lang == "tr" && old.contains(gone)));
    let old = "**Summary:** Fastest against slowest: SGLang reaches 6487.53 tok/s against 5481.90 tok/s";
    assert!(GONE.iter().any(|(lang, gone)| *lang == "en" && old.contains(gone)));
    let old = "“变化”一列比较的是 单请求平均延迟；损失超过噪声阈值时标为性能回退。";
    assert!(GONE.iter().any(|(lang, gone)| *lang == "zh" && old.contains(gone)));
    let old = "**目的：** 多数のリクエストが一度に届くときの高いスループット。";
    assert!(GONE.iter().any(|(lang, gone)| *lang == "ja" && old.contains(gone)));
}

/// The seed's names for what the Turkish pages had drifted from: the engine stage is "Çıkarım
/// motoru seçimi" and a setting the engine spells `auto` stays `auto`, in every bundled study.
#[test]
fn the_bundled_studies_keep_the_seeds_names() {
    let mut engine_stages = 0;
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = perflab::study::Study::load(&dir).unwrap();
        for stage in &study.spec.stages {
            if stage.title.get("en") == "Inference engine" {
                engine_stages += 1;
                assert_eq!(stage.title.get("tr"), "Çıkarım motoru seçimi", "{}", dir.display());
            }
            for v in &stage.variants {
                if v.label.get("en") == "auto" {
                    assert_eq!(v.label.get("tr"), "auto", "{} {}/{}", dir.display(), stage.id, v.id);
                }
            }
        }
    }
    assert!(engine_stages >= 2, "{engine_stages}");
}
