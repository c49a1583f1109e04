//! The turn's input appended to `<home>/history.jsonl`, codex's prompt history.

use super::Session;

impl Session {
    /// Appends the turn's input to `<home>/history.jsonl` (codex's prompt history). A failure
    /// (a locked or unwritable file) is logged and the turn goes on: the history is a
    /// convenience, never a reason to lose a turn.
    pub(super) async fn append_history(&self, input: &str) {
        let history =
            agentctx_context::MessageHistory::in_home(&self.options.home, &self.options.history);
        let (session_id, text) = (self.session_id.clone(), input.to_string());
        match tokio::task::spawn_blocking(move || history.append(&session_id, &text)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "the prompt was not added to history.jsonl"),
            Err(error) => tracing::warn!(%error, "the prompt was not added to history.jsonl"),
        }
    }
}
