//! A `context: fork` skill runs as a subagent with the skill's own settings, typed or invoked by
//! the model: the agent's tools cut to its `allowed-tools`, its `model` for the subagent's
//! requests, and its `hooks` around the subagent's tool calls (its `Stop` hooks as
//! `SubagentStop`), as Claude Code's forked skills run (<https://code.claude.com/docs/en/skills>,
//! "Run skills in a subagent"; <https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>).
//! Every test talks to a wiremock server speaking the Responses SSE wire format.

use agentctx_core::InputOutcome;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::dirs;
use super::support::input_texts;
use super::support::invoke;
use super::support::responses_session;
use super::support::responses_sse;
use super::support::server;
use super::support::skill;
use super::support::tool_names;
use super::support::two_model_config;
use super::support::two_model_session;

#[tokio::test]
async fn a_forked_skills_subagent_is_offered_only_the_allowed_tools() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("notes.txt"), "a note\n").unwrap();
    skill(
        &dirs.cwd,
        "reader",
        "description: Read the notes\ncontext: fork\nallowed-tools: [read_file]\n",
        "Read notes.txt.",
    );
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "reader")], 900),
        // The subagent (Explore: read_file, grep, glob, list_dir) offered only read_file; a
        // grep it saw nowhere is refused all the same.
        responses_sse(
            &[
                call("call_read", "read_file", json!({"path": "notes.txt"})),
                call("call_grep", "grep", json!({"pattern": "note"})),
            ],
            400,
        ),
        responses_sse(&[Out::Text("It holds a note.")], 500),
        responses_sse(&[Out::Text("A note.")], 1_000),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    session
        .run_turn("What do the notes say?", &CancellationToken::new())
        .await
        .unwrap();

    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 4);
    assert!(tool_names(&sent[0]).contains(&"skill".to_string()));
    assert_eq!(tool_names(&sent[1]), ["read_file"]);
    insta::assert_json_snapshot!("forked_skill_subagent_tools", sent[1]["tools"]);
    assert_eq!(tool_names(&sent[2]), ["read_file"]);
    let outputs = call_outputs(&sent[2]);
    assert!(outputs[0].contains("a note"), "{outputs:?}");
    assert_eq!(
        outputs[1],
        "Error: the tool `grep` is not allowed while the skill `reader` runs; allowed tools: read_file"
    );
    // The parent keeps its own tools; the skill tool's output is the report.
    assert_eq!(tool_names(&sent[3]), tool_names(&sent[0]));
    assert_eq!(call_outputs(&sent[3]), ["It holds a note."]);
}

#[tokio::test]
async fn a_typed_forked_skill_limits_the_agents_tools_and_adds_none() {
    let dirs = dirs();
    // `Write` is allowed but the Explore agent has no write tool: none is added.
    skill(
        &dirs.cwd,
        "lister",
        "description: List the files\ncontext: fork\nallowed-tools: [Write, LS]\n",
        "List the files.",
    );
    let server = server(vec![responses_sse(&[Out::Text("Two files.")], 400)]).await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let outcome = session
        .run_input("/lister", &CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(&outcome, InputOutcome::Forked { answer, .. } if answer == "Two files."),
        "{outcome:?}"
    );
    let sent = bodies(&server).await;
    assert_eq!(tool_names(&sent[0]), ["list_dir"]);
}

#[tokio::test]
async fn a_forked_skills_subagent_asks_the_skills_model_and_the_parent_keeps_its_own() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "quick",
        "description: A quick survey\ncontext: fork\nmodel: small-model\n",
        "Survey briefly.",
    );
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "quick")], 2_000),
        // The subagent's request.
        responses_sse(&[Out::Text("Brief survey.")], 300),
        responses_sse(&[Out::Text("Surveyed.")], 2_100),
        // Typed, on the next input: the subagent again on the skill's model.
        responses_sse(&[Out::Text("Brief again.")], 300),
    ])
    .await;
    let config = two_model_config(&server);
    let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
    let cancel = CancellationToken::new();
    session.run_turn("Survey it", &cancel).await.unwrap();
    assert_eq!(session.model_slug(), "big-model");
    session.run_input("/quick", &cancel).await.unwrap();
    assert_eq!(session.model_slug(), "big-model");

    let sent = bodies(&server).await;
    let models: Vec<&str> = sent
        .iter()
        .map(|body| body["model"].as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        ["big-model", "small-model", "big-model", "small-model"]
    );
    assert_eq!(call_outputs(&sent[2]), ["Brief survey."]);
}

#[tokio::test]
async fn a_forked_skill_whose_model_cannot_be_resolved_fails_with_a_clear_error() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "elsewhere",
        "description: On another model\ncontext: fork\nmodel: other-model\n",
        "Look around.",
    );
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "elsewhere")], 900),
        responses_sse(&[Out::Text("It did not run.")], 1_000),
    ])
    .await;
    // No model resolver: this session cannot reach another model.
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();
    session.run_turn("Look", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 2, "no request went to a subagent");
    assert_eq!(
        call_outputs(&sent[1]),
        [
            "Error: skill `elsewhere` (forked) failed: this session cannot change its model (no model resolver)"
        ]
    );

    let typed = session.run_input("/elsewhere", &cancel).await.unwrap_err();
    assert_eq!(
        typed.to_string(),
        "skill `elsewhere` (forked) failed: this session cannot change its model (no model resolver)"
    );
}

/// A forked skill whose `PreToolUse` hook refuses reads (exit 2), as Claude Code's "Hooks in
/// skills and agents" writes them (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>).
const SEALED: &str = "description: No reading\ncontext: fork\nhooks:\n  PreToolUse:\n    - matcher: Read\n      hooks:\n        - type: command\n          command: \"echo reads are sealed >&2; exit 2\"\n";

#[tokio::test]
async fn a_forked_skills_pre_tool_use_hook_blocks_the_subagents_call() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("notes.txt"), "a secret\n").unwrap();
    skill(&dirs.cwd, "sealed", SEALED, "Try to read notes.txt.");
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "sealed")], 900),
        responses_sse(
            &[call("call_read", "read_file", json!({"path": "notes.txt"}))],
            400,
        ),
        responses_sse(&[Out::Text("Could not read it.")], 500),
        responses_sse(&[Out::Text("Sealed.")], 1_000),
        // The next turn: the skill's hook ended with its subagent.
        responses_sse(
            &[call(
                "call_read_2",
                "read_file",
                json!({"path": "notes.txt"}),
            )],
            1_100,
        ),
        responses_sse(&[Out::Text("Read.")], 1_200),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();
    session.run_turn("Read the notes", &cancel).await.unwrap();
    session
        .run_turn("Read them yourself", &cancel)
        .await
        .unwrap();

    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 6);
    assert_eq!(
        call_outputs(&sent[2]),
        ["Error: a PreToolUse hook blocked this call: reads are sealed"]
    );
    assert_eq!(call_outputs(&sent[3]), ["Could not read it."]);
    let parent_read = call_outputs(&sent[5]);
    assert!(
        parent_read.last().unwrap().contains("a secret"),
        "{parent_read:?}"
    );
}

/// A forked skill whose `Stop` hook (a `SubagentStop` hook in its subagent) refuses the first
/// end with an instruction, then lets it end.
const CHECKED: &str = "description: Checked survey\ncontext: fork\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: \"cat > stop-input.json; [ -f stopped ] && exit 0; touch stopped; echo name the line numbers too >&2; exit 2\"\n";

#[tokio::test]
async fn a_forked_skills_stop_hook_runs_as_subagent_stop_and_keeps_it_going() {
    let dirs = dirs();
    skill(&dirs.cwd, "checked", CHECKED, "Survey the notes.");
    let server = server(vec![
        responses_sse(&[Out::Text("A survey.")], 400),
        responses_sse(&[Out::Text("A survey, lines 1-3.")], 500),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let outcome = session
        .run_input("/checked", &CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(&outcome, InputOutcome::Forked { answer, .. } if answer == "A survey, lines 1-3."),
        "{outcome:?}"
    );
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 2);
    let texts = input_texts(&sent[1]);
    assert_eq!(texts.last().unwrap(), "name the line numbers too");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dirs.cwd.join("stop-input.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "SubagentStop");
    assert_eq!(input["stop_hook_active"], true);
    assert_eq!(input["last_assistant_message"], "A survey, lines 1-3.");
}
