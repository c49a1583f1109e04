//! An answer cut at the model's output limit (issue 24, defect 8): the text is kept, the user
//! is told, a cut tool call is not run, and the model is asked to continue, at most three
//! times a turn.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ModelInfo;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_model::ResponseStream;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use async_trait::async_trait;
use futures::StreamExt;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::drain;
use super::support::options;

/// A scripted model whose responses can end at the output limit: `OutputTruncated` is sent
/// just before `Completed`, as the decoders do for `finish_reason: "length"`.
#[derive(Clone)]
struct TruncatingModel {
    inner: ScriptedModelClient,
    truncated: Arc<Mutex<VecDeque<bool>>>,
}

impl TruncatingModel {
    fn new() -> Self {
        Self {
            inner: ScriptedModelClient::new("test-model")
                .with_model_info(ModelInfo::with_context_window(200_000)),
            truncated: Arc::default(),
        }
    }

    fn push(&self, response: ScriptedResponse, truncated: bool) {
        self.inner.push(response);
        self.truncated.lock().unwrap().push_back(truncated);
    }
}

#[async_trait]
impl ModelClient for TruncatingModel {
    async fn stream(&self, prompt: &Prompt<'_>) -> Result<ResponseStream, ModelError> {
        let truncated = self.truncated.lock().unwrap().pop_front().unwrap_or(false);
        let events: Vec<_> = self.inner.stream(prompt).await?.collect().await;
        let mut out = Vec::new();
        for event in events {
            if truncated && matches!(event, Ok(ResponseEvent::Completed { .. })) {
                out.push(Ok(ResponseEvent::OutputTruncated {
                    reason: "length".to_string(),
                }));
            }
            out.push(event);
        }
        Ok(Box::pin(futures::stream::iter(out)))
    }

    fn model_info(&self) -> &ModelInfo {
        self.inner.model_info()
    }

    fn slug(&self) -> &str {
        self.inner.slug()
    }
}

fn truncations(events: &[SessionEvent]) -> Vec<(usize, bool, u32)> {
    events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::OutputTruncated {
                cut_tool_calls,
                continuing,
                continuation,
                ..
            } => Some((*cut_tool_calls, *continuing, *continuation)),
            _ => None,
        })
        .collect()
}

fn assistant_texts(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter(|item| item.role() == Some("assistant"))
        .filter_map(ResponseItem::message_text)
        .collect()
}

#[tokio::test]
async fn a_truncated_answer_is_kept_and_the_model_continues_where_it_stopped() {
    let dirs = dirs();
    let model = TruncatingModel::new();
    model.push(ScriptedResponse::text("The parser now handles"), true);
    model.push(ScriptedResponse::text(" empty input."), false);
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let outcome = session
        .run_turn("Fix the parser", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(outcome.requests, 2);
    assert_eq!(outcome.last_message.as_deref(), Some(" empty input."));
    assert_eq!(truncations(&drain(&mut events)), vec![(0, true, 1)]);
    assert_eq!(
        assistant_texts(session.history()),
        vec!["The parser now handles", " empty input."]
    );
    // The continuation request ends with the cut answer and the meta message asking to go on.
    let prompts = model.inner.prompts();
    let last: Vec<&ResponseItem> = prompts[1].items().collect();
    let continuation = last.last().unwrap();
    assert_eq!(continuation.role(), Some("user"));
    assert!(continuation.is_injected());
    insta::assert_snapshot!(continuation.message_text().unwrap(), @"Your last response was cut off because it reached the output token limit. Continue exactly where it stopped, without repeating or summarising what you already wrote. If you were in the middle of a tool call, send that call again in full. Split long output into smaller pieces.");
    assert_eq!(
        last[last.len() - 2].message_text().as_deref(),
        Some("The parser now handles")
    );
}

#[tokio::test]
async fn a_tool_call_cut_at_the_output_limit_is_not_run() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() {}\n").unwrap();
    let model = TruncatingModel::new();
    model.push(
        ScriptedResponse::new()
            .with_text("Reading it.")
            .with_function_call("call_whole", "read_file", r#"{"path":"parser.rs"}"#)
            .with_function_call("call_cut", "read_file", r#"{"path":"pars"#),
        true,
    );
    model.push(ScriptedResponse::text("Done."), false);
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    session
        .run_turn("Read the parser", &CancellationToken::new())
        .await
        .unwrap();

    let events = drain(&mut events);
    assert_eq!(truncations(&events), vec![(1, true, 1)]);
    let started: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::ToolCallStarted { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(started, vec!["call_whole"]);
    let output_of = |id: &str| {
        session.history().iter().find_map(|item| match item {
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } if call_id == id => Some(output.text_content()),
            _ => None,
        })
    };
    assert!(output_of("call_whole").unwrap().contains("fn parse()"));
    insta::assert_snapshot!(output_of("call_cut").unwrap(), @"This tool call was cut off at the output token limit and was not run: its arguments are incomplete. Send it again in full.");
    assert_eq!(model.inner.prompts().len(), 2);
}

#[tokio::test]
async fn the_model_is_asked_to_continue_at_most_three_times_a_turn() {
    let dirs = dirs();
    let model = TruncatingModel::new();
    for part in ["one", "two", "three", "four"] {
        model.push(ScriptedResponse::text(part), true);
    }
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let outcome = session
        .run_turn("Write a long text", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.requests, 4);
    assert_eq!(outcome.last_message.as_deref(), Some("four"));
    assert_eq!(
        truncations(&drain(&mut events)),
        vec![(0, true, 1), (0, true, 2), (0, true, 3), (0, false, 3)]
    );
    assert_eq!(
        assistant_texts(session.history()),
        vec!["one", "two", "three", "four"]
    );
}

#[tokio::test]
async fn an_incomplete_error_after_the_text_is_a_truncation_too() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(
        ScriptedResponse::text("Half an answer").then_fail(ModelError::Incomplete {
            reason: "max_tokens".to_string(),
        }),
    );
    model.push(ScriptedResponse::text("and the rest."));
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let outcome = session
        .run_turn("Answer", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.requests, 2);
    assert_eq!(truncations(&drain(&mut events)), vec![(0, true, 1)]);
    assert_eq!(
        assistant_texts(session.history()),
        vec!["Half an answer", "and the rest."]
    );
}
