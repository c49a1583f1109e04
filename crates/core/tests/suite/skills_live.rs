//! A skill runs with everything its frontmatter says, typed or invoked by the model through the
//! `skill` tool: its hooks run beside the session's while it is active (a `once` hook once a
//! session), its `allowed-tools` limit the tools offered for the rest of the turn, its `model`
//! answers the turn's next requests, and a `context: fork` skill answers from a subagent. Every
//! test talks to a wiremock server speaking the Responses SSE wire format.

use std::path::Path;

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

/// The tool names of every request a replay of the session's rollout rebuilds.
fn replayed_tool_names(rollout: &Path, home: &Path) -> Vec<Vec<String>> {
    struct Tools(Vec<Vec<String>>);
    impl agentctx_engine::replay::RequestSink for Tools {
        fn request(
            &mut self,
            _request: usize,
            prompt: &agentctx_model::Prompt<'_>,
        ) -> std::io::Result<()> {
            self.0
                .push(prompt.tools.iter().map(|tool| tool.name.clone()).collect());
            Ok(())
        }
    }
    let options = agentctx_engine::replay::ReplayOptions {
        home: home.to_path_buf(),
        ..agentctx_engine::replay::ReplayOptions::default()
    };
    let mut tools = Tools(Vec::new());
    agentctx_engine::replay::replay_file(rollout, &options, Some(&mut tools)).unwrap();
    tools.0
}

/// The `(turn_id, model)` of every `turn_context` line of the rollout.
fn turn_contexts(rollout: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(rollout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["type"] == "turn_context")
        .map(|line| {
            (
                line["payload"]["turn_id"].as_str().unwrap().to_string(),
                line["payload"]["model"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The lines of `path` (none when it does not exist).
fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// A skill whose hooks block writes (exit 2), log reads, and log once a session, as Claude
/// Code's "Hooks in skills and agents" writes them
/// (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>).
const GUARDED: &str = "description: Careful edits\nhooks:\n  PreToolUse:\n    - matcher: Write\n      hooks:\n        - type: command\n          command: \"echo writes are blocked while guarded runs >&2; exit 2\"\n    - matcher: Read\n      hooks:\n        - type: command\n          command: \"echo read >> reads.log\"\n          timeout: 10\n        - type: command\n          command: \"echo once >> once.log\"\n          once: true\n";

fn read(call_id: &'static str) -> Out {
    call(call_id, "read_file", json!({"path": "notes.txt"}))
}

fn write(call_id: &'static str) -> Out {
    call(
        call_id,
        "write_file",
        json!({"path": "out.txt", "content": "x"}),
    )
}

#[tokio::test]
async fn a_skills_hooks_run_while_it_is_active_and_a_once_hook_once_a_session() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("notes.txt"), "a note\n").unwrap();
    skill(&dirs.cwd, "guarded", GUARDED, "Edit carefully.");
    let server = server(vec![
        // Turn 1: the model invokes the skill, then reads and writes.
        responses_sse(&[invoke("call_skill", "guarded")], 900),
        responses_sse(&[read("call_read"), write("call_write")], 1_000),
        responses_sse(&[Out::Text("Guarded.")], 1_100),
        // Turn 2: the skill ended with turn 1; nothing blocks or logs.
        responses_sse(&[read("call_read_2"), write("call_write_2")], 1_200),
        responses_sse(&[Out::Text("Free.")], 1_300),
        // Turn 3: the user types the skill; its hooks run again, the `once` one does not.
        responses_sse(&[read("call_read_3"), write("call_write_3")], 1_400),
        responses_sse(&[Out::Text("Guarded again.")], 1_500),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();
    let (reads, once, out) = (
        dirs.cwd.join("reads.log"),
        dirs.cwd.join("once.log"),
        dirs.cwd.join("out.txt"),
    );

    session.run_turn("Edit the notes", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    let outputs = call_outputs(&sent[2]);
    assert_eq!(
        outputs.last().unwrap(),
        "Error: a PreToolUse hook blocked this call: writes are blocked while guarded runs"
    );
    assert!(!out.exists());
    assert_eq!((lines(&reads), lines(&once)), (1, 1));

    session.run_turn("Edit them again", &cancel).await.unwrap();
    assert!(
        out.exists(),
        "the write ran: the skill's hooks left with it"
    );
    assert_eq!((lines(&reads), lines(&once)), (1, 1));

    std::fs::remove_file(&out).unwrap();
    session
        .run_input("/guarded the notes", &cancel)
        .await
        .unwrap();
    assert!(!out.exists());
    assert_eq!((lines(&reads), lines(&once)), (2, 1));
}

#[tokio::test]
async fn a_skill_the_model_invokes_limits_the_tools_for_the_rest_of_the_turn() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "reader",
        "description: Read only\nallowed-tools: [read_file]\n",
        "Only read.",
    );
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "reader")], 900),
        // The skill is running: a second run in the same turn is refused.
        responses_sse(&[invoke("call_skill_again", "reader")], 1_000),
        responses_sse(&[Out::Text("Read.")], 1_100),
        responses_sse(&[Out::Text("Everything again.")], 1_200),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();
    session.run_turn("Look at it", &cancel).await.unwrap();
    session.run_turn("Now anything", &cancel).await.unwrap();

    let sent = bodies(&server).await;
    let all = tool_names(&sent[0]);
    assert!(all.contains(&"write_file".to_string()), "{all:?}");
    // After the call, only what the skill allows, and the skill tool.
    assert_eq!(tool_names(&sent[1]), ["read_file", "skill"]);
    insta::assert_json_snapshot!("model_invoked_skill_tools", sent[1]["tools"]);
    assert_eq!(tool_names(&sent[2]), ["read_file", "skill"]);
    assert_eq!(
        call_outputs(&sent[2]).last().unwrap(),
        "Error: skill `reader` is already running"
    );
    // The next turn offers every tool again.
    assert_eq!(tool_names(&sent[3]), all);
    // One pipeline: the rollout records the limit where it began and where it ended, so a
    // replay rebuilds the requests with the tools the session sent.
    // The replay runs its own runtime: off this test's.
    let (rollout, home) = (session.rollout_path().to_path_buf(), dirs.home.clone());
    let replayed = tokio::task::spawn_blocking(move || replayed_tool_names(&rollout, &home))
        .await
        .unwrap();
    let sent_tools: Vec<Vec<String>> = sent.iter().map(tool_names).collect();
    assert_eq!(replayed, sent_tools);
}

#[tokio::test]
async fn a_skill_the_model_invokes_answers_on_its_model_and_the_next_turn_on_the_sessions() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "quick",
        "description: A quick answer\nmodel: small-model\n",
        "Answer briefly.",
    );
    let server = server(vec![
        responses_sse(&[invoke("call_skill", "quick")], 2_000),
        responses_sse(&[Out::Text("Brief.")], 2_100),
        responses_sse(&[Out::Text("Back on the big one.")], 2_200),
    ])
    .await;
    let config = two_model_config(&server);
    let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
    let cancel = CancellationToken::new();
    session.run_turn("What is 2+2?", &cancel).await.unwrap();
    assert_eq!(session.model_slug(), "big-model");
    session.run_turn("And you?", &cancel).await.unwrap();

    let sent = bodies(&server).await;
    let models: Vec<&str> = sent
        .iter()
        .map(|body| body["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["big-model", "small-model", "big-model"]);
    // The rollout says which model the turn's next requests went to, and when it came back:
    // a resume or a replay reads the last line before each request.
    let contexts = turn_contexts(session.rollout_path());
    let models: Vec<&str> = contexts.iter().map(|(_, model)| model.as_str()).collect();
    assert_eq!(
        models,
        ["big-model", "small-model", "big-model", "big-model"]
    );
    assert_eq!(
        contexts[0].0, contexts[1].0,
        "the switch is within the first turn"
    );
    assert_eq!(contexts[1].0, contexts[2].0, "and so is the way back");
    assert_ne!(contexts[2].0, contexts[3].0);
}

#[tokio::test]
async fn a_forked_skill_the_model_invokes_answers_with_the_subagents_report() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "survey",
        "description: Survey the code\ncontext: fork\nagent: Explore\n",
        "List the modules of $ARGUMENTS.",
    );
    let server = server(vec![
        responses_sse(
            &[call(
                "call_skill",
                "skill",
                json!({"skill": "survey", "args": "src"}),
            )],
            900,
        ),
        // The subagent's one request.
        responses_sse(&[Out::Text("Three modules: a, b, c.")], 400),
        responses_sse(&[Out::Text("There are three.")], 1_000),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let outcome = session
        .run_turn("How many modules?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("There are three."));

    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 3);
    // The subagent: the Explore agent's instructions, the skill's prompt as its task.
    assert!(
        sent[1]["instructions"]
            .as_str()
            .unwrap()
            .contains("file search specialist"),
        "{}",
        sent[1]["instructions"]
    );
    assert!(
        sent[1].to_string().contains("List the modules of src."),
        "{}",
        sent[1]
    );
    // The tool's output is the subagent's report, not the skill's prompt.
    assert_eq!(call_outputs(&sent[2]), ["Three modules: a, b, c."]);
    assert_eq!(session.state().invoked_skills[0].name, "survey");
}

#[tokio::test]
async fn a_skills_prompt_gets_its_arguments_directory_and_the_session_id_on_both_paths() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "note",
        "description: Take a note\narguments: [topic]\n",
        "Note $topic (first word $0) in ${CLAUDE_SKILL_DIR}/notes/${CLAUDE_SESSION_ID}.md",
    );
    let server = server(vec![
        responses_sse(&[Out::Text("Noted.")], 700),
        responses_sse(
            &[call(
                "call_note",
                "skill",
                json!({"skill": "note", "args": "\"release plan\" soon"}),
            )],
            800,
        ),
        responses_sse(&[Out::Text("Noted too.")], 900),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 100_000);
    let cancel = CancellationToken::new();
    session
        .run_input("/note \"release plan\" soon", &cancel)
        .await
        .unwrap();
    session
        .run_turn("Take another note", &cancel)
        .await
        .unwrap();

    let skill_dir = dirs.cwd.join(".agentctx/skills/note");
    let expected = format!(
        "Note release plan (first word release plan) in {}/notes/{}.md",
        skill_dir.display(),
        session.session_id()
    );
    let sent = bodies(&server).await;
    let typed = input_texts(&sent[0]);
    assert!(
        typed.iter().any(|text| text.contains(&expected)),
        "{expected}\n{typed:#?}"
    );
    let by_model = call_outputs(&sent[2]);
    assert!(
        by_model.iter().any(|text| text.contains(&expected)),
        "{expected}\n{by_model:#?}"
    );
}
