use pretty_assertions::assert_eq;

use super::*;

fn ctx(request: i32, user_turn: i32) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.turn_number = request;
    ctx.user_turns = user_turn;
    ctx.todo_restate_after_requests = 30;
    ctx
}

fn todo(text: &str) -> SystemReminder {
    SystemReminder::new(AttachmentType::TodoReminder, text)
}

#[test]
fn a_held_back_repeat_does_not_restart_the_restate_span() {
    let standing = StandingReminders::default();
    assert!(standing.admit(&todo("list"), &ctx(1, 1)));
    // Held back at 2..=30: the span still counts from request 1, when the model saw it.
    for request in 2..=30 {
        assert!(
            !standing.admit(&todo("list"), &ctx(request, 1)),
            "{request}"
        );
    }
    assert!(standing.admit(&todo("list"), &ctx(31, 1)));
    assert!(!standing.admit(&todo("list"), &ctx(32, 1)));
}

#[test]
fn each_type_is_remembered_apart() {
    let standing = StandingReminders::default();
    let style = SystemReminder::new(AttachmentType::OutputStyle, "list");
    assert!(standing.admit(&todo("list"), &ctx(1, 1)));
    assert!(standing.admit(&style, &ctx(1, 1)));
    assert!(!standing.admit(&style, &ctx(2, 1)));
    standing.forget();
    assert!(standing.admit(&todo("list"), &ctx(3, 1)));
    assert!(standing.admit(&style, &ctx(3, 1)));
}

#[test]
fn a_restate_span_of_zero_or_less_never_holds_back() {
    let standing = StandingReminders::default();
    let mut at = ctx(1, 1);
    at.todo_restate_after_requests = 0;
    assert!(standing.admit(&todo("list"), &at));
    assert!(standing.admit(&todo("list"), &at));
}

#[test]
fn the_standing_types_are_the_ones_that_restate_state() {
    let standing = AttachmentType::ALL
        .iter()
        .filter(|attachment_type| attachment_type.is_standing())
        .map(|attachment_type| attachment_type.as_str())
        .collect::<Vec<_>>();
    assert_eq!(
        standing,
        [
            "plan_mode",
            "delegate_mode",
            "todo_reminder",
            "critical_instruction",
            "invoked_skills",
            "plan_file_reference",
            "output_style",
            "task_progress",
            "session_memory",
            "ultramemory",
            "token_usage",
            "budget_usd",
        ]
    );
}
