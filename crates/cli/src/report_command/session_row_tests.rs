use std::path::Path;

use pretty_assertions::assert_eq;

use super::page_name;

#[test]
fn page_names_are_numbered_and_safe_in_a_url() {
    assert_eq!(
        page_name(0, Path::new("/s/rollout-2025-11-24T09-31-07-019a.jsonl")),
        "s0001-rollout-2025-11-24T09-31-07-019a"
    );
    assert_eq!(
        page_name(41, Path::new("/p/a b?#<x>\"&.jsonl")),
        "s0042-a_b___x___"
    );
}

#[test]
fn an_estimated_output_is_summed_apart_from_the_exact_ones() {
    use agentctx_engine::replay::RecordedTokens;

    use super::TokenTotals;

    let tokens = |output| RecordedTokens {
        input: 1_000,
        cached_input: 800,
        cache_write: 100,
        output,
    };
    let mut totals = TokenTotals::default();
    totals.add(&tokens(578), 60, None);
    totals.add(&tokens(5), 500, Some(1_000));
    assert_eq!(
        totals,
        TokenTotals {
            input: 2_000,
            cached_input: 1_600,
            cache_write: 200,
            // The one-hour writes are capped at the writes.
            cache_write_1h: 160,
            output: 578,
            output_estimated: 1_000,
            estimated_requests: 1,
        }
    );
}
