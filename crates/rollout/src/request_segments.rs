//! [`RequestSegmenter`]: where the model requests of a recorded history begin.
//!
//! A session file records items, not requests. A request is read back as a run of
//! model-generated items (`agentctx_protocol::is_model_generated`: assistant messages,
//! reasoning, tool calls, web searches, server-side compactions): whatever the harness or the
//! user added (a tool result, an injected message, the user's next message) ends the run, and the
//! next model item starts a new request. One user turn of an agentic session is many requests;
//! a host that runs something "before every model request" (the reminder engine) replays it at
//! each [`RequestStart`], and only the first request of a turn carries the user's message. See
//! docs/design/rollout-formats.md, "Model requests".

use agentctx_protocol::ResponseItem;
/// Items the model produces; a run of them is one request (defined in `agentctx-protocol`).
pub use agentctx_protocol::is_model_generated;

/// A model request begins at the item just observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestStart {
    /// 1-based number of the request in the session.
    pub request: usize,
    /// 1-based number of the request in its user turn (counted from the session start before
    /// the first turn).
    pub request_in_turn: usize,
    /// The request carries the user's message: the first request since [`RequestSegmenter::start_turn`].
    pub has_user_input: bool,
}

/// Splits the items of one thread into model requests; feed it every item in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestSegmenter {
    in_model_response: bool,
    requests: usize,
    requests_in_turn: usize,
    user_input_pending: bool,
}

impl RequestSegmenter {
    /// A segmenter at the start of a session.
    pub fn new() -> Self {
        Self::default()
    }

    /// The user's message opened a turn: the next request is the one that carries it.
    pub fn start_turn(&mut self) {
        self.requests_in_turn = 0;
        self.user_input_pending = true;
        self.in_model_response = false;
    }

    /// The history was rewritten (a compaction, a rollback): the next model item starts a new
    /// request even if the last item was the model's.
    pub fn history_rewritten(&mut self) {
        self.in_model_response = false;
    }

    /// Takes `item` into account; `Some` when it is the first item of a new model request.
    pub fn observe(&mut self, item: &ResponseItem) -> Option<RequestStart> {
        let model_generated = is_model_generated(item);
        let starts = model_generated && !self.in_model_response;
        self.in_model_response = model_generated;
        if !starts {
            return None;
        }
        self.requests += 1;
        self.requests_in_turn += 1;
        let has_user_input = std::mem::take(&mut self.user_input_pending);
        Some(RequestStart {
            request: self.requests,
            request_in_turn: self.requests_in_turn,
            has_user_input,
        })
    }

    /// Requests seen so far.
    pub fn requests(&self) -> usize {
        self.requests
    }
}

#[cfg(test)]
#[path = "request_segments_tests.rs"]
mod tests;
