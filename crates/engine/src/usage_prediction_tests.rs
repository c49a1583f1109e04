use agentctx_compact::CompactConfig;
use agentctx_compact::ContextWindow;
use agentctx_compact::LastRequestUsage;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use pretty_assertions::assert_eq;

use super::*;

fn window() -> ContextWindow {
    ContextWindow::new(200_000, Some(20_000), &CompactConfig::default())
}

/// A reasoning item whose reasoning is encrypted: `bytes` of base64.
fn encrypted_reasoning(bytes: usize) -> ResponseItem {
    ResponseItem::Reasoning {
        id: None,
        summary: Vec::new(),
        content: None,
        encrypted_content: Some("A".repeat(bytes)),
        extra: ExtraFields::new(),
    }
}

fn estimate(item: &ResponseItem) -> u64 {
    ApproxTokenEstimator.estimate_item(item)
}

/// The reported usage of a request: its input and the reasoning its response generated.
fn reported(input: i64, reasoning: i64) -> TokenUsage {
    TokenUsage {
        input_tokens: input,
        cached_input_tokens: 0,
        output_tokens: reasoning + 50,
        reasoning_output_tokens: reasoning,
        total_tokens: input + reasoning + 50,
    }
}

/// Records the request that carried `history[..len]` and returns the predicted usage of the
/// whole `history` after it (as the compactor computes it), `overhead` then.
struct Session {
    prediction: UsagePrediction,
    last: Option<LastRequestUsage>,
    overhead: u64,
}

impl Session {
    fn new() -> Self {
        Self {
            prediction: UsagePrediction::default(),
            last: None,
            overhead: 0,
        }
    }

    fn measure(&mut self, history: &[ResponseItem], len: usize, usage: &TokenUsage) {
        let tokens = |index: usize| history.get(index).map_or(0, estimate);
        let input = u64::try_from(usage.input_tokens).unwrap();
        self.prediction
            .record(usage, input, true, &history[..len], &tokens, self.overhead);
        self.last = Some(LastRequestUsage {
            input_tokens: input,
            history_len: len,
        });
    }

    fn predict(&self, history: &[ResponseItem]) -> ContextUsage {
        let tokens = |index: usize| history.get(index).map_or(0, estimate);
        let usage = ContextUsage::measure(history, self.last, window(), &ApproxTokenEstimator)
            .with_unmeasured_overhead(self.overhead);
        self.prediction
            .adjust(usage, history, &tokens, self.overhead)
    }
}

#[test]
fn reasoning_fed_back_in_its_turn_counts_the_reasoning_tokens_its_response_reported() {
    // The encrypted blob's estimate (codex's `len × 3/4 − 650` bytes) is 37 tokens; the
    // response generated 900 reasoning tokens, which the next request carries.
    let reasoning = encrypted_reasoning(1_064);
    assert_eq!(estimate(&reasoning), 37);
    let call = ResponseItem::function_call("c1", "shell", r#"{"command":["ls"]}"#);
    let output = ResponseItem::function_call_output("c1", "a.rs\nb.rs\n".repeat(40));
    let history = vec![
        ResponseItem::user_text("list the files"),
        reasoning,
        call.clone(),
        output.clone(),
    ];
    let mut session = Session::new();
    session.measure(&history, 1, &reported(5_000, 900));
    let usage = session.predict(&history);
    assert_eq!(usage.measured_tokens, Some(5_000));
    assert_eq!(
        usage.used_tokens(),
        5_000 + 900 + estimate(&call) + estimate(&output)
    );
    // Without a reported figure (a provider that does not split reasoning out, or a summary
    // readable as text), the estimate stands.
    let mut session = Session::new();
    session.measure(&history, 1, &reported(5_000, 0));
    assert_eq!(
        session.predict(&history).used_tokens(),
        5_000 + 37 + estimate(&call) + estimate(&output)
    );
}

/// A session of two turns, each a tool call and an answer, the first with reasoning.
fn two_turns() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("first task"),
        encrypted_reasoning(4_000),
        ResponseItem::function_call("c1", "shell", r#"{"command":["ls"]}"#),
        ResponseItem::function_call_output("c1", "a.rs"),
        encrypted_reasoning(3_000),
        ResponseItem::assistant_text("done"),
        ResponseItem::user_text("second task"),
        encrypted_reasoning(2_000),
        ResponseItem::function_call("c2", "shell", r#"{"command":["pwd"]}"#),
        ResponseItem::function_call_output("c2", "/src"),
        ResponseItem::assistant_text("done again"),
        ResponseItem::user_text("third task"),
    ]
}

#[test]
fn at_a_turn_start_the_sessions_own_measures_say_whether_earlier_reasoning_still_counts() {
    let history = two_turns();
    let mut session = Session::new();
    // Request 1 (the first task) generated 700 reasoning tokens; request 2 carried them and
    // generated 500 more.
    session.measure(&history, 1, &reported(10_000, 700));
    session.measure(&history, 4, &reported(10_760, 500));
    // The second task starts: until the session has shown otherwise, its reasoning is counted
    // as kept (the measure, the last response's 500 reasoning tokens, the rest estimated).
    let second = &history[..7];
    let kept = 10_760 + 500 + estimate(&history[5]) + estimate(&history[6]);
    assert_eq!(session.predict(second).used_tokens(), kept);
    assert_eq!(
        session.prediction.earlier_reasoning(),
        EarlierReasoning::Kept
    );
    // The provider dropped it: request 3 recorded the measure less the 700 tokens request 2
    // carried, without the 500 of its own response.
    let dropped = 10_760 - 700 + estimate(&history[5]) + estimate(&history[6]);
    session.measure(&history, 7, &reported(i64::try_from(dropped).unwrap(), 300));
    assert_eq!(
        session.prediction.earlier_reasoning(),
        EarlierReasoning::Dropped
    );
    // Request 4 (same turn) carries request 3's 300 reasoning tokens.
    session.measure(
        &history,
        10,
        &reported(i64::try_from(dropped + 300 + 20).unwrap(), 0),
    );
    // The third task: the 300 tokens the measure carried leave the count.
    let usage = session.predict(&history);
    assert_eq!(
        usage.used_tokens(),
        dropped + 300 + 20 - 300 + estimate(&history[10]) + estimate(&history[11])
    );
    assert_eq!(usage.measured_tokens, Some(dropped + 20));
}

#[test]
fn a_provider_that_keeps_earlier_reasoning_is_predicted_as_keeping_it() {
    let history = two_turns();
    let mut session = Session::new();
    session.measure(&history, 1, &reported(10_000, 700));
    session.measure(&history, 4, &reported(10_760, 500));
    let kept = 10_760 + 500 + estimate(&history[5]) + estimate(&history[6]);
    session.measure(&history, 7, &reported(i64::try_from(kept).unwrap(), 300));
    assert_eq!(
        session.prediction.earlier_reasoning(),
        EarlierReasoning::Kept
    );
    session.measure(
        &history,
        10,
        &reported(i64::try_from(kept + 320).unwrap(), 0),
    );
    assert_eq!(
        session.predict(&history).used_tokens(),
        kept + 320 + estimate(&history[10]) + estimate(&history[11])
    );
}

/// A `width × height` PNG as a data URL: its header only, which is all the size is read from.
fn png_url(width: u32, height: u32) -> String {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
    bytes.extend_from_slice(b"IHDR");
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (index, byte)| {
            word | (u32::from(*byte) << (16 - 8 * index))
        });
        for index in 0..=chunk.len() {
            text.push(char::from(
                ALPHABET[((word >> (18 - 6 * index)) & 63) as usize],
            ));
        }
    }
    format!("data:image/png;base64,{text}")
}

fn image_message(url: String) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::InputText {
                text: "what is wrong here?".to_string(),
            },
            ContentItem::InputImage {
                image_url: url,
                detail: None,
            },
        ],
        extra: ExtraFields::new(),
    }
}

#[test]
fn an_image_counts_as_anthropic_counts_its_pixels() {
    let image = image_message(png_url(400, 300));
    let history = vec![
        ResponseItem::user_text("hello"),
        ResponseItem::assistant_text("hi"),
        image,
    ];
    let mut session = Session::new();
    session.measure(&history, 1, &reported(3_000, 0));
    let estimated = estimate(&history[1]) + estimate(&history[2]);
    // The estimate counts the image as 1,844 tokens, whatever its size.
    assert_eq!(session.predict(&history).used_tokens(), 3_000 + estimated);
    // Anthropic: 400 × 300 / 750 = 160.
    session.prediction.set_image_costs(ImageCosts::Anthropic);
    assert_eq!(
        session.predict(&history).used_tokens(),
        3_000 + estimated - 1_844 + 160
    );
}

#[test]
fn tool_schemas_that_changed_since_the_measure_count_their_difference() {
    let history = vec![
        ResponseItem::user_text("hello"),
        ResponseItem::assistant_text("hi"),
        ResponseItem::user_text("connect the server"),
    ];
    let mut session = Session::new();
    session.overhead = 2_000;
    session.measure(&history, 1, &reported(6_000, 0));
    let added = estimate(&history[1]) + estimate(&history[2]);
    assert_eq!(session.predict(&history).used_tokens(), 6_000 + added);
    // An MCP server's tools joined: 1,500 tokens more of schemas.
    session.overhead = 3_500;
    assert_eq!(
        session.predict(&history).used_tokens(),
        6_000 + added + 1_500
    );
    // And left again, with more.
    session.overhead = 1_000;
    assert_eq!(
        session.predict(&history).used_tokens(),
        6_000 + added - 1_000
    );
}

#[test]
fn a_compaction_item_in_a_response_replaces_the_measure_of_what_precedes_it() {
    let compaction = ResponseItem::Compaction {
        encrypted_content: "B".repeat(8_000),
        extra: ExtraFields::new(),
    };
    let history = vec![
        ResponseItem::user_text("a long task"),
        ResponseItem::function_call_output("c0", "x".repeat(40_000)),
        compaction,
        ResponseItem::assistant_text("continuing"),
        ResponseItem::user_text("next"),
    ];
    let mut session = Session::new();
    session.overhead = 1_000;
    session.measure(&history, 2, &reported(90_000, 0));
    let usage = session.predict(&history);
    assert_eq!(usage.measured_tokens, None);
    assert_eq!(
        usage.used_tokens(),
        1_000 + estimate(&history[2]) + estimate(&history[3]) + estimate(&history[4])
    );
}

#[test]
fn a_rewritten_history_forgets_the_measure_but_not_what_the_votes_learned() {
    let history = two_turns();
    let mut session = Session::new();
    session.measure(&history, 1, &reported(10_000, 700));
    session.measure(&history, 4, &reported(10_760, 500));
    let dropped = 10_760 - 700 + estimate(&history[5]) + estimate(&history[6]);
    session.measure(&history, 7, &reported(i64::try_from(dropped).unwrap(), 300));
    session.prediction.forget_measure();
    session.last = None;
    assert_eq!(
        session.prediction.earlier_reasoning(),
        EarlierReasoning::Dropped
    );
    let usage = session.predict(&history);
    assert_eq!(usage.measured_tokens, None);
}
