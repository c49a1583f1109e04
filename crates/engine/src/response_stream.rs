//! One model response read to its end: [`collect_response`] streams a prompt and gathers the
//! output items, the usage and what the provider said of its own context, and on failure says
//! what the engine's overflow question needs ([`StreamFailure::request_failure`]). The live
//! session, its subagents and a host of its own (the `minimal_host` example) read a response
//! the same way; the host sees every event as it arrives (to show text as it streams).

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ProviderContextReport;
use agentctx_model::ResponseEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use futures::StreamExt;

use crate::RequestFailure;

/// A complete response.
#[derive(Debug, Clone, Default)]
pub struct CollectedResponse {
    /// Output items, in order.
    pub items: Vec<ResponseItem>,
    /// Usage, when the provider reported it.
    pub usage: Option<TokenUsage>,
    /// The provider's reason when the answer stopped at the output limit
    /// ([`ResponseEvent::OutputTruncated`], or a [`ModelError::Incomplete`] error from a decoder
    /// that reports it that way): the items are kept, and a host may ask the model to go on.
    pub truncated: Option<String>,
    /// What the provider reported of its own context management (Anthropic context edits, the
    /// tokens of its compaction step, a pause after compaction).
    pub provider_context: Option<ProviderContextReport>,
}

impl CollectedResponse {
    /// The text of the response's last assistant message.
    pub fn last_assistant_text(&self) -> Option<String> {
        self.items
            .iter()
            .rev()
            .find(|item| item.role() == Some("assistant"))
            .and_then(ResponseItem::message_text)
    }

    /// The function calls to run, in order: `(call_id, name, arguments)`.
    pub fn function_calls(&self) -> Vec<(String, String, String)> {
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

/// A request that ended without a response.
#[derive(Debug)]
pub struct StreamFailure {
    /// What ended it.
    pub error: ModelError,
    /// No output event (item, text or reasoning) had arrived: the request or the stream died
    /// before the model produced anything, as a server that cannot take the prompt does.
    pub before_output: bool,
}

/// Shown as the error alone: whether output had arrived is for the turn loop, not the user.
impl std::fmt::Display for StreamFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for StreamFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl StreamFailure {
    /// Whether this failure looks like a prompt the server could not take, when the engine's
    /// estimate says the prompt filled the window: llama-cpp-python raises inside the stream
    /// when the prompt exceeds `n_ctx`, so the stream dies (or the server answers 500, or sends
    /// an event that cannot be decoded) before its first output event. An error the provider
    /// named (auth, rate limit, bad request) is never taken for an overflow.
    pub fn may_be_context_overflow(&self) -> bool {
        self.before_output
            && matches!(
                self.error,
                ModelError::StreamDisconnected { .. }
                    | ModelError::Decode { .. }
                    | ModelError::Server { .. }
            )
    }

    /// What [`crate::ContextEngine::after_failure`] needs to know of this failure of a request
    /// the engine counted at `prompt_tokens` (the [`crate::Decision::tokens`] of its
    /// `before_request` decision).
    pub fn request_failure(&self, prompt_tokens: u64) -> RequestFailure {
        RequestFailure {
            context_window_exceeded: matches!(self.error, ModelError::ContextWindowExceeded { .. }),
            died_before_output: self.may_be_context_overflow(),
            prompt_tokens,
        }
    }
}

/// Streams `prompt` through `model` to its end; `on_event` sees each event before it is
/// gathered (the host shows text and reasoning as they stream). A retried attempt
/// ([`ResponseEvent::AttemptAbandoned`]) starts over: nothing of the broken one is kept.
///
/// # Errors
///
/// [`StreamFailure`] when the request fails or the stream ends without a completed response.
pub async fn collect_response(
    model: &dyn ModelClient,
    prompt: &Prompt<'_>,
    mut on_event: impl FnMut(&ResponseEvent),
) -> Result<CollectedResponse, StreamFailure> {
    let mut stream = model.stream(prompt).await.map_err(|error| StreamFailure {
        error,
        before_output: true,
    })?;
    let mut response = CollectedResponse::default();
    let mut completed = false;
    let mut output_seen = false;
    // The streamed text of the answer, for a decoder that ends a truncated answer with an
    // error before the message item is done.
    let mut streamed_text = String::new();
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(event) => event,
            Err(ModelError::Incomplete { reason }) => {
                let answered = response
                    .items
                    .iter()
                    .any(|item| item.role() == Some("assistant"));
                if !answered && !streamed_text.is_empty() {
                    let text = std::mem::take(&mut streamed_text);
                    response.items.push(ResponseItem::assistant_text(text));
                }
                response.truncated = Some(reason);
                return Ok(response);
            }
            Err(error) => {
                let before_output = !output_seen;
                return Err(StreamFailure {
                    error,
                    before_output,
                });
            }
        };
        output_seen |= matches!(
            event,
            ResponseEvent::OutputItemAdded(_)
                | ResponseEvent::OutputItemDone(_)
                | ResponseEvent::OutputTextDelta(_)
                | ResponseEvent::ReasoningSummaryDelta(_)
                | ResponseEvent::ReasoningContentDelta(_)
        );
        on_event(&event);
        match event {
            ResponseEvent::OutputItemDone(item) => response.items.push(item),
            ResponseEvent::OutputTextDelta(delta) => streamed_text.push_str(&delta),
            ResponseEvent::Completed { token_usage, .. } => {
                response.usage = token_usage;
                completed = true;
            }
            ResponseEvent::OutputTruncated { reason } => response.truncated = Some(reason),
            ResponseEvent::AttemptAbandoned { .. } => {
                response = CollectedResponse::default();
                streamed_text.clear();
                output_seen = false;
            }
            ResponseEvent::ProviderContext(report) => response.provider_context = Some(report),
            ResponseEvent::Created
            | ResponseEvent::OutputItemAdded(_)
            | ResponseEvent::ReasoningSummaryDelta(_)
            | ResponseEvent::ReasoningContentDelta(_)
            | ResponseEvent::RateLimits(_)
            | ResponseEvent::PromptCache { .. } => {}
        }
    }
    if completed {
        return Ok(response);
    }
    Err(StreamFailure {
        error: ModelError::StreamDisconnected {
            reason: "stream ended without a completed response".to_string(),
        },
        before_output: !output_seen,
    })
}

#[cfg(test)]
#[path = "response_stream_tests.rs"]
mod tests;
