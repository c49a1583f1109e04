//! What the user types, through `Session::run_input`: a skill typed as `/name args` runs its
//! expanded prompt with its tool limit, the running guard and usage tracking; the built-ins
//! answer without the model; an unknown command is one line naming the close ones.

use std::sync::Arc;

use agentctx_core::ContextCategory;
use agentctx_core::InputOutcome;
use agentctx_core::Session;
use agentctx_core::SlashCommandError;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::dirs;
use super::support::input_texts;
use super::support::options;
use super::support::responses_session;
use super::support::responses_sse;
use super::support::server;
use super::support::skill;
use super::support::tool_names;

/// A project skill `commit` limited to git commands and reading, as Claude Code writes one.
fn commit_skill(cwd: &std::path::Path) -> std::path::PathBuf {
    skill(
        cwd,
        "commit",
        "description: Commit the staged work\nallowed-tools: [\"Bash(git *)\", \"Read\"]\n",
        "Write a commit for: $ARGUMENTS",
    )
}

#[tokio::test]
async fn a_typed_skill_runs_its_prompt_with_its_tool_limit() {
    let dirs = dirs();
    let skill_path = commit_skill(&dirs.cwd);
    let server = server(vec![
        responses_sse(
            &[
                call(
                    "call_write",
                    "write_file",
                    json!({"path": "notes.txt", "content": "x"}),
                ),
                call("call_rm", "shell", json!({"command": "rm -rf src"})),
            ],
            900,
        ),
        responses_sse(&[Out::Text("Nothing to commit.")], 1_000),
        responses_sse(&[Out::Text("Plain answer.")], 1_100),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();

    let outcome = session
        .run_input("/commit fix the tests", &cancel)
        .await
        .unwrap();
    let InputOutcome::Turn(turn) = outcome else {
        panic!("expected a turn, got {outcome:?}");
    };
    assert_eq!(turn.last_message.as_deref(), Some("Nothing to commit."));

    let sent = bodies(&server).await;
    // The skill's turn offers only what it allows, in the registry's order.
    assert_eq!(tool_names(&sent[0]), ["read_file", "shell"]);
    let texts = input_texts(&sent[0]);
    assert!(
        texts
            .iter()
            .any(|text| text.ends_with("Write a commit for: fix the tests\n")),
        "{texts:#?}"
    );
    // A call to a tool it does not allow, and a shell command outside its rule, are refused.
    assert_eq!(
        call_outputs(&sent[1]),
        [
            "Error: the tool `write_file` is not allowed while the skill `commit` runs; allowed tools: shell, read_file",
            "Error: the skill `commit` allows only shell commands matching `git *`; `rm -rf src` was not run",
        ]
    );
    assert!(!dirs.cwd.join("notes.txt").exists());

    // The invocation is recorded as the skill tool records it, and its use counted.
    {
        let state = session.state();
        assert_eq!(state.invoked_skills.len(), 1);
        assert_eq!(state.invoked_skills[0].name, "commit");
        assert_eq!(state.invoked_skills[0].path, skill_path);
    }
    let usage = agentctx_skills::SkillUsageTracker::load(
        &dirs.home.join(agentctx_core::SKILL_USAGE_FILE),
        7.0,
    )
    .unwrap();
    assert_eq!(usage.usage("commit").unwrap().usage_count, 1);

    // After the skill, the next turn has every tool again.
    session.run_input("hello", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    let all = tool_names(&sent[2]);
    assert!(all.contains(&"write_file".to_string()), "{all:?}");
}

#[tokio::test]
async fn the_model_cannot_run_a_skill_the_user_is_running() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "review",
        "description: Review the diff\n",
        "Review $ARGUMENTS.",
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_skill",
        "skill",
        r#"{"skill":"review","args":"again"}"#,
    ));
    model.push(ScriptedResponse::text("Reviewed."));
    model.push(ScriptedResponse::new().with_function_call(
        "call_skill_2",
        "skill",
        r#"{"skill":"review","args":"later"}"#,
    ));
    model.push(ScriptedResponse::text("Done."));
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let cancel = CancellationToken::new();
    session
        .run_input("/review the parser", &cancel)
        .await
        .unwrap();
    // Once the typed run ended, the model may run it.
    session.run_input("go on", &cancel).await.unwrap();
    let prompts = model.prompts();
    let output_of = |index: usize, call: &str| {
        prompts[index]
            .items()
            .find_map(|item| match item {
                ResponseItem::FunctionCallOutput {
                    call_id, output, ..
                } if call_id == call => Some(output.text_content()),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(
        output_of(1, "call_skill"),
        "Error: skill `review` is already running"
    );
    assert!(
        output_of(3, "call_skill_2").ends_with("Review later.\n"),
        "{}",
        output_of(3, "call_skill_2")
    );
}

#[tokio::test]
async fn an_unknown_command_names_the_close_ones_and_calls_no_model() {
    let dirs = dirs();
    commit_skill(&dirs.cwd);
    let model = ScriptedModelClient::new("test-model");
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let error = session
        .run_input("/comit now", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, SlashCommandError::Unknown { .. }));
    assert_eq!(
        error.to_string(),
        "unknown command `/comit` (did you mean /commit?); /help lists the commands"
    );
    assert!(model.prompts().is_empty());
    // A path is not a command: it is sent as typed.
    model.push(ScriptedResponse::text("ok"));
    session
        .run_input("/usr/bin/env is missing", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(model.prompts().len(), 1);
}

#[tokio::test]
async fn help_plan_and_context_answer_without_the_model() {
    let dirs = dirs();
    commit_skill(&dirs.cwd);
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("First answer."));
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let cancel = CancellationToken::new();
    session.run_input("read the README", &cancel).await.unwrap();

    let InputOutcome::Command(help) = session.run_input("/help", &cancel).await.unwrap() else {
        panic!("/help is a command");
    };
    insta::assert_snapshot!("help", help);

    let InputOutcome::Command(context) = session.run_input("/context", &cancel).await.unwrap()
    else {
        panic!("/context is a command");
    };
    for line in [
        "Context usage: test-model • ",
        "System prompt:",
        "Tools:",
        "Environment and instructions:",
        "Reminders:",
        "User messages:",
        "Assistant messages:",
        "Tool calls and results:",
        "Compaction summaries:",
        "Free space:",
        "Thresholds: warning at ",
    ] {
        assert!(context.contains(line), "{line}: {context}");
    }
    let view = session.context_view();
    let count = |wanted: ContextCategory| {
        view.categories
            .iter()
            .find(|(category, _, _)| *category == wanted)
            .map(|(_, _, count)| *count)
            .unwrap()
    };
    assert_eq!(count(ContextCategory::UserMessages), 1, "{view:?}");
    assert_eq!(count(ContextCategory::AssistantMessages), 1, "{view:?}");

    let InputOutcome::Command(plan) = session.run_input("/plan", &cancel).await.unwrap() else {
        panic!("/plan is a command");
    };
    assert!(plan.starts_with("Plan mode on"), "{plan}");
    assert!(session.state().plan.active);
    // One model request in all: the first turn.
    assert_eq!(model.prompts().len(), 1);
}

#[tokio::test]
async fn a_forked_skill_runs_as_a_subagent_and_its_report_is_the_answer() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "survey",
        "description: Survey the code\ncontext: fork\nagent: Explore\n",
        "List the modules of $ARGUMENTS.",
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Three modules: a, b, c."));
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let outcome = session
        .run_input("/survey src", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome,
        InputOutcome::Forked {
            skill: "survey".to_string(),
            answer: "Three modules: a, b, c.".to_string(),
        }
    );
    // The subagent's request: the Explore agent's system prompt and read-only tools, the
    // skill's prompt as its task.
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 1);
    assert!(
        prompts[0].instructions.contains("file search specialist"),
        "{}",
        prompts[0].instructions
    );
    let tools: Vec<&str> = prompts[0]
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert!(!tools.contains(&"write_file"), "{tools:?}");
    let asked = prompts[0]
        .items()
        .filter_map(ResponseItem::message_text)
        .any(|text| text.ends_with("List the modules of src.\n"));
    assert!(asked);
    // The main history did not grow; the invocation is recorded.
    assert!(session.history().is_empty());
    assert_eq!(session.state().invoked_skills[0].name, "survey");
}

#[tokio::test]
async fn compact_with_instructions_adds_them_to_the_summary_prompt() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("The parser reads ranges."));
    model.push(ScriptedResponse::text(
        "<summary>We looked at the parser's ranges.</summary>",
    ));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session
        .run_input("How does the parser read ranges?", &cancel)
        .await
        .unwrap();
    let outcome = session
        .run_input("/compact keep the names of the functions", &cancel)
        .await
        .unwrap();
    assert!(
        matches!(&outcome, InputOutcome::Command(text) if text.starts_with("Compacted")),
        "{outcome:?}"
    );
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 2, "one summary request");
    let last = prompts[1]
        .items()
        .filter_map(ResponseItem::message_text)
        .last()
        .unwrap();
    assert!(
        last.ends_with("\n\nAdditional Instructions:\nkeep the names of the functions"),
        "{last}"
    );
    assert!(
        session
            .history()
            .iter()
            .filter_map(ResponseItem::message_text)
            .any(|text| text.contains("We looked at the parser's ranges.")),
        "the summary replaces the history"
    );
}
