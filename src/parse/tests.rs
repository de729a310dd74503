//! Reading a number, putting metrics in order, and comparing raw results.

use super::*;

#[test]
fn numbers_are_the_first_word() {
    for v in [
        "1.5",
        " 2 (Poisson process)",
        "3\u{b}4",
        "5\t6",
        "7\u{a0}8",
        "",
        "  ",
        "inf",
        "x 1",
        "1e3 s",
        "1.5x",
        "+5 s",
        "-0\t1",
        "12\u{a0}3",
        "3-",
        "1.2.3 s",
        "7 ",
        "0.5\u{3000}",
    ] {
        let slow = v.split_whitespace().next().and_then(|w| w.parse::<f64>().ok()).filter(|x| x.is_finite());
        assert_eq!(number(v), slow, "{v:?}");
    }
    // Seeded texts of the characters that start, cut or spoil a number.
    let alphabet = ["0", "1", "5", "9", ".", "+", "-", " ", "\t", "x", "e", "\u{a0}", "00", "123456789"];
    let mut next = seeded(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200_000 {
        let s = next(u64::MAX);
        let v: String = (0..s % 9).map(|k| alphabet[(s >> (6 + 5 * k)) as usize % alphabet.len()]).collect();
        let slow = v.split_whitespace().next().and_then(|w| w.parse::<f64>().ok()).filter(|x| x.is_finite());
        assert_eq!(number(&v).map(f64::to_bits), slow.map(f64::to_bits), "{v:?}");
    }
}

#[test]
fn metrics_are_put_in_order_as_a_sort_from_scratch_would() {
    // Names that share their first eight bytes, or are a prefix of one another, among others.
    let pool: Vec<Name> = ["mean_ttft_ms", "mean_ttft_ms_x", "mean_tt", "median_itl_ms", "a", "", "p99_ttft_ms", "p99"]
        .iter()
        .map(|t| Name::new(t.to_string()))
        .collect();
    let mut next = seeded(0x2545_f491_4f6c_dd1d);
    let mut order = Order::default();
    let mut seen: Vec<Vec<(Name, f64)>> = Vec::new();
    for trial in 0..20_000 {
        // Most blocks repeat the names of one of the 48 before (more than are kept), as a
        // log's blocks do; the others are new, some made of new texts equal to known ones.
        let again = next(4) > 0 && !seen.is_empty();
        let entries: Vec<(Name, f64)> = if again {
            let from = &seen[seen.len() - 1 - next(seen.len().min(48) as u64) as usize];
            from.iter().map(|(n, _)| (n.clone(), next(100) as f64)).collect()
        } else {
            (0..next(12))
                .map(|_| {
                    let n = &pool[next(pool.len() as u64) as usize];
                    let n = if next(8) == 0 { Name::new(n.text.to_string()) } else { n.clone() };
                    (n, next(100) as f64)
                })
                .collect()
        };
        seen.push(entries.clone());
        assert_eq!(order.sort(entries.clone()), Metrics::from_unsorted(entries), "trial {trial}");
    }
}

#[test]
fn raw_renames_repeats_and_compares_by_entries() {
    let mut a = Raw::default();
    for (k, v) in [("x", "1"), ("y", "2"), ("x", "3"), ("x", "4")] {
        a.push(k, v);
    }
    a.rename_repeats();
    let entries: Vec<_> = a.iter().collect();
    assert_eq!(entries, [("x", "1"), ("y", "2"), ("x (2)", "3"), ("x (3)", "4")]);
    let mut b = Raw::with_capacity(1, 1);
    for (k, v) in entries {
        b.push(k, v);
    }
    assert_eq!(a, b);
    assert_eq!(a.get("x (3)"), Some("4"));
}
