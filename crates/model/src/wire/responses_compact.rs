//! OpenAI's compaction endpoint: `POST {base_url}/responses/compact`, the history in, a shorter
//! history out (one JSON body, not a stream).
//!
//! The request is what codex-rs sends: `codex-rs/codex-api/src/common.rs` (`CompactionInput`:
//! `model`, `input`, `instructions` unless empty, `tools`, `parallel_tool_calls`, then
//! `reasoning`, `service_tier`, `prompt_cache_key` and `text` when set), filled by
//! `codex-rs/core/src/client.rs` (`compact_conversation_history`) from the request it would
//! stream, and sent by `codex-rs/codex-api/src/endpoint/compact.rs` with the provider's
//! headers and auth. The answer's `output` is the compacted history ("all user messages,
//! followed by a single compaction item", in the API reference's words:
//! <https://developers.openai.com/api/reference/resources/responses>, "Compact a response").

use std::borrow::Cow;

use agentctx_protocol::ResponseItem;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::error::ModelError;
use crate::wire::excerpt;
use crate::wire::responses::RequestBody;
use crate::wire::responses::serialize_input;

/// The body of a `/responses/compact` request: the streamed request's fields codex-rs's
/// `CompactionInput` carries, nothing else (no `stream`, `store`, `include` or `tool_choice`).
#[derive(Debug, Serialize)]
pub(crate) struct CompactRequestBody<'a> {
    model: &'a str,
    #[serde(serialize_with = "serialize_input")]
    input: Vec<Cow<'a, ResponseItem>>,
    #[serde(skip_serializing_if = "str::is_empty")]
    instructions: &'a str,
    tools: Vec<Value>,
    parallel_tool_calls: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Value>,
}

impl<'a> From<RequestBody<'a>> for CompactRequestBody<'a> {
    fn from(request: RequestBody<'a>) -> Self {
        Self {
            model: request.model,
            input: request.input,
            instructions: request.instructions,
            tools: request.tools,
            parallel_tool_calls: request.parallel_tool_calls,
            reasoning: request.reasoning,
            prompt_cache_key: request.prompt_cache_key,
            text: request.text,
        }
    }
}

/// The part of the answer read: the compacted history. The answer's `usage` (what the
/// compaction pass cost) is logged.
#[derive(Debug, Deserialize)]
struct CompactResponse {
    output: Vec<ResponseItem>,
    #[serde(default)]
    usage: Option<Value>,
}

/// The compacted history of a `/responses/compact` answer body, unfiltered.
pub(crate) fn parse_compact_response(body: &[u8]) -> Result<Vec<ResponseItem>, ModelError> {
    let response: CompactResponse =
        serde_json::from_slice(body).map_err(|err| ModelError::Decode {
            what: "responses/compact body".to_string(),
            message: format!("{err}: {}", excerpt(&String::from_utf8_lossy(body))),
        })?;
    if let Some(usage) = &response.usage {
        tracing::debug!(%usage, items = response.output.len(), "remote compaction answered");
    }
    Ok(response.output)
}

#[cfg(test)]
#[path = "responses_compact_tests.rs"]
mod tests;
