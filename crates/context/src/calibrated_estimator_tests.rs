use pretty_assertions::assert_eq;

use super::*;

#[test]
fn counts_each_class() {
    let counts = ClassCounts::of("let x1234 = foo(\"日本\");\n    bar  é");
    assert_eq!(
        counts,
        ClassCounts {
            word_runs: 4,
            letters: 10,
            digit_groups: 2,
            punctuation: 6,
            line_breaks: 1,
            cjk: 2,
            other: 1,
        }
    );
}

/// A char-by-char count of the classes, the reference the run-at-a-time counter must match.
fn reference_counts(text: &str) -> ClassCounts {
    let mut counts = ClassCounts::default();
    let mut previous: Option<u8> = None;
    let mut digits = 0;
    let mut spaces_have_break = false;
    let close = |previous: Option<u8>, has_break: bool, counts: &mut ClassCounts| {
        if previous == Some(b's') && has_break {
            counts.line_breaks += 1;
        }
    };
    for c in text.chars() {
        let class = match c {
            'a'..='z' | 'A'..='Z' => b'l',
            '0'..='9' => b'd',
            ' ' | '\t' | '\n' | '\r' => b's',
            c if c.is_ascii_punctuation() => b'p',
            c if !c.is_ascii() && is_cjk(u32::from(c)) => b'c',
            _ => b'o',
        };
        if Some(class) != previous || !matches!(class, b'l' | b'd' | b's') {
            close(previous, spaces_have_break, &mut counts);
            match class {
                b'l' => counts.word_runs += 1,
                b'd' => digits = 0,
                b's' => spaces_have_break = false,
                _ => {}
            }
        }
        match class {
            b'l' => counts.letters += 1,
            b'd' => {
                if digits % 3 == 0 {
                    counts.digit_groups += 1;
                }
                digits += 1;
            }
            b's' => spaces_have_break |= c == '\n',
            b'p' => counts.punctuation += 1,
            b'c' => counts.cjk += 1,
            _ => counts.other += 1,
        }
        previous = Some(class);
    }
    close(previous, spaces_have_break, &mut counts);
    counts
}

proptest::proptest! {
    #[test]
    fn run_counting_matches_the_char_by_char_reference(text in "[a-zA-Z0-9 \t\n{}();:.,\"é日本語한글😀]{0,64}") {
        proptest::prop_assert_eq!(ClassCounts::of(&text), reference_counts(&text));
    }
}

#[test]
fn empty_text_is_zero_and_any_text_is_at_least_one() {
    assert_eq!(CalibratedTokenEstimator.estimate_text(""), 0);
    assert_eq!(CalibratedTokenEstimator.estimate_text(" "), 1);
    assert_eq!(CalibratedTokenEstimator.estimate_text("a"), 1);
}

#[test]
fn items_count_text_plus_framing() {
    let item = ResponseItem::user_text("hello world");
    assert_eq!(
        CalibratedTokenEstimator.estimate_item(&item),
        CalibratedTokenEstimator.estimate_text("hello world")
            + crate::item_text_tokens::ITEM_OVERHEAD_TOKENS
    );
}

#[cfg(feature = "tiktoken")]
mod calibration {
    use super::*;

    /// The calibration corpus: code, prose, JSON tool output and CJK text.
    const CORPUS: [(&str, &str); 7] = [
        (
            "code",
            include_str!("../benches/fixtures/tokens/code_truncate.rs.txt"),
        ),
        (
            "code",
            include_str!("../benches/fixtures/tokens/code_diff.rs.txt"),
        ),
        (
            "code",
            include_str!("../benches/fixtures/tokens/code_reader.rs.txt"),
        ),
        (
            "prose",
            include_str!("../benches/fixtures/tokens/prose_context.md"),
        ),
        (
            "prose",
            include_str!("../benches/fixtures/tokens/prose_reminders.md"),
        ),
        (
            "json",
            include_str!("../benches/fixtures/tokens/tool_output.json"),
        ),
        ("cjk", include_str!("../benches/fixtures/tokens/cjk.txt")),
    ];

    fn o200k(text: &str) -> f64 {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len() as f64
    }

    /// The corpus in pieces of about 40 lines, the rows the weights were fitted on.
    fn pieces() -> Vec<(&'static str, String)> {
        let mut pieces = Vec::new();
        for (kind, text) in CORPUS {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            for chunk in lines.chunks(40) {
                pieces.push((kind, chunk.concat()));
            }
        }
        pieces
    }

    /// Prints the feature rows for refitting the weights: `cargo test -p agentctx-context
    /// --features tiktoken feature_rows -- --ignored --nocapture`.
    #[test]
    #[ignore = "a tool for refitting the weights, not a check"]
    fn feature_rows() {
        for (kind, piece) in pieces() {
            let features = ClassCounts::of(&piece).features();
            let row: Vec<String> = features.iter().map(f64::to_string).collect();
            println!("ROW,{kind},{},{}", o200k(&piece), row.join(","));
        }
    }

    /// Within 5% of o200k over the whole corpus, and within 10% on each kind of text.
    #[test]
    fn within_five_percent_of_o200k() {
        let mut total_exact = 0.0;
        let mut total_estimate = 0.0;
        for kind in ["code", "prose", "json", "cjk"] {
            let mut exact = 0.0;
            let mut estimate = 0.0;
            for (_, text) in CORPUS.iter().filter(|(k, _)| *k == kind) {
                exact += o200k(text);
                estimate += CalibratedTokenEstimator.estimate_text(text) as f64;
            }
            let error = (estimate - exact) / exact;
            assert!(
                error.abs() <= 0.10,
                "{kind}: {estimate} vs {exact} ({error:+.3})"
            );
            total_exact += exact;
            total_estimate += estimate;
        }
        let error = (total_estimate - total_exact) / total_exact;
        assert!(
            error.abs() <= 0.05,
            "total: {total_estimate} vs {total_exact} ({error:+.3})"
        );
    }
}
