use agentctx_compact::ThresholdLevel;
use agentctx_engine::replay::PredictionBasis;
use agentctx_engine::replay::RecordedTokens;
use agentctx_engine::replay::RequestUsage;
use agentctx_engine::replay::TierTrigger;
use pretty_assertions::assert_eq;

use super::PolicyRequest;
use super::our_requests;

fn tokens(input: u64, cached_input: u64, cache_write: u64) -> RecordedTokens {
    RecordedTokens {
        input,
        cached_input,
        cache_write,
        output: 10,
    }
}

fn request(number: usize, recorded: Option<RecordedTokens>) -> RequestUsage {
    RequestUsage {
        request: number,
        line: number,
        predicted_tokens: recorded.map_or(0, |tokens| tokens.input),
        basis: PredictionBasis::PreviousRequest,
        recorded_tokens: recorded.map(|tokens| tokens.input),
        recorded_usage: recorded,
        after_compaction: false,
        micro_compact: None,
        level: ThresholdLevel::Normal,
        auto_compact: None,
        recorded_offset: 0,
        decisions: Vec::new(),
    }
}

fn trigger(before: u64, after: u64) -> Option<TierTrigger> {
    Some(TierTrigger {
        tokens_before: before,
        tokens_after: after,
    })
}

#[test]
fn without_our_tiers_a_session_sends_what_it_recorded() {
    let requests = [
        request(1, Some(tokens(1_000, 0, 1_000))),
        request(2, Some(tokens(1_500, 1_000, 500))),
    ];
    let ours: Vec<_> = our_requests(&requests)
        .into_iter()
        .map(|request| request.map(|request| request.ours))
        .collect();
    assert_eq!(
        ours,
        vec![
            Some(tokens(1_000, 0, 1_000)),
            Some(tokens(1_500, 1_000, 500))
        ]
    );
}

#[test]
fn what_a_tier_removes_stays_removed_until_a_recorded_compaction() {
    let mut micro = request(2, Some(tokens(5_000, 4_000, 0)));
    micro.micro_compact = trigger(5_100, 3_100);
    let mut compacted = request(4, Some(tokens(2_000, 0, 0)));
    compacted.after_compaction = true;
    let requests = [
        request(1, Some(tokens(4_000, 0, 0))),
        micro,
        request(3, Some(tokens(6_000, 5_000, 0))),
        compacted,
        request(5, None),
    ];
    assert_eq!(
        our_requests(&requests),
        vec![
            Some(PolicyRequest {
                recorded: tokens(4_000, 0, 0),
                ours: tokens(4_000, 0, 0),
                rewritten: false,
            }),
            // The rewritten prompt reads nothing from the cache.
            Some(PolicyRequest {
                recorded: tokens(5_000, 4_000, 0),
                ours: tokens(3_000, 0, 0),
                rewritten: true,
            }),
            // The next request's cached prefix is the shortened one.
            Some(PolicyRequest {
                recorded: tokens(6_000, 5_000, 0),
                ours: tokens(4_000, 3_000, 0),
                rewritten: false,
            }),
            Some(PolicyRequest {
                recorded: tokens(2_000, 0, 0),
                ours: tokens(2_000, 0, 0),
                rewritten: false,
            }),
            None,
        ]
    );
}

#[test]
fn where_the_session_pays_for_cache_writes_a_rewritten_prompt_is_written_whole() {
    let mut auto = request(2, Some(tokens(150_000, 140_000, 2_000)));
    auto.auto_compact = trigger(150_000, 20_000);
    let requests = [request(1, Some(tokens(140_000, 0, 140_000))), auto];
    let ours = our_requests(&requests)[1].map(|request| request.ours);
    assert_eq!(ours, Some(tokens(20_000, 0, 20_000)));
}
