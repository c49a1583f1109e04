//! Properties of middle truncation.
//!
//! "Budget" means the policy's byte budget (`Bytes(b)` is `b`, `Tokens(t)` is `4 t`) and bounds the
//! *content kept from the input*: a truncated output is `head + marker + tail` where `head` is a
//! prefix of the input, `tail` a suffix, and `head.len() + tail.len() <= budget`. The marker is
//! extra and bounded, so the whole output is at most `budget + MAX_TRUNCATION_MARKER_BYTES` bytes.
//! An input within the budget comes back unchanged.

use agentctx_context::MAX_TRUNCATION_MARKER_BYTES;
use agentctx_context::TruncationPolicy;
use agentctx_context::approx_token_count;
use agentctx_context::formatted_truncate_text;
use agentctx_context::truncate_middle_with_token_budget;
use agentctx_context::truncate_text;
use proptest::prelude::*;

/// Text mixing 1- to 4-byte characters.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => Just('\n'),
            1 => Just('é'),
            1 => Just('字'),
            1 => Just('😀'),
            1 => Just('…'),
            1 => any::<char>(),
        ],
        0..400,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn policy() -> impl Strategy<Value = TruncationPolicy> {
    prop_oneof![
        (0usize..300).prop_map(TruncationPolicy::Bytes),
        (0usize..80).prop_map(TruncationPolicy::Tokens),
    ]
}

/// A decomposition of a truncated output: head, removed count, tail.
struct Split<'a> {
    head: &'a str,
    removed: u64,
    tail: &'a str,
}

/// Every way `output` reads as `head + "…{N} {unit} truncated…" + tail` with `head` a prefix and
/// `tail` a suffix of `input` (the input may itself contain `…`, so several may exist).
fn splits<'a>(output: &'a str, input: &str, unit: &str) -> Vec<Split<'a>> {
    let closing = format!(" {unit} truncated…");
    output
        .match_indices('…')
        .filter_map(|(start, _)| {
            let after = &output[start + '…'.len_utf8()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let removed: u64 = after[..digits].parse().ok()?;
            let rest = after[digits..].strip_prefix(closing.as_str())?;
            let head = &output[..start];
            (input.starts_with(head) && input.ends_with(rest)).then_some(Split {
                head,
                removed,
                tail: rest,
            })
        })
        .collect()
}

fn unit(policy: TruncationPolicy) -> &'static str {
    match policy {
        TruncationPolicy::Bytes(_) => "chars",
        TruncationPolicy::Tokens(_) => "tokens",
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn output_respects_the_budget_and_keeps_head_and_tail(input in text(), policy in policy()) {
        let output = truncate_text(&input, policy);
        let budget = policy.byte_budget();
        let fits = match policy {
            TruncationPolicy::Bytes(bytes) => input.len() <= bytes,
            TruncationPolicy::Tokens(tokens) => input.is_empty() || (tokens > 0 && input.len() <= budget),
        };
        if fits {
            prop_assert_eq!(&output, &input);
            return Ok(());
        }
        prop_assert!(output.len() <= budget + MAX_TRUNCATION_MARKER_BYTES,
            "{} bytes for a budget of {}", output.len(), budget);
        let candidates = splits(&output, &input, unit(policy));
        let valid = candidates.iter().find(|split| {
            let kept = split.head.len() + split.tail.len();
            let removed_text = &input[split.head.len()..input.len() - split.tail.len()];
            let expected_removed = match policy {
                TruncationPolicy::Bytes(_) => removed_text.chars().count() as u64,
                TruncationPolicy::Tokens(_) => (input.len() - budget.min(input.len())).div_ceil(4) as u64,
            };
            kept <= budget
                && kept <= input.len()
                // Head and tail each get their half of the budget, short by less than one character.
                && split.head.len() + 4 > budget / 2
                && split.tail.len() + 4 > budget - budget / 2
                && input.is_char_boundary(split.head.len())
                && input.is_char_boundary(input.len() - split.tail.len())
                && split.removed == expected_removed
        });
        prop_assert!(valid.is_some(), "no valid head/marker/tail split of {:?} for {:?}", output, input);
    }

    #[test]
    fn token_variant_reports_the_original_count_only_when_it_cut(input in text(), tokens in 0usize..80) {
        let (output, original) = truncate_middle_with_token_budget(&input, tokens);
        if output == input {
            prop_assert_eq!(original, None);
        } else {
            prop_assert_eq!(original, Some(approx_token_count(&input)));
        }
    }

    #[test]
    fn formatted_output_has_the_header_exactly_when_cut(input in text(), policy in policy()) {
        let output = formatted_truncate_text(&input, policy);
        if input.len() <= policy.byte_budget() {
            prop_assert_eq!(&output, &input);
        } else {
            let header = format!(
                "Warning: truncated output (original token count: {})\nTotal output lines: {}\n\n",
                approx_token_count(&input),
                input.lines().count()
            );
            prop_assert!(output.starts_with(&header));
            prop_assert_eq!(&output[header.len()..], truncate_text(&input, policy));
        }
    }

    #[test]
    fn scaling_a_policy_rounds_up(limit in 0usize..100_000, tenths in 0u32..40) {
        let factor = f64::from(tenths) / 10.0;
        let TruncationPolicy::Tokens(scaled) = TruncationPolicy::Tokens(limit) * factor else {
            panic!("the kind is kept");
        };
        prop_assert!(scaled as f64 >= limit as f64 * factor - 1e-6);
        prop_assert!((scaled as f64) < limit as f64 * factor + 1.0);
    }
}
