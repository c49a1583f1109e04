//! A [`ModelClient`] that replays scripted responses and records the prompts it received, for
//! deterministic tests of every crate above this one.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;

use agentctx_protocol::ExtraFields;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use async_trait::async_trait;

use crate::client::ModelClient;
use crate::error::ModelError;
use crate::model_info::ModelInfo;
use crate::prompt::Prompt;
use crate::provider_config::WireApi;
use crate::remote_compaction::ProviderIdentity;
use crate::remote_compaction::RemoteCompactionSupport;
use crate::response_event::ResponseEvent;
use crate::response_event::ResponseStream;

/// One output of a scripted response.
#[derive(Debug, Clone, PartialEq)]
enum ScriptedOutput {
    Text(String),
    Reasoning {
        summary: String,
        content: Option<String>,
    },
    Item(ResponseItem),
}

/// One scripted response: output items, usage, and optionally an error.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScriptedResponse {
    outputs: Vec<ScriptedOutput>,
    usage: Option<TokenUsage>,
    response_id: Option<String>,
    request_error: Option<ModelError>,
    stream_error: Option<ModelError>,
}

impl ScriptedResponse {
    /// An empty response (it completes with no output).
    pub fn new() -> Self {
        Self::default()
    }

    /// A response with one assistant message.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new().with_text(text)
    }

    /// A request that fails with `error` before any stream starts.
    pub fn error(error: ModelError) -> Self {
        Self {
            request_error: Some(error),
            ..Self::default()
        }
    }

    /// Adds an assistant message (streamed as one text delta).
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.outputs.push(ScriptedOutput::Text(text.into()));
        self
    }

    /// Adds a reasoning item with a summary (streamed as one summary delta).
    pub fn with_reasoning(mut self, summary: impl Into<String>) -> Self {
        self.outputs.push(ScriptedOutput::Reasoning {
            summary: summary.into(),
            content: None,
        });
        self
    }

    /// Adds a reasoning item with raw thinking text (streamed as one reasoning content delta).
    pub fn with_thinking(mut self, content: impl Into<String>) -> Self {
        self.outputs.push(ScriptedOutput::Reasoning {
            summary: String::new(),
            content: Some(content.into()),
        });
        self
    }

    /// Adds a function call; `arguments` is the raw JSON string.
    pub fn with_function_call(
        mut self,
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        self.outputs
            .push(ScriptedOutput::Item(ResponseItem::function_call(
                call_id, name, arguments,
            )));
        self
    }

    /// Adds any output item as is.
    pub fn with_item(mut self, item: ResponseItem) -> Self {
        self.outputs.push(ScriptedOutput::Item(item));
        self
    }

    /// Reports this usage in `Completed`.
    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Uses this response id (default `resp_<n>`).
    pub fn with_response_id(mut self, id: impl Into<String>) -> Self {
        self.response_id = Some(id.into());
        self
    }

    /// Ends the stream with `error` after the outputs, instead of completing.
    pub fn then_fail(mut self, error: ModelError) -> Self {
        self.stream_error = Some(error);
        self
    }

    /// The events this response streams when served as request number `served` (0-based).
    pub fn events(&self, served: usize) -> Vec<Result<ResponseEvent, ModelError>> {
        let mut events = vec![Ok(ResponseEvent::Created)];
        for output in &self.outputs {
            match output {
                ScriptedOutput::Text(text) => {
                    events.push(Ok(ResponseEvent::OutputItemAdded(
                        ResponseItem::assistant_text(""),
                    )));
                    events.push(Ok(ResponseEvent::OutputTextDelta(text.clone())));
                    events.push(Ok(ResponseEvent::OutputItemDone(
                        ResponseItem::assistant_text(text.clone()),
                    )));
                }
                ScriptedOutput::Reasoning { summary, content } => {
                    let item = |summary: Vec<ReasoningSummary>, content| ResponseItem::Reasoning {
                        id: None,
                        summary,
                        content,
                        encrypted_content: None,
                        extra: ExtraFields::new(),
                    };
                    events.push(Ok(ResponseEvent::OutputItemAdded(item(Vec::new(), None))));
                    let summary_parts = if summary.is_empty() {
                        Vec::new()
                    } else {
                        events.push(Ok(ResponseEvent::ReasoningSummaryDelta(summary.clone())));
                        vec![ReasoningSummary::SummaryText {
                            text: summary.clone(),
                        }]
                    };
                    let content_parts = content.as_ref().map(|text| {
                        events.push(Ok(ResponseEvent::ReasoningContentDelta(text.clone())));
                        vec![ReasoningContent::ReasoningText { text: text.clone() }]
                    });
                    events.push(Ok(ResponseEvent::OutputItemDone(item(
                        summary_parts,
                        content_parts,
                    ))));
                }
                ScriptedOutput::Item(item) => {
                    events.push(Ok(ResponseEvent::OutputItemAdded(item.clone())));
                    events.push(Ok(ResponseEvent::OutputItemDone(item.clone())));
                }
            }
        }
        match &self.stream_error {
            Some(error) => events.push(Err(error.clone())),
            None => events.push(Ok(ResponseEvent::Completed {
                response_id: self
                    .response_id
                    .clone()
                    .unwrap_or_else(|| format!("resp_{}", served + 1)),
                token_usage: self.usage,
            })),
        }
        events
    }
}

#[derive(Debug, Default)]
struct ScriptState {
    responses: VecDeque<ScriptedResponse>,
    prompts: Vec<Prompt<'static>>,
    served: usize,
    /// Replies of [`ModelClient::compact_remote`], in order.
    compactions: VecDeque<Result<Vec<ResponseItem>, ModelError>>,
    /// The prompts [`ModelClient::compact_remote`] received.
    compaction_prompts: Vec<Prompt<'static>>,
}

/// Replays scripted responses in order and records every prompt.
///
/// Clones share the script and the recorded prompts, so a test keeps one handle and gives
/// another to the code under test.
#[derive(Debug, Clone)]
pub struct ScriptedModelClient {
    state: Arc<Mutex<ScriptState>>,
    slug: String,
    model_info: ModelInfo,
    remote_compaction: RemoteCompactionSupport,
    identity: ProviderIdentity,
}

impl ScriptedModelClient {
    /// A client for model `slug` with default model info and no responses.
    pub fn new(slug: impl Into<String>) -> Self {
        Self {
            state: Arc::new(Mutex::new(ScriptState::default())),
            slug: slug.into(),
            model_info: ModelInfo::default(),
            remote_compaction: RemoteCompactionSupport::NONE,
            identity: ProviderIdentity::new(WireApi::Responses, ""),
        }
    }

    /// A client that will serve `responses` in order.
    pub fn with_responses(
        slug: impl Into<String>,
        responses: impl IntoIterator<Item = ScriptedResponse>,
    ) -> Self {
        let client = Self::new(slug);
        for response in responses {
            client.push(response);
        }
        client
    }

    /// Uses this model info (context window etc.).
    pub fn with_model_info(mut self, model_info: ModelInfo) -> Self {
        self.model_info = model_info;
        self
    }

    /// Claims this provider-side compaction support (default: none). With
    /// [`RemoteCompactionSupport::endpoint`] set, [`ModelClient::compact_remote`] serves the
    /// replies pushed with [`ScriptedModelClient::push_compaction`]; without it, it fails with
    /// [`ModelError::RemoteCompactionUnsupported`] as a provider without an endpoint does.
    pub fn with_remote_compaction(mut self, support: RemoteCompactionSupport) -> Self {
        self.remote_compaction = support;
        self
    }

    /// Poses as the provider `identity` (default: the Responses API at no host), so a test can
    /// play two providers that cannot read each other's opaque items.
    pub fn with_provider_identity(mut self, identity: ProviderIdentity) -> Self {
        self.identity = identity;
        self
    }

    fn state(&self) -> MutexGuard<'_, ScriptState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends a response to the script.
    pub fn push(&self, response: ScriptedResponse) -> &Self {
        self.state().responses.push_back(response);
        self
    }

    /// Appends a response with one assistant message.
    pub fn push_text(&self, text: impl Into<String>) -> &Self {
        self.push(ScriptedResponse::text(text))
    }

    /// Appends a request that fails with `error`.
    pub fn push_error(&self, error: ModelError) -> &Self {
        self.push(ScriptedResponse::error(error))
    }

    /// Appends a reply of [`ModelClient::compact_remote`]: the compacted history the provider
    /// returns, or the error it fails with (a [`ModelError::Server`] after retries, say).
    pub fn push_compaction(&self, reply: Result<Vec<ResponseItem>, ModelError>) -> &Self {
        self.state().compactions.push_back(reply);
        self
    }

    /// Every prompt [`ModelClient::compact_remote`] received, in order.
    pub fn compaction_prompts(&self) -> Vec<Prompt<'static>> {
        self.state().compaction_prompts.clone()
    }

    /// Every prompt received so far, in order.
    pub fn prompts(&self) -> Vec<Prompt<'static>> {
        self.state().prompts.clone()
    }

    /// The last prompt received.
    pub fn last_prompt(&self) -> Option<Prompt<'static>> {
        self.state().prompts.last().cloned()
    }

    /// How many requests were served (errors included).
    pub fn served(&self) -> usize {
        self.state().served
    }

    /// How many scripted responses are left.
    pub fn remaining(&self) -> usize {
        self.state().responses.len()
    }
}

#[async_trait]
impl ModelClient for ScriptedModelClient {
    async fn stream(&self, prompt: &Prompt<'_>) -> Result<ResponseStream, ModelError> {
        let (response, served) = {
            let mut state = self.state();
            state.prompts.push(prompt.clone().into_owned());
            let served = state.served;
            let Some(response) = state.responses.pop_front() else {
                return Err(ModelError::ScriptExhausted { served });
            };
            state.served += 1;
            (response, served)
        };
        if let Some(error) = response.request_error {
            return Err(error);
        }
        Ok(Box::pin(futures::stream::iter(response.events(served))))
    }

    fn model_info(&self) -> &ModelInfo {
        &self.model_info
    }

    fn slug(&self) -> &str {
        &self.slug
    }

    fn remote_compaction(&self) -> RemoteCompactionSupport {
        self.remote_compaction
    }

    async fn compact_remote(&self, prompt: &Prompt<'_>) -> Result<Vec<ResponseItem>, ModelError> {
        if !self.remote_compaction.endpoint {
            return Err(ModelError::RemoteCompactionUnsupported {
                provider: self.identity.to_string(),
            });
        }
        let mut state = self.state();
        state.compaction_prompts.push(prompt.clone().into_owned());
        let served = state.compaction_prompts.len() - 1;
        state
            .compactions
            .pop_front()
            .unwrap_or(Err(ModelError::ScriptExhausted { served }))
    }

    fn provider_identity(&self) -> ProviderIdentity {
        self.identity.clone()
    }
}
