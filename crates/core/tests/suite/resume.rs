//! Resuming a recorded session: history, todos and plan mode come back from the rollout.

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

#[tokio::test]
async fn resume_restores_history_todos_and_plan_mode() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(
        ScriptedResponse::new()
            .with_function_call(
                "call_todo",
                "todo_write",
                r#"{"todos":[{"content":"Write the plan","status":"in_progress","activeForm":"Writing the plan"}]}"#,
            )
            .with_function_call("call_plan", "enter_plan_mode", "{}"),
    );
    model.push(ScriptedResponse::text("Planning now."));
    let (mut first, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    first
        .run_turn("Plan the refactor", &CancellationToken::new())
        .await
        .unwrap();
    let plan_file = first.state().plan.plan_file.clone().unwrap();
    let path = first.rollout_path().to_path_buf();
    let id = first.session_id().to_string();
    let history_len = first.history().len();
    drop(first);

    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Continuing the plan."));
    let (mut resumed, _events) =
        Session::resume(options(&dirs, Arc::new(model.clone())), &path).unwrap();
    assert_eq!(resumed.session_id(), id);
    assert_eq!(resumed.history().len(), history_len);
    {
        let state = resumed.state();
        assert_eq!(state.turn, 1);
        assert_eq!(state.todos.len(), 1);
        assert_eq!(state.todos[0].status, TodoStatus::InProgress);
        assert!(state.plan.active);
        assert_eq!(state.plan.plan_file.as_ref(), Some(&plan_file));
    }

    let outcome = resumed
        .run_turn("Go on", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.turn, 2);
    let prompt = model.last_prompt().unwrap();
    let texts: Vec<String> = prompt
        .items()
        .filter_map(agentctx_protocol::ResponseItem::message_text)
        .collect();
    assert!(
        texts.iter().any(|text| text == "Plan the refactor"),
        "{texts:#?}"
    );
    assert!(texts.iter().any(|text| text == "Go on"), "{texts:#?}");
    // Plan mode is still on, so its reminder is there.
    assert!(
        texts
            .iter()
            .any(|text| text.starts_with("<system-reminder>") && text.contains("Plan mode")),
        "{texts:#?}"
    );

    // The resumed turn appended to the same file.
    let file = agentctx_rollout::read_rollout(&path).unwrap();
    assert!(
        file.items()
            .any(|item| item.message_text().as_deref() == Some("Continuing the plan."))
    );
}

#[tokio::test]
async fn a_resumed_plan_file_outside_the_plans_folder_is_not_trusted() {
    // A rollout edited (or crafted) to name another file as the plan file: plan mode lets the
    // plan file be written, so trusting it would let a resumed session write anywhere.
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call("call_plan", "enter_plan_mode", "{}"));
    model.push(ScriptedResponse::text("Planning now."));
    let (mut first, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    first
        .run_turn("Plan the refactor", &CancellationToken::new())
        .await
        .unwrap();
    let plan_file = first.state().plan.plan_file.clone().unwrap();
    let path = first.rollout_path().to_path_buf();
    drop(first);
    let victim = dirs.home.parent().unwrap().join("victim.md");
    std::fs::write(&victim, "untouched\n").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let plan = plan_file.display().to_string();
    assert!(text.contains(&plan), "the rollout names the plan file");
    std::fs::write(&path, text.replace(&plan, &victim.display().to_string())).unwrap();

    let model = ScriptedModelClient::new("test-model");
    model.push(
        ScriptedResponse::new().with_function_call(
            "call_write",
            "write_file",
            serde_json::json!({"path": victim.display().to_string(), "content": "overwritten\n"})
                .to_string(),
        ),
    );
    model.push(ScriptedResponse::text("Done."));
    let (mut resumed, _events) =
        Session::resume(options(&dirs, Arc::new(model.clone())), &path).unwrap();
    {
        let state = resumed.state();
        assert!(state.plan.active, "plan mode itself is restored");
        assert_ne!(state.plan.plan_file.as_ref(), Some(&victim));
    }
    resumed
        .run_turn("Write it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
}
