//! The `tool_result` reminder through the orchestrator: failed tool calls of the last turn are
//! named once, on the turn after they ran.

use agentctx_reminders::GeneratorContext;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::ToolResultInfo;
use pretty_assertions::assert_eq;

fn result(tool_name: &str, call_id: &str, success: bool, duration_ms: i64) -> ToolResultInfo {
    ToolResultInfo {
        tool_name: tool_name.to_string(),
        call_id: call_id.to_string(),
        success,
        duration_ms,
    }
}

#[tokio::test]
async fn failed_tool_calls_of_the_last_turn_are_named_on_the_next_turn() {
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.turn_number = 3;
    ctx.last_tool_results = vec![
        result("Read", "call_1", true, 12),
        result("Bash", "call_2", false, 61_500),
        result("Edit", "call_3", false, 40),
    ];
    let texts: Vec<String> = orchestrator
        .generate_all(&ctx)
        .await
        .iter()
        .map(|reminder| format!("{}: {}", reminder.attachment_type, reminder.wrap_xml()))
        .collect();
    assert!(
        texts.iter().any(|text| text.starts_with("tool_result: ")),
        "{texts:#?}"
    );
    insta::assert_snapshot!(texts.join("\n---\n"));

    // Tool calls that all succeeded are not worth a reminder: their output says so.
    ctx.turn_number = 4;
    ctx.last_tool_results = vec![result("Read", "call_4", true, 5)];
    assert_eq!(orchestrator.generate_all(&ctx).await, Vec::new());
}
