use pretty_assertions::assert_eq;

use super::*;

fn result(tool_name: &str, call_id: &str, success: bool, duration_ms: i64) -> ToolResultInfo {
    ToolResultInfo {
        tool_name: tool_name.to_string(),
        call_id: call_id.to_string(),
        success,
        duration_ms,
    }
}

#[test]
fn names_the_failed_calls_with_their_duration_when_known() {
    let text = render_tool_results(&[
        result("Read", "call_1", true, 12),
        result("Bash", "call_2", false, 61_500),
        result("Write", "call_3", false, 0),
    ])
    .unwrap();
    insta::assert_snapshot!("tool_result", text);
}

#[tokio::test]
async fn the_same_results_are_reported_once_until_reset() {
    let generator = ToolResultGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.last_tool_results = vec![result("Bash", "call_2", false, 900)];
    assert!(generator.generate(&ctx).await.unwrap().is_some());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    generator.reset();
    assert!(generator.generate(&ctx).await.unwrap().is_some());
    ctx.last_tool_results.clear();
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}

#[test]
fn one_call_or_all_calls_failing_are_said_plainly() {
    let one = render_tool_results(&[result("Bash", "call_1", false, 0)]).unwrap();
    assert!(one.starts_with("The tool call of your last turn failed:\n- Bash (call_1)\n"));
    let all = render_tool_results(&[
        result("Bash", "call_1", false, 0),
        result("Edit", "call_2", false, 0),
    ])
    .unwrap();
    assert!(all.starts_with("All 2 tool calls of your last turn failed:\n"));
    assert_eq!(
        render_tool_results(&[result("Read", "call_3", true, 9)]),
        None
    );
}
