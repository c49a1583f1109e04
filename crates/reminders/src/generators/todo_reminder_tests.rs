use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;

use super::*;

fn item(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
        active_form: String::new(),
    }
}

fn ctx_at(turn: i32, last_write: Option<i32>, items: Vec<TodoItem>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.turn_number = turn;
    ctx.todo = TodoState {
        items,
        last_write_turn: last_write,
        ..TodoState::default()
    };
    ctx
}

#[tokio::test]
async fn todo_reminder_content_matches_claude_code_format() {
    let ctx = ctx_at(
        9,
        Some(2),
        vec![
            item("Write the parser", TodoStatus::Completed),
            item("Test the parser", TodoStatus::InProgress),
            item("Document it", TodoStatus::Pending),
        ],
    );
    let reminder = TodoReminderGenerator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.attachment_type, AttachmentType::TodoReminder);
    assert!(reminder.is_meta());
    insta::assert_snapshot!("todo_reminder_with_items", reminder.wrap_xml());
}

#[tokio::test]
async fn todo_reminder_for_an_empty_list_has_no_list() {
    let ctx = ctx_at(6, None, Vec::new());
    let reminder = TodoReminderGenerator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.content, TODO_REMINDER_TEXT);
    insta::assert_snapshot!("todo_reminder_empty_list", reminder.wrap_xml());
}

#[tokio::test]
async fn todo_reminder_needs_5_turns_since_todo_write() {
    let generator = TodoReminderGenerator;
    let items = vec![item("Run the tests", TodoStatus::Pending)];
    for turn in 4..=8 {
        let ctx = ctx_at(turn, Some(3), items.clone());
        let fired = generator.generate(&ctx).await.unwrap().is_some();
        assert_eq!(fired, turn >= 8, "turn {turn}, last TodoWrite on turn 3");
        assert_eq!(generator.trigger_turn(&ctx), Some(3));
    }
}

#[tokio::test]
async fn todo_reminder_never_fires_on_the_turn_after_a_todo_write() {
    let ctx = ctx_at(
        12,
        Some(11),
        vec![item("Run the tests", TodoStatus::Pending)],
    );
    assert_eq!(TodoReminderGenerator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn todo_reminder_never_fires_when_every_item_is_done() {
    let ctx = ctx_at(
        40,
        Some(2),
        vec![
            item("Write the parser", TodoStatus::Completed),
            item("Test the parser", TodoStatus::Completed),
        ],
    );
    assert_eq!(TodoReminderGenerator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn todo_reminder_never_fires_for_an_agent_without_the_todo_tool() {
    let mut ctx = ctx_at(
        40,
        Some(2),
        vec![item("Test the parser", TodoStatus::Pending)],
    );
    assert!(
        TodoReminderGenerator
            .generate(&ctx)
            .await
            .unwrap()
            .is_some()
    );
    ctx.todo.tool_available = false;
    assert_eq!(TodoReminderGenerator.generate(&ctx).await.unwrap(), None);
}

#[test]
fn never_used_todo_write_counts_from_the_session_start() {
    let ctx = ctx_at(3, None, Vec::new());
    assert_eq!(TodoReminderGenerator.trigger_turn(&ctx), Some(0));
}
