use pretty_assertions::assert_eq;

use super::*;
use crate::PriceTable;

/// Entries as LiteLLM 1.110.2 writes them (trimmed to the fields read): a model with a fast
/// multiplier and a one-hour write price, Bedrock's Sonnet 4.5 with its 200K tier, Sonnet 4
/// whose tier states no one-hour price, and a tier stated for two thresholds.
const SAMPLE: &str = r#"{
  "claude-opus-4-8": {"cache_creation_input_token_cost": 6.25e-06, "cache_creation_input_token_cost_above_1hr": 1e-05, "cache_read_input_token_cost": 5e-07, "input_cost_per_token": 5e-06, "litellm_provider": "anthropic", "mode": "chat", "output_cost_per_token": 2.5e-05, "provider_specific_entry": {"fast": 2.0}},
  "anthropic.claude-sonnet-4-5-20250929-v1:0": {"cache_creation_input_token_cost": 3.75e-06, "cache_creation_input_token_cost_above_1hr": 6e-06, "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06, "cache_read_input_token_cost": 3e-07, "cache_read_input_token_cost_above_200k_tokens": 6e-07, "input_cost_per_token": 3e-06, "input_cost_per_token_above_200k_tokens": 6e-06, "input_cost_per_token_above_200k_tokens_batches": 3e-06, "litellm_provider": "bedrock_converse", "mode": "chat", "output_cost_per_token": 1.5e-05, "output_cost_per_token_above_200k_tokens": 2.25e-05},
  "anthropic.claude-sonnet-4-20250514-v1:0": {"cache_creation_input_token_cost": 3.75e-06, "cache_creation_input_token_cost_above_1hr": 6e-06, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06, "cache_read_input_token_cost": 3e-07, "input_cost_per_token": 3e-06, "input_cost_per_token_above_200k_tokens": 6e-06, "litellm_provider": "bedrock_converse", "mode": "chat", "output_cost_per_token": 1.5e-05, "output_cost_per_token_above_200k_tokens": 2.25e-05},
  "two-tiers": {"input_cost_per_token": 1e-06, "input_cost_per_token_above_128k_tokens": 2e-06, "input_cost_per_token_above_256k_tokens": 4e-06, "output_cost_per_token": 1e-05, "litellm_provider": "example", "mode": "chat"},
  "plain": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e-05, "litellm_provider": "example", "mode": "chat", "provider_specific_entry": {"us": 1.1}}
}"#;

fn table() -> PriceTable {
    PriceTable::load(SAMPLE).unwrap()
}

fn request(input: u64, cached: u64, write: u64, write_1h: u64, output: u64) -> BilledRequest {
    BilledRequest {
        tokens: TokenCounts {
            input,
            cached_input: cached,
            cache_write: write,
            output,
        },
        cache_write_1h: write_1h,
        fast: false,
    }
}

fn usd(model: &str, request: &BilledRequest) -> f64 {
    let table = table();
    table
        .resolve(model)
        .unwrap()
        .request_cost(request)
        .unwrap()
        .usd
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn the_rules_are_read_from_the_entry() {
    let table = table();
    let opus = table.resolve("claude-opus-4-8").unwrap().rules;
    assert_eq!(opus.fast_multiplier, Some(2.0));
    assert_eq!(opus.cache_write_1h_per_token, Some(1e-5));
    assert!(opus.long_context.is_empty());
    let sonnet = table
        .resolve("anthropic.claude-sonnet-4-5-20250929-v1:0")
        .unwrap()
        .rules;
    assert_eq!(
        sonnet.long_context,
        vec![LongContextTier {
            threshold: 200_000,
            input_per_token: Some(6e-6),
            output_per_token: Some(2.25e-5),
            cache_read_per_token: Some(6e-7),
            cache_write_per_token: Some(7.5e-6),
            cache_write_1h_per_token: Some(1.2e-5),
        }]
    );
    let thresholds: Vec<u64> = table
        .resolve("two-tiers")
        .unwrap()
        .rules
        .long_context
        .iter()
        .map(|tier| tier.threshold)
        .collect();
    assert_eq!(thresholds, vec![128_000, 256_000]);
    // A regional uplift is not a fast-mode multiplier.
    assert!(table.resolve("plain").unwrap().rules.is_empty());
}

#[test]
fn one_hour_cache_writes_cost_the_one_hour_price() {
    // 10,000 written: 4,000 for an hour at $10/MTok, 6,000 for five minutes at $6.25/MTok.
    let mixed = usd("claude-opus-4-8", &request(0, 0, 10_000, 4_000, 0));
    assert!(close(mixed, 4_000.0 * 1e-5 + 6_000.0 * 6.25e-6), "{mixed}");
    // Anthropic's ratios: a 1-hour write is 2x the input price, a 5-minute one 1.25x.
    let hour = usd("claude-opus-4-8", &request(0, 0, 1_000, 1_000, 0));
    let input = usd("claude-opus-4-8", &request(1_000, 0, 0, 0, 0));
    assert!(close(hour, 2.0 * input), "{hour} vs {input}");
    // More 1-hour tokens than writes (a corrupt record) are capped at the writes.
    let capped = usd("claude-opus-4-8", &request(0, 0, 1_000, 5_000, 0));
    assert!(close(capped, hour), "{capped}");
}

#[test]
fn fast_mode_multiplies_every_rate() {
    let standard = request(1_000, 50_000, 2_000, 1_000, 3_000);
    let fast = BilledRequest {
        fast: true,
        ..standard
    };
    let table = table();
    let opus = table.resolve("claude-opus-4-8").unwrap();
    let (standard, fast) = (
        opus.request_cost(&standard).unwrap(),
        opus.request_cost(&fast).unwrap(),
    );
    assert!(close(fast.usd, 2.0 * standard.usd), "{fast:?} {standard:?}");
    assert!(!fast.fast_unpriced);
    // An entry without a multiplier prices a fast request at the standard rates, and says so.
    let plain = table.resolve("plain").unwrap();
    let cost = plain
        .request_cost(&BilledRequest {
            fast: true,
            ..request(1_000, 0, 0, 0, 0)
        })
        .unwrap();
    assert!(close(cost.usd, 1_000.0 * 1e-6));
    assert!(cost.fast_unpriced);
}

#[test]
fn a_request_above_the_threshold_is_billed_entirely_at_the_tier() {
    let model = "anthropic.claude-sonnet-4-5-20250929-v1:0";
    // 200,000 input tokens in all are not above 200K.
    let at = request(1_000, 190_000, 9_000, 0, 2_000);
    let expected_at = 1_000.0 * 3e-6 + 190_000.0 * 3e-7 + 9_000.0 * 3.75e-6 + 2_000.0 * 1.5e-5;
    assert!(close(usd(model, &at), expected_at));
    // One more cache read passes it: every class, output included, at the tier's rates.
    let above = request(1_000, 190_001, 9_000, 3_000, 2_000);
    let expected_above =
        1_000.0 * 6e-6 + 190_001.0 * 6e-7 + 6_000.0 * 7.5e-6 + 3_000.0 * 1.2e-5 + 2_000.0 * 2.25e-5;
    let table = table();
    let cost = table.resolve(model).unwrap().request_cost(&above).unwrap();
    assert!(close(cost.usd, expected_above), "{cost:?}");
    assert_eq!(cost.long_context_threshold, Some(200_000));
}

#[test]
fn a_tier_rate_the_entry_leaves_out_is_derived_from_the_input_factor() {
    // Sonnet 4's tier states no cache-read or 1-hour price: the base ones doubled, as its
    // input price is.
    let model = "anthropic.claude-sonnet-4-20250514-v1:0";
    let cost = usd(model, &request(0, 300_000, 1_000, 1_000, 0));
    assert!(close(cost, 300_000.0 * 6e-7 + 1_000.0 * 1.2e-5), "{cost}");
}

#[test]
fn the_highest_threshold_passed_is_the_tier() {
    assert!(close(usd("two-tiers", &request(100_000, 0, 0, 0, 0)), 0.1));
    assert!(close(usd("two-tiers", &request(200_000, 0, 0, 0, 0)), 0.4));
    assert!(close(usd("two-tiers", &request(300_000, 0, 0, 0, 0)), 1.2));
}

#[test]
fn the_bundled_table_keeps_the_rules() {
    let table = PriceTable::bundled().unwrap();
    let opus = table.resolve("claude-opus-4-8").unwrap();
    assert_eq!(opus.rules.fast_multiplier, Some(2.0));
    let haiku = table.resolve("claude-haiku-4-5-20251001").unwrap();
    assert_eq!(haiku.rules.cache_write_1h_per_token, Some(2e-6));
    let gpt = table.resolve("gpt-5.4").unwrap();
    assert_eq!(
        gpt.rules
            .long_context
            .iter()
            .map(|tier| tier.threshold)
            .collect::<Vec<_>>(),
        vec![272_000]
    );
}
