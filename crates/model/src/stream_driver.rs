//! [`StreamDriver`]: reads one response stream on a task, turns its bytes into
//! [`ResponseEvent`]s, and sends the request again when the stream drops before any output item
//! completed. After an item completed it ends the stream with
//! [`ModelError::TurnRestartRequired`] instead (see [`crate::stream_resume`] and
//! docs/design/model-streaming.md, "Resume").

use std::fmt::Display;
use std::time::Duration;

use eventsource_stream::EventStreamError;
use eventsource_stream::Eventsource;
use futures::Stream;
use futures::StreamExt;
use tokio::sync::mpsc;

use crate::error::ModelError;
use crate::error_text::human_duration;
use crate::http_client::PreparedRequest;
use crate::provider_config::WireApi;
use crate::response_event::RateLimitSnapshot;
use crate::response_event::ResponseEvent;
use crate::retry::retry_delay;
use crate::sse_text::SseTextDecoder;
use crate::stream_resume::AttemptState;
use crate::wire::WireEventParser;
use crate::wire::anthropic_messages;
use crate::wire::chat_completions;
use crate::wire::excerpt;
use crate::wire::responses;

/// How one attempt at reading a stream ended.
#[derive(Debug)]
pub(crate) enum AttemptEnd {
    /// The response completed.
    Completed,
    /// The consumer dropped the stream; nothing more is read or sent.
    ConsumerGone,
    /// The attempt failed; retried when the error is retryable and attempts are left.
    Failed(ModelError),
}

/// How often a response that completed empty is asked for again before
/// [`ModelError::EmptyResponse`] ends the stream.
const EMPTY_ANSWER_RETRIES: u64 = 1;

/// How an attempt broke: the error's text and how many events the attempt had produced. Two
/// attempts in a row with the same signature broke deterministically (a chat template that
/// crashes on this prompt, a prompt over the window, a request the server cannot handle):
/// sending the request a third time fails the same way, so the driver stops there. Random
/// network drops break at other points and keep their full budget.
///
/// Errors whose nature is to pass (a rate limit, an overloaded or unavailable server, or any
/// answer that named when to come back) have no signature: they keep the whole budget and its
/// backoff however alike they look.
#[derive(Debug, PartialEq)]
struct BreakSignature {
    error: String,
    events: usize,
}

impl BreakSignature {
    fn of(error: &ModelError, events: usize) -> Option<Self> {
        let passing = match error {
            ModelError::RateLimited { .. } => true,
            ModelError::Server {
                status,
                retry_after,
                ..
            } => matches!(status, 503 | 529) || retry_after.is_some(),
            _ => false,
        };
        (!passing).then(|| Self {
            error: error.to_string(),
            events,
        })
    }
}

/// Reads a response stream on a task, reconnecting when it drops.
pub(crate) struct StreamDriver {
    request: PreparedRequest,
    wire_api: WireApi,
    stream_max_retries: u64,
    idle_timeout: Option<Duration>,
    tx: mpsc::Sender<Result<ResponseEvent, ModelError>>,
}

pub(crate) fn new_parser(wire_api: WireApi) -> Box<dyn WireEventParser> {
    match wire_api {
        WireApi::Responses => Box::<responses::ResponsesParser>::default(),
        WireApi::Chat => Box::<chat_completions::ChatCompletionsParser>::default(),
        WireApi::Anthropic => Box::<anthropic_messages::AnthropicParser>::default(),
    }
}

impl StreamDriver {
    /// A driver that resends `request` on a retryable drop, at most `stream_max_retries` times.
    pub(crate) fn new(
        request: PreparedRequest,
        wire_api: WireApi,
        stream_max_retries: u64,
        idle_timeout: Option<Duration>,
        tx: mpsc::Sender<Result<ResponseEvent, ModelError>>,
    ) -> Self {
        Self {
            request,
            wire_api,
            stream_max_retries,
            idle_timeout,
            tx,
        }
    }

    /// Reads `first`; when it drops with a retryable error before any item completed, reports
    /// the abandoned attempt and reads a new one, at most `stream_max_retries` times, and not
    /// again once two attempts in a row broke the same way. A response that completed empty is
    /// asked for once more, then ends in [`ModelError::EmptyResponse`].
    pub(crate) async fn run(self, first: reqwest::Response) {
        let mut state = AttemptState::default();
        let mut response = first;
        let mut reconnects = 0;
        let mut empty_answers = 0;
        let mut last_break: Option<BreakSignature> = None;
        loop {
            state.new_attempt();
            let error = match self.read(response, &mut state).await {
                AttemptEnd::Completed if state.answered_nothing() => {
                    empty_answers += 1;
                    ModelError::EmptyResponse {
                        requests: empty_answers,
                    }
                }
                AttemptEnd::Completed | AttemptEnd::ConsumerGone => return,
                AttemptEnd::Failed(error) if error.is_retryable() => error,
                AttemptEnd::Failed(error) => {
                    let _ = self.tx.send(Err(error)).await;
                    return;
                }
            };
            // The attempt is given up whatever happens next: report what it cost, and tell the
            // consumer to drop the partial output it was shown.
            let abandoned = ResponseEvent::AttemptAbandoned {
                usage: state.usage(),
            };
            if self.tx.send(Ok(abandoned)).await.is_err() {
                return;
            }
            let completed_items = state.items_completed();
            if completed_items > 0 {
                // A new request would be a new sample whose items cannot follow these.
                tracing::warn!(%error, completed_items, "model stream broke after items completed; the turn must be redone");
                let _ = self
                    .tx
                    .send(Err(ModelError::TurnRestartRequired {
                        completed_items,
                        reason: error.to_string(),
                    }))
                    .await;
                return;
            }
            let retry = if let ModelError::EmptyResponse { requests } = &error {
                let again = *requests <= EMPTY_ANSWER_RETRIES;
                if again {
                    tracing::warn!(
                        "the server returned an empty answer (no text, no tool call); sending the request once more"
                    );
                }
                again
            } else {
                let signature = BreakSignature::of(&error, state.events());
                let repeated = signature.is_some() && last_break == signature;
                last_break = signature;
                if repeated {
                    tracing::warn!(%error, "model stream broke the same way twice in a row; not sending the request again");
                }
                !repeated && reconnects < self.stream_max_retries
            };
            if !retry {
                let _ = self.tx.send(Err(error)).await;
                return;
            }
            let attempt = if matches!(error, ModelError::EmptyResponse { .. }) {
                empty_answers
            } else {
                reconnects += 1;
                reconnects
            };
            let Some(delay) = retry_delay(&error, attempt) else {
                let _ = self.tx.send(Err(error)).await;
                return;
            };
            tracing::warn!(%error, attempt, delay = %human_duration(delay), "model stream ended before a usable answer; sending the request again");
            // A consumer that went away must not cause another (billed) request.
            let next = tokio::select! {
                biased;
                () = self.tx.closed() => return,
                next = async {
                    tokio::time::sleep(delay).await;
                    self.request.send().await
                } => next,
            };
            match next {
                Ok(next) => response = next,
                Err(error) => {
                    let _ = self.tx.send(Err(error)).await;
                    return;
                }
            }
        }
    }

    async fn deliver(&self, state: &mut AttemptState, events: Vec<ResponseEvent>) -> bool {
        let mut admitted = Vec::with_capacity(events.len());
        for event in events {
            state.admit(event, &mut admitted);
        }
        for event in admitted {
            if self.tx.send(Ok(event)).await.is_err() {
                return false;
            }
        }
        true
    }

    async fn read(&self, response: reqwest::Response, state: &mut AttemptState) -> AttemptEnd {
        if let Some(snapshot) = RateLimitSnapshot::from_headers(response.headers())
            && !self
                .deliver(state, vec![ResponseEvent::RateLimits(snapshot)])
                .await
        {
            return AttemptEnd::ConsumerGone;
        }
        self.read_body(response.bytes_stream(), SseTextDecoder::default(), state)
            .await
    }

    /// Parses a response body (`bytes`, in whatever chunks the transport cut it) and delivers
    /// its events through `state`; a failed attempt leaves in `state` the usage the provider
    /// reported before the failure.
    pub(crate) async fn read_body<S, B, E>(
        &self,
        bytes: S,
        decoder: SseTextDecoder,
        state: &mut AttemptState,
    ) -> AttemptEnd
    where
        S: Stream<Item = Result<B, E>> + Unpin,
        B: AsRef<[u8]>,
        E: Display,
    {
        let mut parser = new_parser(self.wire_api);
        let end = self
            .read_events(bytes, decoder, parser.as_mut(), state)
            .await;
        if matches!(end, AttemptEnd::Failed(_)) {
            state.record_usage(parser.usage_so_far());
        }
        end
    }

    async fn read_events<S, B, E>(
        &self,
        bytes: S,
        mut decoder: SseTextDecoder,
        parser: &mut dyn WireEventParser,
        state: &mut AttemptState,
    ) -> AttemptEnd
    where
        S: Stream<Item = Result<B, E>> + Unpin,
        B: AsRef<[u8]>,
        E: Display,
    {
        let mut events = bytes.map(move |chunk| decoder.decode(chunk)).eventsource();
        loop {
            let next = tokio::select! {
                biased;
                // Dropping the stream cancels the request instead of reading it to the end.
                () = self.tx.closed() => return AttemptEnd::ConsumerGone,
                next = async {
                    match self.idle_timeout {
                        Some(after) => tokio::time::timeout(after, events.next())
                            .await
                            .map_err(|_| ModelError::Timeout { after }),
                        None => Ok(events.next().await),
                    }
                } => next,
            };
            let next = match next {
                Ok(next) => next,
                Err(error) => return AttemptEnd::Failed(error),
            };
            let mut out = Vec::new();
            let result = match next {
                None => {
                    let result = parser.on_end(&mut out);
                    if !self.deliver(state, out).await {
                        return AttemptEnd::ConsumerGone;
                    }
                    return match result {
                        Ok(()) => AttemptEnd::Completed,
                        Err(error) => AttemptEnd::Failed(error),
                    };
                }
                Some(Err(EventStreamError::Transport(error))) => {
                    return AttemptEnd::Failed(error);
                }
                Some(Err(err @ (EventStreamError::Utf8(_) | EventStreamError::Parser(_)))) => {
                    return AttemptEnd::Failed(ModelError::Decode {
                        what: "sse stream".to_string(),
                        message: err.to_string(),
                    });
                }
                Some(Ok(event)) => {
                    tracing::trace!(event = %event.event, data = %excerpt(&event.data), "sse event");
                    parser.on_event(&event.event, &event.data, &mut out)
                }
            };
            if !self.deliver(state, out).await {
                return AttemptEnd::ConsumerGone;
            }
            if let Err(error) = result {
                return AttemptEnd::Failed(error);
            }
            if parser.is_complete() || state.completed() {
                return AttemptEnd::Completed;
            }
        }
    }
}

#[cfg(test)]
#[path = "stream_driver_tests.rs"]
mod tests;
