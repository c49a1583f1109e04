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

/// A context after `messages` assistant messages (the todo reminder's clock), the last todo
/// write after message `last_write`.
fn ctx_at(messages: i32, last_write: Option<i32>, items: Vec<TodoItem>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.assistant_messages = messages;
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
        14,
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
    let ctx = ctx_at(10, None, Vec::new());
    let reminder = TodoReminderGenerator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.content, TODO_REMINDER_TEXT);
    insta::assert_snapshot!("todo_reminder_empty_list", reminder.wrap_xml());
}

#[tokio::test]
async fn todo_reminder_needs_10_assistant_messages_since_todo_write() {
    let items = vec![item("Run the tests", TodoStatus::Pending)];
    for messages in 4..=13 {
        let generator = TodoReminderGenerator;
        let ctx = ctx_at(messages, Some(3), items.clone());
        let fired = generator.generate(&ctx).await.unwrap().is_some();
        assert_eq!(
            fired,
            messages >= 13,
            "{messages} messages, TodoWrite after message 3"
        );
        assert_eq!(generator.trigger_turn(&ctx), Some(3));
        assert_eq!(generator.throttle_clock(&ctx), messages);
    }
}

#[tokio::test]
async fn an_unchanged_list_is_not_repeated_within_a_user_turn_until_the_restate_span() {
    // The orchestrator's within-turn rule of standing reminders, on the todo reminder alone.
    // Ten assistant messages per request keep the throttle out of the way.
    let orchestrator = crate::SystemReminderOrchestrator::with_generators(
        crate::SystemReminderConfig::default(),
        vec![std::sync::Arc::new(TodoReminderGenerator)],
    );
    let items = vec![item("Run the tests", TodoStatus::Pending)];
    let at = |request: i32, user_turn: i32, items: Vec<TodoItem>| {
        let mut ctx = ctx_at(request * 10 + 20, Some(1), items);
        ctx.turn_number = request;
        ctx.user_turns = user_turn;
        ctx.todo_restate_after_requests = 30;
        ctx
    };
    let fired = |ctx: GeneratorContext| {
        let orchestrator = &orchestrator;
        async move { !orchestrator.generate_all(&ctx).await.is_empty() }
    };
    assert!(fired(at(5, 1, items.clone())).await);
    // The same text in the same user turn: held back until 30 requests went by.
    assert!(!fired(at(15, 1, items.clone())).await);
    assert!(!fired(at(34, 1, items.clone())).await);
    assert!(fired(at(35, 1, items.clone())).await);
    // A changed list is news at once.
    let changed = vec![item("Run the tests", TodoStatus::InProgress)];
    assert!(fired(at(36, 1, changed.clone())).await);
    // A new user turn may show the same list again.
    assert!(fired(at(37, 2, changed.clone())).await);
    // After a compaction the copy the model saw is gone.
    assert!(!fired(at(38, 2, changed.clone())).await);
    orchestrator.reset(&at(38, 2, changed.clone()));
    assert!(fired(at(39, 2, changed)).await);
}

#[tokio::test]
async fn todo_reminder_never_fires_on_the_turn_after_a_todo_write() {
    let ctx = ctx_at(
        20,
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
