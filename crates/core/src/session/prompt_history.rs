//! The turn's input appended to `<home>/history.jsonl`, codex's prompt history. It reads the
//! home, the `[history]` settings and the session id, not the session.

use std::path::Path;

use agentctx_context::MessageHistory;
use agentctx_context::MessageHistoryConfig;

/// Appends `input` of the session `session_id` to `<home>/history.jsonl` (codex's prompt
/// history) under `config`. A failure (a locked or unwritable file) is logged and the turn goes
/// on: the history is a convenience, never a reason to lose a turn.
pub(super) async fn append_history(
    home: &Path,
    config: &MessageHistoryConfig,
    session_id: &str,
    input: &str,
) {
    let history = MessageHistory::in_home(home, config);
    let (session_id, text) = (session_id.to_string(), input.to_string());
    match tokio::task::spawn_blocking(move || history.append(&session_id, &text)).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::warn!(%error, "the prompt was not added to history.jsonl"),
        Err(error) => tracing::warn!(%error, "the prompt was not added to history.jsonl"),
    }
}
