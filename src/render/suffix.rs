//! Turkish suffixes after names, numbers and units, as the catalogs write them with
//! `SUFFIX($value, case: "genitive")`: "SGLang'ın", "vLLM'in", "H200'ün", "636,24 ms'den",
//! "%2,00'lik".
//!
//! A Turkish suffix follows the last vowel *as spoken* (vowel harmony), takes a buffer letter
//! after a vowel, and hardens its first consonant after a voiceless one (`-da` → `-ta`). A name
//! is read the way a Turkish engineer says it:
//! - a number by its last spoken word: `200` "iki yüz", `16,11` "… on bir", `5.481,90` "… doksan"
//!   (`.` groups thousands and `,` marks decimals, as in Turkish text);
//! - a number with `K` after it as "ka": `32K` "otuz iki ka";
//! - a unit by its spoken word: `ms` "milisaniye", `token/sn` "… saniye", `token` "tokın";
//! - a trailing run of capitals by the English names of its letters, as such abbreviations are
//!   said in Turkish: `vLLM` "vi-el-el-em", `TP` "ti-pi", `GPU` "ci-pi-yu";
//! - anything else by its spelling: `SGLang`, `Ascend`, `triton` (which fits these names, not
//!   every English word: "GPUStack" would be read with the "a" it is spelt with).
//!
//! The suffix is always set off with an apostrophe, as Turkish spelling does after proper names,
//! abbreviations and numbers. Turkish words (which would need consonant softening and no
//! apostrophe: "bağlamı", "isteğe") are not given to it: the catalogs phrase those sentences so
//! that no suffix follows a study's label.

use std::fmt;

/// The suffixes the catalogs ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Case {
    /// -(n)ın: "SGLang'ın".
    Genitive,
    /// -(y)ı: "vLLM'i".
    Accusative,
    /// -(y)a: "540,79 ms'ye".
    Dative,
    /// -da/-ta: "H100'de", "4'te".
    Locative,
    /// -dan/-tan: "636,24 ms'den".
    Ablative,
    /// -(y)la: "SGLang'la".
    Instrumental,
    /// -lık: "%16,11'lik".
    Lik,
}

impl Case {
    /// The case a catalog names: `genitive`, `accusative`, `dative`, `locative`, `ablative`,
    /// `instrumental` or `lik`.
    pub fn parse(name: &str) -> Option<Case> {
        Some(match name {
            "genitive" => Case::Genitive,
            "accusative" => Case::Accusative,
            "dative" => Case::Dative,
            "locative" => Case::Locative,
            "ablative" => Case::Ablative,
            "instrumental" => Case::Instrumental,
            "lik" => Case::Lik,
            _ => return None,
        })
    }
}

/// How a word ends when spoken: what a suffix needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ending {
    /// The last vowel: one of a, e, ı, i, o, ö, u, ü.
    vowel: char,
    /// The word ends in that vowel.
    open: bool,
    /// It ends in a voiceless consonant (f, s, t, k, ç, ş, h, p).
    voiceless: bool,
}

impl Ending {
    /// The ending of a word spelt in Turkish letters (a spoken form).
    fn of_spoken(word: &str) -> Ending {
        let last = word.chars().last().unwrap_or('e');
        let vowel = word.chars().rev().find(|c| is_vowel(*c)).unwrap_or('e');
        Ending { vowel, open: is_vowel(last), voiceless: "fstkçşhp".contains(last) }
    }

    fn front(&self) -> bool {
        "eiöü".contains(self.vowel)
    }

    fn rounded(&self) -> bool {
        "oöuü".contains(self.vowel)
    }

    /// The four-way vowel (ı, i, u, ü).
    fn high(&self) -> char {
        match (self.front(), self.rounded()) {
            (false, false) => 'ı',
            (true, false) => 'i',
            (false, true) => 'u',
            (true, true) => 'ü',
        }
    }

    /// The two-way vowel (a, e).
    fn low(&self) -> char {
        if self.front() { 'e' } else { 'a' }
    }

    fn suffix(&self, case: Case) -> String {
        let (h, l) = (self.high(), self.low());
        let d = if self.voiceless { 't' } else { 'd' };
        match case {
            Case::Genitive if self.open => format!("n{h}n"),
            Case::Genitive => format!("{h}n"),
            Case::Accusative if self.open => format!("y{h}"),
            Case::Accusative => h.to_string(),
            Case::Dative if self.open => format!("y{l}"),
            Case::Dative => l.to_string(),
            Case::Locative => format!("{d}{l}"),
            Case::Ablative => format!("{d}{l}n"),
            Case::Instrumental if self.open => format!("yl{l}"),
            Case::Instrumental => format!("l{l}"),
            Case::Lik => format!("l{h}k"),
        }
    }
}

fn is_vowel(c: char) -> bool {
    "aeıioöuü".contains(c)
}

/// The last spoken word of a whole number written in digits, "0" to any length.
fn last_number_word(digits: &str) -> &'static str {
    const ONES: [&str; 10] = ["sıfır", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz"];
    const TENS: [&str; 10] = ["", "on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan"];
    const GROUPS: [&str; 5] = ["", "bin", "milyon", "milyar", "trilyon"];
    let digits: Vec<u8> = digits.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    let Some(position) = digits.iter().rposition(|d| *d != 0) else {
        return ONES[0];
    };
    let from_end = digits.len() - 1 - position;
    let group = GROUPS.get(from_end / 3).copied().unwrap_or("trilyon");
    match (from_end % 3, from_end / 3) {
        (0, 0) => ONES[digits[position] as usize],
        (1, 0) => TENS[digits[position] as usize],
        (2, 0) => "yüz",
        _ => group,
    }
}

/// How a unit or a magnitude letter is said.
fn spoken_unit(unit: &str) -> Option<&'static str> {
    Some(match unit {
        "ms" => "milisaniye",
        "s" | "sn" | "sec" => "saniye",
        "dk" | "min" => "dakika",
        "K" | "k" => "ka",
        "GB" | "GiB" => "gigabayt",
        "MB" | "MiB" => "megabayt",
        "token" | "tok" => "tokın",
        _ => return None,
    })
}

/// The English name of a capital letter, as Turkish speakers say it in an abbreviation.
fn letter_name(c: char) -> &'static str {
    match c {
        'A' => "ey",
        'B' => "bi",
        'C' => "si",
        'D' => "di",
        'E' => "i",
        'F' => "ef",
        'G' => "ci",
        'H' => "eyç",
        'I' => "ay",
        'J' => "cey",
        'K' => "key",
        'L' => "el",
        'M' => "em",
        'N' => "en",
        'O' => "o",
        'P' => "pi",
        'Q' => "kyu",
        'R' => "ar",
        'S' => "es",
        'T' => "ti",
        'U' => "yu",
        'V' => "vi",
        'W' => "dabılyu",
        'X' => "eks",
        'Y' => "vay",
        _ => "zi",
    }
}

/// How `name` ends when read aloud (see the module's documentation).
fn ending(name: &str) -> Ending {
    // The last word, without closing punctuation; `token/sn` is read by its last part.
    let word = name.trim_end_matches(|c: char| !c.is_alphanumeric());
    let word = word.rsplit([' ', '\u{a0}', '/', '-', '(']).next().unwrap_or(word);
    if let Some(unit) = spoken_unit(word) {
        return Ending::of_spoken(unit);
    }
    let lowered = word.to_lowercase();
    let tail: String =
        word.chars().rev().take_while(|c| c.is_alphabetic()).collect::<Vec<_>>().into_iter().rev().collect();
    let head = &word[..word.len() - tail.len()];
    if tail.is_empty() {
        // A number: its decimals when they are not all zero ("16,11" → "on bir"; "%2,00" is
        // said "yüzde iki"), else its whole part.
        let (whole, decimals) = word.rsplit_once(',').unwrap_or((word, ""));
        let spoken = if decimals.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            last_number_word(decimals)
        } else {
            last_number_word(whole)
        };
        return Ending::of_spoken(spoken);
    }
    if head.ends_with(|c: char| c.is_ascii_digit())
        && let Some(unit) = spoken_unit(&tail)
    {
        return Ending::of_spoken(unit);
    }
    let capitals = tail.chars().rev().take_while(|c| c.is_ascii_uppercase()).count();
    let abbreviation = capitals >= 2 || (capitals == 1 && tail.chars().count() == 1);
    if abbreviation {
        let last = tail.chars().last().unwrap_or('Z');
        return Ending::of_spoken(letter_name(last));
    }
    // A word, read by its spelling.
    Ending::of_spoken(&lowered)
}

/// `name` followed by an apostrophe and the suffix of `case` that fits how it is read.
pub fn attach(name: &str, case: Case) -> String {
    format!("{name}'{}", ending(name).suffix(case))
}

/// An unknown case in a catalog's `SUFFIX(…)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCase(pub String);

impl fmt::Display for UnknownCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SUFFIX: unknown case `{}` (genitive, accusative, dative, locative, ablative, instrumental, lik)",
            self.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Case::*;

    #[track_caller]
    fn says(name: &str, case: Case, expected: &str) {
        assert_eq!(attach(name, case), expected, "{name} {case:?}");
    }

    #[test]
    fn engine_and_model_names() {
        says("SGLang", Genitive, "SGLang'ın");
        says("vLLM", Genitive, "vLLM'in");
        says("vLLM", Accusative, "vLLM'i");
        says("TensorRT-LLM", Genitive, "TensorRT-LLM'in");
        says("H200", Genitive, "H200'ün");
        says("H100", Locative, "H100'de");
        says("MindIE", Genitive, "MindIE'nin");
        says("vLLM-Ascend", Locative, "vLLM-Ascend'de");
        says("GLM-5.2", Genitive, "GLM-5.2'nin");
        says("Qwen3-30B-A3B", Genitive, "Qwen3-30B-A3B'nin");
        says("Qwen3", Genitive, "Qwen3'ün");
        says("GPU", Accusative, "GPU'yu");
        says("TP", Genitive, "TP'nin");
        says("GSM8K", Accusative, "GSM8K'yı");
        says("DeepEP", Instrumental, "DeepEP'yle");
        says("triton", Accusative, "triton'u");
        says("Ascend", Instrumental, "Ascend'le");
    }

    #[test]
    fn numbers_by_their_last_spoken_word() {
        says("%16,11", Lik, "%16,11'lik");
        says("%2,00", Lik, "%2,00'lik");
        says("%3,00", Lik, "%3,00'lük");
        says("4", Locative, "4'te");
        says("3", Ablative, "3'ten");
        says("6", Locative, "6'da");
        says("10", Dative, "10'a");
        says("40", Genitive, "40'ın");
        says("1.000", Genitive, "1.000'in");
        says("1.000.000", Locative, "1.000.000'da");
        says("5.481,90", Ablative, "5.481,90'dan");
        says("0", Dative, "0'a");
        says("+%219,70", Lik, "+%219,70'lik");
    }

    #[test]
    fn units_and_magnitudes_as_spoken() {
        says("636,24 ms", Ablative, "636,24 ms'den");
        says("540,79 ms", Dative, "540,79 ms'ye");
        says("5.481,90 token/sn", Ablative, "5.481,90 token/sn'den");
        says("0,87 sn", Locative, "0,87 sn'de");
        says("32K", Lik, "32K'lık");
        says("16K", Locative, "16K'da");
        says("700B", Genitive, "700B'nin");
        says("8B", Dative, "8B'ye");
        says("1.000 token", Dative, "1.000 token'a");
    }

    #[test]
    fn cases_are_named_in_the_catalogs() {
        assert_eq!(Case::parse("genitive"), Some(Genitive));
        assert_eq!(Case::parse("lik"), Some(Lik));
        assert_eq!(Case::parse("gen"), None);
    }
}
