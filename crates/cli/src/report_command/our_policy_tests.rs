use agentctx_compact::ThresholdLevel;
use agentctx_engine::MicroCostDecision;
use agentctx_engine::MicroCostReason;
use agentctx_engine::cost_model::CacheState;
use agentctx_engine::cost_model::SUMMARY_OUTPUT_TOKENS;
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
        recorded_billing: None,
        after_compaction: false,
        micro_compact: None,
        micro_cost: None,
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
                context: 4_000,
                rewritten: false,
            }),
            // The rewritten prompt reads nothing from the cache.
            Some(PolicyRequest {
                recorded: tokens(5_000, 4_000, 0),
                ours: tokens(3_000, 0, 0),
                context: 3_000,
                rewritten: true,
            }),
            // The next request's cached prefix is the shortened one.
            Some(PolicyRequest {
                recorded: tokens(6_000, 5_000, 0),
                ours: tokens(4_000, 3_000, 0),
                context: 4_000,
                rewritten: false,
            }),
            Some(PolicyRequest {
                recorded: tokens(2_000, 0, 0),
                ours: tokens(2_000, 0, 0),
                context: 2_000,
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
    // The compacted prompt written whole (20,000), and the summary request before it: the
    // 150,000-token history read as the request before cached it (140,000) and the rest
    // written, with the summary as output.
    assert_eq!(
        ours,
        Some(RecordedTokens {
            input: 20_000 + 150_000,
            cached_input: 140_000,
            cache_write: 20_000 + 10_000,
            output: 10 + SUMMARY_OUTPUT_TOKENS,
        })
    );
    // The context the request itself sends is the compacted prompt alone.
    assert_eq!(
        our_requests(&requests)[1].map(|request| request.context),
        Some(20_000)
    );

    // Where the session recorded a compaction at that point, it paid for one too: only the
    // compacted prompt is ours.
    let mut recorded = request(2, Some(tokens(150_000, 140_000, 2_000)));
    recorded.auto_compact = trigger(150_000, 20_000);
    recorded.after_compaction = true;
    let requests = [request(1, Some(tokens(140_000, 0, 140_000))), recorded];
    let ours = our_requests(&requests)[1].map(|request| request.ours);
    assert_eq!(ours, Some(tokens(20_000, 0, 20_000)));
}

#[test]
fn a_clear_keeps_the_prompt_before_its_first_cleared_result_cached() {
    let mut micro = request(2, Some(tokens(150_000, 140_000, 10_000)));
    micro.micro_compact = trigger(150_000, 120_000);
    micro.micro_cost = Some(MicroCostDecision {
        clear: true,
        reason: MicroCostReason::CacheCold,
        cache: CacheState::Cold,
        gap_ms: Some(400_000),
        prompt_tokens: 150_000,
        cached_tokens: 0,
        prefix_tokens: 100_000,
        tokens_saved: 30_000,
        remaining_requests: 5,
        send_as_is_micro_usd: 0,
        clear_micro_usd: 0,
        remaining_saving_micro_usd: 0,
    });
    let requests = [request(1, Some(tokens(140_000, 0, 140_000))), micro];
    let ours = our_requests(&requests)[1].map(|request| request.ours);
    // 120,000 sent: the 100,000 before the first cleared result read, the rest written.
    assert_eq!(ours, Some(tokens(120_000, 100_000, 20_000)));
}
