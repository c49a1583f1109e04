//! One model request and the tool calls it asks for: streaming the response into items and
//! events, and running the calls (concurrently when every tool of the response allows it).

use std::time::Instant;

use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use tokio::sync::RwLock;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::event::SessionEvent;
use crate::session_state::ToolRun;
use crate::tools::ToolContext;
use crate::tools::ToolRegistry;

/// How often a broken stream that must be redone is sent again.
const TURN_RESTARTS: u32 = 2;

/// A complete response (read by the engine's [`agentctx_engine::collect_response`]).
pub(crate) type StreamedResponse = agentctx_engine::CollectedResponse;

/// A request that ended without a response.
pub(crate) type StreamFailure = agentctx_engine::StreamFailure;

/// How many times one turn asks the model to go on after an answer cut at its output limit.
/// Claude Code makes up to three such "max output tokens recovery" attempts; codex does not go
/// on at all (openai/codex `codex-rs/core/src/chat_completions.rs` drops a `length` finish and
/// `codex-rs/codex-api/src/sse/responses.rs` ends on `response.incomplete`), which loses the
/// answer the user was shown.
pub(crate) const MAX_OUTPUT_CONTINUATIONS: u32 = 3;

/// The message the model gets after an answer cut at its output limit (an injected `user`
/// message: it is not the user's own words and never starts a user turn).
pub(crate) const OUTPUT_CONTINUATION_PROMPT: &str = "Your last response was cut off because it reached the output token limit. Continue exactly where it stopped, without repeating or summarising what you already wrote. If you were in the middle of a tool call, send that call again in full. Split long output into smaller pieces.";

/// The output recorded for a tool call whose arguments were cut at the output limit: it is
/// not run, and the history keeps every call paired with an output.
pub(crate) const CUT_TOOL_CALL_OUTPUT: &str = "This tool call was cut off at the output token limit and was not run: its arguments are incomplete. Send it again in full.";

/// A function call of a response: `(call_id, name, arguments)`.
pub(crate) type FunctionCall = (String, String, String);

/// The tool calls of a response split into those to run and those cut at the output limit: a
/// call of a truncated response whose arguments are not a whole JSON value is cut. Outside a
/// truncated response every call runs (a tool reports bad arguments itself).
pub(crate) fn split_cut_calls(
    calls: Vec<FunctionCall>,
    truncated: bool,
) -> (Vec<FunctionCall>, Vec<FunctionCall>) {
    if !truncated {
        return (calls, Vec::new());
    }
    calls
        .into_iter()
        .partition(|(_, _, arguments)| serde_json::from_str::<serde_json::Value>(arguments).is_ok())
}

/// The output item of a call cut at the output limit ([`CUT_TOOL_CALL_OUTPUT`]).
pub(crate) fn cut_call_output(call_id: &str) -> ResponseItem {
    ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::Text(CUT_TOOL_CALL_OUTPUT.to_string()),
            success: Some(false),
        },
        extra: Default::default(),
    }
}

/// The injected message asking the model to go on ([`OUTPUT_CONTINUATION_PROMPT`]).
pub(crate) fn continuation_message() -> ResponseItem {
    let mut item = ResponseItem::user_text(OUTPUT_CONTINUATION_PROMPT);
    item.set_injected(true);
    item
}

fn emit(events: Option<&UnboundedSender<SessionEvent>>, event: SessionEvent) {
    if let Some(events) = events {
        let _ = events.send(event);
    }
}

/// Streams `prompt`; `Ok(None)` when `cancel` fired first.
pub(crate) async fn stream_response(
    model: &dyn ModelClient,
    prompt: &Prompt<'_>,
    events: Option<&UnboundedSender<SessionEvent>>,
    cancel: &CancellationToken,
) -> Result<Option<StreamedResponse>, StreamFailure> {
    let mut restarts = 0;
    loop {
        // Cancellation is polled first: a turn cancelled before or while the model answers
        // ends as cancelled even when the stream is ready at the same instant.
        let attempt = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(None),
            result = stream_once(model, prompt, events) => result,
        };
        match attempt {
            Err(failure) if failure.error.requires_turn_restart() && restarts < TURN_RESTARTS => {
                let error = failure.error;
                restarts += 1;
                tracing::warn!(%error, restarts, "model stream must be redone; sending the prompt again");
            }
            result => return result.map(Some),
        }
    }
}

async fn stream_once(
    model: &dyn ModelClient,
    prompt: &Prompt<'_>,
    events: Option<&UnboundedSender<SessionEvent>>,
) -> Result<StreamedResponse, StreamFailure> {
    agentctx_engine::collect_response(model, prompt, |event| match event {
        ResponseEvent::OutputItemDone(item) if item.role() == Some("assistant") => {
            if let Some(text) = item.message_text() {
                emit(events, SessionEvent::AssistantMessage { text });
            }
        }
        ResponseEvent::OutputTextDelta(delta) => emit(
            events,
            SessionEvent::TextDelta {
                delta: delta.clone(),
            },
        ),
        ResponseEvent::ReasoningSummaryDelta(delta)
        | ResponseEvent::ReasoningContentDelta(delta) => emit(
            events,
            SessionEvent::ReasoningDelta {
                delta: delta.clone(),
            },
        ),
        _ => {}
    })
    .await
}

/// Runs `calls` with the tools of `registry`; outputs in call order.
///
/// As codex-rs's `ToolCallRuntime` does, every call takes a lock before it runs: a shared one
/// for a parallel-safe tool, an exclusive one otherwise. The lock is fair and the calls ask in
/// order, so parallel-safe calls next to each other run together and any other call runs
/// alone, after everything before it and before everything after it.
pub(crate) async fn run_tool_calls(
    registry: &ToolRegistry,
    ctx: &ToolContext,
    calls: &[(String, String, String)],
) -> Vec<(ResponseItem, ToolRun)> {
    let gate = RwLock::new(());
    futures::future::join_all(calls.iter().map(|call| async {
        let parallel = registry
            .get(&call.1)
            .is_some_and(|tool| tool.parallel_safe());
        if parallel {
            let _shared = gate.read().await;
            run_one(registry, ctx, call).await
        } else {
            let _exclusive = gate.write().await;
            run_one(registry, ctx, call).await
        }
    }))
    .await
}

async fn run_one(
    registry: &ToolRegistry,
    ctx: &ToolContext,
    (call_id, name, arguments): &(String, String, String),
) -> (ResponseItem, ToolRun) {
    ctx.emit(SessionEvent::ToolCallStarted {
        call_id: call_id.clone(),
        name: name.clone(),
        arguments: arguments.clone(),
    });
    let started = Instant::now();
    let output = registry.dispatch(ctx, call_id, name, arguments).await;
    let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    ctx.emit(SessionEvent::ToolCallCompleted {
        call_id: call_id.clone(),
        name: name.clone(),
        success: output.success,
        output: output.text.clone(),
    });
    let item = ResponseItem::FunctionCallOutput {
        call_id: call_id.clone(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::Text(output.text),
            success: Some(output.success),
        },
        extra: Default::default(),
    };
    let run = ToolRun {
        name: name.clone(),
        call_id: call_id.clone(),
        success: output.success,
        duration_ms,
    };
    (item, run)
}
