use std::time::Duration;

use agentctx_model::ModelPrice;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;

use super::*;

/// Claude Sonnet 4.5's prices ($3 / $15 per million, cache write $3.75, read $0.30).
fn sonnet() -> ModelPrice {
    ModelPrice {
        provider: "anthropic".to_string(),
        input_per_token: Some(3e-6),
        output_per_token: Some(15e-6),
        cache_read_per_token: Some(0.3e-6),
        cache_write_per_token: Some(3.75e-6),
        max_input_tokens: Some(1_000_000),
        max_output_tokens: Some(64_000),
    }
}

fn anthropic() -> CostModel {
    let rules = CacheRules::anthropic(CacheTtl::FiveMinutes);
    CostModel::new(Prices::from_model_price(&sonnet(), &rules).unwrap(), rules)
}

fn openai() -> CostModel {
    let price = ModelPrice {
        provider: "openai".to_string(),
        input_per_token: Some(1.25e-6),
        output_per_token: Some(10e-6),
        cache_read_per_token: Some(0.125e-6),
        cache_write_per_token: None,
        max_input_tokens: Some(272_000),
        max_output_tokens: Some(128_000),
    };
    let rules = CacheRules::for_provider(&price.provider, "gpt-5.1-codex");
    CostModel::new(Prices::from_model_price(&price, &rules).unwrap(), rules)
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= expected.abs() * 1e-9
}

#[test]
fn prices_fill_what_the_table_lacks_with_the_providers_ratios() {
    let rules = CacheRules::anthropic(CacheTtl::FiveMinutes);
    let bare = ModelPrice {
        cache_read_per_token: None,
        cache_write_per_token: None,
        ..sonnet()
    };
    let prices = Prices::from_model_price(&bare, &rules).unwrap();
    assert!(close(prices.cache_write, 3e-6 * 1.25));
    assert!(close(prices.cache_read, 3e-6 * 0.1));
    // The 1-hour lifetime writes at twice the input price, whatever the table's 5-minute price.
    let hour = Prices::from_model_price(&sonnet(), &CacheRules::anthropic(CacheTtl::OneHour));
    assert!(close(hour.unwrap().cache_write, 6e-6));
    assert_eq!(
        CacheRules::anthropic(CacheTtl::OneHour).ttl,
        Duration::from_secs(3_600)
    );
    // OpenAI: no write premium, reads at the table's cached-input price.
    let openai = openai();
    assert!(!openai.rules().write_premium);
    assert!(close(openai.prices().cache_write, 1.25e-6));
    assert!(close(openai.prices().cache_read, 0.125e-6));
    let no_input = ModelPrice {
        input_per_token: None,
        ..sonnet()
    };
    assert_eq!(Prices::from_model_price(&no_input, &rules), None);
}

#[test]
fn the_provider_comes_from_the_table_or_the_wire_api() {
    assert_eq!(
        CacheRules::for_provider("bedrock", "anthropic.claude-sonnet-4-5").provider,
        CacheProvider::Anthropic
    );
    assert_eq!(
        CacheRules::for_provider("openai", "gpt-5").provider,
        CacheProvider::OpenAi
    );
    assert_eq!(
        CacheRules::for_wire_api(WireApi::Anthropic).provider,
        CacheProvider::Anthropic
    );
    let unknown = CostModel::for_model("no-such-model-xyz", Some(WireApi::Chat));
    assert_eq!(unknown.rules().provider, CacheProvider::OpenAi);
    assert!(close(unknown.prices().input, REFERENCE_INPUT_PER_TOKEN));
    // A model the table does not know: reference prices under the default rules, marked as
    // not its own, so the micro gate does not hold clears back for it.
    let unknown = CostModel::for_model("no-such-model-xyz", None);
    assert!(!unknown.is_priced());
    assert_eq!(unknown.rules(), CostModel::default().rules());
    assert_eq!(unknown.prices(), CostModel::default().prices());
    assert!(CostModel::default().is_priced());
    let sonnet = CostModel::for_model("claude-sonnet-4-5-20250929", None);
    assert_eq!(sonnet.rules().provider, CacheProvider::Anthropic);
    assert!(sonnet.prices().cache_write > sonnet.prices().input);
}

#[test]
fn the_cache_is_warm_within_its_lifetime_and_cold_after() {
    let model = anthropic();
    assert_eq!(model.cache_state(None), CacheState::Empty);
    assert_eq!(
        model.cache_state(Some(Duration::from_secs(299))),
        CacheState::Warm
    );
    assert_eq!(
        model.cache_state(Some(Duration::from_secs(300))),
        CacheState::Cold
    );
    // OpenAI's cache is taken for cold only past the long end of its 5-10 minutes.
    assert_eq!(
        openai().cache_state(Some(Duration::from_secs(420))),
        CacheState::Warm
    );
    assert_eq!(
        openai().cache_state(Some(Duration::from_secs(600))),
        CacheState::Cold
    );
}

#[test]
fn a_prompt_reads_its_cached_prefix_and_writes_the_rest() {
    let model = anthropic();
    // 100,000 read at $0.30/M and 20,000 written at $3.75/M.
    assert!(close(model.input_cost(120_000, 100_000), 0.03 + 0.075));
    // Cold: the whole prompt is written.
    assert!(close(model.input_cost(120_000, 0), 0.45));
    // OpenAI bills the uncached rest as input.
    assert!(close(openai().input_cost(120_000, 100_000), 0.0125 + 0.025));
}

#[test]
fn a_clear_under_a_warm_cache_pays_only_when_its_saving_outweighs_the_rewrite() {
    let model = anthropic();
    // 600,000 tokens cached; the first cleared result at 100,000; 20,000 saved.
    let inputs = MicroInputs {
        prompt_tokens: 610_000,
        cached_tokens: 600_000,
        prefix_tokens: 100_000,
        tokens_saved: 20_000,
        remaining_requests: 30,
    };
    let pricing = model.price_micro(&inputs);
    // As is: 600k read + 10k written. Cleared: 100k read + 490k written.
    assert!(close(pricing.send_as_is, 0.18 + 0.0375));
    assert!(close(pricing.clear, 0.03 + 1.8375));
    assert!(close(pricing.remaining_saving, 30.0 * 20_000.0 * 0.3e-6));
    assert!(!pricing.pays());
    // The rewrite costs (490,000 − 0) × (3.75 − 0.30) ≈ $1.69 more than reading, against $0.006
    // saved per request: it pays back only after about 280 requests.
    let long = MicroInputs {
        remaining_requests: 300,
        ..inputs
    };
    assert!(model.price_micro(&long).pays());
    // A clear right at the end of the prompt rewrites little and pays at once.
    let tail = MicroInputs {
        prefix_tokens: 590_000,
        remaining_requests: 1,
        ..inputs
    };
    assert!(model.price_micro(&tail).pays());
}

#[test]
fn a_clear_under_a_cold_cache_always_pays() {
    for model in [anthropic(), openai()] {
        let pricing = model.price_micro(&MicroInputs {
            prompt_tokens: 610_000,
            cached_tokens: 0,
            prefix_tokens: 100_000,
            tokens_saved: 20_000,
            remaining_requests: 1,
        });
        assert!(pricing.pays());
        assert!(pricing.clear < pricing.send_as_is);
    }
}

#[test]
fn a_compaction_is_priced_against_reading_the_context_on() {
    let model = anthropic();
    let inputs = CompactionInputs {
        context_tokens: 500_000,
        cached_tokens: 500_000,
        compacted_tokens: 40_000,
        summary_tokens: 10_000,
        remaining_requests: 10,
    };
    let pricing = model.price_compaction(&inputs);
    assert!(close(pricing.compaction_request, 0.15 + 0.15));
    assert!(close(pricing.after, 0.15 + 9.0 * 0.012));
    assert!(close(pricing.without, 1.5));
    assert!(pricing.net_saving() > 0.0);
    let soon_over = CompactionInputs {
        remaining_requests: 1,
        ..inputs
    };
    assert!(model.price_compaction(&soon_over).net_saving() < 0.0);
}

#[test]
fn the_default_budget_is_where_a_compaction_pays_back_within_a_few_requests() {
    // No budget below 500,000 tokens of window.
    assert_eq!(anthropic().default_budget(200_000), None);
    assert_eq!(anthropic().default_budget(499_999), None);
    // Sonnet: 40,000 + (10,000 × $15 + 40,000 × $3.75) / (3 × $0.30) per million = 373,334.
    assert_eq!(anthropic().default_budget(1_000_000), Some(380_000));
    // GPT-5.1-codex: 40,000 + (10,000 × $10 + 40,000 × $1.25) / (3 × $0.125) = 440,000.
    assert_eq!(openai().default_budget(1_000_000), Some(440_000));
    // At that context, compacting costs less than reading it over the payback requests.
    let model = anthropic();
    let budget = model.default_budget(1_000_000).unwrap();
    let pricing = model.price_compaction(&CompactionInputs {
        context_tokens: budget,
        cached_tokens: budget,
        compacted_tokens: COMPACTED_CONTEXT_TOKENS,
        summary_tokens: SUMMARY_OUTPUT_TOKENS,
        remaining_requests: BUDGET_PAYBACK_REQUESTS,
    });
    assert!(pricing.net_saving() >= 0.0);
    // The floor: a model whose reads are dear gets no budget under 200,000 tokens.
    let cheap_output = CostModel::new(
        Prices {
            input: 1.0,
            cache_write: 1.0,
            cache_read: 1.0,
            output: 1.0,
        },
        CacheRules::openai(),
    );
    assert_eq!(
        cheap_output.default_budget(1_000_000),
        Some(BUDGET_FLOOR_TOKENS)
    );
}

#[test]
fn the_remaining_requests_are_the_requests_so_far_up_to_the_trigger() {
    let progress = SessionProgress {
        requests: 40,
        requests_since_rewrite: 40,
        tokens: 200_000,
        trigger: 967_000,
    };
    // 5,000 tokens a request: 153 more fit before the trigger; the session made 40.
    assert_eq!(expected_remaining_requests(&progress), 40);
    let near_trigger = SessionProgress {
        tokens: 950_000,
        requests_since_rewrite: 95,
        requests: 200,
        ..progress
    };
    // 10,000 tokens a request, 17,000 left: one more request.
    assert_eq!(expected_remaining_requests(&near_trigger), 1);
    let past = SessionProgress {
        tokens: 990_000,
        ..near_trigger
    };
    assert_eq!(expected_remaining_requests(&past), 1);
}

#[test]
fn anthropic_finds_a_changed_prefix_only_within_its_lookback() {
    let rules = CacheRules::anthropic(CacheTtl::FiveMinutes);
    // A clear 10 items before the end of what was sent: the prefix before it is read.
    assert_eq!(rules.kept_prefix(300_000, 20_000, 990, 1_000), 300_000);
    assert_eq!(rules.kept_prefix(300_000, 20_000, 980, 1_000), 300_000);
    // 21 items back or more: only the instructions and tools, behind their own breakpoint.
    assert_eq!(rules.kept_prefix(300_000, 20_000, 979, 1_000), 20_000);
    assert_eq!(rules.kept_prefix(10_000, 20_000, 0, 1_000), 10_000);
    // OpenAI matches the longest prefix wherever the change is.
    assert_eq!(
        CacheRules::openai().kept_prefix(300_000, 20_000, 0, 1_000),
        300_000
    );
}

#[test]
fn a_one_hour_cache_stays_warm_through_a_long_pause_and_is_written_at_twice_the_input() {
    let five = CostModel::for_model("claude-sonnet-4-5", None);
    let hour = CostModel::for_model_with_ttl("claude-sonnet-4-5", None, CacheTtl::OneHour);
    let pause = Duration::from_secs(30 * 60);
    assert_eq!(five.cache_state(Some(pause)), CacheState::Cold);
    assert_eq!(hour.cache_state(Some(pause)), CacheState::Warm);
    assert_eq!(
        hour.cache_state(Some(Duration::from_secs(61 * 60))),
        CacheState::Cold
    );
    // Sonnet 4.5: $3 input; 5-minute writes $3.75, 1-hour writes $6 a million.
    assert!((five.prices().cache_write * 1e6 - 3.75).abs() < 1e-9);
    assert!((hour.prices().cache_write * 1e6 - 6.0).abs() < 1e-9);
    // OpenAI's automatic cache has no such option: its rules stay.
    let gpt = CostModel::for_model_with_ttl("gpt-5.1-codex", None, CacheTtl::OneHour);
    assert_eq!(
        gpt.rules(),
        CostModel::for_model("gpt-5.1-codex", None).rules()
    );
}
