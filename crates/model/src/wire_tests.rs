//! Every parser on hostile input: unknown, missing, extra and mistyped fields, huge numbers.

use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::WireEventParser;
use super::anthropic_messages::AnthropicParser;
use super::chat_completions::ChatCompletionsParser;
use super::responses::ResponsesParser;
use crate::response_event::ResponseEvent;

const TYPES: &[&str] = &[
    "response.created",
    "response.output_item.added",
    "response.output_item.done",
    "response.output_text.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "text_delta",
    "thinking_delta",
    "signature_delta",
    "input_json_delta",
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "message",
    "reasoning",
    "function_call",
];

const KEYS: &[&str] = &[
    "type",
    "index",
    "delta",
    "item",
    "response",
    "usage",
    "error",
    "message",
    "content_block",
    "choices",
    "tool_calls",
    "function",
    "arguments",
    "name",
    "id",
    "call_id",
    "text",
    "thinking",
    "partial_json",
    "content",
    "reasoning_content",
    "finish_reason",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "prompt_tokens",
    "completion_tokens",
    "cache_read_input_tokens",
    "role",
    "summary",
    "code",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(i64::MAX)),
        Just(json!(u64::MAX)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z_.]{0,12}".prop_map(Value::from),
        proptest::sample::select(TYPES).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(
                |pairs| Value::Object(
                    pairs
                        .into_iter()
                        .map(|(key, value)| (key.to_string(), value))
                        .collect()
                )
            ),
        ]
    })
}

/// An event: a name, and a payload that is JSON with a known `type` most of the time.
fn arb_event() -> impl Strategy<Value = (String, String)> {
    (
        proptest::sample::select(TYPES),
        arb_json(),
        proptest::option::of(proptest::sample::select(TYPES)),
        prop_oneof![Just(None), Just(Some("[DONE]")), Just(Some("{not json"))],
    )
        .prop_map(|(name, payload, kind, raw)| {
            let data = match (raw, payload, kind) {
                (Some(raw), _, _) => raw.to_string(),
                (None, Value::Object(mut map), Some(kind)) => {
                    map.insert("type".to_string(), json!(kind));
                    Value::Object(map).to_string()
                }
                (None, payload, _) => payload.to_string(),
            };
            (name.to_string(), data)
        })
}

/// Feeds `events` and checks the contract every parser keeps whatever the input:
///
/// - `Completed` appears at most once, and nothing follows it;
/// - a stream that ended without error ended with `Completed`, and the parser says complete;
/// - every `OutputItemDone` comes before `Completed` (no item after the end of the response).
fn feed(
    mut parser: Box<dyn WireEventParser>,
    events: &[(String, String)],
) -> Result<(), TestCaseError> {
    let mut out = Vec::new();
    let mut result = Ok(());
    for (event, data) in events {
        result = parser.on_event(event, data, &mut out);
        if result.is_err() || parser.is_complete() {
            break;
        }
    }
    if result.is_ok() {
        result = parser.on_end(&mut out);
    }
    let completed: Vec<usize> = out
        .iter()
        .enumerate()
        .filter(|(_, event)| matches!(event, ResponseEvent::Completed { .. }))
        .map(|(index, _)| index)
        .collect();
    prop_assert!(completed.len() <= 1, "completed twice: {out:?}");
    if let Some(&at) = completed.first() {
        prop_assert_eq!(at + 1, out.len(), "events after completed: {:?}", out);
    }
    if result.is_ok() {
        prop_assert!(parser.is_complete(), "ended without error but not complete");
        prop_assert_eq!(
            completed.len(),
            1,
            "ended without error but no completed: {:?}",
            out
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsers_keep_their_contract_on_arbitrary_events(
        events in proptest::collection::vec(arb_event(), 0..24),
    ) {
        feed(Box::<ResponsesParser>::default(), &events)?;
        feed(Box::<ChatCompletionsParser>::default(), &events)?;
        feed(Box::<AnthropicParser>::default(), &events)?;
    }
}

fn usage_of(parser: &mut dyn WireEventParser, events: &[(&str, Value)]) -> Option<TokenUsage> {
    let mut out = Vec::new();
    for (event, data) in events {
        parser.on_event(event, &data.to_string(), &mut out).unwrap();
    }
    parser.on_end(&mut out).unwrap();
    out.into_iter().find_map(|event| match event {
        ResponseEvent::Completed { token_usage, .. } => token_usage,
        _ => None,
    })
}

#[test]
fn huge_token_counts_saturate_instead_of_overflowing() {
    let max = i64::MAX;
    let responses = usage_of(
        &mut ResponsesParser::default(),
        &[(
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "r", "usage": {"input_tokens": max, "output_tokens": max}}}),
        )],
    )
    .unwrap();
    assert_eq!(responses.total_tokens, max);

    let chat = usage_of(
        &mut ChatCompletionsParser::default(),
        &[
            ("message", json!({"id": "c", "choices": [], "usage": {"prompt_tokens": max, "completion_tokens": max}})),
            ("message", json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
        ],
    )
    .unwrap();
    assert_eq!(chat.total_tokens, max);

    let anthropic = usage_of(
        &mut AnthropicParser::default(),
        &[
            ("message_start", json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": max, "cache_read_input_tokens": max, "cache_creation_input_tokens": max}}})),
            ("message_delta", json!({"type": "message_delta", "usage": {"output_tokens": max}})),
            ("message_stop", json!({"type": "message_stop"})),
        ],
    )
    .unwrap();
    assert_eq!(anthropic.input_tokens, max);
    assert_eq!(anthropic.total_tokens, max);
}
