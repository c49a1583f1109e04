use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;

use super::collect_response;

fn run(
    response: ScriptedResponse,
) -> (
    Result<super::CollectedResponse, super::StreamFailure>,
    Vec<String>,
) {
    let client = ScriptedModelClient::with_responses("gpt-5", [response]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut seen = Vec::new();
    let result = runtime.block_on(collect_response(&client, &Prompt::default(), |event| {
        seen.push(match event {
            ResponseEvent::OutputTextDelta(delta) => format!("text {delta}"),
            ResponseEvent::OutputItemDone(_) => "item".to_string(),
            ResponseEvent::Completed { .. } => "completed".to_string(),
            _ => "other".to_string(),
        });
    }));
    (result, seen)
}

#[test]
fn a_complete_response_gives_its_items_usage_and_calls_and_the_host_sees_each_event() {
    let usage = TokenUsage {
        input_tokens: 120,
        output_tokens: 7,
        total_tokens: 127,
        ..TokenUsage::default()
    };
    let response = ScriptedResponse::text("Reading it.")
        .with_function_call("call_1", "read_file", r#"{"path":"a.txt"}"#)
        .with_usage(usage);
    let (result, seen) = run(response);
    let response = result.expect("complete");
    assert_eq!(response.usage, Some(usage));
    assert_eq!(
        response.last_assistant_text().as_deref(),
        Some("Reading it.")
    );
    assert_eq!(
        response.function_calls(),
        vec![(
            "call_1".to_string(),
            "read_file".to_string(),
            r#"{"path":"a.txt"}"#.to_string()
        )]
    );
    assert_eq!(
        seen,
        [
            "other",
            "other",
            "text Reading it.",
            "item",
            "other",
            "item",
            "completed"
        ]
    );
}

#[test]
fn a_stream_that_dies_before_output_may_be_an_overflow_and_after_output_never_is() {
    let died = ScriptedResponse::new().then_fail(ModelError::StreamDisconnected {
        reason: "closed".to_string(),
    });
    let failure = run(died).0.expect_err("failed");
    assert!(failure.before_output);
    let asked = failure.request_failure(9_000);
    assert!(asked.died_before_output);
    assert!(!asked.context_window_exceeded);
    assert_eq!(asked.prompt_tokens, 9_000);

    let after_text = ScriptedResponse::text("half").then_fail(ModelError::StreamDisconnected {
        reason: "closed".to_string(),
    });
    let failure = run(after_text).0.expect_err("failed");
    assert!(!failure.before_output);
    assert!(!failure.request_failure(9_000).died_before_output);
}

#[test]
fn an_error_the_provider_named_is_never_taken_for_an_overflow_unless_it_says_so() {
    let refused = ScriptedResponse::error(ModelError::ContextWindowExceeded {
        message: "prompt is too long".to_string(),
    });
    let failure = run(refused).0.expect_err("failed");
    assert!(failure.request_failure(1).context_window_exceeded);
    assert_eq!(failure.to_string(), failure.error.to_string());
}

#[test]
fn an_answer_cut_by_an_incomplete_error_keeps_the_streamed_text() {
    let cut = ScriptedResponse::new().then_fail(ModelError::Incomplete {
        reason: "max_output_tokens".to_string(),
    });
    let response = run(cut).0.expect("kept");
    assert_eq!(response.truncated.as_deref(), Some("max_output_tokens"));
    assert!(response.items.is_empty());
}
