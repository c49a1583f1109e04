//! Every hook event the session has, fired by a live session on a scripted model: a `command`
//! hook on each event appends the JSON it reads on stdin to a log, and the JSON of each event
//! is pinned (Claude Code's hooks reference, each event's "input",
//! <https://code.claude.com/docs/en/hooks>).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use agentctx_core::ApprovalDecision;
use agentctx_core::ApprovalPolicy;
use agentctx_core::FixedApprover;
use agentctx_core::HookCommand;
use agentctx_core::HookMatcher;
use agentctx_core::Session;
use agentctx_core::SessionEndReason;
use agentctx_model::ModelError;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::Dirs;
use super::support::dirs;
use super::support::options;
use super::support::skill;

/// Every event of the reference with a counterpart in the session.
const EVENTS: [&str; 19] = [
    "SessionStart",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
];

/// A hook appending its stdin, one JSON a line, to `log` (under a lock: the hooks of parallel
/// tool calls run at once).
pub(crate) fn capture(log: &Path) -> HookMatcher {
    let log = log.display();
    HookMatcher {
        matcher: None,
        hooks: vec![HookCommand::shell(format!(
            r#"input=$(cat); ( flock 9; printf '%s\n' "$input" >> '{log}' ) 9> '{log}.lock'"#
        ))],
    }
}

/// The inputs the log holds, with the run's paths and ids made stable.
pub(crate) fn captured(log: &Path, dirs: &Dirs, session: &Session) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let line = line
                .replace(
                    &session.rollout_path().display().to_string(),
                    "[transcript]",
                )
                .replace(session.session_id(), "[session]")
                .replace(&dirs.cwd.display().to_string(), "[cwd]")
                .replace(&dirs.home.display().to_string(), "[home]");
            let mut value: Value = serde_json::from_str(&line).unwrap();
            if let Some(id) = value.get_mut("agent_id") {
                assert!(id.as_str().unwrap().starts_with("agent-"), "{id}");
                *id = Value::String("agent-[id]".to_string());
            }
            value
        })
        .collect()
}

#[tokio::test]
async fn every_event_sends_the_documented_input() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("AGENTS.md"), "Run the tests with make.\n").unwrap();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    skill(
        &dirs.cwd,
        "greet",
        "name: greet\ndescription: Greets someone.\n",
        "Greet $ARGUMENTS warmly.",
    );
    let log = dirs.home.join("hooks.jsonl");
    let model = ScriptedModelClient::new("test-model");
    // Turn 1: two reads in one response (one fails), a shell command asking approval, a todo
    // created completed, a subagent, the answer.
    model.push(
        ScriptedResponse::new()
            .with_function_call("call_read", "read_file", r#"{"path": "a.txt"}"#)
            .with_function_call("call_missing", "read_file", r#"{"path": "missing.txt"}"#),
    );
    model.push(ScriptedResponse::new().with_function_call(
        "call_shell",
        "shell",
        r#"{"command": "echo hi"}"#,
    ));
    model.push(ScriptedResponse::new().with_function_call(
        "call_todo",
        "todo_write",
        r#"{"todos": [{"content": "Write the tests", "status": "completed", "activeForm": "Writing the tests"}]}"#,
    ));
    model.push(ScriptedResponse::new().with_function_call(
        "call_task",
        "task",
        r#"{"agent": "Explore", "prompt": "Find the tests", "description": "Find tests"}"#,
    ));
    model.push(ScriptedResponse::text("The tests are in tests/."));
    model.push(ScriptedResponse::text("Done."));
    // `/compact`: the summary.
    model.push(ScriptedResponse::text(
        "The user asked for tests; they were written.",
    ));
    // `/greet world`: the skill's turn.
    model.push(ScriptedResponse::text("Hello, world!"));
    // A turn the provider refuses.
    model.push_error(ModelError::Auth {
        status: 401,
        body: "invalid x-api-key".to_string(),
    });

    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.approval = ApprovalPolicy::OnRequest;
    options.approver = Some(Arc::new(FixedApprover(ApprovalDecision::Approved)));
    for event in EVENTS {
        options
            .hooks
            .events
            .insert(event.to_string(), vec![capture(&log)]);
    }
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    let outcome = session.run_turn("write the tests", &cancel).await.unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Done."));
    session
        .run_input("/compact keep the tests", &cancel)
        .await
        .unwrap();
    session.run_input("/greet world", &cancel).await.unwrap();
    assert!(session.run_turn("once more", &cancel).await.is_err());
    session.end(SessionEndReason::PromptInputExit).await;

    let inputs = captured(&log, &dirs, &session);
    let mut by_event: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for input in inputs {
        let name = input["hook_event_name"].as_str().unwrap().to_string();
        by_event.entry(name).or_default().push(input);
    }
    let mut fired: Vec<&str> = by_event.keys().map(String::as_str).collect();
    let mut expected = EVENTS.to_vec();
    fired.sort_unstable();
    expected.sort_unstable();
    assert_eq!(fired, expected);
    for (event, inputs) in &mut by_event {
        // The hooks of parallel tool calls run in either order.
        inputs.sort_by_key(Value::to_string);
        insta::assert_json_snapshot!(format!("input_{event}"), inputs);
    }
}
