//! Renders records as one short line each, so whole files compare in one `assert_eq`.

use agentctx_protocol::EventMsg;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::RolloutRecord;

fn preview(text: &str) -> String {
    let flat = text.replace('\n', "⏎");
    let mut out: String = flat.chars().take(48).collect();
    if flat.chars().count() > 48 {
        out.push('…');
    }
    out
}

fn item(item: &ResponseItem) -> String {
    match item {
        ResponseItem::Message { role, content, .. } => {
            let parts: Vec<String> = content
                .iter()
                .map(|part| match part.as_text() {
                    Some(text) => preview(text),
                    None => serde_json::to_value(part).unwrap()["type"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string(),
                })
                .collect();
            format!("message/{role}: {}", parts.join(" | "))
        }
        ResponseItem::Reasoning {
            content,
            encrypted_content,
            summary,
            ..
        } => format!(
            "reasoning: summary={} content={} encrypted={}",
            summary.len(),
            content.as_ref().map_or(0, Vec::len),
            encrypted_content.is_some()
        ),
        ResponseItem::FunctionCall {
            name,
            arguments,
            call_id,
            ..
        } => format!("function_call {name} {call_id} {}", preview(arguments)),
        ResponseItem::FunctionCallOutput {
            call_id, output, ..
        } => {
            let shape = match &output.body {
                FunctionCallOutputBody::Text(_) => "text",
                FunctionCallOutputBody::ContentItems(_) => "items",
                FunctionCallOutputBody::Other(_) => "other",
            };
            format!(
                "function_call_output {call_id} success={:?} {shape}: {}",
                output.success,
                preview(&output.text_content())
            )
        }
        other => other.type_name().to_string(),
    }
}

/// `L<line> [im][sc] <kind>: <detail>`.
pub(crate) fn record(record: &RolloutRecord) -> String {
    let flags = format!(
        "{}{}",
        if record.flags.injected { "M" } else { "-" },
        if record.flags.sidechain { "S" } else { "-" }
    );
    let detail = match &record.line.item {
        RolloutItem::SessionMeta(meta) => format!(
            "session_meta {} {} {}",
            meta.id,
            meta.originator.as_deref().unwrap_or("-"),
            meta.cli_version.as_deref().unwrap_or("-")
        ),
        RolloutItem::ResponseItem(response) => item(response),
        RolloutItem::Compacted(compacted) => format!(
            "compacted replacement={:?} extra={} message: {}",
            compacted.replacement_history.as_ref().map(Vec::len),
            serde_json::Value::Object(compacted.extra.clone()),
            preview(&compacted.message)
        ),
        RolloutItem::TurnContext(_) => "turn_context".to_string(),
        RolloutItem::EventMsg(EventMsg::TokenCount(event)) => match &event.info {
            Some(info) => format!(
                "token_count last_input={} cached={} output={} total_input={} window={:?}",
                info.last_token_usage.input_tokens,
                info.last_token_usage.cached_input_tokens,
                info.last_token_usage.output_tokens,
                info.total_token_usage.input_tokens,
                info.model_context_window
            ),
            None => "token_count none".to_string(),
        },
        RolloutItem::EventMsg(event) => format!(
            "event_msg/{}",
            serde_json::to_value(event).unwrap()["type"]
                .as_str()
                .unwrap_or("?")
        ),
        RolloutItem::Unknown { kind, .. } => format!("unknown {kind}"),
    };
    format!("L{} {flags} {detail}", record.line_number)
}

pub(crate) fn records(records: &[RolloutRecord]) -> Vec<String> {
    records.iter().map(record).collect()
}
