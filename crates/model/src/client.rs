//! The [`ModelClient`] trait every caller talks to.

use agentctx_protocol::ResponseItem;
use async_trait::async_trait;
use futures::StreamExt;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::error::ModelError;
use crate::error_text::human_duration;
use crate::model_info::ModelInfo;
use crate::prompt::Prompt;
use crate::provider_config::WireApi;
use crate::remote_compaction::ProviderIdentity;
use crate::remote_compaction::RemoteCompactionSupport;
use crate::response_event::ResponseEvent;
use crate::response_event::ResponseStream;
use crate::retry::backoff;
use crate::structured_output::StructuredOutputFallback;
use crate::structured_output::complete_structured;

/// A language model that streams responses to prompts.
#[async_trait]
pub trait ModelClient: Send + Sync {
    /// Sends `prompt` and streams the response. Request-level failures (auth, bad request,
    /// context window exceeded, retries exhausted) return `Err` here; failures after the stream
    /// started arrive as an `Err` item that ends the stream.
    async fn stream(&self, prompt: &Prompt<'_>) -> Result<ResponseStream, ModelError>;

    /// What is known about the model.
    fn model_info(&self) -> &ModelInfo;

    /// The model slug, e.g. `gpt-5`.
    fn slug(&self) -> &str;

    /// The model's context window in tokens.
    fn context_window(&self) -> i64 {
        self.model_info().context_window
    }

    /// One-shot text: system instructions and one user message in, the assistant's text out.
    async fn complete(&self, system: &str, user: &str) -> Result<String, ModelError> {
        complete_prompt(self, &Prompt::system_and_user(system, user)).await
    }

    /// What the provider can do to compact a history on its side (see
    /// [`RemoteCompactionSupport`]); the default: nothing, compaction stays local.
    fn remote_compaction(&self) -> RemoteCompactionSupport {
        RemoteCompactionSupport::NONE
    }

    /// Asks the provider to compact `prompt`'s history and returns the history it sent back,
    /// unfiltered: the caller decides which items to keep (codex keeps the `compaction` items
    /// and the user messages, and drops the rest). Only where
    /// [`RemoteCompactionSupport::endpoint`] is set; the default fails with
    /// [`ModelError::RemoteCompactionUnsupported`], so a caller falls back to local compaction.
    async fn compact_remote(&self, prompt: &Prompt<'_>) -> Result<Vec<ResponseItem>, ModelError> {
        let _ = prompt;
        Err(ModelError::RemoteCompactionUnsupported {
            provider: self.provider_identity().to_string(),
        })
    }

    /// Who wrote the opaque items (compaction, encrypted reasoning) this client returns, and
    /// so which recorded opaque items it can read back: see [`ProviderIdentity::can_read`]. The
    /// default, for clients that talk to no server, is the Responses API at no host.
    fn provider_identity(&self) -> ProviderIdentity {
        ProviderIdentity::new(WireApi::Responses, "")
    }

    /// The lifetime of the prompt-cache entries this client's requests write (the provider's
    /// `prompt_cache_ttl`; five minutes for clients that talk to no server): the engine's cost
    /// model prices the cache with it.
    fn prompt_cache_ttl(&self) -> crate::provider_config::PromptCacheTtl {
        crate::provider_config::PromptCacheTtl::FiveMinutes
    }

    /// Where this client remembers the structured-output mode its server accepted, so that a
    /// fallback found once (see [`complete_structured`]) holds for its later requests; `None`
    /// (the default): every structured call starts with the JSON schema format.
    fn structured_output_fallback(&self) -> Option<&StructuredOutputFallback> {
        None
    }

    /// One-shot structured output: asks for `T`'s JSON schema (as the output format, or in the
    /// instructions when the server refuses that; see [`complete_structured`]) and returns the
    /// reply parsed as `T`, or [`ModelError::StructuredOutput`] naming what did not match.
    async fn complete_structured<T>(&self, system: &str, user: &str) -> Result<T, ModelError>
    where
        T: DeserializeOwned + JsonSchema,
        Self: Sized,
    {
        complete_structured(self, system, user).await
    }
}

/// How many times [`complete_prompt`] sends the prompt again when a stream asks for the turn to
/// be redone ([`ModelError::TurnRestartRequired`]); the stream itself has already retried what it
/// could, so this only covers breaks after an item completed.
const TURN_RESTARTS: u64 = 2;

/// Streams `prompt` to completion and returns the assistant's text: the text of the completed
/// assistant messages joined by newlines, or the streamed text deltas when no message completed.
///
/// Honours the stream's resume contract: the partial output of an abandoned attempt is dropped,
/// and a stream that asks for the turn to be redone is sent again from the start (at most
/// `TURN_RESTARTS` times), so the reply is always one whole sample.
pub async fn complete_prompt<C>(client: &C, prompt: &Prompt<'_>) -> Result<String, ModelError>
where
    C: ModelClient + ?Sized,
{
    let mut restarts = 0;
    loop {
        match complete_once(client, prompt).await {
            Err(error) if error.requires_turn_restart() && restarts < TURN_RESTARTS => {
                restarts += 1;
                let delay = backoff(restarts);
                tracing::warn!(%error, restarts, delay = %human_duration(delay), "model stream must be redone; sending the prompt again");
                tokio::time::sleep(delay).await;
            }
            result => return result,
        }
    }
}

async fn complete_once<C>(client: &C, prompt: &Prompt<'_>) -> Result<String, ModelError>
where
    C: ModelClient + ?Sized,
{
    let mut stream = client.stream(prompt).await?;
    let mut messages: Vec<String> = Vec::new();
    let mut deltas = String::new();
    let mut completed = false;
    while let Some(event) = stream.next().await {
        match event? {
            ResponseEvent::OutputItemDone(item) if item.role() == Some("assistant") => {
                messages.extend(item.message_text());
            }
            ResponseEvent::OutputTextDelta(piece) => deltas.push_str(&piece),
            ResponseEvent::Completed { .. } => completed = true,
            // No item of the abandoned attempt completed; only its deltas are void.
            ResponseEvent::AttemptAbandoned { .. } => deltas.clear(),
            ResponseEvent::Created
            | ResponseEvent::OutputItemAdded(_)
            | ResponseEvent::OutputItemDone(_)
            | ResponseEvent::ReasoningSummaryDelta(_)
            | ResponseEvent::ReasoningContentDelta(_)
            | ResponseEvent::RateLimits(_)
            | ResponseEvent::PromptCache { .. }
            | ResponseEvent::ProviderContext(_)
            | ResponseEvent::OutputTruncated { .. } => {}
        }
    }
    if !completed {
        return Err(ModelError::StreamDisconnected {
            reason: "stream ended without a completed response".to_string(),
        });
    }
    Ok(if messages.is_empty() {
        deltas
    } else {
        messages.join("\n")
    })
}
