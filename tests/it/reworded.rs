//! Sentences and labels of the pages that read wrongly, stiffly or off the seeds' terms were
//! rewritten; none of them is left on any English or Turkish page of the committed site, its
//! charts included.

use crate::common;

use common::root;

/// Fragments of the former wording, each specific enough that only that sentence matched it.
const GONE: [(&str, &str); 28] = [
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
            assert!(!(lang == locale && text.contains(gone)), "{rel} still says {gone:?}");
        }
    }
    assert!(read > 200, "{read}");
}
