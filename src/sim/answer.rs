//! How the simulated engine answers a question of arithmetic (`What is 37 + 48?`, the last one
//! in the prompt): right with the probability its flags set, the same way for the same question
//! every time. A question is answered right when its draw (a hash of the question and
//! `--sim-seed`, uniform in [0, 1)) is below the accuracy, so a configuration with lower accuracy
//! gets wrong the questions a higher one gets wrong, and a few more, as a change of numerics
//! flips the borderline answers of a model decoded greedily.

use super::EngineOptions;

/// The answer's text to a prompt that asks an arithmetic question; `None` for any other prompt.
pub fn answer(args: &EngineOptions, prompt: &str) -> Option<String> {
    let (question, right) = last_question(prompt)?;
    let draw = hash(question.as_bytes(), args.sim_seed) as f64 / (u64::MAX as f64 + 1.0);
    let value = if draw < accuracy(args) { right } else { right + 1 + (hash(question.as_bytes(), 1) % 9) as i64 };
    Some(format!(" The answer is {value}."))
}

/// The share of questions answered right with these flags.
pub fn accuracy(args: &EngineOptions) -> f64 {
    let fp8 = args.kv_cache_dtype.starts_with("fp8");
    let drop = if fp8 { args.sim_fp8_kv_accuracy_drop } else { 0.0 };
    (args.sim_accuracy - drop).clamp(0.0, 1.0)
}

/// The last `What is a op b [op c]?` of a prompt and its value.
fn last_question(prompt: &str) -> Option<(&str, i64)> {
    let start = prompt.rfind("What is ")?;
    let rest = &prompt[start..];
    let question = &rest[..rest.find('?')? + 1];
    let expr = question.strip_prefix("What is ")?.strip_suffix('?')?;
    let mut words = expr.split_whitespace();
    let mut value: i64 = words.next()?.parse().ok()?;
    while let Some(op) = words.next() {
        let n: i64 = words.next()?.parse().ok()?;
        value = match op {
            "+" => value.checked_add(n)?,
            "-" => value.checked_sub(n)?,
            "*" => value.checked_mul(n)?,
            _ => return None,
        };
    }
    Some((question, value))
}

/// FNV-1a of `bytes` after `seed`'s bytes, mixed by SplitMix64's finalizer (FNV's high bits alone
/// are far from uniform over short questions).
fn hash(bytes: &[u8], seed: u64) -> u64 {
    let h = seed
        .to_le_bytes()
        .iter()
        .chain(bytes)
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    let h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_answered_right_as_often_as_the_flags_say() {
        let prompt = |i: u32| format!("Question: What is 3 + 4?\nAnswer: 7\nQuestion: What is {i} * 3?\nAnswer:");
        let right = |args: &EngineOptions| {
            (0..2000).filter(|i| answer(args, &prompt(*i)) == Some(format!(" The answer is {}.", i * 3))).count()
        };
        let mut args = EngineOptions { sim_accuracy: 0.8, sim_fp8_kv_accuracy_drop: 0.1, ..EngineOptions::default() };
        let bf16 = right(&args);
        assert!((1500..1700).contains(&bf16), "{bf16}");
        args.kv_cache_dtype = "fp8_e4m3".into();
        let fp8 = right(&args);
        assert!((1300..1500).contains(&fp8), "{fp8}");
        assert_eq!(answer(&args, "Tell me a story"), None);
        assert_eq!(last_question("What is 12 + 5 - 30?"), Some(("What is 12 + 5 - 30?", -13)));
    }
}
