use std::path::PathBuf;

use crate::BackgroundTaskInfo;
use crate::BackgroundTaskStatus;
use crate::BackgroundTaskType;
use crate::ContextTokenUsage;
use crate::InvokedSkill;
use crate::PlanState;
use crate::TodoState;
use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo as RecordedTokenUsage;
use pretty_assertions::assert_eq;

use super::HistoryEvent;
use super::ItemFlags;
use super::ReminderState;

const PLAIN: ItemFlags = ItemFlags {
    injected: false,
    permission_mode: None,
};
const INJECTED: ItemFlags = ItemFlags {
    injected: true,
    permission_mode: None,
};

fn call(name: &str, arguments: &str, call_id: &str) -> ResponseItem {
    ResponseItem::FunctionCall {
        id: None,
        name: name.to_string(),
        arguments: arguments.to_string(),
        call_id: call_id.to_string(),
        extra: Default::default(),
    }
}

fn output(call_id: &str, text: &str) -> ResponseItem {
    ResponseItem::function_call_output(call_id, text)
}

fn failed_output(call_id: &str, text: &str) -> ResponseItem {
    let mut item = output(call_id, text);
    if let ResponseItem::FunctionCallOutput { output, .. } = &mut item {
        output.success = Some(false);
    }
    item
}

/// Feeds `items` to `state` as turn `turn`.
fn turn(state: &mut ReminderState, turn: i32, items: &[ResponseItem]) {
    state.begin_turn(turn);
    for item in items {
        state.observe_item(item, PLAIN);
    }
}

fn todo(content: &str, status: TodoStatus, active_form: &str) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
        active_form: active_form.to_string(),
    }
}

#[test]
fn claude_todo_write_sets_the_list_and_the_turn_of_the_write() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        3,
        &[call(
            "TodoWrite",
            r#"{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"Ship","status":"pending","activeForm":"Shipping"}]}"#,
            "c1",
        )],
    );
    assert_eq!(
        state.todo,
        TodoState {
            items: vec![
                todo("Run tests", TodoStatus::InProgress, "Running tests"),
                todo("Ship", TodoStatus::Pending, "Shipping"),
            ],
            last_write_turn: Some(3),
            ..TodoState::default()
        }
    );
}

#[test]
fn codex_update_plan_sets_the_list_and_the_turn_of_the_write() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        2,
        &[call(
            "update_plan",
            r#"{"explanation":"x","plan":[{"step":"Parse dates","status":"completed"},{"step":"Add tests","status":"in_progress"}]}"#,
            "c1",
        )],
    );
    turn(&mut state, 4, &[]);
    assert_eq!(
        state.todo,
        TodoState {
            items: vec![
                todo("Parse dates", TodoStatus::Completed, "Parse dates"),
                todo("Add tests", TodoStatus::InProgress, "Add tests"),
            ],
            last_write_turn: Some(2),
            ..TodoState::default()
        }
    );
}

#[test]
fn unreadable_todo_arguments_leave_the_list_alone() {
    let mut state = ReminderState::default();
    turn(&mut state, 1, &[call("TodoWrite", r#"{"todos":"#, "c1")]);
    turn(&mut state, 2, &[call("update_plan", r#"{"plan":3}"#, "c2")]);
    assert_eq!(state.todo, TodoState::default());
}

#[test]
fn plan_mode_follows_enter_and_exit_once_their_results_arrive() {
    let mut state = ReminderState::default();
    turn(&mut state, 1, &[call("EnterPlanMode", "{}", "c1")]);
    // No result yet: the call may still be declined.
    assert_eq!(state.permission_mode, PermissionMode::Default);
    state.observe_item(&output("c1", "Entered plan mode."), PLAIN);
    assert_eq!(state.permission_mode, PermissionMode::Plan);
    assert_eq!(state.plan, PlanState::default());

    // A declined ExitPlanMode keeps plan mode on.
    turn(
        &mut state,
        2,
        &[
            call("ExitPlanMode", r#"{"plan":"p"}"#, "c2"),
            failed_output(
                "c2",
                "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            ),
        ],
    );
    assert_eq!(state.permission_mode, PermissionMode::Plan);

    turn(
        &mut state,
        3,
        &[
            call("ExitPlanMode", r#"{"plan":"p"}"#, "c3"),
            output("c3", "User has approved your plan."),
        ],
    );
    assert_eq!(state.permission_mode, PermissionMode::Default);
    assert!(state.plan.just_exited);
    state.reminders_generated();
    assert!(!state.plan.just_exited);

    turn(
        &mut state,
        5,
        &[
            call("EnterPlanMode", "{}", "c4"),
            output("c4", "Entered plan mode."),
        ],
    );
    assert_eq!(state.permission_mode, PermissionMode::Plan);
    assert!(state.plan.is_reentry);
}

#[test]
fn background_shells_are_started_finished_and_killed() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        1,
        &[
            call(
                "Bash",
                r#"{"command":"cargo test","description":"Run tests","run_in_background":true}"#,
                "c1",
            ),
            output("c1", "Command running in background with ID: 3f1a9c"),
            call("Bash", r#"{"command":"ls"}"#, "c2"),
            output("c2", "src"),
            call(
                "Bash",
                r#"{"command":"npm run dev","run_in_background":true}"#,
                "c3",
            ),
            output("c3", "Command running in background with ID: 8b2e4d"),
        ],
    );
    turn(
        &mut state,
        2,
        &[
            call("BashOutput", r#"{"bash_id":"3f1a9c"}"#, "c4"),
            output(
                "c4",
                "<status>failed</status>\n\n<exit_code>101</exit_code>\n\n<stdout>\nboom\n</stdout>",
            ),
            call("KillShell", r#"{"shell_id":"8b2e4d"}"#, "c5"),
            output("c5", "Successfully killed shell: 8b2e4d (npm run dev)"),
            // A shell the history never started is ignored.
            call("KillShell", r#"{"shell_id":"nope"}"#, "c6"),
            output("c6", "Successfully killed shell: nope"),
        ],
    );
    let shell = |task_id: &str, command: &str, description: &str| BackgroundTaskInfo {
        task_id: task_id.to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some(command.to_string()),
        description: description.to_string(),
        status: BackgroundTaskStatus::Running,
        exit_code: None,
        output_len: 0,
        delta_summary: None,
        progress_message: None,
    };
    assert_eq!(
        state.background_tasks,
        vec![
            BackgroundTaskInfo {
                status: BackgroundTaskStatus::Failed,
                exit_code: Some(101),
                ..shell("3f1a9c", "cargo test", "Run tests")
            },
            BackgroundTaskInfo {
                status: BackgroundTaskStatus::Killed,
                ..shell("8b2e4d", "npm run dev", "npm run dev")
            },
        ]
    );
}

#[test]
fn a_background_shell_without_a_recognisable_id_is_named_by_its_call() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        1,
        &[
            call(
                "Bash",
                r#"{"command":"sleep 9","run_in_background":true}"#,
                "toolu_1",
            ),
            output("toolu_1", "started"),
        ],
    );
    assert_eq!(
        state
            .background_tasks
            .iter()
            .map(|task| task.task_id.as_str())
            .collect::<Vec<_>>(),
        vec!["toolu_1"]
    );
}

#[test]
fn skills_come_from_skill_calls_and_custom_slash_commands() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        1,
        &[
            call("Skill", r#"{"skill":"release-notes"}"#, "c1"),
            output("c1", "Launching skill: release-notes"),
        ],
    );
    state.observe_item(
        &ResponseItem::user_text(
            "Base directory for this skill: /home/dev/.claude/skills/release-notes\n\nGroup changes.",
        ),
        INJECTED,
    );
    // A builtin command answers with local output: not a skill.
    turn(
        &mut state,
        2,
        &[
            ResponseItem::user_text("<command-name>/model</command-name>"),
            ResponseItem::user_text("<local-command-stdout>Set model</local-command-stdout>"),
        ],
    );
    // A custom command is followed by its expanded prompt.
    turn(
        &mut state,
        3,
        &[ResponseItem::user_text(
            "<command-message>review is running…</command-message>\n<command-name>/review</command-name>",
        )],
    );
    state.observe_item(&ResponseItem::user_text("Review the diff."), INJECTED);
    // A failed Skill call invokes nothing.
    turn(
        &mut state,
        4,
        &[
            call("Skill", r#"{"skill":"missing"}"#, "c2"),
            failed_output("c2", "Unknown skill: missing"),
        ],
    );
    assert_eq!(
        state.invoked_skills,
        vec![
            InvokedSkill {
                name: "release-notes".to_string(),
                path: PathBuf::from("/home/dev/.claude/skills/release-notes/SKILL.md"),
                content: "Base directory for this skill: /home/dev/.claude/skills/release-notes\n\nGroup changes.".to_string(),
            },
            InvokedSkill {
                name: "review".to_string(),
                path: PathBuf::from("/review"),
                content: "Review the diff.".to_string(),
            },
        ]
    );
}

#[test]
fn token_usage_uses_the_recorded_window_or_the_assumed_one() {
    let usage = |total_tokens: i64, window: Option<i64>| RecordedTokenUsage {
        total_token_usage: TokenUsage::default(),
        last_token_usage: TokenUsage {
            input_tokens: total_tokens - 100,
            output_tokens: 100,
            total_tokens,
            ..TokenUsage::default()
        },
        model_context_window: window,
        extra: Default::default(),
    };
    let mut state = ReminderState::default();
    state.token_count(&usage(5_000, None));
    assert_eq!(state.token_usage, None);
    state.token_count(&usage(5_000, Some(272_000)));
    assert_eq!(
        state.token_usage,
        Some(ContextTokenUsage {
            used: 5_000,
            total: 272_000,
            remaining: 267_000,
        })
    );
    state.set_default_context_window(Some(200_000));
    state.token_count(&usage(250_000, None));
    assert_eq!(
        state.token_usage,
        Some(ContextTokenUsage {
            used: 250_000,
            total: 200_000,
            remaining: 0,
        })
    );
}

/// Feeds a user message written in permission mode `mode` to `state` as turn `turn`.
fn user_turn_in_mode(state: &mut ReminderState, turn: i32, mode: Option<PermissionMode>) {
    state.begin_turn(turn);
    let flags = ItemFlags {
        permission_mode: mode,
        ..PLAIN
    };
    state.observe_item(&ResponseItem::user_text("next step"), flags);
}

#[test]
fn plan_mode_follows_the_permission_mode_recorded_on_user_messages() {
    let mut state = ReminderState::default();
    // Shift+tab into plan mode leaves no tool call, only the mode on the next user record.
    user_turn_in_mode(&mut state, 1, Some(PermissionMode::Plan));
    assert_eq!(state.permission_mode, PermissionMode::Plan);
    assert!(!state.plan.is_reentry);

    user_turn_in_mode(&mut state, 2, Some(PermissionMode::AcceptEdits));
    assert_eq!(state.permission_mode, PermissionMode::AcceptEdits);
    assert!(state.plan.just_exited);

    user_turn_in_mode(&mut state, 3, Some(PermissionMode::Plan));
    assert_eq!(state.permission_mode, PermissionMode::Plan);
    assert!(state.plan.is_reentry);

    // A record without a (known) mode changes nothing.
    user_turn_in_mode(&mut state, 4, None);
    assert_eq!(state.permission_mode, PermissionMode::Plan);
}

#[test]
fn from_history_gives_the_state_a_resuming_core_puts_into_its_next_turn() {
    let usage = RecordedTokenUsage {
        total_token_usage: TokenUsage::default(),
        last_token_usage: TokenUsage {
            input_tokens: 50_000,
            ..TokenUsage::default()
        },
        model_context_window: Some(200_000),
        extra: Default::default(),
    };
    let todo_write = call(
        "TodoWrite",
        r#"{"todos":[{"content":"Ship","status":"pending","activeForm":"Shipping"}]}"#,
        "c1",
    );
    let enter = call("EnterPlanMode", "{}", "c2");
    let entered = output("c2", "Entered plan mode.");
    let failing = call("Bash", r#"{"command":"cargo test"}"#, "c3");
    let failed = failed_output("c3", "exit code 101");
    let history = [
        HistoryEvent::TurnStarted(1),
        HistoryEvent::Item(&todo_write, PLAIN),
        HistoryEvent::TurnStarted(2),
        HistoryEvent::Item(&enter, PLAIN),
        HistoryEvent::Item(&entered, PLAIN),
        HistoryEvent::Item(&failing, PLAIN),
        HistoryEvent::Item(&failed, PLAIN),
        HistoryEvent::TokenCount(&usage),
        HistoryEvent::TurnStarted(3),
    ];
    let state = ReminderState::from_history(history);

    let mut ctx = crate::GeneratorContext::new("/work/project");
    ctx.todo.tool_available = false;
    state.apply_to(&mut ctx);
    assert_eq!(ctx.permission_mode, PermissionMode::Plan);
    assert_eq!(ctx.todo.last_write_turn, Some(1));
    assert_eq!(ctx.todo.items.len(), 1);
    assert!(!ctx.todo.tool_available, "the host's to set");
    assert_eq!(
        ctx.token_usage,
        Some(ContextTokenUsage {
            used: 50_000,
            total: 200_000,
            remaining: 150_000,
        })
    );
    // Turn 3 sees the tool calls of turn 2.
    assert_eq!(
        ctx.last_tool_results,
        vec![
            crate::ToolResultInfo {
                tool_name: "EnterPlanMode".to_string(),
                call_id: "c2".to_string(),
                success: true,
                duration_ms: 0,
            },
            crate::ToolResultInfo {
                tool_name: "Bash".to_string(),
                call_id: "c3".to_string(),
                success: false,
                duration_ms: 0,
            },
        ]
    );
}

#[test]
fn the_last_tool_results_are_those_of_the_turn_before_only() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        1,
        &[
            call("Read", "{}", "c1"),
            failed_output("c1", "no such file"),
        ],
    );
    turn(&mut state, 2, &[]);
    assert_eq!(state.last_tool_results.len(), 1);
    turn(&mut state, 3, &[]);
    assert_eq!(state.last_tool_results, Vec::new());
}

#[test]
fn agentctx_tool_names_set_todos_and_plan_mode() {
    let mut state = ReminderState::default();
    turn(
        &mut state,
        2,
        &[
            call(
                "todo_write",
                r#"{"todos":[{"content":"Ship","status":"pending","activeForm":"Shipping"}]}"#,
                "c1",
            ),
            call("enter_plan_mode", "{}", "c2"),
            output("c2", "Entered plan mode."),
        ],
    );
    assert_eq!(
        state.todo.items,
        vec![todo("Ship", TodoStatus::Pending, "Shipping")]
    );
    assert_eq!(state.todo.last_write_turn, Some(2));
    assert_eq!(state.permission_mode, PermissionMode::Plan);

    // agentctx words a refusal so the rejection check recognises it.
    turn(
        &mut state,
        3,
        &[
            call("exit_plan_mode", "{}", "c3"),
            output("c3", "The user rejected the plan. Stay in plan mode."),
        ],
    );
    assert_eq!(state.permission_mode, PermissionMode::Plan);
    turn(
        &mut state,
        4,
        &[
            call("exit_plan_mode", "{}", "c4"),
            output("c4", "The user approved the plan."),
        ],
    );
    assert_eq!(state.permission_mode, PermissionMode::Default);
}
