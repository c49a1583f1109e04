//! One model request and the tool calls it asks for: streaming the response into items and
//! events, and running the calls (concurrently when every tool of the response allows it).

use std::time::Instant;

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use futures::StreamExt;
use tokio::sync::RwLock;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::event::SessionEvent;
use crate::session_state::ToolRun;
use crate::tools::ToolContext;
use crate::tools::ToolRegistry;

/// How often a broken stream that must be redone is sent again.
const TURN_RESTARTS: u32 = 2;

/// A complete response.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamedResponse {
    /// Output items, in order.
    pub(crate) items: Vec<ResponseItem>,
    /// Usage, when the provider reported it.
    pub(crate) usage: Option<TokenUsage>,
}

impl StreamedResponse {
    /// The function calls to run: `(call_id, name, arguments)`.
    pub(crate) fn function_calls(&self) -> Vec<(String, String, String)> {
        self.items
            .iter()
            .filter_map(|item| match item {
                ResponseItem::FunctionCall {
                    name,
                    arguments,
                    call_id,
                    ..
                } => Some((call_id.clone(), name.clone(), arguments.clone())),
                _ => None,
            })
            .collect()
    }
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
) -> Result<Option<StreamedResponse>, ModelError> {
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
            Err(error) if error.requires_turn_restart() && restarts < TURN_RESTARTS => {
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
) -> Result<StreamedResponse, ModelError> {
    let mut stream = model.stream(prompt).await?;
    let mut response = StreamedResponse::default();
    let mut completed = false;
    while let Some(event) = stream.next().await {
        match event? {
            ResponseEvent::OutputItemDone(item) => {
                if item.role() == Some("assistant")
                    && let Some(text) = item.message_text()
                {
                    emit(events, SessionEvent::AssistantMessage { text });
                }
                response.items.push(item);
            }
            ResponseEvent::OutputTextDelta(delta) => {
                emit(events, SessionEvent::TextDelta { delta })
            }
            ResponseEvent::ReasoningSummaryDelta(delta)
            | ResponseEvent::ReasoningContentDelta(delta) => {
                emit(events, SessionEvent::ReasoningDelta { delta });
            }
            ResponseEvent::Completed { token_usage, .. } => {
                response.usage = token_usage;
                completed = true;
            }
            // A new attempt starts from the beginning: nothing of the broken one is kept.
            ResponseEvent::AttemptAbandoned { .. } => response = StreamedResponse::default(),
            ResponseEvent::Created
            | ResponseEvent::OutputItemAdded(_)
            | ResponseEvent::RateLimits(_)
            | ResponseEvent::PromptCache { .. }
            | ResponseEvent::OutputTruncated { .. } => {}
        }
    }
    if !completed {
        return Err(ModelError::StreamDisconnected {
            reason: "stream ended without a completed response".to_string(),
        });
    }
    Ok(response)
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
    let output = registry.dispatch(ctx, name, arguments).await;
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
