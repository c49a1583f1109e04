//! The `skill` tool: registered when skills are loaded, its prompt returned to the model and the
//! invocation recorded for the invoked-skills reminder.

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

#[tokio::test]
async fn the_model_invokes_a_skill_and_the_session_records_it() {
    let dirs = dirs();
    let skill_dir = dirs.cwd.join(".agentctx/skills/greet");
    std::fs::create_dir_all(&skill_dir).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n",
    )
    .unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_skill",
        "skill",
        r#"{"skill":"greet","args":"Ada"}"#,
    ));
    model.push(ScriptedResponse::text("Hello, Ada!"));
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    assert!(session.tools_mut().get("skill").is_some());
    session
        .run_turn("Greet Ada", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    let tool = prompts[0]
        .tools
        .iter()
        .find(|tool| tool.name == "skill")
        .unwrap();
    assert!(
        tool.description.contains("- greet: Greet someone"),
        "{}",
        tool.description
    );
    let output = prompts[1]
        .items()
        .find_map(|item| match item {
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            _ => None,
        })
        .unwrap();
    assert!(output.ends_with("Say hello to Ada.\n"), "{output}");
    let state = session.state();
    assert_eq!(state.invoked_skills.len(), 1);
    assert_eq!(state.invoked_skills[0].name, "greet");
    assert_eq!(state.invoked_skills[0].path, skill_dir.join("SKILL.md"));
}

#[tokio::test]
async fn without_skills_there_is_no_skill_tool() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model))).unwrap();
    assert!(session.tools_mut().get("skill").is_none());
}
