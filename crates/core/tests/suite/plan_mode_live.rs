//! Plan mode in a live session: the model searches the code with the read-only tools, every
//! write but the plan file is refused, and a subagent started while the parent plans gets the
//! sub-agent plan-mode text. Against a wiremock Responses server speaking SSE.

use std::collections::VecDeque;
use std::sync::Mutex;

use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::method;

use super::support::Out;
use super::support::Queue;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::client;
use super::support::dirs;
use super::support::input_texts;
use super::support::options;
use super::support::responses_sse;

#[tokio::test]
async fn plan_mode_greps_the_code_and_writes_only_the_plan_file() {
    let dirs = dirs();
    std::fs::create_dir_all(dirs.cwd.join("src")).unwrap();
    std::fs::write(dirs.cwd.join("src/lib.rs"), "pub mod parser;\n").unwrap();
    std::fs::write(
        dirs.cwd.join("src/parser.rs"),
        "pub fn parse(input: &str) -> u32 {\n    input.len() as u32\n}\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.plan_mode = true;
    let (mut session, _events) = Session::new(options).unwrap();
    let plan_file = session.state().plan.plan_file.clone().unwrap();
    let plan_path = plan_file.display().to_string();
    let replies = vec![
        responses_sse(
            &[call(
                "call_grep",
                "grep",
                json!({"pattern": "fn parse", "output_mode": "content"}),
            )],
            1_000,
        ),
        responses_sse(
            &[call(
                "call_edit",
                "write_file",
                json!({"path": "src/lib.rs", "content": "changed\n"}),
            )],
            1_100,
        ),
        responses_sse(
            &[Out::Call {
                call_id: "call_plan",
                name: "write_file",
                arguments: json!({"path": plan_path, "content": "# Plan\n1. Split parse into lex and parse.\n"}),
            }],
            1_200,
        ),
        responses_sse(&[Out::Text("The plan is written.")], 1_300),
    ];
    Mock::given(method("POST"))
        .respond_with(Queue(Mutex::new(VecDeque::from(replies))))
        .mount(&server)
        .await;

    let outcome = session
        .run_turn("Plan how to split the parser", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.last_message.as_deref(),
        Some("The plan is written.")
    );

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 4);
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for tool in ["grep", "glob", "list_dir", "ask_user"] {
        assert!(tools.contains(&tool), "{tools:?}");
    }
    assert!(
        input_texts(&bodies[0])
            .iter()
            .any(|text| text.contains("Plan mode is active")),
        "the plan-mode reminder reaches the model"
    );
    let outputs = call_outputs(&bodies[3]);
    assert_eq!(outputs.len(), 3, "{outputs:#?}");
    assert_eq!(
        outputs[0],
        "src/parser.rs:1:pub fn parse(input: &str) -> u32 {\n"
    );
    assert!(
        outputs[1].contains("plan mode is on, so"),
        "the source write is refused: {}",
        outputs[1]
    );
    assert!(!outputs[2].starts_with("Error"), "{}", outputs[2]);
    assert_eq!(
        std::fs::read_to_string(dirs.cwd.join("src/lib.rs")).unwrap(),
        "pub mod parser;\n"
    );
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Plan\n1. Split parse into lex and parse.\n"
    );
}

#[tokio::test]
async fn a_subagent_started_while_the_parent_plans_gets_the_sub_agent_plan_text() {
    let dirs = dirs();
    let server = MockServer::start().await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.plan_mode = true;
    let (mut session, _events) = Session::new(options).unwrap();
    let replies = vec![
        responses_sse(
            &[call(
                "call_task",
                "task",
                json!({"agent": "Explore", "prompt": "Where is the parser?"}),
            )],
            1_000,
        ),
        responses_sse(&[Out::Text("In src/parser.rs.")], 500),
        responses_sse(&[Out::Text("Found.")], 1_100),
    ];
    Mock::given(method("POST"))
        .respond_with(Queue(Mutex::new(VecDeque::from(replies))))
        .mount(&server)
        .await;
    session
        .run_turn("Plan the parser change", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    let sub = input_texts(&bodies[1]);
    let plan_text = sub
        .iter()
        .find(|text| text.contains("Plan mode is active"))
        .unwrap_or_else(|| panic!("no plan-mode text in the subagent's request: {sub:#?}"));
    // The sub-agent form (no 5-phase workflow), naming the parent's plan file.
    assert!(
        plan_text.contains("Answer the user's query comprehensively"),
        "{plan_text}"
    );
    assert!(!plan_text.contains("Phase 1"), "{plan_text}");
    let plan_file = session.state().plan.plan_file.clone().unwrap();
    assert!(
        plan_text.contains(&plan_file.display().to_string()),
        "{plan_text}"
    );
}

/// After a compaction the plan is pointed at again with its content (`plan_file_reference`):
/// the summary may not carry it, and plan mode's own reminder names only the file.
#[tokio::test]
async fn after_a_compaction_in_plan_mode_the_next_request_carries_the_plan() {
    let dirs = dirs();
    let server = MockServer::start().await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.plan_mode = true;
    let (mut session, _events) = Session::new(options).unwrap();
    let plan_file = session.state().plan.plan_file.clone().unwrap();
    let plan = "# Plan\n1. Split parse into lex and parse.\n2. Test the lexer alone.\n";
    let replies = vec![
        responses_sse(
            &[call(
                "call_plan",
                "write_file",
                json!({"path": plan_file.display().to_string(), "content": plan}),
            )],
            1_000,
        ),
        responses_sse(&[Out::Text("The plan is written.")], 1_100),
        // The summary of the manual compaction.
        responses_sse(&[Out::Text("We planned to split the parser.")], 1_200),
        responses_sse(&[Out::Text("Still planning.")], 300),
    ];
    Mock::given(method("POST"))
        .respond_with(Queue(Mutex::new(VecDeque::from(replies))))
        .mount(&server)
        .await;
    let cancel = CancellationToken::new();
    session
        .run_input("Plan the parser split", &cancel)
        .await
        .unwrap();
    session.run_input("/compact", &cancel).await.unwrap();
    session.run_input("Go on planning", &cancel).await.unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 4);
    let reference = format!(
        "A plan file exists from plan mode at: {}",
        plan_file.display()
    );
    let carrying: Vec<usize> = bodies
        .iter()
        .enumerate()
        .filter(|(_, body)| body["input"].to_string().contains(&reference))
        .map(|(index, _)| index + 1)
        .collect();
    // Only the request after the compaction, with the plan's content.
    assert_eq!(carrying, vec![4]);
    let texts = input_texts(&bodies[3]);
    let text = texts.iter().find(|text| text.contains(&reference)).unwrap();
    assert!(text.contains("2. Test the lexer alone."), "{text}");
}
