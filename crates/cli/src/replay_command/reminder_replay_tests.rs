use std::collections::BTreeMap;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo as RecordedTokenUsage;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::RecordFlags;
use agentctx_rollout::RequestStart;
use pretty_assertions::assert_eq;

use super::ReminderReplay;

fn call(name: &str, arguments: &str, call_id: &str) -> ResponseItem {
    ResponseItem::FunctionCall {
        id: None,
        name: name.to_string(),
        arguments: arguments.to_string(),
        call_id: call_id.to_string(),
        extra: Default::default(),
    }
}

fn meta(cwd: &str) -> SessionMetaLine {
    SessionMetaLine {
        id: "s".to_string(),
        cwd: Some(cwd.to_string()),
        originator: Some(CLAUDE_CODE_ORIGINATOR.to_string()),
        ..SessionMetaLine::default()
    }
}

/// A one-request turn: starts it with `prompt` and runs the engine before its request, which
/// carries the user input; `number` is the request's number in the session.
fn evaluate(
    replay: &mut ReminderReplay,
    number: usize,
    prompt: Option<String>,
    is_main_agent: bool,
) -> Vec<super::FiredReminder> {
    replay.start_turn(prompt);
    let start = RequestStart {
        request: number,
        request_in_turn: 1,
        has_user_input: true,
    };
    replay.before_request(start, is_main_agent)
}

/// Starts turn `turn` with `prompt` (its user message, then the engine before its one request),
/// then reads `items`; the labels of the turn's reminders.
fn turn(
    replay: &mut ReminderReplay,
    turn: usize,
    prompt: &str,
    items: &[ResponseItem],
) -> Vec<String> {
    replay.observe_item(&ResponseItem::user_text(prompt), RecordFlags::default());
    let fired = evaluate(replay, turn, Some(prompt.to_string()), true);
    for item in items {
        replay.observe_item(item, RecordFlags::default());
    }
    fired.iter().map(super::FiredReminder::label).collect()
}

fn replay_in(cwd: &str) -> ReminderReplay {
    let mut replay = ReminderReplay::new(SystemReminderConfig::default()).unwrap();
    replay.session_meta(&meta(cwd));
    replay
}

const NO_SUCH_DIR: &str = "/nonexistent/agentctx-replay-test/project";

#[test]
fn the_todo_reminder_waits_five_turns_after_a_write_then_three_between() {
    let mut replay = replay_in(NO_SUCH_DIR);
    let todo_write = call(
        "TodoWrite",
        r#"{"todos":[{"content":"Ship","status":"in_progress","activeForm":"Shipping"}]}"#,
        "c1",
    );
    let mut fired = Vec::new();
    for number in 1..=12 {
        let items = if number == 2 {
            vec![todo_write.clone()]
        } else {
            Vec::new()
        };
        fired.push(turn(&mut replay, number, "go on", &items));
    }
    let todo_turns: Vec<usize> = fired
        .iter()
        .enumerate()
        .filter(|(_, labels)| labels.iter().any(|label| label == "todo_reminder"))
        .map(|(index, _)| index + 1)
        .collect();
    // Written on turn 2: not on turn 3 (right after), first on 7, then every third turn.
    assert_eq!(todo_turns, vec![7, 10]);
    assert_eq!(
        replay.counts(),
        BTreeMap::from([("todo_reminder".to_string(), 2)])
    );
}

#[test]
fn a_completed_todo_list_is_not_reminded() {
    let mut replay = replay_in(NO_SUCH_DIR);
    turn(
        &mut replay,
        1,
        "plan",
        &[call(
            "update_plan",
            r#"{"plan":[{"step":"Ship","status":"completed"}]}"#,
            "c1",
        )],
    );
    for number in 2..=9 {
        assert_eq!(turn(&mut replay, number, "more", &[]), Vec::<String>::new());
    }
}

#[test]
fn plan_mode_is_full_then_sparse_and_full_again_after_compaction() {
    let mut replay = replay_in(NO_SUCH_DIR);
    turn(
        &mut replay,
        1,
        "plan it",
        &[
            call("EnterPlanMode", "{}", "c1"),
            ResponseItem::function_call_output("c1", "Entered plan mode."),
            // Keep the todo reminder quiet.
            call("TodoWrite", r#"{"todos":[]}"#, "c2"),
        ],
    );
    let labels: Vec<Vec<String>> = (2..=8)
        .map(|number| turn(&mut replay, number, "continue", &[]))
        .collect();
    assert_eq!(labels[0], vec!["plan_mode:full"]);
    assert_eq!(labels[4], vec!["todo_reminder"]);
    assert_eq!(labels[5], vec!["plan_mode:sparse"]);
    // Compaction clears the throttle: both fire at once, plan mode in full.
    replay.compacted();
    let after = turn(&mut replay, 9, "continue", &[]);
    assert_eq!(after, vec!["plan_mode:full", "todo_reminder"]);
    let texts = evaluate(&mut replay, 15, None, true);
    assert_eq!(
        texts
            .iter()
            .map(|reminder| (reminder.attachment_type, reminder.tier))
            .collect::<Vec<_>>(),
        vec![
            (AttachmentType::PlanMode, ReminderTier::Core),
            (AttachmentType::TodoReminder, ReminderTier::Core),
        ]
    );
    assert!(
        texts[0]
            .text
            .starts_with("<system-reminder>\nPlan mode still active"),
        "{}",
        texts[0].text
    );
}

#[test]
fn leaving_plan_mode_is_announced_once() {
    let mut replay = replay_in(NO_SUCH_DIR);
    turn(
        &mut replay,
        1,
        "plan",
        &[
            call("EnterPlanMode", "{}", "c1"),
            ResponseItem::function_call_output("c1", "Entered plan mode."),
        ],
    );
    assert_eq!(
        turn(
            &mut replay,
            2,
            "approve",
            &[
                call("ExitPlanMode", r#"{"plan":"p"}"#, "c2"),
                ResponseItem::function_call_output("c2", "User has approved your plan."),
            ]
        ),
        vec!["plan_mode:full"]
    );
    assert_eq!(turn(&mut replay, 3, "go", &[]), vec!["plan_mode_exit"]);
    assert_eq!(turn(&mut replay, 4, "go", &[]), Vec::<String>::new());
}

#[test]
fn background_shells_are_reported_when_their_status_changes() {
    let mut replay = replay_in(NO_SUCH_DIR);
    turn(
        &mut replay,
        1,
        "test in the background",
        &[
            call(
                "Bash",
                r#"{"command":"cargo test","description":"Run tests","run_in_background":true}"#,
                "c1",
            ),
            ResponseItem::function_call_output(
                "c1",
                "Command running in background with ID: 3f1a9c",
            ),
        ],
    );
    // Still running: nothing new to report.
    assert_eq!(
        turn(
            &mut replay,
            2,
            "how is it going?",
            &[
                call("BashOutput", r#"{"bash_id":"3f1a9c"}"#, "c2"),
                ResponseItem::function_call_output(
                    "c2",
                    "<status>completed</status>\n<exit_code>0</exit_code>",
                ),
            ]
        ),
        Vec::<String>::new()
    );
    let fired = evaluate(&mut replay, 3, Some("next".to_string()), true);
    assert_eq!(
        fired
            .iter()
            .map(|reminder| reminder.text.as_str())
            .collect::<Vec<_>>(),
        vec![
            "<system-reminder>\nBackground Bash 3f1a9c (command: cargo test) (status: completed) (exit code: 0)\n\n</system-reminder>"
        ]
    );
    // A sub-agent turn sees no main-agent reminders.
    assert!(evaluate(&mut replay, 4, None, false).is_empty());
}

#[test]
fn invoked_skills_are_reported_after_the_invocation_and_again_after_compaction() {
    let mut replay = replay_in(NO_SUCH_DIR);
    assert_eq!(
        turn(
            &mut replay,
            1,
            "use the skill",
            &[
                call("Skill", r#"{"skill":"release-notes"}"#, "c1"),
                ResponseItem::function_call_output("c1", "Launching skill: release-notes"),
            ]
        ),
        Vec::<String>::new()
    );
    assert_eq!(turn(&mut replay, 2, "go", &[]), vec!["invoked_skills"]);
    assert_eq!(turn(&mut replay, 3, "go", &[]), Vec::<String>::new());
    replay.compacted();
    assert_eq!(turn(&mut replay, 4, "go", &[]), vec!["invoked_skills"]);
}

#[test]
fn token_usage_fires_only_when_the_config_enables_it() {
    let usage = RecordedTokenUsage {
        total_token_usage: TokenUsage::default(),
        last_token_usage: TokenUsage {
            input_tokens: 30_000,
            output_tokens: 500,
            ..TokenUsage::default()
        },
        model_context_window: None,
        extra: Default::default(),
    };
    let mut silent = replay_in(NO_SUCH_DIR);
    silent.token_count(&usage);
    assert!(evaluate(&mut silent, 1, None, true).is_empty());

    let config = SystemReminderConfig {
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    };
    let mut replay = ReminderReplay::new(config).unwrap();
    replay.session_meta(&meta(NO_SUCH_DIR));
    replay.token_count(&usage);
    let fired = evaluate(&mut replay, 1, None, true);
    assert_eq!(
        fired
            .iter()
            .map(|reminder| reminder.text.as_str())
            .collect::<Vec<_>>(),
        vec!["<system-reminder>\nToken usage: 30500/200000; 169500 remaining\n</system-reminder>"]
    );
}

#[test]
fn at_mentions_are_read_only_from_a_working_directory_that_exists() {
    let mut missing = replay_in(NO_SUCH_DIR);
    assert_eq!(
        turn(&mut missing, 1, "look at @notes.md", &[]),
        Vec::<String>::new()
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "remember the milk\n").unwrap();
    let mut replay = replay_in(dir.path().to_str().unwrap());
    let fired = evaluate(&mut replay, 1, Some("look at @notes.md".to_string()), true);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].attachment_type, AttachmentType::AtMentionedFiles);
    assert!(
        fired[0].text.contains("remember the milk"),
        "{}",
        fired[0].text
    );
}

#[test]
fn the_master_switch_turns_every_reminder_off() {
    let config = SystemReminderConfig {
        enabled: false,
        ..SystemReminderConfig::default()
    };
    let mut replay = ReminderReplay::new(config).unwrap();
    replay.session_meta(&meta(NO_SUCH_DIR));
    for number in 1..=8 {
        assert!(evaluate(&mut replay, number, None, true).is_empty());
    }
    assert_eq!(replay.counts(), BTreeMap::new());
}
