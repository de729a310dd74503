//! The answer on the page is the answer a reader gets: where stages are measured but left out of
//! the recommended command, the headline (the page's first result, the index card, the summary
//! PNG) gives the gain of the command itself first, and the gain with everything adopted second.

use crate::common;

use common::root;
use perflab::analysis::analyze;
use perflab::render::Renderer;
use perflab::study::Study;

fn deepseek() -> Study {
    Study::load(&root().join("results/deepseek-v3.2-h200")).unwrap()
}

#[test]
fn the_gain_of_the_recommended_command_is_its_own_run_against_the_baseline() {
    let study = deepseek();
    let a = analyze(&study);
    assert!(!a.excluded_stages.is_empty(), "the study leaves a stage out of its command");
    let target = a.scenarios.iter().find(|s| s.target).unwrap();
    let command = target.recommended.as_ref().expect("the command's configuration was measured");
    // The run that measured the command's configuration is one whose configuration it is.
    assert_eq!(command.run.to_string(), "tool-call/sglang-tool-call/sharegpt");
    let (base, cmd) = (target.baseline.as_ref().unwrap().value.unwrap(), command.value.unwrap());
    let expected = (cmd - base) / base * 100.0;
    assert!((a.recommended_gain.unwrap() - expected).abs() < 1e-9);
    assert_eq!(format!("{:.2}", a.recommended_gain.unwrap()), "46.60");
    assert_eq!(format!("{:.2}", a.total_gain.unwrap()), "56.95");
}

#[test]
fn the_first_result_the_card_and_the_picture_name_the_commands_gain_first() {
    let study = deepseek();
    let a = analyze(&study);
    let renderer = Renderer::new(None).unwrap();
    let (code, page, err) = common::perflab(&["report", root().join("results/deepseek-v3.2-h200").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let first = page.lines().find(|l| l.contains('→')).unwrap();
    let (command, all) = (first.find("+46.60%").unwrap(), first.find("+56.95%").unwrap());
    assert!(command < all, "{first}");
    for locale in ["en", "tr", "zh", "ja"] {
        let c = renderer.catalog(locale).unwrap();
        let card = perflab::render::view::headline(&study, &a, c).unwrap();
        assert!(card.contains("46.60") || card.contains("46,60"), "{locale}: {card}");
        assert!(!card.contains("56.95") && !card.contains("56,95"), "{locale}: {card}");
        let picture = perflab::render::view::summary_chart(&study, &a, c).unwrap();
        let target = &picture.pairs[a.scenarios.iter().position(|s| s.target).unwrap()];
        assert!(target.change.contains("46.60") || target.change.contains("46,60"), "{locale}: {}", target.change);
        assert_eq!(
            target.optimized,
            a.scenarios.iter().find(|s| s.target).unwrap().recommended.as_ref().unwrap().value
        );
    }
}

/// A study that leaves nothing out of its command keeps one figure: the optimized configuration's.
#[test]
fn without_a_stage_left_out_the_headline_is_the_total_gain() {
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        let study = Study::load(&dir).unwrap();
        let a = analyze(&study);
        if a.excluded_stages.is_empty() {
            assert_eq!(a.recommended_gain, None, "{}", study.id);
            assert!(a.scenarios.iter().all(|s| s.recommended.is_none()), "{}", study.id);
        }
    }
}

/// What a search result or a link preview shows under the page's title carries the answer too:
/// the command's gain first, the gain with the settings left out of it second, then the goal.
#[test]
fn the_page_description_names_the_commands_gain_first() {
    let study = deepseek();
    let a = analyze(&study);
    let renderer = Renderer::new(None).unwrap();
    for locale in ["en", "tr", "zh", "ja"] {
        let c = renderer.catalog(locale).unwrap();
        let text = perflab::render::view::description(&study, &a, c).unwrap().unwrap();
        let at = |figure: &str| text.find(figure).or_else(|| text.find(&figure.replace('.', ",")));
        let (command, all) = (at("46.60").unwrap(), at("56.95").unwrap());
        assert!(command < all, "{locale}: {text}");
        assert!(text.ends_with(study.spec.goal.as_ref().unwrap().get(locale)), "{locale}: {text}");
        assert!(!text.contains('<'), "plain text, no mark-up: {locale}: {text}");
    }
    let page = std::fs::read_to_string(root().join("site/en/deepseek-v3.2-h200.html")).unwrap();
    let meta = page.lines().find(|l| l.starts_with("<meta name=\"description\"")).unwrap();
    let (command, all) = (meta.find("+46.60%").unwrap(), meta.find("+56.95%").unwrap());
    assert!(command < all, "{meta}");
}
