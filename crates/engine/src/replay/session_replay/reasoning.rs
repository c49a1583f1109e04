//! The reasoning parameters a session's requests carried, as agentctx records them in a
//! `turn_context` line and the replay reads them back.

use super::RECORDED_REASONING_FIELD;

/// Records `reasoning` in `turn_context` (the writer of what [`recorded_reasoning`] reads): codex's `effort` and `summary`, and the parameters
/// whole under [`RECORDED_REASONING_FIELD`].
pub fn record_reasoning(
    turn_context: &mut agentctx_protocol::TurnContextItem,
    reasoning: Option<&agentctx_model::ReasoningOptions>,
) {
    let Some(reasoning) = reasoning else {
        return;
    };
    turn_context.effort = reasoning
        .effort
        .map(|effort| serde_json::Value::String(effort.as_str().to_string()));
    turn_context.summary = reasoning
        .summary
        .map(|summary| serde_json::Value::String(summary.as_str().to_string()));
    if let Ok(value) = serde_json::to_value(reasoning) {
        turn_context
            .extra
            .insert(RECORDED_REASONING_FIELD.to_string(), value);
    }
}

/// The reasoning parameters the requests of the turn `context` opens carried: agentctx's
/// [`RECORDED_REASONING_FIELD`], else codex's `effort` and `summary` (a codex rollout records
/// the effort it sent), else none.
pub fn recorded_reasoning(
    context: &agentctx_protocol::TurnContextItem,
) -> Option<agentctx_model::ReasoningOptions> {
    if let Some(value) = context.extra.get(RECORDED_REASONING_FIELD) {
        return serde_json::from_value(value.clone()).ok();
    }
    let effort = context
        .effort
        .clone()
        .and_then(|value| serde_json::from_value(value).ok());
    let summary = context
        .summary
        .clone()
        .and_then(|value| serde_json::from_value(value).ok());
    (effort.is_some() || summary.is_some()).then(|| agentctx_model::ReasoningOptions {
        effort,
        summary,
        ..Default::default()
    })
}
