//! Short decimals, the numbers benchmark logs print, read and written without the general float
//! algorithms: each function gives exactly what the general one gives, or leaves the number to it.

/// The powers of ten that an `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// `00`, `01`, ..., `99`.
const PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

/// `word.parse::<f64>()` for `[+-]digits[.digits]` whose digits, read as one integer, are below
/// 2^53: that integer and the power of ten are exact, so one division rounds correctly, as the
/// standard parser does. `None` for anything else (the caller then asks the standard parser).
pub(super) fn read(word: &str) -> Option<f64> {
    read_start(word.as_bytes()).filter(|&(_, n)| n == word.len()).map(|(x, _)| x)
}

/// The longest start of `bytes` that is `[+-]digits[.digits]`, as [`read`] reads it, with its
/// length; `None` when there is none, or when [`read`] would leave it to the standard parser.
pub(super) fn read_start(bytes: &[u8]) -> Option<(f64, usize)> {
    let (negative, sign) = match bytes.first()? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let (mut mantissa, mut places, mut dot) = (0u64, 0usize, false);
    let mut at = sign;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
                places += usize::from(dot);
            }
            // A point between two digits.
            b'.' if !dot && at > sign && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) => dot = true,
            _ => break,
        }
        at += 1;
    }
    // More than 19 characters could overflow; the standard parser reads those.
    if at == sign || at - sign > 19 || mantissa >= 1 << 53 {
        return None;
    }
    let x = mantissa as f64 / POW10[places];
    Some((if negative { -x } else { x }, at))
}

/// Writes `x` as serde_json writes it, when it is a decimal of at most two places below 10^13
/// (counts, tokens, milliseconds as logs print them); returns false, writing nothing, otherwise.
/// Such a decimal has at most 15 significant digits, so it is the only one that short whose
/// nearest `f64` is `x`: the shortest text that reads back as `x` is that decimal.
pub(super) fn write(o: &mut Vec<u8>, x: f64) -> bool {
    let magnitude = x.abs();
    if magnitude.is_nan() || magnitude >= 1e13 {
        return false;
    }
    // The cents, rounded; `magnitude` is `cents / 100` when that division gives it back.
    let cents = (magnitude * 100.0 + 0.5) as i64;
    if cents as f64 / 100.0 != magnitude {
        return false;
    }
    // Written from the right into a buffer, two digits at a time, and copied at once.
    let mut text = [0u8; 20];
    let mut at = text.len();
    let mut put = |b: u8| {
        at -= 1;
        text[at] = b;
    };
    let pair = |n: i64| [PAIRS[2 * n as usize], PAIRS[2 * n as usize + 1]];
    let (mut whole, fraction) = (cents / 100, cents % 100);
    let [tenths, hundredths] = pair(fraction);
    if hundredths != b'0' {
        put(hundredths);
    }
    put(tenths);
    put(b'.');
    while whole >= 100 {
        let [tens, ones] = pair(whole % 100);
        put(ones);
        put(tens);
        whole /= 100;
    }
    let [tens, ones] = pair(whole);
    put(ones);
    if whole >= 10 {
        put(tens);
    }
    if x.is_sign_negative() {
        put(b'-');
    }
    o.extend_from_slice(&text[at..]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded xorshift: the same values on every run.
    fn values(seed: u64) -> impl Iterator<Item = u64> {
        let mut s = seed;
        std::iter::repeat_with(move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
    }

    #[test]
    fn reads_as_the_standard_parser_reads() {
        let mut words: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "+5",
            "007",
            "00.50",
            "1e16",
            "1e3",
            "0.00001",
            "10000000000000000",
            "9007199254740991",
            "9007199254740992",
            "9007199254740993",
            "123456789012345678901",
            "1.",
            ".5",
            "-",
            "+",
            "",
            "1..2",
            "1.2.3",
            "--1",
            "inf",
            "NaN",
            "1,5",
            "0x10",
            "12a",
            "3003.90",
            "0.1",
            "0.3",
            "-65.62",
            "4503599627370497.5",
            "1.7976931348623157",
            "0.000000000000000000001",
            "99999999999999999999",
        ]
        .map(str::to_string)
        .to_vec();
        for (i, r) in values(7).take(200_000).enumerate() {
            let digits = (r % 20) as usize + 1;
            let text: String = (0..digits).map(|k| char::from(b'0' + ((r >> (k * 3)) % 10) as u8)).collect();
            let point = (r >> 40) as usize % (digits + 1);
            let sign = ["", "-", "+"][i % 3];
            words.push(if point == 0 || point == digits {
                format!("{sign}{text}")
            } else {
                format!("{sign}{}.{}", &text[..point], &text[point..])
            });
        }
        let mut fast = 0;
        for w in &words {
            if let Some(x) = read(w) {
                fast += 1;
                let standard: f64 = w.parse().unwrap();
                assert_eq!(x.to_bits(), standard.to_bits(), "{w:?}");
            }
        }
        assert!(fast > words.len() / 2, "most short decimals take the fast way ({fast} of {})", words.len());
    }

    #[test]
    fn writes_as_serde_json_writes() {
        let mut xs: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.01,
            0.1,
            0.05,
            0.5,
            1e16,
            1e15,
            1e13,
            9999999999999.99,
            999999999999.99,
            1e12,
            0.00001,
            0.001,
            65.62,
            3003.9,
            100.00000000000001,
            0.30000000000000004,
            1.005,
            2.675,
            f64::MIN_POSITIVE,
            f64::MAX,
            4503599627370496.5,
            123456789.12,
        ];
        for (i, r) in values(11).take(300_000).enumerate() {
            let cents = r % 10u64.pow((r >> 50) as u32 % 16);
            let x = match i % 4 {
                // Decimals as printed, and scaled as seconds are to milliseconds.
                0 => cents as f64 / 100.0,
                1 => cents as f64 / 100.0 * 1000.0,
                2 => -(cents as f64) / 10.0,
                _ => f64::from_bits(r),
            };
            xs.push(x);
        }
        let mut fast = 0;
        for x in xs.into_iter().filter(|x| x.is_finite()) {
            let mut o = Vec::new();
            if write(&mut o, x) {
                fast += 1;
                assert_eq!(String::from_utf8(o).unwrap(), serde_json::to_string(&x).unwrap(), "{x:e}");
            } else {
                assert!(o.is_empty());
            }
        }
        assert!(fast > 150_000, "most decimals take the fast way ({fast})");
    }
}
