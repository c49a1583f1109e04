use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;
use crate::types::AttachmentType;

fn texts(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .map(|item| {
            format!(
                "{}:{}",
                item.role().unwrap_or("-"),
                item.message_text().unwrap_or_default()
            )
        })
        .collect()
}

fn reminders() -> Vec<SystemReminder> {
    vec![
        SystemReminder::new(AttachmentType::ChangedFiles, "changed"),
        SystemReminder::new(AttachmentType::TodoReminder, "todo"),
    ]
}

fn initial_history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text("permissions"),
        ResponseItem::user_text("<user_instructions>\nbe nice\n</user_instructions>"),
        ResponseItem::user_text("<environment_context>\n<cwd>/p</cwd>\n</environment_context>"),
        ResponseItem::user_text("fix the bug"),
    ]
}

#[test]
fn reminders_injected_after_environment_context() {
    let mut history = initial_history();
    let position = inject_system_reminders(
        &mut history,
        &reminders(),
        ReminderPlacement::AfterEnvironmentContext,
    );
    assert_eq!(position, 3);
    assert_eq!(
        texts(&history),
        vec![
            "developer:permissions",
            "user:<user_instructions>\nbe nice\n</user_instructions>",
            "user:<environment_context>\n<cwd>/p</cwd>\n</environment_context>",
            "user:<system-reminder>\nchanged\n</system-reminder>",
            "user:<system-reminder>\ntodo\n</system-reminder>",
            "user:fix the bug",
        ]
    );
}

#[test]
fn after_environment_context_keeps_order_with_earlier_reminders() {
    let mut history = initial_history();
    inject_system_reminders(
        &mut history,
        &reminders()[..1],
        ReminderPlacement::AfterEnvironmentContext,
    );
    inject_system_reminders(
        &mut history,
        &reminders()[1..],
        ReminderPlacement::AfterEnvironmentContext,
    );
    assert_eq!(
        texts(&history)[3..5],
        [
            "user:<system-reminder>\nchanged\n</system-reminder>",
            "user:<system-reminder>\ntodo\n</system-reminder>",
        ]
    );
}

#[test]
fn without_environment_context_reminders_follow_developer_messages() {
    let mut history = vec![
        ResponseItem::developer_text("permissions"),
        ResponseItem::user_text("hi"),
    ];
    let position = inject_system_reminders(
        &mut history,
        &reminders()[..1],
        ReminderPlacement::AfterEnvironmentContext,
    );
    assert_eq!(position, 1);
    assert_eq!(history.len(), 3);
}

#[test]
fn user_instructions_in_the_newer_agents_md_form_are_an_anchor() {
    let history = vec![ResponseItem::user_text(
        "# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>",
    )];
    assert_eq!(after_environment_context_position(&history), 1);
}

#[test]
fn tail_appends_after_the_newest_user_input() {
    let mut history = initial_history();
    let position = inject_system_reminders(&mut history, &reminders(), ReminderPlacement::Tail);
    assert_eq!(position, 4);
    assert_eq!(
        texts(&history)[3..],
        [
            "user:fix the bug",
            "user:<system-reminder>\nchanged\n</system-reminder>",
            "user:<system-reminder>\ntodo\n</system-reminder>",
        ]
    );
}

#[test]
fn no_reminders_leaves_history_untouched() {
    let mut history = initial_history();
    inject_system_reminders(
        &mut history,
        &[],
        ReminderPlacement::AfterEnvironmentContext,
    );
    assert_eq!(history, initial_history());
}

#[test]
fn filter_and_remove_drop_every_kind_of_reminder() {
    let mut history = initial_history();
    history.push(ResponseItem::user_text(
        "<system-notification>done</system-notification>",
    ));
    history.push(ResponseItem::user_text(
        "<teammate-message teammate_id=\"a\">hi</teammate-message>",
    ));
    history.push(ResponseItem::user_text(
        "<session-memory>\nx\n</session-memory>",
    ));
    history.push(ResponseItem::user_text(
        "<new-diagnostics>x</new-diagnostics>",
    ));
    history.push(ResponseItem::assistant_text(
        "<system-reminder>\nquoted\n</system-reminder>",
    ));
    let filtered = filter_system_reminders(&history);
    let mut expected = initial_history();
    expected.push(ResponseItem::assistant_text(
        "<system-reminder>\nquoted\n</system-reminder>",
    ));
    assert_eq!(filtered, expected);
    assert_eq!(remove_system_reminders(&mut history), 4);
    assert_eq!(history, expected);
}

#[test]
fn environment_context_and_user_instructions_are_recognised() {
    let history = initial_history();
    assert!(is_user_instructions(&history[1]));
    assert!(is_environment_context(&history[2]));
    assert!(!is_environment_context(&history[3]));
    assert!(!is_reminder_item(&history[3]));
}
