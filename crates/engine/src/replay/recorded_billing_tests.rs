use agentctx_protocol::TokenCountEvent;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn event(value: serde_json::Value) -> TokenCountEvent {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_claude_code_usage_names_its_one_hour_writes_and_its_speed() {
    let count = event(json!({
        "type": "token_count",
        "info": {
            "total_token_usage": {"input_tokens": 9000, "cached_input_tokens": 0, "output_tokens": 400, "reasoning_output_tokens": 0, "total_tokens": 9400},
            "last_token_usage": {"input_tokens": 9000, "cached_input_tokens": 0, "output_tokens": 400, "reasoning_output_tokens": 0, "total_tokens": 9400},
            "model_context_window": null
        },
        "model": "claude-opus-4-8",
        "claude_usage": {"input_tokens": 10, "cache_creation_input_tokens": 8990, "cache_read_input_tokens": 0, "output_tokens": 400, "speed": "fast",
            "cache_creation": {"ephemeral_5m_input_tokens": 990, "ephemeral_1h_input_tokens": 8000}},
        "visible_output_bytes": 1200,
        "output_tokens_repeated": false
    }));
    assert_eq!(
        RecordedBilling::of_token_count(&count, Some("claude-opus-4-8"), "2026-02-10T09:00:00Z"),
        RecordedBilling {
            model: Some("claude-opus-4-8".to_string()),
            timestamp: Some("2026-02-10T09:00:00Z".to_string()),
            cache_write_1h: 8_000,
            fast: true,
            output_estimated: false,
            estimated_output_tokens: None,
        }
    );
}

#[test]
fn a_codex_count_has_only_its_model() {
    let count = event(json!({
        "type": "token_count",
        "info": {
            "total_token_usage": {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 1, "reasoning_output_tokens": 0, "total_tokens": 101},
            "last_token_usage": {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 1, "reasoning_output_tokens": 0, "total_tokens": 101},
            "model_context_window": 272000
        }
    }));
    let billing = RecordedBilling::of_token_count(&count, Some("gpt-5.1-codex"), "");
    assert_eq!(
        billing,
        RecordedBilling {
            model: Some("gpt-5.1-codex".to_string()),
            ..RecordedBilling::default()
        }
    );
    assert_eq!(billing.billed_output(1), 1);
}

#[test]
fn a_repeated_count_far_below_the_visible_output_is_estimated() {
    // The case seen: 1,394 tokens repeated on every line of 98,782 bytes of output.
    assert_eq!(unfinalised_output(1_394, true, 98_782), Some(24_696));
    // The same bytes with a count that grew from line to line: the count stands.
    assert_eq!(unfinalised_output(1_394, false, 98_782), None);
    // A repeated count the output could have produced stands (a one-line response).
    assert_eq!(unfinalised_output(30, true, 120), None);
    // At the boundary: an estimate of exactly four times the count stands, one more does not.
    assert_eq!(unfinalised_output(100, true, 1_600), None);
    assert_eq!(unfinalised_output(100, true, 1_604), Some(401));
    let billing = RecordedBilling {
        output_estimated: true,
        estimated_output_tokens: Some(24_696),
        ..RecordedBilling::default()
    };
    assert_eq!(billing.billed_output(1_394), 24_696);
}

#[test]
fn a_measure_no_request_took_is_kept_with_its_tokens() {
    let usage = TokenUsage {
        input_tokens: 18_926,
        cached_input_tokens: 18_688,
        output_tokens: 385,
        reasoning_output_tokens: 0,
        total_tokens: 19_311,
    };
    let billing = RecordedBilling {
        model: Some("gpt-5.1-codex".to_string()),
        ..RecordedBilling::default()
    };
    assert_eq!(
        UnreplayedUsage::of_pending(Some((usage, 0, billing.clone()))),
        Some(UnreplayedUsage {
            tokens: crate::replay::RecordedTokens {
                input: 18_926,
                cached_input: 18_688,
                cache_write: 0,
                output: 385,
            },
            billing,
        })
    );
    assert_eq!(UnreplayedUsage::of_pending(None), None);
}
