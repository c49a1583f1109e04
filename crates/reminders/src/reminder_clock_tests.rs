use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;

fn call(name: &str) -> ResponseItem {
    ResponseItem::FunctionCall {
        id: None,
        name: name.to_string(),
        arguments: "{}".to_string(),
        call_id: format!("call_{name}"),
        extra: Default::default(),
    }
}

fn assistant(parts: usize) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "assistant".to_string(),
        content: (0..parts)
            .map(|index| ContentItem::OutputText {
                text: format!("part {index}"),
            })
            .collect(),
        extra: Default::default(),
    }
}

#[test]
fn each_text_block_and_tool_call_is_one_assistant_message_and_reasoning_none() {
    let mut clock = ReminderClock::default();
    let reasoning: ResponseItem = serde_json::from_value(serde_json::json!({
        "type": "reasoning", "summary": [], "encrypted_content": "abc"
    }))
    .unwrap();
    clock.observe(&reasoning);
    clock.observe(&call("read_file"));
    assert_eq!(clock.assistant_messages, 1);
    clock.observe(&assistant(2));
    clock.observe(&ResponseItem::user_text("hello"));
    assert_eq!(clock.assistant_messages, 3);
    assert_eq!(clock.last_todo_write, None);
}

#[test]
fn a_todo_write_marks_the_count_after_its_message() {
    let mut clock = ReminderClock::default();
    clock.observe(&assistant(1));
    clock.observe(&call("TodoWrite"));
    assert_eq!(clock.last_todo_write, Some(2));
    for name in ["todo_write", "update_plan", "TaskCreate", "TaskUpdate"] {
        clock.observe(&call(name));
        assert_eq!(
            clock.last_todo_write,
            Some(clock.assistant_messages),
            "{name}"
        );
    }
    clock.observe(&call("Bash"));
    assert_eq!(clock.last_todo_write, Some(6));
}
